//! Helpers shared by the back end's unit tests.

use crate::spirv::{spirv_val, TargetEnv};

/// Runs spirv-val for `target` and panics with its message and the module's disassembly
/// when it rejects the module (or cannot be run: these tests do not skip).
pub fn validate_for(words: &[u32], target: &str) {
    let target = TargetEnv::from_name(target).unwrap_or_default();
    if let Err(e) = spirv_val(words, target) {
        let text = rspirv::dr::load_words(words)
            .map(|m| {
                use rspirv::binary::Disassemble;
                m.disassemble()
            })
            .unwrap_or_default();
        panic!("{e}\n{text}");
    }
}

/// [`validate_for`] with the default target, Vulkan 1.3.
pub fn validate(words: &[u32]) {
    validate_for(words, "vulkan1.3");
}
