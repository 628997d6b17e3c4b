//! Tests of the checks the fuzzers asked for: stage rules ([`validate_stage_rules`]) and the
//! destinations [`validate`] refuses. Each program is written in assembly and must be
//! refused with an error naming its instruction; the error text is checked.

use crate::ir::{validate, validate_stage_rules};

/// Parses `text` without validation, then runs both validators; returns the first error.
fn first_error(text: &str) -> Option<String> {
    checked(text).err()
}

/// Parses `text` without validation, then runs both validators; returns the warnings or the
/// first error.
fn checked(text: &str) -> Result<Vec<String>, String> {
    let program = crate::asm::parse_program_unchecked(text)
        .unwrap_or_else(|e| panic!("the test program does not parse: {e}\n{text}"));
    let mut warnings = Vec::new();
    validate(&program)
        .and_then(|()| validate_stage_rules(&program, &mut warnings))
        .map_err(|e| e.to_string())?;
    Ok(warnings.iter().map(ToString::to_string).collect())
}

/// Asserts that `text` is refused with an error containing `expected`.
fn refused(text: &str, expected: &str) {
    match first_error(text) {
        Some(error) => assert!(
            error.contains(expected),
            "program:\n{text}\nexpected an error containing {expected:?}, got {error:?}"
        ),
        None => panic!("program:\n{text}\nexpected an error containing {expected:?}, got none"),
    }
}

const HULL_DECLS: &str = "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
";

#[test]
fn a_tessellator_domain_declared_twice_is_refused() {
    let text = format!("{HULL_DECLS}dcl_tessellator_domain domain_quad\nhs_fork_phase\nret\n");
    refused(&text, "dcl_tessellator_domain declared twice");
}

#[test]
fn a_valid_hull_shader_passes_the_stage_rules() {
    let text = format!(
        "{HULL_DECLS}hs_fork_phase\ndcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\n\
         mov o0.x, l(1.0)\nret\n"
    );
    assert_eq!(first_error(&text), None, "{text}");
}

#[test]
fn geometry_and_compute_declarations_outside_their_stage_are_refused() {
    refused(
        "vs_5_0\ndcl_maxout 4\nret\n",
        "dcl_maxout in a Vertex shader",
    );
    refused(
        "ps_5_0\ndcl_thread_group 1, 1, 1\nret\n",
        "dcl_thread_group in a Pixel shader",
    );
    refused(
        "vs_5_0\ndcl_tessellator_partitioning partitioning_integer\nret\n",
        "dcl_tessellator_partitioning in a Vertex shader",
    );
}

#[test]
fn pixel_instructions_outside_pixel_shaders_are_refused() {
    refused(
        "vs_5_0\ndcl_input v1.xy\ndcl_temps 1\neval_centroid r0.xy, v1.xyxx\nret\n",
        "eval_centroid outside a pixel shader",
    );
    refused(
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 1\ndiscard_nz r0.x\nret\n",
        "discard outside a pixel shader",
    );
    refused(
        "vs_5_0\ndcl_input_ps linear v1.xy\nret\n",
        "dcl_input_ps outside a pixel shader",
    );
}

#[test]
fn an_output_declaration_of_an_input_register_is_refused() {
    refused(
        "vs_5_0\ndcl_output v0.xyzw\nret\n",
        "dcl_output declares a v register",
    );
    refused(
        "vs_5_0\ndcl_input o0.xyzw\nret\n",
        "dcl_input declares a o register",
    );
}

#[test]
fn inputs_and_immediate_constant_buffers_cannot_be_written() {
    refused(
        "vs_5_0\ndcl_input v0.xyzw\nmov v0.xyzw, l(1.0, 1.0, 1.0, 1.0)\nret\n",
        "v cannot be written",
    );
}

#[test]
fn a_hull_shader_input_without_a_control_point_index_is_refused() {
    let text = format!("{HULL_DECLS}hs_fork_phase\ndcl_input v1.x\nret\n");
    refused(&text, "per control point");
}

