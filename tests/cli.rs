//! The `dxbc2spirv` command, run as a program: each subcommand's main path and its error and
//! usage paths (exit status 0 success, 1 input error, 2 usage error).

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
