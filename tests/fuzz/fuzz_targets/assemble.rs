//! The assembler (see `dxbc2spirv::fuzzing::assemble_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = dxbc2spirv::fuzzing::assemble_case(data) {
        panic!("{finding}");
    }
});
