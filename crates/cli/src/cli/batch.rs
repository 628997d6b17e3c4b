//! `dxbc2spirv batch`: convert every DXBC container under some folders (a shader cache) in
//! parallel, with a progress bar on a terminal, a summary and an optional JSON report.
//!
//! Files are recognised by their magic (`DXBC` in the first four bytes), not their name.
//! One bad shader never stops the batch: its failure is recorded and counted.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use serde_json::{json, Value};

use dxbc2spirv::{TranslateOptions, Translator};

use super::progress::Progress;

/// What `batch` was asked to do.
pub struct BatchArgs {
    /// Folders (searched recursively) and files.
    pub inputs: Vec<PathBuf>,
    /// Where the `.spv` files go (the inputs' relative layout is kept).
    pub output: PathBuf,
    /// Worker threads (default: one per core).
    pub jobs: Option<usize>,
    /// Where to write the JSON report.
    pub report: Option<PathBuf>,
    /// This run's part of the inputs: (I, N), 1 <= I <= N.
    pub shard: Option<(u64, u64)>,
    /// Translation options for every shader.
    pub options: TranslateOptions,
    /// Run spirv-val on every module; a rejected module is a failure.
    pub validate: bool,
    /// Name every failing file in the summary (otherwise the first few).
    pub verbose: bool,
}

/// One shader found in the inputs.
struct Job {
    /// The file.
    input: PathBuf,
    /// Its path below the output folder.
    relative: PathBuf,
}

/// What happened to one shader.
enum Outcome {
    /// Translated (and validated when asked), with the translation's warnings.
    Converted {
        words: usize,
        model: String,
        warnings: Vec<String>,
    },
    /// The container holds no shader program (a root signature, for example).
    Skipped(String),
    /// Not converted: reason class and message.
    Failed {
        reason: &'static str,
        message: String,
    },
}

/// One record of the report.
struct Record {
    job: Job,
    outcome: Outcome,
    time: Duration,
}

/// Parses `--shard I/N`.
pub fn parse_shard(text: &str) -> std::result::Result<(u64, u64), String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("{text}: expected I/N, e.g. 1/4"))?;
    let i: u64 = i
        .trim()
        .parse()
        .map_err(|_| format!("{text}: I is not a number"))?;
    let n: u64 = n
        .trim()
        .parse()
        .map_err(|_| format!("{text}: N is not a number"))?;
    if n == 0 || i == 0 || i > n {
        return Err(format!("{text}: expected 1 <= I <= N"));
    }
    Ok((i, n))
}

/// Runs the batch; returns the exit status (0: every shader converted or skipped; 1: some
/// failed).
pub fn run(args: &BatchArgs) -> Result<i32> {
    let start = Instant::now();
    let mut jobs = find_jobs(&args.inputs)?;
    if let Some((i, n)) = args.shard {
        jobs.retain(|job| shard_of(&job.relative, n) == i - 1);
    }
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("{}: cannot create", args.output.display()))?;
    let progress = Progress::new(jobs.len() as u64, std::io::stderr().is_terminal());
    // A translator panic is recorded as that shader's failure; keep its message off the
    // terminal (it is in the report).
    std::panic::set_hook(Box::new(|_| {}));
    // Each worker thread keeps one translator, whose tables serve its next shader.
    let one = |translator: &mut Translator, job: Job| {
        let begun = Instant::now();
        let outcome = convert(translator, &job, args);
        progress.inc();
        Record {
            job,
            outcome,
            time: begun.elapsed(),
        }
    };
    // One job: on this thread, without a pool.
    let records: Result<Vec<Record>> = if args.jobs == Some(1) {
        let mut translator = Translator::new();
        Ok(jobs
            .into_iter()
            .map(|job| one(&mut translator, job))
            .collect())
    } else {
        rayon::ThreadPoolBuilder::new()
            .num_threads(args.jobs.unwrap_or(0))
            .build()
            .context("starting worker threads")
            .map(|pool| {
                pool.install(|| {
                    jobs.into_par_iter()
                        .map_init(Translator::new, one)
                        .collect()
                })
            })
    };
    progress.finish();
    let records = records?;
    let _ = std::panic::take_hook();
    let elapsed = start.elapsed();
    let summary = summary(&records, elapsed, args.verbose);
    // With the report on standard output, the summary goes to standard error so that
    // standard output is the JSON alone.
    if args.report.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    if let Some(path) = &args.report {
        let mut text = serde_json::to_string_pretty(&report(args, &records, elapsed))?;
        text.push('\n');
        super::write_output(Some(path), text.as_bytes())?;
    }
    let failed = records
        .iter()
        .any(|r| matches!(r.outcome, Outcome::Failed { .. }));
    Ok(if failed { super::EXIT_INPUT } else { 0 })
}

/// The shard (0-based) a file belongs to: a hash of its relative path, so a file stays in
/// its shard when others are added.
fn shard_of(relative: &Path, n: u64) -> u64 {
    // FNV-1a, 64 bits.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in relative.to_string_lossy().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash % n
}

