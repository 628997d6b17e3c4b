//! Float16 conversions with D3D's rules (spec 3.2.2, "Floating Point Conversion"):
//!
//! - float32 → float16 rounds toward zero; a finite value beyond float16's range gives the
//!   largest float16 of its sign (65504), not infinity; infinities stay infinities, NaN
//!   stays NaN, values in float16's denormal range become float16 denormals;
//! - float16 → float32 is exact (float16 denormals become normal float32 values).

/// float16 sign bit.
const SIGN: u16 = 0x8000;
/// float16 infinity.
const INFINITY: u16 = 0x7c00;
/// The largest finite float16 (65504).
const MAX: u16 = 0x7bff;
/// float16 quiet-NaN bit.
const QUIET: u16 = 0x0200;

/// Converts a float32 to float16 bits, D3D's way (round toward zero, overflow to ±65504).
pub fn f32_to_f16_nearest(value: f32) -> u16 {
    let sign = ((value.to_bits() >> 16) as u16) & SIGN;
    if value.is_nan() {
        return sign | 0x7e00;
    }
    let a = f64::from(value.abs());
    if a >= 65520.0 {
        // At or past the midpoint between 65504 and 65536: rounds to infinity.
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        // Half denormals (a result of 1024 is the smallest normal, encoded the same way).
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    let exponent = a.log2().floor() as i32;
    let mut exponent = if 2f64.powi(exponent) > a {
        exponent - 1
    } else {
        exponent
    };
    let mut mantissa = ((a / 2f64.powi(exponent) - 1.0) * 1024.0).round_ties_even() as u32;
    if mantissa == 1024 {
        mantissa = 0;
        exponent += 1;
    }
    if exponent > 15 {
        return sign | 0x7c00;
    }
    sign | (((exponent + 15) as u16) << 10) | mantissa as u16
}

/// A float32 converted to float16 by D3D's rule (see `f32_to_f16_nearest` for IEEE's).
pub fn f32_to_f16(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) as u16) & SIGN;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x007f_ffff;
    if exponent == 0xff {
        return if mantissa == 0 {
            sign | INFINITY
        } else {
            // Keep the top payload bits, quiet.
            sign | INFINITY | QUIET | ((mantissa >> 13) as u16 & 0x03ff)
        };
    }
    // float16 exponent of the value.
    let biased = exponent - 127 + 15;
    if biased >= 31 {
        return sign | MAX;
    }
    if biased >= 1 {
        // Normal: truncate the mantissa.
        return sign | ((biased as u16) << 10) | (mantissa >> 13) as u16;
    }
    if exponent == 0 {
        // Zero or a float32 denormal: far below float16's smallest denormal (2^-24).
        return sign;
    }
    // float16 denormal: value = m * 2^(exponent - 150), float16 unit 2^-24.
    let shift = 126 - exponent;
    if shift >= 32 {
        return sign;
    }
    let full = mantissa | 0x0080_0000;
    sign | (full >> shift) as u16
}

/// Converts float16 bits (the low 16 bits; the rest are ignored by the caller) to float32.
pub fn f16_to_f32(half: u16) -> f32 {
    let sign = u32::from(half & SIGN) << 16;
    let exponent = u32::from((half >> 10) & 0x1f);
    let mantissa = u32::from(half & 0x03ff);
    match (exponent, mantissa) {
        (0, 0) => f32::from_bits(sign),
        (0, m) => {
            // m * 2^-24, exact in float32.
            let magnitude = m as f32 * f32::from_bits(0x3380_0000);
            f32::from_bits(sign | magnitude.to_bits())
        }
        (31, 0) => f32::from_bits(sign | 0x7f80_0000),
        (31, m) => f32::from_bits(sign | 0x7fc0_0000 | (m << 13)),
        (e, m) => f32::from_bits(sign | ((e + 112) << 23) | (m << 13)),
    }
}
