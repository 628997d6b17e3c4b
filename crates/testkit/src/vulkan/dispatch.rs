//! Recording, submitting and waiting for one compute dispatch, and reading results back.

use ash::vk;

use super::image::{self, HostImage, ImageRole};
use super::memory::{self, HostBuffer, Owned};
use super::{interface, pipeline, Binding, Context, Resource, VulkanError};

/// What was created for one binding.
#[derive(Clone, Copy)]
pub(super) enum Prepared {
    /// A buffer, with its texel-buffer view (null for plain buffers).
    Buffer(HostBuffer, vk::BufferView),
    /// An image with its staging buffer.
    Image(HostImage),
    /// A sampler.
    Sampler(vk::Sampler),
}

impl Context {
    /// Runs the compute module `spirv` (entry point `main`) over `groups` workgroups with
    /// `bindings`, then reads every writable resource back into its `Vec`.
    pub fn dispatch(
        &self,
        spirv: &[u32],
        bindings: &mut [Binding],
        groups: [u32; 3],
    ) -> Result<(), VulkanError> {
        self.dispatch_specialized(spirv, bindings, groups, &[])
    }

    /// [`Context::dispatch`] with specialization constants given as `(constant id, value)`.
    pub fn dispatch_specialized(
        &self,
        spirv: &[u32],
        bindings: &mut [Binding],
        groups: [u32; 3],
        specialization: &[(u32, u32)],
    ) -> Result<(), VulkanError> {
        for (&count, &max) in groups.iter().zip(&self.limits.max_compute_work_group_count) {
            if count > max {
                return Err(VulkanError::Invalid(format!(
                    "{count} workgroups exceed the device's limit of {max}"
                )));
            }
        }
        interface::check_modules(&[(spirv, interface::Model::Compute)], bindings, 0)?;
        let mut owned = Owned::new(&self.device);
        pipeline::create_set_layouts(self, &mut owned, bindings)?;
        pipeline::create_pipeline(self, &mut owned, spirv, specialization)?;
        let prepared = self.create_resources(&mut owned, bindings)?;
        let sets = self.write_descriptors(&mut owned, bindings, &prepared)?;
        self.submit(&mut owned, &sets, &prepared, groups)?;
        self.read_back_bindings(bindings, &prepared)
    }

    /// Copies every writable binding's memory back into its `Vec`.
    pub(super) fn read_back_bindings(
        &self,
        bindings: &mut [Binding],
        prepared: &[Prepared],
    ) -> Result<(), VulkanError> {
        for (binding, prepared) in bindings.iter_mut().zip(prepared) {
            if !binding.resource.is_writable() {
                continue;
            }
            let host = match prepared {
                Prepared::Buffer(host, _) => *host,
                Prepared::Image(image) => image.staging,
                Prepared::Sampler(_) => continue,
            };
            if let Some(data) = binding.resource.data_mut() {
                memory::read(self, host, data)?;
            }
        }
        Ok(())
    }

