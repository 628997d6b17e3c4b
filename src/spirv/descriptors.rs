//! Descriptor variables and their indexing, as the binding pass
//! ([`crate::analysis::binding_plan`]) decided: a single descriptor, a bounded array or a runtime
//! array at the caller's (set, binding), and the array element an operand selects.
//!
//! Capabilities: `RuntimeDescriptorArray` for unbounded ranges; the `*ArrayDynamicIndexing`
//! capabilities for dynamic indices; `ShaderNonUniform` and the `*ArrayNonUniformIndexing`
//! capabilities for non-uniform ones (SPIR-V 1.5 core; `SPV_EXT_descriptor_indexing` for
//! Vulkan 1.1). A non-uniform index, the access chain through it and the descriptor loaded
//! from it are decorated `NonUniform`.

use spirv::{Capability, Decoration, StorageClass, Word};

use super::emitter::Emitter;
use super::module::{built, Scalar};
use super::TargetEnv;
use crate::analysis::binding_plan::{ArrayShape, DescriptorIndex};
use crate::error::Result;
use crate::ir::{Operand, RegisterKind, ResourceRange};

/// What kind of descriptor a variable holds (for the indexing capabilities).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptorType {
    /// Sampled image or sampler.
    Sampled,
    /// Storage image.
    StorageImage,
    /// Uniform texel buffer.
    UniformTexelBuffer,
    /// Storage texel buffer.
    StorageTexelBuffer,
    /// Uniform buffer.
    UniformBuffer,
    /// Storage buffer.
    StorageBuffer,
}

impl DescriptorType {
    fn capabilities(self) -> (Capability, Capability) {
        use Capability as C;
        match self {
            DescriptorType::Sampled => (
                C::SampledImageArrayDynamicIndexing,
                C::SampledImageArrayNonUniformIndexing,
            ),
            DescriptorType::StorageImage => (
                C::StorageImageArrayDynamicIndexing,
                C::StorageImageArrayNonUniformIndexing,
            ),
            DescriptorType::UniformTexelBuffer => (
                C::UniformTexelBufferArrayDynamicIndexing,
                C::UniformTexelBufferArrayNonUniformIndexing,
            ),
            DescriptorType::StorageTexelBuffer => (
                C::StorageTexelBufferArrayDynamicIndexing,
                C::StorageTexelBufferArrayNonUniformIndexing,
            ),
            DescriptorType::UniformBuffer => (
                C::UniformBufferArrayDynamicIndexing,
                C::UniformBufferArrayNonUniformIndexing,
            ),
            DescriptorType::StorageBuffer => (
                C::StorageBufferArrayDynamicIndexing,
                C::StorageBufferArrayNonUniformIndexing,
            ),
        }
    }
}

/// A descriptor variable: the variable, what one descriptor is, and how it is arrayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    /// The variable.
    pub var: Word,
    /// The type of one descriptor (the variable's pointee, or its array's element).
    pub element: Word,
    /// The storage class.
    pub class: StorageClass,
    /// Single, bounded or runtime array.
    pub shape: ArrayShape,
    /// For capabilities.
    pub ty: DescriptorType,
}

/// One descriptor selected by an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selected {
    /// A pointer to the descriptor.
    pub ptr: Word,
    /// Whether the index was non-uniform (what is read through it needs `NonUniform`).
    pub non_uniform: bool,
}

