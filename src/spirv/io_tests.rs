//! Tests of the I/O lowering: vertex, pixel and compute inputs, outputs and system values,
//! each validated with spirv-val.

use rspirv::dr::{Instruction as SpvInstruction, Module as SpvModule, Operand as SpvOperand};
use spirv::{BuiltIn, Decoration, ExecutionMode, Op};

use super::test_support::{builtin_var, code, count_op, decorations, validate_for};

use crate::container::{signatures_from_program, ChunkInfo};
use crate::error::ErrorKind;
use crate::spirv::{translate, TargetEnv};
use crate::TranslateOptions as Options;

/// Assembles a program, derives its signatures, translates and validates it.
fn compile_with(text: &str, options: &Options) -> SpvModule {
    let program = crate::asm::parse_program(text).expect("assembles");
    compile_program(&program, options)
}

/// Translates an assembled program (its signatures derived from its declarations),
/// validated and read back.
fn compile_program(program: &crate::ir::Program, options: &Options) -> SpvModule {
    let (input, output, _) = signatures_from_program(program);
    let reflection = ChunkInfo {
        input: Some(input),
        output: Some(output),
        ..ChunkInfo::default()
    };
    let words = translate(program, &reflection, options).expect("translates");
    validate_for(&words, options.target.name());
    rspirv::dr::load_words(&words).expect("loads")
}

fn compile(text: &str) -> SpvModule {
    compile_with(text, &Options::default())
}

fn has_builtin(module: &SpvModule, builtin: BuiltIn) -> bool {
    builtin_var(module, builtin).is_some()
}

fn decorated(module: &SpvModule, id: u32, decoration: Decoration) -> Option<Vec<u32>> {
    decorations(module, decoration)
        .into_iter()
        .find(|(t, _)| *t == id)
        .map(|(_, v)| v)
}

fn variable_by_location(module: &SpvModule, location: u32, class: spirv::StorageClass) -> u32 {
    decorations(module, Decoration::Location)
        .into_iter()
        .filter(|(_, v)| v.first() == Some(&location))
        .map(|(id, _)| id)
        .find(|id| {
            module.types_global_values.iter().any(|i| {
                i.result_id == Some(*id)
                    && matches!(i.operands.first(), Some(SpvOperand::StorageClass(c)) if *c == class)
            })
        })
        .expect("a variable at the location")
}

fn has_mode(module: &SpvModule, mode: ExecutionMode) -> bool {
    module
        .execution_modes
        .iter()
        .any(|i| matches!(i.operands.get(1), Some(SpvOperand::ExecutionMode(m)) if *m == mode))
}

fn has_capability(module: &SpvModule, capability: spirv::Capability) -> bool {
    module
        .capabilities
        .iter()
        .any(|i| matches!(i.operands.first(), Some(SpvOperand::Capability(c)) if *c == capability))
}

fn ops(module: &SpvModule) -> Vec<&SpvInstruction> {
    code(module).collect()
}

/// Length of the array type pointed to by a variable.
fn array_length(module: &SpvModule, var: u32) -> u32 {
    let find = |id: u32| {
        module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
            .expect("defined")
    };
    let pointer = find(find(var).result_type.expect("typed"));
    let array = match pointer.operands[1] {
        SpvOperand::IdRef(id) => find(id),
        _ => panic!("pointer"),
    };
    assert_eq!(array.class.opcode, Op::TypeArray);
    let length = match array.operands[1] {
        SpvOperand::IdRef(id) => find(id),
        _ => panic!("length"),
    };
    match length.operands[0] {
        SpvOperand::LiteralBit32(v) => v,
        _ => panic!("literal"),
    }
}

#[test]
fn vertex_inputs_outputs_and_ids() {
    let module = compile(
        "vs_5_0
dcl_input v0.xyzw
dcl_input v1.xy
dcl_input_sgv v2.x, vertex_id
dcl_input_sgv v3.x, instance_id
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_output o2.xy
dcl_temps 1
mov o0.xyzw, v0.xyzw
iadd r0.x, v2.x, v3.x
utof o1.xyzw, r0.xxxx
mov o2.xy, v1.xyxx
ret
",
    );
    for b in [
        BuiltIn::VertexIndex,
        BuiltIn::BaseVertex,
        BuiltIn::InstanceIndex,
        BuiltIn::BaseInstance,
        BuiltIn::Position,
    ] {
        assert!(has_builtin(&module, b), "{b:?}");
    }
    assert!(has_capability(&module, spirv::Capability::DrawParameters));
    // SV_VertexID = VertexIndex - BaseVertex, SV_InstanceID = InstanceIndex - BaseInstance.
    assert_eq!(count_op(&module, Op::ISub), 2);
    variable_by_location(&module, 0, spirv::StorageClass::Input);
    variable_by_location(&module, 1, spirv::StorageClass::Input);
    variable_by_location(&module, 1, spirv::StorageClass::Output);
    variable_by_location(&module, 2, spirv::StorageClass::Output);
    // SPIR-V 1.3 (Vulkan 1.1) has DrawParameters in core as well.
    let options = Options {
        target: TargetEnv::Vulkan1_1,
        ..Options::default()
    };
    compile_with(
        "vs_5_0
dcl_input_sgv v0.x, vertex_id
dcl_output_siv o0.xyzw, position
utof o0.xyzw, v0.xxxx
ret
",
        &options,
    );
}

