//! Render pass, framebuffer and graphics pipeline of a draw.
//!
//! Viewports (by default one covering the whole framebuffer) get a negative height, so that
//! clip-space +y is the top of the image and (0, 0) its top-left pixel, as in Direct3D; depth
//! runs from 0 to 1. Culling and blending are off; the depth test is on when the draw has a depth target,
//! the stencil test when its stencil aspect has one.

use ash::vk;

use super::draw::{Draw, Topology, Viewport};
use super::image::HostImage;
use super::memory::Owned;
use super::pipeline::{create_shader, keep_pipeline, specialization_entries};
use super::{sample_count_flags, Context, Format, VulkanError};

/// The number of color attachment slots of the subpass (highest bound slot + 1).
fn color_slots(draw: &Draw<'_>) -> usize {
    draw.render_targets
        .iter()
        .rposition(Option::is_some)
        .map_or(0, |i| i.saturating_add(1))
}

fn u32_len(n: usize) -> Result<u32, VulkanError> {
    u32::try_from(n).map_err(|_| VulkanError::Invalid("too many attachments".into()))
}

/// Creates the render pass: color attachments in slot order, then depth; contents are loaded
/// and stored, and stay in their attachment layouts.
pub(super) fn create_render_pass(
    ctx: &Context,
    owned: &mut Owned<'_>,
    draw: &Draw<'_>,
    depth_format: Option<Format>,
) -> Result<(), VulkanError> {
    let mut attachments = Vec::new();
    let mut color_refs = Vec::new();
    for target in draw.render_targets.iter().take(color_slots(draw)) {
        match target {
            Some(t) => {
                color_refs.push(
                    vk::AttachmentReference::default()
                        .attachment(u32_len(attachments.len())?)
                        .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
                );
                attachments.push(
                    vk::AttachmentDescription::default()
                        .format(t.format.vk())
                        .samples(sample_count_flags(t.samples))
                        .load_op(vk::AttachmentLoadOp::LOAD)
                        .store_op(vk::AttachmentStoreOp::STORE)
                        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                        .initial_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                        .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
                );
            }
            None => color_refs.push(
                vk::AttachmentReference::default()
                    .attachment(vk::ATTACHMENT_UNUSED)
                    .layout(vk::ImageLayout::UNDEFINED),
            ),
        }
    }
    let depth_ref = vk::AttachmentReference::default()
        .attachment(u32_len(attachments.len())?)
        .layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    if let Some(format) = depth_format {
        // A stencil aspect is loaded and stored like depth.
        let (stencil_load, stencil_store) = if format == Format::D32Float {
            (
                vk::AttachmentLoadOp::DONT_CARE,
                vk::AttachmentStoreOp::DONT_CARE,
            )
        } else {
            (vk::AttachmentLoadOp::LOAD, vk::AttachmentStoreOp::STORE)
        };
        attachments.push(
            vk::AttachmentDescription::default()
                .format(format.vk())
                .samples(sample_count_flags(draw.samples()))
                .load_op(vk::AttachmentLoadOp::LOAD)
                .store_op(vk::AttachmentStoreOp::STORE)
                .stencil_load_op(stencil_load)
                .stencil_store_op(stencil_store)
                .initial_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL)
                .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        );
    }
    let mut subpass = vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_refs);
    if depth_format.is_some() {
        subpass = subpass.depth_stencil_attachment(&depth_ref);
    }
    let subpasses = [subpass];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses);
    // SAFETY: a valid create info whose arrays live across the call; recorded for destruction.
    owned.render_pass = unsafe { ctx.device.create_render_pass(&info, None) }
        .map_err(VulkanError::call("vkCreateRenderPass"))?;
    Ok(())
}

/// Creates the framebuffer over the targets' views (in attachment order).
pub(super) fn create_framebuffer(
    ctx: &Context,
    owned: &mut Owned<'_>,
    targets: &[(Option<usize>, HostImage)],
    extent: vk::Extent2D,
    layers: u32,
) -> Result<(), VulkanError> {
    let views: Vec<vk::ImageView> = targets.iter().map(|(_, image)| image.view).collect();
    let info = vk::FramebufferCreateInfo::default()
        .render_pass(owned.render_pass)
        .attachments(&views)
        .width(extent.width)
        .height(extent.height)
        .layers(layers);
    // SAFETY: the render pass and views are live and match in count and format.
    owned.framebuffer = unsafe { ctx.device.create_framebuffer(&info, None) }
        .map_err(VulkanError::call("vkCreateFramebuffer"))?;
    Ok(())
}