#[test]
fn ld_of_a_cube_texture_and_gather_of_a_3d_texture_are_refused() {
    let translate = |text: &str| {
        let program = crate::asm::parse_program(text)
            .unwrap_or_else(|e| panic!("the test program does not parse: {e}\n{text}"));
        crate::spirv::translate(
            &program,
            &crate::container::ChunkInfo::default(),
            &crate::TranslateOptions::default(),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
    };
    let ld = "ps_5_0\ndcl_resource_texturecube (float,float,float,float) t0\n\
              dcl_output o0.xyzw\nld o0.xyzw, l(0, 0, 0, 0), t0.xyzw\nret\n";
    assert!(translate(ld).contains("cube texture"), "{ld}");
    let gather = "ps_5_0\ndcl_sampler s0, mode_default\n\
                  dcl_resource_texture3d (float,float,float,float) t0\n\
                  dcl_output o0.xyzw\n\
                  gather4 o0.xyzw, l(0.5, 0.5, 0.5, 0), t0.xyzw, s0.x\nret\n";
    assert!(translate(gather).contains("gather4 needs"), "{gather}");
}

#[test]
fn a_cube_uav_is_refused() {
    refused(
        "ps_5_0\ndcl_uav_typed_texturecube (sint,sint,sint,sint) u0\nret\n",
        "cannot be a cube texture",
    );
}

#[test]
fn a_thread_group_sync_outside_compute_shaders_is_refused() {
    refused("ps_5_0\nsync_g_t\nret\n", "sync with _t, _g or _ugroup");
}

#[test]
fn thread_ids_outside_compute_shaders_are_refused() {
    refused(
        "ps_5_0\ndcl_input vThreadGroupID.xy\ndcl_output o0.xyzw\nmov o0.xy, vThreadGroupID.xyxx\nret\n",
        "vThreadGroupID does not exist in a ps shader",
    );
    refused(
        "vs_5_0\ndcl_output o0.xyzw\nmov o0.x, vCoverage.x\nret\n",
        "vCoverage does not exist in a vs shader",
    );
}

#[test]
fn a_group_scope_uav_fence_outside_compute_shaders_is_refused() {
    refused(
        "ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(0, 0, 0, 0)\nsync_ugroup\nret\n",
        "sync with _t, _g or _ugroup",
    );
}

#[test]
fn thread_groups_the_module_cannot_hold_are_refused() {
    // The fuzzer's case: 637534976 × 788529152 × 4166 threads, whose product wraps to 0 in
    // 32 bits (spirv-val: a LocalSize with a product of zero); and a dimension of 0.
    for (model, size) in [
        ("cs_5_0", "637534976, 788529152, 4166"),
        ("cs_5_0", "0, 1, 1"),
        ("cs_4_0", "1, 0, 1"),
    ] {
        refused(
            &format!("{model}\ndcl_thread_group {size}\nret\n"),
            "at least 1 thread in each dimension and fewer than 2^32 in all",
        );
    }
}

#[test]
fn thread_groups_past_d3d11_limits_are_warnings() {
    // Direct3D's limits, not Vulkan's: fxc compiles [numthreads(16, 8, 4)] for cs_4_0.
    for (model, size, limit) in [
        (
            "cs_5_0",
            "1024, 2, 1",
            "1024 × 1024 × 64 threads and 1024 in all",
        ),
        ("cs_5_0", "1, 1, 65", "D3D11_CS_THREAD_GROUP_MAX_*"),
        ("cs_4_0", "769, 1, 1", "D3D11_CS_4_X_THREAD_GROUP_MAX_*"),
        ("cs_4_0", "16, 8, 4", "768 × 768 × 1 threads and 768 in all"),
    ] {
        let text = format!("{model}\ndcl_thread_group {size}\nret\n");
        let warnings = checked(&text).unwrap_or_else(|e| panic!("{text}\nrefused: {e}"));
        assert!(
            warnings.len() == 1
                && warnings[0].starts_with("instruction 0 (dword 0x2): dcl_thread_group")
                && warnings[0].contains(limit),
            "{text}\nexpected one warning naming {limit:?}, got {warnings:?}"
        );
    }
    for (model, size) in [
        ("cs_5_0", "1024, 1, 1"),
        ("cs_5_0", "16, 1, 64"),
        ("cs_4_0", "768, 1, 1"),
    ] {
        let text = format!("{model}\ndcl_thread_group {size}\nret\n");
        assert_eq!(checked(&text), Ok(Vec::new()), "{text}");
    }
}

#[test]
fn io_registers_past_d3d11_files_are_warnings() {
    // Direct3D 11's files have 32 registers; a Vulkan device's location limits are its own.
    let text = "vs_5_0\ndcl_input v40.xyzw\ndcl_output o31.xyzw\ndcl_output o32.xyzw\nret\n";
    let warnings = checked(text).unwrap_or_else(|e| panic!("{text}\nrefused: {e}"));
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("instruction 0 (dword 0x2): v40: past the 32 registers")
            && warnings[1].starts_with("instruction 2 (dword 0x")
            && warnings[1].contains("o32: past the 32 registers"),
        "{warnings:?}"
    );
    let text = "hs_5_0\nhs_fork_phase\ndcl_output o33.x\nret\n";
    let warnings = checked(text).unwrap_or_else(|e| panic!("{text}\nrefused: {e}"));
    assert!(
        warnings.len() == 1 && warnings[0].contains("o33"),
        "{warnings:?}"
    );
}

