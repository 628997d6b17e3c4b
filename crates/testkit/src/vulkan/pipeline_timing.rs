//! Timing the creation of a compute pipeline (`vkCreateComputePipelines`), for
//! `cargo xtask bench`: how long the driver takes to compile a module, with a pipeline layout
//! made from the descriptors the module uses, no resources bound and nothing dispatched.

use std::time::{Duration, Instant};

use ash::vk;

use super::{Context, VulkanError};

/// The descriptors of a runtime array in the layout.
const RUNTIME_ARRAY_DESCRIPTORS: u32 = 16;

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
    /// The pipeline layout has one set layout per set up to the highest the module uses,
    /// each binding the module's functions use with its descriptor type and array size (a runtime
    /// array as 16 partially bound descriptors), and, when the module declares push
    /// constants, one compute range of the device's whole push-constant size. A driver's own
    /// shader cache (lavapipe's on-disk cache) is not disabled here: disable it in the
    /// environment (`MESA_SHADER_CACHE_DISABLE=true`) before the context is made.
    pub fn time_compute_pipeline(&self, spirv: &[u32]) -> Result<Duration, VulkanError> {
        // The descriptors the module's functions use (see `interface`).
        let interface = super::interface::scan(spirv)?;
        let declared = &interface.used;
        let push_constants = interface.push_constants;
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
                        .descriptor_count(b.count.unwrap_or(RUNTIME_ARRAY_DESCRIPTORS).max(1))
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
