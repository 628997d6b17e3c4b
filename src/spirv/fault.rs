//! Deliberate miscompilations, for testing only: the differential harness's self-check
//! (`cargo xtask difftest --self-check`) turns one on with [`Options::fault`] and must see the
//! translation disagree with the reference interpreter.
//!
//! The faults: `swapped-operands` (the two sources of `ishl`/`ishr`/`ushr` swapped),
//! `wrong-comparison` (`ilt`/`lt` as less-or-equal), `dropped-saturate` (`_sat` ignored),
//! `loop-exit-off-by-one` (the first exit of each entered loop ignored once),
//! `lost-barrier` (`sync_*_t` emits nothing), `out-of-bounds-write-lands` (raw/structured UAV
//! stores past the end land on the last dword), `wrong-atomic-op` (`atomic_iadd` and
//! `imm_atomic_iadd` as an atomic XOR), `wrong-double-lane` (the second double of a
//! two-double source read from the first), `unclamped-ftoi` (`ftoi`/`ftou` without D3D's
//! saturation and NaN → 0: out-of-range and NaN sources give x86's `0x80000000`).
//!
//! Each fault is a change in what the emitter writes, so it is there with the optimiser on
//! or off (the optimiser keeps a module's meaning, and a fault changes the meaning). Every
//! emission site is marked `FAULT INJECTION` in the back end; with `fault: None` the module
//! is the one the back end always wrote.
//!
//! [`Options::fault`]: super::Options::fault

use spirv::{StorageClass, Word};

use super::emitter::Emitter;
use super::module::{built, Scalar};
use crate::error::Result;
use crate::ir::{Program, RegisterKind};
use crate::isa::Opcode;
use crate::passes::doubles::SourceRead;

/// A deliberate miscompilation the differential harness's self-check must catch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// The two sources of every `ishl`, `ishr` and `ushr` are swapped.
    SwappedOperands,
    /// `ilt` and `lt` are translated as less-or-equal.
    WrongComparison,
    /// `_sat` is ignored on every float instruction.
    DroppedSaturate,
    /// Every `loop` runs one extra iteration: the first `break` or taken `breakc` that would
    /// leave the loop after it is entered is ignored.
    LoopExitOffByOne,
    /// `sync` with the thread-group flag (`sync_*_t`) emits no barrier at all.
    LostBarrier,
    /// Raw and structured UAV stores past the end of the buffer write the last dword
    /// instead of nothing.
    OutOfBoundsWriteLands,
    /// `atomic_iadd` and `imm_atomic_iadd` are an atomic XOR.
    WrongAtomicOp,
    /// In a double instruction with two doubles (`.xyzw`), the second double of each source
    /// is read from the first (`xy` instead of `zw`).
    WrongDoubleLane,
    /// `ftoi`/`ftou` convert without D3D's saturation to the integer range and NaN → 0:
    /// out-of-range and NaN sources give `0x80000000` (x86's "integer indefinite").
    UnclampedFtoi,
}

impl Fault {
    /// Every fault, in the order of the documentation.
    pub const ALL: [Fault; 9] = [
        Fault::SwappedOperands,
        Fault::WrongComparison,
        Fault::DroppedSaturate,
        Fault::LoopExitOffByOne,
        Fault::LostBarrier,
        Fault::OutOfBoundsWriteLands,
        Fault::WrongAtomicOp,
        Fault::WrongDoubleLane,
        Fault::UnclampedFtoi,
    ];

