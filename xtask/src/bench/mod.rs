//! `cargo xtask bench`: how fast the translator is and how big its output is, over the corpus.
//!
//! * In process ([`harness`], shared with the stand-alone harness of `--baseline`): every
//!   corpus shader (`fxc/**` and `shader_test_dxbc/`; root signatures left out) translated
//!   `--reps` rounds by a kept `Translator` and by `translate_bytes`, debug names stripped.
//!   Printed per corpus: the median, mean, largest-quarter mean and p99 of the kept form's
//!   per-shader medians, shaders per second on one thread and on every core, the SPIR-V size;
//!   then the two forms side by side over each shader's fastest round ([`forms`]).
//! * `--baseline REV`: the in-process harness built against REV (in its own worktree) and
//!   against this tree, run alternately in fresh processes ([`baseline`]).
//! * The full run adds the generated compute shaders of 12,500 to 100,000 instructions
//!   ([`generated`]), the process-per-file runs (peak RSS, `dxbc2spirv batch`, the
//!   `spirv-opt -O` size comparison, Debian's `vkd3d-compiler` when installed) and the
//!   compute-pipeline creation times on the Vulkan device ([`pipelines`]).
//!
//! `--save-digests FILE` writes a digest of every module; `--check-digests FILE` fails when
//! any module differs from the saved one (an optimisation of the translator must not change
//! its output unless it means to). `--criterion` runs the criterion benches instead
//! (`cargo bench --bench translate`).

mod baseline;
mod forms;
mod generated;
#[allow(dead_code)] // shared with the stand-alone harness, which uses all of it
#[path = "../../bench-harness/measure.rs"]
pub(crate) mod harness;
pub(crate) mod pipelines;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use dxbc2spirv::{TranslateOptions, Translator};
use rayon::prelude::*;
use serde_json::json;

use crate::paths::{corpus_root, workspace_root};
use harness::{Shader, Timing, CORPORA};

/// Options of `cargo xtask bench`.
pub struct Options {
    /// Rounds of the in-process corpus run (each shader's fastest and median are kept).
    pub reps: usize,
    /// Write the report as JSON to this file.
    pub json: Option<PathBuf>,
    /// Run the criterion benches instead of the corpus run.
    pub criterion: bool,
    /// Skip everything but the in-process runs (and the alternation with `baseline`).
    pub in_process_only: bool,
    /// Translate without the optimiser (to measure what it costs and saves).
    pub no_optimize: bool,
    /// Write every module's digest to this file.
    pub save_digests: Option<PathBuf>,
    /// Compare every module's digest with this file; fail on a difference.
    pub check_digests: Option<PathBuf>,
    /// Alternate the in-process run with this commit, built in its own worktree.
    pub baseline: Option<String>,
    /// Alternations with the baseline (each: the baseline, then the current tree).
    pub alternations: usize,
}

/// What the in-process run measured for one corpus (over the kept `Translator`'s per-shader
/// median times).
struct CorpusFigures {
    name: String,
    shaders: usize,
    median_us: f64,
    /// The mean over the shaders of each shader's median time (what a whole cache
    /// conversion waits for, per shader).
    mean_us: f64,
    p99_us: f64,
    /// The mean time of the largest quarter of the shaders by program size.
    largest_quarter_mean_us: f64,
    per_s_single: f64,
    per_s_all: f64,
    bytes_total: usize,
    bytes_median: usize,
}

