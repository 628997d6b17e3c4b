//! Inputs, outputs and system values: `dcl_input*`/`dcl_output*` into Input/Output
//! variables with locations or built-ins, and the registers that name system values
//! (`vThreadID`, `vPrim`, `oDepth`, …).
//!
//! Every readable or writable register component maps to a [`Slot`]: a variable (Input or
//! Output; Private for a stream-output shadow), or a value computed at the start of the
//! entry function (a system value that needs converting), and, for vectors and arrays, the
//! index of the component inside it. This lets one register mix ordinary
//! values and system values, and lets several registers share one built-in array.
//!
//! D3D semantics honoured here:
//!
//! - `SV_VertexID` counts from 0 whatever `StartVertexLocation` (non-indexed draws) or
//!   `BaseVertexLocation` (indexed draws) is: for indexed draws it is the value read from the
//!   index buffer. Vulkan's `VertexIndex` includes `firstVertex` / `vertexOffset`, and
//!   `BaseVertex` is exactly that value, so `SV_VertexID = VertexIndex - BaseVertex`.
//!   Likewise `SV_InstanceID = InstanceIndex - BaseInstance` (D3D's instance id ignores
//!   `StartInstanceLocation`). `BaseVertex`/`BaseInstance` need the `DrawParameters`
//!   capability (core since SPIR-V 1.3, the `SPV_KHR_shader_draw_parameters` extension
//!   before; the device needs the `shaderDrawParameters` feature).
//! - A pixel shader's `SV_Position.w` is the interpolated clip-space w, while `FragCoord.w`
//!   is 1/w: the w component is read as `1 / FragCoord.w`.
//! - `SV_IsFrontFace` is a D3D boolean: `0xffffffff` or 0.
//! - Clip and cull distances of all registers are gathered, in signature order, into the
//!   `ClipDistance` and `CullDistance` arrays.
//! - `vertex_id`/`instance_id` declared on a later stage's input or on an output are values
//!   passed on like any other (at their location); a vertex shader's inputs other than
//!   those two are vertex data whatever their name.
//! - `eval_*` interpolates float inputs (clip and cull distances included) with
//!   `InterpolateAt*`; a constant-interpolated input (integers, system values that are
//!   constant per primitive) is read as it is (Microsoft's `EvaluateAttribute*` pages allow
//!   them, the sample index or offset ignored); `eval_sample_index` and `eval_snapped` of
//!   `SV_Position` are computed from `FragCoord` ([`super::sample_rate`]); `eval_centroid`
//!   of it is a Vulkan limitation (`FragCoord` cannot be evaluated at the centroid).
//! - Relative addressing of `v#`, `o#` and a domain shader's `vpc#` needs a
//!   `dcl_indexrange`; the registers then live in a private array (reads outside it give 0).

use super::builder::deferred::ComponentTarget;
use super::builder::Operand as SpvOperand;
use crate::fast_hash::HashMap;
use smallvec::SmallVec;
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, StorageClass, Word};

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::operands::mask_components;
use crate::container::{ComponentType, Signature, SystemValue as SigValue};
use crate::error::Result;
use crate::interface::InterfaceFile;
use crate::ir::{
    Declaration, Instruction, Interpolation, Operand, RegisterKind, Stage, SystemValue,
};
use crate::isa::Opcode;

/// The input, output, control-point and patch-constant register numbers the translation
/// takes: locations are register numbers plus bases that stay far inside 32 bits. Direct3D's
/// own files have 32 registers; past them is a warning of the validation, not a refusal
/// (`crate::ir::validate_stage_rules`).
const IO_REGISTERS: u32 = 1 << 20;

/// GLSL.std.450 interpolation functions.
const INTERPOLATE_AT_CENTROID: u32 = 76;
const INTERPOLATE_AT_SAMPLE: u32 = 77;
const INTERPOLATE_AT_OFFSET: u32 = 78;

/// Where one component of a register lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The variable; for a value the prologue computes (Private class, see
    /// [`IoState::derived`]), the key of that value, an id nothing declares.
    pub var: Word,
    /// Its storage class (Input, Output or Private).
    pub class: StorageClass,
    /// The component type.
    pub scalar: Scalar,
    /// Components of the variable when it is a vector (1 for scalars and arrays).
    pub count: u32,
    /// The component (vector) or element (array) index; `None` for a scalar variable.
    pub index: Option<u32>,
}

/// Code run at the start of the entry function to compute a system value that needs
/// converting (the value of `dst`, a key of [`IoState::derived`]).
#[derive(Debug, Clone, Copy)]
enum Prologue {
    /// `dst = a - b` (u32 built-ins).
    Difference { dst: Word, a: Word, b: Word },
    /// `dst = 1 / FragCoord.w`.
    ReciprocalW { dst: Word, frag_coord: Word },
    /// `dst = src ? ones : 0`.
    BoolMask { dst: Word, src: Word, ones: u32 },
}

/// A value the prologue computes.
#[derive(Debug, Clone, Copy)]
struct Derived {
    /// The `var` of its Private slots.
    key: Word,
    /// The value (0 until the prologue has run).
    value: Word,
    /// Its debug name.
    name: &'static str,
}

/// State of the I/O lowering.
#[derive(Debug, Default)]
pub struct IoState {
    /// Component slots by (register kind code, register, component).
    pub slots: HashMap<(u8, u32, u8), Slot>,
    /// The vec4 variables of ordinary `v#`/`o#` registers by (kind code, register).
    vectors: HashMap<(u8, u32), Word>,
    /// Built-in variables by (storage class, built-in), so each is declared once.
    builtins: HashMap<(u32, u32), Word>,
    /// Prologue steps, in order.
    prologue: SmallVec<[Prologue; 2]>,
    /// The values the prologue computes, by key (the `var` of their Private slots): ids
    /// made in the entry function's first block, which dominates every read, so that no
    /// read goes through memory (0 until the prologue has run).
    derived: SmallVec<[Derived; 2]>,
    /// Register kinds (`v`, `o`) with a `dcl_indexrange`.
    ranged: std::collections::BTreeSet<u8>,
    /// Pixel-shader input variables decorated `Flat` (constant interpolation).
    flat: std::collections::BTreeSet<Word>,
    /// Private `uvec4` arrays holding `v#`/`o#` for relative addressing, by kind:
    /// (variable, length).
    arrays: HashMap<u8, (Word, u32)>,
    /// State of the geometry and tessellation I/O.
    pub stage: super::stage_io::StageState,
    /// `vCycleCounter`, once declared.
    clock: Option<ClockState>,
    /// A pixel shader's evaluation places when it runs per sample.
    pub(super) sample_rate: super::sample_rate::SampleRate,
    /// The placements of an interface map or of dual-source blending ([`super::placed_io`]).
    pub(super) placed: Option<Box<super::placed_io::PlacedState>>,
    /// The depth outputs a pixel shader declares: `oDepth` (bit 0), `oDepthGE` (bit 1),
    /// `oDepthLE` (bit 2).
    depth_outputs: u8,
}

/// `vCycleCounter` after its `dcl_input`: the latest clock read, by the instruction and
/// the place (function, block, calls) that made it, so one instruction's `.x` and `.y`
/// come from one read while every other instruction reads the clock again.
#[derive(Debug, Default)]
struct ClockState {
    /// The latest read.
    last: Option<ClockRead>,
}

/// One `OpReadClockKHR`.
#[derive(Debug, Clone, Copy)]
struct ClockRead {
    /// The instruction's index and dword (the emitter's `at`).
    at: (u32, u32),
    /// The place of the read (see [`super::module::Module::place`]).
    place: (Option<usize>, Option<usize>, u32),
    /// The `uvec2` read: low, high.
    id: Word,
}

/// The tables of [`IoState`] kept for the next translation (see [`IoState::with_tables`]).
#[derive(Default)]
pub struct IoTables {
    slots: HashMap<(u8, u32, u8), Slot>,
    vectors: HashMap<(u8, u32), Word>,
}

impl IoTables {
    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        crate::fast_hash::map_bytes(&self.slots) + crate::fast_hash::map_bytes(&self.vectors)
    }
}