/// Every DXBC container in the inputs, in path order. Named files are taken whatever their
/// magic (a wrong one is reported); folders are searched for files that start with `DXBC`.
fn find_jobs(inputs: &[PathBuf]) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for (n, input) in inputs.iter().enumerate() {
        // With several inputs each gets its own folder in the output (named after it).
        let base = if inputs.len() > 1 {
            let name = input
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("input{n}"));
            PathBuf::from(format!("{n}-{name}"))
        } else {
            PathBuf::new()
        };
        let meta = std::fs::metadata(input)
            .with_context(|| format!("{}: cannot read", input.display()))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(input, &mut files)?;
            files.sort();
            for file in files {
                if has_magic(&file) {
                    let relative = file.strip_prefix(input).unwrap_or(&file);
                    jobs.push(Job {
                        relative: base.join(relative),
                        input: file,
                    });
                }
            }
        } else {
            let name = input.file_name().map(PathBuf::from).unwrap_or_default();
            jobs.push(Job {
                input: input.clone(),
                relative: base.join(name),
            });
        }
    }
    if jobs.is_empty() {
        bail!("no DXBC containers in the inputs");
    }
    Ok(jobs)
}

/// Collects the files below `dir` (symbolic links are not followed into folders).
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), files)?;
        } else if kind.is_file() {
            files.push(entry.path());
        }
    }
    Ok(())
}

/// True when the file starts with `DXBC`.
fn has_magic(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"DXBC"
}

/// Where a job's module goes: `.dxbc` replaced by `.spv`, otherwise `.spv` appended.
fn output_path(output: &Path, job: &Job) -> PathBuf {
    let target = output.join(&job.relative);
    match target.extension() {
        Some(ext) if ext.eq_ignore_ascii_case("dxbc") => target.with_extension("spv"),
        _ => {
            let mut name = target.clone().into_os_string();
            name.push(".spv");
            PathBuf::from(name)
        }
    }
}

/// Converts one shader; never panics out (a translator panic is a recorded failure).
fn convert(translator: &mut Translator, job: &Job, args: &BatchArgs) -> Outcome {
    let options = &args.options;
    let bytes = match std::fs::read(&job.input) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Outcome::Failed {
                reason: "io",
                message: format!("cannot read: {e}"),
            }
        }
    };
    let kind = super::input::recognise(&bytes);
    if let Some(why) = kind.refusal(false) {
        use super::input::Kind;
        return match kind {
            Kind::RootSignature | Kind::NoProgram(_) => Outcome::Skipped(why),
            Kind::Dxil(_) => Outcome::Failed {
                reason: "unsupported",
                message: why,
            },
            _ => Outcome::Failed {
                reason: "invalid",
                message: why,
            },
        };
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        translator.translate(&bytes, options)
    }));
    if result.is_err() {
        // Whatever the panic left half-done is not kept.
        *translator = Translator::new();
    }
    let translation = match result {
        Ok(Ok(translation)) => translation,
        Ok(Err(e))
            if e.message.contains("no shader program") || e.message.contains("root signature") =>
        {
            return Outcome::Skipped(e.message)
        }
        Ok(Err(e)) => {
            return Outcome::Failed {
                reason: e.kind.name(),
                message: e.to_string(),
            };
        }
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            return Outcome::Failed {
                reason: "internal",
                message: format!("the translator panicked (a bug, please report it): {detail}"),
            };
        }
    };
    if args.validate {
        if let Err(e) = dxbc2spirv_testkit::spirv_val(&translation.words, options.target.name()) {
            return Outcome::Failed {
                reason: "spirv-val",
                message: e.to_string(),
            };
        }
    }
    let target = output_path(&args.output, job);
    let written = target
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&target, translation.spirv_bytes()));
    match written {
        Ok(()) => Outcome::Converted {
            words: translation.words.len(),
            model: translation.reflection.model,
            warnings: translation
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect(),
        },
        Err(e) => Outcome::Failed {
            reason: "io",
            message: format!("{}: cannot write: {e}", target.display()),
        },
    }
}

/// A failure message without its location, so that failures group by cause.
fn cause(message: &str) -> &str {
    let mut rest = message;
    for prefix in [
        "instruction ",
        "program dword ",
        "chunk ",
        "container byte ",
        "line ",
    ] {
        if let Some(tail) = rest.strip_prefix(prefix) {
            if let Some((_, after)) = tail.split_once(": ") {
                rest = after;
            }
        }
    }
    rest
}

/// Failing files the summary names without `--verbose`.
const NAMED_FAILURES: usize = 5;

