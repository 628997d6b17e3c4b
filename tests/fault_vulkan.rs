//! On Vulkan (lavapipe): each fault's program (tests/common/fault_cases.rs) gives D3D's
//! results without its fault, with the optimiser on and off, and different results with the
//! module rewritten by the fault ([`dxbc2spirv_testkit::fault`]): the fault is observable, which is
//! what the differential harness's self-check relies on.

use dxbc2spirv::container::ChunkInfo;
use dxbc2spirv::spirv::TargetEnv;
use dxbc2spirv_testkit::fault::Fault;
use spirv::Op;

include!("common/fault_cases.rs");

/// The optimised and the emitted (optimiser off) modules of a case's program, rewritten
/// with `fault` when there is one.
fn modules(case: &Case, fault: Option<Fault>, target: TargetEnv) -> [Vec<u32>; 2] {
    let program = dxbc2spirv::asm::parse_program(case.program)
        .unwrap_or_else(|e| panic!("{}: the program does not assemble: {e}", case.fault));
    [false, true].map(|no_optimize| {
        let mut options = dxbc2spirv::TranslateOptions::default();
        options.debug_names = false;
        options.target = target;
        options.no_optimize = no_optimize;
        let words = dxbc2spirv::translate_program(
            &program,
            &ChunkInfo::default(),
            &options,
            options.mapper(),
        )
        .unwrap_or_else(|e| {
            panic!(
                "{} (optimiser off: {no_optimize}): does not translate: {e}\n{}",
                case.fault, case.program
            )
        });
        match fault {
            None => words,
            Some(fault) => {
                fault
                    .rewrite(&words)
                    .unwrap_or_else(|e| panic!("{fault} on {}'s module: {e}", case.fault))
                    .words
            }
        }
    })
}

/// Each case without and with its fault, on Vulkan.
#[test]
fn each_fault_changes_the_results_on_vulkan() {
    use dxbc2spirv::bindings::UAV_BINDING_BASE;
    use dxbc2spirv_testkit::vulkan::{bytes_to_words, words_to_bytes, Binding, Context, Resource};

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
        for (fault, no_optimize, words) in [None, Some(case.fault)].into_iter().flat_map(|f| {
            let [optimised, emitted] = modules(case, f, TargetEnv::default());
            [(f, false, optimised), (f, true, emitted)]
        }) {
            let at = format!(
                "{} ({}, optimiser off: {no_optimize})",
                case.fault,
                fault.map_or("no fault".to_string(), |f| f.to_string())
            );
            match (fault, run(&words, case)) {
                (_, Err(e)) => problems.push(format!("{at}: {e}\n{}", case.program)),
                (None, Ok(got)) if got != want => problems.push(format!(
                    "{at}: the program without a fault: expected {want:x?}, got {got:x?}\n{}",
                    case.program
                )),
                (Some(_), Ok(got)) if got == want => problems.push(format!(
                    "{at}: the results are D3D's, the fault is not observable: {got:x?}\n{}",
                    case.program
                )),
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
