//! Reading and writing operands: registers, immediates, constant buffers, thread ids;
//! relative indices, swizzles, write masks and source modifiers; the bounds rules.
//!
//! Bounds (D3D11.3 functional specification and the project's rules, see `DESIGN.md`):
//! - a constant-buffer read past the end of the bound buffer gives 0, and a constant
//!   buffer the program declares but [`crate::interp::Resources`] lacks reads 0 everywhere;
//! - the immediate constant buffer and indexable temps (`x#[i]`) are bounds-checked: a read
//!   outside gives 0 in every component, a write outside writes nothing;
//! - an SM5.0 dynamically chosen constant buffer (`DYNAMIC_RANGE`) outside D3D11's
//!   14 slots reads 0;
//! - a resource register outside its declared range is an error (D3D leaves it undefined).

use super::plan::Binding;
use super::thread::{Machine, Thread};
use crate::interp::error_at;
use dxbc2spirv::ir::{
    is_dynamic_cb, ComponentCount, Index, Modifier, Operand, RegisterKind, ValueType,
    D3D11_CB_SLOTS,
};
use dxbc2spirv::{ErrorKind, Result};

/// How deep relative addresses may nest (`x0[r0.x]` inside an index is one level).
const MAX_INDEX_DEPTH: u32 = 4;

impl Machine<'_, '_> {
    /// An error at instruction `at`.
    pub(super) fn fail(&self, at: usize, message: impl Into<String>) -> dxbc2spirv::Error {
        error_at(self.plan.program, at, message)
    }

    /// The value of an index: its immediate plus its relative operand's component.
    pub(super) fn index(&self, t: &Thread, index: Index, at: usize, depth: u32) -> Result<u32> {
        let base = u32::try_from(index.immediate())
            .map_err(|_| self.fail(at, "a register index does not fit 32 bits"))?;
        let Some(id) = index.relative() else {
            return Ok(base);
        };
        if depth >= MAX_INDEX_DEPTH {
            return Err(self.fail(at, "relative addresses nest too deeply"));
        }
        let operand = *self.plan.program.operand(id);
        let raw = self.read_raw(t, &operand, at, depth + 1)?;
        let component = match operand.components {
            ComponentCount::Four => operand.selection.component(0) as usize & 3,
            _ => 0,
        };
        Ok(base.wrapping_add(raw[component]))
    }

    /// The `k`th index of an operand.
    fn nth_index(
        &self,
        t: &Thread,
        operand: &Operand,
        k: usize,
        at: usize,
        depth: u32,
    ) -> Result<u32> {
        match operand.indices().get(k) {
            Some(&index) => self.index(t, index, at, depth),
            None => Err(self.fail(
                at,
                format!("a {} operand lacks index {k}", operand.kind.name()),
            )),
        }
    }

    /// The declared range of a resource operand (`t#`, `u#`, `cb#`, `s#`) and its absolute
    /// register: `(binding, (space, register))`.
    pub(super) fn binding(
        &self,
        t: &Thread,
        operand: &Operand,
        at: usize,
    ) -> Result<(Binding, (u32, u32))> {
        let kind = operand.kind;
        let id = operand
            .indices()
            .first()
            .and_then(|i| i.as_imm32())
            .ok_or_else(|| {
                self.fail(at, format!("a {} operand without a range id", kind.name()))
            })?;
        let binding = *self.plan.bindings.get(&(kind, id)).ok_or_else(|| {
            self.fail(at, format!("{}{id} is used but not declared", kind.name()))
        })?;
        let register = self.nth_index(t, operand, 1, at, 0)?;
        let range = binding.range;
        if register < range.lower || range.upper.is_some_and(|u| register > u) {
            return Err(self.fail(
                at,
                format!(
                    "register {register} of {}{id} is outside its declared range {}..{} (D3D leaves the access undefined)",
                    kind.name(),
                    range.lower,
                    range.upper.map_or("*".to_string(), |u| u.to_string()),
                ),
            ));
        }
        Ok((binding, (range.space, register)))
    }

