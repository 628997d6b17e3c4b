//! Tests of the fault injection ([`super::fault`]): for each fault, a small compute program
//! whose module changes with the fault, with the optimiser on and off, and stays valid
//! (spirv-val); the changes a fault must make to the module's instructions; faults leave the
//! programs they do not target unchanged, and `None` is the default; on Vulkan (lavapipe),
//! each program gives D3D's results without a fault and different results with it.

use rspirv::dr::Module;
use spirv::Op;

use super::test_support::{disassemble, validate_for};
use super::{Fault, Options, TargetEnv};
use crate::container::Reflection;

/// One fault's program: its code, the UAVs it runs on, and what D3D gives.
struct Case {
    /// The fault the program exposes.
    fault: Fault,
    /// The whole program (assembly text).
    program: &'static str,
    /// The initial contents of `u0`, `u1`, … (raw or structured UAVs).
    uavs: &'static [&'static [u32]],
    /// The contents of the UAVs after the dispatch, by D3D's rules.
    expected: &'static [&'static [u32]],
    /// Opcodes the fault removes from the module (present without it, absent with it).
    gone: &'static [Op],
    /// Opcodes the fault brings into the module (absent without it, present with it).
    new: &'static [Op],
}

const ONE_F32: u32 = 0x3f80_0000;
const ONE_F64_HIGH: u32 = 0x3ff0_0000;
const TWO_F64_HIGH: u32 = 0x4000_0000;
const FOUR_F64_HIGH: u32 = 0x4010_0000;

/// The results of the `lost-barrier` program: thread `i` reads `100 + (i + 1) % 64` and
/// `200 + (i + 1) % 64`.
const NEIGHBOURS: [u32; 128] = {
    let mut values = [0; 128];
    let mut i = 0;
    while i < 64 {
        let next = (i as u32 + 1) % 64;
        values[2 * i] = 100 + next;
        values[2 * i + 1] = 200 + next;
        i += 1;
    }
    values
};

const CASES: &[Case] = &[
    Case {
        fault: Fault::SwappedOperands,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xy, l(0), u0.xyxx
ishl r1.x, r0.x, r0.y
ishr r1.y, r0.x, r0.y
ushr r1.z, r0.x, r0.y
store_raw u0.xyz, l(8), r1.xyzx
ret
",
        // -16 and 2: ishl -64, ishr -4, ushr 0x3ffffffc (swapped: 2 << 16, 2 >> 16, 2 >> 16).
        uavs: &[&[0xffff_fff0, 2, 0, 0, 0]],
        expected: &[&[0xffff_fff0, 2, 0xffff_ffc0, 0xffff_fffc, 0x3fff_fffc]],
        gone: &[],
        new: &[],
    },
    Case {
        fault: Fault::WrongComparison,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xy, l(0), u0.xyxx
ilt r1.x, r0.x, r0.y
lt r1.y, r0.x, r0.y
store_raw u0.xy, l(8), r1.xyxx
ret
",
        // Equal sources (5 and 5.0f as bits): not less.
        uavs: &[&[5, 5, 9, 9]],
        expected: &[&[5, 5, 0, 0]],
        gone: &[Op::SLessThan, Op::FOrdLessThan],
        new: &[Op::SGreaterThanEqual, Op::FOrdGreaterThanEqual],
    },
    Case {
        fault: Fault::DroppedSaturate,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xyzw, l(0), u0.xyzw
mul_sat r1.x, r0.x, l(2.0)
dadd_sat r1.zw, r0.zwzw, r0.zwzw
store_raw u0.x, l(16), r1.x
store_raw u0.xy, l(20), r1.zwzz
ret
",
        // 1.0f * 2 saturates to 1.0f; 1.0 + 1.0 saturates to 1.0.
        uavs: &[&[ONE_F32, 0, 0, ONE_F64_HIGH, 0, 0, 0]],
        expected: &[&[ONE_F32, 0, 0, ONE_F64_HIGH, ONE_F32, 0, ONE_F64_HIGH]],
        gone: &[Op::FOrdGreaterThan],
        new: &[],
    },
    Case {
        fault: Fault::LoopExitOffByOne,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 1, 1, 1
ld_raw r2.x, l(0), u0.xxxx
mov r0.x, l(0)
loop
  uge r0.y, r0.x, r2.x
  breakc_nz r0.y
  iadd r0.x, r0.x, l(1)
endloop
mov r1.x, l(0)
loop
  iadd r1.x, r1.x, l(1)
  uge r1.y, r1.x, r2.x
  if_nz r1.y
    break
  endif
endloop
store_raw u0.xy, l(4), r0.xxxx
store_raw u0.x, l(8), r1.x
mov r0.z, l(0)
loop
  uge r0.w, r0.z, r2.x
  breakc_nz r0.w
  switch r0.z
    case l(1)
      iadd r0.z, r0.z, l(1)
      break
    default
      iadd r0.z, r0.z, l(1)
      break
  endswitch
endloop
store_raw u0.x, l(12), r0.z
ret
",
        // Three iterations each (a `break` out of a `switch` is no loop exit); with the fault
        // the loops run once more.
        uavs: &[&[3, 0, 0, 0]],
        expected: &[&[3, 3, 3, 3]],
        gone: &[],
        new: &[],
    },
    Case {
        fault: Fault::LostBarrier,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_structured u0, 8
dcl_tgsm_structured g0, 4, 64
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 64, 1, 1
iadd r0.x, vThreadIDInGroupFlattened.x, l(1)
and r0.x, r0.x, l(63)
iadd r1.x, vThreadIDInGroupFlattened.x, l(100)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
sync_g_t
ld_structured r0.y, r0.x, l(0), g0.xxxx
sync_g_t
iadd r1.x, vThreadIDInGroupFlattened.x, l(200)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
sync_g_t
ld_structured r0.z, r0.x, l(0), g0.xxxx
store_structured u0.xy, vThreadIDInGroupFlattened.x, l(0), r0.yzyy
ret
",
        // Each thread reads its neighbour's values: (101, 201), (102, 202), …, (100, 200).
        uavs: &[&[0; 128]],
        expected: &[&NEIGHBOURS],
        gone: &[Op::ControlBarrier],
        new: &[],
    },
    Case {
        fault: Fault::OutOfBoundsWriteLands,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_uav_structured u1, 8
dcl_temps 1
dcl_thread_group 1, 1, 1
ld_raw r0.x, l(0), u0.xxxx
store_raw u0.xy, r0.x, l(7, 8, 0, 0)
store_structured u1.xy, l(1), l(4), l(5, 6, 0, 0)
store_structured u1.x, l(0), l(0), l(9)
ret
",
        // u0: bytes 12..20 of 16, the first dword lands and the second is dropped; u1: one
        // structure, index 1 is past the end.
        uavs: &[&[12, 1, 2, 3], &[0, 0]],
        expected: &[&[12, 1, 2, 7], &[9, 0]],
        gone: &[],
        new: &[],
    },
    Case {
        fault: Fault::WrongAtomicOp,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
atomic_iadd u0, l(0), l(3)
imm_atomic_iadd r0.x, u0, l(4), l(5)
store_raw u0.x, l(8), r0.x
ret
",
        uavs: &[&[1, 6, 0]],
        expected: &[&[4, 11, 6]],
        gone: &[Op::AtomicIAdd],
        new: &[Op::AtomicXor],
    },
    Case {
        fault: Fault::WrongDoubleLane,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xyzw, l(0), u0.xyzw
dadd r1.xyzw, r0.xyzw, r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
ret
",
        // (1.0, 2.0) + (1.0, 2.0) = (2.0, 4.0).
        uavs: &[&[0, ONE_F64_HIGH, 0, TWO_F64_HIGH, 0, 0, 0, 0]],
        expected: &[&[
            0,
            ONE_F64_HIGH,
            0,
            TWO_F64_HIGH,
            0,
            TWO_F64_HIGH,
            0,
            FOUR_F64_HIGH,
        ]],
        gone: &[],
        new: &[],
    },
    Case {
        fault: Fault::UnclampedFtoi,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xyz, l(0), u0.xyzx
ftoi r1.x, r0.x
ftou r1.y, r0.y
ftoi r1.z, r0.z
store_raw u0.xyz, l(12), r1.xyzx
ret
",
        // 3e9 saturates to 0x7fffffff, -1.0 to 0 (ftou), NaN gives 0.
        uavs: &[&[0x4f32_d05e, 0xbf80_0000, 0x7fc0_0000, 0, 0, 0]],
        expected: &[&[0x4f32_d05e, 0xbf80_0000, 0x7fc0_0000, 0x7fff_ffff, 0, 0]],
        gone: &[Op::IsNan],
        new: &[],
    },
];

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
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == op)
        .count()
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

