//! Appending instructions to a module in the back end's form ([`super::form`]): one method
//! per instruction the translator makes (rspirv's builder names and argument orders), fresh
//! ids, the selected function and block, and the stores held until a block ends.

use super::deferred::{self, ComponentTarget, Held, HeldList};
use super::held_values::HeldValues;
use super::predecessors::Predecessors;
use super::{
    inst, Block, Function, Instruction, Module, ModuleHeader, Operand, Operands, Recycled,
};
use smallvec::SmallVec;
use spirv::{Op, Word};
use std::fmt;

/// The most unused room a finished block's instruction list keeps: 64 instructions (4 KiB).
const SPARE_INSTRUCTIONS: usize = 64;

/// How many blocks of a function keep their lists' unused room (up to
/// [`SPARE_INSTRUCTIONS`]) when they end; every later one gives it all back.
const ROOMY_BLOCKS: usize = 64;

/// Why an instruction could not be added where the builder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildError {
    /// An instruction was appended with no block selected.
    DetachedInstruction,
    /// A block was begun outside a function.
    DetachedBlock,
    /// A block was begun while another is open.
    NestedBlock,
    /// A function was begun inside another.
    NestedFunction,
    /// A function was ended with none begun.
    MismatchedFunctionEnd,
    /// A terminator was appended with no block open.
    MismatchedTerminator,
    /// A parameter was declared outside a function.
    DetachedFunctionParameter,
    /// A block index out of range was selected.
    BlockNotFound,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BuildError::DetachedInstruction => "instruction outside a block",
            BuildError::DetachedBlock => "block outside a function",
            BuildError::NestedBlock => "block begun inside another block",
            BuildError::NestedFunction => "function begun inside another function",
            BuildError::MismatchedFunctionEnd => "function ended without one begun",
            BuildError::MismatchedTerminator => "terminator outside a block",
            BuildError::DetachedFunctionParameter => "function parameter outside a function",
            BuildError::BlockNotFound => "no such block",
        })
    }
}

impl std::error::Error for BuildError {}

/// The result of a builder method.
pub type BuildResult<T> = Result<T, BuildError>;

/// A module under construction and the place where instructions go: the module, fresh
/// ids, the selected function and block, stores held until their block ends, each block's
/// predecessors, and the memory of an earlier module.
pub struct Builder {
    module: Box<Module>,
    /// The next fresh id.
    next_id: Word,
    /// The selected function.
    function: Option<usize>,
    /// The selected block of the selected function.
    block: Option<usize>,
    /// Stores held back until their block ends, by (function, block) (see
    /// [`super::deferred`]).
    deferred: SmallVec<[((usize, usize), HeldList); 2]>,
    /// Values made only when used (see [`super::held_values`]).
    held_values: HeldValues,
    /// The predecessors of each block by label, in the order their branches were added
    /// (a block branching twice to one target counts once).
    predecessors: Predecessors,
    /// Instruction lists of an earlier module, for the blocks.
    recycled: Recycled,
    /// The room a function's first block starts with (see [`Builder::set_first_block_room`]).
    first_block_room: usize,
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("module", &self.module)
            .field("selected_function", &self.function)
            .field("selected_block", &self.block)
            .finish_non_exhaustive()
    }
}

impl Default for Builder {
    /// An empty module; ids start at 1.
    fn default() -> Self {
        Builder::with_recycled(Recycled::default())
    }
}

impl Builder {
    /// An empty module (ids start at 1) built in the memory of an earlier one.
    pub fn with_recycled(mut recycled: Recycled) -> Builder {
        let mut module = recycled.take_module();
        let held_values = recycled.take_held();
        // Room for a typical shader's declarations (the small sections are inline).
        module.annotations.reserve(16);
        module.types_global_values.reserve(64);
        module.functions.reserve(1);
        module.header = Some(ModuleHeader::new(1));
        Builder {
            module,
            next_id: 1,
            function: None,
            block: None,
            recycled,
            deferred: SmallVec::new(),
            held_values,
            predecessors: Default::default(),
            first_block_room: 32,
        }
    }

    /// Sets the room, in instructions, that a function's first block starts with (a new
    /// list's; a recycled list keeps its own): about what the code of a straight-line
    /// function will fill, so that its list is allocated once rather than grown from small.
    pub fn set_first_block_room(&mut self, room: usize) {
        self.first_block_room = room;
    }

