//! Temps are SSA values: no corpus module translated from a program without subroutines
//! (hull shaders included: each phase has its own temps) has a `Private` or `Function`
//! variable for an `r#` register, with the optimiser or without it.
//!
//! Every blob of the corpus (`../shared/corpus`) is translated with debug names, which name
//! a temp's variable `r<register>.<component>`; the variables of those names are counted.
//! A program with a subroutine must still have its temp variable (temps cross functions
//! there), so that the test would notice the names going away.

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

#[test]
fn programs_without_subroutines_keep_no_temp_in_a_variable() {
    let (mut checked, mut with_subroutines, mut subroutine_temps, mut hulls) = (0, 0, 0, 0);
    common::for_each_corpus_module(|file, bytes, no_optimize, words| {
        let dxbc = dxbc2spirv::read(bytes, &Default::default()).expect("a translated blob reads");
        let program = dxbc
            .program
            .as_ref()
            .expect("a translated blob has a program");
        let subroutines = program
            .instructions
            .iter()
            .any(|i| i.opcode == dxbc2spirv::isa::Opcode::Label);
        let temps = temp_variables(&words);
        if subroutines {
            with_subroutines += 1;
            subroutine_temps += temps.len();
            return;
        }
        assert!(
            temps.is_empty(),
            "{file} (no_optimize: {no_optimize}): temps in variables: {temps:?}"
        );
        checked += 1;
        if program.model.stage == dxbc2spirv::ir::Stage::Hull {
            hulls += 1;
        }
    });
    println!(
        "{checked} modules without subroutines checked ({hulls} of hull shaders); \
         {with_subroutines} with subroutines hold {subroutine_temps} temp variables"
    );
    assert!(checked > 2000, "only {checked} modules checked");
    assert!(hulls > 50, "only {hulls} hull-shader modules checked");
}

/// A program with a subroutine keeps its temps in variables, named as the corpus test above
/// looks for them: were the names to change, this fails rather than that test passing
/// without seeing any.
#[test]
fn temps_crossing_a_call_stay_named_variables() {
    let text = "vs_5_0\ndcl_output o0.xyzw\ndcl_temps 1\nmov r0.x, l(1.0)\ncall l0\n\
                mov o0.xyzw, r0.xxxx\nret\nlabel l0\nadd r0.x, r0.x, l(1.0)\nret\n";
    let dxbc = dxbc2spirv::asm::assemble(text).expect("the test program assembles");
    let mut options = dxbc2spirv::TranslateOptions::default();
    options.no_optimize = true;
    let words = dxbc2spirv::translate_bytes(&dxbc, &options)
        .expect("the test program translates")
        .words;
    let temps = temp_variables(&words);
    assert_eq!(
        temps,
        vec!["r0.x".to_string()],
        "the temp variables of a program with a subroutine"
    );
}
