//! Tests of the peepholes, common-subexpression elimination, store merging and vector reads.

use crate::spirv::builder::Operand;
use spirv::{Decoration, Op, StorageClass};

use super::test_support::{assert_valid, count, run_pass, text, Shell};
use super::{dce, merge_stores, optimize, simplify};

/// Stores the components of `input` to `output` one by one, as the emitter does.
fn copy_components(s: &mut Shell, order: &[u32]) {
    let v = s.m.load(s.vec4, s.input).unwrap();
    let float = s.float;
    let out_float = s.m.pointer(StorageClass::Output, float);
    for &k in order {
        let c = s.m.composite_extract(float, v, &[k]).unwrap();
        let index = s.uint_const(k);
        let p = s.m.access_chain(out_float, s.output, &[index]).unwrap();
        s.m.store(p, c).unwrap();
    }
}

/// The shell's module after `simplify` and `dce`.
fn simplified(s: Shell) -> crate::spirv::builder::Module {
    let mut module = s.finish();
    run_pass(&mut module, |m, i, _| {
        simplify::run(m, i, &mut Default::default())
    });
    dce::run(&mut module, &mut Default::default());
    module
}

/// The first `OpCompositeConstruct` of the module's function (the vector stored).
fn output_vector(module: &crate::spirv::builder::Module) -> &crate::spirv::builder::Instruction {
    module.functions[0].blocks[0]
        .instructions
        .iter()
        .find(|i| i.class.opcode == Op::CompositeConstruct)
        .expect("the output vector")
}

#[test]
fn component_stores_of_a_whole_vector_become_one_store_of_it() {
    let mut s = Shell::new();
    copy_components(&mut s, &[2, 0, 3, 1]);
    let mut module = s.finish();
    run_pass(&mut module, |m, i, _| merge_stores::run(m, i));
    run_pass(&mut module, |m, i, _| {
        simplify::run(m, i, &mut Default::default())
    });
    dce::run(&mut module, &mut Default::default());
    super::test_support::assert_code(&module, &[Op::Load, Op::Store, Op::Return]);
    assert_valid(&module);
}

#[test]
fn a_read_of_the_output_between_component_stores_keeps_them() {
    let mut s = Shell::new();
    copy_components(&mut s, &[0, 1]);
    let vec4 = s.vec4;
    s.m.load(vec4, s.output).unwrap();
    copy_components(&mut s, &[2, 3]);
    let mut module = s.finish();
    run_pass(&mut module, |m, i, _| merge_stores::run(m, i));
    assert_eq!(count(&module, Op::Store), 4, "{}", text(&module));
    assert_valid(&module);
}

/// Components of an input vector read the way the emitter reads them (the vector loaded,
/// here twice, and components extracted) and put together out of order: one load and a
/// shuffle.
#[test]
fn component_reads_of_an_input_become_one_vector_read() {
    let mut s = Shell::new();
    let float = s.float;
    let mut parts = Vec::new();
    for k in [1, 0, 3, 2] {
        let v = s.m.load(s.vec4, s.input).unwrap();
        parts.push(s.m.composite_extract(float, v, &[k]).unwrap());
    }
    let vec4 = s.vec4;
    let out = s.m.b.composite_construct(vec4, None, parts).unwrap();
    s.m.store(s.output, out).unwrap();
    let mut module = s.finish();
    run_pass(&mut module, |m, i, _| {
        simplify::run(m, i, &mut Default::default())
    });
    dce::run(&mut module, &mut Default::default());
    super::test_support::assert_code(
        &module,
        &[Op::Load, Op::VectorShuffle, Op::Store, Op::Return],
    );
    assert_valid(&module);
}

#[test]
fn bitcasts_there_and_back_and_constants_fold() {
    let mut s = Shell::new();
    let (float, uint, uvec4, vec4) = (s.float, s.uint, s.uvec4, s.vec4);
    let v = s.m.load(vec4, s.input).unwrap();
    let bits = s.m.bitcast(uvec4, v).unwrap();
    let x_bits = s.m.composite_extract(uint, bits, &[0]).unwrap();
    let x = s.m.bitcast(float, x_bits).unwrap();
    let two = s.uint_const(2);
    let three = s.uint_const(3);
    let five = s.m.b.i_add(uint, None, two, three).unwrap();
    let five_f = s.m.bitcast(float, five).unwrap();
    let out =
        s.m.b
            .composite_construct(vec4, None, [x, five_f, x, x])
            .unwrap();
    s.m.store(s.output, out).unwrap();
    let module = simplified(s);
    assert_eq!(count(&module, Op::Bitcast), 0, "{}", text(&module));
    assert_eq!(count(&module, Op::IAdd), 0, "{}", text(&module));
    let folded = module.types_global_values.iter().any(|i| {
        i.class.opcode == Op::Constant
            && i.operands[..] == [Operand::LiteralBit32(5)]
            && i.result_type() == Some(float)
    });
    assert!(
        folded,
        "no float constant with the bits 5:\n{}",
        text(&module)
    );
    assert_valid(&module);
}

