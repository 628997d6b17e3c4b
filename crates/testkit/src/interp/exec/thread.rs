//! One thread's run: the program counter, the call stack, control flow and the ALU.

use super::plan::{Plan, NONE};
use crate::interp::memory::Resource;
use crate::interp::{alu, Options, Resources};
use dxbc2spirv::ir::{Instruction, Test};
use dxbc2spirv::isa::Opcode;
use dxbc2spirv::{ErrorKind, Result};

/// D3D11's limit on nested subroutine calls.
const MAX_CALL_DEPTH: usize = 32;

/// The system values of one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ids {
    /// `vThreadID`.
    pub thread: [u32; 3],
    /// `vThreadGroupID`.
    pub group: [u32; 3],
    /// `vThreadIDInGroup`.
    pub local: [u32; 3],
    /// `vThreadIDInGroupFlattened`.
    pub flat: u32,
}

/// One thread's state.
#[derive(Debug, Clone)]
pub(super) struct Thread {
    /// The next instruction.
    pub pc: usize,
    /// Return addresses of the calls in progress.
    calls: Vec<usize>,
    /// `r#`.
    pub temps: Vec<[u32; 4]>,
    /// The components of each `r#` written so far (bit 0 = x), for
    /// [`crate::interp::Options::undefined_reads`].
    pub written: Vec<u8>,
    /// `x#`, by the plan's slot.
    pub indexable: Vec<Vec<[u32; 4]>>,
    /// System values.
    pub ids: Ids,
    /// Instructions executed so far (also what `vCycleCounter` reads).
    pub steps: u64,
}

impl Thread {
    /// A thread at the start of the program.
    pub fn new(plan: &Plan<'_>, group: [u32; 3], local: [u32; 3]) -> Thread {
        let size = plan.group_size;
        let mut indexable = vec![Vec::new(); plan.indexable.len()];
        for &(slot, count) in plan.indexable.values() {
            indexable[slot] = vec![[0; 4]; count as usize];
        }
        Thread {
            pc: 0,
            calls: Vec::new(),
            temps: vec![[0; 4]; plan.temps],
            written: vec![0; plan.temps],
            indexable,
            ids: Ids {
                thread: std::array::from_fn(|i| {
                    group[i].wrapping_mul(size[i]).wrapping_add(local[i])
                }),
                group,
                local,
                flat: (local[2] * size[1] + local[1]) * size[0] + local[0],
            },
            steps: 0,
        }
    }

    /// Returns from a subroutine; `true` when the thread's main program ends.
    fn ret(&mut self) -> bool {
        match self.calls.pop() {
            Some(address) => {
                self.pc = address;
                false
            }
            None => true,
        }
    }
}

/// Why a thread stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// It ended.
    Done,
    /// It reached the thread barrier (`sync_*_t`) at this instruction.
    Barrier(usize),
}

/// What every thread of a dispatch shares.
pub(super) struct Machine<'a, 'p> {
    /// The program's plan.
    pub plan: &'a Plan<'p>,
    /// The dispatch's resources.
    pub resources: &'a mut Resources,
    /// The current group's shared memory, by the plan's `g#` order.
    pub tgsm: Vec<Resource>,
    /// Who wrote the group's shared memory when, for
    /// [`crate::interp::Options::undefined_reads`].
    pub shared: super::shared::Record,
    /// Who stored what to UAVs, for the same option.
    pub uav_stores: super::shared::UavRecord,
    /// How to run.
    pub options: &'a Options,
}

impl Machine<'_, '_> {
    /// Runs `t` until it ends or reaches a thread barrier.
    pub fn run(&mut self, t: &mut Thread) -> Result<Stop> {
        let program = self.plan.program;
        loop {
            let pc = t.pc;
            let Some(instruction) = program.instructions.get(pc) else {
                if t.ret() {
                    return Ok(Stop::Done);
                }
                continue;
            };
            t.steps += 1;
            if t.steps > self.options.step_limit {
                return Err(self
                    .fail(
                        pc,
                        format!(
                            "thread {:?} of group {:?} ran more than {} instructions (an endless loop?)",
                            t.ids.local, t.ids.group, self.options.step_limit
                        ),
                    )
                    .with_kind(ErrorKind::Limit));
            }
            if instruction.opcode.is_declaration() {
                t.pc = pc + 1;
                continue;
            }
            if let Some(stop) = self.step(t, instruction, pc)? {
                return Ok(stop);
            }
        }
    }

