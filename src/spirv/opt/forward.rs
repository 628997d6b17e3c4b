//! Store-to-load forwarding: within a block, a load of a temp variable (see
//! [`super::info::plain_variables`]) takes the value last stored to it or loaded from it, so the value
//! flows as an SSA id instead of through memory. A function call forgets what is known of
//! module-scope variables (the callee may write them); a new block starts knowing nothing.

use crate::spirv::builder::{Module, Operand};
use spirv::{Op, Word};

use super::info::{IdMap, Info, Subst};

/// Runs the pass.
#[inline(never)]
pub fn run(module: &mut Module, info: &Info, plain: &IdMap<bool>) {
    if plain.iter().next().is_none() {
        return;
    }
    let mut subst = Subst::with_bound(info.bound());
    let mut known: IdMap<Word> = IdMap::with_bound(info.bound());
    for function in &mut module.functions {
        for block in &mut function.blocks {
            known.clear();
            block.instructions.retain_mut(|inst| {
                subst.apply(inst);
                // A decorated load (`NonUniform`) stays: its decoration is on its result.
                if inst.result_id().is_some_and(|id| info.is_decorated(id)) {
                    return true;
                }
                forward_one(inst, plain, info, &mut known, &mut subst)
            });
        }
        // A loop header's phi uses a value of a later block.
        subst.apply_to_phis(function);
    }
}

/// Tracks one instruction; false when it is a load whose value is already known.
fn forward_one(
    inst: &crate::spirv::builder::Instruction,
    plain: &IdMap<bool>,
    info: &Info,
    known: &mut IdMap<Word>,
    subst: &mut Subst,
) -> bool {
    match (inst.class.opcode, &inst.operands[..]) {
        (Op::Store, [Operand::IdRef(var), Operand::IdRef(value)]) if plain.get(*var) => {
            known.set(*var, *value);
        }
        (Op::Load, [Operand::IdRef(var)]) if plain.get(*var) => {
            let Some(result) = inst.result_id() else {
                return true;
            };
            let value = known.get(*var);
            if value != 0 {
                subst.replace(result, value);
                return false;
            }
            known.set(*var, result);
        }
        (Op::FunctionCall, _) => {
            // Function-scope variables cannot be reached by the callee.
            let module_scope: Vec<Word> = known
                .iter()
                .filter(|&(var, _)| info.variable(var).is_some())
                .map(|(var, _)| var)
                .collect();
            for var in module_scope {
                known.set(var, 0);
            }
        }
        _ => {}
    }
    true
}
