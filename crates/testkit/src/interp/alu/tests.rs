//! Tests of the ALU: edge values of every instruction family in both denormal modes.

use super::*;
use dxbc2spirv::isa::{Layout, OPCODES};

/// Denormals kept, `mad` unfused.
const KEEP: FloatMode = FloatMode {
    flush_denormals: false,
    fuse_mad: false,
    f16_nearest: false,
    dot_reversed: false,
};
/// Denormals flushed, `mad` unfused.
const FLUSH: FloatMode = FloatMode {
    flush_denormals: true,
    fuse_mad: false,
    f16_nearest: false,
    dot_reversed: false,
};
/// Denormals kept, `mad` fused.
const FUSED: FloatMode = FloatMode {
    flush_denormals: false,
    fuse_mad: true,
    f16_nearest: false,
    dot_reversed: false,
};

const NAN: u32 = 0x7fc0_0000;
const INF: u32 = 0x7f80_0000;
const NEG_INF: u32 = 0xff80_0000;
const NEG_ZERO: u32 = 0x8000_0000;
/// The largest float32 denormal.
const DENORM: u32 = 0x007f_ffff;
/// A negative float32 denormal.
const NEG_DENORM: u32 = 0x8000_0001;
const TRUE: u32 = 0xffff_ffff;

fn fl(x: f32) -> u32 {
    x.to_bits()
}

fn splat(x: u32) -> [u32; 4] {
    [x; 4]
}

/// Runs `opcode` on vector sources with full masks.
fn run(opcode: Opcode, srcs: &[[u32; 4]], saturate: bool, mode: FloatMode) -> Results {
    evaluate(opcode, srcs, &[0xf, 0xf], saturate, mode)
        .unwrap_or_else(|| panic!("{} is not handled by the ALU", opcode.name()))
}

/// Checks one scalar case: every source is `srcs[k]` in all components, component 0 of
/// destination `dst` must be `expected`.
fn check_with(
    opcode: Opcode,
    srcs: &[u32],
    saturate: bool,
    mode: FloatMode,
    dst: usize,
    expected: u32,
) {
    let vectors: Vec<[u32; 4]> = srcs.iter().map(|&s| splat(s)).collect();
    let actual = run(opcode, &vectors, saturate, mode)[dst][0];
    assert_eq!(
        actual,
        expected,
        "{}{} srcs {:08x?} ({:?}) {:?}, destination {}: expected {:#010x} ({:e}), got {:#010x} ({:e})",
        opcode.name(),
        if saturate { "_sat" } else { "" },
        srcs,
        srcs.iter().map(|&s| f32::from_bits(s)).collect::<Vec<_>>(),
        mode,
        dst,
        expected,
        f32::from_bits(expected),
        actual,
        f32::from_bits(actual)
    );
}

fn check(opcode: Opcode, srcs: &[u32], mode: FloatMode, expected: u32) {
    check_with(opcode, srcs, false, mode, 0, expected);
}

/// Checks a float result that must be NaN (any NaN).
fn check_nan(opcode: Opcode, srcs: &[u32], mode: FloatMode, dst: usize) {
    let vectors: Vec<[u32; 4]> = srcs.iter().map(|&s| splat(s)).collect();
    let actual = run(opcode, &vectors, false, mode)[dst][0];
    assert!(
        f32::from_bits(actual).is_nan(),
        "{} srcs {:08x?} {:?}, destination {}: expected NaN, got {:#010x} ({:e})",
        opcode.name(),
        srcs,
        mode,
        dst,
        actual,
        f32::from_bits(actual)
    );
}

#[test]
fn add_and_mul_follow_the_ieee_tables() {
    use Opcode::{Add, Mul};
    check(Add, &[fl(1.5), fl(2.25)], KEEP, fl(3.75));
    check_nan(Add, &[INF, NEG_INF], KEEP, 0);
    check_nan(Add, &[NAN, fl(1.0)], KEEP, 0);
    check(Add, &[NEG_ZERO, 0], KEEP, 0);
    check(Add, &[NEG_ZERO, NEG_ZERO], KEEP, NEG_ZERO);
    check(Add, &[INF, fl(1e30)], KEEP, INF);
    check(Add, &[fl(f32::MAX), fl(f32::MAX)], KEEP, INF);
    check_nan(Mul, &[INF, 0], KEEP, 0);
    check(Mul, &[fl(-1.0), NEG_INF], KEEP, INF);
    check(Mul, &[fl(-2.0), 0], KEEP, NEG_ZERO);
}

#[test]
fn denormals_flush_on_input_and_output_only_when_asked() {
    use Opcode::{Add, Mul};
    // Input: denorm + 0.
    check(Add, &[DENORM, 0], KEEP, DENORM);
    check(Add, &[DENORM, 0], FLUSH, 0);
    check(Add, &[NEG_DENORM, NEG_ZERO], FLUSH, NEG_ZERO);
    // Output: a difference of two normals that is denormal.
    let (a, b) = (0x0080_0001, 0x0080_0000);
    check(Add, &[a, b | NEG_ZERO], KEEP, 1);
    check(Add, &[a, b | NEG_ZERO], FLUSH, 0);
    // A product underflowing to a denormal keeps its sign when flushed.
    check(Mul, &[fl(-1e-20), fl(1e-20)], FLUSH, NEG_ZERO);
    check(Mul, &[NEG_DENORM, fl(1.0)], KEEP, NEG_DENORM);
    check(Mul, &[NEG_DENORM, fl(1.0)], FLUSH, NEG_ZERO);
}

#[test]
fn moves_never_flush_or_alter_bits() {
    for mode in [KEEP, FLUSH] {
        for bits in [DENORM, NEG_DENORM, 0x7f80_0001, 0xffc1_2345, NEG_ZERO] {
            check(Opcode::Mov, &[bits], mode, bits);
            check(Opcode::Movc, &[1, bits, 0], mode, bits);
            check(Opcode::Movc, &[0, 0, bits], mode, bits);
            check_with(Opcode::Swapc, &[0, bits, 7], false, mode, 0, bits);
            check_with(Opcode::Swapc, &[0, bits, 7], false, mode, 1, 7);
        }
    }
}

#[test]
fn movc_and_swapc_select_per_component() {
    let cond = [0, 1, 0x8000_0000, 0];
    let (x, y) = ([1, 2, 3, 4], [5, 6, 7, 8]);
    let r = run(Opcode::Movc, &[cond, x, y], false, KEEP);
    assert_eq!(r[0], [5, 2, 3, 8], "movc {cond:?} {x:?} {y:?}");
    let r = run(Opcode::Swapc, &[cond, x, y], false, KEEP);
    assert_eq!(
        r,
        [[1, 6, 7, 4], [5, 2, 3, 8]],
        "swapc {cond:?} {x:?} {y:?}"
    );
}

