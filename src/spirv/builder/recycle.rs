//! The memory of a finished module, kept by a [`crate::Translator`] for the next module to be
//! built in: the sections' lists and the blocks' instruction lists, emptied, so that a
//! translation does not allocate (and free) them again. (Instructions keep their operands
//! inline, so there are no operand lists to keep.)

use super::held_values::HeldValues;
use super::{Instruction, Module};
use smallvec::SmallVec;

/// The most block lists kept.
const MAX_LISTS: usize = 64;

/// The largest block list kept, in instructions.
const MAX_LIST_CAPACITY: usize = 1024;

/// The most memory of block lists kept, in bytes.
const MAX_LIST_BYTES: usize = 64 * 1024;

/// The largest section list kept, in instructions (three sections of at most 16 KiB each).
const MAX_SECTION_CAPACITY: usize = 256;

/// An emptied module and emptied block lists.
#[derive(Debug, Default)]
pub struct Recycled {
    /// A module whose sections are empty (with their memory), boxed so that moving it from
    /// stage to stage copies a pointer.
    module: Option<Box<Module>>,
    /// Empty instruction lists.
    block_lists: Vec<Vec<Instruction>>,
    /// The bytes of memory of the block lists.
    list_bytes: usize,
    /// The bytes of memory of the module's sections.
    section_bytes: usize,
    /// The emptied tables of held values.
    held: HeldValues,
}

/// The most bytes of held-value tables kept.
const MAX_HELD_BYTES: usize = 16 * 1024;

impl Recycled {
    /// Keeps a finished module's memory.
    pub fn keep(&mut self, mut module: Box<Module>) {
        for function in module.functions.drain(..) {
            for mut block in function.blocks {
                block.instructions.clear();
                self.keep_list(block.instructions);
            }
        }
        module.header = None;
        module.memory_model = None;
        module.strings.clear();
        // The small sections are inline (a list that spilled is small too: the kinds of
        // capability, extension and execution mode are few).
        module.capabilities.clear();
        module.extensions.clear();
        module.ext_inst_imports.clear();
        module.entry_points.clear();
        module.execution_modes.clear();
        use crate::fast_hash::spilled_bytes;
        let mut section_bytes = spilled_bytes(&module.capabilities)
            + spilled_bytes(&module.extensions)
            + spilled_bytes(&module.ext_inst_imports)
            + spilled_bytes(&module.entry_points)
            + spilled_bytes(&module.execution_modes);
        for section in [
            &mut module.debug_names,
            &mut module.annotations,
            &mut module.types_global_values,
        ] {
            section.clear();
            if section.capacity() > MAX_SECTION_CAPACITY {
                *section = Vec::new();
            }
            section_bytes += crate::fast_hash::vec_bytes(section);
        }
        if module.strings.capacity() > MAX_SECTION_CAPACITY {
            module.strings = SmallVec::new();
        }
        self.section_bytes = section_bytes
            + crate::fast_hash::vec_bytes(&module.functions)
            + spilled_bytes(&module.strings);
        self.module = Some(module);
    }

    /// Keeps an instruction list (emptied), unless enough are kept or it is large.
    pub fn keep_list(&mut self, mut list: Vec<Instruction>) {
        let bytes = crate::fast_hash::vec_bytes(&list);
        if self.block_lists.len() < MAX_LISTS
            && list.capacity() <= MAX_LIST_CAPACITY
            && self.list_bytes + bytes <= MAX_LIST_BYTES
        {
            list.clear();
            self.list_bytes += bytes;
            self.block_lists.push(list);
        }
    }

    /// The emptied module (a new one when none is kept).
    pub fn take_module(&mut self) -> Box<Module> {
        self.section_bytes = 0;
        self.module.take().unwrap_or_default()
    }

    /// An empty instruction list: a kept one, or a new one with room for `capacity`.
    pub fn list(&mut self, capacity: usize) -> Vec<Instruction> {
        match self.block_lists.pop() {
            Some(list) => {
                self.list_bytes -= crate::fast_hash::vec_bytes(&list);
                list
            }
            None => Vec::with_capacity(capacity),
        }
    }

    /// Keeps the (emptied) tables of held values, unless they are large.
    pub fn keep_held(&mut self, mut held: HeldValues) {
        held.clear();
        if held.held_bytes() <= MAX_HELD_BYTES {
            self.held = held;
        }
    }

    /// The kept tables of held values (empty ones when none are kept).
    pub fn take_held(&mut self) -> HeldValues {
        std::mem::take(&mut self.held)
    }

    /// The bytes of memory held.
    pub fn held_bytes(&self) -> usize {
        self.section_bytes
            + crate::fast_hash::vec_bytes(&self.block_lists)
            + self.list_bytes
            + self.held.held_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::builder::{Block, Function, Operands};
    use spirv::Op;

    fn nop() -> Instruction {
        crate::spirv::builder::inst(Op::Nop, None, None, Operands::new())
    }

    #[test]
    fn a_kept_module_comes_back_empty_with_its_lists() {
        let mut module = Module::new();
        module.types_global_values.extend([nop(), nop()]);
        module.functions.push(Function {
            blocks: vec![
                Block {
                    label: 0,
                    instructions: Vec::with_capacity(40),
                },
                Block {
                    label: 0,
                    instructions: vec![nop(); 3],
                },
            ],
            ..Function::default()
        });
        let mut r = Recycled::default();
        r.keep(Box::new(module));
        let m = r.take_module();
        assert!(
            crate::spirv::builder::global_lists(&m)
                .iter()
                .all(|l| l.is_empty()),
            "every section is empty"
        );
        assert!(m.functions.is_empty());
        assert!(
            m.types_global_values.capacity() >= 2,
            "the section keeps its memory"
        );
        let a = r.list(8);
        let b = r.list(8);
        assert!(a.is_empty() && b.is_empty());
        assert_eq!(
            [
                a.capacity().max(b.capacity()) >= 40,
                r.list(8).capacity() == 8
            ],
            [true, true],
            "the two block lists come back, then new ones"
        );
    }

    #[test]
    fn a_large_section_is_not_kept() {
        let mut module = Module::new();
        module.types_global_values = Vec::with_capacity(MAX_SECTION_CAPACITY + 1);
        module.annotations = Vec::with_capacity(MAX_SECTION_CAPACITY);
        let mut r = Recycled::default();
        r.keep(Box::new(module));
        let m = r.take_module();
        assert_eq!(m.types_global_values.capacity(), 0);
        assert_eq!(m.annotations.capacity(), MAX_SECTION_CAPACITY);
    }

    #[test]
    fn large_lists_and_too_many_are_not_kept() {
        let mut r = Recycled::default();
        r.keep_list(Vec::with_capacity(MAX_LIST_CAPACITY + 1));
        assert_eq!(r.list(1).capacity(), 1, "a large list is dropped");
        for _ in 0..MAX_LISTS + 5 {
            r.keep_list(Vec::with_capacity(2));
        }
        assert_eq!(r.block_lists.len(), MAX_LISTS);
        assert!(r.held_bytes() > 0);
        let mut r = Recycled::default();
        for _ in 0..MAX_LISTS {
            r.keep_list(Vec::with_capacity(MAX_LIST_CAPACITY));
        }
        assert!(
            r.list_bytes <= MAX_LIST_BYTES,
            "{} bytes of lists kept",
            r.list_bytes
        );
    }
}