/// Creates the graphics pipeline of `draw` on `owned`'s layout and render pass.
pub(super) fn create_pipeline(
    ctx: &Context,
    owned: &mut Owned<'_>,
    draw: &Draw<'_>,
    extent: vk::Extent2D,
) -> Result<(), VulkanError> {
    let (map, data) = specialization_entries(&draw.specialization);
    let spec = vk::SpecializationInfo::default()
        .map_entries(&map)
        .data(&data);
    let s = draw.stages;
    let modules = [
        (vk::ShaderStageFlags::VERTEX, Some(s.vertex)),
        (vk::ShaderStageFlags::TESSELLATION_CONTROL, s.hull),
        (vk::ShaderStageFlags::TESSELLATION_EVALUATION, s.domain),
        (vk::ShaderStageFlags::GEOMETRY, s.geometry),
        (vk::ShaderStageFlags::FRAGMENT, s.pixel),
    ];
    let mut stages = Vec::new();
    for (stage, code) in modules {
        let Some(code) = code else { continue };
        let module = create_shader(ctx, owned, code)?;
        let mut info = vk::PipelineShaderStageCreateInfo::default()
            .stage(stage)
            .module(module)
            .name(c"main");
        if !draw.specialization.is_empty() {
            info = info.specialization_info(&spec);
        }
        stages.push(info);
    }

    let bindings: Vec<vk::VertexInputBindingDescription> = draw
        .vertex_buffers
        .iter()
        .map(|vb| {
            vk::VertexInputBindingDescription::default()
                .binding(vb.binding)
                .stride(vb.stride)
                .input_rate(vk::VertexInputRate::VERTEX)
        })
        .collect();
    let attributes: Vec<vk::VertexInputAttributeDescription> = draw
        .attributes
        .iter()
        .map(|a| {
            vk::VertexInputAttributeDescription::default()
                .location(a.location)
                .binding(a.binding)
                .format(a.format.vk())
                .offset(a.offset)
        })
        .collect();
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attributes);
    let (topology, patch_points) = match draw.topology {
        Topology::PointList => (vk::PrimitiveTopology::POINT_LIST, None),
        Topology::LineList => (vk::PrimitiveTopology::LINE_LIST, None),
        Topology::LineStrip => (vk::PrimitiveTopology::LINE_STRIP, None),
        Topology::TriangleList => (vk::PrimitiveTopology::TRIANGLE_LIST, None),
        Topology::TriangleStrip => (vk::PrimitiveTopology::TRIANGLE_STRIP, None),
        Topology::PatchList(n) => (vk::PrimitiveTopology::PATCH_LIST, Some(n)),
    };
    let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(topology);
    let tessellation = vk::PipelineTessellationStateCreateInfo::default()
        .patch_control_points(patch_points.unwrap_or(1));
    #[allow(clippy::cast_precision_loss)]
    let (width, height) = (extent.width as f32, extent.height as f32);
    let full = [Viewport {
        x: 0.0,
        y: 0.0,
        width,
        height,
    }];
    let given = if draw.viewports.is_empty() {
        &full[..]
    } else {
        &draw.viewports[..]
    };
    // Negative heights flip y so that the top-left corner is Direct3D's.
    let viewports: Vec<vk::Viewport> = given
        .iter()
        .map(|v| vk::Viewport {
            x: v.x,
            y: v.y + v.height,
            width: v.width,
            height: -v.height,
            min_depth: 0.0,
            max_depth: 1.0,
        })
        .collect();
    let scissors: Vec<vk::Rect2D> = viewports
        .iter()
        .map(|_| vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent,
        })
        .collect();
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let mut raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::CLOCKWISE)
        .line_width(1.0)
        .rasterizer_discard_enable(draw.rasterized_stream.is_none());
    let mut stream = super::xfb::rasterization_stream(draw.rasterized_stream);
    if let Some(stream) = stream.as_mut() {
        raster = raster.push_next(stream);
    }
    let sample_mask = [draw.sample_mask];
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(sample_count_flags(draw.samples()))
        .sample_mask(&sample_mask);
    let depth = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(draw.depth.is_some())
        .depth_write_enable(draw.depth.is_some())
        .depth_compare_op(
            draw.depth
                .as_ref()
                .map_or(vk::CompareOp::ALWAYS, |d| d.compare.vk()),
        );
    let depth = match draw.depth.as_ref().and_then(|d| d.bounds) {
        Some((min, max)) => depth
            .depth_bounds_test_enable(true)
            .min_depth_bounds(min)
            .max_depth_bounds(max),
        None => depth,
    };
    let stencil = draw
        .depth
        .as_ref()
        .and_then(|d| d.stencil.as_ref())
        .and_then(|s| s.test);
    let depth = match stencil {
        Some(test) => depth
            .stencil_test_enable(true)
            .front(test.vk())
            .back(test.vk()),
        None => depth,
    };
    let blend_attachments: Vec<vk::PipelineColorBlendAttachmentState> = (0..color_slots(draw))
        .map(|_| {
            let state = vk::PipelineColorBlendAttachmentState::default()
                .blend_enable(false)
                .color_write_mask(vk::ColorComponentFlags::RGBA);
            match draw.blend {
                None => state,
                Some(blend) => state
                    .blend_enable(true)
                    .src_color_blend_factor(blend.src.vk())
                    .dst_color_blend_factor(blend.dst.vk())
                    .color_blend_op(vk::BlendOp::ADD)
                    .src_alpha_blend_factor(blend.src.vk())
                    .dst_alpha_blend_factor(blend.dst.vk())
                    .alpha_blend_op(vk::BlendOp::ADD),
            }
        })
        .collect();
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
    let mut info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&input_assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth)
        .color_blend_state(&blend)
        .layout(owned.pipeline_layout)
        .render_pass(owned.render_pass)
        .subpass(0);
    if patch_points.is_some() {
        info = info.tessellation_state(&tessellation);
    }
    let infos = [info];
    let d = &ctx.device;
    // SAFETY: every state structure lives across the call; modules, layout and render pass
    // are live.
    let created = unsafe { d.create_graphics_pipelines(vk::PipelineCache::null(), &infos, None) };
    keep_pipeline(owned, created, "vkCreateGraphicsPipelines")
}
