//! On Vulkan (lavapipe): each fault-injection program (src/spirv/fault_cases.rs) gives D3D's
//! results without its fault, with the optimiser on and off, and different results with it:
//! the fault is observable, which is what the differential harness's self-check relies on.

use dxbc2spirv::container::Reflection;
use dxbc2spirv::spirv::{Fault, Options, TargetEnv};
use spirv::Op;

include!("../src/spirv/fault_cases.rs");

/// The optimised and the emitted (optimiser off) modules of a case's program.
fn modules(case: &Case, fault: Option<Fault>, target: TargetEnv) -> [Vec<u32>; 2] {
    let program = dxbc2spirv::asm::parse_program(case.program)
        .unwrap_or_else(|e| panic!("{}: the program does not assemble: {e}", case.fault));
    [false, true].map(|no_optimize| {
        let options = Options {
            target,
            no_optimize,
            fault,
            ..Options::default()
        };
        dxbc2spirv::spirv::translate(&program, &Reflection::default(), &options).unwrap_or_else(
            |e| {
                panic!(
                    "{} (fault {fault:?}, optimiser off: {no_optimize}): does not translate: \
                     {e}\n{}",
                    case.fault, case.program
                )
            },
        )
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
