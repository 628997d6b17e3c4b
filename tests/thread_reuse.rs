//! A translation must not depend on what the thread translated before it: the translator
//! keeps instruction lists, decoder arrays and its passes' tables from one translation to the
//! next on the same thread (to reuse their memory), and forgets their contents.
//!
//! Every `tests/in/*.asm` input is translated on a fresh thread of its own; then all of them
//! are translated one after another on one thread, forwards and backwards (so each follows
//! different shaders, small ones after large ones and the other way round), and once more
//! after `release_thread_buffers`. Every module must be word for word the fresh thread's.

use std::path::{Path, PathBuf};

use dxbc2spirv::TranslateOptions;

/// The assembled containers of `tests/in`, with their names, sorted by name.
fn containers() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("in");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no inputs in {}", dir.display());
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let bytes = dxbc2spirv::asm::assemble(&text)
                .unwrap_or_else(|e| panic!("{}: assembling: {e}", path.display()));
            (path.display().to_string(), bytes)
        })
        .collect()
}

/// The module (or the error's text) of one translation.
fn translate(bytes: &[u8], options: &TranslateOptions) -> Result<Vec<u32>, String> {
    dxbc2spirv::translate_bytes(bytes, options)
        .map(|t| t.words)
        .map_err(|e| e.to_string())
}

/// Panics with the input's name and the first differing word when two results differ.
fn assert_same(
    name: &str,
    order: &str,
    fresh: &Result<Vec<u32>, String>,
    got: &Result<Vec<u32>, String>,
) {
    if fresh == got {
        return;
    }
    match (fresh, got) {
        (Ok(a), Ok(b)) => {
            let at = a
                .iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{name} translated {order} differs from its translation on a fresh thread: \
                 {} vs {} words, first difference at word {at} (fresh {:?}, got {:?})",
                a.len(),
                b.len(),
                a.get(at),
                b.get(at)
            );
        }
        _ => panic!("{name} translated {order}: fresh thread gave {fresh:?}, got {got:?}"),
    }
}

#[test]
fn a_translation_does_not_depend_on_the_ones_before_it_on_the_thread() {
    let inputs = containers();
    for options in [
        TranslateOptions::default(),
        TranslateOptions {
            no_optimize: true,
            ..Default::default()
        },
    ] {
        let fresh: Vec<Result<Vec<u32>, String>> = inputs
            .iter()
            .map(|(_, bytes)| {
                let bytes = bytes.clone();
                let options = options.clone();
                std::thread::spawn(move || translate(&bytes, &options))
                    .join()
                    .expect("translation thread panicked")
            })
            .collect();
        let label = if options.no_optimize {
            " (no optimiser)"
        } else {
            ""
        };
        let options_one = options.clone();
        let inputs_one = inputs.clone();
        let fresh_one = fresh.clone();
        std::thread::spawn(move || {
            for (order, indices) in [
                (
                    "after the inputs before it",
                    (0..inputs_one.len()).collect::<Vec<_>>(),
                ),
                (
                    "after the inputs after it",
                    (0..inputs_one.len()).rev().collect(),
                ),
            ] {
                for i in indices {
                    let (name, bytes) = &inputs_one[i];
                    let got = translate(bytes, &options_one);
                    assert_same(name, &format!("{order}{label}"), &fresh_one[i], &got);
                }
            }
            dxbc2spirv::release_thread_buffers();
            for (i, (name, bytes)) in inputs_one.iter().enumerate() {
                let got = translate(bytes, &options_one);
                assert_same(
                    name,
                    &format!("after release_thread_buffers{label}"),
                    &fresh_one[i],
                    &got,
                );
            }
        })
        .join()
        .expect("a module differed (see the panic above)");
    }
}
