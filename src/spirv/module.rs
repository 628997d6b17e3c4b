//! The SPIR-V module under construction: the builder plus caches of types and constants,
//! and the capabilities and extensions the module turns out to use.

use super::builder::{BuildError, Builder, Operand as SpvOperand, Recycled};
use crate::fast_hash::HashMap;
use smallvec::SmallVec;
use spirv::{Capability, StorageClass, Word};
use std::collections::BTreeSet;

use crate::error::{Error, Location, Result};

/// A scalar type of the emitted code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// 32-bit float.
    F32,
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// Boolean.
    Bool,
    /// 64-bit float.
    F64,
}

/// A type key for the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum TypeKey {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u32),
    Pointer(u32, Word),
    Function(Word),
    Array(Word, u32),
    RuntimeArray(Word),
}

/// The type and constant tables of a module, kept for the next one (see
/// [`Module::with_tables`]).
#[derive(Default)]
pub struct ModuleTables {
    types: HashMap<TypeKey, Word>,
    constants: HashMap<(Word, u64), Word>,
    constant_values: Vec<(Word, u64)>,
    /// The memory of the last module (see [`Recycled`]).
    pub recycled: Recycled,
}

impl ModuleTables {
    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        crate::fast_hash::map_bytes(&self.types)
            + crate::fast_hash::map_bytes(&self.constants)
            + self.constant_values.capacity() * std::mem::size_of::<(Word, u64)>()
            + self.recycled.held_bytes()
    }
}

/// The module under construction.
pub struct Module {
    /// The builder; instructions go into its selected block.
    pub b: Builder,
    types: HashMap<TypeKey, Word>,
    /// The scalar types already declared, by `Scalar as usize` (the most frequent look-up).
    scalars: [Option<Word>; 5],
    /// The 2-, 3- and 4-component vector types already declared, by `Scalar as usize` and
    /// count - 2 (the next most frequent look-up).
    vectors: [[Option<Word>; 3]; 5],
    constants: HashMap<(Word, u64), Word>,
    /// The bits of every non-boolean scalar constant, by id (made in the order of their ids,
    /// so sorted).
    constant_values: Vec<(Word, u64)>,
    /// Constant vectors by (type, components; unused slots 0).
    composites: HashMap<(Word, [Word; 4]), Word>,
    /// The capabilities used, sorted (a few per module: a list, not a tree of nodes).
    capabilities: SmallVec<[u32; 8]>,
    extensions: BTreeSet<&'static str>,
    glsl: Option<Word>,
    /// Array types decorated with an ArrayStride.
    strided: BTreeSet<Word>,
    /// Block structs by (member type, read-only).
    blocks: HashMap<(Word, bool), Word>,
    /// The number of `OpFunctionCall`s made (what is known of memory ends at each).
    calls: u32,
}

/// Converts a builder error into an internal error.
#[inline]
pub fn built<T>(result: std::result::Result<T, BuildError>) -> Result<T> {
    result.map_err(build_error)
}

/// The internal error of a builder error (out of line: it never happens on a valid path).
#[cold]
#[inline(never)]
fn build_error(e: BuildError) -> Error {
    Error::new(
        Location::None,
        format!("internal SPIR-V builder error: {e}"),
    )
    .with_kind(crate::ErrorKind::Internal)
}

impl Module {
    /// An empty module.
    pub fn new() -> Self {
        Module::with_tables(ModuleTables::default())
    }

    /// An empty module whose type and constant tables reuse these (emptied).
    pub fn with_tables(tables: ModuleTables) -> Self {
        let ModuleTables {
            mut types,
            mut constants,
            mut constant_values,
            recycled,
        } = tables;
        types.clear();
        constants.clear();
        constant_values.clear();
        // Sized for a typical shader's types and constants, so that the tables do not grow
        // (and rehash) three or four times during each translation.
        types.reserve(16);
        constants.reserve(32);
        constant_values.reserve(32);
        Module {
            b: Builder::with_recycled(recycled),
            types,
            scalars: [None; 5],
            vectors: [[None; 3]; 5],
            constants,
            constant_values,
            composites: HashMap::default(),
            capabilities: SmallVec::new(),
            extensions: BTreeSet::new(),
            glsl: None,
            strided: BTreeSet::new(),
            blocks: HashMap::default(),
            calls: 0,
        }
    }

