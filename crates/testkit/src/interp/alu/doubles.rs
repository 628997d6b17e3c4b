//! Double-precision instructions (spec 22.14–22.17): IEEE 754 with denormals kept, each
//! double in a pair of components (low half first). See [`super::evaluate`] for the lanes.

use super::float::flush;
use super::{FloatMode, Results};
use dxbc2spirv::isa::Opcode;

/// `true` in a 32-bit component.
const TRUE: u32 = 0xffff_ffff;

/// Whether this module evaluates `opcode`.
pub(super) fn handles(opcode: Opcode) -> bool {
    use Opcode as O;
    matches!(
        opcode,
        O::Dadd
            | O::Dmul
            | O::Dmin
            | O::Dmax
            | O::Ddiv
            | O::Dfma
            | O::Drcp
            | O::Dmov
            | O::Dmovc
            | O::Deq
            | O::Dne
            | O::Dlt
            | O::Dge
            | O::Dtof
            | O::Ftod
            | O::Dtoi
            | O::Dtou
            | O::Itod
            | O::Utod
    )
}

/// Double `k` (0 or 1) of a source as bits.
fn bits(src: [u32; 4], k: usize) -> u64 {
    u64::from(src[2 * k]) | (u64::from(src[2 * k + 1]) << 32)
}

/// Double `k` of a source.
fn double(src: [u32; 4], k: usize) -> f64 {
    f64::from_bits(bits(src, k))
}

/// `_sat` on a double: `[0, 1]`, NaN and −0 give +0.
fn saturate64(value: u64) -> u64 {
    let x = f64::from_bits(value);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        1.0f64.to_bits()
    } else {
        value
    }
}

/// D3D `dmin`: as `min` (the non-NaN operand; `-0` below `+0`, IEEE 754R).
fn min_f64(x: f64, y: f64) -> f64 {
    if y.is_nan() || x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    }
}

/// D3D `dmax`: as `max` (the non-NaN operand; `+0` above `-0`, IEEE 754R).
fn max_f64(x: f64, y: f64) -> f64 {
    if y.is_nan() || x > y || (x == y && x.is_sign_positive()) {
        x
    } else {
        y
    }
}

/// A 64-bit result vector from the results (as bits) of double 0 and double 1.
fn wide(lanes: [u64; 2], saturate: bool) -> [u32; 4] {
    let lanes = if saturate {
        lanes.map(saturate64)
    } else {
        lanes
    };
    [
        lanes[0] as u32,
        (lanes[0] >> 32) as u32,
        lanes[1] as u32,
        (lanes[1] >> 32) as u32,
    ]
}

/// A 32-bit result vector: the result of double `j` goes to the `j`-th component of `mask`.
fn narrow(lanes: [u32; 2], mask: u8) -> [u32; 4] {
    let mut out = [0; 4];
    let mut lane = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        if mask & (1 << i) != 0 {
            if let Some(value) = lanes.get(lane) {
                *slot = *value;
            }
            lane += 1;
        }
    }
    out
}

/// Evaluates a double instruction. `mask` is the destination's write mask (it places the
/// 32-bit results of comparisons and conversions to 32 bits).
pub(super) fn evaluate(
    opcode: Opcode,
    src: &dyn Fn(usize) -> [u32; 4],
    mask: u8,
    saturate: bool,
    mode: FloatMode,
) -> Option<Results> {
    use Opcode as O;
    let (a, b, c) = (src(0), src(1), src(2));
    let lanes = |op: &dyn Fn(usize) -> f64| [op(0).to_bits(), op(1).to_bits()];
    let bin =
        |op: &dyn Fn(f64, f64) -> f64| wide(lanes(&|k| op(double(a, k), double(b, k))), saturate);
    let cmp = |op: &dyn Fn(f64, f64) -> bool| {
        let test = |k: usize| {
            if op(double(a, k), double(b, k)) {
                TRUE
            } else {
                0
            }
        };
        narrow([test(0), test(1)], mask)
    };
    let one = |v: [u32; 4]| [v, [0; 4]];
    Some(one(match opcode {
        O::Dadd => bin(&|x, y| x + y),
        O::Dmul => bin(&|x, y| x * y),
        O::Ddiv => bin(&|x, y| x / y),
        O::Dmin => bin(&min_f64),
        O::Dmax => bin(&max_f64),
        O::Dfma => wide(
            lanes(&|k| double(a, k).mul_add(double(b, k), double(c, k))),
            saturate,
        ),
        O::Drcp => wide(lanes(&|k| 1.0 / double(a, k)), saturate),
        // Moves keep the bits (unless `_sat`).
        O::Dmov => wide([bits(a, 0), bits(a, 1)], saturate),
        O::Dmovc => {
            let pick = |k: usize| if a[k] != 0 { bits(b, k) } else { bits(c, k) };
            wide([pick(0), pick(1)], saturate)
        }
        O::Deq => cmp(&|x, y| x == y),
        O::Dne => cmp(&|x, y| x != y),
        O::Dlt => cmp(&|x, y| x < y),
        O::Dge => cmp(&|x, y| x >= y),
        // Round to nearest even; the float32 result follows the denormal mode.
        O::Dtof => {
            // (`_sat` is applied to this float32 result by the caller.)
            let convert = |k: usize| flush((double(a, k) as f32).to_bits(), mode);
            narrow([convert(0), convert(1)], mask)
        }
        // Truncate, clamp to the integer range, NaN gives 0 (`as` does exactly that).
        O::Dtoi => narrow(
            [double(a, 0) as i32 as u32, double(a, 1) as i32 as u32],
            mask,
        ),
        O::Dtou => narrow([double(a, 0) as u32, double(a, 1) as u32], mask),
        O::Ftod => wide(
            lanes(&|k| f64::from(f32::from_bits(flush(a[k], mode)))),
            saturate,
        ),
        O::Itod => wide(lanes(&|k| f64::from(a[k] as i32)), saturate),
        O::Utod => wide(lanes(&|k| f64::from(a[k])), saturate),
        _ => return None,
    }))
}
