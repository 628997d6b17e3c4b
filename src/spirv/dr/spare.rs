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
    let [list] = lists([capacity]);
    list
}

/// Empty lists with room for at least these numbers of instructions (one look-up of the
/// thread's spares for all of them).
pub fn lists<const N: usize>(capacities: [usize; N]) -> [Vec<Instruction>; N] {
    SPARES.with(|s| {
        let mut s = s.borrow_mut();
        capacities.map(|capacity| s.take(capacity))
    })
}

impl Spares {
    /// The smallest spare list with room for `capacity` instructions, else the largest
    /// (grown), else a new one.
    fn take(&mut self, capacity: usize) -> Vec<Instruction> {
        if capacity == 0 {
            return Vec::new();
        }
        let capacities = self.lists.iter().map(Vec::capacity).enumerate();
        let smallest_fit = capacities
            .clone()
            .filter(|&(_, c)| c >= capacity)
            .min_by_key(|&(_, c)| c);
        let best = smallest_fit
            .or_else(|| capacities.max_by_key(|&(_, c)| c))
            .map(|(at, _)| at);
        match best {
            Some(at) => {
                let mut list = self.lists.swap_remove(at);
                self.bytes -= capacity_bytes(&list);
                list.reserve(capacity);
                list
            }
            None => Vec::with_capacity(capacity),
        }
    }

    /// Keeps a list (emptied), unless the thread keeps enough already.
    fn keep(&mut self, mut list: Vec<Instruction>) {
        if list.capacity() == 0 {
            return;
        }
        let bytes = capacity_bytes(&list);
        if self.bytes + bytes <= KEPT_BYTES && self.lists.len() < KEPT_LISTS {
            list.clear();
            self.bytes += bytes;
            self.lists.push(list);
        }
    }
}

/// Frees the lists the thread keeps.
pub fn release() {
    SPARES.with(|s| *s.borrow_mut() = Spares::default());
}

/// Keeps a list (emptied) for a later [`list`], unless the thread keeps enough already.
pub fn keep(list: Vec<Instruction>) {
    SPARES.with(|s| s.borrow_mut().keep(list));
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
        SPARES.with(|s| {
            let mut s = s.borrow_mut();
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
                s.keep(list);
            }
            for Function {
                parameters, blocks, ..
            } in functions
            {
                s.keep(parameters);
                for block in blocks {
                    s.keep(block.instructions);
                }
            }
        });
    }
}
