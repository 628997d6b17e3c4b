//! `cargo xtask difftest`: differential testing of the translator against the reference
//! interpreter ([`dxbc2spirv_testkit::interp`]).
//!
//! Each case is a random valid compute program with its resources ([`generate`]). The
//! interpreter runs it on the CPU; the translator's module (with the optimiser, and without
//! it) runs on the Vulkan device through the library's `.shader_test` runner; every UAV word
//! is compared bit for bit, except where D3D allows a difference, each allowance named
//! ([`compare`]). A mismatch is minimised (delta debugging over the program's instructions,
//! [`minimise`]) and the smallest failing program is written as a `.shader_test` file whose
//! probes hold the interpreter's values, ready to keep as a regression test.
//!
//! `--self-check` runs the harness against translations rewritten with a deliberate fault
//! ([`dxbc2spirv_testkit::fault::Fault`]) and shows each kind is caught.

pub mod compare;
pub mod generate;
mod minimise;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use dxbc2spirv_testkit::fault::Fault;
use dxbc2spirv_testkit::interp;
use dxbc2spirv_testkit::shader_test::runner::{self, BlobSource, RunSettings};
use dxbc2spirv_testkit::shader_test::ShaderTestFile;
use dxbc2spirv_testkit::vulkan::Context;
use rayon::prelude::*;

use compare::{Expected, Mismatch};
use generate::{Case, GenOptions};

/// Options of a difftest run.
pub struct Options {
    /// The first seed (case `i` uses `seed + i`); `None` picks one from the clock.
    pub seed: Option<u64>,
    /// How many programs to run.
    pub count: Option<u64>,
    /// How long to run (when no count is given).
    pub seconds: Option<u64>,
    /// Run the fault-injection self-check instead.
    pub self_check: bool,
    /// Where minimised failing programs are written.
    pub out_dir: Option<PathBuf>,
}

/// What one case gave.
pub enum Verdict {
    /// Every UAV word agreed.
    Agree,
    /// Words disagreed, or a side failed where the other did not.
    Mismatch(Vec<Mismatch>),
    /// The program is not a usable case (it does not assemble, or the interpreter refuses
    /// it): a generator bug when it comes from the generator.
    Unusable(String),
}

/// The project's difftest programs are assembly: no blob lookups.
struct NoBlobs;

impl BlobSource for NoBlobs {
    fn blob(
        &self,
        _: &str,
        section: &dxbc2spirv_testkit::shader_test::Section,
        _: &str,
        _: &[String],
    ) -> std::result::Result<Option<Vec<u8>>, String> {
        Err(format!(
            "line {}: difftest cases are assembly",
            section.line
        ))
    }
}

/// The float modes D3D leaves to the device, each a named allowance: float32 denormals of
/// arithmetic flushed or kept, `mad` (and the dot products' steps) fused or not, dot products
/// summed in either order, and `f32tof16` rounded to nearest even rather than by the
/// specification's rule (toward zero). A word matches when it equals the
/// interpreter's result in any of them.
pub const FLOAT_MODES: [(&str, interp::alu::FloatMode); 7] = [
    (
        "exact",
        interp::alu::FloatMode {
            flush_denormals: false,
            fuse_mad: false,
            f16_nearest: false,
            dot_reversed: false,
        },
    ),
    (
        "denormals flushed",
        interp::alu::FloatMode {
            flush_denormals: true,
            fuse_mad: false,
            f16_nearest: false,
            dot_reversed: false,
        },
    ),
    (
        "mad fused",
        interp::alu::FloatMode {
            flush_denormals: false,
            fuse_mad: true,
            f16_nearest: false,
            dot_reversed: false,
        },
    ),
    (
        "denormals flushed, mad fused",
        interp::alu::FloatMode {
            flush_denormals: true,
            fuse_mad: true,
            f16_nearest: false,
            dot_reversed: false,
        },
    ),
    (
        "f32tof16 to nearest",
        interp::alu::FloatMode {
            flush_denormals: false,
            fuse_mad: false,
            f16_nearest: true,
            dot_reversed: false,
        },
    ),
    (
        "dot products summed last component first",
        interp::alu::FloatMode {
            flush_denormals: false,
            fuse_mad: false,
            f16_nearest: false,
            dot_reversed: true,
        },
    ),
    (
        "dot products summed last component first, fused",
        interp::alu::FloatMode {
            flush_denormals: false,
            fuse_mad: true,
            f16_nearest: false,
            dot_reversed: true,
        },
    ),
];

