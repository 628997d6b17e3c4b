//! The reflection of a result as C structs: descriptor ranges, signature elements and stage
//! parameters, each copied out by index into a caller's struct. Their strings are owned by
//! the result (valid until [`super::dxbc2spirv_result_free`]); a string that is absent is
//! null, a number that is absent is 0.

use std::ffi::{c_char, CString};

use super::{set_error, Dxbc2spirvResult, Dxbc2spirvStatus};
use translator::analysis::binding_plan::ArrayShape;
use translator::bindings::{DescriptorClass, DescriptorType};
use translator::container::{Signature, SignatureElement};
use translator::interface::Placement;
use translator::reflect::{RangeInfo, ShaderReflection};

/// The register class of a descriptor range.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dxbc2spirvDescriptorClass {
    /// A constant buffer (`cb#`).
    ConstantBuffer = 0,
    /// A sampler (`s#`).
    Sampler = 1,
    /// A shader resource view (`t#`).
    ShaderResource = 2,
    /// An unordered access view (`u#`).
    UnorderedAccess = 3,
    /// A UAV's counter.
    UavCounter = 4,
}

/// Which signature [`dxbc2spirv_reflection_signature_count`] and
/// [`dxbc2spirv_reflection_signature_element`] read (passed as its number).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dxbc2spirvSignatureKind {
    /// The input signature.
    Input = 0,
    /// The output signature.
    Output = 1,
    /// The patch-constant signature (hull and domain shaders).
    PatchConstant = 2,
}

/// One descriptor range and the binding the module uses for it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dxbc2spirvDescriptorRange {
    /// The HLSL name from the container's resource definitions, or null.
    pub name: *const c_char,
    /// The register class.
    pub descriptor_class: Dxbc2spirvDescriptorClass,
    /// The Vulkan descriptor type, as its `VkDescriptorType` value (sampler 0, sampled image
    /// 2, storage image 3, uniform texel buffer 4, storage texel buffer 5, uniform buffer 6,
    /// storage buffer 7).
    pub vk_descriptor_type: u32,
    /// The range id the program uses (for SM4/5.0 the register number).
    pub id: u32,
    /// The register space.
    pub space: u32,
    /// The first register.
    pub lower_bound: u32,
    /// The number of registers (0 when unbounded, at most `UINT32_MAX`).
    pub register_count: u32,
    /// The descriptor set.
    pub set: u32,
    /// The binding.
    pub binding: u32,
    /// The array element of the first register.
    pub array_offset: u32,
    /// The descriptors of the binding: 1 for a single descriptor, N for an array, 0 for a
    /// runtime array.
    pub descriptor_count: u32,
    /// The resource dimension (`texture2d`, `buffer`, `raw_buffer`, `structured_buffer`,
    /// `constant_buffer`, …), null for samplers.
    pub dimension: *const c_char,
    /// The structure stride of a structured buffer, else 0.
    pub stride: u32,
    /// The size of a constant buffer in 16-byte vectors, else 0.
    pub cbuffer_size: u32,
    /// A UAV read by a load (non-zero = yes).
    pub uav_read: u8,
    /// A UAV that is the target of an atomic operation.
    pub uav_atomic: u8,
    /// A UAV whose counter is used; `counter_set` and `counter_binding` are its binding.
    pub uav_counter: u8,
    /// The counter's descriptor set (a storage buffer), when `uav_counter` is set.
    pub counter_set: u32,
    /// The counter's binding, when `uav_counter` is set.
    pub counter_binding: u32,
}