    /// Creates each binding's buffer (and texel-buffer view) holding its data.
    pub(super) fn create_resources(
        &self,
        owned: &mut Owned<'_>,
        bindings: &[Binding],
    ) -> Result<Vec<Prepared>, VulkanError> {
        let mut out = Vec::with_capacity(bindings.len());
        for b in bindings {
            let context = |e: VulkanError| match e {
                VulkanError::Invalid(why) => {
                    VulkanError::Invalid(format!("set {} binding {}: {why}", b.set, b.binding))
                }
                other => other,
            };
            let usage = match &b.resource {
                Resource::StorageImage { .. } | Resource::SampledImage { .. } => {
                    let role = if b.resource.is_writable() {
                        ImageRole::Storage
                    } else {
                        ImageRole::Sampled
                    };
                    let shape = b.resource.image().ok_or_else(|| {
                        VulkanError::Invalid("an image resource without a shape".into())
                    })?;
                    let host = image::create_image(self, owned, *shape, role, b.resource.data())
                        .map_err(context)?;
                    out.push(Prepared::Image(host));
                    continue;
                }
                Resource::Sampler(desc) => {
                    out.push(Prepared::Sampler(image::create_sampler(
                        self, owned, *desc,
                    )?));
                    continue;
                }
                Resource::StorageBuffer(_) => vk::BufferUsageFlags::STORAGE_BUFFER,
                Resource::UniformBuffer(_) => vk::BufferUsageFlags::UNIFORM_BUFFER,
                Resource::StorageTexelBuffer { .. } => vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER,
                Resource::UniformTexelBuffer { .. } => vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
            };
            let data = b.resource.data();
            let limit = match &b.resource {
                Resource::UniformBuffer(_) => {
                    Some(("a uniform buffer", self.limits.max_uniform_buffer_range, 1))
                }
                Resource::StorageBuffer(_) => {
                    Some(("a storage buffer", self.limits.max_storage_buffer_range, 1))
                }
                Resource::StorageTexelBuffer { format, .. }
                | Resource::UniformTexelBuffer { format, .. } => Some((
                    "a texel buffer",
                    self.limits.max_texel_buffer_elements,
                    format.texel_size(),
                )),
                _ => None,
            };
            if let Some((what, max, unit)) = limit {
                let max = usize::try_from(max).unwrap_or(usize::MAX);
                if data.len() / unit > max {
                    let units = if unit == 1 { "bytes" } else { "texels" };
                    return Err(context(VulkanError::Invalid(format!(
                        "{what} of {} {units} exceeds the device's limit of {max}",
                        data.len() / unit
                    ))));
                }
            }
            let host = memory::create_buffer(self, owned, usage, data).map_err(context)?;
            let view = match b.resource.texel_format() {
                Some(format) => {
                    let texel = format.texel_size();
                    if data.len() % texel != 0 {
                        return Err(context(VulkanError::Invalid(format!(
                            "{} bytes are not a whole number of {texel}-byte texels",
                            data.len()
                        ))));
                    }
                    let info = vk::BufferViewCreateInfo::default()
                        .buffer(host.buffer)
                        .format(format.vk())
                        .offset(0)
                        .range(vk::WHOLE_SIZE);
                    // SAFETY: the buffer is live and has a texel-buffer usage.
                    let view = unsafe { self.device.create_buffer_view(&info, None) }
                        .map_err(VulkanError::call("vkCreateBufferView"))?;
                    owned.buffer_views.push(view);
                    view
                }
                None => vk::BufferView::null(),
            };
            out.push(Prepared::Buffer(host, view));
        }
        Ok(out)
    }