#[test]
fn saturate_clamps_float_results_and_maps_nan_and_negative_zero_to_zero() {
    use Opcode::{Add, Mov, Movc};
    check_with(Add, &[NAN, 0], true, KEEP, 0, 0);
    check_with(Add, &[NEG_ZERO, NEG_ZERO], true, KEEP, 0, 0);
    check_with(Add, &[fl(1.5), fl(0.75)], true, KEEP, 0, fl(1.0));
    check_with(Add, &[fl(0.25), fl(0.25)], true, KEEP, 0, fl(0.5));
    check_with(Add, &[NEG_INF, 0], true, KEEP, 0, 0);
    check_with(Add, &[INF, 0], true, KEEP, 0, fl(1.0));
    check_with(Mov, &[fl(-3.0)], true, KEEP, 0, 0);
    check_with(Mov, &[NAN], true, KEEP, 0, 0);
    check_with(Mov, &[DENORM], true, KEEP, 0, DENORM);
    check_with(Mov, &[DENORM], true, FLUSH, 0, 0);
    check_with(Movc, &[1, fl(7.0), 0], true, KEEP, 0, fl(1.0));
    // Integer results ignore `_sat`.
    check_with(Opcode::Iadd, &[5, 0xffff_fff0], true, KEEP, 0, 0xffff_fff5);
    check_with(Opcode::Eq, &[0, 0], true, KEEP, 0, TRUE);
    check_with(Opcode::Ftoi, &[fl(5.5)], true, KEEP, 0, 5);
}

#[test]
fn mad_is_fused_or_not_as_the_mode_says() {
    // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: the product rounds to 1 + 2^-22.
    let a = fl(1.0 + f32::EPSILON);
    let c = fl(-(1.0 + 2.0 * f32::EPSILON));
    check(Opcode::Mad, &[a, a, c], KEEP, 0);
    check(Opcode::Mad, &[a, a, c], FUSED, fl(2f32.powi(-46)));
    check(Opcode::Mad, &[fl(2.0), fl(3.0), fl(4.0)], KEEP, fl(10.0));
    check_nan(Opcode::Mad, &[INF, 0, fl(1.0)], FUSED, 0);
}

#[test]
fn dot_products_write_every_component_and_read_the_right_ones() {
    let a = [fl(1.0), fl(2.0), fl(3.0), fl(4.0)];
    let b = [fl(5.0), fl(6.0), fl(7.0), fl(8.0)];
    for (opcode, expected) in [
        (Opcode::Dp2, 17.0f32),
        (Opcode::Dp3, 38.0),
        (Opcode::Dp4, 70.0),
    ] {
        for mode in [KEEP, FUSED] {
            let r = run(opcode, &[a, b], false, mode);
            assert_eq!(
                r[0],
                [fl(expected); 4],
                "{} {a:08x?} {b:08x?} {mode:?}",
                opcode.name()
            );
        }
    }
    // Fused and unfused differ where a product is inexact.
    let e = 1.0 + f32::EPSILON;
    let x = [fl(e), fl(e), 0, 0];
    let y = [fl(e), fl(-e), 0, 0];
    assert_eq!(run(Opcode::Dp2, &[x, y], false, KEEP)[0][0], 0);
    assert_eq!(
        run(Opcode::Dp2, &[x, y], false, FUSED)[0][0],
        fl(-(2f32.powi(-46))),
        "fused dp2 {x:08x?} {y:08x?}"
    );
}

#[test]
fn div_is_correctly_rounded_with_the_zero_and_infinity_rules() {
    use Opcode::Div;
    check(Div, &[fl(1.0), fl(3.0)], KEEP, fl(1.0 / 3.0));
    check(Div, &[fl(1.0), 0], KEEP, INF);
    check(Div, &[fl(-1.0), 0], KEEP, NEG_INF);
    check(Div, &[fl(1.0), NEG_ZERO], KEEP, NEG_INF);
    check_nan(Div, &[0, 0], KEEP, 0);
    check_nan(Div, &[INF, NEG_INF], KEEP, 0);
    check(Div, &[fl(5.0), INF], KEEP, 0);
    check(Div, &[fl(-5.0), INF], KEEP, NEG_ZERO);
    // A denormal divisor is zero when flushed.
    check(Div, &[fl(1.0), DENORM], FLUSH, INF);
    check(Div, &[fl(1.0), 0x0040_0000], KEEP, fl(2f32.powi(127)));
}

#[test]
fn min_and_max_return_the_non_nan_operand() {
    use Opcode::{Max, Min};
    check(Min, &[NAN, fl(2.0)], KEEP, fl(2.0));
    check(Min, &[fl(2.0), NAN], KEEP, fl(2.0));
    check(Max, &[NAN, NEG_INF], KEEP, NEG_INF);
    check(Max, &[fl(-3.0), NAN], KEEP, fl(-3.0));
    check_nan(Min, &[NAN, NAN], KEEP, 0);
    check_nan(Max, &[NAN, NAN], KEEP, 0);
    check(Min, &[fl(1.0), fl(-1.0)], KEEP, fl(-1.0));
    check(Max, &[fl(1.0), fl(-1.0)], KEEP, fl(1.0));
    // IEEE 754R zeros in either order (the spec's recommendation, lavapipe's answer).
    check(Min, &[0, NEG_ZERO], KEEP, NEG_ZERO);
    check(Min, &[NEG_ZERO, 0], KEEP, NEG_ZERO);
    check(Max, &[0, NEG_ZERO], KEEP, 0);
    check(Max, &[NEG_ZERO, 0], KEEP, 0);
    // Denormals compare as zero when flushed.
    check(Max, &[DENORM, 0], KEEP, DENORM);
    check(Max, &[DENORM, 0], FLUSH, 0);
}

#[test]
fn exp_and_log_special_values() {
    use Opcode::{Exp, Log};
    check(Exp, &[NEG_INF], KEEP, 0);
    check(Exp, &[INF], KEEP, INF);
    check(Exp, &[fl(3.0)], KEEP, fl(8.0));
    check(Exp, &[fl(-1.0)], KEEP, fl(0.5));
    check(Exp, &[0], KEEP, fl(1.0));
    check(Exp, &[NEG_DENORM], FLUSH, fl(1.0));
    check(Exp, &[fl(0.5)], KEEP, 0x3fb5_04f3);
    check(Exp, &[fl(200.0)], KEEP, INF);
    check_nan(Exp, &[NAN], KEEP, 0);
    check(Log, &[0], KEEP, NEG_INF);
    check(Log, &[NEG_ZERO], KEEP, NEG_INF);
    check(Log, &[DENORM], FLUSH, NEG_INF);
    check(Log, &[1], KEEP, fl(-149.0));
    check(Log, &[fl(8.0)], KEEP, fl(3.0));
    check(Log, &[INF], KEEP, INF);
    check_nan(Log, &[fl(-1.0)], KEEP, 0);
    check_nan(Log, &[NEG_INF], KEEP, 0);
}

