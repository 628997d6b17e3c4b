use super::lower;
use crate::asm::parse_program;
use crate::disasm::program_text;

const DECLARATIONS: &str = "dcl_sampler s0, mode_default
dcl_sampler s2, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture3d (float,float,float,float) t1
dcl_resource_texture2d (uint,uint,uint,uint) t2
dcl_resource_buffer (float,float,float,float) t4
dcl_resource_structured t5, 16
dcl_resource_texture2dms(4) (float,float,float,float) t6
";

/// The code lines of the lowered program (after the declarations), or `None` when the
/// program needs no lowering.
fn lowered_code(model: &str, code: &str) -> Option<String> {
    let text = format!("{model}\n{DECLARATIONS}dcl_temps 4\n{code}ret\n");
    let program = parse_program(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let lowered = lower(&program).expect("lowers")?;
    let printed = program_text(&lowered);
    let code: Vec<&str> = printed
        .lines()
        .skip_while(|l| !l.starts_with("dcl_temps"))
        .skip(1)
        .collect();
    Some(code.join("\n"))
}

#[test]
fn a_texture_and_a_sampler_chosen_at_run_time_become_switches_over_what_fits() {
    // sample_l of a float 2D texture: t0 and t1 are float textures that fit the plain
    // instruction (t1 is 3D), t2 holds integers, t4 is a buffer, t5 structured, t6
    // multisampled; every declared sampler fits.
    let code = lowered_code(
        "cs_5_0",
        "sample_l r0.xyzw, r1.xyzx, t[r2.x + 1].xyzw, s[r2.y + 0], l(0.000000)\n",
    )
    .expect("lowered");
    let expected = "\
switch r2.x
  case l(-1)
  switch r2.y
    case l(0)
    sample_l r0.xyzw, r1.xyzx, t0.xyzw, s0, l(0.000000)
    break
    case l(2)
    sample_l r0.xyzw, r1.xyzx, t0.xyzw, s2, l(0.000000)
    break
    default
    mov r0.xyzw, l(0,0,0,0)
    break
  endswitch
  break
  case l(0)
  switch r2.y
    case l(0)
    sample_l r0.xyzw, r1.xyzx, t1.xyzw, s0, l(0.000000)
    break
    case l(2)
    sample_l r0.xyzw, r1.xyzx, t1.xyzw, s2, l(0.000000)
    break
    default
    mov r0.xyzw, l(0,0,0,0)
    break
  endswitch
  break
  default
  mov r0.xyzw, l(0,0,0,0)
  break
endswitch
ret";
    assert_eq!(code, expected, "lowered:\n{code}");
}

#[test]
fn the_resource_dimension_token_and_the_instruction_choose_the_cases() {
    // The annotation names texture3d: only t1.
    let code = lowered_code(
        "ps_5_0",
        "sample_indexable(texture3d)(float,float,float,float) r0.xy, r1.xyzx, t[r2.x + 0].xyzw, s0\n",
    )
    .expect("lowered");
    assert!(
        code.contains("case l(1)\n") && !code.contains("case l(0)\n"),
        "{code}"
    );
    // ld_structured reads the structured t5 only; bufinfo every buffer.
    let code = lowered_code(
        "cs_5_0",
        "ld_structured r0.x, r1.x, l(4), t[r2.x + 0].xxxx\n",
    )
    .expect("lowered");
    assert_eq!(code.matches("  case ").count(), 1, "{code}");
    assert!(
        code.contains("t5.xxxx") && code.contains("mov r0.x, l(0,0,0,0)"),
        "{code}"
    );
    let code = lowered_code("cs_5_0", "bufinfo r0.x, t[r2.x + 0].xxxx\n").expect("lowered");
    assert!(
        code.contains("case l(4)") && code.contains("case l(5)"),
        "{code}"
    );
    // ld2dms reads the multisampled t6; sample_c compares only against float textures that
    // are not 3D (t0).
    let code =
        lowered_code("cs_5_0", "ldms r0.xyzw, r1.xyzw, t[r2.x + 0].xyzw, l(1)\n").expect("lowered");
    assert_eq!(code.matches("  case ").count(), 1, "{code}");
    assert!(code.contains("t6.xyzw"), "{code}");
    let code = lowered_code(
        "ps_5_0",
        "sample_c r0.x, r1.xyxx, t[r2.x + 0].xxxx, s0, r1.z\n",
    )
    .expect("lowered");
    assert_eq!(code.matches("  case ").count(), 1, "{code}");
    assert!(code.contains("case l(0)"), "{code}");
}

#[test]
fn a_register_nothing_fits_reads_zero_and_programs_without_one_are_kept() {
    // No declared texture is an integer 2D array: the destination is zeroed, no switch.
    let code = lowered_code(
        "cs_5_0",
        "ld_indexable(texture2darray)(float,float,float,float) r3.yz, r1.xyzw, t[r2.x + 0].xyzw\n",
    )
    .expect("lowered");
    assert_eq!(code, "mov r3.yz, l(0,0,0,0)\nret");
    assert!(lowered_code(
        "cs_5_0",
        "sample_l r0.xyzw, r1.xyzx, t0.xyzw, s0, l(0.000000)\n"
    )
    .is_none());
    assert!(lowered_code("cs_5_0", "mov r0.x, cb[r1.x + 0][2].y\n").is_none());
}

#[test]
fn an_error_in_the_lowered_program_names_the_instruction_as_read() {
    // lod is a pixel-shader instruction: the error names instruction 10 (after the nine
    // declarations), the lod as read, not the copy in the switch.
    let text = format!(
        "cs_5_0\n{DECLARATIONS}dcl_temps 4\nlod r0.x, r1.xyxx, t[r2.x + 0].xyzw, s0\nret\n"
    );
    let bytes = crate::asm::assemble(&text).expect("assembles");
    let error = crate::translate_bytes(&bytes, &Default::default()).expect_err("refused");
    let crate::error::Location::Instruction { index, .. } = error.location else {
        panic!("located at {:?}: {error}", error.location);
    };
    assert_eq!(index, 9, "{error}");
    assert!(error.to_string().contains("lod"), "{error}");
}

#[test]
fn a_program_whose_switches_would_grow_past_the_bound_is_refused() {
    // 128 textures and 16 samplers: each sample becomes 2,048 cases (about 6,900
    // instructions), so 50 of them pass MAX_ADDED_INSTRUCTIONS (a hostile program would grow
    // with the product of its declarations).
    let mut text = String::from("ps_5_0\n");
    for s in 0..16 {
        text.push_str(&format!("dcl_sampler s{s}, mode_default\n"));
    }
    for t in 0..128 {
        text.push_str(&format!(
            "dcl_resource_texture2d (float,float,float,float) t{t}\n"
        ));
    }
    text.push_str("dcl_temps 3\n");
    for _ in 0..50 {
        text.push_str("sample_l r0.xyzw, r1.xyxx, t[r2.x + 0].xyzw, s[r2.y + 0], l(0.000000)\n");
    }
    text.push_str("ret\n");
    let program = parse_program(&text).expect("parses");
    let error = lower(&program).expect_err("too many instructions");
    assert_eq!(error.kind, crate::error::ErrorKind::Limit, "{error}");
    assert!(
        error
            .to_string()
            .contains(&super::MAX_ADDED_INSTRUCTIONS.to_string()),
        "{error}"
    );
    let crate::error::Location::Instruction { index, .. } = error.location else {
        panic!("located at {:?}", error.location);
    };
    // A sample (after 144 declarations and dcl_temps) near the 38th crosses the bound.
    assert!((145..195).contains(&index), "{error}");
}
