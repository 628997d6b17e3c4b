//! Instruction mnemonics: the opcode name and its suffixes, in the order the disassembler
//! prints them — sync flags (`_uglobal_ugroup_g_t`, or Microsoft's `_sat_ugroup`), test
//! (`_z`/`_nz`), `_sat`,
//! `_aoffimmi(u,v,w)`, `_indexable(dim[, stride=N])`, return types `(t,t,t,t)`,
//! `_uint`/`_rcpFloat` — then ` [precise]` or ` [precise(xy)]`.

use super::lexer::{Kind, Token};
use super::Parser;
use crate::error::Result;
use crate::ir::*;
use crate::isa::{Control, Layout, Opcode};

/// The place of each suffix in the printed order; a suffix may only follow lower ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Sync(u8),
    Test,
    Saturate,
    Offsets,
    Resource,
    ReturnType,
    SampleCount,
    InfoReturn,
}

/// A suffix word and where it is.
#[derive(Clone, Copy)]
struct Word<'a> {
    text: &'a str,
    line: u32,
    column: u32,
}

impl<'a> Parser<'a> {
    /// Reads an instruction mnemonic; returns the instruction with its opcode, control
    /// fields and extended opcode fields set.
    pub(super) fn mnemonic(&mut self) -> Result<Instruction> {
        let head = self.ident("an instruction")?;
        let words = split_words(head);
        let (opcode, name_words) = self.resolve(head, &words)?;
        let mut state = Suffixes {
            instruction: Instruction::new(opcode),
            last: None,
            awaiting: Vec::new(),
        };
        if matches!(
            opcode.info().control,
            Control::ResinfoReturn | Control::InfoReturn
        ) {
            state.instruction.info_return_type = Some(InfoReturnType::Float);
        }
        for word in words.iter().skip(name_words) {
            self.suffix_word(&mut state, *word)?;
        }
        loop {
            let next = self.peek();
            if next.spaced {
                break;
            }
            if next.is('(') {
                self.advance();
                self.suffix_group(&mut state, next)?;
            } else if next.kind == Kind::Ident && next.text.starts_with('_') {
                self.advance();
                let more = split_words(next);
                if more.iter().skip(1).any(|w| w.text.is_empty()) {
                    return Err(self.error_at(next, format!("stray '_' in {}", next.describe())));
                }
                for word in more.iter().skip(1) {
                    self.suffix_word(&mut state, *word)?;
                }
            } else {
                break;
            }
        }
        if let Some(word) = state.awaiting.first() {
            return Err(self.error_at(self.peek(), format!("expected '(' after '_{}'", word.text)));
        }
        if opcode.info().control == Control::Test && state.instruction.test.is_none() {
            return Err(self.error_at(
                head,
                format!("{} needs a test suffix, _z or _nz", opcode.name()),
            ));
        }
        if self.peek().is('[') {
            state.instruction.precise_mask = self.precise()?;
        }
        Ok(state.instruction)
    }

