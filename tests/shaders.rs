//! The project's own assembly tests in `shaders/`: every `[… shader asm]` section of every
//! `.shader_test` file assembles into a container that the reader accepts (checksum included),
//! and disassembling and assembling it again gives the same bytes.

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
