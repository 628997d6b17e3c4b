//! SM5.0 texture and sampler registers chosen at run time.
//!
//! fxc writes class linkage's resources this way: a class instance's `this[]` record holds
//! the register of its texture and of its sampler, and a method reads them as
//! `sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t[r1.x + 0].xyzw,
//! s[r1.y + 0]`. The register is one of the program's declared `t#` (or `s#`) registers: the
//! program declares every register an instance can name. So the instruction becomes a
//! `switch` over the register's value with a case for each declared register that the
//! instruction can read (its kind, dimension, return type and stride fit), holding the
//! instruction with that register fixed; any other value takes the `default`, which writes
//! 0 to the destinations, as D3D11 reads an unbound slot. An instruction with both a texture
//! and a sampler chosen at run time becomes a switch over the texture whose cases switch
//! over the sampler. Layers bind each declared register as they bind any `t#` and `s#`
//! (what a constant-buffer register chosen at run time reads is handled by the back end, as
//! every D3D11 slot, declared or not, is one type of descriptor).

use crate::error::{Error, ErrorKind, Result};
use crate::ir::{
    ComponentCount, Declaration, Index, Instruction, Operand, OperandRange, Program, RegisterKind,
    ResourceDimension, ReturnType, Selection, ValueType, DYNAMIC_RANGE,
};
use crate::isa::Opcode;

/// What a declared shader-resource register holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    /// A typed buffer or texture, and whether its values are floats (float, unorm, snorm).
    Typed {
        dimension: ResourceDimension,
        float: bool,
    },
    /// A raw buffer.
    Raw,
    /// A structured buffer of this stride.
    Structured(u32),
}

/// The registers the program declares.
struct Declared {
    views: Vec<(u32, View)>,
    samplers: Vec<u32>,
}

impl Declared {
    fn of(program: &Program) -> Declared {
        let mut declared = Declared {
            views: Vec::new(),
            samplers: Vec::new(),
        };
        for declaration in program
            .instructions
            .iter()
            .filter_map(|i| i.declaration.as_ref())
        {
            match declaration {
                Declaration::Resource {
                    range,
                    dimension,
                    return_type,
                    ..
                } => {
                    let float = matches!(
                        return_type[0],
                        ReturnType::Float | ReturnType::Unorm | ReturnType::Snorm
                    );
                    let view = View::Typed {
                        dimension: *dimension,
                        float,
                    };
                    declared.views.push((range.id, view));
                }
                Declaration::ResourceRaw { range, .. } => {
                    declared.views.push((range.id, View::Raw))
                }
                Declaration::ResourceStructured { range, stride, .. } => {
                    declared.views.push((range.id, View::Structured(*stride)))
                }
                Declaration::Sampler { range, .. } => declared.samplers.push(range.id),
                _ => {}
            }
        }
        declared.views.sort_unstable_by_key(|&(id, _)| id);
        declared.views.dedup_by_key(|&mut (id, _)| id);
        declared.samplers.sort_unstable();
        declared.samplers.dedup();
        declared
    }
}

