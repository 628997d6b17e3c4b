//! Tests of the texture and typed-UAV translation: each instruction is assembled into a
//! small program, translated, validated with `spirv-val --target-env vulkan1.3` and checked
//! for the SPIR-V instructions that carry its D3D semantics.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Capability, Decoration, Op};

use super::test_support::{code, count_op, validate};
use crate::container::ChunkInfo;
use crate::error::Result;
use crate::TranslateOptions as Options;

fn try_compile(text: &str) -> Result<Vec<u32>> {
    let program =
        crate::asm::parse_program(text).unwrap_or_else(|e| panic!("assembly failed: {e}\n{text}"));
    super::test_support::lowered(
        &program,
        &ChunkInfo::default(),
        &Options::default(),
        &crate::bindings::DefaultBindings,
    )
}

/// Assembles, translates, validates and parses a program.
fn module(text: &str) -> Module {
    let words = try_compile(text).unwrap_or_else(|e| panic!("translation failed: {e}\n{text}"));
    validate(&words);
    rspirv::dr::load_words(&words).expect("parsing the module back")
}

fn ps(decls: &str, body: &str) -> String {
    format!(
        "ps_5_0\n{decls}\ndcl_input_ps linear v0.xyzw\ndcl_output o0.xyzw\ndcl_temps 4\n{body}\nret\n"
    )
}

fn cs(decls: &str, body: &str) -> String {
    format!(
        "cs_5_0\n{decls}\ndcl_input vThreadID.xyz\ndcl_temps 4\ndcl_thread_group 4, 4, 1\n{body}\nret\n"
    )
}

fn vs(decls: &str, body: &str) -> String {
    format!(
        "vs_5_0\n{decls}\ndcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\ndcl_temps 4\n{body}\nret\n"
    )
}

fn has(m: &Module, op: Op) -> bool {
    count_op(m, op) > 0
}

fn has_cap(m: &Module, cap: Capability) -> bool {
    m.capabilities
        .iter()
        .any(|i| i.operands.first() == Some(&Operand::Capability(cap)))
}

fn first(m: &Module, op: Op) -> &Instruction {
    code(m)
        .find(|i| i.class.opcode == op)
        .unwrap_or_else(|| panic!("no {op:?}"))
}

fn has_operand(i: &Instruction, operand: &Operand) -> bool {
    i.operands.iter().any(|o| o == operand)
}

