//! Writing a module as SPIR-V words.

use super::{Function, Instruction, Module};

/// The generator word of the header: rspirv's tool id (what the builder wrote before the
/// translator had its own module type), version 0.
const GENERATOR: u32 = 0x000f_0000;

impl Instruction {
    /// Appends the instruction's words.
    pub fn assemble_into(&self, words: &mut Vec<u32>) {
        let start = words.len();
        words.push(self.class.opcode as u32);
        if let Some(ty) = self.result_type {
            words.push(ty);
        }
        if let Some(id) = self.result_id {
            words.push(id);
        }
        words.extend(self.operands.iter().map(|o| o.word()));
        let count = (words.len() - start) as u32;
        words[start] |= count << 16;
    }

    /// The number of words the instruction takes.
    fn word_estimate(&self) -> usize {
        1 + self.result_type.is_some() as usize
            + self.result_id.is_some() as usize
            + self.operands.len()
    }
}

impl Module {
    /// The module's words, in one buffer sized up front.
    pub fn assemble(&self) -> Vec<u32> {
        let estimate =
            |list: &[Instruction]| -> usize { list.iter().map(Instruction::word_estimate).sum() };
        let mut count = 0;
        for list in self.global_lists() {
            count += estimate(list);
        }
        for function in &self.functions {
            count += 4 + estimate(&function.parameters);
            for block in &function.blocks {
                count += 2 + estimate(&block.instructions);
            }
        }
        let mut words = Vec::with_capacity(5 + count + count / 8);
        let header = self.header.unwrap_or(super::ModuleHeader::new(0));
        words.extend([
            spirv::MAGIC_NUMBER,
            header.version,
            GENERATOR,
            header.bound,
            0,
        ]);
        for list in self.global_lists() {
            for inst in list {
                inst.assemble_into(&mut words);
            }
        }
        for inst in self.functions.iter().flat_map(Function::all_inst_iter) {
            inst.assemble_into(&mut words);
        }
        words
    }
}