    /// Whether a conditional instruction's test passes on its first source's component.
    fn test(&self, t: &Thread, instruction: &Instruction, at: usize) -> Result<bool> {
        let operand = self
            .plan
            .program
            .srcs(instruction)
            .first()
            .ok_or_else(|| self.fail(at, "a conditional instruction without a condition"))?;
        let value = self.read(t, operand, at)?[0];
        Ok(match instruction.test.unwrap_or(Test::NonZero) {
            Test::NonZero => value != 0,
            Test::Zero => value == 0,
        })
    }

    /// A target the plan must have set.
    fn jump(&self, at: usize) -> Result<usize> {
        match self.plan.target(at) {
            NONE => Err(self.fail(at, "a jump without a target (malformed block structure)")),
            target => Ok(target),
        }
    }

    /// Executes one instruction; `Some` when the thread stops.
    fn step(
        &mut self,
        t: &mut Thread,
        instruction: &Instruction,
        pc: usize,
    ) -> Result<Option<Stop>> {
        use Opcode as O;
        let next = pc + 1;
        t.pc = next;
        match instruction.opcode {
            O::Nop | O::EndIf | O::Loop | O::Case | O::Default | O::EndSwitch => {}
            // Nothing, as on D3D's hardware drivers (the translator's documented choice).
            O::Abort | O::DebugBreak => {}
            O::If => {
                if !self.test(t, instruction, pc)? {
                    t.pc = self.jump(pc)?;
                }
            }
            O::Else | O::EndLoop | O::Break | O::Continue => t.pc = self.jump(pc)?,
            O::Breakc | O::Continuec => {
                if self.test(t, instruction, pc)? {
                    t.pc = self.jump(pc)?;
                }
            }
            O::Switch => {
                let selector = self
                    .plan
                    .program
                    .srcs(instruction)
                    .first()
                    .ok_or_else(|| self.fail(pc, "a switch without a selector"))?;
                let value = self.read(t, selector, pc)?[0];
                let table = self
                    .plan
                    .switches
                    .get(self.jump(pc)?)
                    .ok_or_else(|| self.fail(pc, "a switch without its table"))?;
                t.pc = table
                    .cases
                    .iter()
                    .find(|&&(case, _)| case == value)
                    .map(|&(_, target)| target)
                    .or(table.default)
                    .unwrap_or(table.end);
            }
            O::Call | O::Callc => {
                if instruction.opcode == O::Call || self.test(t, instruction, pc)? {
                    let target = self
                        .plan
                        .call_target(pc)
                        .ok_or_else(|| self.fail(pc, "a call of a label that does not exist"))?;
                    if t.calls.len() >= MAX_CALL_DEPTH {
                        return Err(self.fail(
                            pc,
                            format!("calls nest deeper than {MAX_CALL_DEPTH} (D3D11's limit)"),
                        ));
                    }
                    t.calls.push(next);
                    t.pc = target;
                }
            }
            // Reaching a label ends the subroutine (or the main program) before it.
            O::Ret | O::Label => {
                if t.ret() {
                    return Ok(Some(Stop::Done));
                }
            }
            O::Retc => {
                if self.test(t, instruction, pc)? && t.ret() {
                    return Ok(Some(Stop::Done));
                }
            }
            O::Sync => {
                if instruction.sync.threads_in_group {
                    return Ok(Some(Stop::Barrier(pc)));
                }
                // Memory barriers alone: threads run one at a time, so every write is
                // already visible to the next reader.
            }
            O::Sample
            | O::SampleC
            | O::SampleCLz
            | O::SampleL
            | O::SampleD
            | O::SampleB
            | O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC
            | O::Gather4S
            | O::Gather4CS
            | O::Gather4PoS
            | O::Gather4PoCS
            | O::SampleLS
            | O::SampleCLzS
            | O::SampleClS
            | O::SampleBClS
            | O::SampleDClS
            | O::SampleCClS
            | O::Lod
            | O::SampleInfo
            | O::SamplePos
            | O::LdMs
            | O::LdMsS => {
                return Err(self
                    .fail(
                        pc,
                        format!(
                        "`{}`: the interpreter does not sample textures or read multisampled ones",
                        instruction.opcode.name()
                    ),
                    )
                    .with_kind(ErrorKind::Unsupported))
            }
            O::InterfaceCall => {
                if let Some(target) = self.interface_call(t, instruction, pc)? {
                    if t.calls.len() >= MAX_CALL_DEPTH {
                        return Err(self.fail(
                            pc,
                            format!("calls nest deeper than {MAX_CALL_DEPTH} (D3D11's limit)"),
                        ));
                    }
                    t.calls.push(next);
                    t.pc = target;
                }
            }
            opcode if self.is_memory(opcode) => self.memory(t, instruction, pc)?,
            _ => self.alu(t, instruction, pc)?,
        }
        Ok(None)
    }

