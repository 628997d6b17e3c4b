//! `cargo xtask test`: everything CI runs, in order, stopping at the first failure.

use std::ffi::OsString;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::{corpus, paths, tools};

/// Runs tools, fmt, clippy, tests and the corpus. On success the last line printed is the
/// corpus closing line `N passed, N failed`.
pub fn run() -> Result<()> {
    let total = Instant::now();
    step("tools (spirv-val, lavapipe)", tools::ensure)?;
    step("cargo fmt --all -- --check", || {
        cargo(&["fmt", "--all", "--", "--check"])
    })?;
    step(
        "cargo clippy --workspace --all-targets -- -D warnings",
        || {
            cargo(&[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])
        },
    )?;
    step("cargo test --workspace", || cargo(&["test", "--workspace"]))?;

    println!("== step: corpus");
    let start = Instant::now();
    let report = corpus::run(&corpus::Options::default()).context("step `corpus` failed")?;
    report.print_summary();
    println!("== corpus: {:.1} s", start.elapsed().as_secs_f64());
    println!("== all steps: {:.1} s", total.elapsed().as_secs_f64());
    println!("{}", report.closing_line());
    report.check().context("step `corpus` failed")
}

/// Prints a heading, runs `f`, prints the elapsed time; names the step on failure.
fn step(name: &str, f: impl FnOnce() -> Result<()>) -> Result<()> {
    println!("== step: {name}");
    let start = Instant::now();
    let result = f();
    println!("== {name}: {:.1} s", start.elapsed().as_secs_f64());
    result.with_context(|| format!("step `{name}` failed"))
}

/// Runs the cargo that runs us, in the workspace root, failing on a non-zero exit.
fn cargo(args: &[&str]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from(env!("CARGO")));
    let status = Command::new(&cargo)
        .args(args)
        .current_dir(paths::workspace_root())
        .status()
        .with_context(|| format!("running {}", cargo.to_string_lossy()))?;
    if !status.success() {
        bail!("`cargo {}` exited with {status}", args.join(" "));
    }
    Ok(())
}