#[test]
fn rsq_sqrt_and_rcp_special_values() {
    use Opcode::{Rcp, Rsq, Sqrt};
    check(Rsq, &[NEG_ZERO], KEEP, NEG_INF);
    check(Rsq, &[0], KEEP, INF);
    check(Rsq, &[INF], KEEP, 0);
    check(Rsq, &[fl(4.0)], KEEP, fl(0.5));
    check(Rsq, &[NEG_DENORM], FLUSH, NEG_INF);
    check_nan(Rsq, &[fl(-1.0)], KEEP, 0);
    check_nan(Rsq, &[NEG_INF], KEEP, 0);
    check(Sqrt, &[NEG_ZERO], KEEP, NEG_ZERO);
    check(Sqrt, &[fl(2.0)], KEEP, 0x3fb5_04f3);
    check(Sqrt, &[INF], KEEP, INF);
    check(Sqrt, &[DENORM], FLUSH, 0);
    check_nan(Sqrt, &[fl(-4.0)], KEEP, 0);
    check(Rcp, &[NEG_ZERO], KEEP, NEG_INF);
    check(Rcp, &[INF], KEEP, 0);
    check(Rcp, &[NEG_INF], KEEP, NEG_ZERO);
    check(Rcp, &[fl(4.0)], KEEP, fl(0.25));
    check(Rcp, &[fl(3.0)], KEEP, fl(1.0 / 3.0));
    check(Rcp, &[0x0040_0000], KEEP, fl(2f32.powi(127)));
    check(Rcp, &[0x0040_0000], FLUSH, INF);
    // 1 / 2^127 = 2^-127, a denormal result.
    check(Rcp, &[fl(2f32.powi(127))], KEEP, 0x0040_0000);
    check(Rcp, &[fl(2f32.powi(127))], FLUSH, 0);
}

#[test]
fn sincos_writes_sine_then_cosine() {
    use Opcode::Sincos;
    check_with(Sincos, &[0], false, KEEP, 0, 0);
    check_with(Sincos, &[0], false, KEEP, 1, fl(1.0));
    check_with(Sincos, &[NEG_ZERO], false, KEEP, 0, NEG_ZERO);
    check_with(Sincos, &[NEG_DENORM], false, FLUSH, 0, NEG_ZERO);
    check_with(Sincos, &[NEG_DENORM], false, FLUSH, 1, fl(1.0));
    let x = 1.0f64;
    check_with(Sincos, &[fl(1.0)], false, KEEP, 0, fl(x.sin() as f32));
    check_with(Sincos, &[fl(1.0)], false, KEEP, 1, fl(x.cos() as f32));
    check_nan(Sincos, &[INF], KEEP, 0);
    check_nan(Sincos, &[NEG_INF], KEEP, 1);
    check_nan(Sincos, &[NAN], KEEP, 1);
}

#[test]
fn frc_and_rounding() {
    use Opcode::{Frc, RoundNe, RoundNi, RoundPi, RoundZ};
    check(Frc, &[fl(2.5)], KEEP, fl(0.5));
    check(Frc, &[fl(-0.25)], KEEP, fl(0.75));
    check(Frc, &[NEG_ZERO], KEEP, 0);
    check(Frc, &[fl(-1e-10)], KEEP, 0x3f7f_ffff);
    check(Frc, &[NEG_DENORM], FLUSH, 0);
    check_nan(Frc, &[INF], KEEP, 0);
    check_nan(Frc, &[NEG_INF], KEEP, 0);
    check(RoundNe, &[fl(2.5)], KEEP, fl(2.0));
    check(RoundNe, &[fl(3.5)], KEEP, fl(4.0));
    check(RoundNe, &[fl(-2.5)], KEEP, fl(-2.0));
    check(RoundNe, &[fl(-0.4)], KEEP, NEG_ZERO);
    check(RoundNi, &[fl(-0.5)], KEEP, fl(-1.0));
    check(RoundNi, &[fl(1.9)], KEEP, fl(1.0));
    check(RoundPi, &[fl(-0.5)], KEEP, NEG_ZERO);
    check(RoundPi, &[fl(1.1)], KEEP, fl(2.0));
    check(RoundPi, &[DENORM], KEEP, fl(1.0));
    check(RoundPi, &[DENORM], FLUSH, 0);
    check(RoundNi, &[NEG_DENORM], KEEP, fl(-1.0));
    check(RoundNi, &[NEG_DENORM], FLUSH, NEG_ZERO);
    check(RoundZ, &[fl(-1.7)], KEEP, fl(-1.0));
    check(RoundZ, &[fl(-0.7)], KEEP, NEG_ZERO);
    check(RoundZ, &[NEG_INF], KEEP, NEG_INF);
    check_nan(RoundNe, &[NAN], KEEP, 0);
}

#[test]
fn float_comparisons_with_nan_zero_and_denormals() {
    use Opcode::{Eq, Ge, Lt, Ne};
    for opcode in [Eq, Lt, Ge] {
        check(opcode, &[NAN, fl(1.0)], KEEP, 0);
        check(opcode, &[fl(1.0), NAN], KEEP, 0);
        check(opcode, &[NAN, NAN], KEEP, 0);
    }
    check(Ne, &[NAN, fl(1.0)], KEEP, TRUE);
    check(Ne, &[NAN, NAN], KEEP, TRUE);
    check(Eq, &[0, NEG_ZERO], KEEP, TRUE);
    check(Ge, &[NEG_ZERO, 0], KEEP, TRUE);
    check(Lt, &[NEG_ZERO, 0], KEEP, 0);
    check(Lt, &[fl(1.0), INF], KEEP, TRUE);
    check(Ge, &[NEG_INF, fl(-1e38)], KEEP, 0);
    check(Eq, &[DENORM, 0], KEEP, 0);
    check(Eq, &[DENORM, 0], FLUSH, TRUE);
    check(Lt, &[0, DENORM], FLUSH, 0);
    check(Lt, &[0, DENORM], KEEP, TRUE);
}

#[test]
fn float_to_integer_conversions_truncate_and_saturate() {
    use Opcode::{Ftoi, Ftou};
    check(Ftoi, &[NAN], KEEP, 0);
    check(Ftoi, &[fl(1e10)], KEEP, i32::MAX as u32);
    check(Ftoi, &[fl(-1e10)], KEEP, i32::MIN as u32);
    check(Ftoi, &[INF], KEEP, i32::MAX as u32);
    check(Ftoi, &[NEG_INF], KEEP, i32::MIN as u32);
    check(Ftoi, &[fl(-1.9)], KEEP, (-1i32) as u32);
    check(Ftoi, &[fl(2147483520.0)], KEEP, 2147483520);
    check(Ftoi, &[fl(-2147483648.0)], KEEP, i32::MIN as u32);
    check(Ftou, &[NAN], KEEP, 0);
    check(Ftou, &[fl(-1.0)], KEEP, 0);
    check(Ftou, &[NEG_INF], KEEP, 0);
    check(Ftou, &[fl(5e9)], KEEP, u32::MAX);
    check(Ftou, &[fl(3.99)], KEEP, 3);
    check(Ftou, &[fl(4294967040.0)], KEEP, 4294967040);
}

#[test]
fn integer_to_float_conversions_round_to_nearest_even() {
    use Opcode::{Itof, Utof};
    check(Itof, &[i32::MIN as u32], KEEP, fl(-2147483648.0));
    check(Itof, &[16_777_217], KEEP, fl(16_777_216.0));
    check(Itof, &[16_777_219], KEEP, fl(16_777_220.0));
    check(Itof, &[(-5i32) as u32], KEEP, fl(-5.0));
    check(Utof, &[u32::MAX], KEEP, fl(4294967296.0));
    check(Utof, &[0x8000_0000], KEEP, fl(2147483648.0));
    check(Utof, &[0], KEEP, 0);
}

