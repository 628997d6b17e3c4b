//! 2D images (with a staging buffer for upload and read-back) and samplers.

use ash::vk;

use super::memory::{self, HostBuffer, Owned};
use super::{AddressMode, Context, Filter, Format, SamplerDesc, VulkanError};

/// A created image, its view and the staging buffer holding its texels.
#[derive(Clone, Copy)]
pub(super) struct HostImage {
    pub(super) image: vk::Image,
    pub(super) view: vk::ImageView,
    pub(super) staging: HostBuffer,
    pub(super) width: u32,
    pub(super) height: u32,
    /// How the image is used.
    pub(super) role: ImageRole,
}

/// How an image is used by a dispatch or draw.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ImageRole {
    /// A sampled image (SRV texture).
    Sampled,
    /// A storage image (UAV texture): layout GENERAL, read back.
    Storage,
    /// A color attachment (render target): read back.
    Color,
    /// A depth attachment (32-bit float depth): read back.
    Depth,
}

impl ImageRole {
    /// The aspect of an image in this role.
    pub(super) fn aspect(self) -> vk::ImageAspectFlags {
        if self == ImageRole::Depth {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        }
    }

    /// The whole subresource range of a one-level, one-layer image in this role.
    pub(super) fn range(self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange::default()
            .aspect_mask(self.aspect())
            .level_count(1)
            .layer_count(1)
    }
}

impl HostImage {
    /// The layout the shader or the render pass sees the image in.
    pub(super) fn shader_layout(&self) -> vk::ImageLayout {
        match self.role {
            ImageRole::Sampled => vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            ImageRole::Storage => vk::ImageLayout::GENERAL,
            ImageRole::Color => vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            ImageRole::Depth => vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        }
    }

    /// True when the image is written by the GPU and read back afterwards.
    pub(super) fn read_back(&self) -> bool {
        self.role != ImageRole::Sampled
    }

    /// The whole subresource range (one level, one layer).
    pub(super) fn range(&self) -> vk::ImageSubresourceRange {
        self.role.range()
    }

    /// The region copied between the staging buffer and the image.
    pub(super) fn copy_region(&self) -> vk::BufferImageCopy {
        vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(self.role.aspect())
                    .layer_count(1),
            )
            .image_extent(vk::Extent3D {
                width: self.width,
                height: self.height,
                depth: 1,
            })
    }
}

/// Creates a 2D image of `format` holding `data` (uploaded by the command buffer from the
/// staging buffer) and its view.
pub(super) fn create_image(
    ctx: &Context,
    owned: &mut Owned<'_>,
    (format, width, height): (Format, u32, u32),
    role: ImageRole,
    data: &[u8],
) -> Result<HostImage, VulkanError> {
    let expected = usize::try_from(u64::from(width) * u64::from(height))
        .ok()
        .and_then(|n| n.checked_mul(format.texel_size()))
        .ok_or_else(|| VulkanError::Invalid("image too large".into()))?;
    if width == 0 || height == 0 || data.len() != expected {
        return Err(VulkanError::Invalid(format!(
            "a {width}x{height} {format:?} image needs {expected} bytes of data, not {}",
            data.len()
        )));
    }
    let (feature, usage) = match role {
        ImageRole::Storage => (
            vk::FormatFeatureFlags::STORAGE_IMAGE,
            vk::ImageUsageFlags::STORAGE,
        ),
        ImageRole::Sampled => (
            vk::FormatFeatureFlags::SAMPLED_IMAGE,
            vk::ImageUsageFlags::SAMPLED,
        ),
        ImageRole::Color => (
            vk::FormatFeatureFlags::COLOR_ATTACHMENT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
        ),
        ImageRole::Depth => (
            vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        ),
    };
    // SAFETY: a plain query on the context's physical device.
    let props = unsafe {
        ctx.instance()
            .get_physical_device_format_properties(ctx.physical, format.vk())
    };
    if !props.optimal_tiling_features.contains(feature) {
        return Err(VulkanError::Invalid(format!(
            "the device does not support {format:?} images with {feature:?}"
        )));
    }
    let staging = memory::create_buffer(
        ctx,
        owned,
        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
        data,
    )?;
    let d = &ctx.device;
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(format.vk())
        .extent(vk::Extent3D {
            width,
            height,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage | vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: a valid create info (format support checked); recorded for destruction.
    let image =
        unsafe { d.create_image(&info, None) }.map_err(VulkanError::call("vkCreateImage"))?;
    owned.images.push(image);
    // SAFETY: `image` is live.
    let requirements = unsafe { d.get_image_memory_requirements(image) };
    let type_index = memory::memory_type(
        ctx,
        requirements.memory_type_bits,
        vk::MemoryPropertyFlags::DEVICE_LOCAL,
    )
    .or_else(|_| {
        memory::memory_type(
            ctx,
            requirements.memory_type_bits,
            vk::MemoryPropertyFlags::empty(),
        )
    })?;
    let alloc = vk::MemoryAllocateInfo::default()
        .allocation_size(requirements.size)
        .memory_type_index(type_index);
    // SAFETY: as above; the memory is recorded for freeing.
    let mem = unsafe { d.allocate_memory(&alloc, None) }
        .map_err(VulkanError::call("vkAllocateMemory"))?;
    owned.memories.push(mem);
    // SAFETY: fresh image and memory of a sufficient size and a compatible type.
    unsafe { d.bind_image_memory(image, mem, 0) }
        .map_err(VulkanError::call("vkBindImageMemory"))?;
    let view_info = vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(format.vk())
        .subresource_range(role.range());
    // SAFETY: the image is live and bound; the view is recorded for destruction.
    let view = unsafe { d.create_image_view(&view_info, None) }
        .map_err(VulkanError::call("vkCreateImageView"))?;
    owned.image_views.push(view);
    Ok(HostImage {
        image,
        view,
        staging,
        width,
        height,
        role,
    })
}

/// Creates a sampler (no mipmaps, no anisotropy, no comparison).
pub(super) fn create_sampler(
    ctx: &Context,
    owned: &mut Owned<'_>,
    desc: SamplerDesc,
) -> Result<vk::Sampler, VulkanError> {
    let filter = match desc.filter {
        Filter::Nearest => vk::Filter::NEAREST,
        Filter::Linear => vk::Filter::LINEAR,
    };
    let address = match desc.address {
        AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
        AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
    };
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(address)
        .address_mode_v(address)
        .address_mode_w(address)
        .border_color(vk::BorderColor::FLOAT_TRANSPARENT_BLACK);
    // SAFETY: a valid create info; recorded for destruction.
    let sampler = unsafe { ctx.device.create_sampler(&info, None) }
        .map_err(VulkanError::call("vkCreateSampler"))?;
    owned.samplers.push(sampler);
    Ok(sampler)
}
