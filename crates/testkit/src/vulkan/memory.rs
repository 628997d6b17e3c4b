//! Per-dispatch object ownership, buffers and their host-visible memory.

use ash::vk;

use super::{Context, VulkanError};

/// Every Vulkan object created for one dispatch; all are destroyed on drop, in dependency
/// order, so no error path leaks.
pub(super) struct Owned<'a> {
    pub(super) device: &'a ash::Device,
    pub(super) buffers: Vec<vk::Buffer>,
    pub(super) memories: Vec<vk::DeviceMemory>,
    pub(super) buffer_views: Vec<vk::BufferView>,
    pub(super) images: Vec<vk::Image>,
    pub(super) image_views: Vec<vk::ImageView>,
    pub(super) samplers: Vec<vk::Sampler>,
    pub(super) shaders: Vec<vk::ShaderModule>,
    pub(super) render_pass: vk::RenderPass,
    pub(super) framebuffer: vk::Framebuffer,
    pub(super) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(super) pipeline_layout: vk::PipelineLayout,
    pub(super) pipeline: vk::Pipeline,
    pub(super) descriptor_pool: vk::DescriptorPool,
    pub(super) command_pool: vk::CommandPool,
    pub(super) fence: vk::Fence,
    /// True once `fence` was submitted with the command buffer (drop waits for it).
    pub(super) submitted: bool,
}

impl<'a> Owned<'a> {
    pub(super) fn new(device: &'a ash::Device) -> Self {
        Owned {
            device,
            buffers: Vec::new(),
            memories: Vec::new(),
            buffer_views: Vec::new(),
            images: Vec::new(),
            image_views: Vec::new(),
            samplers: Vec::new(),
            shaders: Vec::new(),
            render_pass: vk::RenderPass::null(),
            framebuffer: vk::Framebuffer::null(),
            set_layouts: Vec::new(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            command_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
            submitted: false,
        }
    }
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        let d = self.device;
        // SAFETY: the objects were created on `d`; waiting for the submission's fence first
        // guarantees none is in use (on an error path the wait may not have happened yet).
        // The queue itself is not touched, so other threads' submissions are not disturbed.
        // Destroying a null handle is a no-op.
        unsafe {
            if self.submitted {
                let _ = d.wait_for_fences(&[self.fence], true, u64::MAX);
            }
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.command_pool, None);
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_framebuffer(self.framebuffer, None);
            d.destroy_render_pass(self.render_pass, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            for &layout in &self.set_layouts {
                d.destroy_descriptor_set_layout(layout, None);
            }
            for &shader in &self.shaders {
                d.destroy_shader_module(shader, None);
            }
            for &sampler in &self.samplers {
                d.destroy_sampler(sampler, None);
            }
            for &view in &self.image_views {
                d.destroy_image_view(view, None);
            }
            for &image in &self.images {
                d.destroy_image(image, None);
            }
            for &view in &self.buffer_views {
                d.destroy_buffer_view(view, None);
            }
            for &buffer in &self.buffers {
                d.destroy_buffer(buffer, None);
            }
            for &memory in &self.memories {
                d.free_memory(memory, None);
            }
        }
    }
}

/// A buffer bound to its own host-visible, host-coherent memory.
#[derive(Clone, Copy)]
pub(super) struct HostBuffer {
    pub(super) buffer: vk::Buffer,
    pub(super) memory: vk::DeviceMemory,
    pub(super) size: vk::DeviceSize,
}

/// The first memory type allowed by `bits` with all of `wanted`.
pub(super) fn memory_type(
    ctx: &Context,
    bits: u32,
    wanted: vk::MemoryPropertyFlags,
) -> Result<u32, VulkanError> {
    let count = usize::try_from(ctx.memory.memory_type_count).unwrap_or(0);
    ctx.memory
        .memory_types
        .iter()
        .take(count)
        .zip(0u32..)
        .find(|(t, i)| {
            bits.checked_shr(*i).is_some_and(|b| b & 1 == 1) && t.property_flags.contains(wanted)
        })
        .map(|(_, i)| i)
        .ok_or_else(|| {
            VulkanError::Invalid(format!("no memory type with {wanted:?} for a resource"))
        })
}

