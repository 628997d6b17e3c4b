//! The assembler: fxc-style assembly text (what [`crate::disasm`] prints) into an
//! [`crate::ir::Program`].
//!
//! The text is the listing format: `//` comments (skipped; the header tables are read
//! elsewhere), the version line (`ps_5_0`), then one declaration or instruction per line
//! (`dcl_immediateConstantBuffer` and `dcl_customdata` blocks may span lines). Names come
//! from the opcode table ([`crate::isa`]) and the IR's enumerations, so a new
//! opcode needs no change here.
//!
//! The program is built as the decoder builds it: operand value types from the opcode
//! table (relative addresses `I32`, declared registers `None`), resource operands in SM5.1
//! form for every model, operands in the same arena order, and each instruction's dword
//! offset and length. Where the text does not show an encoding choice, the assembler makes
//! fxc's (see [`crate::disasm::implied`]): encoding the parsed program gives back the bytes
//! the text was printed from. fxc pads `samplepos` with one zero dword; so does the
//! assembler, and `{length=N}` after an instruction sets any other length.
//! `{trailing=0x00002000}` gives dwords the instruction holds past its last operand.
//!
//! Errors name the line and column and what was expected; no input panics, and relative
//! addresses nest at most four deep.

mod container;
mod data;
mod declaration;
mod instruction;
mod layout;
mod lexer;
mod mnemonic;
mod number;
mod operand;
mod range;
mod shader_test;

#[cfg(test)]
mod dialect_tests;
#[cfg(test)]
mod error_tests;
#[cfg(test)]
mod tests;

use crate::error::{Error, Location, Result};
use crate::ir::{self, Program, ShaderModel, Stage};
use crate::isa::Opcode;
use lexer::{Kind, Token};

pub use container::assemble;
#[doc(hidden)]
pub use lexer::write_string;
pub use shader_test::{asm_sections, AsmSection};

/// Parses assembly text into a program and checks it with [`ir::validate`] and the default
/// [`crate::limits::Limits`] (what the reader would refuse is refused here); every error
/// names a line and column.
#[doc(hidden)]
pub fn parse_program(text: &str) -> Result<Program> {
    let (program, positions) = parse_located(text)?;
    ir::validate(&program).map_err(|e| relocate(e, &positions))?;
    crate::limits::Limits::default()
        .check_program(&program)
        .map_err(|e| relocate(e, &positions))?;
    Ok(program)
}

/// Parses assembly text into a program without [`ir::validate`] (for programs that are
/// meant to be malformed, such as tests of later stages).
#[doc(hidden)]
pub fn parse_program_unchecked(text: &str) -> Result<Program> {
    parse_located(text).map(|(program, _)| program)
}

/// Moves an instruction-located error to the instruction's line and column.
fn relocate(error: Error, positions: &[(u32, u32)]) -> Error {
    match error.location {
        Location::Instruction { index, .. } => {
            let (line, column) = positions.get(index as usize).copied().unwrap_or((1, 1));
            Error::text(line, column, error.message).with_kind(error.kind)
        }
        _ => error,
    }
}

fn parse_located(text: &str) -> Result<(Program, Vec<(u32, u32)>)> {
    let tokens = lexer::tokenize(text);
    let mut parser = Parser {
        eof: tokens.last().copied().unwrap_or(Token {
            kind: Kind::Eof,
            text: "",
            line: 1,
            column: 1,
            spaced: true,
        }),
        tokens,
        pos: 0,
        program: Program::new(ShaderModel {
            stage: Stage::Pixel,
            major: 4,
            minor: 0,
        }),
        positions: Vec::new(),
        lengths: Vec::new(),
    };
    parser.program()?;
    parser.layout()?;
    Ok((parser.program, parser.positions))
}

/// The parser's state: the tokens, a cursor, and the program built so far.
struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    /// The last token (end of text), returned when peeking past the end.
    eof: Token<'a>,
    pos: usize,
    program: Program,
    /// Line and column of each instruction's first token.
    positions: Vec<(u32, u32)>,
    /// Each instruction's length as given by `{length=N}`.
    lengths: Vec<Option<u32>>,
}