    /// `fcall fpN[index]` with call site `site`: the body that the function table of the
    /// instance bound to slot `N + index` lists for the site, in the project's binding
    /// form (see `dxbc2spirv::spirv::linkage`): `cb15` of space 0 holds, per slot `s`, the
    /// table id in `x` of vector `2s` and `this[s]` in vector `2s + 1`. A table the
    /// interface does not list, or a run-time index past the interface's slots, calls
    /// nothing (`None`).
    fn interface_call(
        &self,
        t: &Thread,
        instruction: &Instruction,
        pc: usize,
    ) -> Result<Option<usize>> {
        let plan = self.plan;
        let operand = plan
            .program
            .srcs(instruction)
            .first()
            .filter(|o| o.kind == dxbc2spirv::ir::RegisterKind::Interface)
            .ok_or_else(|| self.fail(pc, "fcall needs an interface operand (fp#)"))?;
        let site = instruction
            .call_index
            .ok_or_else(|| self.fail(pc, "fcall needs a call site"))?;
        let id = operand
            .indices()
            .first()
            .and_then(|i| i.as_imm32())
            .ok_or_else(|| self.fail(pc, "fcall needs an interface number"))?;
        let (length, tables) = plan
            .interfaces
            .get(&id)
            .ok_or_else(|| self.fail(pc, format!("fcall through fp{id}, which is not declared")))?;
        let index = operand
            .indices()
            .get(1)
            .copied()
            .unwrap_or(dxbc2spirv::ir::Index::Imm32(0));
        let element = self.index(t, index, pc, 0)?;
        if element >= *length {
            if index.relative().is_none() {
                return Err(self.fail(
                    pc,
                    format!("fcall fp{id}[{element}] is outside the interface's {length} slots"),
                ));
            }
            return Ok(None);
        }
        let slot = u64::from(id) + u64::from(element);
        let table = self.class_instance_word(2 * slot, 0);
        if !tables.contains(&table) {
            return Ok(None);
        }
        let body = plan
            .tables
            .get(&table)
            .ok_or_else(|| self.fail(pc, format!("fp{id} lists ft{table}, which is not declared")))?
            .get(site as usize)
            .copied()
            .ok_or_else(|| {
                self.fail(pc, format!("call site {site} is past the end of ft{table}"))
            })?;
        plan.bodies.get(&body).copied().map(Some).ok_or_else(|| {
            self.fail(
                pc,
                format!("ft{table} lists fb{body}, which no label declares"),
            )
        })
    }

    /// Word `component` of vector `vector` of the class-instance data (`cb15` of space 0;
    /// 0 when unbound or past its end).
    pub(super) fn class_instance_word(&self, vector: u64, component: u64) -> u32 {
        let word = vector * 4 + component;
        self.resources
            .constant_buffers
            .get(&(0, 15))
            .and_then(|words| usize::try_from(word).ok().and_then(|w| words.get(w)))
            .copied()
            .unwrap_or(0)
    }

    /// An ALU instruction through [`alu::evaluate`].
    fn alu(&self, t: &mut Thread, instruction: &Instruction, pc: usize) -> Result<()> {
        let program = self.plan.program;
        let dsts = program.dsts(instruction);
        let srcs = program.srcs(instruction);
        if dsts.len() > 2 || srcs.len() > 6 {
            return Err(self.fail(pc, "an instruction with more operands than any ALU opcode"));
        }
        let mut values = [[0u32; 4]; 6];
        for (value, operand) in values.iter_mut().zip(srcs) {
            *value = self.read(t, operand, pc)?;
        }
        let mut masks = [0u8; 2];
        for (mask, operand) in masks.iter_mut().zip(dsts) {
            *mask = operand.mask();
        }
        let results = alu::evaluate(
            instruction.opcode,
            &values[..srcs.len()],
            &masks[..dsts.len()],
            instruction.saturate,
            self.options.float,
        )
        .ok_or_else(|| {
            self.fail(
                pc,
                format!(
                    "`{}` is not an instruction the interpreter executes in a compute shader",
                    instruction.opcode.name()
                ),
            )
            .with_kind(ErrorKind::Unsupported)
        })?;
        for (operand, result) in dsts.iter().zip(results) {
            self.write(t, operand, result, pc)?;
        }
        Ok(())
    }
}
