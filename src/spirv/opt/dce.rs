//! Dead-code and dead-declaration removal: instructions without side effects whose results
//! nothing uses, then private and function variables, constants and types nothing uses
//! (with their names, decorations and entry-point interface entries), then unused
//! extended-instruction imports.

use crate::spirv::builder::{Instruction, Module, Operand};
use spirv::{Capability, Op, StorageClass, Word};

use super::info::{for_each_use, ids, is_removable};

/// The bit of an entry of [`Uses::ids`] that says the id's instruction was removed; the
/// bits below count the id's uses (a module has fewer than 2^31 operands).
const REMOVED: u32 = 1 << 31;

/// Use counts and removals, by id, in one plain vector (every id of the module is below
/// its bound, and the pass reads and writes each entry a few times).
struct Uses {
    ids: Vec<u32>,
    any_removed: bool,
}

/// The pass's table, kept from one run to the next (see [`super::Kept`]).
#[derive(Default)]
pub struct Tables {
    ids: Vec<u32>,
}

impl Tables {
    /// Takes over a table of words by id that an earlier pass is done with, when it is
    /// larger than this one's own (so that a run that keeps no tables allocates one less).
    pub fn adopt(&mut self, memory: Vec<u32>) {
        if memory.capacity() > self.ids.capacity() {
            self.ids = memory;
        }
    }

    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        self.ids.capacity() * 4
    }
}

impl Uses {
    #[inline]
    fn count(&self, id: Word) -> u32 {
        self.ids
            .get(id as usize)
            .map_or(0, |entry| entry & !REMOVED)
    }

    #[inline]
    fn add(&mut self, id: Word) {
        match self.ids.get_mut(id as usize) {
            Some(entry) => *entry += 1,
            None => {
                self.ids.resize(id as usize + 1, 0);
                self.ids[id as usize] = 1;
            }
        }
    }

    /// Whether the instruction of `id` was removed.
    #[inline]
    fn is_removed(&self, id: Word) -> bool {
        self.ids
            .get(id as usize)
            .is_some_and(|entry| entry & REMOVED != 0)
    }

    /// Whether `inst` was removed (it has a result, and that id's instruction was).
    #[inline]
    fn was_removed(&self, inst: &Instruction) -> bool {
        inst.result_id().is_some_and(|id| self.is_removed(id))
    }

    /// Counts the uses an instruction makes.
    #[inline]
    fn add_uses_of(&mut self, inst: &Instruction) {
        for_each_use(inst, |id| self.add(id));
    }

    /// Removes an instruction: its id is gone and the uses it made are released.
    fn remove(&mut self, inst: &Instruction, id: Word) {
        for_each_use(inst, |used| {
            if let Some(entry) = self.ids.get_mut(used as usize) {
                if *entry & !REMOVED != 0 {
                    *entry -= 1;
                }
            }
        });
        if id as usize >= self.ids.len() {
            self.ids.resize(id as usize + 1, 0);
        }
        self.ids[id as usize] |= REMOVED;
        self.any_removed = true;
    }
}

/// Runs the pass.
#[inline(never)]
pub fn run(module: &mut Module, tables: &mut Tables) {
    let bound = module.header.as_ref().map_or(0, |h| h.bound);
    let mut ids = std::mem::take(&mut tables.ids);
    ids.clear();
    ids.resize(bound as usize, 0);
    let mut u = Uses {
        ids,
        any_removed: false,
    };
    count_uses(module, &mut u);
    for function in module.functions.iter_mut() {
        for block in function.blocks.iter_mut().rev() {
            // Walked backwards, so that a use goes before the definition it keeps alive.
            let mut any = false;
            for inst in block.instructions.iter().rev() {
                let Some(id) = inst.result_id() else { continue };
                let op = inst.class.opcode;
                if (is_removable(op) || op == Op::Variable) && u.count(id) == 0 {
                    u.remove(inst, id);
                    any = true;
                }
            }
            if any {
                block.instructions.retain(|inst| !u.was_removed(inst));
            }
        }
    }
    let mut any = false;
    for inst in module.types_global_values.iter().rev() {
        let Some(id) = inst.result_id() else { continue };
        if u.count(id) == 0 && removable_global(inst) {
            u.remove(inst, id);
            any = true;
        }
    }
    if any {
        module
            .types_global_values
            .retain(|inst| !u.was_removed(inst));
    }
    module.ext_inst_imports.retain(|inst| {
        let unused = inst.result_id().is_some_and(|id| u.count(id) == 0);
        if unused {
            u.any_removed = true;
        }
        !unused
    });
    if u.any_removed {
        drop_type_capabilities(module);
        super::info::drop_names_of(module, |id| u.is_removed(id));
        for entry in &mut module.entry_points {
            entry
                .operands
                .retain(|o| !matches!(o, Operand::IdRef(id) if u.is_removed(*id)));
        }
    }
    *tables = Tables { ids: u.ids };
}