fn bindings(m: &Module) -> Vec<u32> {
    let mut v: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(Decoration::Binding)))
        .filter_map(|i| match i.operands.get(2) {
            Some(Operand::LiteralBit32(b)) => Some(*b),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v
}

const T2D: &str =
    "dcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0";

#[test]
fn sample_in_pixel_shader_with_swizzle_and_bindings() {
    let m = module(&ps(
        T2D,
        "sample r0.xy, v0.xyxx, t0.yxzw, s0\nmov o0.xy, r0.xyxx",
    ));
    assert!(has(&m, Op::ImageSampleImplicitLod));
    assert!(has(&m, Op::SampledImage));
    // r0.x = sampled.y, r0.y = sampled.x: the components extracted from the sample's result.
    let sampled: Vec<u32> = code(&m)
        .filter(|i| i.class.opcode == Op::ImageSampleImplicitLod)
        .filter_map(|i| i.result_id)
        .collect();
    let extracts: Vec<u32> = code(&m)
        .filter(|i| i.class.opcode == Op::CompositeExtract)
        .filter(|i| matches!(i.operands.first(), Some(Operand::IdRef(v)) if sampled.contains(v)))
        .filter_map(|i| match i.operands.get(1) {
            Some(Operand::LiteralBit32(c)) => Some(*c),
            _ => None,
        })
        .collect();
    assert!(extracts.starts_with(&[1, 0]), "{extracts:?}");
    assert_eq!(bindings(&m), vec![16, 32]);
}

#[test]
fn sample_variants() {
    let m = module(&ps(
        T2D,
        "sample_b r0.xyzw, v0.xyxx, t0.xyzw, s0, l(1.0)
sample_l r1.xyzw, v0.xyxx, t0.xyzw, s0, v0.z
sample_d r2.xyzw, v0.xyxx, t0.xyzw, s0, v0.zwzz, v0.wzww
sample_aoffimmi(1,-2,0) r3.xyzw, v0.xyxx, t0.xyzw, s0
add o0.xyzw, r0.xyzw, r1.xyzw",
    ));
    assert_eq!(count_op(&m, Op::ImageSampleImplicitLod), 2);
    assert_eq!(count_op(&m, Op::ImageSampleExplicitLod), 2);
    let offset = code(&m)
        .filter(|i| i.class.opcode == Op::ImageSampleImplicitLod)
        .any(|i| {
            i.operands
                .iter()
                .any(|o| matches!(o, Operand::ImageOperands(mask) if mask.contains(spirv::ImageOperands::CONST_OFFSET)))
        });
    assert!(offset, "sample_aoffimmi uses ConstOffset");
}

#[test]
fn comparison_sampling_and_gathers() {
    let decls = "dcl_sampler s0, mode_default\ndcl_sampler s1, mode_comparison\ndcl_resource_texture2d (float,float,float,float) t0";
    let m = module(&ps(
        decls,
        "sample_c r0.x, v0.xyxx, t0.xxxx, s1, v0.z
sample_c_lz r0.y, v0.xyxx, t0.xxxx, s1, v0.z
gather4 r1.xyzw, v0.xyxx, t0.xyzw, s0.y
gather4_c r2.xyzw, v0.xyxx, t0.xyzw, s1.x, v0.z
gather4_po r3.xyzw, v0.xyxx, v0.zwzz, t0.xyzw, s0.x
gather4_po_c r3.xyzw, v0.xyxx, v0.zwzz, t0.xyzw, s1.x, v0.z
gather4_aoffimmi(1,1,0) r1.xyzw, v0.xyxx, t0.xyzw, s0.w
mov o0.xyzw, r1.xyzw",
    ));
    assert!(has(&m, Op::ImageSampleDrefImplicitLod));
    assert!(has(&m, Op::ImageSampleDrefExplicitLod));
    assert_eq!(count_op(&m, Op::ImageGather), 3);
    assert_eq!(count_op(&m, Op::ImageDrefGather), 2);
    assert!(has_cap(&m, Capability::ImageGatherExtended));
    // gather4 ... s0.y gathers the green channel (component 1).
    let gather = first(&m, Op::ImageGather);
    let Some(Operand::IdRef(channel)) = gather.operands.get(2) else {
        panic!("gather without a component");
    };
    let constant = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(*channel))
        .unwrap();
    assert_eq!(constant.operands, vec![Operand::LiteralBit32(1)]);
}

#[test]
fn sample_outside_pixel_shaders() {
    let m = module(&vs(
        T2D,
        "sample r0.xyzw, v0.xyxx, t0.xyzw, s0\nmov o0.xyzw, r0.xyzw",
    ));
    assert!(!has(&m, Op::ImageSampleImplicitLod));
    assert!(has(&m, Op::ImageSampleExplicitLod));
    let err = try_compile(&vs(
        T2D,
        "sample_b r0.xyzw, v0.xyxx, t0.xyzw, s0, l(0.0)\nmov o0.xyzw, r0.xyzw",
    ))
    .unwrap_err();
    assert!(err.to_string().contains("pixel shaders"), "{err}");
    let err = try_compile(&cs(T2D, "lod r0.xy, vThreadID.xyxx, t0.xyzw, s0")).unwrap_err();
    assert!(err.to_string().contains("pixel shaders"), "{err}");
    // sample_l works everywhere.
    let m = module(&cs(
        T2D,
        "sample_l r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(0.0)",
    ));
    assert!(has(&m, Op::ImageSampleExplicitLod));
}