/// One element of a signature.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dxbc2spirvSignatureElement {
    /// The semantic name (`TEXCOORD`, `SV_Position`).
    pub semantic_name: *const c_char,
    /// The semantic index.
    pub semantic_index: u32,
    /// The register (`UINT32_MAX` for an element without one, such as `oDepth`).
    pub register_index: u32,
    /// The components present (bit 0 = x … bit 3 = w).
    pub mask: u8,
    /// The second mask as stored: for inputs the components read, for outputs those never
    /// written.
    pub rw_mask: u8,
    /// The system value (`D3D_NAME`: 0 none, 1 position, 64 target, …).
    pub system_value: u32,
    /// The component type (`D3D_REGISTER_COMPONENT_TYPE`: 1 uint, 2 int, 3 float).
    pub component_type: u32,
    /// The minimum precision (`D3D_MIN_PRECISION`, 0 = full).
    pub min_precision: u32,
    /// The geometry-shader output stream.
    pub stream: u32,
    /// The Vulkan `Location` the element was given (by register, or by the interface map);
    /// `UINT32_MAX` for an element that is a built-in (`SV_Position`, `SV_Target` depth, …).
    pub location: u32,
    /// The element's first component within that location (0–3).
    pub component: u32,
    /// The pixel-shader output `Index` (1 for `o1` with dual-source blending, else 0).
    pub index: u32,
}

/// A constant buffer the binding map placed in push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dxbc2spirvPushConstant {
    /// The register (`cbN`; the lower bound in SM5.1).
    pub register_index: u32,
    /// The register space.
    pub space: u32,
    /// The byte offset of its first vector in the push-constant block.
    pub offset: u32,
    /// Its size in bytes (16 per vector the shader declares); the pipeline layout's
    /// `VkPushConstantRange` covers `offset .. offset + size` for the stage.
    pub size: u32,
}

/// The shader model and the parameters the program declares.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dxbc2spirvStageParameters {
    /// The shader model (`cs_5_0`, `ps_4_1`, …).
    pub model: *const c_char,
    /// `dcl_thread_group` (all 0 when not declared).
    pub thread_group_size: [u32; 3],
    /// `dcl_inputprimitive` (`triangle`, `patch3`, …), or null.
    pub input_primitive: *const c_char,
    /// `dcl_outputtopology`, or null.
    pub output_topology: *const c_char,
    /// `dcl_maxout`.
    pub max_output_vertices: u32,
    /// `dcl_gsinstances`.
    pub instances: u32,
    /// `dcl_input_control_point_count`.
    pub input_control_points: u32,
    /// `dcl_output_control_point_count`.
    pub output_control_points: u32,
    /// `dcl_tessellator_domain`, or null.
    pub domain: *const c_char,
    /// `dcl_tessellator_partitioning`, or null.
    pub partitioning: *const c_char,
    /// `dcl_tessellator_output_primitive`, or null.
    pub output_primitive: *const c_char,
    /// `dcl_hs_max_tessfactor` (0 when not declared).
    pub max_tess_factor: f32,
}

/// A result's reflection as C structs, with the strings they point to.
#[derive(Debug)]
pub(super) struct CReflection {
    ranges: Vec<Dxbc2spirvDescriptorRange>,
    signatures: [Vec<Dxbc2spirvSignatureElement>; 3],
    push_constants: Vec<Dxbc2spirvPushConstant>,
    stage: Dxbc2spirvStageParameters,
    /// The strings the structs point to (a `CString`'s bytes do not move with it).
    _strings: Vec<CString>,
}

impl CReflection {
    /// The C form of `reflection`.
    pub(super) fn new(reflection: &ShaderReflection) -> CReflection {
        let mut strings = Vec::new();
        let ranges = reflection
            .ranges
            .iter()
            .map(|range| descriptor_range(range, &mut strings))
            .collect();
        let mut signature = |s: &Option<Signature>,
                             placements: &[Option<Placement>]|
         -> Vec<Dxbc2spirvSignatureElement> {
            s.iter()
                .flat_map(|s| &s.elements)
                .enumerate()
                .map(|(i, e)| {
                    let placement = placements.get(i).copied().flatten();
                    signature_element(e, placement, &mut strings)
                })
                .collect()
        };
        let placed = &reflection.placements;
        let signatures = [
            signature(&reflection.inputs, &placed.inputs),
            signature(&reflection.outputs, &placed.outputs),
            signature(&reflection.patch_constants, &placed.patch_constants),
        ];
        let push_constants = reflection
            .push_constants
            .iter()
            .map(|p| Dxbc2spirvPushConstant {
                register_index: p.register,
                space: p.space,
                offset: p.offset,
                size: p.size,
            })
            .collect();
        let stage = stage_parameters(reflection, &mut strings);
        CReflection {
            ranges,
            signatures,
            push_constants,
            stage,
            _strings: strings,
        }
    }
}