/// Runs the benchmark.
pub fn run(options: &Options) -> Result<()> {
    if options.criterion {
        return run_criterion();
    }
    if cfg!(debug_assertions) {
        eprintln!("warning: xtask built without optimisations; use `cargo xtask bench` (release)");
    }
    let root = corpus_root()?;
    let threads = rayon::current_num_threads();
    let reps = options.reps.max(1);
    println!(
        "dxbc2spirv bench: {reps} rounds, {threads} threads, in process, debug names stripped{}",
        if options.no_optimize {
            ", optimiser off"
        } else {
            ""
        }
    );
    let translate_options = harness::options(options.no_optimize);
    let shaders = harness::load(&root).map_err(anyhow::Error::msg)?;
    let timings = harness::measure(&shaders, reps, &translate_options);

    let mut digests = BTreeMap::new();
    let mut corpora = Vec::new();
    for &(name, _) in CORPORA {
        let rejected: Vec<&str> = timings
            .iter()
            .filter(|t| t.corpus == name && t.spirv_words.is_none())
            .map(|t| t.rel.as_str())
            .collect();
        if !rejected.is_empty() {
            println!(
                "{name}: {} shaders rejected by the translator, left out: {}",
                rejected.len(),
                rejected.join(", ")
            );
        }
        let (blobs, times): (Vec<&Shader>, Vec<&Timing>) = shaders
            .iter()
            .zip(&timings)
            .filter(|(s, t)| s.corpus == name && t.spirv_words.is_some())
            .unzip();
        for s in &blobs {
            if let Ok(t) = dxbc2spirv::translate_bytes(&s.bytes, &translate_options) {
                digests.insert(s.rel.clone(), digest(&t.words));
            }
        }
        corpora.push(corpus_figures(
            name,
            &blobs,
            &times,
            reps,
            &translate_options,
        )?);
    }
    print_table(&corpora);
    let translated: Vec<&Timing> = timings.iter().filter(|t| t.spirv_words.is_some()).collect();
    let form_sets = forms::sets(&translated);
    forms::print(&form_sets, reps);

    if let Some(path) = &options.save_digests {
        let text: String = digests
            .iter()
            .map(|(rel, d)| format!("{d:016x}\t{rel}\n"))
            .collect();
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        println!(
            "digests of {} modules written to {}",
            digests.len(),
            path.display()
        );
    }
    if let Some(path) = &options.check_digests {
        check_digests(path, &digests)?;
    }

    let mut report = json!({
        "reps": reps,
        "threads": threads,
        "corpora": corpora.iter().map(|c| json!({
            "name": c.name,
            "shaders": c.shaders,
            "median_us": c.median_us,
            "mean_us": c.mean_us,
            "largest_quarter_mean_us": c.largest_quarter_mean_us,
            "p99_us": c.p99_us,
            "shaders_per_s_single": c.per_s_single,
            "shaders_per_s_all_cores": c.per_s_all,
            "spirv_bytes_total": c.bytes_total,
            "spirv_bytes_median": c.bytes_median,
        })).collect::<Vec<_>>(),
        "forms": forms::to_json(&form_sets),
    });

    let exe = if options.in_process_only {
        None
    } else {
        Some(build_release_cli()?)
    };
    if let Some(exe) = &exe {
        report["generated"] = generated::run(exe, &translate_options)?;
    }
    if let Some(rev) = &options.baseline {
        report["baseline"] = baseline::run(rev, &root, options)?;
    }
    if let Some(exe) = &exe {
        let all_blobs: Vec<&Shader> = shaders
            .iter()
            .zip(&timings)
            .filter(|(_, t)| t.spirv_words.is_some())
            .map(|(s, _)| s)
            .collect();
        let largest = all_blobs
            .iter()
            .max_by_key(|b| b.bytes.len())
            .context("no blobs")?;
        match peak_rss_kb(exe, &largest.path)? {
            Some(kb) => {
                println!(
                    "peak RSS translating the largest blob ({}, {} bytes) in a fresh process: {:.2} MB",
                    largest.rel,
                    largest.bytes.len(),
                    kb as f64 / 1024.0
                );
                report["peak_rss_kb"] = json!(kb);
                report["largest_blob"] = json!(largest.rel);
            }
            None => println!("peak RSS: /usr/bin/time not found (apt-get install time)"),
        }
        let (wall, ok) = batch_time(exe, &root)?;
        println!(
            "dxbc2spirv batch over both corpora ({threads} jobs, --strip-debug): {:.3} s{}",
            wall.as_secs_f64(),
            if ok {
                ""
            } else {
                " (exit status 1: some inputs failed)"
            }
        );
        report["batch_s"] = json!(wall.as_secs_f64());
        let fxc: Vec<&Shader> = all_blobs
            .iter()
            .copied()
            .filter(|b| b.corpus == "fxc")
            .collect();
        if let Some((ours, optimised, count)) = spirv_opt_sizes(&fxc, &translate_options)? {
            println!(
                "SPIR-V over the {count} fxc shaders (debug stripped): ours {ours} bytes, \
                 `spirv-opt -O` of the same modules {optimised} bytes: ours/opt {:.3}",
                ours as f64 / optimised.max(1) as f64
            );
            report["spirv_opt"] = json!({
                "modules": count,
                "ours_bytes": ours,
                "spirv_opt_bytes": optimised,
            });
        }
        if let Some(peer) = peer_comparison(exe, &all_blobs)? {
            report["vkd3d_compiler"] = peer;
        }
        report["pipelines"] = pipelines::run_child()?;
    }

    if let Some(path) = &options.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The total sizes of our modules of `blobs` (as the in-process run makes them) and of
/// what `spirv-opt -O --strip-debug` (SPIRV-Tools 2025.5, from `target/spirv-tools`) makes
/// of each, with the module count; `None` when spirv-opt is not installed.
fn spirv_opt_sizes(
    blobs: &[&Shader],
    options: &TranslateOptions,
) -> Result<Option<(usize, usize, usize)>> {
    let opt = crate::tools::spirv_tools_bin().join("spirv-opt");
    if !opt.is_file() {
        println!(
            "spirv-opt comparison: {} not found (cargo xtask test installs it)",
            opt.display()
        );
        return Ok(None);
    }
    let dir = workspace_root().join("target").join("bench-spirv-opt");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let sizes: Vec<Result<Option<(usize, usize)>>> = blobs
        .par_iter()
        .enumerate()
        .map(|(i, b)| {
            let Ok(t) = dxbc2spirv::translate_bytes(&b.bytes, options) else {
                return Ok(None);
            };
            let ours = dir.join(format!("{i}.spv"));
            let optimised = dir.join(format!("{i}.opt.spv"));
            let bytes: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&ours, &bytes)?;
            let status = Command::new(&opt)
                .args(["-O", "--strip-debug", "--target-env=vulkan1.3"])
                .arg(&ours)
                .arg("-o")
                .arg(&optimised)
                .stderr(Stdio::null())
                .status()
                .with_context(|| format!("running {}", opt.display()))?;
            if !status.success() {
                bail!("spirv-opt failed on the module of {}", b.rel);
            }
            let size = std::fs::metadata(&optimised)?.len() as usize;
            Ok(Some((bytes.len(), size)))
        })
        .collect();
    let (mut ours, mut optimised, mut count) = (0, 0, 0);
    for size in sizes {
        if let Some((a, b)) = size? {
            ours += a;
            optimised += b;
            count += 1;
        }
    }
    Ok(Some((ours, optimised, count)))
}

