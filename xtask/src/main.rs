//! Developer tasks for dxbc2spirv, run as `cargo xtask <command>`.
//!
//! * `corpus`: reads, disassembles, re-encodes, round-trips and translates (with spirv-val)
//!   every blob of the shared corpus.
//! * `conformance`: runs the `.shader_test` files (dispatches and draws) on Vulkan.
//! * `fuzz`: runs one coverage-guided fuzz target and validates the modules it produced.
//! * `bench`: translation speed (against a baseline commit with `--baseline`), output size,
//!   peak memory, pipeline creation and a vkd3d-compiler comparison.
//! * `c-library`: the installed C library's consumers (Meson, pkg-config; shared, static).
//! * `install`: builds the C library and installs it with its header and pkg-config file.
//! * `test`: everything CI runs (tools, fmt, clippy, tests, corpus), stopping at the first failure.

mod bench;
mod capi;
mod conformance;
mod corpus;
mod difftest;
mod fuzz;
mod install;
mod paths;
mod stages;
mod test;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Command line of `cargo xtask`.
#[derive(Parser)]
#[command(name = "cargo xtask", about = "Developer tasks for dxbc2spirv")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The xtask commands.
#[derive(Subcommand)]
enum Command {
    /// Run every corpus blob through the stages (read, disassemble, reencode, roundtrip, translate); non-zero exit on any failure.
    Corpus {
        /// Only blobs whose path (relative to the corpus root) contains this substring.
        #[arg(long)]
        filter: Option<String>,
        /// Also print a line for every blob that passed.
        #[arg(long)]
        verbose: bool,
        /// Write one JSON record per blob (path, stages with ok/error) to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Run the .shader_test files (corpus and shaders/) on Vulkan, dispatches and draws; non-zero exit on any failed probe that is not a listed known failure.
    Conformance {
        /// Only files whose path contains this substring.
        #[arg(long)]
        filter: Option<String>,
        /// Write one JSON record per probe to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Run the .shader_test files under this directory instead of the corpus and shaders/.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The blob directory for --dir (with an optional MANIFEST.tsv).
        #[arg(long, value_name = "DIR", requires = "dir")]
        blobs: Option<PathBuf>,
        /// Run under VK_LAYER_KHRONOS_validation (errors fail the probes after them).
        #[arg(long)]
        validation: bool,
        /// Set no device condition tags: also run the probes a file excludes on this device (`if(!llvmpipe)`).
        #[arg(long)]
        no_device_tags: bool,
        /// Run every file twice, with and without the optimiser, and fail on any probe whose outcome differs.
        #[arg(long)]
        optimizer_check: bool,
    },
    /// Run one fuzz target (read, assemble, translate, mutate_program) for a time, seeded with the corpus; then spirv-val every distinct module it produced.
    Fuzz {
        /// The target.
        #[arg(long)]
        target: String,
        /// How long to fuzz.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
    },
    /// Measure translation speed (in process: a kept Translator and translate_bytes, one core and all), SPIR-V size, generated shaders up to 100,000 instructions, peak RSS, batch time, pipeline creation and the ratios to vkd3d-compiler; with --baseline, alternate with another commit.
    Bench {
        /// Rounds of the in-process corpus run (each shader's fastest and median round are used).
        #[arg(long, default_value_t = 20)]
        reps: usize,
        /// Write the figures as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Run the criterion benches (`cargo bench --bench translate`) instead.
        #[arg(long)]
        criterion: bool,
        /// Only the in-process runs (no generated shaders, peak RSS, batch, spirv-opt, vkd3d-compiler or pipeline runs; --baseline still alternates).
        #[arg(long)]
        in_process_only: bool,
        /// Translate without the optimiser (to measure what it costs and saves).
        #[arg(long)]
        no_optimize: bool,
        /// Write a digest of every module to this file.
        #[arg(long, value_name = "FILE")]
        save_digests: Option<PathBuf>,
        /// Fail when any module's digest differs from this file's (written by --save-digests).
        #[arg(long, value_name = "FILE")]
        check_digests: Option<PathBuf>,
        /// Alternate the in-process run with this commit (built in target/bench-baseline/<hash>), each run a fresh process.
        #[arg(long, value_name = "REV")]
        baseline: Option<String>,
        /// Alternations with --baseline (each: the baseline, then the current tree).
        #[arg(long, default_value_t = 3, requires = "baseline")]
        alternations: usize,
        /// Internal: the pipeline-creation measurement, run by `bench` in a child process.
        #[arg(long, value_name = "FILE", hide = true)]
        pipelines_child: Option<PathBuf>,
    },
    /// Differential testing: random compute programs run on the reference interpreter and, translated with and without the optimiser, on the Vulkan device; every UAV word is compared. Mismatches are minimised and written as .shader_test files. Ends with `N programs, N mismatches`.
    Difftest {
        /// The first seed (program i uses seed + i); default: from the clock, printed.
        #[arg(long)]
        seed: Option<u64>,
        /// How many programs (default 1000 when --seconds is not given either).
        #[arg(long, conflicts_with = "seconds")]
        count: Option<u64>,
        /// How long to run.
        #[arg(long)]
        seconds: Option<u64>,
        /// Run against translations rewritten with each kind of test-kit fault (crates/testkit/src/fault.rs) and show every kind is caught.
        #[arg(long)]
        self_check: bool,
        /// Where minimised failing programs go (default target/difftest).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run everything CI runs: tools, cargo fmt, cargo clippy, cargo test, corpus.
    Test,
    /// Install the C library into a temporary prefix and build and run crates/capi/tests/test.c
    /// against it with Meson and pkg-config, shared and static (a step of `test`).
    CLibrary,
    /// Build the C library (release) and install it: lib/libdxbc2spirv.so.N with its
    /// unversioned link, lib/libdxbc2spirv.a, lib/pkgconfig/dxbc2spirv.pc and
    /// include/dxbc2spirv/dxbc2spirv.h under the prefix.
    Install {
        /// The installation prefix (written into dxbc2spirv.pc).
        #[arg(long, default_value = "/usr/local")]
        prefix: PathBuf,
        /// The library directory, relative to the prefix or absolute.
        #[arg(long, default_value = "lib")]
        libdir: PathBuf,
        /// The include directory, relative to the prefix or absolute.
        #[arg(long, default_value = "include")]
        includedir: PathBuf,
        /// A staging directory put in front of every installed path (default: $DESTDIR).
        #[arg(long, env = "DESTDIR")]
        destdir: Option<PathBuf>,
        /// Build with the dev profile instead of release.
        #[arg(long)]
        debug: bool,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("caused by: {cause}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Runs one command.
fn run(cli: Cli) -> anyhow::Result<()> {
    // Every command validates with the project's SPIRV-Tools when it is installed.
    tools::use_project_spirv_val();
    match cli.command {
        Command::Corpus {
            filter,
            verbose,
            json,
        } => {
            let report = corpus::run(&corpus::Options {
                filter,
                verbose,
                json,
            })?;
            report.print_summary();
            println!("{}", report.closing_line());
            report.check()
        }
        Command::Conformance {
            filter,
            json,
            dir,
            blobs,
            validation,
            no_device_tags,
            optimizer_check,
        } => conformance::run(&conformance::Options {
            filter,
            json,
            dir,
            blobs,
            validation,
            no_device_tags,
            optimizer_check,
        }),
        Command::Fuzz { target, seconds } => fuzz::run(&fuzz::Options { target, seconds }),
        Command::Bench {
            reps,
            json,
            criterion,
            in_process_only,
            no_optimize,
            save_digests,
            check_digests,
            baseline,
            alternations,
            pipelines_child,
        } => match pipelines_child {
            Some(file) => bench::pipelines::child(&file),
            None => bench::run(&bench::Options {
                reps,
                json,
                criterion,
                in_process_only,
                no_optimize,
                save_digests,
                check_digests,
                baseline,
                alternations,
            }),
        },
        Command::Difftest {
            seed,
            count,
            seconds,
            self_check,
            out,
        } => difftest::run(&difftest::Options {
            seed,
            count,
            seconds,
            self_check,
            out_dir: out,
        }),
        Command::Test => test::run(),
        Command::CLibrary => capi::run(),
        Command::Install {
            prefix,
            libdir,
            includedir,
            destdir,
            debug,
        } => install::run(&install::Options {
            prefix,
            libdir,
            includedir,
            destdir: destdir.filter(|d| !d.as_os_str().is_empty()),
            debug,
        })
        .map(drop),
    }
}
