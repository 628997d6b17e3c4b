//! ChunkInfo: what a translated shader needs from the application — every descriptor range
//! with its chosen binding, the input and output signatures, push constants, the thread-group
//! size and the geometry/tessellation parameters.
//!
//! [`scan`] gathers it from a program (and its container's signatures) with the same binding
//! pass the translation uses, so the bindings listed are the module's; [`ShaderReflection::to_json`]
//! is the form `dxbc2spirv reflect IN.dxbc --json` prints. `push_constants` lists the
//! constant buffers a binding map placed in push constants (register, space, byte offset and
//! size). A signature element's `placement` is where it sits in Vulkan's location space
//! (location, component, the vector it is part of, index; null for built-ins; see
//! [`crate::interface`]). A signature element's `rw_mask` is the
//! container's raw read/write mask (for inputs the components the shader reads; for outputs
//! what the compiler stored, which fxc uses for the components never written).
//!
//! A program with interfaces also gets a [`ClassLinkage`] record: where its class-instance
//! data lives (constant buffer `cb15` of space 0, also listed among the ranges with the name
//! `$ClassLinkage`), how many slots it has and the layout of each (see
//! `src/spirv/linkage.rs`), and the interfaces and function tables the program declares,
//! so that a layer can turn D3D11's class instances into the buffer's contents.
//!
//! An SM5.0 program that reads a constant-buffer register chosen at run time
//! (`cb[r1.y + 0][r1.x + 0]`, fxc's class-linkage form) reads any of D3D11's slots 0–13 of
//! space 0: it gets a [`DynamicConstantBuffers`] record (`dynamic_constant_buffers` in the
//! JSON, absent otherwise) listing each slot's binding, and the slots it does not declare
//! are also listed among the ranges, named `$DynamicSlot`, 4096 vectors long.

use serde_json::{json, Value};

use crate::analysis::binding_plan::BindingPlan;
pub use crate::analysis::binding_plan::{ArrayShape, DescriptorBinding, UavUsage};
use crate::bindings::{Binding, BindingMapper};
use crate::container::{ChunkInfo, Signature};
use crate::error::Result;
use crate::ir::{Declaration, Program, RegisterKind};

/// One descriptor range and its binding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RangeInfo {
    /// The HLSL name from the container's resource definitions (RDEF), when present.
    pub name: Option<String>,
    /// The binding pass's record (class, kind, range, binding, shape, UAV usage, counter).
    pub binding: DescriptorBinding,
    /// The resource dimension (`texture2d`, `buffer`, `raw_buffer`, `structured_buffer`,
    /// `constant_buffer`), `None` for samplers.
    pub dimension: Option<&'static str>,
    /// The component return types of a typed resource.
    pub return_type: Option<[&'static str; 4]>,
    /// The structure stride of a structured buffer.
    pub stride: Option<u32>,
    /// The size of a constant buffer in 16-byte vectors.
    pub cbuffer_size: Option<u32>,
    /// The sampler mode of a sampler.
    pub sampler_mode: Option<&'static str>,
}

/// The geometry and tessellation parameters a program declares.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct StageParameters {
    /// `dcl_inputprimitive`.
    pub input_primitive: Option<String>,
    /// `dcl_outputtopology`.
    pub output_topology: Option<&'static str>,
    /// `dcl_maxout`.
    pub max_output_vertices: Option<u32>,
    /// `dcl_gsinstances`.
    pub instances: Option<u32>,
    /// `dcl_input_control_point_count`.
    pub input_control_points: Option<u32>,
    /// `dcl_output_control_point_count`.
    pub output_control_points: Option<u32>,
    /// `dcl_tessellator_domain`.
    pub domain: Option<&'static str>,
    /// `dcl_tessellator_partitioning`.
    pub partitioning: Option<&'static str>,
    /// `dcl_tessellator_output_primitive`.
    pub output_primitive: Option<&'static str>,
    /// `dcl_hs_max_tessfactor`.
    pub max_tess_factor: Option<f32>,
}

/// One `dcl_interface`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceInfo {
    /// The interface id (`fpN`), which is also its first slot.
    pub id: u32,
    /// The number of slots (array elements).
    pub slots: u32,
    /// The number of call sites (entries of each compatible function table).
    pub call_sites: u32,
    /// Whether the program indexes the array dynamically.
    pub dynamic: bool,
    /// The compatible function-table ids.
    pub tables: Vec<u32>,
}

