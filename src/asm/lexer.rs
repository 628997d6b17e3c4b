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

#[cfg(test)]
mod tests {
    use super::*;

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
