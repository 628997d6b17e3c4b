//! Unit tests of the decoder, one group per opcode family, on tokens written here.
//!
//! Every program is written as dwords the way fxc encodes it (so that the printed text needs
//! no `{components=…}`/`{mask}`/`{swizzle}` annotations), decoded, checked field by field
//! and line by line, and re-encoded: the encoder must give back the same dwords.

use crate::disasm::program_text;
use crate::ir::*;
use crate::isa::Opcode;
use crate::tpf::{decode, encode_words};
use std::panic::{catch_unwind, AssertUnwindSafe};

// ---------------------------------------------------------------------------------------------
// Token builders.
// ---------------------------------------------------------------------------------------------

// Program types of the version token.
const PS: u32 = 0;
const VS: u32 = 1;
const GS: u32 = 2;
const HS: u32 = 3;
const CS: u32 = 5;

// Opcodes, written as numbers from the format rather than taken from the table under test.
const ADD: u32 = 0;
const BREAK: u32 = 2;
const BREAKC: u32 = 3;
const CALL: u32 = 4;
const CALLC: u32 = 5;
const CASE: u32 = 6;
const CONTINUEC: u32 = 8;
const DEFAULT: u32 = 10;
const DISCARD: u32 = 13;
const DP4: u32 = 17;
const ELSE: u32 = 18;
const ENDIF: u32 = 21;
const ENDLOOP: u32 = 22;
const ENDSWITCH: u32 = 23;
const FTOI: u32 = 27;
const GE: u32 = 29;
const IADD: u32 = 30;
const IF: u32 = 31;
const IEQ: u32 = 32;
const IMUL: u32 = 38;
const ISHL: u32 = 41;
const LABEL: u32 = 44;
const LD: u32 = 45;
const LD2DMS: u32 = 46;
const LOOP: u32 = 48;
const LT: u32 = 49;
const MAD: u32 = 50;
const CUSTOMDATA: u32 = 53;
const MOV: u32 = 54;
const MOVC: u32 = 55;
const MUL: u32 = 56;
const RESINFO: u32 = 61;
const RET: u32 = 62;
const RETC: u32 = 63;
const SAMPLE: u32 = 69;
const SAMPLE_C_LZ: u32 = 71;
const SAMPLE_D: u32 = 73;
const SWITCH: u32 = 76;
const UDIV: u32 = 78;
const ULT: u32 = 79;
const DCL_RESOURCE: u32 = 88;
const DCL_CONSTANT_BUFFER: u32 = 89;
const DCL_SAMPLER: u32 = 90;
const DCL_INDEX_RANGE: u32 = 91;
const DCL_OUTPUT_TOPOLOGY: u32 = 92;
const DCL_INPUT_PRIMITIVE: u32 = 93;
const DCL_MAX_OUTPUT_VERTEX_COUNT: u32 = 94;
const DCL_INPUT: u32 = 95;
const DCL_INPUT_SGV: u32 = 96;
const DCL_INPUT_SIV: u32 = 97;
const DCL_INPUT_PS: u32 = 98;
const DCL_INPUT_PS_SGV: u32 = 99;
const DCL_INPUT_PS_SIV: u32 = 100;
const DCL_OUTPUT: u32 = 101;
const DCL_OUTPUT_SIV: u32 = 103;
const DCL_TEMPS: u32 = 104;
const DCL_INDEXABLE_TEMP: u32 = 105;
const DCL_GLOBAL_FLAGS: u32 = 106;
const SAMPLEPOS: u32 = 110;
const SAMPLEINFO: u32 = 111;
const HS_DECLS: u32 = 113;
const HS_CONTROL_POINT_PHASE: u32 = 114;
const HS_FORK_PHASE: u32 = 115;
const HS_JOIN_PHASE: u32 = 116;
const EMIT_STREAM: u32 = 117;
const CUT_STREAM: u32 = 118;
const EMITTHENCUT_STREAM: u32 = 119;
const FCALL: u32 = 120;
const BUFINFO: u32 = 121;
const GATHER4_PO: u32 = 127;
const F32TOF16: u32 = 130;
const COUNTBITS: u32 = 134;
const FIRSTBIT_HI: u32 = 135;
const FIRSTBIT_LO: u32 = 136;
const FIRSTBIT_SHI: u32 = 137;
const UBFE: u32 = 138;
const BFI: u32 = 140;
const SWAPC: u32 = 142;
const DCL_STREAM: u32 = 143;
const DCL_FUNCTION_BODY: u32 = 144;
const DCL_FUNCTION_TABLE: u32 = 145;
const DCL_INTERFACE: u32 = 146;
const DCL_INPUT_CONTROL_POINT_COUNT: u32 = 147;
const DCL_OUTPUT_CONTROL_POINT_COUNT: u32 = 148;
const DCL_TESS_DOMAIN: u32 = 149;
const DCL_TESS_PARTITIONING: u32 = 150;
const DCL_TESS_OUTPUT_PRIMITIVE: u32 = 151;
const DCL_HS_MAX_TESSFACTOR: u32 = 152;
const DCL_HS_FORK_PHASE_INSTANCE_COUNT: u32 = 153;
const DCL_HS_JOIN_PHASE_INSTANCE_COUNT: u32 = 154;
const DCL_THREAD_GROUP: u32 = 155;
const DCL_UAV_TYPED: u32 = 156;
const DCL_UAV_RAW: u32 = 157;
const DCL_UAV_STRUCTURED: u32 = 158;
const DCL_TGSM_RAW: u32 = 159;
const DCL_TGSM_STRUCTURED: u32 = 160;
const DCL_RESOURCE_RAW: u32 = 161;
const DCL_RESOURCE_STRUCTURED: u32 = 162;
const LD_UAV_TYPED: u32 = 163;
const STORE_UAV_TYPED: u32 = 164;
const LD_RAW: u32 = 165;
const STORE_RAW: u32 = 166;
const LD_STRUCTURED: u32 = 167;
const STORE_STRUCTURED: u32 = 168;
const IMM_ATOMIC_ALLOC: u32 = 178;
const IMM_ATOMIC_CONSUME: u32 = 179;
const IMM_ATOMIC_CMP_EXCH: u32 = 185;
const SYNC: u32 = 190;
const DADD: u32 = 191;
const DMOV: u32 = 199;
const DMOVC: u32 = 200;
const DTOF: u32 = 201;
const EVAL_SNAPPED: u32 = 203;
const EVAL_SAMPLE_INDEX: u32 = 204;
const EVAL_CENTROID: u32 = 205;
const DCL_GS_INSTANCE_COUNT: u32 = 206;
const ABORT: u32 = 207;
const DEBUG_BREAK: u32 = 208;
const MSAD: u32 = 213;
const LD_S: u32 = 223;
const SAMPLE_L_S: u32 = 228;
const SAMPLE_D_CL_S: u32 = 232;
const CHECK_ACCESS_FULLY_MAPPED: u32 = 234;

// Operand types.
const R: u32 = 0;
const V: u32 = 1;
const O: u32 = 2;
const X: u32 = 3;
const IMM32: u32 = 4;
const IMM64: u32 = 5;
const S: u32 = 6;
const T: u32 = 7;
const CB: u32 = 8;
const ICB: u32 = 9;
const LABEL_REG: u32 = 10;
const ODEPTH: u32 = 12;
const NULL: u32 = 13;
const M: u32 = 16;
const FB: u32 = 17;
const FP: u32 = 19;
const FORK_INSTANCE_ID: u32 = 23;
const VICP: u32 = 25;
const U: u32 = 30;
const G: u32 = 31;
const THREAD_ID: u32 = 32;
const THREAD_ID_IN_GROUP_FLATTENED: u32 = 36;

// Opcode-token control bits.
const SAT: u32 = 1 << 13;
const NZ: u32 = 1 << 18;

// Packed return types (four 4-bit codes).
const FLOAT4: u32 = 0x5555;
const UINT4: u32 = 0x4444;
const MIXED4: u32 = 0x6666;

/// An opcode token with a length.
fn opcode(code: u32, len: u32) -> u32 {
    code | (len << 24)
}

/// The dwords of a program: version token, length token, body.
fn program_words(stage: u32, major: u32, minor: u32, body: &[u32]) -> Vec<u32> {
    let mut words = vec![(stage << 16) | (major << 4) | minor, body.len() as u32 + 2];
    words.extend_from_slice(body);
    words
}