    /// Finds the opcode: the longest run of leading words that names an instruction whose
    /// remaining words are all suffixes it can take.
    fn resolve(&self, head: Token<'a>, words: &[Word<'a>]) -> Result<(Opcode, usize)> {
        if words.iter().any(|w| w.text.is_empty()) {
            return Err(self.error_at(head, format!("stray '_' in {}", head.describe())));
        }
        let mut name = String::new();
        let mut best = None;
        for (k, word) in words.iter().enumerate() {
            if k > 0 {
                name.push('_');
            }
            name.push_str(word.text);
            let Some(opcode) = Opcode::from_name(&name) else {
                continue;
            };
            if opcode.is_declaration() {
                continue;
            }
            if words
                .get(k + 1..)
                .unwrap_or(&[])
                .iter()
                .all(|w| suffix_step(opcode, w.text).is_some())
            {
                best = Some((opcode, k + 1));
            }
        }
        best.ok_or_else(|| self.error_at(head, format!("unknown instruction {}", head.describe())))
    }

    fn suffix_word(&self, state: &mut Suffixes<'a>, word: Word<'a>) -> Result<()> {
        let opcode = state.instruction.opcode;
        let at = |message: String| crate::error::Error::text(word.line, word.column, message);
        let takes_group = matches!(word.text, "aoffimmi" | "indexable");
        if let Some(pending) = state.awaiting.first().filter(|_| !takes_group) {
            return Err(at(format!("expected '(' after '_{}'", pending.text)));
        }
        let step = suffix_step(opcode, word.text).ok_or_else(|| {
            at(format!(
                "unknown suffix '_{}' for {}",
                word.text,
                opcode.name()
            ))
        })?;
        // vkd3d-compiler writes `_uint` before `_indexable` (`resinfo_uint_indexable`):
        // the info return type may come anywhere, once.
        let info_return = step == Step::InfoReturn;
        let repeated_info = info_return
            && state.instruction.info_return_type != Some(InfoReturnType::Float)
            && state.instruction.info_return_type.is_some();
        if repeated_info || (!info_return && state.last.is_some_and(|last| last >= step)) {
            return Err(at(format!(
                "suffix '_{}' is repeated or out of order (the order is sync flags, _z/_nz, _sat, _aoffimmi, _indexable, return types, _uint/_rcpFloat)",
                word.text
            )));
        }
        if !info_return {
            state.last = Some(step);
        }
        let instruction = &mut state.instruction;
        match word.text {
            "uglobal" => instruction.sync.uav_global = true,
            "ugroup" => instruction.sync.uav_group = true,
            "g" => instruction.sync.group_shared_memory = true,
            "t" => instruction.sync.threads_in_group = true,
            "z" => instruction.test = Some(Test::Zero),
            "nz" => instruction.test = Some(Test::NonZero),
            // The saturate bit of `sync` is its UAV-group bit: Microsoft's disassembler
            // prints it as both, `sync_sat_ugroup_g_t`.
            "sat" if opcode.info().control == Control::Sync => instruction.sync.uav_group = true,
            "sat" => instruction.saturate = true,
            "uint" => instruction.info_return_type = Some(InfoReturnType::Uint),
            "rcpFloat" | "rcpfloat" => {
                instruction.info_return_type = Some(InfoReturnType::RcpFloat)
            }
            _ => state.awaiting.push(word),
        }
        Ok(())
    }

    /// Reads a parenthesised group after `_aoffimmi`, `_indexable` or as the return types.
    fn suffix_group(&mut self, state: &mut Suffixes<'a>, open: Token<'a>) -> Result<()> {
        let awaited = (!state.awaiting.is_empty()).then(|| state.awaiting.remove(0));
        let numeric = self.peek().kind == Kind::Number || self.peek().is('-');
        match awaited.map(|w| w.text) {
            Some("aoffimmi") => state.instruction.extended.offsets = Some(self.offsets()?),
            // vkd3d-compiler writes the offsets as a bare group after the name or the
            // resource dimension: `gather4(1,0,0)`, `ld_indexable(texture2d)(1,2,0)`.
            None if numeric && (self.peek_at(1).is(',') || self.peek_at(2).is(',')) => {
                if state.last.is_some_and(|last| last >= Step::ReturnType)
                    || state.instruction.extended.offsets.is_some()
                {
                    return Err(self.error_at(open, "offsets are repeated or out of order"));
                }
                state.instruction.extended.offsets = Some(self.offsets()?);
            }
            // fxc writes a multisampled resource's sample count after the return types:
            // `ldms_indexable(texture2dms)(float,float,float,float)(4)` (the field that holds
            // a structured buffer's stride).
            None if numeric && state.last == Some(Step::ReturnType) => {
                let token = self.peek();
                let count = self.number_at_most("the sample count", 0xfff)?;
                match &mut state.instruction.extended.resource {
                    Some((dimension, stride))
                        if matches!(
                            dimension,
                            ResourceDimension::Texture2DMS | ResourceDimension::Texture2DMSArray
                        ) && *stride == 0 =>
                    {
                        *stride = count;
                    }
                    _ => {
                        return Err(self.error_at(
                            token,
                            "a sample count after the return types needs \
                             _indexable(texture2dms) or _indexable(texture2dmsarray)",
                        ))
                    }
                }
                state.last = Some(Step::SampleCount);
            }
            Some(_) => {
                let token = self.ident("a resource dimension")?;
                let dimension = ResourceDimension::from_name(token.text).ok_or_else(|| {
                    self.error_at(
                        token,
                        format!("unknown resource dimension {}", token.describe()),
                    )
                })?;
                let mut stride = 0;
                if self.eat(',') {
                    self.keyword("stride", "after ','")?;
                    self.expect_punct('=', "after 'stride'")?;
                    stride = self.number_at_most("the structure stride", 0xfff)?;
                }
                state.instruction.extended.resource = Some((dimension, stride));
            }
            None => {
                let step = Step::ReturnType;
                if state.last.is_some_and(|last| last >= step) {
                    return Err(self.error_at(
                        open,
                        "return types are repeated or out of order (they follow _indexable)",
                    ));
                }
                state.last = Some(step);
                state.instruction.extended.return_type = Some(self.return_types()?);
            }
        }
        self.expect_punct(')', &format!("to close the '(' at column {}", open.column))?;
        Ok(())
    }

    /// Reads three texel offsets `u,v,w` from -8 to 7 (without the parentheses).
    fn offsets(&mut self) -> Result<[i8; 3]> {
        let mut offsets = [0i8; 3];
        for (i, slot) in offsets.iter_mut().enumerate() {
            if i > 0 {
                self.expect_punct(',', "between the offsets")?;
            }
            let (negative, token) = self.signed_number("an offset from -8 to 7")?;
            *slot = super::number::parse_u32(token.text)
                .and_then(|v| i8::try_from(v).ok())
                .map(|v| if negative { -v } else { v })
                .filter(|v| (-8..=7).contains(v))
                .ok_or_else(|| {
                    self.error_at(
                        token,
                        format!(
                            "offset {}{} is out of range (-8 to 7)",
                            if negative { "-" } else { "" },
                            token.text
                        ),
                    )
                })?;
        }
        Ok(offsets)
    }

    /// Reads four return types `float,float,float,float` (without the parentheses).
    pub(super) fn return_types(&mut self) -> Result<[ReturnType; 4]> {
        let mut types = [ReturnType::None; 4];
        for (i, slot) in types.iter_mut().enumerate() {
            if i > 0 {
                self.expect_punct(',', "between the return types")?;
            }
            // fxc writes the halves of a double as `double,<continued>` and unused
            // components as `<unused>`.
            let angled = self.eat('<');
            let token = self.ident("a return type (float, uint, sint, unorm, snorm, mixed, …)")?;
            if angled {
                self.expect_punct('>', "after the return type")?;
            }
            let name = if angled {
                format!("<{}>", token.text)
            } else {
                token.text.to_string()
            };
            *slot = ReturnType::from_name(&name)
                .ok_or_else(|| self.error_at(token, format!("unknown return type '{name}'")))?;
        }
        Ok(types)
    }

    /// Reads `[precise]` (all components) or `[precise(xy)]`.
    fn precise(&mut self) -> Result<u8> {
        self.expect_punct('[', "before 'precise'")?;
        self.keyword("precise", "after '['")?;
        let mut mask = 0xf;
        if self.eat('(') {
            let token = self.ident("the precise components (e.g. xy)")?;
            mask = super::operand::parse_letters(token.text)
                .and_then(|letters| letters.as_mask())
                .filter(|&m| m != 0)
                .ok_or_else(|| {
                    self.error_at(
                        token,
                        format!("{} is not a component mask", token.describe()),
                    )
                })?;
            self.expect_punct(')', "after the precise components")?;
        }
        self.expect_punct(']', "after 'precise'")?;
        Ok(mask)
    }
}