/// Whether `opcode` (with the resource-dimension token `annotated`, if any) can read `view`.
fn reads(opcode: Opcode, annotated: Option<(ResourceDimension, u32)>, view: View) -> bool {
    use Opcode as O;
    use ResourceDimension as D;
    let annotation_fits = match (annotated, view) {
        (None, _) => true,
        (Some((dimension, _)), View::Typed { dimension: d, .. }) => dimension == d,
        (Some((dimension, _)), View::Raw) => dimension == D::RawBuffer,
        (Some((dimension, stride)), View::Structured(s)) => {
            dimension == D::StructuredBuffer && (stride == 0 || stride == s)
        }
    };
    if !annotation_fits {
        return false;
    }
    let sampled = matches!(
        opcode,
        O::Sample
            | O::SampleB
            | O::SampleBClS
            | O::SampleC
            | O::SampleCClS
            | O::SampleCLz
            | O::SampleCLzS
            | O::SampleClS
            | O::SampleD
            | O::SampleDClS
            | O::SampleL
            | O::SampleLS
            | O::Lod
    );
    let comparison = matches!(
        opcode,
        O::SampleC
            | O::SampleCClS
            | O::SampleCLz
            | O::SampleCLzS
            | O::Gather4C
            | O::Gather4CS
            | O::Gather4PoC
            | O::Gather4PoCS
    );
    match view {
        View::Typed { dimension, float } => {
            let texture = matches!(
                dimension,
                D::Texture1D
                    | D::Texture2D
                    | D::Texture3D
                    | D::TextureCube
                    | D::Texture1DArray
                    | D::Texture2DArray
                    | D::TextureCubeArray
            );
            let multisampled = matches!(dimension, D::Texture2DMS | D::Texture2DMSArray);
            if comparison && (!float || dimension == D::Texture3D) {
                return false;
            }
            match opcode {
                _ if sampled => texture && float,
                O::Gather4 | O::Gather4C | O::Gather4S | O::Gather4CS => matches!(
                    dimension,
                    D::Texture2D | D::Texture2DArray | D::TextureCube | D::TextureCubeArray
                ),
                O::Gather4Po | O::Gather4PoC | O::Gather4PoS | O::Gather4PoCS => {
                    matches!(dimension, D::Texture2D | D::Texture2DArray)
                }
                O::Ld | O::LdS => {
                    dimension == D::Buffer
                        || (texture && !matches!(dimension, D::TextureCube | D::TextureCubeArray))
                }
                O::LdMs | O::LdMsS | O::SampleInfo | O::SamplePos => multisampled,
                O::Resinfo => texture || multisampled,
                O::Bufinfo => dimension == D::Buffer,
                _ => false,
            }
        }
        View::Raw => matches!(opcode, O::LdRaw | O::LdRawS | O::Bufinfo),
        View::Structured(_) => matches!(opcode, O::LdStructured | O::LdStructuredS | O::Bufinfo),
    }
}

/// Whether an operand is a texture or sampler register chosen at run time.
fn is_dynamic(operand: &Operand) -> bool {
    matches!(operand.kind, RegisterKind::Resource | RegisterKind::Sampler)
        && operand.index_count >= 2
        && operand.indices[0] == Index::Imm32(DYNAMIC_RANGE)
}

/// The arena index of the first source of `instruction` that [`is_dynamic`].
fn dynamic_source(program: &Program, instruction: &Instruction) -> Option<usize> {
    let start = instruction.operands.start as usize + instruction.dst_count as usize;
    program
        .srcs(instruction)
        .iter()
        .position(is_dynamic)
        .map(|at| start + at)
}

/// The most instructions the lowering adds to a program: each instruction becomes a case per
/// declared register that fits (per texture and sampler pair when both are chosen at run
/// time), so a hostile program could otherwise grow with the product of its declarations.
pub const MAX_ADDED_INSTRUCTIONS: usize = 1 << 18;

/// The program with every texture and sampler register chosen at run time replaced by a
/// `switch` over the declared registers (see the module documentation); `None` when the
/// program has none; an error (a limit) when the switches would add more than
/// [`MAX_ADDED_INSTRUCTIONS`].
pub fn lower(program: &Program) -> Result<Option<Program>> {
    if !program.model.is_sm5() || program.model.has_resource_ranges() {
        return Ok(None);
    }
    let code = |i: &&Instruction| i.declaration.is_none();
    if !program
        .instructions
        .iter()
        .filter(code)
        .any(|i| dynamic_source(program, i).is_some())
    {
        return Ok(None);
    }
    let declared = Declared::of(program);
    let mut out = Program {
        model: program.model,
        instructions: Vec::with_capacity(program.instructions.len() + 16),
        operands: program.operands.clone(),
        data: program.data.clone(),
    };
    let budget = program.instructions.len() + MAX_ADDED_INSTRUCTIONS;
    for (index, instruction) in program.instructions.iter().enumerate() {
        match dynamic_source(program, instruction).filter(|_| instruction.declaration.is_none()) {
            Some(at) => expand(&mut out, &declared, instruction, at, budget).map_err(|()| {
                Error::instruction(
                    index as u32,
                    instruction.dword,
                    format!(
                        "the switches over the declared texture and sampler registers would add \
                         more than {MAX_ADDED_INSTRUCTIONS} instructions"
                    ),
                )
                .with_kind(ErrorKind::Limit)
            })?,
            None => out.instructions.push(instruction.clone()),
        }
    }
    Ok(Some(out))
}

