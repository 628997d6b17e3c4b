//! Inlining of functions called once: a function without parameters whose body is one
//! block ending in `OpReturn`, and that exactly one `OpFunctionCall` calls, is put in place
//! of that call. Hull-shader phases (one function each, called once by the entry function)
//! and subroutines called once become straight-line code of their caller, so the passes
//! that work within a block see through them, and the module sheds a function header, a
//! type use and a call per function.
//!
//! The callee's function-scope variables move to the caller's entry block; names of the
//! ids that disappear (the function, its label, the call's result) go with them.

use crate::fast_hash::HashMap;
use crate::spirv::builder::{Function, Instruction, Module, Operand};
use spirv::{Op, Word};

/// Runs the pass; returns whether any function was inlined.
#[inline(never)]
pub fn run(module: &mut Module) -> bool {
    if module.functions.len() < 2 {
        return false;
    }
    let mut inlined_any = false;
    let entries: Vec<Word> = module
        .entry_points
        .iter()
        .filter_map(|e| match e.operands.get(1) {
            Some(Operand::IdRef(id)) => Some(*id),
            _ => None,
        })
        .collect();
    // One function a round, the counts taken again after each (inlining a caller can leave
    // its callees with a new count of calls).
    loop {
        let calls = call_counts(module);
        let Some(at) = module.functions.iter().position(|f| {
            f.def_id().is_some_and(|id| {
                !entries.contains(&id) && calls.get(&id) == Some(&1) && inlinable(f)
            })
        }) else {
            return inlined_any;
        };
        let callee = module.functions.remove(at);
        // A function whose one call is its own (recursion, which SPIR-V forbids) has no
        // caller to be found: it is left out, as dead code.
        if !inline_into_caller(module, callee) {
            return inlined_any;
        }
        inlined_any = true;
    }
}

/// How many `OpFunctionCall`s call each function.
fn call_counts(module: &Module) -> HashMap<Word, u32> {
    let mut calls = HashMap::default();
    for function in &module.functions {
        for block in &function.blocks {
            for inst in &block.instructions {
                if inst.class.opcode == Op::FunctionCall {
                    if let Some(Operand::IdRef(callee)) = inst.operands.first() {
                        *calls.entry(*callee).or_insert(0) += 1;
                    }
                }
            }
        }
    }
    calls
}

/// One block ending in the function's only `OpReturn`, no parameters, a void result.
fn inlinable(function: &Function) -> bool {
    let [block] = &function.blocks[..] else {
        return false;
    };
    function.parameters.is_empty()
        && block
            .instructions
            .last()
            .is_some_and(|i| i.class.opcode == Op::Return)
        && block.instructions.iter().all(|i| {
            !matches!(
                i.class.opcode,
                Op::Phi | Op::ReturnValue | Op::LoopMerge | Op::SelectionMerge
            )
        })
}

/// Replaces the call of `callee` by its body; false when no call was found.
fn inline_into_caller(module: &mut Module, callee: Function) -> bool {
    let Some(callee_id) = callee.def_id() else {
        return false;
    };
    let mut body = callee.blocks.into_iter().next().unwrap_or_default();
    let label = body.label_id();
    body.instructions.pop(); // the OpReturn
    let (variables, code): (Vec<Instruction>, Vec<Instruction>) = body
        .instructions
        .into_iter()
        .partition(|i| i.class.opcode == Op::Variable);
    for function in &mut module.functions {
        let found = function.blocks.iter().enumerate().find_map(|(b, block)| {
            block
                .instructions
                .iter()
                .position(|i| {
                    i.class.opcode == Op::FunctionCall
                        && i.operands.first() == Some(&Operand::IdRef(callee_id))
                })
                .map(|i| (b, i))
        });
        let Some((b, i)) = found else {
            continue;
        };
        let call = function.blocks[b].instructions.remove(i).result_id();
        function.blocks[b].instructions.splice(i..i, code);
        if let Some(entry) = function.blocks.first_mut() {
            let after = entry
                .instructions
                .iter()
                .position(|i| i.class.opcode != Op::Variable)
                .unwrap_or(entry.instructions.len());
            entry.instructions.splice(after..after, variables);
        }
        let gone = [Some(callee_id), label, call];
        super::info::drop_names_of(module, |id| gone.contains(&Some(id)));
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::spirv::opt::test_support::{assert_valid, count, text, Shell};
    use spirv::{FunctionControl, Op};

    /// A module whose entry function calls `callee` (one block writing the output) `calls`
    /// times; with `branchy`, the callee has two blocks.
    fn calling(calls: usize, branchy: bool) -> crate::spirv::builder::Module {
        let mut s = Shell::new();
        let callee = s.m.b.id();
        let void = s.m.void();
        for _ in 0..calls {
            s.m.b.function_call(void, None, callee, []).expect("call");
        }
        let (output, vec4) = (s.output, s.vec4);
        let one = s.float_const(1.0);
        s.finish_with(|m| {
            let fn_type = m.void_function();
            m.b.begin_function(void, Some(callee), FunctionControl::NONE, fn_type)
                .expect("begin callee");
            m.b.begin_block(None).expect("block");
            if branchy {
                let next = m.b.id();
                m.b.branch(next).expect("branch");
                m.b.begin_block(Some(next)).expect("block");
            }
            let value = m.b.composite_construct(vec4, None, [one, one, one, one]);
            m.store(output, value.expect("construct")).expect("store");
            m.b.ret().expect("ret");
            m.b.end_function().expect("end");
        })
    }

    #[test]
    fn a_one_block_function_called_once_is_put_in_place_of_its_call() {
        let mut module = calling(1, false);
        assert_valid(&module);
        assert!(run(&mut module), "{}", text(&module));
        assert_eq!(module.functions.len(), 1, "{}", text(&module));
        assert_eq!(count(&module, Op::FunctionCall), 0, "{}", text(&module));
        assert_eq!(count(&module, Op::Store), 1, "{}", text(&module));
        assert_valid(&module);
    }

    #[test]
    fn functions_called_twice_or_with_several_blocks_stay() {
        for (calls, branchy) in [(2, false), (1, true)] {
            let mut module = calling(calls, branchy);
            assert_valid(&module);
            assert!(!run(&mut module), "{}", text(&module));
            assert_eq!(module.functions.len(), 2, "{}", text(&module));
            assert_eq!(count(&module, Op::FunctionCall), calls, "{}", text(&module));
        }
    }
}
