//! Tests of the assembler's errors: each names the line and column and what was expected,
//! and hostile inputs are rejected without panicking.

use super::*;

/// The error for `text`, as `line L, column C: message`.
fn error(text: &str) -> String {
    match parse_program(text) {
        Ok(_) => panic!("parsed without error:\n{text}"),
        Err(e) => {
            assert!(
                matches!(e.location, Location::Text { .. }),
                "error without a text location: {e}"
            );
            e.to_string()
        }
    }
}

/// Asserts that the error for `text` is at `line`, `column` and contains `part`.
fn assert_error(text: &str, line: u32, column: u32, part: &str) {
    let message = error(text);
    let place = format!("line {line}, column {column}: ");
    assert!(
        message.starts_with(&place) && message.contains(part),
        "expected an error at {place}containing {part:?}, got {message:?}"
    );
}

const HEAD: &str = "ps_5_0\ndcl_output o0.xyzw\ndcl_temps 2\n";

#[test]
fn syntax_errors_name_line_column_and_expectation() {
    assert_eq!(
        error("ps_5_0\ndcl_temps 2\nmov r0.x r1.x\n"),
        "line 3, column 10: expected ',' after the destination operand, found 'r1'"
    );
    assert_error(
        &format!("{HEAD}add r0.x, r0.y r1.x\n"),
        4,
        16,
        "expected ',' after source operand 1, found 'r1'",
    );
    assert_error(&format!("{HEAD}mov r0.x, \n"), 4, 11, "expected an operand");
    assert_error(
        &format!("{HEAD}mov r0.x, r0.y)\n"),
        4,
        15,
        "end of the line",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, r0.\n"),
        4,
        14,
        "component letters",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, r0.xq\n"),
        4,
        14,
        "not a component selection",
    );
    assert_error(&format!("{HEAD}mov r0.x, r0.yx\n"), 4, 11, "xyzw order");
    assert_error(
        &format!("{HEAD}mov r0.x, |r0.y\n"),
        4,
        16,
        "close the absolute value",
    );
    assert_error(&format!("{HEAD}mov r0.x, cb0[1\n"), 4, 16, "expected ']'");
    assert_error(&format!("{HEAD}dcl_temps\n"), 4, 10, "the number of temps");
}

#[test]
fn unknown_names() {
    assert_error(
        &format!("{HEAD}frobnicate r0.x\n"),
        4,
        1,
        "unknown instruction 'frobnicate'",
    );
    assert_error(
        &format!("{HEAD}mov_foo r0.x, r0.x\n"),
        4,
        1,
        "unknown instruction",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, q0.x\n"),
        4,
        11,
        "unknown register 'q0'",
    );
    assert_error(
        &format!("{HEAD}dcl_frob 3\n"),
        4,
        1,
        "unknown declaration 'dcl_frob'",
    );
    assert_error(
        &format!("{HEAD}dcl_resource_texture9d (float,float,float,float) t0\n"),
        4,
        1,
        "unknown declaration",
    );
    assert_error(
        "ps_5_0\ndcl_resource_texture2d (float,floot,float,float) t0\n",
        2,
        31,
        "unknown return type 'floot'",
    );
    assert_error(
        "ps_5_0\ndcl_sampler s0, mode_odd\n",
        2,
        17,
        "unknown sampler mode",
    );
    assert_error(
        "ps_5_0\ndcl_input_ps bilinear v0.x\n",
        2,
        14,
        "unknown register 'bilinear'",
    );
    assert_error(
        "vs_5_0\ndcl_output_siv o0.x, sv_position\n",
        2,
        22,
        "unknown system value",
    );
    assert_error("xs_5_0\n", 1, 1, "unknown shader stage 'xs'");
    assert_error("ps_3_0\n", 1, 1, "shader model 3.0 is not SM4.0–5.1");
    assert_error("hs_4_1\n", 1, 1, "need shader model 5");
    assert_error(
        &format!("{HEAD}mov r0.x, r0.x {{bogus}}\n"),
        4,
        17,
        "unknown annotation 'bogus'",
    );
    assert_error(
        &format!("{HEAD}ret {{length=x}}\n"),
        4,
        13,
        "the instruction length",
    );
}

