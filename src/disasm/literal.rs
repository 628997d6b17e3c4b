//! Text of immediate values: floats and integers in fxc's style, always exact.
//!
//! fxc prints floats with six decimals (`1.000000`). Where six decimals would not give back
//! the same bits, the shortest text that does is printed instead (`0.33333334`, `1e-7`), so
//! that assembling the text gives back the same bits. Values that have no exact decimal
//! form as a float (NaN, infinities, denormals) are printed as hexadecimal bit patterns.
//! Integer text (`15`, `-1`, `0x7fffffff`) always means the raw bits.

use crate::ir::ValueType;
use std::fmt::Write;

/// Writes a 32-bit immediate read as `value_type`.
pub fn write_u32(out: &mut String, bits: u32, value_type: ValueType) {
    match value_type {
        ValueType::F32 => write_f32(out, bits),
        ValueType::I32 => {
            let _ = write!(out, "{}", bits as i32);
        }
        ValueType::U32 => write_uint(out, bits),
        ValueType::Bits | ValueType::F64 | ValueType::None => write_untyped(out, bits),
    }
}

/// Writes an unsigned integer: decimal up to 0xffff, hexadecimal above.
pub fn write_uint(out: &mut String, bits: u32) {
    if bits <= 0xffff {
        let _ = write!(out, "{bits}");
    } else {
        let _ = write!(out, "0x{bits:08x}");
    }
}

/// Writes bits of unknown type: integers where the bits look like one (exponent field 0),
/// hexadecimal for NaN/infinity patterns, floats otherwise.
pub fn write_untyped(out: &mut String, bits: u32) {
    match bits & 0x7f80_0000 {
        0 => {
            let _ = write!(out, "{}", bits as i32);
        }
        0x7f80_0000 => {
            let _ = write!(out, "0x{bits:08x}");
        }
        _ => write_f32(out, bits),
    }
}

/// Writes a float exactly (see the module documentation).
pub fn write_f32(out: &mut String, bits: u32) {
    let value = f32::from_bits(bits);
    let denormal = bits & 0x7f80_0000 == 0 && bits & 0x007f_ffff != 0;
    if !value.is_finite() || denormal {
        let _ = write!(out, "0x{bits:08x}");
        return;
    }
    let fixed = format!("{value:.6}");
    if fixed.parse::<f32>().map(f32::to_bits) == Ok(bits) {
        out.push_str(&fixed);
    } else if value.abs() < 1e-4 || value.abs() >= 1e16 {
        let _ = write!(out, "{value:e}");
    } else {
        let _ = write!(out, "{value}");
    }
}

/// Writes a double exactly, in the same style as [`write_f32`].
pub fn write_f64(out: &mut String, bits: u64) {
    let value = f64::from_bits(bits);
    let denormal = bits & 0x7ff0_0000_0000_0000 == 0 && bits & 0x000f_ffff_ffff_ffff != 0;
    if !value.is_finite() || denormal {
        let _ = write!(out, "0x{bits:016x}");
        return;
    }
    let fixed = format!("{value:.6}");
    if fixed.parse::<f64>().map(f64::to_bits) == Ok(bits) {
        out.push_str(&fixed);
    } else if value.abs() < 1e-4 || value.abs() >= 1e16 {
        let _ = write!(out, "{value:e}");
    } else {
        let _ = write!(out, "{value}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_text(bits: u32) -> String {
        let mut s = String::new();
        write_f32(&mut s, bits);
        s
    }

    #[test]
    fn floats_print_like_fxc_and_round_trip() {
        assert_eq!(f32_text(1.0f32.to_bits()), "1.000000");
        assert_eq!(f32_text(0.5f32.to_bits()), "0.500000");
        assert_eq!(f32_text((-0.0f32).to_bits()), "-0.000000");
        assert_eq!(f32_text(f32::NAN.to_bits()), "0x7fc00000");
        assert_eq!(f32_text(1.0e-7f32.to_bits()), "1e-7");
        for value in [
            1.0f32 / 3.0,
            1e-7,
            123456.79,
            3.4028235e38,
            1.1754944e-38,
            -2.5,
        ] {
            let text = f32_text(value.to_bits());
            assert_eq!(
                text.parse::<f32>().map(f32::to_bits),
                Ok(value.to_bits()),
                "{value} printed as {text}"
            );
        }
    }

    #[test]
    fn integers_and_untyped_bits() {
        let mut s = String::new();
        write_u32(&mut s, 0xffff_ffff, ValueType::I32);
        s.push(' ');
        write_u32(&mut s, 0x7fff_ffff, ValueType::U32);
        s.push(' ');
        write_u32(&mut s, 15, ValueType::U32);
        s.push(' ');
        write_untyped(&mut s, 3);
        s.push(' ');
        write_untyped(&mut s, 0x3f80_0000);
        s.push(' ');
        write_untyped(&mut s, 0xffff_ffff);
        assert_eq!(s, "-1 0x7fffffff 15 3 1.000000 0xffffffff");
    }

    #[test]
    fn doubles_round_trip() {
        for value in [1.0f64, 1.0 / 3.0, -0.0, 1e300, 2.5e-300] {
            let mut s = String::new();
            write_f64(&mut s, value.to_bits());
            assert_eq!(
                s.parse::<f64>().map(f64::to_bits),
                Ok(value.to_bits()),
                "{s}"
            );
        }
    }
}