impl<'a> Parser<'a> {
    /// The next token.
    fn peek(&self) -> Token<'a> {
        self.peek_at(0)
    }

    /// The token `n` places after the next one.
    fn peek_at(&self, n: usize) -> Token<'a> {
        self.pos
            .checked_add(n)
            .and_then(|i| self.tokens.get(i))
            .copied()
            .unwrap_or(self.eof)
    }

    /// Takes the next token.
    fn advance(&mut self) -> Token<'a> {
        let token = self.peek();
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        token
    }

    /// An error at a token.
    fn error_at(&self, token: Token<'_>, message: impl Into<String>) -> Error {
        Error::text(token.line, token.column, message)
    }

    /// "expected …, found …" at the next token.
    fn expected(&self, what: &str) -> Error {
        let found = self.peek();
        self.error_at(
            found,
            format!("expected {what}, found {}", found.describe()),
        )
    }

    /// Takes the punctuation `c`, or fails with "expected '<c>' <context>".
    fn expect_punct(&mut self, c: char, context: &str) -> Result<Token<'a>> {
        if self.peek().is(c) {
            Ok(self.advance())
        } else {
            Err(self.expected(&format!("'{c}' {context}")))
        }
    }

    /// Takes the punctuation `c` if it is next.
    fn eat(&mut self, c: char) -> bool {
        let found = self.peek().is(c);
        if found {
            self.advance();
        }
        found
    }

    /// Takes the punctuation `c` if it is next with no space before it.
    fn eat_unspaced(&mut self, c: char) -> bool {
        let next = self.peek();
        let found = next.is(c) && !next.spaced;
        if found {
            self.advance();
        }
        found
    }

    /// Takes a name.
    fn ident(&mut self, what: &str) -> Result<Token<'a>> {
        if self.peek().kind == Kind::Ident {
            Ok(self.advance())
        } else {
            Err(self.expected(what))
        }
    }

    /// Takes the name `word`.
    fn keyword(&mut self, word: &str, context: &str) -> Result<()> {
        let next = self.peek();
        if next.kind == Kind::Ident && next.text == word {
            self.advance();
            Ok(())
        } else {
            Err(self.expected(&format!("'{word}' {context}")))
        }
    }

    /// Takes an unsigned 32-bit number (decimal or `0x` hexadecimal).
    fn number_u32(&mut self, what: &str) -> Result<u32> {
        let token = self.peek();
        if token.kind != Kind::Number {
            return Err(self.expected(what));
        }
        self.advance();
        number::parse_u32(token.text).ok_or_else(|| {
            self.error_at(
                token,
                format!(
                    "{} is not {what} (an unsigned 32-bit number)",
                    token.describe()
                ),
            )
        })
    }

    /// Takes an unsigned number no larger than `max`.
    fn number_at_most(&mut self, what: &str, max: u32) -> Result<u32> {
        let token = self.peek();
        let value = self.number_u32(what)?;
        if value > max {
            return Err(self.error_at(
                token,
                format!("{what} {value} is out of range (at most {max})"),
            ));
        }
        Ok(value)
    }

    /// Takes an optional `-` and a number token: (negative, token).
    fn signed_number(&mut self, what: &str) -> Result<(bool, Token<'a>)> {
        let negative = self.eat('-');
        let token = self.peek();
        if token.kind != Kind::Number {
            return Err(self.expected(what));
        }
        self.advance();
        Ok((negative, token))
    }

    /// Skips line ends.
    fn skip_newlines(&mut self) {
        while self.peek().kind == Kind::Newline {
            self.advance();
        }
    }

    /// Requires the end of the statement.
    fn end_of_line(&mut self, context: &str) -> Result<()> {
        if self.peek().ends_line() {
            Ok(())
        } else {
            Err(self.expected(&format!("the end of the line {context}")))
        }
    }

    /// Parses the whole text.
    fn program(&mut self) -> Result<()> {
        self.skip_newlines();
        self.skip_listing_prefix();
        self.skip_level9_listing();
        self.version()?;
        self.end_of_line("after the version")?;
        loop {
            self.skip_newlines();
            self.skip_listing_prefix();
            let start = self.peek();
            match start.kind {
                Kind::Eof => return Ok(()),
                Kind::Ident => {}
                Kind::Punct('.') => {
                    self.directive()?;
                    continue;
                }
                _ => return Err(self.expected("an instruction or a declaration")),
            }
            self.positions.push((start.line, start.column));
            let mut instruction = if declaration::is_declaration(start.text) {
                self.declaration()?
            } else if matches!(start.text, "printf" | "errorf") {
                self.shader_message()?
            } else {
                self.instruction()?
            };
            let length = self.statement_annotations(&mut instruction)?;
            self.end_of_line(&format!("after {}", start.describe()))?;
            self.program.instructions.push(instruction);
            self.lengths.push(length);
        }
    }

    /// Skips the instruction number and byte offset fxc's `/Ni` and `/No` put before a line
    /// (`  12: mov …`, `0x00000014: mov …`, or both: `  12  0x00000014: mov …`): one or two
    /// numbers and a colon where a statement starts, which no statement does.
    fn skip_listing_prefix(&mut self) {
        let numbers = (0..2)
            .take_while(|&k| self.peek_at(k).kind == Kind::Number)
            .count();
        if numbers > 0 && self.peek_at(numbers).is(':') {
            self.pos += numbers + 1;
        }
    }

    /// Skips the shader-model 2 listing fxc prints under `// Level9 shader bytecode:` for a
    /// `4_0_level_9_x` target (indented code, not comments) up to the line with the SM4
    /// version; without such a line nothing is skipped, and the version is refused.
    fn skip_level9_listing(&mut self) {
        let first = self.peek();
        if first.kind != Kind::Ident || !is_level9_version(first.text) {
            return;
        }
        let rest = self.tokens.get(self.pos..).unwrap_or_default();
        let sm4_line = rest.windows(2).position(|pair| {
            pair[0].kind == Kind::Newline
                && pair[1].kind == Kind::Ident
                && version_model(&pair[1]).is_ok()
        });
        if let Some(newline) = sm4_line {
            self.pos += newline + 1;
        }
    }

    /// Skips a line of vkd3d-compiler's `d3d-asm` sections: `.text` before the program and
    /// the `.input`, `.output` and `.patch_constant` signature headings with their `.param`
    /// lines (the signatures are derived from the declarations, as for a listing without
    /// signature tables).
    fn directive(&mut self) -> Result<()> {
        self.advance();
        let name = self.peek();
        let known = ["text", "input", "output", "patch_constant", "param"];
        if name.spaced || name.kind != Kind::Ident || !known.contains(&name.text) {
            return Err(self.expected(
                "a vkd3d-compiler section after '.' (.text, .input, .output, .patch_constant, \
                 .param)",
            ));
        }
        while !self.peek().ends_line() {
            self.advance();
        }
        Ok(())
    }

    /// Reads the version line (`ps_5_0`).
    fn version(&mut self) -> Result<()> {
        let token = self.ident("the version (e.g. ps_5_0)")?;
        let model = version_model(&token).map_err(|message| self.error_at(token, message))?;
        self.program = Program::new(model);
        Ok(())
    }

    /// Reads the `{unused_control=0x…}`, `{trailing=0x…,…}` and `{length=N}` annotations at
    /// the end of a statement; returns the length, if given.
    fn statement_annotations(&mut self, instruction: &mut ir::Instruction) -> Result<Option<u32>> {
        let mut length = None;
        while self.peek().is('{') {
            let open = self.advance();
            let key = self.ident("'unused_control', 'trailing' or 'length' after '{'")?;
            if !matches!(key.text, "unused_control" | "trailing" | "length") {
                return Err(self.error_at(
                    key,
                    format!(
                        "unknown annotation {} (expected unused_control, trailing or length)",
                        key.describe()
                    ),
                ));
            }
            self.expect_punct('=', &format!("after '{}'", key.text))?;
            match key.text {
                "unused_control" => {
                    let value = self.number_u32("the control bits")?;
                    if value & !0x00ff_f800 != 0 {
                        return Err(self.error_at(
                            open,
                            format!("unused control bits {value:#x} lie outside bits 11–23"),
                        ));
                    }
                    if instruction.opcode == Opcode::CustomData {
                        return Err(self.error_at(open, "custom-data blocks have no control bits"));
                    }
                    instruction.unused_control = value;
                }
                "trailing" => {
                    if instruction.opcode == Opcode::CustomData {
                        return Err(self
                            .error_at(open, "custom-data blocks have no dwords past their data"));
                    }
                    if instruction.trailing.len > 0 {
                        return Err(self.error_at(key, "the trailing dwords are given twice"));
                    }
                    let start = self.program.data.len() as u32;
                    loop {
                        let word = self.number_u32("a trailing dword")?;
                        self.program.data.push(word);
                        if !self.eat(',') {
                            break;
                        }
                    }
                    if self.program.data.last() == Some(&0) {
                        return Err(self.error_at(
                            open,
                            "the last trailing dword is 0: zero dwords at the end are padding, \
                             given by {length=N}",
                        ));
                    }
                    let len = self.program.data.len() as u32 - start;
                    if len > 126 {
                        return Err(self
                            .error_at(open, "more trailing dwords than an instruction can hold"));
                    }
                    instruction.trailing = ir::DataRange { start, len };
                }
                _ => {
                    length = Some(self.number_at_most("the instruction length", 127)?);
                }
            }
            self.expect_punct('}', "to close the annotation")?;
        }
        Ok(length)
    }
}