impl IoState {
    /// Empty state whose slot and vector tables reuse these (emptied).
    pub fn with_tables(tables: IoTables) -> IoState {
        let IoTables {
            mut slots,
            mut vectors,
        } = tables;
        slots.clear();
        vectors.clear();
        slots.reserve(32);
        vectors.reserve(8);
        IoState {
            slots,
            vectors,
            ..IoState::default()
        }
    }

    /// Takes the slot and vector tables out, for the next translation.
    pub fn take_tables(&mut self) -> IoTables {
        IoTables {
            slots: std::mem::take(&mut self.slots),
            vectors: std::mem::take(&mut self.vectors),
        }
    }
}

/// The component type of a signature's element at a register, if the signature has one.
fn signature_scalar(signature: Option<&Signature>, register: u32, mask: u8) -> Option<Scalar> {
    let elements = &signature?.elements;
    let element = elements
        .iter()
        .find(|e| e.register == register && e.mask & mask != 0)
        .or_else(|| elements.iter().find(|e| e.register == register))?;
    Some(match element.component_type {
        ComponentType::Uint32 => Scalar::U32,
        ComponentType::Sint32 => Scalar::I32,
        _ => Scalar::F32,
    })
}

/// The scalar type used for integer built-ins.
const INT: Scalar = Scalar::U32;

