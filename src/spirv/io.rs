//! Inputs, outputs and system values: `dcl_input*`/`dcl_output*` into Input/Output
//! variables with locations or built-ins, and the registers that name system values
//! (`vThreadID`, `vPrim`, `oDepth`, …).

use spirv::{BuiltIn, Decoration, StorageClass, Word};
use std::collections::HashMap;

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use crate::container::{ComponentType, Signature};
use crate::error::Result;
use crate::ir::{
    Declaration, Instruction, Interpolation, Operand, RegisterKind, Stage, SystemValue,
};

/// An input or output variable.
#[derive(Debug, Clone, Copy)]
pub struct IoVar {
    /// The variable.
    pub var: Word,
    /// Its component type.
    pub scalar: Scalar,
    /// Its component count (1 = scalar).
    pub count: u32,
    /// Input or Output.
    pub class: StorageClass,
}

/// State of the I/O lowering.
#[derive(Debug, Default)]
pub struct IoState {
    /// `v#` by register.
    pub inputs: HashMap<u32, IoVar>,
    /// `o#` by register.
    pub outputs: HashMap<u32, IoVar>,
    /// System-value registers (`vThreadID`, `oDepth`, …) by register-kind code.
    pub special: HashMap<u8, IoVar>,
}

/// The component type of the signature element at a register, if the signature has one.
fn signature_scalar(signature: Option<&Signature>, register: u32) -> Option<Scalar> {
    let element = signature?
        .elements
        .iter()
        .find(|e| e.register == register)?;
    Some(match element.component_type {
        ComponentType::Uint32 => Scalar::U32,
        ComponentType::Sint32 => Scalar::I32,
        _ => Scalar::F32,
    })
}

