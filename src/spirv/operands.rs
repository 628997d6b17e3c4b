//! Reading and writing operands: component selection, source modifiers, saturation, casts
//! between the scalar types, temps and indexable temps, and relative addresses.

use spirv::{StorageClass, Word};

use super::emitter::{Emitter, IndexableTemp, Val};
use super::module::{built, Scalar};
use super::value_facts::Fact;
use crate::analysis::temp_types::TempType;
use crate::error::Result;
use crate::ir::{ComponentCount, Index, Modifier, Operand, RegisterKind, Selection};

/// GLSL.std.450 instruction numbers used here.
pub mod glsl {
    /// FAbs
    pub const FABS: u32 = 4;
    /// SAbs
    pub const SABS: u32 = 5;
    /// NMin
    pub const NMIN: u32 = 79;
    /// NMax
    pub const NMAX: u32 = 80;
}

/// The bits of a float constant of type `scalar` (F32 or F64) after a source modifier: the
/// sign bit cleared (`abs`), then flipped (`neg`).
pub fn with_sign_modifier(bits: u64, scalar: Scalar, modifier: Modifier) -> u64 {
    let sign = if scalar == Scalar::F64 {
        1 << 63
    } else {
        1 << 31
    };
    match modifier {
        Modifier::None => bits,
        Modifier::Neg => bits ^ sign,
        Modifier::Abs => bits & !sign,
        Modifier::AbsNeg => bits | sign,
    }
}

/// The components a destination mask selects, in order.
pub fn mask_components(mask: u8) -> impl Iterator<Item = u8> {
    (0..4u8).filter(move |c| mask & (1 << c) != 0)
}

