//! Tests of the assembler: each declaration and instruction family parses to the IR the
//! decoder builds (checked by printing it again, and by encoding and decoding it), and a few
//! programs encode to hand-written dwords.

use super::*;
use crate::disasm;
use crate::ir::*;
use crate::tpf;

/// Parses `text`, which must be in the disassembler's exact form: printing gives it back,
/// and encoding then decoding gives the same program (operand arena, dwords, lengths).
fn round_trip(text: &str) -> Program {
    let program = parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(disasm::program_text(&program), text);
    let bytes = tpf::encode(&program).unwrap();
    let decoded = tpf::decode(&bytes).unwrap();
    assert_eq!(decoded, program, "decode(encode(parse(text))) differs");
    program
}

fn words(program: &Program) -> Vec<u32> {
    tpf::encode_words(program).unwrap()
}

#[test]
fn pixel_shader_declarations_and_flow_control() {
    round_trip(
        "ps_4_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | 0x00800000
dcl_constantbuffer CB0[2], immediateIndexed
dcl_constantbuffer CB1[4], dynamicIndexed
dcl_sampler s0, mode_default
dcl_sampler s1, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_buffer (uint,uint,uint,uint) t2
dcl_input_ps linear v0.xy
dcl_input_ps constant v1.x
dcl_input_ps_siv linear noperspective v2.xyzw, position
dcl_input_ps_sgv constant v3.x, is_front_face
dcl_input_ps v4.x
dcl_output o0.xyzw
dcl_output oDepth
dcl_temps 3
sample r0.xyzw, v0.xyxx, t0.xyzw, s0
sample_c_lz r1.x, v0.xyxx, t0.xxxx, s1, l(0.500000)
mul_sat r1.xyz, r0.xyzx, cb0[1].xxxx
mad r0.x, -r0.y, |r1.z|, -|cb1[r0.x + 2].w|
if_nz r0.x
  discard_z r0.y
else
  mov o0.xyzw, l(1.000000,0.500000,-0.000000,0x7fc00000)
endif
loop
  breakc_z r0.x
  iadd r0.x, r0.x, l(-1)
endloop
switch r0.x
  case l(1)
  break
  default
  break
endswitch
ld_aoffimmi(-1,2,0) r2.xyzw, r1.xyzw, t2.xyzw
lt r1.w, l(1.000000), v2.w
mov oDepth, r1.w
ret
",
    );
}

#[test]
fn sm41_and_sm50_instruction_suffixes() {
    let program = round_trip(
        "ps_5_0
dcl_resource_texture2dms(4) (float,float,float,float) t1
dcl_resource_texture2d (float,float,float,float) t0
dcl_output o0.xyzw
dcl_temps 3
resinfo_uint r0.xy, l(0), t0.xyzw
resinfo_rcpFloat r0.zw, l(0), t0.zwxy
sampleinfo_uint r1.x, t1.x
samplepos r1.yz, t1.xxyx, l(0)
ld_indexable(texture2d)(float,float,float,float) r2.xyzw, r0.xyzw, t0.xyzw
deriv_rtx_coarse r2.x, r2.y
add [precise] r2.y, r2.z, r2.w
mad [precise(xy)] r2.xy, r2.zwzz, r2.zwzz, r0.xyxx
sincos null, r0.x, r1.x
imul null, r0.y, r1.x, r1.y
mov_sat o0.xyzw, r2.xyzw
ret
",
    );
    let samplepos = program
        .instructions
        .iter()
        .find(|i| i.opcode == crate::isa::Opcode::SamplePos)
        .unwrap();
    // fxc pads samplepos with a zero dword: 1 + 2 + 2 + 2 needed, 8 written.
    assert_eq!(samplepos.length, 8);
    let w = words(&program);
    assert_eq!(w[(samplepos.dword + 7) as usize], 0);
}

