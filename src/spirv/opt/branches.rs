//! Branches on constants: a selection whose condition `simplify` folded to a constant
//! (a bounds check of a constant address inside a fixed-size array, for example) becomes
//! a plain branch to the side taken, the side not taken goes when it is one block, and
//! the straight chain of blocks left behind is joined into one block.
//!
//! A selection is folded only when the side not taken is its merge block or a single
//! block that goes straight to the merge; anything larger stays as it is. Blocks are
//! joined only when the second has the first as its only predecessor and no construct
//! names it as merge or continue target.

use crate::fast_hash::HashMap;
use crate::spirv::builder::{Block, Function, Instruction, Module, Operand};
use spirv::{Op, Word};

use super::dce::drop_marked;
use super::info::{Info, Subst};

/// Runs the pass; returns whether anything changed.
#[inline(never)]
pub fn run(module: &mut Module, info: &Info) -> bool {
    let mut changed = false;
    let mut removed_labels = Vec::new();
    for function in &mut module.functions {
        if !has_constant_branch(function, info) {
            continue;
        }
        if fold_constant_branches(function, info, &mut removed_labels) {
            changed = true;
            join_straight_blocks(function, info, &mut removed_labels);
        }
    }
    if !removed_labels.is_empty() {
        // Names and decorations of what went (labels, and the results of a dropped side,
        // whose `NonUniform` decorations would otherwise name undefined ids).
        let removed: crate::fast_hash::HashSet<Word> = removed_labels.into_iter().collect();
        super::info::drop_names_of(module, |id| removed.contains(&id));
    }
    changed
}

fn label_of(block: &Block) -> Word {
    block.label
}

/// Each block's index in the function, by label.
fn block_index(function: &Function) -> HashMap<Word, usize> {
    function
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (label_of(b), i))
        .collect()
}

fn has_constant_branch(function: &Function, info: &Info) -> bool {
    function.blocks.iter().any(|b| {
        b.instructions.last().is_some_and(|t| {
            t.class.opcode == Op::BranchConditional
                && matches!(t.operands.first(), Some(Operand::IdRef(c)) if info.bool_constant(*c).is_some())
        })
    })
}

