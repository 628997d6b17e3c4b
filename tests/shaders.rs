//! The project's own assembly tests in `shaders/`: every `[… shader asm]` section of every
//! `.shader_test` file assembles into a container that the reader accepts (checksum included),
//! disassembling and assembling it again gives the same bytes, and it translates into SPIR-V
//! that spirv-val accepts for Vulkan 1.1, 1.2 and 1.3 (or fails with an "unsupported" error
//! naming a feature of another open issue, listed in `PENDING`).

use std::path::{Path, PathBuf};

/// One assembly section of a test file.
struct Section {
    file: PathBuf,
    line: usize,
    header: String,
    text: String,
}

fn shader_test_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            shader_test_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "shader_test") {
            out.push(path);
        }
    }
}

/// The `[… shader asm]` sections of a file.
fn asm_sections(file: &Path) -> Vec<Section> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    dxbc2spirv::asm::asm_sections(&text)
        .into_iter()
        .map(|s| Section {
            file: file.to_path_buf(),
            line: s.line,
            header: s.header,
            text: s.text,
        })
        .collect()
}

fn all_sections() -> Vec<Section> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files = Vec::new();
    shader_test_files(&root, &mut files);
    files.sort();
    files.iter().flat_map(|f| asm_sections(f)).collect()
}

/// Sections whose translation waits for another issue: (file, the feature the error names).
const PENDING: &[(&str, &str)] = &[];

/// Translates for every Vulkan target and runs spirv-val on each module.
fn translate_and_validate(dxbc: &dxbc2spirv::Dxbc<'_>) -> Result<(), String> {
    use dxbc2spirv::spirv::TargetEnv;
    for target in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let mut options = dxbc2spirv::TranslateOptions::default();
        options.target = target;
        // Device features off by default that sections use (shaders/clock/).
        options.features.shader_clock = true;
        let words = dxbc
            .translate(&options)
            .map_err(|e| format!("does not translate for {}: {e}", target.name()))?;
        dxbc2spirv_testkit::spirv_val(&words, target.name()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[test]
fn every_assembly_section_assembles_and_round_trips() {
    let sections = all_sections();
    assert!(
        sections.len() >= 11,
        "expected the seed tests' assembly sections under shaders/, found {}",
        sections.len()
    );
    let mut failures = Vec::new();
    for section in &sections {
        let place = format!(
            "{}:{} {}",
            section.file.display(),
            section.line,
            section.header
        );
        let bytes = match dxbc2spirv::asm::assemble(&section.text) {
            Ok(bytes) => bytes,
            Err(e) => {
                failures.push(format!("{place}: does not assemble: {e}"));
                continue;
            }
        };
        let dxbc = match dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()) {
            Ok(dxbc) => dxbc,
            Err(e) => {
                failures.push(format!(
                    "{place}: the assembled container does not read: {e}"
                ));
                continue;
            }
        };
        if let Err(problem) = translate_and_validate(&dxbc) {
            let pending = PENDING
                .iter()
                .find(|(file, _)| section.file.ends_with(file));
            match pending {
                Some((_, feature)) if problem.contains(feature) => {}
                _ => failures.push(format!("{place}: {problem}")),
            }
        }
        let text = dxbc2spirv::disasm::disassemble(&dxbc);
        match dxbc2spirv::asm::assemble(&text) {
            Ok(again) if again == bytes => {}
            Ok(_) => failures.push(format!(
                "{place}: assembling the disassembly gives different bytes; disassembly:\n{text}"
            )),
            Err(e) => failures.push(format!(
                "{place}: the disassembly does not assemble: {e}\n{text}"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} sections failed:\n{}",
        failures.len(),
        sections.len(),
        failures.join("\n")
    );
}
