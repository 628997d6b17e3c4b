//! What the passes need to know about a module: its types, constants and variables, which
//! instructions are free of side effects, id substitution, and fresh ids.

use crate::fast_hash::HashMap;
use crate::spirv::builder::{Instruction, Module, Operand, Operands};

use spirv::{Decoration, Op, StorageClass, Word};

/// A type of the module, as far as the passes look into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    /// A 32-bit scalar (float or int alike: only the width matters to the passes).
    Scalar32,
    /// Any other scalar (64-bit, bool).
    OtherScalar,
    /// A vector of `count` `component`s.
    Vector { component: Word, count: u32 },
    /// A pointer.
    Pointer { class: StorageClass, pointee: Word },
    /// A structure with these member types.
    Struct(Vec<Word>),
    /// An array (sized or runtime) of this element type.
    Array(Word),
    /// Anything else (images, samplers, functions, void).
    Other,
}

/// A composite constant's constituents (inline up to four: vectors).
pub type Parts = smallvec::SmallVec<[Word; 4]>;

/// What an id is, as far as the passes look (12 bytes: what does not fit is in a side
/// table of [`Info`], so that the table by id stays small for a module of many values).
#[derive(Debug, Clone, Copy, Default)]
enum Def {
    #[default]
    Unknown,
    /// A type: its index in [`Info::types`].
    Type(u32),
    /// A 32-bit scalar constant's bits.
    Constant(u32),
    /// A boolean constant.
    Bool(bool),
    /// A composite constant: the index of its constituents in [`Info::composites`].
    Composite(u32),
    /// A module-scope variable: storage class and pointee type.
    Variable(StorageClass, Word),
}

/// One id's entry.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// The result type (0 when none).
    ty: Word,
    def: Def,
    /// Some annotation decorates the id.
    decorated: bool,
    /// Memory the passes must not assume unchanged (`Volatile`, `BufferBlock`, helper
    /// invocation).
    volatile: bool,
}

/// The module's types, constants, variables and result types, by id (ids are dense, so
/// tables indexed by id are cheaper than hash maps); built once and kept up to date by the
/// passes.
#[derive(Debug, Default)]
pub struct Info {
    slots: Vec<Slot>,
    /// The types the slots name.
    types: Vec<Type>,
    /// The constituents of the composite constants the slots name.
    composites: Vec<Parts>,
    /// Whether `constant_ids`, `composite_ids` and `pointer_ids` hold the module's globals:
    /// they are filled when a pass first makes a global (most modules never do).
    lookups: bool,
    constant_ids: HashMap<(Word, u32), Word>,
    composite_ids: HashMap<(Word, Parts), Word>,
    pointer_ids: HashMap<(StorageClass, Word), Word>,
    /// The module-scope variables (inline up to eight: most modules have fewer).
    variables: smallvec::SmallVec<[Word; 8]>,
    /// The module's `false` and `true` constants with their type.
    bool_ids: [Option<(Word, Word)>; 2],
    /// See [`Info::has_variable_memory`].
    variable_memory: bool,
    /// See [`Info::has_output_chains`].
    output_chains: bool,
}

impl Info {
    /// Collects the information of a module.
    #[cfg(test)]
    pub fn of(module: &Module) -> Info {
        let mut info = Info::default();
        info.refill(module);
        info
    }

