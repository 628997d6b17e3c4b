//! I/O of the geometry and tessellation stages: the declarations that belong to them and
//! per-vertex arrays (`v[vertex][reg]` of geometry and hull shaders, `vicp`, `vocp`, the
//! control-point outputs of a hull shader's control-point phase). Their system values are
//! in [`super::stage_builtins`], patch constants in [`super::tessellation`].
//!
//! Locations follow the scheme of the other stages: register `n` of a per-vertex array is at
//! `Location n`, so a vertex shader's `o3` feeds a hull, domain or geometry shader's `v[][3]`
//! (or `vicp[][3]`) and a hull shader's control point `o3` feeds a domain shader's
//! `vicp[][3]`. A register index given by a register (`v[0][r0.x]`, under `dcl_indexrange`)
//! selects among the declared registers; an unknown register reads 0 and writes nothing.

use crate::fast_hash::HashMap;
use spirv::{BuiltIn, Capability, Decoration, StorageClass, Word};

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::operands::mask_components;
use crate::analysis::hull_phases::{hull_phases, HullPhases, PhaseKind};
use crate::container::ComponentType;
use crate::error::Result;
use crate::ir::{Declaration, Index, Operand, RegisterKind, Stage, SystemValue};

/// One component of a per-vertex array: `var[vertex][index]` (or `var[vertex]` for arrays
/// of scalars).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayedSlot {
    /// The array variable.
    pub var: Word,
    /// Input or Output.
    pub class: StorageClass,
    /// The component type.
    pub scalar: Scalar,
    /// The components of an element when it is a vector (1 for scalars and arrays).
    pub count: u32,
    /// The component inside the element vector, `None` when elements are scalars.
    pub index: Option<u32>,
}

/// Which vertex of a per-vertex array an operand addresses.
#[derive(Debug, Clone, Copy)]
enum Vertex {
    /// An index of the operand.
    Index(Index),
    /// The invocation's own control point (`o#` of the control-point phase).
    Invocation,
}

/// State of the geometry and tessellation I/O.
#[derive(Debug, Default)]
pub struct StageState {
    /// The phases of a hull shader.
    pub hull: Option<HullPhases>,
    /// The kind of phase whose calls the hull shader's subroutines being emitted serve
    /// (`o#` is a control point in the control-point phase, a patch constant otherwise).
    pub subroutine_phase: Option<PhaseKind>,
    /// Per-vertex components by (register kind code, register, component); the kind is
    /// `Input` for `v[][]`/`vicp` and `Output` for control-point outputs and `vocp`.
    pub(super) arrayed: HashMap<(u8, u32, u8), ArrayedSlot>,
    /// Per-vertex vec4 location arrays by (kind code, register).
    arrayed_vectors: HashMap<(u8, u32), (Word, Scalar)>,
    /// Per-vertex built-in arrays by (storage class, built-in).
    pub(super) arrayed_builtins: HashMap<(u32, u32), Word>,
    /// The Private `uint` holding `vForkInstanceID`/`vJoinInstanceID`.
    pub phase_instance: Option<Word>,
    /// The Private `uvec4` array of a hull shader's patch constants and its length.
    pub patch_array: Option<(Word, u32)>,
    /// The stream of the geometry shader's outputs being declared (`dcl_stream`).
    pub stream: u32,
    /// Whether the geometry shader declares a stream other than 0.
    pub multi_stream: bool,
    /// The output registers of the geometry shader's streams other than the rasterized one
    /// (0 unless stream output says otherwise), as (stream, register, mask): they have no
    /// Output variable (see [`super::geometry`]).
    pub stream_outputs: Vec<(u32, u32, u8)>,
    /// Tessellation-level built-ins (class, built-in) of a domain shader's inputs.
    pub tess_levels: HashMap<(u32, u32), Word>,
    /// The stream-output lowering (see [`super::stream_output`]).
    pub xfb: super::stream_output::StreamOutputState,
}

/// The scalar type of a signature element at `register`.
fn element_scalar(signature: Option<&crate::container::Signature>, register: u32) -> Scalar {
    signature
        .and_then(|s| s.elements.iter().find(|e| e.register == register))
        .map(|e| match e.component_type {
            ComponentType::Uint32 => Scalar::U32,
            ComponentType::Sint32 => Scalar::I32,
            _ => Scalar::F32,
        })
        .unwrap_or(Scalar::F32)
}

