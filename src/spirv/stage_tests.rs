//! Tests of the geometry, hull and domain stages: execution modes, per-vertex arrays,
//! streams, hull phases, patch constants and tessellation levels, each module validated
//! with spirv-val for Vulkan 1.1, 1.2 and 1.3.

use rspirv::dr::{Module as SpvModule, Operand as SpvOperand};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass};

use super::tessellation::tess_level;
use super::test_support::{builtin_var, count_op, decorations, validate_for};
use crate::container::{signatures_from_program, ChunkInfo};
use crate::error::ErrorKind;
use crate::ir::SystemValue;
use crate::spirv::{translate, TargetEnv};
use crate::TranslateOptions as Options;

/// Assembles a program with its derived signatures, translates it for every Vulkan version
/// with the optimiser and without, checks that each module passes spirv-val, and returns
/// the emitted (unoptimised) module of Vulkan 1.3.
fn compile(text: &str) -> SpvModule {
    let program = crate::asm::parse_program(text).expect("assembles");
    let (input, output, patch_constant) = signatures_from_program(&program);
    let reflection = ChunkInfo {
        input: Some(input),
        output: Some(output),
        patch_constant,
        ..ChunkInfo::default()
    };
    let mut last = Vec::new();
    for target in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let options = Options {
            target,
            ..Options::default()
        };
        let words = translate(&program, &reflection, &options).expect("translates");
        validate_for(&words, target.name());
        // What the emitter made (these tests look at its structure, which the optimiser
        // folds where indices are constants), valid as well.
        let emitted = Options {
            no_optimize: true,
            ..options
        };
        last = translate(&program, &reflection, &emitted).expect("translates");
        validate_for(&last, target.name());
    }
    rspirv::dr::load_words(&last).expect("loads")
}

fn translate_error(text: &str) -> crate::error::Error {
    let program = crate::asm::parse_program(text).expect("assembles");
    translate(&program, &ChunkInfo::default(), &Options::default()).expect_err("fails")
}

fn decorated(module: &SpvModule, id: u32, decoration: Decoration) -> Option<Vec<u32>> {
    decorations(module, decoration)
        .into_iter()
        .find(|(t, _)| *t == id)
        .map(|(_, v)| v)
}

fn storage_class(module: &SpvModule, id: u32) -> Option<StorageClass> {
    module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(id))
        .and_then(|i| match i.operands.first() {
            Some(SpvOperand::StorageClass(c)) => Some(*c),
            _ => None,
        })
}

/// The variables at a location in a storage class, with whether each is `Patch`.
fn at_location(module: &SpvModule, location: u32, class: StorageClass) -> Vec<(u32, bool)> {
    decorations(module, Decoration::Location)
        .into_iter()
        .filter(|(id, v)| v.first() == Some(&location) && storage_class(module, *id) == Some(class))
        .map(|(id, _)| (id, decorated(module, id, Decoration::Patch).is_some()))
        .collect()
}