    /// Collects the information of a module into this table, reusing its memory (what it
    /// held before is forgotten).
    #[inline(never)]
    pub fn refill(&mut self, module: &Module) {
        let bound = module.header.as_ref().map_or(0, |h| h.bound) as usize;
        // Room past the bound for the ids the passes make, so that the slots are not copied
        // to grow; the look-ups by value are filled when first needed.
        let globals = module.types_global_values.len();
        self.lookups = false;
        self.constant_ids.clear();
        self.composite_ids.clear();
        self.pointer_ids.clear();
        self.slots.clear();
        self.slots.reserve(bound + bound / 4 + 16);
        self.types.clear();
        self.composites.clear();
        // Most globals are types.
        self.types.reserve(globals);
        self.variables.clear();
        self.variable_memory = false;
        self.output_chains = false;
        self.bool_ids = [None; 2];
        let info = self;
        info.slots.resize_with(bound.max(1), Slot::default);
        for annotation in &module.annotations {
            let Some(Operand::IdRef(target)) = annotation.operands.first() else {
                continue;
            };
            let volatile = annotation.class.opcode == Op::Decorate
                && matches!(
                    annotation.operands.get(1),
                    Some(Operand::Decoration(
                        Decoration::Volatile | Decoration::BufferBlock
                    ))
                )
                || matches!(
                    annotation.operands.get(2),
                    Some(Operand::BuiltIn(spirv::BuiltIn::HelperInvocation))
                );
            let slot = info.slot_mut(*target);
            slot.decorated = true;
            slot.volatile |= volatile;
        }
        for inst in &module.types_global_values {
            info.record_global(inst);
        }
        for function in &module.functions {
            for inst in function.parameters.iter() {
                info.record_result(inst);
            }
            for block in &function.blocks {
                for inst in &block.instructions {
                    info.record_result(inst);
                    info.note_variable_use(inst);
                }
            }
        }
    }

    /// The bytes of memory the table holds (for bounding what a thread keeps).
    pub fn held_bytes(&self) -> usize {
        use crate::fast_hash::{map_bytes, vec_bytes};
        vec_bytes(&self.slots)
            + vec_bytes(&self.types)
            + vec_bytes(&self.composites)
            + map_bytes(&self.constant_ids)
            + map_bytes(&self.composite_ids)
            + map_bytes(&self.pointer_ids)
            + crate::fast_hash::spilled_bytes(&self.variables)
    }

    /// Notes a function-scope variable, a whole load or store of a private variable and an
    /// access chain into an output variable.
    fn note_variable_use(&mut self, inst: &Instruction) {
        match (inst.class.opcode, inst.operands.first()) {
            (Op::Variable, _) => self.variable_memory = true,
            (Op::Load | Op::Store, Some(Operand::IdRef(pointer))) => {
                if matches!(self.variable(*pointer), Some((StorageClass::Private, _))) {
                    self.variable_memory = true;
                }
            }
            (Op::AccessChain, Some(Operand::IdRef(base))) => {
                if matches!(self.variable(*base), Some((StorageClass::Output, _))) {
                    self.output_chains = true;
                }
            }
            _ => {}
        }
    }

    /// Whether the code has access chains into output variables (when not, no output is
    /// written component by component).
    pub fn has_output_chains(&self) -> bool {
        self.output_chains
    }

    /// Whether the code has function-scope variables or loads or stores private variables
    /// (when not, no variable holds a value the passes could track).
    pub fn has_variable_memory(&self) -> bool {
        self.variable_memory
    }

    /// Notes that the code now loads or stores private variables (a pass made some).
    pub fn note_variable_memory(&mut self) {
        self.variable_memory = true;
    }

    fn slot_mut(&mut self, id: Word) -> &mut Slot {
        let index = id as usize;
        if index >= self.slots.len() {
            self.slots.resize_with(index + 1, Slot::default);
        }
        &mut self.slots[index]
    }

    fn slot(&self, id: Word) -> Option<&Slot> {
        self.slots.get(id as usize)
    }

    /// Records the result type of an instruction.
    pub fn record_result(&mut self, inst: &Instruction) {
        if let (Some(ty), Some(id)) = (inst.result_type(), inst.result_id()) {
            self.slot_mut(id).ty = ty;
        }
    }