/// The mnemonic's state while its suffixes are read.
struct Suffixes<'a> {
    instruction: Instruction,
    /// The last suffix read.
    last: Option<Step>,
    /// `_aoffimmi` and `_indexable`, waiting for their parenthesised groups in order
    /// (fxc writes `sample_l_aoffimmi_indexable(0,1,0)(texture2d)`).
    awaiting: Vec<Word<'a>>,
}

/// The step of a suffix word for an opcode, or `None` when the opcode cannot take it.
fn suffix_step(opcode: Opcode, word: &str) -> Option<Step> {
    let info = opcode.info();
    if info.layout == Layout::Declaration || info.layout == Layout::CustomData {
        return None;
    }
    let control = info.control;
    Some(match word {
        "sat" if control == Control::Sync => Step::Sync(0),
        "uglobal" if control == Control::Sync => Step::Sync(1),
        "ugroup" if control == Control::Sync => Step::Sync(2),
        "g" if control == Control::Sync => Step::Sync(3),
        "t" if control == Control::Sync => Step::Sync(4),
        "z" | "nz" if control == Control::Test => Step::Test,
        "sat" if control != Control::Sync => Step::Saturate,
        "aoffimmi" => Step::Offsets,
        "indexable" => Step::Resource,
        "uint" if matches!(control, Control::ResinfoReturn | Control::InfoReturn) => {
            Step::InfoReturn
        }
        // Microsoft's disassembler writes `_rcpfloat`, other tools `_rcpFloat`.
        "rcpFloat" | "rcpfloat" if control == Control::ResinfoReturn => Step::InfoReturn,
        _ => return None,
    })
}

/// Splits a name at `_` into words, with their positions.
fn split_words(token: Token<'_>) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    let mut offset = 0u32;
    for text in token.text.split('_') {
        words.push(Word {
            text,
            line: token.line,
            column: token.column.saturating_add(offset),
        });
        offset = offset.saturating_add(text.len() as u32 + 1);
    }
    words
}