impl Emitter<'_> {
    /// The scalar type of a temp component.
    fn temp_scalar(&self, register: u32, component: u8) -> Scalar {
        match self.temp_types.get(register, component) {
            TempType::Float => Scalar::F32,
            TempType::Int => Scalar::I32,
            TempType::Uint => Scalar::U32,
        }
    }

    /// Declares `x#[size]` with `components` components per element.
    pub fn declare_indexable(&mut self, register: u32, size: u32, components: u32) -> Result<()> {
        if size == 0 || !(1..=4).contains(&components) {
            return Err(self.err(format!(
                "dcl_indexableTemp x{register}[{size}], {components} is not a valid size"
            )));
        }
        let element = self.m.vector(Scalar::U32, 4);
        let array = self.m.array(element, size);
        let name = self.debug_name(format_args!("x{register}"));
        let var = self.global(array, StorageClass::Private, name);
        self.indexable.insert(register, IndexableTemp { var, size });
        Ok(())
    }

    /// Converts a value between scalar types: bitcasts between the 32-bit types, booleans to
    /// and from D3D's all-ones/zero masks.
    pub fn cast(&mut self, value: Val, to: Scalar) -> Result<Val> {
        if value.scalar == to {
            return Ok(value);
        }
        match self.facts.get(value.id) {
            // A bitcast back to the type the value was bitcast from is that value.
            Fact::Bitcast { source, from } if from == to => {
                return Ok(Val {
                    id: source,
                    scalar: to,
                    count: value.count,
                });
            }
            // A vector put together from parts: the parts cast one by one (and put together
            // again), so that a part that was bitcast is not bitcast back and forth.
            Fact::Construct(parts)
                if value.count > 1
                    && value.count <= 4
                    && ![value.scalar, to]
                        .iter()
                        .any(|s| matches!(s, Scalar::Bool | Scalar::F64)) =>
            {
                let mut cast = [0; 4];
                for (to_part, &part) in cast.iter_mut().zip(&parts[..value.count as usize]) {
                    let part = Val {
                        id: part,
                        scalar: value.scalar,
                        count: 1,
                    };
                    *to_part = self.cast(part, to)?.id;
                }
                return self.compose(to, &cast[..value.count as usize]);
            }
            _ => {}
        }
        let ty = self.m.vector(to, value.count);
        let id = match (value.scalar, to) {
            (Scalar::Bool, _) => {
                let ones = self.splat_bits(to, u32::MAX, value.count);
                let zero = self.splat_bits(to, 0, value.count);
                built(self.m.select(ty, None, value.id, ones, zero))?
            }
            (_, Scalar::Bool) => {
                let as_uint = self.cast(value, Scalar::U32)?;
                let zero = self.splat_bits(Scalar::U32, 0, value.count);
                built(self.m.b.i_not_equal(ty, None, as_uint.id, zero))?
            }
            // No value is ever a double here: temps are typed 32-bit (`analysis::temp_types`
            // holds double halves as uint) and the double lowering (`spirv::doubles`) reads
            // and writes pairs of uint halves, building its doubles itself.
            (Scalar::F64, _) | (_, Scalar::F64) => {
                return Err(self.internal(
                    "a 64-bit value in a 32-bit conversion (doubles are held as pairs \
                     of uint halves)",
                ))
            }
            _ => {
                // A constant is the constant of the other type with the same bits, so that
                // no device sees an operation of a bitcast constant (lavapipe drops an
                // `FAbs` whose operand it knows to be zero, sign and all).
                if value.count == 1 {
                    if let Some(bits) = self.m.constant_value(value.id) {
                        return Ok(Val {
                            id: self.m.constant_bits(to, bits as u32),
                            scalar: to,
                            count: 1,
                        });
                    }
                }
                let id = built(self.m.bitcast(ty, value.id))?;
                self.facts.set(
                    id,
                    Fact::Bitcast {
                        source: value.id,
                        from: value.scalar,
                    },
                );
                id
            }
        };
        Ok(Val {
            id,
            scalar: to,
            count: value.count,
        })
    }

    /// A constant with every component set to the same bits.
    pub fn splat_bits(&mut self, scalar: Scalar, bits: u32, count: u32) -> Word {
        let parts = [bits; 4];
        self.constant_vector(scalar, &parts[..(count as usize).min(4)])
    }

    /// A constant vector (or scalar) of `bits`, whose components [`Emitter::extract`]
    /// takes as the constants themselves.
    pub fn constant_vector(&mut self, scalar: Scalar, bits: &[u32]) -> Word {
        let mut parts = [0; 4];
        for (part, &b) in parts.iter_mut().zip(bits) {
            *part = self.m.constant_bits(scalar, b);
        }
        let count = bits.len().min(4);
        let id = self.m.constant_composite_of(scalar, &parts[..count]);
        if count > 1 {
            self.facts.set(id, Fact::Construct(parts));
        }
        id
    }

    /// Builds a vector from scalars of one type (or returns the scalar).
    pub fn compose(&mut self, scalar: Scalar, parts: &[Word]) -> Result<Val> {
        let count = parts.len() as u32;
        if count == 1 {
            return Ok(Val {
                id: parts[0],
                scalar,
                count,
            });
        }
        // The components of one vector in order are that vector; bitcasts of them, one
        // bitcast of it.
        if let Some(id) = self.facts.whole_vector(scalar, parts) {
            return Ok(Val { id, scalar, count });
        }
        if let Some((id, from)) = self.facts.whole_bitcast_vector(parts) {
            return self.cast(
                Val {
                    id,
                    scalar: from,
                    count,
                },
                scalar,
            );
        }
        let ty = self.m.vector(scalar, count);
        let id = built(self.m.composite_construct(ty, parts))?;
        if count <= 4 {
            let mut words = [0; 4];
            words[..parts.len()].copy_from_slice(parts);
            self.facts.set(id, Fact::Construct(words));
        }
        Ok(Val { id, scalar, count })
    }

    /// Component `i` of a value (the value itself when it is a scalar).
    pub fn extract(&mut self, value: Val, i: u32) -> Result<Val> {
        if value.count == 1 {
            return Ok(value);
        }
        // A component of a vector put together from scalars is that scalar.
        if let Fact::Construct(parts) = self.facts.get(value.id) {
            if i < value.count && i < 4 {
                return Ok(Val {
                    id: parts[i as usize],
                    scalar: value.scalar,
                    count: 1,
                });
            }
        }
        let ty = self.m.scalar(value.scalar);
        let id = built(self.m.composite_extract(ty, value.id, &[i]))?;
        self.note_extract(id, value, i);
        Ok(Val {
            id,
            scalar: value.scalar,
            count: 1,
        })
    }

    /// Reads a source operand as `scalar`, one result component per set bit of `mask`
    /// (the destination's write mask), with swizzle and modifiers applied.
    pub fn load(&mut self, operand: &Operand, scalar: Scalar, mask: u8) -> Result<Val> {
        if operand.kind == RegisterKind::Temp {
            if let Some(vector) = self.temp_whole_vector(operand, mask)? {
                let value = self.cast(vector, scalar)?;
                return self.modify(value, operand.modifier);
            }
        }
        if scalar != Scalar::Bool {
            if let Some(vector) = self.load_whole_vector(operand, mask)? {
                let value = self.cast(vector, scalar)?;
                return self.modify(value, operand.modifier);
            }
        }
        // At most four components: an array, not a Vec (this runs for every source read).
        let (components, count) = Self::read_components(operand, mask);
        // Immediates become constants of the type they are read as: no bitcast.
        if operand.kind == RegisterKind::Immediate32 && scalar != Scalar::Bool && count > 1 {
            let mut bits = [0; 4];
            for (b, &from) in bits.iter_mut().zip(&components[..count]) {
                *b = match operand.components {
                    ComponentCount::One => operand.values[0],
                    _ => operand.values[from as usize & 3],
                };
            }
            let id = self.constant_vector(scalar, &bits[..count]);
            let value = Val {
                id,
                scalar,
                count: count as u32,
            };
            return self.modify(value, operand.modifier);
        }
        let mut parts: [Word; 4] = [0; 4];
        for (part, &from) in parts.iter_mut().zip(&components[..count]) {
            // Immediates become constants of the type they are read as: no bitcast.
            if operand.kind == RegisterKind::Immediate32 && scalar != Scalar::Bool {
                let bits = match operand.components {
                    ComponentCount::One => operand.values[0],
                    _ => operand.values[from as usize & 3],
                };
                *part = self.m.constant_bits(scalar, bits);
                continue;
            }
            let raw = self.load_component(operand, from)?;
            *part = self.cast(raw, scalar)?.id;
        }
        if count == 0 {
            return Err(self.err("an operand is read with an empty mask"));
        }
        let value = self.compose(scalar, &parts[..count])?;
        self.modify(value, operand.modifier)
    }

    /// The source components a read takes, in result order: component `i` of the result
    /// reads `components[i]`; and how many there are.
    #[inline]
    fn read_components(operand: &Operand, mask: u8) -> ([u8; 4], usize) {
        // The operand component each result component reads: the swizzle's, the selected
        // one, the same one (a mask), or x.
        let from = match (operand.components, operand.selection) {
            (ComponentCount::Four, Selection::Swizzle(s)) => s,
            (ComponentCount::Four, Selection::Select1(c)) => [c; 4],
            (ComponentCount::Four, Selection::Mask(_)) => [0, 1, 2, 3],
            _ => [0; 4],
        };
        let mut components = [0; 4];
        let mut count = 0;
        for (component, &source) in from.iter().enumerate() {
            if mask & (1 << component) != 0 {
                components[count] = source;
                count += 1;
            }
        }
        (components, count)
    }

    /// The vector of read-only memory (an input, a constant buffer, class-linkage data) that
    /// `(var, element)` names, loaded by `load` once per block: a later read in the block takes
    /// the vector loaded first.
    pub(super) fn read_only_vector(
        &mut self,
        var: Word,
        element: Word,
        load: impl FnOnce(&mut Self) -> Result<Word>,
    ) -> Result<Word> {
        if let Some(vector) = self.known.vector(self.m.place(), var, element) {
            return Ok(vector);
        }
        let vector = load(self)?;
        // Known where the load ends, which may be a new block (a switch over the slots of a
        // constant buffer chosen at run time).
        self.known.set_vector(self.m.place(), var, element, vector);
        Ok(vector)
    }

    /// A read of a whole vector in order (`v1.xyzw`, `cb0[2].xyzw`): the vector itself, loaded
    /// once per block, instead of its components put back together (what `simplify` would
    /// make of the component reads). `None` when the read is not one.
    fn load_whole_vector(&mut self, operand: &Operand, mask: u8) -> Result<Option<Val>> {
        let (components, count) = Self::read_components(operand, mask);
        if count < 2
            || components[..count]
                .iter()
                .enumerate()
                .any(|(i, &c)| c as usize != i)
        {
            return Ok(None);
        }
        match operand.kind {
            RegisterKind::Input => self.input_whole_vector(operand, count as u32),
            RegisterKind::ConstantBuffer if count == 4 => self.buffer_whole_vector(operand),
            _ => Ok(None),
        }
    }

    /// Reads component `component` of a source operand, with its modifier, as `scalar`.
    pub fn load_scalar(&mut self, operand: &Operand, scalar: Scalar) -> Result<Val> {
        self.load(operand, scalar, 1)
    }

    /// Applies a source modifier.
    pub fn modify(&mut self, value: Val, modifier: Modifier) -> Result<Val> {
        let (abs, neg) = match modifier {
            Modifier::None => return Ok(value),
            Modifier::Neg => (false, true),
            Modifier::Abs => (true, false),
            Modifier::AbsNeg => (true, true),
        };
        if matches!(value.scalar, Scalar::F32 | Scalar::F64) {
            if let Some(folded) = self.modify_constant_parts(value, modifier)? {
                return Ok(folded);
            }
        }
        let ty = self.m.vector(value.scalar, value.count);
        let glsl = self.m.glsl();
        let mut id = value.id;
        match value.scalar {
            Scalar::F32 | Scalar::F64 => {
                if abs {
                    id = built(self.m.b.ext_inst(
                        ty,
                        None,
                        glsl,
                        glsl::FABS,
                        [super::builder::Operand::IdRef(id)],
                    ))?;
                }
                if neg {
                    id = built(self.m.b.f_negate(ty, None, id))?;
                }
            }
            Scalar::I32 | Scalar::U32 => {
                if abs {
                    id = built(self.m.b.ext_inst(
                        ty,
                        None,
                        glsl,
                        glsl::SABS,
                        [super::builder::Operand::IdRef(id)],
                    ))?;
                }
                if neg {
                    id = built(self.m.b.s_negate(ty, None, id))?;
                }
            }
            Scalar::Bool => return Err(self.err("a modifier on a boolean value")),
        }
        Ok(Val { id, ..value })
    }

    /// The ids of a value's components as the emitter knows them: a scalar's own, or the
    /// parts of a vector it put together (of up to four); `None` for another vector.
    pub(super) fn known_parts(&self, value: Val) -> Option<[Word; 4]> {
        match (value.count, self.facts.get(value.id)) {
            (0 | 1, _) => Some([value.id; 4]),
            (2..=4, Fact::Construct(parts)) => Some(parts),
            _ => None,
        }
    }

    /// A float value with a source modifier, where the value is a constant or a vector put
    /// together from parts of which some are constants: a constant part gets its sign bit
    /// cleared and then flipped, another part its own `FAbs`/`FNegate`, so that no device
    /// sees `FAbs` of a constant (lavapipe drops an `FAbs` whose operand it knows to be zero,
    /// so `|-0|` came out -0). `None` when no part is a constant.
    fn modify_constant_parts(&mut self, value: Val, modifier: Modifier) -> Result<Option<Val>> {
        let count = value.count as usize;
        let Some(mut parts) = self.known_parts(value) else {
            return Ok(None);
        };
        let parts = &mut parts[..count];
        if !parts
            .iter()
            .any(|&part| self.m.constant_value(part).is_some())
        {
            return Ok(None);
        }
        let scalar = value.scalar;
        let mut all_constant = true;
        for part in parts.iter_mut() {
            *part = match self.m.constant_value(*part) {
                Some(bits) => {
                    let bits = with_sign_modifier(bits, scalar, modifier);
                    if scalar == Scalar::F64 {
                        self.m.constant_f64_bits(bits)
                    } else {
                        self.m.constant_bits(scalar, bits as u32)
                    }
                }
                None => {
                    all_constant = false;
                    let part = Val {
                        id: *part,
                        scalar,
                        count: 1,
                    };
                    self.modify(part, modifier)?.id
                }
            };
        }
        if !all_constant {
            return self.compose(scalar, parts).map(Some);
        }
        let id = self.m.constant_composite_of(scalar, parts);
        if count > 1 {
            let mut constructed = [0; 4];
            constructed[..count].copy_from_slice(parts);
            self.facts.set(id, Fact::Construct(constructed));
        }
        Ok(Some(Val { id, ..value }))
    }

    /// Reads one component of a register, in the register's own type.
    pub fn load_component(&mut self, operand: &Operand, component: u8) -> Result<Val> {
        match operand.kind {
            RegisterKind::Immediate32 => {
                let bits = match operand.components {
                    ComponentCount::One => operand.values[0],
                    _ => operand.values[component as usize & 3],
                };
                let id = self.m.constant_bits(Scalar::U32, bits);
                Ok(Val {
                    id,
                    scalar: Scalar::U32,
                    count: 1,
                })
            }
            RegisterKind::Temp => {
                let register = self.immediate_index(operand, 0)?;
                let scalar = self.temp_scalar(register, component);
                let id = self.ssa_read(register, component, scalar)?;
                Ok(Val {
                    id,
                    scalar,
                    count: 1,
                })
            }
            RegisterKind::IndexableTemp => self.load_indexable(operand, component),
            // `d(…)` is a source of double-precision instructions only (the IR validator
            // refuses it elsewhere), whose lowering reads its halves itself.
            RegisterKind::Immediate64 => Err(self.internal(
                "a d(…) immediate read as a 32-bit value (the IR validator allows it \
                 only where an instruction reads a double)",
            )),
            RegisterKind::ConstantBuffer | RegisterKind::ImmediateConstantBuffer => {
                self.load_buffer_component(operand, component)
            }
            RegisterKind::ThisPointer => self.load_this_component(operand, component),
            kind if Self::is_io_register(kind) => self.load_io_component(operand, component),
            kind => Err(self.err(format!("{} cannot be read as a value", kind.name()))),
        }
    }

    /// Writes a value into a destination operand's masked components (in order); `_sat`
    /// clamps floats to [0, 1] with NaN becoming 0.
    pub fn store(&mut self, operand: &Operand, value: Val, saturate: bool) -> Result<()> {
        if operand.kind == RegisterKind::Null {
            return Ok(());
        }
        let value = if saturate {
            self.saturate(value)?
        } else {
            value
        };
        if self.store_output_vector(operand, value)? {
            return Ok(());
        }
        let mask = operand.mask();
        for (i, component) in mask_components(mask).enumerate() {
            let i = (i as u32).min(value.count - 1);
            if operand.kind == RegisterKind::Temp {
                let register = self.immediate_index(operand, 0)?;
                if let Some(part) = self.held_component(value, i, register, component)? {
                    self.ssa_write(register, component, part)?;
                    continue;
                }
            }
            let part = self.extract(value, i)?;
            self.store_component(operand, component, part)?;
        }
        Ok(())
    }

    /// Component `i` of a vector for temp component `register.component` of the same type,
    /// as a held value ([`super::builder::held_values`]): made only if it is read on its own.
    /// `None` where the component is known already, or needs a cast.
    fn held_component(
        &mut self,
        value: Val,
        i: u32,
        register: u32,
        component: u8,
    ) -> Result<Option<Word>> {
        if value.count < 2
            || value.count > 4
            || value.scalar != self.temp_scalar(register, component)
            || matches!(self.facts.get(value.id), Fact::Construct(_))
        {
            return Ok(None);
        }
        let ty = self.m.scalar(value.scalar);
        let id = built(self.m.b.hold_composite_extract(ty, value.id, i))?;
        self.note_extract(id, value, i);
        Ok(Some(id))
    }

    /// Records that `id` is component `i` of `value` (a vector of at most four).
    fn note_extract(&mut self, id: Word, value: Val, i: u32) {
        if i < value.count && value.count <= 4 {
            self.facts.set(
                id,
                Fact::Extract {
                    source: value.id,
                    index: i as u8,
                    count: value.count as u8,
                    scalar: value.scalar,
                },
            );
        }
    }

    /// A read of temp components that are, in order, every component of one vector of
    /// `scalar`s the block made (held or not): that vector, none of them made. `None` when
    /// they are not.
    fn temp_whole_vector(&self, operand: &Operand, mask: u8) -> Result<Option<Val>> {
        let (components, count) = Self::read_components(operand, mask);
        if count < 2 {
            return Ok(None);
        }
        let register = self.immediate_index(operand, 0)?;
        let mut parts = [0; 4];
        for (part, &c) in parts.iter_mut().zip(&components[..count]) {
            match self.ssa_peek(register, c) {
                Some(id) => *part = id,
                None => return Ok(None),
            }
        }
        Ok(self
            .facts
            .vector_through_bitcasts(&parts[..count])
            .map(|(id, scalar, _)| Val {
                id,
                scalar,
                count: count as u32,
            }))
    }

    /// A move into a temp of a temp's or an immediate's components, without modifier (the
    /// caller leaves out `_sat`): each component taken as it is and cast to the destination component's
    /// type (an immediate as a constant of that type), every one read before any is
    /// written (`mov r0.xy, r0.yx`), so that no vector is put together only to be taken
    /// apart again. False (and nothing written) for any other move, and for one of the
    /// components of one vector in order that are or need casts: that goes through the
    /// vector, cast at once.
    pub fn move_to_temp(&mut self, dst: &Operand, src: &Operand) -> Result<bool> {
        let plain_source = matches!(src.kind, RegisterKind::Temp | RegisterKind::Immediate32)
            && src.modifier == Modifier::None;
        if dst.kind != RegisterKind::Temp || !plain_source {
            return Ok(false);
        }
        let register = self.immediate_index(dst, 0)?;
        let mask = dst.mask();
        let (from, count) = Self::read_components(src, mask);
        if count == 0 {
            return Err(self.err("an operand is read with an empty mask"));
        }
        let mut raw = [0; 4];
        let mut scalars = [Scalar::U32; 4];
        let mut casts = false;
        for (((id, scalar), &source), component) in raw
            .iter_mut()
            .zip(&mut scalars)
            .zip(&from[..count])
            .zip(mask_components(mask))
        {
            let value = self.load_component(src, source)?;
            (*id, *scalar) = (value.id, value.scalar);
            casts |= value.scalar != self.temp_scalar(register, component);
        }
        let raw = &raw[..count];
        // Components of one vector in order that are or need casts: one cast of the vector.
        if count > 1 {
            match self.facts.whole_vector_through_bitcasts(raw) {
                Some(bitcast) if casts || bitcast => return Ok(false),
                _ => {}
            }
        }
        let mut values = [0; 4];
        for (((value, &id), &scalar), component) in values
            .iter_mut()
            .zip(raw)
            .zip(&scalars)
            .zip(mask_components(mask))
        {
            let part = Val {
                id,
                scalar,
                count: 1,
            };
            *value = self.cast(part, self.temp_scalar(register, component))?.id;
        }
        for (&value, component) in values[..count].iter().zip(mask_components(mask)) {
            self.ssa_write(register, component, value)?;
        }
        Ok(true)
    }

    /// Clamps floats to [0, 1]; NaN becomes 0 (`NMin(NMax(x, 0), 1)`).
    pub fn saturate(&mut self, value: Val) -> Result<Val> {
        if value.scalar != Scalar::F32 {
            return Ok(value);
        }
        let ty = self.m.vector(Scalar::F32, value.count);
        let zero = self.splat_bits(Scalar::F32, 0, value.count);
        let one = self.splat_bits(Scalar::F32, 1.0f32.to_bits(), value.count);
        let glsl = self.m.glsl();
        use super::builder::Operand::IdRef;
        let low =
            built(
                self.m
                    .b
                    .ext_inst(ty, None, glsl, glsl::NMAX, [IdRef(value.id), IdRef(zero)]),
            )?;
        let id = built(
            self.m
                .b
                .ext_inst(ty, None, glsl, glsl::NMIN, [IdRef(low), IdRef(one)]),
        )?;
        // NaN gives 0 for every NaN: devices that follow IEEE 754-2008's maxNum (lavapipe)
        // return NaN from NMax of a signalling NaN, which NMin then turns into 1.
        let boolean = self.m.vector(Scalar::Bool, value.count);
        let nan = built(self.m.b.is_nan(boolean, None, value.id))?;
        let id = built(self.m.select(ty, None, nan, zero, id))?;
        Ok(Val { id, ..value })
    }

    /// Writes one component of a register.
    pub fn store_component(&mut self, operand: &Operand, component: u8, value: Val) -> Result<()> {
        match operand.kind {
            RegisterKind::Temp => {
                let register = self.immediate_index(operand, 0)?;
                let scalar = self.temp_scalar(register, component);
                let value = self.cast(value, scalar)?;
                self.ssa_write(register, component, value.id)
            }
            RegisterKind::IndexableTemp => self.store_indexable(operand, component, value),
            RegisterKind::Null => Ok(()),
            kind if Self::is_io_register(kind) => {
                self.store_io_component(operand, component, value)
            }
            kind => Err(self.err(format!("{} cannot be written", kind.name()))),
        }
    }

    /// The immediate value of index `i` of an operand (an error when it is relative).
    pub fn immediate_index(&self, operand: &Operand, i: usize) -> Result<u32> {
        operand
            .indices()
            .get(i)
            .and_then(|index| index.as_imm32())
            .ok_or_else(|| {
                self.err(format!(
                    "{} needs an immediate index here",
                    operand.kind.name()
                ))
            })
    }

    /// Evaluates an index (immediate, relative, or both) as a `uint` value.
    pub fn index_value(&mut self, index: Index) -> Result<Word> {
        let relative = match index.relative() {
            Some(id) => {
                let operand = *self.program.operand(id);
                Some(self.load_scalar(&operand, Scalar::U32)?.id)
            }
            None => None,
        };
        let immediate = index.immediate();
        if immediate > u32::MAX as u64 {
            return Err(self.err("a 64-bit register index does not fit 32 bits"));
        }
        let constant = self.m.constant_u32(immediate as u32);
        match relative {
            None => Ok(constant),
            Some(r) if immediate == 0 => Ok(r),
            Some(r) => {
                let ty = self.m.scalar(Scalar::U32);
                built(self.m.b.i_add(ty, None, r, constant))
            }
        }
    }

    fn indexable_of(&self, operand: &Operand) -> Result<IndexableTemp> {
        let register = self.immediate_index(operand, 0)?;
        self.indexable
            .get(&register)
            .copied()
            .ok_or_else(|| self.err(format!("x{register} is not declared")))
    }

    /// The element pointer of `x#[i]`, and whether `i` is in range: `Known(true)` for an
    /// immediate index inside the array (no check emitted), `Known(false)` for one outside it
    /// (no pointer: nothing to read or write), `Checked(id)` for a relative index, which is
    /// clamped into range and whose bool id guards the access.
    fn indexable_element(&mut self, operand: &Operand) -> Result<(Word, InRange)> {
        let temp = self.indexable_of(operand)?;
        let index = operand
            .indices()
            .get(1)
            .copied()
            .ok_or_else(|| self.err("x# needs an element index"))?;
        let element = self.m.vector(Scalar::U32, 4);
        let pointer = self.m.pointer(StorageClass::Private, element);
        if let Some(i) = index.as_imm32() {
            if i >= temp.size {
                return Ok((0, InRange::Known(false)));
            }
            let constant = self.m.constant_u32(i);
            let ptr = built(self.m.access_chain(pointer, temp.var, &[constant]))?;
            return Ok((ptr, InRange::Known(true)));
        }
        let index = self.index_value(index)?;
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let size = self.m.constant_u32(temp.size);
        let in_range = built(self.m.b.u_less_than(boolean, None, index, size))?;
        let zero = self.m.constant_u32(0);
        let clamped = built(self.m.select(uint, None, in_range, index, zero))?;
        let ptr = built(self.m.access_chain(pointer, temp.var, &[clamped]))?;
        Ok((ptr, InRange::Checked(in_range)))
    }

    /// Reads one component of `x#[i]`; out-of-range elements read as 0.
    fn load_indexable(&mut self, operand: &Operand, component: u8) -> Result<Val> {
        let (ptr, in_range) = self.indexable_element(operand)?;
        let uint = self.m.scalar(Scalar::U32);
        let zero = self.m.constant_u32(0);
        let id = if in_range == InRange::Known(false) {
            zero
        } else {
            let vec4 = self.m.vector(Scalar::U32, 4);
            let element = built(self.m.load(vec4, ptr))?;
            let value = built(
                self.m
                    .composite_extract(uint, element, &[component as u32 & 3]),
            )?;
            match in_range {
                InRange::Checked(in_range) => {
                    built(self.m.select(uint, None, in_range, value, zero))?
                }
                InRange::Known(_) => value,
            }
        };
        Ok(Val {
            id,
            scalar: Scalar::U32,
            count: 1,
        })
    }

    /// Writes one component of `x#[i]`; out-of-range writes write nothing.
    fn store_indexable(&mut self, operand: &Operand, component: u8, value: Val) -> Result<()> {
        let (ptr, in_range) = self.indexable_element(operand)?;
        let value = self.cast(value, Scalar::U32)?;
        let uint = self.m.scalar(Scalar::U32);
        let pointer = self.m.pointer(StorageClass::Private, uint);
        let index = self.m.constant_u32(component as u32 & 3);
        let store = |e: &mut Self| {
            let slot = built(e.m.access_chain(pointer, ptr, &[index]))?;
            built(e.m.store(slot, value.id))
        };
        match in_range {
            InRange::Known(true) => store(self),
            InRange::Known(false) => Ok(()),
            InRange::Checked(in_range) => self.guarded(in_range, store),
        }
    }
}

