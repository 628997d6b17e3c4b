//! A hull shader's entry point: its phases as functions and the entry function that runs
//! them as D3D does.
//!
//! Per output control point (`InvocationId` = `vOutputControlPointID`) the entry function
//! runs the control-point phase, or, when there is none, copies the input control point
//! through. After a barrier, invocation 0 runs every instance of every fork phase and then
//! of every join phase (`vForkInstanceID`/`vJoinInstanceID` set before each call), and
//! finally writes the patch constants out (see [`super::tessellation`]).
//!
//! Subroutines (`call`, `callc`) and class-linkage function bodies (`fcall`) after the last
//! phase become functions as in the other stages ([`super::flow`], [`super::linkage`]); as
//! they use the registers of the phase that calls them, they are emitted once for the
//! control-point phase and once for the fork and join phases when both call.

use spirv::Word;
use std::collections::BTreeSet;

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::stage_io::ArrayedSlot;
use crate::error::Result;
use crate::ir::{RegisterKind, SystemValue};
use crate::isa::Opcode;
use crate::passes::hull_phases::{Phase, PhaseKind};

impl Emitter<'_> {
    /// Emits a hull shader: one function per phase and the entry function that runs them;
    /// returns the entry function's id.
    pub fn hull_functions(&mut self) -> Result<Word> {
        let Some(hull) = self.io.stage.hull.clone() else {
            return Err(self.err("not a hull shader"));
        };
        // Subroutines and function bodies (after the last phase) read and write the
        // registers of the phase that calls them, and `o#` means a control point in the
        // control-point phase but a patch constant in fork and join phases: they are emitted
        // once for each of the two kinds of phase that calls any, with their own ids.
        let from = hull.subroutines;
        let program = self.program;
        if let Some(index) = (from..program.instructions.len()).find(|&i| {
            matches!(
                program.instructions[i].opcode,
                Opcode::HsDecls
                    | Opcode::HsControlPointPhase
                    | Opcode::HsForkPhase
                    | Opcode::HsJoinPhase
            )
        }) {
            self.set_at(index, &program.instructions[index]);
            return Err(self.err(
                "a hull-shader phase after the first label: the phases come first, then the \
                 subroutines and function bodies",
            ));
        }
        let control_point_phase = hull.control_point_phase();
        let patch_phases = hull.patch_phases();
        let mut contexts = Vec::new();
        if let Some(phase) = control_point_phase {
            let reached = self.reached_subroutines(&[phase]);
            if !reached.is_empty() {
                contexts.push((PhaseKind::ControlPoint, reached));
            }
        }
        let reached = self.reached_subroutines(&patch_phases);
        if !reached.is_empty() {
            contexts.push((PhaseKind::Fork, reached));
        }
        let mut ids = Vec::new();
        for (context, _) in &contexts {
            let context = *context;
            self.label_functions(from)?;
            ids.push((context, self.labels.clone(), self.link.bodies.clone()));
        }
        let use_ids = |e: &mut Self, kind: PhaseKind| {
            if let Some((_, labels, bodies)) = ids.iter().find(|(k, _, _)| *k == kind) {
                e.labels = labels.clone();
                e.link.bodies = bodies.clone();
            }
        };
        let control_point = match control_point_phase {
            Some(phase) => {
                use_ids(self, PhaseKind::ControlPoint);
                Some(self.phase_function(phase)?)
            }
            None => None,
        };
        use_ids(self, PhaseKind::Fork);
        let mut patch = Vec::new();
        for phase in patch_phases {
            patch.push((self.phase_function(phase)?, phase.instance_count));
        }
        for (context, reached) in &contexts {
            use_ids(self, *context);
            self.io.stage.subroutine_phase = Some(*context);
            self.subroutine_functions(from, |label| reached.contains(&label))?;
        }
        self.io.stage.subroutine_phase = None;
        let main = self.begin_void_function(None)?;
        let void = self.m.void();
        self.io_prologue()?;
        match control_point {
            Some(function) => {
                built(self.m.function_call(void, function, &[]))?;
            }
            None => self.pass_control_points_through()?,
        }
        if !patch.is_empty() || !hull.patch_constants.is_empty() {
            // Every control point is written before the patch phases read them.
            let workgroup = self.m.constant_u32(spirv::Scope::Workgroup as u32);
            let invocation = self.m.constant_u32(spirv::Scope::Invocation as u32);
            let none = self.m.constant_u32(0);
            built(self.m.b.control_barrier(workgroup, invocation, none))?;
            let id = self.invocation_id()?;
            let boolean = self.m.scalar(Scalar::Bool);
            let zero = self.m.constant_u32(0);
            let first = built(self.m.b.i_equal(boolean, None, id, zero))?;
            self.conditional(first, |e| {
                for (function, count) in patch {
                    e.phase_instances(function, count)?;
                }
                e.write_patch_constants()
            })?;
        }
        built(self.m.b.ret())?;
        self.block_open = false;
        built(self.m.b.end_function())?;
        Ok(main)
    }

    /// The instruction indices of the `label`s that `phases` call, directly or through other
    /// subroutines: `call`/`callc` reach their label, `fcall` every function body (which
    /// one runs depends on the class instances bound).
    fn reached_subroutines(&self, phases: &[Phase]) -> BTreeSet<usize> {
        let program = self.program;
        let Some(from) = self.io.stage.hull.as_ref().map(|h| h.subroutines) else {
            return BTreeSet::new();
        };
        let end = program.instructions.len();
        let labels: Vec<usize> = (from..end)
            .filter(|&i| program.instructions[i].opcode == Opcode::Label)
            .collect();
        let range_of = |label: usize| {
            let next = labels.iter().copied().find(|&l| l > label).unwrap_or(end);
            label + 1..next
        };
        let mut reached = BTreeSet::new();
        let mut work: Vec<std::ops::Range<usize>> = phases.iter().map(|p| p.start..p.end).collect();
        while let Some(range) = work.pop() {
            for instruction in &program.instructions[range] {
                let targets: Vec<usize> = match instruction.opcode {
                    Opcode::Call | Opcode::Callc => {
                        let label = program
                            .srcs(instruction)
                            .iter()
                            .find(|o| o.kind == RegisterKind::Label)
                            .and_then(|o| o.indices[0].as_imm32());
                        labels
                            .iter()
                            .copied()
                            .filter(|&l| {
                                !self.is_function_body_label(&program.instructions[l])
                                    && program
                                        .srcs(&program.instructions[l])
                                        .first()
                                        .and_then(|o| o.indices[0].as_imm32())
                                        == label
                            })
                            .collect()
                    }
                    Opcode::InterfaceCall => labels
                        .iter()
                        .copied()
                        .filter(|&l| self.is_function_body_label(&program.instructions[l]))
                        .collect(),
                    _ => Vec::new(),
                };
                for target in targets {
                    if reached.insert(target) {
                        work.push(range_of(target));
                    }
                }
            }
        }
        reached
    }

    /// Calls a fork or join phase `count` times (at least once) with its instance id where
    /// `vForkInstanceID`/`vJoinInstanceID` read it. Several instances run in a loop rather
    /// than unrolled: D3D bounds the count only by 2^32 − 1, so the size of the module must
    /// not grow with it.
    fn phase_instances(&mut self, function: Word, count: u32) -> Result<()> {
        let void = self.m.void();
        let var = self.phase_instance();
        let zero = self.m.constant_u32(0);
        built(self.m.store(var, zero))?;
        if count <= 1 {
            built(self.m.function_call(void, function, &[]))?;
            return Ok(());
        }
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let (limit, one) = (self.m.constant_u32(count), self.m.constant_u32(1));
        let (header, body, next, merge) =
            (self.m.b.id(), self.m.b.id(), self.m.b.id(), self.m.b.id());
        built(self.m.branch(header))?;
        built(self.m.begin_block(Some(header)))?;
        let instance = built(self.m.load(uint, var))?;
        let more = built(self.m.b.u_less_than(boolean, None, instance, limit))?;
        built(
            self.m
                .b
                .loop_merge(merge, next, spirv::LoopControl::NONE, []),
        )?;
        built(self.m.b.branch_conditional(more, body, merge, []))?;
        built(self.m.begin_block(Some(body)))?;
        built(self.m.function_call(void, function, &[]))?;
        built(self.m.branch(next))?;
        built(self.m.begin_block(Some(next)))?;
        let instance = built(self.m.load(uint, var))?;
        let following = built(self.m.b.i_add(uint, None, instance, one))?;
        built(self.m.store(var, following))?;
        built(self.m.branch(header))?;
        built(self.m.begin_block(Some(merge)))?;
        Ok(())
    }

    /// Emits one phase as a function.
    fn phase_function(&mut self, phase: Phase) -> Result<Word> {
        let id = self.begin_void_function(None)?;
        self.translate_code(phase.start..phase.end)?;
        self.end_function()?;
        Ok(id)
    }

    /// Without a control-point phase each output control point is its input control point:
    /// every register of the input signature (or every declared `vicp`) is copied.
    fn pass_control_points_through(&mut self) -> Result<()> {
        let length = self
            .io
            .stage
            .hull
            .as_ref()
            .map(|h| h.output_control_points.max(h.input_control_points).max(1))
            .unwrap_or(1);
        let mut registers: Vec<(u32, u8, SystemValue)> = match &self.reflection.input {
            Some(signature) => signature
                .elements
                .iter()
                .map(|e| (e.register, e.mask, SystemValue::Undefined))
                .collect(),
            None => self
                .arrayed_slots(RegisterKind::Input)
                .into_iter()
                .map(|(r, c, _)| (r, 1u8 << c, SystemValue::Undefined))
                .collect(),
        };
        registers.sort_by_key(|&(r, _, _)| r);
        for &(register, mask, sv) in &registers {
            self.declare_arrayed(RegisterKind::Input, register, length, mask, sv)?;
            self.declare_arrayed(RegisterKind::Output, register, length, mask, sv)?;
        }
        let id = self.invocation_id()?;
        let from_slots = self.arrayed_slots(RegisterKind::Input);
        let to_slots = self.arrayed_slots(RegisterKind::Output);
        for (register, mask, _) in registers {
            for component in Self::components_of(mask) {
                let find = |list: &[(u32, u8, ArrayedSlot)]| {
                    list.iter()
                        .find(|&&(r, c, _)| r == register && c == component)
                        .map(|&(_, _, s)| s)
                };
                let (Some(from), Some(to)) = (find(&from_slots), find(&to_slots)) else {
                    continue;
                };
                let value = self.read_arrayed(from, id)?;
                let value = self.cast(
                    Val {
                        id: value,
                        scalar: from.scalar,
                        count: 1,
                    },
                    to.scalar,
                )?;
                let pointer = self.arrayed_pointer(to, id)?;
                built(self.m.store(pointer, value.id))?;
            }
        }
        Ok(())
    }
}
