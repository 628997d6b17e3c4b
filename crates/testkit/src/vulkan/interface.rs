//! What a SPIR-V module needs from a dispatch or draw, read from its words before any Vulkan
//! call: its entry points and the descriptors its functions use. A pipeline whose layout
//! lacks a descriptor the shader uses, or has one of another type, is invalid in Vulkan and
//! crashes some drivers (lavapipe dereferences the missing descriptor); [`check_modules`]
//! refuses such a request with an error naming the set and binding instead.

use ash::vk;

use super::{Binding, Format, VulkanError};

/// `OpEntryPoint` execution models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Model {
    /// `Vertex`.
    Vertex,
    /// `TessellationControl`.
    TessControl,
    /// `TessellationEvaluation`.
    TessEval,
    /// `Geometry`.
    Geometry,
    /// `Fragment`.
    Fragment,
    /// `GLCompute`.
    Compute,
}

impl Model {
    fn from_word(word: u32) -> Option<Self> {
        Some(match word {
            0 => Model::Vertex,
            1 => Model::TessControl,
            2 => Model::TessEval,
            3 => Model::Geometry,
            4 => Model::Fragment,
            5 => Model::Compute,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Model::Vertex => "vertex",
            Model::TessControl => "tessellation control (hull)",
            Model::TessEval => "tessellation evaluation (domain)",
            Model::Geometry => "geometry",
            Model::Fragment => "fragment (pixel)",
            Model::Compute => "compute",
        }
    }
}

/// The numeric type of an image's texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numeric {
    Float,
    Uint,
    Sint,
}

/// One descriptor a module's functions use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Used {
    /// The descriptor set.
    pub(super) set: u32,
    /// The binding in the set.
    pub(super) binding: u32,
    /// The descriptor type.
    pub(super) ty: vk::DescriptorType,
    /// Descriptors of a sized array (1 for a single descriptor, `None` for a runtime array).
    pub(super) count: Option<u32>,
    /// The texel type and SPIR-V image format of an image or texel buffer.
    image: Option<(Numeric, u32)>,
}

/// What [`scan`] finds in a module.
pub(super) struct Interface {
    /// (execution model, name) of every entry point (unknown models left out).
    entry_points: Vec<(Option<Model>, String)>,
    /// Every descriptor the functions use.
    pub(super) used: Vec<Used>,
    /// The functions read a push-constant block.
    pub(super) push_constants: bool,
}

const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_SAMPLER: u32 = 26;
const OP_TYPE_SAMPLED_IMAGE: u32 = 27;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const OP_FUNCTION_CALL: u32 = 57;
const OP_VARIABLE: u32 = 59;
const OP_IMAGE_TEXEL_POINTER: u32 = 60;
const OP_LOAD: u32 = 61;
const OP_STORE: u32 = 62;
const OP_COPY_MEMORY: u32 = 63;
const OP_ACCESS_CHAIN: u32 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
const OP_PTR_ACCESS_CHAIN: u32 = 67;
const OP_ARRAY_LENGTH: u32 = 68;
const OP_DECORATE: u32 = 71;
const OP_COPY_OBJECT: u32 = 83;
const OP_ATOMIC_STORE: u32 = 228;

const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_PUSH_CONSTANT: u32 = 9;
const STORAGE_STORAGE_BUFFER: u32 = 12;

const DIM_BUFFER: u32 = 5;
const DIM_SUBPASS_DATA: u32 = 6;

/// The module's instructions (each its words), after checking the magic number and that
/// every word count stays inside the module.
fn instructions(spirv: &[u32]) -> Result<Vec<&[u32]>, VulkanError> {
    if spirv.first() != Some(&0x0723_0203) {
        return Err(VulkanError::Invalid(
            "the module does not start with the SPIR-V magic number".into(),
        ));
    }
    let mut out = Vec::new();
    let mut at = 5;
    while at < spirv.len() {
        let count = spirv.get(at).map_or(0, |w| (w >> 16) as usize);
        let words = spirv.get(at..at.saturating_add(count));
        match words {
            Some(words) if count > 0 => out.push(words),
            _ => {
                return Err(VulkanError::Invalid(format!(
                    "the SPIR-V module's instruction at word {at} has a bad word count"
                )))
            }
        }
        at += count;
    }
    Ok(out)
}

