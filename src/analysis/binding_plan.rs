//! The binding pass: range declarations and resource operands into descriptor bindings.
//!
//! Every `cb#`, `s#`, `t#` and `u#` declaration is a range (id, lower bound, upper bound or
//! unbounded, register space); SM4/5.0 declarations are single-register ranges in space 0
//! whose id is the register. The pass asks the caller's [`BindingMapper`] for the (set,
//! binding, array offset) of all the ranges at once ([`BindingMapper::map_shader`]: the
//! default layout numbers the largest registers per shader), records each range's Vulkan
//! descriptor type ([`DescriptorType`]; ranges or counters of different types on one set
//! and binding are an error naming both, at the later declaration) and decides the shape of
//! the descriptor:
//!
//! - a single descriptor for a one-register range at array offset 0;
//! - a bounded array of `array_offset + count` descriptors for other bounded ranges;
//! - a runtime array for an unbounded range.
//!
//! Operands name the range id and then the register. Following the SM5.1 bytecode
//! specification, that register index is absolute within the register space, not relative
//! to the range: `t1[r1.x + 10]` with `t1` declared as `t1[10:*]` reads element `r1.x` of the
//! array. The element is `register - lower + array_offset`. fxc's own output agrees: in the
//! corpus blob `fxc/d3d12/cs_code_37161.dxbc`, HLSL `t1[c[0].y]` of `Buffer<uint> t1[2] :
//! register(t2, space2)` is `t0[r0.x + 2]`, and `cb : register(b2, space1)` is read as
//! `cb0[2][0]`. A single descriptor's index is
//! never read: it names the one register there is (the seed listing of the specification
//! writes it as `t0[0]` for a range declared at `t5`, where fxc writes `t0[5]`; both mean the
//! one descriptor). A constant register outside a bounded range is an error; a dynamic one
//! is not clamped (indexing outside a range is undefined in D3D12, as outside a descriptor
//! array is in Vulkan).
//!
//! A non-uniform operand (the `{nonuniform}` hint of the extended operand token) asks for the
//! `NonUniform` decoration on the index and on what is read through it.
//!
//! An SM5.0 program may choose a constant-buffer register at run time (`cb[r1.y + 0][…]`,
//! held as range [`crate::ir::DYNAMIC_RANGE`]; fxc writes it for class linkage). Such a
//! register is one of D3D11's slots 0–13 of space 0, so the pass then binds every one of
//! them: the declared `cbN` as above, and each slot the program does not declare exactly as
//! the declaration `cbN` would be (a one-register range in space 0, asked of the mapper),
//! marked [`DescriptorBinding::undeclared_slot`]. The back end gives each slot its own
//! uniform-buffer variable and reads the register through a switch over the slot (see
//! `src/spirv/resources.rs`), so layers bind the slots as they bind any `cbN` (an array of
//! uniform buffers would need the mapper to place fourteen registers as one array, which
//! no D3D11 layout does).

use crate::fast_hash::HashMap;

use crate::bindings::{
    type_conflict, Binding, BindingMapper, DescriptorClass, DescriptorKind, DescriptorType,
    DescriptorTypes, RangeKey, ShaderBindings,
};
use crate::error::{Error, Location, Result};
use crate::ir::{
    is_dynamic_cb, Declaration, Index, Operand, OperandId, Program, RegisterKind,
    ResourceDimension, ResourceRange, D3D11_CB_SLOTS,
};
use crate::isa::Opcode;

/// The shape of a binding's descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayShape {
    /// One descriptor, not an array.
    Single,
    /// An array of this many descriptors.
    Bounded(u32),
    /// A runtime (unsized) array.
    Runtime,
}

/// How a UAV range is used by the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UavUsage {
    /// Read by a load.
    pub read: bool,
    /// Target of an atomic operation.
    pub atomic: bool,
    /// Its counter is used (`imm_atomic_alloc`/`imm_atomic_consume`).
    pub counter: bool,
}

/// The binding of one declared range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorBinding {
    /// The register file (`cb`, `s`, `t` or `u`).
    pub register: RegisterKind,
    /// The declared range.
    pub range: ResourceRange,
    /// The key the mapper was asked about.
    pub key: RangeKey,
    /// The chosen binding.
    pub binding: Binding,
    /// The Vulkan descriptor type of its descriptors (a counter's are storage buffers).
    pub descriptor_type: DescriptorType,
    /// Single descriptor, bounded or runtime array.
    pub shape: ArrayShape,
    /// UAV usage (all false for other classes).
    pub usage: UavUsage,
    /// The counter's binding, for a UAV whose counter is used.
    pub counter: Option<Binding>,
    /// A constant-buffer slot the program does not declare, bound because the program
    /// reads D3D11's slots through a run-time register index (see
    /// [`BindingPlan::dynamic_constant_buffers`]).
    pub undeclared_slot: bool,
}

/// The array element an operand selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptorIndex {
    /// The binding is a single descriptor: no index.
    None,
    /// A constant element.
    Constant(u32),
    /// The value of `relative` plus `add` (wrapping).
    Dynamic {
        /// The operand holding the register's dynamic part.
        relative: OperandId,
        /// Added to it: the immediate part − lower bound + array offset.
        add: u32,
        /// The index may differ between invocations.
        non_uniform: bool,
    },
}

