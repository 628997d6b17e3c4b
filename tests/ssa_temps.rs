//! Temps are SSA values: no module has a `Private` or `Function` variable for an `r#`
//! register, with the optimiser or without it, whether its program has subroutines or not
//! (they are inlined where they are called) and in hull shaders (each phase has its own
//! temps).
//!
//! Every blob of the corpus (`../shared/corpus`) and every program of the project's own with
//! subroutines (`tests/in`, `shaders/`) is translated with debug names, which would name a
//! temp's variable `r<register>.<component>`; the variables of those names are counted, and
//! a program with subroutines must translate to one function with no call (or, in a hull
//! shader, to its phases' functions and the entry point only).

mod common;

use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

/// The `r#.c` temp variables of a module (Private or Function storage).
fn temp_variables(words: &[u32]) -> Vec<String> {
    let module = rspirv::dr::load_words(words).expect("rspirv loads the module");
    let names: std::collections::HashMap<u32, String> = module
        .debug_names
        .iter()
        .filter(|i| i.class.opcode == Op::Name)
        .filter_map(|i| match (&i.operands[0], &i.operands[1]) {
            (Operand::IdRef(id), Operand::LiteralString(name)) => Some((*id, name.clone())),
            _ => None,
        })
        .collect();
    let is_temp = |name: &str| {
        name.strip_prefix('r').is_some_and(|rest| {
            rest.split_once('.').is_some_and(|(register, component)| {
                register.parse::<u32>().is_ok() && ["x", "y", "z", "w"].contains(&component)
            })
        })
    };
    let variables = module.types_global_values.iter().chain(
        module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter())),
    );
    variables
        .filter(|i| i.class.opcode == Op::Variable)
        .filter(|i| {
            matches!(
                i.operands.first(),
                Some(Operand::StorageClass(
                    StorageClass::Private | StorageClass::Function
                ))
            )
        })
        .filter_map(|i| names.get(&i.result_id?))
        .filter(|name| is_temp(name))
        .cloned()
        .collect()
}

/// The project's own assembly programs with subroutines or function bodies (`label`): the
/// `.asm` files under `tests/in` and the assembly sections of `shaders/**/*.shader_test`.
fn project_programs_with_subroutines() -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir)
            .expect("lists a project folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path
                .extension()
                .is_some_and(|e| e == "asm" || e == "shader_test")
            {
                out.push(path);
            }
        }
    }
    let root = common::workspace_root();
    let mut files = Vec::new();
    walk(&root.join("tests/in"), &mut files);
    walk(&root.join("shaders"), &mut files);
    files.sort();
    let mut programs = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("reads a project file");
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let sections: Vec<String> = if name.ends_with(".asm") {
            vec![text]
        } else {
            // The lines after each `[… asm]` header up to the next header.
            let mut sections = Vec::new();
            let mut current: Option<String> = None;
            for line in text.lines() {
                if line.starts_with('[') {
                    sections.extend(current.take());
                    if line.trim_end().ends_with(" asm]") {
                        current = Some(String::new());
                    }
                } else if let Some(section) = current.as_mut() {
                    section.push_str(line);
                    section.push('\n');
                }
            }
            sections.extend(current);
            sections
        };
        for (n, section) in sections.into_iter().enumerate() {
            if section
                .lines()
                .any(|l| l.trim_start().starts_with("label "))
            {
                programs.push((format!("{name} (section {n})"), section));
            }
        }
    }
    programs
}

/// The functions of a module and its `OpFunctionCall`s.
fn functions_and_calls(words: &[u32]) -> (usize, usize) {
    let module = rspirv::dr::load_words(words).expect("rspirv loads the module");
    let calls = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()))
        .filter(|i| i.class.opcode == Op::FunctionCall)
        .count();
    (module.functions.len(), calls)
}

#[test]
fn no_module_keeps_a_temp_in_a_variable() {
    let (mut checked, mut hulls) = (0, 0);
    common::for_each_corpus_module(|file, bytes, no_optimize, words| {
        let temps = temp_variables(&words);
        assert!(
            temps.is_empty(),
            "{file} (no_optimize: {no_optimize}): temps in variables: {temps:?}"
        );
        checked += 1;
        let dxbc = dxbc2spirv::read(bytes, &Default::default()).expect("a translated blob reads");
        if dxbc.program.as_ref().map(|p| p.model.stage) == Some(dxbc2spirv::ir::Stage::Hull) {
            hulls += 1;
        }
    });
    println!("{checked} corpus modules checked ({hulls} of hull shaders)");
    assert!(checked > 2000, "only {checked} modules checked");
    assert!(hulls > 50, "only {hulls} hull-shader modules checked");
}

/// Programs with subroutines (`call`, `callc`, `fcall`) keep no temp in a variable and make
/// no function of a subroutine: a vertex, pixel or compute shader is one function without
/// calls; a hull shader calls only its phases from its entry point.
#[test]
fn subroutines_are_inlined() {
    let programs = project_programs_with_subroutines();
    assert!(
        programs.len() >= 8,
        "only {} project programs with subroutines: {:?}",
        programs.len(),
        programs.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for (name, text) in &programs {
        let program = dxbc2spirv::asm::parse_program(text)
            .unwrap_or_else(|e| panic!("{name}: does not assemble: {e}"));
        let hull = program.model.stage == dxbc2spirv::ir::Stage::Hull;
        let dxbc = dxbc2spirv::asm::assemble(text).expect("assembles");
        for no_optimize in [false, true] {
            let mut options = dxbc2spirv::TranslateOptions::default();
            options.no_optimize = no_optimize;
            let words = dxbc2spirv::translate_bytes(&dxbc, &options)
                .unwrap_or_else(|e| panic!("{name} (no_optimize: {no_optimize}): {e}"))
                .words;
            let temps = temp_variables(&words);
            assert!(
                temps.is_empty(),
                "{name} (no_optimize: {no_optimize}): temps in variables: {temps:?}\n{text}"
            );
            let (functions, calls) = functions_and_calls(&words);
            if hull {
                // The entry point calls each phase function (in a loop for instances).
                assert_eq!(
                    calls,
                    functions - 1,
                    "{name} (no_optimize: {no_optimize}): {functions} functions, {calls} \
                     calls: a subroutine became a function\n{text}"
                );
            } else if !no_optimize || !text.contains("dfma") {
                assert_eq!(
                    (functions, calls),
                    (1, 0),
                    "{name} (no_optimize: {no_optimize}): (functions, calls)\n{text}"
                );
            }
        }
    }
}

/// The test above finds temps by their debug names: a module whose temp is a named
/// `Private` variable (as this back end once made them) is found, so that a change of the
/// names could not make that test pass without looking.
#[test]
fn a_named_temp_variable_is_found() {
    let mut b = rspirv::dr::Builder::new();
    b.set_version(1, 6);
    let float = b.type_float(32, None);
    let pointer = b.type_pointer(None, StorageClass::Private, float);
    let var = b.variable(pointer, None, StorageClass::Private, None);
    b.name(var, "r3.y");
    let other = b.variable(pointer, None, StorageClass::Private, None);
    b.name(other, "x0");
    use rspirv::binary::Assemble as _;
    let words = b.module().assemble();
    assert_eq!(temp_variables(&words), vec!["r3.y".to_string()]);
}
