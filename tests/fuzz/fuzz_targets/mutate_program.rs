//! Structure-aware: mutates a decoded program (opcodes, operand kinds, masks, swizzles,
//! indices, modifiers, declaration values, instruction order) and re-encodes it, so that
//! fuzzing reaches the analyses and the emitter (see `dxbc2spirv::fuzzing::mutate_program_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match dxbc2spirv::fuzzing::mutate_program_case(data) {
        Ok(Some(words)) => dxbc2spirv_fuzz::keep(&words, data),
        Ok(None) => {}
        Err(finding) => panic!("{finding}"),
    }
});
