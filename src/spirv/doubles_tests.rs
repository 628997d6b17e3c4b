//! Tests of the double-precision translation: every double instruction translates and
//! validates for each target; moves stay bit copies; options gate `Float64` and
//! `DenormPreserve`.

use rspirv::dr::Module;
use spirv::{Capability, Op};

use super::test_support::validate_for;
use crate::container::ChunkInfo;
use crate::error::ErrorKind;
use crate::spirv::{translate, Features, TargetEnv};
use crate::TranslateOptions as Options;

fn cs(body: &str) -> String {
    format!(
        "cs_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
         dcl_constantbuffer cb0[2], immediateIndexed\ndcl_temps 4\ndcl_thread_group 1, 1, 1\n{body}\nret\n"
    )
}

fn compile_with(text: &str, options: &Options) -> crate::error::Result<Vec<u32>> {
    let program = crate::asm::parse_program(text).expect("test program assembles");
    translate(&program, &ChunkInfo::default(), options)
}

fn module(text: &str) -> Module {
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
        // The tests look at the lowering, as the emitter writes it.
        last = super::test_support::lowered_with(&options, |o| compile_with(text, o))
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
    rspirv::dr::load_words(&last).expect("rspirv parses the module")
}

fn ops(m: &Module) -> Vec<Op> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .map(|i| i.class.opcode)
        .collect()
}

fn has_capability(m: &Module, capability: Capability) -> bool {
    m.capabilities.iter().any(|i| {
        matches!(i.operands.first(), Some(rspirv::dr::Operand::Capability(c)) if *c == capability)
    })
}

/// One line per double instruction form (every opcode with a double operand is here:
/// `every_double_opcode_is_tested` checks it against the opcode table).
const DOUBLE_LINES: &[&str] = &[
    "dadd r0.xyzw, r1.xyzw, -r2.zwxy",
    "dmul r0.xy, |r1.xyxy|, cb0[0].zwzw",
    "ddiv r0.zw, r1.xyzw, d(3.0, 4.0)",
    "dfma r0.xyzw, r1.xyzw, r2.xyzw, r3.zwxy",
    "drcp r0.xy, -|r1.zwzw|",
    "dmin r0.xyzw, r1.xyzw, r2.xyzw",
    "dmax r0.zw, r1.zwzw, r2.xyxy",
    "dmov r0.xyzw, cb0[1].zwxy",
    "dmov_sat r0.xy, r1.xyxy",
    "dmovc r0.xyzw, r1.yxxx, r2.xyzw, d(4.5, 1.0)",
    "dmovc_sat r0.zw, r1.x, r2.xyzw, r3.zwzw",
    "deq r0.x, r1.xyxy, r2.zwzw",
    "dne r0.yw, r1.xyzw, r2.xyzw",
    "dlt r0.x, d(1.0, 0.0), cb0[0].xyxy",
    "dge r0.zw, r1.zwxy, r2.xyzw",
    "dtof r0.xz, cb0[0].zwxy",
    "dtof_sat r0.y, -r1.xyxy",
    "ftod r0.xy, cb0[0].x",
    "ftod r0.zw, -r1.y",
    "dtoi r0.xz, cb0[0].zwxy",
    "dtou r0.yw, -cb0[1].xyzw",
    "itod r0.xyzw, cb0[0].xyxx",
    "utod r0.xyzw, r1.zwxx",
];

#[test]
fn every_double_instruction_translates_and_validates() {
    for line in DOUBLE_LINES {
        module(&cs(line));
    }
}

/// Every opcode the table gives a double operand is among [`DOUBLE_LINES`], so that the
/// double part of the back end is shown to translate each one (none reaches its
/// "does not handle" arm).
#[test]
fn every_double_opcode_is_tested() {
    use crate::ir::ValueType;
    for info in crate::isa::OPCODES {
        if !info
            .dsts
            .iter()
            .chain(info.srcs)
            .any(|t| *t == ValueType::F64)
        {
            continue;
        }
        assert!(
            DOUBLE_LINES.iter().any(|line| {
                let word = line.split(' ').next().unwrap_or("");
                word.strip_suffix("_sat").unwrap_or(word) == info.name
            }),
            "{} has a double operand but no line in DOUBLE_LINES",
            info.name
        );
        assert_eq!(
            super::emitter::part(info.opcode),
            super::emitter::Part::Double,
            "{} has a double operand: the emitter must give it to the double part",
            info.name
        );
    }
}

#[test]
fn moves_copy_bits_without_double_arithmetic() {
    let m = module(&cs(
        "dmovc r0.xyzw, r1.xyxx, r2.xyzw, r3.zwxy\ndmov r1.xy, -r2.zwzw",
    ));
    let ops = ops(&m);
    assert!(!ops.contains(&Op::Bitcast), "{ops:?}");
    assert!(!ops.contains(&Op::FNegate), "{ops:?}");
    assert!(ops.contains(&Op::BitwiseXor), "negation flips the sign bit");
}

#[test]
fn float64_comes_from_the_global_flags() {
    let m = module(&cs("mov r0.x, l(1)"));
    assert!(has_capability(&m, Capability::Float64));
    let text = "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r0.x, l(1)\nret\n";
    let m = module(text);
    assert!(!has_capability(&m, Capability::Float64));
}

#[test]
fn a_target_without_float64_gets_an_error() {
    let options = Options {
        features: Features {
            float64: false,
            ..Features::default()
        },
        ..Options::default()
    };
    let words = compile_with(&cs("mov r0.x, l(1)"), &options).expect("no doubles used");
    let m = rspirv::dr::load_words(&words).expect("parses");
    assert!(!has_capability(&m, Capability::Float64));
    let error = compile_with(&cs("dadd r0.xy, r1.xyxy, r2.xyxy"), &options).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Unsupported);
    assert!(error.to_string().contains("dadd"), "{error}");
    assert!(error.to_string().contains("shaderFloat64"), "{error}");
}

#[test]
fn denorm_preserve_is_declared_when_the_target_has_it() {
    for target in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let options = Options {
            target,
            features: Features {
                denorm_preserve_float64: true,
                ..Features::default()
            },
            ..Options::default()
        };
        let words = compile_with(
            &cs("dadd r0.xy, r1.xyxy, r2.xyxy\ndmul r0.zw, r1.xyxy, r2.xyxy"),
            &options,
        )
        .expect("translates");
        validate_for(&words, target.name());
        let m = rspirv::dr::load_words(&words).expect("parses");
        assert!(has_capability(&m, Capability::DenormPreserve));
        assert_eq!(
            m.execution_modes.len(),
            2,
            "LocalSize and one DenormPreserve"
        );
    }
}

#[test]
fn illegal_swizzles_are_errors() {
    let program =
        crate::asm::parse_program(&cs("dadd r0.xy, r1.yxyx, r2.xyxy")).expect("assembles");
    let error = translate(&program, &ChunkInfo::default(), &Options::default()).unwrap_err();
    assert!(
        error.to_string().contains("dadd: source 1: swizzle .yxyx"),
        "{error}"
    );
}