#[test]
fn vertex_inputs_take_signature_types() {
    let text = "vs_5_0
dcl_input v0.xyzw
dcl_input v1.x
dcl_output_siv o0.xyzw, position
dcl_output o1.x
mov o0.xyzw, v0.xyzw
iadd o1.x, v1.x, l(1)
ret
";
    let program = crate::asm::parse_program(text).expect("assembles");
    let (mut input, output, _) = signatures_from_program(&program);
    for e in &mut input.elements {
        if e.register == 1 {
            e.component_type = crate::container::ComponentType::Sint32;
        }
    }
    let reflection = ChunkInfo {
        input: Some(input),
        output: Some(output),
        ..ChunkInfo::default()
    };
    let words = translate(&program, &reflection, &Options::default()).expect("translates");
    validate_for(&words, "vulkan1.3");
    let module = rspirv::dr::load_words(&words).expect("loads");
    let var = variable_by_location(&module, 1, spirv::StorageClass::Input);
    let pointer = module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(var))
        .and_then(|i| i.result_type)
        .expect("typed");
    let vector = module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(pointer))
        .map(|i| match i.operands[1] {
            SpvOperand::IdRef(id) => id,
            _ => 0,
        })
        .expect("pointer");
    let element = module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(vector))
        .map(|i| match i.operands[0] {
            SpvOperand::IdRef(id) => id,
            _ => 0,
        })
        .expect("vector");
    let int = module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(element))
        .expect("int");
    assert_eq!(int.class.opcode, Op::TypeInt);
    assert_eq!(int.operands[1], SpvOperand::LiteralBit32(1));
}

#[test]
fn more_clip_distances_than_d3d11_allows_are_translated() {
    // D3D11's limit is 8 (a warning of the validation); the module holds all 12.
    let module = compile(
        "vs_5_0
dcl_output_siv o0.xyzw, position
dcl_output_siv o1.xyzw, clip_distance
dcl_output_siv o2.xyzw, clip_distance
dcl_output_siv o3.xyzw, clip_distance
mov o0.xyzw, l(0, 0, 0, 1.0)
mov o1.xyzw, l(1.0, 2.0, 3.0, 4.0)
mov o2.xyzw, l(1.0, 2.0, 3.0, 4.0)
mov o3.xyzw, l(1.0, 2.0, 3.0, 4.0)
ret
",
    );
    let clip = builtin_var(&module, BuiltIn::ClipDistance).expect("clip");
    assert_eq!(array_length(&module, clip), 12);
}

#[test]
fn clip_and_cull_distances_are_gathered() {
    let module = compile(
        "vs_5_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output_siv o1.xy, clip_distance
dcl_output_siv o1.zw, cull_distance
dcl_output_siv o2.xyz, clip_distance
dcl_output_siv o3.x, rendertarget_array_index
dcl_output_siv o3.y, viewport_array_index
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v0.xyzw
mov o2.xyz, v0.xyzx
mov o3.xy, l(1, 2, 0, 0)
ret
",
    );
    let clip = builtin_var(&module, BuiltIn::ClipDistance).expect("clip");
    let cull = builtin_var(&module, BuiltIn::CullDistance).expect("cull");
    assert_eq!(array_length(&module, clip), 5);
    assert_eq!(array_length(&module, cull), 2);
    assert!(has_builtin(&module, BuiltIn::Layer));
    assert!(has_builtin(&module, BuiltIn::ViewportIndex));
    assert!(has_capability(&module, spirv::Capability::ShaderLayer));
    assert!(has_capability(
        &module,
        spirv::Capability::ShaderViewportIndex
    ));
    // Vulkan 1.1 (SPIR-V 1.3) takes the EXT capability.
    let options = Options {
        target: TargetEnv::Vulkan1_1,
        ..Options::default()
    };
    let module = compile_with(
        "vs_5_0
dcl_output_siv o0.xyzw, position
dcl_output_siv o1.x, rendertarget_array_index
mov o0.xyzw, l(0, 0, 0, 1.0)
mov o1.x, l(3)
ret
",
        &options,
    );
    assert!(has_capability(
        &module,
        spirv::Capability::ShaderViewportIndexLayerEXT
    ));
}

