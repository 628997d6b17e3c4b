//! The committed C header `include/dxbc2spirv.h` is what cbindgen generates from src/
//! (set `UPDATE_HEADER=1` to rewrite it after changing the C API).

use std::path::Path;

#[test]
fn the_committed_header_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_src(root.join("src/lib.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = root.join("include/dxbc2spirv.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/dxbc2spirv.h is out of date: run UPDATE_HEADER=1 cargo test -p dxbc2spirv-capi --test header"
    );
}
