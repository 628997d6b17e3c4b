//! Dead stores: a store to a temp variable (see [`super::info::plain_variables`]) that a later store of
//! the same block overwrites before any load or call can see it, and every store to a temp
//! variable that is never loaded (the variable goes too).

use super::info::IdMap;
use crate::spirv::builder::{Module, Operand};
use spirv::Op;

/// Runs the pass.
#[inline(never)]
pub fn run(module: &mut Module, plain: &IdMap<bool>) {
    if plain.iter().next().is_none() {
        return;
    }
    let bound = module.header.as_ref().map_or(0, |h| h.bound);
    let mut loaded: IdMap<bool> = IdMap::with_bound(bound);
    // The last store of each variable in the block, as its index + 1.
    let mut pending: IdMap<usize> = IdMap::with_bound(bound);
    let mut dead: Vec<bool> = Vec::new();
    for function in &mut module.functions {
        for block in &mut function.blocks {
            pending.clear();
            dead.clear();
            dead.resize(block.instructions.len(), false);
            for (at, inst) in block.instructions.iter().enumerate() {
                match (inst.class.opcode, inst.operands.first()) {
                    (Op::Store, Some(Operand::IdRef(var))) if plain.get(*var) => {
                        let earlier = pending.get(*var);
                        if earlier != 0 {
                            dead[earlier - 1] = true;
                        }
                        pending.set(*var, at + 1);
                    }
                    (Op::Load, Some(Operand::IdRef(var))) if plain.get(*var) => {
                        pending.set(*var, 0);
                        loaded.set(*var, true);
                    }
                    (Op::FunctionCall, _) => pending.clear(),
                    _ => {}
                }
            }
            super::dce::drop_marked(&mut block.instructions, &dead);
        }
    }
    let mut unread: IdMap<bool> = IdMap::with_bound(bound);
    for (var, _) in plain.iter().filter(|&(var, _)| !loaded.get(var)) {
        unread.set(var, true);
    }
    if unread.iter().next().is_none() {
        return;
    }
    for function in &mut module.functions {
        for block in &mut function.blocks {
            block.instructions.retain(|inst| {
                !(inst.class.opcode == Op::Store
                    && matches!(inst.operands.first(), Some(Operand::IdRef(v)) if unread.get(*v)))
            });
        }
    }
    // The variables themselves, now unused, go with the unused-declaration removal.
}