#[test]
fn compute_shader_memory_instructions() {
    round_trip(
        "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_typed_buffer (uint,uint,uint,uint) u0
dcl_uav_raw_glc u1
dcl_uav_structured_opc u2, 16
dcl_uav_typed_texture2d_glc_rov (unorm,unorm,unorm,unorm) u3
dcl_resource_raw t0
dcl_resource_structured t1, 8
dcl_input vThreadID.xyz
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_tgsm_raw g0, 256
dcl_tgsm_structured g1, 4, 64
dcl_thread_group 8, 8, 1
ld_raw_indexable(raw_buffer)(mixed,mixed,mixed,mixed) r0.x, vThreadID.x, t0.xxxx
ld_structured_indexable(structured_buffer, stride=8)(mixed,mixed,mixed,mixed) r0.y, vThreadID.x, l(4), t1.xxxx
store_raw g0.x, vThreadIDInGroupFlattened.x, r0.x
sync_g_t
atomic_iadd u1, l(0), r0.x
imm_atomic_cmp_exch r1.x, u2, vThreadID.xy, r0.x, l(5)
imm_atomic_alloc r1.y, u2
bufinfo_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r1.z, u2.xxxx
store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xxxx
sync_uglobal_ugroup_g_t
ret
",
    );
}

#[test]
fn hull_shader_phases() {
    round_trip(
        "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_fractional_odd
dcl_tessellator_output_primitive output_triangle_cw
dcl_hs_max_tessfactor l(64.000000)
dcl_globalFlags refactoringAllowed
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input vicp[3][0].xyzw
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, vOutputControlPointID
mov o0.xyzw, vicp[r0.x][0].xyzw
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_indexrange o0.x 3
dcl_temps 1
mov r0.x, vForkInstanceID.x
mov o[r0.x + 0].x, l(4.000000)
ret
hs_join_phase
dcl_hs_join_phase_instance_count 1
dcl_output_siv o3.x, finalTriInsideTessFactor
mov o3.x, l(4.000000)
ret
",
    );
}

#[test]
fn domain_and_geometry_shaders() {
    round_trip(
        "ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyzw
dcl_input_siv vpc0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o0.xyzw, position
dcl_temps 1
mul r0.xyzw, vDomain.yyyy, vicp[1][0].xyzw
mad r0.xyzw, vicp[0][0].xyzw, vDomain.xxxx, r0.xyzw
mad o0.xyzw, vicp[2][0].xyzw, vDomain.zzzz, r0.xyzw
ret
",
    );
    round_trip(
        "gs_5_0
dcl_input v[3][0].xyzw
dcl_input vPrim
dcl_input vGSInstanceID
dcl_temps 1
dcl_inputprimitive triangle
dcl_stream m0
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_output o1.x
dcl_maxout 3
dcl_gsinstances 2
mov o0.xyzw, v[0][0].xyzw
mov o1.x, vPrim
emit_stream m0
cut_stream m0
emit_then_cut_stream m0
ret
",
    );
    round_trip(
        "gs_4_0
dcl_input v[4][0].xyzw
dcl_inputprimitive lineadj
dcl_outputtopology linestrip
dcl_output o0.xyzw
dcl_maxout 2
mov o0.xyzw, v[1][0].xyzw
emit
cut
ret
",
    );
}

#[test]
fn sm51_resource_ranges() {
    let program = round_trip(
        "ps_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[0:0][4], immediateIndexed, space=0
dcl_sampler S0[1:1], mode_default, space=1
dcl_resource_texture2d (float,float,float,float) T1[10:*], space=2
dcl_resource_structured T2[0:3], 16, space=0
dcl_uav_typed_texture2d_glc (float,float,float,float) U0[0:3], space=0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 2
ftou r0.x, v0.x
sample r1.xyzw, v0.xyxx, T1[r0.x + 10].xyzw {nonuniform}, S0[1]
mov o0.xyzw, CB0[0][3].xyzw
store_uav_typed U0[2].xyzw, l(0,0,0,0), r1.xyzw
ret
",
    );
    let Some(Declaration::Resource { range, operand, .. }) = &program.instructions[3].declaration
    else {
        panic!("not a resource declaration");
    };
    assert_eq!(
        *range,
        ResourceRange {
            id: 1,
            lower: 10,
            upper: None,
            space: 2
        }
    );
    let declared = program.operand(*operand);
    assert_eq!(declared.components, ComponentCount::Four);
    assert_eq!(
        declared.indices(),
        &[Index::Imm32(1), Index::Imm32(10), Index::Imm32(u32::MAX)]
    );
    assert_eq!(declared.value_type, ValueType::None);
}

