//! Peepholes and common-subexpression elimination, in one walk over each function:
//!
//! - an extract of a construct, a constant vector or a shuffle is the component itself;
//! - a construct of a vector's components in order is the vector; of bitcast components
//!   in order, a bitcast of the vector; of components of at most two vectors, a shuffle;
//!   of constants, a constant vector;
//! - a bitcast to the value's own type is the value, of a bitcast is one bitcast, of a
//!   constant is a constant;
//! - 32-bit integer arithmetic and bit operations of constants fold, and `x + 0`, `x * 1`,
//!   `x | 0`, `x ^ 0`, `x & ~0` are `x`;
//! - the negation and absolute value of a 32-bit float constant (or a constant vector of
//!   them) are constants: the sign bit flipped or cleared (lavapipe drops `FAbs` of -0.0
//!   when it sees a constant zero, so the sign of `|-0|` must not be left to it);
//! - a pure instruction (or a load of read-only memory) equal to an earlier one of the same
//!   block, or of the function's first block (which dominates every other), is that one.
//!
//! Ids with decorations (`NonUniform`, `RelaxedPrecision`, …) are never merged.

use crate::fast_hash::HashMap;
use crate::ir::Modifier;
use crate::spirv::builder::{rewrite, set_operands, Instruction, Module, Operand};
use crate::spirv::module::Scalar;
use smallvec::SmallVec;
use spirv::{Op, Word};

use super::info::{is_pure, IdMap, Info, Subst};

/// What the walk remembers of a definition.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Def {
    /// Nothing the peepholes look at.
    #[default]
    Other,
    /// `OpCompositeExtract` of one component.
    Extract { source: Word, index: u32 },
    /// `OpCompositeConstruct` of (up to four) scalars.
    Construct([Word; 4]),
    /// `OpBitcast`.
    Bitcast(Word),
    /// `OpSelect` between two constants.
    SelectConstants {
        condition: Word,
        then: Word,
        otherwise: Word,
    },
    /// `OpVectorShuffle` (components past 254, and undefined ones, are `u8::MAX`).
    Shuffle {
        first: Word,
        second: Word,
        components: [u8; 4],
    },
    /// A pointer into read-only memory: a variable of it, or an access chain of one.
    ReadOnly,
}

/// The walk's state.
struct Simplifier<'a> {
    info: &'a mut Info,
    subst: Subst,
    /// Definitions by id, and the pointers into read-only memory.
    defs: IdMap<Def>,
    /// Values of the current function by key, each with the index of its block: those of
    /// the first block (index 0, which dominates every other) and of the current block are
    /// visible; those of other blocks are stale and replaced when met again.
    values: HashMap<Key, (Word, u32)>,
    /// The id of the module's `GLSL.std.450` import (0 when none).
    glsl: Word,
}

/// The pass's tables, kept from one run to the next (see [`super::Kept`]).
pub struct Tables {
    subst: Subst,
    defs: IdMap<Def>,
    values: HashMap<Key, (Word, u32)>,
}

impl Default for Tables {
    /// Empty tables without memory (a run sizes them).
    fn default() -> Self {
        Tables {
            subst: Subst::default(),
            defs: IdMap::default(),
            values: HashMap::default(),
        }
    }
}

impl Tables {
    /// The memory of the table of words by id, for a later pass's (the tables' contents are
    /// not kept).
    pub fn into_id_memory(self) -> Vec<Word> {
        self.subst.into_memory()
    }

    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        use crate::fast_hash::map_bytes;
        self.subst.held_bytes() + self.defs.held_bytes() + map_bytes(&self.values)
    }
}

