//! Tests of control flow: unreachable code after a jump.

use super::test_support::{lowered, validate};
use crate::container::ChunkInfo;
use crate::TranslateOptions as Options;

/// Translates a program (validating the module with and without the optimiser); returns
/// the unoptimised module's words.
fn compile(text: &str) -> Vec<u32> {
    let program = crate::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let words = lowered(
        &program,
        &ChunkInfo::default(),
        &Options::default(),
        &crate::bindings::DefaultBindings,
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
    validate(&words);
    words
}

#[test]
fn jumps_in_unreachable_code_are_not_translated() {
    // After `break` the rest of the case can never run; its `continuec` would branch to
    // the loop's continue target from a block outside the loop construct.
    let words = compile(
        "ps_4_0
dcl_output o0.xyzw
dcl_temps 2
mov r0.xyzw, l(0, 0, 0, 0)
mov r1.x, l(0)
loop
  switch r1.x
  case l(1)
    break
    continuec_z l(0)
    if_nz r1.x
      continue
    else
      ret
    endif
    add r0.x, r0.x, l(1.0)
    break
  default
    break
  endswitch
  iadd r1.x, r1.x, l(1)
  breakc_nz r1.x
endloop
mov o0.xyzw, r0.xyzw
ret
",
    );
    let module = rspirv::dr::load_words(&words).expect("loads");
    let fadds = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == spirv::Op::FAdd)
        .count();
    assert_eq!(fadds, 0, "the unreachable add was translated");
}

#[test]
fn code_after_ret_in_a_branch_is_skipped_up_to_the_else() {
    compile(
        "ps_4_0
dcl_input_ps linear v0.x
dcl_output o0.xyzw
dcl_temps 1
mov o0.xyzw, l(0, 0, 0, 0)
if_nz v0.x
  ret
  mov o0.x, l(1.0)
  loop
    break
  endloop
else
  mov o0.y, l(2.0)
endif
ret
",
    );
}

#[test]
fn a_second_default_is_refused_where_it_is() {
    // Found by the `translate` fuzz target when the back end could be reached without the
    // control-flow check: the second `default` of one switch. Every path now checks first.
    let text = "ps_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_output o0.x
dcl_temps 1
mov r0.x, cb0[0].x
switch cb0[0].y
default
iadd r0.x, r0.x, l(1)
break
default
iadd r0.x, r0.x, l(2)
break
endswitch
mov o0.x, r0.x
ret
";
    let program = crate::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let error = crate::spirv::translate(&program, &ChunkInfo::default(), &Options::default())
        .expect_err("two defaults");
    assert_eq!(
        error.to_string(),
        "instruction 8 (dword 0x1e): a second default in one switch",
        "{text}"
    );
}

#[test]
fn temps_flow_through_loops_and_switches_as_phis() {
    // A loop counter, a value set in one case and falling through into the next, and one
    // set on both sides of an `if`: phis in the loop header, the fall-through case, the
    // switch's merge and the `if`'s merge; no temp variable.
    let words = compile(
        "cs_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 1, 1, 1
mov r0.x, l(0)
mov r1.x, l(0)
loop
  uge r2.x, r0.x, cb0[0].x
  breakc_nz r2.x
  switch r0.x
  case l(1)
    iadd r1.x, r1.x, l(10)
  case l(2)
    iadd r1.x, r1.x, l(100)
    break
  default
    iadd r1.x, r1.x, l(1)
    break
  endswitch
  if_nz r0.x
    imul null, r1.y, r1.x, l(2)
  else
    mov r1.y, l(7)
  endif
  iadd r1.x, r1.x, r1.y
  iadd r0.x, r0.x, l(1)
endloop
store_raw u0.xy, l(0), r1.xyxx
ret
",
    );
    let module = rspirv::dr::load_words(&words).expect("loads");
    let code = || {
        module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()))
    };
    let phis = code().filter(|i| i.class.opcode == spirv::Op::Phi).count();
    assert!(phis >= 5, "{phis} phis");
    let privates = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == spirv::Op::Variable
                && i.operands.first()
                    == Some(&rspirv::dr::Operand::StorageClass(
                        spirv::StorageClass::Private,
                    ))
        })
        .count();
    assert_eq!(privates, 0, "temps in Private variables");
}

#[test]
fn a_temp_no_construct_writes_needs_no_phi_after_them() {
    // Thirty `if`s (or loops) that write r1 only: a read of r0 after them takes r0's value
    // from before them without a phi at each merge or loop header (trivial phis are removed
    // at the function's end, so the ids they took are what shows them).
    let program = |construct: &str, last: &str| {
        let mut text = String::from(
            "ps_4_0\ndcl_input_ps constant v0.x\ndcl_output o0.xyzw\ndcl_temps 2\n\
             mov r0.x, l(1.0)\n",
        );
        for k in 0..30 {
            text.push_str(&construct.replace("{k}", &k.to_string()));
        }
        text.push_str(&format!("mov o0.x, {last}\nmov o0.y, r1.x\nret\n"));
        text
    };
    let bound = |words: &[u32]| words[3];
    for construct in [
        "if_nz v0.x\n  mov r1.x, l({k})\nendif\n",
        "loop\n  mov r1.x, l({k})\n  breakc_nz v0.x\nendloop\n",
    ] {
        let after = bound(&compile(&program(construct, "r0.x")));
        let constant = bound(&compile(&program(construct, "l(2.0)")));
        assert!(
            after < constant + 10,
            "reading r0 after thirty of\n{construct}takes {} more ids than reading a constant",
            after - constant
        );
    }
}