#[test]
fn f32tof16_rounds_toward_zero_and_clamps_to_the_largest_half() {
    use Opcode::F32ToF16;
    let cases: &[(u32, u32)] = &[
        (fl(1.0), 0x3c00),
        (fl(-2.0), 0xc000),
        (0, 0),
        (NEG_ZERO, 0x8000),
        (fl(65504.0), 0x7bff),
        // RNE would give infinity here; D3D's round-to-zero keeps the largest half.
        (fl(65520.0), 0x7bff),
        (fl(1e6), 0x7bff),
        (fl(-1e30), 0xfbff),
        (INF, 0x7c00),
        (NEG_INF, 0xfc00),
        // 1 + 2^-10 is exact; 1 + 2^-11 + 2^-12 truncates (RNE would round up).
        (fl(1.0 + 2f32.powi(-10)), 0x3c01),
        (fl(1.0 + 2f32.powi(-11) + 2f32.powi(-12)), 0x3c00),
        (fl(-(1.0 + 2f32.powi(-11) + 2f32.powi(-12))), 0xbc00),
        // Half denormals: 2^-24 is the smallest, 2^-15 is 0x200; below 2^-24 gives 0.
        (fl(2f32.powi(-24)), 0x0001),
        (fl(2f32.powi(-15)), 0x0200),
        (fl(2f32.powi(-14)), 0x0400),
        (fl(2f32.powi(-25)), 0),
        (fl(-(2f32.powi(-24) * 1.75)), 0x8001),
        (DENORM, 0),
        (NEG_DENORM, 0x8000),
    ];
    for mode in [KEEP, FLUSH] {
        for &(input, expected) in cases {
            check(F32ToF16, &[input], mode, expected);
        }
    }
    let nan = run(F32ToF16, &[splat(NAN)], false, KEEP)[0][0];
    assert!(
        nan & 0x7c00 == 0x7c00 && nan & 0x3ff != 0 && nan >> 16 == 0,
        "f32tof16 NaN gave {nan:#x}, not a float16 NaN"
    );
    let nan = run(F32ToF16, &[splat(0xff80_0001)], false, KEEP)[0][0];
    assert!(
        nan & 0x7c00 == 0x7c00 && nan & 0x3ff != 0,
        "f32tof16 of a NaN with a low payload gave {nan:#x}"
    );
}

#[test]
fn f16tof32_is_exact_and_reads_the_low_half() {
    use Opcode::{F16ToF32, F32ToF16};
    let cases: &[(u32, u32)] = &[
        (0x3c00, fl(1.0)),
        (0xffff_3c00, fl(1.0)),
        (0xc000, fl(-2.0)),
        (0x7bff, fl(65504.0)),
        (0x0001, fl(2f32.powi(-24))),
        (0x8001, fl(-(2f32.powi(-24)))),
        (0x03ff, fl(1023.0 * 2f32.powi(-24))),
        (0x8000, NEG_ZERO),
        (0x7c00, INF),
        (0xfc00, NEG_INF),
    ];
    for mode in [KEEP, FLUSH] {
        for &(input, expected) in cases {
            check(F16ToF32, &[input], mode, expected);
        }
    }
    check_nan(F16ToF32, &[0x7e00], KEEP, 0);
    check_nan(F16ToF32, &[0xfc01], KEEP, 0);
    // Every finite half round-trips.
    for h in 0..=0xffffu32 {
        if h & 0x7c00 == 0x7c00 {
            continue;
        }
        let f = run(F16ToF32, &[splat(h)], false, KEEP)[0][0];
        let back = run(F32ToF16, &[splat(f)], false, KEEP)[0][0];
        assert_eq!(back, h, "half {h:#06x} -> {f:#010x} -> {back:#06x}");
    }
}

#[test]
fn integer_arithmetic_wraps_and_splits() {
    use Opcode::*;
    check(Iadd, &[i32::MAX as u32, 1], KEEP, i32::MIN as u32);
    check(Imad, &[0x10000, 0x10000, 5], KEEP, 5);
    check(Umad, &[3, 4, 5], KEEP, 17);
    check(Ineg, &[i32::MIN as u32], KEEP, i32::MIN as u32);
    check(Ineg, &[1], KEEP, u32::MAX);
    // imul/umul: [hi, lo].
    check_with(Imul, &[u32::MAX, u32::MAX], false, KEEP, 0, 0);
    check_with(Imul, &[u32::MAX, u32::MAX], false, KEEP, 1, 1);
    check_with(Imul, &[i32::MIN as u32, u32::MAX], false, KEEP, 0, 0);
    check_with(
        Imul,
        &[i32::MIN as u32, u32::MAX],
        false,
        KEEP,
        1,
        0x8000_0000,
    );
    check_with(Imul, &[i32::MIN as u32, 2], false, KEEP, 0, u32::MAX);
    check_with(Umul, &[u32::MAX, u32::MAX], false, KEEP, 0, 0xffff_fffe);
    check_with(Umul, &[u32::MAX, u32::MAX], false, KEEP, 1, 1);
    // udiv: [quotient, remainder]; by zero both are 0xffffffff.
    check_with(Udiv, &[7, 2], false, KEEP, 0, 3);
    check_with(Udiv, &[7, 2], false, KEEP, 1, 1);
    check_with(Udiv, &[7, 0], false, KEEP, 0, u32::MAX);
    check_with(Udiv, &[7, 0], false, KEEP, 1, u32::MAX);
    check_with(Udiv, &[0, 0], false, KEEP, 1, u32::MAX);
    check_with(Udiv, &[u32::MAX, 0x8000_0000], false, KEEP, 0, 1);
    // uaddc/usubb: [result, carry/borrow].
    check_with(Uaddc, &[u32::MAX, 2], false, KEEP, 0, 1);
    check_with(Uaddc, &[u32::MAX, 2], false, KEEP, 1, 1);
    check_with(Uaddc, &[5, 2], false, KEEP, 1, 0);
    check_with(Usubb, &[1, 2], false, KEEP, 0, u32::MAX);
    check_with(Usubb, &[1, 2], false, KEEP, 1, 1);
    check_with(Usubb, &[2, 2], false, KEEP, 1, 0);
}

#[test]
fn shifts_use_the_low_five_bits_of_the_count() {
    use Opcode::{Ishl, Ishr, Ushr};
    check(Ishl, &[1, 33], KEEP, 2);
    check(Ishl, &[1, 32], KEEP, 1);
    check(Ishl, &[1, 31], KEEP, 0x8000_0000);
    check(Ishr, &[0x8000_0000, 31], KEEP, u32::MAX);
    check(Ishr, &[0x8000_0000, 63], KEEP, u32::MAX);
    check(Ishr, &[0x4000_0000, 30], KEEP, 1);
    check(Ushr, &[0x8000_0000, 32], KEEP, 0x8000_0000);
    check(Ushr, &[0x8000_0000, 31], KEEP, 1);
    check(Ushr, &[0x8000_0000, 0xffff_ffe1], KEEP, 0x4000_0000);
}

