//! The command's SPIR-V printer (`dxbc2spirv::spirv::text`, behind `translate --text`) must
//! print every module exactly as rspirv's disassembler does (the reference it replaces in the
//! command, where rspirv's grammar tables would cost memory at every start).
//!
//! Every blob of the corpus (`../shared/corpus`: fxc and shader_test_dxbc) is translated with
//! debug names, with and without the optimiser, and printed both ways; the test fails on the
//! first module whose texts differ, with the blob, the options and the first differing line.

use std::path::{Path, PathBuf};

use rspirv::binary::Disassemble;

/// The corpus directory (the test fails loudly when it is missing).
fn corpus() -> PathBuf {
    let dir = std::env::var_os("DXBC2SPIRV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    assert!(
        dir.is_dir(),
        "the corpus is missing at {} (set DXBC2SPIRV_CORPUS): this test prints every corpus \
         module and compares with rspirv",
        dir.display()
    );
    dir
}

/// Every `.dxbc` file under `dir`, sorted.
fn blobs(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            blobs(&path, out);
        } else if path.extension().is_some_and(|e| e == "dxbc") {
            out.push(path);
        }
    }
}

#[test]
fn the_printer_prints_every_corpus_module_as_rspirv_does() {
    let root = corpus();
    let mut files = Vec::new();
    for name in ["fxc", "shader_test_dxbc"] {
        blobs(&root.join(name), &mut files);
    }
    files.sort();
    assert!(
        files.len() > 1000,
        "only {} blobs under {}",
        files.len(),
        root.display()
    );
    let mut printed = 0;
    for file in &files {
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for no_optimize in [false, true] {
            let options = dxbc2spirv::TranslateOptions {
                debug_names: true,
                no_optimize,
                ..Default::default()
            };
            // Blobs the translator refuses (root signatures, the invalid one) have no module.
            let Ok(translation) = dxbc2spirv::translate_bytes(&bytes, &options) else {
                continue;
            };
            let words = translation.words;
            let reference = rspirv::dr::load_words(&words)
                .unwrap_or_else(|e| {
                    panic!("{}: rspirv cannot load the module: {e}", file.display())
                })
                .disassemble();
            let ours = dxbc2spirv::spirv::text::disassemble(&words)
                .unwrap_or_else(|e| panic!("{} (no_optimize: {no_optimize}): {e}", file.display()));
            if ours != reference {
                let line = reference
                    .lines()
                    .zip(ours.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(reference.lines().count().min(ours.lines().count()));
                panic!(
                    "{} (no_optimize: {no_optimize}): line {} differs\n  rspirv: {:?}\n  ours:   {:?}",
                    file.display(),
                    line + 1,
                    reference.lines().nth(line),
                    ours.lines().nth(line)
                );
            }
            printed += 1;
        }
    }
    assert!(printed > 2000, "only {printed} modules printed");
}