/// The bytes of a program (little-endian dwords).
fn program(stage: u32, major: u32, minor: u32, body: &[u32]) -> Vec<u8> {
    to_bytes(&program_words(stage, major, minor, body))
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn flat(instructions: &[Vec<u32>]) -> Vec<u32> {
    instructions.concat()
}

/// One instruction: the opcode token (control bits already shifted into place, length
/// computed), extended opcode tokens, then the operands' dwords.
fn inst(code: u32, control: u32, ext: &[u32], operands: &[Vec<u32>]) -> Vec<u32> {
    let mut words = vec![0];
    for (i, token) in ext.iter().enumerate() {
        let more = if i + 1 < ext.len() { 1 << 31 } else { 0 };
        words.push(token | more);
    }
    for operand in operands {
        words.extend_from_slice(operand);
    }
    let extended = if ext.is_empty() { 0 } else { 1 << 31 };
    words[0] = opcode(code, words.len() as u32) | control | extended;
    words
}

/// An instruction without control bits or extended tokens.
fn op(code: u32, operands: &[Vec<u32>]) -> Vec<u32> {
    inst(code, 0, &[], operands)
}

/// Extended opcode token: immediate texel offsets.
fn ext_offsets(u: i32, v: i32, w: i32) -> u32 {
    1 | ((u as u32 & 0xf) << 9) | ((v as u32 & 0xf) << 13) | ((w as u32 & 0xf) << 17)
}

/// Extended opcode token: resource dimension and stride.
fn ext_dim(dimension: u32, stride: u32) -> u32 {
    2 | (dimension << 6) | (stride << 11)
}

/// Extended opcode token: return types.
fn ext_ret(types: u32) -> u32 {
    3 | (types << 6)
}

/// One index of an operand.
enum Ix {
    Imm(u32),
    Imm64(u64),
    Rel(Vec<u32>),
    ImmRel(u32, Vec<u32>),
    Imm64Rel(u64, Vec<u32>),
}
use Ix::{Imm, Imm64, Imm64Rel, ImmRel, Rel};

/// An operand: `head` holds the component count, selection and type; the index dimension,
/// representations and index dwords follow from `indices`.
fn operand(head: u32, indices: &[Ix]) -> Vec<u32> {
    let mut token = head | ((indices.len() as u32) << 20);
    let mut tail = Vec::new();
    for (i, index) in indices.iter().enumerate() {
        let representation = match index {
            Imm(v) => {
                tail.push(*v);
                0
            }
            Imm64(v) => {
                tail.extend_from_slice(&[(v >> 32) as u32, *v as u32]);
                1
            }
            Rel(inner) => {
                tail.extend_from_slice(inner);
                2
            }
            ImmRel(v, inner) => {
                tail.push(*v);
                tail.extend_from_slice(inner);
                3
            }
            Imm64Rel(v, inner) => {
                tail.extend_from_slice(&[(v >> 32) as u32, *v as u32]);
                tail.extend_from_slice(inner);
                4
            }
        };
        token |= representation << (22 + 3 * i);
    }
    let mut words = vec![token];
    words.extend(tail);
    words
}

fn component(letter: u8) -> u32 {
    match letter {
        b'x' => 0,
        b'y' => 1,
        b'z' => 2,
        b'w' => 3,
        _ => panic!("bad component letter {}", letter as char),
    }
}

/// Head of a four-component operand with a write mask (destinations, declared registers).
fn head_mask(kind: u32, letters: &str) -> u32 {
    let mask = letters.bytes().fold(0, |m, c| m | (1 << component(c)));
    2 | (mask << 4) | (kind << 12)
}

/// Head of a four-component source: select-1 for one letter, a swizzle for four.
fn head_src(kind: u32, letters: &str) -> u32 {
    match letters.len() {
        1 => 2 | (2 << 2) | (component(letters.as_bytes()[0]) << 4) | (kind << 12),
        4 => {
            let swizzle = letters
                .bytes()
                .enumerate()
                .fold(0, |s, (i, c)| s | (component(c) << (2 * i)));
            2 | (1 << 2) | (swizzle << 4) | (kind << 12)
        }
        _ => panic!("sources take one or four letters: {letters}"),
    }
}

/// Head of an operand without components.
fn head_none(kind: u32) -> u32 {
    kind << 12
}

/// Head of a one-component operand.
fn head_one(kind: u32) -> u32 {
    1 | (kind << 12)
}

fn dst(kind: u32, n: u32, letters: &str) -> Vec<u32> {
    operand(head_mask(kind, letters), &[Imm(n)])
}

fn src(kind: u32, n: u32, letters: &str) -> Vec<u32> {
    operand(head_src(kind, letters), &[Imm(n)])
}

/// A register without components (`s0`, `u0` as an atomic destination, `m0`, `l0`, `g0`).
fn bare(kind: u32, n: u32) -> Vec<u32> {
    operand(head_none(kind), &[Imm(n)])
}

fn rd(n: u32, letters: &str) -> Vec<u32> {
    dst(R, n, letters)
}

fn rs(n: u32, letters: &str) -> Vec<u32> {
    src(R, n, letters)
}

/// `cb#[element]` as an SM4/5.0 source.
fn cb(n: u32, element: u32, letters: &str) -> Vec<u32> {
    operand(head_src(CB, letters), &[Imm(n), Imm(element)])
}

fn null() -> Vec<u32> {
    operand(head_none(NULL), &[])
}

/// `l(v)`: one component.
fn l1(v: u32) -> Vec<u32> {
    vec![head_one(IMM32), v]
}

/// `l(a, b, c, d)`: four components, mask 0.
fn l4(v: [u32; 4]) -> Vec<u32> {
    let mut words = vec![2 | (IMM32 << 12)];
    words.extend_from_slice(&v);
    words
}

/// `d(v)`: one component, two dwords (low first).
fn d1(v: f64) -> Vec<u32> {
    let bits = v.to_bits();
    vec![head_one(IMM64), bits as u32, (bits >> 32) as u32]
}

/// `d(a, b)`: four components, four dwords.
fn d2(a: f64, b: f64) -> Vec<u32> {
    let (a, b) = (a.to_bits(), b.to_bits());
    vec![
        2 | (IMM64 << 12),
        a as u32,
        (a >> 32) as u32,
        b as u32,
        (b >> 32) as u32,
    ]
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// Adds an extended operand token.
fn ext(mut words: Vec<u32>, token: u32) -> Vec<u32> {
    words[0] |= 1 << 31;
    words.insert(1, token);
    words
}

fn neg(words: Vec<u32>) -> Vec<u32> {
    ext(words, 1 | (1 << 6))
}

fn abs(words: Vec<u32>) -> Vec<u32> {
    ext(words, 1 | (2 << 6))
}

fn absneg(words: Vec<u32>) -> Vec<u32> {
    ext(words, 1 | (3 << 6))
}

fn min_precision(words: Vec<u32>, code: u32) -> Vec<u32> {
    ext(words, 1 | (code << 14))
}

/// Raw dwords inside an instruction (declaration payloads).
fn raw(words: &[u32]) -> Vec<u32> {
    words.to_vec()
}

// ---------------------------------------------------------------------------------------------
// Decoding helpers.
// ---------------------------------------------------------------------------------------------

/// Decodes a whole program and checks that the encoder gives back the same dwords.
fn decode_words(words: &[u32]) -> Program {
    let program =
        decode(&to_bytes(words)).unwrap_or_else(|e| panic!("decoding {words:08x?} failed: {e}"));
    let encoded = encode_words(&program)
        .unwrap_or_else(|e| panic!("re-encoding the program decoded from {words:08x?}: {e}"));
    assert_eq!(
        encoded, words,
        "re-encoding the program decoded from {words:08x?} gives other dwords (left: encoded, right: original)"
    );
    program
}

/// The program's text, without the version line.
fn body_lines(program: &Program) -> Vec<String> {
    program_text(program)
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// Decodes `body` under the model, checks the round trip and the printed lines.
fn check(stage: u32, major: u32, minor: u32, body: &[Vec<u32>], expected: &[&str]) -> Program {
    let words = program_words(stage, major, minor, &flat(body));
    let program = decode_words(&words);
    assert_eq!(
        program.instructions.len(),
        body.len(),
        "instructions decoded from {words:08x?}"
    );
    let lines = body_lines(&program);
    assert_eq!(
        lines, expected,
        "text of the program decoded from {words:08x?} (left: printed, right: expected)"
    );
    program
}

/// As [`check`], comparing the text without regard to case (SM5.1 register names).
fn check_ignoring_case(
    stage: u32,
    major: u32,
    minor: u32,
    body: &[Vec<u32>],
    expected: &[&str],
) -> Program {
    let words = program_words(stage, major, minor, &flat(body));
    let program = decode_words(&words);
    let lines: Vec<String> = body_lines(&program)
        .iter()
        .map(|l| l.to_lowercase())
        .collect();
    let expected: Vec<String> = expected.iter().map(|l| l.to_lowercase()).collect();
    assert_eq!(
        lines, expected,
        "text (case ignored) of the program decoded from {words:08x?} (left: printed, right: expected)"
    );
    program
}

/// Decodes a program that must fail; returns the error text.
fn decode_error(words: &[u32]) -> String {
    match decode(&to_bytes(words)) {
        Ok(program) => panic!(
            "decoding {words:08x?} succeeded with {} instruction(s) but an error was expected:\n{}",
            program.instructions.len(),
            program_text(&program)
        ),
        Err(e) => e.to_string(),
    }
}

/// Checks that decoding fails with an error that starts with `location` and mentions `what`.
fn expect_error(words: &[u32], location: &str, what: &str) {
    let message = decode_error(words);
    assert!(
        message.starts_with(&format!("{location}: ")),
        "decoding {words:08x?}: expected an error at `{location}`, got `{message}`"
    );
    assert!(
        message.contains(what),
        "decoding {words:08x?}: expected an error mentioning `{what}`, got `{message}`"
    );
}

fn operands(program: &Program, index: usize) -> &[Operand] {
    program.operands_of(&program.instructions[index])
}

fn imm_indices(operand: &Operand) -> Vec<u32> {
    operand
        .indices()
        .iter()
        .map(|i| {
            i.as_imm32()
                .unwrap_or_else(|| panic!("index {i:?} of {operand:?} is not an immediate"))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// ALU.
// ---------------------------------------------------------------------------------------------

#[test]
fn float_alu_with_modifiers_saturate_and_precise() {
    let program = check(
        PS,
        5,
        0,
        &[
            op(
                ADD,
                &[rd(0, "xyzw"), src(V, 0, "xyzw"), neg(cb(0, 0, "xyzw"))],
            ),
            inst(
                MUL,
                SAT,
                &[],
                &[rd(1, "xy"), abs(rs(0, "xyxx")), l4([f(2.0), f(0.5), 0, 0])],
            ),
            op(
                MAD,
                &[rd(2, "x"), absneg(rs(1, "x")), src(V, 1, "y"), l1(f(-1.5))],
            ),
            op(DP4, &[rd(3, "w"), rs(2, "xyzw"), cb(1, 3, "xyzw")]),
        ],
        &[
            "add r0.xyzw, v0.xyzw, -cb0[0].xyzw",
            "mul_sat r1.xy, |r0.xyxx|, l(2.000000, 0.500000, 0.000000, 0.000000)",
            "mad r2.x, -|r1.x|, v1.y, l(-1.500000)",
            "dp4 r3.w, r2.xyzw, cb1[3].xyzw",
        ],
    );
    let add = &program.instructions[0];
    assert_eq!(add.opcode, Opcode::Add, "opcode of add");
    assert_eq!((add.dst_count, add.operands.len), (1, 3), "add operands");
    let add_ops = operands(&program, 0);
    assert_eq!(
        add_ops[0].selection,
        Selection::Mask(0xf),
        "add destination"
    );
    assert_eq!(
        add_ops[1].selection,
        Selection::Swizzle([0, 1, 2, 3]),
        "add source"
    );
    assert_eq!(add_ops[2].modifier, Modifier::Neg, "add -cb0");
    assert_eq!(
        imm_indices(&add_ops[2]),
        [0, 0, 0],
        "cb0[0] normalised to [id, register, element]"
    );
    assert_eq!(add_ops[0].value_type, ValueType::F32, "add value type");
    assert!(program.instructions[1].saturate, "mul_sat saturate");
    assert!(!add.saturate, "add is not saturated");
    let mul_ops = operands(&program, 1);
    assert_eq!(mul_ops[1].modifier, Modifier::Abs, "|r0|");
    assert_eq!(mul_ops[2].components, ComponentCount::Four, "l(4 values)");
    assert_eq!(
        mul_ops[2].values,
        [f(2.0), f(0.5), 0, 0],
        "l(4 values) payload"
    );
    let mad_ops = operands(&program, 2);
    assert_eq!(mad_ops[1].modifier, Modifier::AbsNeg, "-|r1.x|");
    assert_eq!(mad_ops[1].selection, Selection::Select1(0), "r1.x source");
    assert_eq!(mad_ops[3].components, ComponentCount::One, "l(1 value)");
    assert_eq!(mad_ops[3].values[0], f(-1.5), "l(-1.5) payload");
    assert_eq!(imm_indices(&operands(&program, 3)[2]), [1, 1, 3], "cb1[3]");
}

#[test]
fn precise_mask_is_decoded_and_kept() {
    for mask in [0xfu32, 0x1, 0x6] {
        let words = program_words(
            PS,
            5,
            0,
            &inst(
                ADD,
                mask << 19,
                &[],
                &[rd(0, "xyzw"), rs(1, "xyzw"), rs(2, "xyzw")],
            ),
        );
        let program = decode_words(&words);
        let add = &program.instructions[0];
        assert_eq!(
            add.precise_mask as u32, mask,
            "precise mask of add decoded from {words:08x?}"
        );
        assert_eq!(
            add.unused_control, 0,
            "no unused control bits in {words:08x?}"
        );
        // Where `[precise]` goes in the line is not asserted here.
        let line = &body_lines(&program)[0];
        assert!(
            line.starts_with("add")
                && line.contains("precise")
                && line.ends_with(" r0.xyzw, r1.xyzw, r2.xyzw"),
            "text of a precise add ({mask:#x}): `{line}`"
        );
    }
}

#[test]
fn unused_control_bits_are_kept_and_shown() {
    let program = check(
        PS,
        5,
        0,
        &[
            inst(
                ADD,
                0x1800,
                &[],
                &[rd(0, "xyzw"), rs(1, "xyzw"), rs(2, "xyzw")],
            ),
            inst(SAMPLEINFO, 0x1000, &[], &[rd(3, "x"), src(T, 1, "xyzw")]),
            inst(DCL_TEMPS, 0x800, &[], &[raw(&[1])]),
            inst(SYNC, 0x7800, &[], &[]),
        ],
        &[
            "add r0.xyzw, r1.xyzw, r2.xyzw {unused_control=0x1800}",
            "sampleinfo r3.x, t1.xyzw {unused_control=0x1000}",
            "dcl_temps 1 {unused_control=0x800}",
            "sync_uglobal_ugroup_g_t",
        ],
    );
    let unused: Vec<u32> = program
        .instructions
        .iter()
        .map(|i| i.unused_control)
        .collect();
    assert_eq!(unused, [0x1800, 0x1000, 0x800, 0], "unused control bits");
}

#[test]
fn integer_alu_with_two_destinations_and_null() {
    let program = check(
        VS,
        5,
        0,
        &[
            op(IADD, &[rd(0, "x"), rs(1, "x"), l1(u32::MAX)]),
            op(
                IMUL,
                &[
                    null(),
                    rd(1, "xy"),
                    rs(2, "xyxx"),
                    l4([3, 0xffff_fff0, 0, 0]),
                ],
            ),
            op(IMUL, &[rd(2, "x"), rd(3, "x"), rs(0, "x"), rs(1, "y")]),
            op(UDIV, &[rd(4, "x"), null(), rs(0, "x"), l1(0x10000)]),
            op(ISHL, &[rd(5, "z"), rs(5, "z"), l1(2)]),
        ],
        &[
            "iadd r0.x, r1.x, l(-1)",
            "imul null, r1.xy, r2.xyxx, l(3, -16, 0, 0)",
            "imul r2.x, r3.x, r0.x, r1.y",
            "udiv r4.x, null, r0.x, l(0x00010000)",
            "ishl r5.z, r5.z, l(2)",
        ],
    );
    for (index, dsts) in [(1usize, 2u8), (2, 2), (3, 2), (0, 1), (4, 1)] {
        assert_eq!(
            program.instructions[index].dst_count, dsts,
            "destinations of instruction {index}"
        );
    }
    let imul = operands(&program, 1);
    assert_eq!(imul[0].kind, RegisterKind::Null, "imul's first destination");
    assert_eq!(imul[0].components, ComponentCount::Zero, "null components");
    assert_eq!(imul[0].index_count, 0, "null indices");
    assert_eq!(
        imul[1].value_type,
        ValueType::I32,
        "imul low destination type"
    );
    let udiv = operands(&program, 3);
    assert_eq!(udiv[1].kind, RegisterKind::Null, "udiv remainder is null");
    assert_eq!(udiv[3].value_type, ValueType::U32, "udiv divisor type");
}

#[test]
fn bit_operations() {
    let program = check(
        CS,
        5,
        0,
        &[
            op(BFI, &[rd(0, "x"), l1(10), l1(5), rs(1, "x"), rs(2, "x")]),
            op(
                UBFE,
                &[
                    rd(0, "xy"),
                    l4([8, 8, 0, 0]),
                    l4([0, 8, 0, 0]),
                    rs(1, "xxxx"),
                ],
            ),
            op(COUNTBITS, &[rd(1, "x"), rs(0, "x")]),
            op(FIRSTBIT_HI, &[rd(1, "y"), rs(0, "y")]),
            op(FIRSTBIT_LO, &[rd(1, "z"), rs(0, "z")]),
            op(FIRSTBIT_SHI, &[rd(1, "w"), rs(0, "w")]),
        ],
        &[
            "bfi r0.x, l(10), l(5), r1.x, r2.x",
            "ubfe r0.xy, l(8, 8, 0, 0), l(0, 8, 0, 0), r1.xxxx",
            "countbits r1.x, r0.x",
            "firstbit_hi r1.y, r0.y",
            "firstbit_lo r1.z, r0.z",
            "firstbit_shi r1.w, r0.w",
        ],
    );
    assert_eq!(operands(&program, 0).len(), 5, "bfi has 1 + 4 operands");
    assert_eq!(
        program.instructions[5].opcode,
        Opcode::FirstbitShi,
        "opcode 137"
    );
}

#[test]
fn conversions_and_comparisons() {
    check(
        PS,
        4,
        0,
        &[
            op(FTOI, &[rd(0, "xy"), rs(1, "xyxx")]),
            op(F32TOF16, &[rd(0, "z"), rs(1, "z")]),
            op(LT, &[rd(1, "x"), rs(0, "x"), l1(f(0.5))]),
            op(GE, &[rd(1, "y"), l1(f(1.0)), rs(0, "y")]),
            op(IEQ, &[rd(2, "xy"), rs(0, "xyxx"), l4([u32::MAX, 3, 0, 0])]),
            op(ULT, &[rd(2, "z"), rs(0, "z"), l1(0x8000_0000)]),
        ],
        &[
            "ftoi r0.xy, r1.xyxx",
            "f32tof16 r0.z, r1.z",
            "lt r1.x, r0.x, l(0.500000)",
            "ge r1.y, l(1.000000), r0.y",
            "ieq r2.xy, r0.xyxx, l(-1, 3, 0, 0)",
            "ult r2.z, r0.z, l(0x80000000)",
        ],
    );
}

#[test]
fn movc_and_swapc() {
    let program = check(
        PS,
        5,
        0,
        &[
            op(
                MOVC,
                &[
                    rd(0, "xyzw"),
                    rs(1, "xxxx"),
                    rs(2, "xyzw"),
                    l4([0, 1, 2, 3]),
                ],
            ),
            op(
                SWAPC,
                &[
                    rd(3, "xy"),
                    rd(4, "xy"),
                    rs(1, "xyxx"),
                    rs(2, "xyxx"),
                    rs(5, "xyxx"),
                ],
            ),
        ],
        &[
            "movc r0.xyzw, r1.xxxx, r2.xyzw, l(0,1,2,3)",
            "swapc r3.xy, r4.xy, r1.xyxx, r2.xyxx, r5.xyxx",
        ],
    );
    assert_eq!(program.instructions[1].dst_count, 2, "swapc destinations");
    assert_eq!(
        operands(&program, 1)[1].selection,
        Selection::Mask(0b11),
        "swapc second destination"
    );
}

#[test]
fn msad_abort_and_debug_break() {
    let program = check(
        PS,
        5,
        0,
        &[
            op(MSAD, &[rd(0, "x"), rs(1, "x"), rs(2, "x"), rs(3, "x")]),
            op(ABORT, &[]),
            op(DEBUG_BREAK, &[]),
        ],
        &["msad r0.x, r1.x, r2.x, r3.x", "abort", "debug_break"],
    );
    assert_eq!(program.instructions[1].opcode, Opcode::Abort, "opcode 207");
    assert_eq!(program.instructions[2].length, 1, "debug_break length");
}

#[test]
fn doubles_with_64_bit_immediates() {
    let program = check(
        CS,
        5,
        0,
        &[
            op(DADD, &[rd(0, "xy"), rs(1, "xyxy"), d2(1.0, 0.5)]),
            op(
                DMOVC,
                &[rd(2, "zw"), rs(3, "xxxx"), rs(0, "zwxy"), d2(0.0, -2.25)],
            ),
            op(DTOF, &[rd(4, "x"), rs(0, "xyxx")]),
            op(DMOV, &[rd(5, "zw"), d1(-2.5)]),
        ],
        &[
            "dadd r0.xy, r1.xyxy, d(1.000000l, 0.500000l)",
            "dmovc r2.zw, r3.xxxx, r0.zwxy, d(0.000000l, -2.250000l)",
            "dtof r4.x, r0.xyxx",
            "dmov r5.zw, d(-2.500000l)",
        ],
    );
    let dadd = operands(&program, 0);
    assert_eq!(dadd[2].kind, RegisterKind::Immediate64, "d(…) kind");
    assert_eq!(dadd[2].value64(0), 1.0f64.to_bits(), "first double");
    assert_eq!(dadd[2].value64(1), 0.5f64.to_bits(), "second double");
    assert_eq!(dadd[0].value_type, ValueType::F64, "dadd destination type");
    let dmov = operands(&program, 3);
    assert_eq!(dmov[1].components, ComponentCount::One, "d(one value)");
    assert_eq!(dmov[1].value64(0), (-2.5f64).to_bits(), "d(-2.5)");
}

#[test]
fn eval_instructions() {
    check(
        PS,
        5,
        0,
        &[
            op(EVAL_CENTROID, &[rd(0, "xy"), src(V, 1, "xyxx")]),
            op(EVAL_SAMPLE_INDEX, &[rd(0, "zw"), src(V, 1, "xxxy"), l1(3)]),
            op(
                EVAL_SNAPPED,
                &[rd(1, "xyzw"), src(V, 2, "xyzw"), rs(2, "xyxx")],
            ),
        ],
        &[
            "eval_centroid r0.xy, v1.xyxx",
            "eval_sample_index r0.zw, v1.xxxy, l(3)",
            "eval_snapped r1.xyzw, v2.xyzw, r2.xyxx",
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Control flow.
// ---------------------------------------------------------------------------------------------

#[test]
fn control_flow() {
    let program = check(
        PS,
        5,
        0,
        &[
            inst(IF, NZ, &[], &[rs(0, "x")]),
            op(MOV, &[rd(1, "x"), l1(1)]),
            op(ELSE, &[]),
            op(MOV, &[rd(1, "x"), l1(2)]),
            op(ENDIF, &[]),
            inst(IF, 0, &[], &[rs(0, "y")]),
            op(ENDIF, &[]),
            op(LOOP, &[]),
            inst(BREAKC, NZ, &[], &[rs(0, "x")]),
            inst(CONTINUEC, 0, &[], &[rs(0, "y")]),
            op(BREAK, &[]),
            op(ENDLOOP, &[]),
            op(SWITCH, &[rs(0, "x")]),
            op(CASE, &[l1(1)]),
            op(BREAK, &[]),
            op(DEFAULT, &[]),
            op(BREAK, &[]),
            op(ENDSWITCH, &[]),
            inst(RETC, NZ, &[], &[rs(0, "z")]),
            inst(DISCARD, 0, &[], &[rs(0, "w")]),
            op(CALL, &[bare(LABEL_REG, 0)]),
            inst(CALLC, 0, &[], &[rs(0, "x"), bare(LABEL_REG, 1)]),
            op(RET, &[]),
            op(LABEL, &[bare(LABEL_REG, 0)]),
            op(RET, &[]),
            op(LABEL, &[bare(LABEL_REG, 1)]),
            op(RET, &[]),
        ],
        &[
            "if_nz r0.x",
            "  mov r1.x, l(1)",
            "else",
            "  mov r1.x, l(2)",
            "endif",
            "if_z r0.y",
            "endif",
            "loop",
            "  breakc_nz r0.x",
            "  continuec_z r0.y",
            "  break",
            "endloop",
            "switch r0.x",
            "  case l(1)",
            "  break",
            "  default",
            "  break",
            "endswitch",
            "retc_nz r0.z",
            "discard_z r0.w",
            "call l0",
            "callc_z r0.x, l1",
            "ret",
            "label l0",
            "ret",
            "label l1",
            "ret",
        ],
    );
    let tests: Vec<(usize, Option<Test>)> = program
        .instructions
        .iter()
        .enumerate()
        .map(|(i, ins)| (i, ins.test))
        .filter(|(_, t)| t.is_some())
        .collect();
    assert_eq!(
        tests,
        [
            (0, Some(Test::NonZero)),
            (5, Some(Test::Zero)),
            (8, Some(Test::NonZero)),
            (9, Some(Test::Zero)),
            (18, Some(Test::NonZero)),
            (19, Some(Test::Zero)),
            (21, Some(Test::Zero)),
        ],
        "the instructions with a zero/non-zero test"
    );
    let label = &operands(&program, 20)[0];
    assert_eq!(
        (label.kind, label.components, imm_indices(label)),
        (RegisterKind::Label, ComponentCount::Zero, vec![0]),
        "call's label operand"
    );
    crate::ir::validate_control_flow(&program)
        .unwrap_or_else(|e| panic!("the decoded control flow is balanced: {e}"));
}

// ---------------------------------------------------------------------------------------------
// Resources: sample, load, info.
// ---------------------------------------------------------------------------------------------

#[test]
fn sample_family_with_extended_tokens() {
    let program = check(
        PS,
        5,
        0,
        &[
            inst(
                SAMPLE,
                0,
                &[ext_dim(3, 0), ext_ret(FLOAT4)],
                &[rd(0, "xyzw"), src(V, 1, "xyxx"), src(T, 0, "xyzw"), bare(S, 0)],
            ),
            inst(
                SAMPLE_C_LZ,
                0,
                &[ext_offsets(-8, 7, -1)],
                &[
                    rd(1, "x"),
                    src(V, 1, "xyzx"),
                    src(T, 1, "xxxx"),
                    bare(S, 1),
                    l1(f(0.5)),
                ],
            ),
            op(
                SAMPLE_D,
                &[
                    rd(2, "xyzw"),
                    src(V, 1, "xyxx"),
                    src(T, 0, "xyzw"),
                    bare(S, 0),
                    src(V, 2, "xyxx"),
                    src(V, 3, "xyxx"),
                ],
            ),
            inst(
                GATHER4_PO,
                0,
                &[ext_dim(3, 0), ext_ret(FLOAT4)],
                &[
                    rd(3, "xyzw"),
                    src(V, 1, "xyxx"),
                    rs(4, "xyxx"),
                    src(T, 0, "xyzw"),
                    src(S, 0, "x"),
                ],
            ),
        ],
        &[
            "sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0",
            "sample_c_lz_aoffimmi(-8,7,-1) r1.x, v1.xyzx, t1.xxxx, s1, l(0.500000)",
            "sample_d r2.xyzw, v1.xyxx, t0.xyzw, s0, v2.xyxx, v3.xyxx",
            "gather4_po_indexable(texture2d)(float,float,float,float) r3.xyzw, v1.xyxx, r4.xyxx, t0.xyzw, s0.x",
        ],
    );
    let sample = &program.instructions[0];
    assert_eq!(
        sample.extended,
        ExtendedOpcode {
            offsets: None,
            resource: Some((ResourceDimension::Texture2D, 0)),
            return_type: Some([ReturnType::Float; 4]),
        },
        "sample's extended tokens"
    );
    let sample_ops = operands(&program, 0);
    assert_eq!(
        (sample_ops[2].kind, imm_indices(&sample_ops[2])),
        (RegisterKind::Resource, vec![0, 0]),
        "t0 normalised to [id, register]"
    );
    assert_eq!(
        (
            sample_ops[3].kind,
            sample_ops[3].components,
            imm_indices(&sample_ops[3])
        ),
        (RegisterKind::Sampler, ComponentCount::Zero, vec![0, 0]),
        "s0 normalised to [id, register]"
    );
    assert_eq!(
        program.instructions[1].extended.offsets,
        Some([-8, 7, -1]),
        "sample_c_lz offsets"
    );
    assert_eq!(
        operands(&program, 3)[4].selection,
        Selection::Select1(0),
        "gather4_po sampler s0.x"
    );
}

#[test]
fn every_immediate_offset_with_indexable_tokens() {
    for u in -8i32..=7 {
        let (v, w) = (-1 - u, u);
        let words = program_words(
            PS,
            5,
            0,
            &inst(
                SAMPLE_C_LZ,
                0,
                &[ext_offsets(u, v, w), ext_dim(3, 0), ext_ret(FLOAT4)],
                &[
                    rd(1, "x"),
                    src(V, 1, "xyzx"),
                    src(T, 1, "xxxx"),
                    bare(S, 1),
                    l1(f(0.5)),
                ],
            ),
        );
        let program = decode_words(&words);
        let extended = program.instructions[0].extended;
        assert_eq!(
            extended.offsets,
            Some([u as i8, v as i8, w as i8]),
            "offsets decoded from {words:08x?}"
        );
        assert_eq!(
            extended.resource,
            Some((ResourceDimension::Texture2D, 0)),
            "dimension decoded from {words:08x?}"
        );
        assert_eq!(
            extended.return_type,
            Some([ReturnType::Float; 4]),
            "return types decoded from {words:08x?}"
        );
        // fxc's order: both suffix names, then their groups.
        let line = &body_lines(&program)[0];
        let expected = format!(
            "sample_c_lz_aoffimmi_indexable({u},{v},{w})(texture2d)(float,float,float,float) \
             r1.x, v1.xyzx, t1.xxxx, s1, l(0.500000)"
        );
        assert_eq!(line, &expected, "text of {words:08x?}");
    }
}

#[test]
fn loads_and_resource_info() {
    let mut body = vec![
        inst(
            LD,
            0,
            &[ext_dim(3, 0), ext_ret(FLOAT4)],
            &[rd(0, "xyzw"), rs(1, "xyzw"), src(T, 0, "xyzw")],
        ),
        inst(
            LD2DMS,
            0,
            &[ext_dim(4, 0), ext_ret(FLOAT4)],
            &[rd(0, "xyzw"), rs(1, "xyww"), src(T, 1, "xyzw"), l1(3)],
        ),
    ];
    for return_type in 0..3 {
        body.push(inst(
            RESINFO,
            return_type << 11,
            &[],
            &[rd(2, "xyzw"), l1(0), src(T, 0, "xyzw")],
        ));
    }
    body.push(inst(
        RESINFO,
        2 << 11,
        &[ext_dim(3, 0), ext_ret(FLOAT4)],
        &[rd(2, "xy"), l1(0), src(T, 0, "xyzw")],
    ));
    body.push(op(SAMPLEINFO, &[rd(3, "x"), src(T, 1, "xyzw")]));
    body.push(inst(
        SAMPLEINFO,
        1 << 11,
        &[],
        &[rd(3, "x"), src(T, 1, "xyzw")],
    ));
    // fxc pads samplepos with one zero dword.
    let mut samplepos = op(SAMPLEPOS, &[rd(4, "xy"), src(T, 1, "xyxx"), l1(1)]);
    samplepos.push(0);
    samplepos[0] += 1 << 24;
    body.push(samplepos);
    body.push(op(BUFINFO, &[rd(5, "x"), src(T, 2, "xyzw")]));
    let program = check(
        PS,
        5,
        0,
        &body,
        &[
            "ld_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.xyzw, t0.xyzw",
            "ldms_indexable(texture2dms)(float,float,float,float) r0.xyzw, r1.xyww, t1.xyzw, l(3)",
            "resinfo r2.xyzw, l(0), t0.xyzw",
            "resinfo_rcpFloat r2.xyzw, l(0), t0.xyzw",
            "resinfo_uint r2.xyzw, l(0), t0.xyzw",
            "resinfo_indexable(texture2d)(float,float,float,float)_uint r2.xy, l(0), t0.xyzw",
            "sampleinfo r3.x, t1.xyzw",
            "sampleinfo_uint r3.x, t1.xyzw",
            "samplepos r4.xy, t1.xyxx, l(1)",
            "bufinfo r5.x, t2.xyzw",
        ],
    );
    let returns: Vec<Option<InfoReturnType>> = program.instructions[2..8]
        .iter()
        .map(|i| i.info_return_type)
        .collect();
    assert_eq!(
        returns,
        [
            Some(InfoReturnType::Float),
            Some(InfoReturnType::RcpFloat),
            Some(InfoReturnType::Uint),
            Some(InfoReturnType::Uint),
            Some(InfoReturnType::Float),
            Some(InfoReturnType::Uint),
        ],
        "return types of resinfo ×4 and sampleinfo ×2"
    );
    let samplepos = &program.instructions[8];
    assert_eq!(samplepos.length, 8, "samplepos keeps its padding dword");
    assert_eq!(
        program.instructions[1].extended.resource,
        Some((ResourceDimension::Texture2DMS, 0)),
        "ld2dms dimension"
    );
}

#[test]
fn unknown_resinfo_return_type_is_an_error() {
    let words = program_words(
        PS,
        5,
        0,
        &inst(
            RESINFO,
            3 << 11,
            &[],
            &[rd(2, "xyzw"), l1(0), src(T, 0, "xyzw")],
        ),
    );
    expect_error(
        &words,
        "instruction 0 (dword 0x2)",
        "unknown resinfo return type 3",
    );
}

#[test]
fn uav_loads_and_stores() {
    let program = check(
        CS,
        5,
        0,
        &[
            inst(
                LD_UAV_TYPED,
                0,
                &[ext_dim(3, 0), ext_ret(FLOAT4)],
                &[rd(0, "xyzw"), rs(1, "xyyy"), src(U, 0, "xyzw")],
            ),
            op(
                STORE_UAV_TYPED,
                &[dst(U, 0, "xyzw"), rs(1, "xyyy"), rs(0, "xyzw")],
            ),
            inst(
                LD_RAW,
                0,
                &[ext_dim(11, 0), ext_ret(MIXED4)],
                &[rd(0, "xy"), rs(1, "x"), src(T, 1, "xyxx")],
            ),
            op(STORE_RAW, &[dst(U, 1, "xy"), rs(1, "x"), rs(0, "xyxx")]),
            inst(
                LD_STRUCTURED,
                0,
                &[ext_dim(12, 16), ext_ret(MIXED4)],
                &[rd(0, "xyzw"), rs(1, "x"), l1(4), src(T, 2, "xyzw")],
            ),
            op(
                STORE_STRUCTURED,
                &[dst(U, 2, "xyzw"), rs(1, "x"), l1(0), rs(0, "xyzw")],
            ),
            op(LD_STRUCTURED, &[rd(0, "x"), rs(1, "x"), l1(0), src(G, 0, "xxxx")]),
            op(STORE_STRUCTURED, &[dst(G, 0, "x"), rs(1, "x"), l1(0), rs(0, "x")]),
        ],
        &[
            "ld_uav_typed_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.xyyy, u0.xyzw",
            "store_uav_typed u0.xyzw, r1.xyyy, r0.xyzw",
            "ld_raw_indexable(raw_buffer)(mixed,mixed,mixed,mixed) r0.xy, r1.x, t1.xyxx",
            "store_raw u1.xy, r1.x, r0.xyxx",
            "ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.xyzw, r1.x, l(4), t2.xyzw",
            "store_structured u2.xyzw, r1.x, l(0), r0.xyzw",
            "ld_structured r0.x, r1.x, l(0), g0.xxxx",
            "store_structured g0.x, r1.x, l(0), r0.x",
        ],
    );
    assert_eq!(
        program.instructions[4].extended.resource,
        Some((ResourceDimension::StructuredBuffer, 16)),
        "ld_structured dimension and stride"
    );
    let store = operands(&program, 1);
    assert_eq!(
        (store[0].kind, imm_indices(&store[0])),
        (RegisterKind::UnorderedAccessView, vec![0, 0]),
        "store_uav_typed destination u0"
    );
    let tgsm = operands(&program, 7);
    assert_eq!(
        (tgsm[0].kind, imm_indices(&tgsm[0])),
        (RegisterKind::ThreadGroupSharedMemory, vec![0]),
        "g0 keeps one index"
    );
}

#[test]
fn every_atomic() {
    let atomics = [
        (169, "atomic_and"),
        (170, "atomic_or"),
        (171, "atomic_xor"),
        (172, "atomic_cmp_store"),
        (173, "atomic_iadd"),
        (174, "atomic_imax"),
        (175, "atomic_imin"),
        (176, "atomic_umax"),
        (177, "atomic_umin"),
    ];
    for (code, name) in atomics {
        let mut ops = vec![bare(U, 1), rs(0, "x"), rs(1, "x")];
        let mut expected = format!("{name} u1, r0.x, r1.x");
        if code == 172 {
            ops.push(l1(7));
            expected.push_str(", l(7)");
        }
        let program = check(CS, 5, 0, &[op(code, &ops)], &[expected.as_str()]);
        let ins = &program.instructions[0];
        assert_eq!(ins.opcode.name(), name, "opcode {code}");
        assert_eq!(ins.dst_count, 1, "{name} destinations");
        let target = &operands(&program, 0)[0];
        assert_eq!(
            (target.kind, target.components, imm_indices(target)),
            (
                RegisterKind::UnorderedAccessView,
                ComponentCount::Zero,
                vec![1, 1]
            ),
            "{name} target"
        );
    }
    // On group-shared memory.
    check(
        CS,
        5,
        0,
        &[op(170, &[bare(G, 0), rs(0, "x"), l1(1)])],
        &["atomic_or g0, r0.x, l(1)"],
    );
}

#[test]
fn every_immediate_atomic() {
    let atomics = [
        (180, "imm_atomic_iadd"),
        (181, "imm_atomic_and"),
        (182, "imm_atomic_or"),
        (183, "imm_atomic_xor"),
        (184, "imm_atomic_exch"),
        (185, "imm_atomic_cmp_exch"),
        (186, "imm_atomic_imax"),
        (187, "imm_atomic_imin"),
        (188, "imm_atomic_umax"),
        (189, "imm_atomic_umin"),
    ];
    for (code, name) in atomics {
        let mut ops = vec![rd(2, "x"), bare(U, 0), rs(0, "x"), rs(1, "x")];
        let mut expected = format!("{name} r2.x, u0, r0.x, r1.x");
        if code == IMM_ATOMIC_CMP_EXCH {
            ops.push(rs(3, "x"));
            expected.push_str(", r3.x");
        }
        let program = check(CS, 5, 0, &[op(code, &ops)], &[expected.as_str()]);
        let ins = &program.instructions[0];
        assert_eq!(ins.opcode.name(), name, "opcode {code}");
        assert_eq!(ins.dst_count, 2, "{name} destinations");
        assert_eq!(
            ins.operands.len,
            if code == IMM_ATOMIC_CMP_EXCH { 5 } else { 4 },
            "{name} operand count"
        );
    }
    let program = check(
        CS,
        5,
        0,
        &[
            op(IMM_ATOMIC_ALLOC, &[rd(0, "x"), bare(U, 1)]),
            op(IMM_ATOMIC_CONSUME, &[rd(0, "y"), bare(U, 2)]),
        ],
        &["imm_atomic_alloc r0.x, u1", "imm_atomic_consume r0.y, u2"],
    );
    assert_eq!(
        imm_indices(&operands(&program, 1)[1]),
        [2, 2],
        "imm_atomic_consume's u2"
    );
}

#[test]
fn all_sync_flag_combinations() {
    for flags in 0u32..16 {
        let words = program_words(CS, 5, 0, &inst(SYNC, flags << 11, &[], &[]));
        let program = decode_words(&words);
        let sync = program.instructions[0].sync;
        assert_eq!(
            sync,
            SyncFlags {
                threads_in_group: flags & 1 != 0,
                group_shared_memory: flags & 2 != 0,
                uav_group: flags & 4 != 0,
                uav_global: flags & 8 != 0,
            },
            "sync flags decoded from {words:08x?}"
        );
        assert!(
            !program.instructions[0].saturate,
            "bit 13 of sync is _ugroup, not _sat ({words:08x?})"
        );
        let mut expected = "sync".to_string();
        for (bit, suffix) in [(8, "_uglobal"), (4, "_ugroup"), (2, "_g"), (1, "_t")] {
            if flags & bit != 0 {
                expected.push_str(suffix);
            }
        }
        assert_eq!(
            body_lines(&program),
            [expected.clone()],
            "text of sync decoded from {words:08x?}"
        );
    }
}

#[test]
fn sparse_feedback_forms() {
    let program = check(
        PS,
        5,
        0,
        &[
            op(
                LD_S,
                &[rd(0, "xyzw"), rd(1, "x"), rs(2, "xyzw"), src(T, 0, "xyzw")],
            ),
            op(
                SAMPLE_L_S,
                &[
                    rd(3, "xyzw"),
                    rd(1, "y"),
                    src(V, 0, "xyxx"),
                    src(T, 0, "xyzw"),
                    bare(S, 0),
                    l1(0),
                ],
            ),
            op(CHECK_ACCESS_FULLY_MAPPED, &[rd(1, "z"), rs(1, "x")]),
        ],
        &[
            "ld_s r0.xyzw, r1.x, r2.xyzw, t0.xyzw",
            "sample_l_s r3.xyzw, r1.y, v0.xyxx, t0.xyzw, s0, l(0.000000)",
            "check_access_fully_mapped r1.z, r1.x",
        ],
    );
    for index in 0..2 {
        let ins = &program.instructions[index];
        assert_eq!(ins.dst_count, 2, "{} destinations", ins.opcode.name());
        assert_eq!(
            operands(&program, index)[1].value_type,
            ValueType::U32,
            "{}'s status destination type",
            ins.opcode.name()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Stages: geometry, hull, class linkage.
// ---------------------------------------------------------------------------------------------

#[test]
fn geometry_shader_declarations_and_streams() {
    let program = check(
        GS,
        5,
        0,
        &[
            inst(DCL_GLOBAL_FLAGS, 1 << 11, &[], &[]),
            op(
                DCL_INPUT,
                &[operand(head_mask(V, "xyzw"), &[Imm(3), Imm(0)])],
            ),
            op(
                DCL_INPUT_SIV,
                &[operand(head_mask(V, "xyzw"), &[Imm(3), Imm(1)]), raw(&[1])],
            ),
            inst(DCL_INPUT_PRIMITIVE, 3 << 11, &[], &[]),
            op(DCL_STREAM, &[bare(M, 0)]),
            inst(DCL_OUTPUT_TOPOLOGY, 5 << 11, &[], &[]),
            op(DCL_OUTPUT_SIV, &[dst(O, 0, "xyzw"), raw(&[1])]),
            op(DCL_MAX_OUTPUT_VERTEX_COUNT, &[raw(&[3])]),
            op(DCL_GS_INSTANCE_COUNT, &[raw(&[2])]),
            op(
                MOV,
                &[
                    dst(O, 0, "xyzw"),
                    operand(head_src(V, "xyzw"), &[Imm(0), Imm(0)]),
                ],
            ),
            op(EMIT_STREAM, &[bare(M, 0)]),
            op(CUT_STREAM, &[bare(M, 0)]),
            op(EMITTHENCUT_STREAM, &[bare(M, 1)]),
            op(RET, &[]),
        ],
        &[
            "dcl_globalFlags refactoringAllowed",
            "dcl_input v[3][0].xyzw",
            "dcl_input_siv v[3][1].xyzw, position",
            "dcl_inputprimitive triangle",
            "dcl_stream m0",
            "dcl_outputtopology trianglestrip",
            "dcl_output_siv o0.xyzw, position",
            "dcl_maxout 3",
            "dcl_gsinstances 2",
            "mov o0.xyzw, v[0][0].xyzw",
            "emit_stream m0",
            "cut_stream m0",
            "emit_then_cut_stream m1",
            "ret",
        ],
    );
    let decls: Vec<Option<Declaration>> = program
        .instructions
        .iter()
        .map(|i| i.declaration.clone())
        .collect();
    assert!(
        matches!(
            decls[2],
            Some(Declaration::Signature {
                system_value: Some(SystemValue::Position),
                interpolation: None,
                ..
            })
        ),
        "dcl_input_siv: {:?}",
        decls[2]
    );
    assert_eq!(
        decls[3],
        Some(Declaration::GsInputPrimitive(InputPrimitive(3))),
        "dcl_inputprimitive"
    );
    assert_eq!(
        decls[5],
        Some(Declaration::GsOutputTopology(
            PrimitiveTopology::TriangleStrip
        )),
        "dcl_outputtopology"
    );
    assert_eq!(
        decls[7],
        Some(Declaration::MaxOutputVertexCount(3)),
        "dcl_maxout"
    );
    assert_eq!(
        decls[8],
        Some(Declaration::GsInstanceCount(2)),
        "dcl_gsinstances"
    );
    let stream = &operands(&program, 12)[0];
    assert_eq!(
        (stream.kind, imm_indices(stream)),
        (RegisterKind::Stream, vec![1]),
        "emit_then_cut_stream m1"
    );
}

#[test]
fn hull_shader_phases_and_tessellation_declarations() {
    let program = check(
        HS,
        5,
        0,
        &[
            op(HS_DECLS, &[]),
            inst(DCL_INPUT_CONTROL_POINT_COUNT, 3 << 11, &[], &[]),
            inst(DCL_OUTPUT_CONTROL_POINT_COUNT, 4 << 11, &[], &[]),
            inst(DCL_TESS_DOMAIN, 2 << 11, &[], &[]),
            inst(DCL_TESS_PARTITIONING, 3 << 11, &[], &[]),
            inst(DCL_TESS_OUTPUT_PRIMITIVE, 3 << 11, &[], &[]),
            op(DCL_HS_MAX_TESSFACTOR, &[raw(&[f(64.0)])]),
            op(HS_CONTROL_POINT_PHASE, &[]),
            op(
                MOV,
                &[
                    dst(O, 0, "xyzw"),
                    operand(head_src(VICP, "xyzw"), &[Imm(0), Imm(1)]),
                ],
            ),
            op(RET, &[]),
            op(HS_FORK_PHASE, &[]),
            op(DCL_HS_FORK_PHASE_INSTANCE_COUNT, &[raw(&[3])]),
            op(DCL_INPUT, &[operand(head_none(FORK_INSTANCE_ID), &[])]),
            op(DCL_OUTPUT_SIV, &[dst(O, 0, "x"), raw(&[17])]),
            op(DCL_TEMPS, &[raw(&[1])]),
            op(MOV, &[rd(0, "x"), operand(head_one(FORK_INSTANCE_ID), &[])]),
            op(
                MOV,
                &[
                    operand(head_mask(O, "x"), &[ImmRel(0, rs(0, "x"))]),
                    l1(f(4.0)),
                ],
            ),
            op(RET, &[]),
            op(HS_JOIN_PHASE, &[]),
            op(DCL_HS_JOIN_PHASE_INSTANCE_COUNT, &[raw(&[1])]),
            op(RET, &[]),
        ],
        &[
            "hs_decls",
            "dcl_input_control_point_count 3",
            "dcl_output_control_point_count 4",
            "dcl_tessellator_domain domain_tri",
            "dcl_tessellator_partitioning partitioning_fractional_odd",
            "dcl_tessellator_output_primitive output_triangle_cw",
            "dcl_hs_max_tessfactor l(64.000000)",
            "hs_control_point_phase",
            "mov o0.xyzw, vicp[0][1].xyzw",
            "ret",
            "hs_fork_phase",
            "dcl_hs_fork_phase_instance_count 3",
            "dcl_input vForkInstanceID",
            "dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor",
            "dcl_temps 1",
            "mov r0.x, vForkInstanceID",
            "mov o[r0.x + 0].x, l(4.000000)",
            "ret",
            "hs_join_phase",
            "dcl_hs_join_phase_instance_count 1",
            "ret",
        ],
    );
    let decl = |i: usize| program.instructions[i].declaration.clone();
    assert_eq!(
        decl(1),
        Some(Declaration::InputControlPointCount(3)),
        "input control points"
    );
    assert_eq!(
        decl(2),
        Some(Declaration::OutputControlPointCount(4)),
        "output control points"
    );
    assert_eq!(
        decl(3),
        Some(Declaration::TessDomain(TessDomain::Triangle)),
        "domain"
    );
    assert_eq!(
        decl(4),
        Some(Declaration::TessPartitioning(
            TessPartitioning::FractionalOdd
        )),
        "partitioning"
    );
    assert_eq!(
        decl(5),
        Some(Declaration::TessOutputPrimitive(
            TessOutputPrimitive::TriangleCw
        )),
        "output primitive"
    );
    assert_eq!(
        decl(6),
        Some(Declaration::HsMaxTessFactor(f(64.0))),
        "max tess factor"
    );
    assert_eq!(
        decl(11),
        Some(Declaration::HsForkPhaseInstanceCount(3)),
        "fork instances"
    );
    let fork_id = &operands(&program, 15)[1];
    assert_eq!(
        (fork_id.kind, fork_id.components),
        (RegisterKind::InputForkInstanceId, ComponentCount::One),
        "vForkInstanceID source"
    );
    let output = &operands(&program, 16)[0];
    match output.indices[0] {
        Index::Imm32PlusRelative(0, id) => {
            let inner = program.operand(id);
            assert_eq!(
                (inner.kind, inner.selection),
                (RegisterKind::Temp, Selection::Select1(0)),
                "o[r0.x + 0]'s relative address"
            );
        }
        other => panic!("o[r0.x + 0] decoded with index {other:?}"),
    }
}

#[test]
fn hull_and_domain_programs_need_shader_model_5() {
    for stage in [3u32, 4] {
        let words = program_words(stage, 4, 1, &op(RET, &[]));
        expect_error(&words, "program dword 0x0", "need shader model 5");
    }
}

#[test]
fn class_linkage() {
    let program = check(
        PS,
        5,
        0,
        &[
            op(DCL_FUNCTION_BODY, &[raw(&[0])]),
            op(DCL_FUNCTION_BODY, &[raw(&[1])]),
            op(DCL_FUNCTION_TABLE, &[raw(&[0, 1, 0])]),
            op(DCL_FUNCTION_TABLE, &[raw(&[1, 1, 1])]),
            inst(DCL_INTERFACE, 0, &[], &[raw(&[0, 1, (1 << 16) | 2, 0, 1])]),
            op(RET, &[]),
            op(LABEL, &[bare(FB, 0)]),
            op(RET, &[]),
            op(LABEL, &[bare(FB, 1)]),
            op(RET, &[]),
        ],
        &[
            "dcl_function_body fb0",
            "dcl_function_body fb1",
            "dcl_function_table ft0 = {fb0}",
            "dcl_function_table ft1 = {fb1}",
            "dcl_interface fp0[1][1] = {ft0, ft1}",
            "ret",
            "label fb0",
            "ret",
            "label fb1",
            "ret",
        ],
    );
    match &program.instructions[4].declaration {
        Some(Declaration::Interface {
            id,
            dynamic,
            table_length,
            array_length,
            tables,
        }) => {
            assert_eq!(
                (*id, *dynamic, *table_length, *array_length),
                (0, false, 1, 1),
                "dcl_interface fields"
            );
            assert_eq!(program.data_slice(*tables), [0, 1], "dcl_interface tables");
        }
        other => panic!("dcl_interface decoded as {other:?}"),
    }
    match &program.instructions[2].declaration {
        Some(Declaration::FunctionTable { id, bodies }) => {
            assert_eq!(
                (*id, program.data_slice(*bodies)),
                (0, &[0u32][..]),
                "dcl_function_table ft0"
            );
        }
        other => panic!("dcl_function_table decoded as {other:?}"),
    }

    // fcall: the function index dword, then the interface operand. (Its text is not asserted.)
    let words = program_words(
        PS,
        5,
        0,
        &flat(&[
            op(
                FCALL,
                &[raw(&[2]), operand(head_none(FP), &[Imm(0), Imm(0)])],
            ),
            op(RET, &[]),
        ]),
    );
    let program = decode_words(&words);
    let fcall = &program.instructions[0];
    assert_eq!(fcall.opcode, Opcode::InterfaceCall, "opcode 120");
    assert_eq!(fcall.call_index, Some(2), "fcall's function index");
    let fp = &operands(&program, 0)[0];
    assert_eq!(
        (fp.kind, imm_indices(fp)),
        (RegisterKind::Interface, vec![0, 0]),
        "fcall's interface operand"
    );

    // The dynamically indexed interface, and the long form (bit 31: length in the next dword).
    let short = program_words(
        PS,
        5,
        0,
        &inst(
            DCL_INTERFACE,
            1 << 11,
            &[],
            &[raw(&[3, 2, (4 << 16) | 1, 5])],
        ),
    );
    let short_program = decode_words(&short);
    assert_eq!(
        body_lines(&short_program),
        ["dcl_interface_dynamicindexed fp3[4][2] = {ft5}"],
        "text of {short:08x?}"
    );
    let long = program_words(
        PS,
        5,
        0,
        &[
            DCL_INTERFACE | (1 << 11) | (1 << 31),
            6,
            3,
            2,
            (4 << 16) | 1,
            5,
        ],
    );
    let long_program = decode(&to_bytes(&long))
        .unwrap_or_else(|e| panic!("decoding the long form {long:08x?}: {e}"));
    assert_eq!(
        long_program.instructions[0].declaration, short_program.instructions[0].declaration,
        "the long form {long:08x?} declares what the short form {short:08x?} does"
    );
    assert_eq!(long_program.instructions[0].length, 6, "long form length");
}

// ---------------------------------------------------------------------------------------------
// Declarations.
// ---------------------------------------------------------------------------------------------

#[test]
fn global_flags() {
    check(
        CS,
        5,
        0,
        &[
            inst(DCL_GLOBAL_FLAGS, (1 << 11) | (1 << 12) | (1 << 14), &[], &[]),
            inst(DCL_GLOBAL_FLAGS, 0, &[], &[]),
            inst(DCL_GLOBAL_FLAGS, (1 << 19) | (1 << 21), &[], &[]),
        ],
        &[
            "dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enableRawAndStructuredBuffers",
            "dcl_globalFlags 0x00000000",
            "dcl_globalFlags allResourcesBound | 0x00200000",
        ],
    );
}

#[test]
fn resource_declarations_sm50() {
    let program = check(
        PS,
        5,
        0,
        &[
            inst(DCL_RESOURCE, 3 << 11, &[], &[bare(T, 0), raw(&[FLOAT4])]),
            inst(
                DCL_RESOURCE,
                (4 << 11) | (4 << 16),
                &[],
                &[bare(T, 1), raw(&[FLOAT4])],
            ),
            inst(DCL_RESOURCE, 1 << 11, &[], &[bare(T, 2), raw(&[UINT4])]),
            inst(DCL_RESOURCE, 5 << 11, &[], &[bare(T, 3), raw(&[0x5321])]),
            op(DCL_RESOURCE_RAW, &[bare(T, 4)]),
            op(DCL_RESOURCE_STRUCTURED, &[bare(T, 5), raw(&[16])]),
        ],
        &[
            "dcl_resource_texture2d (float,float,float,float) t0",
            "dcl_resource_texture2dms(4) (float,float,float,float) t1",
            "dcl_resource_buffer (uint,uint,uint,uint) t2",
            "dcl_resource_texture3d (unorm,snorm,sint,float) t3",
            "dcl_resource_raw t4",
            "dcl_resource_structured t5, 16",
        ],
    );
    match &program.instructions[1].declaration {
        Some(Declaration::Resource {
            operand,
            range,
            dimension,
            sample_count,
            return_type,
        }) => {
            assert_eq!(
                *range,
                ResourceRange {
                    id: 1,
                    lower: 1,
                    upper: Some(1),
                    space: 0
                },
                "t1's range"
            );
            assert_eq!(
                (*dimension, *sample_count, *return_type),
                (ResourceDimension::Texture2DMS, 4, [ReturnType::Float; 4]),
                "texture2dms(4)"
            );
            assert_eq!(
                imm_indices(program.operand(*operand)),
                [1, 1, 1],
                "declared t1 held as [id, lower, upper]"
            );
        }
        other => panic!("dcl_resource_texture2dms decoded as {other:?}"),
    }
    match &program.instructions[3].declaration {
        Some(Declaration::Resource { return_type, .. }) => assert_eq!(
            *return_type,
            [
                ReturnType::Unorm,
                ReturnType::Snorm,
                ReturnType::Sint,
                ReturnType::Float
            ],
            "return types 0x5321"
        ),
        other => panic!("dcl_resource_texture3d decoded as {other:?}"),
    }
    assert!(
        matches!(
            program.instructions[5].declaration,
            Some(Declaration::ResourceStructured { stride: 16, .. })
        ),
        "dcl_resource_structured: {:?}",
        program.instructions[5].declaration
    );
}

#[test]
fn uav_declarations_with_flags() {
    let glc = 1 << 16;
    let rov = 1 << 17;
    let opc = 1 << 23;
    let program = check(
        PS,
        5,
        0,
        &[
            inst(DCL_UAV_TYPED, 3 << 11, &[], &[bare(U, 0), raw(&[FLOAT4])]),
            inst(
                DCL_UAV_TYPED,
                (1 << 11) | glc,
                &[],
                &[bare(U, 1), raw(&[UINT4])],
            ),
            inst(DCL_UAV_RAW, glc, &[], &[bare(U, 2)]),
            inst(DCL_UAV_STRUCTURED, opc, &[], &[bare(U, 3), raw(&[4])]),
            inst(
                DCL_UAV_TYPED,
                (3 << 11) | rov,
                &[],
                &[bare(U, 4), raw(&[FLOAT4])],
            ),
            inst(DCL_UAV_STRUCTURED, 0, &[], &[bare(U, 5), raw(&[32])]),
        ],
        &[
            "dcl_uav_typed_texture2d (float,float,float,float) u0",
            "dcl_uav_typed_buffer_glc (uint,uint,uint,uint) u1",
            "dcl_uav_raw_glc u2",
            "dcl_uav_structured_opc u3, 4",
            "dcl_uav_typed_texture2d_rov (float,float,float,float) u4",
            "dcl_uav_structured u5, 32",
        ],
    );
    let flags: Vec<UavFlags> = program
        .instructions
        .iter()
        .map(|i| match &i.declaration {
            Some(
                Declaration::UavTyped { flags, .. }
                | Declaration::UavRaw { flags, .. }
                | Declaration::UavStructured { flags, .. },
            ) => *flags,
            other => panic!("not a UAV declaration: {other:?}"),
        })
        .collect();
    let flag = |globally_coherent, rasterizer_ordered, counter| UavFlags {
        globally_coherent,
        rasterizer_ordered,
        counter,
    };
    assert_eq!(
        flags,
        [
            flag(false, false, false),
            flag(true, false, false),
            flag(true, false, false),
            flag(false, false, true),
            flag(false, true, false),
            flag(false, false, false),
        ],
        "UAV flags"
    );
}

#[test]
fn constant_buffer_and_sampler_declarations_sm50() {
    let program = check(
        VS,
        5,
        0,
        &[
            op(
                DCL_CONSTANT_BUFFER,
                &[operand(head_src(CB, "xyzw"), &[Imm(0), Imm(4)])],
            ),
            inst(
                DCL_CONSTANT_BUFFER,
                1 << 11,
                &[],
                &[operand(head_src(CB, "xyzw"), &[Imm(3), Imm(16)])],
            ),
            op(DCL_SAMPLER, &[bare(S, 0)]),
            inst(DCL_SAMPLER, 1 << 11, &[], &[bare(S, 1)]),
            inst(DCL_SAMPLER, 2 << 11, &[], &[bare(S, 2)]),
        ],
        &[
            "dcl_constantbuffer CB0[4], immediateIndexed",
            "dcl_constantbuffer CB3[16], dynamicIndexed",
            "dcl_sampler s0, mode_default",
            "dcl_sampler s1, mode_comparison",
            "dcl_sampler s2, mode_mono",
        ],
    );
    match &program.instructions[1].declaration {
        Some(Declaration::ConstantBuffer {
            range,
            size,
            dynamic,
            ..
        }) => assert_eq!(
            (*range, *size, *dynamic),
            (
                ResourceRange {
                    id: 3,
                    lower: 3,
                    upper: Some(3),
                    space: 0
                },
                16,
                true
            ),
            "dcl_constantbuffer CB3[16], dynamicIndexed"
        ),
        other => panic!("dcl_constantbuffer decoded as {other:?}"),
    }
    let modes: Vec<_> = program.instructions[2..]
        .iter()
        .map(|i| match &i.declaration {
            Some(Declaration::Sampler { mode, .. }) => *mode,
            other => panic!("not a sampler declaration: {other:?}"),
        })
        .collect();
    assert_eq!(
        modes,
        [
            SamplerMode::Default,
            SamplerMode::Comparison,
            SamplerMode::Mono
        ],
        "sampler modes"
    );
}

/// A resource range operand of an SM5.1 declaration: `t1[10:*]`.
fn range(kind: u32, id: u32, lower: u32, upper: u32) -> Vec<u32> {
    operand(head_src(kind, "xyzw"), &[Imm(id), Imm(lower), Imm(upper)])
}

#[test]
fn sm51_range_declarations_and_operands() {
    let program = check_ignoring_case(
        PS,
        5,
        1,
        &[
            op(
                DCL_CONSTANT_BUFFER,
                &[range(CB, 0, 2, 2), raw(&[4]), raw(&[0])],
            ),
            op(DCL_SAMPLER, &[range(S, 0, 5, 5), raw(&[0])]),
            inst(
                DCL_RESOURCE,
                3 << 11,
                &[],
                &[range(T, 1, 10, u32::MAX), raw(&[FLOAT4]), raw(&[0])],
            ),
            inst(
                DCL_UAV_TYPED,
                3 << 11,
                &[],
                &[range(U, 2, 3, 5), raw(&[FLOAT4]), raw(&[1])],
            ),
            op(
                DCL_RESOURCE_STRUCTURED,
                &[range(T, 3, 0, 7), raw(&[16]), raw(&[2])],
            ),
            op(DCL_RESOURCE_RAW, &[range(T, 4, 1, 1), raw(&[0])]),
            op(
                DCL_UAV_STRUCTURED,
                &[range(U, 5, 0, 0), raw(&[8]), raw(&[3])],
            ),
            op(DCL_TEMPS, &[raw(&[2])]),
            op(
                SAMPLE,
                &[
                    rd(0, "xyzw"),
                    src(V, 0, "xyxx"),
                    operand(head_src(T, "xyzw"), &[Imm(1), Imm(12)]),
                    operand(head_none(S), &[Imm(0), Imm(5)]),
                ],
            ),
            op(
                ADD,
                &[
                    rd(0, "xyzw"),
                    rs(0, "xyzw"),
                    operand(head_src(CB, "xyzw"), &[Imm(0), Imm(2), Imm(3)]),
                ],
            ),
            op(
                SAMPLE,
                &[
                    rd(1, "xyzw"),
                    src(V, 0, "xyxx"),
                    ext(
                        operand(head_src(T, "xyzw"), &[Imm(1), ImmRel(10, rs(1, "x"))]),
                        1 | (1 << 17),
                    ),
                    operand(head_none(S), &[Imm(0), Imm(5)]),
                ],
            ),
        ],
        &[
            "dcl_constantbuffer cb0[2:2][4], immediateIndexed, space=0",
            "dcl_sampler s0[5:5], mode_default, space=0",
            "dcl_resource_texture2d (float,float,float,float) t1[10:*], space=0",
            "dcl_uav_typed_texture2d (float,float,float,float) u2[3:5], space=1",
            "dcl_resource_structured t3[0:7], 16, space=2",
            "dcl_resource_raw t4[1:1], space=0",
            "dcl_uav_structured u5[0:0], 8, space=3",
            "dcl_temps 2",
            "sample r0.xyzw, v0.xyxx, t1[12].xyzw, s0[5]",
            "add r0.xyzw, r0.xyzw, cb0[2][3].xyzw",
            "sample r1.xyzw, v0.xyxx, t1[r1.x + 10].xyzw {nonuniform}, s0[5]",
        ],
    );
    let range_of = |i: usize| match &program.instructions[i].declaration {
        Some(
            Declaration::Resource { range, .. }
            | Declaration::ResourceRaw { range, .. }
            | Declaration::ResourceStructured { range, .. }
            | Declaration::UavTyped { range, .. }
            | Declaration::UavStructured { range, .. }
            | Declaration::ConstantBuffer { range, .. }
            | Declaration::Sampler { range, .. },
        ) => *range,
        other => panic!("declaration {i} is not a range: {other:?}"),
    };
    let r = |id, lower, upper, space| ResourceRange {
        id,
        lower,
        upper,
        space,
    };
    assert_eq!(range_of(0), r(0, 2, Some(2), 0), "cb0[2:2]");
    assert_eq!(range_of(1), r(0, 5, Some(5), 0), "s0[5:5]");
    assert_eq!(range_of(2), r(1, 10, None, 0), "t1[10:*]");
    assert_eq!(range_of(2).count(), None, "an unbounded range has no count");
    assert_eq!(range_of(3), r(2, 3, Some(5), 1), "u2[3:5], space=1");
    assert_eq!(range_of(3).count(), Some(3), "u2[3:5] holds 3 registers");
    assert_eq!(range_of(4), r(3, 0, Some(7), 2), "t3[0:7], space=2");
    assert!(
        matches!(
            program.instructions[0].declaration,
            Some(Declaration::ConstantBuffer { size: 4, .. })
        ),
        "SM5.1 cb size: {:?}",
        program.instructions[0].declaration
    );
    let sample = operands(&program, 8);
    assert_eq!(
        imm_indices(&sample[2]),
        [1, 12],
        "t1[12] stays [id, register]"
    );
    assert_eq!(
        imm_indices(&sample[3]),
        [0, 5],
        "s0[5] stays [id, register]"
    );
    assert_eq!(
        imm_indices(&operands(&program, 9)[2]),
        [0, 2, 3],
        "cb0[2][3] stays [id, register, element]"
    );
    let dynamic = &operands(&program, 10)[2];
    assert!(dynamic.non_uniform, "t1[r1.x + 10] is non-uniform");
    assert!(
        matches!(dynamic.indices[1], Index::Imm32PlusRelative(10, _)),
        "t1[r1.x + 10] index: {:?}",
        dynamic.indices[1]
    );
    crate::ir::validate(&program)
        .unwrap_or_else(|e| panic!("the decoded SM5.1 program validates: {e}"));
}

#[test]
fn sm51_declaration_needs_three_indices() {
    let words = program_words(PS, 5, 1, &op(DCL_SAMPLER, &[bare(S, 0), raw(&[0])]));
    expect_error(
        &words,
        "instruction 0 (dword 0x2)",
        "three immediate indices",
    );
}

#[test]
fn signature_declarations() {
    let mut body = Vec::new();
    let mut expected = Vec::new();
    let modes = [
        "constant",
        "linear",
        "linear centroid",
        "linear noperspective",
        "linear noperspective centroid",
        "linear sample",
        "linear noperspective sample",
    ];
    for (i, mode) in modes.iter().enumerate() {
        let code = i as u32 + 1;
        body.push(inst(DCL_INPUT_PS, code << 11, &[], &[dst(V, code, "xy")]));
        expected.push(format!("dcl_input_ps {mode} v{code}.xy"));
    }
    body.push(inst(
        DCL_INPUT_PS_SIV,
        4 << 11,
        &[],
        &[dst(V, 0, "xyzw"), raw(&[1])],
    ));
    expected.push("dcl_input_ps_siv linear noperspective v0.xyzw, position".into());
    body.push(inst(
        DCL_INPUT_PS_SGV,
        1 << 11,
        &[],
        &[dst(V, 8, "x"), raw(&[9])],
    ));
    expected.push("dcl_input_ps_sgv constant v8.x, is_front_face".into());
    body.push(op(DCL_OUTPUT, &[dst(O, 0, "xyzw")]));
    expected.push("dcl_output o0.xyzw".into());
    body.push(op(DCL_OUTPUT, &[operand(head_one(ODEPTH), &[])]));
    expected.push("dcl_output oDepth".into());
    body.push(op(DCL_TEMPS, &[raw(&[4])]));
    expected.push("dcl_temps 4".into());
    body.push(op(DCL_INDEXABLE_TEMP, &[raw(&[0, 8, 4])]));
    expected.push("dcl_indexableTemp x0[8], 4".into());
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    let program = check(PS, 5, 0, &body, &expected);
    for (i, ins) in program.instructions[..7].iter().enumerate() {
        match &ins.declaration {
            Some(Declaration::Signature {
                interpolation,
                system_value,
                ..
            }) => assert_eq!(
                (*interpolation, *system_value),
                (Interpolation::from_code(i as u32 + 1), None),
                "dcl_input_ps {}",
                modes[i]
            ),
            other => panic!("dcl_input_ps decoded as {other:?}"),
        }
    }
    assert!(
        matches!(
            program.instructions[7].declaration,
            Some(Declaration::Signature {
                system_value: Some(SystemValue::Position),
                interpolation: Some(Interpolation::LinearNoPerspective),
                ..
            })
        ),
        "dcl_input_ps_siv: {:?}",
        program.instructions[7].declaration
    );
    assert_eq!(
        program.instructions[12].declaration,
        Some(Declaration::IndexableTemp {
            register: 0,
            size: 8,
            components: 4
        }),
        "dcl_indexableTemp"
    );
}

#[test]
fn vertex_inputs_outputs_and_index_range() {
    check(
        VS,
        4,
        0,
        &[
            op(DCL_INPUT, &[dst(V, 0, "xyzw")]),
            op(DCL_INPUT_SGV, &[dst(V, 1, "x"), raw(&[6])]),
            op(DCL_OUTPUT_SIV, &[dst(O, 0, "xyzw"), raw(&[1])]),
            op(DCL_OUTPUT, &[dst(O, 1, "xyz")]),
            op(DCL_INDEX_RANGE, &[dst(O, 1, "xyz"), raw(&[3])]),
        ],
        &[
            "dcl_input v0.xyzw",
            "dcl_input_sgv v1.x, vertex_id",
            "dcl_output_siv o0.xyzw, position",
            "dcl_output o1.xyz",
            "dcl_indexrange o1.xyz 3",
        ],
    );
}

#[test]
fn immediate_constant_buffer_and_custom_data() {
    let icb = [f(1.0), 0, 0, 0, f(2.0), 1, 2, 3];
    let mut block = vec![CUSTOMDATA | (3 << 11), icb.len() as u32 + 2];
    block.extend_from_slice(&icb);
    let comment = vec![CUSTOMDATA, 3, 0xdead_beef];
    let words = program_words(
        PS,
        5,
        0,
        &flat(&[
            block,
            comment,
            op(DCL_TEMPS, &[raw(&[1])]),
            op(
                MOV,
                &[
                    rd(0, "xyzw"),
                    operand(head_src(ICB, "xyzw"), &[ImmRel(0, rs(0, "x"))]),
                ],
            ),
        ]),
    );
    let program = decode_words(&words);
    let text = program_text(&program);
    let expected = "ps_5_0\n\
        dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},\n                              { 2.000000, 1, 2, 3} }\n\
        dcl_customdata comment { 0xdeadbeef }\n\
        dcl_temps 1\n\
        mov r0.xyzw, icb[r0.x + 0].xyzw\n";
    assert_eq!(
        text, expected,
        "text of the program decoded from {words:08x?}"
    );
    match &program.instructions[0].declaration {
        Some(Declaration::CustomData { class, data }) => {
            assert_eq!(
                *class,
                CustomDataClass::ImmediateConstantBuffer,
                "custom-data class"
            );
            assert_eq!(program.data_slice(*data), icb, "icb payload");
        }
        other => panic!("dcl_immediateConstantBuffer decoded as {other:?}"),
    }
    assert_eq!(program.instructions[0].length, 10, "icb block length");
    assert_eq!(program.instructions[1].dword, 12, "comment block position");
}

#[test]
fn compute_declarations() {
    let program = check(
        CS,
        5,
        0,
        &[
            op(DCL_INPUT, &[operand(head_mask(THREAD_ID, "xyz"), &[])]),
            op(
                DCL_INPUT,
                &[operand(head_none(THREAD_ID_IN_GROUP_FLATTENED), &[])],
            ),
            op(DCL_TEMPS, &[raw(&[1])]),
            op(DCL_TGSM_RAW, &[bare(G, 0), raw(&[1024])]),
            op(DCL_TGSM_STRUCTURED, &[bare(G, 1), raw(&[16, 64])]),
            op(DCL_THREAD_GROUP, &[raw(&[8, 8, 1])]),
            op(
                ISHL,
                &[
                    rd(0, "x"),
                    operand(head_one(THREAD_ID_IN_GROUP_FLATTENED), &[]),
                    l1(2),
                ],
            ),
            op(
                STORE_RAW,
                &[
                    dst(G, 0, "x"),
                    rs(0, "x"),
                    operand(head_src(THREAD_ID, "xxxx"), &[]),
                ],
            ),
            op(RET, &[]),
        ],
        &[
            "dcl_input vThreadID.xyz",
            "dcl_input vThreadIDInGroupFlattened",
            "dcl_temps 1",
            "dcl_tgsm_raw g0, 1024",
            "dcl_tgsm_structured g1, 16, 64",
            "dcl_thread_group 8, 8, 1",
            "ishl r0.x, vThreadIDInGroupFlattened, l(2)",
            "store_raw g0.x, r0.x, vThreadID.xxxx",
            "ret",
        ],
    );
    assert_eq!(
        program.instructions[5].declaration,
        Some(Declaration::ThreadGroup([8, 8, 1])),
        "dcl_thread_group"
    );
    assert!(
        matches!(
            program.instructions[4].declaration,
            Some(Declaration::TgsmStructured {
                stride: 16,
                count: 64,
                ..
            })
        ),
        "dcl_tgsm_structured: {:?}",
        program.instructions[4].declaration
    );
    crate::ir::validate(&program).unwrap_or_else(|e| panic!("the compute program validates: {e}"));
}

// ---------------------------------------------------------------------------------------------
// Operands.
// ---------------------------------------------------------------------------------------------

#[test]
fn every_index_representation() {
    let program = check(
        VS,
        5,
        0,
        &[
            op(DCL_INDEXABLE_TEMP, &[raw(&[0, 8, 4])]),
            op(
                MOV,
                &[
                    rd(0, "xyzw"),
                    operand(head_src(X, "xyzw"), &[Imm(0), Rel(rs(1, "x"))]),
                ],
            ),
            op(
                MOV,
                &[
                    rd(0, "xyzw"),
                    operand(head_src(X, "xyzw"), &[Imm(0), Imm64(5)]),
                ],
            ),
            op(
                MOV,
                &[
                    rd(0, "xyzw"),
                    operand(head_src(CB, "xyzw"), &[Imm(2), ImmRel(3, rs(1, "y"))]),
                ],
            ),
            op(
                MOV,
                &[
                    rd(0, "xyzw"),
                    operand(head_src(CB, "xyzw"), &[Imm(2), Imm64Rel(7, src(V, 0, "w"))]),
                ],
            ),
            op(
                MOV,
                &[
                    rd(1, "x"),
                    operand(
                        head_src(CB, "z"),
                        &[
                            Imm(0),
                            ImmRel(
                                2,
                                operand(head_src(X, "y"), &[Imm(0), ImmRel(1, rs(0, "x"))]),
                            ),
                        ],
                    ),
                ],
            ),
            op(
                MOV,
                &[
                    operand(head_mask(O, "xy"), &[Rel(rs(2, "w"))]),
                    operand(head_src(X, "zwxy"), &[Imm(0), Imm(7)]),
                ],
            ),
        ],
        &[
            "dcl_indexableTemp x0[8], 4",
            "mov r0.xyzw, x0[r1.x].xyzw",
            "mov r0.xyzw, x0[5u64].xyzw",
            "mov r0.xyzw, cb2[r1.y + 3].xyzw",
            "mov r0.xyzw, cb2[v0.w + 7u64].xyzw",
            "mov r1.x, cb0[x0[r0.x + 1].y + 2].z",
            "mov o[r2.w].xy, x0[7].zwxy",
        ],
    );
    let x = &operands(&program, 1)[1];
    let Index::Relative(id) = x.indices[1] else {
        panic!("x0[r1.x] index: {:?}", x.indices[1]);
    };
    let inner = program.operand(id);
    assert_eq!(
        (inner.kind, inner.selection, imm_indices(inner)),
        (RegisterKind::Temp, Selection::Select1(0), vec![1]),
        "x0[r1.x]'s address"
    );
    assert_eq!(
        inner.value_type,
        ValueType::I32,
        "relative address value type"
    );
    assert_eq!(
        operands(&program, 2)[1].indices[1],
        Index::Imm64(5),
        "x0[5u64]"
    );
    let cb64 = &operands(&program, 4)[1];
    assert_eq!(cb64.index_count, 3, "cb2[v0.w + 7u64] normalised");
    assert!(
        matches!(cb64.indices[2], Index::Imm64PlusRelative(7, _)),
        "cb2[v0.w + 7u64] element: {:?}",
        cb64.indices[2]
    );
    // cb0[x0[r0.x + 1].y + 2].z: two levels of relative addressing.
    let nested = &operands(&program, 5)[1];
    let Index::Imm32PlusRelative(2, x_id) = nested.indices[2] else {
        panic!("cb0[… + 2] element: {:?}", nested.indices[2]);
    };
    let x = program.operand(x_id);
    assert_eq!(
        (x.kind, x.selection),
        (RegisterKind::IndexableTemp, Selection::Select1(1)),
        "the outer address x0[…].y"
    );
    let Index::Imm32PlusRelative(1, r_id) = x.indices[1] else {
        panic!("x0[r0.x + 1] index: {:?}", x.indices[1]);
    };
    assert_eq!(
        imm_indices(program.operand(r_id)),
        [0],
        "the inner address r0.x"
    );
    assert_eq!(
        operands(&program, 6)[1].selection,
        Selection::Swizzle([2, 3, 0, 1]),
        "x0[7].zwxy"
    );
}

#[test]
fn relative_addresses_nest_four_levels_not_five() {
    // x0[x0[x0[x0[r0.x].x].x].x]: the operand has a chain of `levels` relative addresses.
    fn nested(levels: usize) -> Vec<u32> {
        let mut address = rs(0, "x");
        for _ in 1..levels {
            address = operand(head_src(X, "x"), &[Imm(0), Rel(address)]);
        }
        operand(head_src(X, "xyzw"), &[Imm(0), Rel(address)])
    }
    let four = program_words(
        VS,
        5,
        0,
        &flat(&[
            op(DCL_INDEXABLE_TEMP, &[raw(&[0, 4, 4])]),
            op(MOV, &[rd(0, "xyzw"), nested(4)]),
        ]),
    );
    let program = decode_words(&four);
    assert_eq!(
        body_lines(&program)[1],
        "mov r0.xyzw, x0[x0[x0[x0[r0.x].x].x].x].xyzw",
        "text of four nested addresses {four:08x?}"
    );
    let five = program_words(
        VS,
        5,
        0,
        &flat(&[
            op(DCL_INDEXABLE_TEMP, &[raw(&[0, 4, 4])]),
            op(MOV, &[rd(0, "xyzw"), nested(5)]),
        ]),
    );
    expect_error(&five, "instruction 1 (dword 0x6)", "nest deeper than 4");
}

#[test]
fn selection_modes_and_component_counts() {
    let program = check(
        PS,
        5,
        0,
        &[
            op(MOV, &[rd(0, "xz"), rs(1, "yyww")]),
            op(MOV, &[rd(0, "w"), rs(1, "z")]),
            op(MOV, &[dst(O, 0, "xyzw"), l4([f(1.0), f(2.0), 0, f(-1.0)])]),
            op(MOV, &[operand(head_one(ODEPTH), &[]), l1(f(0.25))]),
            op(
                ADD,
                &[
                    rd(1, "xyzw"),
                    rs(0, "xyzw"),
                    l4([f(1.0), f(2.0), 0, f(-1.0)]),
                ],
            ),
        ],
        &[
            "mov r0.xz, r1.yyww",
            "mov r0.w, r1.z",
            "mov o0.xyzw, l(1.000000,2.000000,0,-1.000000)",
            "mov oDepth, l(0.250000)",
            "add r1.xyzw, r0.xyzw, l(1.000000, 2.000000, 0.000000, -1.000000)",
        ],
    );
    let first = operands(&program, 0);
    assert_eq!(first[0].selection, Selection::Mask(0b0101), "r0.xz mask");
    assert_eq!(
        first[1].selection,
        Selection::Swizzle([1, 1, 3, 3]),
        "r1.yyww"
    );
    let second = operands(&program, 1);
    assert_eq!(second[0].selection, Selection::Mask(0b1000), "r0.w mask");
    assert_eq!(second[1].selection, Selection::Select1(2), "r1.z select-1");
    let depth = &operands(&program, 3)[0];
    assert_eq!(
        (depth.kind, depth.components, depth.index_count),
        (RegisterKind::OutputDepth, ComponentCount::One, 0),
        "oDepth"
    );
}

#[test]
fn min_precision_and_non_uniform_hints() {
    let program = check(
        PS,
        5,
        0,
        &[
            op(
                ADD,
                &[
                    min_precision(rd(0, "xy"), 1),
                    min_precision(rs(1, "xyxx"), 1),
                    ext(rs(2, "xyxx"), 1 | (1 << 6) | (1 << 14)),
                ],
            ),
            op(
                MOV,
                &[min_precision(rd(1, "x"), 2), min_precision(rs(1, "y"), 2)],
            ),
            op(
                IADD,
                &[
                    min_precision(rd(2, "x"), 4),
                    min_precision(rs(1, "x"), 4),
                    l1(1),
                ],
            ),
            op(
                MOV,
                &[min_precision(rd(3, "x"), 5), min_precision(rs(1, "z"), 5)],
            ),
        ],
        &[
            "add r0.xy {min16f}, r1.xyxx {min16f}, -r2.xyxx {min16f}",
            "mov r1.x {min2_8f}, r1.y {min2_8f}",
            "iadd r2.x {min16i}, r1.x {min16i}, l(1)",
            "mov r3.x {min16u}, r1.z {min16u}",
        ],
    );
    let add = operands(&program, 0);
    assert_eq!(
        add[0].min_precision,
        MinPrecision::Float16,
        "min16f destination"
    );
    // The modifier token was written as `neg | min16f` in one extended token.
    assert_eq!(
        (add[2].modifier, add[2].min_precision),
        (Modifier::Neg, MinPrecision::Float16),
        "-r2 {{min16f}}"
    );
    let precisions: Vec<MinPrecision> = (1..4)
        .map(|i| operands(&program, i)[0].min_precision)
        .collect();
    assert_eq!(
        precisions,
        [
            MinPrecision::Float2_8,
            MinPrecision::Sint16,
            MinPrecision::Uint16
        ],
        "destination precisions"
    );
    assert!(
        add.iter().all(|o| !o.non_uniform),
        "no operand of add is non-uniform"
    );
}

#[test]
fn unknown_minimum_precision_and_modifier_are_errors() {
    for (token, what) in [
        (1 | (3 << 14), "unknown minimum precision 3"),
        (1 | (4 << 6), "unknown operand modifier 4"),
        (2, "unknown extended operand token type 2"),
        (0x3f, "unknown extended operand token type 63"),
    ] {
        let words = program_words(
            PS,
            5,
            0,
            &flat(&[op(RET, &[]), op(MOV, &[rd(0, "x"), ext(rs(1, "x"), token)])]),
        );
        expect_error(&words, "instruction 1 (dword 0x3)", what);
    }
}

// ---------------------------------------------------------------------------------------------
// Errors.
// ---------------------------------------------------------------------------------------------

#[test]
fn unknown_opcodes() {
    for code in [107u32, 112, 209, 218, 235, 0x7ff] {
        let words = program_words(
            PS,
            5,
            0,
            &flat(&[op(DCL_TEMPS, &[raw(&[1])]), vec![opcode(code, 1)]]),
        );
        expect_error(
            &words,
            "instruction 1 (dword 0x4)",
            &format!("unknown opcode {code}"),
        );
    }
}

#[test]
fn instruction_length_errors() {
    // Length 0 and no dword after it for the length.
    let words = program_words(PS, 5, 0, &flat(&[op(RET, &[]), vec![opcode(RET, 0)]]));
    expect_error(&words, "instruction 1 (dword 0x3)", "length");
    // A length that runs past the end of the program.
    let words = program_words(PS, 5, 0, &flat(&[op(RET, &[]), vec![opcode(RET, 5), 0]]));
    expect_error(
        &words,
        "instruction 1 (dword 0x3)",
        "runs past the end of the program",
    );
    // A length dword that runs past the end (long-form class-linkage declaration).
    let words = program_words(PS, 5, 0, &[DCL_FUNCTION_BODY | (1 << 31), 100, 0]);
    expect_error(
        &words,
        "instruction 0 (dword 0x2)",
        "runs past the end of the program",
    );
    // Custom data whose length does not fit.
    let words = program_words(PS, 5, 0, &[CUSTOMDATA | (3 << 11), 9, 1, 2]);
    expect_error(&words, "instruction 0 (dword 0x2)", "custom-data length 9");
    let words = program_words(PS, 5, 0, &[CUSTOMDATA | (3 << 11)]);
    expect_error(&words, "instruction 0 (dword 0x2)", "no length dword");
}

#[test]
fn truncated_operands() {
    // `mov r0.x, l(1)` is 5 dwords; a length of 4 cuts the immediate off, and the `ret`
    // after it must not be read as the missing dword.
    let mut mov = op(MOV, &[rd(0, "x"), l1(1)]);
    mov[0] = opcode(MOV, 4);
    mov.pop();
    let words = program_words(
        PS,
        5,
        0,
        &flat(&[op(DCL_TEMPS, &[raw(&[1])]), mov, op(RET, &[])]),
    );
    expect_error(&words, "instruction 1 (dword 0x4)", "needs more tokens");
    // An index dword missing.
    let words = program_words(PS, 5, 0, &[opcode(MOV, 3), rd(0, "x")[0], rs(1, "x")[0]]);
    expect_error(&words, "instruction 0 (dword 0x2)", "needs more tokens");
    // A missing extended operand token.
    let words = program_words(
        PS,
        5,
        0,
        &[opcode(RET, 1), opcode(MOV, 2), rd(0, "x")[0] | (1 << 31)],
    );
    expect_error(&words, "instruction 1 (dword 0x3)", "needs more tokens");
    // A missing extended opcode token.
    let words = program_words(PS, 5, 0, &[opcode(RET, 1) | (1 << 31)]);
    expect_error(&words, "instruction 0 (dword 0x2)", "needs more tokens");
}

#[test]
fn malformed_operand_tokens() {
    let cases: [(u32, &str); 4] = [
        (head_mask(R, "x") | (43 << 12), "unknown operand type 43"),
        ((3 << 2) | 2 | (1 << 20), "selection mode 3"),
        (3 | (1 << 20), "N-component"),
        (
            head_mask(R, "x") | (1 << 20) | (5 << 22),
            "unknown index representation 5",
        ),
    ];
    for (token, what) in cases {
        let words = program_words(
            PS,
            5,
            0,
            &flat(&[op(RET, &[]), vec![opcode(MOV, 5), token, 0], l1(0)]),
        );
        expect_error(&words, "instruction 1 (dword 0x3)", what);
    }
    // An immediate without components.
    let words = program_words(PS, 5, 0, &[opcode(MOV, 4), rd(0, "x")[0], 0, IMM32 << 12]);
    expect_error(&words, "instruction 0 (dword 0x2)", "1 or 4 components");
}

#[test]
fn unknown_extended_opcode_token_type() {
    for kind in [4u32, 0x3f] {
        let words = program_words(
            PS,
            5,
            0,
            &flat(&[
                op(RET, &[]),
                inst(
                    SAMPLE,
                    0,
                    &[kind],
                    &[
                        rd(0, "xyzw"),
                        src(V, 1, "xyxx"),
                        src(T, 0, "xyzw"),
                        bare(S, 0),
                    ],
                ),
            ]),
        );
        expect_error(
            &words,
            "instruction 1 (dword 0x3)",
            &format!("unknown extended opcode token type {kind}"),
        );
    }
    // An unknown resource dimension in the extended token.
    let words = program_words(
        PS,
        5,
        0,
        &inst(
            LD,
            0,
            &[ext_dim(13, 0)],
            &[rd(0, "xyzw"), rs(1, "xyzw"), src(T, 0, "xyzw")],
        ),
    );
    expect_error(
        &words,
        "instruction 0 (dword 0x2)",
        "unknown resource dimension 13",
    );
    // Declarations take no extended opcode token.
    let words = program_words(PS, 5, 0, &[opcode(DCL_TEMPS, 2) | (1 << 31), 1]);
    expect_error(&words, "instruction 0 (dword 0x2)", "extended opcode");
}

/// Appends `trailing` to an instruction's dwords and counts them in its length.
fn with_trailing(mut instruction: Vec<u32>, trailing: &[u32]) -> Vec<u32> {
    instruction.extend_from_slice(trailing);
    instruction[0] += (trailing.len() as u32) << 24;
    instruction
}

/// Checks that the program's text assembles back to the same dwords.
fn check_text_round_trip(program: &Program, words: &[u32]) {
    let text = program_text(program);
    let parsed = crate::asm::parse_program_unchecked(&text)
        .unwrap_or_else(|e| panic!("assembling the text of {words:08x?} failed: {e}\n{text}"));
    let encoded = encode_words(&parsed)
        .unwrap_or_else(|e| panic!("encoding the assembled text failed: {e}\n{text}"));
    assert_eq!(
        encoded, words,
        "asm(disasm) of {words:08x?} gives other dwords (left: assembled, right: original)\n{text}"
    );
}

#[test]
fn trailing_dwords() {
    // fxc once wrote a sample_d_cl_s whose length counts one dword past its operands,
    // 0x00002000; it is kept, shown, and re-encoded (so is one after a mov and after a
    // declaration).
    let sample = with_trailing(
        inst(
            SAMPLE_D_CL_S,
            0,
            &[ext_dim(3, 0), ext_ret(FLOAT4)],
            &[
                rd(0, "xyzw"),
                rd(1, "x"),
                src(V, 1, "xyxx"),
                src(T, 0, "xyzw"),
                bare(S, 0),
                src(V, 2, "xyxx"),
                src(V, 3, "xyxx"),
                src(V, 1, "z"),
            ],
        ),
        &[0x0000_2000],
    );
    let body = [
        with_trailing(vec![opcode(DCL_TEMPS, 2), 2], &[0xdead_beef]),
        with_trailing(op(MOV, &[rd(0, "x"), rs(1, "x")]), &[7, 0]),
        sample,
        op(RET, &[]),
    ];
    let program = check(
        PS,
        5,
        0,
        &body,
        &[
            "dcl_temps 2 {trailing=0xdeadbeef}",
            "mov r0.x, r1.x {trailing=0x00000007} {length=7}",
            "sample_d_cl_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, t0.xyzw, s0, v2.xyxx, v3.xyxx, v1.z {trailing=0x00002000}",
            "ret",
        ],
    );
    let words = program_words(PS, 5, 0, &flat(&body));
    let trailing: Vec<&[u32]> = program
        .instructions
        .iter()
        .map(|i| program.data_slice(i.trailing))
        .collect();
    assert_eq!(
        trailing,
        [&[0xdead_beef][..], &[7], &[0x2000], &[]],
        "trailing dwords kept from {words:08x?}"
    );
    assert_eq!(program.instructions[2].length, 20, "sample_d_cl_s length");
    check_text_round_trip(&program, &words);
    // An empty extended opcode token is not re-encoded: the trailing dwords move up by one
    // and the length pads the end with a zero; the program is the same.
    let ret = vec![opcode(RET, 5) | (1 << 31), 0, 9, 8, 0];
    let words = program_words(PS, 5, 0, &ret);
    let program = decode(&to_bytes(&words)).unwrap_or_else(|e| panic!("{e}"));
    let encoded = encode_words(&program).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        encoded,
        program_words(PS, 5, 0, &[opcode(RET, 5), 9, 8, 0, 0]),
        "re-encoding {words:08x?}"
    );
    let again = decode(&to_bytes(&encoded)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, program, "decoding the re-encoded {encoded:08x?}");
    assert_eq!(
        body_lines(&again),
        ["ret {trailing=0x00000009,0x00000008} {length=5}"]
    );
    // Zero dwords are kept by the length alone and shown as the length.
    let mov = with_trailing(op(MOV, &[rd(0, "x"), rs(1, "x")]), &[0]);
    let words = program_words(PS, 5, 0, &mov);
    let program = decode_words(&words);
    assert_eq!(
        program.instructions[0].length, 6,
        "length of the padded mov {words:08x?}"
    );
    assert_eq!(
        program.instructions[0].trailing.len, 0,
        "zero padding is no trailing data"
    );
    assert_eq!(
        body_lines(&program),
        ["mov r0.x, r1.x {length=6}"],
        "text of the padded mov {words:08x?}"
    );
    check_text_round_trip(&program, &words);
}

#[test]
fn trailing_dwords_outside_the_data_arena_are_refused() {
    let words = program_words(PS, 5, 0, &with_trailing(op(RET, &[]), &[5]));
    let mut program = decode_words(&words);
    program.instructions[0].trailing.start = 40;
    let message = encode_words(&program).expect_err("encoding a dangling trailing range");
    assert!(
        message.to_string().contains("trailing dwords lie outside"),
        "{message}"
    );
    let message = crate::ir::validate(&program).expect_err("validating it");
    assert!(
        message.to_string().contains("trailing dwords lie outside"),
        "{message}"
    );
}

#[test]
fn program_size_errors() {
    for len in [0usize, 4, 7] {
        let message = match decode(&vec![0u8; len]) {
            Ok(_) => panic!("a {len}-byte program decoded"),
            Err(e) => e.to_string(),
        };
        assert!(
            message.starts_with("program dword 0x0: ") && message.contains("8"),
            "a {len}-byte program: `{message}`"
        );
    }
    let mut bytes = program(PS, 5, 0, &op(RET, &[]));
    bytes.extend_from_slice(&[0, 0]);
    let message = decode(&bytes).expect_err("a 14-byte program").to_string();
    assert!(
        message.starts_with("program dword 0x3: ") && message.contains("whole number of dwords"),
        "a 14-byte program: `{message}`"
    );
    let mut words = program_words(PS, 5, 0, &op(RET, &[]));
    words[1] = 4;
    expect_error(
        &words,
        "program dword 0x1",
        "declares 4 dwords but the chunk holds 3",
    );
    words[1] = 1;
    expect_error(&words, "program dword 0x1", "declares 1 dwords");
    // Dwords after the declared length (container padding) are not part of the program.
    let mut words = program_words(PS, 5, 0, &op(RET, &[]));
    words.extend_from_slice(&[0xffff_ffff, 0x1234]);
    let program = decode(&to_bytes(&words))
        .unwrap_or_else(|e| panic!("decoding {words:08x?} with trailing container bytes: {e}"));
    assert_eq!(
        program.instructions.len(),
        1,
        "instructions of {words:08x?}"
    );
}

#[test]
fn supported_and_unsupported_versions() {
    for (stage, major, minor, model) in [
        (PS, 4, 0, "ps_4_0"),
        (VS, 4, 1, "vs_4_1"),
        (GS, 5, 0, "gs_5_0"),
        (HS, 5, 0, "hs_5_0"),
        (4, 5, 1, "ds_5_1"),
        (CS, 4, 0, "cs_4_0"),
    ] {
        let words = program_words(stage, major, minor, &op(RET, &[]));
        let program = decode_words(&words);
        assert_eq!(program.model.to_string(), model, "model of {words:08x?}");
        assert_eq!(
            program_text(&program),
            format!("{model}\nret\n"),
            "text of {words:08x?}"
        );
    }
    for (stage, major, minor, what) in [
        (PS, 3, 0, "shader model 3.0"),
        (VS, 5, 2, "shader model 5.2"),
        (PS, 6, 0, "shader model 6.0"),
        (HS, 4, 0, "hs programs need shader model 5"),
        (4, 4, 1, "ds programs need shader model 5"),
        (6, 5, 0, "unknown program type 0x6"),
        (0xfffe, 5, 0, "unknown program type 0xfffe"),
    ] {
        let words = program_words(stage, major, minor, &op(RET, &[]));
        expect_error(&words, "program dword 0x0", what);
    }
}

#[test]
fn bad_declaration_fields() {
    let cases: Vec<(Vec<u32>, &str)> = vec![
        (
            inst(DCL_RESOURCE, 13 << 11, &[], &[bare(T, 0), raw(&[FLOAT4])]),
            "unknown resource dimension 13",
        ),
        (
            inst(DCL_RESOURCE, 3 << 11, &[], &[bare(T, 0), raw(&[0xa555])]),
            "unknown resource return type 10",
        ),
        (
            inst(DCL_SAMPLER, 3 << 11, &[], &[bare(S, 0)]),
            "unknown sampler mode 3",
        ),
        (
            inst(DCL_INPUT_PS, 8 << 11, &[], &[dst(V, 0, "x")]),
            "unknown interpolation mode 8",
        ),
        (
            op(DCL_INPUT_SGV, &[dst(V, 0, "x"), raw(&[26])]),
            "unknown system value 26",
        ),
        (
            inst(DCL_INPUT_PRIMITIVE, 4 << 11, &[], &[]),
            "unknown input primitive 4",
        ),
        (
            inst(DCL_OUTPUT_TOPOLOGY, 6 << 11, &[], &[]),
            "unknown output topology 6",
        ),
        (
            op(DCL_RESOURCE_RAW, &[rd(0, "x")]),
            "declares a r register; it needs a t register",
        ),
        (
            op(
                DCL_CONSTANT_BUFFER,
                &[operand(head_src(CB, "xyzw"), &[Imm(0)])],
            ),
            "two immediate indices",
        ),
        (
            op(DCL_FUNCTION_TABLE, &[raw(&[0, 5, 1])]),
            "function table count 5",
        ),
        (
            vec![CUSTOMDATA | (6 << 11), 2],
            "unknown custom-data class 6",
        ),
    ];
    for (instruction, what) in cases {
        let words = program_words(PS, 5, 0, &flat(&[op(RET, &[]), instruction]));
        expect_error(&words, "instruction 1 (dword 0x3)", what);
    }
}

#[test]
fn sm50_resource_operands_need_an_immediate_register() {
    // `t[r0.x]` cannot be expressed before SM5.1.
    let words = program_words(
        PS,
        5,
        0,
        &op(
            LD,
            &[
                rd(0, "xyzw"),
                rs(1, "xyzw"),
                operand(head_src(T, "xyzw"), &[Rel(rs(0, "x"))]),
            ],
        ),
    );
    // fxc's class-linkage form: read as the register chosen at run time (the lowering
    // makes it a switch over the declared registers).
    let program = decode(&to_bytes(&words)).expect("t[r0.x] in ps_5_0");
    let t = program.operands_of(&program.instructions[0])[2];
    assert!(crate::ir::is_dynamic_register(program.model, &t), "{t:?}");
    assert_eq!(t.indices[0], Index::Imm32(DYNAMIC_RANGE));
    // A UAV register is never chosen at run time before SM5.1.
    let words = program_words(
        PS,
        5,
        0,
        &op(
            LD_UAV_TYPED,
            &[
                rd(0, "xyzw"),
                rs(1, "xyzw"),
                operand(head_src(U, "xyzw"), &[Rel(rs(0, "x"))]),
            ],
        ),
    );
    expect_error(
        &words,
        "instruction 0 (dword 0x2)",
        "a u register indexed at run time or by a 64-bit number, which shader model ps_5_0 does not allow",
    );
    let error = decode(&to_bytes(&words)).expect_err("u[r0.x] in ps_5_0");
    assert_eq!(error.kind, crate::error::ErrorKind::Invalid, "{error}");
    // `cb0` with one index (an SM5.0 constant buffer takes two).
    let words = program_words(
        PS,
        5,
        0,
        &op(MOV, &[rd(0, "x"), operand(head_src(CB, "x"), &[Imm(0)])]),
    );
    expect_error(
        &words,
        "instruction 0 (dword 0x2)",
        "a cb operand takes 2 index(es) in shader model ps_5_0, found 1",
    );
    // Before SM5.0 no register is chosen at run time, not even a constant buffer's.
    let words = program_words(
        PS,
        4,
        1,
        &op(
            MOV,
            &[
                rd(0, "x"),
                operand(head_src(CB, "x"), &[ImmRel(0, rs(1, "y")), Imm(0)]),
            ],
        ),
    );
    expect_error(
        &words,
        "instruction 0 (dword 0x2)",
        "cb register indexed at run time or by a 64-bit number, which shader model ps_4_1",
    );
}

#[test]
fn sm50_constant_buffer_register_chosen_at_run_time() {
    // fxc's class-linkage form: `cb[r1.y + 0][r1.x + 0].x`, and with a constant element.
    let body = [
        vec![opcode(DCL_TEMPS, 2), 3],
        op(
            MOV,
            &[
                rd(0, "x"),
                operand(
                    head_src(CB, "x"),
                    &[ImmRel(0, rs(1, "y")), ImmRel(0, rs(1, "x"))],
                ),
            ],
        ),
        op(
            ADD,
            &[
                rd(0, "xyzw"),
                rs(0, "xxxx"),
                operand(head_src(CB, "xyzw"), &[Rel(rs(2, "z")), Imm(7)]),
            ],
        ),
        op(RET, &[]),
    ];
    let program = check(
        PS,
        5,
        0,
        &body,
        &[
            "dcl_temps 3",
            "mov r0.x, cb[r1.y + 0][r1.x + 0].x",
            "add r0.xyzw, r0.xxxx, cb[r2.z][7].xyzw",
            "ret",
        ],
    );
    let cb = operands(&program, 1)[1];
    assert!(is_dynamic_cb(program.model, &cb), "{cb:?}");
    assert_eq!(cb.index_count, 3, "(range, register, element) of {cb:?}");
    assert_eq!(cb.indices[0], Index::Imm32(DYNAMIC_RANGE));
    assert!(
        matches!(cb.indices[1], Index::Imm32PlusRelative(0, _)),
        "register index of {cb:?}"
    );
    let words = program_words(PS, 5, 0, &flat(&body));
    check_text_round_trip(&program, &words);
    crate::ir::validate(&program).unwrap_or_else(|e| panic!("validating: {e}"));
}

#[test]
fn cb_register_in_another_declaration_is_rejected_or_kept() {
    for code in [DCL_RESOURCE_RAW, DCL_UAV_RAW, DCL_SAMPLER] {
        let words = program_words(
            PS,
            5,
            0,
            &op(code, &[operand(head_src(CB, "xyzw"), &[Imm(0), Imm(4)])]),
        );
        match decode(&to_bytes(&words)) {
            Err(e) => assert!(
                e.to_string().starts_with("instruction 0 (dword 0x2): "),
                "decoding {words:08x?}: error at the wrong place: {e}"
            ),
            Ok(program) => {
                // A declaration that reads must re-encode to the same dwords.
                let encoded = encode_words(&program)
                    .unwrap_or_else(|e| panic!("re-encoding {words:08x?}: {e}"));
                assert!(
                    encoded == words,
                    "re-encoding {words:08x?} (decoded as `{}`) gives {encoded:08x?}",
                    body_lines(&program).join("; ")
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Corruption sweep.
// ---------------------------------------------------------------------------------------------

/// A ~15-instruction program touching declarations, relative addressing, extended tokens
/// and control flow.
fn sweep_body(sm51: bool) -> Vec<u32> {
    let (cb_decl, t_decl, s_decl, t_use, s_use, cb_use) = if sm51 {
        (
            op(
                DCL_CONSTANT_BUFFER,
                &[range(CB, 0, 0, 0), raw(&[4]), raw(&[0])],
            ),
            inst(
                DCL_RESOURCE,
                3 << 11,
                &[],
                &[range(T, 0, 2, u32::MAX), raw(&[FLOAT4]), raw(&[0])],
            ),
            op(DCL_SAMPLER, &[range(S, 0, 0, 0), raw(&[0])]),
            operand(head_src(T, "xyzw"), &[Imm(0), ImmRel(2, rs(1, "x"))]),
            operand(head_none(S), &[Imm(0), Imm(0)]),
            operand(
                head_src(CB, "xyzw"),
                &[Imm(0), Imm(0), ImmRel(1, rs(0, "y"))],
            ),
        )
    } else {
        (
            op(
                DCL_CONSTANT_BUFFER,
                &[operand(head_src(CB, "xyzw"), &[Imm(0), Imm(4)])],
            ),
            inst(DCL_RESOURCE, 3 << 11, &[], &[bare(T, 0), raw(&[FLOAT4])]),
            op(DCL_SAMPLER, &[bare(S, 0)]),
            src(T, 0, "xyzw"),
            bare(S, 0),
            operand(head_src(CB, "xyzw"), &[Imm(0), ImmRel(1, rs(0, "y"))]),
        )
    };
    flat(&[
        inst(DCL_GLOBAL_FLAGS, 1 << 11, &[], &[]),
        cb_decl,
        s_decl,
        t_decl,
        inst(DCL_INPUT_PS, 2 << 11, &[], &[dst(V, 0, "xy")]),
        op(DCL_OUTPUT, &[dst(O, 0, "xyzw")]),
        op(DCL_TEMPS, &[raw(&[2])]),
        op(DCL_INDEXABLE_TEMP, &[raw(&[0, 4, 4])]),
        vec![CUSTOMDATA | (3 << 11), 6, f(1.0), 0, 0, 0],
        inst(
            SAMPLE,
            0,
            &[ext_offsets(-1, 2, 0), ext_dim(3, 0), ext_ret(FLOAT4)],
            &[rd(0, "xyzw"), src(V, 0, "xyxx"), t_use, s_use],
        ),
        inst(IF, NZ, &[], &[rs(0, "x")]),
        op(ADD, &[rd(1, "xyzw"), neg(rs(0, "xyzw")), cb_use]),
        op(
            MOV,
            &[
                dst(O, 0, "xyzw"),
                operand(head_src(X, "xyzw"), &[Imm(0), Rel(rs(1, "x"))]),
            ],
        ),
        op(ELSE, &[]),
        op(MOV, &[dst(O, 0, "xyzw"), d2(1.0, 2.0)]),
        op(ENDIF, &[]),
        op(RET, &[]),
    ])
}

/// Decodes `bytes` and, when that succeeds, runs everything else on the program; returns a
/// description of the first panic.
fn exercise(bytes: &[u8]) -> Option<String> {
    let result = catch_unwind(AssertUnwindSafe(|| {
        if let Ok(program) = decode(bytes) {
            let _ = crate::ir::validate(&program);
            let _ = crate::ir::validate_control_flow(&program);
            let _ = program_text(&program);
            if let Ok(words) = encode_words(&program) {
                let _ = decode(&to_bytes(&words));
            }
        }
    }));
    result.err().map(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into())
    })
}

#[test]
fn corruption_sweep_never_panics() {
    const VALUES: [u32; 12] = [
        0,
        1,
        2,
        3,
        0x7f,
        0x80,
        0xffff,
        0x0100_0000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffe,
        0xffff_ffff,
    ];
    let mut failures = Vec::new();
    for (minor, sm51) in [(0, false), (1, true)] {
        let words = program_words(PS, 5, minor, &sweep_body(sm51));
        // The original decodes and round-trips.
        let program = decode_words(&words);
        assert!(
            program.instructions.len() >= 15,
            "the sweep program has {} instructions",
            program.instructions.len()
        );
        for at in 0..words.len() {
            let original = words[at];
            for value in VALUES.iter().copied().chain([
                original ^ (1 << 31),
                original ^ 0x0000_0800,
                original.wrapping_add(1),
            ]) {
                let mut corrupted = words.clone();
                corrupted[at] = value;
                if let Some(panic) = exercise(&to_bytes(&corrupted)) {
                    failures.push(format!("ps_5_{minor}: dword {at} = {value:#010x}: {panic}"));
                }
            }
        }
        let bytes = to_bytes(&words);
        for len in 0..bytes.len() {
            if let Some(panic) = exercise(&bytes[..len]) {
                failures.push(format!("ps_5_{minor}: truncated to {len} bytes: {panic}"));
            }
        }
        // Truncations with the length token fixed up, so the decoder reaches the cut.
        for len in 2..words.len() {
            let mut cut = words[..len].to_vec();
            cut[1] = len as u32;
            if let Some(panic) = exercise(&to_bytes(&cut)) {
                failures.push(format!(
                    "ps_5_{minor}: truncated to {len} dwords (length fixed): {panic}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} corrupted programs panicked:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
