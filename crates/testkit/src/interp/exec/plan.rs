//! What the executor works out once per program: the declarations (registers, group-shared
//! memory, resource bindings, the immediate constant buffer) and the control-flow structure
//! (the target of every jump), so that each thread runs with a program counter and a call
//! stack only.

use std::collections::BTreeMap;

use crate::interp::error_at;
use crate::interp::memory::{Resource, Shape};
use dxbc2spirv::ir::{
    CustomDataClass, Declaration, Program, RegisterKind, ResourceDimension, ResourceRange, Stage,
};
use dxbc2spirv::isa::Opcode;
use dxbc2spirv::{ErrorKind, Result};

/// No jump target.
pub(super) const NONE: usize = usize::MAX;

/// How a declared resource range is addressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// A typed buffer or texture of this dimension.
    Typed(ResourceDimension),
    /// A raw (byte-address) buffer.
    Raw,
    /// A structured buffer.
    Structured,
    /// A constant buffer.
    Constant,
    /// A sampler.
    Sampler,
}

/// A declared range of registers of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Binding {
    /// The range (space and bounds).
    pub range: ResourceRange,
    /// How it is addressed.
    pub access: Access,
}

/// A `switch`'s jump table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct SwitchTable {
    /// `(case value, instruction after the case label)`.
    pub cases: Vec<(u32, usize)>,
    /// The instruction after `default`, if any.
    pub default: Option<usize>,
    /// The instruction after `endswitch`.
    pub end: usize,
}

/// A declared group-shared memory register.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tgsm {
    /// The `g#` register number.
    pub register: u32,
    /// Raw or structured.
    pub shape: Shape,
    /// Its size in bytes.
    pub bytes: usize,
}

/// The executor's view of a program.
#[derive(Debug)]
pub(super) struct Plan<'p> {
    /// The program.
    pub program: &'p Program,
    /// `dcl_temps`.
    pub temps: usize,
    /// Indexable temps: register → (slot, element count).
    pub indexable: BTreeMap<u32, (usize, u32)>,
    /// Group-shared memory registers, in declaration order.
    pub tgsm: Vec<Tgsm>,
    /// The thread-group size.
    pub group_size: [u32; 3],
    /// The immediate constant buffer, 4 words per vector.
    pub icb: &'p [u32],
    /// Declared ranges by (register class, range id).
    pub bindings: std::collections::HashMap<(RegisterKind, u32), Binding>,
    /// Per instruction, the jump target its opcode uses (see [`Plan::target`]).
    targets: Vec<usize>,
    /// `switch` jump tables, indexed by the `switch` instruction's target.
    pub switches: Vec<SwitchTable>,
    /// Subroutine labels (`l#`) → the instruction after the label.
    pub labels: BTreeMap<u32, usize>,
    /// The instruction after the main program (its first `label`, or the end).
    pub main_end: usize,
    /// Class linkage: function bodies (`fbN`) → the instruction after their label.
    pub bodies: BTreeMap<u32, usize>,
    /// Class linkage: function tables (`ftN`) → their bodies, one per call site.
    pub tables: BTreeMap<u32, Vec<u32>>,
    /// Class linkage: interfaces (`fpN`, N the first slot) → (slots, compatible tables).
    pub interfaces: BTreeMap<u32, (u32, Vec<u32>)>,
    /// Class linkage: the number of interface slots (`this[]` reads zeros past them).
    pub slots: u32,
}

/// An open block while the structure is worked out.
enum Open {
    If {
        at: usize,
        else_at: Option<usize>,
    },
    Loop {
        at: usize,
        breaks: Vec<usize>,
    },
    Switch {
        at: usize,
        table: usize,
        breaks: Vec<usize>,
    },
}