/// Instructions a thread of a case may run: generated loops are bounded far below it, so a
/// thread that reaches it is in a loop that never ends (a minimisation candidate), and the
/// case is not run on the device.
const STEP_LIMIT: u64 = 200_000;

/// Interprets a case in every float mode: the UAVs of space 0 by register, per mode.
pub fn interpret(case: &Case) -> std::result::Result<Expected, String> {
    let text = case.shader_test("");
    let file = ShaderTestFile::parse(&text).map_err(|e| format!("parsing the case: {e}"))?;
    let bytes = dxbc2spirv::asm::assemble(&case.asm).map_err(|e| format!("assembling: {e}"))?;
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default())
        .map_err(|e| format!("reading: {e}"))?;
    let program = dxbc.program.ok_or("no program")?;
    let mut resources = interp::Resources::default();
    for section in &file.sections {
        if let dxbc2spirv_testkit::shader_test::SectionKind::Resource(decl) = &section.kind {
            let resource = interp::Resource::from_shader_test(decl)
                .map_err(|e| format!("resource at line {}: {e}", section.line))?;
            let map = match decl.kind {
                dxbc2spirv_testkit::shader_test::ResourceKind::Uav => &mut resources.uavs,
                _ => &mut resources.srvs,
            };
            map.insert((decl.space, decl.slot), resource);
        }
    }
    let mut cb0 = case.constants.clone();
    cb0.resize(cb0.len().div_ceil(4) * 4, 0);
    resources.constant_buffers.insert((0, 0), cb0);
    let mut modes = Vec::with_capacity(FLOAT_MODES.len());
    for (name, float) in FLOAT_MODES {
        let mut run = resources.clone();
        let options = interp::Options {
            float,
            step_limit: STEP_LIMIT,
            undefined_reads: true,
        };
        interp::dispatch(&program, &mut run, case.groups, &options)
            .map_err(|e| format!("interpreter ({name}): {e}"))?;
        modes.push(
            run.uavs
                .into_iter()
                .filter(|((space, _), _)| *space == 0)
                .map(|((_, register), r)| (register, r.data))
                .collect(),
        );
    }
    Ok(Expected { modes })
}

/// Runs a case's translation on the device (optimised, and not) and compares every UAV word
/// with the interpreter's.
pub fn check(ctx: &Context, case: &Case, fault: Option<Fault>) -> Verdict {
    let expected = match interpret(case) {
        Ok(e) => e,
        Err(why) => return Verdict::Unusable(why),
    };
    check_against(ctx, case, &expected, fault)
}

/// [`check`] with the interpreter's results already known.
fn check_against(ctx: &Context, case: &Case, expected: &Expected, fault: Option<Fault>) -> Verdict {
    let text = case.shader_test("");
    let file = match ShaderTestFile::parse(&text) {
        Ok(f) => f,
        Err(e) => return Verdict::Unusable(format!("parsing the case: {e}")),
    };
    let mut mismatches = Vec::new();
    for (translation, no_optimize) in [("optimised", false), ("unoptimised", true)] {
        let settings = RunSettings {
            device_tags: &[],
            no_optimize,
            keep_uavs: true,
            fault,
        };
        let report = runner::run_file_with(ctx, &file, "difftest.shader_test", &NoBlobs, &settings);
        mismatches.extend(compare::compare(expected, &report.uavs, translation));
        if !mismatches.is_empty() {
            break;
        }
    }
    if mismatches.is_empty() {
        Verdict::Agree
    } else {
        Verdict::Mismatch(mismatches)
    }
}