/// A NUL-terminated copy of `text` kept in `strings` (null for `None`); an inner NUL ends
/// the string there.
fn keep(strings: &mut Vec<CString>, text: Option<&str>) -> *const c_char {
    let Some(text) = text else {
        return std::ptr::null();
    };
    let text = text.split('\0').next().unwrap_or_default();
    let string = CString::new(text).unwrap_or_default();
    let pointer = string.as_ptr();
    strings.push(string);
    pointer
}

/// `VkDescriptorType`'s value for a descriptor type.
fn vk_descriptor_type(descriptor_type: DescriptorType) -> u32 {
    match descriptor_type {
        DescriptorType::Sampler => 0,
        DescriptorType::SampledImage => 2,
        DescriptorType::StorageImage => 3,
        DescriptorType::UniformTexelBuffer => 4,
        DescriptorType::StorageTexelBuffer => 5,
        DescriptorType::UniformBuffer => 6,
        DescriptorType::StorageBuffer => 7,
    }
}

fn descriptor_range(range: &RangeInfo, strings: &mut Vec<CString>) -> Dxbc2spirvDescriptorRange {
    let b = &range.binding;
    let counter = b.counter.unwrap_or_default();
    Dxbc2spirvDescriptorRange {
        name: keep(strings, range.name.as_deref()),
        descriptor_class: match b.key.class {
            DescriptorClass::ConstantBuffer => Dxbc2spirvDescriptorClass::ConstantBuffer,
            DescriptorClass::Sampler => Dxbc2spirvDescriptorClass::Sampler,
            DescriptorClass::ShaderResource => Dxbc2spirvDescriptorClass::ShaderResource,
            DescriptorClass::UnorderedAccess => Dxbc2spirvDescriptorClass::UnorderedAccess,
            DescriptorClass::UavCounter => Dxbc2spirvDescriptorClass::UavCounter,
        },
        vk_descriptor_type: vk_descriptor_type(b.descriptor_type),
        id: b.range.id,
        space: b.range.space,
        lower_bound: b.range.lower,
        register_count: b
            .range
            .count()
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
        set: b.binding.set,
        binding: b.binding.binding,
        array_offset: b.binding.array_offset,
        descriptor_count: match b.shape {
            ArrayShape::Single => 1,
            ArrayShape::Bounded(n) => n,
            ArrayShape::Runtime => 0,
        },
        dimension: keep(strings, range.dimension),
        stride: range.stride.unwrap_or(0),
        cbuffer_size: range.cbuffer_size.unwrap_or(0),
        uav_read: u8::from(b.usage.read),
        uav_atomic: u8::from(b.usage.atomic),
        uav_counter: u8::from(b.counter.is_some()),
        counter_set: counter.set,
        counter_binding: counter.binding,
    }
}

fn signature_element(
    element: &SignatureElement,
    placement: Option<Placement>,
    strings: &mut Vec<CString>,
) -> Dxbc2spirvSignatureElement {
    Dxbc2spirvSignatureElement {
        semantic_name: keep(strings, Some(&element.semantic_name)),
        semantic_index: element.semantic_index,
        register_index: element.register,
        mask: element.mask,
        rw_mask: element.rw_mask,
        system_value: element.system_value.raw(),
        component_type: element.component_type.raw(),
        min_precision: element.min_precision.raw(),
        stream: element.stream,
        location: placement.map_or(u32::MAX, |p| p.location),
        component: placement.map_or(0, |p| p.component),
        index: placement.map_or(0, |p| p.index),
    }
}

