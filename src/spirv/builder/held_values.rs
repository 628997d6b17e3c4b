//! Values made only when something uses them.
//!
//! The emitter writes a temp's components as SSA values; a component of a vector result is
//! an `OpCompositeExtract`, and most of those are never used on their own: the next
//! instruction reads the temp as the whole vector again (the emitter then takes the vector),
//! or overwrites it, or the block returns. Such an extract is *held*: it has its id, and
//!
//! - a use of the id places it where the use is ([`HeldValues::take`]);
//! - the end of its block places those still held before the terminator (a successor may
//!   read them), or drops them all before a return or a kill (nothing after it can);
//! - one the emitter lets go (its temp overwritten: the builder's `drop_held`) is never
//!   made.

//!
//! So the optimiser never sees the extracts nothing uses, and the builder never makes them.

use super::Instruction;
use spirv::Word;

/// Where a held value belongs: (function index, block index).
pub type At = (usize, usize);

/// The held values of the blocks being built.
#[derive(Debug, Default)]
pub struct HeldValues {
    /// The held instructions with their blocks, in the order they were held.
    list: Vec<(At, Instruction)>,
    /// One bit per id: held.
    bits: Vec<u64>,
}

impl HeldValues {
    /// Whether nothing is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Holds `inst` (with a result id) of block `at`.
    pub fn hold(&mut self, at: At, inst: Instruction) {
        let Some(id) = inst.result_id() else {
            return;
        };
        let word = id as usize / 64;
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << (id % 64);
        self.list.push((at, inst));
    }

    /// Whether `id` is a held value.
    #[inline]
    pub fn is_held(&self, id: Word) -> bool {
        !self.list.is_empty()
            && self
                .bits
                .get(id as usize / 64)
                .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    /// Takes the held value `id` out, with its block (`None` when it is not held).
    pub fn take(&mut self, id: Word) -> Option<(At, Instruction)> {
        if !self.is_held(id) {
            return None;
        }
        self.clear_bit(id);
        // The most recent are the most likely to be used.
        let at = self
            .list
            .iter()
            .rposition(|(_, inst)| inst.result_id() == Some(id))?;
        Some(self.list.remove(at))
    }

    /// Takes out every value held for block `at`, in the order they were held.
    pub fn take_block(&mut self, at: At, mut each: impl FnMut(Instruction)) {
        if self.list.is_empty() {
            return;
        }
        let HeldValues { list, bits } = self;
        for (_, inst) in list.extract_if(.., |(block, _)| *block == at) {
            if let Some(id) = inst.result_id() {
                clear_bit(bits, id);
            }
            each(inst);
        }
    }

    /// Forgets everything held, keeping the memory.
    pub fn clear(&mut self) {
        self.list.clear();
        self.bits.fill(0);
    }

    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        crate::fast_hash::vec_bytes(&self.list) + crate::fast_hash::vec_bytes(&self.bits)
    }

    fn clear_bit(&mut self, id: Word) {
        clear_bit(&mut self.bits, id);
    }
}

/// Clears the bit of `id`.
fn clear_bit(bits: &mut [u64], id: Word) {
    if let Some(w) = bits.get_mut(id as usize / 64) {
        *w &= !(1 << (id % 64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::builder::of_ids;
    use spirv::Op;

    fn extract(id: Word) -> Instruction {
        of_ids(Op::CompositeExtract, Some(1), Some(id), &[2])
    }

    #[test]
    fn a_held_value_is_taken_once_dropped_or_placed_with_its_block() {
        let mut h = HeldValues::default();
        assert!(!h.is_held(10));
        h.hold((0, 0), extract(10));
        h.hold((0, 0), extract(70));
        h.hold((0, 1), extract(11));
        assert!(h.is_held(10) && h.is_held(70) && h.is_held(11));
        assert!(!h.is_held(12), "an id never held");
        let (at, inst) = h.take(70).expect("held");
        assert_eq!((at, inst.result_id()), ((0, 0), Some(70)));
        assert!(!h.is_held(70), "taken once");
        assert!(h.take(70).is_none());
        assert!(h.take(11).is_some());
        assert!(!h.is_held(11), "taken");
        h.hold((0, 1), extract(12));
        let mut placed = Vec::new();
        h.take_block((0, 0), |inst| placed.push(inst.result_id()));
        assert_eq!(placed, [Some(10)], "only the block's own");
        assert!(h.is_held(12) && !h.is_held(10));
    }
}
