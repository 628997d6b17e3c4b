//! The lexer: assembly text into tokens with their line, column and spacing.
//!
//! `//` comments and fxc's `#line 12 "file.hlsl"` directives (any `#` to the end of the
//! line) are dropped; line ends are tokens (a statement ends at one, except inside
//! the braces of a data block). Characters that belong to no token become [`Kind::Bad`]
//! tokens, reported by the parser when it reaches them, so errors come in text order.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A name: `[A-Za-z_][A-Za-z0-9_]*` (`mov`, `r0`, `xyzw`, `_indexable`).
    Ident,
    /// A number: a digit followed by letters, digits, `.`, and a sign after an exponent
    /// (`1.000000`, `0x7f800000`, `1e-7`, `5u64`); checked when it is used.
    Number,
    /// One punctuation character: `, [ ] ( ) { } | - + . : = * < >`.
    Punct(char),
    /// A quoted string on one line, quotes and escapes included (`"%0 is fine!"`): the text
    /// of a shader message ([`string_bytes`] reads it).
    Str,
    /// The end of a line.
    Newline,
    /// The end of the text.
    Eof,
    /// A character that starts no token.
    Bad,
}

/// One token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// What the token is.
    pub kind: Kind,
    /// Its text (empty for the end of the text).
    pub text: &'a str,
    /// One-based line.
    pub line: u32,
    /// One-based column, in characters.
    pub column: u32,
    /// True when whitespace, a comment or a line start comes before it.
    pub spaced: bool,
}

impl Token<'_> {
    /// True for the punctuation character `c`.
    pub fn is(&self, c: char) -> bool {
        self.kind == Kind::Punct(c)
    }

    /// True for a token that ends a statement (a line end or the end of the text).
    pub fn ends_line(&self) -> bool {
        matches!(self.kind, Kind::Newline | Kind::Eof)
    }

    /// How the token is named in "found …" messages.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Newline => "the end of the line".to_string(),
            Kind::Eof => "the end of the text".to_string(),
            Kind::Bad => format!("the character '{}'", self.text.escape_debug()),
            _ => {
                let text: String = self.text.chars().take(40).collect();
                if text.len() < self.text.len() {
                    format!("'{text}…'")
                } else {
                    format!("'{text}'")
                }
            }
        }
    }
}

const PUNCTUATION: &str = ",[](){}|-+.:=*<>";

/// Splits `text` into tokens; the last token is always [`Kind::Eof`].
pub fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    let (mut line, mut column) = (1u32, 1u32);
    let mut spaced = true;
    while let Some(&(start, c)) = chars.peek() {
        let (token_line, token_column) = (line, column);
        let mut push = |kind, end: usize, spaced: &mut bool| {
            tokens.push(Token {
                kind,
                text: text.get(start..end).unwrap_or(""),
                line: token_line,
                column: token_column,
                spaced: *spaced,
            });
            *spaced = false;
        };
        if c == '\n' {
            chars.next();
            push(Kind::Newline, start + 1, &mut spaced);
            line = line.saturating_add(1);
            column = 1;
            spaced = true;
        } else if c.is_whitespace() {
            chars.next();
            column = column.saturating_add(1);
            spaced = true;
        } else if c == '"' {
            // To the closing quote (a backslash escapes the next character) or the line end.
            chars.next();
            column = column.saturating_add(1);
            let mut end = start + 1;
            let mut escaped = false;
            while let Some(&(i, c)) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
                column = column.saturating_add(1);
                end = i + c.len_utf8();
                if c == '"' && !escaped {
                    break;
                }
                escaped = c == '\\' && !escaped;
            }
            push(Kind::Str, end, &mut spaced);
        } else if c == '#' || (c == '/' && text.get(start..start + 2) == Some("//")) {
            while chars.peek().is_some_and(|&(_, c)| c != '\n') {
                chars.next();
            }
            spaced = true;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut end = start;
            while let Some(&(i, c)) = chars.peek() {
                if !(c.is_ascii_alphanumeric() || c == '_') {
                    break;
                }
                end = i + 1;
                chars.next();
                column = column.saturating_add(1);
            }
            push(Kind::Ident, end, &mut spaced);
        } else if c.is_ascii_digit() {
            let hex = text
                .get(start..start + 2)
                .is_some_and(|p| p == "0x" || p == "0X");
            let mut end = start;
            let mut previous = ' ';
            while let Some(&(i, c)) = chars.peek() {
                let exponent_sign = (c == '-' || c == '+') && !hex && matches!(previous, 'e' | 'E');
                // Microsoft's C library prints infinities and NaNs as `1.#INF00`, `1.#QNAN0`.
                let special = c == '#' && !hex && previous == '.';
                if !(c.is_ascii_alphanumeric() || c == '.' || c == '_' || exponent_sign || special)
                {
                    break;
                }
                previous = c;
                end = i + 1;
                chars.next();
                column = column.saturating_add(1);
            }
            push(Kind::Number, end, &mut spaced);
        } else {
            chars.next();
            column = column.saturating_add(1);
            let kind = if PUNCTUATION.contains(c) {
                Kind::Punct(c)
            } else {
                Kind::Bad
            };
            push(kind, start + c.len_utf8(), &mut spaced);
        }
    }
    tokens.push(Token {
        kind: Kind::Eof,
        text: "",
        line,
        column,
        spaced: true,
    });
    tokens
}

