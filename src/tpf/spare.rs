//! The decoder's arrays kept from one translation for the next by a
//! [`crate::Translator`], so that decoding a program reuses memory that is already mapped
//! and in cache instead of asking the allocator for two sized arrays (and giving them back)
//! every time. Only arrays of a typical program's size are kept (up to 1,024 instructions
//! and 2,048 operands).

use crate::ir::{Instruction, Operand, Program};

/// The largest instruction array kept (in instructions).
const KEPT_INSTRUCTIONS: usize = 1024;

/// The largest operand array kept (in operands).
const KEPT_OPERANDS: usize = 2048;

/// A program's two arrays, kept emptied between translations.
#[derive(Debug, Default)]
pub struct Arrays {
    instructions: Vec<Instruction>,
    operands: Vec<Operand>,
}

impl Arrays {
    /// An empty program of `model` with room for `instructions` instructions and
    /// `operands` operands, in the kept arrays when there are some.
    pub fn program(
        &mut self,
        model: crate::ir::ShaderModel,
        instructions: usize,
        operands: usize,
    ) -> Program {
        let mut program = Program::new(model);
        program.instructions = std::mem::take(&mut self.instructions);
        program.operands = std::mem::take(&mut self.operands);
        program.instructions.reserve(instructions);
        program.operands.reserve(operands);
        program
    }

    /// The bytes of memory the kept arrays hold.
    pub fn held_bytes(&self) -> usize {
        crate::fast_hash::vec_bytes(&self.instructions)
            + crate::fast_hash::vec_bytes(&self.operands)
    }

    /// The most memory [`Arrays::keep`] keeps, in bytes.
    pub const MAX_HELD_BYTES: usize = KEPT_INSTRUCTIONS * std::mem::size_of::<Instruction>()
        + KEPT_OPERANDS * std::mem::size_of::<Operand>();

    /// Drops a program, keeping its arrays (emptied) for the next [`Arrays::program`] when
    /// they are of a typical size.
    pub fn keep(&mut self, program: Program) {
        let Program {
            mut instructions,
            mut operands,
            ..
        } = program;
        if instructions.capacity() <= KEPT_INSTRUCTIONS {
            instructions.clear();
            self.instructions = instructions;
        }
        if operands.capacity() <= KEPT_OPERANDS {
            operands.clear();
            self.operands = operands;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ShaderModel, Stage};

    const MODEL: ShaderModel = ShaderModel {
        stage: Stage::Pixel,
        major: 5,
        minor: 0,
    };

    #[test]
    fn a_kept_program_lends_its_arrays_to_the_next() {
        let mut arrays = Arrays::default();
        let first = arrays.program(MODEL, 10, 20);
        let (instructions, operands) = (first.instructions.as_ptr(), first.operands.as_ptr());
        arrays.keep(first);
        let second = arrays.program(MODEL, 5, 5);
        assert_eq!(second.instructions.as_ptr(), instructions);
        assert_eq!(second.operands.as_ptr(), operands);
        assert!(second.instructions.is_empty() && second.operands.is_empty());
        assert!(second.instructions.capacity() >= 10 && second.operands.capacity() >= 20);
    }

    #[test]
    fn large_arrays_are_not_kept() {
        let mut arrays = Arrays::default();
        let big = arrays.program(MODEL, KEPT_INSTRUCTIONS + 1, KEPT_OPERANDS + 1);
        arrays.keep(big);
        let next = arrays.program(MODEL, 0, 0);
        assert_eq!(next.instructions.capacity(), 0);
        assert_eq!(next.operands.capacity(), 0);
    }
}
