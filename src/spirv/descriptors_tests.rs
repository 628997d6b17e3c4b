//! Tests of descriptor arrays: SM5.1 ranges with constant, dynamic and non-uniform indices,
//! mappings with array offsets and unmapped ranges. Every module is checked by spirv-val.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Capability, Decoration, Op};

use super::test_support::validate_for;
use crate::bindings::{BindingMap, BindingMapper, DefaultBindings};
use crate::container::ChunkInfo;
use crate::error::Result;
use crate::spirv::TargetEnv;
use crate::TranslateOptions as Options;

fn compile(text: &str, mapper: &dyn BindingMapper, target: TargetEnv) -> Result<Vec<u32>> {
    let program =
        crate::asm::parse_program(text).unwrap_or_else(|e| panic!("assembly failed: {e}\n{text}"));
    let options = Options {
        target,
        ..Options::default()
    };
    crate::translate_program(&program, &ChunkInfo::default(), &options, mapper)
}

/// Translates with `mapper` for Vulkan 1.3 and 1.1, validates both, returns the 1.3 module.
fn module_with(text: &str, mapper: &dyn BindingMapper) -> Module {
    let mut result = None;
    for target in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let words = compile(text, mapper, target)
            .unwrap_or_else(|e| panic!("translation failed: {e}\n{text}"));
        validate_for(&words, target.name());
        result = Some(rspirv::dr::load_words(&words).expect("parsing the module back"));
    }
    result.expect("two targets")
}

fn module(text: &str) -> Module {
    module_with(text, &DefaultBindings)
}

fn cs(decls: &str, body: &str) -> String {
    format!(
        "cs_5_1\n{decls}\ndcl_input vThreadID.xyz\ndcl_temps 4\ndcl_thread_group 4, 4, 1\n{body}\nret\n"
    )
}

fn code(m: &Module) -> impl Iterator<Item = &Instruction> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
}

fn has_cap(m: &Module, cap: Capability) -> bool {
    m.capabilities
        .iter()
        .any(|i| i.operands.first() == Some(&Operand::Capability(cap)))
}

fn decorated(m: &Module, decoration: Decoration) -> Vec<u32> {
    m.annotations
        .iter()
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(decoration)))
        .filter_map(|i| i.operands.first().and_then(|o| o.id_ref_any()))
        .collect()
}

/// (set, binding) of every decorated variable, sorted.
fn set_bindings(m: &Module) -> Vec<(u32, u32)> {
    let value = |i: &Instruction| match i.operands.get(2) {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    };
    let of = |id: u32, d: Decoration| {
        m.annotations
            .iter()
            .filter(|i| i.operands.first().and_then(|o| o.id_ref_any()) == Some(id))
            .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(d)))
            .find_map(value)
    };
    let mut v: Vec<(u32, u32)> = decorated(m, Decoration::Binding)
        .into_iter()
        .filter_map(|id| {
            Some((
                of(id, Decoration::DescriptorSet)?,
                of(id, Decoration::Binding)?,
            ))
        })
        .collect();
    v.sort();
    v
}