/// The string starting at `words[0]` (nul-terminated, packed little-endian).
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Reads a module's entry points and the descriptors its functions use.
pub(super) fn scan(spirv: &[u32]) -> Result<Interface, VulkanError> {
    use std::collections::{HashMap, HashSet};
    let insts = instructions(spirv)?;
    let mut entry_points = Vec::new();
    let mut sets: HashMap<u32, u32> = HashMap::new();
    let mut bindings: HashMap<u32, u32> = HashMap::new();
    let mut buffer_blocks: HashSet<u32> = HashSet::new();
    // id -> defining instruction, for types and constants.
    let mut defs: HashMap<u32, &[u32]> = HashMap::new();
    // Module-level variables: id -> (pointer type id, storage class).
    let mut variables: Vec<(u32, u32, u32)> = Vec::new();
    let mut referenced: HashSet<u32> = HashSet::new();
    let mut in_function = false;
    for &inst in &insts {
        let op = inst[0] & 0xffff;
        let w = |i: usize| inst.get(i).copied().unwrap_or(0);
        match op {
            OP_ENTRY_POINT => {
                entry_points.push((
                    Model::from_word(w(1)),
                    literal_string(inst.get(3..).unwrap_or(&[])),
                ));
            }
            OP_DECORATE => match w(2) {
                DECORATION_DESCRIPTOR_SET => {
                    sets.insert(w(1), w(3));
                }
                DECORATION_BINDING => {
                    bindings.insert(w(1), w(3));
                }
                DECORATION_BUFFER_BLOCK => {
                    buffer_blocks.insert(w(1));
                }
                _ => {}
            },
            OP_FUNCTION => in_function = true,
            OP_FUNCTION_END => in_function = false,
            OP_VARIABLE if !in_function => variables.push((w(2), w(1), w(3))),
            OP_TYPE_INT
            | OP_TYPE_FLOAT
            | OP_TYPE_IMAGE
            | OP_TYPE_SAMPLER
            | OP_TYPE_SAMPLED_IMAGE
            | OP_TYPE_ARRAY
            | OP_TYPE_RUNTIME_ARRAY
            | OP_TYPE_POINTER => {
                defs.insert(w(1), inst);
            }
            OP_CONSTANT => {
                defs.insert(w(2), inst);
            }
            _ => {}
        }
        if in_function {
            // The operands through which a function reaches a module-level variable.
            let pointers: &[usize] = match op {
                OP_LOAD
                | OP_ACCESS_CHAIN
                | OP_IN_BOUNDS_ACCESS_CHAIN
                | OP_PTR_ACCESS_CHAIN
                | OP_IMAGE_TEXEL_POINTER
                | OP_ARRAY_LENGTH
                | OP_COPY_OBJECT => &[3],
                OP_STORE | OP_ATOMIC_STORE => &[1],
                OP_COPY_MEMORY => &[1, 2],
                227..=242 | 318 | 5614 | 5615 | 6035 => &[3],
                _ => &[],
            };
            referenced.extend(pointers.iter().filter_map(|&i| inst.get(i)));
            if op == OP_FUNCTION_CALL {
                referenced.extend(inst.iter().skip(4));
            }
        }
    }
    let mut used = Vec::new();
    let mut push_constants = false;
    for (id, pointer, class) in variables {
        if !referenced.contains(&id) {
            continue;
        }
        let descriptor_class = matches!(
            class,
            STORAGE_UNIFORM_CONSTANT | STORAGE_UNIFORM | STORAGE_STORAGE_BUFFER
        );
        if class == STORAGE_PUSH_CONSTANT {
            push_constants = true;
            continue;
        }
        if !descriptor_class {
            continue;
        }
        let (Some(&set), Some(&binding)) = (sets.get(&id), bindings.get(&id)) else {
            return Err(VulkanError::Invalid(format!(
                "the shader uses resource variable %{id} without a descriptor set and binding"
            )));
        };
        let unknown = || {
            VulkanError::Invalid(format!(
                "set {set} binding {binding}: the shader's variable %{id} has a type the \
                 runner does not know"
            ))
        };
        let pointee = defs
            .get(&pointer)
            .filter(|d| d[0] & 0xffff == OP_TYPE_POINTER)
            .and_then(|d| d.get(3))
            .ok_or_else(unknown)?;
        // Look through one level of array.
        let (element, count) = match defs.get(pointee) {
            Some(d) if d[0] & 0xffff == OP_TYPE_ARRAY => {
                let length = d
                    .get(3)
                    .and_then(|l| defs.get(l))
                    .filter(|c| c[0] & 0xffff == OP_CONSTANT)
                    .and_then(|c| c.get(3))
                    .copied()
                    .ok_or_else(unknown)?;
                (d.get(2).copied().ok_or_else(unknown)?, Some(length))
            }
            Some(d) if d[0] & 0xffff == OP_TYPE_RUNTIME_ARRAY => {
                (d.get(2).copied().ok_or_else(unknown)?, None)
            }
            _ => (*pointee, Some(1)),
        };
        let (ty, image) = match class {
            STORAGE_STORAGE_BUFFER => (vk::DescriptorType::STORAGE_BUFFER, None),
            STORAGE_UNIFORM if buffer_blocks.contains(&element) => {
                (vk::DescriptorType::STORAGE_BUFFER, None)
            }
            STORAGE_UNIFORM => (vk::DescriptorType::UNIFORM_BUFFER, None),
            _ => {
                let def = defs.get(&element).ok_or_else(unknown)?;
                match def[0] & 0xffff {
                    OP_TYPE_SAMPLER => (vk::DescriptorType::SAMPLER, None),
                    OP_TYPE_SAMPLED_IMAGE => (vk::DescriptorType::COMBINED_IMAGE_SAMPLER, None),
                    OP_TYPE_IMAGE => {
                        let word = |i: usize| def.get(i).copied().ok_or_else(unknown);
                        let numeric = match defs.get(&word(2)?) {
                            Some(t) if t[0] & 0xffff == OP_TYPE_FLOAT => Numeric::Float,
                            Some(t) if t[0] & 0xffff == OP_TYPE_INT && t.get(3) == Some(&1) => {
                                Numeric::Sint
                            }
                            Some(t) if t[0] & 0xffff == OP_TYPE_INT => Numeric::Uint,
                            _ => return Err(unknown()),
                        };
                        let (dim, sampled, format) = (word(3)?, word(7)?, word(8)?);
                        let ty = match (dim, sampled) {
                            (DIM_SUBPASS_DATA, _) => vk::DescriptorType::INPUT_ATTACHMENT,
                            (DIM_BUFFER, 2) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                            (DIM_BUFFER, _) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                            (_, 2) => vk::DescriptorType::STORAGE_IMAGE,
                            _ => vk::DescriptorType::SAMPLED_IMAGE,
                        };
                        (ty, Some((numeric, format)))
                    }
                    _ => return Err(unknown()),
                }
            }
        };
        used.push(Used {
            set,
            binding,
            ty,
            count,
            image,
        });
    }
    Ok(Interface {
        entry_points,
        used,
        push_constants,
    })
}

