//! Each instruction's dword offset and length, from its encoding: as the encoder writes it,
//! plus fxc's padding (`samplepos`), or the length a `{length=N}` annotation gives.

use super::{relocate, Parser};
use crate::disasm::implied::implied_padding;
use crate::error::{Error, Result};
use crate::isa::Opcode;

impl Parser<'_> {
    /// Sets each instruction's dword offset and length from its encoding, padding
    /// `samplepos` with one dword as fxc does, or to the `{length=N}` given.
    pub(super) fn layout(&mut self) -> Result<()> {
        for (instruction, length) in self.program.instructions.iter_mut().zip(&self.lengths) {
            instruction.length = length.unwrap_or(0);
        }
        let words =
            crate::tpf::encode_words(&self.program).map_err(|e| relocate(e, &self.positions))?;
        // `at` walks the encoded words, `dword` the final layout (with samplepos padding).
        let (mut at, mut dword) = (2usize, 2usize);
        for (index, instruction) in self.program.instructions.iter_mut().enumerate() {
            let token = words.get(at).copied().unwrap_or(0);
            let encoded = if instruction.opcode == Opcode::CustomData {
                words.get(at + 1).copied().unwrap_or(0)
            } else {
                crate::tpf::tokens::length(token)
            };
            let (line, column) = self.positions.get(index).copied().unwrap_or((1, 1));
            let mut length = encoded;
            match self.lengths.get(index).copied().flatten() {
                Some(given) if given < encoded => {
                    return Err(Error::text(
                        line,
                        column,
                        format!(
                        "length {given} is shorter than the {encoded} dwords the instruction needs"
                    ),
                    ))
                }
                Some(_) => {}
                None => {
                    let padding = implied_padding(instruction.opcode);
                    length += padding;
                    if padding > 0 && length > 127 {
                        return Err(Error::text(
                            line,
                            column,
                            "the instruction is too long to pad",
                        ));
                    }
                }
            }
            instruction.dword = dword as u32;
            instruction.length = length;
            at += encoded as usize;
            dword += length as usize;
        }
        Ok(())
    }
}
