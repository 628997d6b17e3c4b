//! Tests of the forms other listings use: fxc's own text (`#line` directives, upper-case
//! `CB`, its suffix order, `ldms`, `{min16f as def32}`) and vkd3d-compiler's `d3d-asm`
//! dialect. Each is read to the same program as this project's form of the same text.

use super::*;
use crate::disasm;
use crate::ir::{MinPrecision, ResourceDimension};

/// Parses both texts; they must give the same program. Returns the printed program.
fn same_program(other: &str, ours: &str) -> String {
    let a = parse_program(other).unwrap_or_else(|e| panic!("{e}\n{other}"));
    let b = parse_program(ours).unwrap_or_else(|e| panic!("{e}\n{ours}"));
    assert_eq!(
        disasm::program_text(&a),
        disasm::program_text(&b),
        "the texts give different programs:\n{other}\n---\n{ours}"
    );
    assert_eq!(
        a, b,
        "the texts give different programs:\n{other}\n---\n{ours}"
    );
    disasm::program_text(&a)
}

/// The error message for `text`.
fn error(text: &str) -> String {
    match parse_program(text) {
        Ok(_) => panic!("parsed without error:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn line_directives_and_trailing_comments_are_skipped() {
    same_program(
        "vs_5_0
dcl_input v0.xyzw
dcl_output o0.xyzw
#line 1593 \"C:\\path\\file.hlsl\"
mov o0.xyzw, v0.xyzw  // o0.x <- streams.x

#line 12
ret 
",
        "vs_5_0\ndcl_input v0.xyzw\ndcl_output o0.xyzw\nmov o0.xyzw, v0.xyzw\nret\n",
    );
}

#[test]
fn upper_case_constant_buffers_in_every_model() {
    let printed = same_program(
        "ps_4_0
dcl_constantbuffer CB0[11], immediateIndexed
dcl_output o0.xyzw
mov o0.xyzw, CB0[0].xyzw
ret
",
        "ps_4_0
dcl_constantbuffer cb0[11], immediateIndexed
dcl_output o0.xyzw
mov o0.xyzw, cb0[0].xyzw
ret
",
    );
    // fxc 10.1's form: upper case in the declaration, lower case in instructions.
    assert!(printed.contains("dcl_constantbuffer CB0[11]"), "{printed}");
    assert!(printed.contains("mov o0.xyzw, cb0[0].xyzw"), "{printed}");
    let printed = same_program(
        "ps_5_1
dcl_constantbuffer cb0[0:0][4], immediateIndexed, space=0
dcl_sampler s0[1:1], mode_default, space=1
dcl_resource_texture2d (float,float,float,float) t1[10:*], space=2
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 1
sample r0.xyzw, v0.xyxx, t1[12].xyzw, s0[1]
add o0.xyzw, r0.xyzw, cb0[0][3].xyzw
ret
",
        "ps_5_1
dcl_constantbuffer CB0[0:0][4], immediateIndexed, space=0
dcl_sampler S0[1:1], mode_default, space=1
dcl_resource_texture2d (float,float,float,float) T1[10:*], space=2
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 1
sample r0.xyzw, v0.xyxx, T1[12].xyzw, S0[1]
add o0.xyzw, r0.xyzw, CB0[0][3].xyzw
ret
",
    );
    assert!(printed.contains("T1[12].xyzw, S0[1]"), "{printed}");
}

#[test]
fn offsets_before_indexable_in_both_orders() {
    let fxc = "ps_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
sample_l_aoffimmi_indexable(0,1,0)(texture2d)(float,float,float,float) o0.xyzw, v1.xyxx, t0.xyzw, s0, l(0.000000)
ret
";
    let printed = same_program(
        fxc,
        &fxc.replace(
            "sample_l_aoffimmi_indexable(0,1,0)(texture2d)",
            "sample_l_aoffimmi(0,1,0)_indexable(texture2d)",
        ),
    );
    assert_eq!(printed, fxc);
}

#[test]
fn ldms_with_the_sample_count_after_the_return_types() {
    let fxc = "ps_5_0
dcl_resource_texture2dms(4) (float,float,float,float) t0
dcl_input_ps constant v0.xy
dcl_output o0.xyzw
dcl_temps 1
mov r0.xy, v0.xyxx
mov r0.zw, l(0,0,0,0)
ldms_indexable(texture2dms)(float,float,float,float)(4) o0.xyzw, r0.xyzw, t0.xyzw, l(1)
ret
";
    let program = parse_program(fxc).unwrap();
    let ldms = &program.instructions[6];
    assert_eq!(ldms.opcode.name(), "ldms");
    assert_eq!(
        ldms.extended.resource,
        Some((ResourceDimension::Texture2DMS, 4))
    );
    assert_eq!(disasm::program_text(&program), fxc);
    // The name this project printed before, and the stride form, read the same.
    same_program(
        fxc,
        &fxc.replace(
            "ldms_indexable(texture2dms)(float,float,float,float)(4)",
            "ld2dms_indexable(texture2dms, stride=4)(float,float,float,float)",
        ),
    );
    let message = error(&fxc.replace(
        "(texture2dms)(float,float,float,float)(4)",
        "(texture2d)(float,float,float,float)(4)",
    ));
    assert!(message.contains("sample count"), "{message}");
}

#[test]
fn precision_conversions_name_the_source_precision() {
    let fxc = "ps_5_0
dcl_globalFlags refactoringAllowed | enableMinimumPrecision
dcl_input_ps linear v0.x {min16f}
dcl_output o0.xyzw
dcl_temps 2
add r1.x, r0.x {min16f as def32}, v0.x {min16f as def32}
movc r0.x {min16f}, r1.x, l(0) {def32 as min16f}, v0.x {min16f}
mov o0.xyzw, r1.xxxx
ret
";
    let program = parse_program(fxc).unwrap();
    assert_eq!(disasm::program_text(&program), fxc);
    let add = program.operands_of(&program.instructions[4]);
    assert_eq!(add[1].min_precision, MinPrecision::Float16);
    let message = error(&fxc.replace("as def32}, v0.x", "as odd}, v0.x"));
    assert!(message.contains("unknown precision 'odd'"), "{message}");
}

#[test]
fn vkd3d_d3d_asm_dialect() {
    let printed = same_program(
        "ps_4_0
.text
dcl_constantBuffer cb0[1], immediateIndexed
dcl_sampler s0
dcl_sampler s1, comparisonMode
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_buffer (int,int,int,int) t1
dcl_input_ps_sgv constant v0.x, sample_index
dcl_output o0.xyzw
dcl_temps 2
dcl_immediateConstantBuffer {
    {0x3f800000, 0x00000000, 0x00000000, 0x00000000},
    {0x40000000, 0x00000000, 0x00000000, 0x00000000},
}
dsx r0.xy, cb0[0].xyxx
dsy r0.zw, cb0[0].xxxy
loop
  breakp_nz r0.x
  retp_z r0.y
endloop
ld_indexable(texture2d)(1,2,0) r1.xyzw, l(0, 0, 0, 0), t0.xyzw
sample_info r1.x, t0.x
resinfo_uint r1.xy, l(0), t0.xyzw
mov o0.xyzw, r1.xyzw
ret
.input
.param SV_SampleIndex.x, v0.x, uint, SAMPLE
.output
.param SV_Target.xyzw, o0.xyzw, float, TARGET
",
        "ps_4_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_sampler s0, mode_default
dcl_sampler s1, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_buffer (sint,sint,sint,sint) t1
dcl_input_ps_sgv constant v0.x, sampleIndex
dcl_output o0.xyzw
dcl_temps 2
dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},
                              { 2.000000, 0, 0, 0} }
deriv_rtx r0.xy, cb0[0].xyxx
deriv_rty r0.zw, cb0[0].xxxy
loop
  breakc_nz r0.x
  retc_z r0.y
endloop
ld_aoffimmi_indexable(1,2,0)(texture2d) r1.xyzw, l(0, 0, 0, 0), t0.xyzw
sampleinfo r1.x, t0.x
resinfo_uint r1.xy, l(0), t0.xyzw
mov o0.xyzw, r1.xyzw
ret
",
    );
    assert!(printed.contains("  breakc_nz r0.x"), "{printed}");
    // Doubles with the `l` suffix, as vkd3d-compiler and fxc write them.
    same_program(
        "ps_5_0\ndcl_globalFlags enableDoublePrecisionFloatOps\ndcl_temps 1\n\
         dmov r0.xy, d(1.0000000000000000e+00l, 0.0000000000000000e+00l)\nret\n",
        "ps_5_0\ndcl_globalFlags enableDoublePrecisionFloatOps\ndcl_temps 1\n\
         dmov r0.xy, d(1.000000l, 0.000000l)\nret\n",
    );
    same_program(
        "gs_4_0
dcl_input v[1][0].xyzw
dcl_inputprimitive pointlist
dcl_outputtopology pointlist
dcl_output o0.xyzw
dcl_maxout 1
mov o0.xyzw, v[0][0].xyzw
emit
ret
",
        "gs_4_0
dcl_input v[1][0].xyzw
dcl_inputprimitive point
dcl_outputtopology pointlist
dcl_output o0.xyzw
dcl_maxout 1
mov o0.xyzw, v[0][0].xyzw
emit
ret
",
    );
    same_program(
        "hs_5_0
hs_decls
dcl_input_control_point_count 1
dcl_output_control_point_count 1
dcl_tessellator_domain domain_isoline
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_line
hs_fork_phase
dcl_hs_fork_phase_instance_count 2
dcl_input vForkInstanceId
dcl_output_siv o0.x, finalLineDetailTessFactor
dcl_output_siv o1.x, finalLineDensityTessFactor
dcl_temps 1
dcl_index_range o0.x 2
mov r0.x, vForkInstanceId.x
mov o[r0.x + 0].x, l(1.00000000e+00)
ret
",
        "hs_5_0
hs_decls
dcl_input_control_point_count 1
dcl_output_control_point_count 1
dcl_tessellator_domain domain_isoline
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_line
hs_fork_phase
dcl_hs_fork_phase_instance_count 2
dcl_input vForkInstanceID
dcl_output_siv o0.x, finalLineDetailTessFactor
dcl_output_siv o1.x, finalLineDensityTessFactor
dcl_temps 1
dcl_indexrange o0.x 2
mov r0.x, vForkInstanceID.x
mov o[r0.x + 0].x, l(1.000000)
ret
",
    );
}