impl Emitter<'_> {
    /// Stage set-up before any declaration: capabilities and the hull-shader phases.
    pub fn stage_setup(&mut self) {
        match self.program.model.stage {
            Stage::Geometry => self.m.capability(Capability::Geometry),
            Stage::Hull | Stage::Domain => self.m.capability(Capability::Tessellation),
            _ => {}
        }
        self.io.stage.hull = hull_phases(self.program);
        self.note_relative_io();
    }

    /// The hull-shader phase of the instruction being translated.
    pub fn hull_phase(&self) -> Option<PhaseKind> {
        let hull = self.io.stage.hull.as_ref()?;
        let index = self.at.0 as usize;
        if index >= hull.subroutines {
            // A subroutine: the phase that calls it.
            return self
                .io
                .stage
                .subroutine_phase
                .or(Some(PhaseKind::Declarations));
        }
        Some(hull.phase_at(index))
    }

    /// Handles the I/O declarations that belong to the geometry and tessellation stages;
    /// returns false for those the vertex/pixel lowering handles.
    pub fn stage_declare_io(&mut self, declaration: &Declaration) -> Result<bool> {
        let stage = self.program.model.stage;
        if !matches!(stage, Stage::Geometry | Stage::Hull | Stage::Domain) {
            return Ok(false);
        }
        let (operand, system_value) = match declaration {
            Declaration::Signature {
                operand,
                system_value,
                ..
            } => (*self.operand(*operand), *system_value),
            Declaration::IndexRange { operand, .. } => {
                let operand = *self.operand(*operand);
                // Per-vertex arrays and patch constants take register indices themselves.
                return Ok(stage == Stage::Hull
                    || operand.index_count == 2
                    || matches!(
                        operand.kind,
                        RegisterKind::InputControlPoint | RegisterKind::OutputControlPoint
                    ));
            }
            _ => return Ok(false),
        };
        let sv = system_value.unwrap_or(SystemValue::Undefined);
        let phase = self.hull_phase();
        match operand.kind {
            RegisterKind::Input | RegisterKind::InputControlPoint if operand.index_count == 2 => {
                let (length, register) = self.two_indices(&operand)?;
                let length = match &self.io.stage.hull {
                    Some(h) if h.input_control_points > 0 => h.input_control_points,
                    _ => length,
                };
                self.declare_arrayed(RegisterKind::Input, register, length, operand.mask(), sv)?;
            }
            RegisterKind::OutputControlPoint if operand.index_count == 2 => {
                let (length, register) = self.two_indices(&operand)?;
                let length = self.output_control_points().unwrap_or(length);
                self.declare_arrayed(RegisterKind::Output, register, length, operand.mask(), sv)?;
            }
            RegisterKind::Output if stage == Stage::Hull => match phase {
                Some(PhaseKind::ControlPoint) => {
                    let register = self.immediate_index(&operand, 0)?;
                    let length = self.output_control_points().unwrap_or(1);
                    self.declare_arrayed(
                        RegisterKind::Output,
                        register,
                        length,
                        operand.mask(),
                        sv,
                    )?;
                }
                Some(PhaseKind::Fork | PhaseKind::Join) => {}
                _ => return Err(self.err("an output declared outside the hull-shader phases")),
            },
            RegisterKind::InputPatchConstant if stage == Stage::Hull => {}
            RegisterKind::InputPatchConstant => {
                let register = self.immediate_index(&operand, 0)?;
                self.declare_patch_input(register, operand.mask(), sv)?;
            }
            RegisterKind::Output if stage == Stage::Geometry => {
                let stream = self.io.stage.stream;
                if stream == self.rasterized_stream() {
                    return Ok(false);
                }
                let register = self.immediate_index(&operand, 0)?;
                self.io
                    .stage
                    .stream_outputs
                    .push((stream, register, operand.mask()));
            }
            RegisterKind::InputPrimitiveId
            | RegisterKind::InputGsInstanceId
            | RegisterKind::OutputControlPointId
            | RegisterKind::InputForkInstanceId
            | RegisterKind::InputJoinInstanceId
            | RegisterKind::InputDomainPoint => self.declare_stage_special(operand.kind)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn two_indices(&self, operand: &Operand) -> Result<(u32, u32)> {
        Ok((
            self.immediate_index(operand, 0)?.max(1),
            self.immediate_index(operand, 1)?,
        ))
    }

    fn output_control_points(&self) -> Option<u32> {
        self.io
            .stage
            .hull
            .as_ref()
            .map(|h| h.output_control_points.max(1))
    }

    /// Declares components of a per-vertex register: a vec4 array at `Location register`, or
    /// the `Position` built-in array.
    pub fn declare_arrayed(
        &mut self,
        kind: RegisterKind,
        register: u32,
        length: u32,
        mask: u8,
        sv: SystemValue,
    ) -> Result<()> {
        self.check_io_register_index(kind, register)?;
        let class = if kind == RegisterKind::Input {
            StorageClass::Input
        } else {
            StorageClass::Output
        };
        let mask = if mask == 0 { 0xf } else { mask };
        // Position and clip and cull distances come from the built-ins of the previous stage
        // into hull and geometry shaders (whether or not the declaration names them, the
        // signature does); control points pass from hull to domain shader by location.
        let stage = self.program.model.stage;
        let sv = match (kind, stage) {
            (RegisterKind::Input, Stage::Hull | Stage::Geometry) => {
                match self.input_system_value(register, mask) {
                    SystemValue::Undefined => sv,
                    from_signature => from_signature,
                }
            }
            _ => SystemValue::Undefined,
        };
        if matches!(sv, SystemValue::ClipDistance | SystemValue::CullDistance) {
            return self.declare_arrayed_distances(register, length, mask, sv);
        }
        let file = if kind == RegisterKind::Input {
            crate::interface::InterfaceFile::Inputs
        } else {
            crate::interface::InterfaceFile::Outputs
        };
        if sv == SystemValue::Undefined && self.is_placed(file) {
            return self.placed_arrayed(kind, register, length, mask);
        }
        let (var, scalar) = match sv {
            SystemValue::Undefined => {
                match self.io.stage.arrayed_vectors.get(&(kind as u8, register)) {
                    Some(&found) => found,
                    None => {
                        let signature = if kind == RegisterKind::Input {
                            self.reflection.input.as_ref()
                        } else {
                            self.reflection.output.as_ref()
                        };
                        let scalar = element_scalar(signature, register);
                        let prefix = if kind == RegisterKind::Input {
                            "v"
                        } else {
                            "o"
                        };
                        let var = self.io_global(
                            class,
                            scalar,
                            4,
                            Some(length),
                            format_args!("{prefix}{register}"),
                        );
                        self.decorate(var, Decoration::Location, &[register]);
                        self.io
                            .stage
                            .arrayed_vectors
                            .insert((kind as u8, register), (var, scalar));
                        (var, scalar)
                    }
                }
            }
            SystemValue::Position => {
                let key = (class as u32, BuiltIn::Position as u32);
                let var = match self.io.stage.arrayed_builtins.get(&key) {
                    Some(&var) => var,
                    None => {
                        let var = self.io_global(
                            class,
                            Scalar::F32,
                            4,
                            Some(length),
                            format_args!("Position"),
                        );
                        self.decorate(var, Decoration::BuiltIn, &[BuiltIn::Position as u32]);
                        self.io.stage.arrayed_builtins.insert(key, var);
                        var
                    }
                };
                (var, Scalar::F32)
            }
            SystemValue::RenderTargetArrayIndex | SystemValue::ViewportArrayIndex => {
                return Err(self.unsupported(format!(
                    "a per-vertex {} input of a {} shader: the stage before writes it to \
                     Vulkan's Layer or ViewportIndex built-in, which hull and geometry \
                     shaders cannot read (a Vulkan limitation)",
                    sv.name(),
                    stage.prefix()
                )))
            }
            // A vertex or instance id passed on by the vertex shader: an ordinary value.
            SystemValue::VertexId | SystemValue::InstanceId => {
                return self.declare_arrayed(kind, register, length, mask, SystemValue::Undefined)
            }
            other => {
                return Err(self.err(format!(
                    "{} is not a per-vertex input of {} shaders: hull and geometry shaders \
                     read position, clip and cull distances from the stage before (D3D11 \
                     functional specification, system values)",
                    other.name(),
                    stage.prefix()
                )))
            }
        };
        for component in 0..4u8 {
            let slot = ArrayedSlot {
                var,
                class,
                scalar,
                count: 4,
                index: Some(component as u32),
            };
            let key = (kind as u8, register, component);
            if mask & (1 << component) != 0 {
                self.io.stage.arrayed.insert(key, slot);
            } else {
                self.io.stage.arrayed.entry(key).or_insert(slot);
            }
        }
        Ok(())
    }

    /// The (register, component, slot) triples of a per-vertex register file.
    pub fn arrayed_slots(&self, kind: RegisterKind) -> Vec<(u32, u8, ArrayedSlot)> {
        let mut list: Vec<(u32, u8, ArrayedSlot)> = self
            .io
            .stage
            .arrayed
            .iter()
            .filter(|((k, _, _), _)| *k == kind as u8)
            .map(|(&(_, r, c), &s)| (r, c, s))
            .collect();
        list.sort_by_key(|&(r, c, _)| (r, c));
        list
    }

    /// A pointer to one component of one vertex of a per-vertex array.
    pub fn arrayed_pointer(&mut self, slot: ArrayedSlot, vertex: Word) -> Result<Word> {
        let element = self.m.scalar(slot.scalar);
        let pointer = self.m.pointer(slot.class, element);
        let mut indices = vec![vertex];
        if let Some(i) = slot.index {
            indices.push(self.m.constant_u32(i));
        }
        built(self.m.b.access_chain(pointer, None, slot.var, indices))
    }

    /// Reads one component of one vertex of a per-vertex array, in the slot's type: of an
    /// input vector, an element of the vector, loaded once per block (inputs do not change
    /// while the shader runs).
    pub fn read_arrayed(&mut self, slot: ArrayedSlot, vertex: Word) -> Result<Word> {
        let ty = self.m.scalar(slot.scalar);
        match slot.index {
            Some(index) if slot.class == StorageClass::Input && slot.count > 1 => {
                let vector = self.arrayed_input_vector(slot, vertex)?;
                built(self.m.composite_extract(ty, vector, &[index]))
            }
            _ => {
                let pointer = self.arrayed_pointer(slot, vertex)?;
                built(self.m.load(ty, pointer))
            }
        }
    }

    /// The whole vector of one vertex of a per-vertex input array, loaded once per block.
    fn arrayed_input_vector(&mut self, slot: ArrayedSlot, vertex: Word) -> Result<Word> {
        self.read_only_vector(slot.var, vertex, |e| {
            let ty = e.m.vector(slot.scalar, slot.count);
            let pointer = e.m.pointer(slot.class, ty);
            let element = built(e.m.b.access_chain(pointer, None, slot.var, [vertex]))?;
            built(e.m.load(ty, element))
        })
    }

    /// The `InvocationId` value.
    pub fn invocation_id(&mut self) -> Result<Word> {
        let var = self.builtin(
            StorageClass::Input,
            BuiltIn::InvocationId,
            Scalar::U32,
            1,
            None,
        );
        let uint = self.m.scalar(Scalar::U32);
        built(self.m.load(uint, var))
    }

    /// For a per-vertex operand: the register file, the vertex and the register index.
    fn arrayed_operand(&self, operand: &Operand) -> Option<(RegisterKind, Vertex, Index)> {
        match (operand.kind, operand.indices()) {
            (RegisterKind::Input | RegisterKind::InputControlPoint, &[vertex, register]) => {
                Some((RegisterKind::Input, Vertex::Index(vertex), register))
            }
            (RegisterKind::OutputControlPoint, &[vertex, register]) => {
                Some((RegisterKind::Output, Vertex::Index(vertex), register))
            }
            (RegisterKind::Output, &[register])
                if self.hull_phase() == Some(PhaseKind::ControlPoint) =>
            {
                Some((RegisterKind::Output, Vertex::Invocation, register))
            }
            _ => None,
        }
    }

    fn vertex_value(&mut self, vertex: Vertex) -> Result<Word> {
        match vertex {
            Vertex::Index(index) => self.index_value(index),
            Vertex::Invocation => self.invocation_id(),
        }
    }

    fn arrayed_slot(
        &self,
        kind: RegisterKind,
        register: u32,
        component: u8,
    ) -> Option<ArrayedSlot> {
        self.io
            .stage
            .arrayed
            .get(&(kind as u8, register, component))
            .copied()
    }

    /// Reads a component of a per-vertex register or a hull shader's patch constant;
    /// `None` when the operand is neither.
    pub fn stage_load(&mut self, operand: &Operand, component: u8) -> Result<Option<Val>> {
        if let Some(value) = self.patch_load(operand, component)? {
            return Ok(Some(value));
        }
        let Some((kind, vertex, register)) = self.arrayed_operand(operand) else {
            return Ok(None);
        };
        let vertex = self.vertex_value(vertex)?;
        if let Some(register) = register.as_imm32() {
            let slot = self
                .arrayed_slot(kind, register, component)
                .ok_or_else(|| {
                    self.err(format!(
                        "{}[][{register}] component {component} is used but not declared",
                        operand.kind.name()
                    ))
                })?;
            let id = self.read_arrayed(slot, vertex)?;
            return Ok(Some(Val {
                id,
                scalar: slot.scalar,
                count: 1,
            }));
        }
        // A register index from a register: select among the declared registers.
        let index = self.index_value(register)?;
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let mut result = self.m.constant_u32(0);
        for (r, c, slot) in self.arrayed_slots(kind) {
            if c != component {
                continue;
            }
            let id = self.read_arrayed(slot, vertex)?;
            let bits = self.cast(
                Val {
                    id,
                    scalar: slot.scalar,
                    count: 1,
                },
                Scalar::U32,
            )?;
            let this = self.m.constant_u32(r);
            let hit = built(self.m.b.i_equal(boolean, None, index, this))?;
            result = built(self.m.select(uint, None, hit, bits.id, result))?;
        }
        Ok(Some(Val {
            id: result,
            scalar: Scalar::U32,
            count: 1,
        }))
    }

    /// Writes a component of a control-point output or a hull shader's patch constant;
    /// false when the operand is neither.
    pub fn stage_store(&mut self, operand: &Operand, component: u8, value: Val) -> Result<bool> {
        if self.patch_store(operand, component, value)? {
            return Ok(true);
        }
        if self.stream_output_store(operand, component, value)? {
            return Ok(true);
        }
        let Some((kind, vertex, register)) = self.arrayed_operand(operand) else {
            return Ok(false);
        };
        if kind != RegisterKind::Output || operand.kind != RegisterKind::Output {
            return Err(self.err(format!("{} cannot be written", operand.kind.name())));
        }
        let vertex = self.vertex_value(vertex)?;
        if let Some(register) = register.as_imm32() {
            let slot = self
                .arrayed_slot(kind, register, component)
                .ok_or_else(|| {
                    self.err(format!(
                        "o{register} component {component} is written but not declared"
                    ))
                })?;
            let value = self.cast(value, slot.scalar)?;
            let pointer = self.arrayed_pointer(slot, vertex)?;
            built(self.m.store(pointer, value.id))?;
            return Ok(true);
        }
        let index = self.index_value(register)?;
        let boolean = self.m.scalar(Scalar::Bool);
        for (r, c, slot) in self.arrayed_slots(kind) {
            if c != component {
                continue;
            }
            let this = self.m.constant_u32(r);
            let hit = built(self.m.b.i_equal(boolean, None, index, this))?;
            let value = self.cast(value, slot.scalar)?;
            self.guarded(hit, |e| {
                let pointer = e.arrayed_pointer(slot, vertex)?;
                built(e.m.store(pointer, value.id))
            })?;
        }
        Ok(true)
    }

    /// The components of a mask, for callers outside the operand code.
    pub fn components_of(mask: u8) -> Vec<u8> {
        mask_components(mask).collect()
    }
}
