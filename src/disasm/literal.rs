//! Text of immediate values: fxc's rules, always exact.
//!
//! The rules (fxc 10.1's, learnt from its listings):
//!
//! * floats print with six decimals, rounded half away from zero on the exact value
//!   (`59717.289063`), doubles likewise with C's `l` suffix (`1.000000l`); where six decimals
//!   would not give back the same bits the shortest text that does is printed instead
//!   (`0.33333334`, `1e-7`), and values with no decimal form (NaN, infinities, denormals) as
//!   hexadecimal bits;
//! * integers print in decimal when small, at most [`DECIMAL_MAX`] from zero, and as eight
//!   hexadecimal digits otherwise, whatever the instruction: `and … l(3891)` but
//!   `and … l(0x00003300)`, `iadd … l(-1)`, `and … l(-4)`, `ieq … l(0x7f800000)`. The
//!   distance is that of the bits read as a signed integer, also for the unsigned and bitwise
//!   instructions (`0xfffffffc` is `-4`);
//! * untyped bits (`mov`, `movc`, the stores, immediate constant buffers) print as a float
//!   when their exponent field is that of a normal float or the value is -0.0
//!   (`-0.000000`), and as a signed integer otherwise (`0`, `-1`, `0x7f800000`), each value
//!   by its own bits: `mov r0.xy, l(1.000000,0,0,0)`, `mov r4.yz, l(0,0,0.500000,0)`;
//! * `gather4_po` and `gather4_po_c` print every immediate as an integer, also the float
//!   coordinates and reference value: `gather4_po_indexable(texture2d)(…) r2.xyzw,
//!   l(0x3f000000, 0x3e99999a, 0, 0), r1.xyxx, t0.xyzw, s0.x`;
//! * `mov`, `movc` and the stores separate the values of `l(…)` with bare commas
//!   (`l(0,0,0,1.000000)`), every other instruction with `, ` (see [`style`]).
//!
//! Integer text (`15`, `-1`, `0x7fffffff`) always means the raw bits, float text (with a `.`
//! or an exponent) a value, so the assembler reads back every form.

use crate::ir::ValueType;
use crate::isa::Opcode;
use std::fmt::Write;

/// The largest distance from zero at which an integer prints in decimal.
pub const DECIMAL_MAX: u32 = 10_000;

/// How an instruction's immediates print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Values separated by `,` without a space (`mov`, `movc`, the stores).
    pub compact: bool,
    /// Every value as an integer, also a float operand's (`gather4_po`, `gather4_po_c`).
    pub integers: bool,
}

/// The immediate style of an instruction (see the module documentation).
pub fn style(opcode: Opcode) -> Style {
    use Opcode as O;
    Style {
        compact: matches!(
            opcode,
            O::Mov | O::Movc | O::StoreRaw | O::StoreStructured | O::StoreUavTyped
        ),
        integers: matches!(
            opcode,
            O::Gather4Po | O::Gather4PoC | O::Gather4PoS | O::Gather4PoCS
        ),
    }
}

/// Writes the values of an `l(…)` read as `value_type`, in an instruction's style.
pub fn write_values(out: &mut String, values: &[u32], value_type: ValueType, style: Style) {
    for (i, &bits) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(if style.compact { "," } else { ", " });
        }
        match value_type {
            ValueType::F32 | ValueType::Bits if style.integers => write_integer(out, bits),
            _ => write_u32(out, bits, value_type),
        }
    }
}

/// Whether untyped bits print as a float: a normal float's exponent field, or -0.0.
fn is_float_bits(bits: u32) -> bool {
    let exponent = bits & 0x7f80_0000;
    bits == 0x8000_0000 || (exponent != 0 && exponent != 0x7f80_0000)
}

/// Writes an integer: decimal when the bits read as a signed integer are at most
/// [`DECIMAL_MAX`] from zero, eight hexadecimal digits otherwise.
fn write_integer(out: &mut String, bits: u32) {
    let signed = bits as i32;
    let _ = if signed.unsigned_abs() > DECIMAL_MAX {
        write!(out, "0x{bits:08x}")
    } else {
        write!(out, "{signed}")
    };
}

/// Writes a 32-bit immediate read as `value_type`.
pub fn write_u32(out: &mut String, bits: u32, value_type: ValueType) {
    match value_type {
        ValueType::F32 => write_f32(out, bits),
        ValueType::I32 | ValueType::U32 => write_integer(out, bits),
        ValueType::Bits | ValueType::F64 | ValueType::None => write_untyped(out, bits),
    }
}

