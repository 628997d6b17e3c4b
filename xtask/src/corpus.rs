//! `cargo xtask corpus`: runs every corpus blob through [`STAGES`] in process (one worker
//! thread per core) and reports.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};

use crate::paths;
use crate::stages::{self, Blob, Outcome, STAGES};

/// The sub-corpora, in report order: directory under the corpus root, and whether to recurse.
const CORPORA: &[(&str, bool)] = &[("fxc", true), ("shader_test_dxbc", false)];

/// How many of the most frequent skip reasons the summary shows.
const TOP_SKIP_REASONS: usize = 25;

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

/// Outcome counts of one stage (root signatures and blobs that stopped earlier not counted).
#[derive(Default)]
struct StageCount {
    passed: usize,
    failed: usize,
    skipped: usize,
    expected: usize,
    /// Skip reasons (locations stripped) and how many blobs each skipped.
    skip_reasons: BTreeMap<String, usize>,
}

/// The outcome of a corpus run.
pub struct Report {
    corpora: Vec<CorpusCount>,
    stages: Vec<StageCount>,
}

impl Report {
    /// Blobs that failed no stage (skips and expected errors are not failures).
    fn passed(&self) -> usize {
        self.corpora.iter().map(|c| c.passed).sum()
    }

    /// Blobs that failed a stage.
    fn failed(&self) -> usize {
        self.corpora.iter().map(|c| c.failed).sum()
    }

    /// Prints per-corpus counts, per-stage counts, the grouped skip reasons and the
    /// root-signature count.
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
            let mut line = format!(
                "{}: {} passed, {} failed",
                stage.name, count.passed, count.failed
            );
            if count.skipped > 0 || stage.name == "translate" {
                line += &format!(", {} skipped", count.skipped);
            }
            if count.expected > 0 {
                line += &format!(", {} expected errors", count.expected);
            }
            println!("{line}");
            if count.skipped > 0 {
                print_skip_reasons(&count.skip_reasons);
            }
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

/// Prints the most frequent skip reasons with their counts.
fn print_skip_reasons(skip_reasons: &BTreeMap<String, usize>) {
    let mut reasons: Vec<(&String, &usize)> = skip_reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    let shown = reasons.len().min(TOP_SKIP_REASONS);
    println!(
        "  skip reasons (top {shown} of {} distinct):",
        reasons.len()
    );
    for (reason, n) in reasons.iter().take(TOP_SKIP_REASONS) {
        println!("  {n:>6}  {reason}");
    }
}

/// Runs the corpus, printing a `FAIL <stage> <path>: <error>` line per failure.
///
/// Blobs run in parallel (one worker per core); each sub-corpus's lines are printed in
/// sorted path order once it is done.
pub fn run(options: &Options) -> Result<Report> {
    let root = paths::corpus_root()?;
    stages::check_spirv_val()?;
    let mut report = Report {
        corpora: Vec::new(),
        stages: STAGES.iter().map(|_| StageCount::default()).collect(),
    };
    let mut records = Vec::new();
    let previous_hook = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let text = info.to_string().replace('\n', " ");
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
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

thread_local! {
    /// The message of this thread's last panic, recorded by the hook installed in [`run`].
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

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
        rels.retain(|rel| {
            options
                .filter
                .as_ref()
                .is_none_or(|f| rel.contains(f.as_str()))
        });
        let results = parallel_map(&rels, |rel| {
            let path = root.join(rel);
            match std::fs::read(&path) {
                Ok(bytes) => Ok(run_blob(rel, &bytes)),
                Err(e) => Err(anyhow!("reading {}: {e}", path.display())),
            }
        });
        let mut count = CorpusCount {
            name,
            passed: 0,
            failed: 0,
            root_signatures: 0,
        };
        for (rel, result) in rels.iter().zip(results) {
            let result = result?;
            record(rel, &result, options.verbose, report, &mut count);
            records.push(result.record);
        }
        report.corpora.push(count);
    }
    Ok(())
}

/// Applies `f` to every item on one worker thread per core; the results keep the order.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let result = f(item);
                let mut slots = slots.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(slot) = slots.get_mut(i) {
                    *slot = Some(result);
                }
            });
        }
    });
    slots
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// What one stage did to one blob.
enum StageResult {
    /// Passed, skipped or met an expected error.
    Done(Outcome),
    /// Failed, with the error.
    Failed(String),
}

