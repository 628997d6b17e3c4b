//! The fuzz targets' cases (`tests/fuzz`, run by `cargo xtask fuzz`), in the library so that
//! the regression tests (`tests/fuzz_regressions.rs`) replay a saved input through exactly
//! the code the fuzzer ran.
//!
//! Each case returns `Err` with a description when it finds a bug (an error without a
//! message, assembled bytes that do not read back, a module the SPIR-V printer cannot print);
//! panics are bugs by themselves. A case that translates returns the module, which must pass
//! spirv-val.

use crate::ir::{Declaration, Index, Modifier, OperandId, Program, RegisterKind, Selection};
use crate::isa::{Layout, OPCODES};
use crate::ReadOptions;

/// A finding: the description of a bug.
pub type Finding = String;

fn reader_options() -> ReadOptions {
    ReadOptions {
        ignore_checksum: true,
        ..Default::default()
    }
}

fn translated(result: crate::Result<Vec<u32>>) -> Result<Option<Vec<u32>>, Finding> {
    match result {
        // Every module the translator makes must print (`translate --text`).
        Ok(words) => match crate::spirv::disassemble(&words) {
            Ok(_) => Ok(Some(words)),
            Err(e) => Err(format!("the module does not print: {e}")),
        },
        Err(e) if e.message.is_empty() => Err(format!("an error without a message: {e:?}")),
        // A check inside the translator failed: a bug, like a panic.
        Err(e) if e.kind == crate::ErrorKind::Internal => Err(format!("an internal error: {e}")),
        Err(_) => Ok(None),
    }
}

/// `read`: the container reader and the decoder (checksum ignored); what reads disassembles.
pub fn read_case(data: &[u8]) -> Result<(), Finding> {
    if let Ok(dxbc) = crate::read(data, &reader_options()) {
        if crate::disasm::disassemble(&dxbc).is_empty() {
            return Err("an empty disassembly".into());
        }
    }
    Ok(())
}

/// `assemble`: text assembles or gets an error; what assembles reads back.
pub fn assemble_case(data: &[u8]) -> Result<(), Finding> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    match crate::asm::assemble(text) {
        Ok(bytes) => match crate::read(&bytes, &ReadOptions::default()) {
            Ok(_) => Ok(()),
            Err(e) => Err(format!("assembled bytes do not read back: {e}")),
        },
        Err(e) if e.message.is_empty() => Err(format!("an error without a message: {e:?}")),
        Err(_) => Ok(()),
    }
}

/// `translate`: bytes to SPIR-V (checksum ignored).
pub fn translate_case(data: &[u8]) -> Result<Option<Vec<u32>>, Finding> {
    let Ok(dxbc) = crate::read(data, &reader_options()) else {
        return Ok(None);
    };
    let Some(program) = &dxbc.program else {
        return Ok(None);
    };
    translated(crate::translate_program(
        program,
        &dxbc.reflection,
        &crate::TranslateOptions::default(),
        &crate::bindings::DefaultBindings,
    ))
}

