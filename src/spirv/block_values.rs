//! What the emitter knows of values in the block being emitted, so that it does not make the
//! loads the optimiser would remove:
//!
//! - the values the temp components hold: a read of a temp written or read earlier in the
//!   block takes that value (what [`super::opt`]'s `forward` would do);
//! - the vectors loaded from read-only memory (inputs, constant buffers): a component read
//!   takes an element of the vector loaded earlier in the block (the optimiser has no pass
//!   that would turn component loads into vector loads).
//!
//! What is known holds only within one block and until the next function call (a
//! subroutine may write the temps).

use spirv::Word;

use super::opt::info::IdMap;
use crate::fast_hash::HashMap;

/// Where values are known: the selected function and block, and the number of function
/// calls emitted so far.
pub type Place = (Option<usize>, Option<usize>, u32);

/// What is known in one place.
#[derive(Debug)]
pub struct BlockValues {
    /// Value id by temp component key (`register * 4 + component`, plus one); 0 when unknown.
    values: IdMap<Word>,
    /// The vector loaded from read-only memory, by (variable, element index id; 0 for the
    /// variable itself).
    vectors: HashMap<(Word, Word), Word>,
    /// The place the values belong to.
    place: Place,
}

impl Default for BlockValues {
    fn default() -> Self {
        BlockValues {
            values: IdMap::tracked(),
            vectors: HashMap::default(),
            place: (None, None, 0),
        }
    }
}

/// Registers past D3D's 4096 temps are never remembered (the table is indexed by register).
const MAX_REGISTERS: u32 = 4096;

/// The table key of a temp component (never 0, which the table reads as "none").
fn key(register: u32, component: u8) -> Option<Word> {
    (register < MAX_REGISTERS).then(|| register * 4 + u32::from(component & 3) + 1)
}

impl BlockValues {
    /// Forgets everything (for the next translation), keeping the memory.
    pub fn forget(&mut self) {
        self.values.clear();
        self.vectors.clear();
        self.place = (None, None, 0);
    }

    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        self.values.held_bytes() + crate::fast_hash::map_bytes(&self.vectors)
    }

    /// Forgets everything when `place` is not where the values were learnt.
    fn enter(&mut self, place: Place) {
        if self.place != place {
            self.values.clear();
            self.vectors.clear();
            self.place = place;
        }
    }

    /// The vector loaded from element `element` (an index id; 0 for the variable itself) of
    /// read-only variable `var` at `place`, when there is one.
    pub fn vector(&mut self, place: Place, var: Word, element: Word) -> Option<Word> {
        self.enter(place);
        self.vectors.get(&(var, element)).copied()
    }

    /// Records that `value` is the vector loaded from element `element` of read-only
    /// variable `var` at `place`.
    pub fn set_vector(&mut self, place: Place, var: Word, element: Word, value: Word) {
        self.enter(place);
        self.vectors.insert((var, element), value);
    }

    /// The value a temp component holds at `place`, when known.
    pub fn get(&mut self, place: Place, register: u32, component: u8) -> Option<Word> {
        self.enter(place);
        let value = self.values.get(key(register, component)?);
        (value != 0).then_some(value)
    }

    /// Records that a temp component holds `value` at `place` (it was stored or loaded);
    /// false when the register is past what is remembered (a read then loads it).
    pub fn set(&mut self, place: Place, register: u32, component: u8, value: Word) -> bool {
        self.enter(place);
        let Some(key) = key(register, component) else {
            return false;
        };
        self.values.set(key, value);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: Place = (Some(0), Some(1), 0);

    #[test]
    fn a_value_is_known_in_its_block() {
        let mut t = BlockValues::default();
        assert_eq!(t.get(BLOCK, 3, 2), None);
        t.set(BLOCK, 3, 2, 40);
        assert_eq!(
            t.get(BLOCK, 3, 2),
            Some(40),
            "r3.z after a store in the block"
        );
        assert_eq!(t.get(BLOCK, 3, 1), None, "r3.y was not written");
        assert_eq!(t.get(BLOCK, 2, 2), None, "r2.z was not written");
        t.set(BLOCK, 3, 2, 41);
        assert_eq!(t.get(BLOCK, 3, 2), Some(41), "the last store wins");
    }

    #[test]
    fn another_block_or_a_call_forgets() {
        let mut t = BlockValues::default();
        t.set(BLOCK, 0, 0, 7);
        assert_eq!(t.get((Some(0), Some(2), 0), 0, 0), None, "another block");
        assert_eq!(t.get(BLOCK, 0, 0), None, "forgotten on leaving the block");
        t.set(BLOCK, 0, 0, 7);
        assert_eq!(
            t.get((Some(0), Some(1), 1), 0, 0),
            None,
            "after a function call"
        );
        t.set(BLOCK, 0, 0, 7);
        assert_eq!(t.get((Some(1), Some(1), 0), 0, 0), None, "another function");
    }

    #[test]
    fn a_loaded_vector_is_known_in_its_block() {
        let mut t = BlockValues::default();
        assert_eq!(t.vector(BLOCK, 12, 0), None);
        t.set_vector(BLOCK, 12, 0, 30);
        t.set_vector(BLOCK, 14, 5, 32);
        t.set(BLOCK, 0, 0, 31);
        assert_eq!(t.vector(BLOCK, 12, 0), Some(30));
        assert_eq!(t.vector(BLOCK, 14, 5), Some(32), "an element of a buffer");
        assert_eq!(t.vector(BLOCK, 14, 6), None, "another element");
        assert_eq!(t.vector(BLOCK, 13, 0), None, "another variable");
        assert_eq!(
            t.vector((Some(0), Some(2), 0), 12, 0),
            None,
            "another block"
        );
        assert_eq!(
            t.vector(BLOCK, 12, 0),
            None,
            "forgotten on leaving the block"
        );
        assert_eq!(t.get(BLOCK, 0, 0), None, "temps forgotten with it");
    }

    #[test]
    fn only_d3d_register_numbers_are_remembered() {
        let mut t = BlockValues::default();
        assert!(t.set(BLOCK, 4095, 3, 9));
        assert_eq!(t.get(BLOCK, 4095, 3), Some(9));
        // Not remembered, and `set` says so (the emitter then stores at once).
        assert!(!t.set(BLOCK, 4096, 3, 9));
        assert_eq!(t.get(BLOCK, 4096, 3), None, "past 4096 temps: never known");
        assert!(!t.set(BLOCK, u32::MAX, 3, 9));
        assert_eq!(t.get(BLOCK, u32::MAX, 3), None, "no key: never known");
    }
}
