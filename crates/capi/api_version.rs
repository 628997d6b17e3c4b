// Reads the C API's version, `DXBC2SPIRV_API_VERSION`, from the line of crates/capi/src/lib.rs
// that defines it, the one place it is written. Included by crates/capi/build.rs (the
// soname) and by xtask's `install` (the installed file's name).

/// The value of `pub const DXBC2SPIRV_API_VERSION: u32 = N;` in `source`.
pub fn api_version(source: &str) -> Option<u32> {
    source.lines().find_map(|line| {
        line.trim()
            .strip_prefix("pub const DXBC2SPIRV_API_VERSION: u32 = ")?
            .strip_suffix(';')?
            .parse()
            .ok()
    })
}