/// The bindings of every declared range of a program.
#[derive(Debug, Clone, Default)]
pub struct BindingPlan {
    /// The bindings, in declaration order (then the slots bound for a run-time
    /// constant-buffer index, then the class-linkage data).
    pub bindings: Vec<DescriptorBinding>,
    /// Whether the program reads a constant-buffer register chosen at run time (SM5.0,
    /// [`crate::ir::DYNAMIC_RANGE`]): then every D3D11 constant-buffer slot
    /// `0..D3D11_CB_SLOTS` of space 0 has a binding, asked of the mapper exactly as a
    /// declared `cbN` would be; the slots the program does not declare are marked
    /// [`DescriptorBinding::undeclared_slot`].
    pub dynamic_constant_buffers: bool,
    /// The constant buffers the mapper placed in push constants
    /// ([`BindingMapper::push_constant`]), by offset; they have no descriptor binding.
    pub push_constants: Vec<PushConstantBuffer>,
    by_range: HashMap<(u8, u32), usize>,
}

/// A constant buffer in the push-constant block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushConstantBuffer {
    /// The declared range (one register).
    pub range: ResourceRange,
    /// The key the mapper was asked about.
    pub key: RangeKey,
    /// The byte offset of its first vector in the block.
    pub offset: u32,
    /// Its size in bytes (16 per vector the shader declares).
    pub size: u32,
    /// The bytes the layer gives it, when the map says.
    pub provided: Option<u32>,
}

/// The class and kind of a resource declaration, and whether it is a raw or structured
/// buffer.
fn classify(
    declaration: &Declaration,
) -> Option<(RegisterKind, ResourceRange, DescriptorKind, bool)> {
    use DescriptorKind::{Buffer, Image};
    let buffer_if = |d: ResourceDimension| {
        if d == ResourceDimension::Buffer {
            Buffer
        } else {
            Image
        }
    };
    Some(match declaration {
        Declaration::ConstantBuffer { range, .. } => {
            (RegisterKind::ConstantBuffer, *range, Buffer, false)
        }
        Declaration::Sampler { range, .. } => (RegisterKind::Sampler, *range, Image, false),
        Declaration::Resource {
            range, dimension, ..
        } => (RegisterKind::Resource, *range, buffer_if(*dimension), false),
        Declaration::ResourceRaw { range, .. } | Declaration::ResourceStructured { range, .. } => {
            (RegisterKind::Resource, *range, Buffer, true)
        }
        Declaration::UavTyped {
            range, dimension, ..
        } => (
            RegisterKind::UnorderedAccessView,
            *range,
            buffer_if(*dimension),
            false,
        ),
        Declaration::UavRaw { range, .. } | Declaration::UavStructured { range, .. } => {
            (RegisterKind::UnorderedAccessView, *range, Buffer, true)
        }
        _ => return None,
    })
}

