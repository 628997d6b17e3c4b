//! Rewrites of a program into a simpler program with the same meaning, made before
//! emission so that the back end never sees the form they remove (vkd3d's vsir
//! normalisations). Each is a function of the program with its own tests; the program as
//! read stays as it is for the disassembler and the encoder.
//!
//! - [`dynamic_resources`]: SM5.0 texture and sampler registers chosen at run time
//!   (`t[r0.x + 0]`, `s[r0.y + 0]`, fxc's class-linkage form) become a `switch` over the
//!   declared registers, each case the instruction with a fixed register.

pub mod dynamic_resources;

use crate::error::{Error, Location};
use crate::ir::Program;

/// `error`, located at an instruction of a lowered program, located instead at the
/// instruction of the program as read (`original`) that it was made from: each instruction a
/// lowering makes keeps the dword offset of the one it replaces.
pub fn locate_in(original: &Program, mut error: Error) -> Error {
    let Location::Instruction { dword, .. } = error.location else {
        return error;
    };
    let index = original
        .instructions
        .partition_point(|instruction| instruction.dword < dword);
    error.location = Location::Instruction {
        index: index as u32,
        dword,
    };
    error
}

/// Every lowering the program needs, in order: the rewritten program, or `None` when it needs
/// none (the common case, at no cost but a scan of the operands).
pub fn lower(program: &Program) -> crate::error::Result<Option<Program>> {
    dynamic_resources::lower(program)
}