/// Runs the criterion benches of the main crate.
///
/// They build in their own target directory (`target/bench-criterion`, unless
/// `CARGO_TARGET_DIR` is set): under `cargo bench` the dev-dependencies (criterion) change
/// the features of shared dependencies (serde), so the library built for the benches and
/// the one built for `cargo xtask` differ, and in one target directory each build replaced
/// the other, recompiling the library on every `cargo xtask bench --criterion`.
fn run_criterion() -> Result<()> {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command
        .args(["bench", "--bench", "translate"])
        .current_dir(workspace_root());
    if std::env::var_os("CARGO_TARGET_DIR").is_none() {
        command.env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target").join("bench-criterion"),
        );
    }
    let status = command.status().context("running cargo bench")?;
    if !status.success() {
        bail!("cargo bench failed ({status})");
    }
    Ok(())
}

/// The figures of one corpus: the table's statistics over the kept `Translator`'s
/// per-shader medians, shaders per second on one thread (from the median round's total) and
/// on every core (rayon, one `Translator` per thread, median of `reps` passes), and the
/// SPIR-V sizes.
fn corpus_figures(
    name: &str,
    blobs: &[&Shader],
    times: &[&Timing],
    reps: usize,
    options: &TranslateOptions,
) -> Result<CorpusFigures> {
    if blobs.is_empty() {
        bail!("{name}: no shader translated");
    }
    let mut medians: Vec<f64> = times.iter().map(|t| t.kept_median()).collect();
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len().max(1) as f64;
    let mean_us = mean(&medians);
    let largest_quarter_mean_us = mean(
        &forms::largest_quarter(times)
            .iter()
            .map(|t| t.kept_median())
            .collect::<Vec<_>>(),
    );
    medians.sort_by(f64::total_cmp);
    // One thread: the total of each round over the corpus, the median round.
    let mut rounds: Vec<f64> = (0..reps)
        .map(|r| times.iter().filter_map(|t| t.kept_us.get(r)).sum::<f64>())
        .collect();
    rounds.sort_by(f64::total_cmp);
    let single_s = rounds[rounds.len() / 2] / 1e6;
    let translate = |translator: &mut Translator, b: &Shader| {
        translator
            .translate(&b.bytes, options)
            .map(|t| t.words.len())
            .unwrap_or(0)
    };
    // All cores (after a warm-up that starts rayon's threads).
    blobs.par_iter().for_each_init(Translator::new, |t, b| {
        std::hint::black_box(translate(t, b));
    });
    let mut passes = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        blobs.par_iter().for_each_init(Translator::new, |t, b| {
            std::hint::black_box(translate(t, b));
        });
        passes.push(start.elapsed());
    }
    passes.sort();
    let all = passes[passes.len() / 2];
    let count = blobs.len() as f64;
    let mut sizes: Vec<usize> = times
        .iter()
        .map(|t| t.spirv_words.unwrap_or(0) * 4)
        .collect();
    let bytes_total = sizes.iter().sum();
    sizes.sort();
    Ok(CorpusFigures {
        name: name.to_string(),
        shaders: blobs.len(),
        median_us: medians[medians.len() / 2],
        mean_us,
        largest_quarter_mean_us,
        p99_us: forms::p99_sorted(&medians),
        per_s_single: count / single_s.max(1e-12),
        per_s_all: count / all.as_secs_f64(),
        bytes_total,
        bytes_median: sizes[sizes.len() / 2],
    })
}