    /// Takes the type and constant tables out, for the next module.
    pub fn take_tables(&mut self) -> ModuleTables {
        ModuleTables {
            types: std::mem::take(&mut self.types),
            constants: std::mem::take(&mut self.constants),
            constant_values: std::mem::take(&mut self.constant_values),
            recycled: self.b.take_recycled(),
        }
    }

    /// Declares that the module uses a capability.
    pub fn capability(&mut self, capability: Capability) {
        let code = capability as u32;
        if let Err(at) = self.capabilities.binary_search(&code) {
            self.capabilities.insert(at, code);
        }
    }

    /// Declares that the module uses an extension.
    pub fn extension(&mut self, name: &'static str) {
        self.extensions.insert(name);
    }

    /// The capabilities and extensions used, to be written into the module header.
    pub fn finish_header(&mut self) {
        for code in std::mem::take(&mut self.capabilities) {
            if let Some(capability) = Capability::from_u32(code) {
                self.b.capability(capability);
            }
        }
        for name in std::mem::take(&mut self.extensions) {
            self.b.extension(name);
        }
    }

    /// The GLSL.std.450 extended instruction set.
    pub fn glsl(&mut self) -> Word {
        match self.glsl {
            Some(id) => id,
            None => {
                let id = self.b.ext_inst_import("GLSL.std.450");
                self.glsl = Some(id);
                id
            }
        }
    }

    fn cached(&mut self, key: TypeKey, make: impl FnOnce(&mut Builder) -> Word) -> Word {
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let id = make(&mut self.b);
        self.types.insert(key, id);
        id
    }

    /// `void`.
    pub fn void(&mut self) -> Word {
        self.cached(TypeKey::Void, |b| b.type_void())
    }

    /// A scalar type.
    pub fn scalar(&mut self, scalar: Scalar) -> Word {
        if let Some(id) = self.scalars[scalar as usize] {
            return id;
        }
        if scalar == Scalar::F64 {
            self.capability(Capability::Float64);
        }
        let id = self.cached(TypeKey::Scalar(scalar), |b| match scalar {
            Scalar::F32 => b.type_float(32),
            Scalar::F64 => b.type_float(64),
            Scalar::I32 => b.type_int(32, 1),
            Scalar::U32 => b.type_int(32, 0),
            Scalar::Bool => b.type_bool(),
        });
        self.scalars[scalar as usize] = Some(id);
        id
    }

    /// A scalar (`count` = 1) or vector type.
    pub fn vector(&mut self, scalar: Scalar, count: u32) -> Word {
        let slot = (count as usize).wrapping_sub(2);
        if let Some(&Some(id)) = self.vectors[scalar as usize].get(slot) {
            return id;
        }
        let element = self.scalar(scalar);
        if count <= 1 {
            return element;
        }
        // A cache miss means the type is new (only this module makes 32-bit vectors and
        // pointers), so the builder's scan of every global for a duplicate is skipped by
        // giving the id it would allocate.
        let id = self.cached(TypeKey::Vector(scalar, count), |b| {
            let id = b.id();
            b.type_vector_id(Some(id), element, count)
        });
        if let Some(cached) = self.vectors[scalar as usize].get_mut(slot) {
            *cached = Some(id);
        }
        id
    }

    /// A pointer type.
    pub fn pointer(&mut self, class: StorageClass, pointee: Word) -> Word {
        self.cached(TypeKey::Pointer(class as u32, pointee), |b| {
            let id = b.id();
            b.type_pointer(Some(id), class, pointee)
        })
    }

    /// A function type returning void with no parameters.
    pub fn void_function(&mut self) -> Word {
        let void = self.void();
        self.cached(TypeKey::Function(void), |b| b.type_function(void, []))
    }

    /// A fixed-size array type (`length` elements) without a layout, for the storage classes
    /// that take none (Private, Function, Input, Output, Workgroup, descriptor arrays).
    pub fn array(&mut self, element: Word, length: u32) -> Word {
        self.array_type(TypeKey::Array(element, length), element, length)
    }

