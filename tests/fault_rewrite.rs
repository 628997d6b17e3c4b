//! The test kit's faults ([`dxbc2spirv_testkit::fault`]) as rewrites of finished modules:
//! each fault's program (tests/common/fault_cases.rs, run on Vulkan by
//! tests/fault_vulkan.rs) has its module changed, with the optimiser on and off, into one
//! spirv-val accepts, losing and gaining the opcodes the case names; a module without a site
//! of a fault comes back unchanged; every fault on every snapshot input (tests/in) keeps the
//! module valid.
//!
//! Needs spirv-val on PATH.

use dxbc2spirv::container::ChunkInfo;
use dxbc2spirv::spirv::TargetEnv;
use dxbc2spirv_testkit::fault::Fault;
use rspirv::binary::Disassemble;
use spirv::Op;

include!("common/fault_cases.rs");

/// A module's disassembly (for failure messages).
fn disassemble(words: &[u32]) -> String {
    match rspirv::dr::load_words(words) {
        Ok(module) => module.disassemble(),
        Err(e) => format!("(the module does not parse: {e})"),
    }
}

/// How many instructions of `op` the module's functions hold.
fn count(words: &[u32], op: Op) -> usize {
    let module = rspirv::dr::load_words(words).expect("rspirv parses the module");
    module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == op)
        .count()
}

/// The translation of assembly text.
fn translate(text: &str, target: TargetEnv, no_optimize: bool) -> Result<Vec<u32>, String> {
    let program = dxbc2spirv::asm::parse_program(text).map_err(|e| e.to_string())?;
    let mut options = dxbc2spirv::TranslateOptions::default();
    options.debug_names = false;
    options.target = target;
    options.no_optimize = no_optimize;
    dxbc2spirv::translate_program(&program, &ChunkInfo::default(), &options, options.mapper())
        .map_err(|e| e.to_string())
}