    /// An operand's four components before its selection and modifier.
    pub(super) fn read_raw(
        &self,
        t: &Thread,
        operand: &Operand,
        at: usize,
        depth: u32,
    ) -> Result<[u32; 4]> {
        use RegisterKind as K;
        Ok(match operand.kind {
            K::Temp => {
                let r = self.nth_index(t, operand, 0, at, depth)?;
                *t.temps.get(r as usize).ok_or_else(|| {
                    self.fail(at, format!("r{r} is beyond dcl_temps {}", t.temps.len()))
                })?
            }
            K::IndexableTemp => {
                let (slot, size) = self.indexable_of(operand, at)?;
                let element = self.nth_index(t, operand, 1, at, depth)?;
                if element < size {
                    t.indexable[slot][element as usize]
                } else {
                    [0; 4]
                }
            }
            K::Immediate32 => match operand.components {
                ComponentCount::One => [operand.values[0]; 4],
                _ => operand.values,
            },
            K::Immediate64 => match operand.components {
                ComponentCount::One => {
                    let [lo, hi, ..] = operand.values;
                    [lo, hi, lo, hi]
                }
                _ => operand.values,
            },
            K::ImmediateConstantBuffer => {
                let element = self.nth_index(t, operand, 0, at, depth)? as usize;
                let icb = self.plan.icb;
                let mut out = [0; 4];
                if let Some(words) = element
                    .checked_mul(4)
                    .and_then(|start| icb.get(start..start.checked_add(4)?))
                {
                    out.copy_from_slice(words);
                }
                out
            }
            K::ConstantBuffer => self.read_cb(t, operand, at, depth)?,
            // Class linkage: the instance data of slot S, vector 2S + 1 of cb15 (see
            // `Machine::interface_call`); zeros past the declared slots.
            K::ThisPointer => {
                let slot = self.nth_index(t, operand, 0, at, depth)?;
                if slot < self.plan.slots {
                    let vector = 2 * u64::from(slot) + 1;
                    std::array::from_fn(|c| self.class_instance_word(vector, c as u64))
                } else {
                    [0; 4]
                }
            }
            K::InputThreadId => {
                let [x, y, z] = t.ids.thread;
                [x, y, z, 0]
            }
            K::InputThreadGroupId => {
                let [x, y, z] = t.ids.group;
                [x, y, z, 0]
            }
            K::InputThreadIdInGroup => {
                let [x, y, z] = t.ids.local;
                [x, y, z, 0]
            }
            K::InputThreadIdInGroupFlattened => [t.ids.flat; 4],
            // D3D11.2's debugging clock: here the thread's instruction count, so it never
            // goes back and advances across any work (.x low, .y high 32 bits).
            K::CycleCounter => [t.steps as u32, (t.steps >> 32) as u32, 0, 0],
            kind => {
                return Err(self
                    .fail(
                        at,
                        format!(
                            "the interpreter does not read {} registers in a compute shader",
                            kind.name()
                        ),
                    )
                    .with_kind(ErrorKind::Unsupported))
            }
        })
    }

    fn indexable_of(&self, operand: &Operand, at: usize) -> Result<(usize, u32)> {
        let register = operand
            .indices()
            .first()
            .and_then(|i| i.as_imm32())
            .ok_or_else(|| self.fail(at, "an x# operand without a register number"))?;
        self.plan
            .indexable
            .get(&register)
            .copied()
            .ok_or_else(|| self.fail(at, format!("x{register} is used but not declared")))
    }

    /// `cb#[register][element]`: past the bound buffer, or unbound, reads 0.
    fn read_cb(&self, t: &Thread, operand: &Operand, at: usize, depth: u32) -> Result<[u32; 4]> {
        let key = if is_dynamic_cb(self.plan.program.model, operand) {
            let register = self.nth_index(t, operand, 1, at, depth)?;
            if register >= D3D11_CB_SLOTS {
                return Ok([0; 4]);
            }
            (0, register)
        } else {
            self.binding(t, operand, at)?.1
        };
        let element = self.nth_index(t, operand, 2, at, depth)? as usize;
        let mut out = [0; 4];
        if let Some(words) = self.resources.constant_buffers.get(&key) {
            for (c, value) in out.iter_mut().enumerate() {
                let word = element.checked_mul(4).and_then(|w| w.checked_add(c));
                *value = word.and_then(|w| words.get(w)).copied().unwrap_or(0);
            }
        }
        Ok(out)
    }

    /// A source operand's four components after its selection and modifier: component `i`
    /// is what destination component `i` reads.
    pub(super) fn read(&self, t: &Thread, operand: &Operand, at: usize) -> Result<[u32; 4]> {
        if self.options.undefined_reads && operand.kind == RegisterKind::Temp {
            self.check_written(t, operand, at)?;
        }
        let raw = self.read_raw(t, operand, at, 0)?;
        let mut value = match operand.components {
            ComponentCount::Four => {
                let s = operand.selection;
                std::array::from_fn(|i| raw[s.component(i) as usize & 3])
            }
            // `d(x)`: one double for both lanes, (low, high, low, high).
            ComponentCount::One if operand.kind == RegisterKind::Immediate64 => raw,
            ComponentCount::One => [raw[0]; 4],
            ComponentCount::Zero | ComponentCount::N(_) => {
                return Err(self.fail(
                    at,
                    format!(
                        "a {} operand without components as a source",
                        operand.kind.name()
                    ),
                ))
            }
        };
        apply_modifier(&mut value, operand.modifier, operand.value_type);
        Ok(value)
    }