fn stage_parameters(
    reflection: &ShaderReflection,
    strings: &mut Vec<CString>,
) -> Dxbc2spirvStageParameters {
    let s = &reflection.stage;
    Dxbc2spirvStageParameters {
        model: keep(strings, Some(&reflection.model)),
        thread_group_size: reflection.thread_group.unwrap_or_default(),
        input_primitive: keep(strings, s.input_primitive.as_deref()),
        output_topology: keep(strings, s.output_topology),
        max_output_vertices: s.max_output_vertices.unwrap_or(0),
        instances: s.instances.unwrap_or(0),
        input_control_points: s.input_control_points.unwrap_or(0),
        output_control_points: s.output_control_points.unwrap_or(0),
        domain: keep(strings, s.domain),
        partitioning: keep(strings, s.partitioning),
        output_primitive: keep(strings, s.output_primitive),
        max_tess_factor: s.max_tess_factor.unwrap_or(0.0),
    }
}

/// Copies `items[index]` to `*out`, or sets the error naming `what` and returns
/// `ErrorUsage` for a null result or `out` and an index out of range.
///
/// # Safety
/// `out` is null or writable.
unsafe fn copy_out<T: Copy>(
    items: Option<&[T]>,
    index: usize,
    out: *mut T,
    what: &str,
) -> Dxbc2spirvStatus {
    let Some(items) = items else {
        set_error(&format!("{what}: null result"));
        return Dxbc2spirvStatus::ErrorUsage;
    };
    if out.is_null() {
        set_error(&format!("{what}: null out pointer"));
        return Dxbc2spirvStatus::ErrorUsage;
    }
    let Some(item) = items.get(index) else {
        set_error(&format!(
            "{what}: index {index} out of range (the result has {})",
            items.len()
        ));
        return Dxbc2spirvStatus::ErrorUsage;
    };
    // SAFETY: non-null and writable per the caller.
    unsafe { out.write(*item) };
    Dxbc2spirvStatus::Ok
}

/// The C reflection of a result, or `None` for null.
///
/// # Safety
/// `result` is null or a live result.
unsafe fn reflection_of<'a>(result: *const Dxbc2spirvResult) -> Option<&'a CReflection> {
    // SAFETY: the caller guarantees a live result or null.
    unsafe { result.as_ref() }.map(|r| r.c_reflection())
}

/// The signature of `kind` (a [`Dxbc2spirvSignatureKind`] value), `None` for another value.
fn signature(reflection: &CReflection, kind: u32) -> Option<&[Dxbc2spirvSignatureElement]> {
    reflection.signatures.get(kind as usize).map(Vec::as_slice)
}

/// The number of descriptor ranges of a result (0 for null).
///
/// # Safety
/// `result` is null or from [`super::dxbc2spirv_translate`] or [`super::dxbc2spirv_scan`]
/// and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spirv_reflection_descriptor_count(
    result: *const Dxbc2spirvResult,
) -> usize {
    // SAFETY: the caller's guarantee.
    unsafe { reflection_of(result) }.map_or(0, |r| r.ranges.len())
}

/// Copies descriptor range `index` (declaration order, as in the JSON) to `*out`. Returns
/// `Ok`, or `ErrorUsage` for a null argument or an index out of range.
///
/// # Safety
/// `result` as for [`dxbc2spirv_reflection_descriptor_count`]; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spirv_reflection_descriptor(
    result: *const Dxbc2spirvResult,
    index: usize,
    out: *mut Dxbc2spirvDescriptorRange,
) -> Dxbc2spirvStatus {
    // SAFETY: the caller's guarantees.
    unsafe {
        let ranges = reflection_of(result).map(|r| r.ranges.as_slice());
        copy_out(ranges, index, out, "dxbc2spirv_reflection_descriptor")
    }
}

