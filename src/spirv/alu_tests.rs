//! Tests of the ALU translation: each instruction family is assembled into a tiny program,
//! translated, validated with `spirv-val --target-env vulkan1.3` and checked for the
//! instructions that carry its D3D semantics.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::Op;

use super::test_support::{code, count_op, validate};
use crate::container::ChunkInfo;
use crate::error::ErrorKind;
use crate::spirv::translate;
use crate::TranslateOptions as Options;

/// Assembles and translates a program (panics with the error on failure).
fn compile(text: &str) -> Vec<u32> {
    let program =
        crate::asm::parse_program(text).unwrap_or_else(|e| panic!("assembly failed: {e}\n{text}"));
    super::test_support::lowered(
        &program,
        &ChunkInfo::default(),
        &Options::default(),
        &crate::bindings::DefaultBindings,
    )
    .unwrap_or_else(|e| panic!("translation failed: {e}\n{text}"))
}

/// A compute shader with four temps around `body`.
fn cs(body: &str) -> String {
    format!("cs_5_0\ndcl_temps 4\ndcl_thread_group 1, 1, 1\n{body}\nret\n")
}

/// A pixel shader with an input, an output and four temps around `body`.
fn ps(body: &str) -> String {
    format!("ps_5_0\ndcl_input_ps linear v0.xyzw\ndcl_output o0.xyzw\ndcl_temps 4\n{body}\nret\n")
}

/// Compiles, validates and parses a program.
fn module(text: &str) -> Module {
    let words = compile(text);
    validate(&words);
    rspirv::dr::load_words(&words).expect("rspirv parses the module")
}

/// All instructions in function bodies.
fn body(m: &Module) -> Vec<&Instruction> {
    code(m).collect()
}

/// The GLSL.std.450 instruction numbers used.
fn ext_insts(m: &Module) -> Vec<u32> {
    body(m)
        .iter()
        .filter(|i| i.class.opcode == Op::ExtInst)
        .filter_map(|i| match i.operands.get(1) {
            Some(Operand::LiteralExtInstInteger(n)) => Some(*n),
            _ => None,
        })
        .collect()
}

/// Whether a 32-bit integer constant with these bits exists.
fn has_int_constant(m: &Module, bits: u32) -> bool {
    m.types_global_values.iter().any(|i| {
        i.class.opcode == Op::Constant
            && matches!(i.operands.first(), Some(Operand::LiteralBit32(b)) if *b == bits)
    })
}

fn decorated(m: &Module, decoration: spirv::Decoration) -> usize {
    m.annotations
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Decorate
                && matches!(i.operands.get(1), Some(Operand::Decoration(d)) if *d == decoration)
        })
        .count()
}

