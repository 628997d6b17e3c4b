//! Build script: links the `dxbc2spirv` command with packed relative relocations on Linux.
//!
//! A position-independent executable is relocated at every start: the dynamic loader reads
//! its relocation table and writes every pointer in its read-only data (vtables, string
//! tables), so those pages count in the memory of every `dxbc2spirv translate` process.
//! `-z pack-relative-relocs` (DT_RELR; GNU ld 2.38+, glibc 2.36+, both in Debian 12) stores
//! the relative relocations as a compact bitmap, so the loader reads far less. The command
//! stays position-independent (its code is still placed at a random address). The library
//! (`rlib`, `cdylib`) is unaffected.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
