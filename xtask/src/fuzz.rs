//! `cargo xtask fuzz --target NAME --seconds N`: runs one coverage-guided fuzz target
//! (`tests/fuzz`, cargo fuzz / libFuzzer on the stable toolchain with `RUSTC_BOOTSTRAP=1`),
//! seeded with the corpus blobs (for `assemble`, their disassembly), the snapshot inputs
//! and the fxc listings (`tests/in`, `tests/in/fxc_listings`: their text for `assemble`,
//! assembled for the others), then validates every
//! distinct module the run translated with spirv-val.
//!
//! Kept between runs under `target/fuzz/NAME/`: `corpus/` (the working corpus), `modules/`
//! (the last run's modules with their inputs), `artifacts/` (crashes, hangs, leaks) and
//! `invalid/` (inputs whose module spirv-val rejects). A crash or an invalid module makes the
//! command fail; copy its input into `tests/fuzz/regressions/NAME/` and it becomes a
//! regression test (`tests/fuzz_regressions.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::paths;

/// The fuzz targets (binaries of `tests/fuzz`).
pub const TARGETS: [&str; 4] = ["read", "assemble", "translate", "mutate_program"];

/// Options of one run.
pub struct Options {
    /// The target.
    pub target: String,
    /// How long libFuzzer runs.
    pub seconds: u64,
}

/// Runs the target, then validates its modules.
pub fn run(options: &Options) -> Result<()> {
    if !TARGETS.contains(&options.target.as_str()) {
        bail!(
            "unknown fuzz target {:?}; the targets are {}",
            options.target,
            TARGETS.join(", ")
        );
    }
    let installed = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        bail!("cargo fuzz is not installed: run `cargo install cargo-fuzz --locked`");
    }
    let root = paths::workspace_root();
    let work = root.join("target/fuzz").join(&options.target);
    let corpus = work.join("corpus");
    let modules = work.join("modules");
    let artifacts = work.join("artifacts");
    let invalid = work.join("invalid");
    for dir in [&corpus, &artifacts, &invalid] {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let _ = std::fs::remove_dir_all(&modules);
    std::fs::create_dir_all(&modules)?;
    let seeds = seed(&options.target, &corpus)?;
    println!(
        "fuzz {}: {} seeds, {} s",
        options.target, seeds, options.seconds
    );

    let status = Command::new("cargo")
        .current_dir(&root)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("DXBC2SPIRV_FUZZ_MODULES", &modules)
        .args(["fuzz", "run", "--fuzz-dir", "tests/fuzz", "--release"])
        .arg(&options.target)
        .arg(&corpus)
        .arg("--")
        .arg(format!("-max_total_time={}", options.seconds))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .args([
            "-timeout=10",
            "-rss_limit_mb=2048",
            "-max_len=262144",
            "-print_final_stats=1",
        ])
        .status()
        .context("running cargo fuzz")?;
    let crashed = !status.success();

    let (checked, rejected) = validate(&modules, &invalid)?;
    println!(
        "fuzz {}: {checked} distinct modules validated, {rejected} rejected by spirv-val",
        options.target
    );
    if crashed {
        bail!(
            "the fuzz target found a crash, hang or leak: see {}",
            artifacts.display()
        );
    }
    if rejected > 0 {
        bail!(
            "{rejected} modules are invalid: their inputs are in {}",
            invalid.display()
        );
    }
    Ok(())
}

/// Fills the working corpus with the seeds of a target; returns how many were written.
fn seed(target: &str, corpus: &Path) -> Result<usize> {
    let blobs = corpus_blobs()?;
    let mut count = 0;
    for (i, blob) in blobs.iter().enumerate() {
        let bytes = match target {
            "mutate_program" => [&[0u8][..], blob].concat(),
            "assemble" => {
                let Ok(dxbc) = dxbc2spirv::read(blob, &dxbc2spirv::ReadOptions::default()) else {
                    continue;
                };
                let Some(program) = &dxbc.program else {
                    continue;
                };
                dxbc2spirv::disasm::program_text(program).into_bytes()
            }
            _ => blob.clone(),
        };
        std::fs::write(corpus.join(format!("seed-{i:05}")), bytes)?;
        count += 1;
    }
    // The snapshot inputs and the fxc listings: as text for `assemble`, assembled for the
    // targets that read containers (they hold what the corpus lacks: subroutines, class
    // linkage, fxc's header tables, shader messages).
    let root = paths::workspace_root().join("tests/in");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("fxc_listings")] {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "asm") {
                files.push(path);
            }
        }
    }
    files.sort();
    for path in files {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let text = std::fs::read_to_string(&path)?;
        let bytes = match target {
            "assemble" => text.into_bytes(),
            _ => match dxbc2spirv::asm::assemble(&text) {
                Ok(dxbc) if target == "mutate_program" => [&[0u8][..], &dxbc].concat(),
                Ok(dxbc) => dxbc,
                Err(_) => continue,
            },
        };
        std::fs::write(corpus.join(format!("seed-{name}")), bytes)?;
        count += 1;
    }
    Ok(count)
}

/// Every `.dxbc` blob of the shared corpus.
fn corpus_blobs() -> Result<Vec<Vec<u8>>> {
    let root = paths::corpus_root()?;
    let mut files = Vec::new();
    collect(&root.join("fxc"), &mut files)?;
    collect(&root.join("shader_test_dxbc"), &mut files)?;
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read(p).with_context(|| format!("reading {}", p.display())))
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "dxbc") {
            out.push(path);
        }
    }
    Ok(())
}

/// Runs spirv-val on every saved module (two at a time); copies the input of each rejected
/// one into `invalid`. Returns (checked, rejected).
fn validate(modules: &Path, invalid: &Path) -> Result<(usize, usize)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(modules)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    files.sort();
    let halves: Vec<Vec<PathBuf>> = (0..2)
        .map(|t| files.iter().skip(t).step_by(2).cloned().collect())
        .collect();
    let rejected: Vec<(PathBuf, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = halves
            .iter()
            .map(|half| {
                scope.spawn(move || {
                    let mut bad = Vec::new();
                    for spv in half {
                        let checked = std::fs::read(spv)
                            .map_err(|e| format!("reading {}: {e}", spv.display()))
                            .and_then(|bytes| {
                                let words: Vec<u32> = bytes
                                    .chunks_exact(4)
                                    .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                                    .collect();
                                dxbc2spirv_testkit::spirv_val(
                                    &words,
                                    dxbc2spirv::TargetEnv::Vulkan1_3.name(),
                                )
                                .map_err(|e| e.to_string())
                            });
                        if let Err(message) = checked {
                            bad.push((spv.clone(), message));
                        }
                    }
                    bad
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    for (spv, message) in &rejected {
        let input = spv.with_extension("input");
        let name = spv.file_stem().unwrap_or_default();
        let _ = std::fs::copy(&input, invalid.join(name));
        println!("INVALID {}: {}", input.display(), message.trim());
    }
    Ok((files.len(), rejected.len()))
}
