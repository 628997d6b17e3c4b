//! `cargo xtask bench --baseline REV [--alternations N]`: the in-process measurement run
//! alternately against a baseline commit and the current tree, each run a fresh process.
//!
//! REV is checked out in a worktree of its own, `target/bench-baseline/<12-digit hash>`
//! (made once, reused after). The harness (`xtask/bench-harness/`: `main.rs` and the
//! `measure.rs` xtask's own in-process run uses) is copied into two small crates under
//! `target/bench-harness/`, one depending on the baseline tree's library and one on this
//! tree's, both with the same release profile (this workspace's: fat LTO, one codegen unit)
//! and built in one target directory, `target/bench-harness/target`, so the dependencies are
//! built once. Each side therefore runs identical measurement code against its own library.
//! The runs go baseline, current, baseline, current, …; the figures are taken over the
//! shaders both sides translated in every run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::forms::{self, SetFigures};
use super::harness::Timing;
use super::Options;
use crate::paths::workspace_root;

/// Runs the alternation and prints its figures.
pub(super) fn run(rev: &str, root: &Path, options: &Options) -> Result<Value> {
    let hash = git_output(
        &workspace_root(),
        &["rev-parse", "--verify", &format!("{rev}^{{commit}}")],
    )
    .with_context(|| format!("{rev} is not a commit"))?;
    let short = &hash[..12.min(hash.len())];
    let tree = worktree(&hash, short)?;
    println!("building the in-process harness against {rev} ({short}) and the current tree…");
    let baseline = build_harness(&tree, &format!("baseline-{short}"))?;
    let current = build_harness(&workspace_root(), "current")?;
    let alternations = options.alternations.max(1);
    let reps = options.reps.max(1);
    let mut runs: Vec<(&str, Vec<Timing>)> = Vec::new();
    for i in 0..alternations {
        for (side, exe) in [("baseline", &baseline), ("current", &current)] {
            eprintln!("  alternation {}/{alternations}: {side}", i + 1);
            runs.push((side, run_harness(exe, root, reps, options.no_optimize)?));
        }
    }
    // The shaders every run translated.
    let mut common: Option<BTreeSet<String>> = None;
    for (_, timings) in &runs {
        let ok: BTreeSet<String> = timings
            .iter()
            .filter(|t| t.spirv_words.is_some())
            .map(|t| t.rel.clone())
            .collect();
        common = Some(match common {
            None => ok,
            Some(c) => c.intersection(&ok).cloned().collect(),
        });
    }
    let common = common.unwrap_or_default();
    let figures: Vec<(&str, Vec<SetFigures>)> = runs
        .iter()
        .map(|(side, timings)| {
            let kept: Vec<&Timing> = timings.iter().filter(|t| common.contains(&t.rel)).collect();
            (*side, forms::sets(&kept))
        })
        .collect();
    print(rev, short, alternations, reps, common.len(), &figures)
}

/// The worktree of commit `hash` under `target/bench-baseline/`, made when missing.
fn worktree(hash: &str, short: &str) -> Result<PathBuf> {
    let dir = workspace_root()
        .join("target")
        .join("bench-baseline")
        .join(short);
    if dir.join("Cargo.toml").is_file() {
        let head = git_output(&dir, &["rev-parse", "HEAD"])?;
        if head != hash {
            bail!(
                "{} is at {head}, not {hash}: remove it (git worktree remove --force {})",
                dir.display(),
                dir.display()
            );
        }
        return Ok(dir);
    }
    std::fs::create_dir_all(dir.parent().unwrap_or(&dir))?;
    // `--force`: the worktree may still be registered after `target/` was deleted.
    let status = Command::new("git")
        .args(["worktree", "add", "--force", "--detach"])
        .arg(&dir)
        .arg(hash)
        .current_dir(workspace_root())
        .status()
        .context("running git worktree add")?;
    if !status.success() {
        bail!(
            "git worktree add {} {hash} failed ({status})",
            dir.display()
        );
    }
    Ok(dir)
}