    /// A fixed-size array type with an ArrayStride decoration (for buffer blocks).
    pub fn strided_array(&mut self, element: Word, length: u32, stride: u32) -> Word {
        let id = self.array_type(
            TypeKey::Array(element, length | 0x8000_0000),
            element,
            length,
        );
        self.decorate_stride(id, stride);
        id
    }

    /// The array type of `key`, declared under an id of its own: an array with an explicit
    /// layout (ArrayStride) and one without are distinct types even when their element and
    /// length agree, since Vulkan forbids explicit layouts in the Private, Function and
    /// Workgroup storage classes (VUID-StandaloneSpirv-None-10684). Without the id, the
    /// builder would share the first identical `OpTypeArray` it finds.
    fn array_type(&mut self, key: TypeKey, element: Word, length: u32) -> Word {
        let length_id = self.constant_u32(length);
        self.cached(key, |b| {
            let id = b.id();
            b.type_array_id(Some(id), element, length_id)
        })
    }

    /// A runtime array type with an ArrayStride decoration.
    pub fn runtime_array(&mut self, element: Word, stride: u32) -> Word {
        let id = self.cached(TypeKey::RuntimeArray(element), |b| {
            b.type_runtime_array(element)
        });
        self.decorate_stride(id, stride);
        id
    }

    fn decorate_stride(&mut self, id: Word, stride: u32) {
        if self.strided.insert(id) {
            self.decorate(id, spirv::Decoration::ArrayStride, &[stride]);
        }
    }

    /// `OpDecorate` of `id` with literal parameters.
    pub fn decorate(&mut self, id: Word, decoration: spirv::Decoration, literals: &[u32]) {
        let mut operands = self
            .b
            .ops([SpvOperand::IdRef(id), SpvOperand::Decoration(decoration)]);
        operands.extend(literals.iter().map(|&v| SpvOperand::LiteralBit32(v)));
        let inst = crate::spirv::builder::inst(spirv::Op::Decorate, None, None, operands);
        self.b.module_mut().annotations.push(inst);
    }

    /// `OpMemberDecorate` of member `member` of `id` with literal parameters.
    pub fn member_decorate(
        &mut self,
        id: Word,
        member: u32,
        decoration: spirv::Decoration,
        literals: &[u32],
    ) {
        let mut operands = self.b.ops([
            SpvOperand::IdRef(id),
            SpvOperand::LiteralBit32(member),
            SpvOperand::Decoration(decoration),
        ]);
        operands.extend(literals.iter().map(|&v| SpvOperand::LiteralBit32(v)));
        let inst = crate::spirv::builder::inst(spirv::Op::MemberDecorate, None, None, operands);
        self.b.module_mut().annotations.push(inst);
    }

    /// A `Block` struct with one member at offset 0 (`NonWritable` when `readonly`). Each
    /// (member, read-only) pair gets its own struct so decorations never clash.
    pub fn block(&mut self, member: Word, readonly: bool) -> Word {
        if let Some(&id) = self.blocks.get(&(member, readonly)) {
            return id;
        }
        let id = self.b.id();
        self.b.type_struct_id(Some(id), [member]);
        self.decorate(id, spirv::Decoration::Block, &[]);
        self.member_decorate(id, 0, spirv::Decoration::Offset, &[0]);
        if readonly {
            self.member_decorate(id, 0, spirv::Decoration::NonWritable, &[]);
        }
        self.blocks.insert((member, readonly), id);
        id
    }

    /// A 32-bit constant of a scalar type, by bits.
    pub fn constant_bits(&mut self, scalar: Scalar, bits: u32) -> Word {
        let ty = self.scalar(scalar);
        if scalar == Scalar::Bool {
            let key = (ty, (bits != 0) as u64);
            if let Some(&id) = self.constants.get(&key) {
                return id;
            }
            let id = if bits != 0 {
                self.b.constant_true(ty)
            } else {
                self.b.constant_false(ty)
            };
            self.constants.insert(key, id);
            return id;
        }
        if scalar == Scalar::F64 {
            return self.constant_f64_bits(bits as u64);
        }
        let key = (ty, bits as u64);
        if let Some(&id) = self.constants.get(&key) {
            return id;
        }
        let id = self.b.constant_bit32(ty, bits);
        self.constants.insert(key, id);
        self.constant_values.push((id, bits as u64));
        id
    }