#[test]
fn pixel_inputs_and_system_values() {
    let module = compile(
        "ps_5_0
dcl_input_ps_siv linear noperspective v0.xyzw, position
dcl_input_ps linear centroid v1.xy
dcl_input_ps linear sample v1.zw
dcl_input_ps constant v2.x
dcl_input_ps linear noperspective v3.xyzw
dcl_input_ps_sgv v4.x, is_front_face
dcl_input_ps_sgv v4.y, sampleIndex
dcl_input_ps_sgv constant v4.z, primitive_id
dcl_input vCoverage
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_temps 1
add r0.xyzw, v0.xyzw, v1.xyzw
add r0.xyzw, r0.xyzw, v3.xyzw
mov o0.xyzw, r0.xyzw
mov o1.x, v4.x
mov o1.y, v4.y
iadd o1.z, v4.z, vCoverage.x
mov o1.w, v2.x
ret
",
    );
    for b in [
        BuiltIn::FragCoord,
        BuiltIn::FrontFacing,
        BuiltIn::SampleId,
        BuiltIn::PrimitiveId,
        BuiltIn::SampleMask,
    ] {
        assert!(has_builtin(&module, b), "{b:?}");
    }
    // FragCoord.w is 1/w: one division recovers D3D's w.
    assert_eq!(count_op(&module, Op::FDiv), 1);
    // SV_IsFrontFace becomes 0xffffffff/0.
    assert!(count_op(&module, Op::Select) >= 1);
    let v1 = variable_by_location(&module, 1, spirv::StorageClass::Input);
    assert!(decorated(&module, v1, Decoration::Centroid).is_some());
    let v2 = variable_by_location(&module, 2, spirv::StorageClass::Input);
    assert!(decorated(&module, v2, Decoration::Flat).is_some());
    let v3 = variable_by_location(&module, 3, spirv::StorageClass::Input);
    assert!(decorated(&module, v3, Decoration::NoPerspective).is_some());
    assert!(has_capability(
        &module,
        spirv::Capability::SampleRateShading
    ));
}

#[test]
fn pixel_outputs() {
    let module = compile(
        "ps_5_0
dcl_globalFlags forceEarlyDepthStencil
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_output oMask
mov o0.xyzw, v0.xyzw
mov oMask, l(3)
ret
",
    );
    assert!(has_mode(&module, ExecutionMode::EarlyFragmentTests));
    assert!(has_builtin(&module, BuiltIn::SampleMask));
    let module = compile(
        "ps_5_0
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_output oDepthGE
mov o0.xyzw, v0.xyzw
mov oDepthGE, v0.z
ret
",
    );
    assert!(has_builtin(&module, BuiltIn::FragDepth));
    assert!(has_mode(&module, ExecutionMode::DepthReplacing));
    assert!(has_mode(&module, ExecutionMode::DepthGreater));
    let module = compile(
        "ps_5_0
dcl_input_ps linear v0.xyzw
dcl_output oDepth
dcl_output oStencilRef
mov oDepth, v0.z
mov oStencilRef, l(7)
ret
",
    );
    assert!(has_mode(&module, ExecutionMode::DepthReplacing));
    assert!(!has_mode(&module, ExecutionMode::DepthGreater));
    assert!(has_builtin(&module, BuiltIn::FragStencilRefEXT));
    assert!(has_capability(&module, spirv::Capability::StencilExportEXT));
}

#[test]
fn a_conservative_depth_mode_only_when_every_depth_output_is_of_its_kind() {
    let modes = |outputs: &[&str]| {
        let mut text = String::from("ps_5_0\ndcl_input_ps linear v0.xyzw\n");
        for output in outputs {
            text += &format!("dcl_output {output}\n");
        }
        for output in outputs {
            text += &format!("mov {output}, v0.z\n");
        }
        text += "ret\n";
        let module = compile(&text);
        [
            ExecutionMode::DepthReplacing,
            ExecutionMode::DepthGreater,
            ExecutionMode::DepthLess,
        ]
        .map(|mode| has_mode(&module, mode))
    };
    for (outputs, expected) in [
        (&["oDepthGE"][..], [true, true, false]),
        (&["oDepthLE"][..], [true, false, true]),
        (&["oDepth"][..], [true, false, false]),
        // Depths written both ways: no promise holds of every one.
        (&["oDepthGE", "oDepthLE"][..], [true, false, false]),
        (&["oDepthLE", "oDepthGE"][..], [true, false, false]),
        (&["oDepth", "oDepthGE"][..], [true, false, false]),
        (&["oDepthLE", "oDepth"][..], [true, false, false]),
    ] {
        assert_eq!(
            modes(outputs),
            expected,
            "{outputs:?}: DepthReplacing, DepthGreater, DepthLess"
        );
    }
}

#[test]
fn inner_coverage_is_fully_covered() {
    let module = compile(
        "ps_5_0
dcl_input vInnerCoverage
dcl_output o0.x
mov o0.x, vInnerCoverage.x
ret
",
    );
    assert!(has_builtin(&module, BuiltIn::FullyCoveredEXT));
    assert!(has_capability(
        &module,
        spirv::Capability::FragmentFullyCoveredEXT
    ));
}

