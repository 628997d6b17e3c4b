//! Dead-code and dead-declaration removal: instructions without side effects whose results
//! nothing uses, then private and function variables, constants and types nothing uses
//! (with their names, decorations and entry-point interface entries), then unused
//! extended-instruction imports.

use crate::spirv::builder::{Instruction, Module, Operand};
use spirv::{Capability, Op, StorageClass, Word};

use super::info::{for_each_use, ids, is_removable};

/// Use counts and removals, by id (plain vectors: every id of the module is below its
/// bound, and the pass reads and writes each count a few times).
struct Uses {
    counts: Vec<u32>,
    removed: Vec<bool>,
    any_removed: bool,
}

/// The pass's tables, kept from one run to the next (see [`super::Kept`]).
#[derive(Default)]
pub struct Tables {
    counts: Vec<u32>,
    removed: Vec<bool>,
    dead: Vec<bool>,
}

impl Tables {
    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        self.counts.capacity() * 4 + self.removed.capacity() + self.dead.capacity()
    }
}

impl Uses {
    #[inline]
    fn count(&self, id: Word) -> u32 {
        self.counts.get(id as usize).copied().unwrap_or(0)
    }

    #[inline]
    fn add(&mut self, id: Word) {
        match self.counts.get_mut(id as usize) {
            Some(count) => *count += 1,
            None => {
                self.counts.resize(id as usize + 1, 0);
                self.counts[id as usize] = 1;
            }
        }
    }

    /// Counts the uses an instruction makes.
    #[inline]
    fn add_uses_of(&mut self, inst: &Instruction) {
        for_each_use(inst, |id| self.add(id));
    }

    /// Removes an instruction: its id is gone and the uses it made are released.
    fn remove(&mut self, inst: &Instruction, id: Word) {
        for_each_use(inst, |used| {
            if let Some(count) = self.counts.get_mut(used as usize) {
                *count = count.saturating_sub(1);
            }
        });
        if id as usize >= self.removed.len() {
            self.removed.resize(id as usize + 1, false);
        }
        self.removed[id as usize] = true;
        self.any_removed = true;
    }
}

/// Runs the pass.
#[inline(never)]
pub fn run(module: &mut Module, tables: &mut Tables) {
    let bound = module.header.as_ref().map_or(0, |h| h.bound);
    let mut counts = std::mem::take(&mut tables.counts);
    let mut removed = std::mem::take(&mut tables.removed);
    counts.clear();
    counts.resize(bound as usize, 0);
    removed.clear();
    removed.resize(bound as usize, false);
    let mut u = Uses {
        counts,
        removed,
        any_removed: false,
    };
    count_uses(module, &mut u);
    // Which instructions of the list being walked go (reused from list to list).
    let longest = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().map(|b| b.instructions.len()))
        .chain([module.types_global_values.len()])
        .max()
        .unwrap_or(0);
    let mut dead = std::mem::take(&mut tables.dead);
    dead.reserve(longest);
    for function in module.functions.iter_mut() {
        for block in function.blocks.iter_mut().rev() {
            // Walked backwards, so that a use goes before the definition it keeps alive.
            dead.clear();
            dead.resize(block.instructions.len(), false);
            for (at, inst) in block.instructions.iter().enumerate().rev() {
                let Some(id) = inst.result_id() else { continue };
                let op = inst.class.opcode;
                if (is_removable(op) || op == Op::Variable) && u.count(id) == 0 {
                    u.remove(inst, id);
                    dead[at] = true;
                }
            }
            drop_marked(&mut block.instructions, &dead);
        }
    }
    dead.clear();
    dead.resize(module.types_global_values.len(), false);
    for (at, inst) in module.types_global_values.iter().enumerate().rev() {
        let Some(id) = inst.result_id() else { continue };
        if u.count(id) == 0 && removable_global(inst) {
            u.remove(inst, id);
            dead[at] = true;
        }
    }
    drop_marked(&mut module.types_global_values, &dead);
    module.ext_inst_imports.retain(|inst| {
        let unused = inst.result_id().is_some_and(|id| u.count(id) == 0);
        if unused {
            u.any_removed = true;
        }
        !unused
    });
    let any_removed = u.any_removed;
    *tables = Tables {
        counts: u.counts,
        removed: u.removed,
        dead,
    };
    if !any_removed {
        return;
    }
    let removed = |id: Word| tables.removed.get(id as usize).copied().unwrap_or(false);
    drop_type_capabilities(module);
    super::info::drop_names_of(module, removed);
    for entry in &mut module.entry_points {
        entry
            .operands
            .retain(|o| !matches!(o, Operand::IdRef(id) if removed(*id)));
    }
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