/// The program a `mutate_program` input makes (mutated, encoded and decoded again), for
/// looking at a finding; `None` where the case stops before translation.
pub fn mutated_program(data: &[u8]) -> Option<crate::ir::Program> {
    let (&n, rest) = data.split_first()?;
    let n = (n as usize).min(rest.len());
    let (script, blob) = rest.split_at(n);
    let dxbc = crate::read(blob, &reader_options()).ok()?;
    let mut program = dxbc.program.clone()?;
    for chunk in script.chunks_exact(4) {
        step(&mut program, [chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    let code = crate::tpf::encode(&program).ok()?;
    crate::tpf::decode(&code).ok()
}

/// `mutate_program`: one byte `n`, `n` bytes of mutation script (four per step: what to
/// change, where, and the new value), then a container. The program is mutated, encoded,
/// decoded, checked against the limits, validated and translated.
pub fn mutate_program_case(data: &[u8]) -> Result<Option<Vec<u32>>, Finding> {
    let Some((&n, rest)) = data.split_first() else {
        return Ok(None);
    };
    let n = (n as usize).min(rest.len());
    let (script, blob) = rest.split_at(n);
    let options = reader_options();
    let Ok(dxbc) = crate::read(blob, &options) else {
        return Ok(None);
    };
    let Some(mut program) = dxbc.program.clone() else {
        return Ok(None);
    };
    for chunk in script.chunks_exact(4) {
        step(&mut program, [chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    let Ok(code) = crate::tpf::encode(&program) else {
        return Ok(None);
    };
    let Ok(decoded) = crate::tpf::decode(&code) else {
        return Ok(None);
    };
    if options.limits.check_program(&decoded).is_err() || crate::ir::validate(&decoded).is_err() {
        return Ok(None);
    }
    translated(crate::translate_program(
        &decoded,
        &dxbc.reflection,
        &crate::TranslateOptions::default(),
        &crate::bindings::DefaultBindings,
    ))
}

/// Values that find edges: zero, one, the ends of each width, register-count limits.
const INTERESTING: [u32; 12] = [
    0,
    1,
    2,
    3,
    4,
    7,
    31,
    32,
    255,
    4096,
    0x7fff_ffff,
    0xffff_ffff,
];

fn interesting(b: u8) -> u32 {
    INTERESTING
        .get(b as usize % INTERESTING.len())
        .copied()
        .unwrap_or(0)
}

/// Applies one four-byte step (what, where, two value bytes) to the program.
fn step(program: &mut Program, s: [u8; 4]) {
    let [what, at, a, b] = s;
    let n = program.instructions.len();
    if n == 0 {
        return;
    }
    let at = at as usize % n;
    let Some(range) = program.instructions.get(at).map(|i| i.operands) else {
        return;
    };
    let operand_index = (range.start as usize) + (a as usize % (range.len as usize).max(1));
    let operand_count = program.operands.len();
    match what % 12 {
        // Another opcode with an operand layout.
        0 => {
            let ordinary: Vec<_> = OPCODES
                .iter()
                .filter(|i| i.layout == Layout::Operands)
                .collect();
            let pick = (u16::from_le_bytes([a, b]) as usize) % ordinary.len().max(1);
            if let (Some(info), Some(instruction)) =
                (ordinary.get(pick), program.instructions.get_mut(at))
            {
                if instruction.declaration.is_none() {
                    instruction.opcode = info.opcode;
                    instruction.dst_count = info.dsts.len() as u8;
                }
            }
        }
        // Another register file.
        1 => {
            if let (Some(op), Some(kind)) = (
                program.operands.get_mut(operand_index),
                RegisterKind::from_code(u32::from(b % 40)),
            ) {
                op.kind = kind;
            }
        }
        // Another mask, swizzle or selected component.
        2 => {
            if let Some(op) = program.operands.get_mut(operand_index) {
                op.selection = match b % 3 {
                    0 => Selection::Mask(b >> 4),
                    1 => Selection::Swizzle([b & 3, (b >> 2) & 3, (b >> 4) & 3, b >> 6]),
                    _ => Selection::Select1(b >> 6),
                };
            }
        }
        // Another register index.
        3 => {
            if let Some(op) = program.operands.get_mut(operand_index) {
                if let Some(index) = op.indices.get_mut((b as usize >> 4) % 3) {
                    *index = Index::Imm32(interesting(b));
                }
            }
        }
        // Another immediate value.
        4 => {
            if let Some(op) = program.operands.get_mut(operand_index) {
                if let Some(value) = op.values.get_mut((b & 3) as usize) {
                    *value = interesting(b >> 2);
                }
            }
        }
        // Another source modifier or index count.
        5 => {
            if let Some(op) = program.operands.get_mut(operand_index) {
                if b & 1 == 0 {
                    op.modifier = match (b >> 1) & 3 {
                        0 => Modifier::None,
                        1 => Modifier::Neg,
                        2 => Modifier::Abs,
                        _ => Modifier::AbsNeg,
                    };
                } else {
                    op.index_count = (b >> 1) % 4;
                }
            }
        }
        // Declaration values.
        6 => {
            let value = interesting(b);
            let declaration = program
                .instructions
                .get_mut(at)
                .and_then(|i| i.declaration.as_mut());
            match declaration {
                Some(
                    Declaration::GlobalFlags(v)
                    | Declaration::Temps(v)
                    | Declaration::MaxOutputVertexCount(v)
                    | Declaration::GsInstanceCount(v)
                    | Declaration::InputControlPointCount(v)
                    | Declaration::OutputControlPointCount(v)
                    | Declaration::HsForkPhaseInstanceCount(v)
                    | Declaration::HsJoinPhaseInstanceCount(v)
                    | Declaration::FunctionBody(v),
                ) => *v = value,
                Some(Declaration::ThreadGroup(t)) => {
                    if let Some(v) = t.get_mut((a % 3) as usize) {
                        *v = value;
                    }
                }
                Some(Declaration::IndexableTemp {
                    register,
                    size,
                    components,
                }) => match a % 3 {
                    0 => *register = value,
                    1 => *size = value,
                    _ => *components = value,
                },
                _ => {}
            }
        }
        // Swap two instructions.
        7 => program.instructions.swap(at, b as usize % n),
        // Remove an instruction.
        8 => {
            program.instructions.remove(at);
        }
        // Duplicate an instruction.
        9 => {
            if let Some(copy) = program.instructions.get(at).cloned() {
                program.instructions.insert(at, copy);
            }
        }
        // Saturate and precise bits.
        10 => {
            if let Some(instruction) = program.instructions.get_mut(at) {
                instruction.saturate = b & 1 != 0;
                instruction.precise_mask = (b >> 1) & 0xf;
            }
        }
        // A relative index into another operand.
        _ => {
            if let Some(op) = program.operands.get_mut(operand_index) {
                let target = (b as usize) % operand_count.max(1);
                if let Some(index) = op.indices.first_mut() {
                    *index = Index::Relative(OperandId(target as u32));
                }
                op.index_count = op.index_count.max(1);
            }
        }
    }
}
