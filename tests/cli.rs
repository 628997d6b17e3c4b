//! The `dxbc2spirv` command, run as a program: each subcommand's main path and its error and
//! usage paths (exit status 0 success, 1 input error, 2 usage error).

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn dxbc2spirv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxbc2spirv"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the dxbc2spirv binary runs")
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dxbc2spirv-cli-{}-{name}", std::process::id()))
}

fn show(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const SEED: &str = "shaders/seeds/store_raw.shader_test";

#[test]
fn asm_disasm_and_translate_a_seed_shader() {
    let dxbc = temp("store_raw.dxbc");
    let dxbc_arg = dxbc.to_str().expect("utf-8 temp path");
    let out = dxbc2spirv(&["asm", SEED, "-o", dxbc_arg]);
    assert!(out.status.success(), "asm: {}", show(&out));
    let out = dxbc2spirv(&["disasm", dxbc_arg]);
    assert!(out.status.success(), "disasm: {}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("store_raw u1.xyzw, l(16), l(21, 22, 23, 24)"),
        "disasm: {text}"
    );
    for target in ["vulkan1.1", "vulkan1.2", "vulkan1.3"] {
        let out = dxbc2spirv(&[
            "translate",
            dxbc_arg,
            "--validate",
            "--target-env",
            target,
            "-o",
            "-",
        ]);
        assert!(
            out.status.success(),
            "translate --target-env {target}: {}",
            show(&out)
        );
        assert_eq!(
            &out.stdout[..4],
            &0x0723_0203u32.to_le_bytes(),
            "SPIR-V magic for {target}"
        );
    }
    let out = dxbc2spirv(&["translate", SEED, "--text"]);
    assert!(out.status.success(), "translate --text: {}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("OpEntryPoint GLCompute"),
        "{}",
        show(&out)
    );
    let _ = std::fs::remove_file(&dxbc);
}

#[test]
fn input_errors_exit_1_with_the_place() {
    let bad = temp("bad.asm");
    std::fs::write(&bad, "cs_5_0\ndcl_thread_group 1, 1, 1\nmov r0.x, l(1\n").expect("write");
    let out = dxbc2spirv(&["asm", bad.to_str().expect("utf-8"), "-o", "-"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 3, column"),
        "the error names the line: {stderr}"
    );
    let _ = std::fs::remove_file(&bad);

    let junk = temp("junk.dxbc");
    std::fs::write(&junk, b"DXBC not really a container").expect("write");
    let out = dxbc2spirv(&["disasm", junk.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let _ = std::fs::remove_file(&junk);

    // An illegal double swizzle (`.yxyx`) fails at its instruction.
    let illegal = temp("illegal_double.shader_test");
    std::fs::write(
        &illegal,
        "[compute shader asm]\ncs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n\
         dadd r0.xy, r1.yxyx, r1.xyxy\nret\n",
    )
    .expect("write");
    let out = dxbc2spirv(&["translate", illegal.to_str().expect("utf-8"), "-o", "-"]);
    let _ = std::fs::remove_file(&illegal);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("instruction "),
        "the error names the instruction: {}",
        show(&out)
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["translate"][..],
        &["translate", SEED, "--target-env", "vulkan9"][..],
    ] {
        let out = dxbc2spirv(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
    }
    let out = dxbc2spirv(&["--help"]);
    assert!(out.status.success(), "{}", show(&out));
}

#[cfg(feature = "vulkan")]
#[test]
fn run_prints_the_uavs_after_a_dispatch() {
    let out = dxbc2spirv(&[
        "run",
        SEED,
        "--dispatch",
        "1,1,1",
        "--uav",
        "0=raw:80",
        "--uav",
        "1=raw:24",
    ]);
    assert!(out.status.success(), "run: {}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    // store_raw u1.xyzw at byte 16 of a 24-byte buffer writes its two in-bounds components.
    assert!(
        text.contains("[   4] 0x00000015 0x00000016\n"),
        "run output:\n{text}"
    );
    assert!(
        text.contains("[  12] 0x0000000d 0x0000000e 0x0000000f 0x00000010"),
        "run output:\n{text}"
    );
    let out = dxbc2spirv(&["run", SEED, "--dispatch", "1,1", "--uav", "0=raw:80"]);
    assert_eq!(out.status.code(), Some(1), "bad --dispatch: {}", show(&out));
}

/// Runs the command with `stdin` as its standard input.
fn dxbc2spirv_stdin(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dxbc2spirv"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the dxbc2spirv binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

/// The seed shader assembled into a container.
fn seed_container() -> Vec<u8> {
    let out = dxbc2spirv(&["asm", SEED, "-o", "-"]);
    assert!(out.status.success(), "asm -o -: {}", show(&out));
    assert!(out.stdout.starts_with(b"DXBC"));
    out.stdout
}

#[test]
fn dash_means_stdin_and_stdout_everywhere() {
    let dxbc = seed_container();
    let out = dxbc2spirv_stdin(&["disasm", "-"], &dxbc);
    assert!(out.status.success(), "disasm -: {}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("store_raw"));
    let out = dxbc2spirv_stdin(&["translate", "-", "-o", "-"], &dxbc);
    assert!(out.status.success(), "translate -: {}", show(&out));
    let spirv = out.stdout;
    assert_eq!(&spirv[..4], &0x0723_0203u32.to_le_bytes());
    let out = dxbc2spirv_stdin(&["validate", "-"], &spirv);
    assert!(out.status.success(), "validate - (SPIR-V): {}", show(&out));
    let out = dxbc2spirv_stdin(&["reflect", "-", "--json"], &dxbc);
    assert!(out.status.success(), "reflect -: {}", show(&out));
    let text = std::fs::read_to_string(SEED).expect("seed");
    let out = dxbc2spirv_stdin(&["asm", "-", "-o", "-"], text.as_bytes());
    assert!(out.status.success(), "asm - -o -: {}", show(&out));
    assert!(out.stdout.starts_with(b"DXBC"));
}

#[test]
fn reflect_prints_bindings_and_json() {
    let out = dxbc2spirv(&["reflect", SEED, "--json"]);
    assert!(out.status.success(), "{}", show(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["model"], "cs_5_0");
    assert_eq!(json["descriptor_ranges"].as_array().map(Vec::len), Some(2));
    let out = dxbc2spirv(&["reflect", SEED]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("binding 160"));
    let out = dxbc2spirv_stdin(&["reflect", "-"], b"DXBC junk");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
}

#[test]
fn validate_checks_dxbc_and_spirv() {
    let out = dxbc2spirv(&["validate", SEED, "--target-env", "vulkan1.1"]);
    assert!(out.status.success(), "{}", show(&out));
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.contains("ok: cs_5_0") && line.contains("vulkan1.1"),
        "{line}"
    );
    // A module spirv-val rejects (a header with no capability or entry point).
    let mut bad = Vec::new();
    for word in [0x0723_0203u32, 0x0001_0000, 0, 1, 0] {
        bad.extend_from_slice(&word.to_le_bytes());
    }
    let out = dxbc2spirv_stdin(&["validate", "-"], &bad);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let out = dxbc2spirv_stdin(&["validate", "-"], b"DXBC junk");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let out = dxbc2spirv(&["validate"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn verbose_errors_show_the_instruction_with_a_caret() {
    let listing = "cs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n\
                   dmovc r0.xy, r1.x, r1.xzyw, r1.xyxy\nret\n";
    let out = dxbc2spirv_stdin(&["translate", "-", "-o", "-"], listing.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        stderr.lines().count(),
        1,
        "one line without --verbose: {stderr}"
    );
    assert!(
        stderr.starts_with("-: instruction 2 (dword 0x8): dmovc: source 2: swizzle .xzyw"),
        "{stderr}"
    );
    let out = dxbc2spirv_stdin(
        &["--verbose", "translate", "-", "-o", "-"],
        listing.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(
        lines[1].contains("dmovc r0.xy, r1.x, r1.xzyw, r1.xyxy"),
        "{stderr}"
    );
    let column = lines[1].find("r1.xzyw").expect("the operand");
    assert_eq!(lines[2].find('^'), Some(column), "{stderr}");
    assert_eq!(lines[2].trim(), "^^^^^^^", "{stderr}");
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    let mut subcommands = vec!["translate", "disasm", "asm", "reflect", "validate", "batch"];
    if cfg!(feature = "vulkan") {
        subcommands.push("run");
    }
    for sub in subcommands {
        let out = dxbc2spirv(&[sub, "--help"]);
        assert!(out.status.success(), "{sub} --help: {}", show(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("Example: dxbc2spirv {sub} ")),
            "{sub} --help: {text}"
        );
    }
}

/// A folder with the seed container twice (one nested, one without an extension), a
/// damaged container, and a text file that is not a container.
fn small_cache(name: &str) -> PathBuf {
    let dir = temp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nested/deeper")).expect("mkdir");
    let dxbc = seed_container();
    std::fs::write(dir.join("a.dxbc"), &dxbc).expect("write");
    std::fs::write(dir.join("nested/deeper/0123abcd"), &dxbc).expect("write");
    let mut damaged = dxbc.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0xff;
    std::fs::write(dir.join("nested/damaged.dxbc"), &damaged).expect("write");
    std::fs::write(dir.join("README.txt"), "not a shader").expect("write");
    dir
}

#[test]
fn batch_converts_a_folder_and_reports_each_shader() {
    let dir = small_cache("batch-in");
    let out_dir = temp("batch-out");
    let report = temp("batch-report.json");
    let _ = std::fs::remove_dir_all(&out_dir);
    let out = dxbc2spirv(&[
        "batch",
        dir.to_str().expect("utf-8"),
        "-o",
        out_dir.to_str().expect("utf-8"),
        "--jobs",
        "2",
        "--validate",
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    // One damaged shader: the batch goes on, and exits 1.
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("3 shaders: 2 converted, 1 failed, 0 skipped"),
        "{stdout}"
    );
    assert!(stdout.contains("failed by reason: 1 invalid"), "{stdout}");
    assert!(
        out.stderr.is_empty(),
        "no progress bar when piped: {}",
        show(&out)
    );
    assert!(out_dir.join("a.spv").is_file());
    assert!(out_dir.join("nested/deeper/0123abcd.spv").is_file());
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("JSON");
    assert_eq!(json["total"], 3);
    assert_eq!(json["converted"], 2);
    assert_eq!(json["failed"], 1);
    let records = json["shaders"].as_array().expect("records");
    assert_eq!(records.len(), 3);
    let damaged = records
        .iter()
        .find(|r| {
            r["input"]
                .as_str()
                .is_some_and(|p| p.ends_with("damaged.dxbc"))
        })
        .expect("the damaged shader's record");
    assert_eq!(damaged["status"], "failed");
    assert_eq!(damaged["reason"], "invalid");
    assert!(damaged["message"]
        .as_str()
        .is_some_and(|m| m.contains("checksum")));
    for record in records.iter().filter(|r| r["status"] == "converted") {
        assert_eq!(record["model"], "cs_5_0");
        let output = record["output"].as_str().expect("output path");
        let bytes = std::fs::read(output).expect("the module exists");
        assert_eq!(
            bytes.len() as u64,
            4 * record["words"].as_u64().expect("words")
        );
    }

    // Shards split the folder without overlap.
    let mut total = 0;
    for shard in ["1/2", "2/2"] {
        let report = temp(&format!("shard-{}.json", &shard[..1]));
        let out = dxbc2spirv(&[
            "batch",
            dir.to_str().expect("utf-8"),
            "-o",
            out_dir.to_str().expect("utf-8"),
            "--shard",
            shard,
            "--report",
            report.to_str().expect("utf-8"),
        ]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", show(&out));
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("JSON");
        total += json["total"].as_u64().expect("total");
        let _ = std::fs::remove_file(&report);
    }
    assert_eq!(total, 3);

    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out_dir);
    let _ = std::fs::remove_file(&report);
}

#[test]
fn batch_usage_errors_exit_2() {
    for args in [
        &["batch", "tests"][..],
        &["batch", "-o", "x"][..],
        &["batch", "tests", "-o", "x", "--shard", "3/2"][..],
        &["batch", "tests", "-o", "x", "--jobs", "0"][..],
    ] {
        let out = dxbc2spirv(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
    }
    let empty = temp("batch-empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let out = dxbc2spirv(&["batch", empty.to_str().expect("utf-8"), "-o", "-"]);
    assert_eq!(out.status.code(), Some(1), "no containers: {}", show(&out));
    let _ = std::fs::remove_dir_all(&empty);
}

/// Both corpora in one batch: every shader converts but the corpus's deliberately invalid
/// one; root signatures are skipped.
#[test]
fn batch_converts_both_corpora() {
    let root = common::corpus_dir();
    let (fxc, shader_test) = (root.join("fxc"), root.join("shader_test_dxbc"));
    let out_dir = temp("corpus-out");
    let report = temp("corpus-report.json");
    let out = dxbc2spirv(&[
        "batch",
        fxc.to_str().expect("utf-8"),
        shader_test.to_str().expect("utf-8"),
        "-o",
        out_dir.to_str().expect("utf-8"),
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(" converted, "), "summary: {stdout}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("JSON");
    let records = json["shaders"].as_array().expect("records");
    let n = |key: &str| json[key].as_u64().expect("count");
    assert_eq!(records.len() as u64, n("total"));
    assert_eq!(n("converted") + n("failed") + n("skipped"), n("total"));
    assert!(n("total") > 1000, "both corpora: {}", n("total"));
    assert_eq!(
        (n("converted"), n("failed"), n("skipped")),
        (1242, 1, 24),
        "converted, failed, skipped: {stdout}"
    );
    for record in records {
        let status = record["status"].as_str().expect("status");
        assert!(["converted", "failed", "skipped"].contains(&status));
        if status == "failed" {
            assert!(record["reason"].is_string() && record["message"].is_string());
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    let _ = std::fs::remove_file(&report);
}

#[test]
fn translate_takes_a_stream_output_layout() {
    let input = "tests/in/gs_stream_output.asm";
    let layout = "tests/in/gs_stream_output.json";
    let out = dxbc2spirv(&[
        "translate",
        input,
        "--stream-output",
        layout,
        "--text",
        "--validate",
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "OpCapability TransformFeedback",
        "Xfb",
        "XfbBuffer 1",
        "XfbStride 32",
        "Offset 20",
        "Stream 1",
    ] {
        assert!(
            text.contains(expected),
            "{input} with {layout}: expected {expected:?} in\n{text}"
        );
    }
    // An entry whose semantic the signature lacks: an input error naming the entry.
    let bad = temp("bad_layout.json");
    std::fs::write(
        &bad,
        r#"{"entries": [{"stream": 1, "semantic": "NORMAL", "count": 3}]}"#,
    )
    .expect("write");
    let out = dxbc2spirv(&[
        "translate",
        input,
        "--stream-output",
        bad.to_str().expect("utf-8"),
        "-o",
        "-",
    ]);
    let _ = std::fs::remove_file(&bad);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("entry 0 (stream 1 NORMAL0)"),
        "the error names the entry: {}",
        show(&out)
    );
}
