//! Tests of store-to-load forwarding and dead-store removal.

use spirv::{Op, StorageClass};

use super::test_support::{assert_valid, count, run_pass, text, Shell};
use super::{dce, dead_stores, forward};

/// `t = input.x; output = (t, t, t, t)` with two loads of `t`, optionally across a block
/// boundary.
fn temp_round_trip(split: bool) -> crate::spirv::builder::Module {
    let mut s = Shell::new();
    let t = s.private(s.float);
    let v = s.m.load(s.vec4, s.input).unwrap();
    let x = s.m.composite_extract(s.float, v, &[0]).unwrap();
    s.m.store(t, x).unwrap();
    if split {
        s.next_block();
    }
    let a = s.m.load(s.float, t).unwrap();
    let b = s.m.load(s.float, t).unwrap();
    let vec4 = s.vec4;
    let out = s.m.b.composite_construct(vec4, None, [a, b, a, b]).unwrap();
    s.m.store(s.output, out).unwrap();
    s.finish()
}

#[test]
fn a_load_after_a_store_in_the_block_takes_the_stored_value() {
    let mut module = temp_round_trip(false);
    run_pass(&mut module, |m, i, p| forward::run(m, i, p));
    assert_eq!(count(&module, Op::Load), 1, "{}", text(&module));
    assert_valid(&module);
    // The temp is now only stored: the store and the variable go.
    run_pass(&mut module, |m, _, p| dead_stores::run(m, p));
    dce::run(&mut module, &mut Default::default());
    assert_eq!(count(&module, Op::Store), 1, "{}", text(&module));
    let words = crate::spirv::builder::assemble(&module);
    let read = rspirv::dr::load_words(&words).expect("rspirv reads the module");
    let privates = crate::spirv::test_support::global_variables(&read, StorageClass::Private);
    assert_eq!(privates, 0, "{}", text(&module));
    assert_valid(&module);
}

#[test]
fn a_new_block_forgets_stored_values_but_repeated_loads_are_one() {
    let mut module = temp_round_trip(true);
    run_pass(&mut module, |m, i, p| forward::run(m, i, p));
    // The input load and one load of the temp in the second block.
    assert_eq!(count(&module, Op::Load), 2, "{}", text(&module));
    run_pass(&mut module, |m, _, p| dead_stores::run(m, p));
    assert_eq!(count(&module, Op::Store), 2, "{}", text(&module));
    assert_valid(&module);
}

#[test]
fn a_store_overwritten_in_the_block_goes_but_one_read_before_stays() {
    let mut s = Shell::new();
    let t = s.private(s.float);
    let one = s.float_const(1.0);
    let two = s.float_const(2.0);
    s.m.store(t, one).unwrap();
    s.m.store(t, two).unwrap();
    s.next_block();
    let read = s.m.load(s.float, t).unwrap();
    s.m.store(t, one).unwrap();
    s.m.store(t, read).unwrap();
    let vec4 = s.vec4;
    let v = s.m.load(s.float, t).unwrap();
    let out = s.m.b.composite_construct(vec4, None, [v, v, v, v]).unwrap();
    s.m.store(s.output, out).unwrap();
    let mut module = s.finish();
    run_pass(&mut module, |m, _, p| dead_stores::run(m, p));
    // First block: only `t = 2`; second: only `t = read` and the output.
    assert_eq!(count(&module, Op::Store), 3, "{}", text(&module));
    assert_valid(&module);
}

#[test]
fn a_decorated_load_keeps_its_result_and_decoration() {
    let mut s = Shell::new();
    let t = s.private(s.float);
    let v = s.m.load(s.vec4, s.input).unwrap();
    let x = s.m.composite_extract(s.float, v, &[0]).unwrap();
    s.m.store(t, x).unwrap();
    let decorated = s.m.load(s.float, t).unwrap();
    s.m.decorate(decorated, spirv::Decoration::RelaxedPrecision, &[]);
    let vec4 = s.vec4;
    let out =
        s.m.b
            .composite_construct(vec4, None, [decorated, x, x, x])
            .unwrap();
    s.m.store(s.output, out).unwrap();
    let mut module = s.finish();
    super::optimize(&mut module);
    let kept = super::test_support::code(&module).contains(&Op::Load)
        && module.annotations.iter().any(
            |a| matches!(a.operands.first(), Some(crate::spirv::builder::Operand::IdRef(id)) if *id == decorated),
        );
    assert!(kept, "{}", text(&module));
    assert_valid(&module);
}
