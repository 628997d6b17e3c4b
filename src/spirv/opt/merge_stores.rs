//! Whole-vector output stores: when a block stores every component of an output vector,
//! component by component, and nothing reads the output, calls a function or emits a
//! vertex in between, the stores become one `OpCompositeConstruct` and one store of the
//! vector (where the last component store was). [`super::simplify`] then reduces the
//! construct (to the vector itself, a shuffle or a constant) where it can.

use crate::spirv::builder::{Module, Operand, Operands};

use spirv::{Op, StorageClass, Word};

use super::info::{IdMap, Info};

/// Component stores to one output collected so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Group {
    /// The components stored.
    mask: u32,
    /// The values stored, by component.
    values: [Word; 4],
    /// Where the stores are in the block.
    stores: [usize; 4],
}

/// The groups being collected in a block, by output variable (a block writes few outputs,
/// so a short list beats a table by id).
#[derive(Default)]
struct Groups(smallvec::SmallVec<[(Word, Group); 8]>);

impl Groups {
    fn get(&self, var: Word) -> Group {
        self.0
            .iter()
            .find(|(v, _)| *v == var)
            .map_or(Group::default(), |(_, g)| *g)
    }

    /// Sets a variable's group; the empty group removes it.
    fn set(&mut self, var: Word, group: Group) {
        let at = self.0.iter().position(|(v, _)| *v == var);
        match (at, group == Group::default()) {
            (Some(at), true) => {
                self.0.swap_remove(at);
            }
            (Some(at), false) => self.0[at].1 = group,
            (None, false) => self.0.push((var, group)),
            (None, true) => {}
        }
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

/// A merge: the store it replaces, the variable and the stored values.
struct Merge {
    at: usize,
    var: Word,
    values: [Word; 4],
}

/// Runs the pass.
#[inline(never)]
pub fn run(module: &mut Module, info: &mut Info) {
    // Output variables of (at most four-component) vector type: (vector type, count).
    let mut outputs: IdMap<(Word, u32)> = IdMap::with_bound(info.bound());
    for &var in info.variables() {
        if let Some((StorageClass::Output, pointee)) = info.variable(var) {
            if let Some((_, count @ 1..=4)) = info.vector(pointee) {
                outputs.set(var, (pointee, count));
            }
        }
    }
    if outputs.iter().next().is_none() {
        return;
    }
    // Access chains with one constant index into such outputs: (variable, component).
    let mut chains: IdMap<(Word, u32)> = IdMap::with_bound(info.bound());
    let mut groups = Groups::default();
    let mut merges: Vec<Merge> = Vec::new();
    let mut dead: Vec<bool> = Vec::new();
    let mut functions = std::mem::take(&mut module.functions);
    for function in &mut functions {
        for block in &mut function.blocks {
            groups.clear();
            merges.clear();
            dead.clear();
            dead.resize(block.instructions.len(), false);
            for (at, inst) in block.instructions.iter().enumerate() {
                let op = inst.class.opcode;
                match (op, &inst.operands[..], inst.result_id()) {
                    (Op::AccessChain, [Operand::IdRef(base), Operand::IdRef(index)], Some(id))
                        if outputs.contains(*base) =>
                    {
                        if let Some(k) = info.constant_bits(*index) {
                            chains.set(id, (*base, k));
                        }
                    }
                    (Op::Store, [Operand::IdRef(pointer), Operand::IdRef(value)], _) => {
                        let (var, k) = chains.get(*pointer);
                        if var == 0 {
                            groups.set(*pointer, Group::default());
                            continue;
                        }
                        let count = outputs.get(var).1;
                        if k >= count {
                            groups.set(var, Group::default());
                            continue;
                        }
                        let mut group = groups.get(var);
                        if group.mask & (1 << k) != 0 {
                            group = Group::default();
                        }
                        group.stores[k as usize] = at;
                        group.values[k as usize] = *value;
                        group.mask |= 1 << k;
                        if group.mask == (1 << count) - 1 {
                            // This store completes the vector; the earlier ones go.
                            for &store in &group.stores[..count as usize] {
                                dead[store] = store != at;
                            }
                            merges.push(Merge {
                                at,
                                var,
                                values: group.values,
                            });
                            group = Group::default();
                        }
                        groups.set(var, group);
                    }
                    (Op::Load, [Operand::IdRef(pointer), ..], _) => {
                        let target = match chains.get(*pointer) {
                            (0, _) => *pointer,
                            (var, _) => var,
                        };
                        groups.set(target, Group::default());
                    }
                    _ if super::info::is_pure(op) => {}
                    _ => groups.clear(),
                }
            }
            if merges.is_empty() {
                continue;
            }
            // Merges are found in block order: each replaces the store that completed it.
            let room = block.instructions.len() + merges.len();
            let mut old = std::mem::replace(&mut block.instructions, Vec::with_capacity(room));
            let mut next = merges.iter().peekable();
            for (at, inst) in old.drain(..).enumerate() {
                if dead[at] {
                    continue;
                }
                let Some(merge) = next.next_if(|m| m.at == at) else {
                    block.instructions.push(inst);
                    continue;
                };
                let (ty, count) = outputs.get(merge.var);
                let vector = info.fresh(module, Some(ty));
                let parts: Operands = merge.values[..count as usize]
                    .iter()
                    .map(|&v| Operand::IdRef(v))
                    .collect();
                block.instructions.push(crate::spirv::builder::inst(
                    Op::CompositeConstruct,
                    Some(ty),
                    Some(vector),
                    parts,
                ));
                block.instructions.push(crate::spirv::builder::inst(
                    Op::Store,
                    None,
                    None,
                    crate::spirv::builder::operands([
                        Operand::IdRef(merge.var),
                        Operand::IdRef(vector),
                    ]),
                ));
            }
        }
    }
    module.functions = functions;
}