/// Prints the in-process figures of the kept `Translator` (per-shader medians).
fn print_table(corpora: &[CorpusFigures]) {
    println!("kept Translator, each shader's median round; largest¼ = the quarter of the shaders with the largest program (SHDR/SHEX bytes):");
    println!(
        "{:<18} {:>7} {:>10} {:>8} {:>10} {:>9} {:>11} {:>11} {:>12} {:>10}",
        "corpus",
        "shaders",
        "median µs",
        "mean µs",
        "largest¼ µs",
        "p99 µs",
        "/s 1 core",
        "/s all",
        "SPIR-V total",
        "median B"
    );
    for c in corpora {
        println!(
            "{:<18} {:>7} {:>10.1} {:>8.1} {:>10.1} {:>9.1} {:>11.0} {:>11.0} {:>12} {:>10}",
            c.name,
            c.shaders,
            c.median_us,
            c.mean_us,
            c.largest_quarter_mean_us,
            c.p99_us,
            c.per_s_single,
            c.per_s_all,
            c.bytes_total,
            c.bytes_median
        );
    }
}

/// A 64-bit FNV-1a digest of a module's words.
fn digest(words: &[u32]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        for b in w.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Compares the modules' digests with a saved digest file.
fn check_digests(path: &Path, digests: &BTreeMap<String, u64>) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut saved = BTreeMap::new();
    for line in text.lines() {
        if let Some((d, rel)) = line.split_once('\t') {
            saved.insert(rel.to_string(), u64::from_str_radix(d, 16)?);
        }
    }
    let mut differ = Vec::new();
    for (rel, d) in digests {
        if saved.get(rel) != Some(d) {
            differ.push(rel.as_str());
        }
    }
    let missing = saved.keys().filter(|k| !digests.contains_key(*k)).count();
    if differ.is_empty() && missing == 0 {
        println!(
            "output check: all {} modules identical to {}",
            digests.len(),
            path.display()
        );
        return Ok(());
    }
    for rel in differ.iter().take(20) {
        println!("output differs: {rel}");
    }
    bail!(
        "{} modules differ from {} ({} saved modules not produced)",
        differ.len(),
        path.display(),
        missing
    )
}

/// Builds the release command-line tool and returns its path.
pub(crate) fn build_release_cli() -> Result<PathBuf> {
    let root = workspace_root();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--quiet", "--release", "--bin", "dxbc2spirv"])
        .current_dir(&root)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release failed ({status})");
    }
    Ok(crate::paths::target_dir()
        .join("release")
        .join("dxbc2spirv"))
}

