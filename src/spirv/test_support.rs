//! Helpers shared by the back end's unit tests.

use rspirv::dr::{Instruction as SpvInstruction, Module as SpvModule, Operand as SpvOperand};
use spirv::{BuiltIn, Decoration, Op};

use dxbc2spirv_testkit::spirv_val;

/// Runs spirv-val for `target` and panics with its message and the module's disassembly
/// when it rejects the module (or cannot be run: these tests do not skip).
pub fn validate_for(words: &[u32], target: &str) {
    if let Err(e) = spirv_val(words, target) {
        panic!("{e}\n{}", disassemble(words));
    }
}

/// The disassembly of a module's words (empty when rspirv cannot parse them).
pub fn disassemble(words: &[u32]) -> String {
    use rspirv::binary::Disassemble;
    rspirv::dr::load_words(words)
        .map(|m| m.disassemble())
        .unwrap_or_default()
}

/// [`validate_for`] with the default target, Vulkan 1.3.
pub fn validate(words: &[u32]) {
    validate_for(words, "vulkan1.3");
}

/// A literal operand as a word (literals, built-ins, decorations, execution modes).
fn literal(op: &SpvOperand) -> Option<u32> {
    match op {
        SpvOperand::LiteralBit32(v) => Some(*v),
        SpvOperand::BuiltIn(b) => Some(*b as u32),
        SpvOperand::Decoration(d) => Some(*d as u32),
        SpvOperand::ExecutionMode(m) => Some(*m as u32),
        _ => None,
    }
}

/// Every `OpDecorate` of `decoration`: (target id, literal operands).
pub fn decorations(module: &SpvModule, decoration: Decoration) -> Vec<(u32, Vec<u32>)> {
    module
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate)
        .filter(
            |i| matches!(i.operands.get(1), Some(SpvOperand::Decoration(d)) if *d == decoration),
        )
        .map(|i| {
            let target = match i.operands.first() {
                Some(SpvOperand::IdRef(id)) => *id,
                _ => 0,
            };
            let values = i.operands.iter().skip(2).filter_map(literal).collect();
            (target, values)
        })
        .collect()
}

/// The variable decorated with a built-in, if any.
pub fn builtin_var(module: &SpvModule, builtin: BuiltIn) -> Option<u32> {
    decorations(module, Decoration::BuiltIn)
        .into_iter()
        .find(|(_, v)| v.first() == Some(&(builtin as u32)))
        .map(|(id, _)| id)
}

/// Translates a program with the optimiser and runs spirv-val on that module, then returns
/// the module as the emitter writes it (without the optimiser): the lowering the back end's
/// tests look at.
pub fn lowered(
    program: &crate::ir::Program,
    reflection: &crate::container::ChunkInfo,
    options: &crate::TranslateOptions,
    mapper: &dyn crate::bindings::BindingMapper,
) -> crate::error::Result<Vec<u32>> {
    lowered_with(options, |o| {
        crate::translate_program(program, reflection, o, mapper)
    })
}

/// [`lowered`] with the translation given: `translate` runs with `options` (the module must
/// pass spirv-val) and again with the optimiser off, whose module is returned.
pub fn lowered_with(
    options: &crate::TranslateOptions,
    translate: impl Fn(&crate::TranslateOptions) -> crate::error::Result<Vec<u32>>,
) -> crate::error::Result<Vec<u32>> {
    let optimised = translate(options)?;
    validate_for(&optimised, options.target.name());
    translate(&crate::TranslateOptions {
        no_optimize: true,
        ..options.clone()
    })
}

/// How many module-scope variables of a storage class the module declares.
pub fn global_variables(module: &SpvModule, class: spirv::StorageClass) -> usize {
    module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&SpvOperand::StorageClass(class))
        })
        .count()
}

/// Every instruction in the module's function bodies, in order (labels and the function
/// instructions themselves left out).
pub fn code(module: &SpvModule) -> impl Iterator<Item = &SpvInstruction> {
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
}

/// How many instructions of opcode `op` the module's function bodies hold.
pub fn count_op(module: &SpvModule, op: Op) -> usize {
    code(module).filter(|i| i.class.opcode == op).count()
}