/// Runs the command.
pub fn run(options: &Options) -> Result<()> {
    let ctx = Context::new().map_err(|e| anyhow::anyhow!("Vulkan: {e}"))?;
    let seed = options.seed.unwrap_or_else(clock_seed);
    let out_dir = options
        .out_dir
        .clone()
        .unwrap_or_else(|| crate::paths::workspace_root().join("target/difftest"));
    if options.self_check {
        return self_check(&ctx, seed);
    }
    let budget = match (options.count, options.seconds) {
        (Some(n), _) => Budget::Count(n),
        (None, Some(s)) => Budget::Time(Duration::from_secs(s)),
        (None, None) => Budget::Count(1000),
    };
    println!("difftest: seed {seed}, {budget}");
    let start = Instant::now();
    let (mut programs, mut failures, mut unusable) = (0u64, 0u64, 0u64);
    let gen = GenOptions::default();
    // Cases run in batches, one per worker thread at a time (the device compiles each
    // pipeline on the calling thread, which is most of a case's time); their verdicts are
    // reported in seed order, and mismatches minimised one at a time.
    let batch = rayon::current_num_threads() as u64 * 2;
    let watchdog = Watchdog::start();
    while budget.more(programs, start) {
        let count = match budget {
            Budget::Count(n) => batch.min(n - programs),
            Budget::Time(_) => batch,
        };
        let first = programs;
        let verdicts: Vec<(Case, Verdict)> = (0..count)
            .into_par_iter()
            .map(|i| {
                let case_seed = seed.wrapping_add(first + i);
                let _running = watchdog.running(case_seed);
                let case = generate::generate(case_seed, &gen);
                let verdict = check(&ctx, &case, None);
                (case, verdict)
            })
            .collect();
        for (case, verdict) in verdicts {
            programs += 1;
            match verdict {
                Verdict::Agree => {}
                Verdict::Unusable(why) => {
                    unusable += 1;
                    println!(
                        "seed {}: UNUSABLE generated program: {why}\n{}",
                        case.seed, case.asm
                    );
                }
                Verdict::Mismatch(found) => {
                    failures += 1;
                    report_mismatch(&ctx, &case, &found, None, &out_dir)?;
                }
            }
            if programs % 500 == 0 {
                println!(
                    "  {programs} programs, {failures} mismatches ({:.0} s)",
                    start.elapsed().as_secs_f64()
                );
            }
        }
    }
    println!(
        "({:.1} s; {unusable} generated programs unusable)",
        start.elapsed().as_secs_f64()
    );
    println!("{programs} programs, {failures} mismatches");
    if failures > 0 || unusable > 0 {
        bail!("{failures} mismatches, {unusable} unusable programs (seed {seed})");
    }
    Ok(())
}

/// How long one case may take before the run stops: a case is a fraction of a second, and
/// a device that does not finish a dispatch cannot be interrupted.
const HANG_SECONDS: u64 = 120;

/// Ends the process, naming the seed, when a case runs longer than [`HANG_SECONDS`] (a
/// translation that loops forever on the device, or a device that hangs), instead of
/// waiting for ever.
struct Watchdog {
    running: std::sync::Arc<std::sync::Mutex<Vec<(u64, Instant)>>>,
}

/// A case the watchdog is watching, until dropped.
struct Running<'a> {
    watchdog: &'a Watchdog,
    seed: u64,
}

impl Watchdog {
    fn start() -> Watchdog {
        let running: std::sync::Arc<std::sync::Mutex<Vec<(u64, Instant)>>> = Default::default();
        let watched = std::sync::Arc::clone(&running);
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_secs(1));
            let late = watched.lock().ok().and_then(|r| {
                r.iter()
                    .find(|(_, at)| at.elapsed().as_secs() > HANG_SECONDS)
                    .copied()
            });
            if let Some((seed, _)) = late {
                println!(
                    "seed {seed}: HANG: the case did not finish in {HANG_SECONDS} s (repeat it \
                     with --seed {seed} --count 1)"
                );
                std::process::exit(1);
            }
        });
        Watchdog { running }
    }

    fn running(&self, seed: u64) -> Running<'_> {
        if let Ok(mut r) = self.running.lock() {
            r.push((seed, Instant::now()));
        }
        Running {
            watchdog: self,
            seed,
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Ok(mut r) = self.watchdog.running.lock() {
            r.retain(|(seed, _)| *seed != self.seed);
        }
    }
}

/// How long a run goes on.
enum Budget {
    Count(u64),
    Time(Duration),
}

