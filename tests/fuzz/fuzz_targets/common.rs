//! What the fuzz targets share: keeping each distinct module for validation after the run
//! (the cases themselves are `dxbc2spirv::fuzzing`, shared with the regression tests).
//!
//! Validating in the loop would cost a spirv-val process per case (milliseconds, against
//! tens of microseconds for a translation), so the targets save each module they have not
//! seen before, with the input that produced it, into `$DXBC2SPIRV_FUZZ_MODULES` (when set,
//! up to 100,000 per process); `cargo xtask fuzz` runs spirv-val on all of them afterwards
//! and reports any module it rejects with its input, which becomes a regression test.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Mutex;

/// Modules already saved by this process (their hashes).
static SEEN: Mutex<Option<HashSet<u64>>> = Mutex::new(None);

/// The most modules one process saves.
const MAX_SAVED: usize = 100_000;

/// Saves `words` (and the input) under the modules directory if not seen before.
pub fn keep(words: &[u32], input: &[u8]) {
    let Some(dir) = std::env::var_os("DXBC2SPIRV_FUZZ_MODULES").map(PathBuf::from) else {
        return;
    };
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    words.hash(&mut hasher);
    let hash = hasher.finish();
    let Ok(mut seen) = SEEN.lock() else {
        return;
    };
    let seen = seen.get_or_insert_with(HashSet::new);
    if seen.len() >= MAX_SAVED || !seen.insert(hash) {
        return;
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{hash:016x}.spv")), bytes);
    let _ = std::fs::write(dir.join(format!("{hash:016x}.input")), input);
}
