//! Instructions: the mnemonic, then the destinations and sources the opcode table lists
//! (with their value types); `fcall`'s call site is the last index of its interface.

use super::Parser;
use crate::disasm::implied::Role;
use crate::error::Result;
use crate::ir::*;
use crate::isa::Layout;

/// The most operands any instruction has (`sample_d_cl_s`: two destinations, six sources).
const MAX_OPERANDS: usize = 8;

impl Parser<'_> {
    /// Reads an instruction (not a declaration) up to the end of its operands.
    pub(super) fn instruction(&mut self) -> Result<Instruction> {
        let mut instruction = self.mnemonic()?;
        let info = instruction.opcode.info();
        let expected = info.dsts.len() + info.srcs.len();
        let mut operands = [Operand::NULL; MAX_OPERANDS];
        let types = info.dsts.iter().chain(info.srcs).copied();
        for (i, value_type) in types.enumerate().take(MAX_OPERANDS) {
            let is_dst = i < info.dsts.len();
            if i > 0 {
                let what = if i - 1 < info.dsts.len() {
                    "after the destination operand".to_string()
                } else {
                    format!("after source operand {}", i - info.dsts.len())
                };
                if self.peek().ends_line() {
                    return Err(self.error_at(
                        self.peek(),
                        format!("{} takes {expected} operand(s), found {i}", info.name),
                    ));
                }
                self.expect_punct(',', &what)?;
            } else if self.peek().ends_line() {
                return Err(self.error_at(
                    self.peek(),
                    format!("{} takes {expected} operand(s), found none", info.name),
                ));
            }
            let role = if is_dst {
                Role::Destination
            } else {
                Role::Source
            };
            let operand = self.operand(role, value_type, 0)?;
            if let Some(slot) = operands.get_mut(i) {
                *slot = operand;
            }
        }
        if info.layout == Layout::InterfaceCall {
            // `fcall fp0[0][1]`: the last index of the interface is the call site; an
            // interface with three indices of its own takes it after a comma instead.
            if self.peek().is(',') {
                self.expect_punct(',', "before the call site")?;
                instruction.call_index = Some(self.number_u32("the call site")?);
            } else {
                let interface = operands.first_mut().filter(|o| o.index_count > 0);
                let Some(interface) = interface else {
                    return Err(self.error_at(
                        self.peek(),
                        "fcall needs the call site as the last index of its interface operand",
                    ));
                };
                let last = interface.index_count as usize - 1;
                let site = interface.indices.get(last).and_then(|i| i.as_imm32());
                let Some(site) = site else {
                    return Err(self.error_at(
                        self.peek(),
                        "the call site of fcall must be an immediate index",
                    ));
                };
                interface.index_count -= 1;
                // The call site is no index of the operand: clear it, as the decoder leaves
                // unused indices.
                if let Some(index) = interface.indices.get_mut(last) {
                    *index = Index::Imm32(0);
                }
                instruction.call_index = Some(site);
            }
        }
        if self.peek().is(',') {
            return Err(self.error_at(
                self.peek(),
                format!(
                    "{} takes {expected} operand(s); found more",
                    instruction.opcode.name()
                ),
            ));
        }
        let count = expected.min(MAX_OPERANDS);
        let start = self.program.operands.len() as u32;
        self.program
            .operands
            .extend_from_slice(operands.get(..count).unwrap_or(&[]));
        instruction.operands = OperandRange {
            start,
            len: count as u32,
        };
        instruction.dst_count = info.dsts.len() as u8;
        Ok(instruction)
    }
}
