//! `cargo xtask conformance`: runs vkd3d's `.shader_test` files (the shared corpus and this
//! project's `shaders/`) through the translator on a Vulkan device with the library's runner
//! ([`dxbc2spirv_testkit::shader_test::runner`]) and reports every probe: per file, every failure
//! with its file, line, expected and actual value, the skip reasons with counts, and a closing
//! `N passed, N failed (N known), N skipped` line. Known failures (probes that fail for
//! reasons outside the translator, listed with the reason in `KNOWN_FAILURES`) do not fail
//! the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use dxbc2spirv_testkit::shader_test::runner::{self, BlobDir, Outcome};
use dxbc2spirv_testkit::shader_test::ShaderTestFile;
use dxbc2spirv_testkit::vulkan;

use crate::paths;

/// Options of the conformance run.
pub struct Options {
    /// Only files whose path contains this substring.
    pub filter: Option<String>,
    /// Write one JSON record per probe to this file.
    pub json: Option<PathBuf>,
    /// A directory of `.shader_test` files to run instead of the defaults.
    pub dir: Option<PathBuf>,
    /// The blob directory for `dir`.
    pub blobs: Option<PathBuf>,
    /// Run under `VK_LAYER_KHRONOS_validation` (also on with `DXBC2SPIRV_VALIDATION=1`).
    pub validation: bool,
    /// Leave the device's condition tags unset, so that the probes a file excludes on this
    /// device (`if(!llvmpipe)`) run too.
    pub no_device_tags: bool,
    /// Run each file a second time without the optimiser; a probe whose outcome differs
    /// between the two runs fails.
    pub optimizer_check: bool,
}

/// Probes that fail for reasons outside the translator, each with the reason. They are
/// listed as failures in the report but do not fail the run; one that passes does, so the
/// list stays true.
const KNOWN_FAILURES: &[(&str, &[u32], &str)] = &[(
    "majority-pragma.shader_test",
    &[370],
    "corpus blob: with both row-major and column-major options the corpus compiled \
         row-major, while the test expects fxc's column-major layout",
)];

/// The reason a probe is a known failure, if it is one.
fn known_failure(file: &str, line: u32) -> Option<&'static str> {
    KNOWN_FAILURES
        .iter()
        .find(|(name, lines, _)| file.ends_with(name) && lines.contains(&line))
        .map(|(_, _, why)| *why)
}

/// One probe's record.
struct Record {
    file: String,
    line: u32,
    text: String,
    outcome: Outcome,
    /// The shaders behind it are expected to compile with fxc.
    fxc_ok: bool,
}

/// Per-file counts.
#[derive(Default, Clone, Copy)]
struct Counts {
    passed: usize,
    failed: usize,
    todo_failed: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail { .. } => self.failed += 1,
            Outcome::TodoFail { .. } => self.todo_failed += 1,
            Outcome::Skip(_) => self.skipped += 1,
        }
    }
}

/// The directories to run, each with its blob directory.
fn sources(options: &Options) -> Result<Vec<(PathBuf, BlobDir)>> {
    let open = |dir: &Path| {
        BlobDir::open(dir).map_err(|e| anyhow::anyhow!("opening blobs {}: {e}", dir.display()))
    };
    Ok(match (&options.dir, &options.blobs) {
        (Some(dir), blobs) => {
            let blobs = blobs.clone().unwrap_or_else(|| dir.clone());
            vec![(dir.clone(), open(&blobs)?)]
        }
        (None, Some(_)) => bail!("--blobs needs --dir"),
        (None, None) => {
            let corpus = paths::corpus_root()?;
            let blobs = open(&corpus.join("shader_test_dxbc"))?;
            vec![
                (corpus.join("shader_test"), blobs.clone()),
                (paths::workspace_root().join("shaders"), blobs),
            ]
        }
    })
}