/// The trimmed standard output of `git ARGS` run in `dir`.
fn git_output(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Writes `contents` to `path` unless it already holds them (so cargo sees no change).
fn write_if_changed(path: &Path, contents: &[u8]) -> Result<()> {
    if std::fs::read(path).ok().as_deref() != Some(contents) {
        std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Makes the harness crate `target/bench-harness/<side>` depending on the library of `tree`,
/// builds it in release and returns the executable's path.
fn build_harness(tree: &Path, side: &str) -> Result<PathBuf> {
    let base = workspace_root().join("target").join("bench-harness");
    let dir = base.join(side);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let source = workspace_root().join("xtask").join("bench-harness");
    for file in ["main.rs", "measure.rs"] {
        let text = std::fs::read(source.join(file))
            .with_context(|| format!("reading {}", source.join(file).display()))?;
        write_if_changed(&dir.join(file), &text)?;
    }
    let name = format!("bench-harness-{side}");
    let manifest = format!(
        "# Made by `cargo xtask bench --baseline` (xtask/src/bench/baseline.rs).\n\
         [package]\n\
         name = \"{name}\"\n\
         version = \"0.0.0\"\n\
         edition = \"2021\"\n\
         publish = false\n\n\
         [[bin]]\n\
         name = \"{name}\"\n\
         path = \"main.rs\"\n\n\
         [dependencies]\n\
         dxbc2spirv = {{ path = '{}' }}\n\n\
         [profile.release]\n\
         debug = 1\n\
         lto = \"fat\"\n\
         codegen-units = 1\n\n\
         [workspace]\n",
        tree.display()
    );
    write_if_changed(&dir.join("Cargo.toml"), manifest.as_bytes())?;
    // The tree's own lock file, so that both sides build the versions their trees use.
    if !dir.join("Cargo.lock").is_file() {
        if let Ok(lock) = std::fs::read(tree.join("Cargo.lock")) {
            std::fs::write(dir.join("Cargo.lock"), lock)?;
        }
    }
    let target = base.join("target");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--quiet", "--release", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!(
            "building the harness against {} failed ({status})",
            tree.display()
        );
    }
    Ok(target.join("release").join(name))
}

/// Runs one harness process and reads its timings.
fn run_harness(exe: &Path, root: &Path, reps: usize, no_optimize: bool) -> Result<Vec<Timing>> {
    let mut command = Command::new(exe);
    command.arg(root).args(["--reps", &reps.to_string()]);
    if no_optimize {
        command.arg("--no-optimize");
    }
    let out = command
        .output()
        .with_context(|| format!("running {}", exe.display()))?;
    if !out.status.success() {
        bail!(
            "{} failed: {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let report: Value = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("reading the output of {}", exe.display()))?;
    let numbers = |v: &Value| -> Vec<f64> {
        v.as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    report["shaders"]
        .as_array()
        .context("no shaders in the harness's output")?
        .iter()
        .map(|s| {
            Ok(Timing {
                corpus: s["corpus"].as_str().context("corpus")?.to_string(),
                rel: s["rel"].as_str().context("rel")?.to_string(),
                program_bytes: s["program_bytes"].as_u64().context("program_bytes")? as usize,
                spirv_words: s["spirv_words"].as_u64().map(|w| w as usize),
                kept_us: numbers(&s["kept_us"]),
                one_call_us: numbers(&s["one_call_us"]),
            })
        })
        .collect()
}

/// The four figures compared per set: the kept form's mean and largest-quarter mean, the
/// one-call form's mean and largest-quarter mean (the quarters absent for the set that is
/// itself a largest quarter).
fn columns(s: &SetFigures) -> [Option<f64>; 4] {
    [
        Some(s.kept.mean),
        s.kept.largest_quarter,
        Some(s.one_call.mean),
        s.one_call.largest_quarter,
    ]
}

/// Prints each run's figures and the ratios current/baseline; returns them as JSON.
fn print(
    rev: &str,
    short: &str,
    alternations: usize,
    reps: usize,
    shaders: usize,
    figures: &[(&str, Vec<SetFigures>)],
) -> Result<Value> {
    let cell = |v: Option<f64>, precision: usize| {
        v.map_or_else(|| "-".to_string(), |v| format!("{v:.precision$}"))
    };
    println!(
        "alternation with {rev} ({short}): {alternations} × (baseline, current), each a fresh \
         process; each shader's fastest of {reps} rounds, µs, over the {shaders} shaders both \
         translate; largest¼ by program size (SHDR/SHEX bytes):"
    );
    println!(
        "{:<18} {:>3} {:<9} {:>10} {:>10} {:>12} {:>10}",
        "set", "alt", "side", "kept mean", "largest¼", "1-call mean", "largest¼"
    );
    let set_names: Vec<String> = figures
        .first()
        .map(|(_, sets)| sets.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    // ratios[set][column] = the current/baseline ratio of each alternation.
    let mut ratios: BTreeMap<usize, Vec<Vec<f64>>> = BTreeMap::new();
    let mut runs_json = Vec::new();
    for (k, name) in set_names.iter().enumerate() {
        for (i, pair) in figures.chunks(2).enumerate() {
            for (side, sets) in pair {
                let c = columns(&sets[k]);
                println!(
                    "{:<18} {:>3} {:<9} {:>10} {:>10} {:>12} {:>10}",
                    name,
                    i + 1,
                    side,
                    cell(c[0], 1),
                    cell(c[1], 1),
                    cell(c[2], 1),
                    cell(c[3], 1)
                );
                runs_json.push(json!({
                    "set": name, "alternation": i + 1, "side": side,
                    "kept_mean_us": c[0], "kept_largest_quarter_us": c[1],
                    "one_call_mean_us": c[2], "one_call_largest_quarter_us": c[3],
                }));
            }
            if let [(_, base), (_, cur)] = pair {
                let (b, c) = (columns(&base[k]), columns(&cur[k]));
                let entry = ratios.entry(k).or_insert_with(|| vec![Vec::new(); 4]);
                for column in 0..4 {
                    if let (Some(b), Some(c)) = (b[column], c[column]) {
                        entry[column].push(c / b);
                    }
                }
            }
        }
    }
    println!("ratio current/baseline, mean over the {alternations} alternations (worst):");
    println!(
        "{:<18} {:>16} {:>16} {:>16} {:>16}",
        "set", "kept mean", "largest¼", "1-call mean", "largest¼"
    );
    let mut ratios_json = Vec::new();
    for (k, name) in set_names.iter().enumerate() {
        let columns = ratios
            .get(&k)
            .cloned()
            .unwrap_or_else(|| vec![Vec::new(); 4]);
        let summary: Vec<Option<(f64, f64)>> = columns
            .iter()
            .map(|r| {
                (!r.is_empty()).then(|| {
                    let mean = r.iter().sum::<f64>() / r.len() as f64;
                    let worst = r.iter().copied().fold(f64::MIN, f64::max);
                    (mean, worst)
                })
            })
            .collect();
        let text = |s: &Option<(f64, f64)>| {
            s.map_or_else(
                || "-".to_string(),
                |(mean, worst)| format!("{mean:.3} ({worst:.3})"),
            )
        };
        println!(
            "{:<18} {:>16} {:>16} {:>16} {:>16}",
            name,
            text(&summary[0]),
            text(&summary[1]),
            text(&summary[2]),
            text(&summary[3])
        );
        let pair = |s: &Option<(f64, f64)>| s.map(|(m, w)| json!({"mean": m, "worst": w}));
        ratios_json.push(json!({
            "set": name,
            "kept_mean": pair(&summary[0]),
            "kept_largest_quarter": pair(&summary[1]),
            "one_call_mean": pair(&summary[2]),
            "one_call_largest_quarter": pair(&summary[3]),
        }));
    }
    Ok(json!({
        "rev": rev,
        "commit": short,
        "alternations": alternations,
        "reps": reps,
        "shaders": shaders,
        "runs": runs_json,
        "ratios": ratios_json,
    }))
}
