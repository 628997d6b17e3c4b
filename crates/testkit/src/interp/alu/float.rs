//! Float32 instructions, moves and the float conversions (spec 22.9, 22.10, 22.13).

use super::{half, FloatMode, Results};
use dxbc2spirv::isa::Opcode;

/// `true` in a 32-bit component.
const TRUE: u32 = 0xffff_ffff;
/// The largest float below 1.0 (`frc`'s range is `[0, 1)`).
const BELOW_ONE: u32 = 0x3f7f_ffff;

/// Whether this module evaluates `opcode`.
pub(super) fn handles(opcode: Opcode) -> bool {
    use Opcode as O;
    matches!(
        opcode,
        O::Add
            | O::Mul
            | O::Mad
            | O::Div
            | O::Min
            | O::Max
            | O::Dp2
            | O::Dp3
            | O::Dp4
            | O::Exp
            | O::Log
            | O::Rsq
            | O::Sqrt
            | O::Rcp
            | O::Sincos
            | O::Frc
            | O::RoundNe
            | O::RoundNi
            | O::RoundPi
            | O::RoundZ
            | O::Eq
            | O::Ne
            | O::Lt
            | O::Ge
            | O::Ftoi
            | O::Ftou
            | O::Itof
            | O::Utof
            | O::F32ToF16
            | O::F16ToF32
            | O::Mov
            | O::Movc
            | O::Swapc
    )
}

/// Whether `bits` is a float32 denormal.
pub(super) fn is_denormal(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0 && bits & 0x007f_ffff != 0
}

/// `bits` with a denormal flushed to a zero of its sign when the mode flushes.
pub(super) fn flush(bits: u32, mode: FloatMode) -> u32 {
    if mode.flush_denormals && is_denormal(bits) {
        bits & 0x8000_0000
    } else {
        bits
    }
}

/// An arithmetic input.
fn input(bits: u32, mode: FloatMode) -> f32 {
    f32::from_bits(flush(bits, mode))
}

/// An arithmetic result.
fn output(value: f32, mode: FloatMode) -> u32 {
    flush(value.to_bits(), mode)
}

/// `_sat`: clamps to `[0, 1]`; NaN and −0 give +0 (IEEE 754R `max(-0, +0) = +0`).
pub(super) fn saturate(bits: u32) -> u32 {
    let x = f32::from_bits(bits);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        1.0f32.to_bits()
    } else {
        bits
    }
}

/// D3D `min`: `src0 < src1 ? src0 : src1`, a NaN operand giving the other one, and
/// `-0` below `+0` in either order (IEEE 754R, which the spec's floating-point rules
/// recommend; they also allow the order-dependent answer, see [`super::tolerance`]).
pub(super) fn min_f32(x: f32, y: f32) -> f32 {
    if y.is_nan() || x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    }
}

/// D3D `max`: `src0 >= src1 ? src0 : src1`, a NaN operand giving the other one, and `+0`
/// above `-0` in either order.
pub(super) fn max_f32(x: f32, y: f32) -> f32 {
    if y.is_nan() || x > y || (x == y && x.is_sign_positive()) {
        x
    } else {
        y
    }
}

/// A product or sum rounded to f32 and flushed per the mode (one unfused step).
fn step(value: f32, mode: FloatMode) -> f32 {
    f32::from_bits(output(value, mode))
}

/// `dp2`/`dp3`/`dp4` of the first `n` components.
fn dot(a: [u32; 4], b: [u32; 4], n: usize, mode: FloatMode) -> u32 {
    let n = n.min(4);
    let mut a = a.map(|x| input(x, mode));
    let mut b = b.map(|x| input(x, mode));
    if mode.dot_reversed {
        a[..n].reverse();
        b[..n].reverse();
    }
    let mut acc = step(a[0] * b[0], mode);
    for i in 1..n {
        acc = if mode.fuse_mad {
            step(a[i].mul_add(b[i], acc), mode)
        } else {
            step(acc + step(a[i] * b[i], mode), mode)
        };
    }
    output(acc, mode)
}

/// `frc`: `x - floor(x)`, kept below 1 (the subtraction of a tiny negative number rounds
/// to 1.0 otherwise).
fn fraction(x: f32) -> f32 {
    let r = x - x.floor();
    if r >= 1.0 {
        f32::from_bits(BELOW_ONE)
    } else {
        r
    }
}