/// Whether `name` is a shader-model 1–3 version such as `ps_2_0`, `vs_3_0` or `ps_2_x`: the
/// first line of the Level9 listing fxc prints before an SM4 one.
fn is_level9_version(name: &str) -> bool {
    let mut parts = name.split('_');
    matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (Some("ps" | "vs"), Some("1" | "2" | "3"), Some(_), None)
    )
}

/// The shader model a version token names (`ps_5_0`), or why it names none this assembler
/// reads (SM4.0–5.1, hull and domain shaders from SM5).
fn version_model(token: &Token<'_>) -> std::result::Result<ShaderModel, String> {
    let mut parts = token.text.split('_');
    let (Some(prefix), Some(major), Some(minor), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "expected the version (e.g. ps_5_0), found {}",
            token.describe()
        ));
    };
    let Some(stage) = (0..6)
        .filter_map(Stage::from_program_type)
        .find(|s| s.prefix() == prefix)
    else {
        return Err(format!(
            "unknown shader stage '{prefix}' (expected ps, vs, gs, hs, ds or cs)"
        ));
    };
    let model = match (major, minor) {
        ("4", "0") | ("4", "1") | ("5", "0") | ("5", "1") => ShaderModel {
            stage,
            major: major.parse().unwrap_or(4),
            minor: minor.parse().unwrap_or(0),
        },
        _ => return Err(format!("shader model {major}.{minor} is not SM4.0–5.1")),
    };
    if matches!(stage, Stage::Hull | Stage::Domain) && model.major < 5 {
        return Err(format!("{prefix} programs need shader model 5"));
    }
    Ok(model)
}