    /// Records one instruction of the types-and-globals section.
    pub fn record_global(&mut self, inst: &Instruction) {
        self.record_result(inst);
        let Some(id) = inst.result_id() else { return };
        let ops = &inst.operands;
        let def = match inst.class.opcode {
            Op::TypeFloat | Op::TypeInt => match ops.first() {
                Some(Operand::LiteralBit32(32)) => self.type_def(Type::Scalar32),
                _ => self.type_def(Type::OtherScalar),
            },
            Op::TypeBool => self.type_def(Type::OtherScalar),
            Op::TypeVector => match (ops.first(), ops.get(1)) {
                (Some(Operand::IdRef(component)), Some(Operand::LiteralBit32(count))) => self
                    .type_def(Type::Vector {
                        component: *component,
                        count: *count,
                    }),
                _ => self.type_def(Type::Other),
            },
            Op::TypePointer => match (ops.first(), ops.get(1)) {
                (Some(Operand::StorageClass(class)), Some(Operand::IdRef(pointee))) => {
                    if self.lookups {
                        self.pointer_ids.insert((*class, *pointee), id);
                    }
                    self.type_def(Type::Pointer {
                        class: *class,
                        pointee: *pointee,
                    })
                }
                _ => self.type_def(Type::Other),
            },
            Op::TypeStruct => self.type_def(Type::Struct(ids(ops).collect())),
            Op::TypeArray | Op::TypeRuntimeArray => match ops.first() {
                Some(Operand::IdRef(element)) => self.type_def(Type::Array(*element)),
                _ => self.type_def(Type::Other),
            },
            op if (Op::TypeVoid as u32..=Op::TypeForwardPointer as u32).contains(&(op as u32)) => {
                self.type_def(Type::Other)
            }
            Op::Constant => match (inst.result_type(), &ops[..]) {
                (Some(ty), [Operand::LiteralBit32(bits)]) => {
                    if self.lookups {
                        self.constant_ids.entry((ty, *bits)).or_insert(id);
                    }
                    Def::Constant(*bits)
                }
                _ => return,
            },
            Op::ConstantTrue | Op::ConstantFalse => {
                if let Some(ty) = inst.result_type() {
                    let value = inst.class.opcode == Op::ConstantTrue;
                    self.bool_ids[value as usize] = Some((ty, id));
                }
                Def::Bool(inst.class.opcode == Op::ConstantTrue)
            }
            Op::ConstantComposite => {
                let parts: Parts = ids(ops).collect();
                if let (true, Some(ty)) = (self.lookups, inst.result_type()) {
                    self.composite_ids.entry((ty, parts.clone())).or_insert(id);
                }
                self.composites.push(parts);
                Def::Composite((self.composites.len() - 1) as u32)
            }
            Op::Variable => match (
                inst.result_type().and_then(|t| self.type_of_id(t)),
                ops.first(),
            ) {
                (Some(&Type::Pointer { pointee, .. }), Some(Operand::StorageClass(class))) => {
                    self.variables.push(id);
                    Def::Variable(*class, pointee)
                }
                _ => return,
            },
            _ => return,
        };
        self.slot_mut(id).def = def;
    }

    /// The definition of a type, its description kept in [`Info::types`].
    fn type_def(&mut self, ty: Type) -> Def {
        self.types.push(ty);
        Def::Type((self.types.len() - 1) as u32)
    }

    /// The type an id declares.
    pub fn type_of_id(&self, id: Word) -> Option<&Type> {
        match self.slot(id)?.def {
            Def::Type(t) => self.types.get(t as usize),
            _ => None,
        }
    }

    /// The result type of an id.
    pub fn result_type(&self, id: Word) -> Option<Word> {
        self.slot(id).map(|s| s.ty).filter(|&t| t != 0)
    }

    /// The bits of a 32-bit scalar constant.
    pub fn constant_bits(&self, id: Word) -> Option<u32> {
        match self.slot(id)?.def {
            Def::Constant(bits) => Some(bits),
            _ => None,
        }
    }

    /// The value of a boolean constant.
    pub fn bool_constant(&self, id: Word) -> Option<bool> {
        match self.slot(id)?.def {
            Def::Bool(value) => Some(value),
            _ => None,
        }
    }

