//! Recording, submitting and waiting for one compute dispatch, and reading results back.

use ash::vk;

use super::image::{self, HostImage};
use super::memory::{self, HostBuffer, Owned};
use super::{pipeline, Binding, Context, Resource, VulkanError};

/// What was created for one binding.
#[derive(Clone, Copy)]
enum Prepared {
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
        let mut owned = Owned::new(&self.device);
        pipeline::create_set_layouts(self, &mut owned, bindings)?;
        pipeline::create_pipeline(self, &mut owned, spirv, specialization)?;
        let prepared = self.create_resources(&mut owned, bindings)?;
        let sets = self.write_descriptors(&mut owned, bindings, &prepared)?;
        self.submit(&mut owned, &sets, &prepared, groups)?;
        for (binding, prepared) in bindings.iter_mut().zip(&prepared) {
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
    fn create_resources(
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
                Resource::StorageImage2D { .. } | Resource::SampledImage2D { .. } => {
                    let storage = b.resource.is_writable();
                    let shape = b.resource.image().ok_or_else(|| {
                        VulkanError::Invalid("an image resource without a shape".into())
                    })?;
                    let host = image::create_image(self, owned, shape, storage, b.resource.data())
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
            if let Resource::UniformBuffer(_) = b.resource {
                let max = usize::try_from(self.limits.max_uniform_buffer_range).unwrap_or(0);
                if data.len() > max {
                    return Err(context(VulkanError::Invalid(format!(
                        "a uniform buffer of {} bytes exceeds the device's limit of {max}",
                        data.len()
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
    fn write_descriptors(
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
                    .count();
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
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(self.queue_family)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        // SAFETY: a valid create info; the pool is recorded for destruction.
        owned.command_pool = unsafe { d.create_command_pool(&pool_info, None) }
            .map_err(VulkanError::call("vkCreateCommandPool"))?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(owned.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is live; the command buffer dies with it.
        let cmd = unsafe { d.allocate_command_buffers(&alloc) }
            .map_err(VulkanError::call("vkAllocateCommandBuffers"))?
            .first()
            .copied()
            .ok_or_else(|| VulkanError::Invalid("no command buffer allocated".into()))?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        let images: Vec<HostImage> = prepared
            .iter()
            .filter_map(|p| match p {
                Prepared::Image(image) => Some(*image),
                _ => None,
            })
            .collect();
        let barrier = |image: &HostImage,
                       from: vk::ImageLayout,
                       to: vk::ImageLayout,
                       src: vk::AccessFlags,
                       dst: vk::AccessFlags| {
            vk::ImageMemoryBarrier::default()
                .image(image.image)
                .subresource_range(image::color_range())
                .old_layout(from)
                .new_layout(to)
                .src_access_mask(src)
                .dst_access_mask(dst)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        };
        let to_transfer: Vec<_> = images
            .iter()
            .map(|i| {
                barrier(
                    i,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::TRANSFER_WRITE,
                )
            })
            .collect();
        let to_shader: Vec<_> = images
            .iter()
            .map(|i| {
                barrier(
                    i,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    i.shader_layout(),
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                )
            })
            .collect();
        let written: Vec<HostImage> = images.iter().copied().filter(|i| i.storage).collect();
        let to_readback: Vec<_> = written
            .iter()
            .map(|i| {
                barrier(
                    i,
                    vk::ImageLayout::GENERAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::AccessFlags::SHADER_WRITE,
                    vk::AccessFlags::TRANSFER_READ,
                )
            })
            .collect();
        let to_host = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: recording into a fresh command buffer with live pipeline, layout and sets.
        unsafe {
            d.begin_command_buffer(cmd, &begin)
                .map_err(VulkanError::call("vkBeginCommandBuffer"))?;
            if !images.is_empty() {
                d.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_transfer,
                );
                for i in &images {
                    d.cmd_copy_buffer_to_image(
                        cmd,
                        i.staging.buffer,
                        i.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &[i.copy_region()],
                    );
                }
                d.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_shader,
                );
            }
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, owned.pipeline);
            if !sets.is_empty() {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    owned.pipeline_layout,
                    0,
                    sets,
                    &[],
                );
            }
            d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
            if !written.is_empty() {
                d.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_readback,
                );
                for i in &written {
                    d.cmd_copy_image_to_buffer(
                        cmd,
                        i.image,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        i.staging.buffer,
                        &[i.copy_region()],
                    );
                }
            }
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &to_host,
                &[],
                &[],
            );
            d.end_command_buffer(cmd)
                .map_err(VulkanError::call("vkEndCommandBuffer"))?;
        }
        // SAFETY: a valid create info; the fence is recorded for destruction.
        owned.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(VulkanError::call("vkCreateFence"))?;
        let cmds = [cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        let _guard = self
            .queue_lock
            .lock()
            .map_err(|_| VulkanError::Invalid("the queue lock is poisoned".into()))?;
        // SAFETY: the command buffer is fully recorded; the lock gives this thread the queue.
        unsafe {
            d.queue_submit(self.queue, &submit, owned.fence)
                .map_err(VulkanError::call("vkQueueSubmit"))?;
            owned.submitted = true;
            d.wait_for_fences(&[owned.fence], true, u64::MAX)
                .map_err(VulkanError::call("vkWaitForFences"))?;
        }
        Ok(())
    }
}