/// Runs one file through the library's runner (twice with `options.optimizer_check`).
fn run_file(
    ctx: &vulkan::Context,
    path: &Path,
    shown: &str,
    blobs: &BlobDir,
    options: &Options,
) -> Result<Vec<Record>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let file = ShaderTestFile::parse_bytes(&bytes).map_err(|e| anyhow::anyhow!("parsing: {e}"))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let device_tags = if options.no_device_tags {
        Vec::new()
    } else {
        runner::device_tags(ctx.features())
    };
    let mut settings = runner::RunSettings {
        device_tags: &device_tags,
        ..Default::default()
    };
    let report = runner::run_file_with(ctx, &file, &name, blobs, &settings);
    for warning in &report.warnings {
        println!("  validation {warning}");
    }
    let mut records: Vec<Record> = report
        .records
        .into_iter()
        .map(|r| Record {
            file: shown.to_string(),
            line: r.line,
            text: r.text,
            outcome: r.outcome,
            fxc_ok: r.fxc_ok,
        })
        .collect();
    if options.optimizer_check {
        settings.no_optimize = true;
        let plain = runner::run_file_with(ctx, &file, &name, blobs, &settings);
        for warning in &plain.warnings {
            println!("  validation (unoptimised) {warning}");
        }
        disagreements(&mut records, &plain.records);
    }
    Ok(records)
}

/// Turns every probe whose outcome differs between the optimised run (`records`) and the
/// unoptimised one into a failure that shows both.
fn disagreements(records: &mut [Record], plain: &[runner::ProbeRecord]) {
    let kind = |o: &Outcome| std::mem::discriminant(o);
    for (record, other) in records.iter_mut().zip(plain) {
        if record.line != other.line || kind(&record.outcome) == kind(&other.outcome) {
            continue;
        }
        record.outcome = Outcome::Fail {
            expected: format!("the unoptimised translation's outcome: {:?}", other.outcome),
            actual: format!("optimised: {:?}", record.outcome),
        };
    }
    let count = records.len();
    if count != plain.len() {
        if let Some(last) = records.last_mut() {
            last.outcome = Outcome::Fail {
                expected: format!("{} probes as without the optimiser", plain.len()),
                actual: format!("{count} probes"),
            };
        }
    }
}

/// Runs the conformance suite.
pub fn run(options: &Options) -> Result<()> {
    let start = Instant::now();
    let sources = sources(options)?;
    let validation =
        options.validation || std::env::var("DXBC2SPIRV_VALIDATION").is_ok_and(|v| v == "1");
    let ctx = vulkan::Context::with_validation(validation).context("Vulkan is not available")?;
    let features = ctx.features();
    println!(
        "device: {} (Vulkan {})",
        features.device_name,
        features.api_version_string()
    );
    let mut files = Vec::new();
    for (dir, blobs) in &sources {
        let mut found = Vec::new();
        collect(dir, &mut found)?;
        found.sort();
        for path in found {
            let shown = path.display().to_string();
            if options
                .filter
                .as_ref()
                .is_some_and(|f| !shown.contains(f.as_str()))
            {
                continue;
            }
            files.push((path, blobs));
        }
    }
    let mut records = Vec::new();
    let mut total = Counts::default();
    let (mut known_failed, mut unknown_failed) = (0usize, 0usize);
    for (path, blobs) in &files {
        let shown = shown_path(path);
        let file_records = match run_file(&ctx, path, &shown, blobs, options) {
            Ok(r) => r,
            Err(e) => vec![Record {
                file: shown.clone(),
                line: 0,
                text: String::new(),
                outcome: Outcome::Fail {
                    expected: "the file runs".into(),
                    actual: format!("{e:#}"),
                },
                fxc_ok: true,
            }],
        };
        let mut counts = Counts::default();
        for r in &file_records {
            counts.add(&r.outcome);
        }
        let todo = if counts.todo_failed > 0 {
            format!(", {} todo-failed", counts.todo_failed)
        } else {
            String::new()
        };
        println!(
            "{shown}: {} passed, {} failed, {} skipped{todo}",
            counts.passed, counts.failed, counts.skipped
        );
        for r in &file_records {
            let known = known_failure(&r.file, r.line);
            match (&r.outcome, known) {
                (Outcome::Fail { expected, actual }, _) => {
                    let label = if known.is_some() {
                        "KNOWN FAIL"
                    } else {
                        "FAIL"
                    };
                    println!("  {label} {}:{}: {}", r.file, r.line, r.text.trim());
                    println!("       expected {expected}");
                    println!("       actual   {actual}");
                    match known {
                        Some(why) => {
                            println!("       why      {why}");
                            known_failed += 1;
                        }
                        None => unknown_failed += 1,
                    }
                }
                (Outcome::Pass, Some(_)) => {
                    println!(
                        "  NOW PASSES {}:{}: remove it from KNOWN_FAILURES in xtask/src/conformance.rs",
                        r.file, r.line
                    );
                    unknown_failed += 1;
                }
                _ => {}
            }
        }
        total.passed += counts.passed;
        total.failed += counts.failed;
        total.todo_failed += counts.todo_failed;
        total.skipped += counts.skipped;
        records.extend(file_records);
    }
    for message in ctx.take_validation_messages() {
        println!("validation: {message}");
    }
    print_summary(&records);
    if let Some(json) = &options.json {
        write_json(json, &records)?;
    }
    println!(
        "time: {:.1} s for {} files",
        start.elapsed().as_secs_f64(),
        files.len()
    );
    let todo = if total.todo_failed > 0 {
        format!(" ({} todo-failed)", total.todo_failed)
    } else {
        String::new()
    };
    println!(
        "{} passed, {} failed ({known_failed} known), {} skipped{todo}",
        total.passed, total.failed, total.skipped
    );
    if unknown_failed > 0 {
        bail!("{unknown_failed} probes failed (or known failures passed)");
    }
    Ok(())
}