#[test]
fn integer_min_max_and_comparisons_are_signed_or_unsigned() {
    use Opcode::*;
    let m1 = (-1i32) as u32;
    check(Imax, &[m1, 1], KEEP, 1);
    check(Imin, &[m1, 1], KEEP, m1);
    check(
        Imin,
        &[i32::MIN as u32, i32::MAX as u32],
        KEEP,
        i32::MIN as u32,
    );
    check(Umax, &[m1, 1], KEEP, m1);
    check(Umin, &[m1, 1], KEEP, 1);
    check(Ieq, &[5, 5], KEEP, TRUE);
    check(Ine, &[5, 5], KEEP, 0);
    check(Ilt, &[m1, 0], KEEP, TRUE);
    check(Ige, &[m1, 0], KEEP, 0);
    check(Ult, &[m1, 0], KEEP, 0);
    check(Uge, &[m1, 0], KEEP, TRUE);
    check(And, &[0xf0f0, 0xff00], KEEP, 0xf000);
    check(Or, &[0xf0f0, 0xff00], KEEP, 0xfff0);
    check(Xor, &[0xf0f0, 0xff00], KEEP, 0x0ff0);
    check(Not, &[0], KEEP, u32::MAX);
}

#[test]
fn bitfield_instructions_follow_the_spec_edges() {
    use Opcode::{Bfi, Ibfe, Ubfe};
    // bfi width, offset, insert, base.
    check(Bfi, &[8, 4, 0xff, 0], KEEP, 0xff0);
    check(Bfi, &[0, 4, 0xff, 0x1234], KEEP, 0x1234);
    check(Bfi, &[31, 31, u32::MAX, 0], KEEP, 0x8000_0000);
    check(Bfi, &[4, 30, 0xf, 0], KEEP, 0xc000_0000);
    check(Bfi, &[36, 0, u32::MAX, 0], KEEP, 0xf);
    check(Bfi, &[8, 36, 0xab, 0xffff_ffff], KEEP, 0xffff_fabf);
    // ubfe/ibfe width, offset, value.
    check(Ubfe, &[0, 4, u32::MAX], KEEP, 0);
    check(Ibfe, &[0, 4, u32::MAX], KEEP, 0);
    check(Ubfe, &[4, 4, 0xabcd], KEEP, 0xc);
    check(Ibfe, &[4, 4, 0xabcd], KEEP, 0xffff_fffc);
    check(Ibfe, &[4, 4, 0xab7d], KEEP, 0x7);
    // width + offset >= 32: a plain shift by offset.
    check(Ubfe, &[8, 28, 0xf000_0000], KEEP, 0xf);
    check(Ibfe, &[8, 28, 0x8000_0000], KEEP, 0xffff_fff8);
    check(Ubfe, &[31, 1, u32::MAX], KEEP, 0x7fff_ffff);
    check(Ibfe, &[31, 1, 0x8000_0000], KEEP, 0xc000_0000);
    // Width and offset read only their low 5 bits.
    check(Ubfe, &[33, 32, 0xff], KEEP, 1);
    check(Ubfe, &[32, 0, 0xff], KEEP, 0);
}

#[test]
fn bit_counting_instructions() {
    use Opcode::{Bfrev, Countbits, FirstbitHi, FirstbitLo, FirstbitShi};
    check(Bfrev, &[0x1234_5678], KEEP, 0x1e6a_2c48);
    check(Bfrev, &[1], KEEP, 0x8000_0000);
    check(Countbits, &[0xf0f0_0001], KEEP, 9);
    check(Countbits, &[u32::MAX], KEEP, 32);
    check(FirstbitHi, &[0x1000_0000], KEEP, 3);
    check(FirstbitHi, &[1], KEEP, 31);
    check(FirstbitHi, &[0x8000_0000], KEEP, 0);
    check(FirstbitHi, &[0], KEEP, u32::MAX);
    check(FirstbitLo, &[1], KEEP, 0);
    check(FirstbitLo, &[0x8000_0000], KEEP, 31);
    check(FirstbitLo, &[0x0001_0100], KEEP, 8);
    check(FirstbitLo, &[0], KEEP, u32::MAX);
    check(FirstbitShi, &[0], KEEP, u32::MAX);
    check(FirstbitShi, &[u32::MAX], KEEP, u32::MAX);
    check(FirstbitShi, &[0xf000_0000], KEEP, 4);
    check(FirstbitShi, &[1], KEEP, 31);
    check(FirstbitShi, &[0x7fff_ffff], KEEP, 1);
    check(FirstbitShi, &[0x8000_0000], KEEP, 1);
}

#[test]
fn msad_skips_zero_reference_bytes_and_saturates() {
    // Bytes: (ref 2, src 1) 1, (1, 3) 2, (0xff, 0) 255, (0, 9) skipped.
    check(Opcode::Msad, &[0x00ff_0102, 0x0900_0301, 5], KEEP, 5 + 258);
    check(Opcode::Msad, &[0, u32::MAX, 7], KEEP, 7);
    check(Opcode::Msad, &[0xff, 0, 0xffff_fff0], KEEP, u32::MAX);
}

/// A double source: double 0 in components 0–1, double 1 in 2–3.
fn d2(x: f64, y: f64) -> [u32; 4] {
    let (x, y) = (x.to_bits(), y.to_bits());
    [x as u32, (x >> 32) as u32, y as u32, (y >> 32) as u32]
}

/// The two doubles of a 64-bit result.
fn doubles_of(r: [u32; 4]) -> [f64; 2] {
    [
        f64::from_bits(u64::from(r[0]) | (u64::from(r[1]) << 32)),
        f64::from_bits(u64::from(r[2]) | (u64::from(r[3]) << 32)),
    ]
}

fn run_double(
    opcode: Opcode,
    srcs: &[[u32; 4]],
    mask: u8,
    saturate: bool,
    mode: FloatMode,
) -> [u32; 4] {
    evaluate(opcode, srcs, &[mask], saturate, mode)
        .unwrap_or_else(|| panic!("{} is not handled by the ALU", opcode.name()))[0]
}

#[test]
fn double_arithmetic_lanes_are_xy_and_zw() {
    let a = d2(1.5, -2.0);
    let b = d2(10.0, 0.25);
    for (opcode, expected) in [
        (Opcode::Dadd, [11.5, -1.75]),
        (Opcode::Dmul, [15.0, -0.5]),
        (Opcode::Ddiv, [0.15, -8.0]),
        (Opcode::Dmin, [1.5, -2.0]),
        (Opcode::Dmax, [10.0, 0.25]),
    ] {
        let r = run_double(opcode, &[a, b], 0xf, false, KEEP);
        assert_eq!(
            doubles_of(r),
            expected,
            "{} {a:08x?} {b:08x?} gave {r:08x?}",
            opcode.name()
        );
    }
    let r = run_double(Opcode::Drcp, &[d2(4.0, -0.0)], 0xf, false, KEEP);
    assert_eq!(doubles_of(r), [0.25, f64::NEG_INFINITY], "drcp {r:08x?}");
    let r = run_double(
        Opcode::Ddiv,
        &[d2(1.0, 0.0), d2(0.0, 0.0)],
        0xf,
        false,
        KEEP,
    );
    let [inf, nan] = doubles_of(r);
    assert!(
        inf == f64::INFINITY && nan.is_nan(),
        "ddiv 1/0, 0/0 gave {r:08x?}"
    );
}

