//! Command-buffer plumbing shared by dispatches and draws: beginning a one-time command
//! buffer, uploading images from their staging buffers, copying written images back, and
//! submitting and waiting.

use ash::vk;

use super::image::{HostImage, ImageRole};
use super::memory::Owned;
use super::{Context, KeptUse, VulkanError};

/// The accesses a role's image sees while the shader or render pass uses it.
fn accesses(role: ImageRole) -> vk::AccessFlags {
    match role {
        ImageRole::Sampled => vk::AccessFlags::SHADER_READ,
        ImageRole::Storage => vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
        ImageRole::Color => {
            vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE
        }
        ImageRole::Depth => {
            vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ
                | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE
        }
    }
}

/// A layout transition of a whole image.
fn barrier(
    image: &HostImage,
    (from, to): (vk::ImageLayout, vk::ImageLayout),
    (src, dst): (vk::AccessFlags, vk::AccessFlags),
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .image(image.image)
        .subresource_range(image.range())
        .old_layout(from)
        .new_layout(to)
        .src_access_mask(src)
        .dst_access_mask(dst)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
}

impl Context {
    /// Creates the command pool in `owned` and begins a one-time command buffer.
    pub(super) fn begin_commands(
        &self,
        owned: &mut Owned<'_>,
    ) -> Result<vk::CommandBuffer, VulkanError> {
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
        // SAFETY: a fresh command buffer from a live pool.
        unsafe { d.begin_command_buffer(cmd, &begin) }
            .map_err(VulkanError::call("vkBeginCommandBuffer"))?;
        Ok(cmd)
    }