/// The value of an integer constant id.
fn constant(m: &Module, id: u32) -> Option<u32> {
    m.types_global_values
        .iter()
        .find(|i| i.result_id == Some(id) && i.class.opcode == Op::Constant)
        .and_then(|i| match i.operands.first() {
            Some(Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        })
}

/// The constant indices of single-index access chains into descriptor variables.
fn constant_selections(m: &Module) -> Vec<u32> {
    let descriptors = decorated(m, Decoration::Binding);
    code(m)
        .filter(|i| i.class.opcode == Op::AccessChain && i.operands.len() == 2)
        .filter(|i| {
            i.operands
                .first()
                .and_then(|o| o.id_ref_any())
                .is_some_and(|id| descriptors.contains(&id))
        })
        .filter_map(|i| i.operands.get(1).and_then(|o| o.id_ref_any()))
        .filter_map(|id| constant(m, id))
        .collect()
}

const TEXTURES: &str = "dcl_resource_texture2d (float,float,float,float) t0[5:5], space=0
dcl_resource_texture2d (float,float,float,float) t1[10:*], space=0
dcl_resource_texture2d (float,float,float,float) t2[0:7], space=1
dcl_uav_typed_texture2d (float,float,float,float) u0[0:0], space=0";

#[test]
fn constant_indices() {
    let m = module(&cs(
        TEXTURES,
        "ld r0.xyzw, vThreadID.xyzz, t2[3].xyzw
ld r1.xyzw, vThreadID.xyzz, t1[12].xyzw
ld r2.xyzw, vThreadID.xyzz, t0[5].xyzw
add r0.xyzw, r0.xyzw, r1.xyzw
add r0.xyzw, r0.xyzw, r2.xyzw
store_uav_typed u0[0].xyzw, vThreadID.xyyy, r0.xyzw",
    ));
    // t2[3] is element 3 of the space-1 array; t1[12] element 2 of the runtime array.
    assert_eq!(constant_selections(&m), vec![3, 2]);
    assert_eq!(set_bindings(&m), vec![(0, 37), (0, 42), (0, 160), (1, 32)]);
    assert!(has_cap(&m, Capability::RuntimeDescriptorArray));
    assert!(!has_cap(&m, Capability::SampledImageArrayDynamicIndexing));
    assert!(!has_cap(&m, Capability::ShaderNonUniform));
}

#[test]
fn dynamic_and_non_uniform_indices() {
    let m = module(&cs(
        TEXTURES,
        "mov r1.xy, vThreadID.xyxx
ld r0.xyzw, vThreadID.xyzz, t2[r1.x + 2].xyzw
ld r1.xyzw, vThreadID.xyzz, t1[r1.y + 10].xyzw {nonuniform}
add r0.xyzw, r0.xyzw, r1.xyzw
store_uav_typed u0[0].xyzw, vThreadID.xyyy, r0.xyzw",
    ));
    assert!(has_cap(&m, Capability::SampledImageArrayDynamicIndexing));
    assert!(has_cap(&m, Capability::ShaderNonUniform));
    assert!(has_cap(&m, Capability::SampledImageArrayNonUniformIndexing));
    // The index, the access chain and the loaded image are NonUniform.
    assert_eq!(decorated(&m, Decoration::NonUniform).len(), 3);
    // t2[r1.x + 2] adds 2 (lower bound 0); t1[r1.y + 10] adds nothing (lower bound 10).
    let adds: Vec<u32> = code(&m)
        .filter(|i| i.class.opcode == Op::IAdd)
        .filter_map(|i| i.operands.get(1).and_then(|o| o.id_ref_any()))
        .filter_map(|id| constant(&m, id))
        .collect();
    assert_eq!(adds, vec![2]);
}

#[test]
fn a_value_indexing_twice_is_decorated_non_uniform_once() {
    // r3.y is a uint temp (more uint votes than the index reads' int votes) whose value the
    // block knows, and unbounded arrays from 0 index with the value itself: the texture and
    // the sampler index with the same id.
    let m = module(&cs(
        "dcl_sampler s0[0:*], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) t0[0:*], space=0
dcl_uav_typed_texture2d (float,float,float,float) u0[0:0], space=0",
        "umax r3.y, vThreadID.x, vThreadID.y
umin r3.y, r3.y, l(100)
umin r3.y, r3.y, l(90)
umin r3.y, r3.y, l(80)
utof r0.xy, vThreadID.xyxx
sample_l r2.xyzw, r0.xyxx, t0[r3.y + 0].xyzw {nonuniform}, s0[r3.y + 0] {nonuniform}, l(0)
store_uav_typed u0[0].xyzw, vThreadID.xyyy, r2.xyzw",
    ));
    let targets = decorated(&m, Decoration::NonUniform);
    let mut unique = targets.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        targets.len(),
        "an id decorated NonUniform twice: {targets:?}"
    );
}

#[test]
fn vulkan_1_1_uses_the_descriptor_indexing_extension() {
    let text = cs(
        TEXTURES,
        "ld r1.xyzw, vThreadID.xyzz, t1[r1.y + 10].xyzw {nonuniform}
store_uav_typed u0[0].xyzw, vThreadID.xyyy, r1.xyzw",
    );
    let words = compile(&text, &DefaultBindings, TargetEnv::Vulkan1_1).unwrap();
    let m = rspirv::dr::load_words(&words).unwrap();
    assert!(m.extensions.iter().any(|e| e.operands.first()
        == Some(&Operand::LiteralString(
            "SPV_EXT_descriptor_indexing".into()
        ))));
}

