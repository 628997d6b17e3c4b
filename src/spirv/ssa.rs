//! Temps (`r#`) as SSA values, built while the code is emitted (Braun et al., "Simple and
//! Efficient Construction of Static Single Assignment Form", 2013).
//!
//! Each temp component has a current value per block. A write sets it; a read takes the
//! block's value, or asks the block's predecessors: one predecessor gives its value, several
//! give an `OpPhi` at the block's start whose operands are their values. A block whose
//! predecessors are not all known yet is *unsealed* (a loop header before its back edge, a
//! `case` block before the `switch` that jumps to it): a read there makes an incomplete phi,
//! completed when the emitter seals the block. Every other block is begun after all the
//! branches to it, and is sealed from the start.
//!
//! The merge block of an `if` or `switch`, and the header of a loop once it is sealed,
//! know which temp components their construct writes: a look-up of any other goes straight
//! on at the block the construct is entered from, so that a chain of constructs makes no
//! phi for a value none of them changes.
//!
//! Phis are kept aside while the function is emitted. When it ends, phis whose operands are
//! all one value (or the phi itself) are replaced by that value, until none is left, and the
//! others are placed at the start of their blocks.
//!
//! A component read on a path where nothing wrote it is 0 (D3D leaves it undefined).
//!
//! Every temp is an SSA value: subroutines are inlined where they are called
//! ([`super::subroutines`]). A hull shader's phases are functions, but each phase has temps
//! of its own (D3D gives a phase no values of another), so each phase's function builds its
//! own SSA form.

use smallvec::SmallVec;
use spirv::Word;

use super::builder::{Instruction, Operand, Operands};
use super::emitter::Emitter;
use super::module::{built, Scalar};
use crate::error::Result;
use crate::fast_hash::HashMap;

/// A phi of a temp component, kept aside until its function ends.
#[derive(Debug, Clone)]
struct Phi {
    id: Word,
    /// The label of its block.
    block: Word,
    /// The temp component's type.
    scalar: Scalar,
    key: u32,
    /// (value, predecessor label) pairs; empty while incomplete.
    operands: SmallVec<[(Word, Word); 2]>,
}

/// The SSA state of the function being emitted.
#[derive(Debug, Default)]
pub struct Ssa {
    /// The current value of each temp component (key) at the end of each block (label)
    /// where it is known.
    defs: HashMap<(Word, u32), Word>,
    /// The unsealed blocks, with the indices of their incomplete phis.
    unsealed: HashMap<Word, SmallVec<[usize; 4]>>,
    phis: Vec<Phi>,
    /// Phis whose operands are still to be found.
    pending: Vec<usize>,
    /// The open `if`, `loop` and `switch` constructs, innermost last: the block each one is
    /// entered from (0 when none is known) and the keys written inside it so far.
    open: Vec<(Word, Vec<u32>)>,
    /// Emptied key lists of closed constructs, for the next ones opened.
    spare: Vec<Vec<u32>>,
    /// The merge block of each closed `if` and `switch` (and the header of each closed
    /// loop), with the block the construct is entered from and the keys written inside it
    /// (sorted): a key written in none of the construct's blocks has, at the merge, the
    /// value it had where the construct was entered, so that a look-up goes on there
    /// instead of making a phi.
    /// The keys are a range of [`Ssa::written`].
    merges: HashMap<Word, (Word, KeyRange)>,
    /// The keys written in the closed constructs, each construct's sorted.
    written: Vec<u32>,
}

/// A range of [`Ssa::written`]: start and length.
#[derive(Debug, Clone, Copy)]
struct KeyRange(u32, u32);

/// Tables that held more entries than this are let go when their function ends (a large
/// shader's), instead of being kept emptied.
const KEPT_ENTRIES: usize = 4096;

impl Ssa {
    /// Forgets everything (a translation that failed may leave some), keeping the memory,
    /// with room for a typical function's values.
    pub fn forget(&mut self) {
        self.defs.clear();
        self.unsealed.clear();
        self.phis.clear();
        self.pending.clear();
        self.open.clear();
        self.merges.clear();
        self.written.clear();
        self.defs.reserve(32);
    }

    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        use crate::fast_hash::{map_bytes, vec_bytes};
        map_bytes(&self.defs)
            + map_bytes(&self.unsealed)
            + map_bytes(&self.merges)
            + vec_bytes(&self.phis)
            + vec_bytes(&self.pending)
            + vec_bytes(&self.open)
            + vec_bytes(&self.spare)
            + vec_bytes(&self.written)
    }

    /// The key of a temp component.
    fn key(register: u32, component: u8) -> u32 {
        register.wrapping_mul(4) | u32::from(component & 3)
    }
}