    /// A fresh id.
    pub fn id(&mut self) -> Word {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sets the SPIR-V version of the header.
    pub fn set_version(&mut self, major: u8, minor: u8) {
        self.module
            .header
            .get_or_insert_with(|| ModuleHeader::new(0))
            .set_version(major, minor)
    }

    /// Sets the memory model.
    pub fn memory_model(&mut self, addressing: spirv::AddressingModel, memory: spirv::MemoryModel) {
        self.module.memory_model = Some(inst(
            Op::MemoryModel,
            None,
            None,
            super::operands([
                Operand::AddressingModel(addressing),
                Operand::MemoryModel(memory),
            ]),
        ));
    }

    /// The memory kept from an earlier module and not used (see [`Recycled`]).
    pub fn take_recycled(&mut self) -> Recycled {
        let mut recycled = std::mem::take(&mut self.recycled);
        recycled.keep_held(std::mem::take(&mut self.held_values));
        recycled
    }

    /// The finished module, its header's bound set.
    pub fn module(self) -> Box<Module> {
        let mut module = self.module;
        module
            .header
            .get_or_insert_with(|| ModuleHeader::new(0))
            .bound = self.next_id;
        module
    }

    /// The module so far.
    pub fn module_ref(&self) -> &Module {
        &self.module
    }

    /// The module so far, to change.
    pub fn module_mut(&mut self) -> &mut Module {
        &mut self.module
    }

    /// The index of the selected function.
    pub fn selected_function(&self) -> Option<usize> {
        self.function
    }

    /// The index of the selected block in the selected function.
    pub fn selected_block(&self) -> Option<usize> {
        self.block
    }

    /// The selected function and block.
    fn selected(&self) -> Option<(usize, usize)> {
        Some((self.function?, self.block?))
    }

    /// The label of the selected block.
    pub fn selected_label(&self) -> Option<Word> {
        let (f, b) = self.selected()?;
        self.module_ref().functions[f].blocks[b].label_id()
    }

    /// The blocks that branch to the block labelled `label`, so far.
    pub fn predecessors(&self, label: Word) -> &[Word] {
        self.predecessors.of(label)
    }

    /// Selects a block of the selected function (or none).
    pub fn select_block(&mut self, index: Option<usize>) -> BuildResult<()> {
        match index {
            None => self.block = None,
            Some(index) => {
                let f = self.function.ok_or(BuildError::DetachedBlock)?;
                if index >= self.module.functions[f].blocks.len() {
                    return Err(BuildError::BlockNotFound);
                }
                self.block = Some(index);
            }
        }
        Ok(())
    }

    /// An operand list of `first` (inline up to [`super::form::INLINE_OPERANDS`]).
    pub fn ops<const N: usize>(&mut self, first: [Operand; N]) -> Operands {
        super::form::operands(first)
    }

    /// An operand list of `first` and then the ids `ids` (see [`Builder::ops`]).
    fn ops_and_ids<const N: usize>(
        &mut self,
        first: [Operand; N],
        ids: impl IntoIterator<Item = Word>,
    ) -> Operands {
        let mut operands = self.ops(first);
        operands.extend(ids.into_iter().map(Operand::IdRef));
        operands
    }

    /// Appends an instruction to the selected block (rspirv's `insert_into_block` at the end,
    /// without its insertion point and its error that carries the instruction back).
    #[inline]
    pub fn append(&mut self, inst: Instruction) -> BuildResult<()> {
        let (f, b) = self.selected().ok_or(BuildError::DetachedInstruction)?;
        self.module.functions[f].blocks[b].instructions.push(inst);
        Ok(())
    }

    /// Appends an instruction with a result of type `ty` (id `result_id` or a fresh one)
    /// and returns the id.
    fn result(
        &mut self,
        op: Op,
        ty: Word,
        result_id: Option<Word>,
        operands: Operands,
    ) -> BuildResult<Word> {
        let id = result_id.unwrap_or_else(|| self.id());
        self.append(inst(op, Some(ty), Some(id), operands))?;
        Ok(id)
    }

    /// Appends an instruction without a result.
    fn no_result(&mut self, op: Op, operands: Operands) -> BuildResult<()> {
        if matches!(
            op,
            Op::EmitVertex
                | Op::EmitStreamVertex
                | Op::EndPrimitive
                | Op::EndStreamPrimitive
                | Op::ControlBarrier
                | Op::MemoryBarrier
        ) {
            // What the held stores write must be in place for the vertex or the barrier.
            self.flush_deferred()?;
        }
        self.append(inst(op, None, None, operands))
    }

    /// Appends a block terminator and deselects the block. The block's deferred stores go
    /// before the terminator.
    fn terminate(&mut self, terminator: Instruction) -> BuildResult<()> {
        if self.selected().is_none() {
            return Err(BuildError::MismatchedTerminator);
        }
        let op = terminator.class.opcode;
        self.place_held_values(op)?;
        self.flush_deferred()?;
        if let Some(from) = self.selected_label() {
            let targets: &[Operand] = match op {
                Op::Branch => &terminator.operands[..1],
                Op::BranchConditional => &terminator.operands[1..3],
                Op::Switch => &terminator.operands[1..],
                _ => &[],
            };
            for target in targets {
                if let Operand::IdRef(target) = *target {
                    self.predecessors.add(target, from);
                }
            }
        }
        self.append(terminator)?;
        // A large block's list gives back what doubling left unused (a shrink in place), and
        // so does every block of a function past its first few dozen: a shader of many
        // thousands of instructions holds some 30% less, most of it in the small blocks of
        // its bounds checks and branches.
        if let Some((f, b)) = self.selected() {
            let list = &mut self.module.functions[f].blocks[b].instructions;
            let spare = list.capacity() - list.len();
            if spare > SPARE_INSTRUCTIONS || (b >= ROOMY_BLOCKS && spare > 0) {
                list.shrink_to_fit();
            }
        }
        self.block = None;
        Ok(())
    }

    /// `OpCompositeExtract` of component `index` of `composite` into a value of type `ty`,
    /// held in the selected block until its result is used (see [`super::held_values`]);
    /// the result id.
    pub fn hold_composite_extract(
        &mut self,
        ty: Word,
        composite: Word,
        index: u32,
    ) -> BuildResult<Word> {
        let here = self.selected().ok_or(BuildError::DetachedInstruction)?;
        let id = self.id();
        let operands = self.ops([Operand::IdRef(composite), Operand::LiteralBit32(index)]);
        let extract = inst(Op::CompositeExtract, Some(ty), Some(id), operands);
        self.held_values.hold(here, extract);
        Ok(id)
    }

    /// Whether `id` is a held value, not yet made.
    #[inline]
    pub fn is_held(&self, id: Word) -> bool {
        self.held_values.is_held(id)
    }

    /// Makes the held value `id` where the code of its block has got to (nothing when it
    /// is not held).
    pub fn release(&mut self, id: Word) -> BuildResult<()> {
        if let Some(((f, b), inst)) = self.held_values.take(id) {
            let block = &mut self.module.functions[f].blocks[b].instructions;
            let at = block.len() - usize::from(ends_with_merge(block));
            block.insert(at, inst);
        }
        Ok(())
    }

    /// Lets the held value `id` go: nothing will use it.
    pub fn drop_held(&mut self, id: Word) {
        self.held_values.take(id);
    }

    /// The held values of the selected block as it ends with `op`: made before the
    /// terminator (and its merge instruction), or dropped before a return or a kill, after
    /// which nothing can use them.
    fn place_held_values(&mut self, op: Op) -> BuildResult<()> {
        if self.held_values.is_empty() {
            return Ok(());
        }
        let (f, b) = self.selected().ok_or(BuildError::DetachedInstruction)?;
        let ends = matches!(
            op,
            Op::Return | Op::ReturnValue | Op::Kill | Op::TerminateInvocation | Op::Unreachable
        );
        let block = &mut self.module.functions[f].blocks[b].instructions;
        let mut at = block.len() - usize::from(ends_with_merge(block));
        self.held_values.take_block((f, b), |inst| {
            if !ends {
                block.insert(at, inst);
                at += 1;
            }
        });
        Ok(())
    }

    /// Stores a whole output vector when the selected block ends. Only for outputs the
    /// shader never reads back.
    pub fn defer_output_store(&mut self, var: Word, value: Word) -> BuildResult<()> {
        self.hold(Held::Whole {
            pointer: var,
            value,
        })
    }

    /// Stores one component of an output vector when the selected block ends: one store of
    /// the vector when the block writes all its components. Only for outputs the shader
    /// never reads back.
    pub fn defer_component_store(
        &mut self,
        var: Word,
        component: u32,
        value: Word,
        target: ComponentTarget,
    ) -> BuildResult<()> {
        self.hold(Held::Component {
            var,
            component,
            value,
            target,
        })
    }

    fn hold(&mut self, store: Held) -> BuildResult<()> {
        let here = self.selected().ok_or(BuildError::DetachedInstruction)?;
        match self.deferred.iter_mut().find(|(at, _)| *at == here) {
            Some((_, list)) => deferred::hold(list, store),
            None => {
                let mut list = HeldList::new();
                list.push(store);
                self.deferred.push((here, list));
            }
        }
        Ok(())
    }

    /// Carries out the selected block's held stores, before a merge instruction that ends
    /// the block (which must directly precede the terminator).
    fn flush_deferred(&mut self) -> BuildResult<()> {
        let (f, b) = self.selected().ok_or(BuildError::DetachedInstruction)?;
        let Some(at) = self.deferred.iter().position(|(at, _)| *at == (f, b)) else {
            return Ok(());
        };
        let (_, held) = self.deferred.swap_remove(at);
        let stores = deferred::carry_out(&held, || self.id());
        let block = &mut self.module.functions[f].blocks[b].instructions;
        let at = block.len() - usize::from(ends_with_merge(block));
        block.splice(at..at, stores);
        Ok(())
    }

    /// Begins a function and selects it.
    pub fn begin_function(
        &mut self,
        return_type: Word,
        function_id: Option<Word>,
        control: spirv::FunctionControl,
        function_type: Word,
    ) -> BuildResult<Word> {
        if self.function.is_some() {
            return Err(BuildError::NestedFunction);
        }
        let id = function_id.unwrap_or_else(|| self.id());
        let operands = self.ops([
            Operand::FunctionControl(control),
            Operand::IdRef(function_type),
        ]);
        self.module.functions.push(Function {
            def: Some(inst(Op::Function, Some(return_type), Some(id), operands)),
            // Room for the blocks of most functions, so that the list does not grow.
            blocks: Vec::with_capacity(8),
            ..Function::default()
        });
        self.function = Some(self.module.functions.len() - 1);
        self.block = None;
        Ok(id)
    }

    /// Ends the selected function and deselects it (and any block).
    pub fn end_function(&mut self) -> BuildResult<()> {
        let f = self.function.ok_or(BuildError::MismatchedFunctionEnd)?;
        self.module.functions[f].end = Some(inst(Op::FunctionEnd, None, None, Operands::new()));
        self.function = None;
        self.block = None;
        Ok(())
    }

    /// Declares a parameter of the selected function.
    pub fn function_parameter(&mut self, ty: Word) -> BuildResult<Word> {
        let f = self.function.ok_or(BuildError::DetachedFunctionParameter)?;
        let id = self.id();
        self.module.functions[f].parameters.push(inst(
            Op::FunctionParameter,
            Some(ty),
            Some(id),
            Operands::new(),
        ));
        Ok(id)
    }

    /// Begins a block labelled `label` (a fresh id without one) in the selected function
    /// and selects it, its instruction list a recycled one.
    pub fn begin_block(&mut self, label: Option<Word>) -> BuildResult<Word> {
        let f = self.function.ok_or(BuildError::DetachedBlock)?;
        if self.block.is_some() {
            return Err(BuildError::NestedBlock);
        }
        let id = label.unwrap_or_else(|| self.id());
        // Room for a typical block, so that its list does not grow from empty: a function's
        // first block holds most of a straight-line shader, the later ones are mostly the
        // few instructions of a bounds check or a branch.
        let room = if self.module.functions[f].blocks.is_empty() {
            self.first_block_room
        } else {
            4
        };
        let instructions = self.recycled.list(room);
        let blocks = &mut self.module.functions[f].blocks;
        blocks.push(Block {
            label: id,
            instructions,
        });
        self.block = Some(blocks.len() - 1);
        Ok(id)
    }

    /// Declares an extension.
    pub fn extension(&mut self, name: impl Into<std::borrow::Cow<'static, str>>) {
        let name = self.module.string(name);
        self.module
            .extensions
            .push(inst(Op::Extension, None, None, super::operands([name])));
    }

    /// Imports an extended instruction set.
    pub fn ext_inst_import(&mut self, name: impl Into<std::borrow::Cow<'static, str>>) -> Word {
        let id = self.id();
        let name = self.module.string(name);
        self.module.ext_inst_imports.push(inst(
            Op::ExtInstImport,
            None,
            Some(id),
            super::operands([name]),
        ));
        id
    }

    /// Declares an entry point.
    pub fn entry_point(
        &mut self,
        model: spirv::ExecutionModel,
        function: Word,
        name: impl Into<std::borrow::Cow<'static, str>>,
        interface: impl AsRef<[Word]>,
    ) {
        let name = self.module.string(name);
        let mut operands = self.ops([
            Operand::ExecutionModel(model),
            Operand::IdRef(function),
            name,
        ]);
        operands.extend(interface.as_ref().iter().map(|&id| Operand::IdRef(id)));
        self.module
            .entry_points
            .push(inst(Op::EntryPoint, None, None, operands));
    }

    /// Declares an execution mode with literal parameters.
    pub fn execution_mode(
        &mut self,
        function: Word,
        mode: spirv::ExecutionMode,
        params: impl AsRef<[u32]>,
    ) {
        let mut operands = self.ops([Operand::IdRef(function), Operand::ExecutionMode(mode)]);
        operands.extend(params.as_ref().iter().map(|&p| Operand::LiteralBit32(p)));
        self.module
            .execution_modes
            .push(inst(Op::ExecutionMode, None, None, operands));
    }

    /// Names an id (debug information).
    pub fn name(&mut self, target: Word, name: impl Into<std::borrow::Cow<'static, str>>) {
        let name = self.module.string(name);
        let operands = self.ops([Operand::IdRef(target), name]);
        self.module_mut()
            .debug_names
            .push(inst(Op::Name, None, None, operands));
    }

    /// Declares a capability.
    pub fn capability(&mut self, capability: spirv::Capability) {
        let operands = self.ops([Operand::Capability(capability)]);
        self.module_mut()
            .capabilities
            .push(inst(Op::Capability, None, None, operands));
    }

    /// A type declaration: with `result_id`, declared under that id; without, the id of an
    /// identical declaration already made, or a new one. (rspirv's type methods do the same
    /// with lists of exactly the operands' size; these take recycled ones.)
    fn type_decl(&mut self, op: Op, result_id: Option<Word>, operands: Operands) -> Word {
        let mut decl = inst(op, None, result_id, operands);
        if let Some(id) = result_id {
            self.module_mut().types_global_values.push(decl);
            return id;
        }
        let existing = self
            .module_ref()
            .types_global_values
            .iter()
            .find(|t| t.is_type_identical(&decl))
            .and_then(|t| t.result_id());
        if let Some(id) = existing {
            return id;
        }
        let id = self.id();
        decl.set_result_id(Some(id));
        self.module_mut().types_global_values.push(decl);
        id
    }

    /// `OpTypeVoid`.
    pub fn type_void(&mut self) -> Word {
        self.type_decl(Op::TypeVoid, None, Operands::new())
    }

    /// `OpTypeBool`.
    pub fn type_bool(&mut self) -> Word {
        self.type_decl(Op::TypeBool, None, Operands::new())
    }

    /// `OpTypeInt`.
    pub fn type_int(&mut self, width: u32, signedness: u32) -> Word {
        let operands = self.ops([
            Operand::LiteralBit32(width),
            Operand::LiteralBit32(signedness),
        ]);
        self.type_decl(Op::TypeInt, None, operands)
    }

    /// `OpTypeFloat` (no encoding).
    pub fn type_float(&mut self, width: u32) -> Word {
        let operands = self.ops([Operand::LiteralBit32(width)]);
        self.type_decl(Op::TypeFloat, None, operands)
    }

    /// `OpTypeVector` under `result_id`, or shared with an identical declaration.
    pub fn type_vector_id(&mut self, result_id: Option<Word>, component: Word, count: u32) -> Word {
        let operands = self.ops([Operand::IdRef(component), Operand::LiteralBit32(count)]);
        self.type_decl(Op::TypeVector, result_id, operands)
    }

    /// `OpTypeVector`, shared with an identical declaration.
    pub fn type_vector(&mut self, component: Word, count: u32) -> Word {
        self.type_vector_id(None, component, count)
    }

    /// `OpTypePointer` under `result_id`, or shared with an identical declaration.
    pub fn type_pointer(
        &mut self,
        result_id: Option<Word>,
        class: spirv::StorageClass,
        pointee: Word,
    ) -> Word {
        let operands = self.ops([Operand::StorageClass(class), Operand::IdRef(pointee)]);
        self.type_decl(Op::TypePointer, result_id, operands)
    }

    /// `OpTypeFunction`, shared with an identical declaration.
    pub fn type_function(&mut self, ret: Word, params: impl IntoIterator<Item = Word>) -> Word {
        let operands = self.ops_and_ids([Operand::IdRef(ret)], params);
        self.type_decl(Op::TypeFunction, None, operands)
    }

    /// `OpTypeArray` of `length` (a constant id) elements under `result_id`, or shared with an
    /// identical declaration.
    pub fn type_array_id(&mut self, result_id: Option<Word>, element: Word, length: Word) -> Word {
        let operands = self.ops([Operand::IdRef(element), Operand::IdRef(length)]);
        self.type_decl(Op::TypeArray, result_id, operands)
    }

    /// `OpTypeRuntimeArray`, shared with an identical declaration.
    pub fn type_runtime_array(&mut self, element: Word) -> Word {
        let operands = self.ops([Operand::IdRef(element)]);
        self.type_decl(Op::TypeRuntimeArray, None, operands)
    }

    /// `OpTypeStruct` under `result_id`, or shared with an identical declaration.
    pub fn type_struct_id(
        &mut self,
        result_id: Option<Word>,
        members: impl IntoIterator<Item = Word>,
    ) -> Word {
        let operands = self.ops_and_ids([], members);
        self.type_decl(Op::TypeStruct, result_id, operands)
    }

    /// `OpTypeStruct`, shared with an identical declaration.
    pub fn type_struct(&mut self, members: impl IntoIterator<Item = Word>) -> Word {
        self.type_struct_id(None, members)
    }

    /// `OpTypeImage`, shared with an identical declaration.
    #[allow(clippy::too_many_arguments)]
    pub fn type_image(
        &mut self,
        sampled_type: Word,
        dim: spirv::Dim,
        depth: u32,
        arrayed: u32,
        ms: u32,
        sampled: u32,
        format: spirv::ImageFormat,
        access: Option<spirv::AccessQualifier>,
    ) -> Word {
        let mut operands = self.ops([
            Operand::IdRef(sampled_type),
            Operand::Dim(dim),
            Operand::LiteralBit32(depth),
            Operand::LiteralBit32(arrayed),
            Operand::LiteralBit32(ms),
            Operand::LiteralBit32(sampled),
            Operand::ImageFormat(format),
        ]);
        operands.extend(access.map(Operand::AccessQualifier));
        self.type_decl(Op::TypeImage, None, operands)
    }

    /// `OpTypeSampler`, shared with an identical declaration.
    pub fn type_sampler(&mut self) -> Word {
        self.type_decl(Op::TypeSampler, None, Operands::new())
    }

    /// `OpTypeSampledImage`, shared with an identical declaration.
    pub fn type_sampled_image(&mut self, image: Word) -> Word {
        let operands = self.ops([Operand::IdRef(image)]);
        self.type_decl(Op::TypeSampledImage, None, operands)
    }

    /// A global value of type `ty` (a constant), always new.
    fn global_value(&mut self, op: Op, ty: Word, operands: Operands) -> Word {
        let id = self.id();
        self.module_mut()
            .types_global_values
            .push(inst(op, Some(ty), Some(id), operands));
        id
    }

    /// `OpConstant` of a 32-bit value.
    pub fn constant_bit32(&mut self, ty: Word, value: u32) -> Word {
        let operands = self.ops([Operand::LiteralBit32(value)]);
        self.global_value(Op::Constant, ty, operands)
    }

    /// `OpConstant` of a 64-bit value.
    pub fn constant_bit64(&mut self, ty: Word, value: u64) -> Word {
        // A 64-bit literal is its two words, the low one first.
        let operands = self.ops([
            Operand::LiteralBit32(value as u32),
            Operand::LiteralBit32((value >> 32) as u32),
        ]);
        self.global_value(Op::Constant, ty, operands)
    }

    /// `OpSpecConstant` of a 32-bit default value.
    pub fn spec_constant_bit32(&mut self, ty: Word, value: u32) -> Word {
        let operands = self.ops([Operand::LiteralBit32(value)]);
        self.global_value(Op::SpecConstant, ty, operands)
    }

    /// `OpConstantTrue`.
    pub fn constant_true(&mut self, ty: Word) -> Word {
        self.global_value(Op::ConstantTrue, ty, Operands::new())
    }

    /// `OpConstantFalse`.
    pub fn constant_false(&mut self, ty: Word) -> Word {
        self.global_value(Op::ConstantFalse, ty, Operands::new())
    }

    /// `OpConstantComposite`.
    pub fn constant_composite(&mut self, ty: Word, parts: impl IntoIterator<Item = Word>) -> Word {
        let operands = self.ops_and_ids([], parts);
        self.global_value(Op::ConstantComposite, ty, operands)
    }

    /// `OpAccessChain`.
    pub fn access_chain(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        base: Word,
        indexes: impl IntoIterator<Item = Word>,
    ) -> BuildResult<Word> {
        let operands = self.ops_and_ids([Operand::IdRef(base)], indexes);
        self.result(Op::AccessChain, ty, result_id, operands)
    }

    /// `OpCompositeConstruct`.
    pub fn composite_construct(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        parts: impl IntoIterator<Item = Word>,
    ) -> BuildResult<Word> {
        let operands = self.ops_and_ids([], parts);
        self.result(Op::CompositeConstruct, ty, result_id, operands)
    }

    /// `OpCompositeExtract`.
    pub fn composite_extract(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        composite: Word,
        indexes: impl IntoIterator<Item = u32>,
    ) -> BuildResult<Word> {
        let mut operands: Operands = self.ops([Operand::IdRef(composite)]);
        operands.extend(indexes.into_iter().map(Operand::LiteralBit32));
        self.result(Op::CompositeExtract, ty, result_id, operands)
    }

    /// `OpExtInst` of instruction `instruction` of the set `set`.
    pub fn ext_inst(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        set: Word,
        instruction: u32,
        operands: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let mut all: Operands = self.ops([
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(instruction),
        ]);
        all.extend(operands);
        self.result(Op::ExtInst, ty, result_id, all)
    }

    /// `OpPhi` of (value, parent block) pairs.
    pub fn phi(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        incoming: impl IntoIterator<Item = (Word, Word)>,
    ) -> BuildResult<Word> {
        let mut operands = self.ops([]);
        for (value, parent) in incoming {
            operands.push(Operand::IdRef(value));
            operands.push(Operand::IdRef(parent));
        }
        self.result(Op::Phi, ty, result_id, operands)
    }

    /// `OpFunctionCall`.
    pub fn function_call(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        function: Word,
        arguments: impl IntoIterator<Item = Word>,
    ) -> BuildResult<Word> {
        let operands = self.ops_and_ids([Operand::IdRef(function)], arguments);
        // The callee may read what the block's held stores write.
        self.flush_deferred()?;
        self.result(Op::FunctionCall, ty, result_id, operands)
    }

    /// `OpArrayLength` of member `member` of the struct `structure` points to.
    pub fn array_length(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        structure: Word,
        member: u32,
    ) -> BuildResult<Word> {
        let operands = self.ops([Operand::IdRef(structure), Operand::LiteralBit32(member)]);
        self.result(Op::ArrayLength, ty, result_id, operands)
    }

    /// `OpLoopMerge` naming the merge and continue blocks.
    pub fn loop_merge(
        &mut self,
        merge: Word,
        continue_target: Word,
        control: spirv::LoopControl,
        params: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<()> {
        let mut operands: Operands = self.ops([
            Operand::IdRef(merge),
            Operand::IdRef(continue_target),
            Operand::LoopControl(control),
        ]);
        operands.extend(params);
        self.no_result(Op::LoopMerge, operands)
    }

    /// `OpBranch`, ending the block.
    pub fn branch(&mut self, target: Word) -> BuildResult<()> {
        let operands = self.ops([Operand::IdRef(target)]);
        self.terminate(inst(Op::Branch, None, None, operands))
    }

    /// `OpBranchConditional`, ending the block.
    pub fn branch_conditional(
        &mut self,
        condition: Word,
        true_label: Word,
        false_label: Word,
        weights: impl IntoIterator<Item = u32>,
    ) -> BuildResult<()> {
        let mut operands: Operands = self.ops([
            Operand::IdRef(condition),
            Operand::IdRef(true_label),
            Operand::IdRef(false_label),
        ]);
        operands.extend(weights.into_iter().map(Operand::LiteralBit32));
        self.terminate(inst(Op::BranchConditional, None, None, operands))
    }

    /// `OpSwitch` on `selector` with (literal, label) targets, ending the block.
    pub fn switch(
        &mut self,
        selector: Word,
        default: Word,
        targets: impl IntoIterator<Item = (Operand, Word)>,
    ) -> BuildResult<()> {
        let mut operands: Operands = self.ops([Operand::IdRef(selector), Operand::IdRef(default)]);
        for (literal, label) in targets {
            operands.push(literal);
            operands.push(Operand::IdRef(label));
        }
        self.terminate(inst(Op::Switch, None, None, operands))
    }

    /// `OpReturn`, ending the block.
    pub fn ret(&mut self) -> BuildResult<()> {
        self.terminate(inst(Op::Return, None, None, Operands::new()))
    }

    /// `OpReturnValue`, ending the block.
    pub fn ret_value(&mut self, value: Word) -> BuildResult<()> {
        let operands = self.ops([Operand::IdRef(value)]);
        self.terminate(inst(Op::ReturnValue, None, None, operands))
    }
}

/// Whether a block's instructions end with a merge instruction (which must stay just before
/// the terminator).
fn ends_with_merge(block: &[Instruction]) -> bool {
    block
        .last()
        .is_some_and(|i| matches!(i.class.opcode, Op::SelectionMerge | Op::LoopMerge))
}

/// Methods for instructions with a result type and id and only id operands, one line per
/// instruction: `name(arity) => opcode`.
macro_rules! value_instructions {
    ($($name:ident($($arg:ident),*) => $op:ident;)*) => {
        impl Builder {
            $(
                #[doc = concat!("`Op", stringify!($op), "`.")]
                #[allow(clippy::too_many_arguments)]
                pub fn $name(
                    &mut self,
                    ty: Word,
                    result_id: Option<Word>,
                    $($arg: Word),*
                ) -> BuildResult<Word> {
                    let operands = self.ops([$(Operand::IdRef($arg)),*]);
                    self.result(Op::$op, ty, result_id, operands)
                }
            )*
        }
    };
}

/// Methods for instructions without a result and with only id operands.
macro_rules! effect_instructions {
    ($($name:ident($($arg:ident),*) => $op:ident;)*) => {
        impl Builder {
            $(
                #[doc = concat!("`Op", stringify!($op), "`.")]
                pub fn $name(&mut self, $($arg: Word),*) -> BuildResult<()> {
                    let operands = self.ops([$(Operand::IdRef($arg)),*]);
                    self.no_result(Op::$op, operands)
                }
            )*
        }
    };
}

value_instructions! {
    load(pointer) => Load;
    bitcast(value) => Bitcast;
    all(vector) => All;
    bit_count(base) => BitCount;
    bit_reverse(base) => BitReverse;
    convert_f_to_s(value) => ConvertFToS;
    convert_f_to_u(value) => ConvertFToU;
    convert_s_to_f(value) => ConvertSToF;
    convert_u_to_f(value) => ConvertUToF;
    f_convert(value) => FConvert;
    u_convert(value) => UConvert;
    s_convert(value) => SConvert;
    f_negate(value) => FNegate;
    s_negate(value) => SNegate;
    is_nan(value) => IsNan;
    logical_not(value) => LogicalNot;
    not(value) => Not;
    d_pdx(value) => DPdx;
    d_pdy(value) => DPdy;
    d_pdx_coarse(value) => DPdxCoarse;
    d_pdy_coarse(value) => DPdyCoarse;
    d_pdx_fine(value) => DPdxFine;
    d_pdy_fine(value) => DPdyFine;
    sampled_image(image, sampler) => SampledImage;
    bitwise_and(a, b) => BitwiseAnd;
    bitwise_or(a, b) => BitwiseOr;
    bitwise_xor(a, b) => BitwiseXor;
    f_add(a, b) => FAdd;
    f_sub(a, b) => FSub;
    f_mul(a, b) => FMul;
    f_div(a, b) => FDiv;
    f_ord_equal(a, b) => FOrdEqual;
    f_ord_greater_than(a, b) => FOrdGreaterThan;
    f_ord_greater_than_equal(a, b) => FOrdGreaterThanEqual;
    f_ord_less_than(a, b) => FOrdLessThan;
    f_unord_not_equal(a, b) => FUnordNotEqual;
    i_add(a, b) => IAdd;
    i_sub(a, b) => ISub;
    i_mul(a, b) => IMul;
    i_add_carry(a, b) => IAddCarry;
    i_sub_borrow(a, b) => ISubBorrow;
    i_equal(a, b) => IEqual;
    i_not_equal(a, b) => INotEqual;
    logical_and(a, b) => LogicalAnd;
    logical_or(a, b) => LogicalOr;
    s_less_than(a, b) => SLessThan;
    s_greater_than_equal(a, b) => SGreaterThanEqual;
    u_less_than(a, b) => ULessThan;
    u_less_than_equal(a, b) => ULessThanEqual;
    u_greater_than(a, b) => UGreaterThan;
    u_greater_than_equal(a, b) => UGreaterThanEqual;
    u_div(a, b) => UDiv;
    u_mod(a, b) => UMod;
    s_mul_extended(a, b) => SMulExtended;
    u_mul_extended(a, b) => UMulExtended;
    shift_left_logical(base, shift) => ShiftLeftLogical;
    shift_right_logical(base, shift) => ShiftRightLogical;
    shift_right_arithmetic(base, shift) => ShiftRightArithmetic;
    vector_times_scalar(vector, scalar) => VectorTimesScalar;
    image_texel_pointer(image, coordinate, sample) => ImageTexelPointer;
    select(condition, a, b) => Select;
    read_clock_khr(scope) => ReadClockKHR;
    bit_field_s_extract(base, offset, count) => BitFieldSExtract;
    bit_field_u_extract(base, offset, count) => BitFieldUExtract;
    atomic_i_increment(pointer, scope, semantics) => AtomicIIncrement;
    atomic_i_decrement(pointer, scope, semantics) => AtomicIDecrement;
    atomic_exchange(pointer, scope, semantics, value) => AtomicExchange;
    atomic_i_add(pointer, scope, semantics, value) => AtomicIAdd;
    atomic_and(pointer, scope, semantics, value) => AtomicAnd;
    atomic_or(pointer, scope, semantics, value) => AtomicOr;
    atomic_xor(pointer, scope, semantics, value) => AtomicXor;
    atomic_s_min(pointer, scope, semantics, value) => AtomicSMin;
    atomic_s_max(pointer, scope, semantics, value) => AtomicSMax;
    atomic_u_min(pointer, scope, semantics, value) => AtomicUMin;
    atomic_u_max(pointer, scope, semantics, value) => AtomicUMax;
    atomic_compare_exchange(
        pointer, scope, equal, unequal, value, comparator
    ) => AtomicCompareExchange;
}

effect_instructions! {
    store(pointer, object) => Store;
    control_barrier(execution, memory, semantics) => ControlBarrier;
    memory_barrier(memory, semantics) => MemoryBarrier;
    emit_vertex() => EmitVertex;
    end_primitive() => EndPrimitive;
    emit_stream_vertex(stream) => EmitStreamVertex;
    end_stream_primitive(stream) => EndStreamPrimitive;
    begin_invocation_interlock_ext() => BeginInvocationInterlockEXT;
    end_invocation_interlock_ext() => EndInvocationInterlockEXT;
}
