//! Stores held back until their block ends.
//!
//! Output components written one by one in a block become one store of the whole vector
//! when every component is written, and an output written twice in a block is stored once.
//! Held stores go before the block's terminator (and its merge instruction), or before a
//! function call, vertex emission or control barrier, whichever comes first.

use super::{inst, of_ids, Instruction, Operands};
use smallvec::SmallVec;
use spirv::{Op, Word};

/// Where an output component goes: the vector's type and component count, and the pointer
/// type and index constant of the component's access chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComponentTarget {
    /// The vector type of the variable.
    pub vector_type: Word,
    /// The vector's component count.
    pub count: u32,
    /// The pointer type of one component.
    pub pointer_type: Word,
    /// The constant id of the component's index.
    pub index: Word,
}

/// A held store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// A store of a whole value through `pointer`.
    Whole {
        /// The pointer stored through.
        pointer: Word,
        /// The value stored.
        value: Word,
    },
    /// A store of component `component` of the output vector `var`.
    Component {
        /// The vector variable.
        var: Word,
        /// The component.
        component: u32,
        /// The value stored.
        value: Word,
        /// The types and index of the component's access chain.
        target: ComponentTarget,
    },
}

impl Held {
    /// The variable or pointer the store writes.
    fn pointer(&self) -> Word {
        match *self {
            Held::Whole { pointer, .. } => pointer,
            Held::Component { var, .. } => var,
        }
    }
}

/// A block's held stores (a block holds few: kept inline).
pub type HeldList = SmallVec<[Held; 8]>;

/// Adds a held store to a block's list: a later whole store through a pointer replaces the
/// earlier stores through it, and a later store of a component replaces the earlier one.
pub fn hold(list: &mut HeldList, store: Held) {
    match store {
        Held::Whole { pointer, .. } => match list.iter().position(|h| h.pointer() == pointer) {
            Some(first) => {
                // It takes the first earlier store's place; the later ones through the same
                // pointer (components of the vector) are overwritten.
                list[first] = store;
                let mut index = 0;
                list.retain(|h| {
                    let keep = index <= first || h.pointer() != pointer;
                    index += 1;
                    keep
                });
            }
            None => list.push(store),
        },
        Held::Component { var, component, .. } => {
            let same = list.iter().position(|h| {
                matches!(*h, Held::Component { var: v, component: c, .. } if v == var && c == component)
            });
            match same {
                Some(at) => list[at] = store,
                None => list.push(store),
            }
        }
    }
}

/// The instructions that carry out a block's held stores, in order. `fresh` makes result
/// ids.
pub fn carry_out(held: &[Held], mut fresh: impl FnMut() -> Word) -> SmallVec<[Instruction; 8]> {
    let mut out = SmallVec::new();
    for (at, store) in held.iter().enumerate() {
        match *store {
            Held::Whole { pointer, value, .. } => {
                out.push(of_ids(Op::Store, None, None, &[pointer, value]))
            }
            Held::Component {
                var, value, target, ..
            } => {
                let parts = whole_vector(held, var, target.count);
                match parts {
                    // The vector's last component store writes the whole vector.
                    Some((last, parts)) if last == at => {
                        let vector = fresh();
                        // The vector's own components (vectors of 2 and 3 components too: an
                        // interface map makes them).
                        let operands: Operands = parts[..target.count as usize]
                            .iter()
                            .map(|&p| super::Operand::IdRef(p))
                            .collect();
                        out.push(inst(
                            Op::CompositeConstruct,
                            Some(target.vector_type),
                            Some(vector),
                            operands,
                        ));
                        out.push(of_ids(Op::Store, None, None, &[var, vector]));
                    }
                    Some(_) => {}
                    None => {
                        let pointer = fresh();
                        out.push(of_ids(
                            Op::AccessChain,
                            Some(target.pointer_type),
                            Some(pointer),
                            &[var, target.index],
                        ));
                        out.push(of_ids(Op::Store, None, None, &[pointer, value]));
                    }
                }
            }
        }
    }
    out
}

/// When the held stores write every component of `var` (and no whole store to it is held),
/// the position of the last of them and the values by component.
fn whole_vector(held: &[Held], var: Word, count: u32) -> Option<(usize, [Word; 4])> {
    if !(2..=4).contains(&count) {
        return None;
    }
    let mut parts = [0; 4];
    let mut mask = 0u32;
    let mut last = 0;
    for (at, store) in held.iter().enumerate() {
        match *store {
            Held::Whole { pointer, .. } if pointer == var => return None,
            Held::Component {
                var: v,
                component,
                value,
                ..
            } if v == var => {
                if component >= count {
                    return None;
                }
                parts[component as usize] = value;
                mask |= 1 << component;
                last = at;
            }
            _ => {}
        }
    }
    (mask == (1 << count) - 1).then_some((last, parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TARGET: ComponentTarget = ComponentTarget {
        vector_type: 100,
        count: 4,
        pointer_type: 101,
        index: 102,
    };

    fn component(var: Word, component: u32, value: Word) -> Held {
        Held::Component {
            var,
            component,
            value,
            target: TARGET,
        }
    }

    fn ops(held: &[Held]) -> Vec<(Op, Vec<Word>)> {
        let mut next = 1000;
        carry_out(held, || {
            next += 1;
            next
        })
        .iter()
        .map(|i| {
            (
                i.class.opcode,
                i.operands
                    .iter()
                    .filter_map(|o| match o {
                        super::super::Operand::IdRef(id) => Some(*id),
                        _ => None,
                    })
                    .collect(),
            )
        })
        .collect()
    }

    #[test]
    fn every_component_makes_one_vector_store() {
        let mut list = HeldList::new();
        for (c, value) in [(2, 12), (0, 10), (3, 13), (1, 11), (0, 20)] {
            hold(&mut list, component(7, c, value));
        }
        // The later write of component 0 replaced the earlier one.
        assert_eq!(
            ops(&list),
            [
                (Op::CompositeConstruct, vec![20, 11, 12, 13]),
                (Op::Store, vec![7, 1001])
            ]
        );
    }

    #[test]
    fn some_components_are_stored_one_by_one() {
        let list = vec![component(7, 1, 11), component(7, 3, 13)];
        assert_eq!(
            ops(&list),
            [
                (Op::AccessChain, vec![7, 102]),
                (Op::Store, vec![1001, 11]),
                (Op::AccessChain, vec![7, 102]),
                (Op::Store, vec![1002, 13])
            ]
        );
    }

    #[test]
    fn a_whole_store_replaces_earlier_components_and_keeps_later_ones() {
        let mut list = HeldList::new();
        hold(&mut list, component(7, 0, 10));
        hold(
            &mut list,
            Held::Whole {
                pointer: 7,
                value: 50,
            },
        );
        hold(&mut list, component(7, 1, 11));
        assert_eq!(
            ops(&list),
            [
                (Op::Store, vec![7, 50]),
                (Op::AccessChain, vec![7, 102]),
                (Op::Store, vec![1001, 11])
            ]
        );
    }
}
