//! Tessellation: a hull shader's patch constants and tessellation factors, a domain
//! shader's patch-constant inputs, and the tessellator declarations as execution modes (the
//! hull shader's entry point is in [`super::hull`]).
//!
//! The fork and join phases of a hull shader write their patch constants `o#`
//! into a Private array (so that relative addressing and the join phases' `vpc#` reads
//! work), which is copied at the end into the `Patch` outputs and the tessellation levels:
//!
//! | D3D | Vulkan |
//! |---|---|
//! | quad edges u=0, v=0, u=1, v=1 | `TessLevelOuter[0..4]` |
//! | quad inside u, v | `TessLevelInner[0..2]` |
//! | triangle edges u=0, v=0, w=0 | `TessLevelOuter[0..3]` |
//! | triangle inside | `TessLevelInner[0]` |
//! | isoline density, detail | `TessLevelOuter[0]`, `TessLevelOuter[1]` |
//!
//! Factors are clamped to `dcl_hs_max_tessfactor` and to 64, D3D's largest; a NaN stays NaN
//! (it culls the patch in both APIs).
//!
//! Per-vertex and per-patch variables share one location space, so patch constant `n` is
//! `Patch` at `Location base + n`, where `base` is one past the last control-point register
//! (see `patch_location_base`): hull and domain shaders both derive it from the
//! control-point signature, so they link when their control-point signatures agree.

use spirv::{BuiltIn, Decoration, ExecutionMode, StorageClass, Word};

use super::emitter::{Emitter, Val};
use super::io::Slot;
use super::module::{built, Scalar};
use crate::analysis::hull_phases::PhaseKind;
use crate::container::ComponentType;
use crate::error::Result;
use crate::interface::InterfaceFile;
use crate::ir::{
    Declaration, Operand, RegisterKind, Stage, SystemValue, TessDomain, TessOutputPrimitive,
    TessPartitioning,
};

/// D3D's largest tessellation factor.
const MAX_TESS_FACTOR: f32 = 64.0;

/// The tessellation level a tessellation-factor system value maps to: (inner, index).
pub fn tess_level(sv: SystemValue) -> Option<(bool, u32)> {
    use SystemValue as S;
    Some(match sv {
        S::QuadUEq0EdgeTessFactor | S::TriUEq0EdgeTessFactor | S::LineDensityTessFactor => {
            (false, 0)
        }
        S::QuadVEq0EdgeTessFactor | S::TriVEq0EdgeTessFactor | S::LineDetailTessFactor => {
            (false, 1)
        }
        S::QuadUEq1EdgeTessFactor | S::TriWEq0EdgeTessFactor => (false, 2),
        S::QuadVEq1EdgeTessFactor => (false, 3),
        S::QuadUInsideTessFactor | S::TriInsideTessFactor => (true, 0),
        S::QuadVInsideTessFactor => (true, 1),
        _ => return None,
    })
}

