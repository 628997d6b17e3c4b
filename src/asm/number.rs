//! Numbers in assembly text: counts, indices and immediate values.
//!
//! Immediates follow the disassembler's rule (see `crate::disasm`): text with a `.` or an
//! exponent is a float, converted to its bits; an integer (decimal, negative decimal, or
//! `0x` hexadecimal) is the raw bits.

/// An unsigned 32-bit count or index: decimal or `0x` hexadecimal.
pub fn parse_u32(text: &str) -> Option<u32> {
    match hex_digits(text) {
        Some(digits) => u32::from_str_radix(digits, 16).ok(),
        None if is_decimal(text) => text.parse().ok(),
        None => None,
    }
}

/// An unsigned 64-bit value: decimal or `0x` hexadecimal.
pub fn parse_u64(text: &str) -> Option<u64> {
    match hex_digits(text) {
        Some(digits) => u64::from_str_radix(digits, 16).ok(),
        None if is_decimal(text) => text.parse().ok(),
        None => None,
    }
}

/// A register index: a 32-bit value, or a 64-bit one when it ends in `u64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexValue {
    /// A 32-bit index.
    Imm32(u32),
    /// A 64-bit index (`5u64`).
    Imm64(u64),
}

/// Parses an index, `negative` when a `-` came before it (32-bit only: the bits of the
/// signed value, as the disassembler prints `[r0.x + -1]`).
pub fn parse_index(negative: bool, text: &str) -> Result<IndexValue, String> {
    if let Some(digits) = text.strip_suffix("u64") {
        if negative {
            return Err("a 64-bit index cannot be negative".to_string());
        }
        return parse_u64(digits)
            .map(IndexValue::Imm64)
            .ok_or_else(|| format!("'{text}' is not a 64-bit index"));
    }
    parse_bits32(negative, text, false)
        .map(IndexValue::Imm32)
        .map_err(|_| format!("'{text}' is not a 32-bit index"))
}

/// The bits of a 32-bit immediate value (`1.000000`, `-2`, `0x7fc00000`).
pub fn parse_immediate32(negative: bool, text: &str) -> Result<u32, String> {
    parse_bits32(negative, text, true)
}

/// The bits of a 64-bit immediate value (`1.000000`, `-2`, `0x7ff8000000000000`).
pub fn parse_immediate64(negative: bool, text: &str) -> Result<u64, String> {
    // fxc (and vkd3d-compiler) write doubles with C's long-double suffix: `1.000000l`.
    let text = match text.strip_suffix('l') {
        Some(float) if is_float(float) => float,
        _ => text,
    };
    if let Some(special) = Special::of(text) {
        return Ok(special.bits64(negative));
    }
    if is_float(text) {
        let value: f64 = text
            .parse()
            .map_err(|_| format!("'{text}' is not a number"))?;
        if !value.is_finite() {
            return Err(format!("{text} is out of range for a double"));
        }
        return Ok(if negative { -value } else { value }.to_bits());
    }
    if let Some(digits) = hex_digits(text) {
        if negative {
            return Err("hexadecimal bits cannot be negative".to_string());
        }
        return u64::from_str_radix(digits, 16).map_err(|_| format!("'{text}' is not 64 bits"));
    }
    if !is_decimal(text) {
        return Err(format!("'{text}' is not a number"));
    }
    if negative {
        let value: i128 = text
            .parse()
            .map_err(|_| format!("-{text} is out of range for 64 bits"))?;
        i64::try_from(-value)
            .map(|v| v as u64)
            .map_err(|_| format!("-{text} is out of range for 64 bits"))
    } else {
        text.parse()
            .map_err(|_| format!("{text} is out of range for 64 bits"))
    }
}

fn parse_bits32(negative: bool, text: &str, floats: bool) -> Result<u32, String> {
    if let Some(special) = Special::of(text).filter(|_| floats) {
        return Ok(special.bits32(negative));
    }
    if is_float(text) {
        if !floats {
            return Err(format!("'{text}' is not an integer"));
        }
        let value: f32 = text
            .parse()
            .map_err(|_| format!("'{text}' is not a number"))?;
        if !value.is_finite() {
            return Err(format!("{text} is out of range for a float"));
        }
        return Ok(if negative { -value } else { value }.to_bits());
    }
    if let Some(digits) = hex_digits(text) {
        if negative {
            return Err("hexadecimal bits cannot be negative".to_string());
        }
        return u32::from_str_radix(digits, 16).map_err(|_| format!("'{text}' is not 32 bits"));
    }
    if !is_decimal(text) {
        return Err(format!("'{text}' is not a number"));
    }
    let value: i64 = text
        .parse()
        .map_err(|_| format!("{text} is out of range for 32 bits"))?;
    let value = if negative { -value } else { value };
    if (i32::MIN as i64..=u32::MAX as i64).contains(&value) {
        Ok(value as u32)
    } else {
        Err(format!(
            "{}{text} is out of range for 32 bits",
            if negative { "-" } else { "" }
        ))
    }
}