#[test]
fn unknown_sections_are_located_errors() {
    let message = error("ps_4_0\n.data\nret\n");
    assert!(
        message.starts_with("line 2, column 2:") && message.contains(".text"),
        "{message}"
    );
}

#[test]
fn instruction_numbers_and_byte_offsets_are_skipped() {
    let ours = "ps_5_0
dcl_output o0.xyzw
mov o0.xyzw, l(0,0,0,0)
ret
";
    // fxc /Ni numbers the instructions, /No prints each line's byte offset, both do both.
    same_program(
        "ps_5_0
dcl_output o0.xyzw
   0: mov o0.xyzw, l(0,0,0,0)
   1: ret 
",
        ours,
    );
    same_program(
        "      0x00000000: ps_5_0
      0x00000008: dcl_output o0.xyzw
   0  0x00000010: mov o0.xyzw, l(0,0,0,0)
   1  0x00000028: ret 
",
        ours,
    );
    // A number where a statement starts is still an error without its colon.
    let message = error("ps_5_0\ndcl_output o0.xyzw\n   0  mov o0.xyzw, l(0,0,0,0)\nret\n");
    assert!(message.starts_with("line 3, column 4:"), "{message}");
}

#[test]
fn the_level9_listing_before_an_sm4_one_is_skipped() {
    let level9 = "//
// Level9 shader bytecode:
//
    ps_2_0
    dcl t0  // pin<0,1,2,3>
    texld r0, t2, s0
    mov oC0, r0

// approximately 2 instruction slots used
ps_4_0
dcl_output o0.xyzw
mov o0.xyzw, l(0,0,0,0)
ret
";
    same_program(
        level9,
        "ps_4_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(0,0,0,0)\nret\n",
    );
    // Without an SM4 listing after it the model is refused.
    let message = error("ps_2_0\nmov oC0, c0\n");
    assert!(message.contains("shader model 2.0"), "{message}");
}

