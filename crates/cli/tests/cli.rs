//! The `dxbc2spirv` command, run as a program: each subcommand's main path and its error and
//! usage paths (exit status 0 success, 1 input error, 2 usage error).

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn dxbc2spirv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxbc2spirv"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
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
        text.contains("store_raw u1.xyzw, l(16), l(21,22,23,24)"),
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
}

/// Runs the command with `stdin` as its standard input.
fn dxbc2spirv_stdin(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dxbc2spirv"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
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
    let text = std::fs::read_to_string(common::workspace_root().join(SEED)).expect("seed");
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
        line.contains("ok: cs_5_0 assembly text assembled") && line.contains("vulkan1.1"),
        "{line}"
    );
    let out = dxbc2spirv_stdin(&["validate", "-"], &seed_container());
    assert!(out.status.success(), "{}", show(&out));
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(line.contains("ok: cs_5_0 DXBC container read"), "{line}");
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
    let subcommands = [
        "translate",
        "disasm",
        "asm",
        "reflect",
        "validate",
        "batch",
        "run",
    ];
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
        stdout.contains("failed:\n") && stdout.contains("damaged.dxbc: "),
        "the summary names the failing file: {stdout}"
    );
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

/// Writes `text` to a temporary file named `name` and returns its path.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = temp(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