#[test]
fn dfma_rounds_once() {
    let e = 1.0 + f64::EPSILON;
    let (a, c) = (d2(e, 2.0), d2(-(1.0 + 2.0 * f64::EPSILON), 1.0));
    let r = run_double(Opcode::Dfma, &[a, a, c], 0xf, false, KEEP);
    assert_eq!(
        doubles_of(r),
        [f64::EPSILON * f64::EPSILON, 5.0],
        "dfma {a:08x?} {c:08x?} gave {r:08x?}"
    );
}

#[test]
fn double_min_max_nan_rules_and_denormals_kept() {
    let r = run_double(
        Opcode::Dmin,
        &[d2(f64::NAN, 1.0), d2(3.0, f64::NAN)],
        0xf,
        false,
        FLUSH,
    );
    assert_eq!(doubles_of(r), [3.0, 1.0], "dmin {r:08x?}");
    let r = run_double(
        Opcode::Dmax,
        &[d2(-0.0, 0.0), d2(0.0, -0.0)],
        0xf,
        false,
        KEEP,
    );
    assert_eq!(
        doubles_of(r).map(f64::to_bits),
        [0, 0],
        "dmax zeros {r:08x?}"
    );
    let r = run_double(
        Opcode::Dmin,
        &[d2(-0.0, 0.0), d2(0.0, -0.0)],
        0xf,
        false,
        KEEP,
    );
    assert_eq!(
        doubles_of(r).map(f64::to_bits),
        [1 << 63, 1 << 63],
        "dmin zeros {r:08x?}"
    );
    let tiny = f64::from_bits(1);
    for mode in [KEEP, FLUSH] {
        let r = run_double(
            Opcode::Dmul,
            &[d2(tiny, tiny), d2(1.0, -1.0)],
            0xf,
            false,
            mode,
        );
        assert_eq!(
            doubles_of(r),
            [tiny, -tiny],
            "dmul of a denormal ({mode:?}) {r:08x?}"
        );
    }
}

#[test]
fn double_saturate_and_moves() {
    let r = run_double(
        Opcode::Dadd,
        &[d2(0.5, 3.0), d2(0.25, 0.0)],
        0xf,
        true,
        KEEP,
    );
    assert_eq!(doubles_of(r), [0.75, 1.0], "dadd_sat {r:08x?}");
    let r = run_double(Opcode::Dmov, &[d2(f64::NAN, -0.0)], 0xf, true, KEEP);
    assert_eq!(
        doubles_of(r).map(f64::to_bits),
        [0, 0],
        "dmov_sat NaN, -0 {r:08x?}"
    );
    // Without `_sat` the bits move unchanged.
    let odd = [0x1234_5678, 0x7ff0_0001, 1, 0x8000_0000];
    assert_eq!(run_double(Opcode::Dmov, &[odd], 0xf, false, FLUSH), odd);
    // dmovc: condition k is component k post-swizzle.
    let (x, y) = (d2(1.0, 2.0), d2(3.0, 4.0));
    let r = run_double(Opcode::Dmovc, &[[0, 5, 9, 9], x, y], 0xf, false, KEEP);
    assert_eq!(doubles_of(r), [3.0, 2.0], "dmovc [0, 5] {r:08x?}");
}

#[test]
fn double_comparisons_fill_the_mask_components_in_order() {
    let (a, b) = (d2(1.0, f64::NAN), d2(1.0, 2.0));
    // .yw: y gets the first comparison, w the second.
    let r = run_double(Opcode::Deq, &[a, b], 0b1010, false, KEEP);
    assert_eq!([r[1], r[3]], [TRUE, 0], "deq .yw {r:08x?}");
    let r = run_double(Opcode::Dne, &[a, b], 0b0011, false, KEEP);
    assert_eq!([r[0], r[1]], [0, TRUE], "dne .xy {r:08x?}");
    // A single component (.z) gets the first comparison.
    let r = run_double(
        Opcode::Dlt,
        &[d2(-1.0, 5.0), d2(0.0, 0.0)],
        0b0100,
        false,
        KEEP,
    );
    assert_eq!(r[2], TRUE, "dlt .z {r:08x?}");
    let r = run_double(
        Opcode::Dge,
        &[d2(-0.0, f64::NAN), d2(0.0, 0.0)],
        0b1100,
        false,
        KEEP,
    );
    assert_eq!([r[2], r[3]], [TRUE, 0], "dge .zw {r:08x?}");
    // _sat is ignored on integer results.
    let r = run_double(Opcode::Deq, &[a, b], 0b0001, true, KEEP);
    assert_eq!(r[0], TRUE, "deq_sat .x {r:08x?}");
}

#[test]
fn double_conversions() {
    // dtof to .w and .yz.
    let r = run_double(Opcode::Dtof, &[d2(1.0 / 3.0, 1e300)], 0b1000, false, KEEP);
    assert_eq!(r[3], fl(1.0 / 3.0), "dtof .w {r:08x?}");
    let r = run_double(Opcode::Dtof, &[d2(-2.5, 1e300)], 0b0110, false, KEEP);
    assert_eq!([r[1], r[2]], [fl(-2.5), INF], "dtof .yz {r:08x?}");
    // A float32 denormal result follows the mode.
    let r = run_double(Opcode::Dtof, &[d2(1e-40, 0.0)], 0b0001, false, KEEP);
    assert_eq!(r[0], fl(1e-40), "dtof denormal kept {r:08x?}");
    let r = run_double(Opcode::Dtof, &[d2(-1e-40, 0.0)], 0b0001, false, FLUSH);
    assert_eq!(r[0], NEG_ZERO, "dtof denormal flushed {r:08x?}");
    let r = run_double(Opcode::Dtof, &[d2(4.0, 0.0)], 0b0001, true, KEEP);
    assert_eq!(r[0], fl(1.0), "dtof_sat {r:08x?}");
    // dtoi/dtou: truncate, clamp, NaN gives 0.
    let r = run_double(Opcode::Dtoi, &[d2(-7.9, 1e20)], 0b0011, false, KEEP);
    assert_eq!(
        [r[0], r[1]],
        [(-7i32) as u32, i32::MAX as u32],
        "dtoi {r:08x?}"
    );
    let r = run_double(
        Opcode::Dtoi,
        &[d2(f64::NAN, -2147483648.9)],
        0b0011,
        false,
        KEEP,
    );
    assert_eq!([r[0], r[1]], [0, i32::MIN as u32], "dtoi NaN, min {r:08x?}");
    let r = run_double(Opcode::Dtou, &[d2(-1.0, 4294967295.9)], 0b1001, false, KEEP);
    assert_eq!([r[0], r[3]], [0, u32::MAX], "dtou .xw {r:08x?}");
    // ftod/itod/utod read 32-bit components 0 and 1.
    let r = run_double(Opcode::Ftod, &[[fl(0.1), fl(-3.0), 0, 0]], 0xf, false, KEEP);
    assert_eq!(doubles_of(r), [f64::from(0.1f32), -3.0], "ftod {r:08x?}");
    let r = run_double(
        Opcode::Ftod,
        &[[DENORM, NEG_DENORM, 0, 0]],
        0xf,
        false,
        FLUSH,
    );
    assert_eq!(
        doubles_of(r).map(f64::to_bits),
        [0, 1 << 63],
        "ftod flushed {r:08x?}"
    );
    let r = run_double(Opcode::Ftod, &[[DENORM, 0, 0, 0]], 0xf, false, KEEP);
    assert_eq!(
        doubles_of(r)[0],
        f64::from(f32::from_bits(DENORM)),
        "ftod kept {r:08x?}"
    );
    let r = run_double(
        Opcode::Itod,
        &[[i32::MIN as u32, u32::MAX, 0, 0]],
        0xf,
        false,
        KEEP,
    );
    assert_eq!(doubles_of(r), [-2147483648.0, -1.0], "itod {r:08x?}");
    let r = run_double(Opcode::Utod, &[[u32::MAX, 7, 0, 0]], 0xf, false, KEEP);
    assert_eq!(doubles_of(r), [4294967295.0, 7.0], "utod {r:08x?}");
}