/// Runs the pass.
#[inline(never)]
pub fn run(module: &mut Module, info: &mut Info, tables: &mut Tables) {
    let bound = info.bound();
    let Tables {
        subst,
        defs,
        values,
    } = std::mem::take(tables);
    let glsl = glsl_import(module);
    let mut s = Simplifier {
        info,
        subst,
        defs,
        values,
        glsl,
    };
    s.subst.reset(bound);
    s.defs.reset(bound);
    for &var in s.info.variables() {
        if s.info.read_only(var) {
            s.defs.set(var, Def::ReadOnly);
        }
    }
    let mut functions = std::mem::take(&mut module.functions);
    for function in &mut functions {
        s.values.clear();
        // Room for the function's values (at most one an instruction), up to the number its
        // blocks may leave stale, so that the table is sized once rather than grown and
        // rehashed as it fills.
        let instructions: usize = function.blocks.iter().map(|b| b.instructions.len()).sum();
        s.values.reserve(instructions.min(STALE_VALUES));
        let mut first_block_values = 0;
        for (index, block) in function.blocks.iter_mut().enumerate() {
            let index = index as u32;
            block.instructions.retain_mut(|inst| {
                s.subst.apply(inst);
                s.visit(module, inst, index)
            });
            if index == 0 {
                first_block_values = s.values.len();
            } else if s.values.len() > 2 * first_block_values + STALE_VALUES {
                // The stale values of earlier blocks go once they outnumber the first
                // block's, so that a function of many blocks does not hold the values of
                // all of them (one pass over the table, its cost spread over the values).
                s.values.retain(|_, &mut (_, block)| block == 0);
            }
        }
        // A loop header's phi uses a value of a later block.
        s.subst.apply_to_phis(function);
    }
    module.functions = functions;
    *tables = Tables {
        subst: s.subst,
        defs: s.defs,
        values: s.values,
    };
}