/// Peak RSS in KiB of `dxbc2spirv translate --strip-debug BLOB` in a fresh process, measured
/// by `/usr/bin/time -f %M`; `None` when that program is missing.
fn peak_rss_kb(exe: &Path, blob: &Path) -> Result<Option<u64>> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return Ok(None);
    }
    let out = Command::new(time)
        .args(["-f", "%M"])
        .arg(exe)
        .args(["translate", "--strip-debug", "-o", "/dev/null"])
        .arg(blob)
        .stdout(Stdio::null())
        .output()
        .context("running /usr/bin/time")?;
    if !out.status.success() {
        bail!(
            "translating {} failed: {}",
            blob.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8_lossy(&out.stderr);
    let kb = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .with_context(|| format!("unexpected /usr/bin/time output: {text}"))?;
    Ok(Some(kb))
}

/// Wall time of `dxbc2spirv batch` over both corpora, and whether it succeeded.
fn batch_time(exe: &Path, root: &Path) -> Result<(Duration, bool)> {
    let out_dir = workspace_root().join("target").join("bench-batch");
    let _ = std::fs::remove_dir_all(&out_dir);
    let start = Instant::now();
    let out = Command::new(exe)
        .arg("batch")
        .args(CORPORA.iter().map(|(name, _)| root.join(name)))
        .arg("-o")
        .arg(&out_dir)
        .arg("--strip-debug")
        .output()
        .context("running dxbc2spirv batch")?;
    let wall = start.elapsed();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        println!("  batch: {line}");
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    Ok((wall, out.status.success()))
}

/// One process-per-file run: wall time and output size, or `None` when it failed.
fn run_one(command: &mut Command, out: &Path) -> Option<(Duration, u64)> {
    let _ = std::fs::remove_file(out);
    let start = Instant::now();
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    let wall = start.elapsed();
    if !status.success() {
        return None;
    }
    Some((wall, std::fs::metadata(out).ok()?.len()))
}

/// Runs Debian's `vkd3d-compiler` and ours, one process per file, over every blob, and prints
/// the ratios ours/peer over the shaders both translate. `None` when the peer is missing.
fn peer_comparison(exe: &Path, blobs: &[&Shader]) -> Result<Option<serde_json::Value>> {
    let Some(peer) = find_on_path("vkd3d-compiler") else {
        println!(
            "vkd3d-compiler not installed (apt-get install vkd3d-compiler): no peer comparison"
        );
        return Ok(None);
    };
    let dir = workspace_root().join("target").join("bench-peer");
    std::fs::create_dir_all(&dir)?;
    let ours_out = dir.join("ours.spv");
    let peer_out = dir.join("peer.spv");
    let mut per_corpus = Vec::new();
    println!("process per file, --strip-debug, over the shaders both translate:");
    println!(
        "{:<18} {:>6} {:>7} {:>11} {:>11} {:>7} {:>11} {:>11} {:>7}",
        "corpus", "both", "peer ok", "ours ms", "peer ms", "time ×", "ours B", "peer B", "size ×"
    );
    for &(name, _) in CORPORA {
        let prefix = format!("{name}/");
        let (mut both, mut peer_ok) = (0usize, 0usize);
        let (mut t_ours, mut t_peer) = (Duration::ZERO, Duration::ZERO);
        let (mut b_ours, mut b_peer) = (0u64, 0u64);
        for b in blobs.iter().filter(|b| b.rel.starts_with(&prefix)) {
            let p = run_one(
                Command::new(&peer)
                    .args([
                        "-x",
                        "dxbc-tpf",
                        "-b",
                        "spirv-binary",
                        "--strip-debug",
                        "-o",
                    ])
                    .arg(&peer_out)
                    .arg(&b.path),
                &peer_out,
            );
            let o = run_one(
                Command::new(exe)
                    .args(["translate", "--strip-debug", "-o"])
                    .arg(&ours_out)
                    .arg(&b.path),
                &ours_out,
            );
            peer_ok += usize::from(p.is_some());
            if let (Some((to, so)), Some((tp, sp))) = (o, p) {
                both += 1;
                t_ours += to;
                t_peer += tp;
                b_ours += so;
                b_peer += sp;
            }
        }
        let time_ratio = t_ours.as_secs_f64() / t_peer.as_secs_f64().max(1e-9);
        let size_ratio = b_ours as f64 / (b_peer as f64).max(1.0);
        println!(
            "{:<18} {:>6} {:>7} {:>11.1} {:>11.1} {:>7.2} {:>11} {:>11} {:>7.3}",
            name,
            both,
            peer_ok,
            t_ours.as_secs_f64() * 1e3,
            t_peer.as_secs_f64() * 1e3,
            time_ratio,
            b_ours,
            b_peer,
            size_ratio
        );
        per_corpus.push(json!({
            "name": name,
            "both": both,
            "peer_translated": peer_ok,
            "ours_ms": t_ours.as_secs_f64() * 1e3,
            "peer_ms": t_peer.as_secs_f64() * 1e3,
            "time_ratio": time_ratio,
            "ours_bytes": b_ours,
            "peer_bytes": b_peer,
            "size_ratio": size_ratio,
        }));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Some(json!(per_corpus)))
}

/// The path of a program on `PATH`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