/// A path relative to the workspace root's parent when possible.
fn shown_path(path: &Path) -> String {
    let root = paths::workspace_root();
    if let Ok(rel) = path.strip_prefix(&root) {
        return rel.display().to_string();
    }
    let parent = root.parent().map(Path::to_path_buf).unwrap_or_default();
    match path.strip_prefix(&parent) {
        Ok(rel) => format!("../{}", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

/// Every `.shader_test` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "shader_test") {
            out.push(path);
        }
    }
    Ok(())
}

/// Prints the skip reasons with counts and the compute-probe figures.
fn print_summary(records: &[Record]) {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for r in records {
        if let Outcome::Skip(reason) = &r.outcome {
            *reasons.entry(reason.clone()).or_default() += 1;
        }
    }
    let mut sorted: Vec<_> = reasons.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("skip reasons:");
    for (reason, count) in sorted {
        println!("  {count:5}  {reason}");
    }
    let mut fxc = Counts::default();
    for r in records.iter().filter(|r| r.fxc_ok) {
        fxc.add(&r.outcome);
    }
    println!(
        "probes (shaders expected to compile with fxc): {} passed, {} failed, {} todo-failed, {} skipped",
        fxc.passed, fxc.failed, fxc.todo_failed, fxc.skipped
    );
    let no_blob = records
        .iter()
        .filter(|r| {
            r.fxc_ok && matches!(&r.outcome, Outcome::Skip(why) if why.starts_with("no blob"))
        })
        .count();
    let all = fxc.passed + fxc.failed + fxc.todo_failed + fxc.skipped;
    let percent = |n: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            100.0 * n as f64 / of as f64
        }
    };
    println!(
        "pass rate (fxc-ok probes): {:.1}% of all {all}; {:.1}% of the {} whose shaders have a blob",
        percent(fxc.passed, all),
        percent(fxc.passed, all - no_blob),
        all - no_blob
    );
}

/// Writes one JSON record per probe.
fn write_json(path: &Path, records: &[Record]) -> Result<()> {
    let list: Vec<serde_json::Value> = records
        .iter()
        .map(|r| {
            let (status, detail) = match &r.outcome {
                Outcome::Pass => ("pass", serde_json::json!({})),
                Outcome::Fail { expected, actual } => (
                    "fail",
                    serde_json::json!({ "expected": expected, "actual": actual }),
                ),
                Outcome::TodoFail { expected, actual } => (
                    "todo-failed",
                    serde_json::json!({ "expected": expected, "actual": actual }),
                ),
                Outcome::Skip(reason) => ("skip", serde_json::json!({ "reason": reason })),
            };
            let mut record = serde_json::json!({
                "file": r.file,
                "line": r.line,
                "command": r.text.trim(),
                "status": status,
                "fxc_ok": r.fxc_ok,
            });
            if let (Some(obj), Some(extra)) = (record.as_object_mut(), detail.as_object()) {
                for (k, v) in extra {
                    obj.insert(k.clone(), v.clone());
                }
            }
            record
        })
        .collect();
    let text = serde_json::to_string_pretty(&list)?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}
