//! System values of the geometry and tessellation stages: the registers `vPrim`,
//! `vGSInstanceID`, `vOutputControlPointID`, `vForkInstanceID`/`vJoinInstanceID` and
//! `vDomain`, and the per-vertex built-ins (position, clip and cull distances) that hull and
//! geometry shaders read from the previous stage.

use spirv::{BuiltIn, Capability, Decoration, StorageClass, Word};

use super::emitter::Emitter;
use super::io::Slot;
use super::module::Scalar;
use super::operands::mask_components;
use super::stage_io::ArrayedSlot;
use crate::error::Result;
use crate::ir::{RegisterKind, Stage, SystemValue};

impl Emitter<'_> {
    /// Declares the registers of `vPrim`, `vGSInstanceID`, `vOutputControlPointID`,
    /// `vForkInstanceID`, `vJoinInstanceID` and `vDomain`.
    pub(super) fn declare_stage_special(&mut self, kind: RegisterKind) -> Result<()> {
        let input = StorageClass::Input;
        let stage = self.program.model.stage;
        let valid = match kind {
            RegisterKind::InputPrimitiveId => {
                matches!(stage, Stage::Geometry | Stage::Hull | Stage::Domain)
            }
            RegisterKind::InputGsInstanceId => stage == Stage::Geometry,
            RegisterKind::OutputControlPointId
            | RegisterKind::InputForkInstanceId
            | RegisterKind::InputJoinInstanceId => stage == Stage::Hull,
            RegisterKind::InputDomainPoint => stage == Stage::Domain,
            _ => false,
        };
        if !valid {
            return Err(self.register_stage_error(kind));
        }
        match kind {
            RegisterKind::InputPrimitiveId => {
                let var = self.builtin(input, BuiltIn::PrimitiveId, Scalar::U32, 1, None);
                self.set_scalar_slot(kind, 0, 0, var, input, Scalar::U32);
            }
            RegisterKind::InputGsInstanceId | RegisterKind::OutputControlPointId => {
                let var = self.builtin(input, BuiltIn::InvocationId, Scalar::U32, 1, None);
                self.set_scalar_slot(kind, 0, 0, var, input, Scalar::U32);
            }
            RegisterKind::InputForkInstanceId | RegisterKind::InputJoinInstanceId => {
                let var = self.phase_instance();
                self.set_scalar_slot(kind, 0, 0, var, StorageClass::Private, Scalar::U32);
            }
            RegisterKind::InputDomainPoint => {
                let var = self.builtin(input, BuiltIn::TessCoord, Scalar::F32, 3, None);
                for component in 0..3u8 {
                    let slot = Slot {
                        var,
                        class: input,
                        scalar: Scalar::F32,
                        count: 3,
                        index: Some(component as u32),
                    };
                    self.set_slot(kind, 0, component, slot);
                }
            }
            other => return Err(self.register_stage_error(other)),
        }
        Ok(())
    }

    /// The Private variable holding the fork or join phase's instance id.
    pub fn phase_instance(&mut self) -> Word {
        if let Some(var) = self.io.stage.phase_instance {
            return var;
        }
        let uint = self.m.scalar(Scalar::U32);
        let name = self.debug_name(format_args!("phase_instance_id"));
        let var = self.global(uint, StorageClass::Private, name);
        self.io.stage.phase_instance = Some(var);
        var
    }

    /// The built-in system value (position, clip or cull distance) the input signature has
    /// at `register` in the components of `mask`, or `Undefined`.
    pub(super) fn input_system_value(&self, register: u32, mask: u8) -> SystemValue {
        use crate::container::SystemValue as Sig;
        let found = self.reflection.input.as_ref().and_then(|s| {
            s.elements
                .iter()
                .filter(|e| e.register == register && e.mask & mask != 0)
                .find_map(|e| match e.system_value {
                    Sig::Position => Some(SystemValue::Position),
                    Sig::ClipDistance => Some(SystemValue::ClipDistance),
                    Sig::CullDistance => Some(SystemValue::CullDistance),
                    _ => None,
                })
        });
        found.unwrap_or(SystemValue::Undefined)
    }

    /// The (register, component) pairs of the per-vertex clip or cull distance inputs: in
    /// signature order, then any declared but missing from the signature.
    fn arrayed_distance_layout(&self, sv: SystemValue) -> Vec<(u32, u8)> {
        self.distances_of(self.reflection.input.as_ref(), sv, |operand| {
            (operand.index_count == 2)
                .then(|| operand.indices().last().and_then(|i| i.as_imm32()))
                .flatten()
        })
    }

    /// Declares per-vertex clip or cull distance inputs: the `ClipDistance`/`CullDistance`
    /// built-in, an array over vertices of arrays of distances.
    pub(super) fn declare_arrayed_distances(
        &mut self,
        register: u32,
        length: u32,
        mask: u8,
        sv: SystemValue,
    ) -> Result<()> {
        let layout = self.arrayed_distance_layout(sv);
        let count = layout.len() as u32;
        // More than Direct3D's 8 is the validation's warning; the device's limits decide.
        if count == 0 {
            return Err(self.err("a clip or cull distance declaration without components"));
        }
        let (builtin, capability) = if sv == SystemValue::ClipDistance {
            (BuiltIn::ClipDistance, Capability::ClipDistance)
        } else {
            (BuiltIn::CullDistance, Capability::CullDistance)
        };
        self.m.capability(capability);
        let class = StorageClass::Input;
        let key = (class as u32, builtin as u32);
        let var = match self.io.stage.arrayed_builtins.get(&key) {
            Some(&var) => var,
            None => {
                let float = self.m.scalar(Scalar::F32);
                let distances = self.m.array(float, count);
                let ty = self.m.array(distances, length);
                let name = self.debug_name(format_args!("{builtin:?}"));
                let var = self.global(ty, class, name);
                self.decorate(var, Decoration::BuiltIn, &[builtin as u32]);
                self.io.stage.arrayed_builtins.insert(key, var);
                var
            }
        };
        for component in mask_components(mask) {
            let Some(position) = layout.iter().position(|&p| p == (register, component)) else {
                continue;
            };
            let slot = ArrayedSlot {
                var,
                class,
                scalar: Scalar::F32,
                count: 1,
                index: Some(position as u32),
            };
            self.io
                .stage
                .arrayed
                .insert((RegisterKind::Input as u8, register, component), slot);
        }
        Ok(())
    }
}
