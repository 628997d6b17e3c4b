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

/// The binding map beside an input (`<name>.map.json`), if there is one.
fn map_for(input: &Path) -> Option<BindingMap> {
    let map_path = input.with_extension("map.json");
    map_path
        .exists()
        .then(|| BindingMap::from_json(&std::fs::read_to_string(&map_path).unwrap()).unwrap())
}

fn reflect_json(input: &Path) -> String {
    let text = std::fs::read_to_string(input).unwrap();
    let bytes = dxbc2spirv::asm::assemble(&text).unwrap();
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).unwrap();
    let map = map_for(input);
    let mapper: &dyn BindingMapper = match &map {
        Some(map) => map,
        None => &DefaultBindings,
    };
    let program = dxbc.program.as_ref().unwrap();
    let reflection = dxbc2spirv::reflect::scan(program, &dxbc.reflection, mapper).unwrap();
    let mut json = serde_json::to_string_pretty(&reflection.to_json()).unwrap();
    json.push('\n');
    json
}

/// The `.asm` inputs, sorted.
fn inputs() -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir("in"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 3, "the reflect inputs are missing");
    inputs
}

#[test]
fn reflect_json_matches_golden_files() {
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for input in inputs() {
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

/// The scan-only call (`scan_bytes`) gives what the step-by-step scan gives and, for every
/// input that translates, the reflection of the translation with the same options.
#[test]
fn scan_bytes_is_the_translations_reflection() {
    let mut failures = Vec::new();
    let mut translated = 0;
    for input in inputs() {
        let name = input.file_stem().unwrap().to_string_lossy().to_string();
        let bytes = dxbc2spirv::asm::assemble(&std::fs::read_to_string(&input).unwrap()).unwrap();
        let mut options = dxbc2spirv::TranslateOptions::default();
        options.bindings = map_for(&input);
        let scanned = match dxbc2spirv::scan_bytes(&bytes, &options) {
            Ok(scanned) => scanned.to_json(),
            Err(e) => {
                failures.push(format!("{name}: scan_bytes failed: {e}"));
                continue;
            }
        };
        let mut pretty = serde_json::to_string_pretty(&scanned).unwrap();
        pretty.push('\n');
        if pretty != reflect_json(&input) {
            failures.push(format!(
                "{name}: scan_bytes differs from reflect::scan:\n{pretty}"
            ));
        }
        if let Ok(translation) = dxbc2spirv::translate_bytes(&bytes, &options) {
            translated += 1;
            let from_translation = translation.reflection.to_json();
            if from_translation != scanned {
                failures.push(format!(
                    "{name}: the translation's reflection differs:\n{from_translation:#}\n\
                     scan_bytes:\n{scanned:#}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(translated >= 3, "only {translated} inputs translated");
}
