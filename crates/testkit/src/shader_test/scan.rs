//! A small cursor over one line of text, with C-like number readers (`strtoul`/`strtof`
//! conventions as vkd3d's shader_runner uses them) and errors that carry line and column.

use dxbc2spirv::{Error, Result};

/// A cursor over one line of a `.shader_test` file.
#[derive(Debug, Clone)]
pub(crate) struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    line: u32,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `text`, which is line `line` (1-based) of the file.
    pub(crate) fn new(text: &'a str, line: u32) -> Self {
        Scanner { text, pos: 0, line }
    }

    /// An error at the current position.
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        Error::text(self.line, self.column(), message)
    }

    /// The 1-based line number.
    pub(crate) fn line(&self) -> u32 {
        self.line
    }

    /// The 1-based column of the current position.
    pub(crate) fn column(&self) -> u32 {
        u32::try_from(self.pos.saturating_add(1)).unwrap_or(u32::MAX)
    }

    /// Skips `bytes` bytes (clamped to the end of the text).
    pub(crate) fn skip_bytes(&mut self, bytes: usize) {
        self.advance(bytes);
    }

    /// The text not consumed yet.
    pub(crate) fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn advance(&mut self, bytes: usize) {
        self.pos = self.pos.saturating_add(bytes).min(self.text.len());
    }

    /// Skips spaces and tabs (and any other whitespace).
    pub(crate) fn skip_ws(&mut self) {
        let rest = self.rest();
        let trimmed = rest.trim_start();
        self.advance(rest.len() - trimmed.len());
    }

    /// True when only whitespace is left.
    pub(crate) fn at_end(&self) -> bool {
        self.rest().trim().is_empty()
    }

    /// Skips whitespace, then consumes `token` if the text continues with it.
    pub(crate) fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.advance(token.len());
            true
        } else {
            false
        }
    }

    /// Like [`Scanner::eat`], but the token must end at a word boundary (not be followed
    /// by a letter, digit, `_` or `-`).
    pub(crate) fn eat_word(&mut self, word: &str) -> bool {
        self.skip_ws();
        let rest = self.rest();
        if let Some(after) = rest.strip_prefix(word) {
            let boundary = after
                .chars()
                .next()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'));
            if boundary {
                self.advance(word.len());
                return true;
            }
        }
        false
    }

    /// Consumes a sequence of words separated by whitespace (e.g. `"triangle list"`).
    pub(crate) fn eat_words(&mut self, words: &str) -> bool {
        let saved = self.pos;
        for word in words.split_whitespace() {
            if !self.eat_word(word) {
                self.pos = saved;
                return false;
            }
        }
        true
    }

    /// Skips whitespace and requires `token`.
    pub(crate) fn require(&mut self, token: &str) -> Result<()> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(format!("expected '{token}'")))
        }
    }

    /// Consumes the next whitespace-separated word, if any.
    pub(crate) fn word(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        let word = rest.get(..end)?;
        self.advance(end);
        Some(word)
    }

    /// Reads an unsigned decimal integer (`strtoul(.., 10)` without sign).
    pub(crate) fn decimal_u32(&mut self) -> Result<u32> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let digits = rest.get(..len).unwrap_or("");
        let value = digits
            .parse::<u32>()
            .map_err(|_| self.error("expected an unsigned decimal integer"))?;
        self.advance(len);
        Ok(value)
    }

    /// Reads an integer as C's `strtoll(.., 0)` does: optional sign, then `0x` hex,
    /// `0` octal or decimal digits. The magnitude must fit in 64 bits.
    pub(crate) fn c_integer(&mut self) -> Result<i128> {
        self.skip_ws();
        let (value, len) =
            parse_c_integer(self.rest()).ok_or_else(|| self.error("expected an integer"))?;
        self.advance(len);
        Ok(value)
    }

    /// Reads a 32-bit unsigned value as `strtoul` does (a minus sign wraps around).
    pub(crate) fn c_u32(&mut self) -> Result<u32> {
        let value = self.c_integer()?;
        wrap_u32(value).ok_or_else(|| self.error("unsigned 32-bit constant out of range"))
    }

    /// Reads a 32-bit signed value as `strtol` does; out-of-range values are an error.
    pub(crate) fn c_i32(&mut self) -> Result<i32> {
        let value = self.c_integer()?;
        i32::try_from(value).map_err(|_| self.error("signed 32-bit constant out of range"))
    }

    /// Reads a 64-bit unsigned value as `strtoull` does (a minus sign wraps around).
    pub(crate) fn c_u64(&mut self) -> Result<u64> {
        let value = self.c_integer()?;
        wrap_u64(value).ok_or_else(|| self.error("unsigned 64-bit constant out of range"))
    }

    /// Reads a 64-bit signed value as `strtoll` does.
    pub(crate) fn c_i64(&mut self) -> Result<i64> {
        let value = self.c_integer()?;
        i64::try_from(value).map_err(|_| self.error("signed 64-bit constant out of range"))
    }

    /// Reads a floating-point number as `strtod` does (decimal forms, `inf`, `nan`).
    pub(crate) fn c_f64(&mut self) -> Result<f64> {
        self.skip_ws();
        let (value, len) =
            parse_c_float(self.rest()).ok_or_else(|| self.error("expected a number"))?;
        self.advance(len);
        Ok(value)
    }

    /// Reads a 32-bit float as `strtof` does.
    pub(crate) fn c_f32(&mut self) -> Result<f32> {
        // Rounding through f64 first can differ from direct rounding in rare halfway cases;
        // parse the token text directly to f32 instead.
        self.skip_ws();
        let (_, len) = parse_c_float(self.rest()).ok_or_else(|| self.error("expected a number"))?;
        let token = self.rest().get(..len).unwrap_or("");
        let value =
            parse_float_token::<f32>(token).ok_or_else(|| self.error("expected a number"))?;
        self.advance(len);
        Ok(value)
    }
}