#[test]
fn suffix_errors() {
    assert_error(&format!("{HEAD}if r0.x\n"), 4, 1, "needs a test suffix");
    assert_error(
        &format!("{HEAD}mov_sat_sat r0.x, r0.x\n"),
        4,
        9,
        "repeated or out of order",
    );
    assert_error(
        &format!("{HEAD}sync_t_g\n"),
        4,
        8,
        "repeated or out of order",
    );
    assert_error(
        &format!("{HEAD}mov_nz r0.x, r0.x\n"),
        4,
        1,
        "unknown instruction",
    );
    assert_error(
        &format!("{HEAD}ld_aoffimmi(9,0,0) r0.xyzw, r0.xyzw, t0.xyzw\n"),
        4,
        13,
        "offset 9 is out of range",
    );
    assert_error(
        &format!("{HEAD}ld_aoffimmi r0.xyzw, r0.xyzw, t0.xyzw\n"),
        4,
        13,
        "expected '(' after '_aoffimmi'",
    );
    assert_error(
        &format!("{HEAD}ld_indexable(texture2d, stride=4096) r0.xyzw, r0.xyzw, t0.xyzw\n"),
        4,
        32,
        "out of range (at most 4095)",
    );
    assert_error(
        &format!("{HEAD}add [precise(yx)] r0.xy, r0.xy, r0.xy\n"),
        4,
        14,
        "not a component mask",
    );
}

#[test]
fn operand_counts() {
    assert_error(
        &format!("{HEAD}mov r0.x\n"),
        4,
        9,
        "mov takes 2 operand(s), found 1",
    );
    assert_error(
        &format!("{HEAD}mov\n"),
        4,
        4,
        "mov takes 2 operand(s), found none",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, r0.y, r0.z\n"),
        4,
        15,
        "mov takes 2 operand(s); found more",
    );
    assert_error(
        &format!("{HEAD}ret r0.x\n"),
        4,
        5,
        "expected the end of the line",
    );
}

#[test]
fn out_of_range_values() {
    assert_error(
        "ps_5_0\ndcl_temps 4294967296\n",
        2,
        11,
        "unsigned 32-bit number",
    );
    assert_error(
        "hs_5_0\ndcl_input_control_point_count 64\n",
        2,
        31,
        "at most 63",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(1e99)\n"),
        4,
        13,
        "out of range for a float",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(4294967296)\n"),
        4,
        13,
        "out of range for 32 bits",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(-2147483649)\n"),
        4,
        14,
        "out of range for 32 bits",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(0x1ffffffff)\n"),
        4,
        13,
        "not 32 bits",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, r99999999999.x\n"),
        4,
        11,
        "out of range",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(1, 2)\n"),
        4,
        11,
        "takes 1 or 4 values, found 2",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(1, 2, 3, 4, 5)\n"),
        4,
        25,
        "takes 1 or 4 values",
    );
    assert_error(
        &format!("{HEAD}dmov r0.xy, d(1.0, 2.0, 3.0)\n"),
        4,
        25,
        "takes 1 or 2 values",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, x0[1][2][3][4].x\n"),
        4,
        19,
        "at most three indices",
    );
    assert_error(
        "ps_5_0\ndcl_interface fp0[65536][1] = {}\n",
        2,
        19,
        "at most 65535",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, r0.x {{components=2}}\n"),
        4,
        17,
        "component count 2 is not 0, 1 or 4",
    );
    assert_error(
        &format!("{HEAD}ret {{unused_control=0x1}}\n"),
        4,
        5,
        "lie outside bits 11–23",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, r0.y {{length=2}}\n"),
        4,
        1,
        "shorter than",
    );
    assert_error(
        &format!("{HEAD}ret {{trailing=}}\n"),
        4,
        15,
        "expected a trailing dword",
    );
    assert_error(
        &format!("{HEAD}ret {{trailing=1,0}}\n"),
        4,
        5,
        "zero dwords at the end are padding",
    );
    assert_error(
        &format!("{HEAD}ret {{trailing=1}} {{trailing=2}}\n"),
        4,
        19,
        "given twice",
    );
}

