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

    step("C API (crates/capi/tests/test.c with gcc)", capi_test)?;

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

/// Builds the cdylib, compiles crates/capi/tests/test.c against crates/capi/include/dxbc2spirv.h with gcc and
/// runs it on three shaders assembled by the command (a seed and two reflection inputs).
fn capi_test() -> Result<()> {
    let root = paths::workspace_root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        root.join(target)
    };
    let debug = target.join("debug");
    cargo(&[
        "build",
        "--package",
        "dxbc2spirv-capi",
        "--package",
        "dxbc2spirv-cli",
    ])?;
    let exe = debug.join("capi-test");
    let run = |program: &std::path::Path, args: &[&std::ffi::OsStr]| -> Result<()> {
        let status = Command::new(program)
            .args(args)
            .current_dir(&root)
            // `cargo run` puts the release directories on the library path, which would
            // take precedence over the test's rpath and load a release build of the library
            // that may be older than this debug one.
            .env("LD_LIBRARY_PATH", &debug)
            .status()
            .with_context(|| format!("running {}", program.display()))?;
        if !status.success() {
            bail!("{} exited with {status}", program.display());
        }
        Ok(())
    };
    // The seed's container, then the two reflection inputs the scan and signature checks
    // expect; each assembled to `capi-<stem>.dxbc`.
    // (file, assembly section of a .shader_test file).
    let sources = [
        ("shaders/seeds/store_raw.shader_test", "1"),
        ("tests/in/reflect/cs_ranges.asm", ""),
        ("tests/in/reflect/gs_params.asm", ""),
        ("shaders/layer/link_by_semantic.shader_test", "1"),
        ("shaders/layer/link_by_semantic.shader_test", "2"),
        ("shaders/layer/push_constants.shader_test", "2"),
    ];
    let inputs: Vec<std::path::PathBuf> = sources
        .iter()
        .map(|(source, section)| {
            let stem = std::path::Path::new(source).file_stem().unwrap_or_default();
            debug.join(format!("capi-{}{section}.dxbc", stem.to_string_lossy()))
        })
        .collect();
    for ((source, section), output) in sources.iter().zip(&inputs) {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "asm".as_ref(),
            source.as_ref(),
            "-o".as_ref(),
            output.as_os_str(),
        ];
        if !section.is_empty() {
            args.push("--section".as_ref());
            args.push(section.as_ref());
        }
        run(&debug.join("dxbc2spirv"), &args)?;
    }
    let mut rpath = OsString::from("-Wl,-rpath,");
    rpath.push(&debug);
    let mut lib_dir = OsString::from("-L");
    lib_dir.push(&debug);
    run(
        std::path::Path::new("gcc"),
        &[
            "-std=c99".as_ref(),
            "-Wall".as_ref(),
            "-Werror".as_ref(),
            "-Icrates/capi/include".as_ref(),
            "crates/capi/tests/test.c".as_ref(),
            "-o".as_ref(),
            exe.as_os_str(),
            lib_dir.as_os_str(),
            "-ldxbc2spirv".as_ref(),
            rpath.as_os_str(),
        ],
    )?;
    let arguments: Vec<&std::ffi::OsStr> = inputs.iter().map(|p| p.as_os_str()).collect();
    run(&exe, &arguments)
}
