//! The whole translation from bytes (see `dxbc2spirv::fuzzing::translate_case`); each new
//! module is kept for spirv-val.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match dxbc2spirv::fuzzing::translate_case(data) {
        Ok(Some(words)) => dxbc2spirv_fuzz::keep(&words, data),
        Ok(None) => {}
        Err(finding) => panic!("{finding}"),
    }
});