impl Emitter<'_> {
    /// Handles the tessellator, hull-shader and geometry-shader declarations; false for any
    /// other declaration.
    pub fn stage_declaration(&mut self, declaration: &Declaration) -> Result<bool> {
        if self.geometry_declaration(declaration)? {
            return Ok(true);
        }
        let hull = self.program.model.stage == Stage::Hull;
        match declaration {
            Declaration::TessDomain(domain) => {
                let mode = match domain {
                    TessDomain::Isoline => ExecutionMode::Isolines,
                    TessDomain::Triangle => ExecutionMode::Triangles,
                    TessDomain::Quad => ExecutionMode::Quads,
                    TessDomain::Undefined => {
                        return Err(self.err("an undefined tessellator domain"))
                    }
                };
                self.add_mode(mode);
            }
            Declaration::TessPartitioning(partitioning) if hull => {
                let mode = match partitioning {
                    TessPartitioning::Integer | TessPartitioning::Pow2 => {
                        ExecutionMode::SpacingEqual
                    }
                    TessPartitioning::FractionalOdd => ExecutionMode::SpacingFractionalOdd,
                    TessPartitioning::FractionalEven => ExecutionMode::SpacingFractionalEven,
                    TessPartitioning::Undefined => {
                        return Err(self.err("an undefined tessellator partitioning"))
                    }
                };
                self.add_mode(mode);
            }
            Declaration::TessOutputPrimitive(primitive) if hull => match primitive {
                TessOutputPrimitive::Point => self.add_mode(ExecutionMode::PointMode),
                TessOutputPrimitive::TriangleCw => self.add_mode(ExecutionMode::VertexOrderCw),
                TessOutputPrimitive::TriangleCcw => self.add_mode(ExecutionMode::VertexOrderCcw),
                TessOutputPrimitive::Line => {}
                TessOutputPrimitive::Undefined => {
                    return Err(self.err("an undefined tessellator output primitive"))
                }
            },
            Declaration::OutputControlPointCount(count) if hull => {
                self.push_mode(ExecutionMode::OutputVertices, &[(*count).max(1)]);
            }
            Declaration::TessPartitioning(_)
            | Declaration::TessOutputPrimitive(_)
            | Declaration::OutputControlPointCount(_)
            | Declaration::InputControlPointCount(_)
            | Declaration::HsMaxTessFactor(_)
            | Declaration::HsForkPhaseInstanceCount(_)
            | Declaration::HsJoinPhaseInstanceCount(_) => {}
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Checks and completes the execution modes of the new stages before the entry point.
    pub fn stage_finish(&mut self) -> Result<()> {
        self.geometry_finish()?;
        let stage = self.program.model.stage;
        if matches!(stage, Stage::Hull | Stage::Domain)
            && !self.modes.iter().any(|(m, _)| {
                matches!(
                    m,
                    ExecutionMode::Triangles | ExecutionMode::Quads | ExecutionMode::Isolines
                )
            })
        {
            return Err(self.err("a hull or domain shader needs dcl_tessellator_domain"));
        }
        if stage == Stage::Hull
            && !self
                .modes
                .iter()
                .any(|(m, _)| *m == ExecutionMode::OutputVertices)
        {
            self.push_mode(ExecutionMode::OutputVertices, &[1]);
        }
        Ok(())
    }

    /// The Private array of patch constants (created on first use).
    fn patch_array(&mut self) -> (Word, u32) {
        if let Some(found) = self.io.stage.patch_array {
            return found;
        }
        let length = self
            .io
            .stage
            .hull
            .as_ref()
            .map(|h| h.patch_register_count())
            .unwrap_or(0)
            .max(1);
        let element = self.m.vector(Scalar::U32, 4);
        let ty = self.m.array(element, length);
        let var = self.global(ty, StorageClass::Private, Some("patch_constants".into()));
        self.io.stage.patch_array = Some((var, length));
        (var, length)
    }

    /// For a patch constant operand of a hull shader (`o#` in fork and join phases, `vpc#`):
    /// a pointer to the component (index clamped into range) and, for a relative index,
    /// whether it was in range.
    fn patch_element(
        &mut self,
        operand: &Operand,
        component: u8,
    ) -> Result<Option<(Word, Option<Word>)>> {
        let phase = self.hull_phase();
        let patch = match operand.kind {
            RegisterKind::Output => matches!(phase, Some(PhaseKind::Fork | PhaseKind::Join)),
            RegisterKind::InputPatchConstant => phase.is_some(),
            _ => false,
        };
        if !patch {
            return Ok(None);
        }
        let index = operand
            .indices()
            .first()
            .copied()
            .ok_or_else(|| self.err(format!("{} needs an index", operand.kind.name())))?;
        let (array, length) = self.patch_array();
        let uint = self.m.scalar(Scalar::U32);
        let pointer = self.m.pointer(StorageClass::Private, uint);
        let c = self.m.constant_u32(component as u32 & 3);
        if let Some(register) = index.as_imm32().filter(|&r| r < length) {
            let r = self.m.constant_u32(register);
            let element = built(self.m.access_chain(pointer, array, &[r, c]))?;
            return Ok(Some((element, None)));
        }
        let index = self.index_value(index)?;
        let boolean = self.m.scalar(Scalar::Bool);
        let size = self.m.constant_u32(length);
        let in_range = built(self.m.b.u_less_than(boolean, None, index, size))?;
        let zero = self.m.constant_u32(0);
        let clamped = built(self.m.select(uint, None, in_range, index, zero))?;
        let element = built(self.m.access_chain(pointer, array, &[clamped, c]))?;
        Ok(Some((element, Some(in_range))))
    }

    /// Reads a hull shader's patch constant; `None` for other operands.
    pub fn patch_load(&mut self, operand: &Operand, component: u8) -> Result<Option<Val>> {
        let Some((element, in_range)) = self.patch_element(operand, component)? else {
            return Ok(None);
        };
        let uint = self.m.scalar(Scalar::U32);
        let value = built(self.m.load(uint, element))?;
        let id = match in_range {
            Some(in_range) => {
                let zero = self.m.constant_u32(0);
                built(self.m.select(uint, None, in_range, value, zero))?
            }
            None => value,
        };
        Ok(Some(Val {
            id,
            scalar: Scalar::U32,
            count: 1,
        }))
    }

    /// Writes a hull shader's patch constant; false for other operands.
    pub fn patch_store(&mut self, operand: &Operand, component: u8, value: Val) -> Result<bool> {
        if operand.kind == RegisterKind::InputPatchConstant && self.hull_phase().is_some() {
            return Err(self.err("vpc cannot be written"));
        }
        let Some((element, in_range)) = self.patch_element(operand, component)? else {
            return Ok(false);
        };
        let bits = self.cast(value, Scalar::U32)?;
        match in_range {
            Some(in_range) => self.guarded(in_range, |e| built(e.m.store(element, bits.id)))?,
            None => built(self.m.store(element, bits.id))?,
        }
        Ok(true)
    }

    /// A tessellation-level built-in (`float[4]` outer, `float[2]` inner) with `Patch`.
    fn tess_level_var(&mut self, class: StorageClass, inner: bool) -> Word {
        let builtin = if inner {
            BuiltIn::TessLevelInner
        } else {
            BuiltIn::TessLevelOuter
        };
        let key = (class as u32, builtin as u32);
        if let Some(&var) = self.io.stage.tess_levels.get(&key) {
            return var;
        }
        let length = if inner { 2 } else { 4 };
        let var = self.io_global(
            class,
            Scalar::F32,
            1,
            Some(length),
            format_args!("{builtin:?}"),
        );
        self.decorate(var, Decoration::BuiltIn, &[builtin as u32]);
        self.decorate(var, Decoration::Patch, &[]);
        self.io.stage.tess_levels.insert(key, var);
        var
    }

    /// The scalar type of a patch-constant signature element.
    fn patch_scalar(&self, register: u32) -> Scalar {
        self.reflection
            .patch_constant
            .as_ref()
            .and_then(|s| s.elements.iter().find(|e| e.register == register))
            .map(|e| match e.component_type {
                ComponentType::Uint32 => Scalar::U32,
                ComponentType::Sint32 => Scalar::I32,
                _ => Scalar::F32,
            })
            .unwrap_or(Scalar::F32)
    }

    /// The `Patch` vec4 variable of patch constant `register` (Input in a domain shader,
    /// Output in a hull shader).
    fn patch_vector(&mut self, class: StorageClass, register: u32) -> (Word, Scalar) {
        let key = (RegisterKind::InputPatchConstant as u8, register);
        let scalar = self.patch_scalar(register);
        if let Some(slot) = self.io.slots.get(&(key.0, key.1, 0)).copied() {
            if slot.class == class && slot.count == 4 {
                return (slot.var, slot.scalar);
            }
        }
        let var = self.io_global(class, scalar, 4, None, format_args!("vpc{register}"));
        let location = self.patch_location_base().saturating_add(register);
        self.decorate(var, Decoration::Location, &[location]);
        self.decorate(var, Decoration::Patch, &[]);
        (var, scalar)
    }

    /// The location of patch constant 0 ([`crate::interface::patch_constant_base`], moved
    /// past the control points a map places elsewhere).
    fn patch_location_base(&self) -> u32 {
        let from_registers = crate::interface::patch_constant_base(
            self.program,
            self.reflection,
            self.io.stage.hull.as_ref(),
        );
        self.patch_location_base_with_map(from_registers)
    }

    /// Declares a domain shader's `vpc#` components.
    pub fn declare_patch_input(&mut self, register: u32, mask: u8, sv: SystemValue) -> Result<()> {
        let kind = RegisterKind::InputPatchConstant;
        let mask = if mask == 0 { 0xf } else { mask };
        let input = StorageClass::Input;
        if sv == SystemValue::Undefined && self.is_placed(InterfaceFile::PatchConstants) {
            self.placed_vector(InterfaceFile::PatchConstants, kind, register, mask, input)?;
            return Ok(());
        }
        if sv == SystemValue::Undefined {
            let (var, scalar) = self.patch_vector(input, register);
            for component in 0..4u8 {
                let slot = Slot {
                    var,
                    class: input,
                    scalar,
                    count: 4,
                    index: Some(component as u32),
                };
                let key = (kind as u8, register, component);
                if mask & (1 << component) != 0 {
                    self.io.slots.insert(key, slot);
                } else {
                    self.io.slots.entry(key).or_insert(slot);
                }
            }
            return Ok(());
        }
        let Some((inner, index)) = tess_level(sv) else {
            return Err(self.patch_system_value_error(sv));
        };
        let var = self.tess_level_var(input, inner);
        for component in Self::components_of(mask) {
            let slot = Slot {
                var,
                class: input,
                scalar: Scalar::F32,
                count: 1,
                index: Some(index),
            };
            self.set_slot(kind, register, component, slot);
        }
        Ok(())
    }

    /// Copies the patch constants into the `Patch` outputs and the tessellation levels.
    pub(super) fn write_patch_constants(&mut self) -> Result<()> {
        let Some(hull) = self.io.stage.hull.clone() else {
            return Ok(());
        };
        let (array, _) = self.patch_array();
        let uint = self.m.scalar(Scalar::U32);
        let float = self.m.scalar(Scalar::F32);
        let boolean = self.m.scalar(Scalar::Bool);
        let limit = hull
            .max_tess_factor
            .filter(|f| !f.is_nan())
            .map(|f| f.min(MAX_TESS_FACTOR))
            .unwrap_or(MAX_TESS_FACTOR);
        let limit = self.m.constant_bits(Scalar::F32, limit.to_bits());
        let output = StorageClass::Output;
        for (&(register, component), constant) in &hull.patch_constants {
            let private = self.m.pointer(StorageClass::Private, uint);
            let r = self.m.constant_u32(register);
            let c = self.m.constant_u32(component as u32);
            let element = built(self.m.access_chain(private, array, &[r, c]))?;
            let bits = built(self.m.load(uint, element))?;
            let bits = Val {
                id: bits,
                scalar: Scalar::U32,
                count: 1,
            };
            match tess_level(constant.system_value) {
                Some((inner, index)) => {
                    let value = self.cast(bits, Scalar::F32)?;
                    // Larger than the limit: the limit; NaN compares false and stays NaN.
                    let above = built(self.m.b.f_ord_greater_than(boolean, None, value.id, limit))?;
                    let clamped = built(self.m.select(float, None, above, limit, value.id))?;
                    let var = self.tess_level_var(output, inner);
                    let pointer = self.m.pointer(output, float);
                    let i = self.m.constant_u32(index);
                    let target = built(self.m.access_chain(pointer, var, &[i]))?;
                    built(self.m.store(target, clamped))?;
                }
                None if constant.system_value == SystemValue::Undefined
                    && self.is_placed(InterfaceFile::PatchConstants) =>
                {
                    let placed = self.placed_component(
                        InterfaceFile::PatchConstants,
                        register,
                        component,
                        output,
                        None,
                    )?;
                    let value = self.cast(bits, placed.scalar)?;
                    let target = match placed.index {
                        Some(index) => {
                            let element = self.m.scalar(placed.scalar);
                            let pointer = self.m.pointer(output, element);
                            let i = self.m.constant_u32(index);
                            built(self.m.access_chain(pointer, placed.var, &[i]))?
                        }
                        None => placed.var,
                    };
                    built(self.m.store(target, value.id))?;
                }
                None if constant.system_value == SystemValue::Undefined => {
                    let (var, scalar) = self.patch_vector(output, register);
                    self.note_patch_output(register, var, scalar);
                    let value = self.cast(bits, scalar)?;
                    let element = self.m.scalar(scalar);
                    let pointer = self.m.pointer(output, element);
                    let target = built(self.m.access_chain(pointer, var, &[c]))?;
                    built(self.m.store(target, value.id))?;
                }
                None => return Err(self.patch_system_value_error(constant.system_value)),
            }
        }
        Ok(())
    }

    /// The error for a patch constant declared with a system value other than a
    /// tessellation factor: the patch-constant signature holds the tessellation factors and
    /// the shader's own values (D3D11 functional specification, hull shader patch constant
    /// data; d3d11TokenizedProgramFormat.hpp names only the tessellation factors for it).
    fn patch_system_value_error(&self, sv: SystemValue) -> crate::error::Error {
        self.err(format!(
            "{} is not a patch constant system value (patch constants are tessellation \
             factors or the shader's own values)",
            sv.name()
        ))
    }

    /// Remembers a hull shader's `Patch` output variable so that it is declared once.
    fn note_patch_output(&mut self, register: u32, var: Word, scalar: Scalar) {
        for component in 0..4u8 {
            let slot = Slot {
                var,
                class: StorageClass::Output,
                scalar,
                count: 4,
                index: Some(component as u32),
            };
            self.io.slots.insert(
                (RegisterKind::InputPatchConstant as u8, register, component),
                slot,
            );
        }
    }
}