    /// The boolean constant `value` of the bool type `ty`, made when the module lacks it.
    pub fn make_bool(&mut self, module: &mut Module, ty: Word, value: bool) -> Word {
        if let Some((t, id)) = self.bool_ids[value as usize] {
            if t == ty {
                return id;
            }
        }
        let id = self.fresh(module, Some(ty));
        let op = if value {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        self.push_global(
            module,
            crate::spirv::builder::inst(op, Some(ty), Some(id), Operands::new()),
        );
        id
    }

    /// The constituents of a composite constant.
    pub fn composite_parts(&self, id: Word) -> Option<&[Word]> {
        match self.slot(id)?.def {
            Def::Composite(index) => self.composites.get(index as usize).map(|p| p.as_slice()),
            _ => None,
        }
    }

    /// A module-scope variable's storage class and pointee type.
    pub fn variable(&self, id: Word) -> Option<(StorageClass, Word)> {
        match self.slot(id)?.def {
            Def::Variable(class, pointee) => Some((class, pointee)),
            _ => None,
        }
    }

    /// One more than the largest id.
    pub fn bound(&self) -> Word {
        self.slots.len() as Word
    }

    /// Every module-scope variable.
    pub fn variables(&self) -> &[Word] {
        &self.variables
    }

    /// Whether some annotation decorates the id.
    pub fn is_decorated(&self, id: Word) -> bool {
        self.slot(id).is_some_and(|s| s.decorated)
    }

    /// Whether the id is volatile memory.
    pub fn is_volatile(&self, id: Word) -> bool {
        self.slot(id).is_some_and(|s| s.volatile)
    }

    /// The component type and count of a vector type, `None` for other types.
    pub fn vector(&self, ty: Word) -> Option<(Word, u32)> {
        match self.type_of_id(ty) {
            Some(Type::Vector { component, count }) => Some((*component, *count)),
            _ => None,
        }
    }

    /// Whether a type is a 32-bit scalar.
    pub fn is_scalar32(&self, ty: Word) -> bool {
        self.type_of_id(ty) == Some(&Type::Scalar32)
    }

    /// A new id with this result type: the module's bound, which grows by one.
    pub fn fresh(&mut self, module: &mut Module, ty: Option<Word>) -> Word {
        let header = module
            .header
            .get_or_insert_with(|| crate::spirv::builder::ModuleHeader::new(1));
        let id = header.bound;
        header.bound += 1;
        self.slot_mut(id).ty = ty.unwrap_or(0);
        id
    }

    /// Declares a new global (constant or type) after the others.
    fn push_global(&mut self, module: &mut Module, inst: Instruction) {
        self.record_global(&inst);
        module.types_global_values.push(inst);
    }

    /// Fills the look-ups of constants, composite constants and pointer types by value from
    /// the module's globals, the first time a pass needs them (later globals are recorded as
    /// they are made).
    fn fill_lookups(&mut self, module: &Module) {
        if self.lookups {
            return;
        }
        self.lookups = true;
        for inst in &module.types_global_values {
            let (Some(id), ops) = (inst.result_id(), &inst.operands) else {
                continue;
            };
            match (inst.class.opcode, inst.result_type(), &ops[..]) {
                (Op::TypePointer, _, [Operand::StorageClass(class), Operand::IdRef(pointee)]) => {
                    self.pointer_ids.insert((*class, *pointee), id);
                }
                (Op::Constant, Some(ty), [Operand::LiteralBit32(bits)]) => {
                    self.constant_ids.entry((ty, *bits)).or_insert(id);
                }
                (Op::ConstantComposite, Some(ty), _) => {
                    let parts: Parts = ids(ops).collect();
                    self.composite_ids.entry((ty, parts)).or_insert(id);
                }
                _ => {}
            }
        }
    }

    /// The constant of a 32-bit scalar type with these bits, made when the module lacks it.
    pub fn make_constant(&mut self, module: &mut Module, ty: Word, bits: u32) -> Word {
        self.fill_lookups(module);
        if let Some(&id) = self.constant_ids.get(&(ty, bits)) {
            return id;
        }
        let id = self.fresh(module, Some(ty));
        let operands = crate::spirv::builder::operands([Operand::LiteralBit32(bits)]);
        self.push_global(
            module,
            crate::spirv::builder::inst(Op::Constant, Some(ty), Some(id), operands),
        );
        id
    }

    /// The composite constant of a type with these constituents, made when missing.
    pub fn make_composite(&mut self, module: &mut Module, ty: Word, parts: &[Word]) -> Word {
        self.fill_lookups(module);
        let key = (ty, Parts::from_slice(parts));
        if let Some(&id) = self.composite_ids.get(&key) {
            return id;
        }
        let id = self.fresh(module, Some(ty));
        let operands: Operands = parts.iter().map(|&p| Operand::IdRef(p)).collect();
        let inst = crate::spirv::builder::inst(Op::ConstantComposite, Some(ty), Some(id), operands);
        self.push_global(module, inst);
        id
    }

    /// The pointer type of a storage class and pointee, made when missing.
    pub fn make_pointer(
        &mut self,
        module: &mut Module,
        class: StorageClass,
        pointee: Word,
    ) -> Word {
        self.fill_lookups(module);
        if let Some(&id) = self.pointer_ids.get(&(class, pointee)) {
            return id;
        }
        let id = self.fresh(module, None);
        let inst = crate::spirv::builder::inst(
            Op::TypePointer,
            None,
            Some(id),
            crate::spirv::builder::operands([
                Operand::StorageClass(class),
                Operand::IdRef(pointee),
            ]),
        );
        // A new pointer type must precede its users; the pointee is already declared, so
        // it goes right after the last type declaration.
        let at = module
            .types_global_values
            .iter()
            .rposition(|i| i.result_id().is_some_and(|r| self.type_of_id(r).is_some()))
            .map_or(0, |p| p + 1);
        self.record_global(&inst);
        module.types_global_values.insert(at, inst);
        id
    }

    /// Whether memory reached through a variable can change while the shader runs
    /// (anything but inputs, constant buffers, push constants and descriptors).
    pub fn read_only(&self, var: Word) -> bool {
        let Some((class, mut pointee)) = self.variable(var) else {
            return false;
        };
        // A descriptor array's block is its element type.
        while let Some(Type::Array(element)) = self.type_of_id(pointee) {
            pointee = *element;
        }
        if self.is_volatile(var) || self.is_volatile(pointee) {
            return false;
        }
        matches!(
            class,
            StorageClass::Input
                | StorageClass::Uniform
                | StorageClass::UniformConstant
                | StorageClass::PushConstant
        )
    }
}

/// Drops the names and decorations of the ids `gone` says no longer exist.
pub fn drop_names_of(module: &mut Module, gone: impl Fn(Word) -> bool) {
    let targets_gone =
        |inst: &Instruction| matches!(inst.operands.first(), Some(Operand::IdRef(id)) if gone(*id));
    module.debug_names.retain(|inst| !targets_gone(inst));
    module.annotations.retain(|inst| !targets_gone(inst));
}

/// The ids among an instruction's operands.
pub fn ids(operands: &[Operand]) -> impl Iterator<Item = Word> + '_ {
    operands.iter().filter_map(Operand::id)
}