/// The closing summary: counts, failures grouped by reason and cause, the failing files
/// (the first [`NAMED_FAILURES`], or all when `verbose`), time.
fn summary(records: &[Record], elapsed: Duration, verbose: bool) -> String {
    let mut converted = 0;
    let mut skipped = 0;
    let mut warned = Vec::new();
    let mut by_reason: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_cause: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for record in records {
        match &record.outcome {
            Outcome::Converted { warnings, .. } => {
                converted += 1;
                for warning in warnings {
                    warned.push(format!(
                        "warning: {}: {warning}\n",
                        record.job.input.display()
                    ));
                }
            }
            Outcome::Skipped(_) => skipped += 1,
            Outcome::Failed { reason, message } => {
                *by_reason.entry(reason).or_default() += 1;
                *by_cause.entry((reason, cause(message))).or_default() += 1;
            }
        }
    }
    let failed: usize = by_reason.values().sum();
    let mut text = format!(
        "{} shaders: {converted} converted, {failed} failed, {skipped} skipped (no program) in {:.2} s\n",
        records.len(),
        elapsed.as_secs_f64()
    );
    for line in &warned {
        text.push_str(line);
    }
    if failed > 0 {
        let reasons: Vec<String> = by_reason.iter().map(|(r, n)| format!("{n} {r}")).collect();
        text.push_str(&format!("failed by reason: {}\n", reasons.join(", ")));
        let mut causes: Vec<_> = by_cause.into_iter().collect();
        causes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        const SHOWN: usize = 10;
        for ((reason, cause), n) in causes.iter().take(SHOWN) {
            text.push_str(&format!("  {n:>5}  {reason}: {cause}\n"));
        }
        if causes.len() > SHOWN {
            text.push_str(&format!(
                "  ({} more causes in the report)\n",
                causes.len() - SHOWN
            ));
        }
        let failures: Vec<(&Record, &str)> = records
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Failed { message, .. } => Some((r, message.as_str())),
                _ => None,
            })
            .collect();
        let shown = if verbose {
            failures.len()
        } else {
            NAMED_FAILURES
        };
        text.push_str("failed:\n");
        for (record, message) in failures.iter().take(shown) {
            text.push_str(&format!("  {}: {message}\n", record.job.input.display()));
        }
        if failures.len() > shown {
            text.push_str(&format!(
                "  ({} more; all with --verbose or in the report)\n",
                failures.len() - shown
            ));
        }
    }
    text
}

/// The JSON report: options, totals and one record per shader.
fn report(args: &BatchArgs, records: &[Record], elapsed: Duration) -> Value {
    let count = |f: fn(&Outcome) -> bool| records.iter().filter(|r| f(&r.outcome)).count();
    let shaders: Vec<Value> = records
        .iter()
        .map(|r| {
            let mut record = json!({
                "input": r.job.input.display().to_string(),
                "milliseconds": (r.time.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
            });
            let fields = match &r.outcome {
                Outcome::Converted {
                    words,
                    model,
                    warnings,
                } => json!({
                    "status": "converted",
                    "output": output_path(&args.output, &r.job).display().to_string(),
                    "words": words,
                    "model": model,
                    "warnings": warnings,
                }),
                Outcome::Skipped(message) => json!({"status": "skipped", "message": message}),
                Outcome::Failed { reason, message } => json!({
                    "status": "failed",
                    "reason": reason,
                    "message": message,
                }),
            };
            if let (Some(record), Value::Object(fields)) = (record.as_object_mut(), fields) {
                record.extend(fields);
            }
            record
        })
        .collect();
    json!({
        "dxbc2spirv": env!("CARGO_PKG_VERSION"),
        "target_env": args.options.target.name(),
        "validate": args.validate,
        "shard": args.shard.map(|(i, n)| format!("{i}/{n}")),
        "total": records.len(),
        "converted": count(|o| matches!(o, Outcome::Converted { .. })),
        "failed": count(|o| matches!(o, Outcome::Failed { .. })),
        "skipped": count(|o| matches!(o, Outcome::Skipped(_))),
        "seconds": elapsed.as_secs_f64(),
        "shaders": shaders,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_partition() {
        assert_eq!(parse_shard("2/3"), Ok((2, 3)));
        assert!(parse_shard("0/3").is_err());
        assert!(parse_shard("4/3").is_err());
        assert!(parse_shard("x").is_err());
        let paths: Vec<PathBuf> = (0..50)
            .map(|i| PathBuf::from(format!("d/{i}.dxbc")))
            .collect();
        let mut seen = vec![0; 3];
        for p in &paths {
            let s = shard_of(p, 3) as usize;
            seen[s] += 1;
        }
        assert_eq!(seen.iter().sum::<usize>(), 50);
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    }

    #[test]
    fn causes_drop_the_location() {
        assert_eq!(
            cause("instruction 3 (dword 0x1a): dcl_stream is not translated yet"),
            "dcl_stream is not translated yet"
        );
        assert_eq!(cause("plain"), "plain");
    }

    #[test]
    fn output_names() {
        let job = |p: &str| Job {
            input: PathBuf::from(p),
            relative: PathBuf::from(p),
        };
        let out = Path::new("o");
        assert_eq!(output_path(out, &job("a/b.dxbc")), Path::new("o/a/b.spv"));
        assert_eq!(output_path(out, &job("a/3f2e")), Path::new("o/a/3f2e.spv"));
        assert_eq!(
            output_path(out, &job("a/x.bin")),
            Path::new("o/a/x.bin.spv")
        );
    }
}