#[test]
fn sm40_resource_operands_are_normalised() {
    let program = round_trip(
        "ps_4_0
dcl_constantbuffer CB1[4], immediateIndexed
dcl_resource_texture2d (float,float,float,float) t3
dcl_output o0.xyzw
mov o0.xyzw, cb1[2].xyzw
ret
",
    );
    let mov = &program.instructions[3];
    let src = program.srcs(mov)[0];
    assert_eq!(
        src.indices(),
        &[Index::Imm32(1), Index::Imm32(1), Index::Imm32(2)]
    );
    assert_eq!(src.value_type, ValueType::Bits);
    let Some(Declaration::Resource { operand, range, .. }) = &program.instructions[1].declaration
    else {
        panic!("not a resource declaration");
    };
    assert_eq!(range.id, 3);
    let declared = program.operand(*operand);
    assert_eq!(declared.components, ComponentCount::Zero);
    assert_eq!(declared.index_count, 3);
}

#[test]
fn doubles_and_immediates() {
    let program = round_trip(
        "ps_5_0
dcl_globalFlags enableDoublePrecisionFloatOps
dcl_output o0.xy
dcl_temps 2
dmov r0.xy, d(1.000000l, 0.000000l)
dadd r0.xy, r0.xyxy, d(0.500000l, 0x7ff8000000000000)
dmul r1.xy, r0.xyxy, d(2.000000l)
dtof o0.x, r1.xyxy
mov o0.y, l(0.33333334)
ret
",
    );
    let dmul = &program.instructions[5];
    let src = program.srcs(dmul)[1];
    assert_eq!(src.components, ComponentCount::One);
    assert_eq!(src.value64(0), 2f64.to_bits());
    let dadd = program.srcs(&program.instructions[4])[1];
    assert_eq!(dadd.components, ComponentCount::Four);
    assert_eq!(dadd.selection, Selection::Mask(0));
    assert_eq!(dadd.value64(1), 0x7ff8_0000_0000_0000);
}

#[test]
fn indexable_temps_and_immediate_constant_buffer() {
    let program = round_trip(
        "ps_4_0
dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},
                              { 0, 1.000000, -1, 0x7f800000},
                              { 2.500000, 3} }
dcl_input_ps constant v0.x
dcl_output o0.xyzw
dcl_temps 2
dcl_indexableTemp x0[4], 4
ftou r0.x, v0.x
mov x0[r0.x + 1].xyzw, icb[r0.x + 0].xyzw
mov r1.xyzw, x0[r0.x].xyzw
mov o0.xyzw, icb[r0.x].yxzw
ret
",
    );
    assert_eq!(
        program.data[4..10],
        [0, 0x3f80_0000, u32::MAX, 0x7f80_0000, 0x4020_0000, 3]
    );
    let mov = &program.instructions[6];
    let [dst, src] = program.operands_of(mov) else {
        panic!("two operands");
    };
    assert!(matches!(dst.indices[1], Index::Imm32PlusRelative(1, _)));
    assert!(matches!(src.indices[0], Index::Imm32PlusRelative(0, _)));
    let relative = program.operand(src.indices[0].relative().unwrap());
    assert_eq!(relative.value_type, ValueType::I32);
    assert_eq!(relative.selection, Selection::Select1(0));
}

#[test]
fn data_blocks_span_lines_and_may_be_empty() {
    let program = parse_program(
        "vs_4_0
dcl_immediateConstantBuffer {
  { 1, 2,
    3, 4 } }
dcl_customdata comment { 0x00000001,
  0xdeadbeef }
dcl_immediateConstantBuffer { }
ret
",
    )
    .unwrap();
    assert_eq!(program.data, [1, 2, 3, 4, 1, 0xdead_beef]);
    assert_eq!(
        disasm::program_text(&program),
        "vs_4_0
dcl_immediateConstantBuffer { { 1, 2, 3, 4} }
dcl_customdata comment { 0x00000001, 0xdeadbeef }
dcl_immediateConstantBuffer { }
ret
"
    );
}

#[test]
fn class_linkage() {
    round_trip(
        "ps_5_0
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0}
dcl_function_table ft1 = {fb1}
dcl_function_table ft2 = {}
dcl_interface_dynamicindexed fp0[2][1] = {ft0, ft1}
dcl_interface fp1[1][1] = {ft2}
dcl_output o0.xyzw
fcall fp0[0][0], 0
ret
label fb0
mov o0.xyzw, l(1.000000,1.000000,1.000000,1.000000)
ret
label fb1
mov o0.xyzw, l(0,0,0,0)
ret
",
    );
}