#[test]
fn pixel_clip_distance_inputs_and_layer() {
    let module = compile(
        "ps_5_0
dcl_input_ps linear v0.xyzw
dcl_input_ps_siv linear v1.xy, clip_distance
dcl_input_ps_siv constant v1.z, rendertarget_array_index
dcl_input_ps_siv constant v1.w, viewport_array_index
dcl_output o0.xyzw
dcl_temps 1
add r0.x, v1.x, v1.y
itof r0.y, v1.z
itof r0.z, v1.w
mov r0.w, v0.w
mov o0.xyzw, r0.xyzw
ret
",
    );
    let clip = builtin_var(&module, BuiltIn::ClipDistance).expect("clip");
    assert_eq!(array_length(&module, clip), 2);
    assert!(has_builtin(&module, BuiltIn::Layer));
    assert!(has_builtin(&module, BuiltIn::ViewportIndex));
}

#[test]
fn pull_model_interpolation() {
    let module = compile(
        "ps_5_0
dcl_input_ps linear v0.xyzw
dcl_input_ps linear noperspective v1.xy
dcl_output o0.xyzw
dcl_temps 2
eval_centroid r0.xy, v0.xyxx
eval_sample_index r0.zw, v1.xxxy, l(1)
eval_snapped r1.xyzw, v0.xyzw, l(-3, 5, 0, 0)
add o0.xyzw, r0.xyzw, r1.xyzw
ret
",
    );
    assert!(has_capability(
        &module,
        spirv::Capability::InterpolationFunction
    ));
    assert_eq!(count_op(&module, Op::ExtInst), 8 + count_other_ext(&module));
}

/// Extended instructions other than the interpolation functions.
fn count_other_ext(module: &SpvModule) -> usize {
    ops(module)
        .iter()
        .filter(|i| i.class.opcode == Op::ExtInst)
        .filter(|i| {
            !matches!(
                i.operands.get(1),
                Some(SpvOperand::LiteralExtInstInteger(76..=78))
            )
        })
        .count()
}

#[test]
fn compute_system_values() {
    let module = compile(
        "cs_5_0
dcl_input vThreadID.xyz
dcl_input vThreadGroupID.xy
dcl_input vThreadIDInGroup.x
dcl_input vThreadIDInGroupFlattened
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 4, 2, 1
iadd r0.x, vThreadID.x, vThreadGroupID.y
iadd r0.x, r0.x, vThreadIDInGroup.x
iadd r0.x, r0.x, vThreadIDInGroupFlattened.x
store_raw u0.x, l(0), r0.x
ret
",
    );
    for b in [
        BuiltIn::GlobalInvocationId,
        BuiltIn::WorkgroupId,
        BuiltIn::LocalInvocationId,
        BuiltIn::LocalInvocationIndex,
    ] {
        assert!(has_builtin(&module, b), "{b:?}");
    }
}

#[test]
fn relative_io_addressing_goes_through_private_arrays() {
    let module = compile(
        "vs_5_0
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_input v2.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_output o2.xyzw
dcl_temps 1
dcl_indexrange v1.xyzw 2
dcl_indexrange o1.xyzw 2
mov o0.xyzw, v0.xyzw
ftou r0.x, v0.x
mov o1.xyzw, l(0, 0, 0, 0)
mov o[r0.x + 1].xyzw, v[r0.x + 1].xyzw
ret
",
    );
    // Two private arrays; the outputs are copied out before the return.
    let privates = super::test_support::global_variables(&module, spirv::StorageClass::Private);
    assert!(privates >= 2);
    // Both accesses are bounds-checked; with one index value they share the comparison,
    // which both the loads' selects and the stores' branches use.
    assert!(count_op(&module, Op::ULessThan) >= 1);
    assert!(count_op(&module, Op::BranchConditional) >= 4);
}

#[test]
fn eval_of_a_system_value_is_unsupported() {
    let program = crate::asm::parse_program(
        "ps_5_0
dcl_input_ps_siv linear noperspective v0.xyzw, position
dcl_output o0.xyzw
eval_centroid o0.xyzw, v0.xyzw
ret
",
    )
    .expect("assembles");
    let err =
        translate(&program, &ChunkInfo::default(), &Options::default()).expect_err("unsupported");
    assert_eq!(err.kind, ErrorKind::Unsupported, "{err}");
}

/// The emitter's own module (the optimiser off), validated.
fn emitted(text: &str) -> SpvModule {
    compile_with(
        text,
        &Options {
            no_optimize: true,
            ..Options::default()
        },
    )
}