/// Evaluates a float instruction (`_sat` is applied by the caller).
pub(super) fn evaluate(
    opcode: Opcode,
    src: &dyn Fn(usize) -> [u32; 4],
    _saturate: bool,
    mode: FloatMode,
) -> Option<Results> {
    use Opcode as O;
    let (a, b, c) = (src(0), src(1), src(2));
    let un = |op: &dyn Fn(f32) -> f32| a.map(|x| output(op(input(x, mode)), mode));
    // Computed in f64 and rounded once.
    let wide = |op: &dyn Fn(f64) -> f64| un(&|x| op(f64::from(x)) as f32);
    let bin = |op: &dyn Fn(f32, f32) -> f32| {
        let mut r = [0; 4];
        for i in 0..4 {
            r[i] = output(op(input(a[i], mode), input(b[i], mode)), mode);
        }
        r
    };
    let cmp = |op: &dyn Fn(f32, f32) -> bool| {
        let mut r = [0; 4];
        for i in 0..4 {
            r[i] = if op(input(a[i], mode), input(b[i], mode)) {
                TRUE
            } else {
                0
            };
        }
        r
    };
    let select = |cond: [u32; 4], yes: [u32; 4], no: [u32; 4]| {
        let mut r = [0; 4];
        for i in 0..4 {
            r[i] = if cond[i] != 0 { yes[i] } else { no[i] };
        }
        r
    };
    let one = |v: [u32; 4]| [v, [0; 4]];
    Some(match opcode {
        O::Add => one(bin(&|x, y| x + y)),
        O::Mul => one(bin(&|x, y| x * y)),
        O::Div => one(bin(&|x, y| (f64::from(x) / f64::from(y)) as f32)),
        O::Min => one(bin(&min_f32)),
        O::Max => one(bin(&max_f32)),
        O::Mad => {
            let mut r = [0; 4];
            for i in 0..4 {
                let (x, y, z) = (input(a[i], mode), input(b[i], mode), input(c[i], mode));
                let v = if mode.fuse_mad {
                    x.mul_add(y, z)
                } else {
                    step(x * y, mode) + z
                };
                r[i] = output(v, mode);
            }
            one(r)
        }
        O::Dp2 | O::Dp3 | O::Dp4 => {
            let n = match opcode {
                O::Dp2 => 2,
                O::Dp3 => 3,
                _ => 4,
            };
            one([dot(a, b, n, mode); 4])
        }
        O::Exp => one(wide(&f64::exp2)),
        O::Log => one(wide(&f64::log2)),
        O::Rsq => one(wide(&|x| 1.0 / x.sqrt())),
        O::Sqrt => one(wide(&f64::sqrt)),
        O::Rcp => one(wide(&|x| 1.0 / x)),
        O::Sincos => [wide(&f64::sin), wide(&f64::cos)],
        O::Frc => one(un(&fraction)),
        O::RoundNe => one(un(&f32::round_ties_even)),
        O::RoundNi => one(un(&f32::floor)),
        O::RoundPi => one(un(&f32::ceil)),
        O::RoundZ => one(un(&f32::trunc)),
        O::Eq => one(cmp(&|x, y| x == y)),
        O::Ne => one(cmp(&|x, y| x != y)),
        O::Lt => one(cmp(&|x, y| x < y)),
        O::Ge => one(cmp(&|x, y| x >= y)),
        // `as` truncates toward zero, saturates to the integer range and gives 0 for NaN:
        // exactly the spec's clamp to [-2147483648.999, 2147483647.999] / [0, 4294967295.999].
        O::Ftoi => one(a.map(|x| input(x, mode) as i32 as u32)),
        O::Ftou => one(a.map(|x| input(x, mode) as u32)),
        // Round to nearest even (the spec's recommendation).
        O::Itof => one(a.map(|x| (x as i32 as f32).to_bits())),
        O::Utof => one(a.map(|x| (x as f32).to_bits())),
        O::F32ToF16 if mode.f16_nearest => one(a.map(|x| {
            u32::from(half::f32_to_f16_nearest(f32::from_bits(
                input(x, mode).to_bits(),
            )))
        })),
        O::F32ToF16 => one(a.map(|x| u32::from(half::f32_to_f16(input(x, mode))))),
        O::F16ToF32 => one(a.map(|x| half::f16_to_f32(x as u16).to_bits())),
        O::Mov => one(a),
        O::Movc => one(select(a, b, c)),
        // dest0 = movc(src0, src2, src1), dest1 = movc(src0, src1, src2).
        O::Swapc => [select(a, c, b), select(a, b, c)],
        _ => return None,
    })
}
