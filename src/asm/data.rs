//! Data blocks: `dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0}, … }` (floats or the
//! bits as integers, in rows of up to four) and `dcl_customdata <class> { 0x…, … }`; both may
//! span lines.

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