/// Opcodes with an ALU instruction's shape that belong elsewhere (derivatives, pixel
/// evaluation, memory, resources, sparse feedback).
fn handled_elsewhere(opcode: Opcode) -> bool {
    let name = opcode.name();
    [
        "deriv_",
        "eval_",
        "ld",
        "store_",
        "atomic_",
        "imm_atomic_",
        "sample",
        "gather",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
        || matches!(
            opcode,
            Opcode::CheckAccessFullyMapped
                | Opcode::Resinfo
                | Opcode::Bufinfo
                | Opcode::Lod
                | Opcode::Sync
        )
}

#[test]
fn every_alu_shaped_opcode_is_handled() {
    let mut missing = Vec::new();
    let mut wrongly_handled = Vec::new();
    for info in OPCODES {
        let shaped = info.layout == Layout::Operands
            && !info.dsts.is_empty()
            && !info
                .dsts
                .iter()
                .chain(info.srcs)
                .any(|t| *t == dxbc2spirv::ir::ValueType::None);
        let alu = shaped && !handled_elsewhere(info.opcode);
        let srcs = vec![[0u32; 4]; info.srcs.len()];
        let handled = evaluate(info.opcode, &srcs, &[0xf, 0xf], false, KEEP).is_some();
        if alu && !handled {
            missing.push(info.name);
        }
        if !alu && handled && info.opcode != Opcode::Nop {
            wrongly_handled.push(info.name);
        }
    }
    assert!(missing.is_empty(), "ALU opcodes not handled: {missing:?}");
    assert!(
        wrongly_handled.is_empty(),
        "non-ALU opcodes the ALU claims: {wrongly_handled:?}"
    );
}

#[test]
fn missing_sources_and_masks_do_not_panic() {
    for info in OPCODES {
        let _ = evaluate(info.opcode, &[], &[], true, FLUSH);
        let _ = evaluate(info.opcode, &[[u32::MAX; 4]], &[0xff], true, FUSED);
    }
}

#[test]
fn tolerance_table_covers_the_approximate_instructions() {
    for opcode in [
        Opcode::Exp,
        Opcode::Log,
        Opcode::Rsq,
        Opcode::Sqrt,
        Opcode::Rcp,
        Opcode::Sincos,
        Opcode::Div,
        Opcode::Drcp,
    ] {
        let entry = tolerance(opcode);
        assert!(
            entry.is_some_and(|(name, _)| name.starts_with(opcode.name())),
            "{}: {entry:?}",
            opcode.name()
        );
    }
    for opcode in [
        Opcode::Add,
        Opcode::Mul,
        Opcode::Iadd,
        Opcode::Ddiv,
        Opcode::Dfma,
    ] {
        assert_eq!(tolerance(opcode), None, "{} must be exact", opcode.name());
    }
}

#[test]
fn within_compares_nan_infinity_ulps_and_bounds() {
    let ulps = Tolerance::Ulps(1);
    assert!(within(ulps, NAN, 0xffc1_2345));
    assert!(!within(ulps, NAN, 0));
    assert!(!within(ulps, 0, NAN));
    assert!(within(ulps, INF, INF));
    assert!(!within(ulps, INF, 0x7f7f_ffff));
    assert!(!within(ulps, 0x7f7f_ffff, INF));
    assert!(within(ulps, 0, NEG_ZERO));
    assert!(within(ulps, 0, 1));
    assert!(within(ulps, 1, NEG_ZERO));
    assert!(!within(ulps, 1, NEG_DENORM));
    assert!(within(ulps, fl(1.0), fl(1.0) + 1));
    assert!(within(ulps, fl(1.0), fl(1.0) - 1));
    assert!(!within(ulps, fl(1.0), fl(1.0) + 2));
    assert!(within(Tolerance::Ulps(0), 0, NEG_ZERO));
    let relative = tolerance(Opcode::Rcp)
        .map(|(_, t)| t)
        .unwrap_or(Tolerance::Ulps(0));
    assert!(within(relative, fl(1.0), fl(1.0) + 3));
    assert!(within(relative, fl(1.0), fl(1.0) - 7));
    assert!(!within(relative, fl(1.0), fl(1.0) + 5));
    assert!(!within(relative, fl(1.0), fl(1.0) - 9));
    let log = tolerance(Opcode::Log)
        .map(|(_, t)| t)
        .unwrap_or(Tolerance::Ulps(0));
    // Near zero the absolute bound applies; far from it the relative one.
    assert!(within(log, 0, fl(4e-7)));
    assert!(!within(log, 0, fl(5e-7)));
    assert!(within(log, fl(100.0), fl(100.00004)));
    assert!(!within(log, fl(100.0), fl(100.0001)));
    let sincos = Tolerance::Absolute(0.0008);
    assert!(within(sincos, fl(0.5), fl(0.5007)));
    assert!(!within(sincos, fl(0.5), fl(0.5009)));
    let half = Tolerance::Float16;
    assert!(within(half, 0x7e00, 0x7c01));
    assert!(within(half, 0xfe00, 0x7fff));
    assert!(!within(half, 0x7c00, 0x7c01));
    assert!(!within(half, 0x3c00, 0x3c01));
    assert!(!within(half, 0x3c00, 0x1_3c00));
    assert!(within64(
        Tolerance::Ulps(1),
        1.0f64.to_bits(),
        1.0f64.to_bits() + 1
    ));
    assert!(!within64(
        Tolerance::Ulps(1),
        1.0f64.to_bits(),
        1.0f64.to_bits() + 2
    ));
    assert!(within64(
        Tolerance::Ulps(1),
        f64::NAN.to_bits(),
        0xfff0_0000_0000_0001
    ));
    assert!(!within64(
        Tolerance::Ulps(1),
        f64::INFINITY.to_bits(),
        f64::MAX.to_bits()
    ));
}

#[test]
fn approximate_results_are_within_their_own_tolerance_of_libm() {
    // The interpreter's own values against f32 libm results for a spread of inputs: both
    // must agree to within the tolerance (a check that the table is not too tight for a
    // good implementation).
    let inputs = [0.001f32, 0.3, 0.5, 0.9, 1.0, 1.7, 2.0, 3.3, 77.0, 1e6, 1e-6];
    for &x in &inputs {
        for (opcode, reference) in [
            (Opcode::Exp, (x * 0.01).exp2()),
            (Opcode::Log, x.log2()),
            (Opcode::Rsq, 1.0 / x.sqrt()),
            (Opcode::Sqrt, x.sqrt()),
            (Opcode::Rcp, 1.0 / x),
        ] {
            let input = if opcode == Opcode::Exp { x * 0.01 } else { x };
            let ours = run(opcode, &[splat(fl(input))], false, KEEP)[0][0];
            let Some((name, rule)) = tolerance(opcode) else {
                panic!("{} has no tolerance", opcode.name());
            };
            assert!(
                within(rule, ours, fl(reference)),
                "{name}: input {input:e}: interpreter {:e}, libm {reference:e}",
                f32::from_bits(ours)
            );
        }
    }
}

#[test]
fn mad_and_dot_flush_their_intermediate_products() {
    let tiny = fl(1e-20);
    // The product 1e-40 is a denormal: flushed, only c remains.
    check(Opcode::Mad, &[tiny, tiny, 0], FLUSH, 0);
    check(Opcode::Mad, &[tiny, tiny, 0], KEEP, fl(1e-20f32 * 1e-20f32));
    check(Opcode::Mad, &[tiny, tiny, fl(2e-38)], FLUSH, fl(2e-38));
    check(
        Opcode::Mad,
        &[tiny, tiny, fl(2e-38)],
        KEEP,
        fl(1e-20f32 * 1e-20f32 + 2e-38),
    );
    let r = run(
        Opcode::Dp2,
        &[[tiny, fl(1.0), 0, 0], [tiny, fl(2.0), 0, 0]],
        false,
        FLUSH,
    );
    assert_eq!(r[0], [fl(2.0); 4], "dp2 with a denormal product, flushed");
}

/// A small deterministic generator for property tests.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

#[test]
fn f32tof16_rounds_toward_zero_over_a_sweep_of_floats() {
    // Every 4099th float32: the half is the largest in magnitude not above |x| (or ±65504
    // beyond the range), with x's sign.
    let mut bits = 0u32;
    let mut checked = 0u32;
    loop {
        checked += 1;
        let x = f32::from_bits(bits);
        let h = f32_to_f16(x);
        if x.is_nan() {
            assert!(
                h & 0x7c00 == 0x7c00 && h & 0x3ff != 0,
                "{bits:#010x} -> {h:#06x}"
            );
        } else {
            let value = f16_to_f32(h);
            assert_eq!(
                value.is_sign_negative(),
                x.is_sign_negative(),
                "sign of {bits:#010x} -> {h:#06x}"
            );
            let magnitude = h & 0x7fff;
            if x.is_infinite() {
                assert_eq!(magnitude, 0x7c00, "{x:e} -> {h:#06x}");
            } else if x.abs() >= 65504.0 {
                assert_eq!(magnitude, 0x7bff, "{x:e} -> {h:#06x}");
            } else {
                let next = f16_to_f32(magnitude + 1);
                assert!(
                    value.abs() <= x.abs() && x.abs() < next,
                    "{x:e} ({bits:#010x}) -> {h:#06x} = {value:e}, next half {next:e}"
                );
            }
        }
        match bits.checked_add(4099) {
            Some(b) => bits = b,
            None => break,
        }
    }
    assert!(checked > 1_000_000, "only {checked} floats checked");
}

#[test]
fn bitfield_instructions_match_a_bit_by_bit_definition() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let (w, o, v, base) = (rng.next(), rng.next(), rng.next(), rng.next());
        let (width, offset) = (w & 31, o & 31);
        // ubfe/ibfe: bits offset.. offset+width-1 (clipped at 31), sign from the top one.
        let count = width.min(32 - offset);
        let mut unsigned = 0u32;
        for i in 0..count {
            unsigned |= ((v >> (offset + i)) & 1) << i;
        }
        let signed = if count == 0 {
            0
        } else if (unsigned >> (count - 1)) & 1 == 1 {
            unsigned | (u32::MAX.checked_shl(count).unwrap_or(0))
        } else {
            unsigned
        };
        check(Opcode::Ubfe, &[w, o, v], KEEP, unsigned);
        check(Opcode::Ibfe, &[w, o, v], KEEP, signed);
        // bfi: bits offset.. of base replaced by the low bits of v (clipped at 31).
        let mut inserted = base;
        for i in 0..count {
            let bit = offset + i;
            inserted = (inserted & !(1 << bit)) | (((v >> i) & 1) << bit);
        }
        check(Opcode::Bfi, &[w, o, v, base], KEEP, inserted);
    }
}