#[test]
fn every_srv_dimension_declares_and_loads() {
    let dims = [
        ("buffer", "ld r0.xyzw, v0.xxxx, t0.xyzw"),
        ("texture1d", "ld r0.xyzw, v0.xxxw, t0.xyzw"),
        ("texture1darray", "ld r0.xyzw, v0.xyxw, t0.xyzw"),
        ("texture2d", "ld r0.xyzw, v0.xyzw, t0.xyzw"),
        ("texture2darray", "ld r0.xyzw, v0.xyzw, t0.xyzw"),
        ("texture3d", "ld r0.xyzw, v0.xyzw, t0.xyzw"),
        (
            "texturecube",
            "sample_l r0.xyzw, v0.xyzw, t0.xyzw, s0, l(0)",
        ),
        (
            "texturecubearray",
            "sample_l r0.xyzw, v0.xyzw, t0.xyzw, s0, l(0)",
        ),
        ("texture2dms(4)", "ld2dms r0.xyzw, v0.xyzw, t0.xyzw, l(1)"),
        (
            "texture2dmsarray(4)",
            "ld2dms r0.xyzw, v0.xyzw, t0.xyzw, l(1)",
        ),
    ];
    for (dim, body) in dims {
        let decls = format!(
            "dcl_sampler s0, mode_default\ndcl_resource_{dim} (float,float,float,float) t0"
        );
        let text = vs(
            &decls,
            &format!(
                "ftoi r1.xyzw, v0.xyzw\n{}\nmov o0.xyzw, r0.xyzw",
                body.replace("v0", "r1")
            ),
        );
        let text = if dim.starts_with("texturecube") {
            text.replace("r1.xyzw, t0", "v0.xyzw, t0")
        } else {
            text
        };
        let m = module(&text);
        let image = m
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == Op::TypeImage)
            .unwrap_or_else(|| panic!("{dim}: no image type"));
        // Sampled = 1.
        assert_eq!(
            image.operands.get(5),
            Some(&Operand::LiteralBit32(1)),
            "{dim}"
        );
        match dim {
            "buffer" => assert!(has_cap(&m, Capability::SampledBuffer)),
            "texturecubearray" => assert!(has_cap(&m, Capability::SampledCubeArray)),
            "texture1d" | "texture1darray" => assert!(has_cap(&m, Capability::Sampled1D)),
            _ => {}
        }
        if dim.starts_with("texture2dms") {
            assert_eq!(
                image.operands.get(4),
                Some(&Operand::LiteralBit32(1)),
                "MS=1"
            );
            let fetch = first(&m, Op::ImageFetch);
            assert!(fetch
                .operands
                .iter()
                .any(|o| matches!(o, Operand::ImageOperands(mask) if mask.contains(spirv::ImageOperands::SAMPLE))));
        }
    }
}

#[test]
fn integer_return_types_load_integers() {
    let m = module(&cs(
        "dcl_resource_texture2d (sint,sint,sint,sint) t0\ndcl_resource_buffer (uint,uint,uint,uint) t1\ndcl_uav_typed_buffer (uint,uint,uint,uint) u0",
        "ld_aoffimmi(1,0,0) r0.xyzw, vThreadID.xyzz, t0.xyzw
ld r1.xyzw, vThreadID.xxxx, t1.yzwx
iadd r0.xyzw, r0.xyzw, r1.xyzw
store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xyzw",
    ));
    assert_eq!(count_op(&m, Op::ImageFetch), 2);
    let fetch = first(&m, Op::ImageFetch);
    let ty = fetch.result_type.unwrap();
    let vector = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(ty))
        .unwrap();
    let Some(Operand::IdRef(component)) = vector.operands.first() else {
        panic!()
    };
    let int = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(*component))
        .unwrap();
    assert_eq!(int.class.opcode, Op::TypeInt);
    assert_eq!(
        int.operands.get(1),
        Some(&Operand::LiteralBit32(1)),
        "signed"
    );
    assert!(has(&m, Op::ImageWrite));
    assert!(has_cap(&m, Capability::StorageImageWriteWithoutFormat));
    assert!(has_cap(&m, Capability::ImageBuffer));
}

#[test]
fn resinfo_every_return_type() {
    let decls = "dcl_resource_texture2d (float,float,float,float) t0\ndcl_resource_texture2dms(4) (float,float,float,float) t1\ndcl_resource_texturecubearray (float,float,float,float) t2\ndcl_uav_typed_texture2darray (float,float,float,float) u0";
    let m = module(&cs(
        decls,
        "resinfo r0.xyzw, l(0), t0.xyzw
resinfo_rcpFloat r1.xyzw, vThreadID.x, t0.xyzw
resinfo_uint r2.xyzw, l(0), t1.xyzw
resinfo_uint r3.xyzw, l(1), t2.wzyx
resinfo r3.xyzw, l(0), u0.xyzw",
    ));
    assert!(has(&m, Op::ImageQuerySizeLod));
    assert!(has(&m, Op::ImageQueryLevels));
    assert_eq!(count_op(&m, Op::ImageQuerySize), 2);
    assert!(has(&m, Op::FDiv));
    assert!(has_cap(&m, Capability::ImageQuery));
}

