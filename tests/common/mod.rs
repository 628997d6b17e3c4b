//! Helpers shared by the integration tests: finding the corpus.
// Each test crate uses part of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The corpus directory: `$DXBC2SPIRV_CORPUS`, else `../shared/corpus` beside the project.
/// Panics with a loud message when it is missing: tests that need it must not pass silently.
pub fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("DXBC2SPIRV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/corpus"));
    assert!(
        dir.join("fxc").is_dir() && dir.join("shader_test_dxbc").is_dir(),
        "\n\n*** THE TEST CORPUS IS MISSING ***\nlooked for {}/fxc and {}/shader_test_dxbc\n\
         set DXBC2SPIRV_CORPUS or put the shared corpus beside the project\n",
        dir.display(),
        dir.display()
    );
    dir
}

/// The project's top directory (the one holding `xtask/`), whichever crate's test this is.
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("xtask").is_dir())
        .unwrap_or(manifest)
        .to_path_buf()
}

/// Every `.dxbc` file under the corpus, sorted, with its path relative to the corpus.
pub fn corpus_blobs() -> Vec<(String, Vec<u8>)> {
    let root = corpus_dir();
    let mut files = Vec::new();
    collect(&root.join("fxc"), &mut files);
    collect(&root.join("shader_test_dxbc"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            (name, bytes)
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "dxbc") {
            out.push(path);
        }
    }
}

/// Translates every corpus blob with debug names, with the optimiser and without it, and
/// calls `check(file, bytes, no_optimize, words)` for each module; blobs the translator
/// refuses (root signatures, the invalid one) have none. Returns the number of modules.
pub fn for_each_corpus_module(mut check: impl FnMut(&str, &[u8], bool, Vec<u32>)) -> usize {
    let blobs = corpus_blobs();
    assert!(blobs.len() > 1000, "only {} corpus blobs", blobs.len());
    let mut modules = 0;
    for (file, bytes) in &blobs {
        for no_optimize in [false, true] {
            let mut options = dxbc2spirv::TranslateOptions::default();
            options.no_optimize = no_optimize;
            let Ok(translation) = dxbc2spirv::translate_bytes(bytes, &options) else {
                continue;
            };
            check(file, bytes, no_optimize, translation.words);
            modules += 1;
        }
    }
    modules
}

/// The options these tests translate with: a user's defaults without debug names (which no
/// test reads).
pub fn options() -> dxbc2spirv::TranslateOptions {
    let mut options = dxbc2spirv::TranslateOptions::default();
    options.debug_names = false;
    options
}

/// Translates a read container's program with [`options`].
pub fn translate(dxbc: &dxbc2spirv::Dxbc<'_>) -> dxbc2spirv::Result<Vec<u32>> {
    dxbc.translate(&options())
}