impl Budget {
    fn more(&self, done: u64, start: Instant) -> bool {
        match self {
            Budget::Count(n) => done < *n,
            Budget::Time(t) => start.elapsed() < *t,
        }
    }
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Count(n) => write!(f, "{n} programs"),
            Budget::Time(t) => write!(f, "{} s", t.as_secs()),
        }
    }
}

/// A seed from the clock (printed, so the run can be repeated with `--seed`).
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs())
}

/// Prints a mismatch, minimises the program and writes the smallest failing case.
fn report_mismatch(
    ctx: &Context,
    case: &Case,
    found: &[Mismatch],
    fault: Option<Fault>,
    out_dir: &Path,
) -> Result<()> {
    println!("seed {}: MISMATCH", case.seed);
    for m in found.iter().take(8) {
        println!("  {m}");
    }
    std::fs::create_dir_all(out_dir)?;
    if let Ok(expected) = interpret(case) {
        let original = out_dir.join(format!("mismatch-{}-original.shader_test", case.seed));
        std::fs::write(&original, case.shader_test(&compare::probes(&expected)))
            .with_context(|| format!("writing {}", original.display()))?;
    }
    let small = minimise::minimise(case, |candidate| {
        matches!(check(ctx, candidate, fault), Verdict::Mismatch(_))
    });
    let expected = interpret(&small).map_err(|e| anyhow::anyhow!("{e}"))?;
    let probes = compare::probes(&expected);
    let path = out_dir.join(format!("mismatch-{}.shader_test", case.seed));
    std::fs::write(&path, small.shader_test(&probes))
        .with_context(|| format!("writing {}", path.display()))?;
    if let Verdict::Mismatch(found) = check_against(ctx, &small, &expected, fault) {
        println!("  minimised ({} lines):", small.asm.lines().count());
        for m in found.iter().take(4) {
            println!("    {m}");
        }
    }
    println!("{}", small.asm);
    println!("  written to {}", path.display());
    Ok(())
}

/// Programs tried per fault kind before the self-check calls it missed.
const SELF_CHECK_BUDGET: u64 = 300;

/// Whether `fault` rewrites the translation of a case (optimised or not): a program it
/// does not touch cannot reveal it, and is not run.
fn fault_touches(case: &Case, fault: Fault) -> bool {
    let Ok(bytes) = dxbc2spirv::asm::assemble(&case.asm) else {
        return true;
    };
    let Ok(dxbc) = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()) else {
        return true;
    };
    [false, true].into_iter().any(|no_optimize| {
        let mut options = dxbc2spirv::TranslateOptions::default();
        options.no_optimize = no_optimize;
        options.debug_names = false;
        match dxbc.translate(&options) {
            Ok(words) => fault.rewrite(&words).map_or(true, |r| r.changed()),
            // The run reports the failure.
            Err(_) => true,
        }
    })
}

/// Runs generated programs against each fault until one reveals it; programs the fault
/// does not touch are skipped.
fn self_check(ctx: &Context, seed: u64) -> Result<()> {
    println!("difftest --self-check: seed {seed}");
    let gen = GenOptions::default();
    let mut missed = Vec::new();
    for fault in Fault::ALL {
        let start = Instant::now();
        let mut caught = None;
        let mut run = 0;
        for i in 0..SELF_CHECK_BUDGET {
            let case = generate::generate(seed.wrapping_add(i), &gen);
            if !fault_touches(&case, fault) {
                continue;
            }
            run += 1;
            if let Verdict::Mismatch(found) = check(ctx, &case, Some(fault)) {
                caught = Some((i + 1, case.seed, found));
                break;
            }
        }
        match caught {
            Some((n, case_seed, found)) => println!(
                "  {:28} caught after {n} program(s), {run} touched (seed {case_seed}, {:.1} s): \
                 {}",
                fault.name(),
                start.elapsed().as_secs_f64(),
                found.first().map(|m| m.to_string()).unwrap_or_default()
            ),
            None => {
                println!(
                    "  {:28} NOT caught in {SELF_CHECK_BUDGET} programs ({run} touched)",
                    fault.name()
                );
                missed.push(fault.name());
            }
        }
    }
    println!(
        "{} fault kinds, {} caught",
        Fault::ALL.len(),
        Fault::ALL.len() - missed.len()
    );
    if !missed.is_empty() {
        bail!("faults not caught: {}", missed.join(", "));
    }
    Ok(())
}