#[test]
fn sampleinfo_samplepos_and_lod() {
    let decls = "dcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_resource_texture2dms(4) (float,float,float,float) t1";
    let m = module(&ps(
        decls,
        "sampleinfo_uint r0.x, t1.x
sampleinfo r0.y, t1.x
samplepos r1.xy, t1.xyxx, l(3)
lod r2.xy, v0.xyxx, t0.yxzw, s0
mov o0.xyzw, r1.xyzw",
    ));
    assert_eq!(count_op(&m, Op::ImageQuerySamples), 3);
    assert!(has(&m, Op::ImageQueryLod));
    // The table of standard positions: 31 two-component entries.
    let table = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::ConstantComposite && i.operands.len() == 31);
    assert!(table.is_some(), "sample position table");
}

#[test]
fn bufinfo_typed_raw_structured() {
    let m = module(&cs(
        "dcl_resource_buffer (float,float,float,float) t0\ndcl_resource_raw t1\ndcl_uav_structured u0, 12\ndcl_uav_typed_buffer (uint,uint,uint,uint) u1",
        "bufinfo r0.x, t0.xxxx
bufinfo r0.y, t1.xxxx
bufinfo r0.z, u0.xxxx
bufinfo r0.w, u1.xxxx
store_uav_typed u1.xyzw, vThreadID.xxxx, r0.xyzw",
    ));
    assert_eq!(count_op(&m, Op::ImageQuerySize), 2);
    assert_eq!(count_op(&m, Op::ArrayLength), 2);
    assert!(has(&m, Op::UDiv), "structured: bytes / stride");
}

#[test]
fn typed_uav_load_store_and_coherent() {
    let m = module(&cs(
        "dcl_uav_typed_texture2d_glc (float,float,float,float) u0\ndcl_uav_typed_texture1d (unorm,unorm,unorm,unorm) u1\ndcl_uav_typed_texture3d (sint,sint,sint,sint) u2",
        "ld_uav_typed r0.xyzw, vThreadID.xyyy, u0.wzyx
store_uav_typed u0.xyzw, vThreadID.xyyy, r0.xyzw
ld_uav_typed r1.xyzw, vThreadID.xxxx, u1.xyzw
store_uav_typed u1.xyzw, vThreadID.xxxx, r1.xyzw
ld_uav_typed r2.xyzw, vThreadID.xyzz, u2.xyzw
store_uav_typed u2.xyzw, vThreadID.xyzz, r2.xyzw",
    ));
    assert_eq!(count_op(&m, Op::ImageRead), 3);
    assert_eq!(count_op(&m, Op::ImageWrite), 3);
    assert!(has_cap(&m, Capability::StorageImageReadWithoutFormat));
    assert!(has_cap(&m, Capability::Image1D));
    assert!(m
        .annotations
        .iter()
        .any(|i| i.operands.get(1) == Some(&Operand::Decoration(Decoration::Coherent))));
    assert_eq!(bindings(&m), vec![160, 161, 162]);
}

#[test]
fn typed_uav_atomics_use_r32_formats() {
    let m = module(&cs(
        "dcl_uav_typed_texture2d (uint,uint,uint,uint) u0\ndcl_uav_typed_buffer (sint,sint,sint,sint) u1",
        "atomic_iadd u0, vThreadID.xyxx, l(1)
imm_atomic_umax r0.x, u0, vThreadID.xyxx, l(7)
imm_atomic_cmp_exch r0.y, u0, vThreadID.xyxx, l(0), l(2)
imm_atomic_imin r0.z, u1, vThreadID.x, l(-3)
ld_uav_typed r1.xyzw, vThreadID.xyyy, u0.xyzw",
    ));
    assert_eq!(count_op(&m, Op::ImageTexelPointer), 4);
    assert!(has(&m, Op::AtomicIAdd));
    assert!(has(&m, Op::AtomicUMax));
    assert!(has(&m, Op::AtomicCompareExchange));
    assert!(has(&m, Op::AtomicSMin));
    let formats: Vec<&Operand> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeImage)
        .filter_map(|i| i.operands.get(6))
        .collect();
    assert!(formats.contains(&&Operand::ImageFormat(spirv::ImageFormat::R32ui)));
    assert!(formats.contains(&&Operand::ImageFormat(spirv::ImageFormat::R32i)));
    // No "without format" capability is needed for R32 images.
    assert!(!has_cap(&m, Capability::StorageImageReadWithoutFormat));
}