impl Emitter<'_> {
    fn io_variable(
        &mut self,
        class: StorageClass,
        scalar: Scalar,
        count: u32,
        name: String,
    ) -> IoVar {
        let ty = self.m.vector(scalar, count);
        let var = self.global(ty, class, Some(name));
        IoVar {
            var,
            scalar,
            count,
            class,
        }
    }

    fn builtin_variable(
        &mut self,
        class: StorageClass,
        builtin: BuiltIn,
        scalar: Scalar,
        count: u32,
    ) -> IoVar {
        let io = self.io_variable(class, scalar, count, format!("{builtin:?}"));
        self.decorate(io.var, Decoration::BuiltIn, &[builtin as u32]);
        io
    }

    /// Handles `dcl_input*`, `dcl_output*` and `dcl_indexrange`.
    pub fn declare_io(
        &mut self,
        _instruction: &Instruction,
        declaration: &Declaration,
    ) -> Result<()> {
        let Declaration::Signature {
            operand,
            system_value,
            interpolation,
        } = declaration
        else {
            // Index ranges need no variables of their own.
            return Ok(());
        };
        let operand = *self.operand(*operand);
        let stage = self.program.model.stage;
        match operand.kind {
            RegisterKind::Input => {
                let register = self.immediate_index(&operand, operand.index_count as usize - 1)?;
                if self.io.inputs.contains_key(&register) {
                    return Ok(());
                }
                let io = match (stage, system_value) {
                    (Stage::Pixel, Some(SystemValue::Position)) => self.builtin_variable(
                        StorageClass::Input,
                        BuiltIn::FragCoord,
                        Scalar::F32,
                        4,
                    ),
                    (_, Some(sv)) if *sv != SystemValue::Undefined => {
                        return Err(self.unsupported(format!(
                            "input system value {} is not translated yet",
                            sv.name()
                        )))
                    }
                    _ => {
                        let scalar = signature_scalar(self.reflection.input.as_ref(), register)
                            .unwrap_or(Scalar::F32);
                        let io = self.io_variable(
                            StorageClass::Input,
                            scalar,
                            4,
                            format!("v{register}"),
                        );
                        self.decorate(io.var, Decoration::Location, &[register]);
                        if stage == Stage::Pixel {
                            self.interpolation(
                                io.var,
                                scalar,
                                interpolation.unwrap_or(Interpolation::Undefined),
                            )?;
                        }
                        io
                    }
                };
                self.io.inputs.insert(register, io);
            }
            RegisterKind::Output => {
                let register = self.immediate_index(&operand, 0)?;
                if self.io.outputs.contains_key(&register) {
                    return Ok(());
                }
                let io = match system_value {
                    Some(SystemValue::Position) => self.builtin_variable(
                        StorageClass::Output,
                        BuiltIn::Position,
                        Scalar::F32,
                        4,
                    ),
                    Some(sv) if *sv != SystemValue::Undefined => {
                        return Err(self.unsupported(format!(
                            "output system value {} is not translated yet",
                            sv.name()
                        )))
                    }
                    _ => {
                        let scalar = signature_scalar(self.reflection.output.as_ref(), register)
                            .unwrap_or(Scalar::F32);
                        let io = self.io_variable(
                            StorageClass::Output,
                            scalar,
                            4,
                            format!("o{register}"),
                        );
                        self.decorate(io.var, Decoration::Location, &[register]);
                        io
                    }
                };
                self.io.outputs.insert(register, io);
            }
            kind => {
                let io = match kind {
                    RegisterKind::InputThreadId => self.builtin_variable(
                        StorageClass::Input,
                        BuiltIn::GlobalInvocationId,
                        Scalar::U32,
                        3,
                    ),
                    RegisterKind::InputThreadGroupId => self.builtin_variable(
                        StorageClass::Input,
                        BuiltIn::WorkgroupId,
                        Scalar::U32,
                        3,
                    ),
                    RegisterKind::InputThreadIdInGroup => self.builtin_variable(
                        StorageClass::Input,
                        BuiltIn::LocalInvocationId,
                        Scalar::U32,
                        3,
                    ),
                    RegisterKind::InputThreadIdInGroupFlattened => self.builtin_variable(
                        StorageClass::Input,
                        BuiltIn::LocalInvocationIndex,
                        Scalar::U32,
                        1,
                    ),
                    other => {
                        return Err(self.unsupported(format!(
                            "the {} register is not translated yet",
                            other.name()
                        )))
                    }
                };
                self.io.special.insert(kind as u8, io);
            }
        }
        Ok(())
    }

    fn interpolation(&mut self, var: Word, scalar: Scalar, mode: Interpolation) -> Result<()> {
        let flat = scalar != Scalar::F32 || mode == Interpolation::Constant;
        if flat {
            self.decorate(var, Decoration::Flat, &[]);
            return Ok(());
        }
        let (noperspective, centroid, sample) = match mode {
            Interpolation::LinearCentroid => (false, true, false),
            Interpolation::LinearNoPerspective => (true, false, false),
            Interpolation::LinearNoPerspectiveCentroid => (true, true, false),
            Interpolation::LinearSample => (false, false, true),
            Interpolation::LinearNoPerspectiveSample => (true, false, true),
            _ => (false, false, false),
        };
        if noperspective {
            self.decorate(var, Decoration::NoPerspective, &[]);
        }
        if centroid {
            self.decorate(var, Decoration::Centroid, &[]);
        }
        if sample {
            self.m.capability(spirv::Capability::SampleRateShading);
            self.decorate(var, Decoration::Sample, &[]);
        }
        Ok(())
    }

    /// Code at the start of the entry function (nothing yet).
    pub fn io_prologue(&mut self) -> Result<()> {
        Ok(())
    }

    /// Code before every return of the entry function (nothing yet).
    pub fn function_exit(&mut self) -> Result<()> {
        Ok(())
    }

    /// I/O-specific instructions (none yet).
    pub fn io_instruction(&mut self, _instruction: &Instruction) -> Result<bool> {
        Ok(false)
    }

    fn io_of(&self, operand: &Operand) -> Result<IoVar> {
        let found = match operand.kind {
            RegisterKind::Input => {
                let register =
                    self.immediate_index(operand, operand.index_count.saturating_sub(1) as usize)?;
                self.io.inputs.get(&register).copied()
            }
            RegisterKind::Output => {
                let register = self.immediate_index(operand, 0)?;
                self.io.outputs.get(&register).copied()
            }
            kind => self.io.special.get(&(kind as u8)).copied(),
        };
        found.ok_or_else(|| self.err(format!("{} is used but not declared", operand.kind.name())))
    }

    /// Reads one component of an input or system-value register.
    pub fn load_io_component(&mut self, operand: &Operand, component: u8) -> Result<Val> {
        let io = self.io_of(operand)?;
        let ty = self.m.vector(io.scalar, io.count);
        let whole = built(self.m.b.load(ty, None, io.var, None, []))?;
        let value = Val {
            id: whole,
            scalar: io.scalar,
            count: io.count,
        };
        let component = (component as u32).min(io.count - 1);
        self.extract(value, component)
    }

    /// Writes one component of an output register.
    pub fn store_io_component(
        &mut self,
        operand: &Operand,
        component: u8,
        value: Val,
    ) -> Result<()> {
        let io = self.io_of(operand)?;
        if io.class != StorageClass::Output {
            return Err(self.err(format!("{} cannot be written", operand.kind.name())));
        }
        let value = self.cast(value, io.scalar)?;
        if io.count == 1 {
            return built(self.m.b.store(io.var, value.id, None, []));
        }
        let element = self.m.scalar(io.scalar);
        let pointer = self.m.pointer(StorageClass::Output, element);
        let index = self.m.constant_u32(component as u32 & 3);
        let slot = built(self.m.b.access_chain(pointer, None, io.var, [index]))?;
        built(self.m.b.store(slot, value.id, None, []))
    }
}