    /// With [`crate::interp::Options::undefined_reads`]: an error when a source reads a
    /// component of a temp that the thread has not written (D3D leaves its value undefined).
    fn check_written(&self, t: &Thread, operand: &Operand, at: usize) -> Result<()> {
        let Some(r) = operand.indices[0].as_imm32() else {
            return Ok(());
        };
        let written = t.written.get(r as usize).copied().unwrap_or(0xf);
        let read = match operand.components {
            ComponentCount::One => 1,
            _ => self.components_read(operand, at),
        };
        let unwritten = read & !written;
        if unwritten == 0 {
            return Ok(());
        }
        let names: String = (0..4)
            .filter(|c| unwritten & (1 << c) != 0)
            .map(|c| ['x', 'y', 'z', 'w'][c])
            .collect();
        Err(self.fail(
            at,
            format!(
                "reads r{r}.{names} before the thread writes it (D3D leaves the value undefined)"
            ),
        ))
    }

    /// The components of a four-component source that its instruction reads: those the
    /// selection puts in the positions the destinations write, for instructions that work
    /// per component; every selected component for dot products and double instructions,
    /// whose positions do not map one to one.
    fn components_read(&self, operand: &Operand, at: usize) -> u8 {
        use dxbc2spirv::isa::Opcode as O;
        let program = self.plan.program;
        let Some(instruction) = program.instructions.get(at) else {
            return operand.selection.mask();
        };
        let whole = matches!(instruction.opcode, O::Dp2 | O::Dp3 | O::Dp4)
            || program
                .operands_of(instruction)
                .iter()
                .any(|o| o.value_type == dxbc2spirv::ir::ValueType::F64);
        let positions = program
            .dsts(instruction)
            .iter()
            .filter(|d| d.components == ComponentCount::Four)
            .fold(0, |m, d| m | d.mask());
        if whole || positions == 0 {
            return operand.selection.mask();
        }
        (0..4)
            .filter(|i| positions & (1 << i) != 0)
            .fold(0, |m, i| m | 1 << (operand.selection.component(i) & 3))
    }

    /// Writes the components of `value` that the destination's mask selects.
    pub(super) fn write(
        &self,
        t: &mut Thread,
        operand: &Operand,
        value: [u32; 4],
        at: usize,
    ) -> Result<()> {
        use RegisterKind as K;
        let mask = operand.mask();
        match operand.kind {
            K::Null => {}
            K::Temp => {
                let r = self.nth_index(t, operand, 0, at, 0)? as usize;
                let count = t.temps.len();
                let slot = t
                    .temps
                    .get_mut(r)
                    .ok_or_else(|| self.fail(at, format!("r{r} is beyond dcl_temps {count}")))?;
                write_masked(slot, mask, value);
                if let Some(written) = t.written.get_mut(r) {
                    *written |= mask;
                }
            }
            K::IndexableTemp => {
                let (slot, size) = self.indexable_of(operand, at)?;
                let element = self.nth_index(t, operand, 1, at, 0)?;
                if element < size {
                    write_masked(&mut t.indexable[slot][element as usize], mask, value);
                }
            }
            kind => {
                return Err(self.fail(
                    at,
                    format!(
                        "a {} register is not a destination the interpreter writes",
                        kind.name()
                    ),
                ))
            }
        }
        Ok(())
    }
}

/// Writes the components of `value` selected by `mask` into `slot`.
fn write_masked(slot: &mut [u32; 4], mask: u8, value: [u32; 4]) {
    for (i, (s, v)) in slot.iter_mut().zip(value).enumerate() {
        if mask & (1 << i) != 0 {
            *s = v;
        }
    }
}

/// Applies a source modifier by the operand's value type: floats on the sign bit (never
/// flushing), integers in two's complement, doubles on the sign bit of each high word
/// (components 1 and 3). `mov`-like (`Bits`) operands take float modifiers, as D3D's `mov`
/// does.
pub(super) fn apply_modifier(value: &mut [u32; 4], modifier: Modifier, value_type: ValueType) {
    if modifier == Modifier::None {
        return;
    }
    let (abs, neg) = match modifier {
        Modifier::None => (false, false),
        Modifier::Neg => (false, true),
        Modifier::Abs => (true, false),
        Modifier::AbsNeg => (true, true),
    };
    match value_type {
        ValueType::I32 | ValueType::U32 => {
            for v in value.iter_mut() {
                let mut x = *v as i32;
                if abs {
                    x = x.wrapping_abs();
                }
                if neg {
                    x = x.wrapping_neg();
                }
                *v = x as u32;
            }
        }
        ValueType::F64 => {
            for v in value.iter_mut().skip(1).step_by(2) {
                *v = sign_bit(*v, abs, neg);
            }
        }
        ValueType::F32 | ValueType::Bits | ValueType::None => {
            for v in value.iter_mut() {
                *v = sign_bit(*v, abs, neg);
            }
        }
    }
}

/// Clears (abs) then flips (neg) bit 31.
fn sign_bit(v: u32, abs: bool, neg: bool) -> u32 {
    let v = if abs { v & 0x7fff_ffff } else { v };
    if neg {
        v ^ 0x8000_0000
    } else {
        v
    }
}
