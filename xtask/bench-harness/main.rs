//! The stand-alone in-process harness of `cargo xtask bench --baseline REV`.
//!
//! xtask builds this file and `measure.rs` (the same code its own in-process run uses) once
//! against the baseline commit's library and once against the current tree's, each in a crate
//! of its own under `target/bench-harness/` (see `xtask/src/bench/baseline.rs`), and runs the
//! two alternately, each run a fresh process.
//!
//! Usage: `harness CORPUS_ROOT [--reps N] [--no-optimize]`. Prints the per-shader timings as
//! JSON ([`measure::to_json`]) on standard output.

#[allow(dead_code)] // xtask uses the whole module; the harness not every accessor
mod measure;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut root = None;
    let mut reps = 20;
    let mut no_optimize = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--reps" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => reps = n,
                None => {
                    eprintln!("--reps needs a number");
                    return ExitCode::FAILURE;
                }
            },
            "--no-optimize" => no_optimize = true,
            _ if root.is_none() => root = Some(PathBuf::from(arg)),
            _ => {
                eprintln!("unexpected argument {arg}");
                return ExitCode::FAILURE;
            }
        }
    }
    let Some(root) = root else {
        eprintln!("usage: harness CORPUS_ROOT [--reps N] [--no-optimize]");
        return ExitCode::FAILURE;
    };
    let shaders = match measure::load(&root) {
        Ok(shaders) => shaders,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let timings = measure::measure(&shaders, reps, &measure::options(no_optimize));
    print!("{}", measure::to_json(reps.max(1), &timings));
    ExitCode::SUCCESS
}