    /// Records the upload of every image from its staging buffer and the transition into the
    /// layout its role uses.
    pub(super) fn record_uploads(
        &self,
        cmd: vk::CommandBuffer,
        images: &[HostImage],
    ) -> Result<(), VulkanError> {
        if images.is_empty() {
            return Ok(());
        }
        let d = &self.device;
        let to_transfer: Vec<_> = images
            .iter()
            .map(|i| {
                // A kept image continued holds its samples in TRANSFER_SRC_OPTIMAL.
                let before = match i.shape.kept {
                    Some(KeptUse::Continue(_)) => vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    _ => vk::ImageLayout::UNDEFINED,
                };
                barrier(
                    i,
                    (before, vk::ImageLayout::TRANSFER_DST_OPTIMAL),
                    (vk::AccessFlags::empty(), vk::AccessFlags::TRANSFER_WRITE),
                )
            })
            .collect();
        let to_use: Vec<_> = images
            .iter()
            .map(|i| {
                barrier(
                    i,
                    (vk::ImageLayout::TRANSFER_DST_OPTIMAL, i.shader_layout()),
                    (vk::AccessFlags::TRANSFER_WRITE, accesses(i.role)),
                )
            })
            .collect();
        // SAFETY: recording into a command buffer in the recording state; the images and
        // staging buffers are live and of matching sizes.
        unsafe {
            self.image_barriers(
                cmd,
                (
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                ),
                &to_transfer,
            );
            for i in images {
                if let Some(KeptUse::Continue(_)) = i.shape.kept {
                    continue;
                }
                if let Some(KeptUse::CopyOf(id)) = i.shape.kept {
                    self.record_copy_of_kept(cmd, id, i)?;
                } else if i.shape.samples > 1 {
                    // Multisampled images cannot be copied to: they start cleared to the
                    // value their (equal) texels hold.
                    d.cmd_clear_color_image(
                        cmd,
                        i.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &i.fill,
                        &[i.range()],
                    );
                } else {
                    d.cmd_copy_buffer_to_image(
                        cmd,
                        i.staging.buffer,
                        i.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &i.copy_regions(),
                    );
                }
            }
            self.image_barriers(
                cmd,
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::ALL_COMMANDS,
                ),
                &to_use,
            );
        }
        Ok(())
    }

    /// Records the copy of every written image back into its staging buffer, then makes all
    /// device writes visible to the host.
    pub(super) fn record_readbacks(&self, cmd: vk::CommandBuffer, images: &[HostImage]) {
        let d = &self.device;
        let written: Vec<HostImage> = images.iter().copied().filter(|i| i.read_back()).collect();
        let to_transfer: Vec<_> = written
            .iter()
            .map(|i| {
                barrier(
                    i,
                    (i.shader_layout(), vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
                    (accesses(i.role), vk::AccessFlags::TRANSFER_READ),
                )
            })
            .collect();
        let to_host = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: as in `record_uploads`.
        unsafe {
            if !written.is_empty() {
                self.image_barriers(
                    cmd,
                    (
                        vk::PipelineStageFlags::ALL_COMMANDS,
                        vk::PipelineStageFlags::TRANSFER,
                    ),
                    &to_transfer,
                );
                for i in &written {
                    let source = if i.resolve == vk::Image::null() {
                        i.image
                    } else {
                        self.record_resolve(cmd, i);
                        i.resolve
                    };
                    d.cmd_copy_image_to_buffer(
                        cmd,
                        source,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        i.staging.buffer,
                        &i.copy_regions(),
                    );
                }
            }
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &to_host,
                &[],
                &[],
            );
        }
    }

    /// Records one pipeline barrier of image layout transitions between two stages.
    fn image_barriers(
        &self,
        cmd: vk::CommandBuffer,
        (src, dst): (vk::PipelineStageFlags, vk::PipelineStageFlags),
        barriers: &[vk::ImageMemoryBarrier<'_>],
    ) {
        // SAFETY: a command buffer in the recording state; the barriers name live images.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                src,
                dst,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                barriers,
            )
        };
    }

    /// Records resolving a multisampled image (in `TRANSFER_SRC_OPTIMAL`) into its
    /// single-sample `resolve` image, left in `TRANSFER_SRC_OPTIMAL` for the copy.
    fn record_resolve(&self, cmd: vk::CommandBuffer, image: &HostImage) {
        let d = &self.device;
        let resolve = HostImage {
            image: image.resolve,
            ..*image
        };
        let layers = vk::ImageSubresourceLayers::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .layer_count(image.shape.layers);
        let region = vk::ImageResolve::default()
            .src_subresource(layers)
            .dst_subresource(layers)
            .extent(vk::Extent3D {
                width: image.shape.width,
                height: image.shape.height,
                depth: 1,
            });
        // SAFETY: a command buffer in the recording state; both images are live, of the same
        // format and size, the source multisampled and the destination single-sample.
        unsafe {
            self.image_barriers(
                cmd,
                (
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                ),
                &[barrier(
                    &resolve,
                    (
                        vk::ImageLayout::UNDEFINED,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    ),
                    (vk::AccessFlags::empty(), vk::AccessFlags::TRANSFER_WRITE),
                )],
            );
            d.cmd_resolve_image(
                cmd,
                image.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                image.resolve,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
            self.image_barriers(
                cmd,
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::TRANSFER,
                ),
                &[barrier(
                    &resolve,
                    (
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    ),
                    (
                        vk::AccessFlags::TRANSFER_WRITE,
                        vk::AccessFlags::TRANSFER_READ,
                    ),
                )],
            );
        }
    }

    /// Records binding `owned`'s pipeline and the descriptor sets at `point`.
    pub(super) fn record_bind(
        &self,
        cmd: vk::CommandBuffer,
        point: vk::PipelineBindPoint,
        owned: &Owned<'_>,
        sets: &[vk::DescriptorSet],
    ) {
        let d = &self.device;
        // SAFETY: a command buffer in the recording state; the pipeline, its layout and the
        // sets are live and were made for each other.
        unsafe {
            d.cmd_bind_pipeline(cmd, point, owned.pipeline);
            if !sets.is_empty() {
                d.cmd_bind_descriptor_sets(cmd, point, owned.pipeline_layout, 0, sets, &[]);
            }
        }
    }

    /// Ends the command buffer, submits it and waits for it to finish.
    pub(super) fn submit_and_wait(
        &self,
        owned: &mut Owned<'_>,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VulkanError> {
        let d = &self.device;
        // SAFETY: the command buffer is in the recording state.
        unsafe { d.end_command_buffer(cmd) }.map_err(VulkanError::call("vkEndCommandBuffer"))?;
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