/// Writes bits of unknown type: a float where the exponent field is that of a normal float
/// (and for -0.0), a signed integer otherwise (zero, denormal, infinity and NaN patterns).
pub fn write_untyped(out: &mut String, bits: u32) {
    if is_float_bits(bits) {
        write_f32(out, bits);
    } else {
        write_integer(out, bits);
    }
}

/// The six-decimal text of a float's exact decimal expansion `digits` (as Rust prints it
/// with enough precision: `123.4560001…`), rounded half away from zero as C's printf does;
/// `negative` adds the sign (also to zero).
fn six_decimals(negative: bool, digits: &str) -> String {
    let (int_part, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut kept: Vec<u8> = int_part.bytes().collect();
    let int_len = kept.len();
    let mut frac_bytes = frac.bytes().chain(std::iter::repeat(b'0'));
    kept.extend(frac_bytes.by_ref().take(6));
    let round_up = frac_bytes.next().is_some_and(|d| d >= b'5');
    let mut carry_into_new_digit = false;
    if round_up {
        let mut i = kept.len();
        loop {
            if i == 0 {
                carry_into_new_digit = true;
                break;
            }
            i -= 1;
            if kept[i] == b'9' {
                kept[i] = b'0';
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let mut text = String::with_capacity(kept.len() + 3);
    if negative {
        text.push('-');
    }
    if carry_into_new_digit {
        text.push('1');
    }
    for (i, d) in kept.iter().enumerate() {
        if i == int_len {
            text.push('.');
        }
        text.push(char::from(*d));
    }
    text
}

/// Writes a float exactly (see the module documentation).
pub fn write_f32(out: &mut String, bits: u32) {
    let value = f32::from_bits(bits);
    let denormal = bits & 0x7f80_0000 == 0 && bits & 0x007f_ffff != 0;
    if !value.is_finite() || denormal {
        let _ = write!(out, "0x{bits:08x}");
        return;
    }
    // An f32 is exact as an f64, and 160 decimals hold every f32's expansion.
    let fixed = six_decimals(
        value.is_sign_negative(),
        &format!("{:.160}", f64::from(value.abs())),
    );
    if fixed.parse::<f32>().map(f32::to_bits) == Ok(bits) {
        out.push_str(&fixed);
    } else if value.abs() < 1e-4 || value.abs() >= 1e16 {
        let _ = write!(out, "{value:e}");
    } else {
        let _ = write!(out, "{value}");
    }
}

/// Writes a double exactly, in the same style as [`write_f32`], with fxc's `l` suffix after
/// six-decimal text (`1.000000l`).
pub fn write_f64(out: &mut String, bits: u64) {
    let value = f64::from_bits(bits);
    let denormal = bits & 0x7ff0_0000_0000_0000 == 0 && bits & 0x000f_ffff_ffff_ffff != 0;
    if !value.is_finite() || denormal {
        let _ = write!(out, "0x{bits:016x}");
        return;
    }
    // 1100 decimals hold every normal double's exact expansion.
    let fixed = six_decimals(value.is_sign_negative(), &format!("{:.1100}", value.abs()));
    if fixed.parse::<f64>().map(f64::to_bits) == Ok(bits) {
        out.push_str(&fixed);
        out.push('l');
    } else if value.abs() < 1e-4 || value.abs() >= 1e16 {
        let _ = write!(out, "{value:e}");
    } else {
        let _ = write!(out, "{value}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of an `l(…)` of `values` in the style of `opcode`.
    fn text(values: &[u32], value_type: ValueType, opcode: Opcode) -> String {
        let mut s = String::new();
        write_values(&mut s, values, value_type, style(opcode));
        s
    }

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
        assert_eq!(s, "-1 0x7fffffff 15 3 1.000000 -1");
    }

    #[test]
    fn fxc_rules() {
        // Six decimals, half away from zero on the exact value (fxc prints 59717.289063 for
        // 59717.2890625, where round-half-to-even would give ...062).
        let tie = 59_717.0_f32 + 37.0 / 128.0; // 59717.2890625, exactly
        assert_eq!(f32_text(tie.to_bits()), "59717.289063");
        assert_eq!(f32_text((-tie).to_bits()), "-59717.289063");
        let six: f32 = "0.318310".parse().unwrap();
        assert_eq!(f32_text(six.to_bits()), "0.318310");
        // Where six decimals lose bits, the shortest exact text.
        assert_eq!(
            f32_text(std::f32::consts::FRAC_1_PI.to_bits()),
            "0.31830987"
        );
        assert_eq!(f32_text(999_999.94_f32.to_bits()), "999999.937500");
        // Untyped bits: a float's exponent, -0.0, or an integer.
        assert_eq!(
            text(
                &[0x8000_0000, 0, 0xffff_ffff, 0x3f80_0000],
                ValueType::Bits,
                Opcode::Mov
            ),
            "-0.000000,0,-1,1.000000"
        );
        assert_eq!(
            text(&[0x7f80_0000], ValueType::Bits, Opcode::Mov),
            "0x7f800000"
        );
        assert!(style(Opcode::Mov).compact && style(Opcode::StoreRaw).compact);
        assert!(!style(Opcode::Add).compact);
        let mut d = String::new();
        write_f64(&mut d, 2.5f64.to_bits());
        assert_eq!(d, "2.500000l");
    }

    /// The integer lines of issue #42, as fxc printed them: decimal when small, hexadecimal
    /// when large, whatever the opcode.
    #[test]
    fn integers_print_in_decimal_when_small_and_in_hex_when_large() {
        let u = ValueType::U32;
        let i = ValueType::I32;
        let one = 0x3f80_0000;
        assert_eq!(
            text(&[one, one, one, 0], u, Opcode::And),
            "0x3f800000, 0x3f800000, 0x3f800000, 0"
        );
        assert_eq!(text(&[3891], u, Opcode::And), "3891");
        assert_eq!(text(&[0x3300], u, Opcode::And), "0x00003300");
        assert_eq!(text(&[0, 0, 64, 64], u, Opcode::Xor), "0, 0, 64, 64");
        assert_eq!(text(&[3], u, Opcode::Or), "3");
        assert_eq!(text(&[0x3300_0700], i, Opcode::Iadd), "0x33000700");
        assert_eq!(
            text(&[0x3d73, 0x000c_0ae5], i, Opcode::Imad),
            "0x00003d73, 0x000c0ae5"
        );
        assert_eq!(text(&[0x0019_660d], i, Opcode::Imul), "0x0019660d");
        assert_eq!(text(&[0x7f80_0000, 1], i, Opcode::Ieq), "0x7f800000, 1");
        // The bound: DECIMAL_MAX is decimal, one more is not.
        assert_eq!(
            text(&[10_000, 10_001], u, Opcode::Umax),
            "10000, 0x00002711"
        );
        assert_eq!(
            text(&[0xffff_ffff, (-10_001i32) as u32], i, Opcode::Iadd),
            "-1, 0xffffd8ef"
        );
        // The distance is the signed value's, for unsigned and bitwise operands too (fxc:
        // `and r4.x, r0.y, l(-4)`).
        assert_eq!(text(&[0xffff_fffc], u, Opcode::And), "-4");
        assert_eq!(text(&[0xffff_ffff], u, Opcode::Umin), "-1");
        assert_eq!(text(&[0x8000_0000], u, Opcode::Ult), "0x80000000");
    }

    #[test]
    fn gather4_po_prints_floats_as_integers() {
        let values = [0x3f00_0000, 0x3e99_999a, 0, 0];
        let f = ValueType::F32;
        assert_eq!(
            text(&values, f, Opcode::Gather4Po),
            "0x3f000000, 0x3e99999a, 0, 0"
        );
        assert_eq!(
            text(&values, f, Opcode::Gather4),
            "0.500000, 0.300000, 0.000000, 0.000000"
        );
    }

    #[test]
    fn untyped_values_print_each_by_its_bits() {
        let values = [0x3f80_0000, 0, 0, 0];
        assert_eq!(
            text(&values, ValueType::Bits, Opcode::Mov),
            "1.000000,0,0,0"
        );
    }

    #[test]
    fn doubles_round_trip() {
        for value in [1.0f64, 1.0 / 3.0, -0.0, 1e300, 2.5e-300] {
            let mut s = String::new();
            write_f64(&mut s, value.to_bits());
            let number = s.strip_suffix('l').unwrap_or(&s);
            assert_eq!(
                number.parse::<f64>().map(f64::to_bits),
                Ok(value.to_bits()),
                "{s}"
            );
        }
    }
}