#[test]
fn converted_system_values_are_values_not_memory() {
    use rspirv::binary::Disassemble;
    // SV_Position.w, SV_IsFrontFace and a per-sample SV_Position (the pixel center's x
    // and y), computed once at the start and read as values.
    let ps = emitted(
        "ps_5_0
dcl_input_ps_siv linear noperspective centroid v0.xyzw, position
dcl_input_ps_sgv v1.x, is_front_face
dcl_input_ps linear sample v2.x
dcl_output o0.xyzw
dcl_output o1.x
mov o0.xyzw, v0.xyzw
add o1.x, v0.w, v2.x
and o1.x, v1.x, l(7)
ret",
    );
    // SV_VertexID through a relatively addressed input range (the range's private array
    // is filled from the value).
    let vs = emitted(
        "vs_5_0
dcl_input_sgv v0.x, vertex_id
dcl_input v1.x
dcl_output o0.x
dcl_temps 1
dcl_indexrange v0.x 2
mov r0.x, v1.x
mov o0.x, v[r0.x + 0].x
ret",
    );
    for (module, privates) in [(&ps, 0), (&vs, 1)] {
        let text = module.disassemble();
        assert_eq!(
            super::test_support::global_variables(module, spirv::StorageClass::Private),
            privates,
            "Private variables (the input range's array only):\n{text}"
        );
    }
    assert!(count_op(&ps, Op::FDiv) >= 1, "{}", ps.disassemble());
    assert_eq!(count_op(&vs, Op::ISub), 1, "{}", vs.disassemble());
}

#[test]
fn whole_vectors_are_read_and_written_at_once() {
    let m = emitted(
        "vs_4_0
dcl_constantbuffer cb0[2], immediateIndexed
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_output o2.xyzw
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v1.xyzw
mov o2.xyzw, cb0[1].xyzw
ret",
    );
    let text = || {
        use rspirv::binary::Disassemble;
        m.disassemble()
    };
    assert_eq!(count_op(&m, Op::Load), 3, "v0, v1, cb0[1]:\n{}", text());
    assert_eq!(count_op(&m, Op::Store), 3, "o0, o1, o2:\n{}", text());
    assert_eq!(count_op(&m, Op::AccessChain), 1, "cb0[1]:\n{}", text());
    assert_eq!(count_op(&m, Op::CompositeExtract), 0, "{}", text());
    assert_eq!(count_op(&m, Op::CompositeConstruct), 0, "{}", text());
}

#[test]
fn held_output_stores_write_outputs_whole() {
    let m = emitted(
        "ps_4_0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_temps 2
mov r0.x, v0.x
mul r1.x, v0.y, v0.y
mov o0.xy, v0.xyxx
mov o0.zw, l(0, 0, 0, 1.0)
if_nz r0.x
  mov o1.x, r1.x
endif
mov o1.yzw, v0.xxyy
ret",
    );
    let text = {
        use rspirv::binary::Disassemble;
        m.disassemble()
    };
    let stores: Vec<Vec<&SpvInstruction>> = m.functions[0]
        .blocks
        .iter()
        .map(|b| {
            b.instructions
                .iter()
                .filter(|i| i.class.opcode == Op::Store)
                .collect()
        })
        .collect();
    // The first block writes o0 whole, once (temps are SSA values, never stored). The `if`
    // block writes o1.x alone (an access chain), the empty `else` block nothing, and the
    // last block the rest of o1, component by component.
    assert_eq!(
        stores.iter().map(Vec::len).collect::<Vec<_>>(),
        [1, 1, 0, 3],
        "{text}"
    );
    let outputs = variables_of(&m, spirv::StorageClass::Output);
    let whole_output_stores = stores[0]
        .iter()
        .filter(|s| matches!(s.operands.first(), Some(SpvOperand::IdRef(p)) if outputs.contains(p)))
        .count();
    assert_eq!(whole_output_stores, 1, "o0 in one store:\n{text}");
}

/// The ids of the module-scope variables of a storage class.
fn variables_of(m: &SpvModule, class: spirv::StorageClass) -> Vec<u32> {
    m.types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&SpvOperand::StorageClass(class))
        })
        .filter_map(|i| i.result_id)
        .collect()
}

#[test]
fn a_temp_past_d3ds_registers_is_an_ssa_value_too() {
    // r4096 (past D3D's 4096, allowed by raised limits) is a value like any other temp.
    let program = crate::asm::parse_program_unchecked(
        "ps_5_0
dcl_input_ps linear v0.x
dcl_output o0.x
dcl_temps 4097
mov r4096.x, v0.x
mov o0.x, r4096.x
ret",
    )
    .expect("assembles");
    let m = compile_program(
        &program,
        &Options {
            no_optimize: true,
            ..Options::default()
        },
    );
    let text = {
        use rspirv::binary::Disassemble;
        m.disassemble()
    };
    assert!(
        variables_of(&m, spirv::StorageClass::Private).is_empty(),
        "no variable for the temp:\n{text}"
    );
    let stores = m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::Store)
        .count();
    assert_eq!(stores, 1, "o0.x only:\n{text}");
}