/// A descriptor type's name in messages.
fn type_name(ty: vk::DescriptorType) -> &'static str {
    match ty {
        vk::DescriptorType::STORAGE_BUFFER => "a storage buffer",
        vk::DescriptorType::UNIFORM_BUFFER => "a uniform buffer",
        vk::DescriptorType::STORAGE_TEXEL_BUFFER => "a storage texel buffer",
        vk::DescriptorType::UNIFORM_TEXEL_BUFFER => "a uniform texel buffer",
        vk::DescriptorType::STORAGE_IMAGE => "a storage image",
        vk::DescriptorType::SAMPLED_IMAGE => "a sampled image",
        vk::DescriptorType::SAMPLER => "a sampler",
        vk::DescriptorType::COMBINED_IMAGE_SAMPLER => "a combined image sampler",
        vk::DescriptorType::INPUT_ATTACHMENT => "an input attachment",
        _ => "a descriptor",
    }
}

/// The numeric type and SPIR-V image format of a runner format.
fn format_numeric(format: Format) -> (Numeric, u32) {
    match format {
        Format::R32Uint => (Numeric::Uint, 33),
        Format::R32Sint => (Numeric::Sint, 24),
        Format::R32Float => (Numeric::Float, 3),
        Format::R32G32Uint => (Numeric::Uint, 35),
        Format::R32G32Float => (Numeric::Float, 6),
        Format::R32G32Sint => (Numeric::Sint, 25),
        Format::R32G32B32Float | Format::D32Float | Format::D32FloatS8Uint => (Numeric::Float, 0),
        Format::D24UnormS8Uint => (Numeric::Float, 0),
        Format::R32G32B32A32Uint => (Numeric::Uint, 30),
        Format::R32G32B32A32Sint => (Numeric::Sint, 21),
        Format::R32G32B32A32Float => (Numeric::Float, 1),
        Format::R8G8B8A8Unorm => (Numeric::Float, 4),
        Format::R8G8B8A8Uint => (Numeric::Uint, 32),
        Format::R16G16B16A16Float => (Numeric::Float, 2),
    }
}

