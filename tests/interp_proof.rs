//! The reference interpreter's own proof: every compute section of the corpus's
//! `.shader_test` files and of the project's `shaders/` runs on the interpreter
//! ([`dxbc2spirv_testkit::interp`]) and every probe on a UAV is checked. The oracle must agree with
//! the probes before it judges the translator. The test prints the counts and every reason a
//! probe could not run; any failed probe fails it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dxbc2spirv_testkit::interp;
use dxbc2spirv_testkit::shader_test::runner::{interpret_file, BlobDir, Outcome};
use dxbc2spirv_testkit::shader_test::ShaderTestFile;

/// Every `.shader_test` file under `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "shader_test") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn interpreter_agrees_with_every_uav_probe_it_runs() {
    let corpus = common::corpus_dir();
    let blobs = BlobDir::open(&corpus.join("shader_test_dxbc")).expect("opening the blobs");
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut all = files(&corpus.join("shader_test"));
    all.extend(files(&project));
    let (mut passed, mut skipped) = (0usize, 0usize);
    let mut failures = Vec::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    for path in &all {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{shown}: {e}"));
        let file = ShaderTestFile::parse_bytes(&bytes).unwrap_or_else(|e| panic!("{shown}: {e}"));
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let report = interpret_file(
            &file,
            name.as_deref().unwrap_or(""),
            &blobs,
            &interp::Options::default(),
        );
        for r in &report.records {
            match &r.outcome {
                Outcome::Pass => {
                    passed += 1;
                    *per_file.entry(shown.clone()).or_default() += 1;
                }
                Outcome::Fail { expected, actual } | Outcome::TodoFail { expected, actual } => {
                    failures.push(format!(
                        "{shown}:{}: {}\n    expected {expected}\n    actual   {actual}",
                        r.line,
                        r.text.trim()
                    ))
                }
                Outcome::Skip(reason) => {
                    skipped += 1;
                    // Group by the reason's first clause (instruction details vary).
                    let key: String = reason.chars().take(110).collect();
                    *reasons.entry(key).or_default() += 1;
                }
            }
        }
    }
    println!(
        "interpreter proof: {} files, {} with a passing UAV probe; {passed} UAV probes passed, {} failed, {skipped} not run",
        all.len(),
        per_file.len(),
        failures.len()
    );
    println!("not run, by reason:");
    for (reason, count) in &reasons {
        println!("  {count:5}  {reason}");
    }
    assert!(
        passed > 0,
        "no UAV probe ran on the interpreter: the proof proves nothing"
    );
    assert!(
        failures.is_empty(),
        "the interpreter disagrees with {} UAV probe(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