/// Appends an instruction of `opcode` with `operands` (the first `dst_count` destinations)
/// at the dword offset `dword`.
fn push(out: &mut Program, opcode: Opcode, operands: &[Operand], dst_count: u8, dword: u32) {
    let mut instruction = Instruction::new(opcode);
    instruction.dword = dword;
    instruction.dst_count = dst_count;
    instruction.operands = append(out, operands);
    out.instructions.push(instruction);
}

/// Appends operands to the arena; returns their range.
fn append(out: &mut Program, operands: &[Operand]) -> OperandRange {
    let start = out.operands.len() as u32;
    out.operands.extend_from_slice(operands);
    OperandRange {
        start,
        len: operands.len() as u32,
    }
}

/// `l(values…)`: one value or four.
fn immediate(values: &[u32], value_type: ValueType) -> Operand {
    let components = if values.len() == 1 {
        ComponentCount::One
    } else {
        ComponentCount::Four
    };
    let mut operand = Operand::register(RegisterKind::Immediate32, components, Selection::Mask(0));
    operand.values[..values.len()].copy_from_slice(values);
    operand.value_type = value_type;
    operand
}

/// Appends the switch that replaces `instruction`, whose operand `at` (an arena index of
/// `out`) is a register chosen at run time; fails, adding what it has, once `out` holds more
/// than `budget` instructions.
fn expand(
    out: &mut Program,
    declared: &Declared,
    instruction: &Instruction,
    at: usize,
    budget: usize,
) -> std::result::Result<(), ()> {
    let operand = out.operands[at];
    let dword = instruction.dword;
    let (offset, relative) = match operand.indices[1] {
        Index::Relative(r) => (0, r),
        Index::Imm32PlusRelative(k, r) => (k, r),
        // The reader admits no other form (`check_operand`); kept as it is otherwise.
        _ => {
            out.instructions.push(instruction.clone());
            return Ok(());
        }
    };
    let mut selector = *out.operand(relative);
    selector.value_type = ValueType::U32;
    let slots: Vec<u32> = match operand.kind {
        RegisterKind::Resource => declared
            .views
            .iter()
            .filter(|&&(_, view)| reads(instruction.opcode, instruction.extended.resource, view))
            .map(|&(id, _)| id)
            .collect(),
        _ => declared.samplers.clone(),
    };
    let first = instruction.operands.start as usize;
    let own: Vec<Operand> = out.operands_of(instruction).to_vec();
    if !slots.is_empty() {
        push(out, Opcode::Switch, &[selector], 0, dword);
    }
    for &slot in &slots {
        if out.instructions.len() > budget {
            return Err(());
        }
        let case = immediate(&[slot.wrapping_sub(offset)], ValueType::U32);
        push(out, Opcode::Case, &[case], 0, dword);
        let mut operands = own.clone();
        let fixed = &mut operands[at - first];
        fixed.indices[0] = Index::Imm32(slot);
        fixed.indices[1] = Index::Imm32(slot);
        let mut copy = instruction.clone();
        copy.operands = append(out, &operands);
        // A made instruction has no encoding of its own (as `push` makes them).
        copy.length = 0;
        match dynamic_source(out, &copy) {
            Some(next) => expand(out, declared, &copy, next, budget)?,
            None => out.instructions.push(copy),
        }
        push(out, Opcode::Break, &[], 0, dword);
    }
    if !slots.is_empty() {
        push(out, Opcode::Default, &[], 0, dword);
    }
    let zero = immediate(&[0; 4], ValueType::Bits);
    for dst in own
        .iter()
        .take(instruction.dst_count.into())
        .filter(|d| d.kind != RegisterKind::Null)
    {
        let mut dst = *dst;
        dst.value_type = ValueType::Bits;
        dst.modifier = crate::ir::Modifier::None;
        push(out, Opcode::Mov, &[dst, zero], 1, dword);
    }
    if !slots.is_empty() {
        push(out, Opcode::Break, &[], 0, dword);
        push(out, Opcode::EndSwitch, &[], 0, dword);
    }
    Ok(())
}

#[cfg(test)]
#[path = "dynamic_resources_tests.rs"]
mod tests;