/// Asserts the exit status (never a signal or a panic) and that standard error contains
/// every one of `expected`.
fn expect(args: &[&str], out: &Output, status: i32, expected: &[&str]) {
    assert_eq!(out.status.code(), Some(status), "{args:?}: {}", show(out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for e in expected {
        assert!(
            stderr.contains(e),
            "{args:?}: expected {e:?} on stderr\n{}",
            show(out)
        );
    }
}

/// A compute shader with a typed UAV buffer of floats: every thread doubles its texel.
const TYPED_FLOAT: &str = "cs_5_0
dcl_uav_typed_buffer (float,float,float,float) u0
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 4, 1, 1
ld_uav_typed r0.x, vThreadID.xxxx, u0.xyzw
mul r0.x, r0.x, l(2.0)
store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xxxx
ret
";

/// A compute shader with a typed UAV buffer of signed integers: every thread negates its
/// texel.
const TYPED_SINT: &str = "cs_5_0
dcl_uav_typed_buffer (sint,sint,sint,sint) u0
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 3, 1, 1
ld_uav_typed r0.x, vThreadID.xxxx, u0.xyzw
ineg r0.x, r0.x
store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xxxx
ret
";

/// A compute shader copying its constant buffer's first vector into a raw UAV.
const CB_COPY: &str = "cs_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_uav_raw u0
dcl_thread_group 1, 1, 1
store_raw u0.xyzw, l(0), cb0[0].xyzw
ret
";

#[test]
fn run_executes_typed_uavs_in_their_format() {
    let float = temp_file("typed_float.asm", TYPED_FLOAT.as_bytes());
    let args = [
        "run",
        float.to_str().expect("utf-8"),
        "--dispatch",
        "1,1,1",
        "--uav",
        "0=r32f:1,2.5,-3,4",
    ];
    let out = dxbc2spirv(&args);
    assert!(out.status.success(), "{args:?}: {}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("u0 (r32f, 4 texels):\n  [   0] 2 5 -6 8\n"),
        "{TYPED_FLOAT}\n{args:?}: expected the texels doubled:\n{text}"
    );
    let sint = temp_file("typed_sint.asm", TYPED_SINT.as_bytes());
    let args = [
        "run",
        sint.to_str().expect("utf-8"),
        "--dispatch",
        "1,1,1",
        "--uav",
        "0=r32i:5,-6,0x7",
    ];
    let out = dxbc2spirv(&args);
    // `0x7` is not an i32 value: a usage error.
    expect(&args, &out, 2, &["`0x7` is not a i32 value"]);
    let args = [
        "run",
        sint.to_str().expect("utf-8"),
        "--dispatch",
        "1,1,1",
        "--uav",
        "0=r32i:5,-6,7",
    ];
    let out = dxbc2spirv(&args);
    assert!(out.status.success(), "{args:?}: {}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("u0 (r32i, 3 texels):\n  [   0] -5 6 -7\n"),
        "{TYPED_SINT}\n{args:?}: expected the texels negated:\n{text}"
    );
    let _ = std::fs::remove_file(&float);
    let _ = std::fs::remove_file(&sint);
}

#[test]
fn run_checks_the_buffers_against_the_shader() {
    let float = temp_file("check_float.asm", TYPED_FLOAT.as_bytes());
    let float = float.to_str().expect("utf-8");
    let cb = temp_file("check_cb.asm", CB_COPY.as_bytes());
    let cb = cb.to_str().expect("utf-8");
    let ps = temp_file(
        "check_ps.asm",
        b"ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1.0, 0, 0, 1.0)\nret\n",
    );
    let ps = ps.to_str().expect("utf-8");
    let srv = temp_file(
        "check_srv.asm",
        b"cs_5_0\ndcl_resource_buffer (float,float,float,float) t0\ndcl_uav_raw u0\n\
          dcl_temps 1\ndcl_thread_group 1, 1, 1\nld_indexable(buffer)(float,float,float,float) \
          r0.xyzw, l(0, 0, 0, 0), t0.xyzw\nstore_raw u0.xyzw, l(0), r0.xyzw\nret\n",
    );
    let srv = srv.to_str().expect("utf-8");
    let cases: Vec<(Vec<&str>, i32, Vec<&str>)> = vec![
        // Each of these ended in a segmentation fault or a driver error before.
        (
            vec![float],
            2,
            vec![
                "u0 is a typed UAV buffer (float); give --uav 0=r32f:",
                "rgba32f",
            ],
        ),
        (
            vec![float, "--uav", "0=f32:1,2,3,4"],
            2,
            vec!["u0 is a typed UAV buffer (float), which takes a format"],
        ),
        (
            vec![float, "--uav", "0=r32ui:1,2,3,4"],
            2,
            vec!["whose texels are not u32 values", "--uav 0=r32f"],
        ),
        (
            vec![float, "--uav", "0=r32f:1", "--uav", "1=raw:16"],
            2,
            vec!["--uav 1: the shader declares no u1 (it declares u0)"],
        ),
        (
            vec![float, "--uav", "0=r32f:1", "--cb", "0=u32:1"],
            2,
            vec!["--cb 0: the shader declares no cb0 (it declares none)"],
        ),
        (
            vec![SEED],
            2,
            vec!["u0 is a raw UAV; give --uav 0=raw:SIZE"],
        ),
        (
            vec![SEED, "--uav", "0=rgba32f:1,2,3,4", "--uav", "1=raw:4"],
            2,
            vec!["u0 is a raw UAV, which takes no format"],
        ),
        (
            vec![SEED, "--uav", "0=raw:4", "--uav", "0=raw:8"],
            2,
            vec!["--uav 0: given twice"],
        ),
        (
            vec![cb, "--uav", "0=raw:16"],
            2,
            vec!["cb0 is a constant buffer of 16 bytes; give --cb 0=f32:"],
        ),
        (
            vec![srv, "--uav", "0=raw:16"],
            2,
            vec!["t0 is a shader resource (buffer)", "run binds only UAVs"],
        ),
        (
            vec![ps],
            1,
            vec![
                "run executes compute shaders;",
                "is a pixel shader (ps_5_0)",
            ],
        ),
        (
            vec![SEED, "--uav", "0=foo:1"],
            2,
            vec!["unknown kind `foo`"],
        ),
        (
            vec![SEED, "--uav", "0=rg32f:1,2,3"],
            2,
            vec!["whole number of 2-component texels"],
        ),
    ];
    for (rest, status, expected) in cases {
        let mut args = vec!["run"];
        args.extend(&rest[..1]);
        args.extend(["--dispatch", "1,1,1"]);
        args.extend(&rest[1..]);
        let out = dxbc2spirv(&args);
        expect(&args, &out, status, &expected);
    }
    let args = ["run", SEED, "--dispatch", "1,1", "--uav", "0=raw:80"];
    expect(&args, &dxbc2spirv(&args), 2, &["expected X,Y,Z"]);
    // The constant buffer given reaches the shader.
    let args = [
        "run",
        cb,
        "--dispatch",
        "1,1,1",
        "--uav",
        "0=raw:16",
        "--cb",
        "0=u32:5,6,7,8",
    ];
    let out = dxbc2spirv(&args);
    assert!(out.status.success(), "{args:?}: {}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("[   0] 0x00000005 0x00000006 0x00000007 0x00000008"),
        "{CB_COPY}\n{args:?}:\n{text}"
    );
    for path in [float, cb, ps, srv] {
        let _ = std::fs::remove_file(path);
    }
}

/// A container with the given chunks, each empty (a correct checksum).
fn container_with(chunks: &[&[u8; 4]]) -> Vec<u8> {
    let chunks: Vec<([u8; 4], Vec<u8>)> = chunks.iter().map(|c| (**c, Vec::new())).collect();
    dxbc2spirv::container::write_container(&chunks)
}

#[test]
fn inputs_are_recognised_and_refused_by_what_they_are() {
    let spirv = {
        let out = dxbc2spirv(&["translate", SEED, "-o", "-"]);
        assert!(out.status.success(), "{}", show(&out));
        out.stdout
    };
    let big_endian: Vec<u8> = spirv
        .chunks(4)
        .flat_map(|w| [w[3], w[2], w[1], w[0]])
        .collect();
    let inputs: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "empty",
            vec![],
            "-: empty (0 bytes): expected a DXBC container",
        ),
        ("blank", b"\n  \n".to_vec(), "-: text of white space only"),
        (
            "SPIR-V",
            spirv.clone(),
            "-: a SPIR-V module, not DXBC: use `dxbc2spirv validate`",
        ),
        (
            "big-endian SPIR-V",
            big_endian.clone(),
            "-: a SPIR-V module (big-endian), not DXBC",
        ),
        (
            "DXIL",
            container_with(&[b"SFI0", b"ISG1", b"OSG1", b"PSV0", b"DXIL"]),
            "Shader Model 6 (DXIL) is not supported",
        ),
        (
            "root signature",
            container_with(&[b"RTS0"]),
            "holding only a root signature (RTS0): there is no program",
        ),
        (
            "HLSL .shader_test",
            b"[require]\nshader model >= 5.0\n[compute shader]\nvoid main() {}\n".to_vec(),
            "a .shader_test file without a `[... shader asm]` section",
        ),
        (
            "binary",
            vec![0x7f, b'E', b'L', b'F', 0, 1, 2],
            "-: binary data: neither a DXBC container, a SPIR-V module nor text",
        ),
    ];
    for (what, bytes, message) in &inputs {
        for sub in ["translate", "reflect", "validate", "disasm", "asm"] {
            let mut args = vec![sub, "-"];
            if matches!(sub, "translate" | "asm") {
                args.extend(["-o", "-"]);
            }
            let spirv_to_validate = sub == "validate" && what.contains("SPIR-V");
            let root_to_disasm = sub == "disasm" && *what == "root signature";
            if spirv_to_validate || root_to_disasm {
                continue; // accepted: checked below
            }
            let out = dxbc2spirv_stdin(&args, bytes);
            let expected = if *what == "HLSL .shader_test" && sub == "disasm" {
                "a .shader_test file, not a DXBC container"
            } else {
                message
            };
            expect(&args, &out, 1, &[expected]);
            assert_eq!(
                String::from_utf8_lossy(&out.stderr).lines().count(),
                1,
                "{what} to {sub}: one line\n{}",
                show(&out)
            );
        }
    }
    let args = ["run", "-", "--dispatch", "1,1,1"];
    let out = dxbc2spirv_stdin(&args, &spirv);
    expect(&args, &out, 1, &["a SPIR-V module, not DXBC"]);
    // Assembly text is not a container for disasm, and a container is not text for asm.
    let out = dxbc2spirv(&["disasm", SEED]);
    expect(
        &["disasm", SEED],
        &out,
        1,
        &["a .shader_test file, not a DXBC container"],
    );
    let out = dxbc2spirv_stdin(&["asm", "-", "-o", "-"], &seed_container());
    expect(
        &["asm", "-"],
        &out,
        1,
        &["a DXBC container, not assembly text"],
    );
    // A root signature disassembles to its header; validate takes SPIR-V in either order.
    let out = dxbc2spirv_stdin(
        &["disasm", "-", "--ignore-checksum"],
        &container_with(&[b"RTS0"]),
    );
    assert!(out.status.success(), "{}", show(&out));
    for (what, bytes) in [("little-endian", &spirv), ("big-endian", &big_endian)] {
        let out = dxbc2spirv_stdin(&["validate", "-"], bytes);
        assert!(out.status.success(), "{what} SPIR-V: {}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("SPIR-V module"),
            "{}",
            show(&out)
        );
    }
}