/// Calls `f` with every id an instruction uses: its result type and id operands (a plain
/// loop: the chained iterator it replaces cost `dce` most of its time).
#[inline]
pub fn for_each_use(inst: &Instruction, mut f: impl FnMut(Word)) {
    if let Some(ty) = inst.result_type() {
        f(ty);
    }
    for operand in &inst.operands {
        if let Some(id) = operand.id() {
            f(id);
        }
    }
}

/// A table of values by id (ids are small and dense, so a vector beats a hash map), with
/// the default value meaning "none". A table made by [`IdMap::with_bound`] or
/// [`IdMap::tracked`] remembers which ids it set, so that [`IdMap::clear`] and
/// [`IdMap::iter`] cost what was set; the default table does not (cheaper to fill; clearing
/// and iterating scan the whole table). [`IdMap::reset`] sizes either kind for a module.
#[derive(Debug, Clone, Default)]
pub struct IdMap<T> {
    values: Vec<T>,
    /// The ids set, when tracked (a typical pass sets few: kept inline up to 16).
    touched: Option<smallvec::SmallVec<[Word; 16]>>,
}

impl<T: Copy + Default + PartialEq> IdMap<T> {
    /// An empty table for ids below `bound` (it grows past it when needed) that tracks the
    /// ids it sets.
    pub fn with_bound(bound: Word) -> Self {
        IdMap {
            // Room for the ids the passes make, so that the table is not copied to grow.
            values: vec![T::default(); bound as usize + 16],
            touched: Some(smallvec::SmallVec::new()),
        }
    }

