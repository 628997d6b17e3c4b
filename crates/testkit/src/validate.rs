//! Running the SPIR-V validator (`spirv-val` from SPIRV-Tools) on emitted words: the one
//! place the command, the tests and the corpus runner call it from. The translator itself
//! never spawns it.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use dxbc2spirv::{Error, Location, Result};

/// Runs `spirv-val --target-env <target>` on a module (`target` as spirv-val spells it:
/// `vulkan1.1`, `vulkan1.3`, …; [`dxbc2spirv::TargetEnv::name`] gives it). The error holds spirv-val's message,
/// or says how to install it when it cannot be run.
pub fn spirv_val(words: &[u32], target: &str) -> Result<()> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let path = std::env::temp_dir().join(format!(
        "dxbc2spirv-{}-{}.spv",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| {
        Error::new(
            Location::None,
            format!("cannot write {} for spirv-val: {e}", path.display()),
        )
    })?;
    let output = Command::new("spirv-val")
        .args(["--target-env", target])
        .arg(&path)
        .stdin(Stdio::null())
        .output();
    let _ = std::fs::remove_file(&path);
    let output = output.map_err(|e| {
        Error::new(
            Location::None,
            format!(
                "cannot run spirv-val ({e}); install spirv-tools (`apt-get install spirv-tools`, \
                 or `cargo xtask test`, which installs it)"
            ),
        )
    })?;
    if output.status.success() {
        return Ok(());
    }
    let message = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    Err(Error::new(
        Location::None,
        format!(
            "spirv-val --target-env {target} rejects the module: {}",
            message.trim()
        ),
    ))
}
