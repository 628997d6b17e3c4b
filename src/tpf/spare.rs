//! The decoder's arrays kept from one translation for the next on the same thread, so that
//! decoding a program reuses memory that is already mapped and in cache instead of asking
//! the allocator for two sized arrays (and giving them back) every time. Only arrays of a
//! typical program's size are kept (up to 1,024 instructions and 2,048 operands).

use crate::ir::{Instruction, Operand, Program};
use std::cell::RefCell;

/// The largest instruction array a thread keeps (in instructions).
const KEPT_INSTRUCTIONS: usize = 1024;

/// The largest operand array a thread keeps (in operands).
const KEPT_OPERANDS: usize = 2048;

thread_local! {
    static INSTRUCTIONS: RefCell<Vec<Instruction>> = const { RefCell::new(Vec::new()) };
    static OPERANDS: RefCell<Vec<Operand>> = const { RefCell::new(Vec::new()) };
}

/// An empty program of `model` with room for `instructions` instructions and `operands`
/// operands, in the thread's kept arrays when it has them.
pub fn program(model: crate::ir::ShaderModel, instructions: usize, operands: usize) -> Program {
    let mut program = Program::new(model);
    program.instructions = INSTRUCTIONS.with(|k| std::mem::take(&mut *k.borrow_mut()));
    program.operands = OPERANDS.with(|k| std::mem::take(&mut *k.borrow_mut()));
    program.instructions.reserve(instructions);
    program.operands.reserve(operands);
    program
}

/// Drops a program, keeping its arrays (emptied) for the thread's next [`program`] when they
/// are of a typical size.
pub fn keep(program: Program) {
    let Program {
        mut instructions,
        mut operands,
        ..
    } = program;
    if instructions.capacity() <= KEPT_INSTRUCTIONS {
        instructions.clear();
        INSTRUCTIONS.with(|k| *k.borrow_mut() = instructions);
    }
    if operands.capacity() <= KEPT_OPERANDS {
        operands.clear();
        OPERANDS.with(|k| *k.borrow_mut() = operands);
    }
}

/// Frees the arrays the thread keeps.
pub fn release() {
    INSTRUCTIONS.with(|k| *k.borrow_mut() = Vec::new());
    OPERANDS.with(|k| *k.borrow_mut() = Vec::new());
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
        let first = program(MODEL, 10, 20);
        let (instructions, operands) = (first.instructions.as_ptr(), first.operands.as_ptr());
        keep(first);
        let second = program(MODEL, 5, 5);
        assert_eq!(second.instructions.as_ptr(), instructions);
        assert_eq!(second.operands.as_ptr(), operands);
        assert!(second.instructions.is_empty() && second.operands.is_empty());
        assert!(second.instructions.capacity() >= 10 && second.operands.capacity() >= 20);
    }

    #[test]
    fn released_arrays_are_gone() {
        keep(program(MODEL, 10, 20));
        release();
        let next = program(MODEL, 0, 0);
        assert_eq!(next.instructions.capacity(), 0);
        assert_eq!(next.operands.capacity(), 0);
    }

    #[test]
    fn large_arrays_are_not_kept() {
        keep(program(MODEL, KEPT_INSTRUCTIONS + 1, KEPT_OPERANDS + 1));
        let next = program(MODEL, 0, 0);
        assert_eq!(next.instructions.capacity(), 0);
        assert_eq!(next.operands.capacity(), 0);
    }
}