/// The class-instance data of a program with interfaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassLinkage {
    /// The uniform buffer's binding record (constant buffer `cb15` of space 0).
    pub binding: DescriptorBinding,
    /// The number of interface slots; the buffer holds two `uvec4`s per slot: vector `2·s`
    /// has the slot's function-table id in x (0 in y, z, w), vector `2·s + 1` is `this[s]`.
    pub slots: u32,
    /// The declared interfaces.
    pub interfaces: Vec<InterfaceInfo>,
    /// The declared function tables: (table id, function-body ids by call site).
    pub function_tables: Vec<(u32, Vec<u32>)>,
    /// The container's IFCE chunk, when present: the class types, the class instances the
    /// compiler laid out (their default `this[]` data) and, per slot, the function table of
    /// each class type, which is what a layer writes into a slot's table id.
    pub classes: Option<crate::container::ClassInterfaces>,
}

/// One of D3D11's constant-buffer slots that a run-time constant-buffer register may select.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicSlot {
    /// The slot (register `cbN` of space 0).
    pub register: u32,
    /// Whether the program declares `cbN` itself (otherwise it was bound for the run-time
    /// index, as `cbN` would be).
    pub declared: bool,
    /// The binding.
    pub binding: Binding,
}

/// The constant buffers an SM5.0 program reads through a register chosen at run time:
/// D3D11's slots `0..D3D11_CB_SLOTS` of space 0 (a register outside them reads 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicConstantBuffers {
    /// The register space (0).
    pub space: u32,
    /// Every slot, in register order.
    pub slots: Vec<DynamicSlot>,
}

/// Everything [`scan`] finds.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ShaderReflection {
    /// The binding pass's plan ([`BindingPlan::locate`] finds where a register lives).
    pub plan: BindingPlan,
    /// The shader model (`ps_5_1`).
    pub model: String,
    /// Descriptor ranges in declaration order.
    pub ranges: Vec<RangeInfo>,
    /// Input signature.
    pub inputs: Option<Signature>,
    /// Output signature.
    pub outputs: Option<Signature>,
    /// Patch-constant signature.
    pub patch_constants: Option<Signature>,
    /// `dcl_thread_group`.
    pub thread_group: Option<[u32; 3]>,
    /// Geometry and tessellation parameters.
    pub stage: StageParameters,
    /// The class-instance data, for a program with interfaces.
    pub class_linkage: Option<ClassLinkage>,
    /// The constant-buffer slots read through a run-time register index, if any.
    pub dynamic_constant_buffers: Option<DynamicConstantBuffers>,
    /// Where each signature element sits in Vulkan's location space (parallel to the
    /// signatures' elements; `None` for built-ins): the register scheme, or the interface
    /// map's places ([`crate::interface`]).
    pub placements: crate::interface::Placements,
    /// The constant buffers placed in push constants, by offset (see
    /// [`crate::bindings::PushConstantPlacement`]); the layer's pipeline layout needs a
    /// `VkPushConstantRange` covering them for the stage.
    pub push_constants: Vec<PushConstantInfo>,
}

/// A constant buffer a binding map placed in push constants
/// ([`crate::bindings::PushConstantPlacement`]): the bytes `offset..offset + size` of the
/// push-constant block hold its vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushConstantInfo {
    /// The register (`cbN`; the lower bound in SM5.1).
    pub register: u32,
    /// The register space.
    pub space: u32,
    /// The byte offset of its first vector.
    pub offset: u32,
    /// Its size in bytes (16 per vector the shader declares).
    pub size: u32,
    /// The bytes the binding map gives it, when it says.
    pub provided_size: Option<u32>,
}

/// How the translation lays out the stage interface, for [`scan_with`]: the interface map
/// and dual-source blending of [`crate::TranslateOptions`].
#[derive(Debug, Clone, Copy, Default)]
pub struct InterfaceOptions<'a> {
    /// The interface map, if any.
    pub map: Option<&'a crate::interface::InterfaceMap>,
    /// Dual-source blending (a pixel shader's `o1` at location 0, index 1).
    pub dual_source_blending: bool,
}

/// Scans a program for its descriptor ranges (bound by `mapper`) and interface (by
/// register: `Location = register`).
#[doc(hidden)]
pub fn scan(
    program: &Program,
    reflection: &ChunkInfo,
    mapper: &dyn BindingMapper,
) -> Result<ShaderReflection> {
    scan_with(program, reflection, mapper, InterfaceOptions::default())
}