fn mode(module: &SpvModule, mode: ExecutionMode) -> Option<Vec<u32>> {
    module
        .execution_modes
        .iter()
        .find_map(|i| match i.operands.get(1) {
            Some(SpvOperand::ExecutionMode(m)) if *m == mode => Some(
                i.operands[2..]
                    .iter()
                    .filter_map(|o| match o {
                        SpvOperand::LiteralBit32(v) => Some(*v),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        })
}

fn has_capability(module: &SpvModule, capability: Capability) -> bool {
    module
        .capabilities
        .iter()
        .any(|i| matches!(i.operands.first(), Some(SpvOperand::Capability(c)) if *c == capability))
}

const GS_STREAMS: &str = "gs_5_0
dcl_input_siv v[3][0].xyzw, position
dcl_input v[3][1].xy
dcl_input vPrim
dcl_input vGSInstanceID
dcl_temps 1
dcl_inputprimitive triangle
dcl_stream m0
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output_siv o1.x, rendertarget_array_index
dcl_stream m1
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o2.xy
dcl_maxout 6
dcl_gsinstances 2
mov o0.xyzw, v[0][0].xyzw
mov o1.x, vGSInstanceID
emit_stream m0
mov o0.xyzw, v[1][0].xyzw
mov o2.x, v[1][1].x
mov o2.y, vPrim
emitthencut_stream m1
cut_stream m0
ret
";

#[test]
fn geometry_modes_and_two_streams() {
    let module = compile(GS_STREAMS);
    assert!(mode(&module, ExecutionMode::Triangles).is_some());
    assert!(mode(&module, ExecutionMode::OutputPoints).is_some());
    assert_eq!(mode(&module, ExecutionMode::OutputVertices), Some(vec![6]));
    assert_eq!(mode(&module, ExecutionMode::Invocations), Some(vec![2]));
    assert!(has_capability(&module, Capability::GeometryStreams));
    // Stream 1 reuses o0 and adds o2: only stream 0, the rasterized one, has Output
    // variables (stream 1 reaches memory only through stream output).
    assert!(at_location(&module, 2, StorageClass::Output).is_empty());
    let position = decorations(&module, Decoration::BuiltIn)
        .into_iter()
        .filter(|(_, v)| v.first() == Some(&(BuiltIn::Position as u32)))
        .map(|(id, _)| id)
        .find(|id| storage_class(&module, *id) == Some(StorageClass::Output))
        .expect("an output position");
    assert_eq!(
        decorated(&module, position, Decoration::Stream),
        Some(vec![0])
    );
    assert_eq!(count_op(&module, Op::EmitStreamVertex), 2);
    assert_eq!(count_op(&module, Op::EndStreamPrimitive), 2);
    assert_eq!(count_op(&module, Op::EmitVertex), 0);
    assert!(builtin_var(&module, BuiltIn::PrimitiveId).is_some());
    assert!(builtin_var(&module, BuiltIn::InvocationId).is_some());
    assert!(builtin_var(&module, BuiltIn::Layer).is_some());
}

#[test]
fn geometry_single_stream_uses_plain_emits() {
    let module = compile(
        "gs_4_0
dcl_input v[2][0].xyzw
dcl_inputprimitive line
dcl_outputtopology linestrip
dcl_output_siv o0.xyzw, position
dcl_output_sgv o1.x, primitive_id
dcl_maxout 2
mov o0.xyzw, v[0][0].xyzw
mov o1.x, l(7)
emit
mov o0.xyzw, v[1][0].xyzw
emit
cut
ret
",
    );
    assert!(mode(&module, ExecutionMode::InputLines).is_some());
    let primitive = builtin_var(&module, BuiltIn::PrimitiveId).expect("a primitive id");
    assert_eq!(
        storage_class(&module, primitive),
        Some(StorageClass::Output)
    );
    assert!(mode(&module, ExecutionMode::OutputLineStrip).is_some());
    assert_eq!(mode(&module, ExecutionMode::Invocations), Some(vec![1]));
    assert!(!has_capability(&module, Capability::GeometryStreams));
    assert_eq!(count_op(&module, Op::EmitVertex), 2);
    assert_eq!(count_op(&module, Op::EndPrimitive), 1);
    // Per-vertex inputs are arrays over the primitive's vertices, at Location = register.
    assert_eq!(at_location(&module, 0, StorageClass::Input).len(), 1);
}

#[test]
fn geometry_without_output_topology() {
    // vkd3d's own translation of such shaders is invalid SPIR-V; a shader that never
    // emits may have any output topology.
    let module = compile("gs_4_0\ndcl_inputprimitive point\ndcl_maxout 4\nret\n");
    assert!(mode(&module, ExecutionMode::OutputPoints).is_some());
    let error = translate_error(
        "gs_4_0\ndcl_inputprimitive point\ndcl_output o0.xyzw\ndcl_maxout 4\nmov o0.xyzw, l(0,0,0,0)\nemit\nret\n",
    );
    assert!(error.to_string().contains("dcl_outputtopology"), "{error}");
}

#[test]
fn geometry_relative_register_index_under_an_index_range() {
    let module = compile(
        "gs_4_0
dcl_input v[3][0].xyzw
dcl_input v[3][1].xyzw
dcl_indexrange v[3][0].xyzw 2
dcl_inputprimitive triangle
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_temps 1
dcl_maxout 3
mov r0.xy, l(2, 1, 0, 0)
mov o0.xyzw, v[r0.x][r0.y].xyzw
emit
ret
",
    );
    assert!(count_op(&module, Op::Select) >= 4);
}

const HULL: &str = "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_fractional_even
dcl_tessellator_output_primitive output_triangle_ccw
dcl_hs_max_tessfactor l(16.000000)
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_output o0.xyzw
mov o0.xyzw, v[vOutputControlPointID][0].xyzw
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
mov r0.x, vForkInstanceID.x
mov o[r0.x].x, l(4.000000)
ret
hs_join_phase
dcl_input vpc0.x
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_output o4.xy
add o3.x, vpc0.x, l(1.000000)
mov o4.xy, l(1.000000, 2.000000, 0, 0)
ret
";

#[test]
fn hull_phases_make_one_tessellation_control_entry_point() {
    let module = compile(HULL);
    assert_eq!(mode(&module, ExecutionMode::OutputVertices), Some(vec![3]));
    assert!(mode(&module, ExecutionMode::Triangles).is_some());
    assert!(mode(&module, ExecutionMode::SpacingFractionalEven).is_some());
    assert!(mode(&module, ExecutionMode::VertexOrderCcw).is_some());
    // main, the control-point phase, the fork phase and the join phase.
    assert_eq!(module.functions.len(), 4);
    // The control-point phase, the fork phase (its three instances in a loop) and the join
    // phase, after one barrier.
    assert_eq!(count_op(&module, Op::FunctionCall), 3);
    assert_eq!(count_op(&module, Op::LoopMerge), 1);
    assert_eq!(count_op(&module, Op::ControlBarrier), 1);
    let outer = builtin_var(&module, BuiltIn::TessLevelOuter).expect("outer levels");
    let inner = builtin_var(&module, BuiltIn::TessLevelInner).expect("inner levels");
    assert!(decorated(&module, outer, Decoration::Patch).is_some());
    assert!(decorated(&module, inner, Decoration::Patch).is_some());
    // Control point o0 at location 0; patch constant o4 after the control points.
    let control_point = at_location(&module, 0, StorageClass::Output);
    assert_eq!(control_point.len(), 1);
    assert!(!control_point[0].1);
    let patch = at_location(&module, 5, StorageClass::Output);
    assert_eq!(patch.len(), 1);
    assert!(patch[0].1);
    // The factors are clamped to dcl_hs_max_tessfactor.
    let sixteen = module.types_global_values.iter().any(|i| {
        i.class.opcode == Op::Constant
            && i.operands.first() == Some(&SpvOperand::LiteralBit32(16.0f32.to_bits()))
    });
    assert!(sixteen);
}

#[test]
fn hull_without_control_point_phase_passes_control_points_through() {
    let module = compile(
        "hs_5_0
hs_decls
dcl_input_control_point_count 4
dcl_output_control_point_count 4
dcl_tessellator_domain domain_quad
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
hs_fork_phase
dcl_input vicp[4][1].xyzw
dcl_output_siv o0.x, finalQuadUeq0EdgeTessFactor
dcl_output_siv o1.x, finalQuadVeq0EdgeTessFactor
dcl_output_siv o2.x, finalQuadUeq1EdgeTessFactor
dcl_output_siv o3.x, finalQuadVeq1EdgeTessFactor
dcl_output_siv o4.x, finalQuadUInsideTessFactor
dcl_output_siv o5.x, finalQuadVInsideTessFactor
mov o0.x, vicp[0][1].x
mov o1.x, vicp[1][1].x
mov o2.x, vicp[2][1].x
mov o3.x, vicp[3][1].x
mov o4.x, l(1.000000)
mov o5.x, l(1.000000)
ret
",
    );
    assert!(mode(&module, ExecutionMode::Quads).is_some());
    assert!(mode(&module, ExecutionMode::SpacingEqual).is_some());
    assert!(mode(&module, ExecutionMode::VertexOrderCw).is_some());
    assert_eq!(at_location(&module, 1, StorageClass::Input).len(), 1);
    assert_eq!(at_location(&module, 1, StorageClass::Output).len(), 1);
    assert_eq!(module.functions.len(), 2);
}

#[test]
fn isoline_hull_shader() {
    let module = compile(
        "hs_5_0
hs_decls
dcl_input_control_point_count 1
dcl_output_control_point_count 1
dcl_tessellator_domain domain_isoline
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_point
hs_fork_phase
dcl_output_siv o0.x, finalLineDensityTessFactor
dcl_output_siv o1.x, finalLineDetailTessFactor
mov o0.x, l(2.000000)
mov o1.x, l(3.000000)
ret
",
    );
    assert!(mode(&module, ExecutionMode::Isolines).is_some());
    assert!(mode(&module, ExecutionMode::PointMode).is_some());
    assert!(builtin_var(&module, BuiltIn::TessLevelInner).is_none());
}

#[test]
fn tessellation_factors_map_to_vulkan_levels() {
    use SystemValue as S;
    let cases = [
        (S::QuadUEq0EdgeTessFactor, (false, 0)),
        (S::QuadVEq0EdgeTessFactor, (false, 1)),
        (S::QuadUEq1EdgeTessFactor, (false, 2)),
        (S::QuadVEq1EdgeTessFactor, (false, 3)),
        (S::QuadUInsideTessFactor, (true, 0)),
        (S::QuadVInsideTessFactor, (true, 1)),
        (S::TriUEq0EdgeTessFactor, (false, 0)),
        (S::TriVEq0EdgeTessFactor, (false, 1)),
        (S::TriWEq0EdgeTessFactor, (false, 2)),
        (S::TriInsideTessFactor, (true, 0)),
        // Vulkan's first isoline level counts the lines (D3D's density), the second the
        // segments of each line (D3D's detail).
        (S::LineDensityTessFactor, (false, 0)),
        (S::LineDetailTessFactor, (false, 1)),
    ];
    for (sv, level) in cases {
        assert_eq!(tess_level(sv), Some(level), "{sv:?}");
    }
    assert_eq!(tess_level(S::Position), None);
}

#[test]
fn domain_shader_inputs() {
    let module = compile(
        "ds_5_0
dcl_input_control_point_count 4
dcl_tessellator_domain domain_quad
dcl_input vDomain.xy
dcl_input vicp[4][0].xyzw
dcl_input vpc0.xy
dcl_input_siv vpc4.x, finalQuadUInsideTessFactor
dcl_input vPrim
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
mov o0.xyzw, vicp[3][0].xyzw
mov o1.xy, vDomain.xyxx
mov o1.z, vpc0.y
mov o1.w, vpc4.x
utof o0.w, vPrim
ret
",
    );
    assert!(mode(&module, ExecutionMode::Quads).is_some());
    assert!(builtin_var(&module, BuiltIn::TessCoord).is_some());
    assert!(builtin_var(&module, BuiltIn::PrimitiveId).is_some());
    let inner = builtin_var(&module, BuiltIn::TessLevelInner).expect("inner levels");
    assert_eq!(storage_class(&module, inner), Some(StorageClass::Input));
    assert!(decorated(&module, inner, Decoration::Patch).is_some());
    // vicp0 at location 0, vpc0 after the control-point registers.
    assert_eq!(at_location(&module, 0, StorageClass::Input).len(), 1);
    let patch = at_location(&module, 1, StorageClass::Input);
    assert_eq!(patch.len(), 1);
    assert!(patch[0].1);
}

#[test]
fn geometry_shaders_with_patch_input_take_the_list_primitive_of_as_many_vertices() {
    let cases = [
        ("patch1", 1, ExecutionMode::InputPoints),
        ("patch2", 2, ExecutionMode::InputLines),
        ("patch3", 3, ExecutionMode::Triangles),
        ("patch4", 4, ExecutionMode::InputLinesAdjacency),
        ("patch6", 6, ExecutionMode::InputTrianglesAdjacency),
    ];
    for (primitive, vertices, expected) in cases {
        let text = format!(
            "gs_5_0
dcl_input v[{vertices}][0].xyzw
dcl_inputprimitive {primitive}
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_maxout 1
mov o0.xyzw, v[{last}][0].xyzw
emit
ret
",
            last = vertices - 1
        );
        let module = compile(&text);
        assert!(
            mode(&module, expected).is_some(),
            "{primitive}: expected {expected:?}\n{text}"
        );
    }
    // Patches of other sizes have no Vulkan primitive: an error naming the limitation.
    for primitive in ["patch5", "patch32"] {
        let error = translate_error(&format!(
            "gs_5_0\ndcl_inputprimitive {primitive}\ndcl_outputtopology pointlist\ndcl_maxout 1\nret\n"
        ));
        assert_eq!(error.kind, ErrorKind::Unsupported, "{primitive}: {error}");
        assert!(
            error.message.contains("Vulkan limitation"),
            "{primitive}: {error}"
        );
    }
}

/// A hull shader whose phases call subroutines and fcall function bodies (the base of the
/// tests below).
const HULL_SUBROUTINES: &str = "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
dcl_function_body fb0
dcl_function_table ft0 = {fb0}
dcl_interface fp0[1][1] = {ft0}
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, vOutputControlPointID
call l0
ret
hs_fork_phase
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_temps 1
mov r0.x, l(2.000000)
call l1
fcall fp0[0][0]
ret
label l0
mov o0.xyzw, v[r0.x + 0][0].xyzw
ret
label l1
mov o0.x, r0.x
mov o1.x, r0.x
call l2
ret
label l2
mov o2.x, r0.x
ret
label fb0
mov o3.x, r0.x
ret
";

#[test]
fn hull_shader_subroutines_and_function_bodies_are_inlined_in_each_calling_phase() {
    let module = compile(HULL_SUBROUTINES);
    // The entry function, the control-point phase and one fork phase: l0 is inlined in the
    // control-point phase (`o#` a control point), l1, l2 and fb0 in the fork phase (`o#` a
    // patch constant).
    assert_eq!(module.functions.len(), 3);
    let calls = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::FunctionCall)
        .count();
    assert_eq!(calls, 2, "main calls the two phases, nothing else");
    // A subroutine both kinds of phase call is inlined in each.
    let both = HULL_SUBROUTINES
        .replacen("call l1\n", "call l1\ncall l3\n", 1)
        .replacen(
            "mov r0.x, vOutputControlPointID\ncall l0\n",
            "mov r0.x, vOutputControlPointID\ncall l0\ncall l3\n",
            1,
        )
        + "label l3\nmov r0.y, l(1)\nret\n";
    let module = compile(&both);
    assert_eq!(module.functions.len(), 3, "still the phases only:\n{both}");
    // A phase after the subroutines is an error naming the rule.
    let late = HULL_SUBROUTINES.to_string() + "hs_join_phase\nret\n";
    let error = translate_error(&late);
    assert!(
        error.message.contains("phase after the first label"),
        "{error}"
    );
}

#[test]
fn invalid_stage_registers_and_system_values_are_errors_that_say_why() {
    let cases = [
        ("vs_5_0\ndcl_input vGSInstanceID\nret\n", "vGSInstanceID"),
        (
            "ds_5_0\ndcl_tessellator_domain domain_tri\ndcl_input vForkInstanceID\nret\n",
            "vForkInstanceID",
        ),
        (
            "gs_5_0\ndcl_inputprimitive triangle\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
             dcl_input vDomain.xy\nret\n",
            "vDomain",
        ),
        (
            "gs_5_0\ndcl_inputprimitive triangle\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
             dcl_input_siv v[3][0].x, is_front_face\nret\n",
            "is_front_face is not a per-vertex input of gs shaders",
        ),
        (
            "ds_5_0\ndcl_tessellator_domain domain_tri\ndcl_input_siv vpc0.x, position\nret\n",
            "position is not a patch constant system value",
        ),
    ];
    for (text, expected) in cases {
        let error = translate_error(text);
        assert_eq!(error.kind, ErrorKind::Invalid, "{text}: {error}");
        assert!(
            error.message.contains(expected),
            "{text}\nexpected {expected:?}, got {error}"
        );
    }
    // A hull shader's fork phase declaring a non-factor system value.
    let text = HULL_SUBROUTINES.replacen(
        "dcl_output_siv o3.x, finalTriInsideTessFactor",
        "dcl_output_siv o3.x, position",
        1,
    );
    let error = translate_error(&text);
    assert!(
        error
            .message
            .contains("position is not a patch constant system value"),
        "{error}"
    );
    // The layer and viewport index written by the stage before cannot reach a geometry
    // shader in Vulkan.
    let error = translate_error(
        "gs_5_0\ndcl_inputprimitive triangle\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
         dcl_input_siv v[3][1].x, rendertarget_array_index\nret\n",
    );
    assert_eq!(error.kind, ErrorKind::Unsupported, "{error}");
    assert!(error.message.contains("Vulkan limitation"), "{error}");
}

#[test]
fn a_domain_shader_reads_its_patch_constants_by_a_relative_index() {
    let module = compile(
        "ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_input vDomain.xyz
dcl_input_siv vpc0.x, finalTriUeq0EdgeTessFactor
dcl_input_siv vpc1.x, finalTriVeq0EdgeTessFactor
dcl_input_siv vpc2.x, finalTriWeq0EdgeTessFactor
dcl_input_siv vpc3.x, finalTriInsideTessFactor
dcl_input vpc4.xy
dcl_indexrange vpc0.x 4
dcl_output_siv o0.xyzw, position
dcl_temps 1
ftou r0.x, vDomain.x
mov o0.x, vpc[r0.x + 0].x
mov o0.y, vpc[r0.x + 1].x
mov o0.zw, vpc4.xxxy
ret
",
    );
    // The patch constants are copied into a private array, read with a bounds check.
    assert!(count_op(&module, Op::ULessThan) >= 2);
    assert!(builtin_var(&module, BuiltIn::TessLevelOuter).is_some());
    // Without an index range D3D leaves the result undefined (not invalid): the index
    // selects among the declared registers all the same.
    let module = compile(
        "ds_5_0
dcl_tessellator_domain domain_tri
dcl_input vDomain.x
dcl_input vpc4.xy
dcl_input vpc5.xy
dcl_output_siv o0.xyzw, position
dcl_temps 1
ftou r0.x, vDomain.x
mov o0.x, vpc[r0.x + 4].x
mov o0.yzw, l(0, 0, 0, 1.000000)
ret
",
    );
    assert!(count_op(&module, Op::ULessThan) >= 1);
}

#[test]
fn control_point_registers_indexed_by_a_register() {
    // A relative register index selects among the declared registers on reads and guards
    // each candidate register on writes.
    let module = compile(
        "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_input v[3][1].xyzw
dcl_indexrange v[3][0].xyzw 2
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_indexrange o0.xyzw 2
dcl_temps 1
mov r0.x, l(1)
mov o[r0.x].xyzw, v[vOutputControlPointID][r0.x].xyzw
ret
hs_fork_phase
dcl_input vicp[3][0].x
dcl_input vicp[3][1].x
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_temps 1
mov r0.x, l(1)
mov o0.x, vicp[0][r0.x].x
mov o1.x, l(1.000000)
mov o2.x, l(1.000000)
mov o3.x, l(1.000000)
ret
",
    );
    // Two candidate registers for each of the four written components.
    assert!(count_op(&module, Op::SelectionMerge) >= 8);
}

#[test]
fn clip_distances_into_a_geometry_shader() {
    let module = compile(
        "gs_4_0
dcl_input_siv v[3][0].xyzw, position
dcl_input_siv v[3][1].xy, clip_distance
dcl_input_siv v[3][1].z, cull_distance
dcl_inputprimitive triangle
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_output_siv o1.x, clip_distance
dcl_maxout 3
mov o0.xyzw, v[2][0].xyzw
add o1.x, v[2][1].y, v[1][1].z
emit
ret
",
    );
    let inputs: Vec<u32> = decorations(&module, Decoration::BuiltIn)
        .into_iter()
        .filter(|(id, _)| storage_class(&module, *id) == Some(StorageClass::Input))
        .filter_map(|(_, v)| v.first().copied())
        .collect();
    assert!(inputs.contains(&(BuiltIn::ClipDistance as u32)));
    assert!(inputs.contains(&(BuiltIn::CullDistance as u32)));
}