#[test]
fn equal_pure_instructions_are_one_unless_decorated() {
    let mut s = Shell::new();
    let (float, vec4) = (s.float, s.vec4);
    let v = s.m.load(vec4, s.input).unwrap();
    let x = s.m.composite_extract(float, v, &[0]).unwrap();
    let a = s.m.b.f_add(float, None, x, x).unwrap();
    let b = s.m.b.f_add(float, None, x, x).unwrap();
    let c = s.m.b.f_add(float, None, x, x).unwrap();
    s.m.decorate(c, Decoration::RelaxedPrecision, &[]);
    let out = s.m.b.composite_construct(vec4, None, [a, b, c, x]).unwrap();
    s.m.store(s.output, out).unwrap();
    let mut module = s.finish();
    run_pass(&mut module, |m, i, _| {
        simplify::run(m, i, &mut Default::default())
    });
    assert_eq!(count(&module, Op::FAdd), 2, "{}", text(&module));
    assert_valid(&module);
}

#[test]
fn values_of_the_first_block_serve_later_blocks_and_values_of_another_block_do_not() {
    let mut s = Shell::new();
    let (float, vec4) = (s.float, s.vec4);
    let v = s.m.load(vec4, s.input).unwrap();
    let x = s.m.composite_extract(float, v, &[0]).unwrap();
    let y = s.m.composite_extract(float, v, &[1]).unwrap();
    // First block: x + x.
    let first = s.m.b.f_add(float, None, x, x).unwrap();
    s.next_block();
    // Second block: x + x again is the first block's; x * y is new.
    let again = s.m.b.f_add(float, None, x, x).unwrap();
    let second = s.m.b.f_mul(float, None, x, y).unwrap();
    s.next_block();
    // Third block: x * y of the second block is not visible (only the first block's are),
    // and a second x * y here is the third block's own.
    let third = s.m.b.f_mul(float, None, x, y).unwrap();
    let third_again = s.m.b.f_mul(float, None, x, y).unwrap();
    let sum = s.m.b.f_add(float, None, third, third_again).unwrap();
    let out =
        s.m.b
            .composite_construct(vec4, None, [first, again, second, sum])
            .unwrap();
    s.m.store(s.output, out).unwrap();
    let mut module = s.finish();
    run_pass(&mut module, |m, i, _| {
        simplify::run(m, i, &mut Default::default())
    });
    let blocks: Vec<[usize; 2]> = module.functions[0]
        .blocks
        .iter()
        .map(|b| {
            let ops = b.instructions.iter().map(|i| i.class.opcode);
            [
                ops.clone().filter(|&o| o == Op::FAdd).count(),
                ops.filter(|&o| o == Op::FMul).count(),
            ]
        })
        .collect();
    assert_eq!(
        blocks,
        [[1, 0], [0, 1], [1, 1]],
        "(FAdd, FMul) per block\n{}",
        text(&module)
    );
    assert_valid(&module);
}

#[test]
fn a_mask_tested_against_zero_is_its_condition() {
    let mut s = Shell::new();
    let (float, uint, vec4) = (s.float, s.uint, s.vec4);
    let boolean = s.m.scalar(crate::spirv::Scalar::Bool);
    let v = s.m.load(vec4, s.input).unwrap();
    let x = s.m.composite_extract(float, v, &[0]).unwrap();
    let zero_f = s.float_const(0.0);
    let condition = s.m.b.f_ord_less_than(boolean, None, x, zero_f).unwrap();
    let ones = s.uint_const(u32::MAX);
    let zero = s.uint_const(0);
    let mask = s.m.b.select(uint, None, condition, ones, zero).unwrap();
    let test = s.m.b.i_not_equal(boolean, None, mask, zero).unwrap();
    let one = s.float_const(1.0);
    let chosen = s.m.b.select(float, None, test, one, x).unwrap();
    let out =
        s.m.b
            .composite_construct(vec4, None, [chosen, x, x, x])
            .unwrap();
    s.m.store(s.output, out).unwrap();
    let mut module = s.finish();
    optimize(&mut module);
    assert_eq!(count(&module, Op::INotEqual), 0, "{}", text(&module));
    assert_eq!(count(&module, Op::Select), 1, "{}", text(&module));
    assert_valid(&module);
}