/// fxc's own spelling of class linkage: the call site as the interface's last index, a
/// dynamically indexed interface array, and `this[]` with a constant and a relative slot.
#[test]
fn class_linkage_in_fxc_syntax() {
    let program = round_trip(
        "cs_5_0
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0, fb1}
dcl_function_table ft1 = {fb1, fb0}
dcl_interface fp0[1][2] = {ft0, ft1}
dcl_interface_dynamicindexed fp1[3][2] = {ft0}
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.xyzw, this[0].xyzw
fcall fp0[0][1]
fcall fp1[r0.x + 0][0]
fcall fp1[2][1]
ret
label fb0
mov r1.xy, this[r0.y + 1].zwzz
ret
label fb1
store_raw u0.x, l(0), this[3].x
ret
",
    );
    let sites: Vec<_> = program
        .instructions
        .iter()
        .filter(|i| i.opcode == crate::isa::Opcode::InterfaceCall)
        .map(|i| i.call_index)
        .collect();
    assert_eq!(sites, [Some(1), Some(0), Some(1)], "fcall call sites");
}

#[test]
fn annotations_keep_what_the_text_cannot_show() {
    let text = "ps_5_0
dcl_resource_texture2d (float,float,float,float) t0 {components=1}
dcl_resource_raw t1 {swizzle=xyzw}
dcl_constantbuffer CB0[1] {components=4}, immediateIndexed
dcl_input vPrim {components=1}
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, r0.x {mask}
mov r0.xyzw, r0.xyzw {mask}
mov r0.xyzw, l(1,2,3,4) {swizzle=xxyy}
mov r0.x, l(1) {min16f as def32}
mov r0.x, r0.y {min2_8f as def32} {nonuniform} {length=8}
add r0.x, r0.x, r0.x {unused_control=0x800}
samplepos r0.xy, t0.xyxx, l(0) {length=7}
mov o0.xyzw, cb0[0].xyzw
ret
";
    let program = round_trip(text);
    let w = words(&program);
    // `mov r0.x, r0.y` needs 6 dwords with the extended operand token; {length=8} pads two.
    let mov = &program.instructions[10];
    assert_eq!(mov.length, 8);
    assert_eq!(
        w[(mov.dword + 6) as usize..(mov.dword + 8) as usize],
        [0, 0]
    );
    assert_eq!(program.instructions[11].unused_control, 0x800);
    assert_eq!(program.instructions[12].length, 7);
    let declared = program.operand(OperandId(program.instructions[2].operands.start));
    assert_eq!(declared.components, ComponentCount::Four);
    assert_eq!(declared.selection, Selection::Mask(0));
    // A select-1 on a destination is printed as such, and is kept (without validation).
    let odd = "ps_5_0\nmov r0.x {select1}, r0.x\n";
    let program = parse_program_unchecked(odd).unwrap();
    assert_eq!(program.operands[0].selection, Selection::Select1(0));
    assert_eq!(disasm::program_text(&program), odd);
}

#[test]
fn indices_of_every_form() {
    let text = "vs_5_0
dcl_output o0.xyzw
dcl_temps 2
dcl_indexableTemp x0[4], 4
mov r0.x, x0[r0.x + -1].x
mov r0.x, x0[r0.x + 4294967295u64].x
mov r0.x, x0[5u64].x
mov r0.x, x0[r[r[r[r1.x].x].x].x].x
ret
";
    let program = round_trip(text);
    let operands = program.operands_of(&program.instructions[3]);
    assert!(matches!(
        operands[1].indices[1],
        Index::Imm32PlusRelative(u32::MAX, _)
    ));
    let operands = program.operands_of(&program.instructions[4]);
    assert!(matches!(
        operands[1].indices[1],
        Index::Imm64PlusRelative(0xffff_ffff, _)
    ));
    assert_eq!(
        program.operands_of(&program.instructions[5])[1].indices[1],
        Index::Imm64(5)
    );
}