/// Whether an indexable-temp access is in range (see `Emitter::indexable_element`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InRange {
    /// Decided by an immediate index.
    Known(bool),
    /// Decided at run time by this bool id.
    Checked(Word),
}

#[cfg(test)]
mod tests {
    use crate::container::ChunkInfo;
    use crate::TranslateOptions as Options;

    const DOUBLES: &str = "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
";

    fn translate(program: &crate::ir::Program) -> crate::error::Result<Vec<u32>> {
        crate::translate_program(
            program,
            &ChunkInfo::default(),
            &Options::default(),
            &crate::bindings::DefaultBindings,
        )
    }

    /// Double results held in temps are read back as 32-bit halves (and 32-bit values read
    /// as doubles): the temps are typed 32-bit, so no 64-bit value ever reaches a 32-bit
    /// conversion (`Emitter::cast` treats one as an internal error).
    #[test]
    fn double_halves_in_temps_are_32_bit_values() {
        let text = format!(
            "{DOUBLES}dmov r0.xy, d(1.5)
dadd r0.zw, r0.xyxy, d(2.0)
iadd r1.x, r0.x, r0.w
utof r1.y, r0.z
dmul r1.zw, r1.xyxy, r0.zwzw
store_raw u0.xyzw, l(0), r1.xyzw
ret
"
        );
        let program = crate::asm::parse_program(&text)
            .unwrap_or_else(|e| panic!("assembly failed: {e}\n{text}"));
        let words = crate::spirv::test_support::lowered(
            &program,
            &ChunkInfo::default(),
            &Options::default(),
            &crate::bindings::DefaultBindings,
        )
        .unwrap_or_else(|e| panic!("translation failed: {e}\n{text}"));
        crate::spirv::test_support::validate(&words);
    }