    /// The fault's kebab-case name (`swapped-operands`).
    pub fn name(self) -> &'static str {
        match self {
            Fault::SwappedOperands => "swapped-operands",
            Fault::WrongComparison => "wrong-comparison",
            Fault::DroppedSaturate => "dropped-saturate",
            Fault::LoopExitOffByOne => "loop-exit-off-by-one",
            Fault::LostBarrier => "lost-barrier",
            Fault::OutOfBoundsWriteLands => "out-of-bounds-write-lands",
            Fault::WrongAtomicOp => "wrong-atomic-op",
            Fault::WrongDoubleLane => "wrong-double-lane",
            Fault::UnclampedFtoi => "unclamped-ftoi",
        }
    }

    /// The fault of a [`Fault::name`].
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }

    /// What the fault breaks, in one line (for reports).
    pub fn description(self) -> &'static str {
        match self {
            Fault::SwappedOperands => "the two sources of ishl, ishr and ushr are swapped",
            Fault::WrongComparison => "ilt and lt compare less-or-equal",
            Fault::DroppedSaturate => "_sat is ignored on float instructions",
            Fault::LoopExitOffByOne => "the first exit of each entered loop is ignored once",
            Fault::LostBarrier => "sync with the thread-group flag emits no barrier",
            Fault::OutOfBoundsWriteLands => {
                "raw/structured UAV stores past the end land on the last dword"
            }
            Fault::WrongAtomicOp => "atomic_iadd and imm_atomic_iadd are an atomic xor",
            Fault::WrongDoubleLane => "the second double of a source is read from the first",
            Fault::UnclampedFtoi => "ftoi/ftou give 0x80000000 out of range and for NaN",
        }
    }
}

impl Fault {
    /// Whether `program` has an instruction the fault changes (a site of the fault): without
    /// one, the fault leaves the program's module as it is. (A self-check picks programs
    /// the fault can break; whether a site's change shows in the results depends on the
    /// values.)
    pub fn applies_to(self, program: &Program) -> bool {
        use Opcode as O;
        for (index, instruction) in program.instructions.iter().enumerate() {
            if instruction.declaration.is_some() {
                continue;
            }
            let opcode = instruction.opcode;
            let site = match self {
                Fault::SwappedOperands => matches!(opcode, O::Ishl | O::Ishr | O::Ushr),
                Fault::WrongComparison => matches!(opcode, O::Ilt | O::Lt),
                Fault::DroppedSaturate => instruction.saturate,
                Fault::LoopExitOffByOne => opcode == O::Loop && loop_has_exit(program, index),
                Fault::LostBarrier => opcode == O::Sync && instruction.sync.threads_in_group,
                Fault::OutOfBoundsWriteLands => {
                    matches!(opcode, O::StoreRaw | O::StoreStructured)
                        && program
                            .dsts(instruction)
                            .first()
                            .is_some_and(|d| d.kind == RegisterKind::UnorderedAccessView)
                }
                Fault::WrongAtomicOp => matches!(opcode, O::AtomicIadd | O::ImmAtomicIadd),
                Fault::WrongDoubleLane => {
                    match crate::passes::doubles::legalize_instruction(program, index, instruction)
                    {
                        Ok(Some(legal)) => match legal.lanes.as_slice() {
                            [first, second] => first.srcs.iter().zip(&second.srcs).any(|(a, b)| {
                                matches!((a, b), (SourceRead::Double { .. }, SourceRead::Double { .. }) if a != b)
                            }),
                            _ => false,
                        },
                        _ => false,
                    }
                }
                Fault::UnclampedFtoi => matches!(opcode, O::Ftoi | O::Ftou),
            };
            if site {
                return true;
            }
        }
        false
    }
}