/// [`scan`] with the stage interface laid out as `interface` says.
#[doc(hidden)]
pub fn scan_with(
    program: &Program,
    reflection: &ChunkInfo,
    mapper: &dyn BindingMapper,
    interface: InterfaceOptions<'_>,
) -> Result<ShaderReflection> {
    let plan = BindingPlan::build(program, mapper)?;
    let placements = place(program, reflection, interface)?;
    let scanned = scan_program(program, reflection, plan, placements)?;
    Ok(with_interface(
        scanned,
        Interface {
            inputs: reflection.input.clone(),
            outputs: reflection.output.clone(),
            patch_constants: reflection.patch_constant.clone(),
            classes: reflection.interfaces.clone(),
        },
    ))
}

/// The container's signatures and class-linkage record, as a scan reports them.
struct Interface {
    inputs: Option<crate::container::Signature>,
    outputs: Option<crate::container::Signature>,
    patch_constants: Option<crate::container::Signature>,
    classes: Option<crate::container::ClassInterfaces>,
}

/// A scan's result with the container's interface filled in.
fn with_interface(mut scanned: ShaderReflection, interface: Interface) -> ShaderReflection {
    scanned.inputs = interface.inputs;
    scanned.outputs = interface.outputs;
    scanned.patch_constants = interface.patch_constants;
    if let Some(linkage) = &mut scanned.class_linkage {
        linkage.classes = interface.classes;
    }
    scanned
}

/// [`scan`] for a caller that is done with the container's reflection: its signatures and
/// class-linkage record move into the result instead of being copied.
#[doc(hidden)]
pub fn scan_owned(
    program: &Program,
    reflection: ChunkInfo,
    mapper: &dyn BindingMapper,
    interface: InterfaceOptions<'_>,
) -> Result<ShaderReflection> {
    let plan = BindingPlan::build(program, mapper)?;
    let placements = place(program, &reflection, interface)?;
    scan_owned_with_plan(program, reflection, plan, placements)
}

/// The placements of a program's signature elements as `interface` lays them out.
fn place(
    program: &Program,
    reflection: &ChunkInfo,
    interface: InterfaceOptions<'_>,
) -> Result<crate::interface::Placements> {
    crate::interface::place_program(
        program,
        reflection,
        interface.map,
        interface.dual_source_blending,
    )
}

/// [`scan_owned`] with the program's binding plan and placements already made (by the
/// translation, whose module uses the same).
pub(crate) fn scan_owned_with_plan(
    program: &Program,
    mut reflection: ChunkInfo,
    plan: BindingPlan,
    placements: crate::interface::Placements,
) -> Result<ShaderReflection> {
    let scanned = scan_program(program, &reflection, plan, placements)?;
    Ok(with_interface(
        scanned,
        Interface {
            inputs: reflection.input.take(),
            outputs: reflection.output.take(),
            patch_constants: reflection.patch_constant.take(),
            classes: reflection.interfaces.take(),
        },
    ))
}