    /// An empty table that tracks the ids it sets, without memory until it is [`reset`]
    /// or set.
    ///
    /// [`reset`]: IdMap::reset
    pub fn tracked() -> Self {
        IdMap {
            values: Vec::new(),
            touched: Some(smallvec::SmallVec::new()),
        }
    }

    /// An empty table without memory that does not track the ids it sets (clearing it
    /// fills every value).
    pub fn untracked() -> Self {
        IdMap {
            values: Vec::new(),
            touched: None,
        }
    }

    /// Whether the table keeps a list of the ids it sets.
    pub fn is_tracked(&self) -> bool {
        self.touched.is_some()
    }

    /// The value of an id (the default when none is set).
    #[inline]
    pub fn get(&self, id: Word) -> T {
        self.values.get(id as usize).copied().unwrap_or_default()
    }

    /// Whether an id has a value.
    #[inline]
    pub fn contains(&self, id: Word) -> bool {
        self.get(id) != T::default()
    }

    /// Empties the table and sizes it for ids below `bound`, keeping its memory (and whether
    /// it tracks the ids it sets).
    pub fn reset(&mut self, bound: Word) {
        self.values.clear();
        let room = if self.touched.is_some() { 16 } else { 0 };
        self.values.resize(bound as usize + room, T::default());
        if let Some(touched) = &mut self.touched {
            touched.clear();
        }
    }

    /// The table's memory, for another table of words by id (its contents are not kept).
    pub fn into_memory(self) -> Vec<T> {
        self.values
    }

    /// Makes room for ids below `bound` without setting any (a table that grows one id
    /// at a time reallocates each time its capacity doubles).
    pub fn reserve(&mut self, bound: usize) {
        self.values.reserve(bound.saturating_sub(self.values.len()));
    }

    /// The bytes of memory the table holds.
    pub fn held_bytes(&self) -> usize {
        crate::fast_hash::vec_bytes(&self.values)
            + self
                .touched
                .as_ref()
                .map_or(0, crate::fast_hash::spilled_bytes)
    }

    /// Sets the value of an id.
    pub fn set(&mut self, id: Word, value: T) {
        let index = id as usize;
        if index >= self.values.len() {
            self.values.resize(index + 1, T::default());
        }
        if let Some(touched) = &mut self.touched {
            if self.values[index] == T::default() {
                touched.push(id);
            }
        }
        self.values[index] = value;
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        match &mut self.touched {
            Some(touched) => {
                for &id in touched.iter() {
                    if let Some(v) = self.values.get_mut(id as usize) {
                        *v = T::default();
                    }
                }
                touched.clear();
            }
            None => self.values.fill(T::default()),
        }
    }

    /// Whether no value was set since the table was made or cleared (for an untracked table:
    /// whether every value is the default).
    pub fn is_empty(&self) -> bool {
        match &self.touched {
            Some(touched) => touched.is_empty(),
            None => self.values.iter().all(|v| *v == T::default()),
        }
    }

    /// Every id with a value, with it.
    pub fn iter(&self) -> impl Iterator<Item = (Word, T)> + '_ {
        // The ids set when they are tracked, else every id (no boxed iterator: this is
        // called once a pass).
        let (touched, all) = match &self.touched {
            Some(touched) => (Some(touched.iter()), None),
            None => (None, Some(self.values.iter().enumerate())),
        };
        touched
            .into_iter()
            .flatten()
            .map(|&id| (id, self.get(id)))
            .chain(all.into_iter().flatten().map(|(id, &v)| (id as Word, v)))
            .filter(|&(_, v)| v != T::default())
    }
}

/// Replacements of ids by other ids (values found equal to earlier ones).
#[derive(Debug)]
pub struct Subst {
    map: IdMap<Word>,
}

