//! What the emitter knows of values in the block being emitted, so that it does not make the
//! loads the optimiser would remove: the vectors loaded from read-only memory (inputs,
//! constant buffers), so that a component read takes an element of the vector loaded
//! earlier in the block (the optimiser has no pass that would turn component loads into
//! vector loads).
//!
//! What is known holds only within one block and until the next function call.

use spirv::Word;

use crate::fast_hash::HashMap;

/// Where values are known: the selected function and block, and the number of function
/// calls emitted so far.
pub type Place = (Option<usize>, Option<usize>, u32);

/// What is known in one place.
#[derive(Debug, Default)]
pub struct BlockValues {
    /// The vector loaded from read-only memory, by (variable, element index id; 0 for the
    /// variable itself).
    vectors: HashMap<(Word, Word), Word>,
    /// The place the values belong to.
    place: Place,
}

impl BlockValues {
    /// Forgets everything (for the next translation), keeping the memory.
    pub fn forget(&mut self) {
        self.vectors.clear();
        self.place = (None, None, 0);
    }

    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        crate::fast_hash::map_bytes(&self.vectors)
    }

    /// Forgets everything when `place` is not where the values were learnt.
    fn enter(&mut self, place: Place) {
        if self.place != place {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: Place = (Some(0), Some(1), 0);

    #[test]
    fn a_loaded_vector_is_known_in_its_block() {
        let mut t = BlockValues::default();
        assert_eq!(t.vector(BLOCK, 12, 0), None);
        t.set_vector(BLOCK, 12, 0, 30);
        t.set_vector(BLOCK, 14, 5, 32);
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
    }

    #[test]
    fn another_function_or_a_call_forgets() {
        let mut t = BlockValues::default();
        t.set_vector(BLOCK, 12, 0, 30);
        assert_eq!(t.vector((Some(0), Some(1), 1), 12, 0), None, "after a call");
        t.set_vector(BLOCK, 12, 0, 30);
        assert_eq!(
            t.vector((Some(1), Some(1), 0), 12, 0),
            None,
            "another function"
        );
    }
}