/// `select(2 < 3, x, y)` and `select(-1 >=s 0, x, y)` fold to one side, and
/// `select(c, x, x)` to `x`: comparisons of integer constants are boolean constants.
#[test]
fn comparisons_of_constants_and_selects_on_them_fold() {
    let mut s = Shell::new();
    let (float, uint, vec4) = (s.float, s.uint, s.vec4);
    let boolean = s.m.scalar(crate::spirv::module::Scalar::Bool);
    let v = s.m.load(vec4, s.input).unwrap();
    let x = s.m.composite_extract(float, v, &[0]).unwrap();
    let y = s.float_const(7.0);
    let (two, three) = (s.uint_const(2), s.uint_const(3));
    let minus_one = s.uint_const(u32::MAX);
    let zero = s.uint_const(0);
    let less = s.m.b.u_less_than(boolean, None, two, three).unwrap();
    let first = s.m.select(float, None, less, x, y).unwrap();
    let signed =
        s.m.b
            .s_greater_than_equal(boolean, None, minus_one, zero)
            .unwrap();
    let second = s.m.select(float, None, signed, x, y).unwrap();
    let unknown = s.m.b.f_ord_less_than(boolean, None, x, y).unwrap();
    let third = s.m.select(float, None, unknown, first, first).unwrap();
    let _ = uint;
    let out =
        s.m.b
            .composite_construct(vec4, None, [first, second, third, x]);
    let out = out.unwrap();
    s.m.store(s.output, out).unwrap();
    let mut module = s.finish();
    run_pass(&mut module, |m, i, _| {
        simplify::run(m, i, &mut Default::default())
    });
    dce::run(&mut module, &mut Default::default());
    assert_eq!(count(&module, Op::Select), 0, "{}", text(&module));
    assert_eq!(count(&module, Op::ULessThan), 0, "{}", text(&module));
    assert_eq!(
        count(&module, Op::SGreaterThanEqual),
        0,
        "{}",
        text(&module)
    );
    let construct = output_vector(&module);
    assert_eq!(
        construct.operands[..],
        [
            Operand::IdRef(x),
            Operand::IdRef(y),
            Operand::IdRef(x),
            Operand::IdRef(x)
        ],
        "{}",
        text(&module)
    );
    assert_valid(&module);
}

/// `-c` and `|c|` of float constants fold to constants, sign bit flipped or cleared (`|-0|`
/// is +0, `-(-0)` is +0); of a value that is not constant they stay.
#[test]
fn negation_and_absolute_value_of_float_constants_fold() {
    let mut s = Shell::new();
    let (float, vec4) = (s.float, s.vec4);
    let glsl = s.m.glsl();
    let fabs = crate::spirv::operands::glsl::FABS;
    let minus_zero = s.float_const(-0.0);
    let two = s.float_const(2.0);
    let v = s.m.load(vec4, s.input).unwrap();
    let x = s.m.composite_extract(float, v, &[0]).unwrap();
    let abs = |s: &mut Shell, ty, value| {
        s.m.b
            .ext_inst(ty, None, glsl, fabs, [Operand::IdRef(value)])
            .unwrap()
    };
    let abs_zero = abs(&mut s, float, minus_zero);
    let neg_zero = s.m.b.f_negate(float, None, minus_zero).unwrap();
    let neg_two = s.m.b.f_negate(float, None, two).unwrap();
    let abs_x = abs(&mut s, float, x);
    let out =
        s.m.b
            .composite_construct(vec4, None, [abs_zero, neg_zero, neg_two, abs_x])
            .unwrap();
    s.m.store(s.output, out).unwrap();
    let vector = s.m.constant_vector(
        crate::spirv::module::Scalar::F32,
        &[0x8000_0000, 0x3f80_0000, 0xc000_0000, 0],
    );
    let abs_vector = abs(&mut s, vec4, vector);
    s.m.store(s.output, abs_vector).unwrap();
    let module = simplified(s);
    assert_eq!(count(&module, Op::FNegate), 0, "{}", text(&module));
    assert_eq!(count(&module, Op::ExtInst), 1, "{}", text(&module));
    let constant = |bits: u32| {
        module
            .types_global_values
            .iter()
            .find(|i| {
                i.class.opcode == Op::Constant
                    && i.operands[..] == [Operand::LiteralBit32(bits)]
                    && i.result_type() == Some(float)
            })
            .and_then(|i| i.result_id())
            .unwrap_or_else(|| panic!("no float constant 0x{bits:08x}:\n{}", text(&module)))
    };
    let (zero, minus_two, one) = (constant(0), constant(0xc000_0000), constant(0x3f80_0000));
    let construct = output_vector(&module);
    assert_eq!(
        construct.operands[..3],
        [
            Operand::IdRef(zero),
            Operand::IdRef(zero),
            Operand::IdRef(minus_two)
        ],
        "{}",
        text(&module)
    );
    let folded_vector = module.types_global_values.iter().any(|i| {
        i.class.opcode == Op::ConstantComposite
            && i.operands[..]
                == [
                    Operand::IdRef(zero),
                    Operand::IdRef(one),
                    Operand::IdRef(constant(0x4000_0000)),
                    Operand::IdRef(zero),
                ]
    });
    assert!(
        folded_vector,
        "|(-0, 1, -2, 0)| not folded:\n{}",
        text(&module)
    );
    assert_valid(&module);
}
