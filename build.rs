//! Build script: links the `dxbc2spirv` command as a position-dependent executable on
//! Linux.
//!
//! A position-independent executable is relocated at every start: the dynamic loader reads
//! its relocation table (about 200 KB) and writes every pointer in its read-only data
//! (vtables, string tables; about 170 KB), so those pages count in the memory of every
//! `dxbc2spirv translate` process. Linked at a fixed address, the linker resolves them
//! once, and a run touches only the data it reads (peak RSS of translating one shader:
//! about 0.35 MB less). The trade-off is that the command's own code is not placed at a
//! random address (shared libraries, heap and stack still are). The library (`rlib`,
//! `cdylib`) is unaffected.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