#[test]
fn invalid_io_declarations_are_errors_that_say_why() {
    let cases = [
        ("ps_5_0\ndcl_input vThreadID.xyz\nret\n", "vThreadID"),
        (
            "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_output oDepth\nret\n",
            "oDepth",
        ),
        (
            "ps_5_0\ndcl_input_ps_siv linear v0.x, finalQuadUeq0EdgeTessFactor\nret\n",
            "finalQuadUeq0EdgeTessFactor is not an input system value of ps shaders",
        ),
        (
            "vs_5_0\ndcl_output_siv o0.x, is_front_face\nret\n",
            "is_front_face is not an output system value of vs shaders",
        ),
        (
            "ps_5_0\ndcl_output_siv o0.x, position\nret\n",
            "position is not an output system value of ps shaders",
        ),
        (
            "vs_5_0\ndcl_input v[3][0].xyzw\nret\n",
            "its v registers take one index",
        ),
        (
            "vs_5_0\ndcl_input v0.x\ndcl_input v1.x\ndcl_indexrange v[2][0].x 2\nret\n",
            "its v registers take one index",
        ),
        (
            "ps_5_0\ndcl_input_ps constant vpc0.x\ndcl_indexrange vpc0.x 2\nret\n",
            "vpc",
        ),
    ];
    for (text, expected) in cases {
        let Ok(program) = crate::asm::parse_program(text) else {
            // The assembler or the IR validator refused it first: also an error.
            continue;
        };
        let error = translate(&program, &ChunkInfo::default(), &Options::default())
            .expect_err("an invalid declaration");
        assert_eq!(error.kind, ErrorKind::Invalid, "{text}: {error}");
        assert!(
            error.message.contains(expected),
            "{text}\nexpected {expected:?}, got {error}"
        );
    }
    // Pixel-shader outputs are not indexable.
    let program = crate::asm::parse_program(
        "ps_5_0\ndcl_output o0.x\ndcl_output o1.x\ndcl_temps 1\nmov r0.x, l(1)\n\
         mov o[r0.x + 0].x, l(1.000000)\nret\n",
    )
    .expect("assembles");
    let error = translate(&program, &ChunkInfo::default(), &Options::default())
        .expect_err("an indexed pixel-shader output");
    assert_eq!(error.kind, ErrorKind::Invalid, "{error}");
    assert!(error.message.contains("not indexable"), "{error}");
    // A geometry shader cannot set the facing in Vulkan: an error naming the limitation.
    let program = crate::asm::parse_program(
        "gs_5_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
         dcl_output_siv o1.x, is_front_face\nret\n",
    )
    .expect("assembles");
    let error = translate(&program, &ChunkInfo::default(), &Options::default())
        .expect_err("a Vulkan limitation");
    assert_eq!(error.kind, ErrorKind::Unsupported, "{error}");
    assert!(error.message.contains("Vulkan has no way"), "{error}");
}

#[test]
fn vertex_and_instance_ids_passed_on_are_ordinary_values() {
    let vs = compile(
        "vs_5_0
dcl_input_sgv v0.x, vertex_id
dcl_output_siv o0.xyzw, position
dcl_output_sgv o1.x, vertex_id
mov o0.xyzw, l(0, 0, 0, 1.000000)
mov o1.x, v0.x
ret
",
    );
    variable_by_location(&vs, 1, spirv::StorageClass::Output);
    let ps = compile(
        "ps_5_0
dcl_input_ps_sgv constant v1.x, vertex_id
dcl_output o0.x
utof o0.x, v1.x
ret
",
    );
    let input = variable_by_location(&ps, 1, spirv::StorageClass::Input);
    assert!(decorated(&ps, input, Decoration::Flat).is_some());
}

fn ext_insts(module: &SpvModule, number: u32) -> usize {
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| {
            i.class.opcode == Op::ExtInst
                && matches!(i.operands.get(1), Some(SpvOperand::LiteralExtInstInteger(n)) if *n == number)
        })
        .count()
}

#[test]
fn eval_of_constant_inputs_reads_them_and_of_a_range_selects_the_register() {
    // Constant-interpolated inputs (a float declared constant, an integer) are the same
    // everywhere in the primitive: eval_* reads them (the sample index is ignored).
    let module = compile(
        "ps_5_0
dcl_input_ps constant v0.x
dcl_input_ps constant v0.y
dcl_input_ps linear v1.x
dcl_input_ps_sgv v2.x, primitive_id
dcl_output o0.xyzw
eval_sample_index o0.x, v0.x, l(1)
eval_centroid o0.y, v0.y
eval_centroid o0.z, v1.x
eval_snapped o0.w, v2.x, l(1, 1, 0, 0)
ret
",
    );
    assert_eq!(ext_insts(&module, 77), 0, "no InterpolateAtSample");
    assert_eq!(ext_insts(&module, 76), 1, "one InterpolateAtCentroid");
    assert_eq!(ext_insts(&module, 78), 0, "no InterpolateAtOffset");
    // A relative index inside a dcl_indexrange: each register of the range evaluated,
    // the one the index names selected.
    let module = compile(
        "ps_5_0
dcl_input_ps linear v1.x
dcl_input_ps linear v2.x
dcl_input_ps constant v3.x
dcl_indexrange v1.x 2
dcl_output o0.x
dcl_temps 1
ftou r0.x, v3.x
eval_centroid o0.x, v[r0.x + 1].x
ret
",
    );
    assert_eq!(ext_insts(&module, 76), 2, "two InterpolateAtCentroid");
    // Clip distances are interpolated: evaluated with InterpolateAt* on the built-in array's
    // element.
    let module = compile(
        "ps_5_0
dcl_input_ps_siv linear v1.xy, clip_distance
dcl_output o0.xy
eval_sample_index o0.x, v1.y, l(0)
eval_centroid o0.y, v1.x
ret
",
    );
    assert_eq!(ext_insts(&module, 77), 1, "one InterpolateAtSample");
    assert_eq!(ext_insts(&module, 76), 1, "one InterpolateAtCentroid");
}

