//! How far a device's result may be from the interpreter's for the instructions D3D lets be
//! approximate (the D3D11.3 functional spec's stated tolerances).

use dxbc2spirv::isa::Opcode;

/// The input range `|x| ≤ 100π` in which `sincos`'s absolute error bound holds; outside
/// it the spec only bounds the result to `[-1, 1]`, so a generator should keep inputs here.
pub const SINCOS_RANGE: f32 = 314.159_27;

/// 2^-21, the relative error bound of `exp`, `log`, `rcp` and `rsq`.
const TWO_POW_MINUS_21: f64 = 4.76837158203125e-7;
/// 2^-22: `div` as `a * (1/b)` with 1 ULP for the reciprocal and 0.5 ULP for the product
/// is within 1.5 × 2^-23 relative; this rounds that up to 2 × 2^-23.
const TWO_POW_MINUS_22: f64 = 2.384185791015625e-7;

/// A tolerance rule. Every rule makes any NaN match any NaN and requires an infinity to
/// match exactly (see [`within`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// At most this many units in the last place apart (`+0` and `-0` are 0 apart).
    Ulps(u32),
    /// `|actual - expected| ≤ bound × |expected|`.
    Relative(f64),
    /// `|actual - expected| ≤ bound`.
    Absolute(f64),
    /// Either bound suffices (`log`: absolute near 1, relative elsewhere — for inputs in
    /// `[0.5, 2]` the result is in `[-1, 1]`, where the absolute bound is the larger).
    AbsoluteOrRelative {
        /// The absolute bound.
        absolute: f64,
        /// The relative bound.
        relative: f64,
    },
    /// float16 bits in the low 16 bits, upper 16 bits equal: exact, except that any
    /// float16 NaN matches any other.
    Float16,
}

/// The spec's tolerance for an approximate instruction, with a short name citing its rule;
/// `None` for instructions that must be exact (for float results, a NaN may still have any
/// bit pattern: compare those with [`within`] and `Tolerance::Ulps(0)`).
///
/// Double instructions (`drcp`, `dmin`, `dmax`) are compared per double with [`within64`]; the others per
/// 32-bit component with [`within`].
pub fn tolerance(opcode: Opcode) -> Option<(&'static str, Tolerance)> {
    use Opcode as O;
    Some(match opcode {
        O::Exp => (
            "exp: relative error 2^-21 (spec 22.10.6)",
            Tolerance::Relative(TWO_POW_MINUS_21),
        ),
        O::Log => (
            "log: absolute error 2^-21 for inputs in [0.5, 2], relative 2^-21 elsewhere (spec 22.10.8)",
            Tolerance::AbsoluteOrRelative {
                absolute: TWO_POW_MINUS_21,
                relative: TWO_POW_MINUS_21,
            },
        ),
        O::Rcp => (
            "rcp: relative error 2^-21 (spec 22.10.18)",
            Tolerance::Relative(TWO_POW_MINUS_21),
        ),
        O::Rsq => (
            "rsq: relative error 2^-21 (spec 22.10.19)",
            Tolerance::Relative(TWO_POW_MINUS_21),
        ),
        O::Sqrt => ("sqrt: 1 ULP (spec 22.10.21)", Tolerance::Ulps(1)),
        O::Sincos => (
            "sincos: absolute error 0.0008 for inputs in [-100π, 100π] (spec 22.10.20)",
            Tolerance::Absolute(0.0008),
        ),
        O::Div => (
            "div: as accurate as a * (1/b), 1 ULP reciprocal and 0.5 ULP multiply (spec 3.1, floating-point rules)",
            Tolerance::Relative(TWO_POW_MINUS_22),
        ),
        O::F32ToF16 => (
            "f32tof16: any float16 NaN encoding (spec 3.1, NaN bits not preserved)",
            Tolerance::Float16,
        ),
        O::Drcp => ("drcp: 1.0 ULP (spec 22.14.5)", Tolerance::Ulps(1)),
        // Exact, but the spec only recommends IEEE 754R's signed zeros: the order-dependent
        // answer of `src0 < src1 ? src0 : src1` is allowed too, so +0 and -0 match.
        O::Min | O::Max | O::Dmin | O::Dmax => (
            "min/max: -0 and +0 may compare either way (spec 3.1, floating-point rules)",
            Tolerance::Ulps(0),
        ),
        _ => return None,
    })
}

/// Distance in units in the last place between two finite float bit patterns whose sign
/// bit is `sign` (`1 << 31` for float32, `1 << 63` for doubles): the patterns are ordered as
/// sign-magnitude integers, so +0 and -0 are 0 apart.
fn ulps(a: u64, b: u64, sign: u64) -> u128 {
    let ordered = |x: u64| -> i128 {
        let magnitude = i128::from(x & !sign);
        if x & sign != 0 {
            -magnitude
        } else {
            magnitude
        }
    };
    ordered(a).abs_diff(ordered(b))
}

/// Whether two finite values are within the numeric bounds of a rule.
fn numerically_within(tolerance: Tolerance, expected: f64, actual: f64, ulps: u128) -> bool {
    let error = (actual - expected).abs();
    match tolerance {
        Tolerance::Ulps(n) => ulps <= u128::from(n),
        Tolerance::Relative(bound) => error <= bound * expected.abs(),
        Tolerance::Absolute(bound) => error <= bound,
        Tolerance::AbsoluteOrRelative { absolute, relative } => {
            error <= absolute || error <= relative * expected.abs()
        }
        Tolerance::Float16 => ulps == 0,
    }
}

/// Whether a device's float32 result `actual_bits` is acceptable for the interpreter's
/// `expected_bits` under `tolerance`: NaN matches NaN (any bits), an infinity must match
/// exactly, finite values must meet the rule.
pub fn within(tolerance: Tolerance, expected_bits: u32, actual_bits: u32) -> bool {
    if tolerance == Tolerance::Float16 {
        let is_nan16 = |x: u32| x & 0x7c00 == 0x7c00 && x & 0x03ff != 0;
        return expected_bits >> 16 == actual_bits >> 16
            && (expected_bits == actual_bits
                || (is_nan16(expected_bits) && is_nan16(actual_bits)));
    }
    let (expected, actual) = (f32::from_bits(expected_bits), f32::from_bits(actual_bits));
    if expected.is_nan() || actual.is_nan() {
        return expected.is_nan() && actual.is_nan();
    }
    if expected.is_infinite() || actual.is_infinite() {
        return expected_bits == actual_bits;
    }
    numerically_within(
        tolerance,
        f64::from(expected),
        f64::from(actual),
        ulps(u64::from(expected_bits), u64::from(actual_bits), 1 << 31),
    )
}

/// [`within`] for a double result (the low and high halves joined).
pub fn within64(tolerance: Tolerance, expected_bits: u64, actual_bits: u64) -> bool {
    let (expected, actual) = (f64::from_bits(expected_bits), f64::from_bits(actual_bits));
    if expected.is_nan() || actual.is_nan() {
        return expected.is_nan() && actual.is_nan();
    }
    if expected.is_infinite() || actual.is_infinite() {
        return expected_bits == actual_bits;
    }
    numerically_within(
        tolerance,
        expected,
        actual,
        ulps(expected_bits, actual_bits, 1 << 63),
    )
}