#[test]
fn section_fits_only_shader_test_files() {
    let dxbc = temp_file("section.dxbc", &seed_container());
    let dxbc = dxbc.to_str().expect("utf-8");
    let asm = temp_file("section.asm", b"cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
    let asm = asm.to_str().expect("utf-8");
    for args in [
        vec!["translate", dxbc, "--section", "1", "-o", "-"],
        vec!["reflect", dxbc, "--section", "1"],
        vec!["validate", dxbc, "--section", "2"],
        vec!["translate", asm, "--section", "2", "-o", "-"],
        vec!["reflect", SEED, "--section", "3"],
        vec!["reflect", SEED, "--section", "0"],
    ] {
        let out = dxbc2spirv(&args);
        expect(&args, &out, 2, &["--section"]);
    }
    let out = dxbc2spirv(&["reflect", SEED, "--section", "1"]);
    assert!(out.status.success(), "{}", show(&out));
    let _ = std::fs::remove_file(dxbc);
    let _ = std::fs::remove_file(asm);
}

#[test]
fn binary_output_is_refused_on_a_terminal() {
    // `script` (util-linux) runs the command with a pseudo-terminal as standard output.
    let have_script = Command::new("script").arg("--version").output().is_ok();
    assert!(
        have_script,
        "this test needs `script` from util-linux on PATH"
    );
    let bin = env!("CARGO_BIN_EXE_dxbc2spirv");
    for (command, status) in [
        (format!("{bin} translate {SEED}"), 2),
        (format!("{bin} translate {SEED} -o -"), 2),
        (format!("{bin} asm {SEED} -o -"), 2),
        (format!("{bin} translate {SEED} --text"), 0),
    ] {
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .stdin(std::process::Stdio::null())
            .output()
            .expect("script runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(status), "{command}: {}", show(&out));
        if status == 2 {
            assert!(
                text.contains("refusing to write binary") && text.contains("-o FILE"),
                "{command}: {}",
                show(&out)
            );
        } else {
            assert!(text.contains("OpEntryPoint"), "{command}: {}", show(&out));
        }
    }
}

#[test]
fn validation_without_spirv_val_says_so() {
    let empty = temp("no-tools");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let out_dir = temp("no-tools-out");
    for args in [
        vec!["translate", SEED, "--validate", "-o", "-"],
        vec!["validate", SEED],
        vec![
            "batch",
            "tests",
            "-o",
            out_dir.to_str().expect("utf-8"),
            "--validate",
        ],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_dxbc2spirv"))
            .args(&args)
            .env("PATH", &empty)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .output()
            .expect("runs");
        expect(
            &args,
            &out,
            1,
            &["spirv-val is not installed (not found on PATH)"],
        );
    }
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn batch_report_on_stdout_is_json_alone_and_failures_are_named() {
    let dir = temp("batch-named");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut damaged = seed_container();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0xff;
    for i in 0..7 {
        std::fs::write(dir.join(format!("bad{i}.dxbc")), &damaged).expect("write");
    }
    let out_dir = temp("batch-named-out");
    let dir_arg = dir.to_str().expect("utf-8");
    let out_arg = out_dir.to_str().expect("utf-8");
    let out = dxbc2spirv(&["batch", dir_arg, "-o", out_arg, "--report", "-"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("standard output is the report alone ({e}): {}", show(&out)));
    assert_eq!(json["failed"], 7);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("7 shaders: 0 converted, 7 failed"),
        "{stderr}"
    );
    let named = (0..7)
        .filter(|i| stderr.contains(&format!("bad{i}.dxbc: ")))
        .count();
    assert_eq!(named, 5, "the first five failures are named: {stderr}");
    assert!(stderr.contains("(2 more; all with --verbose"), "{stderr}");
    let out = dxbc2spirv(&["--verbose", "batch", dir_arg, "-o", out_arg]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let named = (0..7)
        .filter(|i| stdout.contains(&format!("bad{i}.dxbc: ")))
        .count();
    assert_eq!(named, 7, "--verbose names every failure: {stdout}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn reflect_text_shows_signatures_and_stage_parameters() {
    let cases: [(&str, &[&str]); 3] = [
        (
            SEED,
            &[
                "model: cs_5_0",
                "thread group: 1 x 1 x 1",
                "descriptor ranges:\n  uav u0",
            ],
        ),
        (
            "tests/in/gs_stream_output.asm",
            &[
                "model: gs_5_0",
                "geometry: input primitive point, output topology pointlist, max output vertices 3",
                "inputs:\n  SV_Position0 register 0 mask xyzw POS float",
                "TEXCOORD2 register 2 mask xy NONE uint stream 1",
            ],
        ),
        (
            "tests/in/hs_phases.asm",
            &[
                "tessellation: input control points 3, output control points 3, domain domain_tri",
                "max tess factor 16",
                "patch constants:\n  SV_TessFactor0 register 0 mask x TRIEDGE float",
            ],
        ),
    ];
    for (input, expected) in cases {
        let out = dxbc2spirv(&["reflect", input]);
        assert!(out.status.success(), "reflect {input}: {}", show(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        for e in expected {
            assert!(
                text.contains(e),
                "reflect {input}: expected {e:?} in\n{text}"
            );
        }
    }
}

/// A UAV whose counter the shader uses gets a zeroed counter, printed after the run.
#[test]
fn run_binds_and_prints_a_uav_counter() {
    let text = "cs_5_0
dcl_uav_structured u0, 4
dcl_temps 1
dcl_thread_group 4, 1, 1
imm_atomic_alloc r0.x, u0
store_structured u0.x, r0.x, l(0), l(9)
ret
";
    let shader = temp_file("counter.asm", text.as_bytes());
    let args = [
        "run",
        shader.to_str().expect("utf-8"),
        "--dispatch",
        "1,1,1",
        "--uav",
        "0=raw:16",
    ];
    let out = dxbc2spirv(&args);
    let _ = std::fs::remove_file(&shader);
    assert!(out.status.success(), "{text}\n{args:?}: {}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("u0 (16 bytes):\n  [   0] 0x00000009 0x00000009 0x00000009 0x00000009\n")
            && stdout.contains("u0 counter (4 bytes):\n  [   0] 0x00000004\n"),
        "{text}\n{args:?}: every thread's slot written, the counter at 4:\n{stdout}"
    );
}

/// A compute shader reading `vCycleCounter` twice (with work between) into a raw UAV.
const CYCLE_COUNTER: &str = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_input vCycleCounter
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 1, 1, 1
mov r0.xy, vCycleCounter.xyxx
mov r2.x, l(0)
loop
  uge r2.y, r2.x, l(1000)
  breakc_nz r2.y
  iadd r2.x, r2.x, l(1)
endloop
mov r1.xy, vCycleCounter.xyxx
ult r2.y, r1.y, r0.y
ieq r2.z, r1.y, r0.y
ult r2.w, r1.x, r0.x
and r2.z, r2.z, r2.w
or r2.y, r2.y, r2.z
movc r2.y, r2.y, l(0), l(1)
store_raw u0.xy, l(0), r2.yxyy
ret
";

/// `run` translates for the device it runs on: a shader that reads the cycle counter runs
/// where the device has `shaderSubgroupClock` (lavapipe does), instead of failing with the
/// default options' "unsupported".
#[test]
fn run_translates_with_the_device_features() {
    let path = temp_file("cycle_counter.asm", CYCLE_COUNTER.as_bytes());
    let args = [
        "run",
        path.to_str().expect("utf-8"),
        "--dispatch",
        "1,1,1",
        "--uav",
        "0=raw:8",
    ];
    let out = dxbc2spirv(&args);
    assert!(
        out.status.success(),
        "{CYCLE_COUNTER}\n{args:?}: {}",
        show(&out)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // First word: 1 when the second read is not below the first; second: the loop count.
    assert!(
        text.contains("0x00000001 0x000003e8"),
        "{CYCLE_COUNTER}\n{args:?}: expected 0x00000001 0x000003e8 (clock did not go back, \
         1000 iterations), got:\n{text}"
    );
}

/// Every subcommand, as the completion scripts and the manual page must list them.
const SUBCOMMANDS: [&str; 9] = [
    "translate",
    "disasm",
    "asm",
    "reflect",
    "validate",
    "run",
    "batch",
    "completions",
    "man",
];

/// Feeds `input` to `program args…` and gives its output (`None` when the program is not
/// installed).
fn pipe(program: &str, args: &[&str], input: &[u8]) -> Option<Output> {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take().expect("piped standard input");
    stdin.write_all(input).expect("write the script");
    drop(stdin);
    Some(child.wait_with_output().expect("the program runs"))
}

/// `completions SHELL` prints each shell's script, naming every subcommand; bash loads its
/// script and registers the completion; an unknown shell is a usage error.
#[test]
fn completions_for_every_shell() {
    let shells = [
        ("bash", "complete -F _dxbc2spirv"),
        ("zsh", "#compdef dxbc2spirv"),
        ("fish", "complete -c dxbc2spirv"),
        ("elvish", "edit:completion:arg-completer[dxbc2spirv]"),
        ("powershell", "Register-ArgumentCompleter"),
    ];
    for (shell, marker) in shells {
        let out = dxbc2spirv(&["completions", shell]);
        assert!(out.status.success(), "completions {shell}: {}", show(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains(marker),
            "{shell}: no `{marker}` in\n{script}"
        );
        for subcommand in SUBCOMMANDS {
            assert!(
                script.contains(subcommand),
                "{shell}: the script does not name `{subcommand}`:\n{script}"
            );
        }
    }
    let bash = dxbc2spirv(&["completions", "bash"]).stdout;
    // `source /dev/stdin` reads the script; `complete -p` prints the registration.
    if let Some(out) = pipe(
        "bash",
        &["-c", "source /dev/stdin && complete -p dxbc2spirv"],
        &bash,
    ) {
        let registered = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && registered.contains("_dxbc2spirv"),
            "bash did not register the completion: {}",
            show(&out)
        );
    }
    let out = dxbc2spirv(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("tcsh"),
        "{}",
        show(&out)
    );
}

/// `man` prints a roff page with the name, the version and every subcommand; nroff renders
/// it when installed.
#[test]
fn man_prints_the_manual_page() {
    let out = dxbc2spirv(&["man"]);
    assert!(out.status.success(), "man: {}", show(&out));
    let page = String::from_utf8_lossy(&out.stdout);
    let title = format!(
        ".TH dxbc2spirv 1  \"dxbc2spirv {}\"",
        env!("CARGO_PKG_VERSION")
    );
    assert!(page.contains(&title), "no `{title}` in\n{page}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "no `{section}` in\n{page}");
    }
    for subcommand in SUBCOMMANDS {
        let entry = format!("dxbc2spirv\\-{subcommand}(1)");
        assert!(page.contains(&entry), "no `{entry}` in\n{page}");
    }
    if let Some(rendered) = pipe("nroff", &["-man"], page.as_bytes()) {
        // nroff emboldens by overstriking (`S\x08S`): a backspace drops the character before.
        let mut text = String::new();
        for c in String::from_utf8_lossy(&rendered.stdout).chars() {
            if c == '\x08' {
                text.pop();
            } else {
                text.push(c);
            }
        }
        assert!(
            rendered.status.success() && text.contains("SUBCOMMANDS"),
            "nroff -man: {}",
            show(&rendered)
        );
    }
}

/// Linking by semantic from the command line: the vertex shader of
/// shaders/layer/link_by_semantic.shader_test is reflected with the layer's interface map and
/// `--next-stage-interface` writes the map that places the pixel shader's inputs there; the
/// pixel shader translated with it reads TEXCOORD0 and TEXCOORD1 at location 3 and COLOR0 at
/// location 0, although its registers are v2 and v1.
#[test]
fn reflect_writes_the_next_stages_interface_and_translate_takes_it() {
    const FILE: &str = "shaders/layer/link_by_semantic.shader_test";
    let vs_map = temp("vs-interface.json");
    std::fs::write(
        &vs_map,
        r#"{ "outputs": [
            { "semantic": "TEXCOORD", "index": 0, "location": 3, "component": 0 },
            { "semantic": "TEXCOORD", "index": 1, "location": 3, "component": 2 },
            { "semantic": "COLOR", "index": 0, "location": 0 } ] }"#,
    )
    .expect("map written");
    let vs_map_arg = vs_map.to_str().expect("UTF-8 path");
    let args = [
        "reflect",
        FILE,
        "--section",
        "1",
        "--interface",
        vs_map_arg,
        "--next-stage-interface",
    ];
    let out = dxbc2spirv(&args);
    assert!(out.status.success(), "{args:?}: {}", show(&out));
    let next: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let inputs = next["inputs"].as_array().expect("an inputs list");
    let location_of = |semantic: &str, index: u64| {
        inputs
            .iter()
            .find(|e| e["semantic"] == semantic && e["index"] == index)
            .map(|e| (e["location"].clone(), e["component"].clone()))
    };
    assert_eq!(
        location_of("TEXCOORD", 1),
        Some((3.into(), 2.into())),
        "{next}"
    );
    assert_eq!(
        location_of("COLOR", 0),
        Some((0.into(), 0.into())),
        "{next}"
    );
    let ps_map = temp("ps-interface.json");
    std::fs::write(&ps_map, &out.stdout).expect("map written");
    let ps_map_arg = ps_map.to_str().expect("UTF-8 path");

    let args = [
        "reflect",
        FILE,
        "--section",
        "2",
        "--interface",
        ps_map_arg,
        "--json",
    ];
    let out = dxbc2spirv(&args);
    let _ = std::fs::remove_file(&vs_map);
    let _ = std::fs::remove_file(&ps_map);
    assert!(out.status.success(), "{args:?}: {}", show(&out));
    let reflection: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let elements = reflection["inputs"].as_array().cloned().unwrap_or_default();
    let placed = |semantic: &str, index: u64| {
        elements
            .iter()
            .find(|e| e["semantic"] == semantic && e["index"] == index)
            .map(|e| e["placement"]["location"].clone())
    };
    assert_eq!(placed("TEXCOORD", 0), Some(3.into()), "{reflection}");
    assert_eq!(placed("TEXCOORD", 1), Some(3.into()), "{reflection}");
    assert_eq!(placed("COLOR", 0), Some(0.into()), "{reflection}");
}

/// `--dual-source-blending` puts o1 at location 0, index 1 and drops o2.
#[test]
fn dual_source_blending_from_the_command_line() {
    const FILE: &str = "shaders/layer/dual_source.shader_test";
    let with = dxbc2spirv(&["translate", FILE, "--text", "--dual-source-blending"]);
    assert!(with.status.success(), "{}", show(&with));
    let text = String::from_utf8_lossy(&with.stdout);
    assert!(text.contains("Index 1"), "no Index 1 decoration:\n{text}");
    assert!(
        !text.contains("Location 2"),
        "o2 is still an output:\n{text}"
    );
    let without = dxbc2spirv(&["translate", FILE, "--text"]);
    let text = String::from_utf8_lossy(&without.stdout);
    assert!(!text.contains("Index 1"), "Index without the flag:\n{text}");
    assert!(
        text.contains("Location 2"),
        "o2 at location 2 without the flag:\n{text}"
    );
}

#[test]
fn translate_prints_the_warnings_and_succeeds() {
    let out_path = temp("deep.spv");
    let out = dxbc2spirv(&[
        "translate",
        "shaders/misc/cs_4_0_deep_thread_group.shader_test",
        "-o",
        out_path.to_str().expect("a UTF-8 path"),
    ]);
    assert!(out.status.success(), "translate: {}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("warning: shaders/misc/cs_4_0_deep_thread_group.shader_test: instruction 5")
            && stderr.contains("D3D11_CS_4_X_THREAD_GROUP_MAX_*"),
        "{}",
        show(&out)
    );
    assert!(
        std::fs::metadata(&out_path).is_ok_and(|m| m.len() > 20),
        "{}",
        show(&out)
    );
    let _ = std::fs::remove_file(out_path);
}