#[test]
fn buffer_sampler_and_counter_arrays() {
    let m = module(&cs(
        "dcl_constantbuffer cb0[2:4][4], dynamicIndexed, space=0
dcl_sampler s0[0:3], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) t0[0:3], space=0
dcl_resource_raw t1[8:11], space=2
dcl_resource_structured t2[4:*], 16, space=0
dcl_uav_raw u0[0:3], space=0
dcl_uav_structured_opc u1[4:5], 4, space=0
dcl_uav_typed_texture2d (uint,uint,uint,uint) u2[6:7], space=0",
        "mov r0.x, cb0[r1.x + 2][3].x
mov r0.y, cb0[4][r1.y + 0].y
sample_l r2.xyzw, r0.xyxx, t0[r1.z + 0].xyzw {nonuniform}, s0[r1.w + 0] {nonuniform}, l(0)
ld_raw r0.z, l(0), t1[r1.x + 8].xxxx {nonuniform}
ld_structured r0.w, l(1), l(4), t2[r1.y + 4].xxxx
store_raw u0[r1.z + 0].xy, l(0), r0.xyxx
imm_atomic_alloc r3.x, u1[r1.x + 4]
atomic_iadd u2[7], vThreadID.xyyy, r3.x
store_uav_typed u2[6].xyzw, vThreadID.xyyy, r2.xyzw",
    ));
    for cap in [
        Capability::UniformBufferArrayDynamicIndexing,
        Capability::StorageBufferArrayDynamicIndexing,
        Capability::StorageBufferArrayNonUniformIndexing,
        Capability::SampledImageArrayNonUniformIndexing,
        Capability::RuntimeDescriptorArray,
    ] {
        assert!(has_cap(&m, cap), "{cap:?}");
    }
    // Counters of u1 (bindings 164) at 228, as an array like the UAVs.
    assert_eq!(
        set_bindings(&m),
        vec![
            (0, 2),
            (0, 16),
            (0, 32),
            (0, 36),
            (0, 160),
            (0, 164),
            (0, 166),
            (0, 228),
            (2, 40)
        ]
    );
}

#[test]
fn mapping_with_array_offsets() {
    let map = BindingMap::from_json(
        r#"{"ranges": [
          {"class": "srv", "space": 1, "first": 0, "last": 15, "set": 0, "binding": 3, "array_offset": 4},
          {"class": "srv", "space": 0, "first": 0, "set": 1, "binding": 0, "array_offset": 100},
          {"class": "uav", "space": 0, "first": 0, "set": 2, "binding": 7}
        ]}"#,
    )
    .unwrap();
    let m = module_with(
        &cs(
            TEXTURES,
            "ld r0.xyzw, vThreadID.xyzz, t2[3].xyzw
ld r1.xyzw, vThreadID.xyzz, t0[5].xyzw
ld r2.xyzw, vThreadID.xyzz, t1[r0.x + 10].xyzw
add r0.xyzw, r0.xyzw, r1.xyzw
add r0.xyzw, r0.xyzw, r2.xyzw
store_uav_typed u0[0].xyzw, vThreadID.xyyy, r0.xyzw",
        ),
        &map,
    );
    assert_eq!(set_bindings(&m), vec![(0, 3), (1, 0), (1, 0), (2, 7)]);
    // t2[3] → 4 + 3; t0 (register 5) → 100 + 5, a one-register range at an offset is an array.
    assert_eq!(constant_selections(&m), vec![7, 105]);
    // t1[r0.x + 10] → r0.x + 100 + 10.
    let adds: Vec<u32> = code(&m)
        .filter(|i| i.class.opcode == Op::IAdd)
        .filter_map(|i| i.operands.get(1).and_then(|o| o.id_ref_any()))
        .filter_map(|id| constant(&m, id))
        .collect();
    assert_eq!(adds, vec![110]);
}

#[test]
fn unmapped_range_is_an_error_naming_it() {
    let map = BindingMap::from_json(r#"{"ranges": []}"#).unwrap();
    let error = compile(&cs(TEXTURES, ""), &map, TargetEnv::Vulkan1_3).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("no descriptor binding is mapped for t5 (image) in space 0"),
        "{error}"
    );
}

#[test]
fn constant_index_outside_the_range_is_an_error() {
    let error = compile(
        &cs(TEXTURES, "ld r0.xyzw, vThreadID.xyzz, t2[8].xyzw"),
        &DefaultBindings,
        TargetEnv::Vulkan1_3,
    )
    .unwrap_err();
    assert!(error.to_string().contains("outside the range"), "{error}");
}

