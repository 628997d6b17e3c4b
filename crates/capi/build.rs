//! Gives the shared library the soname `libdxbc2spirv.so.N`, N being the C API's version
//! (`DXBC2SPIRV_API_VERSION` in src/lib.rs): a program linked against one version of the API
//! loads only a library of that version.

include!("api_version.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=api_version.rs");
    let source = std::fs::read_to_string("src/lib.rs").expect("crates/capi/src/lib.rs");
    let version = api_version(&source)
        .expect("src/lib.rs declares `pub const DXBC2SPIRV_API_VERSION: u32 = N;`");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    // ELF platforms; Mach-O and PE name their libraries otherwise.
    if family == "unix" && !matches!(os.as_str(), "macos" | "ios" | "tvos" | "watchos") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdxbc2spirv.so.{version}");
    }
}
