//! The IR validator: checks a program's structure between stages.
//!
//! [`validate`] checks what every later stage relies on: operand counts and handles,
//! destination forms, index counts per register file, resource operands in SM5.1 form that
//! name declared ranges, and temp registers within their declarations.
//! [`validate_control_flow`] checks block structure (if/else/endif, loop, switch, phases),
//! which only translation needs: a disassembler must still print a program whose blocks are
//! malformed.

use super::*;
use crate::error::{Error, Result};
use crate::fast_hash::HashSet;
use crate::tpf::opcodes::Layout;

/// Checks a program's structure; the error names the first offending instruction.
pub fn validate(program: &Program) -> Result<()> {
    let declared = DeclaredRegisters::collect(program);
    for (index, instruction) in program.instructions.iter().enumerate() {
        let fail = |message: String| Error::instruction(index as u32, instruction.dword, message);
        check_instruction(program, instruction, &declared).map_err(fail)?;
    }
    Ok(())
}

/// What the declarations of a program declare.
struct DeclaredRegisters {
    temps: u32,
    indexable: HashSet<u32>,
    ranges: HashSet<(RegisterKind, u32)>,
}

impl DeclaredRegisters {
    fn collect(program: &Program) -> Self {
        let mut declared = DeclaredRegisters {
            temps: 0,
            indexable: HashSet::default(),
            ranges: HashSet::default(),
        };
        for instruction in &program.instructions {
            let Some(declaration) = &instruction.declaration else {
                continue;
            };
            match declaration {
                Declaration::Temps(n) => declared.temps = declared.temps.max(*n),
                Declaration::IndexableTemp { register, .. } => {
                    declared.indexable.insert(*register);
                }
                Declaration::Resource { range, .. }
                | Declaration::ResourceRaw { range, .. }
                | Declaration::ResourceStructured { range, .. } => {
                    declared.ranges.insert((RegisterKind::Resource, range.id));
                }
                Declaration::UavTyped { range, .. }
                | Declaration::UavRaw { range, .. }
                | Declaration::UavStructured { range, .. } => {
                    declared
                        .ranges
                        .insert((RegisterKind::UnorderedAccessView, range.id));
                }
                Declaration::ConstantBuffer { range, .. } => {
                    declared
                        .ranges
                        .insert((RegisterKind::ConstantBuffer, range.id));
                }
                Declaration::Sampler { range, .. } => {
                    declared.ranges.insert((RegisterKind::Sampler, range.id));
                }
                _ => {}
            }
        }
        declared
    }
}

fn check_instruction(
    program: &Program,
    instruction: &Instruction,
    declared: &DeclaredRegisters,
) -> std::result::Result<(), String> {
    let info = instruction.opcode.info();
    let operands = program.operands_of(instruction);
    if operands.len() != instruction.operands.len as usize {
        return Err("the instruction's operands lie outside the operand arena".into());
    }
    if info.layout != Layout::Declaration && info.layout != Layout::CustomData {
        let expected = info.dsts.len() + info.srcs.len();
        if operands.len() != expected || instruction.dst_count as usize != info.dsts.len() {
            return Err(format!(
                "{} takes {} operand(s), found {}",
                info.name,
                expected,
                operands.len()
            ));
        }
        for (i, operand) in operands.iter().enumerate() {
            let is_dst = i < instruction.dst_count as usize;
            check_operand(program, operand, is_dst, declared, 0)
                .map_err(|e| format!("operand {}: {e}", i + 1))?;
        }
    } else if let Some(declaration) = &instruction.declaration {
        check_declaration(program, declaration)?;
    } else {
        return Err(format!("{} carries no declaration", info.name));
    }
    Ok(())
}

fn check_declaration(
    program: &Program,
    declaration: &Declaration,
) -> std::result::Result<(), String> {
    let data_ok = |range: &DataRange| {
        (range.start as usize)
            .checked_add(range.len as usize)
            .is_some_and(|end| end <= program.data.len())
    };
    match declaration {
        Declaration::CustomData { data, .. }
        | Declaration::FunctionTable { bodies: data, .. }
        | Declaration::Interface { tables: data, .. }
            if !data_ok(data) =>
        {
            Err("the declaration's data lies outside the data arena".into())
        }
        Declaration::Resource { range, .. }
        | Declaration::ResourceRaw { range, .. }
        | Declaration::ResourceStructured { range, .. }
        | Declaration::UavTyped { range, .. }
        | Declaration::UavRaw { range, .. }
        | Declaration::UavStructured { range, .. }
        | Declaration::ConstantBuffer { range, .. }
        | Declaration::Sampler { range, .. }
            if range.upper.is_some_and(|upper| upper < range.lower) =>
        {
            Err(format!(
                "range {} has upper bound {:?} below its lower bound {}",
                range.id, range.upper, range.lower
            ))
        }
        _ => Ok(()),
    }
}

/// The number of indices a register file takes in an instruction operand (SM5.1 form), or
/// `None` where it varies by stage or use.
fn expected_indices(kind: RegisterKind) -> Option<u8> {
    use RegisterKind::*;
    Some(match kind {
        Temp
        | Output
        | Label
        | Stream
        | FunctionBody
        | FunctionTable
        | ThreadGroupSharedMemory
        | InputPatchConstant => 1,
        IndexableTemp | Resource | Sampler | UnorderedAccessView => 2,
        ConstantBuffer => 3,
        ImmediateConstantBuffer => 1,
        Immediate32
        | Immediate64
        | Null
        | Rasterizer
        | InputPrimitiveId
        | OutputDepth
        | OutputDepthGreaterEqual
        | OutputDepthLessEqual
        | OutputCoverageMask
        | OutputStencilRef
        | InputThreadId
        | InputThreadGroupId
        | InputThreadIdInGroup
        | InputThreadIdInGroupFlattened
        | InputCoverageMask
        | InnerCoverage
        | InputGsInstanceId
        | OutputControlPointId
        | InputForkInstanceId
        | InputJoinInstanceId
        | InputDomainPoint
        | CycleCounter => 0,
        InputControlPoint | OutputControlPoint => 2,
        Input | Interface | ThisPointer | FunctionInput | FunctionOutput => return None,
    })
}