#[test]
fn queries_gathers_and_typed_buffers_through_arrays() {
    let m = module(&cs(
        "dcl_sampler s0[0:1], mode_comparison, space=0
dcl_sampler s1[2:2], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) t0[0:3], space=0
dcl_resource_buffer (float,float,float,float) t1[4:7], space=0
dcl_resource_raw t2[8:*], space=0
dcl_uav_typed_texture2d (float,float,float,float) u0[0:1], space=0
dcl_uav_typed_buffer (uint,uint,uint,uint) u1[2:3], space=0
dcl_uav_structured u2[4:5], 4, space=0",
        "resinfo_uint r0.xyzw, l(0), t0[r1.x + 0].xyzw {nonuniform}
bufinfo r0.x, t2[r1.y + 8] {nonuniform}
bufinfo r0.y, t1[r1.z + 4]
bufinfo r0.z, u2[r1.w + 4] {nonuniform}
gather4 r2.xyzw, r0.xyxx, t0[2].xyzw, s1[2].x
sample_c_lz r3.x, r0.xyxx, t0[r1.x + 0].xxxx, s0[r1.y + 0] {nonuniform}, l(0.5)
ld r2.xyzw, r1.xxxx, t1[r1.w + 4].xyzw {nonuniform}
ld_uav_typed r3.xyzw, r1.xyyy, u0[r1.z + 0].xyzw {nonuniform}
store_uav_typed u1[r1.x + 2].xyzw, r1.xxxx, r0.xyzw
atomic_iadd u1[3], r1.xxxx, l(1)
store_uav_typed u0[1].xyzw, vThreadID.xyyy, r2.xyzw",
    ));
    for cap in [
        Capability::UniformTexelBufferArrayNonUniformIndexing,
        Capability::StorageImageArrayNonUniformIndexing,
        Capability::StorageTexelBufferArrayDynamicIndexing,
        Capability::StorageBufferArrayNonUniformIndexing,
    ] {
        assert!(has_cap(&m, cap), "{cap:?}");
    }
}

#[test]
fn texel_buffer_dynamic_indexing_needs_the_extension_on_vulkan_1_1() {
    let text = cs(
        "dcl_resource_buffer (float,float,float,float) t1[4:7], space=0
dcl_uav_typed_buffer (float,float,float,float) u0[0:0], space=0",
        "ld r0.xyzw, r1.xxxx, t1[r1.w + 4].xyzw
store_uav_typed u0[0].xyzw, r1.xxxx, r0.xyzw",
    );
    let m = module(&text);
    assert!(has_cap(
        &m,
        Capability::UniformTexelBufferArrayDynamicIndexing
    ));
    let words = compile(&text, &DefaultBindings, TargetEnv::Vulkan1_1).unwrap();
    let m = rspirv::dr::load_words(&words).unwrap();
    assert_eq!(m.extensions.len(), 1);
}

/// An SM5.0 constant-buffer register chosen at run time: each D3D11 slot 0–13 of space 0 is
/// its own uniform-buffer variable at the binding the mapper gives `cbN` (here set 2,
/// binding 20 + N), and the read is a switch over the slot with no descriptor indexing.
#[test]
fn run_time_constant_buffer_register_uses_one_variable_per_slot() {
    let text = "cs_5_0
dcl_constantbuffer cb4[2], immediateIndexed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.x, cb4[0].x
mov r1.xyzw, cb[r0.x + 0][1].xyzw
store_raw u0.xyzw, l(0), r1.xyzw
ret
";
    /// `cbN` at set 2, binding 20 + N; everything else as the default layout.
    struct PerSlot;
    impl BindingMapper for PerSlot {
        fn map(&self, range: &crate::bindings::RangeKey) -> Option<crate::bindings::Binding> {
            if range.class == crate::bindings::DescriptorClass::ConstantBuffer {
                return Some(crate::bindings::Binding {
                    set: 2,
                    binding: 20 + range.lower,
                    array_offset: 0,
                });
            }
            DefaultBindings.map(range)
        }
    }
    let m = module_with(text, &PerSlot);
    let mut slots: Vec<(u32, u32)> = Vec::new();
    let sets = decorations_of(&m, Decoration::DescriptorSet);
    for (target, binding) in decorations_of(&m, Decoration::Binding) {
        if let Some(&(_, set)) = sets.iter().find(|(t, _)| *t == target) {
            if set == 2 {
                slots.push((set, binding));
            }
        }
    }
    slots.sort_unstable();
    let expected: Vec<(u32, u32)> = (0..14).map(|n| (2, 20 + n)).collect();
    assert_eq!(slots, expected, "uniform buffers of the slots in\n{text}");
    assert!(
        code(&m).any(|i| i.class.opcode == Op::Switch),
        "no OpSwitch"
    );
    assert!(
        !has_cap(&m, Capability::UniformBufferArrayDynamicIndexing),
        "the slots are not a descriptor array"
    );
}

/// (target, first literal) of each decoration `decoration`.
fn decorations_of(m: &Module, decoration: Decoration) -> Vec<(u32, u32)> {
    m.annotations
        .iter()
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(decoration)))
        .filter_map(|i| match (i.operands.first(), i.operands.get(2)) {
            (Some(Operand::IdRef(target)), Some(Operand::LiteralBit32(value))) => {
                Some((*target, *value))
            }
            _ => None,
        })
        .collect()
}
