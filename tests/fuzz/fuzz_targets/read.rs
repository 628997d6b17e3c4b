//! The container reader and the decoder (see `dxbc2spirv::fuzzing::read_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = dxbc2spirv::fuzzing::read_case(data) {
        panic!("{finding}");
    }
});
