//! Each block's predecessors while a module is built, by label: two inline in the table's
//! entry (12 bytes), more in a list of their own (a `switch`'s merge, a loop's header with
//! several `continue`s), so that a shader of many small blocks does not hold a list for
//! each.

use crate::fast_hash::HashMap;
use spirv::Word;

/// The predecessors of the blocks branched to so far.
#[derive(Debug, Default)]
pub struct Predecessors {
    /// By label: `[a, 0]` one, `[a, b]` two, `[0, n]` the list `more[n - 1]` (no id is 0).
    inline: HashMap<Word, [Word; 2]>,
    /// The lists of the blocks with more than two.
    more: Vec<Vec<Word>>,
}

impl Predecessors {
    /// Notes a branch from `from` to `target` (a second branch between them counts once).
    pub fn add(&mut self, target: Word, from: Word) {
        let entry = self.inline.entry(target).or_insert([0, 0]);
        match *entry {
            [0, 0] => entry[0] = from,
            [a, 0] if a != from => entry[1] = from,
            [0, n] => {
                if let Some(list) = more_index(n).and_then(|i| self.more.get_mut(i)) {
                    if !list.contains(&from) {
                        list.push(from);
                    }
                }
            }
            [a, b] if a != from && b != from => {
                self.more.push(vec![a, b, from]);
                *entry = [0, self.more.len() as Word];
            }
            _ => {}
        }
    }

    /// The blocks that branch to `label`, in the order their branches were added.
    pub fn of(&self, label: Word) -> &[Word] {
        match self.inline.get(&label) {
            None => &[],
            Some(&[0, n]) => more_index(n)
                .and_then(|i| self.more.get(i))
                .map_or(&[], Vec::as_slice),
            Some(pair @ [_, 0]) => &pair[..1],
            Some(pair) => pair,
        }
    }
}

/// The index in [`Predecessors::more`] that an entry `[0, n]` names (none for `n` = 0, an
/// entry never made).
fn more_index(n: Word) -> Option<usize> {
    (n as usize).checked_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_two_and_more_predecessors_in_order_each_once() {
        let mut p = Predecessors::default();
        assert!(p.of(10).is_empty());
        p.add(10, 1);
        assert_eq!(p.of(10), [1]);
        p.add(10, 1);
        assert_eq!(p.of(10), [1]);
        p.add(10, 2);
        p.add(10, 2);
        assert_eq!(p.of(10), [1, 2]);
        p.add(10, 3);
        p.add(10, 1);
        p.add(10, 4);
        assert_eq!(p.of(10), [1, 2, 3, 4]);
        p.add(11, 3);
        p.add(12, 4);
        p.add(12, 5);
        p.add(12, 6);
        assert_eq!((p.of(11), p.of(12)), (&[3][..], &[4, 5, 6][..]));
        assert_eq!(p.of(10), [1, 2, 3, 4]);
    }
}