#[test]
fn validation_errors_point_at_the_line() {
    assert_error(
        "ps_5_0\ndcl_temps 1\nmov r0.x, l(0)\nmov r5.x, l(0)\n",
        4,
        1,
        "r5 is used but dcl_temps declares 1",
    );
    assert_error(
        "ps_5_0\ndcl_temps 1\nsample r0.xyzw, r0.xyxx, t0.xyzw, s0\n",
        3,
        1,
        "t0 is used but not declared",
    );
    assert_error(
        "ps_4_0\ndcl_constantbuffer cb0[1], immediateIndexed\nmov r0.x, cb0.x\n",
        3,
        11,
        "a cb operand takes 2 index(es)",
    );
}

#[test]
fn hostile_inputs_are_errors() {
    assert_error("", 1, 1, "expected the version");
    assert_error("\n\n// only a comment\n", 4, 1, "expected the version");
    assert_error("ps_5_0\n\u{1}\n", 2, 1, "the character '\\u{1}'");
    assert_error("ps_5_0\nmov r0.x, é\n", 2, 11, "the character 'é'");
    assert_error(
        "ps_5_0 garbage\n",
        1,
        8,
        "end of the line after the version",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(1.0\n"),
        4,
        16,
        "expected ',' or ')'",
    );
    assert_error(&format!("{HEAD}mov r0.x, l(\n"), 4, 13, "expected a number");
    assert_error(
        "ps_4_0\ndcl_immediateConstantBuffer { { 1, 2, 3, 4},\n",
        3,
        1,
        "expected '{' to open a row",
    );
    assert_error(
        "ps_4_0\ndcl_customdata comment { 0x1,\n",
        3,
        1,
        "expected a dword",
    );
    assert_error(
        "ps_4_0\ndcl_customdata comment { 0x1\n",
        3,
        1,
        "close the data block opened at line 2",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(99999999999999999999999999999999999999999)\n"),
        4,
        13,
        "out of range",
    );
    assert_error(
        &format!("{HEAD}mov r0.x, l(1.5.5)\n"),
        4,
        13,
        "not a number",
    );
    // Five nested relative addresses: one too many.
    assert_error(
        &format!("{HEAD}dcl_indexableTemp x0[4], 4\nmov r0.x, x0[r[r[r[r[r1.x].x].x].x].x].x\n"),
        5,
        22,
        "nest deeper than 4 levels",
    );
    // Deep bracket nesting is cut off at the limit, not by the stack.
    let deep = format!("{HEAD}mov r0.x, {}\n", "x0[".repeat(100_000));
    assert_error(&deep, 4, 26, "nest deeper than 4 levels");
    let long = format!("{HEAD}{}\n", "r".repeat(1_000_000));
    assert!(error(&long).contains("unknown instruction"));
    let many = format!(
        "{HEAD}dcl_immediateConstantBuffer {{ {}",
        "{ 1},".repeat(100_000)
    );
    assert!(error(&many).contains("line 4"));
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A fixed pseudo-random walk over characters that matter to the lexer and parser.
    const PIECES: [&str; 24] = [
        "mov", " ", "r0", ".x", ",", "l(", ")", "[", "]", "-", "|", "{", "}", "\n", "1.5", "0x",
        "dcl_", "_sat", "u64", "+", "=", "*", ":", "é",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        let mut text = String::from("ps_5_0\n");
        for _ in 0..20 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push_str(PIECES[(state % PIECES.len() as u64) as usize]);
        }
        let _ = parse_program(&text);
    }
}

#[test]
fn run_time_resource_registers_outside_sm50_constant_buffers() {
    // SM5.0 constant buffers, textures and samplers take a register chosen at run time;
    // nothing else before SM5.1.
    assert_error(
        "ps_4_0\ndcl_temps 2\nmov r0.x, cb[r1.y + 0][0].x\n",
        3,
        11,
        "which shader model ps_4_0 does not allow",
    );
    let program = crate::asm::parse_program(&format!(
        "{HEAD}dcl_resource_texture2d (float,float,float,float) t0\nld r0.xyzw, r1.xyzw, t[r1.x + 0].xyzw\nret\n"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let t = program.operands_of(&program.instructions[3])[2];
    assert!(crate::ir::is_dynamic_register(program.model, &t), "{t:?}");
    let program = crate::asm::parse_program(&format!(
        "{HEAD}mov r0.x, cb[r1.y + 0][r1.x + 0].x\nmov o0.xyzw, r0.xxxx\nret\n"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let cb = program.operands_of(&program.instructions[2])[1];
    assert!(crate::ir::is_dynamic_cb(program.model, &cb), "{cb:?}");
}