/// Everything [`scan`] finds but the signatures and the IFCE record (left `None`).
fn scan_program(
    program: &Program,
    reflection: &ChunkInfo,
    plan: BindingPlan,
    placements: crate::interface::Placements,
) -> Result<ShaderReflection> {
    let mut ranges = Vec::new();
    let mut stage_parameters = StageParameters::default();
    let mut thread_group = None;
    let mut interfaces = Vec::new();
    let mut function_tables = Vec::new();
    for instruction in &program.instructions {
        let Some(declaration) = &instruction.declaration else {
            continue;
        };
        let info = |register: RegisterKind, id: u32| -> Option<RangeInfo> {
            let binding = *plan.get(register, id)?;
            Some(RangeInfo {
                name: rdef_name(reflection, &binding),
                binding,
                dimension: None,
                return_type: None,
                stride: None,
                cbuffer_size: None,
                sampler_mode: None,
            })
        };
        use RegisterKind as K;
        let range = match declaration {
            Declaration::Resource {
                range,
                dimension,
                return_type,
                ..
            }
            | Declaration::UavTyped {
                range,
                dimension,
                return_type,
                ..
            } => {
                let register = if matches!(declaration, Declaration::Resource { .. }) {
                    K::Resource
                } else {
                    K::UnorderedAccessView
                };
                info(register, range.id).map(|i| RangeInfo {
                    dimension: Some(dimension.name()),
                    return_type: Some(return_type.map(|r| r.name())),
                    ..i
                })
            }
            Declaration::ResourceRaw { range, .. } => info(K::Resource, range.id),
            Declaration::UavRaw { range, .. } => info(K::UnorderedAccessView, range.id),
            Declaration::ResourceStructured { range, stride, .. } => info(K::Resource, range.id)
                .map(|i| RangeInfo {
                    stride: Some(*stride),
                    ..i
                }),
            Declaration::UavStructured { range, stride, .. } => {
                info(K::UnorderedAccessView, range.id).map(|i| RangeInfo {
                    stride: Some(*stride),
                    ..i
                })
            }
            Declaration::ConstantBuffer { range, size, .. } => info(K::ConstantBuffer, range.id)
                .map(|i| RangeInfo {
                    dimension: Some("constant_buffer"),
                    cbuffer_size: Some(*size),
                    ..i
                }),
            Declaration::Sampler { range, mode, .. } => {
                info(K::Sampler, range.id).map(|i| RangeInfo {
                    sampler_mode: Some(mode.name()),
                    ..i
                })
            }
            Declaration::ThreadGroup(size) => {
                thread_group = Some(*size);
                None
            }
            Declaration::GsInputPrimitive(p) => {
                stage_parameters.input_primitive = p.name();
                None
            }
            Declaration::GsOutputTopology(t) => {
                stage_parameters.output_topology = Some(t.name());
                None
            }
            Declaration::MaxOutputVertexCount(n) => {
                stage_parameters.max_output_vertices = Some(*n);
                None
            }
            Declaration::GsInstanceCount(n) => {
                stage_parameters.instances = Some(*n);
                None
            }
            Declaration::InputControlPointCount(n) => {
                stage_parameters.input_control_points = Some(*n);
                None
            }
            Declaration::OutputControlPointCount(n) => {
                stage_parameters.output_control_points = Some(*n);
                None
            }
            Declaration::TessDomain(d) => {
                stage_parameters.domain = Some(d.name());
                None
            }
            Declaration::TessPartitioning(p) => {
                stage_parameters.partitioning = Some(p.name());
                None
            }
            Declaration::TessOutputPrimitive(p) => {
                stage_parameters.output_primitive = Some(p.name());
                None
            }
            Declaration::HsMaxTessFactor(bits) => {
                stage_parameters.max_tess_factor = Some(f32::from_bits(*bits));
                None
            }
            Declaration::Interface {
                id,
                dynamic,
                table_length,
                array_length,
                tables,
            } => {
                interfaces.push(InterfaceInfo {
                    id: *id,
                    slots: (*array_length).max(1),
                    call_sites: *table_length,
                    dynamic: *dynamic,
                    tables: program.data_slice(*tables).to_vec(),
                });
                None
            }
            Declaration::FunctionTable { id, bodies } => {
                function_tables.push((*id, program.data_slice(*bodies).to_vec()));
                None
            }
            _ => None,
        };
        let range = range.map(|i| match declaration {
            Declaration::ResourceRaw { .. } | Declaration::UavRaw { .. } => RangeInfo {
                dimension: Some("raw_buffer"),
                ..i
            },
            Declaration::ResourceStructured { .. } | Declaration::UavStructured { .. } => {
                RangeInfo {
                    dimension: Some("structured_buffer"),
                    ..i
                }
            }
            _ => i,
        });
        ranges.extend(range);
    }
    let slots = crate::analysis::binding_plan::interface_slot_count(program);
    let linkage_binding = plan.get(
        RegisterKind::ConstantBuffer,
        crate::bindings::CLASS_LINKAGE_REGISTER,
    );
    let class_linkage = match linkage_binding {
        Some(binding) if slots > 0 => {
            ranges.push(RangeInfo {
                name: Some("$ClassLinkage".to_string()),
                binding: *binding,
                dimension: Some("constant_buffer"),
                return_type: None,
                stride: None,
                cbuffer_size: Some(slots.saturating_mul(2)),
                sampler_mode: None,
            });
            Some(ClassLinkage {
                binding: *binding,
                slots,
                interfaces,
                function_tables,
                classes: None,
            })
        }
        _ => None,
    };
    let dynamic_constant_buffers = dynamic_constant_buffers(&plan, &mut ranges);
    let model = program.model;
    let push_constants = plan
        .push_constants
        .iter()
        .map(|p| PushConstantInfo {
            register: p.range.lower,
            space: p.range.space,
            offset: p.offset,
            size: p.size,
            provided_size: p.provided,
        })
        .collect();
    Ok(ShaderReflection {
        placements,
        push_constants,
        plan,
        model: model.name(),
        ranges,
        inputs: None,
        outputs: None,
        patch_constants: None,
        thread_group,
        stage: stage_parameters,
        class_linkage,
        dynamic_constant_buffers,
    })
}

