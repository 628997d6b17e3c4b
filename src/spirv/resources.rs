//! Resources: constant buffers, the immediate constant buffer, raw and structured buffers
//! (SRVs and UAVs), group-shared memory, their loads, stores and atomics, and `sync`.
//!
//! Descriptor bindings come from the binding pass ([`crate::analysis::binding_plan`]) and the
//! caller's mapping ([`crate::bindings`], which documents the default layout); ranges of
//! several registers are descriptor arrays (see `descriptors.rs`).
//!
//! D3D's bounds rules are explicit: out-of-bounds reads of buffers and group-shared memory
//! return 0, out-of-bounds writes write nothing (each component of a store is checked on its
//! own), and out-of-bounds atomics neither write nor return anything meaningful (0 here).

use crate::fast_hash::HashMap;
use spirv::{Decoration, MemorySemantics, Scope, StorageClass, Word};

use super::descriptors::{Descriptor, DescriptorType};
use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::operands::mask_components;
use crate::error::Result;
use crate::ir::{
    is_dynamic_cb, CustomDataClass, Declaration, Index, Instruction, Operand, RegisterKind,
    ResourceRange, D3D11_CB_SLOTS,
};
use crate::isa::Opcode;

/// The largest constant buffer D3D11 binds, in 16-byte vectors
/// (`D3D11_REQ_CONSTANT_BUFFER_ELEMENT_COUNT`): the block of a slot that a run-time
/// constant-buffer register may select but the program does not declare.
const D3D11_CB_MAX_VECTORS: u32 = 4096;

/// How a buffer-like resource is addressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferKind {
    /// Byte-addressed (`raw`).
    Raw,
    /// Structured with a stride in bytes.
    Structured(u32),
}

/// A buffer of dwords: a raw or structured SRV/UAV, or group-shared memory.
#[derive(Debug, Clone, Copy)]
pub struct DwordBuffer {
    /// The variable (a block with one runtime array member, or a workgroup array).
    pub var: Word,
    /// StorageBuffer or Workgroup.
    pub class: StorageClass,
    /// Raw or structured.
    pub kind: BufferKind,
    /// For group-shared memory: its length in dwords (buffers ask OpArrayLength).
    pub fixed_length: Option<u32>,
    /// The descriptor variable (none for group-shared memory).
    pub desc: Option<Descriptor>,
    /// `var` is an element selected through a non-uniform index.
    pub non_uniform: bool,
}

/// A constant buffer.
#[derive(Debug, Clone, Copy)]
pub struct ConstantBuffer {
    /// The Uniform block variable (or array of blocks).
    pub desc: Descriptor,
}

/// State of the resource lowering.
#[derive(Debug, Default)]
pub struct ResourceState {
    /// Constant buffers by range id.
    pub cbuffers: HashMap<u32, ConstantBuffer>,
    /// Raw/structured buffers and group-shared memory by (register kind code, id).
    pub buffers: HashMap<(u8, u32), DwordBuffer>,
    /// The immediate constant buffer: (private variable, length in vectors).
    pub icb: Option<(Word, u32)>,
    /// Typed SRVs and UAVs by (register kind code, range id).
    pub images: HashMap<(u8, u32), super::textures::Image>,
    /// Sampler variables by range id.
    pub samplers: HashMap<u32, Descriptor>,
    /// UAV counter buffers by UAV range id.
    pub counters: HashMap<u32, Descriptor>,
    /// The ranges of every declared UAV, by range id (for counters).
    pub uav_ranges: HashMap<u32, ResourceRange>,
    /// The private table of standard sample positions, once used.
    pub sample_positions: Option<Word>,
    /// The specialization constant holding the rasterizer's sample count.
    pub rasterizer_samples: Option<Word>,
    /// A rasterizer-ordered view is declared: the shader runs inside a pixel interlock.
    pub rasterizer_ordered: bool,
    /// Index values decorated `NonUniform` (a temp's value can index twice in a block).
    pub non_uniform_values: crate::fast_hash::HashSet<Word>,
    /// The `PushConstant` block variable holding the constant buffers placed in push
    /// constants, once one is declared, with each buffer's (member, vectors) by range id.
    pub push_block: Option<(Word, PushMembers)>,
}

/// The members of the push-constant block: (member, vectors) by constant-buffer range id.
pub type PushMembers = HashMap<u32, (u32, u32)>;

/// What a `cb#[i]` operand reads.
#[derive(Debug, Clone, Copy)]
struct CbElement {
    /// The selected constant-buffer block (a pointer), or for a buffer in push constants its
    /// member of the push-constant block (a pointer to the array of vectors).
    block: Word,
    /// `Uniform`, or `PushConstant` for a buffer in push constants.
    class: StorageClass,
    /// For a buffer in push constants, whether the element is inside it (`None`: known to
    /// be); a read outside gives 0, as D3D's out-of-bounds constant-buffer reads do.
    in_range: Option<Word>,
    /// The element index (an id).
    element: Word,
    /// The descriptor index is non-uniform.
    non_uniform: bool,
    /// The element is constant and the descriptor index uniform: the element's vector can be
    /// loaded once per block and shared by the block's reads.
    shared: bool,
}