#[test]
fn relative_addressing_without_an_index_range_selects_among_the_declared_registers() {
    // D3D leaves indexing outside a dcl_indexrange undefined, so the program is valid: the
    // registers are gathered as if the whole file were one range. (As emitted: the
    // optimiser folds the constant index.)
    let module = compile_with(
        "vs_5_0
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_output o2.xyzw
dcl_temps 1
mov r0.x, l(1)
mov o0.xyzw, v[r0.x + 0].xyzw
mov o1.xyzw, l(0, 0, 0, 0)
mov o[r0.x + 1].xyzw, v0.xyzw
ret
",
        &Options {
            no_optimize: true,
            ..Options::default()
        },
    );
    let privates = super::test_support::global_variables(&module, spirv::StorageClass::Private);
    assert!(privates >= 2, "{privates} private arrays");
    assert!(count_op(&module, Op::ULessThan) >= 2);
}

/// A compute shader reading `vCycleCounter` in three instructions: one reading `.xy`
/// together, then `.x` and `.y` in two more.
const CLOCK_READS: &str = "cs_5_0
dcl_uav_typed_buffer (uint,uint,uint,uint) u0
dcl_input vCycleCounter
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.xy, vCycleCounter.xyxx
mov r1.x, vCycleCounter.x
mov r1.y, vCycleCounter.y
iadd r0.x, r0.x, r1.x
iadd r0.y, r0.y, r1.y
store_uav_typed u0.xyzw, l(0,0,0,0), r0.xyxy
ret
";

fn clock_options(target: TargetEnv) -> Options {
    let mut options = Options {
        target,
        ..Options::default()
    };
    options.features.shader_clock = true;
    options
}

#[test]
fn the_cycle_counter_without_shader_clock_is_unsupported_naming_the_feature() {
    let program = crate::asm::parse_program(CLOCK_READS).expect("assembles");
    assert!(!Options::default().features.shader_clock, "off by default");
    let err = translate(&program, &ChunkInfo::default(), &Options::default())
        .expect_err("vCycleCounter without Features::shader_clock");
    assert_eq!(err.kind, ErrorKind::Unsupported, "{err}");
    let message = err.to_string();
    for part in [
        "vCycleCounter",
        "shaderSubgroupClock",
        "Features::shader_clock",
    ] {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
}

#[test]
fn the_cycle_counter_reads_the_clock_once_per_instruction() {
    for target in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let module = compile_with(CLOCK_READS, &clock_options(target));
        assert!(
            has_capability(&module, spirv::Capability::ShaderClockKHR),
            "{target:?}"
        );
        let extensions: Vec<_> = module
            .extensions
            .iter()
            .filter_map(|i| match i.operands.first() {
                Some(SpvOperand::LiteralString(s)) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            extensions.contains(&"SPV_KHR_shader_clock"),
            "{target:?}: {extensions:?}"
        );
        // Three instructions read it: `.xy` of the first come from one read.
        let reads: Vec<_> = ops(&module)
            .into_iter()
            .filter(|i| i.class.opcode == Op::ReadClockKHR)
            .collect();
        assert_eq!(
            reads.len(),
            3,
            "{target:?}: one OpReadClockKHR per reading instruction\n{}",
            super::test_support::disassemble(&rspirv::binary::Assemble::assemble(&module))
        );
        // Subgroup scope, as VK_KHR_shader_clock's shaderSubgroupClock offers.
        for read in reads {
            let Some(SpvOperand::IdScope(scope)) = read.operands.first() else {
                panic!("{target:?}: OpReadClockKHR without a scope: {read:?}");
            };
            let value = module
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(*scope))
                .and_then(|i| i.operands.first());
            assert_eq!(
                value,
                Some(&SpvOperand::LiteralBit32(spirv::Scope::Subgroup as u32)),
                "{target:?}"
            );
        }
    }
}