impl Emitter<'_> {
    /// Declares the variable of range `id` of `register` with descriptors of type `element`,
    /// at the binding the binding pass chose, named `name` (a debug name, when they are on).
    pub fn declare_descriptor(
        &mut self,
        register: RegisterKind,
        range: &ResourceRange,
        element: Word,
        class: StorageClass,
        ty: DescriptorType,
        name: Option<String>,
    ) -> Result<Descriptor> {
        let binding = *self
            .bindings
            .get(register, range.id)
            .ok_or_else(|| self.err(format!("{}{} has no binding", register.name(), range.id)))?;
        let pointee = match binding.shape {
            ArrayShape::Single => element,
            ArrayShape::Bounded(length) => self.m.array(element, length),
            ArrayShape::Runtime => {
                self.descriptor_indexing();
                self.m.capability(Capability::RuntimeDescriptorArray);
                self.m.b.type_runtime_array(element)
            }
        };
        let var = self.global(pointee, class, name);
        self.decorate(var, Decoration::DescriptorSet, &[binding.binding.set]);
        self.decorate(var, Decoration::Binding, &[binding.binding.binding]);
        Ok(Descriptor {
            var,
            element,
            class,
            shape: binding.shape,
            ty,
        })
    }

    /// Declares the counter buffer of UAV range `id` (a block type `element`).
    pub fn declare_counter(&mut self, range: &ResourceRange, element: Word) -> Result<Descriptor> {
        let binding = *self
            .bindings
            .get(RegisterKind::UnorderedAccessView, range.id)
            .ok_or_else(|| self.err(format!("u{} has no binding", range.id)))?;
        let counter = binding
            .counter
            .ok_or_else(|| self.err(format!("u{} has no counter binding", range.id)))?;
        let pointee = match binding.shape {
            ArrayShape::Single => element,
            ArrayShape::Bounded(length) => self.m.array(element, length),
            ArrayShape::Runtime => self.m.b.type_runtime_array(element),
        };
        let var = self.global(
            pointee,
            StorageClass::StorageBuffer,
            Some(format!("u{}_counter", range.id)),
        );
        self.decorate(var, Decoration::DescriptorSet, &[counter.set]);
        self.decorate(var, Decoration::Binding, &[counter.binding]);
        Ok(Descriptor {
            var,
            element,
            class: StorageClass::StorageBuffer,
            shape: binding.shape,
            ty: DescriptorType::StorageBuffer,
        })
    }

    /// `SPV_EXT_descriptor_indexing` where it is not core (SPIR-V before 1.5).
    fn descriptor_indexing(&mut self) {
        if self.options.target == TargetEnv::Vulkan1_1 {
            self.m.extension("SPV_EXT_descriptor_indexing");
        }
    }

    /// A pointer to the descriptor `operand` selects (the variable itself for a single
    /// descriptor).
    pub fn select_descriptor(
        &mut self,
        descriptor: &Descriptor,
        operand: &Operand,
    ) -> Result<Selected> {
        let index = self.bindings.index(operand).map_err(|m| self.err(m))?;
        let (index, non_uniform) = match index {
            DescriptorIndex::None => {
                return Ok(Selected {
                    ptr: descriptor.var,
                    non_uniform: false,
                })
            }
            DescriptorIndex::Constant(element) => (self.m.constant_u32(element), false),
            DescriptorIndex::Dynamic {
                relative,
                add,
                non_uniform,
            } => {
                let (dynamic, non_uniform_cap) = descriptor.ty.capabilities();
                self.m.capability(dynamic);
                if matches!(
                    descriptor.ty,
                    DescriptorType::UniformTexelBuffer | DescriptorType::StorageTexelBuffer
                ) {
                    // The texel-buffer dynamic-indexing capabilities came with descriptor
                    // indexing too.
                    self.descriptor_indexing();
                }
                let register = *self.program.operand(relative);
                let value = self.load_scalar(&register, Scalar::U32)?.id;
                let value = if add == 0 {
                    value
                } else {
                    let uint = self.m.scalar(Scalar::U32);
                    let add = self.m.constant_u32(add);
                    built(self.m.b.i_add(uint, None, value, add))?
                };
                if non_uniform {
                    self.descriptor_indexing();
                    self.m.capability(Capability::ShaderNonUniform);
                    self.m.capability(non_uniform_cap);
                    if self.res.non_uniform_values.insert(value) {
                        self.decorate(value, Decoration::NonUniform, &[]);
                    }
                }
                (value, non_uniform)
            }
        };
        let pointer = self.m.pointer(descriptor.class, descriptor.element);
        let ptr = built(self.m.access_chain(pointer, descriptor.var, &[index]))?;
        if non_uniform {
            self.decorate(ptr, Decoration::NonUniform, &[]);
        }
        Ok(Selected { ptr, non_uniform })
    }
}