/// The number of interface slots a program declares: the largest `id + array length` of its
/// `dcl_interface` declarations (interface ids are slot bases), 0 without interfaces.
pub fn interface_slot_count(program: &Program) -> u32 {
    program
        .instructions
        .iter()
        .filter_map(|i| match &i.declaration {
            Some(Declaration::Interface {
                id, array_length, ..
            }) => Some(id.saturating_add((*array_length).max(1))),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The descriptor class of a resource register file.
pub fn class_of(register: RegisterKind) -> Option<DescriptorClass> {
    Some(match register {
        RegisterKind::ConstantBuffer => DescriptorClass::ConstantBuffer,
        RegisterKind::Sampler => DescriptorClass::Sampler,
        RegisterKind::Resource => DescriptorClass::ShaderResource,
        RegisterKind::UnorderedAccessView => DescriptorClass::UnorderedAccess,
        _ => return None,
    })
}

/// How the program uses each UAV range id.
pub fn uav_usage(program: &Program) -> HashMap<u32, UavUsage> {
    let mut usage: HashMap<u32, UavUsage> = HashMap::default();
    for instruction in &program.instructions {
        if instruction.declaration.is_some() {
            continue;
        }
        let operands = program.operands_of(instruction);
        // Most instructions touch no UAV: look at the opcode only for those that do.
        if !operands
            .iter()
            .any(|o| o.kind == RegisterKind::UnorderedAccessView)
        {
            continue;
        }
        let opcode = instruction.opcode;
        let name = opcode.name();
        let atomic = name.starts_with("atomic_") || name.starts_with("imm_atomic_");
        let counter = matches!(opcode, Opcode::ImmAtomicAlloc | Opcode::ImmAtomicConsume);
        let queries = matches!(opcode, Opcode::Bufinfo | Opcode::Resinfo);
        let dst_count = instruction.dst_count as usize;
        for (i, operand) in operands.iter().enumerate() {
            if operand.kind != RegisterKind::UnorderedAccessView {
                continue;
            }
            let Some(id) = operand.indices().first().and_then(|i| i.as_imm32()) else {
                continue;
            };
            let entry = usage.entry(id).or_default();
            if counter {
                entry.counter = true;
            } else if atomic {
                entry.atomic = true;
            } else if i >= dst_count && !queries {
                entry.read = true;
            }
        }
    }
    usage
}

/// The range key of the class-linkage instance data.
fn class_linkage_key() -> RangeKey {
    let register = crate::bindings::CLASS_LINKAGE_REGISTER;
    RangeKey {
        class: DescriptorClass::ConstantBuffer,
        kind: DescriptorKind::Buffer,
        space: 0,
        lower: register,
        upper: Some(register),
    }
}

fn shape_of(range: &ResourceRange, binding: &Binding) -> Result<ArrayShape> {
    let too_many = || {
        Error::new(
            Location::None,
            "a descriptor array longer than 2^32 elements",
        )
    };
    Ok(match range.count() {
        None => ArrayShape::Runtime,
        Some(1) if binding.array_offset == 0 => ArrayShape::Single,
        Some(count) => {
            let length = count
                .checked_add(binding.array_offset as u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(too_many)?;
            ArrayShape::Bounded(length)
        }
    })
}

/// The D3D11 constant-buffer slots (0–13 of space 0) that an SM5.0 program reads through a
/// register chosen at run time (`reads_dynamic`, [`reads_dynamic_cb`]) and does not declare;
/// empty when it reads none that way.
fn undeclared_dynamic_slots(reads_dynamic: bool, declared: impl Iterator<Item = u32>) -> Vec<u32> {
    if !reads_dynamic {
        return Vec::new();
    }
    let declared: Vec<u32> = declared.collect();
    (0..D3D11_CB_SLOTS)
        .filter(|slot| !declared.contains(slot))
        .collect()
}

/// Whether an SM5.0 program reads a constant-buffer register chosen at run time.
fn reads_dynamic_cb(program: &Program) -> bool {
    let model = program.model;
    !model.has_resource_ranges()
        && model.is_sm5()
        && program.operands.iter().any(|o| is_dynamic_cb(model, o))
}

/// The range key of D3D11 constant-buffer slot `slot` of space 0.
fn dynamic_slot_key(slot: u32) -> RangeKey {
    RangeKey {
        class: DescriptorClass::ConstantBuffer,
        kind: DescriptorKind::Buffer,
        space: 0,
        lower: slot,
        upper: Some(slot),
    }
}

/// A constant buffer of `vectors` 16-byte vectors placed in push constants: one register,
/// no larger than the bytes the layer provides.
fn push_constant(
    key: RangeKey,
    range: ResourceRange,
    vectors: u32,
    placement: crate::bindings::PushConstantPlacement,
) -> Result<PushConstantBuffer> {
    if range.upper != Some(range.lower) {
        return Err(Error::new(
            Location::None,
            format!(
                "{key} is a range of several constant buffers: push constants hold single \
                 constant buffers"
            ),
        ));
    }
    let size = vectors.max(1).saturating_mul(16);
    if let Some(provided) = placement.size {
        if size > provided {
            return Err(Error::new(
                Location::None,
                format!(
                    "{key} is {size} bytes ({vectors} vectors), more than the {provided} bytes \
                     the binding map gives it in push constants"
                ),
            ));
        }
    }
    if !placement.offset.is_multiple_of(16) {
        return Err(Error::new(
            Location::None,
            format!(
                "{key} is placed at push-constant offset {}, not a multiple of 16",
                placement.offset
            ),
        ));
    }
    Ok(PushConstantBuffer {
        range,
        key,
        offset: placement.offset,
        size,
        provided: placement.size,
    })
}

/// Sorts the push-constant buffers by offset and refuses overlapping ones (naming both) and
/// a program that picks its constant-buffer register at run time (which reads D3D11's slots
/// through descriptors).
fn check_push_constants(buffers: &mut [PushConstantBuffer], reads_dynamic: bool) -> Result<()> {
    if reads_dynamic {
        if let Some(first) = buffers.first() {
            return Err(Error::new(
                Location::None,
                format!(
                    "{} is placed in push constants, but the program chooses its \
                     constant-buffer register at run time (cb[r#]), which reads the slots \
                     through descriptors",
                    first.key
                ),
            ));
        }
    }
    buffers.sort_by_key(|b| (b.offset, b.range.id));
    for (i, a) in buffers.iter().enumerate() {
        let a_end = a
            .offset
            .saturating_add(a.provided.unwrap_or(a.size).max(a.size));
        for b in &buffers[i + 1..] {
            if b.offset < a_end {
                return Err(Error::new(
                    Location::None,
                    format!(
                        "{} (push-constant bytes {} to {}) and {} (from byte {}) overlap",
                        a.key,
                        a.offset,
                        a_end - 1,
                        b.key,
                        b.offset
                    ),
                ));
            }
        }
    }
    Ok(())
}

impl BindingPlan {
    /// Binds every resource range the program declares: the mapper chooses the bindings of
    /// all the ranges at once ([`BindingMapper::map_shader`]); ranges that share a set and
    /// binding must have one descriptor type.
    pub fn build(program: &Program, mapper: &dyn BindingMapper) -> Result<Self> {
        let usage = uav_usage(program);
        // Inline for a typical shader's handful of ranges: no allocation on the common path.
        let mut ranges: smallvec::SmallVec<[_; 8]> = smallvec::SmallVec::new();
        let mut push_constants = Vec::new();
        for (index, instruction) in program.instructions.iter().enumerate() {
            let Some(declaration) = &instruction.declaration else {
                continue;
            };
            let Some((register, range, kind, raw)) = classify(declaration) else {
                continue;
            };
            let at = |e: Error| Error::instruction(index as u32, instruction.dword, e.to_string());
            if range.upper.is_some_and(|u| u < range.lower) {
                return Err(at(Error::new(
                    Location::None,
                    "a range whose upper bound is below its lower bound",
                )));
            }
            let internal = |what: &str| {
                at(Error::new(
                    Location::None,
                    format!("internal: a resource declaration of {what}"),
                )
                .with_kind(crate::ErrorKind::Internal))
            };
            let class = class_of(register)
                .ok_or_else(|| internal("a register file without descriptors"))?;
            let descriptor_type = DescriptorType::of(class, kind, raw)
                .ok_or_else(|| internal("a class and kind without a descriptor type"))?;
            let key = RangeKey {
                class,
                kind,
                space: range.space,
                lower: range.lower,
                upper: range.upper,
            };
            let usage = if register == RegisterKind::UnorderedAccessView {
                usage.get(&range.id).copied().unwrap_or_default()
            } else {
                UavUsage::default()
            };
            if register == RegisterKind::ConstantBuffer {
                if let Some(placement) = mapper.push_constant(&key) {
                    let Declaration::ConstantBuffer { size, .. } = declaration else {
                        return Err(internal("a constant buffer of another declaration"));
                    };
                    push_constants.push(push_constant(key, range, *size, placement).map_err(at)?);
                    continue;
                }
            }
            ranges.push((index, register, range, key, descriptor_type, usage));
        }
        check_push_constants(&mut push_constants, reads_dynamic_cb(program))?;
        let counter_key = |key: &RangeKey| RangeKey {
            class: DescriptorClass::UavCounter,
            kind: DescriptorKind::Buffer,
            ..*key
        };
        let mut keys: smallvec::SmallVec<[RangeKey; 16]> = smallvec::SmallVec::new();
        for (_, _, _, key, _, usage) in &ranges {
            keys.push(*key);
            if usage.counter {
                keys.push(counter_key(key));
            }
        }
        if interface_slot_count(program) > 0 {
            keys.push(class_linkage_key());
        }
        let declared_cbs = ranges
            .iter()
            .filter(|(_, register, ..)| *register == RegisterKind::ConstantBuffer)
            .map(|(_, _, range, ..)| range.id);
        let reads_dynamic = reads_dynamic_cb(program);
        let dynamic_slots = undeclared_dynamic_slots(reads_dynamic, declared_cbs);
        keys.extend(dynamic_slots.iter().map(|&slot| dynamic_slot_key(slot)));
        let chosen = ShaderBindings::new(mapper, &keys);
        let mut plan = BindingPlan::default();
        let mut instructions: smallvec::SmallVec<[Option<usize>; 16]> = smallvec::SmallVec::new();
        for (index, register, range, key, descriptor_type, usage) in ranges {
            let instruction = &program.instructions[index];
            let at = |e: Error| Error::instruction(index as u32, instruction.dword, e.to_string());
            let binding = chosen.resolve(&key).map_err(at)?;
            let shape = shape_of(&range, &binding).map_err(at)?;
            let counter = if usage.counter {
                let counter = chosen.resolve(&counter_key(&key)).map_err(at)?;
                if shape_of(&range, &counter).map_err(at)? != shape {
                    return Err(at(Error::new(
                        Location::None,
                        format!("the counter of {key} needs the same array offset as the UAV"),
                    )));
                }
                Some(counter)
            } else {
                None
            };
            plan.by_range
                .insert((register as u8, range.id), plan.bindings.len());
            plan.bindings.push(DescriptorBinding {
                register,
                range,
                key,
                binding,
                descriptor_type,
                shape,
                usage,
                counter,
                undeclared_slot: false,
            });
            instructions.push(Some(index));
        }
        plan.dynamic_constant_buffers = reads_dynamic;
        plan.push_constants = push_constants;
        plan.bind_dynamic_constant_buffers(&dynamic_slots, &chosen)?;
        plan.bind_class_linkage(program, &chosen)?;
        instructions.resize(plan.bindings.len(), None);
        plan.check_descriptor_types(program, &instructions)?;
        Ok(plan)
    }

    /// Ranges (and counters) that share a set and binding must have one descriptor type: an
    /// error names both ranges and is located at the later one's declaration (`instructions`:
    /// the declaration of each binding, `None` for the class linkage's).
    fn check_descriptor_types(
        &self,
        program: &Program,
        instructions: &[Option<usize>],
    ) -> Result<()> {
        // Inline for a typical shader's handful of bindings: no allocation on the common path.
        let mut placed: smallvec::SmallVec<[(Binding, DescriptorTypes); 16]> =
            smallvec::SmallVec::new();
        for b in &self.bindings {
            placed.push((b.binding, b.descriptor_type.into()));
            if let Some(counter) = b.counter {
                placed.push((counter, DescriptorType::StorageBuffer.into()));
            }
        }
        let Some((first, second)) = type_conflict(&placed) else {
            return Ok(());
        };
        // The error path: which range (or counter) each placed binding is.
        let mut owners: Vec<(usize, RangeKey)> = Vec::new();
        for (i, b) in self.bindings.iter().enumerate() {
            owners.push((i, b.key));
            if b.counter.is_some() {
                owners.push((
                    i,
                    RangeKey {
                        class: DescriptorClass::UavCounter,
                        kind: DescriptorKind::Buffer,
                        ..b.key
                    },
                ));
            }
        }
        let name = |n: usize| {
            let (i, key) = owners[n];
            let ty = if key.class == DescriptorClass::UavCounter {
                DescriptorType::StorageBuffer
            } else {
                self.bindings[i].descriptor_type
            };
            format!("{key} (a {})", ty.name())
        };
        let (set, binding) = (placed[first].0.set, placed[first].0.binding);
        let message = format!(
            "{} and {} share set {set} binding {binding}, but a Vulkan binding has one \
             descriptor type",
            name(first),
            name(second)
        );
        let later = owners[first].0.max(owners[second].0);
        Err(match instructions.get(later).copied().flatten() {
            Some(index) => {
                Error::instruction(index as u32, program.instructions[index].dword, message)
            }
            None => Error::new(Location::None, message),
        })
    }

    /// Adds the binding of the class-linkage instance data (see
    /// [`crate::bindings::CLASS_LINKAGE_REGISTER`]) when the program declares interfaces: a
    /// constant buffer at that register of space 0, which the program itself must not
    /// declare.
    fn bind_class_linkage(&mut self, program: &Program, chosen: &ShaderBindings) -> Result<()> {
        if interface_slot_count(program) == 0 {
            return Ok(());
        }
        let register = crate::bindings::CLASS_LINKAGE_REGISTER;
        if self.get(RegisterKind::ConstantBuffer, register).is_some() {
            return Err(Error::new(
                Location::None,
                format!(
                    "cb{register} is reserved for the class-linkage instance data of a program \
                     with interfaces"
                ),
            ));
        }
        let range = ResourceRange {
            id: register,
            lower: register,
            upper: Some(register),
            space: 0,
        };
        self.bind_constant_buffer(range, class_linkage_key(), chosen, false)
    }

    /// Adds a constant buffer the program reads without declaring it (the class-linkage data,
    /// or a D3D11 slot read through a register chosen at run time).
    fn bind_constant_buffer(
        &mut self,
        range: ResourceRange,
        key: RangeKey,
        chosen: &ShaderBindings,
        undeclared_slot: bool,
    ) -> Result<()> {
        let binding = chosen.resolve(&key)?;
        let shape = shape_of(&range, &binding)?;
        self.by_range.insert(
            (RegisterKind::ConstantBuffer as u8, range.id),
            self.bindings.len(),
        );
        self.bindings.push(DescriptorBinding {
            register: RegisterKind::ConstantBuffer,
            range,
            key,
            binding,
            descriptor_type: DescriptorType::UniformBuffer,
            shape,
            usage: UavUsage::default(),
            counter: None,
            undeclared_slot,
        });
        Ok(())
    }

    /// Binds the D3D11 constant-buffer slots an SM5.0 program reads through a register chosen
    /// at run time (`cb[r1.y + 0][r1.x + 0]`) and does not declare (`slots`, from
    /// [`undeclared_dynamic_slots`]), as the mapper binds a declared `cbN`.
    fn bind_dynamic_constant_buffers(
        &mut self,
        slots: &[u32],
        chosen: &ShaderBindings,
    ) -> Result<()> {
        for &slot in slots {
            let range = ResourceRange {
                id: slot,
                lower: slot,
                upper: Some(slot),
                space: 0,
            };
            self.bind_constant_buffer(range, dynamic_slot_key(slot), chosen, true)?;
        }
        Ok(())
    }

    /// The push-constant placement of constant-buffer range `id`, when it has one.
    pub fn push_constant(&self, id: u32) -> Option<&PushConstantBuffer> {
        self.push_constants.iter().find(|p| p.range.id == id)
    }

    /// The binding of range `id` of a register file.
    pub fn get(&self, register: RegisterKind, id: u32) -> Option<&DescriptorBinding> {
        self.by_range
            .get(&(register as u8, id))
            .and_then(|&i| self.bindings.get(i))
    }

    /// Where register `register` of `class` in `space` lives: (set, binding, array element),
    /// for a runner placing resources; `None` when no declared range holds it. A single
    /// descriptor's element is 0.
    pub fn locate(
        &self,
        class: DescriptorClass,
        space: u32,
        register: u32,
    ) -> Option<(u32, u32, u32)> {
        self.bindings.iter().find_map(|b| {
            let counter = class == DescriptorClass::UavCounter;
            let same_class = b.key.class == class
                || (counter && b.key.class == DescriptorClass::UnorderedAccess);
            let inside = register >= b.range.lower && b.range.upper.is_none_or(|u| register <= u);
            if !same_class || b.range.space != space || !inside {
                return None;
            }
            let binding = if counter { b.counter? } else { b.binding };
            let element = match b.shape {
                ArrayShape::Single => 0,
                _ => (register - b.range.lower).checked_add(binding.array_offset)?,
            };
            Some((binding.set, binding.binding, element))
        })
    }

    /// The array element a resource operand (`t1[r1.x + 10]`, `cb2[3][4]`) selects.
    pub fn index(&self, operand: &Operand) -> std::result::Result<DescriptorIndex, String> {
        let name = operand.kind.name();
        let id = operand
            .indices()
            .first()
            .and_then(|i| i.as_imm32())
            .ok_or_else(|| format!("{name} needs an immediate range id"))?;
        let binding = self
            .get(operand.kind, id)
            .ok_or_else(|| format!("{name}{id} is not declared"))?;
        if binding.shape == ArrayShape::Single {
            return Ok(DescriptorIndex::None);
        }
        let register = operand
            .indices()
            .get(1)
            .copied()
            .unwrap_or(Index::Imm32(binding.range.lower));
        let offset = binding.binding.array_offset;
        let lower = binding.range.lower;
        match register.relative() {
            None => {
                let r = register.immediate();
                let inside = r >= lower as u64 && binding.range.upper.is_none_or(|u| r <= u as u64);
                if !inside {
                    return Err(format!(
                        "{name}{id}[{r}] is outside the range {}",
                        binding.key
                    ));
                }
                u32::try_from(r - lower as u64 + offset as u64)
                    .map(DescriptorIndex::Constant)
                    .map_err(|_| format!("{name}{id}[{r}]: the element does not fit 32 bits"))
            }
            Some(relative) => Ok(DescriptorIndex::Dynamic {
                relative,
                add: (register.immediate() as u32)
                    .wrapping_sub(lower)
                    .wrapping_add(offset),
                non_uniform: operand.non_uniform,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{BindingMap, DefaultBindings};

    const RANGES: &str = "ps_5_1
dcl_sampler s0[5:5], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) t0[5:5], space=0
dcl_resource_texture2d (float,float,float,float) t1[10:*], space=0
dcl_resource_texture2d (float,float,float,float) t2[0:7], space=1
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 2
sample r0.xyzw, v0.xyxx, t0[0].xyzw, s0[5]
sample r0.xyzw, v0.xyxx, t2[3].xyzw, s0[5]
sample r1.xyzw, v0.xyxx, t2[r1.x + 0].xyzw, s0[5]
sample r1.xyzw, v0.xyxx, t1[r1.x + 10].xyzw {nonuniform}, s0[5]
sample r1.xyzw, v0.xyxx, t2[9].xyzw, s0[5]
ret
";

    /// The resource operand (the third) of each sample instruction.
    fn resources(program: &Program) -> Vec<Operand> {
        program
            .instructions
            .iter()
            .filter(|i| i.opcode == Opcode::Sample)
            .filter_map(|i| program.operands_of(i).get(2).copied())
            .collect()
    }

    #[test]
    fn default_plan_and_indices() {
        let program = crate::asm::parse_program(RANGES).unwrap();
        let plan = BindingPlan::build(&program, &DefaultBindings).unwrap();
        let t = |id| *plan.get(RegisterKind::Resource, id).unwrap();
        assert_eq!((t(0).binding.set, t(0).binding.binding), (0, 37));
        assert_eq!(t(0).shape, ArrayShape::Single);
        assert_eq!(
            (t(1).binding.binding, t(1).shape),
            (42, ArrayShape::Runtime)
        );
        assert_eq!(
            (t(2).binding.set, t(2).binding.binding, t(2).shape),
            (1, 32, ArrayShape::Bounded(8))
        );
        let ops = resources(&program);
        let index: Vec<_> = ops.iter().map(|o| plan.index(o)).collect();
        assert_eq!(index[0], Ok(DescriptorIndex::None));
        assert_eq!(index[1], Ok(DescriptorIndex::Constant(3)));
        assert!(matches!(
            index[2],
            Ok(DescriptorIndex::Dynamic {
                add: 0,
                non_uniform: false,
                ..
            })
        ));
        assert!(matches!(
            index[3],
            Ok(DescriptorIndex::Dynamic {
                add: 0,
                non_uniform: true,
                ..
            })
        ));
        let error = index[4].clone().unwrap_err();
        assert!(error.contains("t2[9] is outside"), "{error}");
        let srv = DescriptorClass::ShaderResource;
        assert_eq!(plan.locate(srv, 0, 5), Some((0, 37, 0)));
        assert_eq!(plan.locate(srv, 0, 55), Some((0, 42, 45)));
        assert_eq!(plan.locate(srv, 1, 5), Some((1, 32, 5)));
        assert_eq!(plan.locate(srv, 0, 6), None);
    }

    #[test]
    fn array_offsets_shift_indices() {
        let program = crate::asm::parse_program(RANGES).unwrap();
        let map = BindingMap::from_json(
            r#"{"fallback_to_default": true, "ranges": [
              {"class": "srv", "space": 1, "first": 0, "last": 15, "set": 4, "binding": 2, "array_offset": 3},
              {"class": "srv", "space": 0, "first": 10, "set": 5, "binding": 0, "array_offset": 1}]}"#,
        )
        .unwrap();
        let plan = BindingPlan::build(&program, &map).unwrap();
        let t2 = plan.get(RegisterKind::Resource, 2).unwrap();
        assert_eq!(t2.shape, ArrayShape::Bounded(11));
        let ops = resources(&program);
        assert_eq!(plan.index(&ops[1]), Ok(DescriptorIndex::Constant(6)));
        assert!(matches!(
            plan.index(&ops[2]),
            Ok(DescriptorIndex::Dynamic { add: 3, .. })
        ));
        // t1[r1.x + 10] with the range at t10 and offset 1: r1.x + 1.
        assert!(matches!(
            plan.index(&ops[3]),
            Ok(DescriptorIndex::Dynamic { add: 1, .. })
        ));
    }

    /// Maps `cbN` of space 0 to set 3, binding 100 + N, and remembers what it was asked.
    struct Recording(std::cell::RefCell<Vec<RangeKey>>);

    impl BindingMapper for Recording {
        fn map(&self, range: &RangeKey) -> Option<Binding> {
            self.0.borrow_mut().push(*range);
            Some(Binding {
                set: 3,
                binding: 100 + range.lower,
                array_offset: 0,
            })
        }
    }

    #[test]
    fn run_time_constant_buffer_registers_bind_every_d3d11_slot_through_the_mapper() {
        let head = "ps_5_0\ndcl_constantbuffer cb2[4], immediateIndexed\ndcl_temps 2\n";
        let text = format!("{head}mov r0.x, cb[r1.x + 0][0].x\nret\n");
        let program = crate::asm::parse_program(&text).unwrap_or_else(|e| panic!("{e}"));
        let mapper = Recording(Default::default());
        let plan = BindingPlan::build(&program, &mapper).unwrap_or_else(|e| panic!("{e}"));
        assert!(plan.dynamic_constant_buffers);
        // cb2 as declared, then each other slot 0–13 as the declaration `cbN` would be.
        let asked: Vec<RangeKey> = mapper.0.borrow().clone();
        let expected: Vec<RangeKey> = [2]
            .into_iter()
            .chain((0..14).filter(|&n| n != 2))
            .map(|n| RangeKey {
                class: DescriptorClass::ConstantBuffer,
                kind: DescriptorKind::Buffer,
                space: 0,
                lower: n,
                upper: Some(n),
            })
            .collect();
        assert_eq!(asked, expected, "ranges asked of the mapper for\n{text}");
        for n in 0..14 {
            let b = plan
                .get(RegisterKind::ConstantBuffer, n)
                .unwrap_or_else(|| panic!("cb{n} has no binding"));
            assert_eq!((b.binding.set, b.binding.binding), (3, 100 + n), "cb{n}");
            assert_eq!(b.shape, ArrayShape::Single, "cb{n}");
            assert_eq!(b.undeclared_slot, n != 2, "cb{n}");
        }
        assert!(plan.get(RegisterKind::ConstantBuffer, 14).is_none());
        // Without a run-time register only the declaration is bound.
        let text = format!("{head}mov r0.x, cb2[1].x\nret\n");
        let program = crate::asm::parse_program(&text).unwrap_or_else(|e| panic!("{e}"));
        let mapper = Recording(Default::default());
        let plan = BindingPlan::build(&program, &mapper).unwrap_or_else(|e| panic!("{e}"));
        assert!(!plan.dynamic_constant_buffers);
        assert_eq!(mapper.0.borrow().len(), 1, "{:?}", mapper.0.borrow());
    }

    #[test]
    fn unmapped_range_is_an_error() {
        let program = crate::asm::parse_program(RANGES).unwrap();
        let map = BindingMap::from_json(
            r#"{"ranges": [{"class": "sampler", "first": 0, "set": 0, "binding": 0}]}"#,
        )
        .unwrap();
        let error = BindingPlan::build(&program, &map).unwrap_err().to_string();
        assert!(
            error.contains("no descriptor binding is mapped for t5"),
            "{error}"
        );
    }

    #[test]
    fn uav_usage_scan() {
        let program = crate::asm::parse_program(
            "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_uav_structured u1, 4
dcl_uav_typed_texture2d (uint,uint,uint,uint) u2
dcl_thread_group 1, 1, 1
dcl_temps 1
ld_raw r0.x, l(0), u0.xxxx
imm_atomic_alloc r0.y, u1
atomic_iadd u2, l(0, 0, 0, 0), l(1)
ret
",
        )
        .unwrap();
        let usage = uav_usage(&program);
        assert!(usage[&0].read && !usage[&0].atomic);
        assert!(usage[&1].counter && !usage[&1].read);
        assert!(usage[&2].atomic && !usage[&2].read);
        let plan = BindingPlan::build(&program, &DefaultBindings).unwrap();
        let u1 = plan.get(RegisterKind::UnorderedAccessView, 1).unwrap();
        assert_eq!(u1.counter.map(|c| c.binding), Some(225));
    }

    /// Registers from 2^29 on are numbered per shader and set by the default layout: the
    /// pass asks the mapper about all the ranges at once, counters included.
    #[test]
    fn default_plan_places_the_largest_registers() {
        let program = crate::asm::parse_program(
            "cs_5_1
dcl_resource_raw t0[4294967295:*], space=4294967295
dcl_resource_raw t1[536870912:536870913], space=4294967295
dcl_uav_structured u0[3000000000:3000000000], 4, space=0
dcl_thread_group 1, 1, 1
dcl_temps 1
ld_raw r0.x, l(0), t0[4294967295].xxxx
imm_atomic_alloc r0.y, u0[3000000000]
ret
",
        )
        .unwrap();
        let plan = BindingPlan::build(&program, &DefaultBindings).unwrap();
        let base = crate::bindings::PER_SHADER_BINDING_BASE;
        let at = |b: Binding| (b.set, b.binding);
        let t = |id| at(plan.get(RegisterKind::Resource, id).unwrap().binding);
        assert_eq!(t(1), (u32::MAX, base));
        assert_eq!(t(0), (u32::MAX, base + 1));
        let u0 = plan.get(RegisterKind::UnorderedAccessView, 0).unwrap();
        assert_eq!(at(u0.binding), (0, base));
        assert_eq!(u0.counter.map(at), Some((0, base + 1)));
    }

    const SHARED: &str = "cs_5_1
dcl_resource_raw t0[8:11], space=2
dcl_uav_typed_buffer (uint,uint,uint,uint) u0[6:7], space=0
dcl_uav_structured u1[4:5], 4, space=0
dcl_thread_group 1, 1, 1
dcl_temps 1
ld_raw r0.x, l(0), t0[8].xxxx
store_uav_typed u0[6].xyzw, l(0, 0, 0, 0), r0.xxxx
imm_atomic_alloc r0.y, u1[4]
ret
";

    /// Ranges of different descriptor types on one set and binding: the map alone cannot tell
    /// (an SRV buffer may be a storage buffer), the declarations can. The error names both
    /// ranges and the later declaration.
    #[test]
    fn ranges_of_different_descriptor_types_on_one_binding_are_errors() {
        let program = crate::asm::parse_program(SHARED).unwrap();
        let map = BindingMap::from_json(
            r#"{"ranges": [
              {"class": "srv", "kind": "buffer", "space": 2, "first": 8, "last": 11, "set": 0, "binding": 1},
              {"class": "uav", "kind": "buffer", "first": 6, "last": 7, "set": 0, "binding": 1, "array_offset": 4},
              {"class": "uav", "first": 4, "last": 5, "set": 0, "binding": 2},
              {"class": "uav_counter", "first": 4, "last": 5, "set": 0, "binding": 3}]}"#,
        )
        .unwrap();
        let error = BindingPlan::build(&program, &map).unwrap_err().to_string();
        assert!(
            error.contains(
                "t8..t11 (buffer) in space 2 (a storage buffer) and u6..u7 (buffer) in space 0 \
                 (a storage texel buffer) share set 0 binding 1, but a Vulkan binding has one \
                 descriptor type"
            ),
            "{error}"
        );
        assert!(
            error.contains("instruction 1"),
            "located at dcl_uav_typed_buffer: {error}"
        );
        // A counter (storage buffer) next to the typed UAV (storage texel buffer).
        let map = BindingMap::from_json(
            r#"{"fallback_to_default": true, "ranges": [
              {"class": "uav", "kind": "buffer", "first": 6, "last": 7, "set": 0, "binding": 1},
              {"class": "uav_counter", "first": 4, "last": 5, "set": 0, "binding": 1}]}"#,
        )
        .unwrap();
        let error = BindingPlan::build(&program, &map).unwrap_err().to_string();
        assert!(
            error.contains("u4..u5 counter (buffer) in space 0 (a storage buffer)"),
            "{error}"
        );
    }

    /// Storage buffers of different ranges (a raw SRV and a structured UAV; a counter and an
    /// SRV entry the program does not use) may share one binding, in separate array elements.
    #[test]
    fn ranges_of_one_descriptor_type_may_share_a_binding() {
        let program = crate::asm::parse_program(SHARED).unwrap();
        let map = BindingMap::from_json(
            r#"{"fallback_to_default": true, "ranges": [
              {"class": "srv", "space": 2, "first": 8, "last": 11, "set": 0, "binding": 1},
              {"class": "uav", "first": 4, "last": 5, "set": 0, "binding": 1, "array_offset": 4},
              {"class": "uav_counter", "first": 4, "last": 5, "set": 0, "binding": 2, "array_offset": 4},
              {"class": "srv", "space": 2, "first": 12, "last": 12, "set": 0, "binding": 2}]}"#,
        )
        .unwrap();
        let plan = BindingPlan::build(&program, &map).unwrap();
        let u1 = plan.get(RegisterKind::UnorderedAccessView, 1).unwrap();
        assert_eq!(u1.descriptor_type, DescriptorType::StorageBuffer);
        assert_eq!(
            u1.counter.map(|c| (c.binding, c.array_offset)),
            Some((2, 4))
        );
    }
}