    /// Allocates one descriptor set per layout and writes every binding into it.
    pub(super) fn write_descriptors(
        &self,
        owned: &mut Owned<'_>,
        bindings: &[Binding],
        prepared: &[Prepared],
    ) -> Result<Vec<vk::DescriptorSet>, VulkanError> {
        if owned.set_layouts.is_empty() {
            return Ok(Vec::new());
        }
        let d = &self.device;
        let types = [
            vk::DescriptorType::STORAGE_BUFFER,
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            vk::DescriptorType::STORAGE_IMAGE,
            vk::DescriptorType::SAMPLED_IMAGE,
            vk::DescriptorType::SAMPLER,
        ];
        let sizes: Vec<vk::DescriptorPoolSize> = types
            .iter()
            .filter_map(|&ty| {
                let n = bindings
                    .iter()
                    .filter(|b| b.resource.descriptor_type() == ty)
                    .map(|b| {
                        usize::try_from(b.element.saturating_add(1).max(b.array_size)).unwrap_or(0)
                    })
                    .sum::<usize>();
                let n = u32::try_from(n).ok().filter(|&n| n > 0)?;
                Some(vk::DescriptorPoolSize::default().ty(ty).descriptor_count(n))
            })
            .collect();
        let max_sets = u32::try_from(owned.set_layouts.len())
            .map_err(|_| VulkanError::Invalid("too many descriptor sets".into()))?;
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(max_sets)
            .pool_sizes(&sizes);
        // SAFETY: a valid create info; the pool is recorded for destruction.
        owned.descriptor_pool = unsafe { d.create_descriptor_pool(&pool_info, None) }
            .map_err(VulkanError::call("vkCreateDescriptorPool"))?;
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(owned.descriptor_pool)
            .set_layouts(&owned.set_layouts);
        // SAFETY: the pool has room for one set per layout; sets die with the pool.
        let sets = unsafe { d.allocate_descriptor_sets(&alloc) }
            .map_err(VulkanError::call("vkAllocateDescriptorSets"))?;

        let mut buffer_infos = Vec::with_capacity(prepared.len());
        let mut image_infos = Vec::with_capacity(prepared.len());
        let mut views = Vec::with_capacity(prepared.len());
        for p in prepared {
            let (buffer, view, image) = match p {
                Prepared::Buffer(host, view) => (
                    vk::DescriptorBufferInfo::default()
                        .buffer(host.buffer)
                        .range(host.size),
                    *view,
                    vk::DescriptorImageInfo::default(),
                ),
                Prepared::Image(host) => (
                    vk::DescriptorBufferInfo::default(),
                    vk::BufferView::null(),
                    vk::DescriptorImageInfo::default()
                        .image_view(host.view)
                        .image_layout(host.shader_layout()),
                ),
                Prepared::Sampler(sampler) => (
                    vk::DescriptorBufferInfo::default(),
                    vk::BufferView::null(),
                    vk::DescriptorImageInfo::default().sampler(*sampler),
                ),
            };
            buffer_infos.push([buffer]);
            views.push([view]);
            image_infos.push([image]);
        }
        let mut writes = Vec::with_capacity(bindings.len());
        for (i, b) in bindings.iter().enumerate() {
            let set = usize::try_from(b.set)
                .ok()
                .and_then(|s| sets.get(s))
                .copied()
                .ok_or_else(|| VulkanError::Invalid(format!("no descriptor set {}", b.set)))?;
            let missing = || VulkanError::Invalid(format!("binding {i} was not prepared"));
            let write = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(b.binding)
                .dst_array_element(b.element)
                .descriptor_type(b.resource.descriptor_type());
            writes.push(match prepared.get(i).ok_or_else(missing)? {
                Prepared::Buffer(_, _) if b.resource.texel_format().is_some() => {
                    write.texel_buffer_view(views.get(i).ok_or_else(missing)?)
                }
                Prepared::Buffer(_, _) => {
                    write.buffer_info(buffer_infos.get(i).ok_or_else(missing)?)
                }
                Prepared::Image(_) | Prepared::Sampler(_) => {
                    write.image_info(image_infos.get(i).ok_or_else(missing)?)
                }
            });
        }
        // SAFETY: every write names a live set, binding, buffer or view of the right type.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        Ok(sets)
    }

    /// Records the dispatch, submits it and waits for it to finish.
    fn submit(
        &self,
        owned: &mut Owned<'_>,
        sets: &[vk::DescriptorSet],
        prepared: &[Prepared],
        groups: [u32; 3],
    ) -> Result<(), VulkanError> {
        let d = &self.device;
        let cmd = self.begin_commands(owned)?;
        let images = prepared_images(prepared);
        self.record_uploads(cmd, &images)?;
        self.record_bind(cmd, vk::PipelineBindPoint::COMPUTE, owned, sets);
        // SAFETY: a command buffer in the recording state with a compute pipeline bound.
        unsafe { d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]) };
        self.record_readbacks(cmd, &images);
        self.submit_and_wait(owned, cmd)
    }
}

/// The images among the prepared bindings.
pub(super) fn prepared_images(prepared: &[Prepared]) -> Vec<HostImage> {
    prepared
        .iter()
        .filter_map(|p| match p {
            Prepared::Image(image) => Some(*image),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A storage buffer larger than the device's `maxStorageBufferRange` is refused before
    /// it is bound (lavapipe ran such a dispatch, outside the device's limits).
    #[test]
    fn buffers_beyond_the_device_limits_are_refused() {
        let context = Context::new().expect("a Vulkan device (lavapipe)");
        let max = context.limits.max_storage_buffer_range;
        if max > 1 << 29 {
            eprintln!(
                "NOT CHECKED: this device's storage-buffer range ({max} bytes) is too large \
                 to exceed in a test"
            );
            return;
        }
        let text = "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\n\
                    store_raw u0.x, l(0), l(7)\nret\n";
        let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
        let spirv = dxbc2spirv::translate_bytes(&bytes, &Default::default())
            .expect("translates")
            .words;
        let size = usize::try_from(max).expect("size") + 4;
        let mut bindings = [Binding::new(0, 160, Resource::StorageBuffer(vec![0; size]))];
        let err = context
            .dispatch(&spirv, &mut bindings, [1, 1, 1])
            .expect_err("beyond the limit");
        assert!(
            err.to_string().contains("exceeds the device's limit"),
            "{text}: {err}"
        );
    }
}
