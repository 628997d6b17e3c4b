//! Tests of dead-code and dead-declaration removal.

use spirv::{Decoration, Op};

use super::dce;
use super::test_support::{assert_valid, count, text, Shell};

#[test]
fn unused_code_variables_constants_types_and_their_decorations_go() {
    let mut s = Shell::new();
    let (float, vec4) = (s.float, s.vec4);
    let unused_type = s.m.vector(crate::spirv::Scalar::I32, 3);
    let unused_var = s.private(unused_type);
    s.m.decorate(unused_var, Decoration::RelaxedPrecision, &[]);
    let v = s.m.load(vec4, s.input).unwrap();
    let x = s.m.composite_extract(float, v, &[0]).unwrap();
    let two = s.float_const(2.0);
    let dead = s.m.b.f_mul(float, None, x, two).unwrap();
    s.m.b.f_add(float, None, dead, x).unwrap();
    s.m.store(s.output, v).unwrap();
    let mut module = s.finish();
    dce::run(&mut module, &mut Default::default());
    super::test_support::assert_code(&module, &[Op::Load, Op::Store, Op::Return]);
    let left = |op: Op| {
        module
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == op)
            .count()
    };
    assert_eq!(left(Op::Constant), 0, "{}", text(&module));
    // The unused int types (the shell's uint, the ivec3 and its int) are gone.
    assert_eq!(left(Op::TypeInt), 0, "{}", text(&module));
    assert!(
        module.annotations.iter().all(|a| a.operands.len() != 2),
        "{}",
        text(&module)
    );
    assert_eq!(count(&module, Op::FAdd), 0);
    assert_valid(&module);
}

#[test]
fn a_capability_for_a_type_that_went_goes_too() {
    let mut s = Shell::new();
    let vec4 = s.vec4;
    let double = s.m.scalar(crate::spirv::Scalar::F64);
    s.m.capability(spirv::Capability::Float64);
    let _unused = s.private(double);
    let v = s.m.load(vec4, s.input).unwrap();
    s.m.store(s.output, v).unwrap();
    let mut module = s.finish();
    dce::run(&mut module, &mut Default::default());
    let float64 = module.capabilities.iter().any(|i| {
        i.operands.first()
            == Some(&crate::spirv::builder::Operand::Capability(
                spirv::Capability::Float64,
            ))
    });
    assert!(!float64, "{}", text(&module));
    assert_valid(&module);
}
