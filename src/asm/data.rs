//! Data blocks: `dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0}, … }` (floats or the
//! bits as integers, in rows of up to four) and `dcl_customdata <class> { 0x…, … }`; both may
//! span lines. fxc's `printf "format", operands…` and `errorf` are shader-message blocks
//! ([`crate::ir::shader_message`]).

use super::lexer::Kind;
use super::number;
use super::Parser;
use crate::error::Result;
use crate::ir::*;
use crate::isa::Opcode;

impl Parser<'_> {
    /// Reads a data block `{ … }` (which may span lines) into the data arena.
    pub(super) fn custom_data(&mut self, class: CustomDataClass) -> Result<Instruction> {
        let open = self.expect_punct('{', "to open the data block")?;
        let start = self.program.data.len() as u32;
        let icb = class == CustomDataClass::ImmediateConstantBuffer;
        self.skip_newlines();
        if !self.eat('}') {
            loop {
                self.skip_newlines();
                if icb {
                    let row = self.expect_punct('{', "to open a row of four values")?;
                    loop {
                        self.skip_newlines();
                        self.data_value(true)?;
                        self.skip_newlines();
                        if self.eat('}') {
                            break;
                        }
                        self.expect_punct(
                            ',',
                            &format!("or '}}' in the row at line {}", row.line),
                        )?;
                    }
                } else {
                    self.data_value(false)?;
                }
                self.skip_newlines();
                if self.eat('}') {
                    break;
                }
                if self.peek().kind == Kind::Eof {
                    return Err(self.expected(&format!(
                        "'}}' to close the data block opened at line {}",
                        open.line
                    )));
                }
                self.expect_punct(',', "or '}' in the data block")?;
                // vkd3d-compiler ends every row with a comma, the last one too.
                self.skip_newlines();
                if icb && self.eat('}') {
                    break;
                }
            }
        }
        let len = self.program.data.len() as u32 - start;
        let mut instruction = Instruction::new(Opcode::CustomData);
        instruction.declaration = Some(Declaration::CustomData {
            class,
            data: DataRange { start, len },
        });
        Ok(instruction)
    }

    /// Reads `printf "format", operands…` or `errorf …` (the mnemonic next) into a
    /// shader-message block.
    pub(super) fn shader_message(&mut self) -> Result<Instruction> {
        let head = self.advance();
        let token = self.peek();
        if token.kind != Kind::Str {
            return Err(self.expected(&format!("a quoted format string after {}", head.text)));
        }
        self.advance();
        let text = super::lexer::string_bytes(token.text).map_err(|m| self.error_at(token, m))?;
        // The operands are parsed into the arena for their tokens, then taken out of it: the
        // block holds them, as a decoded program's arena does not.
        let arena = self.program.operands.len();
        let mut operands = Vec::new();
        while self.eat(',') {
            operands.push(self.operand(
                crate::disasm::implied::Role::Source,
                ValueType::Bits,
                0,
            )?);
        }
        let tokens = crate::tpf::encode_operands(&self.program, &operands)
            .map_err(|e| self.error_at(head, e.message))?;
        self.program.operands.truncate(arena);
        let message = crate::ir::shader_message::ShaderMessage {
            error: head.text == "errorf",
            text,
            operand_count: operands.len(),
            operand_tokens: &tokens,
        };
        let start = self.program.data.len() as u32;
        self.program.data.extend(message.data());
        let mut instruction = Instruction::new(Opcode::CustomData);
        instruction.declaration = Some(Declaration::CustomData {
            class: CustomDataClass::ShaderMessage,
            data: DataRange {
                start,
                len: self.program.data.len() as u32 - start,
            },
        });
        Ok(instruction)
    }

    /// Reads one dword of a data block: in the immediate constant buffer a float or the
    /// bits as an integer, elsewhere an unsigned number.
    fn data_value(&mut self, icb: bool) -> Result<()> {
        let value = if icb {
            let (negative, token) = self.signed_number("a value")?;
            number::parse_immediate32(negative, token.text).map_err(|m| self.error_at(token, m))?
        } else {
            self.number_u32("a dword (0x…)")?
        };
        self.program.data.push(value);
        Ok(())
    }
}
