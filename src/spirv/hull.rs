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
//! phase are inlined where a phase calls them, as in the other stages
//! ([`super::subroutines`]), and use the registers of that phase.

use spirv::Word;

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::stage_io::ArrayedSlot;
use crate::analysis::hull_phases::Phase;
use crate::error::Result;
use crate::ir::{RegisterKind, SystemValue};
use crate::isa::Opcode;

impl Emitter<'_> {
    /// Emits a hull shader: one function per phase and the entry function that runs them;
    /// returns the entry function's id.
    pub fn hull_functions(&mut self) -> Result<Word> {
        let Some(hull) = self.io.stage.hull.clone() else {
            return Err(self.err("not a hull shader"));
        };
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
        let control_point = match control_point_phase {
            Some(phase) => Some(self.phase_function(phase)?),
            None => None,
        };
        let mut patch = Vec::new();
        for phase in patch_phases {
            patch.push((self.phase_function(phase)?, phase.instance_count));
        }
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