#[test]
fn microsofts_sync_sat_ugroup_and_rcpfloat() {
    // The saturate bit of `sync` is its UAV-group bit, and Microsoft's disassembler prints it
    // as both.
    same_program(
        "cs_5_0
dcl_thread_group 1, 1, 1
sync_sat_ugroup_g_t
sync_sat_ugroup
ret
",
        "cs_5_0
dcl_thread_group 1, 1, 1
sync_ugroup_g_t
sync_ugroup
ret
",
    );
    same_program(
        "ps_5_0
dcl_resource_texture2d (float,float,float,float) t0
dcl_output o0.xyzw
resinfo_indexable(texture2d)(float,float,float,float)_rcpfloat o0.xyzw, l(0), t0.xyzw
ret
",
        "ps_5_0
dcl_resource_texture2d (float,float,float,float) t0
dcl_output o0.xyzw
resinfo_indexable(texture2d)(float,float,float,float)_rcpFloat o0.xyzw, l(0), t0.xyzw
ret
",
    );
}

#[test]
fn microsoft_c_library_infinities_and_nans() {
    same_program(
        "ps_5_0
dcl_output o0.xyzw
dcl_temps 1
mov o0.xyzw, l(1.#INF00, -1.#INF00, -1.#IND00, 1.#QNAN0)
dmov r0.xy, d(-1.#INF00, 1.#SNAN0)
ret
",
        "ps_5_0
dcl_output o0.xyzw
dcl_temps 1
mov o0.xyzw, l(0x7f800000, 0xff800000, 0xffc00000, 0x7fc00000)
dmov r0.xy, d(0xfff0000000000000, 0x7ff0000000000001)
ret
",
    );
    let message = error("ps_5_0\ndcl_output o0.xyzw\nmov o0.x, l(1.#WHAT0)\nret\n");
    assert!(message.contains("1.#WHAT0"), "{message}");
}

#[test]
fn precision_inside_the_absolute_value_bars() {
    // fxc: `|r0.xyzw {min16f}|`; this project prints `|r0.xyzw| {min16f}`.
    let head = "ps_5_0
dcl_globalFlags refactoringAllowed | enableMinimumPrecision
dcl_input_ps linear v0.xyzw {min16f}
dcl_output o0.xyzw
dcl_temps 1
";
    same_program(
        &format!(
            "{head}mad r0.xyzw {{min16f}}, |v0.xyzw {{min16f}}|, l(-4.000000, -4.000000, -4.000000, -4.000000) {{def32 as min16f}}, -|v0.xyzw {{min16f}}|
mov o0.xyzw, r0.xyzw {{min16f as def32}}
ret
"
        ),
        &format!(
            "{head}mad r0.xyzw {{min16f}}, |v0.xyzw| {{min16f}}, l(-4.000000, -4.000000, -4.000000, -4.000000) {{def32 as min16f}}, -|v0.xyzw| {{min16f}}
mov o0.xyzw, r0.xyzw {{min16f as def32}}
ret
"
        ),
    );
    let message = error(&format!(
        "{head}mov r0.xyzw {{min16f}}, |v0.xyzw {{min16f}}| {{min16f}}\nmov o0.xyzw, l(0,0,0,0)\nret\n"
    ));
    assert!(message.contains("both inside and after"), "{message}");
}