/// Wraps a parsed integer into `u32` like `strtoul` followed by truncation to 32 bits would
/// for values whose magnitude fits in 32 bits.
pub(crate) fn wrap_u32(value: i128) -> Option<u32> {
    if (-(1i128 << 32)..(1i128 << 32)).contains(&value) {
        Some(value.rem_euclid(1i128 << 32) as u32)
    } else {
        None
    }
}

/// Wraps a parsed integer into `u64` like `strtoull` does.
pub(crate) fn wrap_u64(value: i128) -> Option<u64> {
    if (-(1i128 << 64)..(1i128 << 64)).contains(&value) {
        Some(value.rem_euclid(1i128 << 64) as u64)
    } else {
        None
    }
}

/// Parses a C integer literal at the start of `text` (base 0 rules). Returns the value and
/// the number of bytes used, or `None` if there is no number.
pub(crate) fn parse_c_integer(text: &str) -> Option<(i128, usize)> {
    let bytes = text.as_bytes();
    let mut i = 0usize;
    let mut negative = false;
    match bytes.first() {
        Some(b'-') => {
            negative = true;
            i = 1;
        }
        Some(b'+') => i = 1,
        _ => {}
    }
    let (radix, start) = match (bytes.get(i), bytes.get(i + 1), bytes.get(i + 2)) {
        (Some(b'0'), Some(b'x' | b'X'), Some(c)) if c.is_ascii_hexdigit() => (16u32, i + 2),
        (Some(b'0'), _, _) => (8u32, i),
        _ => (10u32, i),
    };
    let len = bytes
        .get(start..)?
        .iter()
        .take_while(|&&c| (c as char).is_digit(radix))
        .count();
    if len == 0 {
        return None;
    }
    let digits = text.get(start..start + len)?;
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    let value = if negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    Some((value, start + len))
}

/// Parses a C decimal floating-point literal at the start of `text`. Returns the value and
/// the number of bytes used, or `None` if there is no number.
pub(crate) fn parse_c_float(text: &str) -> Option<(f64, usize)> {
    let bytes = text.as_bytes();
    let mut i = 0usize;
    if matches!(bytes.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let lower = text.get(i..).unwrap_or("").to_ascii_lowercase();
    for special in ["infinity", "inf", "nan"] {
        if lower.starts_with(special) {
            let len = i + special.len();
            let value = parse_float_token::<f64>(text.get(..len)?)?;
            return Some((value, len));
        }
    }
    let int_digits = bytes
        .get(i..)?
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    i += int_digits;
    let mut frac_digits = 0;
    if bytes.get(i) == Some(&b'.') {
        frac_digits = bytes
            .get(i + 1..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if int_digits + frac_digits > 0 {
            i += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        let exp_digits = bytes
            .get(j..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if exp_digits > 0 {
            i = j + exp_digits;
        }
    }
    let value = parse_float_token::<f64>(text.get(..i)?)?;
    Some((value, i))
}

/// Parses a token already delimited by [`parse_c_float`] with Rust's parser, which accepts
/// the same decimal forms (and `inf`/`infinity`/`nan`, case-insensitively).
fn parse_float_token<T: std::str::FromStr>(token: &str) -> Option<T> {
    let trimmed = token.strip_prefix('+').unwrap_or(token);
    // Rust rejects "1." and ".5"? It accepts both; normalise a trailing '.' anyway.
    if let Some(stripped) = trimmed.strip_suffix('.') {
        return stripped.parse().ok();
    }
    trimmed.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_integers() {
        assert_eq!(parse_c_integer("0x7fff rest"), Some((0x7fff, 6)));
        assert_eq!(parse_c_integer("-7000"), Some((-7000, 5)));
        assert_eq!(parse_c_integer("010"), Some((8, 3)));
        assert_eq!(parse_c_integer("0x"), Some((0, 1)));
        assert_eq!(parse_c_integer("x"), None);
        assert_eq!(wrap_u32(-1), Some(u32::MAX));
    }

    #[test]
    fn c_floats() {
        assert_eq!(parse_c_float("1.5,"), Some((1.5, 3)));
        assert_eq!(parse_c_float("-.5"), Some((-0.5, 3)));
        assert_eq!(parse_c_float("1e3x"), Some((1000.0, 3)));
        assert_eq!(parse_c_float("2.e"), Some((2.0, 2)));
        assert_eq!(parse_c_float("inf"), Some((f64::INFINITY, 3)));
        assert!(parse_c_float("NaN").is_some_and(|(v, _)| v.is_nan()));
        assert_eq!(parse_c_float("."), None);
    }
}
