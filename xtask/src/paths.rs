//! Where things are: the workspace root and the shared corpus.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// Environment variable that overrides the corpus location.
pub const CORPUS_ENV: &str = "DXBC2SPIRV_CORPUS";

/// The workspace root (the parent of the xtask crate).
pub fn workspace_root() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().unwrap_or(xtask).to_path_buf()
}

/// Cargo's target directory: `$CARGO_TARGET_DIR` (relative to the workspace root when not
/// absolute), or `<workspace root>/target`.
pub fn target_dir() -> PathBuf {
    let root = workspace_root();
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The corpus root: `$DXBC2SPIRV_CORPUS`, or `<workspace root>/../shared/corpus`.
///
/// Fails, naming the place it looked, when the directory or its `fxc/` and
/// `shader_test_dxbc/` subdirectories are missing.
pub fn corpus_root() -> Result<PathBuf> {
    let (dir, origin) = match std::env::var_os(CORPUS_ENV) {
        Some(dir) if !dir.is_empty() => (PathBuf::from(dir), format!("from ${CORPUS_ENV}")),
        _ => (
            workspace_root().join("..").join("shared").join("corpus"),
            format!("<workspace root>/../shared/corpus; set ${CORPUS_ENV} to override"),
        ),
    };
    let shown = dir.canonicalize().unwrap_or_else(|_| dir.clone());
    for want in [dir.clone(), dir.join("fxc"), dir.join("shader_test_dxbc")] {
        if !want.is_dir() {
            bail!(
                "corpus not found at {} ({origin}): {} is not a directory. \
                 The corpus is shared data outside the project and is never copied into it",
                shown.display(),
                want.display(),
            );
        }
    }
    Ok(shown)
}