/// Whether the `loop` at instruction `index` has a `break` or `breakc` that leaves it (one
/// not inside a nested `loop` or `switch`).
fn loop_has_exit(program: &Program, index: usize) -> bool {
    use Opcode as O;
    let mut depth = 0u32;
    for instruction in program.instructions.iter().skip(index + 1) {
        match instruction.opcode {
            O::Loop | O::Switch => depth += 1,
            O::EndLoop | O::EndSwitch if depth == 0 => return false,
            O::EndLoop | O::EndSwitch => depth -= 1,
            O::Break | O::Breakc if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Emitter<'_> {
    /// Whether the options inject `fault`.
    pub(super) fn fault(&self, fault: Fault) -> bool {
        self.options.fault == Some(fault)
    }

    /// `loop-exit-off-by-one`: a fresh hidden flag for a loop being entered, cleared in the
    /// block before the loop's header (so it is cleared every time the loop is entered);
    /// `None` without the fault or when no `break` leaves the loop.
    pub(super) fn fault_loop_flag(&mut self) -> Result<Option<Word>> {
        if !self.fault(Fault::LoopExitOffByOne) || !loop_has_exit(self.program, self.at.0 as usize)
        {
            return Ok(None);
        }
        let boolean = self.m.scalar(Scalar::Bool);
        let flag = self.global(boolean, StorageClass::Private, None);
        let no = self.m.b.constant_false(boolean);
        built(self.m.store(flag, no))?;
        Ok(Some(flag))
    }

    /// `loop-exit-off-by-one`: a jump to a loop's merge block that is taken only when the
    /// loop's flag was already set, and sets it (the first exit is ignored: the code after
    /// the `break` runs on).
    pub(super) fn fault_loop_exit(&mut self, flag: Word, merge: Word) -> Result<()> {
        let boolean = self.m.scalar(Scalar::Bool);
        let ignored_before = built(self.m.load(boolean, flag))?;
        let yes = self.m.b.constant_true(boolean);
        built(self.m.store(flag, yes))?;
        self.conditional(ignored_before, |e| e.branch(merge))
    }

    /// `unclamped-ftoi`: a float-to-integer conversion without D3D's saturation: a source
    /// outside `[low, limit)` or NaN gives `0x80000000`, the "integer indefinite" value of
    /// x86's conversions (what a bare `OpConvertFTo*` gives on such hardware; SPIR-V leaves
    /// it undefined, and lavapipe saturates, so the fault spells the value out). `converted`
    /// is the conversion of the clamped source.
    pub(super) fn fault_unclamped(
        &mut self,
        ty: Word,
        to: Scalar,
        x: super::emitter::Val,
        low: Word,
        limit: Word,
        converted: Word,
    ) -> Result<Word> {
        let boolean = self.m.vector(Scalar::Bool, x.count);
        let above_low = built(self.m.b.f_ord_greater_than_equal(boolean, None, x.id, low))?;
        let below_limit = built(self.m.b.f_ord_less_than(boolean, None, x.id, limit))?;
        let in_range = built(self.m.b.logical_and(boolean, None, above_low, below_limit))?;
        let indefinite = self.splat_bits(to, 0x8000_0000, x.count);
        built(self.m.select(ty, None, in_range, converted, indefinite))
    }

    /// `out-of-bounds-write-lands`: writes dword `address + offset` of a UAV buffer, the
    /// index clamped to the buffer's last dword (nothing is written to an empty buffer).
    pub(super) fn fault_landing_store(
        &mut self,
        buffer: &super::resources::DwordBuffer,
        address: Word,
        offset: u32,
        value: Word,
    ) -> Result<()> {
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let index = if offset == 0 {
            address
        } else {
            let offset = self.m.constant_u32(offset);
            built(self.m.b.i_add(uint, None, address, offset))?
        };
        let length = built(self.m.b.array_length(uint, None, buffer.var, 0))?;
        let zero = self.m.constant_u32(0);
        let one = self.m.constant_u32(1);
        let not_empty = built(self.m.b.i_not_equal(boolean, None, length, zero))?;
        let last = built(self.m.b.i_sub(uint, None, length, one))?;
        let past = built(self.m.b.u_greater_than(boolean, None, index, last))?;
        let clamped = built(self.m.select(uint, None, past, last, index))?;
        let pointer = self.m.pointer(buffer.class, uint);
        let member = self.m.constant_u32(0);
        let ptr = built(self.m.access_chain(pointer, buffer.var, &[member, clamped]))?;
        if buffer.non_uniform {
            self.decorate(ptr, spirv::Decoration::NonUniform, &[]);
        }
        self.guarded(not_empty, |e| built(e.m.store(ptr, value)))
    }
}
