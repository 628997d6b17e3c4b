//! Operands: modifiers (`-`, `|…|`, `-|…|`), registers with their indices (`r0`,
//! `cb0[1]`, `x0[r0.x + 1]`, `v[0][1]`, `[5u64]`), component letters, immediates
//! (`l(…)`, `d(…)`) and the trailing hints and annotations (` {min16f}`, ` {nonuniform}`,
//! ` {components=1}`, ` {select1}`, …; see [`crate::disasm::implied`]).

use super::lexer::{Kind, Token};
use super::number::{self, IndexValue};
use super::Parser;
use crate::disasm::implied::{self, Letters, Role};
use crate::error::Result;
use crate::ir::*;

/// How deep relative addresses may nest (as in the decoder).
const MAX_RELATIVE_DEPTH: u32 = 4;

/// The hints and annotations that may follow an operand.
#[derive(Default)]
pub(super) struct Annotations<'a> {
    /// `{components=N}` and where it was.
    components: Option<(ComponentCount, Token<'a>)>,
    /// `{mask}`, `{swizzle}`, `{select1}`, with letters when given (`{mask=xy}`).
    mode: Option<(Mode, Option<Letters>, Token<'a>)>,
    /// `{min16f}` and the like.
    pub min_precision: MinPrecision,
    /// `{nonuniform}`.
    pub non_uniform: bool,
    /// The precision was given as `{… as …}`.
    converted: bool,
}

impl Annotations<'_> {
    /// Whether no annotation was read.
    fn is_empty(&self) -> bool {
        self.components.is_none()
            && self.mode.is_none()
            && self.min_precision == MinPrecision::Default
            && !self.non_uniform
            && !self.converted
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Mask,
    Swizzle,
    Select1,
}

/// Parses component letters (`x`, `xy`, `xxyz`): one to four of `xyzw`.
pub(super) fn parse_letters(text: &str) -> Option<Letters> {
    if text.is_empty() || text.len() > 4 {
        return None;
    }
    let mut letters = Letters::default();
    for (slot, c) in letters.components.iter_mut().zip(text.bytes()) {
        *slot = b"xyzw".iter().position(|&x| x == c)? as u8;
        letters.len += 1;
    }
    Some(letters)
}

impl<'a> Parser<'a> {
    /// Reads an operand in a role; its relative addresses go into the arena first (in the
    /// decoder's order), the operand itself is returned.
    pub(super) fn operand(
        &mut self,
        role: Role,
        value_type: ValueType,
        depth: u32,
    ) -> Result<Operand> {
        let start = self.peek();
        let modifier = if self.eat('-') {
            if self.eat_unspaced('|') {
                Modifier::AbsNeg
            } else {
                Modifier::Neg
            }
        } else if self.eat('|') {
            Modifier::Abs
        } else {
            Modifier::None
        };
        let core = self.peek();
        if core.kind != Kind::Ident {
            return Err(self.expected("an operand (a register or an immediate l(…))"));
        }
        let immediate = matches!(core.text, "l" | "d") && {
            let paren = self.peek_at(1);
            paren.is('(') && !paren.spaced
        };
        let (mut operand, letters, values) = if immediate {
            let (mut operand, count) = self.immediate()?;
            self.indices(&mut operand, depth)?;
            (operand, Letters::default(), Some(count))
        } else {
            let (operand, letters) = self.register(depth)?;
            (operand, letters, None)
        };
        // fxc writes an operand's precision inside the bars of its absolute value
        // (`|r2.xyzw {min16f}|`); this project's printer writes it after them.
        let mut inside = None;
        if matches!(modifier, Modifier::Abs | Modifier::AbsNeg) {
            inside = Some(self.annotations()?).filter(|a| !a.is_empty());
            self.expect_punct('|', "to close the absolute value")?;
        }
        let after = self.peek();
        let mut annotations = self.annotations()?;
        if let Some(inside) = inside {
            if !annotations.is_empty() {
                return Err(self.error_at(
                    after,
                    "annotations both inside and after the absolute value's bars",
                ));
            }
            annotations = inside;
        }
        self.encoding(&mut operand, role, letters, values, &annotations, start)?;
        operand.modifier = modifier;
        operand.min_precision = annotations.min_precision;
        operand.non_uniform = annotations.non_uniform;
        operand.value_type = value_type;
        if matches!(role, Role::Destination | Role::Source) {
            self.normalise_resource_operand(&mut operand, start)?;
        }
        Ok(operand)
    }

    /// Reads `l(…)` or `d(…)`; returns the operand and its number of values.
    fn immediate(&mut self) -> Result<(Operand, usize)> {
        let name = self.advance();
        self.advance();
        let wide = name.text == "d";
        let (kind, max) = if wide {
            (RegisterKind::Immediate64, 2)
        } else {
            (RegisterKind::Immediate32, 4)
        };
        let mut operand = Operand::register(kind, ComponentCount::One, Selection::Mask(0));
        let mut count = 0;
        loop {
            let (negative, token) = self.signed_number("a number")?;
            if count == max {
                return Err(self.error_at(
                    token,
                    format!(
                        "{}(…) takes {} values",
                        name.text,
                        if wide { "1 or 2" } else { "1 or 4" }
                    ),
                ));
            }
            let bad = |message: String| self.error_at(token, message);
            if wide {
                let bits = number::parse_immediate64(negative, token.text).map_err(bad)?;
                let (low, high) = (bits as u32, (bits >> 32) as u32);
                for (offset, half) in [(0, low), (1, high)] {
                    if let Some(slot) = operand.values.get_mut(2 * count + offset) {
                        *slot = half;
                    }
                }
            } else {
                let bits = number::parse_immediate32(negative, token.text).map_err(bad)?;
                if let Some(slot) = operand.values.get_mut(count) {
                    *slot = bits;
                }
            }
            count += 1;
            if self.eat(')') {
                break;
            }
            self.expect_punct(',', "or ')' after the value")?;
        }
        if implied::implied_immediate(kind, count).is_none() {
            return Err(self.error_at(
                name,
                format!(
                    "{}(…) takes {} values, found {count}",
                    name.text,
                    if wide { "1 or 2" } else { "1 or 4" }
                ),
            ));
        }
        Ok((operand, count))
    }

    /// Reads a register with its indices and component letters.
    fn register(&mut self, depth: u32) -> Result<(Operand, Letters)> {
        let token = self.advance();
        let split = token
            .text
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(token.text.len());
        let (name, digits) = token.text.split_at(split);
        let kind = RegisterKind::ALL
            .iter()
            .copied()
            .filter(|k| !matches!(k, RegisterKind::Immediate32 | RegisterKind::Immediate64))
            .find(|k| k.is_named(name))
            .filter(|_| {
                let number = digits.strip_suffix("u64").unwrap_or(digits);
                number.bytes().all(|b| b.is_ascii_digit())
            })
            .ok_or_else(|| {
                self.error_at(token, format!("unknown register {}", token.describe()))
            })?;
        let mut operand = Operand::register(kind, ComponentCount::Zero, Selection::Mask(0));
        if !digits.is_empty() {
            operand.indices[0] = match number::parse_index(false, digits) {
                Ok(IndexValue::Imm32(v)) => Index::Imm32(v),
                Ok(IndexValue::Imm64(v)) => Index::Imm64(v),
                Err(_) => {
                    return Err(
                        self.error_at(token, format!("register number {digits} is out of range"))
                    )
                }
            };
            operand.index_count = 1;
        }
        self.indices(&mut operand, depth)?;
        let mut letters = Letters::default();
        if self.eat_unspaced('.') {
            let token = self.ident("component letters (x, y, z, w)")?;
            letters = parse_letters(token.text).ok_or_else(|| {
                self.error_at(
                    token,
                    format!(
                        "{} is not a component selection (one to four of x, y, z, w)",
                        token.describe()
                    ),
                )
            })?;
        }
        Ok((operand, letters))
    }

    /// Reads the bracketed indices `[…]` that follow a register (or an immediate).
    fn indices(&mut self, operand: &mut Operand, depth: u32) -> Result<()> {
        while self.peek().is('[') && !self.peek().spaced {
            let open = self.advance();
            let index = self.index(depth)?;
            let slot = operand
                .indices
                .get_mut(operand.index_count as usize)
                .ok_or_else(|| self.error_at(open, "an operand has at most three indices"))?;
            *slot = index;
            operand.index_count += 1;
        }
        Ok(())
    }

    /// Reads an index after its `[`, through the `]`.
    fn index(&mut self, depth: u32) -> Result<Index> {
        let next = self.peek();
        let number_next =
            next.kind == Kind::Number || (next.is('-') && self.peek_at(1).kind == Kind::Number);
        let index = if number_next {
            let (negative, token) = self.signed_number("an index")?;
            match number::parse_index(negative, token.text) {
                Ok(IndexValue::Imm32(v)) => Index::Imm32(v),
                Ok(IndexValue::Imm64(v)) => Index::Imm64(v),
                Err(message) => return Err(self.error_at(token, message)),
            }
        } else {
            if depth >= MAX_RELATIVE_DEPTH {
                return Err(self.error_at(
                    next,
                    format!("relative addresses nest deeper than {MAX_RELATIVE_DEPTH} levels"),
                ));
            }
            let relative = self.operand(Role::Source, ValueType::I32, depth + 1)?;
            let id = OperandId(self.program.operands.len() as u32);
            self.program.operands.push(relative);
            if self.eat('+') {
                let (negative, token) = self.signed_number("an index offset")?;
                match number::parse_index(negative, token.text) {
                    Ok(IndexValue::Imm32(v)) => Index::Imm32PlusRelative(v, id),
                    Ok(IndexValue::Imm64(v)) => Index::Imm64PlusRelative(v, id),
                    Err(message) => return Err(self.error_at(token, message)),
                }
            } else {
                Index::Relative(id)
            }
        };
        self.expect_punct(']', "to close the index")?;
        Ok(index)
    }

    /// Reads the ` {…}` hints and annotations after an operand.
    pub(super) fn annotations(&mut self) -> Result<Annotations<'a>> {
        let mut found = Annotations::default();
        while self.peek().is('{') && self.peek_at(1).kind == Kind::Ident {
            let key = self.peek_at(1);
            // `{min16f}`, or fxc's `{min16f as def32}` / `{def32 as min16f}` for a source whose
            // precision differs from the instruction's (the part after `as`, the
            // instruction's precision, follows from the destination and is not kept).
            let converted = self.peek_at(2).kind == Kind::Ident && self.peek_at(2).text == "as";
            let precision = MinPrecision::from_fxc_name(key.text)
                .filter(|p| *p != MinPrecision::Default || converted);
            let known = precision.is_some()
                || matches!(
                    key.text,
                    "nonuniform" | "components" | "mask" | "swizzle" | "select1"
                );
            if !known {
                break;
            }
            self.advance();
            self.advance();
            let repeated = || self.error_at(key, format!("{} is repeated", key.describe()));
            match key.text {
                "nonuniform" => {
                    if found.non_uniform {
                        return Err(repeated());
                    }
                    found.non_uniform = true;
                }
                "components" => {
                    if found.components.is_some() {
                        return Err(repeated());
                    }
                    self.expect_punct('=', "after 'components'")?;
                    let count = match self.number_u32("a component count (0, 1 or 4)")? {
                        0 => ComponentCount::Zero,
                        1 => ComponentCount::One,
                        4 => ComponentCount::Four,
                        n => {
                            return Err(
                                self.error_at(key, format!("component count {n} is not 0, 1 or 4"))
                            )
                        }
                    };
                    found.components = Some((count, key));
                }
                "mask" | "swizzle" | "select1" => {
                    if found.mode.is_some() {
                        return Err(repeated());
                    }
                    let mode = match key.text {
                        "mask" => Mode::Mask,
                        "swizzle" => Mode::Swizzle,
                        _ => Mode::Select1,
                    };
                    let mut letters = None;
                    if self.eat('=') {
                        let token = self.ident("component letters")?;
                        letters = Some(parse_letters(token.text).ok_or_else(|| {
                            self.error_at(
                                token,
                                format!("{} is not a component selection", token.describe()),
                            )
                        })?);
                    }
                    found.mode = Some((mode, letters, key));
                }
                _ => {
                    if found.min_precision != MinPrecision::Default || found.converted {
                        return Err(repeated());
                    }
                    found.min_precision = precision.unwrap_or_default();
                    if converted {
                        self.advance();
                        let to = self.ident("a precision after 'as' (def32, min16f, …)")?;
                        if MinPrecision::from_fxc_name(to.text).is_none() {
                            return Err(
                                self.error_at(to, format!("unknown precision {}", to.describe()))
                            );
                        }
                        found.converted = true;
                    }
                }
            }
            self.expect_punct('}', "to close the annotation")?;
        }
        Ok(found)
    }

    /// Sets the component count and selection: what the text implies in this role, or
    /// what the annotations say.
    pub(super) fn encoding(
        &self,
        operand: &mut Operand,
        role: Role,
        letters: Letters,
        values: Option<usize>,
        annotations: &Annotations<'_>,
        at: Token<'_>,
    ) -> Result<()> {
        let (mut components, mut selection) = match values {
            Some(count) => (
                implied::implied_immediate(operand.kind, count).unwrap_or(ComponentCount::One),
                Selection::Mask(0),
            ),
            None => {
                if letters.len > 1 && letters.len < 4 && letters.as_mask().is_none() {
                    return Err(self.error_at(
                        at,
                        "two or three component letters form a mask: distinct and in xyzw order",
                    ));
                }
                implied::implied(self.program.model, role, operand.kind, letters)
            }
        };
        if let Some((count, key)) = annotations.components {
            if letters.len > 0 || values.is_some() {
                return Err(self.error_at(
                    key,
                    "{components=…} is for registers shown without component letters",
                ));
            }
            components = count;
            selection = Selection::Mask(0);
        }
        if let Some((mode, given, key)) = annotations.mode {
            let letters = match (given, letters.len) {
                (Some(given), 0) => given,
                (None, n) if n > 0 => letters,
                _ => {
                    return Err(self.error_at(
                        key,
                        "{mask}, {swizzle} and {select1} take letters (e.g. {mask=xy}) only where the operand shows none",
                    ))
                }
            };
            if annotations.components.is_some() {
                return Err(self.error_at(key, "a selection annotation needs four components"));
            }
            selection = match mode {
                Mode::Mask => letters.as_mask().map(Selection::Mask),
                Mode::Swizzle => {
                    (letters.len == 4).then_some(Selection::Swizzle(letters.components))
                }
                Mode::Select1 => (letters.len == 1).then_some(Selection::Select1(letters.components[0])),
            }
            .ok_or_else(|| {
                self.error_at(
                    key,
                    "the letters do not fit the selection mode (a mask: distinct letters in order; a swizzle: four letters; a select-1: one letter)",
                )
            })?;
            if values.is_some() && components != ComponentCount::Four {
                return Err(self.error_at(key, "a one-value immediate has no selection"));
            }
            components = ComponentCount::Four;
        }
        operand.components = components;
        operand.selection = selection;
        Ok(())
    }

    /// Rewrites an SM4.0–5.0 resource operand into SM5.1 form, as the decoder does
    /// ([`crate::ir::normalise_resource_operand`]).
    fn normalise_resource_operand(&self, operand: &mut Operand, at: Token<'_>) -> Result<()> {
        crate::ir::normalise_resource_operand(self.program.model, operand)
            .map_err(|(kind, message)| self.error_at(at, message).with_kind(kind))
    }
}
