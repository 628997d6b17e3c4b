//! `cargo xtask test`: everything CI runs, in order, stopping at the first failure.

use std::ffi::OsString;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::{conformance, corpus, paths, tools};

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
    // Run the Vulkan tests under the Khronos validation layer when it is installed (the tools
    // step installs it): any validation message fails them.
    let validation = crate::tools::validation_layer_installed();
    if !validation {
        println!("WARNING: the Vulkan validation layer is not installed: tests run without it");
    }
    step("cargo test --workspace", || {
        cargo_env(
            &["test", "--workspace"],
            validation.then_some(("DXBC2SPIRV_VALIDATION", "1")),
        )
    })?;

    step("conformance (shader_test probes on Vulkan)", || {
        conformance::run(&conformance::Options {
            filter: None,
            json: None,
            dir: None,
            blobs: None,
            validation,
        })
    })?;

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
    cargo_env(args, None)
}

/// Runs cargo with one extra environment variable.
fn cargo_env(args: &[&str], env: Option<(&str, &str)>) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from(env!("CARGO")));
    let mut command = Command::new(&cargo);
    command.args(args).current_dir(paths::workspace_root());
    if let Some((key, value)) = env {
        command.env(key, value);
    }
    let status = command
        .status()
        .with_context(|| format!("running {}", cargo.to_string_lossy()))?;
    if !status.success() {
        bail!("`cargo {}` exited with {status}", args.join(" "));
    }
    Ok(())
}