/// A value Microsoft's C library prints in its own words, as fxc's listings show them:
/// `1.#INF00` (infinity), `1.#QNAN0` (a quiet NaN), `-1.#IND00` (the "indefinite" quiet NaN
/// with the sign bit) and `1.#SNAN0` (a signalling NaN). The payload of a NaN is not
/// printed; the assembler gives the smallest one of its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Special {
    Infinity,
    QuietNan,
    SignallingNan,
}

impl Special {
    /// The special value `text` names (`1.#` then the word and digits of precision).
    fn of(text: &str) -> Option<Special> {
        let word = text
            .strip_prefix("1.#")?
            .trim_end_matches(|c: char| c.is_ascii_digit());
        match word.to_ascii_uppercase().as_str() {
            "INF" => Some(Special::Infinity),
            "QNAN" | "IND" => Some(Special::QuietNan),
            "SNAN" => Some(Special::SignallingNan),
            _ => None,
        }
    }

    fn bits32(self, negative: bool) -> u32 {
        let bits = match self {
            Special::Infinity => 0x7f80_0000,
            Special::QuietNan => 0x7fc0_0000,
            Special::SignallingNan => 0x7f80_0001,
        };
        bits | if negative { 0x8000_0000 } else { 0 }
    }

    fn bits64(self, negative: bool) -> u64 {
        let bits = match self {
            Special::Infinity => 0x7ff0_0000_0000_0000,
            Special::QuietNan => 0x7ff8_0000_0000_0000,
            Special::SignallingNan => 0x7ff0_0000_0000_0001,
        };
        bits | if negative { 1 << 63 } else { 0 }
    }
}

/// True when the text is a decimal float: digits with a `.` or an exponent.
fn is_float(text: &str) -> bool {
    hex_digits(text).is_none() && text.contains(['.', 'e', 'E'])
}

fn is_decimal(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn hex_digits(text: &str) -> Option<&str> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit())).then_some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediates_are_floats_or_bits() {
        assert_eq!(parse_immediate32(false, "1.000000"), Ok(0x3f80_0000));
        assert_eq!(parse_immediate32(true, "0.000000"), Ok(0x8000_0000));
        assert_eq!(parse_immediate32(false, "1e-7"), Ok(1e-7f32.to_bits()));
        assert_eq!(parse_immediate32(false, "0x7fc00000"), Ok(0x7fc0_0000));
        assert_eq!(parse_immediate32(true, "1"), Ok(u32::MAX));
        assert_eq!(parse_immediate32(true, "2147483648"), Ok(0x8000_0000));
        assert_eq!(parse_immediate32(false, "4294967295"), Ok(u32::MAX));
        assert!(parse_immediate32(false, "4294967296").is_err());
        assert!(parse_immediate32(true, "2147483649").is_err());
        assert!(parse_immediate32(false, "1e99").is_err());
        assert!(parse_immediate32(false, "99999999999999999999999999").is_err());
        assert!(parse_immediate32(false, "1.0.0").is_err());
        assert!(parse_immediate32(false, "12ab").is_err());
        assert!(parse_immediate32(true, "0x1").is_err());
        assert_eq!(parse_immediate64(false, "1.000000"), Ok(1f64.to_bits()));
        assert_eq!(parse_immediate64(true, "1"), Ok(u64::MAX));
        assert_eq!(
            parse_immediate64(false, "0x7ff8000000000000"),
            Ok(0x7ff8_0000_0000_0000)
        );
        assert!(parse_immediate64(true, "9223372036854775809").is_err());
    }

    #[test]
    fn counts_and_indices() {
        assert_eq!(parse_u32("15"), Some(15));
        assert_eq!(parse_u32("0x10"), Some(16));
        assert_eq!(parse_u32("0x"), None);
        assert_eq!(parse_u32("4294967296"), None);
        assert_eq!(parse_index(false, "5u64"), Ok(IndexValue::Imm64(5)));
        assert_eq!(parse_index(true, "1"), Ok(IndexValue::Imm32(u32::MAX)));
        assert!(parse_index(false, "1.5").is_err());
        assert!(parse_index(true, "1u64").is_err());
    }
}
