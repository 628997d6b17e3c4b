//! Tests of the fault injection ([`super::fault`]): for each fault, a small compute program
//! whose module changes with the fault, with the optimiser on and off, and stays valid
//! (spirv-val); the changes a fault must make to the module's instructions; faults leave the
//! programs they do not target unchanged, and `None` is the default. tests/fault_vulkan.rs
//! runs the same programs on Vulkan.

use rspirv::dr::Module;
use spirv::Op;

use super::test_support::{count_op, disassemble, validate_for};
use super::{Fault, Options, TargetEnv};
use crate::container::Reflection;

// `Case` and `CASES`: shared with the Vulkan test (tests/fault_vulkan.rs).
include!("fault_cases.rs");

/// The optimised and the emitted (optimiser off) modules of a program, each checked by
/// spirv-val for `target`.
fn modules(case: &Case, fault: Option<Fault>, target: TargetEnv) -> [Vec<u32>; 2] {
    let program = crate::asm::parse_program(case.program)
        .unwrap_or_else(|e| panic!("{}: the program does not assemble: {e}", case.fault));
    [false, true].map(|no_optimize| {
        let options = Options {
            target,
            no_optimize,
            fault,
            ..Options::default()
        };
        let words =
            super::translate(&program, &Reflection::default(), &options).unwrap_or_else(|e| {
                panic!(
                    "{} (fault {fault:?}, optimiser off: {no_optimize}): does not translate: \
                     {e}\n{}",
                    case.fault, case.program
                )
            });
        validate_for(&words, target.name());
        words
    })
}

/// How many instructions of `op` the module's functions hold.
fn count(words: &[u32], op: Op) -> usize {
    let module: Module = rspirv::dr::load_words(words).expect("rspirv parses the module");
    count_op(&module, op)
}

/// The problems of one fault's modules: each must differ from the correct module (optimiser
/// on and off), lose the opcodes in `gone` and gain those in `new`.
fn fault_changes_the_module(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    for target in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let correct = modules(case, None, target);
        let faulty = modules(case, Some(case.fault), target);
        for (stage, (good, bad)) in ["optimised", "emitted"]
            .iter()
            .zip(correct.iter().zip(&faulty))
        {
            let at = format!("{} ({stage}, {})", case.fault, target.name());
            if good == bad {
                problems.push(format!(
                    "{at}: the module is unchanged\n{}",
                    disassemble(bad)
                ));
                continue;
            }
            for &op in case.gone {
                let (before, after) = (count(good, op), count(bad, op));
                if before == 0 || after != 0 {
                    problems.push(format!(
                        "{at}: Op{op:?} should be there without the fault and gone with it: \
                         {before} before, {after} after\n{}",
                        disassemble(bad)
                    ));
                }
            }
            for &op in case.new {
                let (before, after) = (count(good, op), count(bad, op));
                if after <= before {
                    problems.push(format!(
                        "{at}: the fault should add Op{op:?}: {before} before, {after} after\n{}",
                        disassemble(bad)
                    ));
                }
            }
        }
    }
    problems
}