#[test]
fn uav_counters() {
    let m = module(&cs(
        "dcl_uav_structured_opc u2, 16\ndcl_uav_structured_opc u3, 4",
        "imm_atomic_alloc r0.x, u2
imm_atomic_consume r0.y, u3
store_structured u2.x, r0.x, l(0), r0.y",
    ));
    assert!(has(&m, Op::AtomicIIncrement));
    assert!(has(&m, Op::AtomicIDecrement));
    // UAV bindings 162 and 163, counters at + 64.
    assert_eq!(bindings(&m), vec![162, 163, 226, 227]);
    // consume returns the new value: old - 1.
    let dec = first(&m, Op::AtomicIDecrement).result_id.unwrap();
    assert!(code(&m).any(|i| i.class.opcode == Op::ISub && has_operand(i, &Operand::IdRef(dec))));
}

#[test]
fn sm51_ranges_bind_at_space_and_lower_bound() {
    // SM5.1 single-register ranges bind at space/lower.
    let text = cs(
        "dcl_resource_texture2d (float,float,float,float) t0[5:5], space=3\ndcl_uav_typed_texture2d (float,float,float,float) u1[2:2], space=1",
        "ld r0.xyzw, vThreadID.xyzz, t0[5].xyzw\nstore_uav_typed u1[2].xyzw, vThreadID.xyyy, r0.xyzw",
    )
    .replace("cs_5_0", "cs_5_1");
    let m = module(&text);
    assert_eq!(bindings(&m), vec![37, 162]);
}

#[test]
fn comparison_sampling_of_an_integer_resource_is_refused() {
    let decls = "dcl_sampler s0, mode_comparison\n\
                 dcl_resource_texture2d (uint,uint,uint,uint) t0";
    let text = ps(
        decls,
        "sample_c_lz r0.x, v0.xyxx, t0.xxxx, s0, l(0.5)\nmov o0.xyzw, r0.xxxx",
    );
    let err = try_compile(&text).unwrap_err();
    assert!(
        err.to_string().contains("return type is not float"),
        "{text}\n{err}"
    );
}

#[test]
fn comparison_sampling_of_a_3d_texture_is_an_error() {
    let text = "cs_5_0
dcl_sampler s0, mode_comparison
dcl_resource_texture3d (float,float,float,float) t0
dcl_uav_typed_buffer (float,float,float,float) u0
dcl_temps 1
dcl_thread_group 1, 1, 1
sample_c_lz_indexable(texture3d)(float,float,float,float) r0.x, l(0, 0, 0, 0), t0.xxxx, s0, l(0.5)
store_uav_typed u0.xyzw, l(0, 0, 0, 0), r0.xxxx
ret
";
    let error = try_compile(text).expect_err("a 3D comparison must be refused");
    assert!(
        error.to_string().contains("compares against a 3D texture"),
        "{error}"
    );
}

/// `sampleinfo` and `samplepos` read a multisampled resource or the rasterizer: on any
/// other resource D3D's reference says they are not valid, and the error says so.
#[test]
fn sample_queries_of_a_resource_that_is_not_multisampled_are_invalid() {
    for (dimension, line) in [
        ("texture2d", "sampleinfo r0.x, t0.x"),
        ("texture2d", "sampleinfo_uint r0.x, t0.x"),
        ("texture2darray", "samplepos r0.xy, t0.xyxx, l(0)"),
        ("buffer", "sampleinfo r0.x, t0.x"),
    ] {
        let text = ps(
            &format!("dcl_resource_{dimension} (float,float,float,float) t0"),
            &format!("{line}\nmov o0.xyzw, r0.xxxy"),
        );
        let error = try_compile(&text).expect_err("a query of a single-sampled resource");
        assert_eq!(
            error.kind,
            crate::error::ErrorKind::Invalid,
            "{text}\n{error}"
        );
        assert!(
            error.message.contains("not multisampled") && error.message.contains("ld2dms can load"),
            "{text}\n{error}"
        );
    }
}