#[test]
fn float_arithmetic_and_precise() {
    let m = module(&cs("mov r0.xyzw, l(1.0, 2.0, 3.0, 4.0)
add [precise] r1.xy, r0.xyxx, -r0.zwzz
mul_sat r1.z, r0.x, |r1.x|
div r1.w, r0.x, r0.y
mad [precise] r2.xyzw, r0.xyzw, r1.xyzw, r0.wzyx
dp3 r3.x, r0.xyzx, r1.xyzx
dp4_sat r3.yz, r0.xyzw, r1.xyzw
min r3.w, r0.x, r0.y
max r2.x, r0.x, r0.y
rcp r2.y, r0.x
sincos r0.x, r0.y, r0.x"));
    // add, mad's add, and the dot products' sums (2 for dp3, 3 for dp4): no OpDot, whose
    // lowering lost NaN products on Mesa.
    assert_eq!(count_op(&m, Op::FAdd), 7);
    // mul, mad's multiply, and the dot products' products (3 + 4).
    assert_eq!(count_op(&m, Op::FMul), 9);
    assert_eq!(count_op(&m, Op::Dot), 0);
    // add + mad's multiply and add.
    assert_eq!(decorated(&m, spirv::Decoration::NoContraction), 3);
    let ext = ext_insts(&m);
    for n in [79, 80, 13, 14, 4] {
        assert!(ext.contains(&n), "GLSL.std.450 {n} missing in {ext:?}");
    }
}

#[test]
fn float_unary_functions() {
    let m = module(&cs("mov r0.xyzw, l(1.5, -2.5, 3.0, 0.25)
frc r1.xyzw, r0.xyzw
round_ne r1.x, r0.x
round_ni r1.y, r0.y
round_pi r1.z, r0.z
round_z r1.w, r0.w
sqrt r2.x, r0.x
rsq r2.y, r0.y
exp r2.z, r0.z
log_sat r2.w, r0.w"));
    let ext = ext_insts(&m);
    for n in [10, 2, 8, 9, 3, 31, 32, 29, 30] {
        assert!(ext.contains(&n), "GLSL.std.450 {n} missing in {ext:?}");
    }
}

#[test]
fn comparisons_give_all_ones() {
    let m = module(&ps("mov r0.xyzw, v0.xyzw
eq r1.x, r0.x, r0.y
ne r1.y, r0.x, r0.y
lt r1.z, r0.x, r0.y
ge r1.w, r0.x, r0.y
ieq r2.x, r0.z, r0.w
ine r2.y, r0.z, r0.w
ilt r2.z, r0.z, r0.w
ige r2.w, r0.z, r0.w
ult r3.x, r0.z, r0.w
uge r3.y, r0.z, r0.w"));
    assert_eq!(count_op(&m, Op::FOrdEqual), 1);
    assert_eq!(count_op(&m, Op::FUnordNotEqual), 1);
    assert_eq!(count_op(&m, Op::SLessThan), 1);
    assert_eq!(count_op(&m, Op::ULessThan), 1);
    assert!(has_int_constant(&m, 0xffff_ffff));
}

#[test]
fn comparisons_known_from_constants_are_constants() {
    // Nothing is less than INT_MIN or 0, nor greater than INT_MAX or UINT_MAX; and two
    // constants compare as constants. (Mesa's pipeline creation never ends on a loop exit
    // `INT_MAX < i` left in the module.)
    let m = module(&ps("mov r0.xyzw, v0.xyzw
ilt r1.x, l(0x7fffffff), r0.x
ilt r1.y, r0.y, l(0x80000000)
ige r1.z, r0.z, l(0x80000000)
ige r1.w, l(0x7fffffff), r0.w
ult r2.x, r0.x, l(0)
ult r2.y, l(0xffffffff), r0.y
uge r2.z, r0.z, l(0)
uge r2.w, l(0xffffffff), r0.w
ieq r3.x, l(3), l(3)
ilt r3.y, l(-1), l(1)
ult r3.z, l(-1), l(1)
ine r3.w, l(3), l(3)
iadd r1.xyzw, r1.xyzw, r2.xyzw
iadd r1.xyzw, r1.xyzw, r3.xyzw
mov o0.xyzw, r1.xyzw"));
    let text = {
        use rspirv::binary::Disassemble;
        m.disassemble()
    };
    for op in [
        Op::SLessThan,
        Op::SGreaterThanEqual,
        Op::ULessThan,
        Op::UGreaterThanEqual,
        Op::IEqual,
        Op::INotEqual,
    ] {
        assert_eq!(count_op(&m, op), 0, "{op:?} left in:\n{text}");
    }
    // Otherwise compared at run time.
    let m = module(&ps("mov r0.xyzw, v0.xyzw
ilt r1.x, l(0x7ffffffe), r0.x
ult r1.y, r0.y, l(1)
mov o0.xyzw, r1.xyzw"));
    assert_eq!(count_op(&m, Op::SLessThan), 1);
    assert_eq!(count_op(&m, Op::ULessThan), 1);
}

#[test]
fn integer_arithmetic_and_modifiers() {
    let m = module(&cs("mov r0.xyzw, l(1, 2, 3, 4)
iadd r1.xy, r0.xyxx, -r0.zwzz
imad r1.zw, r0.xxxy, r0.yyyz, |r0.zzzw|
umad r2.xy, r0.xyxx, r0.zwzz, r0.xyxx
imax r2.z, r0.x, r0.y
imin r2.w, r0.x, r0.y
umax r3.x, r0.x, r0.y
umin r3.y, r0.x, r0.y
ineg r3.z, r0.x
not r3.w, r0.x
and r0.x, r0.y, r0.z
or r0.y, r0.y, r0.z
xor r0.z, r0.y, r0.z
imul [precise] null, r0.w, r0.x, r0.y
umax [precise] r0.x, r0.y, r0.z"));
    // precise marks integer and extended-instruction results as well.
    assert_eq!(decorated(&m, spirv::Decoration::NoContraction), 2);
    assert_eq!(count_op(&m, Op::IMul), 2);
    assert_eq!(count_op(&m, Op::SMulExtended), 1);
    // iadd, imad, umad.
    assert_eq!(count_op(&m, Op::IAdd), 3);
    // -r0.zw on iadd and ineg.
    assert_eq!(count_op(&m, Op::SNegate), 2);
    let ext = ext_insts(&m);
    for n in [42, 39, 41, 38, 5] {
        assert!(ext.contains(&n), "GLSL.std.450 {n} missing in {ext:?}");
    }
}

#[test]
fn shifts_mask_the_count() {
    let m = module(&cs("mov r0.xyzw, l(1, 2, 3, 40)
ishl r1.xy, r0.xyxx, r0.wwww
ishr r1.z, r0.x, r0.w
ushr r1.w, r0.x, l(33)"));
    assert_eq!(count_op(&m, Op::ShiftLeftLogical), 1);
    assert_eq!(count_op(&m, Op::ShiftRightArithmetic), 1);
    assert_eq!(count_op(&m, Op::ShiftRightLogical), 1);
    assert_eq!(count_op(&m, Op::BitwiseAnd), 3);
    assert!(has_int_constant(&m, 31));
}

#[test]
fn imul_and_umul_split_high_and_low() {
    let m = module(&cs("mov r0.xyzw, l(1, 2, 3, 4)
imul r1.xy, r2.xy, r0.xyxx, r0.zwzz
imul null, r1.z, r0.x, r0.y
umul r3.x, null, r0.x, r0.y
umul r2.z, r2.w, r0.z, r0.w"));
    // Two results for the first, one each for the null forms, two for the last umul.
    assert_eq!(count_op(&m, Op::SMulExtended), 3);
    assert_eq!(count_op(&m, Op::UMulExtended), 3);
    let extracts = body(&m)
        .into_iter()
        .filter(|i| i.class.opcode == Op::CompositeExtract)
        .filter_map(|i| match i.operands.get(1) {
            Some(Operand::LiteralBit32(member)) => Some(*member),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert!(extracts.contains(&1) && extracts.contains(&0));
}

#[test]
fn udiv_by_zero_gives_all_ones() {
    let m = module(&cs("mov r0.xyzw, l(7, 0, 3, 4)
udiv r1.xy, r2.xy, r0.xzxx, r0.ywyy
udiv r1.z, null, r0.x, r0.y
udiv null, r1.w, r0.z, r0.w"));
    assert_eq!(count_op(&m, Op::UDiv), 2);
    assert_eq!(count_op(&m, Op::UMod), 2);
    assert!(has_int_constant(&m, 0xffff_ffff));
    assert!(count_op(&m, Op::Select) >= 8);
}

#[test]
fn carry_and_borrow() {
    let m = module(&cs("mov r0.xyzw, l(0xffffffff, 2, 3, 4)
uaddc r1.xy, r2.xy, r0.xyxx, r0.zwzz
usubb r1.z, r1.w, r0.z, r0.w"));
    assert_eq!(count_op(&m, Op::IAddCarry), 2);
    assert_eq!(count_op(&m, Op::ISubBorrow), 2);
}

#[test]
fn bit_counting_and_searching() {
    let m = module(&cs("mov r0.xyzw, l(0, 1, 0x80000000, 0xffffffff)
countbits r1.xyzw, r0.xyzw
firstbit_hi r2.xyzw, r0.xyzw
firstbit_lo r3.xyzw, r0.xyzw
firstbit_shi r1.xy, r0.zwzz
bfrev r1.zw, r0.xxxy"));
    assert_eq!(count_op(&m, Op::BitCount), 1);
    assert_eq!(count_op(&m, Op::BitReverse), 1);
    let ext = ext_insts(&m);
    for n in [73, 74, 75] {
        assert!(ext.contains(&n), "GLSL.std.450 {n} missing in {ext:?}");
    }
    // 31 - msb, with 0xffffffff when no bit is set.
    assert!(has_int_constant(&m, 31));
    assert!(has_int_constant(&m, 0xffff_ffff));
    assert_eq!(count_op(&m, Op::ISub), 2);
}

#[test]
fn bitfield_extract_and_insert() {
    let m = module(&cs("mov r0.xyzw, l(8, 4, 0x12345678, 40)
ubfe r1.xyzw, r0.xxxw, r0.yyyy, r0.zzzz
ibfe r2.xy, r0.xwxx, r0.ywyy, r0.zzzz
bfi r3.xyzw, r0.xxxw, r0.yyyy, r0.zzzz, r0.wwww"));
    // Offset and count are scalars in SPIR-V: one extract per component.
    assert_eq!(count_op(&m, Op::BitFieldUExtract), 4);
    assert_eq!(count_op(&m, Op::BitFieldSExtract), 2);
    assert!(has_int_constant(&m, 32));
    // bfi is built from shifts and masks (D3D's wrapping definition).
    assert!(count_op(&m, Op::ShiftLeftLogical) >= 3);
    assert_eq!(count_op(&m, Op::Not), 1);
    assert_eq!(count_op(&m, Op::BitwiseOr), 1);
}

#[test]
fn conversions() {
    let m = module(&cs("mov r0.xyzw, l(1.5, -2.0, 3, 4)
ftoi r1.xy, r0.xyxx
ftou r1.zw, r0.xxxy
itof r2.xy, r0.zwzz
utof_sat r2.zw, r0.zzzw
f32tof16 r3.xy, r0.xyxx
f16tof32 r3.zw, r0.zzzw"));
    assert_eq!(count_op(&m, Op::ConvertFToS), 1);
    assert_eq!(count_op(&m, Op::ConvertFToU), 1);
    assert_eq!(count_op(&m, Op::ConvertSToF), 1);
    assert_eq!(count_op(&m, Op::ConvertUToF), 1);
    // ftoi and ftou test for NaN; `_sat` does too (a signalling NaN gives 0).
    assert_eq!(count_op(&m, Op::IsNan), 3);
    let ext = ext_insts(&m);
    assert_eq!(ext.iter().filter(|&&n| n == 58).count(), 2);
    assert_eq!(ext.iter().filter(|&&n| n == 62).count(), 2);
}

#[test]
fn moves_swaps_and_selects() {
    // An input, not constants: a constant's negation is folded.
    let m = module(&ps("mov r0.xyzw, v0.xyzw
movc r1.xyzw, r0.xyzw, r0.zzzz, r0.wwww
movc_sat r2.xy, r0.xyxx, -r0.zwzz, r0.wzww
swapc r2.zw, r3.xy, r0.xyxx, r0.zzzz, r0.wwww
swapc null, r3.zw, r0.xyxx, r0.zzzz, r0.wwww
mov r3.x, -r0.x
mov r3.y {min16f}, -r0.x {min16f}
movc r3.z {min16i}, r0.x, r0.y {min16i}, r0.z {min16i}"));
    // movc, movc_sat, two swapc results and one more.
    assert!(count_op(&m, Op::Select) >= 5);
    assert_eq!(count_op(&m, Op::FNegate), 3);
}

#[test]
fn masked_sum_of_absolute_differences() {
    let m = module(&cs("mov r0.xyzw, l(0x01020304, 0x04030201, 10, 0)
msad r1.xy, r0.xyxx, r0.yxyy, r0.zzzz"));
    assert_eq!(count_op(&m, Op::UGreaterThan), 4);
    assert!(has_int_constant(&m, 0xff));
    assert!(has_int_constant(&m, 24));
}

#[test]
fn derivatives_in_pixel_shaders() {
    let m = module(&ps("deriv_rtx r0.xyzw, v0.xyzw
deriv_rty r1.xy, v0.xyxx
deriv_rtx_coarse r1.zw, v0.zzzw
deriv_rtx_fine r2.x, v0.x
deriv_rty_coarse r2.y, v0.y
deriv_rty_fine_sat r2.z, v0.z
add o0.xyzw, r0.xyzw, r1.xyzw"));
    for op in [
        Op::DPdx,
        Op::DPdy,
        Op::DPdxCoarse,
        Op::DPdxFine,
        Op::DPdyCoarse,
        Op::DPdyFine,
    ] {
        assert_eq!(count_op(&m, op), 1, "{op:?}");
    }
    assert!(m.capabilities.iter().any(|c| matches!(
        c.operands.first(),
        Some(Operand::Capability(spirv::Capability::DerivativeControl))
    )));
}

/// Shader models 4 and 5 have derivatives in pixel shaders only: each form elsewhere is
/// an invalid program, and the error names the instruction and the rule.
#[test]
fn derivatives_outside_pixel_shaders_are_invalid() {
    let stages = [
        cs("{}"),
        "vs_5_0\ndcl_temps 4\n{}\nret\n".to_string(),
        "gs_5_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
         dcl_temps 4\n{}\nret\n"
            .to_string(),
    ];
    for name in [
        "deriv_rtx",
        "deriv_rty",
        "deriv_rtx_coarse",
        "deriv_rtx_fine",
        "deriv_rty_coarse",
        "deriv_rty_fine",
    ] {
        for stage in &stages {
            // A null destination does not hide the error.
            let line = if stage.starts_with("vs") {
                format!("{name} null, r1.x")
            } else {
                format!("{name} r0.x, r1.x")
            };
            let text = stage.replace("{}", &line);
            let program = crate::asm::parse_program(&text).expect("assembles");
            let error = translate(&program, &ChunkInfo::default(), &Options::default())
                .expect_err("a derivative outside a pixel shader is rejected");
            assert_eq!(error.kind, ErrorKind::Invalid, "{text}\n{error}");
            assert!(
                error.message.starts_with(name) && error.message.contains("only in pixel shaders"),
                "{text}\n{error}"
            );
        }
    }
}

#[test]
fn null_only_destinations_emit_nothing() {
    let m = module(&cs("mov r0.x, l(1)
imul null, null, r0.x, r0.x
sincos null, null, r0.x"));
    assert_eq!(count_op(&m, Op::SMulExtended), 0);
    assert!(ext_insts(&m).is_empty());
}

#[test]
fn sources_are_read_before_either_destination_is_written() {
    // udiv r0.x, r0.y, r0.y, r0.x: the remainder must use the old r0.x and r0.y.
    let m = module(&cs("mov r0.xy, l(7, 2, 0, 0)
udiv r0.x, r0.y, r0.y, r0.x"));
    let code = body(&m);
    // A divisor goes through `select(divisor == 0, 1, divisor)`: its last operand is the
    // register value.
    let source = |operand: &Operand| {
        let Operand::IdRef(id) = *operand else {
            return operand.clone();
        };
        code.iter()
            .find(|i| i.result_id == Some(id) && i.class.opcode == Op::Select)
            .and_then(|select| select.operands.last().cloned())
            .unwrap_or(Operand::IdRef(id))
    };
    let sources_of = |op: Op| -> Vec<Operand> {
        code.iter()
            .find(|i| i.class.opcode == op)
            .unwrap_or_else(|| panic!("no {op:?} in {code:#?}"))
            .operands
            .iter()
            .map(source)
            .collect()
    };
    // Both results come from the same (old) register values: had the quotient been written
    // to r0.x first, the remainder would divide by it.
    assert_eq!(sources_of(Op::UDiv), sources_of(Op::UMod), "{code:#?}");
}

#[test]
fn moves_between_temps_build_no_vectors() {
    // Without the optimiser: r1 = v0.wzyx, then r1.xy swapped, then o0 = r1 = v0.zwyx.
    let program = crate::asm::parse_program(&ps("mov r0.xyzw, v0.xyzw
mov r1.xyzw, r0.wzyx
mov r1.xy, r1.yxxx
mov o0.xyzw, r1.xyzw"))
    .expect("assembles");
    let words = super::test_support::lowered(
        &program,
        &ChunkInfo::default(),
        &Options {
            no_optimize: true,
            ..Options::default()
        },
        &crate::bindings::DefaultBindings,
    )
    .expect("translates");
    validate(&words);
    let m = rspirv::dr::load_words(&words).expect("loads");
    let code = body(&m);
    let text = format!("{code:?}");
    let constructs: Vec<_> = code
        .iter()
        .filter(|i| i.class.opcode == Op::CompositeConstruct)
        .collect();
    assert_eq!(constructs.len(), 1, "only o0's vector is built:\n{text}");
    // Each part is v0's component it should be (extracted, and bitcast: moves type temps
    // as uint).
    let def = |id: Option<u32>| code.iter().find(|i| id.is_some() && i.result_id == id);
    let component_of = |id: &Operand| {
        let mut at = def(id.id_ref_any())?;
        if at.class.opcode == Op::Bitcast {
            at = def(at.operands[0].id_ref_any())?;
        }
        match (at.class.opcode, at.operands.get(1)) {
            (Op::CompositeExtract, Some(Operand::LiteralBit32(c))) => Some(*c),
            _ => None,
        }
    };
    let parts: Vec<_> = constructs[0].operands.iter().map(component_of).collect();
    assert_eq!(parts, [Some(2), Some(3), Some(1), Some(0)], "{text}");
}

/// A component of a vector written to a temp is made only where something reads it on its
/// own (see `builder::held_values`): in the block where a component is read alone, before a
/// branch to a block that may read it, and nowhere when the block returns or the temp is
/// overwritten first (the module is the one written without the optimiser).
#[test]
fn components_of_temps_are_made_only_where_used() {
    let extracts = |body_text: &str| {
        let m = module(&ps(body_text));
        let code = body(&m);
        let text = format!("{code:?}");
        let found: Vec<(u32, u32)> = code
            .iter()
            .filter(|i| i.class.opcode == Op::CompositeExtract)
            .map(|i| match (&i.operands[0], &i.operands[1]) {
                (Operand::IdRef(from), Operand::LiteralBit32(c)) => (*from, *c),
                other => panic!("an extract's operands {other:?}"),
            })
            .collect();
        (found, text)
    };
    // The sum is read whole: none of its components is made.
    let (found, text) = extracts("add r0.xyzw, v0.xyzw, v0.xyzw\nmov o0.xyzw, r0.xyzw");
    assert!(found.is_empty(), "{text}");
    // Only the component read alone.
    let (found, text) = extracts(
        "add r0.xyzw, v0.xyzw, v0.xyzw\nmul r1.xyzw, r0.yyyy, v0.xyzw\nmov o0.xyzw, r1.xyzw",
    );
    let components: Vec<u32> = found.iter().map(|&(_, c)| c).collect();
    assert_eq!(components, [1], "only the sum's y: {text}");
    // Overwritten before any read: never made; the value of the second write is read whole.
    let (found, text) = extracts(
        "add r0.xyzw, v0.xyzw, v0.xyzw\nmul r0.xyzw, v0.xyzw, v0.xyzw\nmov o0.xyzw, r0.xyzw",
    );
    assert!(found.is_empty(), "{text}");
    // Live across a branch: made before it, and read in the branch.
    let (found, text) = extracts(
        "add r0.xyzw, v0.xyzw, v0.xyzw\nlt r1.x, v0.x, l(0.5)\nif_nz r1.x\nmov o0.xyzw, r0.zzzz\nelse\nmov o0.xyzw, l(0,0,0,0)\nendif",
    );
    assert!(
        found.iter().any(|&(_, c)| c == 2),
        "r0.z is made before the branch: {text}"
    );
}

/// The emitter itself (the module is the one written without the optimiser) makes no
/// round trips through components: a vector written to a temp and read back whole, or read
/// back as another type, is the vector (or one bitcast of it), and an immediate vector is a
/// constant vector (see `value_facts`).
#[test]
fn vectors_through_temps_are_not_taken_apart_and_put_back() {
    let m = module(&ps("mov r0.xyzw, v0.xyzw\nmov o0.xyzw, r0.xyzw"));
    assert_eq!(
        count_op(&m, Op::CompositeExtract),
        0,
        "r0's components are held and never made (o0 reads r0 whole): {:?}",
        body(&m)
    );
    assert_eq!(
        count_op(&m, Op::CompositeConstruct),
        0,
        "o0 is stored as v0 itself"
    );
    let m = module(&ps(
        "mov r0.xyzw, v0.xyzw\niadd o0.xyzw, r0.xyzw, l(1, 2, 3, 4)",
    ));
    assert_eq!(count_op(&m, Op::CompositeConstruct), 0, "{:?}", body(&m));
    assert_eq!(
        count_op(&m, Op::Bitcast),
        2,
        "one bitcast of v0 to int and one of the sum back to float: {:?}",
        body(&m)
    );
    let sum = body(&m)
        .into_iter()
        .find(|i| i.class.opcode == Op::IAdd)
        .expect("the iadd");
    let constant = match sum.operands[1] {
        Operand::IdRef(id) => id,
        ref o => panic!("iadd's second operand {o:?}"),
    };
    let declared = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(constant))
        .expect("the immediate is declared");
    assert_eq!(declared.class.opcode, Op::ConstantComposite);
}
