//! `cargo xtask corpus`: runs every corpus blob through [`STAGES`] in process and reports.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::paths;
use crate::stages::{Blob, STAGES};

/// The sub-corpora, in report order: directory under the corpus root, and whether to recurse.
const CORPORA: &[(&str, bool)] = &[("fxc", true), ("shader_test_dxbc", false)];

/// Options of one corpus run.
#[derive(Default)]
pub struct Options {
    /// Only blobs whose relative path contains this substring.
    pub filter: Option<String>,
    /// Print a line for every blob, not only the failures.
    pub verbose: bool,
    /// Where to write the per-blob JSON records.
    pub json: Option<PathBuf>,
}

/// Pass/fail counts of one sub-corpus.
struct CorpusCount {
    name: &'static str,
    passed: usize,
    failed: usize,
    root_signatures: usize,
}

/// Pass/fail counts of one stage (root signatures and blobs that stopped earlier not counted).
struct StageCount {
    passed: usize,
    failed: usize,
}

/// The outcome of a corpus run.
pub struct Report {
    corpora: Vec<CorpusCount>,
    stages: Vec<StageCount>,
}

impl Report {
    /// Blobs that passed every stage.
    fn passed(&self) -> usize {
        self.corpora.iter().map(|c| c.passed).sum()
    }

    /// Blobs that failed a stage.
    fn failed(&self) -> usize {
        self.corpora.iter().map(|c| c.failed).sum()
    }

    /// Prints per-corpus counts, per-stage counts and the root-signature count.
    pub fn print_summary(&self) {
        for c in &self.corpora {
            println!(
                "{}: {} blobs, {} passed, {} failed, {} root signatures",
                c.name,
                c.passed + c.failed + c.root_signatures,
                c.passed,
                c.failed,
                c.root_signatures
            );
        }
        for (stage, count) in STAGES.iter().zip(&self.stages) {
            println!(
                "{}: {} passed, {} failed",
                stage.name, count.passed, count.failed
            );
        }
        let roots: usize = self.corpora.iter().map(|c| c.root_signatures).sum();
        println!("root signatures: {roots}");
    }

    /// The closing line that CI parses: `N passed, N failed`.
    pub fn closing_line(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }

    /// An error when any blob failed.
    pub fn check(&self) -> Result<()> {
        match self.failed() {
            0 => Ok(()),
            n => bail!("corpus: {n} blob(s) failed (see the FAIL lines above)"),
        }
    }
}

/// Runs the corpus, printing a `FAIL <stage> <path>: <error>` line per failure as it goes.
pub fn run(options: &Options) -> Result<Report> {
    let root = paths::corpus_root()?;
    let mut report = Report {
        corpora: Vec::new(),
        stages: STAGES
            .iter()
            .map(|_| StageCount {
                passed: 0,
                failed: 0,
            })
            .collect(),
    };
    let mut records = Vec::new();
    let previous_hook = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let text = info.to_string().replace('\n', " ");
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
    }));
    let result = run_corpora(&root, options, &mut report, &mut records);
    panic::set_hook(previous_hook);
    result?;
    if report
        .corpora
        .iter()
        .all(|c| c.passed + c.failed + c.root_signatures == 0)
    {
        bail!(
            "no corpus blob matches --filter {:?} (corpus at {})",
            options.filter.as_deref().unwrap_or(""),
            root.display()
        );
    }
    if let Some(path) = &options.json {
        let doc = json!({
            "corpus": root.display().to_string(),
            "passed": report.passed(),
            "failed": report.failed(),
            "blobs": records,
        });
        let text = serde_json::to_string_pretty(&doc)? + "\n";
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(report)
}

/// The message of the last panic, recorded by the hook installed in [`run`].
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Runs each sub-corpus, adding to `report` and `records`.
fn run_corpora(
    root: &Path,
    options: &Options,
    report: &mut Report,
    records: &mut Vec<Value>,
) -> Result<()> {
    for &(name, recursive) in CORPORA {
        let mut files = Vec::new();
        collect(&root.join(name), recursive, &mut files)?;
        if files.is_empty() {
            bail!("no .dxbc files in {}", root.join(name).display());
        }
        let mut rels: Vec<String> = files.iter().map(|f| relative(root, f)).collect();
        rels.sort();
        let mut count = CorpusCount {
            name,
            passed: 0,
            failed: 0,
            root_signatures: 0,
        };
        for rel in rels {
            if options
                .filter
                .as_ref()
                .is_some_and(|f| !rel.contains(f.as_str()))
            {
                continue;
            }
            let bytes = std::fs::read(root.join(&rel))
                .with_context(|| format!("reading {}", root.join(&rel).display()))?;
            records.push(run_blob(&rel, &bytes, options.verbose, report, &mut count));
        }
        report.corpora.push(count);
    }
    Ok(())
}

/// Runs the stages on one blob, updating the counts; returns its JSON record.
fn run_blob(
    rel: &str,
    bytes: &[u8],
    verbose: bool,
    report: &mut Report,
    count: &mut CorpusCount,
) -> Value {
    let mut blob = Blob::new(bytes);
    let mut results = Vec::new();
    let mut failed = false;
    for stage in STAGES {
        LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| (stage.run)(&mut blob)));
        let error = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("{e:#}")),
            Err(payload) => Some(panic_message(payload)),
        };
        if let Some(e) = &error {
            println!("FAIL {} {rel}: {e}", stage.name);
        }
        results.push(json!({ "stage": stage.name, "ok": error.is_none(), "error": error }));
        if error.is_some() {
            failed = true;
            break;
        }
        if blob.is_root_signature() {
            break;
        }
    }
    let root_signature = !failed && blob.is_root_signature();
    if root_signature {
        count.root_signatures += 1;
        if verbose {
            println!("root signature {rel}");
        }
    } else {
        for (result, stage_count) in results.iter().zip(&mut report.stages) {
            match result["ok"].as_bool() {
                Some(true) => stage_count.passed += 1,
                _ => stage_count.failed += 1,
            }
        }
        if failed {
            count.failed += 1;
        } else {
            count.passed += 1;
            if verbose {
                println!("ok {rel}");
            }
        }
    }
    json!({ "path": rel, "root_signature": root_signature, "stages": results })
}

/// Describes a caught panic, preferring the text the hook recorded (it has the location).
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return text;
    }
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string payload)".to_string());
    format!("panicked: {message}")
}

/// Adds the `.dxbc` files under `dir` (recursing when asked) to `out`.
fn collect(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            if recursive {
                collect(&path, true, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "dxbc") {
            out.push(path);
        }
    }
    Ok(())
}

/// `path` relative to `root`, with `/` separators (for stable output).
fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy()).collect();
    parts.join("/")
}