impl Emitter<'_> {
    /// Notes a rasterizer-ordered view: pixel shaders only (D3D allows them nowhere else).
    pub(super) fn require_interlock(&mut self) -> Result<()> {
        if self.program.model.stage != crate::ir::Stage::Pixel {
            return Err(self.err("rasterizer-ordered views exist only in pixel shaders"));
        }
        self.res.rasterizer_ordered = true;
        Ok(())
    }

    /// With a rasterizer-ordered view, wraps the translated `main` in an entry point that
    /// runs it between `OpBeginInvocationInterlockEXT` and `OpEndInvocationInterlockEXT`
    /// (ordered pixel interlock): every access of the shader, ordered or not, happens in
    /// primitive order per pixel, which is what D3D guarantees for ROV accesses. Wrapping the
    /// whole body keeps the interlock in the entry point's uniform control flow whatever
    /// `ret`, `retc` or `discard` the body holds. Returns the entry function.
    pub(super) fn interlock_wrapper(&mut self, main: Word) -> Result<Word> {
        if !self.res.rasterizer_ordered {
            return Ok(main);
        }
        self.m
            .capability(spirv::Capability::FragmentShaderPixelInterlockEXT);
        self.m.extension("SPV_EXT_fragment_shader_interlock");
        self.push_mode(spirv::ExecutionMode::PixelInterlockOrderedEXT, &[]);
        let wrapper = self.begin_void_function(None)?;
        let void = self.m.void();
        built(self.m.b.begin_invocation_interlock_ext())?;
        built(self.m.function_call(void, main, &[]))?;
        built(self.m.b.end_invocation_interlock_ext())?;
        built(self.m.b.ret())?;
        self.block_open = false;
        built(self.m.b.end_function())?;
        Ok(wrapper)
    }

    /// A `StorageBuffer` block of one runtime array of dwords.
    fn dword_block(
        &mut self,
        register: RegisterKind,
        range: &ResourceRange,
        readonly: bool,
        name: Option<String>,
    ) -> Result<Descriptor> {
        let uint = self.m.scalar(Scalar::U32);
        let array = self.m.runtime_array(uint, 4);
        let block = self.m.block(array, readonly);
        self.declare_descriptor(
            register,
            range,
            block,
            StorageClass::StorageBuffer,
            DescriptorType::StorageBuffer,
            name,
        )
    }

    /// Handles resource declarations.
    pub fn declare_resource(
        &mut self,
        _instruction: &Instruction,
        declaration: &Declaration,
    ) -> Result<()> {
        if self.declare_texture(declaration)? {
            return Ok(());
        }
        match declaration {
            Declaration::ConstantBuffer { range, size, .. } => {
                self.declare_cbuffer(range, *size)?;
            }
            Declaration::ResourceRaw { range, .. }
            | Declaration::ResourceStructured { range, .. } => {
                let kind = match declaration {
                    Declaration::ResourceStructured { stride, .. } => {
                        BufferKind::Structured(*stride)
                    }
                    _ => BufferKind::Raw,
                };
                let desc = self.dword_block(
                    RegisterKind::Resource,
                    range,
                    true,
                    self.debug_name(format_args!("t{}", range.id)),
                )?;
                self.res.buffers.insert(
                    (RegisterKind::Resource as u8, range.id),
                    DwordBuffer {
                        var: desc.var,
                        class: StorageClass::StorageBuffer,
                        kind,
                        fixed_length: None,
                        desc: Some(desc),
                        non_uniform: false,
                    },
                );
            }
            Declaration::UavRaw { range, flags, .. }
            | Declaration::UavStructured { range, flags, .. } => {
                if flags.rasterizer_ordered {
                    self.require_interlock()?;
                }
                let kind = match declaration {
                    Declaration::UavStructured { stride, .. } => BufferKind::Structured(*stride),
                    _ => BufferKind::Raw,
                };
                self.res.uav_ranges.insert(range.id, *range);
                let desc = self.dword_block(
                    RegisterKind::UnorderedAccessView,
                    range,
                    false,
                    self.debug_name(format_args!("u{}", range.id)),
                )?;
                if flags.globally_coherent {
                    self.decorate(desc.var, Decoration::Coherent, &[]);
                }
                self.res.buffers.insert(
                    (RegisterKind::UnorderedAccessView as u8, range.id),
                    DwordBuffer {
                        var: desc.var,
                        class: StorageClass::StorageBuffer,
                        kind,
                        fixed_length: None,
                        desc: Some(desc),
                        non_uniform: false,
                    },
                );
            }
            Declaration::TgsmRaw {
                operand,
                byte_count,
            } => {
                let register = self.immediate_index(self.operand(*operand), 0)?;
                self.declare_tgsm(register, BufferKind::Raw, byte_count / 4)?;
            }
            Declaration::TgsmStructured {
                operand,
                stride,
                count,
            } => {
                let register = self.immediate_index(self.operand(*operand), 0)?;
                let dwords = (*stride as u64 * *count as u64) / 4;
                let dwords =
                    u32::try_from(dwords).map_err(|_| self.err("group-shared memory too large"))?;
                self.declare_tgsm(register, BufferKind::Structured(*stride), dwords)?;
            }
            Declaration::CustomData { class, data } => {
                if *class == CustomDataClass::ImmediateConstantBuffer {
                    self.declare_icb(self.program.data_slice(*data))?;
                }
            }
            // Declarations the emitter hands to the other lowerings before this one
            // (`Emitter::declaration`: the emitter's own, the stage's, class linkage's, the
            // typed resources'): listed so that a new declaration kind fails to build here.
            Declaration::GlobalFlags(_)
            | Declaration::Temps(_)
            | Declaration::IndexableTemp { .. }
            | Declaration::ThreadGroup(_)
            | Declaration::Signature { .. }
            | Declaration::IndexRange { .. }
            | Declaration::Resource { .. }
            | Declaration::UavTyped { .. }
            | Declaration::Sampler { .. }
            | Declaration::GsOutputTopology(_)
            | Declaration::GsInputPrimitive(_)
            | Declaration::MaxOutputVertexCount(_)
            | Declaration::GsInstanceCount(_)
            | Declaration::Stream(_)
            | Declaration::InputControlPointCount(_)
            | Declaration::OutputControlPointCount(_)
            | Declaration::TessDomain(_)
            | Declaration::TessPartitioning(_)
            | Declaration::TessOutputPrimitive(_)
            | Declaration::HsMaxTessFactor(_)
            | Declaration::HsForkPhaseInstanceCount(_)
            | Declaration::HsJoinPhaseInstanceCount(_)
            | Declaration::FunctionBody(_)
            | Declaration::FunctionTable { .. }
            | Declaration::Interface { .. } => {
                return Err(self.internal(format!(
                    "{} reached the resource declarations, which do not handle it",
                    self.program
                        .instructions
                        .get(self.at.0 as usize)
                        .map_or("this declaration", |i| i.opcode.name())
                )))
            }
        }
        Ok(())
    }

    fn declare_tgsm(&mut self, register: u32, kind: BufferKind, dwords: u32) -> Result<()> {
        if dwords == 0 {
            return Err(self.err("group-shared memory of zero dwords"));
        }
        let uint = self.m.scalar(Scalar::U32);
        let array = self.m.array(uint, dwords);
        let name = self.debug_name(format_args!("g{register}"));
        let var = self.global(array, StorageClass::Workgroup, name);
        self.res.buffers.insert(
            (RegisterKind::ThreadGroupSharedMemory as u8, register),
            DwordBuffer {
                var,
                class: StorageClass::Workgroup,
                kind,
                fixed_length: Some(dwords),
                desc: None,
                non_uniform: false,
            },
        );
        Ok(())
    }

    fn declare_icb(&mut self, data: &[u32]) -> Result<()> {
        let vectors = data.len().div_ceil(4).max(1) as u32;
        let mut elements = Vec::with_capacity(vectors as usize);
        for chunk in 0..vectors as usize {
            let mut bits = [0u32; 4];
            for (i, slot) in bits.iter_mut().enumerate() {
                *slot = data.get(chunk * 4 + i).copied().unwrap_or(0);
            }
            elements.push(self.m.constant_vector(Scalar::U32, &bits));
        }
        let vec4 = self.m.vector(Scalar::U32, 4);
        let array = self.m.array(vec4, vectors);
        let id = self.private_table(array, elements);
        self.res.icb = Some((id, vectors));
        Ok(())
    }

    /// Reads one component of `cb#[i]` or `icb[i]` (as uint).
    pub fn load_buffer_component(&mut self, operand: &Operand, component: u8) -> Result<Val> {
        let uint = self.m.scalar(Scalar::U32);
        let component_id = self.m.constant_u32(component as u32 & 3);
        let id = match operand.kind {
            RegisterKind::ConstantBuffer if is_dynamic_cb(self.program.model, operand) => {
                let vector = self.load_dynamic_cb(operand)?;
                built(
                    self.m
                        .composite_extract(uint, vector, &[component as u32 & 3]),
                )?
            }
            RegisterKind::ConstantBuffer => {
                let cb = self.cb_element(operand)?;
                if !cb.non_uniform {
                    // A component of a vector: an element of the vector, loaded once per
                    // block and element (constant buffers are read-only); an element out
                    // of range reads zero.
                    let vector = self.buffer_vector(&cb)?;
                    let mut id = built(self.m.composite_extract(
                        uint,
                        vector,
                        &[component as u32 & 3],
                    ))?;
                    if let Some(in_range) = cb.in_range {
                        let zero = self.m.constant_u32(0);
                        id = built(self.m.select(uint, None, in_range, id, zero))?;
                    }
                    return Ok(Val {
                        id,
                        scalar: Scalar::U32,
                        count: 1,
                    });
                }
                let zero = self.m.constant_u32(0);
                let pointer = self.m.pointer(cb.class, uint);
                let ptr = if cb.class == StorageClass::PushConstant {
                    built(
                        self.m
                            .access_chain(pointer, cb.block, &[cb.element, component_id]),
                    )?
                } else {
                    built(self.m.access_chain(
                        pointer,
                        cb.block,
                        &[zero, cb.element, component_id],
                    ))?
                };
                if cb.non_uniform {
                    self.decorate(ptr, Decoration::NonUniform, &[]);
                }
                let value = built(self.m.load(uint, ptr))?;
                match cb.in_range {
                    Some(in_range) => built(self.m.select(uint, None, in_range, value, zero))?,
                    None => value,
                }
            }
            _ => {
                let (var, length) = self.res.icb.ok_or_else(|| {
                    self.err("icb is used but there is no immediate constant buffer")
                })?;
                let index = operand
                    .indices()
                    .first()
                    .copied()
                    .ok_or_else(|| self.err("icb needs an index"))?;
                let index = self.index_value(index)?;
                let boolean = self.m.scalar(Scalar::Bool);
                let limit = self.m.constant_u32(length);
                let in_range = built(self.m.b.u_less_than(boolean, None, index, limit))?;
                let zero = self.m.constant_u32(0);
                let clamped = built(self.m.select(uint, None, in_range, index, zero))?;
                let pointer = self.m.pointer(StorageClass::Private, uint);
                let ptr = built(self.m.access_chain(pointer, var, &[clamped, component_id]))?;
                let value = built(self.m.load(uint, ptr))?;
                built(self.m.select(uint, None, in_range, value, zero))?
            }
        };
        Ok(Val {
            id,
            scalar: Scalar::U32,
            count: 1,
        })
    }

    /// Declares the uniform block of constant-buffer range `range`, `size` vectors long, at
    /// the binding the binding pass chose (or its member of the push-constant block).
    fn declare_cbuffer(&mut self, range: &ResourceRange, size: u32) -> Result<()> {
        if self.bindings.push_constant(range.id).is_some() {
            return self.declare_push_block();
        }
        let vec4 = self.m.vector(Scalar::U32, 4);
        let array = self.m.strided_array(vec4, size.max(1), 16);
        let block = self.m.block(array, false);
        let desc = self.declare_descriptor(
            RegisterKind::ConstantBuffer,
            range,
            block,
            StorageClass::Uniform,
            DescriptorType::UniformBuffer,
            self.debug_name(format_args!("cb{}", range.id)),
        )?;
        self.res.cbuffers.insert(range.id, ConstantBuffer { desc });
        Ok(())
    }

    /// Reads the `uint4` of an SM5.0 constant-buffer register chosen at run time
    /// (`cb[r1.y + 0][r1.x + 0]`, once per block and register; range
    /// [`crate::ir::DYNAMIC_RANGE`]). The register selects one of
    /// D3D11's slots `0..D3D11_CB_SLOTS` of space 0: a selection construct switches over it,
    /// each case reading the element from that slot's uniform block (the declared `cbN`, or
    /// for a slot the program does not declare a block of the largest D3D11 size, 4096
    /// vectors, bound by the binding pass as `cbN` would be), and any other register reads 0
    /// (the default goes straight to the merge block, where an `OpPhi` picks the value).
    /// Vulkan sees no descriptor access outside the slots.
    fn load_dynamic_cb(&mut self, operand: &Operand) -> Result<Word> {
        let slot = self.index_value(operand.indices[1])?;
        let element = self.index_value(operand.indices[2])?;
        // Keyed by the slot and element values (ids of this function, distinct from the
        // variables that key the other vectors).
        self.read_only_vector(slot, element, |e| {
            e.switch_over_cb_slots(operand, slot, element)
        })
    }

    /// The switch of [`Emitter::load_dynamic_cb`]: the `uint4` at `element` of the slot
    /// `slot`, in the merge block.
    fn switch_over_cb_slots(
        &mut self,
        operand: &Operand,
        slot: Word,
        element: Word,
    ) -> Result<Word> {
        for id in 0..D3D11_CB_SLOTS {
            if !self.res.cbuffers.contains_key(&id) {
                let range = *self
                    .bindings
                    .get(RegisterKind::ConstantBuffer, id)
                    .filter(|b| b.undeclared_slot)
                    .ok_or_else(|| self.internal(format!("cb slot {id} has no binding")))?;
                self.declare_cbuffer(&range.range, D3D11_CB_MAX_VECTORS)?;
            }
        }
        let zero = self.m.constant_u32(0);
        let ty = self.m.vector(Scalar::U32, 4);
        let chain = [zero, element];
        let otherwise = self.splat_bits(Scalar::U32, 0, 4);
        let pointer = self.m.pointer(StorageClass::Uniform, ty);
        let header = self.current_label()?;
        let merge = self.m.b.id();
        let labels: Vec<Word> = (0..D3D11_CB_SLOTS).map(|_| self.m.b.id()).collect();
        built(self.m.selection_merge(merge, spirv::SelectionControl::NONE))?;
        built(
            self.m.b.switch(
                slot,
                merge,
                labels
                    .iter()
                    .zip(0..)
                    .map(|(&label, id)| (super::builder::Operand::LiteralBit32(id), label)),
            ),
        )?;
        let mut incoming = Vec::with_capacity(labels.len() + 1);
        for (&label, id) in labels.iter().zip(0..) {
            built(self.m.begin_block(Some(label)))?;
            let cb = self
                .res
                .cbuffers
                .get(&id)
                .copied()
                .ok_or_else(|| self.internal(format!("cb slot {id} is not declared")))?;
            // The slot as a constant operand `cbN[N]` selects its descriptor.
            let mut fixed = *operand;
            fixed.indices = [Index::Imm32(id), Index::Imm32(id), Index::Imm32(0)];
            fixed.non_uniform = false;
            let selected = self.select_descriptor(&cb.desc, &fixed)?;
            let ptr = built(self.m.access_chain(pointer, selected.ptr, &chain))?;
            incoming.push((built(self.m.load(ty, ptr))?, label));
            built(self.m.branch(merge))?;
        }
        built(self.m.begin_block(Some(merge)))?;
        incoming.push((otherwise, header));
        built(self.m.b.phi(ty, None, incoming))
    }

    /// The one `PushConstant` block (SPIR-V allows one per entry point): a member per
    /// constant buffer the binding pass placed in push constants, an array of its `uvec4`s at
    /// its byte offset, in offset order.
    fn declare_push_block(&mut self) -> Result<()> {
        if self.res.push_block.is_some() {
            return Ok(());
        }
        let vec4 = self.m.vector(Scalar::U32, 4);
        let mut members = Vec::new();
        let mut placed = HashMap::default();
        for (member, buffer) in self.bindings.push_constants.iter().enumerate() {
            let vectors = (buffer.size / 16).max(1);
            members.push(self.m.strided_array(vec4, vectors, 16));
            placed.insert(buffer.range.id, (member as u32, vectors));
        }
        let block = self.m.b.id();
        self.m.b.type_struct_id(Some(block), members);
        self.decorate(block, Decoration::Block, &[]);
        for (member, buffer) in self.bindings.push_constants.iter().enumerate() {
            self.m
                .member_decorate(block, member as u32, Decoration::Offset, &[buffer.offset]);
        }
        let name = self.debug_name(format_args!("push_constants"));
        let var = self.global(block, StorageClass::PushConstant, name);
        self.res.push_block = Some((var, placed));
        Ok(())
    }

    /// The element a `cb#[i]` operand of a buffer in push constants reads: its member of the
    /// block, and the index, checked against the buffer's size when it is not a constant
    /// inside it.
    fn push_cb_element(&mut self, operand: &Operand, range: u32) -> Result<Option<CbElement>> {
        let Some((var, members)) = &self.res.push_block else {
            return Ok(None);
        };
        let var = *var;
        let Some(&(member, vectors)) = members.get(&range) else {
            return Ok(None);
        };
        let element = operand
            .indices()
            .get(2)
            .copied()
            .ok_or_else(|| self.err("a constant buffer operand needs an element index"))?;
        let constant = element.as_imm32();
        let vec4 = self.m.vector(Scalar::U32, 4);
        let array = self.m.strided_array(vec4, vectors, 16);
        let pointer = self.m.pointer(StorageClass::PushConstant, array);
        let member_id = self.m.constant_u32(member);
        let block = built(self.m.access_chain(pointer, var, &[member_id]))?;
        let (element, in_range, shared) = match constant {
            Some(index) if index < vectors => (self.m.constant_u32(index), None, true),
            Some(_) => {
                let zero = self.m.constant_u32(0);
                let no = self.m.constant_bits(Scalar::Bool, 0);
                (zero, Some(no), false)
            }
            None => {
                let index = self.index_value(element)?;
                let uint = self.m.scalar(Scalar::U32);
                let boolean = self.m.scalar(Scalar::Bool);
                let limit = self.m.constant_u32(vectors);
                let inside = built(self.m.b.u_less_than(boolean, None, index, limit))?;
                let zero = self.m.constant_u32(0);
                let clamped = built(self.m.select(uint, None, inside, index, zero))?;
                (clamped, Some(inside), false)
            }
        };
        Ok(Some(CbElement {
            block,
            class: StorageClass::PushConstant,
            in_range,
            element,
            non_uniform: false,
            shared,
        }))
    }

    /// The block and element a `cb#[i]` operand reads (the descriptor selected, the index
    /// evaluated).
    fn cb_element(&mut self, operand: &Operand) -> Result<CbElement> {
        let range = self.immediate_index(operand, 0)?;
        if let Some(element) = self.push_cb_element(operand, range)? {
            return Ok(element);
        }
        let cb = self
            .res
            .cbuffers
            .get(&range)
            .copied()
            .ok_or_else(|| self.err(format!("cb{range} is not declared")))?;
        let element = operand
            .indices()
            .get(2)
            .copied()
            .ok_or_else(|| self.err("a constant buffer operand needs an element index"))?;
        let constant = element.relative().is_none();
        let element = self.index_value(element)?;
        let selected = self.select_descriptor(&cb.desc, operand)?;
        Ok(CbElement {
            block: selected.ptr,
            class: StorageClass::Uniform,
            in_range: None,
            element,
            non_uniform: selected.non_uniform,
            shared: constant && !selected.non_uniform,
        })
    }

    /// A read of all of `cb#[i]` (constant `i`) in order: the `uint4` (see
    /// [`Emitter::buffer_vector`]); `None` for a relative element or a non-uniform
    /// descriptor index.
    pub(super) fn buffer_whole_vector(&mut self, operand: &Operand) -> Result<Option<Val>> {
        if is_dynamic_cb(self.program.model, operand) {
            let id = self.load_dynamic_cb(operand)?;
            return Ok(Some(Val {
                id,
                scalar: Scalar::U32,
                count: 4,
            }));
        }
        // A relative element is read component by component; told before emitting anything.
        if operand
            .indices()
            .get(2)
            .is_some_and(|e| e.relative().is_some())
        {
            return Ok(None);
        }
        let cb = self.cb_element(operand)?;
        if !cb.shared {
            return Ok(None);
        }
        let id = self.buffer_vector(&cb)?;
        Ok(Some(Val {
            id,
            scalar: Scalar::U32,
            count: 4,
        }))
    }

    /// The `uint4` at the element of a constant-buffer read (not a non-uniform one), loaded
    /// once per block and element.
    fn buffer_vector(&mut self, cb: &CbElement) -> Result<Word> {
        let (block, element, class) = (cb.block, cb.element, cb.class);
        self.read_only_vector(block, element, |e| {
            let vec4 = e.m.vector(Scalar::U32, 4);
            let pointer = e.m.pointer(class, vec4);
            let zero = e.m.constant_u32(0);
            let ptr = if class == StorageClass::PushConstant {
                built(e.m.access_chain(pointer, block, &[element]))?
            } else {
                built(e.m.access_chain(pointer, block, &[zero, element]))?
            };
            built(e.m.load(vec4, ptr))
        })
    }

    /// `ld_raw` and `ld_structured` (also the `_s` forms, whose status `operands` lack).
    pub(super) fn raw_load(
        &mut self,
        instruction: &Instruction,
        operands: &[Operand],
    ) -> Result<()> {
        let (dst, address, resource) = match operands {
            [dst, offset, resource] => (*dst, self.raw_address(&[*offset], None)?, *resource),
            [dst, index, offset, resource] => {
                let buffer = self.buffer_of(resource)?;
                (
                    *dst,
                    self.raw_address(&[*index, *offset], Some(buffer.kind))?,
                    *resource,
                )
            }
            _ => return Err(self.err("wrong operand count")),
        };
        let buffer = self.buffer_of(&resource)?;
        // One length for all the components (the block it is read in dominates theirs).
        let length = self.buffer_length(&buffer)?;
        let mut parts = Vec::new();
        for component in mask_components(dst.mask()) {
            let from = match resource.selection {
                crate::ir::Selection::Swizzle(s) => s[component as usize],
                crate::ir::Selection::Select1(c) => c,
                crate::ir::Selection::Mask(_) => component,
            };
            let value = self.buffer_load(&buffer, length, address, from as u32)?;
            parts.push(value);
        }
        let value = self.compose(Scalar::U32, &parts)?;
        self.store(&dst, value, instruction.saturate)?;
        Ok(())
    }

    /// Resource instructions; returns false for other opcodes.
    pub fn resource_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        if self.texture_instruction(instruction)? {
            return Ok(true);
        }
        let operands = self.program.operands_of(instruction);
        match instruction.opcode {
            Opcode::LdRaw | Opcode::LdStructured => self.raw_load(instruction, operands)?,
            Opcode::StoreRaw | Opcode::StoreStructured => {
                let (dst, address, value) = match operands {
                    [dst, offset, value] => (*dst, self.raw_address(&[*offset], None)?, *value),
                    [dst, index, offset, value] => {
                        let buffer = self.buffer_of(dst)?;
                        (
                            *dst,
                            self.raw_address(&[*index, *offset], Some(buffer.kind))?,
                            *value,
                        )
                    }
                    _ => return Err(self.err("wrong operand count")),
                };
                let buffer = self.buffer_of(&dst)?;
                let mask = dst.mask();
                let data = self.load(&value, Scalar::U32, mask)?;
                let length = self.buffer_length(&buffer)?;
                for (i, _) in mask_components(mask).enumerate() {
                    let part = self.extract(data, i as u32)?;
                    self.buffer_store(&buffer, length, address, i as u32, part.id)?;
                }
            }
            Opcode::Sync => self.sync(instruction)?,
            op if atomic_op(op).is_some() => self.atomic(instruction)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The buffer an operand names, with `var` pointing at the selected descriptor.
    fn buffer_of(&mut self, operand: &Operand) -> Result<DwordBuffer> {
        let id = self.immediate_index(operand, 0)?;
        let buffer = self
            .res
            .buffers
            .get(&(operand.kind as u8, id))
            .copied()
            .ok_or_else(|| {
                self.err(format!(
                    "{}{id} is not a raw or structured buffer this translator knows",
                    operand.kind.name()
                ))
            })?;
        match buffer.desc {
            Some(desc) => {
                let selected = self.select_descriptor(&desc, operand)?;
                Ok(DwordBuffer {
                    var: selected.ptr,
                    non_uniform: selected.non_uniform,
                    ..buffer
                })
            }
            None => Ok(buffer),
        }
    }

    /// The dword index of an address: `offset / 4` (raw) or `(index * stride + offset) / 4`
    /// (structured).
    fn raw_address(&mut self, parts: &[Operand], kind: Option<BufferKind>) -> Result<Word> {
        let uint = self.m.scalar(Scalar::U32);
        let two = self.m.constant_u32(2);
        let bytes = match (parts, kind) {
            ([offset], _) => self.load_scalar(offset, Scalar::U32)?.id,
            ([index, offset], Some(BufferKind::Structured(stride))) => {
                let index = self.load_scalar(index, Scalar::U32)?.id;
                let offset = self.load_scalar(offset, Scalar::U32)?.id;
                self.structured_bytes(index, offset, stride)?
            }
            _ => return Err(self.err("a structured access to a buffer that is not structured")),
        };
        built(self.m.b.shift_right_logical(uint, None, bytes, two))
    }

    /// The byte address `index * stride + offset` of a structured access, or `0xffffffff`
    /// (past the end of any buffer) when the true address does not fit 32 bits: D3D's bounds
    /// are on the element index, so a huge index must not wrap around into the buffer.
    fn structured_bytes(&mut self, index: Word, offset: Word, stride: u32) -> Result<Word> {
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let past = self.m.constant_u32(u32::MAX);
        let max_index = self.m.constant_u32(u32::MAX / stride.max(1));
        let stride = self.m.constant_u32(stride);
        let base = built(self.m.b.i_mul(uint, None, index, stride))?;
        let sum = built(self.m.b.i_add(uint, None, base, offset))?;
        let carried = built(self.m.b.u_less_than(boolean, None, sum, base))?;
        let bytes = built(self.m.select(uint, None, carried, past, sum))?;
        let wrapped = built(self.m.b.u_greater_than(boolean, None, index, max_index))?;
        built(self.m.select(uint, None, wrapped, past, bytes))
    }

    /// The address operand of an atomic on a raw/structured buffer or group-shared memory.
    fn atomic_address(&mut self, address: &Operand, buffer: &DwordBuffer) -> Result<Word> {
        let uint = self.m.scalar(Scalar::U32);
        let two = self.m.constant_u32(2);
        let bytes = match buffer.kind {
            BufferKind::Raw => self.load(address, Scalar::U32, 1)?.id,
            BufferKind::Structured(stride) => {
                let both = self.load(address, Scalar::U32, 0b11)?;
                let index = self.extract(both, 0)?.id;
                let offset = self.extract(both, 1)?.id;
                self.structured_bytes(index, offset, stride)?
            }
        };
        built(self.m.b.shift_right_logical(uint, None, bytes, two))
    }

    /// The element count `bufinfo` returns for a raw (bytes) or structured (structures)
    /// buffer.
    pub fn buffer_element_count(&mut self, operand: &Operand) -> Result<Word> {
        let buffer = self.buffer_of(operand)?;
        let uint = self.m.scalar(Scalar::U32);
        let dwords = self.buffer_length(&buffer)?;
        let four = self.m.constant_u32(4);
        let bytes = built(self.m.b.i_mul(uint, None, dwords, four))?;
        match buffer.kind {
            BufferKind::Raw => Ok(bytes),
            BufferKind::Structured(stride) => {
                if stride == 0 {
                    return Err(self.err("a structured buffer with a stride of 0"));
                }
                let stride = self.m.constant_u32(stride);
                built(self.m.b.u_div(uint, None, bytes, stride))
            }
        }
    }

    /// The length of a dword buffer, in dwords.
    fn buffer_length(&mut self, buffer: &DwordBuffer) -> Result<Word> {
        match buffer.fixed_length {
            Some(n) => Ok(self.m.constant_u32(n)),
            None => {
                let uint = self.m.scalar(Scalar::U32);
                built(self.m.b.array_length(uint, None, buffer.var, 0))
            }
        }
    }

    /// A pointer to dword `address + offset` and its in-range condition, given the buffer's
    /// `length` in dwords ([`Self::buffer_length`]).
    fn dword_pointer(
        &mut self,
        buffer: &DwordBuffer,
        length: Word,
        address: Word,
        offset: u32,
    ) -> Result<(Word, Word)> {
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let index = if offset == 0 {
            address
        } else {
            let offset = self.m.constant_u32(offset);
            built(self.m.b.i_add(uint, None, address, offset))?
        };
        let in_range = built(self.m.b.u_less_than(boolean, None, index, length))?;
        let pointer = self.m.pointer(buffer.class, uint);
        let ptr = match buffer.class {
            StorageClass::Workgroup => {
                let zero = self.m.constant_u32(0);
                let safe = built(self.m.select(uint, None, in_range, index, zero))?;
                built(self.m.access_chain(pointer, buffer.var, &[safe]))?
            }
            _ => {
                let member = self.m.constant_u32(0);
                built(self.m.access_chain(pointer, buffer.var, &[member, index]))?
            }
        };
        if buffer.non_uniform {
            self.decorate(ptr, Decoration::NonUniform, &[]);
        }
        Ok((ptr, in_range))
    }

    /// Reads dword `address + offset` of a buffer `length` dwords long; out of bounds reads 0.
    fn buffer_load(
        &mut self,
        buffer: &DwordBuffer,
        length: Word,
        address: Word,
        offset: u32,
    ) -> Result<Word> {
        let (ptr, in_range) = self.dword_pointer(buffer, length, address, offset)?;
        let uint = self.m.scalar(Scalar::U32);
        let zero = self.m.constant_u32(0);
        self.guarded_value(in_range, uint, zero, |e| built(e.m.load(uint, ptr)))
    }

    /// Writes dword `address + offset` of a buffer `length` dwords long; out of bounds writes
    /// nothing.
    fn buffer_store(
        &mut self,
        buffer: &DwordBuffer,
        length: Word,
        address: Word,
        offset: u32,
        value: Word,
    ) -> Result<()> {
        let (ptr, in_range) = self.dword_pointer(buffer, length, address, offset)?;
        self.guarded(in_range, |e| built(e.m.store(ptr, value)))
    }

    /// The label of the selected block.
    fn current_label(&self) -> Result<Word> {
        let module = self.m.b.module_ref();
        let function = self
            .m
            .b
            .selected_function()
            .and_then(|f| module.functions.get(f));
        let block = self
            .m
            .b
            .selected_block()
            .and_then(|b| function.and_then(|f| f.blocks.get(b)));
        block
            .and_then(|b| b.label_id())
            .ok_or_else(|| self.internal("no block is selected"))
    }

    /// Runs `body` only when `condition` holds and returns its value, or `otherwise`.
    pub fn guarded_value(
        &mut self,
        condition: Word,
        ty: Word,
        otherwise: Word,
        body: impl FnOnce(&mut Self) -> Result<Word>,
    ) -> Result<Word> {
        let header = self.current_label()?;
        let then_label = self.m.b.id();
        let merge = self.m.b.id();
        // A construct of its own for the temps' SSA values: a temp read after it goes on at
        // the header (the body writes no temp), without a phi at the merge for each one.
        self.ssa_open_construct(Some(header));
        built(self.m.selection_merge(merge, spirv::SelectionControl::NONE))?;
        built(
            self.m
                .b
                .branch_conditional(condition, then_label, merge, []),
        )?;
        built(self.m.begin_block(Some(then_label)))?;
        let value = body(self)?;
        let end = self.current_label()?;
        built(self.m.branch(merge))?;
        built(self.m.begin_block(Some(merge)))?;
        self.ssa_close_construct(Some(merge));
        built(self.m.b.phi(ty, None, [(value, end), (otherwise, header)]))
    }

    fn sync(&mut self, instruction: &Instruction) -> Result<()> {
        let flags = instruction.sync;
        let mut semantics = MemorySemantics::empty();
        if flags.group_shared_memory {
            semantics |= MemorySemantics::WORKGROUP_MEMORY;
        }
        if flags.uav_group || flags.uav_global {
            semantics |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
        }
        if semantics.is_empty() {
            // Without a memory class there is nothing to order (Vulkan rejects an acquire-
            // release barrier with no storage class); only the execution barrier remains.
            if !flags.threads_in_group {
                return Ok(());
            }
        } else {
            semantics |= MemorySemantics::ACQUIRE_RELEASE;
        }
        let memory_scope = if flags.uav_global {
            Scope::Device
        } else {
            Scope::Workgroup
        };
        let memory = self.m.constant_u32(memory_scope as u32);
        let semantics = self.m.constant_u32(semantics.bits());
        if flags.threads_in_group {
            let execution = self.m.constant_u32(Scope::Workgroup as u32);
            built(self.m.b.control_barrier(execution, memory, semantics))
        } else {
            built(self.m.b.memory_barrier(memory, semantics))
        }
    }

    fn atomic(&mut self, instruction: &Instruction) -> Result<()> {
        let opcode = instruction.opcode;
        let (kind, immediate) = atomic_op(opcode).ok_or_else(|| self.err("not an atomic"))?;
        let operands = self.program.operands_of(instruction);
        let (result, resource, rest) = if immediate {
            match operands {
                [result, resource, rest @ ..] => (Some(*result), *resource, rest),
                _ => return Err(self.err("wrong operand count")),
            }
        } else {
            match operands {
                [resource, rest @ ..] => (None, *resource, rest),
                _ => return Err(self.err("wrong operand count")),
            }
        };
        if matches!(kind, AtomicKind::Alloc | AtomicKind::Consume) {
            let result = result.ok_or_else(|| self.err("wrong operand count"))?;
            return self.counter_atomic(&result, &resource, kind == AtomicKind::Consume);
        }
        let (address, values) = match rest {
            [address, values @ ..] => (*address, values),
            _ => return Err(self.err("wrong operand count")),
        };
        let typed = self.image_of(&resource).is_some();
        let (scalar, ptr, in_range, workgroup) = if typed {
            let (ptr, in_range, scalar) = self.typed_atomic_pointer(&resource, &address)?;
            (scalar, ptr, in_range, false)
        } else {
            let buffer = self.buffer_of(&resource)?;
            let dword = self.atomic_address(&address, &buffer)?;
            let length = self.buffer_length(&buffer)?;
            let (ptr, in_range) = self.dword_pointer(&buffer, length, dword, 0)?;
            // Buffers hold uint; signed operations differ only in the opcode.
            (
                Scalar::U32,
                ptr,
                in_range,
                buffer.class == StorageClass::Workgroup,
            )
        };
        let mut args = Vec::new();
        for value in values {
            args.push(self.load_scalar(value, scalar)?);
        }
        let ty = self.m.scalar(scalar);
        let scope = if workgroup {
            Scope::Workgroup
        } else {
            Scope::Device
        };
        let scope = self.m.constant_u32(scope as u32);
        let relaxed = self.m.constant_u32(0);
        let zero = self.m.constant_bits(scalar, 0);
        let old = self.guarded_value(in_range, ty, zero, |e| {
            let b = &mut e.m.b;
            let arg = |i: usize| args.get(i).map(|v| v.id).unwrap_or(zero);
            built(match kind {
                AtomicKind::And => b.atomic_and(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::Or => b.atomic_or(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::Xor => b.atomic_xor(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::IAdd => b.atomic_i_add(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::IMax => b.atomic_s_max(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::IMin => b.atomic_s_min(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::UMax => b.atomic_u_max(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::UMin => b.atomic_u_min(ty, None, ptr, scope, relaxed, arg(0)),
                AtomicKind::Exchange => b.atomic_exchange(ty, None, ptr, scope, relaxed, arg(0)),
                // cmp_store/cmp_exch: (compare, value); SPIR-V takes (value, comparator).
                AtomicKind::CompareExchange => b.atomic_compare_exchange(
                    ty,
                    None,
                    ptr,
                    scope,
                    relaxed,
                    relaxed,
                    arg(1),
                    arg(0),
                ),
                AtomicKind::Alloc | AtomicKind::Consume => {
                    b.atomic_i_increment(ty, None, ptr, scope, relaxed)
                }
            })
        })?;
        if let Some(result) = result {
            let value = Val {
                id: old,
                scalar,
                count: 1,
            };
            self.store(&result, value, false)?;
        }
        Ok(())
    }
}

/// The kinds of atomic operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AtomicKind {
    And,
    Or,
    Xor,
    IAdd,
    IMax,
    IMin,
    UMax,
    UMin,
    Exchange,
    CompareExchange,
    Alloc,
    Consume,
}

/// For an atomic opcode: whether it is a counter operation (`imm_atomic_alloc`/`consume`)
/// and whether it returns a value.
pub fn atomic_info(opcode: Opcode) -> Option<(bool, bool)> {
    atomic_op(opcode).map(|(kind, immediate)| {
        (
            matches!(kind, AtomicKind::Alloc | AtomicKind::Consume),
            immediate,
        )
    })
}

/// The atomic kind of an opcode and whether it returns the previous value.
fn atomic_op(opcode: Opcode) -> Option<(AtomicKind, bool)> {
    use AtomicKind as K;
    use Opcode as O;
    Some(match opcode {
        O::AtomicAnd => (K::And, false),
        O::AtomicOr => (K::Or, false),
        O::AtomicXor => (K::Xor, false),
        O::AtomicCmpStore => (K::CompareExchange, false),
        O::AtomicIadd => (K::IAdd, false),
        O::AtomicImax => (K::IMax, false),
        O::AtomicImin => (K::IMin, false),
        O::AtomicUmax => (K::UMax, false),
        O::AtomicUmin => (K::UMin, false),
        O::ImmAtomicAlloc => (K::Alloc, true),
        O::ImmAtomicConsume => (K::Consume, true),
        O::ImmAtomicIadd => (K::IAdd, true),
        O::ImmAtomicAnd => (K::And, true),
        O::ImmAtomicOr => (K::Or, true),
        O::ImmAtomicXor => (K::Xor, true),
        O::ImmAtomicExch => (K::Exchange, true),
        O::ImmAtomicCmpExch => (K::CompareExchange, true),
        O::ImmAtomicImax => (K::IMax, true),
        O::ImmAtomicImin => (K::IMin, true),
        O::ImmAtomicUmax => (K::UMax, true),
        O::ImmAtomicUmin => (K::UMin, true),
        _ => return None,
    })
}