#[test]
fn more_than_eight_clip_and_cull_distances_are_a_warning() {
    // D3D11_CLIP_OR_CULL_DISTANCE_COUNT counts clip and cull distances of a file together.
    let text =
        "vs_5_0\ndcl_output_siv o1.xyzw, clip_distance\ndcl_output_siv o2.xyz, cull_distance\n\
                dcl_output_siv o3.x, clip_distance\ndcl_output_siv o3.y, clip_distance\nret\n";
    let warnings = checked(text).unwrap_or_else(|e| panic!("{text}\nrefused: {e}"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("instruction 3 ") && warnings[0].contains("more than 8 clip and cull"),
        "{warnings:?}"
    );
    let text = "vs_5_0\ndcl_output_siv o1.xyzw, clip_distance\ndcl_output_siv o2.xyzw, cull_distance\nret\n";
    assert_eq!(checked(text), Ok(Vec::new()), "{text}");
}

#[test]
fn an_io_component_declared_twice_in_one_scope_is_refused() {
    // The fuzzer's case: a domain shader's vpc0.x declared as a tessellation factor and as
    // an ordinary input (two inputs at one location).
    refused(
        "ds_5_0\ndcl_input_control_point_count 1\ndcl_tessellator_domain domain_isoline\n\
         dcl_input_siv vpc0.x, finalLineDensityTessFactor\ndcl_input_siv vpc0.x, undefined\n\
         ret\n",
        "vpc0.x is declared twice",
    );
    refused(
        "ps_5_0\ndcl_input_ps linear v1.xy\ndcl_input_ps linear v1.yz\nret\n",
        "v1.y is declared twice",
    );
    refused(
        "vs_5_0\ndcl_output o0.xyzw\ndcl_output_siv o0.w, position\nret\n",
        "o0.w is declared twice",
    );
    // Other components, other registers and other hull-shader phases are separate.
    let text = "ps_5_0\ndcl_input_ps linear v1.xy\ndcl_input_ps linear v1.zw\n\
        dcl_input_ps linear v2.xy\nret\n";
    assert_eq!(first_error(text), None, "{text}");
    let text = format!(
        "{HULL_DECLS}hs_fork_phase\ndcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\n\
         mov o0.x, l(1.0)\nret\nhs_fork_phase\ndcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\n\
         mov o0.x, l(1.0)\nret\n"
    );
    assert_eq!(first_error(&text), None, "{text}");
}

#[test]
fn each_geometry_shader_stream_declares_its_own_outputs() {
    let text = "gs_5_0\ndcl_input v[1][0].xyzw\ndcl_inputprimitive point\n\
        dcl_stream m0\ndcl_outputtopology pointlist\ndcl_output o0.xyzw\n\
        dcl_stream m1\ndcl_outputtopology pointlist\ndcl_output o0.xyzw\ndcl_maxout 1\nret\n";
    assert_eq!(first_error(text), None, "{text}");
    refused(
        "gs_5_0\ndcl_input v[1][0].xyzw\ndcl_input v[1][0].x\ndcl_inputprimitive point\n\
         dcl_stream m0\ndcl_outputtopology pointlist\ndcl_output o0.xyzw\ndcl_maxout 1\nret\n",
        "v0.x is declared twice",
    );
}

#[test]
fn stage_registers_outside_their_stages_are_refused_as_destinations_too() {
    refused(
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_output o0.xyzw\nmov o0.x, l(1)\nret\n",
        "o does not exist in a cs shader",
    );
    refused(
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 1\ndcl_input v0.x\nmov r0.x, v0.x\nret\n",
        "does not exist in a cs shader",
    );
    refused(
        "vs_5_0\ndcl_output oDepth\nmov oDepth, l(1.0)\nret\n",
        "does not exist in a vs shader",
    );
    refused(
        "ps_5_0\ndcl_tgsm_raw g0, 4\nstore_raw g0.x, l(0), l(1)\nret\n",
        "does not exist in a ps shader",
    );
    assert_eq!(
        first_error(
            "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_tgsm_raw g0, 4\ndcl_input vThreadID.x\n\
             store_raw g0.x, l(0), vThreadID.x\nret\n"
        ),
        None
    );
}
