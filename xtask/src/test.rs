//! `cargo xtask test`: everything CI runs, in order, stopping at the first failure.

use std::ffi::OsString;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::{conformance, corpus, paths, tools};

/// Runs tools, fmt, clippy, tests, the C API test, conformance, the differential test and the corpus. On success the last line printed is the
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
    step(
        "cargo doc --no-deps of the translator and the test kit (rustdoc warnings are errors)",
        || {
            cargo_env(
                &[
                    "doc",
                    "--no-deps",
                    "--lib",
                    "--quiet",
                    "--package",
                    "dxbc2spirv",
                    "--package",
                    "dxbc2spirv-testkit",
                ],
                Some(("RUSTDOCFLAGS", "-D warnings")),
            )
        },
    )?;
    step(
        "the translator's dependencies (cargo tree -e normal -p dxbc2spirv)",
        translator_dependencies,
    )?;
    step(
        "the translator crate as published (cargo package --list, cargo publish --dry-run)",
        translator_package,
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

    step(
        "C library (installed; test.c built with Meson and pkg-config, shared and static)",
        crate::capi::run,
    )?;

    step(
        "conformance (shader_test probes on Vulkan, translated with and without the optimiser)",
        || {
            conformance::run(&conformance::Options {
                filter: None,
                json: None,
                dir: None,
                blobs: None,
                validation,
                no_device_tags: false,
                optimizer_check: true,
            })
        },
    )?;

    // vkd3d's tessellation files exclude llvmpipe (`if(!llvmpipe)`) for vkd3d's sake; they
    // run and pass here, so they are run without the device's tags too.
    step(
        "conformance of the tessellation files without device exclusions",
        || {
            conformance::run(&conformance::Options {
                filter: Some("tessellation".into()),
                json: None,
                dir: None,
                blobs: None,
                validation,
                no_device_tags: true,
                optimizer_check: false,
            })
        },
    )?;

    // The differential harness: a fixed set of random programs (seeds 1 to 1000, whatever
    // the machine's speed, so CI's verdict does not depend on how far a time budget reaches
    // and a failure repeats with `cargo xtask difftest --seed S --count 1`), then the proof
    // that it catches every kind of fault (the test kit's rewrites of the translated modules).
    step(
        "difftest (1000 random compute programs: reference interpreter vs Vulkan)",
        || {
            crate::difftest::run(&crate::difftest::Options {
                seed: Some(CI_DIFFTEST_SEED),
                count: Some(CI_DIFFTEST_COUNT),
                seconds: None,
                self_check: false,
                out_dir: None,
            })
        },
    )?;
    step("difftest --self-check (every fault kind is caught)", || {
        crate::difftest::run(&crate::difftest::Options {
            seed: Some(CI_DIFFTEST_SEED),
            count: None,
            seconds: None,
            self_check: true,
            out_dir: None,
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

/// The first seed of CI's difftest run.
const CI_DIFFTEST_SEED: u64 = 1;
/// How many programs CI's difftest run checks (about 20 s on two idle cores).
const CI_DIFFTEST_COUNT: u64 = 1000;

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

/// The cargo that runs xtask (the one it was built with when run directly).
fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| OsString::from(env!("CARGO")))
}

/// Runs cargo with one extra environment variable.
fn cargo_env(args: &[&str], env: Option<(&str, &str)>) -> Result<()> {
    let cargo = cargo_program();
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

/// Crates the translator must not depend on: they belong to the command, the test kit or
/// xtask.
const NOT_IN_TRANSLATOR: [&str; 5] = ["clap", "anyhow", "rayon", "ash", "indicatif"];

/// The files of the translator's package besides its `src/**/*.rs`: what a user of the
/// library needs (the test data, shaders, docs and other crates stay out).
const PACKAGED_BESIDES_SOURCE: [&str; 6] = [
    ".cargo_vcs_info.json",
    "CHANGELOG.md",
    "Cargo.lock",
    "Cargo.toml",
    "Cargo.toml.orig",
    "README.md",
];

/// Lists the translator's package, failing on a file that is neither source nor in
/// [`PACKAGED_BESIDES_SOURCE`], prints its size, and builds it alone as crates.io would
/// (`cargo publish --dry-run`, which uploads nothing).
fn translator_package() -> Result<()> {
    let output = Command::new(cargo_program())
        .args(["package", "--list", "--allow-dirty", "-p", "dxbc2spirv"])
        .current_dir(paths::workspace_root())
        .output()
        .context("running cargo package --list")?;
    if !output.status.success() {
        bail!(
            "cargo package --list failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let list = String::from_utf8_lossy(&output.stdout);
    let unexpected: Vec<&str> = list
        .lines()
        .filter(|f| !(f.starts_with("src/") && f.ends_with(".rs")))
        .filter(|f| !PACKAGED_BESIDES_SOURCE.contains(f))
        .collect();
    if !unexpected.is_empty() {
        bail!("the translator's package holds files a user does not need: {unexpected:?}");
    }
    println!("{} files in the package", list.lines().count());
    cargo(&["publish", "--dry-run", "--allow-dirty", "-p", "dxbc2spirv"])
}

/// Fails when `cargo tree -e normal` of the translator lists a crate of [`NOT_IN_TRANSLATOR`].
fn translator_dependencies() -> Result<()> {
    let output = Command::new(cargo_program())
        .args([
            "tree",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            "dxbc2spirv",
        ])
        .current_dir(paths::workspace_root())
        .output()
        .context("running cargo tree")?;
    if !output.status.success() {
        bail!(
            "cargo tree failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let tree = String::from_utf8_lossy(&output.stdout);
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    let found: Vec<&str> = NOT_IN_TRANSLATOR
        .into_iter()
        .filter(|name| crates.contains(name))
        .collect();
    if !found.is_empty() {
        bail!(
            "the translator crate depends on {} (cargo tree -e normal -p dxbc2spirv):\n{tree}",
            found.join(", ")
        );
    }
    println!(
        "{} crates, none of {}",
        crates.len(),
        NOT_IN_TRANSLATOR.join(", ")
    );
    Ok(())
}