    /// A 64-bit float constant, by bits.
    pub fn constant_f64_bits(&mut self, bits: u64) -> Word {
        let ty = self.scalar(Scalar::F64);
        if let Some(&id) = self.constants.get(&(ty, bits)) {
            return id;
        }
        let id = self.b.constant_bit64(ty, bits);
        self.constants.insert((ty, bits), id);
        self.constant_values.push((id, bits));
        id
    }

    /// The bits of a scalar constant this module made (not a boolean), `None` for any other
    /// id.
    pub fn constant_value(&self, id: Word) -> Option<u64> {
        let at = self
            .constant_values
            .binary_search_by_key(&id, |&(made, _)| made)
            .ok()?;
        Some(self.constant_values[at].1)
    }

    /// A `uint` constant.
    pub fn constant_u32(&mut self, value: u32) -> Word {
        self.constant_bits(Scalar::U32, value)
    }

    /// A constant vector (or scalar when there is one part) of 32-bit bit patterns.
    pub fn constant_vector(&mut self, scalar: Scalar, bits: &[u32]) -> Word {
        let mut parts = [0; 4];
        for (part, &b) in parts.iter_mut().zip(bits) {
            *part = self.constant_bits(scalar, b);
        }
        self.constant_composite_of(scalar, &parts[..bits.len().min(4)])
    }

    /// A constant vector whose parts are constant ids (a scalar when there is one part).
    pub fn constant_composite_of(&mut self, scalar: Scalar, parts: &[Word]) -> Word {
        if parts.len() == 1 {
            return parts[0];
        }
        let ty = self.vector(scalar, parts.len() as u32);
        let mut key = [0; 4];
        key[..parts.len()].copy_from_slice(parts);
        if let Some(&id) = self.composites.get(&(ty, key)) {
            return id;
        }
        let id = self.b.constant_composite(ty, parts.iter().copied());
        self.composites.insert((ty, key), id);
        id
    }

    /// `OpLoad` of `pointer` as type `ty`, appended to the selected block.
    pub fn load(&mut self, ty: Word, pointer: Word) -> std::result::Result<Word, BuildError> {
        self.b.load(ty, None, pointer)
    }

    /// `OpStore` of `object` through `pointer`, appended to the selected block.
    pub fn store(&mut self, pointer: Word, object: Word) -> std::result::Result<(), BuildError> {
        self.b.store(pointer, object)
    }

    /// `OpBitcast` of `value` to type `ty`, appended to the selected block.
    pub fn bitcast(&mut self, ty: Word, value: Word) -> std::result::Result<Word, BuildError> {
        self.b.bitcast(ty, None, value)
    }

    /// Begins a block labelled `label` (a fresh id without one) in the selected function and
    /// selects it.
    pub fn begin_block(&mut self, label: Option<Word>) -> std::result::Result<Word, BuildError> {
        self.b.begin_block(label)
    }

    /// `OpBranch` to `target`, ending the selected block.
    pub fn branch(&mut self, target: Word) -> std::result::Result<(), BuildError> {
        self.b.branch(target)
    }

    /// `OpSelect` of `a` or `b` by `condition`, of type `ty`, appended to the selected block.
    pub fn select(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        condition: Word,
        a: Word,
        b: Word,
    ) -> std::result::Result<Word, BuildError> {
        self.b.select(ty, result_id, condition, a, b)
    }

    /// `OpSelectionMerge` naming `merge`, appended to the selected block.
    pub fn selection_merge(
        &mut self,
        merge: Word,
        control: spirv::SelectionControl,
    ) -> std::result::Result<(), BuildError> {
        let operands = self.b.ops([
            SpvOperand::IdRef(merge),
            SpvOperand::SelectionControl(control),
        ]);
        self.b.append(crate::spirv::builder::inst(
            spirv::Op::SelectionMerge,
            None,
            None,
            operands,
        ))
    }

    /// `OpCompositeExtract` of `composite` at `indices` into a value of type `ty`, appended
    /// to the selected block.
    pub fn composite_extract(
        &mut self,
        ty: Word,
        composite: Word,
        indices: &[u32],
    ) -> std::result::Result<Word, BuildError> {
        self.b
            .composite_extract(ty, None, composite, indices.iter().copied())
    }