/// The number of elements of signature `kind` (a [`Dxbc2spirvSignatureKind`] value): 0 for
/// a null result, a signature the container lacks or an unknown kind.
///
/// # Safety
/// As [`dxbc2spirv_reflection_descriptor_count`].
#[no_mangle]
pub unsafe extern "C" fn dxbc2spirv_reflection_signature_count(
    result: *const Dxbc2spirvResult,
    kind: u32,
) -> usize {
    // SAFETY: the caller's guarantee.
    unsafe { reflection_of(result) }
        .and_then(|r| signature(r, kind))
        .map_or(0, <[_]>::len)
}

/// Copies element `index` of signature `kind` (a [`Dxbc2spirvSignatureKind`] value) to
/// `*out`. Returns `Ok`, or `ErrorUsage` for a null argument, an unknown kind or an index
/// out of range.
///
/// # Safety
/// As [`dxbc2spirv_reflection_descriptor`].
#[no_mangle]
pub unsafe extern "C" fn dxbc2spirv_reflection_signature_element(
    result: *const Dxbc2spirvResult,
    kind: u32,
    index: usize,
    out: *mut Dxbc2spirvSignatureElement,
) -> Dxbc2spirvStatus {
    const WHAT: &str = "dxbc2spirv_reflection_signature_element";
    // SAFETY: the caller's guarantee.
    let Some(reflection) = (unsafe { reflection_of(result) }) else {
        // SAFETY: as above.
        return unsafe { copy_out(None, index, out, WHAT) };
    };
    let Some(elements) = signature(reflection, kind) else {
        set_error(&format!("{WHAT}: unknown signature kind {kind}"));
        return Dxbc2spirvStatus::ErrorUsage;
    };
    // SAFETY: the caller's guarantee.
    unsafe { copy_out(Some(elements), index, out, WHAT) }
}

/// Copies the shader model and stage parameters to `*out`. Returns `Ok`, or `ErrorUsage`
/// for a null argument.
///
/// # Safety
/// As [`dxbc2spirv_reflection_descriptor`].
#[no_mangle]
pub unsafe extern "C" fn dxbc2spirv_reflection_stage(
    result: *const Dxbc2spirvResult,
    out: *mut Dxbc2spirvStageParameters,
) -> Dxbc2spirvStatus {
    // SAFETY: the caller's guarantees.
    unsafe {
        let stage = reflection_of(result).map(|r| std::slice::from_ref(&r.stage));
        copy_out(stage, 0, out, "dxbc2spirv_reflection_stage")
    }
}

/// The number of constant buffers a result's shader reads from push constants (0 for null).
///
/// # Safety
/// As [`dxbc2spirv_reflection_descriptor_count`].
#[no_mangle]
pub unsafe extern "C" fn dxbc2spirv_reflection_push_constant_count(
    result: *const Dxbc2spirvResult,
) -> usize {
    // SAFETY: the caller's guarantee.
    unsafe { reflection_of(result) }.map_or(0, |r| r.push_constants.len())
}

/// Copies push-constant buffer `index` (by offset) to `*out`. Returns `Ok`, or `ErrorUsage`
/// for a null argument or an index out of range.
///
/// # Safety
/// As [`dxbc2spirv_reflection_descriptor`].
#[no_mangle]
pub unsafe extern "C" fn dxbc2spirv_reflection_push_constant(
    result: *const Dxbc2spirvResult,
    index: usize,
    out: *mut Dxbc2spirvPushConstant,
) -> Dxbc2spirvStatus {
    // SAFETY: the caller's guarantees.
    unsafe {
        let items = reflection_of(result).map(|r| r.push_constants.as_slice());
        copy_out(items, index, out, "dxbc2spirv_reflection_push_constant")
    }
}
