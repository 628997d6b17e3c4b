//! A `Translator` keeps at most `Translator::MAX_HELD_BYTES` of working memory between
//! translations, whatever it translated: measured after every corpus shader and after a
//! generated shader of 20,000 instructions, whose tables grow past every stage's share.

mod common;

use dxbc2spirv::{TranslateOptions, Translator};

/// A compute shader of `count` ALU instructions and a store.
fn long_shader(count: usize) -> Vec<u8> {
    let mut text = String::from(
        "cs_5_0\ndcl_uav_raw u0\ndcl_temps 4\ndcl_thread_group 1, 1, 1\nmov r0.xyzw, l(1, 2, 3, 4)\n",
    );
    for i in 0..count {
        let (dst, src) = (i % 4, (i + 1) % 4);
        text.push_str(&format!("iadd r{dst}.xyzw, r{src}.yzwx, l({i}, 1, 2, 3)\n"));
    }
    text.push_str("store_raw u0.xyzw, l(0), r0.xyzw\nret\n");
    dxbc2spirv::asm::assemble(&text).expect("the generated shader assembles")
}

#[test]
fn a_translator_keeps_at_most_its_bound() {
    let options = TranslateOptions::default();
    let mut translator = Translator::new();
    assert_eq!(translator.held_bytes(), 0, "a new translator holds nothing");
    let mut most = (0, String::new());
    let mut translated = 0;
    let mut blobs = common::corpus_blobs();
    blobs.push(("generated: 20,000 instructions".into(), long_shader(20_000)));
    // The corpus once more after the large shader: memory dropped is made again.
    blobs.extend(common::corpus_blobs().into_iter().take(50));
    for (name, bytes) in blobs {
        if translator.translate(&bytes, &options).is_ok() {
            translated += 1;
        }
        let held = translator.held_bytes();
        assert!(
            held <= Translator::MAX_HELD_BYTES,
            "after {name}: {held} bytes held, more than {}",
            Translator::MAX_HELD_BYTES
        );
        if held > most.0 {
            most = (held, name);
        }
    }
    assert!(translated > 1000, "only {translated} shaders translated");
    assert!(most.0 > 0, "a translator keeps memory for the next shader");
    eprintln!(
        "{translated} shaders: at most {} of {} bytes held (after {})",
        most.0,
        Translator::MAX_HELD_BYTES,
        most.1
    );
}