impl Subst {
    /// The table's memory, for another table of words by id (its contents are not kept).
    pub fn into_memory(self) -> Vec<Word> {
        self.map.into_memory()
    }
}

impl Default for Subst {
    /// No replacements, and no memory until [`Subst::reset`] or the first replacement.
    fn default() -> Self {
        Subst {
            map: IdMap::tracked(),
        }
    }
}

impl Subst {
    /// No replacements yet, for ids below `bound`.
    pub fn with_bound(bound: Word) -> Self {
        Subst {
            map: IdMap::with_bound(bound),
        }
    }

    /// Empties the table for ids below `bound`, keeping its memory.
    pub fn reset(&mut self, bound: Word) {
        self.map.reset(bound);
    }

    /// The bytes of memory the table holds.
    pub fn held_bytes(&self) -> usize {
        self.map.held_bytes()
    }

    /// Records that `from` is to be replaced by `to`.
    pub fn replace(&mut self, from: Word, to: Word) {
        let to = self.resolve(to);
        if from != to {
            self.map.set(from, to);
        }
    }

    /// The id that replaces `id` (itself when none does).
    #[inline]
    pub fn resolve(&self, mut id: Word) -> Word {
        loop {
            let next = self.map.get(id);
            if next == 0 {
                return id;
            }
            id = next;
        }
    }

    /// Whether nothing is replaced.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Rewrites the id operands of a function's phis (at the starts of its blocks). A walk
    /// in block order rewrites each instruction before it reaches the definitions that come
    /// later in the order; only a phi uses such a value (a loop header's phi takes the value
    /// of its back edge), so it is rewritten again once the walk is done.
    pub fn apply_to_phis(&self, function: &mut crate::spirv::builder::Function) {
        if self.is_empty() {
            return;
        }
        for block in &mut function.blocks {
            for inst in block.instructions.iter_mut() {
                if inst.class.opcode != spirv::Op::Phi {
                    break;
                }
                self.apply(inst);
            }
        }
    }

    /// Rewrites the id operands of an instruction.
    #[inline]
    pub fn apply(&self, inst: &mut Instruction) {
        if self.is_empty() {
            return;
        }
        for operand in &mut inst.operands {
            if let Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) =
                operand
            {
                *id = self.resolve(*id);
            }
        }
    }
}

/// Whether an instruction only computes its result from its operands: no side effects, no
/// memory reads, so an unused one can go and two equal ones in one block are one.
pub fn is_pure(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        AccessChain
            | InBoundsAccessChain
            | CompositeConstruct
            | CompositeExtract
            | CompositeInsert
            | VectorShuffle
            | VectorExtractDynamic
            | VectorInsertDynamic
            | CopyObject
            | Bitcast
            | ConvertFToU
            | ConvertFToS
            | ConvertSToF
            | ConvertUToF
            | FConvert
            | SConvert
            | UConvert
            | QuantizeToF16
            | SNegate
            | FNegate
            | IAdd
            | FAdd
            | ISub
            | FSub
            | IMul
            | FMul
            | UDiv
            | SDiv
            | FDiv
            | UMod
            | SRem
            | SMod
            | FRem
            | FMod
            | VectorTimesScalar
            | Dot
            | IAddCarry
            | ISubBorrow
            | UMulExtended
            | SMulExtended
            | Any
            | All
            | IsNan
            | IsInf
            | LogicalEqual
            | LogicalNotEqual
            | LogicalOr
            | LogicalAnd
            | LogicalNot
            | Select
            | IEqual
            | INotEqual
            | UGreaterThan
            | SGreaterThan
            | UGreaterThanEqual
            | SGreaterThanEqual
            | ULessThan
            | SLessThan
            | ULessThanEqual
            | SLessThanEqual
            | FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | ShiftRightLogical
            | ShiftRightArithmetic
            | ShiftLeftLogical
            | BitwiseOr
            | BitwiseXor
            | BitwiseAnd
            | Not
            | BitFieldInsert
            | BitFieldSExtract
            | BitFieldUExtract
            | BitReverse
            | BitCount
            | ExtInst
            | SampledImage
            | Image
    )
}