/// The record of the slots a run-time constant-buffer register reads (see
/// [`BindingPlan::dynamic_constant_buffers`]); adds the slots the program does not declare
/// to `ranges`.
fn dynamic_constant_buffers(
    plan: &BindingPlan,
    ranges: &mut Vec<RangeInfo>,
) -> Option<DynamicConstantBuffers> {
    if !plan.dynamic_constant_buffers {
        return None;
    }
    let mut slots = Vec::new();
    for register in 0..crate::ir::D3D11_CB_SLOTS {
        let Some(binding) = plan.get(RegisterKind::ConstantBuffer, register) else {
            continue;
        };
        if binding.undeclared_slot {
            ranges.push(RangeInfo {
                name: Some("$DynamicSlot".to_string()),
                binding: *binding,
                dimension: Some("constant_buffer"),
                return_type: None,
                stride: None,
                cbuffer_size: Some(4096),
                sampler_mode: None,
            });
        }
        slots.push(DynamicSlot {
            register,
            declared: !binding.undeclared_slot,
            binding: binding.binding,
        });
    }
    Some(DynamicConstantBuffers { space: 0, slots })
}

/// The RDEF name of a range: same class, space and first register.
fn rdef_name(reflection: &ChunkInfo, binding: &DescriptorBinding) -> Option<String> {
    use crate::container::ShaderInputType as T;
    let resources = reflection.resources.as_ref()?;
    resources
        .bindings
        .iter()
        .find(|r| {
            let register = match r.input_type {
                T::CBuffer => RegisterKind::ConstantBuffer,
                T::Sampler => RegisterKind::Sampler,
                t if t.is_uav() => RegisterKind::UnorderedAccessView,
                _ => RegisterKind::Resource,
            };
            register == binding.register
                && r.space == binding.range.space
                && r.bind_point == binding.range.lower
        })
        .map(|r| r.name.clone())
}

fn binding_json(binding: &Binding) -> Value {
    json!({
        "set": binding.set,
        "binding": binding.binding,
        "array_offset": binding.array_offset,
    })
}

fn usage_json(usage: &UavUsage) -> Value {
    json!({ "read": usage.read, "atomic": usage.atomic, "counter": usage.counter })
}

fn mask_text(mask: u8) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect()
}

fn signature_json(
    signature: &Option<Signature>,
    placements: &[Option<crate::interface::Placement>],
) -> Value {
    let Some(signature) = signature else {
        return Value::Null;
    };
    Value::Array(
        signature
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| {
                json!({
                    "semantic": e.semantic_name,
                    "index": e.semantic_index,
                    "register": e.register,
                    "mask": mask_text(e.mask),
                    "rw_mask": mask_text(e.rw_mask),
                    "system_value": e.system_value.fxc_name().map_or_else(
                        || format!("{}", e.system_value.raw()),
                        |n| n.to_string(),
                    ),
                    "component_type": match e.component_type.raw() {
                        1 => "uint",
                        2 => "int",
                        3 => "float",
                        _ => "unknown",
                    },
                    "stream": e.stream,
                    "placement": placements
                        .get(i)
                        .copied()
                        .flatten()
                        .map(|p| p.to_json()),
                })
            })
            .collect(),
    )
}

