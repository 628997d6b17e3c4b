//! 2D images (with a staging buffer for upload and read-back) and samplers.

use ash::vk;

use super::kept::KeptUse;
use super::memory::{self, HostBuffer, Owned};
use super::{
    AddressMode, Context, Filter, Format, ImageKind, ImageShape, SamplerDesc, VulkanError,
};

/// A created image, its view and the staging buffer holding its texels.
#[derive(Clone, Copy)]
pub(super) struct HostImage {
    pub(super) image: vk::Image,
    pub(super) view: vk::ImageView,
    pub(super) staging: HostBuffer,
    pub(super) shape: ImageShape,
    /// How the image is used.
    pub(super) role: ImageRole,
    /// For a multisampled image that is read back: the single-sample image it is resolved
    /// into before the copy (null otherwise).
    pub(super) resolve: vk::Image,
    /// For a multisampled image: the value every sample starts with (its texels are all
    /// equal, see [`super::ms_fill`]).
    pub(super) fill: vk::ClearColorValue,
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
    /// A depth attachment (32-bit float depth, or depth and stencil): read back.
    Depth,
}

/// The aspects of an image of `format` (depth, depth and stencil, or color).
pub(super) fn aspect(format: Format) -> vk::ImageAspectFlags {
    match format {
        Format::D32Float => vk::ImageAspectFlags::DEPTH,
        Format::D32FloatS8Uint | Format::D24UnormS8Uint => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// The whole subresource range of an image of `shape`.
pub(super) fn whole_range(shape: &ImageShape) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(aspect(shape.format))
        .level_count(shape.levels)
        .layer_count(shape.layers)
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

    /// The whole subresource range (every level and layer).
    pub(super) fn range(&self) -> vk::ImageSubresourceRange {
        whole_range(&self.shape)
    }

    /// The regions copied between the staging buffer and the image: for each layer, each
    /// level, in the order of [`ImageShape`]'s data layout.
    pub(super) fn copy_regions(&self) -> Vec<vk::BufferImageCopy> {
        if aspect(self.shape.format).contains(vk::ImageAspectFlags::STENCIL) {
            return self.depth_stencil_regions();
        }
        let mut out = Vec::new();
        let mut offset: vk::DeviceSize = 0;
        for layer in 0..self.shape.layers {
            for level in 0..self.shape.levels {
                let (width, height, depth) = self.shape.level_extent(level);
                out.push(
                    vk::BufferImageCopy::default()
                        .buffer_offset(offset)
                        .image_subresource(
                            vk::ImageSubresourceLayers::default()
                                .aspect_mask(aspect(self.shape.format))
                                .mip_level(level)
                                .base_array_layer(layer)
                                .layer_count(1),
                        )
                        .image_extent(vk::Extent3D {
                            width,
                            height,
                            depth,
                        }),
                );
                let bytes = self.shape.level_bytes(level).unwrap_or(0);
                offset = offset.saturating_add(vk::DeviceSize::try_from(bytes).unwrap_or(0));
            }
        }
        out
    }
}

impl HostImage {
    /// The regions of a single-level, single-layer depth-stencil image: its depth aspect
    /// (4 bytes a texel) from offset 0, then its stencil aspect (1 byte a texel).
    fn depth_stencil_regions(&self) -> Vec<vk::BufferImageCopy> {
        let (width, height, depth) = self.shape.level_extent(0);
        let region = |aspect, offset| {
            vk::BufferImageCopy::default()
                .buffer_offset(offset)
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(aspect)
                        .layer_count(1),
                )
                .image_extent(vk::Extent3D {
                    width,
                    height,
                    depth,
                })
        };
        let depth_bytes = u64::from(width)
            .saturating_mul(u64::from(height))
            .saturating_mul(4);
        vec![
            region(vk::ImageAspectFlags::DEPTH, 0),
            region(vk::ImageAspectFlags::STENCIL, depth_bytes),
        ]
    }
}