/// The format of an image or texel-buffer resource.
fn resource_format(binding: &Binding) -> Option<Format> {
    binding
        .resource
        .texel_format()
        .or_else(|| binding.resource.image().map(|s| s.format))
}

/// Checks, before any Vulkan call, that every module has an entry point `main` of its
/// stage's execution model and that `bindings` provide every descriptor the modules use,
/// with the type, array size and texel type the shader declares.
pub(super) fn check_modules(
    modules: &[(&[u32], Model)],
    bindings: &[Binding],
    push_constant_bytes: usize,
) -> Result<(), VulkanError> {
    for &(spirv, model) in modules {
        let interface = scan(spirv)?;
        if interface.push_constants && push_constant_bytes == 0 {
            return Err(VulkanError::Invalid(format!(
                "the {} shader uses push constants, but the draw provides none",
                model.name()
            )));
        }
        if !interface
            .entry_points
            .iter()
            .any(|(m, name)| *m == Some(model) && name == "main")
        {
            let found: Vec<String> = interface
                .entry_points
                .iter()
                .map(|(m, name)| format!("{} `{name}`", m.map_or("unknown", Model::name)))
                .collect();
            return Err(VulkanError::Invalid(format!(
                "the {} stage needs a {} entry point `main`; the module has {}",
                model.name(),
                model.name(),
                if found.is_empty() {
                    "none".to_string()
                } else {
                    found.join(", ")
                }
            )));
        }
        for used in &interface.used {
            let (set, binding) = (used.set, used.binding);
            let given: Vec<&Binding> = bindings
                .iter()
                .filter(|b| (b.set, b.binding) == (set, binding))
                .collect();
            let Some(first) = given.first() else {
                return Err(VulkanError::Invalid(format!(
                    "the shader uses {} at set {set} binding {binding}, but nothing is bound \
                     there",
                    type_name(used.ty)
                )));
            };
            let ty = first.resource.descriptor_type();
            if ty != used.ty {
                return Err(VulkanError::Invalid(format!(
                    "set {set} binding {binding}: the shader declares {}, the binding is {}",
                    type_name(used.ty),
                    type_name(ty)
                )));
            }
            let bound = given
                .iter()
                .map(|b| b.element.saturating_add(1).max(b.array_size))
                .max()
                .unwrap_or(1);
            if let Some(count) = used.count {
                if bound < count {
                    return Err(VulkanError::Invalid(format!(
                        "set {set} binding {binding}: the shader declares {count} descriptors, \
                         the binding has {bound}"
                    )));
                }
            }
            if let Some((numeric, format)) = used.image {
                for b in &given {
                    let Some(view) = resource_format(b) else {
                        continue;
                    };
                    let (view_numeric, view_format) = format_numeric(view);
                    if view_numeric != numeric || (format != 0 && format != view_format) {
                        return Err(VulkanError::Invalid(format!(
                            "set {set} binding {binding}: the shader reads {numeric:?} texels \
                             (SPIR-V image format {format}), the view's format is {view:?}"
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vulkan::Resource;

    /// A compute module (from assembly text, translated) and its interface check.
    fn module(text: &str) -> Vec<u32> {
        let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
        dxbc2spirv::translate_bytes(&bytes, &Default::default())
            .expect("translates")
            .words
    }

    const TYPED: &str = "cs_5_0\ndcl_uav_typed_buffer (float,float,float,float) u0\n\
                         dcl_thread_group 1, 1, 1\nstore_uav_typed u0.xyzw, l(0, 0, 0, 0), \
                         l(1.0, 1.0, 1.0, 1.0)\nret\n";

    #[test]
    fn a_missing_or_mismatched_descriptor_is_refused() {
        let spirv = module(TYPED);
        let compute = [(spirv.as_slice(), Model::Compute)];
        let err = check_modules(&compute, &[], 0).expect_err("nothing bound");
        assert!(
            err.to_string()
                .contains("storage texel buffer at set 0 binding 160, but nothing is bound"),
            "{err}"
        );
        let raw = [Binding::new(0, 160, Resource::StorageBuffer(vec![0; 16]))];
        let err = check_modules(&compute, &raw, 0).expect_err("wrong type");
        assert!(
            err.to_string()
                .contains("declares a storage texel buffer, the binding is a storage buffer"),
            "{err}"
        );
        let uint = [Binding::new(
            0,
            160,
            Resource::StorageTexelBuffer {
                format: Format::R32Uint,
                data: vec![0; 16],
            },
        )];
        let err = check_modules(&compute, &uint, 0).expect_err("wrong texel type");
        assert!(err.to_string().contains("Float texels"), "{err}");
        let float = [Binding::new(
            0,
            160,
            Resource::StorageTexelBuffer {
                format: Format::R32Float,
                data: vec![0; 16],
            },
        )];
        check_modules(&compute, &float, 0).expect("the declared descriptor");
        let err = check_modules(&[(spirv.as_slice(), Model::Fragment)], &float, 0)
            .expect_err("not a fragment shader");
        assert!(
            err.to_string().contains("module has compute `main`"),
            "{err}"
        );
    }

    #[test]
    fn a_declared_but_unused_resource_needs_no_binding() {
        let spirv = module(
            "cs_5_0\ndcl_uav_raw u0\ndcl_uav_raw u1\ndcl_thread_group 1, 1, 1\n\
             store_raw u1.x, l(0), l(7)\nret\n",
        );
        let only_u1 = [Binding::new(0, 161, Resource::StorageBuffer(vec![0; 4]))];
        check_modules(&[(spirv.as_slice(), Model::Compute)], &only_u1, 0).expect("u0 is unused");
    }

    /// The dispatch that ended in a segmentation fault: a typed UAV the shader uses, given
    /// nothing (or a raw buffer) at its binding; now an error before any Vulkan call.
    #[test]
    fn the_runner_refuses_a_dispatch_missing_a_descriptor() {
        let spirv = module(TYPED);
        let context = crate::vulkan::Context::new().expect("a Vulkan device (lavapipe)");
        let err = context
            .dispatch(&spirv, &mut [], [1, 1, 1])
            .expect_err("nothing bound");
        assert!(err.to_string().contains("nothing is bound"), "{err}");
        let mut raw = [Binding::new(0, 160, Resource::StorageBuffer(vec![0; 16]))];
        let err = context
            .dispatch(&spirv, &mut raw, [1, 1, 1])
            .expect_err("a raw buffer for a typed UAV");
        assert!(
            err.to_string().contains("the binding is a storage buffer"),
            "{err}"
        );
        let pixel = dxbc2spirv::asm::assemble(
            "ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1.0, 0, 0, 1.0)\nret\n",
        )
        .expect("assembles");
        let spirv = dxbc2spirv::translate_bytes(&pixel, &Default::default())
            .expect("translates")
            .words;
        let err = context
            .dispatch(&spirv, &mut [], [1, 1, 1])
            .expect_err("a pixel shader");
        assert!(
            err.to_string().contains("needs a compute entry point"),
            "{err}"
        );
    }

    #[test]
    fn damaged_words_are_an_error() {
        assert!(scan(&[0x0723_0203, 0x0001_0600, 0, 10, 0, 0]).is_err());
        assert!(scan(&[1, 2, 3]).is_err());
    }
}