impl Emitter<'_> {
    pub(super) fn io_global(
        &mut self,
        class: StorageClass,
        scalar: Scalar,
        count: u32,
        array: Option<u32>,
        name: std::fmt::Arguments<'_>,
    ) -> Word {
        let mut ty = self.m.vector(scalar, count);
        if let Some(length) = array {
            ty = self.m.array(ty, length);
        }
        let name = self.debug_name(name);
        self.global(ty, class, name)
    }

    /// `name` as a variable's debug name when the options keep debug names; `None` (and no
    /// formatting, which costs an allocation per variable) otherwise.
    pub(super) fn debug_name(&self, name: std::fmt::Arguments<'_>) -> Option<String> {
        self.options.debug_names.then(|| name.to_string())
    }

    /// The variable of a built-in (declared on first use).
    pub(super) fn builtin(
        &mut self,
        class: StorageClass,
        builtin: BuiltIn,
        scalar: Scalar,
        count: u32,
        array: Option<u32>,
    ) -> Word {
        let key = (class as u32, builtin as u32);
        if let Some(&var) = self.io.builtins.get(&key) {
            return var;
        }
        let var = self.io_global(class, scalar, count, array, format_args!("{builtin:?}"));
        self.decorate(var, Decoration::BuiltIn, &[builtin as u32]);
        if class == StorageClass::Input
            && self.program.model.stage == Stage::Pixel
            && scalar != Scalar::F32
            && scalar != Scalar::Bool
        {
            self.decorate(var, Decoration::Flat, &[]);
        }
        self.io.builtins.insert(key, var);
        var
    }

    /// The key of a value, named `name`, that the prologue computes (the `var` of its
    /// Private slot).
    pub(super) fn derived_key(&mut self, name: &'static str) -> Word {
        let key = self.m.b.id();
        self.io.derived.push(Derived {
            key,
            value: 0,
            name,
        });
        key
    }

    /// Sets the value of a key of [`Emitter::derived_key`].
    pub(super) fn set_derived(&mut self, key: Word, value: Word) -> Result<()> {
        let Some(derived) = self.io.derived.iter_mut().find(|d| d.key == key) else {
            return Err(self.internal("a prologue value without a key"));
        };
        derived.value = value;
        let name = derived.name;
        if self.options.debug_names {
            self.m.b.name(value, name);
        }
        Ok(())
    }

    /// The value of a slot that the prologue computes; `None` for a slot in memory.
    fn derived_value(&self, slot: Slot) -> Option<Result<Word>> {
        if slot.class != StorageClass::Private {
            return None;
        }
        let value = self.io.derived.iter().find(|d| d.key == slot.var)?.value;
        Some(if value == 0 {
            Err(self.internal("a system value read before the prologue computed it"))
        } else {
            Ok(value)
        })
    }

    pub(super) fn set_slot(
        &mut self,
        kind: RegisterKind,
        register: u32,
        component: u8,
        slot: Slot,
    ) {
        self.io
            .slots
            .insert((kind as u8, register, component), slot);
    }

    pub(super) fn set_scalar_slot(
        &mut self,
        kind: RegisterKind,
        register: u32,
        component: u8,
        var: Word,
        class: StorageClass,
        scalar: Scalar,
    ) {
        let slot = Slot {
            var,
            class,
            scalar,
            count: 1,
            index: None,
        };
        self.set_slot(kind, register, component, slot);
    }

    pub(super) fn add_mode(&mut self, mode: ExecutionMode) {
        if !self.modes.iter().any(|(m, _)| *m == mode) {
            self.push_mode(mode, &[]);
        }
    }

    /// Handles `dcl_globalFlags` flags that concern I/O (`forceEarlyDepthStencil`).
    pub fn io_global_flags(&mut self, flags: u32) -> Result<()> {
        if flags & crate::ir::FORCE_EARLY_DEPTH_STENCIL != 0
            && self.program.model.stage == Stage::Pixel
        {
            self.add_mode(ExecutionMode::EarlyFragmentTests);
        }
        Ok(())
    }

    /// A declared input, output, control-point or patch-constant register of number
    /// [`IO_REGISTERS`] or more is an error (its locations would not stay inside 32 bits);
    /// past Direct3D's 32 registers is the validation's warning.
    fn check_io_register(&self, operand: Operand) -> Result<()> {
        let files = [
            RegisterKind::Input,
            RegisterKind::Output,
            RegisterKind::InputControlPoint,
            RegisterKind::OutputControlPoint,
            RegisterKind::InputPatchConstant,
        ];
        if !files.contains(&operand.kind) {
            return Ok(());
        }
        match operand.indices().last().and_then(|index| index.as_imm32()) {
            Some(register) => self.check_io_register_index(operand.kind, register),
            None => Ok(()),
        }
    }

    /// The register-number check of [`Self::check_io_register`], for registers taken from a
    /// signature rather than an operand.
    pub(super) fn check_io_register_index(&self, kind: RegisterKind, register: u32) -> Result<()> {
        if register >= IO_REGISTERS {
            return Err(self.err(format!(
                "{}{register}: a register number of 2^20 or more (locations computed from it \
                 would not stay inside 32 bits)",
                kind.name()
            )));
        }
        Ok(())
    }

    /// The error for a `v#`, `o#` or `vpc#` operand with other than one index where the
    /// stage's registers take one (only the per-vertex inputs of geometry and hull shaders
    /// and the control points of tessellation shaders take a vertex index as well).
    pub(super) fn one_index_error(&self, operand: &Operand) -> crate::error::Error {
        self.err(format!(
            "{} with {} indices in a {} shader: its {} registers take one index (only \
             geometry- and hull-shader inputs and control points are indexed by vertex)",
            operand.kind.name(),
            operand.index_count,
            self.program.model.stage.prefix(),
            operand.kind.name()
        ))
    }

    /// Handles `dcl_input*`, `dcl_output*` and `dcl_indexrange`.
    pub fn declare_io(
        &mut self,
        _instruction: &Instruction,
        declaration: &Declaration,
    ) -> Result<()> {
        if let Declaration::Signature { operand, .. } | Declaration::IndexRange { operand, .. } =
            declaration
        {
            self.check_io_register(*self.operand(*operand))?;
        }
        if self.stage_declare_io(declaration)? {
            return Ok(());
        }
        let (operand, system_value, interpolation) = match declaration {
            Declaration::Signature {
                operand,
                system_value,
                interpolation,
            } => (operand, system_value, interpolation),
            Declaration::IndexRange { operand, .. } => {
                let operand = *self.operand(*operand);
                let stage = self.program.model.stage;
                // A domain shader's patch constants may be ranged too (its tessellation
                // factors are an array in HLSL).
                let ranged = matches!(operand.kind, RegisterKind::Input | RegisterKind::Output)
                    || (operand.kind == RegisterKind::InputPatchConstant && stage == Stage::Domain);
                if !ranged {
                    return Err(self.err(format!(
                        "dcl_indexrange of {} registers in a {} shader: the declaration ranges \
                         input (v#) or output (o#) registers (vicp, vocp and vpc in tessellation \
                         shaders; d3d11TokenizedProgramFormat.hpp, DCL_INDEX_RANGE)",
                        operand.kind.name(),
                        stage.prefix()
                    )));
                }
                if operand.index_count != 1 {
                    return Err(self.one_index_error(&operand));
                }
                self.io.ranged.insert(operand.kind as u8);
                return Ok(());
            }
            _ => return Err(self.err("not an input or output declaration")),
        };
        let operand = *self.operand(*operand);
        let sv = system_value.unwrap_or(SystemValue::Undefined);
        match operand.kind {
            RegisterKind::Input | RegisterKind::Output => {
                if operand.index_count != 1 {
                    return Err(self.one_index_error(&operand));
                }
                let register = self.immediate_index(&operand, 0)?;
                let mask = match operand.mask() {
                    0 => 0xf,
                    m => m,
                };
                if operand.kind == RegisterKind::Input {
                    self.declare_input(register, mask, sv, *interpolation)
                } else {
                    self.declare_output(register, mask, sv)
                }
            }
            kind => self.declare_special(kind),
        }
    }

    /// An ordinary `v#`/`o#` (no built-in): the register's `vec4` at Location = register, or
    /// the variables an interface map places its elements in ([`super::placed_io`]); a pixel
    /// shader's fresh input variables get their interpolation (`mode`).
    fn ordinary_io(
        &mut self,
        kind: RegisterKind,
        register: u32,
        mask: u8,
        mode: Interpolation,
    ) -> Result<()> {
        let stage = self.program.model.stage;
        let (file, class) = if kind == RegisterKind::Input {
            (InterfaceFile::Inputs, StorageClass::Input)
        } else {
            (InterfaceFile::Outputs, StorageClass::Output)
        };
        if kind == RegisterKind::Output && self.dual_source() && register >= 2 {
            // Dropped under dual-source blending (see `placed_io`): no variable.
            return Ok(());
        }
        if self.is_placed(file) {
            let fresh = self.placed_vector(file, kind, register, mask, class)?;
            if stage == Stage::Pixel && kind == RegisterKind::Input {
                for (var, scalar) in fresh {
                    self.interpolation(var, scalar, mode)?;
                }
            }
            return Ok(());
        }
        let fresh = !self.io.vectors.contains_key(&(kind as u8, register));
        let slot = self.location_vector(kind, register, mask)?;
        if fresh && stage == Stage::Pixel && kind == RegisterKind::Input {
            self.interpolation(slot.var, slot.scalar, mode)?;
        }
        Ok(())
    }

    /// The ordinary vec4 variable of `v#`/`o#` at Location = register, mapping `mask`.
    pub(super) fn location_vector(
        &mut self,
        kind: RegisterKind,
        register: u32,
        mask: u8,
    ) -> Result<Slot> {
        let (class, signature, prefix) = if kind == RegisterKind::Input {
            (StorageClass::Input, self.reflection.input.as_ref(), "v")
        } else {
            (StorageClass::Output, self.reflection.output.as_ref(), "o")
        };
        let scalar = signature_scalar(signature, register, mask).unwrap_or(Scalar::F32);
        let key = (kind as u8, register);
        let (var, scalar) = match self.io.vectors.get(&key) {
            Some(&var) => {
                let existing = self
                    .io
                    .slots
                    .values()
                    .find(|s| s.var == var)
                    .map(|s| s.scalar)
                    .unwrap_or(scalar);
                (var, existing)
            }
            None => {
                let var =
                    self.io_global(class, scalar, 4, None, format_args!("{prefix}{register}"));
                // Dual-source blending: a pixel shader's o0 and o1 at location 0, index 0
                // and 1 (`placed_io`).
                let dual = kind == RegisterKind::Output && self.dual_source();
                self.decorate(
                    var,
                    Decoration::Location,
                    &[if dual { 0 } else { register }],
                );
                if dual && register == 1 {
                    self.decorate(var, Decoration::Index, &[1]);
                }
                self.io.vectors.insert(key, var);
                (var, scalar)
            }
        };
        let slot = Slot {
            var,
            class,
            scalar,
            count: 4,
            index: Some(0),
        };
        for component in 0..4u8 {
            let this = Slot {
                index: Some(component as u32),
                ..slot
            };
            let k = (kind as u8, register, component);
            if mask & (1 << component) != 0 {
                self.io.slots.insert(k, this);
            } else {
                self.io.slots.entry(k).or_insert(this);
            }
        }
        Ok(slot)
    }

    fn declare_input(
        &mut self,
        register: u32,
        mask: u8,
        sv: SystemValue,
        interpolation: Option<Interpolation>,
    ) -> Result<()> {
        let stage = self.program.model.stage;
        let kind = RegisterKind::Input;
        let first = mask.trailing_zeros() as u8;
        match (stage, sv) {
            (_, SystemValue::Undefined) => {
                let mode = interpolation.unwrap_or(Interpolation::Undefined);
                self.ordinary_io(kind, register, mask, mode)?;
            }
            (Stage::Vertex, SystemValue::VertexId | SystemValue::InstanceId) => {
                let (index, base, name) = if sv == SystemValue::VertexId {
                    (BuiltIn::VertexIndex, BuiltIn::BaseVertex, "vertex_id")
                } else {
                    (BuiltIn::InstanceIndex, BuiltIn::BaseInstance, "instance_id")
                };
                self.draw_parameters();
                let a = self.builtin(StorageClass::Input, index, INT, 1, None);
                let b = self.builtin(StorageClass::Input, base, INT, 1, None);
                let dst = self.derived_key(name);
                self.io.prologue.push(Prologue::Difference { dst, a, b });
                self.set_scalar_slot(kind, register, first, dst, StorageClass::Private, INT);
            }
            (Stage::Pixel, SystemValue::Position) => {
                let var = self.builtin(
                    StorageClass::Input,
                    BuiltIn::FragCoord,
                    Scalar::F32,
                    4,
                    None,
                );
                self.note_position(register, var, interpolation);
                for component in 0..3u8 {
                    let slot = Slot {
                        var,
                        class: StorageClass::Input,
                        scalar: Scalar::F32,
                        count: 4,
                        index: Some(component as u32),
                    };
                    self.set_slot(kind, register, component, slot);
                }
                if mask & 8 != 0 {
                    let dst = self.derived_key("position_w");
                    self.io.prologue.push(Prologue::ReciprocalW {
                        dst,
                        frag_coord: var,
                    });
                    self.set_scalar_slot(
                        kind,
                        register,
                        3,
                        dst,
                        StorageClass::Private,
                        Scalar::F32,
                    );
                }
            }
            (Stage::Pixel, SystemValue::IsFrontFace) => {
                let src = self.builtin(
                    StorageClass::Input,
                    BuiltIn::FrontFacing,
                    Scalar::Bool,
                    1,
                    None,
                );
                let dst = self.derived_key("is_front_face");
                self.io.prologue.push(Prologue::BoolMask {
                    dst,
                    src,
                    ones: u32::MAX,
                });
                self.set_scalar_slot(kind, register, first, dst, StorageClass::Private, INT);
            }
            (Stage::Pixel, SystemValue::SampleIndex) => {
                self.m.capability(Capability::SampleRateShading);
                self.note_sample_index();
                let var = self.builtin(StorageClass::Input, BuiltIn::SampleId, INT, 1, None);
                self.set_scalar_slot(kind, register, first, var, StorageClass::Input, INT);
            }
            (Stage::Pixel, SystemValue::PrimitiveId) => {
                self.m.capability(Capability::Geometry);
                let var = self.builtin(StorageClass::Input, BuiltIn::PrimitiveId, INT, 1, None);
                self.set_scalar_slot(kind, register, first, var, StorageClass::Input, INT);
            }
            (Stage::Pixel, SystemValue::RenderTargetArrayIndex) => {
                self.m.capability(Capability::Geometry);
                let var = self.builtin(StorageClass::Input, BuiltIn::Layer, INT, 1, None);
                self.set_scalar_slot(kind, register, first, var, StorageClass::Input, INT);
            }
            (Stage::Pixel, SystemValue::ViewportArrayIndex) => {
                self.m.capability(Capability::MultiViewport);
                let var = self.builtin(StorageClass::Input, BuiltIn::ViewportIndex, INT, 1, None);
                self.set_scalar_slot(kind, register, first, var, StorageClass::Input, INT);
            }
            (Stage::Pixel, SystemValue::ClipDistance | SystemValue::CullDistance) => {
                self.declare_distances(kind, register, mask, sv)?;
            }
            // A vertex or instance id a previous stage passed on: an ordinary value, at its
            // location like any other. A vertex shader's inputs other than the generated
            // vertex and instance ids are vertex data whatever they are named (the input
            // assembler interprets no other system value).
            (
                Stage::Pixel | Stage::Geometry | Stage::Hull | Stage::Domain,
                SystemValue::VertexId | SystemValue::InstanceId,
            )
            | (Stage::Vertex, _) => {
                self.ordinary_io(kind, register, mask, Interpolation::Constant)?;
            }
            (_, sv) => return Err(self.system_value_error("input", sv)),
        }
        Ok(())
    }

    /// The error for a system value the stage cannot declare as an input or output
    /// (`direction`). D3D11's system values (functional specification, "System-generated
    /// values" and "System-interpreted values"): `vertex_id` and `instance_id` are
    /// vertex-shader inputs; `position`, clip and cull distances and the render-target and
    /// viewport array indices are written by the stages before the rasterizer and read by
    /// the pixel shader; `primitive_id` is a pixel-shader input and a geometry-shader output
    /// (other stages read `vPrim`); `is_front_face` and `sampleIndex` are pixel-shader
    /// inputs; tessellation factors are patch constants. The other names (`barycentrics`,
    /// `shadingrate`, `cullprimitive`) are Shader Model 6 values with no DXBC encoding.
    fn system_value_error(&self, direction: &str, sv: SystemValue) -> crate::error::Error {
        let stage = self.program.model.stage;
        if stage == Stage::Geometry && direction == "output" && sv == SystemValue::IsFrontFace {
            return self.unsupported(
                "a geometry shader's is_front_face output: Vulkan has no way for a geometry \
                 shader to set the facing the fragment shader reads (FrontFacing is a \
                 fragment-shader input the rasterizer computes)",
            );
        }
        self.err(format!(
            "{} is not an {direction} system value of {} shaders (D3D11 functional \
             specification, system values)",
            sv.name(),
            stage.prefix()
        ))
    }

    fn declare_output(&mut self, register: u32, mask: u8, sv: SystemValue) -> Result<()> {
        let stage = self.program.model.stage;
        let kind = RegisterKind::Output;
        let first = mask.trailing_zeros() as u8;
        match (stage, sv) {
            (_, SystemValue::Undefined) => {
                self.ordinary_io(kind, register, mask, Interpolation::Undefined)?;
            }
            (Stage::Vertex | Stage::Geometry | Stage::Domain, SystemValue::Position) => {
                let var = self.builtin(
                    StorageClass::Output,
                    BuiltIn::Position,
                    Scalar::F32,
                    4,
                    None,
                );
                for component in 0..4u8 {
                    let slot = Slot {
                        var,
                        class: StorageClass::Output,
                        scalar: Scalar::F32,
                        count: 4,
                        index: Some(component as u32),
                    };
                    self.set_slot(kind, register, component, slot);
                }
            }
            (
                Stage::Vertex | Stage::Geometry | Stage::Domain,
                SystemValue::ClipDistance | SystemValue::CullDistance,
            ) => {
                self.declare_distances(kind, register, mask, sv)?;
            }
            (Stage::Geometry, SystemValue::PrimitiveId) => {
                let var = self.builtin(StorageClass::Output, BuiltIn::PrimitiveId, INT, 1, None);
                self.set_scalar_slot(kind, register, first, var, StorageClass::Output, INT);
            }
            (
                Stage::Vertex | Stage::Geometry | Stage::Domain,
                SystemValue::RenderTargetArrayIndex | SystemValue::ViewportArrayIndex,
            ) => {
                let builtin = if sv == SystemValue::RenderTargetArrayIndex {
                    BuiltIn::Layer
                } else {
                    BuiltIn::ViewportIndex
                };
                if stage == Stage::Geometry {
                    // Geometry shaders write the layer and viewport natively.
                    self.m.capability(if builtin == BuiltIn::Layer {
                        Capability::Geometry
                    } else {
                        Capability::MultiViewport
                    });
                } else if self.options.target.spirv_version() >= (1, 5) {
                    self.m.capability(if builtin == BuiltIn::Layer {
                        Capability::ShaderLayer
                    } else {
                        Capability::ShaderViewportIndex
                    });
                } else {
                    self.m.capability(Capability::ShaderViewportIndexLayerEXT);
                    self.m.extension("SPV_EXT_shader_viewport_index_layer");
                }
                let var = self.builtin(StorageClass::Output, builtin, INT, 1, None);
                self.set_scalar_slot(kind, register, first, var, StorageClass::Output, INT);
            }
            // A vertex or instance id passed on to the next stage: an ordinary value.
            (
                Stage::Vertex | Stage::Geometry | Stage::Domain,
                SystemValue::VertexId | SystemValue::InstanceId,
            ) => {
                self.ordinary_io(kind, register, mask, Interpolation::Undefined)?;
            }
            (_, sv) => return Err(self.system_value_error("output", sv)),
        }
        Ok(())
    }

    fn draw_parameters(&mut self) {
        self.m.capability(Capability::DrawParameters);
        if self.options.target.spirv_version() < (1, 3) {
            self.m.extension("SPV_KHR_shader_draw_parameters");
        }
    }

    /// The (register, component) pairs of all clip or cull distances of the stage's inputs
    /// or outputs: in signature order, then any declared but missing from the signature.
    fn distance_layout(&self, kind: RegisterKind, sv: SystemValue) -> Vec<(u32, u8)> {
        let signature = if kind == RegisterKind::Input {
            self.reflection.input.as_ref()
        } else {
            self.reflection.output.as_ref()
        };
        self.distances_of(signature, sv, |operand| {
            (operand.kind == kind)
                .then(|| operand.indices().first().and_then(|i| i.as_imm32()))
                .flatten()
        })
    }

    /// The (register, component) pairs of the clip or cull distances (`sv`) in `signature`
    /// (signature order), then those of declarations `register_of` accepts (it gives the
    /// declared register) that the signature lacks.
    pub(super) fn distances_of(
        &self,
        signature: Option<&crate::container::Signature>,
        sv: SystemValue,
        register_of: impl Fn(&Operand) -> Option<u32>,
    ) -> Vec<(u32, u8)> {
        let wanted = if sv == SystemValue::ClipDistance {
            SigValue::ClipDistance
        } else {
            SigValue::CullDistance
        };
        let mut layout = Vec::new();
        for element in signature
            .iter()
            .flat_map(|s| &s.elements)
            .filter(|e| e.system_value == wanted)
        {
            for c in mask_components(element.mask) {
                layout.push((element.register, c));
            }
        }
        for instruction in &self.program.instructions {
            let Some(Declaration::Signature {
                operand,
                system_value: Some(s),
                ..
            }) = &instruction.declaration
            else {
                continue;
            };
            let operand = self.program.operand(*operand);
            if *s != sv {
                continue;
            }
            let Some(register) = register_of(operand) else {
                continue;
            };
            for c in mask_components(operand.mask()) {
                if !layout.contains(&(register, c)) {
                    layout.push((register, c));
                }
            }
        }
        layout
    }

    /// Maps clip or cull distance components onto the `ClipDistance`/`CullDistance` array.
    fn declare_distances(
        &mut self,
        kind: RegisterKind,
        register: u32,
        mask: u8,
        sv: SystemValue,
    ) -> Result<()> {
        let layout = self.distance_layout(kind, sv);
        let length = layout.len() as u32;
        // More than Direct3D's 8 is the validation's warning; the device's limits decide.
        if length == 0 {
            return Err(self.err("a clip or cull distance declaration without components"));
        }
        let (builtin, capability) = if sv == SystemValue::ClipDistance {
            (BuiltIn::ClipDistance, Capability::ClipDistance)
        } else {
            (BuiltIn::CullDistance, Capability::CullDistance)
        };
        self.m.capability(capability);
        let class = if kind == RegisterKind::Input {
            StorageClass::Input
        } else {
            StorageClass::Output
        };
        let var = self.builtin(class, builtin, Scalar::F32, 1, Some(length));
        for component in mask_components(mask) {
            let Some(position) = layout.iter().position(|&p| p == (register, component)) else {
                continue;
            };
            let slot = Slot {
                var,
                class,
                scalar: Scalar::F32,
                count: 1,
                index: Some(position as u32),
            };
            self.set_slot(kind, register, component, slot);
        }
        Ok(())
    }

    /// Registers without an index: `vPrim`, `vCoverage`, `oDepth`, `vThreadID`, …
    fn declare_special(&mut self, kind: RegisterKind) -> Result<()> {
        use RegisterKind as K;
        let stage = self.program.model.stage;
        let input = StorageClass::Input;
        let output = StorageClass::Output;
        match kind {
            K::InputThreadId | K::InputThreadGroupId | K::InputThreadIdInGroup => {
                let builtin = match kind {
                    K::InputThreadId => BuiltIn::GlobalInvocationId,
                    K::InputThreadGroupId => BuiltIn::WorkgroupId,
                    _ => BuiltIn::LocalInvocationId,
                };
                let var = self.builtin(input, builtin, Scalar::U32, 3, None);
                for component in 0..3u8 {
                    let slot = Slot {
                        var,
                        class: input,
                        scalar: Scalar::U32,
                        count: 3,
                        index: Some(component as u32),
                    };
                    self.set_slot(kind, 0, component, slot);
                }
            }
            K::InputThreadIdInGroupFlattened => {
                let var = self.builtin(input, BuiltIn::LocalInvocationIndex, Scalar::U32, 1, None);
                self.set_scalar_slot(kind, 0, 0, var, input, Scalar::U32);
            }
            K::InputPrimitiveId if stage == Stage::Pixel => {
                self.m.capability(Capability::Geometry);
                let var = self.builtin(input, BuiltIn::PrimitiveId, INT, 1, None);
                self.set_scalar_slot(kind, 0, 0, var, input, INT);
            }
            K::InputCoverageMask if stage == Stage::Pixel => {
                let var = self.builtin(input, BuiltIn::SampleMask, INT, 1, Some(1));
                let slot = Slot {
                    var,
                    class: input,
                    scalar: INT,
                    count: 1,
                    index: Some(0),
                };
                self.set_slot(kind, 0, 0, slot);
            }
            K::InnerCoverage if stage == Stage::Pixel => {
                // SV_InnerCoverage: 1 when the pixel is guaranteed fully covered, else 0.
                self.m.capability(Capability::FragmentFullyCoveredEXT);
                self.m.extension("SPV_EXT_fragment_fully_covered");
                let src = self.builtin(input, BuiltIn::FullyCoveredEXT, Scalar::Bool, 1, None);
                let dst = self.derived_key("inner_coverage");
                self.io
                    .prologue
                    .push(Prologue::BoolMask { dst, src, ones: 1 });
                self.set_scalar_slot(kind, 0, 0, dst, StorageClass::Private, INT);
            }
            K::OutputDepth | K::OutputDepthGreaterEqual | K::OutputDepthLessEqual
                if stage == Stage::Pixel =>
            {
                let var = self.builtin(output, BuiltIn::FragDepth, Scalar::F32, 1, None);
                self.add_mode(ExecutionMode::DepthReplacing);
                self.io.depth_outputs |= match kind {
                    K::OutputDepthGreaterEqual => 2,
                    K::OutputDepthLessEqual => 4,
                    _ => 1,
                };
                // A conservative-depth mode promises something of every depth the shader
                // writes: it holds only when all the depth outputs declared are of its kind
                // (`oDepthGE` with `oDepthLE` or `oDepth` writes depths either way).
                self.modes.retain(|(m, _)| {
                    !matches!(m, ExecutionMode::DepthGreater | ExecutionMode::DepthLess)
                });
                match self.io.depth_outputs {
                    2 => self.add_mode(ExecutionMode::DepthGreater),
                    4 => self.add_mode(ExecutionMode::DepthLess),
                    _ => {}
                }
                self.set_scalar_slot(kind, 0, 0, var, output, Scalar::F32);
            }
            K::OutputCoverageMask if stage == Stage::Pixel => {
                let var = self.builtin(output, BuiltIn::SampleMask, INT, 1, Some(1));
                let slot = Slot {
                    var,
                    class: output,
                    scalar: INT,
                    count: 1,
                    index: Some(0),
                };
                self.set_slot(kind, 0, 0, slot);
            }
            K::OutputStencilRef if stage == Stage::Pixel => {
                self.m.capability(Capability::StencilExportEXT);
                self.m.extension("SPV_EXT_shader_stencil_export");
                let var = self.builtin(output, BuiltIn::FragStencilRefEXT, INT, 1, None);
                self.add_mode(ExecutionMode::StencilRefReplacingEXT);
                self.set_scalar_slot(kind, 0, 0, var, output, INT);
            }
            K::CycleCounter => {
                if !self.options.features.shader_clock {
                    return Err(self.unsupported(
                        "vCycleCounter (D3D11's debugging cycle counter) needs the device \
                         feature shaderSubgroupClock of VK_KHR_shader_clock \
                         (Features::shader_clock)",
                    ));
                }
                self.m.capability(Capability::ShaderClockKHR);
                self.m.extension("SPV_KHR_shader_clock");
                self.io.clock = Some(ClockState::default());
            }
            other => return Err(self.register_stage_error(other)),
        }
        Ok(())
    }

    /// The error for a register without an index that the stage does not have. D3D11 gives
    /// `vThreadID`, `vThreadGroupID`, `vThreadIDInGroup` and `vThreadIDInGroupFlattened` to
    /// compute shaders; `vCoverage`, `vInnerCoverage`, `oDepth` (and its `GreaterEqual` and
    /// `LessEqual` forms), `oMask` and `oStencilRef` to pixel shaders; `vPrim` to geometry,
    /// hull, domain and pixel shaders; `vGSInstanceID` to geometry shaders;
    /// `vOutputControlPointID`, `vForkInstanceID` and `vJoinInstanceID` to hull shaders and
    /// `vDomain` to domain shaders (d3d11TokenizedProgramFormat.hpp, operand types).
    pub(super) fn register_stage_error(&self, kind: RegisterKind) -> crate::error::Error {
        self.err(format!(
            "{} is not a register of {} shaders (d3d11TokenizedProgramFormat.hpp, operand \
             types)",
            kind.name(),
            self.program.model.stage.prefix()
        ))
    }

    fn interpolation(&mut self, var: Word, scalar: Scalar, mode: Interpolation) -> Result<()> {
        let flat = scalar != Scalar::F32 || mode == Interpolation::Constant;
        if flat {
            self.io.flat.insert(var);
            self.decorate(var, Decoration::Flat, &[]);
            return Ok(());
        }
        self.note_interpolation(var, mode);
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
            self.m.capability(Capability::SampleRateShading);
            self.decorate(var, Decoration::Sample, &[]);
        }
        Ok(())
    }

    /// Code at the start of the entry function: computes the system values that need
    /// converting, and fills the private arrays of relatively addressed inputs.
    pub fn io_prologue(&mut self) -> Result<()> {
        self.prologue_steps()?;
        self.sample_rate_prologue()?;
        for kind in [RegisterKind::Input, RegisterKind::InputPatchConstant] {
            if !self.io.ranged.contains(&(kind as u8)) {
                continue;
            }
            let (array, _) = self.io_array(kind);
            for (register, component, slot) in self.slots_of_kind(kind) {
                let ty = self.m.scalar(slot.scalar);
                let id = match self.derived_value(slot) {
                    Some(value) => value?,
                    None => {
                        let pointer = self.slot_pointer(slot)?;
                        if slot.class == StorageClass::Input {
                            self.read_input(ty, slot.var, pointer)?
                        } else {
                            built(self.m.load(ty, pointer))?
                        }
                    }
                };
                let value = Val {
                    id,
                    scalar: slot.scalar,
                    count: 1,
                };
                let bits = self.cast(value, Scalar::U32)?;
                let element = self.array_element(array, register, component)?;
                built(self.m.store(element, bits.id))?;
            }
        }
        Ok(())
    }

    /// Marks the register files the code addresses relatively (`v[r0.x + n]`, `o[…]`, a
    /// domain shader's `vpc[…]`) as ranged, whether or not a `dcl_indexrange` covers the
    /// access: D3D leaves indexing outside the declared range undefined (Microsoft's
    /// `dcl_indexRange` page), so such a program is valid and the index selects among all
    /// the declared registers. (Per-vertex arrays and a hull shader's registers have their
    /// own relative addressing, see [`super::stage_io`] and [`super::tessellation`].)
    pub(super) fn note_relative_io(&mut self) {
        let program = self.program;
        let stage = program.model.stage;
        if stage == Stage::Hull {
            return;
        }
        for instruction in &program.instructions {
            if instruction.declaration.is_some() {
                continue;
            }
            for operand in program.operands_of(instruction) {
                let file = match operand.kind {
                    RegisterKind::Input | RegisterKind::Output => true,
                    RegisterKind::InputPatchConstant => stage == Stage::Domain,
                    _ => false,
                };
                if file && operand.index_count == 1 && Self::is_relative(operand) {
                    self.io.ranged.insert(operand.kind as u8);
                }
            }
        }
    }

    /// The (register, component, slot) triples of `v#` or `o#`, in register order.
    fn slots_of_kind(&self, kind: RegisterKind) -> Vec<(u32, u8, Slot)> {
        let mut list: Vec<(u32, u8, Slot)> = self
            .io
            .slots
            .iter()
            .filter(|((k, _, _), _)| *k == kind as u8)
            .map(|(&(_, r, c), &slot)| (r, c, slot))
            .collect();
        list.sort_by_key(|&(r, c, _)| (r, c));
        list
    }

    /// The Private `uvec4` array that holds all `v#` or `o#` registers (created on first use,
    /// after every declaration).
    fn io_array(&mut self, kind: RegisterKind) -> (Word, u32) {
        if let Some(&found) = self.io.arrays.get(&(kind as u8)) {
            return found;
        }
        let length = self
            .slots_of_kind(kind)
            .iter()
            .map(|&(r, _, _)| r.saturating_add(1))
            .max()
            .unwrap_or(1)
            .clamp(1, 64);
        let element = self.m.vector(Scalar::U32, 4);
        let ty = self.m.array(element, length);
        let name = self.debug_name(format_args!("{}_array", kind.name()));
        let var = self.global(ty, StorageClass::Private, name);
        self.io.arrays.insert(kind as u8, (var, length));
        (var, length)
    }

    /// A pointer to `array[register][component]` with constant indices.
    fn array_element(&mut self, array: Word, register: u32, component: u8) -> Result<Word> {
        let uint = self.m.scalar(Scalar::U32);
        let pointer = self.m.pointer(StorageClass::Private, uint);
        let r = self.m.constant_u32(register);
        let c = self.m.constant_u32(component as u32 & 3);
        built(self.m.access_chain(pointer, array, &[r, c]))
    }

    /// The register index of a relatively addressed `v#`/`o#` (its last index) as a value;
    /// an error when its registers were not gathered into a private array.
    fn relative_index(&mut self, operand: &Operand) -> Result<Word> {
        if !self.io.ranged.contains(&(operand.kind as u8)) {
            return Err(self.err(format!(
                "{} is addressed relatively, but its registers were not gathered for it",
                operand.kind.name()
            )));
        }
        let index = operand
            .indices()
            .last()
            .copied()
            .ok_or_else(|| self.err(format!("{} needs an index", operand.kind.name())))?;
        self.index_value(index)
    }

    /// For a relatively addressed `v#`/`o#`: a pointer to the component in the private array
    /// (clamped into range) and whether the index was in range.
    fn relative_element(&mut self, operand: &Operand, component: u8) -> Result<(Word, Word)> {
        let index = self.relative_index(operand)?;
        let (array, length) = self.io_array(operand.kind);
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let size = self.m.constant_u32(length);
        let in_range = built(self.m.b.u_less_than(boolean, None, index, size))?;
        let zero = self.m.constant_u32(0);
        let clamped = built(self.m.select(uint, None, in_range, index, zero))?;
        let pointer = self.m.pointer(StorageClass::Private, uint);
        let c = self.m.constant_u32(component as u32 & 3);
        let element = built(self.m.access_chain(pointer, array, &[clamped, c]))?;
        Ok((element, in_range))
    }

    /// Whether an operand is a `v#`/`o#` (or a domain shader's `vpc#`) with a relative index.
    fn is_relative(operand: &Operand) -> bool {
        matches!(
            operand.kind,
            RegisterKind::Input | RegisterKind::Output | RegisterKind::InputPatchConstant
        ) && operand
            .indices()
            .last()
            .is_some_and(|i| i.relative().is_some())
    }

    fn prologue_steps(&mut self) -> Result<()> {
        let steps = self.io.prologue.clone();
        let uint = self.m.scalar(Scalar::U32);
        let float = self.m.scalar(Scalar::F32);
        for step in steps {
            match step {
                Prologue::Difference { dst, a, b } => {
                    let a = built(self.m.load(uint, a))?;
                    let b = built(self.m.load(uint, b))?;
                    let value = built(self.m.b.i_sub(uint, None, a, b))?;
                    self.set_derived(dst, value)?;
                }
                Prologue::ReciprocalW { dst, frag_coord } => {
                    let position = self.frag_coord_value(frag_coord)?;
                    let w = built(self.m.composite_extract(float, position, &[3]))?;
                    let one = self.m.constant_bits(Scalar::F32, 1.0f32.to_bits());
                    let value = built(self.m.b.f_div(float, None, one, w))?;
                    self.set_derived(dst, value)?;
                }
                Prologue::BoolMask { dst, src, ones } => {
                    let boolean = self.m.scalar(Scalar::Bool);
                    let value = built(self.m.load(boolean, src))?;
                    let ones = self.m.constant_u32(ones);
                    let zero = self.m.constant_u32(0);
                    let mask = built(self.m.select(uint, None, value, ones, zero))?;
                    self.set_derived(dst, mask)?;
                }
            }
        }
        Ok(())
    }

    /// Code before every return: when outputs are addressed relatively they live in a
    /// private array until here, where they are copied to the Output variables. (The copy
    /// is idempotent, so running it at a subroutine's return as well is harmless.)
    /// A vertex or domain shader then fills its stream-output variables
    /// ([`super::stream_output`]; a geometry shader does so at each emit).
    pub fn function_exit(&mut self) -> Result<()> {
        self.output_array_exit()?;
        if self.program.model.stage != Stage::Geometry {
            self.stream_output_copy(None)?;
        }
        Ok(())
    }

    fn output_array_exit(&mut self) -> Result<()> {
        let Some(&(array, length)) = self.io.arrays.get(&(RegisterKind::Output as u8)) else {
            return Ok(());
        };
        let uint = self.m.scalar(Scalar::U32);
        for (register, component, slot) in self.slots_of_kind(RegisterKind::Output) {
            if register >= length {
                continue;
            }
            let element = self.array_element(array, register, component)?;
            let id = built(self.m.load(uint, element))?;
            let value = Val {
                id,
                scalar: Scalar::U32,
                count: 1,
            };
            let value = self.cast(value, slot.scalar)?;
            let pointer = self.slot_pointer(slot)?;
            built(self.m.store(pointer, value.id))?;
        }
        Ok(())
    }

    /// I/O-specific instructions: the pull-model interpolation `eval_*`.
    pub fn io_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        if !matches!(
            instruction.opcode,
            Opcode::EvalCentroid | Opcode::EvalSampleIndex | Opcode::EvalSnapped
        ) {
            return Ok(false);
        }
        let dsts = self.program.dsts(instruction);
        let srcs = self.program.srcs(instruction);
        let (Some(dst), Some(src)) = (dsts.first().copied(), srcs.first().copied()) else {
            return Err(self.err("an eval instruction needs a destination and a source"));
        };
        if src.kind != RegisterKind::Input {
            return Err(self.err("eval_* interpolates an input register"));
        }
        self.m.capability(Capability::InterpolationFunction);
        let extra = match instruction.opcode {
            Opcode::EvalSampleIndex => {
                let operand = srcs
                    .get(1)
                    .copied()
                    .ok_or_else(|| self.err("eval_sample_index needs a sample index"))?;
                let value = self.load_scalar(&operand, Scalar::I32)?;
                Some((INTERPOLATE_AT_SAMPLE, value.id))
            }
            Opcode::EvalSnapped => {
                let operand = srcs
                    .get(1)
                    .copied()
                    .ok_or_else(|| self.err("eval_snapped needs an offset"))?;
                // D3D's offsets are 4-bit signed integers in 1/16 pixel, in [-8, 7].
                let value = self.load(&operand, Scalar::I32, 0b11)?;
                let int2 = self.m.vector(Scalar::I32, 2);
                let shift = self.splat_bits(Scalar::I32, 28, 2);
                let up = built(self.m.b.shift_left_logical(int2, None, value.id, shift))?;
                let down = built(self.m.b.shift_right_arithmetic(int2, None, up, shift))?;
                let float2 = self.m.vector(Scalar::F32, 2);
                let as_float = built(self.m.b.convert_s_to_f(float2, None, down))?;
                let sixteenth = self.m.constant_bits(Scalar::F32, (1.0f32 / 16.0).to_bits());
                let offset = built(
                    self.m
                        .b
                        .vector_times_scalar(float2, None, as_float, sixteenth),
                )?;
                Some((INTERPOLATE_AT_OFFSET, offset))
            }
            _ => None,
        };
        let extra = extra.unwrap_or((INTERPOLATE_AT_CENTROID, 0));
        let mut parts = Vec::new();
        for component in mask_components(dst.mask()) {
            let from = match src.selection {
                crate::ir::Selection::Swizzle(s) => s[component as usize & 3],
                crate::ir::Selection::Select1(c) => c,
                crate::ir::Selection::Mask(_) => component,
            };
            let part = if Self::is_relative(&src) {
                self.eval_relative(&src, from, extra)?
            } else {
                let slot = self.slot_of(&src, from)?;
                self.eval_slot(&src, from, slot, extra)?
            };
            parts.push(part);
        }
        if parts.is_empty() {
            return Ok(true);
        }
        let value = self.compose(Scalar::F32, &parts)?;
        let value = self.modify(value, src.modifier)?;
        self.store(&dst, value, instruction.saturate)?;
        Ok(true)
    }

    /// One component of `eval_*` (`extra` is the interpolation function and its extra
    /// operand, 0 for none): `Interpolate*` of an interpolated float input; the input itself
    /// for a constant-interpolated one (integer inputs and system values are constant:
    /// Microsoft's `EvaluateAttribute*` pages allow attributes with constant interpolation,
    /// whose sample index is ignored). Returns the value's bits as a float.
    fn eval_slot(
        &mut self,
        operand: &Operand,
        component: u8,
        slot: Slot,
        (number, extra): (u32, Word),
    ) -> Result<Word> {
        let frag_coord = self
            .io
            .builtins
            .get(&(StorageClass::Input as u32, BuiltIn::FragCoord as u32))
            .copied();
        let position = frag_coord == Some(slot.var)
            || (slot.class == StorageClass::Private && slot.scalar == Scalar::F32);
        if let (true, Some(frag_coord)) = (position, frag_coord) {
            return self.eval_position(frag_coord, component, (number, extra));
        }
        let interpolated = slot.class == StorageClass::Input
            && slot.scalar == Scalar::F32
            && !self.io.flat.contains(&slot.var);
        // Clip and cull distances are interpolated inputs too (built-in arrays).
        if !interpolated {
            let value = self.load_io_component(operand, component)?;
            return Ok(self.cast(value, Scalar::F32)?.id);
        }
        let float = self.m.scalar(Scalar::F32);
        let glsl = self.m.glsl();
        let pointer = self.slot_pointer(slot)?;
        let mut operands: crate::spirv::builder::Operands =
            smallvec::smallvec![SpvOperand::IdRef(pointer)];
        if number != INTERPOLATE_AT_CENTROID {
            operands.push(SpvOperand::IdRef(extra));
        }
        built(self.m.b.ext_inst(float, None, glsl, number, operands))
    }

    /// `eval_*` of a relatively addressed input component (inside a `dcl_indexrange`): the
    /// evaluation of every declared input register's component, selected by the index (0
    /// outside them, as a relative read).
    fn eval_relative(
        &mut self,
        operand: &Operand,
        component: u8,
        extra: (u32, Word),
    ) -> Result<Word> {
        let index = self.relative_index(operand)?;
        let float = self.m.scalar(Scalar::F32);
        let boolean = self.m.scalar(Scalar::Bool);
        let mut result = self.m.constant_bits(Scalar::F32, 0);
        for (register, c, slot) in self.slots_of_kind(operand.kind) {
            if c != component {
                continue;
            }
            let mut fixed = *operand;
            fixed.indices[operand.index_count as usize - 1] = crate::ir::Index::Imm32(register);
            let value = self.eval_slot(&fixed, component, slot, extra)?;
            let r = self.m.constant_u32(register);
            let hit = built(self.m.b.i_equal(boolean, None, index, r))?;
            result = built(self.m.select(float, None, hit, value, result))?;
        }
        Ok(result)
    }

    /// The slot of one component of an I/O register operand.
    pub(super) fn slot_of(&self, operand: &Operand, component: u8) -> Result<Slot> {
        let register = match operand.kind {
            RegisterKind::Input | RegisterKind::Output | RegisterKind::InputPatchConstant => {
                let index =
                    operand.indices().last().copied().ok_or_else(|| {
                        self.err(format!("{} needs an index", operand.kind.name()))
                    })?;
                if operand.index_count > 1 {
                    return Err(self.one_index_error(operand));
                }
                index.as_imm32().ok_or_else(|| {
                    self.err(format!(
                        "{} is addressed relatively, but its registers were not gathered for it",
                        operand.kind.name()
                    ))
                })?
            }
            _ => 0,
        };
        let key = (operand.kind as u8, register, component);
        self.io.slots.get(&key).copied().ok_or_else(|| {
            self.err(format!(
                "{}{} component {} is used but not declared",
                operand.kind.name(),
                if matches!(operand.kind, RegisterKind::Input | RegisterKind::Output) {
                    register.to_string()
                } else {
                    String::new()
                },
                component
            ))
        })
    }

    /// A pointer to a slot's component (the variable itself for scalars).
    pub(super) fn slot_pointer(&mut self, slot: Slot) -> Result<Word> {
        match slot.index {
            None => Ok(slot.var),
            Some(i) => {
                let element = self.m.scalar(slot.scalar);
                let pointer = self.m.pointer(slot.class, element);
                let index = self.m.constant_u32(i);
                built(self.m.access_chain(pointer, slot.var, &[index]))
            }
        }
    }

    /// Reads one component of an input or system-value register.
    pub fn load_io_component(&mut self, operand: &Operand, component: u8) -> Result<Val> {
        if operand.kind == RegisterKind::CycleCounter {
            return self.load_clock_component(component);
        }
        if let Some(value) = self.stage_load(operand, component)? {
            return Ok(value);
        }
        if Self::is_relative(operand) {
            if operand.kind == RegisterKind::Output {
                return Err(self.err(format!("{} cannot be read", operand.kind.name())));
            }
            let (element, in_range) = self.relative_element(operand, component)?;
            let uint = self.m.scalar(Scalar::U32);
            let value = built(self.m.load(uint, element))?;
            let zero = self.m.constant_u32(0);
            let id = built(self.m.select(uint, None, in_range, value, zero))?;
            return Ok(Val {
                id,
                scalar: Scalar::U32,
                count: 1,
            });
        }
        let slot = self.slot_of(operand, component)?;
        let ty = self.m.scalar(slot.scalar);
        let id = match (slot.class, slot.index) {
            // A component of an input vector: an element of the vector, loaded once per
            // block (inputs do not change while the shader runs).
            (StorageClass::Input, Some(index)) if slot.count > 1 => {
                let vector = self.input_vector(slot)?;
                built(self.m.composite_extract(ty, vector, &[index]))?
            }
            _ => match self.derived_value(slot) {
                Some(value) => value?,
                None => {
                    let pointer = self.slot_pointer(slot)?;
                    built(self.m.load(ty, pointer))?
                }
            },
        };
        Ok(Val {
            id,
            scalar: slot.scalar,
            count: 1,
        })
    }

    /// Reads `vCycleCounter.x` (the low 32 bits of the 64-bit counter) or `.y` (the high
    /// 32 bits): the two components of one `OpReadClockKHR` (subgroup scope) made once per
    /// instruction and place, so the halves an instruction reads belong together.
    fn load_clock_component(&mut self, component: u8) -> Result<Val> {
        let Some(clock) = &self.io.clock else {
            return Err(
                self.err("vCycleCounter is read but not declared (dcl_input vCycleCounter)")
            );
        };
        if component > 1 {
            return Err(self.err(format!(
                "vCycleCounter has two components (.x the low and .y the high 32 bits of the \
                 counter); component {} is read",
                ['x', 'y', 'z', 'w'][usize::from(component & 3)]
            )));
        }
        let (at, place) = (self.at, self.m.place());
        let clock = match clock.last {
            Some(read) if read.at == at && read.place == place => read.id,
            _ => {
                let uvec2 = self.m.vector(Scalar::U32, 2);
                let subgroup = self.m.constant_u32(spirv::Scope::Subgroup as u32);
                let id = built(self.m.b.read_clock_khr(uvec2, None, subgroup))?;
                if let Some(clock) = &mut self.io.clock {
                    clock.last = Some(ClockRead { at, place, id });
                }
                id
            }
        };
        let uint = self.m.scalar(Scalar::U32);
        let id = built(
            self.m
                .composite_extract(uint, clock, &[u32::from(component)]),
        )?;
        Ok(Val {
            id,
            scalar: Scalar::U32,
            count: 1,
        })
    }

    /// A vertex or pixel shader's read of all `count` components of an input vector
    /// variable, in order: the vector (see [`Emitter::input_vector`]); `None` for any other
    /// read.
    pub(super) fn input_whole_vector(
        &mut self,
        operand: &Operand,
        count: u32,
    ) -> Result<Option<Val>> {
        if !matches!(self.program.model.stage, Stage::Vertex | Stage::Pixel)
            || operand.index_count != 1
            || Self::is_relative(operand)
        {
            return Ok(None);
        }
        let Some(slot) =
            self.whole_vector_slot(operand, StorageClass::Input, 0..count as u8, count)
        else {
            return Ok(None);
        };
        let id = self.input_vector(slot)?;
        Ok(Some(Val {
            id,
            scalar: slot.scalar,
            count,
        }))
    }

    /// The slot of a vector variable of `class` with `count` components when `components`
    /// of the operand's register are all of it, in order (the i-th is element i); `None`
    /// otherwise, or when a component is not declared.
    fn whole_vector_slot(
        &self,
        operand: &Operand,
        class: StorageClass,
        components: impl Iterator<Item = u8>,
        count: u32,
    ) -> Option<Slot> {
        let mut whole: Option<Slot> = None;
        for (position, component) in components.enumerate() {
            let slot = self.slot_of(operand, component).ok()?;
            let in_order = slot.class == class
                && slot.count == count
                && slot.index == Some(position as u32)
                && whole.is_none_or(|w| w.var == slot.var && w.scalar == slot.scalar);
            if !in_order {
                return None;
            }
            whole = Some(slot);
        }
        whole
    }

    /// The whole vector of an input vector slot's variable, loaded once per block.
    fn input_vector(&mut self, slot: Slot) -> Result<Word> {
        self.read_only_vector(slot.var, 0, |e| {
            let ty = e.m.vector(slot.scalar, slot.count);
            e.read_input(ty, slot.var, slot.var)
        })
    }

    /// Writes `value` to an output register in one store when the operand's mask covers every
    /// component of one output vector variable, in order (a vertex or pixel shader's `o#`, not
    /// relatively addressed or ranged); false when it does not, and the caller writes
    /// component by component. (What `merge_stores` and `simplify` would make of the
    /// component stores.)
    pub fn store_output_vector(&mut self, operand: &Operand, value: Val) -> Result<bool> {
        if self.dropped_output(operand) {
            return Ok(true);
        }
        if !matches!(self.program.model.stage, Stage::Vertex | Stage::Pixel)
            || operand.kind != RegisterKind::Output
            || operand.index_count != 1
            || Self::is_relative(operand)
            || self.io.ranged.contains(&(operand.kind as u8))
        {
            return Ok(false);
        }
        let mask = operand.mask();
        let count = mask.count_ones();
        // Vector variables have two or more components (a slot of count 1 is a scalar or an
        // array element, such as a clip distance).
        if count < 2 || value.count != count {
            return Ok(false);
        }
        let Some(slot) =
            self.whole_vector_slot(operand, StorageClass::Output, mask_components(mask), count)
        else {
            return Ok(false);
        };
        let value = self.cast(value, slot.scalar)?;
        if self.outputs_held(slot) {
            built(self.m.b.defer_output_store(slot.var, value.id))?;
        } else {
            built(self.m.store(slot.var, value.id))?;
        }
        Ok(true)
    }

    /// Writes one component of an output register.
    pub fn store_io_component(
        &mut self,
        operand: &Operand,
        component: u8,
        value: Val,
    ) -> Result<()> {
        if self.stage_store(operand, component, value)? {
            return Ok(());
        }
        if self.dropped_output(operand) {
            return Ok(());
        }
        if Self::is_relative(operand) {
            if operand.kind != RegisterKind::Output {
                return Err(self.err(format!("{} cannot be written", operand.kind.name())));
            }
            if self.program.model.stage == Stage::Pixel {
                return Err(self.err(
                    "a pixel shader's output addressed relatively: pixel-shader output \
                     registers are not indexable (Microsoft's dcl_indexRange page)",
                ));
            }
            let (element, in_range) = self.relative_element(operand, component)?;
            let bits = self.cast(value, Scalar::U32)?;
            return self.guarded(in_range, |e| built(e.m.store(element, bits.id)));
        }
        let slot = self.slot_of(operand, component)?;
        if slot.class != StorageClass::Output {
            return Err(self.err(format!("{} cannot be written", operand.kind.name())));
        }
        if operand.kind == RegisterKind::Output && self.io.ranged.contains(&(operand.kind as u8)) {
            // Outputs live in the private array until the function exits.
            let register = self.immediate_index(operand, 0)?;
            let (array, length) = self.io_array(RegisterKind::Output);
            if register < length {
                let bits = self.cast(value, Scalar::U32)?;
                let element = self.array_element(array, register, component)?;
                return built(self.m.store(element, bits.id));
            }
        }
        let value = self.cast(value, slot.scalar)?;
        if let (Some(index), true) = (slot.index, self.outputs_held(slot)) {
            // Held to the end of the block: components written there become one store.
            let element = self.m.scalar(slot.scalar);
            let target = ComponentTarget {
                vector_type: self.m.vector(slot.scalar, slot.count),
                count: slot.count,
                pointer_type: self.m.pointer(slot.class, element),
                index: self.m.constant_u32(index),
            };
            return built(
                self.m
                    .b
                    .defer_component_store(slot.var, index, value.id, target),
            );
        }
        let pointer = self.slot_pointer(slot)?;
        built(self.m.store(pointer, value.id))
    }

    /// Whether stores to an output vector are held to the end of their block: in vertex and
    /// pixel shaders, which never read their outputs back (unless stream output captures
    /// them), for vector variables outside an index range.
    fn outputs_held(&self, slot: Slot) -> bool {
        matches!(self.program.model.stage, Stage::Vertex | Stage::Pixel)
            && slot.class == StorageClass::Output
            && slot.count >= 2
            && !self.io.stage.xfb.captures_any()
            && !self.io.ranged.contains(&(RegisterKind::Output as u8))
    }
}