/// Creates a buffer of `data.len()` bytes with `usage`, in host-visible memory, holding `data`.
pub(super) fn create_buffer(
    ctx: &Context,
    owned: &mut Owned<'_>,
    usage: vk::BufferUsageFlags,
    data: &[u8],
) -> Result<HostBuffer, VulkanError> {
    let size = vk::DeviceSize::try_from(data.len())
        .map_err(|_| VulkanError::Invalid("buffer too large".into()))?;
    if size == 0 {
        return Err(VulkanError::Invalid(
            "a buffer must hold at least one byte".into(),
        ));
    }
    let d = &ctx.device;
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: a valid create info on a live device; the buffer is recorded for destruction.
    let buffer =
        unsafe { d.create_buffer(&info, None) }.map_err(VulkanError::call("vkCreateBuffer"))?;
    owned.buffers.push(buffer);
    // SAFETY: `buffer` is live.
    let requirements = unsafe { d.get_buffer_memory_requirements(buffer) };
    let alloc = vk::MemoryAllocateInfo::default()
        .allocation_size(requirements.size)
        .memory_type_index(memory_type(
            ctx,
            requirements.memory_type_bits,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?);
    // SAFETY: as above; the memory is recorded for freeing.
    let memory = unsafe { d.allocate_memory(&alloc, None) }
        .map_err(VulkanError::call("vkAllocateMemory"))?;
    owned.memories.push(memory);
    // SAFETY: fresh buffer and memory of a sufficient size and a compatible type.
    unsafe { d.bind_buffer_memory(buffer, memory, 0) }
        .map_err(VulkanError::call("vkBindBufferMemory"))?;
    let host = HostBuffer {
        buffer,
        memory,
        size,
    };
    write(ctx, host, data)?;
    Ok(host)
}

/// Maps the buffer's memory, calls `copy` with the mapped pointer and the number of bytes to
/// copy (`len`, capped at the buffer's size), and unmaps it.
fn with_mapped(
    ctx: &Context,
    host: HostBuffer,
    len: usize,
    copy: impl FnOnce(*mut u8, usize),
) -> Result<(), VulkanError> {
    let d = &ctx.device;
    // SAFETY: the memory is host visible and coherent, not mapped elsewhere, and at least
    // `size` bytes; the device has finished with it (submissions are waited for).
    let ptr = unsafe { d.map_memory(host.memory, 0, host.size, vk::MemoryMapFlags::empty()) }
        .map_err(VulkanError::call("vkMapMemory"))?;
    copy(
        ptr.cast::<u8>(),
        len.min(usize::try_from(host.size).unwrap_or(usize::MAX)),
    );
    // SAFETY: mapped above.
    unsafe { d.unmap_memory(host.memory) };
    Ok(())
}

/// Copies `data` (at most the buffer's size) into the buffer's memory.
pub(super) fn write(ctx: &Context, host: HostBuffer, data: &[u8]) -> Result<(), VulkanError> {
    with_mapped(ctx, host, data.len(), |ptr, len| {
        // SAFETY: `ptr` points to at least `len` mapped bytes and `data` holds `len` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, len) }
    })
}

/// Copies the buffer's memory back into `data` (up to `data.len()` bytes).
pub(super) fn read(ctx: &Context, host: HostBuffer, data: &mut [u8]) -> Result<(), VulkanError> {
    with_mapped(ctx, host, data.len(), |ptr, len| {
        // SAFETY: `ptr` points to at least `len` mapped bytes and `data` has room for `len`.
        unsafe { std::ptr::copy_nonoverlapping(ptr, data.as_mut_ptr(), len) }
    })
}
