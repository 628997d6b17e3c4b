//! Registers, operands, control flow, threads and barriers of the reference interpreter.
//!
//! - `plan`: what is worked out once per program (declarations, bindings, jump targets);
//! - `operands`: reading and writing registers (swizzles, masks, modifiers, relative
//!   indices, bounds);
//! - `thread`: one thread's run up to a barrier or its end (control flow, calls, ALU);
//! - `resources`: the memory instructions (loads, stores, atomics, the UAV counter,
//!   `bufinfo`, `resinfo`).
//!
//! Threads of a group run one after another in flattened order, each until it reaches a
//! `sync_*_t` or ends; once every thread has arrived at the barrier (or ended), all of them
//! continue. Groups run in order (x fastest). Threads share the resources and their group's
//! shared memory; since they run one at a time, every access is atomic.

mod operands;
mod plan;
mod resources;
mod shared;
mod thread;

#[cfg(test)]
mod tests;

use super::{error_at, Options, Resources};
use dxbc2spirv::ir::Program;
use dxbc2spirv::Result;
use plan::Plan;
use thread::{Machine, Stop, Thread};

/// D3D11's limit on thread groups per dimension of a dispatch.
const MAX_GROUPS_PER_DIMENSION: u32 = 65535;

/// Runs a compute program (see [`super::dispatch`]).
pub(super) fn dispatch(
    program: &Program,
    resources: &mut Resources,
    groups: [u32; 3],
    options: &Options,
) -> Result<()> {
    let plan = Plan::new(program)?;
    if let Some(&count) = groups.iter().find(|&&n| n > MAX_GROUPS_PER_DIMENSION) {
        return Err(error_at(
            program,
            0,
            format!(
                "a dispatch of {count} thread groups in one dimension (D3D11 allows {MAX_GROUPS_PER_DIMENSION})"
            ),
        )
        .with_kind(dxbc2spirv::ErrorKind::Limit));
    }
    let mut machine = Machine {
        plan: &plan,
        resources,
        tgsm: Vec::new(),
        shared: shared::Record::default(),
        uav_stores: shared::UavRecord::default(),
        options,
    };
    for z in 0..groups[2] {
        for y in 0..groups[1] {
            for x in 0..groups[0] {
                run_group(&mut machine, [x, y, z])?;
            }
        }
    }
    Ok(())
}

/// Runs one thread group to its end, phase by phase between barriers.
fn run_group(machine: &mut Machine<'_, '_>, group: [u32; 3]) -> Result<()> {
    let plan = machine.plan;
    machine.tgsm = plan.fresh_tgsm();
    machine.shared = shared::Record::new(plan.tgsm.iter().map(|t| t.bytes));
    let [sx, sy, sz] = plan.group_size;
    let mut threads = Vec::with_capacity((sx * sy * sz) as usize);
    for z in 0..sz {
        for y in 0..sy {
            for x in 0..sx {
                threads.push(Thread::new(plan, group, [x, y, z]));
            }
        }
    }
    let mut done = vec![false; threads.len()];
    loop {
        // The barrier the threads of this phase stopped at, and which thread reached it first.
        let mut barrier: Option<(usize, usize)> = None;
        for (i, thread) in threads.iter_mut().enumerate() {
            if done[i] {
                continue;
            }
            match machine.run(thread)? {
                Stop::Done => done[i] = true,
                Stop::Barrier(at) => match barrier {
                    None => barrier = Some((at, i)),
                    Some((first, _)) if first == at => {}
                    Some((first, who)) => {
                        return Err(error_at(
                            plan.program,
                            at,
                            format!(
                                "divergent barrier: thread {} of group {:?} waits at the sync of instruction {at}, thread {} at the sync of instruction {first}",
                                threads_id(plan, i),
                                group,
                                threads_id(plan, who),
                            ),
                        ));
                    }
                },
            }
        }
        if barrier.is_none() {
            return Ok(());
        }
        machine.shared.phase += 1;
    }
}

/// The in-group id of the thread with flattened index `i`, as text.
fn threads_id(plan: &Plan<'_>, i: usize) -> String {
    let [sx, sy, _] = plan.group_size;
    let i = i as u32;
    format!("({}, {}, {})", i % sx, i / sx % sy, i / (sx * sy))
}
