//! Tests of the class-linkage lowering (`src/spirv/linkage.rs`): the instance-data buffer's
//! binding through the mapper, fcall's switch, and the errors of malformed programs.

use rspirv::dr::Module as SpvModule;
use spirv::{Decoration, Op};

use super::test_support::{decorations, validate_for};
use crate::bindings::{BindingMap, BindingMapper, DefaultBindings};
use crate::container::{signatures_from_program, ChunkInfo};
use crate::spirv::TargetEnv;
use crate::TranslateOptions as Options;

/// A compute shader with two interfaces (slots 0 and 1..=2) and a subroutine `l0` whose
/// number collides with `fb0`.
const SHADER: &str = "cs_5_0
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0}
dcl_function_table ft1 = {fb1}
dcl_interface fp0[1][1] = {ft0, ft1}
dcl_interface_dynamicindexed fp1[2][1] = {ft1}
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.x, this[2].y
fcall fp0[0][0]
fcall fp1[r0.x + 0][0]
call l0
ret
label fb0
store_raw u0.x, l(0), l(1)
ret
label fb1
store_raw u0.x, l(4), l(2)
ret
label l0
store_raw u0.x, l(8), l(3)
ret
";

/// Translates `text` with `mapper`, validated for every target when it translates.
fn compile(text: &str, mapper: &dyn BindingMapper) -> Result<SpvModule, String> {
    let program = crate::asm::parse_program(text).map_err(|e| e.to_string())?;
    let (input, output, patch_constant) = signatures_from_program(&program);
    let reflection = ChunkInfo {
        input: Some(input),
        output: Some(output),
        patch_constant,
        ..ChunkInfo::default()
    };
    let mut last = Vec::new();
    for target in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let options = Options {
            target,
            ..Options::default()
        };
        let words = super::test_support::lowered(&program, &reflection, &options, mapper)
            .map_err(|e| e.to_string())?;
        validate_for(&words, target.name());
        last = words;
    }
    rspirv::dr::load_words(&last).map_err(|e| e.to_string())
}

fn function_calls(module: &SpvModule) -> usize {
    module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::FunctionCall)
        .count()
}

#[test]
fn default_binding_is_cb15_of_set_0() {
    let module = compile(SHADER, &DefaultBindings).unwrap_or_else(|e| panic!("{e}\n{SHADER}"));
    let bindings = decorations(&module, Decoration::Binding);
    let sets = decorations(&module, Decoration::DescriptorSet);
    // The instance data is the one uniform-class variable.
    let uniform = module
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::Variable
                && matches!(
                    i.operands.first(),
                    Some(rspirv::dr::Operand::StorageClass(
                        spirv::StorageClass::Uniform
                    ))
                )
        })
        .and_then(|i| i.result_id)
        .expect("a uniform variable");
    let binding = bindings.iter().find(|(id, _)| *id == uniform);
    let set = sets.iter().find(|(id, _)| *id == uniform);
    assert_eq!(
        (binding.map(|b| b.1.clone()), set.map(|s| s.1.clone())),
        (Some(vec![15]), Some(vec![0])),
        "binding and set of the class-linkage buffer\n{SHADER}"
    );
    // One function: fb0, fb1 and l0 are inlined (fp0 -> 2 cases, fp1 -> 1 case, call l0).
    assert_eq!(module.functions.len(), 1, "functions of\n{SHADER}");
    assert_eq!(
        function_calls(&module),
        0,
        "OpFunctionCall count of\n{SHADER}"
    );
    let switches = module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .filter_map(|b| b.instructions.last())
        .filter(|i| i.class.opcode == Op::Switch)
        .count();
    assert_eq!(switches, 2, "one OpSwitch per fcall in\n{SHADER}");
}

#[test]
fn mapped_binding_with_an_array_offset() {
    let map = BindingMap::from_json(
        r#"{ "fallback_to_default": true, "ranges": [
            { "class": "cbv", "space": 0, "first": 15, "last": 15,
              "set": 3, "binding": 9, "array_offset": 2 } ] }"#,
    )
    .unwrap();
    let module = compile(SHADER, &map).unwrap_or_else(|e| panic!("{e}\n{SHADER}"));
    let bindings = decorations(&module, Decoration::Binding);
    assert!(
        bindings.iter().any(|(_, v)| v == &[9]),
        "binding 9 expected in {bindings:?}\n{SHADER}"
    );
    // The buffer is element 2 of an array of 3: its access chains have three indices
    // (element, block member, vector; the component is taken from the loaded vector).
    let chains = module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::AccessChain && i.operands.len() == 4)
        .count();
    assert_eq!(
        chains, 3,
        "this[2].y, fp0 and fp1 each read the array element\n{SHADER}"
    );
}

#[test]
fn malformed_programs_are_errors() {
    let cases: [(&str, &str, &str); 5] = [
        (
            "cb15 declared by the program",
            "dcl_uav_raw u0\n",
            "dcl_constantbuffer CB15[1], immediateIndexed\ndcl_uav_raw u0\n",
        ),
        (
            "fcall through an undeclared interface",
            "fcall fp1[r0.x + 0][0]",
            "fcall fp3[0][0]",
        ),
        (
            "constant index outside the interface",
            "fcall fp0[0][0]",
            "fcall fp0[1][0]",
        ),
        (
            "call site past the table",
            "fcall fp0[0][0]",
            "fcall fp0[0][1]",
        ),
        ("a body without its label", "label fb1\n", "label fb5\n"),
    ];
    for (what, from, to) in cases {
        assert!(
            SHADER.contains(from),
            "{what}: the base shader lacks {from:?}"
        );
        let text = SHADER.replacen(from, to, 1);
        match compile(&text, &DefaultBindings) {
            Ok(_) => panic!("{what}: expected an error, the shader translated:\n{text}"),
            Err(e) => assert!(
                !e.contains("not translated yet") && !e.is_empty(),
                "{what}: unexpected error {e}\n{text}"
            ),
        }
    }
}

#[test]
fn this_without_interfaces_is_an_error() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
mov r0.x, this[0].x
store_raw u0.x, l(0), r0.x
ret
";
    let e = compile(text, &DefaultBindings).map(|_| ()).unwrap_err();
    assert!(e.contains("no interface"), "unexpected error {e}\n{text}");
}