fn check_operand(
    program: &Program,
    operand: &Operand,
    is_dst: bool,
    declared: &DeclaredRegisters,
    depth: u32,
) -> std::result::Result<(), String> {
    let name = operand.kind.name();
    if let Some(expected) = expected_indices(operand.kind) {
        // `vocp`/`vicp` may also appear with one index in some phases; `o` with two in
        // hull-shader control-point phases.
        let flexible = matches!(
            operand.kind,
            RegisterKind::InputControlPoint
                | RegisterKind::OutputControlPoint
                | RegisterKind::Output
        );
        if operand.index_count != expected && !flexible {
            return Err(format!(
                "{name} takes {expected} index(es), found {}",
                operand.index_count
            ));
        }
    }
    if is_dst {
        if operand.modifier != Modifier::None {
            return Err(format!("destination {name} has a source modifier"));
        }
        if operand.components == ComponentCount::Four
            && !matches!(operand.selection, Selection::Mask(_))
        {
            return Err(format!(
                "destination {name} uses a swizzle instead of a mask"
            ));
        }
        if matches!(
            operand.kind,
            RegisterKind::Immediate32 | RegisterKind::Immediate64 | RegisterKind::ConstantBuffer
        ) {
            return Err(format!("{name} cannot be written"));
        }
    }
    match operand.kind {
        RegisterKind::Temp => {
            if let Some(register) = operand.indices[0].as_imm32() {
                if register >= declared.temps {
                    return Err(format!(
                        "r{register} is used but dcl_temps declares {}",
                        declared.temps
                    ));
                }
            }
        }
        RegisterKind::IndexableTemp => {
            if let Some(register) = operand.indices[0].as_imm32() {
                if !declared.indexable.contains(&register) {
                    return Err(format!("x{register} is used but not declared"));
                }
            }
        }
        kind if kind.is_resource_range() => match operand.indices[0].as_imm32() {
            Some(id) if declared.ranges.contains(&(kind, id)) => {}
            Some(id) => return Err(format!("{name}{id} is used but not declared")),
            None => return Err(format!("{name} operand has no immediate range id")),
        },
        _ => {}
    }
    for index in operand.indices() {
        if let Some(relative) = index.relative() {
            if depth >= 4 {
                return Err("relative addresses nest too deeply".into());
            }
            let Some(inner) = program.operands.get(relative.0 as usize) else {
                return Err(format!(
                    "relative operand {} is outside the arena",
                    relative.0
                ));
            };
            if inner.components == ComponentCount::Four
                && !matches!(inner.selection, Selection::Select1(_))
                && inner.selection.mask().count_ones() != 1
            {
                return Err(format!(
                    "the relative address of {name} selects more than one component"
                ));
            }
            check_operand(program, inner, false, declared, depth + 1)
                .map_err(|e| format!("in the index of {name}: {e}"))?;
        }
    }
    Ok(())
}

/// Checks block structure: `if`/`else`/`endif`, `loop`/`endloop`, `switch`/`case`/`default`/
/// `endswitch`, and that `break`/`continue` sit inside a loop or switch.
pub fn validate_control_flow(program: &Program) -> Result<()> {
    use crate::tpf::opcodes::Opcode as O;
    #[derive(PartialEq, Clone, Copy)]
    enum Block {
        If,
        Else,
        Loop,
        Switch,
    }
    let mut stack: Vec<Block> = Vec::new();
    for (index, instruction) in program.instructions.iter().enumerate() {
        let fail =
            |message: &str| Err(Error::instruction(index as u32, instruction.dword, message));
        match instruction.opcode {
            O::If => stack.push(Block::If),
            O::Else => match stack.last_mut() {
                Some(top @ Block::If) => *top = Block::Else,
                _ => return fail("else without a matching if"),
            },
            O::EndIf => match stack.pop() {
                Some(Block::If | Block::Else) => {}
                _ => return fail("endif without a matching if"),
            },
            O::Loop => stack.push(Block::Loop),
            O::EndLoop if stack.pop() != Some(Block::Loop) => {
                return fail("endloop without a matching loop");
            }
            O::Switch => stack.push(Block::Switch),
            O::EndSwitch if stack.pop() != Some(Block::Switch) => {
                return fail("endswitch without a matching switch");
            }
            O::Case | O::Default if stack.last() != Some(&Block::Switch) => {
                return fail("case or default outside a switch");
            }
            O::Break | O::Breakc
                if !stack
                    .iter()
                    .any(|b| matches!(b, Block::Loop | Block::Switch)) =>
            {
                return fail("break outside a loop or switch");
            }
            O::Continue | O::Continuec if !stack.contains(&Block::Loop) => {
                return fail("continue outside a loop");
            }
            O::Label | O::HsForkPhase | O::HsJoinPhase | O::HsControlPointPhase | O::HsDecls
                if !stack.is_empty() =>
            {
                return fail("a subroutine or phase starts inside an open block");
            }
            _ => {}
        }
    }
    if !stack.is_empty() {
        let dword = program.instructions.last().map_or(0, |i| i.dword);
        return Err(Error::instruction(
            program.instructions.len().saturating_sub(1) as u32,
            dword,
            format!(
                "{} block(s) are still open at the end of the program",
                stack.len()
            ),
        ));
    }
    Ok(())
}
