//! Shader module, descriptor set layouts, pipeline layout and compute pipeline.

use ash::vk;

use super::memory::Owned;
use super::{Binding, Context, VulkanError};

/// Creates one descriptor set layout per set from 0 to the highest set used (sets with no
/// binding get an empty layout), visible to every stage.
pub(super) fn create_set_layouts(
    ctx: &Context,
    owned: &mut Owned<'_>,
    bindings: &[Binding],
) -> Result<(), VulkanError> {
    let set_count = bindings
        .iter()
        .map(|b| b.set.saturating_add(1))
        .max()
        .unwrap_or(0);
    if set_count > ctx.limits.max_bound_descriptor_sets {
        return Err(VulkanError::Invalid(format!(
            "descriptor set {} is beyond the device's {} bound sets",
            set_count.saturating_sub(1),
            ctx.limits.max_bound_descriptor_sets
        )));
    }
    for (i, a) in bindings.iter().enumerate() {
        for b in bindings.iter().skip(i.saturating_add(1)) {
            if (a.set, a.binding) != (b.set, b.binding) {
                continue;
            }
            if a.element == b.element {
                return Err(VulkanError::Invalid(format!(
                    "set {} binding {} element {} is bound twice",
                    a.set, a.binding, a.element
                )));
            }
            if a.resource.descriptor_type() != b.resource.descriptor_type() {
                return Err(VulkanError::Invalid(format!(
                    "set {} binding {} mixes descriptor types",
                    a.set, a.binding
                )));
            }
        }
    }
    for set in 0..set_count {
        // (binding, type, count) of every binding of the set.
        let mut arrays: Vec<(u32, vk::DescriptorType, u32)> = Vec::new();
        for b in bindings.iter().filter(|b| b.set == set) {
            let count = b.element.saturating_add(1).max(b.array_size);
            match arrays
                .iter_mut()
                .find(|(binding, _, _)| *binding == b.binding)
            {
                Some(entry) => entry.2 = entry.2.max(count),
                None => arrays.push((b.binding, b.resource.descriptor_type(), count)),
            }
        }
        let entries: Vec<vk::DescriptorSetLayoutBinding<'_>> = arrays
            .iter()
            .map(|&(binding, ty, count)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(ty)
                    .descriptor_count(count)
                    .stage_flags(vk::ShaderStageFlags::ALL)
            })
            .collect();
        let flags: Vec<vk::DescriptorBindingFlags> = arrays
            .iter()
            .map(|&(_, _, count)| {
                if count > 1 {
                    vk::DescriptorBindingFlags::PARTIALLY_BOUND
                } else {
                    vk::DescriptorBindingFlags::empty()
                }
            })
            .collect();
        let mut flags_info =
            vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
        let mut info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&entries);
        if arrays.iter().any(|&(_, _, count)| count > 1) {
            info = info.push_next(&mut flags_info);
        }
        // SAFETY: a valid create info; the layout is recorded for destruction.
        let layout = unsafe { ctx.device.create_descriptor_set_layout(&info, None) }
            .map_err(VulkanError::call("vkCreateDescriptorSetLayout"))?;
        owned.set_layouts.push(layout);
    }
    Ok(())
}

/// Creates the shader module, the pipeline layout (over `owned.set_layouts`) and the compute
/// pipeline for entry point `main` with the given specialization constants.
pub(super) fn create_pipeline(
    ctx: &Context,
    owned: &mut Owned<'_>,
    spirv: &[u32],
    specialization: &[(u32, u32)],
) -> Result<(), VulkanError> {
    let d = &ctx.device;
    let shader = create_shader(ctx, owned, spirv)?;
    create_pipeline_layout(ctx, owned, 0)?;
    let (map, data) = specialization_entries(specialization);
    let spec = vk::SpecializationInfo::default()
        .map_entries(&map)
        .data(&data);
    let mut stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(shader)
        .name(c"main");
    if !specialization.is_empty() {
        stage = stage.specialization_info(&spec);
    }
    let pipeline_info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(owned.pipeline_layout)];
    // SAFETY: the module and layout are live; the create info lives across the call.
    let created =
        unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None) };
    keep_pipeline(owned, created, "vkCreateComputePipelines")
}

/// Records the one pipeline a `vkCreate*Pipelines` call made in `owned`, or destroys what a
/// failed call returned and reports the failure.
pub(super) fn keep_pipeline(
    owned: &mut Owned<'_>,
    created: Result<Vec<vk::Pipeline>, (Vec<vk::Pipeline>, vk::Result)>,
    function: &'static str,
) -> Result<(), VulkanError> {
    match created {
        Ok(pipelines) => {
            owned.pipeline = pipelines.first().copied().unwrap_or_default();
            Ok(())
        }
        Err((pipelines, result)) => {
            for p in pipelines {
                // SAFETY: failed creations return null handles, which destroy ignores.
                unsafe { owned.device.destroy_pipeline(p, None) };
            }
            Err(VulkanError::Call { function, result })
        }
    }
}

/// Creates a shader module (recorded in `owned`) after checking the SPIR-V magic number.
pub(super) fn create_shader(
    ctx: &Context,
    owned: &mut Owned<'_>,
    spirv: &[u32],
) -> Result<vk::ShaderModule, VulkanError> {
    if spirv.first() != Some(&0x0723_0203) {
        return Err(VulkanError::Invalid(
            "the module does not start with the SPIR-V magic number".into(),
        ));
    }
    let info = vk::ShaderModuleCreateInfo::default().code(spirv);
    // SAFETY: the code is a SPIR-V module (magic checked); it is recorded for destruction.
    let shader = unsafe { ctx.device.create_shader_module(&info, None) }
        .map_err(VulkanError::call("vkCreateShaderModule"))?;
    owned.shaders.push(shader);
    Ok(shader)
}

/// Creates the pipeline layout over `owned.set_layouts`.
/// Creates the pipeline layout of `owned`'s set layouts, with one push-constant range of
/// `push_constant_bytes` from offset 0 for every graphics stage when that is not 0.
pub(super) fn create_pipeline_layout(
    ctx: &Context,
    owned: &mut Owned<'_>,
    push_constant_bytes: u32,
) -> Result<(), VulkanError> {
    let ranges = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::ALL_GRAPHICS)
        .offset(0)
        .size(push_constant_bytes)];
    let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&owned.set_layouts);
    if push_constant_bytes > 0 {
        layout_info = layout_info.push_constant_ranges(&ranges);
    }
    // SAFETY: the set layouts are live.
    owned.pipeline_layout = unsafe { ctx.device.create_pipeline_layout(&layout_info, None) }
        .map_err(VulkanError::call("vkCreatePipelineLayout"))?;
    Ok(())
}

/// The map entries and data of 32-bit specialization constants `(constant id, value)`.
pub(super) fn specialization_entries(
    specialization: &[(u32, u32)],
) -> (Vec<vk::SpecializationMapEntry>, Vec<u8>) {
    let mut map = Vec::with_capacity(specialization.len());
    let mut data = Vec::with_capacity(specialization.len().saturating_mul(4));
    for (&(id, value), offset) in specialization.iter().zip((0u32..).step_by(4)) {
        map.push(
            vk::SpecializationMapEntry::default()
                .constant_id(id)
                .offset(offset)
                .size(4),
        );
        data.extend_from_slice(&value.to_le_bytes());
    }
    (map, data)
}