impl Simplifier<'_> {
    /// Simplifies one instruction of block `block` (its index in the function); false when
    /// it is replaced by an earlier value.
    fn visit(&mut self, module: &mut Module, inst: &mut Instruction, block: u32) -> bool {
        let Some(result) = inst.result_id() else {
            return true;
        };
        if self.info.is_decorated(result) {
            return true;
        }
        if let Some(value) = self.fold(module, inst) {
            self.subst.replace(result, value);
            return false;
        }
        self.remember(inst, result);
        let op = inst.class.opcode;
        if op == Op::AccessChain || op == Op::InBoundsAccessChain {
            if let Some(Operand::IdRef(base)) = inst.operands.first() {
                if self.defs.get(*base) == Def::ReadOnly {
                    self.defs.set(result, Def::ReadOnly);
                }
            }
        }
        let shareable = is_pure(op)
            || (op == Op::Load
                && matches!(inst.operands[..], [Operand::IdRef(p)] if self.defs.get(p) == Def::ReadOnly));
        if !shareable {
            return true;
        }
        let Some(key) = key(inst) else {
            return true;
        };
        use std::collections::hash_map::Entry;
        match self.values.entry(key) {
            Entry::Occupied(mut earlier) => {
                let (value, at) = *earlier.get();
                // A sampled image must be used in the block that makes it.
                if at == block || (at == 0 && op != Op::SampledImage) {
                    self.subst.replace(result, value);
                    return false;
                }
                earlier.insert((result, block));
                true
            }
            Entry::Vacant(slot) => {
                slot.insert((result, block));
                true
            }
        }
    }

    /// Records the definitions later peepholes look at.
    fn remember(&mut self, inst: &Instruction, result: Word) {
        let def = match (inst.class.opcode, &inst.operands[..]) {
            (Op::CompositeExtract, [Operand::IdRef(source), Operand::LiteralBit32(index)]) => {
                Def::Extract {
                    source: *source,
                    index: *index,
                }
            }
            (Op::CompositeConstruct, parts) => {
                let ty = inst.result_type().unwrap_or(0);
                match self.info.vector(ty) {
                    Some((_, count)) if count as usize == parts.len() && parts.len() <= 4 => {
                        let mut ids = [0; 4];
                        for (slot, id) in ids.iter_mut().zip(super::info::ids(parts)) {
                            *slot = id;
                        }
                        Def::Construct(ids)
                    }
                    _ => return,
                }
            }
            (Op::Bitcast, [Operand::IdRef(source)]) => Def::Bitcast(*source),
            (
                Op::Select,
                [Operand::IdRef(condition), Operand::IdRef(then), Operand::IdRef(otherwise)],
            ) if self.info.constant_bits(*then).is_some()
                && self.info.constant_bits(*otherwise).is_some() =>
            {
                Def::SelectConstants {
                    condition: *condition,
                    then: *then,
                    otherwise: *otherwise,
                }
            }
            (Op::VectorShuffle, [Operand::IdRef(first), Operand::IdRef(second), rest @ ..]) => {
                if rest.len() > 4 {
                    return;
                }
                let mut components = [u8::MAX; 4];
                for (slot, operand) in components.iter_mut().zip(rest) {
                    if let Operand::LiteralBit32(c) = operand {
                        *slot = u8::try_from(*c).unwrap_or(u8::MAX);
                    }
                }
                Def::Shuffle {
                    first: *first,
                    second: *second,
                    components,
                }
            }
            _ => return,
        };
        self.defs.set(result, def);
    }

    /// What is remembered of an id's definition.
    fn def(&self, id: Word) -> Option<Def> {
        Some(self.defs.get(id)).filter(|d| *d != Def::Other)
    }

    fn type_of(&self, id: Word) -> Option<Word> {
        self.info.result_type(id)
    }

    /// The value an instruction reduces to, or `None` (the instruction may be rewritten in
    /// place into a simpler one).
    fn fold(&mut self, module: &mut Module, inst: &mut Instruction) -> Option<Word> {
        let ty = inst.result_type()?;
        match inst.class.opcode {
            Op::CompositeExtract => self.fold_extract(inst),
            Op::CompositeConstruct => self.fold_construct(module, inst, ty),
            Op::Bitcast => self.fold_bitcast(module, inst, ty),
            Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::ShiftLeftLogical
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic => self.fold_integer(module, inst, ty),
            Op::IEqual
            | Op::INotEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual => self.fold_compare(module, inst, ty).or_else(|| {
                (inst.class.opcode == Op::INotEqual).then(|| self.fold_mask_test(inst, ty))?
            }),
            Op::Select => self.fold_select(inst),
            Op::FNegate | Op::ExtInst => self.fold_sign(module, inst, ty),
            _ => None,
        }
    }

    /// `-c` and `|c|` (GLSL.std.450 `FAbs`) of a 32-bit float constant or a constant vector
    /// of them: the constant with its sign bit flipped or cleared (out of line: the walk's
    /// loop stays small, and few of these instructions have a constant operand).
    #[inline(never)]
    fn fold_sign(&mut self, module: &mut Module, inst: &Instruction, ty: Word) -> Option<Word> {
        let (value, abs) = match (inst.class.opcode, &inst.operands[..]) {
            (Op::FNegate, [Operand::IdRef(value)]) => (*value, false),
            (
                Op::ExtInst,
                [Operand::IdRef(set), Operand::LiteralExtInstInteger(FABS), Operand::IdRef(value)],
            ) if *set == self.glsl && self.glsl != 0 => (*value, true),
            _ => return None,
        };
        let modifier = if abs { Modifier::Abs } else { Modifier::Neg };
        let sign = |bits: u32| {
            crate::spirv::operands::with_sign_modifier(bits.into(), Scalar::F32, modifier) as u32
        };
        if let Some(bits) = self.info.constant_bits(value) {
            return self
                .info
                .is_scalar32(ty)
                .then(|| self.info.make_constant(module, ty, sign(bits)));
        }
        let (component, _) = self.info.vector(ty)?;
        if !self.info.is_scalar32(component) {
            return None;
        }
        let mut bits = SmallVec::<[u32; 4]>::new();
        for &part in self.info.composite_parts(value)? {
            bits.push(sign(self.info.constant_bits(part)?));
        }
        let parts: SmallVec<[Word; 4]> = bits
            .into_iter()
            .map(|b| self.info.make_constant(module, component, b))
            .collect();
        Some(self.info.make_composite(module, ty, &parts))
    }

    /// A comparison of two 32-bit integer constants is a boolean constant.
    fn fold_compare(&mut self, module: &mut Module, inst: &Instruction, ty: Word) -> Option<Word> {
        let [Operand::IdRef(a), Operand::IdRef(b)] = inst.operands[..] else {
            return None;
        };
        let (x, y) = (self.info.constant_bits(a)?, self.info.constant_bits(b)?);
        let (sx, sy) = (x as i32, y as i32);
        let value = match inst.class.opcode {
            Op::IEqual => x == y,
            Op::INotEqual => x != y,
            Op::ULessThan => x < y,
            Op::ULessThanEqual => x <= y,
            Op::UGreaterThan => x > y,
            Op::UGreaterThanEqual => x >= y,
            Op::SLessThan => sx < sy,
            Op::SLessThanEqual => sx <= sy,
            Op::SGreaterThan => sx > sy,
            _ => sx >= sy,
        };
        Some(self.info.make_bool(module, ty, value))
    }

    /// `select(true, a, b)` is `a`, `select(false, a, b)` is `b`, `select(c, a, a)` is `a`
    /// (a scalar condition only: a vector one picks per component).
    fn fold_select(&self, inst: &Instruction) -> Option<Word> {
        let [Operand::IdRef(condition), Operand::IdRef(then), Operand::IdRef(otherwise)] =
            inst.operands[..]
        else {
            return None;
        };
        if then == otherwise {
            return Some(then);
        }
        match self.info.bool_constant(condition)? {
            true => Some(then),
            false => Some(otherwise),
        }
    }

    fn fold_extract(&mut self, inst: &mut Instruction) -> Option<Word> {
        let [Operand::IdRef(source), Operand::LiteralBit32(index)] = inst.operands[..] else {
            return None;
        };
        if let Some(parts) = self.info.composite_parts(source) {
            return parts.get(index as usize).copied();
        }
        match self.def(source)? {
            Def::Construct(parts) => parts.get(index as usize).copied().filter(|&p| p != 0),
            Def::Shuffle {
                first,
                second,
                components,
            } => {
                let &c = components.get(index as usize)?;
                if c == u8::MAX {
                    return None;
                }
                let c = u32::from(c);
                let first_count = self.info.vector(self.type_of(first)?)?.1;
                let (from, at) = if c < first_count {
                    (first, c)
                } else {
                    (second, c - first_count)
                };
                // Rewritten into an extract from the shuffle's source.
                set_operands(inst, [Operand::IdRef(from), Operand::LiteralBit32(at)]);
                self.fold_extract(inst)
            }
            _ => None,
        }
    }

    fn fold_construct(
        &mut self,
        module: &mut Module,
        inst: &mut Instruction,
        ty: Word,
    ) -> Option<Word> {
        let (component, count) = self.info.vector(ty)?;
        let parts: SmallVec<[Word; 4]> = super::info::ids(&inst.operands).collect();
        if parts.len() != count as usize || parts.len() != inst.operands.len() {
            return None;
        }
        if parts.iter().all(|&p| self.info.constant_bits(p).is_some()) {
            return Some(self.info.make_composite(module, ty, &parts));
        }
        // Components of vectors, each given by (source, index, through a bitcast).
        let mut pieces: SmallVec<[(Word, u32, bool); 4]> = SmallVec::new();
        for &part in &parts {
            let (value, bitcast) = match self.def(part) {
                Some(Def::Bitcast(inner)) => (inner, true),
                _ => (part, false),
            };
            match self.def(value) {
                Some(Def::Extract { source, index }) => pieces.push((source, index, bitcast)),
                _ => return None,
            }
        }
        let (source, _, bitcast) = pieces[0];
        let source_type = self.type_of(source)?;
        let (source_component, source_count) = self.info.vector(source_type)?;
        let in_order = pieces
            .iter()
            .enumerate()
            .all(|(i, &(s, index, b))| s == source && index == i as u32 && b == bitcast);
        if in_order && source_count == count {
            if !bitcast && source_type == ty {
                return Some(source);
            }
            if bitcast
                && self.info.is_scalar32(source_component)
                && self.info.is_scalar32(component)
            {
                rewrite(inst, Op::Bitcast, Some(ty), [Operand::IdRef(source)]);
                return self.fold_bitcast(module, inst, ty);
            }
            return None;
        }
        // A shuffle of at most two vectors of this component type.
        if pieces.iter().any(|&(_, _, b)| b) {
            return None;
        }
        let mut sources: SmallVec<[(Word, u32); 2]> = SmallVec::new();
        let mut components: SmallVec<[u32; 4]> = SmallVec::new();
        for &(s, index, _) in &pieces {
            let offset = match sources.iter().position(|&(v, _)| v == s) {
                Some(0) => 0,
                Some(_) => sources[0].1,
                None => {
                    if sources.len() == 2 {
                        return None;
                    }
                    let (c, n) = self.info.vector(self.type_of(s)?)?;
                    if c != component {
                        return None;
                    }
                    sources.push((s, n));
                    if sources.len() == 1 {
                        0
                    } else {
                        sources[0].1
                    }
                }
            };
            components.push(offset + index);
        }
        let first = sources[0].0;
        let second = sources.get(1).map_or(first, |s| s.0);
        rewrite(
            inst,
            Op::VectorShuffle,
            Some(ty),
            [Operand::IdRef(first), Operand::IdRef(second)],
        );
        inst.operands
            .extend(components.into_iter().map(Operand::LiteralBit32));
        None
    }

    fn fold_bitcast(
        &mut self,
        module: &mut Module,
        inst: &mut Instruction,
        ty: Word,
    ) -> Option<Word> {
        let [Operand::IdRef(mut source)] = inst.operands[..] else {
            return None;
        };
        if let Some(Def::Bitcast(inner)) = self.def(source) {
            source = inner;
            set_operands(inst, [Operand::IdRef(source)]);
        }
        // A component of a bitcast vector, cast back: the component of the original.
        if let Some(Def::Extract {
            source: vector,
            index,
        }) = self.def(source)
        {
            if let Some(Def::Bitcast(original)) = self.def(vector) {
                let component = self.type_of(original).and_then(|t| self.info.vector(t));
                if component.is_some_and(|(c, _)| c == ty) {
                    rewrite(
                        inst,
                        Op::CompositeExtract,
                        Some(ty),
                        [Operand::IdRef(original), Operand::LiteralBit32(index)],
                    );
                    return self.fold_extract(inst);
                }
            }
        }
        if self.type_of(source) == Some(ty) {
            return Some(source);
        }
        if self.info.is_scalar32(ty) {
            if let Some(bits) = self.info.constant_bits(source) {
                return Some(self.info.make_constant(module, ty, bits));
            }
        }
        if let (Some((component, count)), Some(parts)) = (
            self.info.vector(ty),
            self.info
                .composite_parts(source)
                .map(super::info::Parts::from_slice),
        ) {
            if self.info.is_scalar32(component) && parts.len() == count as usize {
                let mut cast = super::info::Parts::new();
                for part in parts {
                    let bits = self.info.constant_bits(part)?;
                    cast.push(self.info.make_constant(module, component, bits));
                }
                return Some(self.info.make_composite(module, ty, &cast));
            }
        }
        None
    }

    /// `select(c, a, b) != b` with constants `a != b` is `c` (D3D's boolean masks tested
    /// again).
    fn fold_mask_test(&self, inst: &Instruction, ty: Word) -> Option<Word> {
        let [Operand::IdRef(a), Operand::IdRef(b)] = inst.operands[..] else {
            return None;
        };
        let (selected, zero) = match self.def(a) {
            Some(Def::SelectConstants { .. }) => (a, b),
            _ => (b, a),
        };
        let Some(Def::SelectConstants {
            condition,
            then,
            otherwise,
        }) = self.def(selected)
        else {
            return None;
        };
        let bits = |id| self.info.constant_bits(id);
        let (then, otherwise, zero) = (bits(then)?, bits(otherwise)?, bits(zero)?);
        (otherwise == zero && then != zero && self.type_of(condition) == Some(ty))
            .then_some(condition)
    }

    fn fold_integer(
        &mut self,
        module: &mut Module,
        inst: &mut Instruction,
        ty: Word,
    ) -> Option<Word> {
        let [Operand::IdRef(a), Operand::IdRef(b)] = inst.operands[..] else {
            return None;
        };
        if !self.info.is_scalar32(ty) {
            return None;
        }
        let ca = self.info.constant_bits(a);
        let cb = self.info.constant_bits(b);
        let op = inst.class.opcode;
        if let (Some(x), Some(y)) = (ca, cb) {
            let value = match op {
                Op::IAdd => x.wrapping_add(y),
                Op::ISub => x.wrapping_sub(y),
                Op::IMul => x.wrapping_mul(y),
                Op::BitwiseAnd => x & y,
                Op::BitwiseOr => x | y,
                Op::BitwiseXor => x ^ y,
                Op::ShiftLeftLogical if y < 32 => x << y,
                Op::ShiftRightLogical if y < 32 => x >> y,
                Op::ShiftRightArithmetic if y < 32 => ((x as i32) >> y) as u32,
                _ => return None,
            };
            return Some(self.info.make_constant(module, ty, value));
        }
        // Identities whose other operand has the result's type.
        let identity = |c: Option<u32>, op: Op, right: bool| match (op, c) {
            (Op::IAdd | Op::BitwiseOr | Op::BitwiseXor, Some(0)) => true,
            (
                Op::ISub | Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic,
                Some(0),
            ) => right,
            (Op::IMul, Some(1)) => true,
            (Op::BitwiseAnd, Some(u32::MAX)) => true,
            _ => false,
        };
        if identity(cb, op, true) && self.type_of(a) == Some(ty) {
            return Some(a);
        }
        if identity(ca, op, false) && self.type_of(b) == Some(ty) {
            return Some(b);
        }
        None
    }
}

