//! Compute-pipeline creation on the Vulkan device (lavapipe here): every corpus compute
//! shader translated with the default options and with `no_optimize`, and
//! `vkCreateComputePipelines` timed for each module. A report of what the optimiser saves
//! or costs the driver, not a target.
//!
//! The measurement runs in a child process (`cargo xtask bench` runs itself with the hidden
//! `--pipelines-child FILE`) whose environment has `MESA_SHADER_CACHE_DISABLE=true`, so that
//! mesa's on-disk shader cache neither answers nor fills: every creation compiles.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use dxbc2spirv::{ReadOptions, TranslateOptions};
use dxbc2spirv_testkit::vulkan;
use serde_json::{json, Value};

use super::harness;
use crate::paths::{corpus_root, workspace_root};

/// Rounds of each pipeline creation; the fastest is counted.
const ROUNDS: usize = 5;

/// Runs the measurement in a child process with the driver's shader cache disabled, its
/// output shown as it comes; returns the child's JSON report.
pub(crate) fn run_child() -> Result<Value> {
    let exe = std::env::current_exe().context("finding the xtask executable")?;
    let file = workspace_root().join("target").join("bench-pipelines.json");
    let _ = std::fs::remove_file(&file);
    let status = Command::new(&exe)
        .args(["bench", "--pipelines-child"])
        .arg(&file)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .status()
        .with_context(|| format!("running {}", exe.display()))?;
    if !status.success() {
        bail!("the pipeline-creation measurement failed ({status})");
    }
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    Ok(serde_json::from_str(&text)?)
}

/// What was measured for one compute shader.
struct Created {
    /// The fastest creation with the optimised module, and the module's bytes.
    optimised: (f64, usize),
    /// The fastest creation with the unoptimised module, and its bytes.
    unoptimised: (f64, usize),
}

/// The child's side: measures, prints and writes the JSON report to `file`.
pub(crate) fn child(file: &Path) -> Result<()> {
    let report = measure()?;
    std::fs::write(file, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", file.display()))
}

/// Times the pipelines, or reports loudly why it could not.
fn measure() -> Result<Value> {
    let cache = std::env::var("MESA_SHADER_CACHE_DISABLE").unwrap_or_default();
    let ctx = match vulkan::Context::new() {
        Ok(ctx) => ctx,
        Err(e) => {
            println!("!!! pipeline creation NOT MEASURED: no Vulkan device ({e}) !!!");
            return Ok(json!({ "skipped": e.to_string() }));
        }
    };
    let device = ctx.features().device_name.clone();
    let root = corpus_root()?;
    let shaders = harness::load(&root).map_err(anyhow::Error::msg)?;
    let optimised_options = TranslateOptions::default();
    let mut unoptimised_options = TranslateOptions::default();
    unoptimised_options.no_optimize = true;
    // (path, optimised module, unoptimised module) of every translatable compute shader.
    let mut modules = Vec::new();
    let mut rejected = 0;
    for s in &shaders {
        let Ok(dxbc) = dxbc2spirv::read(&s.bytes, &ReadOptions::default()) else {
            continue;
        };
        let compute = dxbc
            .program
            .as_ref()
            .is_some_and(|p| p.model.stage == dxbc2spirv::ir::Stage::Compute);
        if !compute {
            continue;
        }
        match (
            dxbc2spirv::translate_bytes(&s.bytes, &optimised_options),
            dxbc2spirv::translate_bytes(&s.bytes, &unoptimised_options),
        ) {
            (Ok(a), Ok(b)) => modules.push((s.rel.clone(), a.words, b.words)),
            _ => rejected += 1,
        }
    }
    if modules.is_empty() {
        bail!("no compute shader in the corpus translated");
    }
    // The driver's first compilation sets up its compiler: not counted.
    ctx.time_compute_pipeline(&modules[0].1)
        .map_err(|e| anyhow::anyhow!("{}: {e}", modules[0].0))?;
    let mut created: Vec<Created> = modules
        .iter()
        .map(|(_, a, b)| Created {
            optimised: (f64::INFINITY, a.len() * 4),
            unoptimised: (f64::INFINITY, b.len() * 4),
        })
        .collect();
    let mut failed = Vec::new();
    for round in 0..ROUNDS {
        for ((rel, a, b), c) in modules.iter().zip(&mut created) {
            let mut time = |words: &[u32], best: &mut f64| match ctx.time_compute_pipeline(words) {
                Ok(d) => *best = best.min(d.as_secs_f64() * 1e3),
                Err(e) => {
                    if round == 0 {
                        failed.push(format!("{rel}: {e}"));
                    }
                }
            };
            if round % 2 == 0 {
                time(a, &mut c.optimised.0);
                time(b, &mut c.unoptimised.0);
            } else {
                time(b, &mut c.unoptimised.0);
                time(a, &mut c.optimised.0);
            }
        }
    }
    for f in &failed {
        println!("pipeline creation failed: {f}");
    }
    // The shaders whose pipelines were made both ways.
    let both: Vec<&Created> = created
        .iter()
        .filter(|c| c.optimised.0.is_finite() && c.unoptimised.0.is_finite())
        .collect();
    let total = |f: fn(&Created) -> f64| both.iter().map(|c| f(c)).sum::<f64>();
    let (opt_ms, unopt_ms) = (total(|c| c.optimised.0), total(|c| c.unoptimised.0));
    let (opt_bytes, unopt_bytes) = (
        total(|c| c.optimised.1 as f64),
        total(|c| c.unoptimised.1 as f64),
    );
    println!(
        "vkCreateComputePipelines on {device} (MESA_SHADER_CACHE_DISABLE={cache}), the {} corpus \
         compute shaders{}, fastest of {ROUNDS} creations each:",
        both.len(),
        if rejected > 0 {
            format!(" ({rejected} not translated)")
        } else {
            String::new()
        }
    );
    println!(
        "{:<22} {:>10} {:>12} {:>10}",
        "module", "total ms", "mean ms", "SPIR-V B"
    );
    for (name, ms, bytes) in [
        ("default (optimised)", opt_ms, opt_bytes),
        ("no_optimize", unopt_ms, unopt_bytes),
    ] {
        println!(
            "{:<22} {:>10.1} {:>12.2} {:>10.0}",
            name,
            ms,
            ms / both.len().max(1) as f64,
            bytes
        );
    }
    println!(
        "pipeline creation, optimised / unoptimised: {:.3} (SPIR-V size {:.3})",
        opt_ms / unopt_ms.max(1e-9),
        opt_bytes / unopt_bytes.max(1.0)
    );
    Ok(json!({
        "device": device,
        "shaders": both.len(),
        "rounds": ROUNDS,
        "failed": failed,
        "optimised_ms": opt_ms,
        "unoptimised_ms": unopt_ms,
        "optimised_spirv_bytes": opt_bytes,
        "unoptimised_spirv_bytes": unopt_bytes,
    }))
}
