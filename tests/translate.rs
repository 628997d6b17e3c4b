//! Snapshot tests of the SPIR-V back end, one per instruction family.
//!
//! Each `tests/in/<family>.asm` is assembled into a container, read, translated with debug
//! names on and checked with `spirv-val --target-env vulkan1.3`; the disassembly of the module
//! (rspirv's `Disassemble`) must equal `tests/out/<family>.spvasm` exactly. A
//! `tests/in/<family>.json` beside an input is its stream-output layout (the
//! `--stream-output` form).
//!
//! When the output changes on purpose, `UPDATE_SNAPSHOTS=1 cargo test --test translate`
//! rewrites the expected files (review the diff before committing them).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rspirv::binary::Disassemble;

/// Set to `1` to rewrite the expected files instead of comparing with them.
const UPDATE_ENV: &str = "UPDATE_SNAPSHOTS";
/// The Vulkan version the modules are validated against.
const TARGET_ENV: dxbc2spirv::spirv::TargetEnv = dxbc2spirv::spirv::TargetEnv::Vulkan1_3;
/// How many differing lines a mismatch report shows at most.
const DIFF_LINES: usize = 40;

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The `.asm` inputs, sorted by name.
fn inputs() -> Vec<PathBuf> {
    let dir = tests_dir().join("in");
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    files.sort();
    files
}

/// The expected file of an input: `tests/out/<stem>.spvasm`.
fn expected_path(input: &Path) -> PathBuf {
    let stem = input.file_stem().unwrap_or_default();
    tests_dir()
        .join("out")
        .join(Path::new(stem).with_extension("spvasm"))
}

/// Panics with install instructions when spirv-val cannot be run.
fn require_spirv_val() {
    let ok = Command::new("spirv-val")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "spirv-val is missing: the snapshot tests validate every module with it (SPIRV-Tools \
         2025.5). Run `cargo xtask test`, which installs it into target/spirv-tools, or put \
         target/spirv-tools/cmeel.prefix/bin on PATH"
    );
}

/// Assembles, reads, translates, validates and disassembles one input.
fn translate(input: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(input).map_err(|e| format!("reading: {e}"))?;
    let bytes = dxbc2spirv::asm::assemble(&text).map_err(|e| format!("assembling: {e}"))?;
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default())
        .map_err(|e| format!("reading the assembled container: {e}"))?;
    // A `<stem>.json` beside the input is its stream-output layout (`--stream-output`).
    let layout = input.with_extension("json");
    let stream_output = if layout.exists() {
        let text = std::fs::read_to_string(&layout).map_err(|e| format!("reading: {e}"))?;
        Some(
            dxbc2spirv::spirv::StreamOutput::from_json(&text)
                .map_err(|e| format!("{}: {e}", layout.display()))?,
        )
    } else {
        None
    };
    let mut options = dxbc2spirv::TranslateOptions::default();
    options.stream_output = stream_output;
    let words = dxbc
        .translate(&options)
        .map_err(|e| format!("translating: {e}"))?;
    dxbc2spirv_testkit::spirv_val(&words, TARGET_ENV.name()).map_err(|e| e.to_string())?;
    let module = rspirv::dr::load_words(&words)
        .map_err(|e| format!("rspirv cannot load the module: {e}"))?;
    Ok(module.disassemble() + "\n")
}

/// A line-based diff of two texts: the differing hunks with one-based line numbers
/// (`-` expected, `+` actual), at most [`DIFF_LINES`] lines of them.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // Longest common subsequence table, filled from the end.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut in_hunk = false;
    while (i < a.len() || j < b.len()) && out.len() < DIFF_LINES {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            in_hunk = false;
            i += 1;
            j += 1;
            continue;
        }
        if !in_hunk {
            out.push(format!(
                "@@ expected line {}, actual line {} @@",
                i + 1,
                j + 1
            ));
            in_hunk = true;
        }
        if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(format!("-{:>5} {}", i + 1, a[i]));
            i += 1;
        } else {
            out.push(format!("+{:>5} {}", j + 1, b[j]));
            j += 1;
        }
    }
    if i < a.len() || j < b.len() {
        out.push("… (more differences not shown)".to_string());
    }
    out.join("\n")
}

#[test]
fn spirv_snapshots() {
    require_spirv_val();
    let update = std::env::var(UPDATE_ENV).is_ok_and(|v| v == "1");
    let inputs = inputs();
    assert!(
        inputs.len() >= 9,
        "expected the instruction-family inputs in tests/in/, found {}",
        inputs.len()
    );
    let mut failures = Vec::new();
    for input in &inputs {
        let expected_path = expected_path(input);
        let actual = match translate(input) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{}: {e}", input.display()));
                continue;
            }
        };
        if update {
            if let Err(e) = std::fs::write(&expected_path, &actual) {
                failures.push(format!("writing {}: {e}", expected_path.display()));
            }
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Err(e) => failures.push(format!(
                "{}: cannot read the expected file {} ({e}); run `{UPDATE_ENV}=1 cargo test \
                 --test translate` to create it",
                input.display(),
                expected_path.display()
            )),
            Ok(expected) if expected != actual => failures.push(format!(
                "{}: the SPIR-V differs from {}:\n{}\n(if the change is intended, run \
                 `{UPDATE_ENV}=1 cargo test --test translate` and review the diff)",
                input.display(),
                expected_path.display(),
                diff(&expected, &actual)
            )),
            Ok(_) => {}
        }
    }
    // An expected file without an input is a leftover of a renamed or removed test.
    let out_dir = tests_dir().join("out");
    if let Ok(entries) = std::fs::read_dir(&out_dir) {
        for path in entries.flatten().map(|e| e.path()) {
            let stem = path.file_stem().unwrap_or_default();
            let input = tests_dir()
                .join("in")
                .join(Path::new(stem).with_extension("asm"));
            if path.extension().is_some_and(|e| e == "spvasm") && !input.exists() {
                failures.push(format!(
                    "{}: no input {} (remove the stale snapshot)",
                    path.display(),
                    input.display()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} snapshot(s) failed:\n\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn diff_shows_line_numbers() {
    let d = diff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");
    assert_eq!(
        d,
        "@@ expected line 2, actual line 2 @@\n-    2 b\n+    2 B\n@@ expected line 5, actual line 5 @@\n+    5 e"
    );
}