/// The problems of one fault's modules: each must change (optimiser on and off, Vulkan 1.1
/// and 1.3), stay valid, lose the opcodes in `gone` and gain those in `new`.
fn fault_changes_the_module(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    for target in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        for no_optimize in [false, true] {
            let at = format!(
                "{} ({}, optimiser off: {no_optimize})",
                case.fault,
                target.name()
            );
            let good = translate(case.program, target, no_optimize)
                .unwrap_or_else(|e| panic!("{at}: does not translate: {e}\n{}", case.program));
            let rewritten = match case.fault.rewrite(&good) {
                Ok(r) => r,
                Err(e) => {
                    problems.push(format!("{at}: {e}"));
                    continue;
                }
            };
            let bad = &rewritten.words;
            if !rewritten.changed() || *bad == good {
                problems.push(format!(
                    "{at}: the module is unchanged ({} sites)\n{}\n{}",
                    rewritten.sites,
                    case.program,
                    disassemble(bad)
                ));
                continue;
            }
            if let Err(e) = dxbc2spirv_testkit::spirv_val(bad, target.name()) {
                problems.push(format!("{at}: {e}\n{}\n{}", case.program, disassemble(bad)));
            }
            for &op in case.gone {
                let (before, after) = (count(&good, op), count(bad, op));
                if before == 0 || after != 0 {
                    problems.push(format!(
                        "{at}: Op{op:?} should be there without the fault and gone with it: \
                         expected {before} before and 0 after, got {after} after\n{}\n{}",
                        case.program,
                        disassemble(bad)
                    ));
                }
            }
            for &op in case.new {
                let (before, after) = (count(&good, op), count(bad, op));
                if after <= before {
                    problems.push(format!(
                        "{at}: the fault should add Op{op:?}: expected more than {before}, \
                         got {after}\n{}\n{}",
                        case.program,
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
fn swapped_double_halves_changes_the_module() {
    check_fault(Fault::SwappedDoubleHalves);
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

/// Programs without a site of a fault keep their module word for word, with no sites
/// counted: a `break` out of a `switch` is no loop exit, `sync` without `_t` no barrier, a
/// `g#` store no guarded UAV store, a load no store; the programs with one change.
#[test]
fn no_site_no_change() {
    let cs = |body: &str| {
        format!(
            "cs_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
             dcl_uav_raw u0\ndcl_tgsm_raw g0, 16\ndcl_temps 4\ndcl_thread_group 1, 1, 1\n\
             {body}\nret\n"
        )
    };
    let cases: &[(Fault, &str, bool)] = &[
        // A `break` outside any `if` has no code after it to run on: no site.
        (Fault::LoopExitOffByOne, "loop\nbreak\nendloop", false),
        (
            Fault::LoopExitOffByOne,
            "ld_raw r0.x, l(0), u0.xxxx\nloop\nif_nz r0.x\nbreak\nendif\niadd r0.x, r0.x, l(1)\n\
             endloop\nstore_raw u0.x, l(0), r0.x",
            true,
        ),
        (
            Fault::LoopExitOffByOne,
            "ld_raw r0.x, l(0), u0.xxxx\nloop\nswitch r0.x\ndefault\nbreak\nendswitch\nendloop",
            false,
        ),
        (
            Fault::LoopExitOffByOne,
            "ld_raw r0.xy, l(0), u0.xyxx\nloop\nswitch r0.x\ndefault\nbreak\nendswitch\n\
             breakc_nz r0.y\nendloop",
            true,
        ),
        (Fault::LostBarrier, "sync_g", false),
        (Fault::LostBarrier, "sync_g_t", true),
        (
            Fault::OutOfBoundsWriteLands,
            "ld_raw r0.x, l(0), u0.xxxx\nstore_raw g0.x, l(0), r0.x",
            false,
        ),
        (
            Fault::OutOfBoundsWriteLands,
            "ld_raw r0.x, l(0), u0.xxxx\nstore_raw u0.x, r0.x, l(1)",
            true,
        ),
        (
            Fault::SwappedDoubleHalves,
            "ld_raw r0.xy, l(0), u0.xyxx\nftod r1.xy, r0.x\nstore_raw u0.xy, l(0), r1.xyxx",
            false,
        ),
        (
            Fault::SwappedDoubleHalves,
            "ld_raw r0.xy, l(0), u0.xyxx\ndadd r1.xy, r0.xyxy, r0.xyxy\n\
             store_raw u0.xy, l(0), r1.xyxx",
            true,
        ),
        (
            Fault::DroppedSaturate,
            "ld_raw r0.xy, l(0), u0.xyxx\nadd r1.x, r0.x, r0.y\nstore_raw u0.x, l(0), r1.x",
            false,
        ),
        (
            Fault::DroppedSaturate,
            "ld_raw r0.xy, l(0), u0.xyxx\nadd_sat r1.x, r0.x, r0.y\nstore_raw u0.x, l(0), r1.x",
            true,
        ),
        (
            Fault::WrongComparison,
            "ld_raw r0.xy, l(0), u0.xyxx\nige r1.x, r0.x, r0.y\nstore_raw u0.x, l(0), r1.x",
            false,
        ),
        (Fault::WrongAtomicOp, "atomic_or u0, l(0), l(1)", false),
        (
            Fault::UnclampedFtoi,
            "ld_raw r0.x, l(0), u0.xxxx\nitof r1.x, r0.x\nstore_raw u0.x, l(0), r1.x",
            false,
        ),
        // Raw and structured addresses are shifted too (a site): no memory here.
        (Fault::SwappedOperands, "iadd r1.x, r0.x, r0.y", false),
    ];
    let mut problems = Vec::new();
    for &(fault, body, want) in cases {
        let text = cs(body);
        for no_optimize in [false, true] {
            let words = translate(&text, TargetEnv::default(), no_optimize)
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            let rewritten = fault
                .rewrite(&words)
                .unwrap_or_else(|e| panic!("{fault}: {e}\n{text}"));
            let at = format!("{fault} on `{body}` (optimiser off: {no_optimize})");
            if rewritten.changed() != want {
                problems.push(format!(
                    "{at}: expected changed() {want}, got {} ({} sites)\n{text}\n{}",
                    rewritten.changed(),
                    rewritten.sites,
                    disassemble(&words)
                ));
            }
            if !rewritten.changed() && rewritten.words != words {
                problems.push(format!("{at}: no sites, but the words differ"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every fault on every snapshot input (`tests/in/*.asm`, all stages): a module with a site
/// of the fault is rewritten into one spirv-val accepts (optimiser on and off, Vulkan 1.1
/// and 1.3).
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
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable");
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        for target in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            for no_optimize in [false, true] {
                // Inputs that need a stream-output layout or other options are left out.
                let Ok(words) = translate(&text, target, no_optimize) else {
                    continue;
                };
                for fault in Fault::ALL {
                    let at = format!(
                        "{name} with {fault} ({}, optimiser off: {no_optimize})",
                        target.name()
                    );
                    let rewritten = match fault.rewrite(&words) {
                        Ok(r) => r,
                        Err(e) => {
                            problems.push(format!("{at}: {e}"));
                            continue;
                        }
                    };
                    if !rewritten.changed() {
                        continue;
                    }
                    sites += 1;
                    if let Err(e) = dxbc2spirv_testkit::spirv_val(&rewritten.words, target.name()) {
                        problems.push(format!("{at}: {e}\n{text}"));
                    }
                }
            }
        }
    }
    assert!(
        sites >= 60,
        "only {sites} (program, fault, options) sites in tests/in"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
