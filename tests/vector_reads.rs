//! Reads of read-only vector memory are vector reads: no module of the corpus or of the
//! snapshot inputs (`tests/in`), with the optimiser or without it, loads one component of a vector in an input, constant buffer or push
//! constant block through an access chain. The emitter loads the whole vector (once per
//! block) and takes the component out of it, so that the reads of one block share one load
//! and a register read whole comes out as the vector itself, with no pass to rewrite them.
//! Only a chain decorated `NonUniform` (a descriptor picked per invocation) keeps its exact
//! form.

mod common;

use rspirv::dr::{Instruction, Operand};
use spirv::{Decoration, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

/// The component loads of read-only vector memory in a module, as `%load = OpLoad %chain`
/// descriptions.
fn component_loads(words: &[u32]) -> Vec<String> {
    let module = rspirv::dr::load_words(words).expect("rspirv loads the module");
    let globals: HashMap<Word, &Instruction> = module
        .types_global_values
        .iter()
        .filter_map(|i| Some((i.result_id?, i)))
        .collect();
    let code: Vec<&Instruction> = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()))
        .collect();
    let chains: HashMap<Word, &Instruction> = code
        .iter()
        .filter(|i| matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain))
        .filter_map(|i| Some((i.result_id?, *i)))
        .collect();
    let non_uniform: HashSet<Word> = module
        .annotations
        .iter()
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(Decoration::NonUniform)))
        .filter_map(|i| i.operands[0].id_ref_any())
        .collect();
    let constant = |id: Word| match globals.get(&id) {
        Some(i) if i.class.opcode == Op::Constant => match i.operands[0] {
            Operand::LiteralBit32(v) => Some(v),
            _ => None,
        },
        _ => None,
    };
    // The storage class and pointee type of a pointer, followed through chains.
    let pointer = |id: Word| -> Option<(StorageClass, Word)> {
        let ty = match (globals.get(&id), chains.get(&id)) {
            (Some(var), _) => var.result_type?,
            (_, Some(chain)) => chain.result_type?,
            _ => return None,
        };
        let ty = globals.get(&ty)?;
        match (&ty.operands[0], &ty.operands[1]) {
            (Operand::StorageClass(class), Operand::IdRef(pointee)) => Some((*class, *pointee)),
            _ => None,
        }
    };
    let mut found = Vec::new();
    for load in code.iter().filter(|i| i.class.opcode == Op::Load) {
        let Some(Operand::IdRef(address)) = load.operands.first() else {
            continue;
        };
        let Some(chain) = chains.get(address) else {
            continue;
        };
        let Some(Operand::IdRef(base)) = chain.operands.first() else {
            continue;
        };
        let Some((class, mut ty)) = pointer(*base) else {
            continue;
        };
        if !matches!(
            class,
            StorageClass::Input | StorageClass::Uniform | StorageClass::PushConstant
        ) || non_uniform.contains(address)
            || non_uniform.contains(base)
        {
            continue;
        }
        // The type the indices but the last reach: a vector makes the load a component read.
        let indices: Vec<Word> = chain.operands[1..]
            .iter()
            .filter_map(|o| o.id_ref_any())
            .collect();
        let Some((_, prefix)) = indices.split_last() else {
            continue;
        };
        let mut reached = true;
        for &index in prefix {
            let Some(t) = globals.get(&ty) else {
                reached = false;
                break;
            };
            ty = match t.class.opcode {
                Op::TypeStruct => match constant(index)
                    .and_then(|m| t.operands.get(m as usize))
                    .and_then(|o| o.id_ref_any())
                {
                    Some(member) => member,
                    None => {
                        reached = false;
                        break;
                    }
                },
                Op::TypeArray | Op::TypeRuntimeArray => {
                    t.operands[0].id_ref_any().expect("an element type")
                }
                _ => {
                    reached = false;
                    break;
                }
            };
        }
        if reached && globals.get(&ty).map(|t| t.class.opcode) == Some(Op::TypeVector) {
            found.push(format!(
                "%{} = OpLoad %{address} (an {class:?} chain from %{base})",
                load.result_id.unwrap_or(0)
            ));
        }
    }
    found
}

#[test]
fn read_only_vector_memory_is_read_a_vector_at_a_time() {
    let mut checked = 0;
    common::for_each_corpus_module(|file, _bytes, no_optimize, words| {
        let loads = component_loads(&words);
        assert!(
            loads.is_empty(),
            "{file} (no_optimize: {no_optimize}): component loads of read-only vector memory \
             (expected none; the emitter loads the vector and extracts): {loads:?}"
        );
        checked += 1;
    });
    println!("{checked} modules checked");
    assert!(checked > 2000, "only {checked} modules checked");
}

#[test]
fn the_snapshot_inputs_read_read_only_vector_memory_a_vector_at_a_time() {
    let dir = common::workspace_root().join("tests").join("in");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    inputs.sort();
    let mut failures = Vec::new();
    for input in &inputs {
        let text = std::fs::read_to_string(input).expect("the input reads");
        let bytes = dxbc2spirv::asm::assemble(&text).expect("the input assembles");
        let dxbc = dxbc2spirv::read(&bytes, &Default::default()).expect("the container reads");
        for no_optimize in [false, true] {
            let mut options = common::options();
            options.no_optimize = no_optimize;
            let words = dxbc.translate(&options).expect("the input translates");
            let loads = component_loads(&words);
            if !loads.is_empty() {
                failures.push(format!(
                    "{} (no_optimize: {no_optimize}): {loads:?}",
                    input.display()
                ));
            }
        }
    }
    assert!(inputs.len() > 20, "only {} snapshot inputs", inputs.len());
    assert!(
        failures.is_empty(),
        "component loads of read-only vector memory (expected none; the emitter loads the \
         vector and extracts):\n{}",
        failures.join("\n")
    );
}

/// The check finds a component load when there is one (so that the test above can fail).
#[test]
fn a_component_load_of_an_input_vector_is_found() {
    let mut b = rspirv::dr::Builder::new();
    b.set_version(1, 0);
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let float = b.type_float(32, None);
    let uint = b.type_int(32, 0);
    let vec4 = b.type_vector(float, 4);
    let in_vec4 = b.type_pointer(None, StorageClass::Input, vec4);
    let in_float = b.type_pointer(None, StorageClass::Input, float);
    let input = b.variable(in_vec4, None, StorageClass::Input, None);
    let two = b.constant_bit32(uint, 2);
    let fn_ty = b.type_function(void, []);
    b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    let chain = b.access_chain(in_float, None, input, [two]).unwrap();
    b.load(float, None, chain, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    let words = rspirv::binary::Assemble::assemble(&b.module());
    assert_eq!(component_loads(&words).len(), 1);
}
