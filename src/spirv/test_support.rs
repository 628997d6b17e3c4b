//! Helpers shared by the back end's unit tests: running spirv-val on emitted words.

use std::sync::atomic::{AtomicU32, Ordering};

/// Runs `spirv-val --target-env <target>` on the words and panics with its message (and
/// the module's disassembly) when it rejects them. A missing spirv-val is a failure, not a
/// skip: these tests need it.
pub fn validate_for(words: &[u32], target: &str) {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let path = std::env::temp_dir().join(format!(
        "dxbc2spirv-unit-{}-{}.spv",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).expect("writing the temporary module");
    let output = std::process::Command::new("spirv-val")
        .args(["--target-env", target])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let output = output.unwrap_or_else(|e| {
        panic!("spirv-val is not on PATH ({e}); install spirv-tools: these tests need it and do not skip")
    });
    if !output.status.success() {
        let text = rspirv::dr::load_words(words)
            .map(|m| {
                use rspirv::binary::Disassemble;
                m.disassemble()
            })
            .unwrap_or_default();
        panic!(
            "spirv-val --target-env {target} rejected the module:\n{}{}\n{text}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// [`validate_for`] with the default target, Vulkan 1.3.
pub fn validate(words: &[u32]) {
    validate_for(words, "vulkan1.3");
}
