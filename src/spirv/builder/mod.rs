//! The SPIR-V module in memory while it is built and optimised, in the back end's own form
//! ([`form`]: a module's sections, functions, blocks and instructions, each instruction's
//! operands inline), and what works on it:
//!
//! - [`inst`] makes an instruction with its grammar entry taken from a table indexed by
//!   opcode, built once (rspirv's grammar table, searched once per opcode);
//! - [`Builder`](build::Builder) appends instructions where the module is being built, with
//!   stores held until their block ends ([`deferred`]), each block's predecessors, and the
//!   memory of the previous module ([`Recycled`]);
//! - [`assemble`] writes the binary into one buffer sized up front, and [`disassemble`]
//!   prints it with rspirv's disassembler (`translate --text`).

mod build;
pub mod deferred;
pub mod form;
pub mod held_values;
mod predecessors;
mod recycle;
#[cfg(test)]
mod tests;

pub use build::{BuildError, Builder};
pub use form::{
    operands, Block, Class, Function, Instruction, Module, ModuleHeader, Operand, Operands,
};
pub use recycle::Recycled;

use rspirv::binary::Disassemble as _;
use spirv::{Op, Word};
use std::sync::OnceLock;

/// Opcodes below this are looked up in a dense table; the few larger ones (extension
/// instructions) in rspirv's table.
const DENSE_OPCODES: usize = 1024;

/// The grammar entry of `op`.
pub fn class_of(op: Op) -> Class {
    static DENSE: OnceLock<Vec<Option<Class>>> = OnceLock::new();
    let dense = DENSE.get_or_init(|| {
        let mut table = vec![None; DENSE_OPCODES];
        for class in rspirv::grammar::INSTRUCTION_TABLE.iter() {
            if let Some(slot) = table.get_mut(class.opcode as usize) {
                *slot = Some(class);
            }
        }
        table
    });
    match dense.get(op as usize) {
        Some(Some(class)) => class,
        _ => rspirv::grammar::INSTRUCTION_TABLE.get(op),
    }
}

/// An instruction of opcode `op`.
#[inline]
pub fn inst(
    op: Op,
    result_type: Option<Word>,
    result_id: Option<Word>,
    operands: Operands,
) -> Instruction {
    Instruction::new(class_of(op), result_type, result_id, operands)
}

/// Makes `inst` an instruction of opcode `op` and result type `result_type` (its result id
/// unchanged) with the operands `operands`.
pub fn rewrite<const N: usize>(
    inst: &mut Instruction,
    op: Op,
    result_type: Option<Word>,
    operands: [Operand; N],
) {
    inst.class = class_of(op);
    inst.set_result_type(result_type);
    set_operands(inst, operands);
}

/// Replaces `inst`'s operands with `operands`.
pub fn set_operands<const N: usize>(inst: &mut Instruction, operands: [Operand; N]) {
    inst.operands.clear();
    inst.operands.extend(operands);
}

/// An instruction whose operands are all ids.
pub fn of_ids(
    op: Op,
    result_type: Option<Word>,
    result_id: Option<Word>,
    ids: &[Word],
) -> Instruction {
    let operands: Operands = ids.iter().map(|&id| Operand::IdRef(id)).collect();
    inst(op, result_type, result_id, operands)
}

/// The sections before the first function, in layout order.
pub fn global_lists(module: &Module) -> [&[Instruction]; 11] {
    [
        &module.capabilities,
        &module.extensions,
        &module.ext_inst_imports,
        module.memory_model.as_slice(),
        &module.entry_points,
        &module.execution_modes,
        &module.debug_string_source,
        &module.debug_names,
        &module.debug_module_processed,
        &module.annotations,
        &module.types_global_values,
    ]
}

/// The number of words an instruction takes (a literal string's operand counts as one).
fn word_estimate(inst: &Instruction) -> usize {
    1 + inst.result_type().is_some() as usize
        + inst.result_id().is_some() as usize
        + inst.operands.len()
}

/// Appends a literal string's words: its UTF-8 bytes, a NUL and zeros to a whole word, four
/// bytes to a word, the first byte lowest.
fn push_string(text: &str, words: &mut Vec<u32>) {
    let bytes = text.as_bytes();
    for chunk in bytes.chunks(4) {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        words.push(u32::from_le_bytes(word));
    }
    if bytes.len().is_multiple_of(4) {
        words.push(0);
    }
}

/// Appends an instruction's words.
#[inline]
fn assemble_instruction(module: &Module, inst: &Instruction, words: &mut Vec<u32>) {
    let start = words.len();
    words.push(inst.class.opcode as u32);
    if let Some(ty) = inst.result_type() {
        words.push(ty);
    }
    if let Some(id) = inst.result_id() {
        words.push(id);
    }
    for operand in &inst.operands {
        match *operand {
            Operand::LiteralString(s) => push_string(module.text(s), words),
            _ => words.push(operand.word()),
        }
    }
    let count = (words.len() - start) as u32;
    words[start] |= count << 16;
}

/// The generator word of the header: rspirv's tool id (the module is written in its layout).
const GENERATOR: u32 = 15 << 16;

/// The module's words, in one buffer sized up front.
pub fn assemble(module: &Module) -> Vec<u32> {
    let estimate = |list: &[Instruction]| -> usize { list.iter().map(word_estimate).sum() };
    let mut count = 0;
    for list in global_lists(module) {
        count += estimate(list);
    }
    for function in &module.functions {
        count += 4 + estimate(&function.parameters);
        for block in &function.blocks {
            count += 2 + estimate(&block.instructions);
        }
    }
    let mut words = Vec::with_capacity(5 + count + count / 8);
    if let Some(header) = &module.header {
        words.extend([
            spirv::MAGIC_NUMBER,
            header.version,
            GENERATOR,
            header.bound,
            0,
        ]);
    }
    for list in global_lists(module) {
        for inst in list {
            assemble_instruction(module, inst, &mut words);
        }
    }
    for function in &module.functions {
        for inst in function.def.iter().chain(&function.parameters) {
            assemble_instruction(module, inst, &mut words);
        }
        for block in &function.blocks {
            words.extend([(2 << 16) | Op::Label as u32, block.label]);
            for inst in &block.instructions {
                assemble_instruction(module, inst, &mut words);
            }
        }
        if let Some(end) = &function.end {
            assemble_instruction(module, end, &mut words);
        }
    }
    words
}

/// The module's text (`translate --text`): the module rspirv reads from the words, printed by
/// rspirv's disassembler; words rspirv cannot read are an error saying why.
pub fn disassemble(words: &[u32]) -> crate::error::Result<String> {
    let module = rspirv::dr::load_words(words).map_err(|e| {
        crate::error::Error::new(
            crate::error::Location::None,
            format!("printing SPIR-V: {e}"),
        )
    })?;
    Ok(module.disassemble())
}