impl Emitter<'_> {
    /// The label of the block being emitted.
    fn ssa_block(&self) -> Result<Word> {
        self.m
            .b
            .selected_label()
            .ok_or_else(|| self.internal("a temp accessed outside a block"))
    }

    /// Sets a temp component's current value in the block being emitted.
    pub fn ssa_write(&mut self, register: u32, component: u8, value: Word) -> Result<()> {
        let block = self.ssa_block()?;
        let key = Ssa::key(register, component);
        if let Some(earlier) = self.ssa.defs.insert((block, key), value) {
            // A held component nothing read is never made.
            if earlier != value && self.m.b.is_held(earlier) {
                self.m.b.drop_held(earlier);
            }
        }
        if let Some((_, written)) = self.ssa.open.last_mut() {
            written.push(key);
        }
        Ok(())
    }

    /// Opens a structured construct entered from `entry` (the block being emitted: an
    /// `if`'s or `switch`'s header, the block before a loop; none when it is closed).
    pub fn ssa_open_construct(&mut self, entry: Option<Word>) {
        let keys = self.ssa.spare.pop().unwrap_or_default();
        self.ssa.open.push((entry.unwrap_or(0), keys));
    }

    /// Closes the innermost construct; `merge` is the block where its paths meet again
    /// with no branch from outside it but from the header: an `if`'s or `switch`'s merge, a
    /// loop's (sealed) header.
    pub fn ssa_close_construct(&mut self, merge: Option<Word>) {
        let Some((entry, mut written)) = self.ssa.open.pop() else {
            return;
        };
        written.sort_unstable();
        written.dedup();
        if let Some((_, outer)) = self.ssa.open.last_mut() {
            outer.extend_from_slice(&written);
        }
        if let (Some(merge), true) = (merge, entry != 0) {
            let start = self.ssa.written.len() as u32;
            self.ssa.written.extend_from_slice(&written);
            let range = KeyRange(start, written.len() as u32);
            self.ssa.merges.insert(merge, (entry, range));
        }
        written.clear();
        self.ssa.spare.push(written);
    }

    /// A temp component's current value in the block being emitted, of scalar type
    /// `scalar`.
    pub fn ssa_read(&mut self, register: u32, component: u8, scalar: Scalar) -> Result<Word> {
        let block = self.ssa_block()?;
        let key = Ssa::key(register, component);
        if let Some(&value) = self.ssa.defs.get(&(block, key)) {
            // A held component is made where it is first read.
            if self.m.b.is_held(value) {
                built(self.m.b.release(value))?;
            }
            return Ok(value);
        }
        let value = self.ssa_lookup(block, key, scalar);
        self.ssa_complete_pending();
        Ok(value)
    }

    /// A temp component's value in the block being emitted when the block wrote it, held or
    /// not (`None` otherwise): for a read that may take the whole vector the components
    /// came from, without making them.
    pub fn ssa_peek(&self, register: u32, component: u8) -> Option<Word> {
        let block = self.m.b.selected_label()?;
        self.ssa
            .defs
            .get(&(block, Ssa::key(register, component)))
            .copied()
    }

    /// Marks a block as unsealed: branches to it will be added after it is begun.
    pub fn ssa_unseal(&mut self, label: Word) {
        self.ssa.unsealed.insert(label, SmallVec::new());
    }

    /// Seals a block: all branches to it are known; its incomplete phis get their operands.
    pub fn ssa_seal(&mut self, label: Word) {
        let Some(incomplete) = self.ssa.unsealed.remove(&label) else {
            return;
        };
        self.ssa.pending.extend(incomplete);
        self.ssa_complete_pending();
    }

    /// The value of temp component `key` (of type `scalar`) at the end of block `block` (0
    /// where nothing wrote it): walks up single predecessors, makes a phi where a block has
    /// several or is unsealed. New phis are queued for their operands.
    ///
    /// The value found is remembered at `block` and at the first merge the walk passes on
    /// to where its construct is entered: a walk from a later block, inside or after the
    /// next construct, stops there. It is not remembered at the other blocks of the walk: a
    /// chain of `if`s (every bounds-checked load and store is one) would put an entry for
    /// each temp component read after it at each merge, most of the table.
    fn ssa_lookup(&mut self, block: Word, key: u32, scalar: Scalar) -> Word {
        let mut remember: SmallVec<[Word; 2]> = SmallVec::new();
        let mut hopped = false;
        let mut at = block;
        let value = loop {
            if let Some(&value) = self.ssa.defs.get(&(at, key)) {
                break value;
            }
            if self.ssa.unsealed.contains_key(&at) {
                let phi = self.ssa_new_phi(at, key, scalar);
                if let Some(incomplete) = self.ssa.unsealed.get_mut(&at) {
                    incomplete.push(phi);
                }
                break self.ssa.phis[phi].id;
            }
            let preds = self.m.b.predecessors(at);
            match preds.len() {
                0 => {
                    let zero = self.m.constant_bits(scalar, 0);
                    self.ssa.defs.insert((at, key), zero);
                    break zero;
                }
                1 => {
                    if at == block {
                        remember.push(at);
                    }
                    at = preds[0];
                }
                _ => {
                    // A merge whose construct does not write the key: the value where the
                    // construct is entered.
                    if let Some(&(entry, KeyRange(start, len))) = self.ssa.merges.get(&at) {
                        let written = &self.ssa.written[start as usize..][..len as usize];
                        if written.binary_search(&key).is_err() {
                            if !hopped {
                                hopped = true;
                                remember.push(at);
                            }
                            at = entry;
                            continue;
                        }
                    }
                    let phi = self.ssa_new_phi(at, key, scalar);
                    self.ssa.pending.push(phi);
                    break self.ssa.phis[phi].id;
                }
            }
        };
        for block in remember {
            self.ssa.defs.insert((block, key), value);
        }
        value
    }

    /// A new phi of `key` in `block`, recorded as the block's value of it.
    fn ssa_new_phi(&mut self, block: Word, key: u32, scalar: Scalar) -> usize {
        let id = self.m.b.id();
        self.ssa.defs.insert((block, key), id);
        self.ssa.phis.push(Phi {
            id,
            block,
            scalar,
            key,
            operands: SmallVec::new(),
        });
        self.ssa.phis.len() - 1
    }

    /// Finds the operands of the queued phis (which may queue more).
    fn ssa_complete_pending(&mut self) {
        while let Some(phi) = self.ssa.pending.pop() {
            let Phi {
                block, scalar, key, ..
            } = self.ssa.phis[phi];
            let preds: SmallVec<[Word; 4]> = self.m.b.predecessors(block).into();
            let mut operands = SmallVec::new();
            for pred in preds {
                let value = self.ssa_lookup(pred, key, scalar);
                operands.push((value, pred));
            }
            self.ssa.phis[phi].operands = operands;
        }
    }

    /// Ends the SSA form of the function being emitted (before its `OpFunctionEnd`):
    /// trivial phis are replaced by their value, the others placed at their blocks' starts.
    pub fn ssa_finish_function(&mut self) -> Result<()> {
        if !self.ssa.unsealed.is_empty() {
            return Err(self.internal("a function ends with an unsealed block"));
        }
        let mut phis = std::mem::take(&mut self.ssa.phis);
        self.ssa.open.clear();
        if self.ssa.defs.len() > KEPT_ENTRIES {
            // A large function's tables go before the phis are placed, not after.
            self.ssa.defs = HashMap::default();
            self.ssa.merges = HashMap::default();
            self.ssa.written = Vec::new();
        } else {
            self.ssa.defs.clear();
            self.ssa.merges.clear();
            self.ssa.written.clear();
        }
        if phis.is_empty() {
            return Ok(());
        }
        // Replace trivial phis until none is left.
        let mut alias: HashMap<Word, Word> = HashMap::default();
        let resolve = |alias: &HashMap<Word, Word>, mut id: Word| {
            while let Some(&to) = alias.get(&id) {
                id = to;
            }
            id
        };
        loop {
            let mut changed = false;
            for phi in &phis {
                if alias.contains_key(&phi.id) {
                    continue;
                }
                let mut same = None;
                let mut trivial = true;
                for &(value, _) in &phi.operands {
                    let value = resolve(&alias, value);
                    if value == phi.id || Some(value) == same {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                        break;
                    }
                    same = Some(value);
                }
                if trivial {
                    let to = match same {
                        Some(value) => value,
                        None => self.m.constant_bits(phi.scalar, 0),
                    };
                    alias.insert(phi.id, to);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        phis.retain(|phi| !alias.contains_key(&phi.id));
        // Each block's phis at its start, in the order they were made.
        let mut by_block: HashMap<Word, Vec<Instruction>> = HashMap::default();
        for phi in &phis {
            let ty = self.m.scalar(phi.scalar);
            let mut operands = Operands::new();
            for &(value, pred) in &phi.operands {
                operands.push(Operand::IdRef(resolve(&alias, value)));
                operands.push(Operand::IdRef(pred));
            }
            by_block
                .entry(phi.block)
                .or_default()
                .push(crate::spirv::builder::inst(
                    spirv::Op::Phi,
                    Some(ty),
                    Some(phi.id),
                    operands,
                ));
        }
        let f = self
            .m
            .b
            .selected_function()
            .ok_or_else(|| self.internal("phis outside a function"))?;
        let function = &mut self.m.b.module_mut().functions[f];
        if !alias.is_empty() {
            for block in &mut function.blocks {
                for inst in &mut block.instructions {
                    for operand in &mut inst.operands {
                        if let Operand::IdRef(id) = operand {
                            *id = resolve(&alias, *id);
                        }
                    }
                }
            }
        }
        for block in &mut function.blocks {
            let Some(label) = block.label_id() else {
                continue;
            };
            if let Some(phis) = by_block.remove(&label) {
                block.instructions.reserve_exact(phis.len());
                block.instructions.splice(0..0, phis);
            }
        }
        phis.clear();
        self.ssa.phis = phis;
        Ok(())
    }
}