/// Creates an image of `shape` holding `data` (uploaded by the command buffer from the
/// staging buffer) and its view.
pub(super) fn create_image(
    ctx: &Context,
    owned: &mut Owned<'_>,
    shape: ImageShape,
    role: ImageRole,
    data: &[u8],
) -> Result<HostImage, VulkanError> {
    let format = shape.format;
    let expected = shape
        .byte_size()
        .ok_or_else(|| VulkanError::Invalid("image too large".into()))?;
    let cube = matches!(shape.kind, ImageKind::Cube | ImageKind::CubeArray);
    let fill = if shape.samples > 1 && matches!(shape.kept, None | Some(KeptUse::Start(_))) {
        super::ms_fill::uniform_fill(shape.format, data)?
    } else {
        vk::ClearColorValue::default()
    };
    if shape.width == 0
        || shape.height == 0
        || shape.depth == 0
        || shape.layers == 0
        || shape.levels == 0
        || (cube && (!shape.layers.is_multiple_of(6) || shape.width != shape.height))
        || data.len() != expected
    {
        return Err(VulkanError::Invalid(format!(
            "a {shape:?} image needs {expected} bytes of data, not {}",
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
    let (image_type, view_type) = match shape.kind {
        ImageKind::D2 => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D),
        ImageKind::D2Array => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D_ARRAY),
        ImageKind::D3 => (vk::ImageType::TYPE_3D, vk::ImageViewType::TYPE_3D),
        ImageKind::Cube => (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE),
        ImageKind::CubeArray => (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE_ARRAY),
    };
    let info = vk::ImageCreateInfo::default()
        .flags(if cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        })
        .image_type(image_type)
        .format(format.vk())
        .extent(vk::Extent3D {
            width: shape.width,
            height: shape.height,
            depth: shape.depth,
        })
        .mip_levels(shape.levels)
        .array_layers(shape.layers)
        .samples(shape.sample_flags())
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage | vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    if shape.samples > 1 {
        // SAFETY: a plain query on the context's physical device.
        let counts = unsafe {
            ctx.instance().get_physical_device_image_format_properties(
                ctx.physical,
                info.format,
                info.image_type,
                info.tiling,
                info.usage,
                info.flags,
            )
        }
        .map(|p| p.sample_counts)
        .unwrap_or_default();
        if !counts.contains(shape.sample_flags()) {
            return Err(VulkanError::Invalid(format!(
                "the device has no {}-sample {format:?} images (its sample counts: {counts:?})",
                shape.samples
            )));
        }
    }
    let image = match shape.kept {
        Some(KeptUse::Start(id)) => ctx.keep_new_image(id, &info, shape)?,
        Some(KeptUse::Continue(id)) => ctx.kept_image(id, &shape)?,
        Some(KeptUse::CopyOf(_)) | None => allocate_image(ctx, owned, &info)?,
    };
    let multisampled = shape.samples > 1;
    if multisampled && !matches!(role, ImageRole::Color | ImageRole::Sampled) {
        return Err(VulkanError::Invalid(
            "only render targets and sampled images can be multisampled".into(),
        ));
    }
    let resolve = if multisampled && role == ImageRole::Color {
        let single = info
            .samples(vk::SampleCountFlags::TYPE_1)
            .usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC);
        allocate_image(ctx, owned, &single)?
    } else {
        vk::Image::null()
    };
    let view_info = vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(view_type)
        .format(format.vk())
        .subresource_range(whole_range(&shape));
    // SAFETY: the image is live and bound; the view is recorded for destruction.
    let view = unsafe { d.create_image_view(&view_info, None) }
        .map_err(VulkanError::call("vkCreateImageView"))?;
    owned.image_views.push(view);
    Ok(HostImage {
        image,
        view,
        staging,
        shape,
        role,
        resolve,
        fill,
    })
}

/// Creates an image in device memory (recorded in `owned` with its memory).
fn allocate_image(
    ctx: &Context,
    owned: &mut Owned<'_>,
    info: &vk::ImageCreateInfo<'_>,
) -> Result<vk::Image, VulkanError> {
    let (image, memory) = allocate_image_memory(ctx, info)?;
    owned.images.push(image);
    owned.memories.push(memory);
    Ok(image)
}

/// Creates an image in device memory, bound; the caller frees both.
pub(super) fn allocate_image_memory(
    ctx: &Context,
    info: &vk::ImageCreateInfo<'_>,
) -> Result<(vk::Image, vk::DeviceMemory), VulkanError> {
    let d = &ctx.device;
    // SAFETY: a valid create info (format support checked).
    let image =
        unsafe { d.create_image(info, None) }.map_err(VulkanError::call("vkCreateImage"))?;
    let free_image = |e| {
        // SAFETY: the image is live and unused.
        unsafe { d.destroy_image(image, None) };
        e
    };
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
    })
    .map_err(free_image)?;
    let alloc = vk::MemoryAllocateInfo::default()
        .allocation_size(requirements.size)
        .memory_type_index(type_index);
    // SAFETY: as above.
    let mem = unsafe { d.allocate_memory(&alloc, None) }
        .map_err(VulkanError::call("vkAllocateMemory"))
        .map_err(free_image)?;
    // SAFETY: fresh image and memory of a sufficient size and a compatible type.
    if let Err(e) = unsafe { d.bind_image_memory(image, mem, 0) } {
        // SAFETY: both are live and unused.
        unsafe { d.free_memory(mem, None) };
        return Err(free_image(VulkanError::call("vkBindImageMemory")(e)));
    }
    Ok((image, mem))
}

/// Creates a sampler (no anisotropy; every level reachable).
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
    let mipmap_mode = match desc.mip_filter {
        Filter::Nearest => vk::SamplerMipmapMode::NEAREST,
        Filter::Linear => vk::SamplerMipmapMode::LINEAR,
    };
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(mipmap_mode)
        .max_lod(vk::LOD_CLAMP_NONE)
        .compare_enable(desc.compare.is_some())
        .compare_op(desc.compare.map_or(vk::CompareOp::NEVER, |c| c.vk()))
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