/// Everything one blob's run produced.
struct BlobResult {
    /// The stages that ran, in order.
    stages: Vec<StageResult>,
    /// A root-signature-only container (no stage failed).
    root_signature: bool,
    /// The blob's JSON record.
    record: Value,
}

/// Runs the stages on one blob (on a worker thread; prints nothing).
fn run_blob(rel: &str, bytes: &[u8]) -> BlobResult {
    let mut blob = Blob::new(rel, bytes);
    let mut stages = Vec::new();
    let mut json_stages = Vec::new();
    let mut failed = false;
    for stage in STAGES {
        LAST_PANIC.with(|p| p.borrow_mut().take());
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| (stage.run)(&mut blob)));
        let result = match outcome {
            Ok(Ok(outcome)) => StageResult::Done(outcome),
            Ok(Err(e)) => StageResult::Failed(format!("{e:#}")),
            Err(payload) => StageResult::Failed(panic_message(payload)),
        };
        let (kind, message) = match &result {
            StageResult::Done(Outcome::Passed) => ("passed", None),
            StageResult::Done(Outcome::Skipped(r)) => ("skipped", Some(r)),
            StageResult::Done(Outcome::ExpectedError(r)) => ("expected error", Some(r)),
            StageResult::Failed(e) => ("failed", Some(e)),
        };
        let error = matches!(result, StageResult::Failed(_)).then_some(message);
        json_stages.push(json!({
            "stage": stage.name,
            "ok": error.is_none(),
            "outcome": kind,
            "error": error.flatten(),
            "reason": message.filter(|_| error.is_none()),
        }));
        failed = matches!(result, StageResult::Failed(_));
        stages.push(result);
        if failed || blob.is_root_signature() {
            break;
        }
    }
    let root_signature = !failed && blob.is_root_signature();
    let record = json!({ "path": rel, "root_signature": root_signature, "stages": json_stages });
    BlobResult {
        stages,
        root_signature,
        record,
    }
}

/// Prints a blob's lines and adds its outcomes to the counts.
fn record(
    rel: &str,
    result: &BlobResult,
    verbose: bool,
    report: &mut Report,
    count: &mut CorpusCount,
) {
    if result.root_signature {
        count.root_signatures += 1;
        if verbose {
            println!("root signature {rel}");
        }
        return;
    }
    let mut failed = false;
    for ((stage, outcome), stage_count) in STAGES.iter().zip(&result.stages).zip(&mut report.stages)
    {
        match outcome {
            StageResult::Done(Outcome::Passed) => stage_count.passed += 1,
            StageResult::Done(Outcome::Skipped(reason)) => {
                stage_count.skipped += 1;
                *stage_count
                    .skip_reasons
                    .entry(stages::strip_location(reason))
                    .or_insert(0) += 1;
                if verbose {
                    println!("SKIP {} {rel}: {reason}", stage.name);
                }
            }
            StageResult::Done(Outcome::ExpectedError(reason)) => {
                stage_count.expected += 1;
                if verbose {
                    println!("EXPECTED {} {rel}: {reason}", stage.name);
                }
            }
            StageResult::Failed(e) => {
                stage_count.failed += 1;
                failed = true;
                println!("FAIL {} {rel}: {e}", stage.name);
            }
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

/// Describes a caught panic, preferring the text the hook recorded (it has the location).
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = LAST_PANIC.with(|p| p.borrow_mut().take()) {
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
