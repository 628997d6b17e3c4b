//! Instruction lists kept from one translation for the next on the same thread, so that a
//! translation's blocks and module sections reuse memory that is already mapped and in
//! cache instead of asking the allocator for it (and giving it back) every time.
//!
//! What is kept is bounded ([`KEPT_BYTES`]), so a thread that once translated a very large
//! shader does not hold its memory.

use super::{Function, Instruction, Module};
use std::cell::RefCell;

/// The most memory of spare lists a thread keeps, in bytes of list capacity.
const KEPT_BYTES: usize = 256 * 1024;

/// The most spare lists a thread keeps (a translation of a typical shader uses about ten;
/// [`list`] searches them).
const KEPT_LISTS: usize = 16;

/// The spare lists of one thread, and the bytes of capacity they hold.
#[derive(Default)]
struct Spares {
    lists: Vec<Vec<Instruction>>,
    bytes: usize,
}

thread_local! {
    static SPARES: RefCell<Spares> = RefCell::new(Spares::default());
}

/// The bytes of capacity of a list.
fn capacity_bytes(list: &Vec<Instruction>) -> usize {
    list.capacity() * std::mem::size_of::<Instruction>()
}

/// An empty list with room for at least `capacity` instructions: a spare one when the thread
/// has one, else a new one.
pub fn list(capacity: usize) -> Vec<Instruction> {
    if capacity == 0 {
        return Vec::new();
    }
    let spare = SPARES.with(|s| {
        let mut s = s.borrow_mut();
        // The smallest list big enough, else the largest (which grows).
        let fits = |l: &&Vec<Instruction>| l.capacity() >= capacity;
        let at = match s.lists.iter().filter(fits).map(Vec::capacity).min() {
            Some(best) => s.lists.iter().position(|l| l.capacity() == best),
            None => {
                let largest = s.lists.iter().map(Vec::capacity).max()?;
                s.lists.iter().position(|l| l.capacity() == largest)
            }
        }?;
        let list = s.lists.swap_remove(at);
        s.bytes -= capacity_bytes(&list);
        Some(list)
    });
    match spare {
        Some(mut list) => {
            list.reserve(capacity);
            list
        }
        None => Vec::with_capacity(capacity),
    }
}

/// Keeps a list (emptied) for a later [`list`], unless the thread keeps enough already.
pub fn keep(mut list: Vec<Instruction>) {
    if list.capacity() == 0 {
        return;
    }
    list.clear();
    SPARES.with(|s| {
        let mut s = s.borrow_mut();
        let bytes = capacity_bytes(&list);
        if s.bytes + bytes <= KEPT_BYTES && s.lists.len() < KEPT_LISTS {
            s.bytes += bytes;
            s.lists.push(list);
        }
    });
}

/// The bytes of list capacity the thread keeps.
#[cfg(test)]
pub fn kept_bytes() -> usize {
    SPARES.with(|s| s.borrow().bytes)
}

impl Module {
    /// Drops the module, keeping its instruction lists for the thread's next module.
    pub fn recycle(self) {
        let Module {
            capabilities,
            extensions,
            ext_inst_imports,
            entry_points,
            execution_modes,
            debug_names,
            annotations,
            types_global_values,
            functions,
            ..
        } = self;
        for list in [
            types_global_values,
            annotations,
            debug_names,
            entry_points,
            execution_modes,
            capabilities,
            extensions,
            ext_inst_imports,
        ] {
            keep(list);
        }
        for Function {
            parameters, blocks, ..
        } in functions
        {
            keep(parameters);
            for block in blocks {
                keep(block.instructions);
            }
        }
    }
}