/// GLSL.std.450's number of `FAbs`.
const FABS: u32 = crate::spirv::operands::glsl::FABS;

/// The id of the module's `GLSL.std.450` import, 0 when it has none.
fn glsl_import(module: &Module) -> Word {
    module
        .ext_inst_imports
        .iter()
        .find(|inst| {
            matches!(inst.operands.first(),
                Some(Operand::LiteralString(text)) if module.text(*text) == "GLSL.std.450")
        })
        .and_then(|inst| inst.result_id())
        .unwrap_or(0)
}

/// How many stale values of earlier blocks, past the first block's count, the table of a
/// function's values may hold before they are dropped.
const STALE_VALUES: usize = 1024;

/// A value-numbering key: opcode and operand count, result type, up to six operands.
type Key = [u32; 8];

/// The value-numbering key of an instruction, or `None` when it has more than six operands
/// or one of a kind the key does not encode.
fn key(inst: &Instruction) -> Option<Key> {
    if inst.operands.len() > 6 {
        return None;
    }
    let mut key = [0; 8];
    key[0] = inst.class.opcode as u32 | (inst.operands.len() as u32) << 16;
    key[1] = inst.result_type().unwrap_or(0);
    for (slot, operand) in key[2..].iter_mut().zip(&inst.operands) {
        *slot = match operand {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => *id,
            Operand::LiteralBit32(v) | Operand::LiteralExtInstInteger(v) => *v,
            Operand::ImageOperands(flags) => flags.bits(),
            _ => return None,
        };
    }
    Some(key)
}