#[test]
fn integer_products_match_wide_arithmetic() {
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    for _ in 0..20_000 {
        let (a, b, c) = (rng.next(), rng.next(), rng.next());
        let wide = i128::from(a as i32) * i128::from(b as i32);
        check_with(Opcode::Imul, &[a, b], false, KEEP, 0, (wide >> 32) as u32);
        check_with(Opcode::Imul, &[a, b], false, KEEP, 1, wide as u32);
        let wide = u128::from(a) * u128::from(b);
        check_with(Opcode::Umul, &[a, b], false, KEEP, 0, (wide >> 32) as u32);
        check(
            Opcode::Imad,
            &[a, b, c],
            KEEP,
            (wide + u128::from(c)) as u32,
        );
        let divisor = b >> (a & 31);
        // Long division bit by bit, independent of the hardware divide.
        let (q, r) = if divisor == 0 {
            (u32::MAX, u32::MAX)
        } else {
            let (mut q, mut r) = (0u32, 0u64);
            for i in (0..32).rev() {
                r = (r << 1) | u64::from((a >> i) & 1);
                if r >= u64::from(divisor) {
                    r -= u64::from(divisor);
                    q |= 1 << i;
                }
            }
            (q, r as u32)
        };
        check_with(Opcode::Udiv, &[a, divisor], false, KEEP, 0, q);
        check_with(Opcode::Udiv, &[a, divisor], false, KEEP, 1, r);
        let sum = u64::from(a) + u64::from(b);
        check_with(Opcode::Uaddc, &[a, b], false, KEEP, 1, (sum >> 32) as u32);
    }
}

#[test]
fn f32tof16_to_nearest_even_matches_ieee() {
    // Every float16 value and the midpoints between neighbours (ties go to the even one).
    for h in 0u16..0x7c00 {
        let v = half::f16_to_f32(h);
        assert_eq!(half::f32_to_f16_nearest(v), h, "exact {h:#06x}");
        let next = half::f16_to_f32(h + 1);
        let mid = ((f64::from(v) + f64::from(next)) / 2.0) as f32;
        let even = if h % 2 == 0 { h } else { h + 1 };
        assert_eq!(
            half::f32_to_f16_nearest(mid),
            even,
            "midpoint above {h:#06x}"
        );
        assert_eq!(
            half::f32_to_f16_nearest(-mid),
            even | 0x8000,
            "-midpoint above {h:#06x}"
        );
    }
    assert_eq!(half::f32_to_f16_nearest(65520.0), 0x7c00);
    assert_eq!(half::f32_to_f16_nearest(65519.99), 0x7bff);
    assert_eq!(half::f32_to_f16_nearest(f32::INFINITY), 0x7c00);
    assert_eq!(half::f32_to_f16_nearest(f32::NAN) & 0x7e00, 0x7e00);
}