/// The bytes a [`Kind::Str`] token stands for: the text between its quotes with `\"`, `\\`,
/// `\n`, `\r`, `\t` and `\xNN` read as what they escape; why not, for a string that is not
/// closed or holds another escape.
pub fn string_bytes(token: &str) -> Result<Vec<u8>, String> {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|_| token.len() >= 2)
        .ok_or("the string is not closed with '\"' on its line")?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.bytes();
    while let Some(b) = rest.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match rest.next() {
            Some(b'"') => bytes.push(b'"'),
            Some(b'\\') => bytes.push(b'\\'),
            Some(b'n') => bytes.push(b'\n'),
            Some(b'r') => bytes.push(b'\r'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'x') => {
                let hex: Vec<u8> = rest.by_ref().take(2).collect();
                let value = std::str::from_utf8(&hex)
                    .ok()
                    .filter(|h| h.len() == 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or("\\x takes two hexadecimal digits")?;
                bytes.push(value);
            }
            _ => {
                return Err(
                    "unknown escape in the string (\\\", \\\\, \\n, \\r, \\t, \\xNN)".into(),
                )
            }
        }
    }
    Ok(bytes)
}

/// Writes `bytes` as a quoted string that the assembler reads back (`string_bytes`).
pub fn write_string(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_read_back() {
        let bytes = b"%0 is \"fine\"!\n\\ \x01\xff".to_vec();
        let mut text = String::new();
        write_string(&mut text, &bytes);
        assert_eq!(text, r#""%0 is \"fine\"!\n\\ \x01\xff""#);
        let line = format!("printf {text}, r0.x // {text}\n");
        let tokens = tokenize(&line);
        assert_eq!(tokens[1].kind, Kind::Str);
        assert_eq!(tokens[1].text, text);
        assert_eq!(tokens[2].kind, Kind::Punct(','));
        assert_eq!(string_bytes(tokens[1].text), Ok(bytes));
        assert!(string_bytes("\"open").is_err());
        assert!(string_bytes(r#""\q""#).is_err());
    }

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        tokenize(text).iter().map(|t| (t.kind, t.text)).collect()
    }

    #[test]
    fn splits_operands_numbers_and_comments() {
        assert_eq!(
            kinds("mov r0.x, l(1e-7) // note\n"),
            vec![
                (Kind::Ident, "mov"),
                (Kind::Ident, "r0"),
                (Kind::Punct('.'), "."),
                (Kind::Ident, "x"),
                (Kind::Punct(','), ","),
                (Kind::Ident, "l"),
                (Kind::Punct('('), "("),
                (Kind::Number, "1e-7"),
                (Kind::Punct(')'), ")"),
                (Kind::Newline, "\n"),
                (Kind::Eof, ""),
            ]
        );
        assert_eq!(
            kinds("[r0.x + 5u64] 0x7fe-1"),
            vec![
                (Kind::Punct('['), "["),
                (Kind::Ident, "r0"),
                (Kind::Punct('.'), "."),
                (Kind::Ident, "x"),
                (Kind::Punct('+'), "+"),
                (Kind::Number, "5u64"),
                (Kind::Punct(']'), "]"),
                (Kind::Number, "0x7fe"),
                (Kind::Punct('-'), "-"),
                (Kind::Number, "1"),
                (Kind::Eof, ""),
            ]
        );
    }

    #[test]
    fn positions_and_spacing() {
        let tokens = tokenize("a\n  b(c é");
        let b = tokens[2];
        assert_eq!((b.text, b.line, b.column, b.spaced), ("b", 2, 3, true));
        let paren = tokens[3];
        assert_eq!((paren.column, paren.spaced), (4, false));
        let bad = tokens[5];
        assert_eq!((bad.kind, bad.column), (Kind::Bad, 7));
    }
}