#[test]
fn comments_blank_lines_and_carriage_returns_are_skipped() {
    let program = parse_program(
        "// header\r\n\r\n//\r\nps_4_0 // version\r\ndcl_output o0.xyzw\r\n\r\nmov o0.xyzw, l(0,0,0,0) // done\r\nret",
    )
    .unwrap();
    assert_eq!(
        disasm::program_text(&program),
        "ps_4_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(0,0,0,0)\nret\n"
    );
}

#[test]
fn encodes_to_hand_written_tokens() {
    let program = parse_program(
        "ps_4_0
dcl_output o0.xyzw
mov o0.xyzw, l(1.000000, 0, 0, 0)
ret
",
    )
    .unwrap();
    assert_eq!(
        words(&program),
        [
            0x0000_0040, // ps_4_0
            14,          // program length
            0x0300_0065, // dcl_output
            0x0010_20f2, // o0.xyzw (mask)
            0,
            0x0800_0036, // mov, 8 dwords
            0x0010_20f2, // o0.xyzw
            0,
            0x0000_4002, // l(…): four components, mask 0
            0x3f80_0000,
            0,
            0,
            0,
            0x0100_003e, // ret
        ]
    );
}

#[test]
fn encodes_declarations_and_modifiers_to_hand_written_tokens() {
    let program = parse_program(
        "ps_4_0
dcl_resource_texture2d (float,float,float,float) t0
dcl_sampler s0, mode_comparison
dcl_input_ps linear v0.xy
dcl_output o0.x
dcl_temps 1
sample_aoffimmi(1,-1,0) r0.xyzw, v0.xyxx, t0.xyzw, s0
mov_sat o0.x, -|r0.w|
ret
",
    )
    .unwrap();
    let w = words(&program);
    assert_eq!(
        w[2..],
        [
            0x0400_1858, // dcl_resource_texture2d
            0x0010_7000, // t0, no components
            0,
            0x0000_5555, // (float,float,float,float)
            0x0300_085a, // dcl_sampler, mode_comparison
            0x0010_6000,
            0,
            0x0300_1062, // dcl_input_ps linear
            0x0010_1032, // v0.xy
            0,
            0x0300_0065, // dcl_output
            0x0010_2012, // o0.x
            0,
            0x0200_0068, // dcl_temps 1
            1,
            0x8a00_0045, // sample, extended, 10 dwords
            0x0001_e201, // _aoffimmi(1,-1,0)
            0x0010_00f2, // r0.xyzw
            0,
            0x0010_1046, // v0.xyxx (swizzle)
            0,
            0x0010_7e46, // t0.xyzw (swizzle)
            0,
            0x0010_6000, // s0
            0,
            0x0600_2036, // mov_sat, 6 dwords
            0x0010_2012, // o0.x
            0,
            0x8010_003a, // r0.w select-1, extended
            0x0000_00c1, // -|…|
            0,
            0x0100_003e, // ret
        ]
    );
}

/// fxc's `printf` and `errorf`: shader-message custom-data blocks with the operands' tokens
/// and the format string (see `crate::ir::shader_message`), printed back as written.
#[test]
fn shader_messages_print_as_printf_and_errorf() {
    let program = round_trip(
        "ps_5_0
dcl_constantbuffer CB0[4], dynamicIndexed
dcl_temps 11
if_nz r1.z
  printf \"%0 is fine!\", r10.z
else
  printf \"%0 is not %1 fine!\", r10.z, r10.x
endif
errorf \"bad \\\"%0\\\"\\n\", cb0[r0.x + 1].y
printf \"no operands\"
ret
",
    );
    let block = words(&program);
    // `printf "%0 is fine!", r10.z`: custom data of class 4 (after its token and length 12),
    // a message in printf format of 11 characters with one operand of two dwords (r10.z),
    // then the text in memory order with its terminating zero.
    let expected = vec![
        CustomDataClass::ShaderMessage.code() << 11 | Opcode::CustomData as u32,
        12,
        shader_message::MESSAGE_ID,
        shader_message::FORMAT_PRINTF,
        11,
        1,
        2,
        0x0010_002a,
        10,
        u32::from_le_bytes(*b"%0 i"),
        u32::from_le_bytes(*b"s fi"),
        u32::from_le_bytes(*b"ne!\0"),
    ];
    assert!(
        block
            .windows(expected.len())
            .any(|w| w == expected.as_slice()),
        "the block {expected:x?} is not in {block:x?}"
    );
}