/// On Vulkan (lavapipe): each program gives D3D's results without a fault (optimiser on
/// and off) and different results with its fault: the fault is observable, which is what
/// the differential harness's self-check relies on.
#[cfg(feature = "vulkan")]
#[test]
fn each_fault_changes_the_results_on_vulkan() {
    use crate::bindings::UAV_BINDING_BASE;
    use crate::vulkan::{bytes_to_words, words_to_bytes, Binding, Context, Resource};

    let ctx = Context::new().unwrap_or_else(|e| {
        panic!(
            "Vulkan could not be initialised: {e}\nTo fix: install the Vulkan loader and \
             lavapipe (`apt-get install -y libvulkan1 && apt-get install -y -t \
             bookworm-backports mesa-vulkan-drivers`)"
        )
    });
    let run = |words: &[u32], case: &Case| -> Result<Vec<Vec<u32>>, String> {
        let mut bindings: Vec<Binding> = case
            .uavs
            .iter()
            .enumerate()
            .map(|(i, data)| {
                Binding::new(
                    0,
                    UAV_BINDING_BASE + i as u32,
                    Resource::StorageBuffer(words_to_bytes(data)),
                )
            })
            .collect();
        ctx.dispatch(words, &mut bindings, [1, 1, 1])
            .map_err(|e| e.to_string())?;
        Ok(bindings
            .iter()
            .map(|b| bytes_to_words(b.resource.data()))
            .collect())
    };
    let expected =
        |case: &Case| -> Vec<Vec<u32>> { case.expected.iter().map(|data| data.to_vec()).collect() };
    let mut problems = Vec::new();
    for case in CASES {
        let want = expected(case);
        for (fault, words) in [None, Some(case.fault)]
            .into_iter()
            .flat_map(|f| modules(case, f, TargetEnv::default()).map(|w| (f, w)))
        {
            match (fault, run(&words, case)) {
                (_, Err(e)) => problems.push(format!("{} ({fault:?}): {e}", case.fault)),
                (None, Ok(got)) if got != want => problems.push(format!(
                    "{}'s program without a fault: expected {want:x?}, got {got:x?}",
                    case.fault
                )),
                (Some(_), Ok(got)) if got == want => problems.push(format!(
                    "{}: the results are D3D's, the fault is not observable: {got:x?}",
                    case.fault
                )),
                _ => {}
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
                            if let Err(e) = super::spirv_val(&words, target) {
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