/// The branch targets of a block's terminator.
fn successors(block: &Block) -> Vec<Word> {
    let Some(t) = block.instructions.last() else {
        return Vec::new();
    };
    match t.class.opcode {
        Op::Branch => ids_at(t, &[0]),
        Op::BranchConditional => ids_at(t, &[1, 2]),
        Op::Switch => t
            .operands
            .iter()
            .enumerate()
            .filter(|&(i, _)| i == 1 || (i >= 3 && i % 2 == 1))
            .filter_map(|(_, o)| match o {
                Operand::IdRef(id) => Some(*id),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn ids_at(inst: &Instruction, at: &[usize]) -> Vec<Word> {
    at.iter()
        .filter_map(|&i| match inst.operands.get(i) {
            Some(Operand::IdRef(id)) => Some(*id),
            _ => None,
        })
        .collect()
}

/// How many branch edges reach each label.
fn predecessor_counts(function: &Function) -> HashMap<Word, u32> {
    let mut counts = HashMap::default();
    for block in &function.blocks {
        let mut targets = successors(block);
        // A conditional branch with both sides alike is one predecessor.
        targets.dedup();
        for target in targets {
            *counts.entry(target).or_insert(0) += 1;
        }
    }
    counts
}

/// Drops the entries of `block`'s phis that come from `parent`.
fn drop_phi_entries(block: &mut Block, parent: Word) {
    for inst in &mut block.instructions {
        if inst.class.opcode != Op::Phi {
            break;
        }
        let pairs: crate::spirv::builder::Operands = inst
            .operands
            .chunks(2)
            .filter(|pair| pair.get(1) != Some(&Operand::IdRef(parent)))
            .flatten()
            .cloned()
            .collect();
        inst.operands = pairs;
    }
}

/// Whether a block ends in a plain branch to `target` and heads no construct.
fn goes_straight_to(block: &Block, target: Word) -> bool {
    block.instructions.last().is_some_and(|t| {
        t.class.opcode == Op::Branch && t.operands.first() == Some(&Operand::IdRef(target))
    }) && !block
        .instructions
        .iter()
        .any(|i| matches!(i.class.opcode, Op::SelectionMerge | Op::LoopMerge))
}

/// Folds selections on constant conditions; true when one was folded.
fn fold_constant_branches(function: &mut Function, info: &Info, removed: &mut Vec<Word>) -> bool {
    let predecessors = predecessor_counts(function);
    let index = block_index(function);
    let mut gone = vec![false; function.blocks.len()];
    let mut folded = false;
    for i in 0..function.blocks.len() {
        if gone[i] {
            continue;
        }
        let insts = &function.blocks[i].instructions;
        let n = insts.len();
        if n < 2 {
            continue;
        }
        let (merge_inst, branch) = (&insts[n - 2], &insts[n - 1]);
        let (
            Op::SelectionMerge,
            Op::BranchConditional,
            Some(Operand::IdRef(merge)),
            [Operand::IdRef(condition), Operand::IdRef(then), Operand::IdRef(otherwise), ..],
        ) = (
            merge_inst.class.opcode,
            branch.class.opcode,
            merge_inst.operands.first(),
            &branch.operands[..],
        )
        else {
            continue;
        };
        let Some(value) = info.bool_constant(*condition) else {
            continue;
        };
        let (merge, taken, other) = if value {
            (*merge, *then, *otherwise)
        } else {
            (*merge, *otherwise, *then)
        };
        let here = label_of(&function.blocks[i]);
        let Some(&m) = index.get(&merge) else {
            continue;
        };
        // The merge block must stay reachable: the side taken is the merge itself or one
        // block going straight to it (a side that breaks out of a loop would leave the merge
        // and what follows unreachable, which drivers take badly).
        if taken != merge {
            let Some(&t) = index.get(&taken) else {
                continue;
            };
            if !goes_straight_to(&function.blocks[t], merge) {
                continue;
            }
        }
        if other == merge || other == taken {
            if other != taken {
                drop_phi_entries(&mut function.blocks[m], here);
            }
        } else {
            // The side not taken must be one block, reached only from here, going straight
            // to the merge.
            let Some(&o) = index.get(&other) else {
                continue;
            };
            if !goes_straight_to(&function.blocks[o], merge)
                || predecessors.get(&other) != Some(&1)
                || o == m
            {
                continue;
            }
            gone[o] = true;
            removed.push(other);
            removed.extend(
                function.blocks[o]
                    .instructions
                    .iter()
                    .filter_map(|inst| inst.result_id()),
            );
            drop_phi_entries(&mut function.blocks[m], other);
        }
        let insts = &mut function.blocks[i].instructions;
        insts.truncate(n - 2);
        insts.push(crate::spirv::builder::of_ids(
            Op::Branch,
            None,
            None,
            &[taken],
        ));
        folded = true;
    }
    drop_marked(&mut function.blocks, &gone);
    folded
}

/// Joins a block that ends in a plain branch with its target when the target has no other
/// predecessor and is no construct's merge or continue target.
fn join_straight_blocks(function: &mut Function, info: &Info, removed: &mut Vec<Word>) {
    let predecessors = predecessor_counts(function);
    let mut structural: Vec<Word> = Vec::new();
    for block in &function.blocks {
        for inst in &block.instructions {
            match inst.class.opcode {
                Op::SelectionMerge => structural.extend(ids_at(inst, &[0])),
                Op::LoopMerge => structural.extend(ids_at(inst, &[0, 1])),
                _ => {}
            }
        }
    }
    let index = block_index(function);
    let entry = function.blocks.first().map(label_of).unwrap_or(0);
    let mut gone = vec![false; function.blocks.len()];
    let mut renamed: HashMap<Word, Word> = HashMap::default();
    let mut subst = Subst::with_bound(info.bound());
    for i in 0..function.blocks.len() {
        if gone[i] {
            continue;
        }
        loop {
            let insts = &function.blocks[i].instructions;
            let n = insts.len();
            let Some(Operand::IdRef(target)) = insts
                .last()
                .filter(|t| t.class.opcode == Op::Branch)
                .and_then(|t| t.operands.first())
            else {
                break;
            };
            let target = *target;
            let headed = n >= 2
                && matches!(
                    insts[n - 2].class.opcode,
                    Op::SelectionMerge | Op::LoopMerge
                );
            let Some(&j) = index.get(&target) else { break };
            // A decorated phi (`NonUniform`) keeps its block: its value would lose the
            // decoration.
            let decorated_phi = function.blocks[j]
                .instructions
                .iter()
                .take_while(|inst| inst.class.opcode == Op::Phi)
                .any(|phi| phi.result_id().is_some_and(|id| info.is_decorated(id)));
            if headed
                || j == i
                || gone[j]
                || target == entry
                || predecessors.get(&target) != Some(&1)
                || structural.contains(&target)
                || decorated_phi
            {
                break;
            }
            let mut moved = std::mem::take(&mut function.blocks[j].instructions);
            // Phis of a block with one predecessor have one value each.
            let phis = moved
                .iter()
                .take_while(|inst| inst.class.opcode == Op::Phi)
                .count();
            for phi in moved.drain(..phis) {
                if let (Some(result), Some(Operand::IdRef(value))) =
                    (phi.result_id(), phi.operands.first())
                {
                    subst.replace(result, *value);
                }
            }
            let here = label_of(&function.blocks[i]);
            let insts = &mut function.blocks[i].instructions;
            insts.pop();
            insts.append(&mut moved);
            gone[j] = true;
            removed.push(target);
            renamed.insert(target, here);
        }
    }
    if !gone.contains(&true) {
        return;
    }
    drop_marked(&mut function.blocks, &gone);
    let resolve = |mut id: Word| {
        while let Some(&next) = renamed.get(&id) {
            id = next;
        }
        id
    };
    for block in &mut function.blocks {
        for inst in &mut block.instructions {
            subst.apply(inst);
            if inst.class.opcode == Op::Phi {
                for parent in inst.operands.iter_mut().skip(1).step_by(2) {
                    if let Operand::IdRef(id) = parent {
                        *id = resolve(*id);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::spirv::opt::info::Info;
    use crate::spirv::opt::test_support::{assert_valid, count, text, Shell};
    use spirv::{Op, SelectionControl};

    /// `if (c) { output = input }` with `c` a constant; the output is written in the
    /// guarded block, and a phi at the merge takes the input's `.x` or 0.
    fn guarded(condition: bool) -> crate::spirv::builder::Module {
        let mut s = Shell::new();
        let boolean = s.m.scalar(crate::spirv::module::Scalar::Bool);
        let c = if condition {
            s.m.b.constant_true(boolean)
        } else {
            s.m.b.constant_false(boolean)
        };
        let header = s.m.b.selected_label().expect("a block is open");
        let (then, merge) = (s.m.b.id(), s.m.b.id());
        s.m.selection_merge(merge, SelectionControl::NONE).unwrap();
        s.m.b.branch_conditional(c, then, merge, []).unwrap();
        s.m.b.begin_block(Some(then)).unwrap();
        let v = s.m.load(s.vec4, s.input).unwrap();
        let x = s.m.composite_extract(s.float, v, &[0]).unwrap();
        s.m.store(s.output, v).unwrap();
        s.m.b.branch(merge).unwrap();
        s.m.b.begin_block(Some(merge)).unwrap();
        let zero = s.float_const(0.0);
        let float = s.float;
        let picked = s.m.b.phi(float, None, [(x, then), (zero, header)]).unwrap();
        let vec4 = s.vec4;
        let out =
            s.m.b
                .composite_construct(vec4, None, [picked, picked, picked, picked])
                .unwrap();
        s.m.store(s.output, out).unwrap();
        s.finish()
    }

    /// `loop { if (true) break; output = input }`: the side taken leaves the loop, so
    /// folding would leave the selection's merge (and the loop's continue) unreachable.
    #[test]
    fn a_constant_break_out_of_a_loop_stays_a_selection() {
        let mut s = Shell::new();
        let boolean = s.m.scalar(crate::spirv::module::Scalar::Bool);
        let yes = s.m.b.constant_true(boolean);
        let (header, body, leave, stay, next, merge) = (
            s.m.b.id(),
            s.m.b.id(),
            s.m.b.id(),
            s.m.b.id(),
            s.m.b.id(),
            s.m.b.id(),
        );
        s.m.b.branch(header).unwrap();
        s.m.b.begin_block(Some(header)).unwrap();
        s.m.b
            .loop_merge(merge, next, spirv::LoopControl::NONE, [])
            .unwrap();
        s.m.b.branch(body).unwrap();
        s.m.b.begin_block(Some(body)).unwrap();
        s.m.selection_merge(stay, SelectionControl::NONE).unwrap();
        s.m.b.branch_conditional(yes, leave, stay, []).unwrap();
        s.m.b.begin_block(Some(leave)).unwrap();
        s.m.b.branch(merge).unwrap();
        s.m.b.begin_block(Some(stay)).unwrap();
        let v = s.m.load(s.vec4, s.input).unwrap();
        s.m.store(s.output, v).unwrap();
        s.m.b.branch(next).unwrap();
        s.m.b.begin_block(Some(next)).unwrap();
        s.m.b.branch(header).unwrap();
        s.m.b.begin_block(Some(merge)).unwrap();
        let mut module = s.finish();
        assert_valid(&module);
        let info = Info::of(&module);
        assert!(!run(&mut module, &info), "{}", text(&module));
        assert_eq!(
            count(&module, Op::BranchConditional),
            1,
            "{}",
            text(&module)
        );
        assert_valid(&module);
    }

    #[test]
    fn a_selection_on_true_becomes_one_block() {
        let mut module = guarded(true);
        assert_valid(&module);
        let info = Info::of(&module);
        assert!(run(&mut module, &info), "{}", text(&module));
        assert_eq!(module.functions[0].blocks.len(), 1, "{}", text(&module));
        assert_eq!(count(&module, Op::Phi), 0, "{}", text(&module));
        assert_eq!(count(&module, Op::Store), 2, "{}", text(&module));
        assert_valid(&module);
    }

    #[test]
    fn a_selection_on_false_drops_its_side() {
        let mut module = guarded(false);
        let info = Info::of(&module);
        assert!(run(&mut module, &info), "{}", text(&module));
        assert_eq!(module.functions[0].blocks.len(), 1, "{}", text(&module));
        assert_eq!(count(&module, Op::Store), 1, "{}", text(&module));
        assert_valid(&module);
    }
}