impl<'p> Plan<'p> {
    /// Reads the declarations and the structure of a compute program.
    pub fn new(program: &'p Program) -> Result<Plan<'p>> {
        if program.model.stage != Stage::Compute {
            return Err(error_at(
                program,
                0,
                format!(
                    "the interpreter runs compute shaders only, not {}",
                    program.model
                ),
            )
            .with_kind(ErrorKind::Unsupported));
        }
        let mut plan = Plan {
            program,
            temps: 0,
            indexable: BTreeMap::new(),
            tgsm: Vec::new(),
            group_size: [0; 3],
            icb: &[],
            bindings: std::collections::HashMap::new(),
            targets: vec![NONE; program.instructions.len()],
            switches: Vec::new(),
            labels: BTreeMap::new(),
            main_end: program.instructions.len(),
            bodies: BTreeMap::new(),
            tables: BTreeMap::new(),
            interfaces: BTreeMap::new(),
            slots: 0,
        };
        plan.declarations()?;
        plan.structure()?;
        Ok(plan)
    }

    /// The jump target of instruction `index`: for `if`, the instruction to go to when the
    /// test fails; `else`, its `endif`; `endloop`, `continue(c)`, the instruction after the
    /// loop's `loop`; `break(c)`, the instruction after the enclosing `endloop`/`endswitch`;
    /// `switch`, its table in [`Plan::switches`].
    pub fn target(&self, index: usize) -> usize {
        self.targets.get(index).copied().unwrap_or(NONE)
    }

    fn declarations(&mut self) -> Result<()> {
        let program = self.program;
        let mut group_size = None;
        for (index, instruction) in program.instructions.iter().enumerate() {
            let Some(declaration) = &instruction.declaration else {
                continue;
            };
            let fail = |message: String| error_at(program, index, message);
            let mut bound = None;
            match declaration {
                Declaration::Resource {
                    operand,
                    range,
                    dimension,
                    ..
                }
                | Declaration::UavTyped {
                    operand,
                    range,
                    dimension,
                    ..
                } => bound = Some((*operand, *range, Access::Typed(*dimension))),
                Declaration::ResourceRaw { operand, range }
                | Declaration::UavRaw { operand, range, .. } => {
                    bound = Some((*operand, *range, Access::Raw))
                }
                Declaration::ResourceStructured { operand, range, .. }
                | Declaration::UavStructured { operand, range, .. } => {
                    bound = Some((*operand, *range, Access::Structured))
                }
                Declaration::ConstantBuffer { operand, range, .. } => {
                    bound = Some((*operand, *range, Access::Constant))
                }
                Declaration::Sampler { operand, range, .. } => {
                    bound = Some((*operand, *range, Access::Sampler))
                }
                Declaration::Temps(count) => self.temps = self.temps.max(*count as usize),
                Declaration::IndexableTemp { register, size, .. } => {
                    let slot = self.indexable.len();
                    if self.indexable.insert(*register, (slot, *size)).is_some() {
                        return Err(fail(format!("x{register} is declared twice")));
                    }
                }
                Declaration::TgsmRaw {
                    operand,
                    byte_count,
                } => self.declare_tgsm(index, *operand, Shape::Raw, *byte_count as u64)?,
                Declaration::TgsmStructured {
                    operand,
                    stride,
                    count,
                } => self.declare_tgsm(
                    index,
                    *operand,
                    Shape::Structured { stride: *stride },
                    *stride as u64 * *count as u64,
                )?,
                Declaration::ThreadGroup(size) if group_size.replace(*size).is_some() => {
                    return Err(fail("dcl_thread_group appears twice".into()));
                }
                Declaration::CustomData {
                    class: CustomDataClass::ImmediateConstantBuffer,
                    data,
                } => self.icb = program.data_slice(*data),
                Declaration::FunctionTable { id, bodies } => {
                    self.tables
                        .insert(*id, program.data_slice(*bodies).to_vec());
                }
                Declaration::Interface {
                    id,
                    array_length,
                    tables,
                    ..
                } => {
                    let length = (*array_length).max(1);
                    self.slots = self.slots.max(id.saturating_add(length));
                    let tables = program.data_slice(*tables).to_vec();
                    self.interfaces.insert(*id, (length, tables));
                }
                _ => {}
            }
            if let Some((operand, range, access)) = bound {
                let kind = program.operand(operand).kind;
                let binding = Binding { range, access };
                if self.bindings.insert((kind, range.id), binding).is_some() {
                    return Err(fail(format!(
                        "{}{} is declared twice",
                        kind.name(),
                        range.id
                    )));
                }
            }
        }
        let size = group_size
            .ok_or_else(|| error_at(program, 0, "a compute shader without dcl_thread_group"))?;
        let threads = size.iter().map(|&n| n as u64).product::<u64>();
        if threads == 0 || threads > 1024 {
            return Err(error_at(
                program,
                0,
                format!(
                    "a thread group of {}x{}x{} threads (1 to 1024 are allowed)",
                    size[0], size[1], size[2]
                ),
            ));
        }
        self.group_size = size;
        Ok(())
    }

    fn declare_tgsm(
        &mut self,
        index: usize,
        operand: dxbc2spirv::ir::OperandId,
        shape: Shape,
        bytes: u64,
    ) -> Result<()> {
        let operand = self.program.operand(operand);
        let register = operand
            .indices()
            .first()
            .and_then(|i| i.as_imm32())
            .ok_or_else(|| error_at(self.program, index, "a g# declaration without a register"))?;
        // D3D11 allows 32 KB of group-shared memory per group.
        if bytes > 32768 {
            return Err(error_at(
                self.program,
                index,
                format!(
                    "g{register} declares {bytes} bytes of group-shared memory (at most 32768)"
                ),
            ));
        }
        if self.tgsm.iter().any(|t| t.register == register) {
            return Err(error_at(
                self.program,
                index,
                format!("g{register} is declared twice"),
            ));
        }
        self.tgsm.push(Tgsm {
            register,
            shape,
            bytes: bytes as usize,
        });
        Ok(())
    }

    /// Fresh (zeroed) group-shared memory for one thread group.
    pub fn fresh_tgsm(&self) -> Vec<Resource> {
        self.tgsm
            .iter()
            .map(|t| Resource::new(t.shape, vec![0; t.bytes]))
            .collect()
    }

    /// Matches every block opener with its closer, every `break`/`continue` with its block
    /// and finds the subroutine labels.
    fn structure(&mut self) -> Result<()> {
        use Opcode as O;
        let program = self.program;
        let mut stack: Vec<Open> = Vec::new();
        let mut in_subroutines = false;
        for (index, instruction) in program.instructions.iter().enumerate() {
            let fail = |message: &str| {
                Err(error_at(
                    program,
                    index,
                    format!("`{}` {message}", instruction.opcode.name()),
                ))
            };
            match instruction.opcode {
                O::If => stack.push(Open::If {
                    at: index,
                    else_at: None,
                }),
                O::Else => match stack.last_mut() {
                    Some(Open::If { else_at, .. }) if else_at.is_none() => *else_at = Some(index),
                    _ => return fail("without a matching if"),
                },
                O::EndIf => match stack.pop() {
                    Some(Open::If { at, else_at }) => match else_at {
                        Some(e) => {
                            self.targets[at] = e + 1;
                            self.targets[e] = index + 1;
                        }
                        None => self.targets[at] = index + 1,
                    },
                    _ => return fail("without a matching if"),
                },
                O::Loop => stack.push(Open::Loop {
                    at: index,
                    breaks: Vec::new(),
                }),
                O::EndLoop => match stack.pop() {
                    Some(Open::Loop { at, breaks }) => {
                        self.targets[index] = at + 1;
                        for b in breaks {
                            self.targets[b] = index + 1;
                        }
                    }
                    _ => return fail("without a matching loop"),
                },
                O::Switch => {
                    if !matches!(
                        program.instructions.get(index + 1).map(|i| i.opcode),
                        Some(O::Case | O::Default | O::EndSwitch)
                    ) {
                        return fail("is not followed by a case, default or endswitch");
                    }
                    let table = self.switches.len();
                    self.switches.push(SwitchTable::default());
                    self.targets[index] = table;
                    stack.push(Open::Switch {
                        at: index,
                        table,
                        breaks: Vec::new(),
                    });
                }
                O::Case | O::Default => {
                    let Some(Open::Switch { table, .. }) = stack.last() else {
                        return fail("outside a switch");
                    };
                    let table = &mut self.switches[*table];
                    if instruction.opcode == O::Default {
                        if table.default.replace(index + 1).is_some() {
                            return fail("appears twice in one switch");
                        }
                    } else {
                        let Some(label) = program.srcs(instruction).first() else {
                            return fail("without a value");
                        };
                        let value = label.values[0];
                        if table.cases.iter().any(|&(v, _)| v == value) {
                            return fail("repeats a case value of its switch");
                        }
                        table.cases.push((value, index + 1));
                    }
                }
                O::EndSwitch => match stack.pop() {
                    Some(Open::Switch { table, breaks, .. }) => {
                        self.switches[table].end = index + 1;
                        for b in breaks {
                            self.targets[b] = index + 1;
                        }
                    }
                    _ => return fail("without a matching switch"),
                },
                O::Break | O::Breakc => {
                    let open = stack.iter_mut().rev().find_map(|open| match open {
                        Open::Loop { breaks, .. } | Open::Switch { breaks, .. } => Some(breaks),
                        Open::If { .. } => None,
                    });
                    match open {
                        Some(breaks) => breaks.push(index),
                        None => return fail("outside a loop or switch"),
                    }
                }
                O::Continue | O::Continuec => {
                    let open = stack.iter().rev().find_map(|open| match open {
                        Open::Loop { at, .. } => Some(*at),
                        _ => None,
                    });
                    match open {
                        Some(at) => self.targets[index] = at + 1,
                        None => return fail("outside a loop"),
                    }
                }
                O::Label => {
                    if let Some(open) = stack.last() {
                        let at = match open {
                            Open::If { at, .. }
                            | Open::Loop { at, .. }
                            | Open::Switch { at, .. } => *at,
                        };
                        return Err(error_at(
                            program,
                            at,
                            format!(
                                "`{}` is not closed before the label at instruction {index}",
                                program.instructions[at].opcode.name()
                            ),
                        ));
                    }
                    if !in_subroutines {
                        in_subroutines = true;
                        self.main_end = index;
                    }
                    let label = program.srcs(instruction).first().copied();
                    match label {
                        Some(op) if op.kind == RegisterKind::Label => {
                            let Some(number) = op.indices().first().and_then(|i| i.as_imm32())
                            else {
                                return fail("without a label number");
                            };
                            if self.labels.insert(number, index + 1).is_some() {
                                return fail("defines a label twice");
                            }
                        }
                        // Function bodies of class linkage (`label fb#`), reached by `fcall`.
                        Some(op) if op.kind == RegisterKind::FunctionBody => {
                            let Some(number) = op.indices().first().and_then(|i| i.as_imm32())
                            else {
                                return fail("without a function body number");
                            };
                            if self.bodies.insert(number, index + 1).is_some() {
                                return fail("defines a function body twice");
                            }
                        }
                        _ => return fail("without a label"),
                    }
                }
                O::HsDecls | O::HsControlPointPhase | O::HsForkPhase | O::HsJoinPhase => {
                    return fail("in a compute shader");
                }
                _ => {}
            }
        }
        if let Some(open) = stack.last() {
            let at = match open {
                Open::If { at, .. } | Open::Loop { at, .. } | Open::Switch { at, .. } => *at,
            };
            return Err(error_at(
                program,
                at,
                format!(
                    "`{}` is still open at the end of the program",
                    program.instructions[at].opcode.name()
                ),
            ));
        }
        // Every call names a label that exists.
        for (index, instruction) in program.instructions.iter().enumerate() {
            if matches!(instruction.opcode, O::Call | O::Callc) {
                let label = program.srcs(instruction).last().copied();
                let number = label
                    .filter(|op| op.kind == RegisterKind::Label)
                    .and_then(|op| op.indices().first().and_then(|i| i.as_imm32()));
                match number {
                    Some(n) if self.labels.contains_key(&n) => {}
                    Some(n) => {
                        return Err(error_at(
                            program,
                            index,
                            format!(
                                "`{}` calls l{n}, which no label defines",
                                instruction.opcode.name()
                            ),
                        ))
                    }
                    None => {
                        return Err(error_at(
                            program,
                            index,
                            format!("`{}` without a label operand", instruction.opcode.name()),
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// The label a `call`/`callc` instruction calls: the instruction after it.
    pub fn call_target(&self, index: usize) -> Option<usize> {
        let instruction = self.program.instructions.get(index)?;
        let label = self.program.srcs(instruction).last()?;
        let number = label.indices().first()?.as_imm32()?;
        self.labels.get(&number).copied()
    }
}
