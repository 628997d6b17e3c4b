//! Tests over the shared corpus of real DXBC files: checksums, reflection, and mutations.

use super::{checksum, ChunkInfo, Container, ParseOptions};
use std::path::{Path, PathBuf};

/// Root of the shared corpus: `$DXBC_CORPUS`, else `../shared/corpus` beside the crate,
/// else `/work/shared/corpus`.
pub(super) fn corpus_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("DXBC_CORPUS") {
        return PathBuf::from(dir);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if beside.is_dir() {
        return beside;
    }
    PathBuf::from("/work/shared/corpus")
}

/// Every `.dxbc` file under `dir` (recursively), sorted; fails loudly if `dir` is missing.
pub(super) fn dxbc_files(dir: &str) -> Vec<PathBuf> {
    let root = corpus_root().join(dir);
    assert!(
        root.is_dir(),
        "\n\n*** CORPUS DIRECTORY {} IS MISSING: these tests need the shared corpus ***\n",
        root.display()
    );
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "dxbc") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fxc_checksums_are_correct() {
    let files = dxbc_files("fxc");
    assert_eq!(files.len(), 339, "expected the 339 fxc blobs");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let c = Container::parse(&bytes, &ParseOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(c.checksum, checksum(&bytes));
        assert_eq!(c.version, 1);
    }
}

#[test]
fn all_reflection_parses() {
    let mut count = 0;
    let mut with_rdef = 0;
    for dir in ["fxc", "shader_test_dxbc"] {
        for f in dxbc_files(dir) {
            let bytes = std::fs::read(&f).unwrap();
            let c = Container::parse(&bytes, &ParseOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let r = ChunkInfo::parse(&c).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            if r.resources.is_some() {
                with_rdef += 1;
            }
            let mut text = String::new();
            super::write_header_comments(&r, &mut text);
            count += 1;
        }
    }
    assert!(count >= 1267, "only {count} files");
    assert!(with_rdef >= 930, "only {with_rdef} files with RDEF");
}

#[test]
fn sm51_bindings_have_spaces() {
    let mut seen = false;
    for f in dxbc_files("shader_test_dxbc") {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if !name.contains("_5_1.") {
            continue;
        }
        let bytes = std::fs::read(&f).unwrap();
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        if let Some(res) = ChunkInfo::parse(&c).unwrap().resources {
            assert!(res.has_spaces, "{name}");
            assert_eq!(res.minor, 1);
            seen = true;
        }
    }
    assert!(seen, "no 5.1 RDEF in the corpus");
}

/// A tiny linear congruential generator (fixed seed, reproducible).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutations_never_panic() {
    let mut files = dxbc_files("fxc");
    files.extend(dxbc_files("shader_test_dxbc").into_iter().step_by(7));
    let blobs: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let mut rng = Lcg(0x5eed_d8bc);
    let lenient = ParseOptions {
        ignore_checksum: true,
    };
    let mut parsed = 0;
    for case in 0..6000 {
        let mut b = blobs[rng.below(blobs.len())].clone();
        match case % 4 {
            0 => {
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(b.len());
                    b[i] ^= 1 << rng.below(8);
                }
            }
            1 => {
                let i = rng.below(b.len());
                b[i] = [0x00, 0xff, 0x7f, 0x80][rng.below(4)];
                let j = rng.below(b.len().saturating_sub(3)) & !3;
                let v = [0u32, 1, u32::MAX, 0x8000_0000, 0xffff][rng.below(5)];
                b[j..j + 4].copy_from_slice(&v.to_le_bytes());
            }
            2 => {
                let n = rng.below(b.len());
                b.truncate(n);
                if b.len() >= 28 {
                    let len = b.len() as u32;
                    b[24..28].copy_from_slice(&len.to_le_bytes());
                }
            }
            _ => {
                let i = rng.below(b.len());
                b[i] = b[i].wrapping_add(1);
            }
        }
        let _ = Container::parse(&b, &ParseOptions::default());
        if let Ok(c) = Container::parse(&b, &lenient) {
            parsed += 1;
            if let Ok(r) = ChunkInfo::parse(&c) {
                let mut s = String::new();
                super::write_header_comments(&r, &mut s);
            }
        }
    }
    assert!(parsed > 1000, "only {parsed} mutated containers parsed");
}