    /// `OpFunctionCall` of `function` with `arguments`, returning `ty`, appended to the
    /// selected block; counted (see [`Module::place`]).
    pub fn function_call(
        &mut self,
        ty: Word,
        function: Word,
        arguments: &[Word],
    ) -> std::result::Result<Word, BuildError> {
        self.calls += 1;
        self.b
            .function_call(ty, None, function, arguments.iter().copied())
    }

    /// Where code is being emitted: the selected function and block, and the number of
    /// function calls made so far (the emitter's block-local knowledge holds while this
    /// stays the same).
    pub fn place(&self) -> (Option<usize>, Option<usize>, u32) {
        (
            self.b.selected_function(),
            self.b.selected_block(),
            self.calls,
        )
    }

    /// `OpCompositeConstruct` of `parts` into a value of type `ty`, appended to the selected
    /// block.
    pub fn composite_construct(
        &mut self,
        ty: Word,
        parts: &[Word],
    ) -> std::result::Result<Word, BuildError> {
        self.b.composite_construct(ty, None, parts.iter().copied())
    }

    /// `OpEntryPoint` of `function` named `name` with its interface variables.
    pub fn entry_point(
        &mut self,
        model: spirv::ExecutionModel,
        function: Word,
        name: &'static str,
        interface: &[Word],
    ) {
        self.b.entry_point(model, function, name, interface);
    }

    /// `OpAccessChain` from `base` through `indices` (ids) to a pointer of type `ty`,
    /// appended to the selected block.
    pub fn access_chain(
        &mut self,
        ty: Word,
        base: Word,
        indices: &[Word],
    ) -> std::result::Result<Word, BuildError> {
        self.b.access_chain(ty, None, base, indices.iter().copied())
    }

    /// A module-scope variable (`OpVariable` among the global values, whatever block is
    /// selected).
    pub fn global_variable(&mut self, pointee: Word, class: StorageClass) -> Word {
        self.global_variable_init(pointee, class, None)
    }

    /// A module-scope variable with an optional constant initializer.
    pub fn global_variable_init(
        &mut self,
        pointee: Word,
        class: StorageClass,
        init: Option<Word>,
    ) -> Word {
        let pointer = self.pointer(class, pointee);
        let id = self.b.id();
        let mut operands = self.b.ops([SpvOperand::StorageClass(class)]);
        operands.extend(init.map(SpvOperand::IdRef));
        let inst =
            crate::spirv::builder::inst(spirv::Op::Variable, Some(pointer), Some(id), operands);
        self.b.module_mut().types_global_values.push(inst);
        id
    }
}

impl Default for Module {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids that carry an `ArrayStride` decoration.
    fn strided_ids(m: &Module) -> Vec<Word> {
        m.b.module_ref()
            .annotations
            .iter()
            .filter(|i| {
                i.operands.get(1) == Some(&SpvOperand::Decoration(spirv::Decoration::ArrayStride))
            })
            .filter_map(|i| match i.operands.first() {
                Some(SpvOperand::IdRef(id)) => Some(*id),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn laid_out_and_plain_arrays_of_one_shape_are_distinct_types() {
        // In either order of first use: a plain array (for a Private variable) must never be
        // the strided one of a buffer block, which Vulkan forbids in Private
        // (VUID-StandaloneSpirv-None-10684).
        for strided_first in [true, false] {
            let mut m = Module::new();
            let element = m.vector(Scalar::U32, 4);
            let (strided, plain) = if strided_first {
                let s = m.strided_array(element, 4, 16);
                (s, m.array(element, 4))
            } else {
                let p = m.array(element, 4);
                (m.strided_array(element, 4, 16), p)
            };
            assert_ne!(strided, plain, "strided first: {strided_first}");
            assert_eq!(
                strided_ids(&m),
                vec![strided],
                "strided first: {strided_first}"
            );
            assert_eq!(m.array(element, 4), plain, "the plain array is cached");
            assert_eq!(
                m.strided_array(element, 4, 16),
                strided,
                "the strided one too"
            );
        }
    }
}
