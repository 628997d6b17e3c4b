//! Golden tests of `reflect`: each `tests/in/reflect/<name>.asm` is assembled, read and
//! scanned (with `<name>.map.json` as the binding map when it exists, else the default
//! layout); the pretty JSON must equal `tests/out/reflect/<name>.json`.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test --test reflect` rewrites the expected files.

use std::path::{Path, PathBuf};

use dxbc2spirv::bindings::{BindingMap, BindingMapper, DefaultBindings};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(sub)
        .join("reflect")
}

fn reflect_json(input: &Path) -> String {
    let text = std::fs::read_to_string(input).unwrap();
    let bytes = dxbc2spirv::asm::assemble(&text).unwrap();
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).unwrap();
    let map_path = input.with_extension("map.json");
    let map;
    let mapper: &dyn BindingMapper = if map_path.exists() {
        map = BindingMap::from_json(&std::fs::read_to_string(&map_path).unwrap()).unwrap();
        &map
    } else {
        &DefaultBindings
    };
    let program = dxbc.program.as_ref().unwrap();
    let reflection = dxbc2spirv::reflect::scan(program, &dxbc.reflection, mapper).unwrap();
    let mut json = serde_json::to_string_pretty(&reflection.to_json()).unwrap();
    json.push('\n');
    json
}

#[test]
fn reflect_json_matches_golden_files() {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir("in"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 3, "the reflect inputs are missing");
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for input in inputs {
        let name = input.file_stem().unwrap().to_string_lossy().to_string();
        let expected_path = dir("out").join(format!("{name}.json"));
        let actual = reflect_json(&input);
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!("{name}:\n{actual}"));
        }
    }
    assert!(
        failures.is_empty(),
        "differs from the golden file:\n{}",
        failures.join("\n")
    );
}