/// Whether an unused result of the instruction can be dropped: pure instructions, loads and
/// image reads (they have no side effects).
pub fn is_removable(op: Op) -> bool {
    use Op::*;
    is_pure(op)
        || matches!(
            op,
            Load | Phi
                | ImageSampleImplicitLod
                | ImageSampleExplicitLod
                | ImageSampleDrefImplicitLod
                | ImageSampleDrefExplicitLod
                | ImageFetch
                | ImageGather
                | ImageDrefGather
                | ImageRead
                | ImageQuerySizeLod
                | ImageQuerySize
                | ImageQueryLod
                | ImageQueryLevels
                | ImageQuerySamples
                | ArrayLength
                | Undef
        )
}

/// The variables only ever used as the pointer of whole loads and stores (and listed in the
/// entry point's interface): temps, whose values the passes may track. Module-scope
/// `Private` and function-scope `Function` variables qualify; volatile ones do not.
#[inline(never)]
pub fn plain_variables(module: &Module, info: &Info) -> IdMap<bool> {
    let mut candidates = IdMap::with_bound(info.bound());
    for &id in info.variables() {
        if matches!(info.variable(id), Some((StorageClass::Private, _))) && !info.is_volatile(id) {
            candidates.set(id, true);
        }
    }
    for function in &module.functions {
        if let Some(entry) = function.blocks.first() {
            for inst in &entry.instructions {
                if inst.class.opcode == Op::Variable {
                    if let Some(id) = inst.result_id() {
                        if !info.is_volatile(id) {
                            candidates.set(id, true);
                        }
                    }
                }
            }
        }
    }
    let mut disqualified = Vec::new();
    for function in &module.functions {
        for block in &function.blocks {
            for inst in &block.instructions {
                // Operand count of a plain load (pointer) or store (pointer, value).
                let plain_len = match inst.class.opcode {
                    Op::Load => Some(1),
                    Op::Store => Some(2),
                    _ => None,
                };
                for (slot, operand) in inst.operands.iter().enumerate() {
                    if let Operand::IdRef(id) = operand {
                        let pointer = plain_len.is_some() && slot == 0;
                        if !pointer && candidates.contains(*id) {
                            disqualified.push(*id);
                        }
                    }
                }
                // A load or store with memory operands (volatile, aligned) is left alone.
                if plain_len.is_some_and(|len| inst.operands.len() > len) {
                    if let Some(Operand::IdRef(id)) = inst.operands.first() {
                        disqualified.push(*id);
                    }
                }
            }
        }
    }
    for inst in &module.types_global_values {
        disqualified.extend(ids(&inst.operands));
    }
    for id in disqualified {
        if candidates.contains(id) {
            candidates.set(id, false);
        }
    }
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::opt::test_support::Shell;

    /// The look-ups by value, filled only when a pass first makes a global, find what the
    /// module declared before and what was made since, and make what is missing once.
    #[test]
    fn made_globals_reuse_the_module_s_and_earlier_made_ones() {
        let mut s = Shell::new();
        let (uint, uvec4) = (s.uint, s.uvec4);
        let seven = s.uint_const(7);
        let mut module = s.finish();
        let mut info = Info::of(&module);
        let globals = module.types_global_values.len();
        assert_eq!(
            info.make_constant(&mut module, uint, 7),
            seven,
            "declared 7 reused"
        );
        let eight = info.make_constant(&mut module, uint, 8);
        assert_eq!(
            info.make_constant(&mut module, uint, 8),
            eight,
            "made 8 reused"
        );
        let parts = [seven, eight, seven, eight];
        let vector = info.make_composite(&mut module, uvec4, &parts);
        assert_eq!(info.make_composite(&mut module, uvec4, &parts), vector);
        let pointer = info.make_pointer(&mut module, StorageClass::Input, uvec4);
        assert_eq!(
            info.make_pointer(&mut module, StorageClass::Input, uvec4),
            pointer
        );
        assert_eq!(
            module.types_global_values.len(),
            globals + 3,
            "one constant, one composite and one pointer type made"
        );
    }
}