fn check_fault(fault: Fault) {
    let case = CASES
        .iter()
        .find(|c| c.fault == fault)
        .unwrap_or_else(|| panic!("no test program for {fault}"));
    let problems = fault_changes_the_module(case);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn swapped_operands_changes_the_module() {
    check_fault(Fault::SwappedOperands);
}

#[test]
fn wrong_comparison_changes_the_module() {
    check_fault(Fault::WrongComparison);
}

#[test]
fn dropped_saturate_changes_the_module() {
    check_fault(Fault::DroppedSaturate);
}

#[test]
fn loop_exit_off_by_one_changes_the_module() {
    check_fault(Fault::LoopExitOffByOne);
}

#[test]
fn lost_barrier_changes_the_module() {
    check_fault(Fault::LostBarrier);
}

#[test]
fn out_of_bounds_write_lands_changes_the_module() {
    check_fault(Fault::OutOfBoundsWriteLands);
}

#[test]
fn wrong_atomic_op_changes_the_module() {
    check_fault(Fault::WrongAtomicOp);
}

#[test]
fn wrong_double_lane_changes_the_module() {
    check_fault(Fault::WrongDoubleLane);
}

#[test]
fn unclamped_ftoi_changes_the_module() {
    check_fault(Fault::UnclampedFtoi);
}

/// Every fault has a test program, and names round-trip.
#[test]
fn every_fault_has_a_program_and_a_name() {
    for fault in Fault::ALL {
        assert!(
            CASES.iter().any(|c| c.fault == fault),
            "{fault}: no test program"
        );
        assert_eq!(Fault::from_name(fault.name()), Some(fault), "{fault:?}");
        assert!(!fault.description().is_empty(), "{fault:?}");
    }
    assert_eq!(Fault::from_name("swapped-shift"), None);
    assert_eq!(Fault::from_name(""), None);
}

/// `None` is the default and changes nothing: every program's module is the same with
/// `fault: None` as with the default options, and a fault leaves the programs without a
/// site of it ([`Fault::applies_to`]) unchanged. Each program is a site of its own fault
/// and, as every program stores its results to a raw UAV, of `out-of-bounds-write-lands`;
/// of no other.
#[test]
fn no_fault_changes_nothing() {
    assert_eq!(Options::default().fault, None);
    let mut problems = Vec::new();
    for case in CASES {
        let target = TargetEnv::default();
        let none = modules(case, None, target);
        let program = crate::asm::parse_program(case.program).expect("assembles");
        let default = super::translate(&program, &Reflection::default(), &Options::default())
            .expect("translates");
        if default != none[0] {
            problems.push(format!(
                "{}: fault None differs from the default",
                case.fault
            ));
        }
        for other in Fault::ALL {
            let site = other == case.fault || other == Fault::OutOfBoundsWriteLands;
            if other.applies_to(&program) != site {
                problems.push(format!(
                    "{}'s program: applies_to({other}) should be {site}",
                    case.fault
                ));
            }
            if site {
                continue;
            }
            if modules(case, Some(other), target) != none {
                problems.push(format!(
                    "{}'s program: fault {other} changes it, though it has no {other} site",
                    case.fault
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// [`Fault::applies_to`] on programs with and without a site: a `break` out of a `switch`
/// is no loop exit, `sync` without `_t` no barrier, a `g#` store no UAV store, a one-lane
/// double instruction no second double.
#[test]
fn applies_to_finds_the_sites_only() {
    let cs = |body: &str| {
        let text = format!(
            "cs_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
             dcl_uav_raw u0\ndcl_tgsm_raw g0, 16\ndcl_temps 4\ndcl_thread_group 1, 1, 1\n\
             {body}\nret\n"
        );
        crate::asm::parse_program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    let cases: &[(Fault, &str, bool)] = &[
        (Fault::LoopExitOffByOne, "loop\nbreak\nendloop", true),
        (
            Fault::LoopExitOffByOne,
            "loop\nswitch r0.x\ndefault\nbreak\nendswitch\nendloop",
            false,
        ),
        (
            Fault::LoopExitOffByOne,
            "loop\nswitch r0.x\ndefault\nbreak\nendswitch\nbreakc_nz r0.y\nendloop",
            true,
        ),
        (
            Fault::LoopExitOffByOne,
            "switch r0.x\ndefault\nloop\nbreak\nendloop\nbreak\nendswitch",
            true,
        ),
        (Fault::LostBarrier, "sync_g", false),
        (Fault::LostBarrier, "sync_g_t", true),
        (
            Fault::OutOfBoundsWriteLands,
            "store_raw g0.x, l(0), l(1)",
            false,
        ),
        (
            Fault::OutOfBoundsWriteLands,
            "store_raw u0.x, l(0), l(1)",
            true,
        ),
        (
            Fault::WrongDoubleLane,
            "dadd r0.zw, r1.xyxy, r1.xyxy",
            false,
        ),
        (
            Fault::WrongDoubleLane,
            "dadd r0.xyzw, r1.xyxy, r1.xyxy",
            false,
        ),
        (
            Fault::WrongDoubleLane,
            "dadd r0.xyzw, r1.xyzw, r1.xyxy",
            true,
        ),
        (Fault::WrongDoubleLane, "ftod r0.xyzw, r1.xy", false),
        (Fault::DroppedSaturate, "add r0.x, r1.x, r1.y", false),
        (Fault::DroppedSaturate, "add_sat r0.x, r1.x, r1.y", true),
        (Fault::WrongComparison, "ige r0.x, r1.x, r1.y", false),
        (Fault::WrongAtomicOp, "atomic_or u0, l(0), l(1)", false),
        (Fault::UnclampedFtoi, "itof r0.x, r1.x", false),
        (Fault::SwappedOperands, "iadd r0.x, r1.x, r1.y", false),
    ];
    let mut problems = Vec::new();
    for &(fault, body, want) in cases {
        let program = cs(body);
        if fault.applies_to(&program) != want {
            problems.push(format!("{fault} on `{body}`: expected {want}"));
        }
        // Where there is no site, the module is the correct one.
        if !want {
            let translate = |fault| {
                let options = Options {
                    fault,
                    ..Options::default()
                };
                super::translate(&program, &Reflection::default(), &options)
                    .unwrap_or_else(|e| panic!("{body}: {e}"))
            };
            if translate(Some(fault)) != translate(None) {
                problems.push(format!("{fault} changes `{body}`, which has no site of it"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every fault on every instruction-family input of the snapshot tests (`tests/in/*.asm`,
/// all stages): a program with a site of the fault translates to a module spirv-val
/// accepts (optimiser on and off, Vulkan 1.1 and 1.3); a program without one keeps its
/// module.
#[test]
fn every_fault_keeps_the_snapshot_inputs_valid() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/in");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 30,
        "expected the inputs in {}",
        dir.display()
    );
    let mut sites = 0;
    let mut problems = Vec::new();
    let mut skipped = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable");
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let Ok(program) = crate::asm::parse_program(&text) else {
            problems.push(format!("{name}: does not assemble"));
            continue;
        };
        let translate = |fault, target, no_optimize| {
            let options = Options {
                target,
                no_optimize,
                fault,
                ..Options::default()
            };
            super::translate(&program, &Reflection::default(), &options)
        };
        let correct = match translate(None, TargetEnv::default(), false) {
            Ok(words) => words,
            // Inputs that need a stream-output layout or other options are left out.
            Err(e) => {
                skipped.push(format!("{name}: {e}"));
                continue;
            }
        };
        for fault in Fault::ALL {
            if !fault.applies_to(&program) {
                match translate(Some(fault), TargetEnv::default(), false) {
                    Ok(words) if words == correct => {}
                    _ => problems.push(format!("{name}: {fault} changes it without a site")),
                }
                continue;
            }
            sites += 1;
            for target in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
                for no_optimize in [false, true] {
                    match translate(Some(fault), target, no_optimize) {
                        Ok(words) => {
                            if let Err(e) = dxbc2spirv_testkit::spirv_val(&words, target.name()) {
                                problems.push(format!(
                                    "{name} with {fault} ({}, optimiser off: {no_optimize}): \
                                     {e}",
                                    target.name()
                                ));
                            }
                        }
                        Err(e) => problems.push(format!("{name} with {fault}: {e}")),
                    }
                }
            }
        }
    }
    assert!(
        sites >= 30,
        "only {sites} (program, fault) sites in tests/in"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