/// Removes the items marked dead (in one pass over the list).
pub fn drop_marked<T>(items: &mut Vec<T>, dead: &[bool]) {
    if !dead.contains(&true) {
        return;
    }
    let mut index = 0;
    items.retain(|_| {
        index += 1;
        !dead[index - 1]
    });
}

/// Counts how many times each id is used, not counting names, decorations and entry-point
/// interfaces (which go with the id).
fn count_uses(module: &Module, u: &mut Uses) {
    for entry in &module.entry_points {
        // The entry function (the interface variables do not count).
        if let Some(Operand::IdRef(function)) = entry.operands.get(1) {
            u.add(*function);
        }
    }
    for inst in module
        .execution_modes
        .iter()
        .chain(module.types_global_values.iter())
    {
        u.add_uses_of(inst);
    }
    for function in &module.functions {
        for inst in function.def.iter().chain(&function.parameters) {
            u.add_uses_of(inst);
        }
        for block in &function.blocks {
            for inst in &block.instructions {
                u.add_uses_of(inst);
            }
        }
    }
    // Decorations that refer to other ids (`OpDecorateId`) keep those ids.
    for annotation in &module.annotations {
        for id in ids(&annotation.operands).skip(1) {
            u.add(id);
        }
    }
}

/// Drops the capabilities that only allow a type (`Float64`, `Int64`, `Float16`, `Int16`)
/// when no such type is left.
fn drop_type_capabilities(module: &mut Module) {
    const WIDE_TYPES: [(Capability, Op, u32); 4] = [
        (Capability::Float64, Op::TypeFloat, 64),
        (Capability::Int64, Op::TypeInt, 64),
        (Capability::Float16, Op::TypeFloat, 16),
        (Capability::Int16, Op::TypeInt, 16),
    ];
    // Which of them a type still declares, in one walk over the types.
    let mut present = [false; 4];
    for inst in &module.types_global_values {
        let op = inst.class.opcode;
        if !matches!(op, Op::TypeFloat | Op::TypeInt) {
            continue;
        }
        if let Some(&Operand::LiteralBit32(width)) = inst.operands.first() {
            for (found, &(_, type_op, type_width)) in present.iter_mut().zip(&WIDE_TYPES) {
                *found |= op == type_op && width == type_width;
            }
        }
    }
    if present.iter().all(|&p| p) {
        return;
    }
    let unused = |c: &Capability| {
        WIDE_TYPES
            .iter()
            .zip(present)
            .any(|(&(capability, _, _), found)| !found && capability == *c)
    };
    module
        .capabilities
        .retain(|i| !matches!(i.operands.first(), Some(Operand::Capability(c)) if unused(c)));
}

/// Whether an unused declaration of the types-and-globals section can go.
fn removable_global(inst: &Instruction) -> bool {
    match inst.class.opcode {
        Op::Variable => matches!(
            inst.operands.first(),
            Some(Operand::StorageClass(StorageClass::Private))
        ),
        Op::Constant
        | Op::ConstantComposite
        | Op::ConstantTrue
        | Op::ConstantFalse
        | Op::ConstantNull
        | Op::TypeVector
        | Op::TypePointer
        | Op::TypeArray
        | Op::TypeRuntimeArray
        | Op::TypeInt
        | Op::TypeFloat
        | Op::TypeBool
        | Op::TypeSampledImage => true,
        _ => false,
    }
}
