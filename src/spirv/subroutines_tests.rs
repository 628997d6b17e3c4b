//! Tests of inlined subroutines: the form of the code (one function, no call, the wrapper
//! only where a body returns early) and the errors of call graphs that cannot be inlined.
//! Their results on Vulkan are checked by `shaders/flow/inlined_returns.shader_test` and the
//! differential test's programs with subroutines.

use super::test_support::{count_op, lowered, validate};
use crate::container::ChunkInfo;
use crate::TranslateOptions as Options;
use spirv::Op;

/// The unoptimised module of a program (validated with and without the optimiser).
fn compile(text: &str) -> rspirv::dr::Module {
    let program = crate::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let words = lowered(
        &program,
        &ChunkInfo::default(),
        &Options::default(),
        &crate::bindings::DefaultBindings,
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
    validate(&words);
    rspirv::dr::load_words(&words).expect("rspirv loads the module")
}

/// The error a program's translation gives.
fn error(text: &str) -> crate::Error {
    let program = crate::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    error_of(&program, text)
}

/// The error the translation of `program` (assembled from `text`) gives.
fn error_of(program: &crate::ir::Program, text: &str) -> crate::Error {
    match crate::spirv::translate(program, &ChunkInfo::default(), &Options::default()) {
        Ok(_) => panic!("translated, expected an error:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn a_subroutine_called_twice_is_inlined_twice() {
    let module = compile(
        "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 1
dcl_thread_group 2, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
call l0
call l0
store_raw u0.x, l(0), r0.x
ret
label l0
xor r0.x, r0.x, l(3)
ret
",
    );
    assert_eq!(module.functions.len(), 1, "only the entry point");
    assert_eq!(count_op(&module, Op::FunctionCall), 0);
    assert_eq!(
        count_op(&module, Op::BitwiseXor),
        2,
        "the body once per call"
    );
    // The only `ret` is the body's last instruction: no wrapper.
    assert_eq!(count_op(&module, Op::Switch), 0);
}

#[test]
fn an_early_return_leaves_through_a_wrapper_and_a_nested_one_through_a_flag() {
    let early = compile(
        "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 2, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
call l0
store_raw u0.x, l(0), r0.x
ret
label l0
ieq r1.x, r0.x, l(1)
retc_nz r1.x
mov r0.x, l(5)
ret
",
    );
    assert_eq!(count_op(&early, Op::Switch), 1, "the wrapper");
    assert_eq!(count_op(&early, Op::Phi), 1, "r0.x where the paths meet");
    let nested = compile(
        "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 2, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
call l0
store_raw u0.x, l(0), r0.x
ret
label l0
loop
  iadd r0.x, r0.x, l(1)
  ieq r1.x, r0.x, l(3)
  retc_nz r1.x
endloop
ret
",
    );
    assert_eq!(count_op(&nested, Op::Switch), 1, "the wrapper");
    assert_eq!(count_op(&nested, Op::LoopMerge), 1);
    // The flag is tested after the loop: `retc` inside the loop sets it, and its test
    // leaves the wrapper.
    assert!(
        count_op(&nested, Op::INotEqual) >= 2,
        "the retc's condition and the flag's test"
    );
}

#[test]
fn a_break_in_a_subroutine_does_not_leave_the_callers_loop() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
mov r0.x, l(0)
loop
  call l0
  iadd r0.x, r0.x, l(1)
endloop
ret
label l0
break
ret
";
    // The IR validator refuses the `break` (outside any loop of its subroutine), or else
    // the back end does: an error at the `break`, never a branch out of the caller's loop.
    let message = match crate::asm::parse_program(text) {
        Err(e) => e.to_string(),
        Ok(program) => error_of(&program, text).to_string(),
    };
    assert!(message.contains("break outside"), "{message}");
}

#[test]
fn recursion_is_an_error_at_the_call() {
    let e = error(
        "cs_5_0
dcl_temps 1
dcl_thread_group 1, 1, 1
call l0
ret
label l0
call l1
ret
label l1
iadd r0.x, r0.x, l(1)
call l0
ret
",
    );
    let message = e.to_string();
    assert!(message.contains("recursive"), "{message}");
    assert!(
        message.contains("instruction 9"),
        "names the call: {message}"
    );
}

#[test]
fn a_call_graph_too_large_to_inline_is_an_error() {
    // Each subroutine calls the next twice: 2^24 copies of the last body.
    let mut text = String::from("cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\ncall l0\nret\n");
    for level in 0..24 {
        text += &format!(
            "label l{level}\ncall l{next}\ncall l{next}\nret\n",
            next = level + 1
        );
    }
    text += "label l24\niadd r0.x, r0.x, l(1)\nret\n";
    let e = error(&text);
    assert!(e.to_string().contains("inline to more than"), "{e}");
}