/// Typed UAVs have atomics only as R32_UINT or R32_SINT, declared uint or sint: a float,
/// unorm, snorm or double declaration with an atomic on it is invalid.
#[test]
fn atomics_on_a_typed_uav_that_is_not_uint_or_sint_are_invalid() {
    for return_type in ["float", "unorm", "snorm", "double"] {
        let types = if return_type == "double" {
            "(double,continued,double,continued)".to_string()
        } else {
            format!("({return_type},{return_type},{return_type},{return_type})")
        };
        for line in [
            "atomic_iadd u0, vThreadID.xyxx, l(1)",
            "imm_atomic_exch r0.x, u0, vThreadID.xyxx, l(1)",
        ] {
            let text = cs(&format!("dcl_uav_typed_texture2d {types} u0"), line);
            let error = try_compile(&text).expect_err("an atomic on a non-integer typed UAV");
            assert_eq!(
                error.kind,
                crate::error::ErrorKind::Invalid,
                "{text}\n{error}"
            );
            assert!(
                error.message.contains("must be declared uint or sint")
                    && error.message.contains(&format!("returning {return_type}")),
                "{text}\n{error}"
            );
        }
    }
}

/// Return types that are no typed resource's (continued first, none, unused) are invalid
/// declarations; the error names the return type.
#[test]
fn return_types_without_a_typed_meaning_are_invalid() {
    for return_type in ["continued", "unused", "none"] {
        for declaration in [
            format!("dcl_resource_texture2d ({return_type},{return_type},{return_type},{return_type}) t0"),
            format!("dcl_uav_typed_buffer ({return_type},{return_type},{return_type},{return_type}) u0"),
        ] {
            let text = cs(&declaration, "");
            let program = match crate::asm::parse_program(&text) {
                Ok(program) => program,
                // The assembler may refuse the name itself: nothing reaches the back end.
                Err(e) => panic!("{text}\ndoes not assemble: {e}"),
            };
            let error = crate::spirv::translate(&program, &ChunkInfo::default(), &Options::default())
                .expect_err("a typed resource without a return type");
            assert_eq!(error.kind, crate::error::ErrorKind::Invalid, "{text}\n{error}");
            assert!(
                error.message.contains(&format!("returns {return_type}:")),
                "{text}\n{error}"
            );
        }
    }
}

/// A typed resource returning `mixed` (fxc's `tbuffer`) is read as uint: its image has an
/// unsigned integer sampled type and the module validates (executed in
/// `shaders/misc/tbuffer_mixed.shader_test`).
#[test]
fn mixed_typed_resources_read_as_uint() {
    let text = cs(
        "dcl_resource_buffer (mixed,mixed,mixed,mixed) t0
dcl_uav_typed_buffer (mixed,mixed,mixed,mixed) u0",
        "ld_indexable(buffer)(mixed,mixed,mixed,mixed) r0.xyzw, vThreadID.xxxx, t0.xyzw
store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xyzw",
    );
    let m = module(&text);
    let uint = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::TypeInt
                && i.operands[..] == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]
        })
        .and_then(|i| i.result_id)
        .unwrap_or_else(|| panic!("no uint type\n{text}"));
    let images: Vec<_> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeImage)
        .collect();
    assert_eq!(images.len(), 2, "{text}");
    for image in images {
        assert_eq!(image.operands[0], Operand::IdRef(uint), "{text}\n{image:?}");
    }
}

/// A sample written whole into a temp, through a resource's `.xyzw`, is stored as the
/// sampled vector: no component is taken out of it only to be put back (the module as the
/// emitter writes it, without the optimiser); a swizzled resource still picks components.
#[test]
fn a_sample_through_an_in_order_swizzle_is_the_sampled_vector() {
    let decls = "dcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0";
    let unoptimised = |body: &str| module(&ps(decls, body));
    // Extracts of the sample's result.
    let extracts_of_sample = |m: &Module| {
        let sample = first(m, Op::ImageSampleImplicitLod).result_id;
        code(m)
            .filter(|i| i.class.opcode == Op::CompositeExtract)
            .filter(|i| i.operands.first().and_then(|o| o.id_ref_any()) == sample)
            .count()
    };
    let m = unoptimised("sample r0.xyzw, v0.xyxx, t0.xyzw, s0\nadd o0.xyzw, r0.xyzw, r0.xyzw");
    assert_eq!(
        extracts_of_sample(&m),
        0,
        "{:?}",
        code(&m).collect::<Vec<_>>()
    );
    let m = unoptimised("sample r0.xyzw, v0.xyxx, t0.wzyx, s0\nadd o0.xyzw, r0.xyzw, r0.xyzw");
    assert_eq!(
        extracts_of_sample(&m),
        4,
        "the swizzle takes each component: {:?}",
        code(&m).collect::<Vec<_>>()
    );
}