#[test]
fn the_cycle_counter_has_two_components() {
    let program = crate::asm::parse_program(
        "cs_5_0
dcl_uav_typed_buffer (uint,uint,uint,uint) u0
dcl_input vCycleCounter
dcl_thread_group 1, 1, 1
store_uav_typed u0.xyzw, l(0,0,0,0), vCycleCounter.zzzz
ret
",
    )
    .expect("assembles");
    let options = clock_options(TargetEnv::Vulkan1_3);
    let err = translate(&program, &ChunkInfo::default(), &options).expect_err(".z");
    let message = err.to_string();
    assert!(
        message.contains("vCycleCounter has two components") && message.contains("component z"),
        "{message}"
    );
}

#[test]
fn a_shader_run_per_sample_reads_other_inputs_where_d3d_evaluates_them() {
    // SV_SampleIndex makes the shader run per sample: the linear input is evaluated at the
    // pixel center (InterpolateAtOffset 0), the centroid one at the centroid, the sample one
    // loaded (Vulkan evaluates it at the sample), and SV_Position.xy is floor + 0.5, its z
    // moved back to the center by its fine derivatives.
    let per_sample = "ps_5_0
dcl_input_ps_siv linear noperspective v0.xyz, position
dcl_input_ps linear v1.xy
dcl_input_ps linear centroid v2.xy
dcl_input_ps linear sample v3.xy
dcl_input_ps_sgv v4.x, sampleIndex
dcl_output o0.xyzw
dcl_output o1.xyzw
add o0.xy, v1.xyxx, v2.xyxx
mov o0.zw, v3.xxxy
mov o1.xyz, v0.xyzx
utof o1.w, v4.x
ret
";
    let module = compile(per_sample);
    assert_eq!(
        ext_insts(&module, 78),
        1,
        "InterpolateAtOffset of v1:\n{per_sample}"
    );
    assert_eq!(
        ext_insts(&module, 76),
        1,
        "InterpolateAtCentroid of v2:\n{per_sample}"
    );
    assert_eq!(
        ext_insts(&module, 8),
        2,
        "Floor of FragCoord.x and .y:\n{per_sample}"
    );
    assert_eq!(
        count_op(&module, Op::DPdxFine),
        1,
        "z's x derivative:\n{per_sample}"
    );
    assert_eq!(
        count_op(&module, Op::DPdyFine),
        1,
        "z's y derivative:\n{per_sample}"
    );
    // Declared `sample`, SV_Position is FragCoord as it is; and without SV_SampleIndex or a
    // sample input the shader runs per pixel, where Vulkan already evaluates at the center.
    let per_pixel = per_sample
        .replace("linear sample v3", "linear v3")
        .replace("dcl_input_ps_sgv v4.x, sampleIndex\n", "")
        .replace("utof o1.w, v4.x\n", "");
    let sample_position = per_sample.replace(
        "linear noperspective v0.xyz",
        "linear noperspective sample v0.xyz",
    );
    for text in [&sample_position, &per_pixel] {
        let module = compile(text);
        assert_eq!(ext_insts(&module, 8), 0, "no Floor:\n{text}");
        assert_eq!(count_op(&module, Op::DPdxFine), 0, "no derivative:\n{text}");
    }
    let module = compile(&per_pixel);
    assert_eq!(
        ext_insts(&module, 78),
        0,
        "no InterpolateAtOffset:\n{per_pixel}"
    );
    assert_eq!(
        ext_insts(&module, 76),
        0,
        "no InterpolateAtCentroid:\n{per_pixel}"
    );
}

#[test]
fn eval_of_sv_position_moves_the_center_and_refuses_the_centroid() {
    // eval_sample_index and eval_snapped of SV_Position: x and y are floor + 0.5 plus the
    // sample's position (a table indexed by the rasterizer's count) or the offset; z is moved
    // by its fine derivatives.
    let text = "ps_5_0
dcl_input_ps_siv linear noperspective v0.xyz, position
dcl_output o0.xyzw
dcl_output o1.xyzw
eval_sample_index o0.xyz, v0.xyzx, l(2)
eval_snapped o1.xyz, v0.xyzx, l(-8, 7, 0, 0)
mov o0.w, l(1.0)
mov o1.w, l(1.0)
ret
";
    let module = compile(text);
    assert!(ext_insts(&module, 8) >= 2, "Floor of x and y:\n{text}");
    assert!(
        count_op(&module, Op::DPdxFine) >= 1,
        "z's x derivative:\n{text}"
    );
    assert_eq!(ext_insts(&module, 77), 0, "no InterpolateAtSample:\n{text}");
    let centroid = "ps_5_0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xy
eval_centroid o0.xy, v0.xyxx
ret
";
    let program = crate::asm::parse_program(centroid).expect("assembles");
    let (input, output, _) = signatures_from_program(&program);
    let reflection = ChunkInfo {
        input: Some(input),
        output: Some(output),
        ..ChunkInfo::default()
    };
    let Err(err) = translate(&program, &reflection, &Options::default()) else {
        panic!("eval_centroid of SV_Position translated:\n{centroid}");
    };
    assert!(
        err.to_string().contains("eval_centroid of SV_Position"),
        "{err}\n{centroid}"
    );
}
