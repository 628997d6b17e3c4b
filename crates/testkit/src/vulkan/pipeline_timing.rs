//! Timing the creation of a compute pipeline (`vkCreateComputePipelines`), for
//! `cargo xtask bench`: how long the driver takes to compile a module, with a pipeline layout
//! made from the descriptors the module declares, no resources bound and nothing dispatched.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ash::vk;

use super::{Context, VulkanError};

const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_SAMPLER: u32 = 26;
const OP_TYPE_SAMPLED_IMAGE: u32 = 27;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_FUNCTION: u32 = 54;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;

const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_PUSH_CONSTANT: u32 = 9;
const STORAGE_STORAGE_BUFFER: u32 = 12;

const DIM_BUFFER: u32 = 5;
const DIM_SUBPASS_DATA: u32 = 6;

/// The descriptors of a runtime array in the layout.
const RUNTIME_ARRAY_DESCRIPTORS: u32 = 16;

/// One descriptor binding a module declares.
struct Declared {
    set: u32,
    binding: u32,
    ty: vk::DescriptorType,
    count: u32,
}

/// The module's module-scope descriptor variables, and whether it declares push constants.
fn declared_descriptors(spirv: &[u32]) -> Result<(Vec<Declared>, bool), VulkanError> {
    if spirv.first() != Some(&0x0723_0203) {
        return Err(VulkanError::Invalid(
            "the module does not start with the SPIR-V magic number".into(),
        ));
    }
    let mut defs: HashMap<u32, &[u32]> = HashMap::new();
    let mut sets: HashMap<u32, u32> = HashMap::new();
    let mut bindings: HashMap<u32, u32> = HashMap::new();
    let mut buffer_blocks: Vec<u32> = Vec::new();
    // (pointer type, variable id, storage class)
    let mut variables: Vec<(u32, u32, u32)> = Vec::new();
    let mut at = 5;
    while at < spirv.len() {
        let count = (spirv[at] >> 16) as usize;
        let Some(inst) = spirv
            .get(at..at.saturating_add(count))
            .filter(|_| count > 0)
        else {
            return Err(VulkanError::Invalid(format!(
                "the SPIR-V module's instruction at word {at} has a bad word count"
            )));
        };
        at += count;
        let w = |i: usize| inst.get(i).copied().unwrap_or(0);
        match inst[0] & 0xffff {
            OP_FUNCTION => break,
            OP_DECORATE => match w(2) {
                DECORATION_DESCRIPTOR_SET => {
                    sets.insert(w(1), w(3));
                }
                DECORATION_BINDING => {
                    bindings.insert(w(1), w(3));
                }
                DECORATION_BUFFER_BLOCK => buffer_blocks.push(w(1)),
                _ => {}
            },
            OP_VARIABLE => variables.push((w(1), w(2), w(3))),
            OP_CONSTANT => {
                defs.insert(w(2), inst);
            }
            OP_TYPE_IMAGE
            | OP_TYPE_SAMPLER
            | OP_TYPE_SAMPLED_IMAGE
            | OP_TYPE_ARRAY
            | OP_TYPE_RUNTIME_ARRAY
            | OP_TYPE_POINTER => {
                defs.insert(w(1), inst);
            }
            _ => {}
        }
    }
    let push_constants = variables
        .iter()
        .any(|&(_, _, storage)| storage == STORAGE_PUSH_CONSTANT);
    let mut out = Vec::new();
    for &(pointer, id, storage) in &variables {
        let (Some(&set), Some(&binding)) = (sets.get(&id), bindings.get(&id)) else {
            continue;
        };
        let Some(mut ty) = defs
            .get(&pointer)
            .filter(|p| p[0] & 0xffff == OP_TYPE_POINTER)
            .and_then(|p| p.get(3).copied())
        else {
            continue;
        };
        // Arrays of descriptors.
        let mut count = 1;
        while let Some(def) = defs.get(&ty) {
            match def[0] & 0xffff {
                OP_TYPE_ARRAY => {
                    count = def
                        .get(3)
                        .and_then(|len| defs.get(len))
                        .and_then(|c| c.get(3).copied())
                        .unwrap_or(1);
                    ty = def.get(2).copied().unwrap_or(0);
                }
                OP_TYPE_RUNTIME_ARRAY => {
                    count = RUNTIME_ARRAY_DESCRIPTORS;
                    ty = def.get(2).copied().unwrap_or(0);
                }
                _ => break,
            }
        }
        let descriptor = match storage {
            STORAGE_STORAGE_BUFFER => vk::DescriptorType::STORAGE_BUFFER,
            STORAGE_UNIFORM if buffer_blocks.contains(&ty) => vk::DescriptorType::STORAGE_BUFFER,
            STORAGE_UNIFORM => vk::DescriptorType::UNIFORM_BUFFER,
            STORAGE_UNIFORM_CONSTANT => match defs.get(&ty) {
                Some(def) if def[0] & 0xffff == OP_TYPE_SAMPLER => vk::DescriptorType::SAMPLER,
                Some(def) if def[0] & 0xffff == OP_TYPE_SAMPLED_IMAGE => {
                    vk::DescriptorType::COMBINED_IMAGE_SAMPLER
                }
                Some(def) if def[0] & 0xffff == OP_TYPE_IMAGE => {
                    let (dim, sampled) = (def.get(3).copied(), def.get(7).copied());
                    match (dim, sampled) {
                        (Some(DIM_BUFFER), Some(2)) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                        (Some(DIM_BUFFER), _) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                        (Some(DIM_SUBPASS_DATA), _) => vk::DescriptorType::INPUT_ATTACHMENT,
                        (_, Some(2)) => vk::DescriptorType::STORAGE_IMAGE,
                        _ => vk::DescriptorType::SAMPLED_IMAGE,
                    }
                }
                _ => continue,
            },
            _ => continue,
        };
        out.push(Declared {
            set,
            binding,
            ty: descriptor,
            count: count.max(1),
        });
    }
    Ok((out, push_constants))
}