    /// A `d(…)` immediate where an instruction reads 32-bit values is refused by the IR
    /// validator with its place; a program that skipped validation gets an internal error
    /// from the back end, not a module.
    #[test]
    fn a_64_bit_immediate_outside_a_double_source_is_refused_before_the_back_end() {
        let text = format!("{DOUBLES}mov r0.xy, d(1.0, 2.0)\nret\n");
        let message = crate::asm::parse_program(&text)
            .expect_err("a d() source of mov")
            .to_string();
        assert!(
            message.starts_with("line 6, column 1: ")
                && message.contains("only a double-precision source takes a 64-bit immediate"),
            "{message}\n{text}"
        );
        let program = crate::asm::parse_program_unchecked(&text).expect("parses unchecked");
        let error = translate(&program).expect_err("the back end refuses it");
        assert!(
            error
                .to_string()
                .contains("internal: a d(…) immediate read as a 32-bit value")
                && error.kind == crate::error::ErrorKind::Internal,
            "{error}"
        );
        // As a double source it is fine.
        let text = format!("{DOUBLES}dmov r0.xy, d(1.0)\nstore_raw u0.xy, l(0), r0.xyxx\nret\n");
        let program = crate::asm::parse_program(&text)
            .unwrap_or_else(|e| panic!("assembly failed: {e}\n{text}"));
        let words = translate(&program).unwrap_or_else(|e| panic!("{e}\n{text}"));
        crate::spirv::test_support::validate(&words);
    }
}