impl RangeInfo {
    /// The JSON form of one range.
    pub fn to_json(&self) -> Value {
        let b = &self.binding;
        let uav = b.register == RegisterKind::UnorderedAccessView;
        json!({
            "name": self.name,
            "class": b.key.class.name(),
            "kind": b.key.kind.name(),
            "id": b.range.id,
            "dimension": self.dimension,
            "return_type": self.return_type,
            "space": b.range.space,
            "lower_bound": b.range.lower,
            "count": b.range.count(),
            "raw": self.dimension == Some("raw_buffer"),
            "stride": self.stride,
            "cbuffer_size": self.cbuffer_size,
            "sampler_mode": self.sampler_mode,
            "uav": uav.then(|| usage_json(&b.usage)),
            "binding": binding_json(&b.binding),
            "descriptor_count": match b.shape {
                ArrayShape::Single => Some(1),
                ArrayShape::Bounded(n) => Some(n),
                ArrayShape::Runtime => None,
            },
            "counter_binding": b.counter.as_ref().map(binding_json),
        })
    }
}

/// The JSON form of an IFCE chunk: class types, class instances and each slot record's
/// (class type → function table) entries.
fn classes_json(ifce: &crate::container::ClassInterfaces) -> Value {
    let type_name = |id: u16| {
        ifce.class_types
            .iter()
            .find(|t| t.id == id)
            .map(|t| t.name.clone())
    };
    json!({
        "class_types": ifce.class_types.iter().map(|t| json!({
            "name": t.name,
            "id": t.id,
            "constant_buffer_stride": t.constant_buffer_stride,
            "texture": t.texture,
            "sampler": t.sampler,
        })).collect::<Vec<_>>(),
        "class_instances": ifce.class_instances.iter().map(|i| json!({
            "name": i.name,
            "type_id": i.type_id,
            "type": type_name(i.type_id),
            "constant_buffer": i.constant_buffer,
            "constant_buffer_offset": i.constant_buffer_offset,
            "texture": i.texture,
            "sampler": i.sampler,
        })).collect::<Vec<_>>(),
        "slots": ifce.slots.iter().map(|s| json!({
            "first_slot": s.first_slot,
            "slot_count": s.slot_count,
            "tables": s.entries.iter().map(|e| json!({
                "type_id": e.type_id,
                "type": type_name(e.type_id),
                "table": e.table_id,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

impl ClassLinkage {
    /// The JSON form (under `class_linkage` in [`ShaderReflection::to_json`]).
    pub fn to_json(&self) -> Value {
        json!({
            "register": self.binding.range.lower,
            "space": self.binding.range.space,
            "binding": binding_json(&self.binding.binding),
            "slots": self.slots,
            "vectors_per_slot": 2,
            "layout": "uvec4[2 * slots]: [2*s].x = function table id of slot s, \
                       [2*s + 1] = this[s]",
            "interfaces": self.interfaces.iter().map(|i| json!({
                "id": i.id,
                "slots": i.slots,
                "call_sites": i.call_sites,
                "dynamic": i.dynamic,
                "tables": i.tables,
            })).collect::<Vec<_>>(),
            "function_tables": self.function_tables.iter().map(|(id, bodies)| json!({
                "id": id,
                "bodies": bodies,
            })).collect::<Vec<_>>(),
            "classes": self.classes.as_ref().map(classes_json),
        })
    }
}

impl DynamicConstantBuffers {
    /// The JSON form (under `dynamic_constant_buffers` in [`ShaderReflection::to_json`]).
    pub fn to_json(&self) -> Value {
        json!({
            "space": self.space,
            "lower_bound": 0,
            "count": crate::ir::D3D11_CB_SLOTS,
            "index": "dynamic",
            "out_of_range_reads": 0,
            "slots": self.slots.iter().map(|slot| json!({
                "register": slot.register,
                "declared": slot.declared,
                "binding": binding_json(&slot.binding),
            })).collect::<Vec<_>>(),
        })
    }
}

impl ShaderReflection {
    /// One line per descriptor range: `srv t1 texture2d space 0 registers 10.. -> set 0 binding 42 (runtime array)`.
    pub fn summary(&self) -> String {
        let mut text = String::new();
        for range in &self.ranges {
            let b = &range.binding;
            let shape = match b.shape {
                ArrayShape::Single => String::new(),
                ArrayShape::Bounded(n) => format!(" ({n} descriptors)"),
                ArrayShape::Runtime => " (runtime array)".to_string(),
            };
            text.push_str(&format!(
                "{} {}{} {}: {} -> set {} binding {} offset {}{shape}\n",
                b.key.class.name(),
                b.register.name(),
                b.range.id,
                range.dimension.unwrap_or("sampler"),
                b.key,
                b.binding.set,
                b.binding.binding,
                b.binding.array_offset,
            ));
        }
        text
    }

    /// The JSON form `dxbc2spirv reflect --json` prints (`dynamic_constant_buffers` only
    /// when the program reads a constant-buffer register chosen at run time).
    pub fn to_json(&self) -> Value {
        let mut value = self.base_json();
        if let (Some(dynamic), Some(object)) =
            (&self.dynamic_constant_buffers, value.as_object_mut())
        {
            object.insert("dynamic_constant_buffers".to_string(), dynamic.to_json());
        }
        value
    }

    fn base_json(&self) -> Value {
        let s = &self.stage;
        json!({
            "model": self.model,
            "descriptor_ranges": self.ranges.iter().map(RangeInfo::to_json).collect::<Vec<_>>(),
            "inputs": signature_json(&self.inputs, &self.placements.inputs),
            "outputs": signature_json(&self.outputs, &self.placements.outputs),
            "patch_constants": signature_json(
                &self.patch_constants,
                &self.placements.patch_constants,
            ),
            "push_constants": self.push_constants.iter().map(|p| json!({
                "register": p.register,
                "space": p.space,
                "offset": p.offset,
                "size": p.size,
                "provided_size": p.provided_size,
            })).collect::<Vec<_>>(),
            "thread_group_size": self.thread_group,
            "geometry": {
                "input_primitive": s.input_primitive,
                "output_topology": s.output_topology,
                "max_output_vertices": s.max_output_vertices,
                "instances": s.instances,
            },
            "class_linkage": self.class_linkage.as_ref().map(ClassLinkage::to_json),
            "tessellation": {
                "input_control_points": s.input_control_points,
                "output_control_points": s.output_control_points,
                "domain": s.domain,
                "partitioning": s.partitioning,
                "output_primitive": s.output_primitive,
                "max_tess_factor": s.max_tess_factor,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::DefaultBindings;
    use crate::container::{
        ClassInstance, ClassInterfaces, ClassType, InterfaceSlot, InterfaceSlotEntry,
    };

    /// The IFCE chunk's class types, instances and slot tables reach `class_linkage.classes`.
    #[test]
    fn class_linkage_lists_the_ifce_classes() {
        let text = "ps_5_0
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0}
dcl_function_table ft1 = {fb1}
dcl_interface fp0[2][1] = {ft0, ft1}
ret
label fb0
ret
label fb1
ret
";
        let program = crate::asm::parse_program(text).unwrap();
        let reflection = ChunkInfo {
            interfaces: Some(ClassInterfaces {
                interface_slot_count: 2,
                unknown: 0,
                class_types: vec![
                    ClassType {
                        name: "Red".into(),
                        id: 0,
                        ..ClassType::default()
                    },
                    ClassType {
                        name: "Blue".into(),
                        id: 1,
                        ..ClassType::default()
                    },
                ],
                class_instances: vec![ClassInstance {
                    name: "blue".into(),
                    type_id: 1,
                    constant_buffer_offset: 3,
                    ..ClassInstance::default()
                }],
                slots: vec![InterfaceSlot {
                    first_slot: 0,
                    slot_count: 2,
                    entries: vec![
                        InterfaceSlotEntry {
                            type_id: 0,
                            table_id: 0,
                        },
                        InterfaceSlotEntry {
                            type_id: 1,
                            table_id: 1,
                        },
                    ],
                }],
            }),
            ..ChunkInfo::default()
        };
        let scanned = scan(&program, &reflection, &DefaultBindings).unwrap();
        let json = scanned.to_json();
        let linkage = &json["class_linkage"];
        let expected = json!({
            "slots": 2,
            "binding": {"set": 0, "binding": 15, "array_offset": 0},
            "blue": {"name": "blue", "type_id": 1, "type": "Blue", "constant_buffer": 0,
                     "constant_buffer_offset": 3, "texture": 0, "sampler": 0},
            "tables": [{"type_id": 0, "type": "Red", "table": 0},
                       {"type_id": 1, "type": "Blue", "table": 1}],
        });
        let actual = json!({
            "slots": linkage["slots"],
            "binding": linkage["binding"],
            "blue": linkage["classes"]["class_instances"][0],
            "tables": linkage["classes"]["slots"][0]["tables"],
        });
        assert_eq!(
            actual, expected,
            "class_linkage of\n{text}\nfull JSON: {json:#}"
        );
    }
}