/// The Vulkan objects made for one timing, destroyed on drop.
struct Objects<'a> {
    device: &'a ash::Device,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    shader: vk::ShaderModule,
    pipeline: vk::Pipeline,
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        // SAFETY: every handle was made on this device (or is null) and nothing uses it.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_shader_module(self.shader, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            for &l in &self.set_layouts {
                self.device.destroy_descriptor_set_layout(l, None);
            }
        }
    }
}

impl Context {
    /// Creates a compute pipeline of the module `spirv` (entry point `main`) and returns how
    /// long `vkCreateComputePipelines` took (no pipeline cache), destroying everything after.
    ///
    /// The pipeline layout has one set layout per set up to the highest the module declares,
    /// each binding the module declares with its descriptor type and array size (a runtime
    /// array as 16 partially bound descriptors), and, when the module declares push
    /// constants, one compute range of the device's whole push-constant size. A driver's own
    /// shader cache (lavapipe's on-disk cache) is not disabled here: disable it in the
    /// environment (`MESA_SHADER_CACHE_DISABLE=true`) before the context is made.
    pub fn time_compute_pipeline(&self, spirv: &[u32]) -> Result<Duration, VulkanError> {
        let (declared, push_constants) = declared_descriptors(spirv)?;
        let d = &self.device;
        let mut objects = Objects {
            device: d,
            set_layouts: Vec::new(),
            layout: vk::PipelineLayout::null(),
            shader: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
        };
        let set_count = declared.iter().map(|b| b.set + 1).max().unwrap_or(0);
        for set in 0..set_count {
            let mut entries: Vec<vk::DescriptorSetLayoutBinding<'_>> = Vec::new();
            for b in declared.iter().filter(|b| b.set == set) {
                if entries.iter().any(|e| e.binding == b.binding) {
                    continue; // aliased declarations of one binding
                }
                entries.push(
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(b.ty)
                        .descriptor_count(b.count)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE),
                );
            }
            let flags: Vec<vk::DescriptorBindingFlags> = entries
                .iter()
                .map(|e| {
                    if e.descriptor_count > 1 {
                        vk::DescriptorBindingFlags::PARTIALLY_BOUND
                    } else {
                        vk::DescriptorBindingFlags::empty()
                    }
                })
                .collect();
            let mut flags_info =
                vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
            let mut info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&entries);
            if entries.iter().any(|e| e.descriptor_count > 1) {
                info = info.push_next(&mut flags_info);
            }
            // SAFETY: a valid create info; the layout is destroyed by `objects`.
            let layout = unsafe { d.create_descriptor_set_layout(&info, None) }
                .map_err(VulkanError::call("vkCreateDescriptorSetLayout"))?;
            objects.set_layouts.push(layout);
        }
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(self.limits.max_push_constants_size)];
        let mut layout_info =
            vk::PipelineLayoutCreateInfo::default().set_layouts(&objects.set_layouts);
        if push_constants {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        // SAFETY: the set layouts are live.
        objects.layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(VulkanError::call("vkCreatePipelineLayout"))?;
        let info = vk::ShaderModuleCreateInfo::default().code(spirv);
        // SAFETY: the code is a SPIR-V module (magic checked); destroyed by `objects`.
        objects.shader = unsafe { d.create_shader_module(&info, None) }
            .map_err(VulkanError::call("vkCreateShaderModule"))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(objects.shader)
            .name(c"main");
        let pipeline_info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(objects.layout)];
        let start = Instant::now();
        // SAFETY: the module and layout are live; the create info lives across the call.
        let created =
            unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None) };
        let elapsed = start.elapsed();
        match created {
            Ok(pipelines) => {
                objects.pipeline = pipelines.first().copied().unwrap_or_default();
                Ok(elapsed)
            }
            Err((pipelines, result)) => {
                for p in pipelines {
                    // SAFETY: failed creations return null handles, which destroy ignores.
                    unsafe { d.destroy_pipeline(p, None) };
                }
                Err(VulkanError::Call {
                    function: "vkCreateComputePipelines",
                    result,
                })
            }
        }
    }
}
