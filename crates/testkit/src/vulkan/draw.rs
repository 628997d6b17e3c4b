//! Draws: a graphics pipeline of vertex, optional tessellation and geometry, and optional
//! pixel stages, rendering into color targets (and an optional depth target) that are read
//! back after the draw, with the same descriptor bindings as a dispatch.

use ash::vk;

use super::dispatch::prepared_images;
use super::graphics;
use super::image::{self, HostImage, ImageRole};
use super::interface;
use super::memory::{self, Owned};
use super::xfb::FeedbackBuffer;
use super::{pipeline, Binding, Context, Format, ImageKind, ImageShape, VulkanError};

/// The primitive topology of a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topology {
    /// Separate points.
    PointList,
    /// Separate lines.
    LineList,
    /// A strip of lines.
    LineStrip,
    /// Separate triangles.
    TriangleList,
    /// A strip of triangles.
    TriangleStrip,
    /// Patches of the given number of control points (tessellation).
    PatchList(u32),
}

/// A depth or sampler comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CompareOp {
    /// Never passes.
    Never,
    /// Passes when the new depth is less than the stored one.
    Less,
    /// Passes when equal.
    Equal,
    /// Passes when less or equal.
    LessEqual,
    /// Passes when greater.
    Greater,
    /// Passes when not equal.
    NotEqual,
    /// Passes when greater or equal.
    GreaterEqual,
    /// Always passes.
    #[default]
    Always,
}

impl CompareOp {
    /// The Vulkan compare op.
    pub fn vk(self) -> vk::CompareOp {
        match self {
            CompareOp::Never => vk::CompareOp::NEVER,
            CompareOp::Less => vk::CompareOp::LESS,
            CompareOp::Equal => vk::CompareOp::EQUAL,
            CompareOp::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
            CompareOp::Greater => vk::CompareOp::GREATER,
            CompareOp::NotEqual => vk::CompareOp::NOT_EQUAL,
            CompareOp::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
            CompareOp::Always => vk::CompareOp::ALWAYS,
        }
    }
}

/// A vertex buffer bound at `binding` (the D3D input slot).
#[derive(Debug, Clone, PartialEq)]
pub struct VertexBuffer {
    /// The vertex input binding.
    pub binding: u32,
    /// Bytes from one vertex to the next.
    pub stride: u32,
    /// The buffer's bytes.
    pub data: Vec<u8>,
}

/// One vertex attribute: where the vertex shader's input `location` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexAttribute {
    /// The shader input location.
    pub location: u32,
    /// The vertex buffer binding it reads.
    pub binding: u32,
    /// The attribute's format.
    pub format: Format,
    /// Byte offset within a vertex.
    pub offset: u32,
}

/// A color render target: uploaded before the draw, read back after it.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderTarget {
    /// The texel format.
    pub format: Format,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Array layers (1 for a plain 2D target; more for layered rendering, where the shader
    /// picks the layer with `SV_RenderTargetArrayIndex`).
    pub layers: u32,
    /// Samples per pixel (1, or 2/4/8/16: multisampled, read back resolved; every target of
    /// a draw has the same count). A multisampled target's `data` must repeat one texel,
    /// the value all its samples start with.
    pub samples: u32,
    /// `layers * width * height` texels: layer by layer, row by row.
    pub data: Vec<u8>,
    /// A multisampled target kept by the context between draws ([`super::KeptUse::Start`]
    /// or [`super::KeptUse::Continue`]); `None` otherwise.
    pub kept: Option<super::KeptUse>,
}

/// A viewport in Direct3D's convention: (x, y) is its top-left corner in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Viewport {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
}

/// A depth target: uploaded before the draw, read back after it. Without a stencil aspect
/// its format is 32-bit float depth; with one, a depth-stencil format the device supports as
/// an attachment (`D32_SFLOAT_S8_UINT`, else `D24_UNORM_S8_UINT`, whose depths are
/// converted to and from 24-bit normalized values).
#[derive(Debug, Clone, PartialEq)]
pub struct DepthTarget {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` little-endian `f32` depths, row by row.
    pub data: Vec<u8>,
    /// The depth test (depth writes are on).
    pub compare: CompareOp,
    /// The depth-bounds test `(min, max)`: a sample whose stored depth lies outside is
    /// discarded (needs [`super::Features::depth_bounds`]); `None` disables it.
    pub bounds: Option<(f32, f32)>,
    /// The stencil aspect, if the target has one.
    pub stencil: Option<Stencil>,
}

/// The stencil aspect of a depth target and the stencil test of the draw.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stencil {
    /// `width * height` stencil values, one byte a texel, row by row.
    pub data: Vec<u8>,
    /// The stencil test (the same for front and back faces); `None` disables it, leaving
    /// the stencil values as they are.
    pub test: Option<StencilTest>,
}

/// What a stencil test does to the stored stencil value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StencilOp {
    /// Keeps it.
    #[default]
    Keep,
    /// Sets it to 0.
    Zero,
    /// Replaces it with the reference (the pixel shader's `oStencilRef` when it writes one).
    Replace,
    /// Increments it, clamping at 255.
    IncrementClamp,
    /// Decrements it, clamping at 0.
    DecrementClamp,
    /// Inverts its bits.
    Invert,
    /// Increments it, wrapping to 0.
    IncrementWrap,
    /// Decrements it, wrapping to 255.
    DecrementWrap,
}

impl StencilOp {
    /// The Vulkan stencil op.
    pub fn vk(self) -> vk::StencilOp {
        match self {
            StencilOp::Keep => vk::StencilOp::KEEP,
            StencilOp::Zero => vk::StencilOp::ZERO,
            StencilOp::Replace => vk::StencilOp::REPLACE,
            StencilOp::IncrementClamp => vk::StencilOp::INCREMENT_AND_CLAMP,
            StencilOp::DecrementClamp => vk::StencilOp::DECREMENT_AND_CLAMP,
            StencilOp::Invert => vk::StencilOp::INVERT,
            StencilOp::IncrementWrap => vk::StencilOp::INCREMENT_AND_WRAP,
            StencilOp::DecrementWrap => vk::StencilOp::DECREMENT_AND_WRAP,
        }
    }
}

/// A stencil test: `(reference & compare_mask) COMPARE (stored & compare_mask)`, then the
/// op of the outcome, writing the bits of `write_mask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StencilTest {
    /// The comparison.
    pub compare: CompareOp,
    /// The op when the stencil and depth tests pass.
    pub pass: StencilOp,
    /// The op when the stencil test fails.
    pub fail: StencilOp,
    /// The op when the stencil test passes and the depth test fails.
    pub depth_fail: StencilOp,
    /// The pipeline's reference value (a pixel shader writing `oStencilRef` replaces it).
    pub reference: u32,
    /// The bits compared.
    pub compare_mask: u32,
    /// The bits written.
    pub write_mask: u32,
}

impl Default for StencilTest {
    fn default() -> Self {
        StencilTest {
            compare: CompareOp::Always,
            pass: StencilOp::Keep,
            fail: StencilOp::Keep,
            depth_fail: StencilOp::Keep,
            reference: 0,
            compare_mask: 0xff,
            write_mask: 0xff,
        }
    }
}

impl StencilTest {
    /// The Vulkan stencil state (for either face).
    pub(super) fn vk(&self) -> vk::StencilOpState {
        vk::StencilOpState {
            fail_op: self.fail.vk(),
            pass_op: self.pass.vk(),
            depth_fail_op: self.depth_fail.vk(),
            compare_op: self.compare.vk(),
            compare_mask: self.compare_mask,
            write_mask: self.write_mask,
            reference: self.reference,
        }
    }
}

/// The 24-bit normalized form of a depth (clamped to [0, 1], rounded to nearest).
fn unorm24(depth: f32) -> u32 {
    const MAX: f32 = 16_777_215.0;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let n = (depth.clamp(0.0, 1.0) * MAX).round() as u32;
    n
}

/// The depth of a 24-bit normalized value (the low 24 bits of `bits`).
fn from_unorm24(bits: u32) -> f32 {
    #[allow(clippy::cast_precision_loss)]
    let d = (bits & 0x00ff_ffff) as f32 / 16_777_215.0;
    d
}

/// Maps each 4-byte chunk of `data` through `f`.
fn map_words(data: &[u8], f: impl Fn([u8; 4]) -> [u8; 4]) -> Vec<u8> {
    data.chunks(4)
        .flat_map(|c| {
            let mut w = [0u8; 4];
            for (dst, src) in w.iter_mut().zip(c) {
                *dst = *src;
            }
            f(w)
        })
        .collect()
}

/// The SPIR-V modules of a graphics pipeline (entry point `main` in each).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stages<'a> {
    /// The vertex shader.
    pub vertex: &'a [u32],
    /// The tessellation control (hull) shader.
    pub hull: Option<&'a [u32]>,
    /// The tessellation evaluation (domain) shader.
    pub domain: Option<&'a [u32]>,
    /// The geometry shader.
    pub geometry: Option<&'a [u32]>,
    /// The fragment (pixel) shader; without one, only depth is written.
    pub pixel: Option<&'a [u32]>,
}

/// One draw: what to run, on which vertices, into which targets.
#[derive(Debug, Clone)]
pub struct Draw<'a> {
    /// The shaders.
    pub stages: Stages<'a>,
    /// The primitive topology.
    pub topology: Topology,
    /// Vertices per instance.
    pub vertex_count: u32,
    /// Instances.
    pub instance_count: u32,
    /// The vertex buffers.
    pub vertex_buffers: Vec<VertexBuffer>,
    /// The vertex attributes.
    pub attributes: Vec<VertexAttribute>,
    /// Color targets by slot (`SV_Target` index); `None` leaves a slot unbound.
    pub render_targets: Vec<Option<RenderTarget>>,
    /// The depth target.
    pub depth: Option<DepthTarget>,
    /// Viewports by index (`SV_ViewportArrayIndex`); empty for one covering the framebuffer.
    pub viewports: Vec<Viewport>,
    /// The pipeline's sample mask (D3D's `SampleMask` of `OMSetBlendState`): samples whose
    /// bit is clear are not written, and are absent from the pixel shader's coverage input.
    pub sample_mask: u32,
    /// Specialization constants `(constant id, value)` for every stage.
    pub specialization: Vec<(u32, u32)>,
    /// Transform-feedback (stream-output) buffers by slot (`XfbBuffer`); `None` leaves a
    /// slot unbound. With any buffer, transform feedback is active during the draw and the
    /// buffers are read back after it (see [`FeedbackBuffer`]).
    pub stream_output: Vec<Option<FeedbackBuffer>>,
    /// The rasterized stream of a geometry shader with several streams: `Some(0)` (the
    /// default), another stream (`rasterizationStream`), or `None` to rasterize nothing
    /// (`rasterizerDiscardEnable`).
    pub rasterized_stream: Option<u32>,
    /// The push-constant bytes every graphics stage sees from offset 0 (`vkCmdPushConstants`
    /// before the draw, one range in the pipeline layout); empty for none. At most the
    /// device's `maxPushConstantsSize`.
    pub push_constants: Vec<u8>,
    /// The blend state of every color target; `None` writes the pixel shader's colors.
    pub blend: Option<Blend>,
}

/// A blend factor (`VkBlendFactor`) of [`Blend`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlendFactor {
    /// 0.
    Zero,
    /// 1.
    One,
    /// The pixel shader's color (output 0).
    SrcColor,
    /// 1 − the pixel shader's color.
    OneMinusSrcColor,
    /// The pixel shader's alpha.
    SrcAlpha,
    /// 1 − the pixel shader's alpha.
    OneMinusSrcAlpha,
    /// The second color of dual-source blending (output index 1).
    Src1Color,
    /// 1 − the second color.
    OneMinusSrc1Color,
    /// The second color's alpha.
    Src1Alpha,
    /// 1 − the second color's alpha.
    OneMinusSrc1Alpha,
    /// The target's color.
    DstColor,
}

impl BlendFactor {
    /// The Vulkan factor.
    pub fn vk(self) -> vk::BlendFactor {
        match self {
            BlendFactor::Zero => vk::BlendFactor::ZERO,
            BlendFactor::One => vk::BlendFactor::ONE,
            BlendFactor::SrcColor => vk::BlendFactor::SRC_COLOR,
            BlendFactor::OneMinusSrcColor => vk::BlendFactor::ONE_MINUS_SRC_COLOR,
            BlendFactor::SrcAlpha => vk::BlendFactor::SRC_ALPHA,
            BlendFactor::OneMinusSrcAlpha => vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
            BlendFactor::Src1Color => vk::BlendFactor::SRC1_COLOR,
            BlendFactor::OneMinusSrc1Color => vk::BlendFactor::ONE_MINUS_SRC1_COLOR,
            BlendFactor::Src1Alpha => vk::BlendFactor::SRC1_ALPHA,
            BlendFactor::OneMinusSrc1Alpha => vk::BlendFactor::ONE_MINUS_SRC1_ALPHA,
            BlendFactor::DstColor => vk::BlendFactor::DST_COLOR,
        }
    }

    /// Whether the factor reads the second color of dual-source blending.
    pub fn dual_source(self) -> bool {
        matches!(
            self,
            BlendFactor::Src1Color
                | BlendFactor::OneMinusSrc1Color
                | BlendFactor::Src1Alpha
                | BlendFactor::OneMinusSrc1Alpha
        )
    }
}

/// Additive blending `src · src_factor + dst · dst_factor` of color and alpha alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blend {
    /// The factor of the pixel shader's value.
    pub src: BlendFactor,
    /// The factor of the target's value.
    pub dst: BlendFactor,
}

impl Draw<'_> {
    /// The rasterization sample count: that of the color targets (1 without).
    pub(super) fn samples(&self) -> u32 {
        self.render_targets
            .iter()
            .flatten()
            .map(|t| t.samples.max(1))
            .max()
            .unwrap_or(1)
    }

    /// The framebuffer's layer count: the fewest layers of any color target (1 without).
    pub(super) fn layers(&self) -> u32 {
        self.render_targets
            .iter()
            .flatten()
            .map(|t| t.layers.max(1))
            .min()
            .unwrap_or(1)
    }

    /// The framebuffer size: that of the first color target, else of the depth target.
    pub(super) fn extent(&self) -> Result<vk::Extent2D, VulkanError> {
        let (width, height) = self
            .render_targets
            .iter()
            .flatten()
            .map(|t| (t.width, t.height))
            .chain(self.depth.iter().map(|d| (d.width, d.height)))
            .next()
            .ok_or_else(|| VulkanError::Invalid("a draw needs a render target".into()))?;
        let mismatched = self
            .render_targets
            .iter()
            .flatten()
            .map(|t| (t.width, t.height))
            .chain(self.depth.iter().map(|d| (d.width, d.height)))
            .any(|size| size != (width, height));
        if mismatched {
            return Err(VulkanError::Invalid(
                "the render targets of a draw differ in size".into(),
            ));
        }
        Ok(vk::Extent2D { width, height })
    }
}

impl Context {
    /// Runs one draw with `bindings` (visible to every stage), then reads back the render
    /// targets, the depth target and every writable binding into their `Vec`s.
    pub fn draw(&self, draw: &mut Draw<'_>, bindings: &mut [Binding]) -> Result<(), VulkanError> {
        let extent = draw.extent()?;
        if draw.stages.hull.is_some() != draw.stages.domain.is_some() {
            return Err(VulkanError::Invalid(
                "a hull shader needs a domain shader and the reverse".into(),
            ));
        }
        if let Some(stencil) = draw.depth.as_ref().and_then(|d| d.stencil.as_ref()) {
            let texels = u64::from(extent.width) * u64::from(extent.height);
            if u64::try_from(stencil.data.len()).ok() != Some(texels) {
                return Err(VulkanError::Invalid(format!(
                    "a {}x{} stencil aspect needs {texels} bytes, not {}",
                    extent.width,
                    extent.height,
                    stencil.data.len()
                )));
            }
        }
        if draw.depth.is_some() && draw.samples() > 1 {
            return Err(VulkanError::Invalid(
                "multisampled draws with a depth target are not supported".into(),
            ));
        }
        let s = &draw.stages;
        let modules: Vec<(&[u32], interface::Model)> = [
            (Some(s.vertex), interface::Model::Vertex),
            (s.hull, interface::Model::TessControl),
            (s.domain, interface::Model::TessEval),
            (s.geometry, interface::Model::Geometry),
            (s.pixel, interface::Model::Fragment),
        ]
        .into_iter()
        .filter_map(|(module, model)| Some((module?, model)))
        .collect();
        interface::check_modules(&modules, bindings, draw.push_constants.len())?;
        let push_bytes = u32::try_from(draw.push_constants.len())
            .ok()
            .filter(|&n| n % 4 == 0 && n <= self.limits.max_push_constants_size)
            .ok_or_else(|| {
                VulkanError::Invalid(format!(
                    "{} push-constant bytes: a multiple of 4 up to the device's \
                     maxPushConstantsSize ({}) is needed",
                    draw.push_constants.len(),
                    self.limits.max_push_constants_size
                ))
            })?;
        if draw
            .blend
            .is_some_and(|b| b.src.dual_source() || b.dst.dual_source())
            && !self.features().dual_src_blend
        {
            return Err(VulkanError::Invalid(
                "dual-source blending needs the dualSrcBlend feature".into(),
            ));
        }
        let mut owned = Owned::new(&self.device);
        pipeline::create_set_layouts(self, &mut owned, bindings)?;
        pipeline::create_pipeline_layout(self, &mut owned, push_bytes)?;
        let targets = self.create_targets(&mut owned, draw)?;
        let depth_format = targets
            .iter()
            .find(|(slot, _)| slot.is_none())
            .map(|(_, image)| image.shape.format);
        graphics::create_render_pass(self, &mut owned, draw, depth_format)?;
        graphics::create_framebuffer(self, &mut owned, &targets, extent, draw.layers())?;
        graphics::create_pipeline(self, &mut owned, draw, extent)?;
        let prepared = self.create_resources(&mut owned, bindings)?;
        let sets = self.write_descriptors(&mut owned, bindings, &prepared)?;
        let feedback = self.create_feedback(&mut owned, &draw.stream_output)?;
        let vertex_buffers = draw
            .vertex_buffers
            .iter()
            .map(|vb| {
                memory::create_buffer(
                    self,
                    &mut owned,
                    vk::BufferUsageFlags::VERTEX_BUFFER,
                    &vb.data,
                )
                .map(|host| (vb.binding, host.buffer))
            })
            .collect::<Result<Vec<_>, _>>()?;

        let d = &self.device;
        let cmd = self.begin_commands(&mut owned)?;
        let mut images = prepared_images(&prepared);
        images.extend(targets.iter().map(|(_, image)| *image));
        self.record_uploads(cmd, &images)?;
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(owned.render_pass)
            .framebuffer(owned.framebuffer)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent,
            });
        // SAFETY: recording into a command buffer in the recording state; every object is
        // live and was created for this render pass and pipeline.
        unsafe {
            d.cmd_begin_render_pass(cmd, &begin, vk::SubpassContents::INLINE);
        }
        self.record_bind(cmd, vk::PipelineBindPoint::GRAPHICS, &owned, &sets);
        // SAFETY: as above, inside the render pass with the graphics pipeline bound.
        unsafe {
            if !draw.push_constants.is_empty() {
                d.cmd_push_constants(
                    cmd,
                    owned.pipeline_layout,
                    vk::ShaderStageFlags::ALL_GRAPHICS,
                    0,
                    &draw.push_constants,
                );
            }
            for &(binding, buffer) in &vertex_buffers {
                d.cmd_bind_vertex_buffers(cmd, binding, &[buffer], &[0]);
            }
            if let Some(feedback) = &feedback {
                self.record_feedback_begin(cmd, feedback);
            }
            d.cmd_draw(cmd, draw.vertex_count, draw.instance_count, 0, 0);
            if feedback.is_some() {
                self.record_feedback_end(cmd);
            }
            d.cmd_end_render_pass(cmd);
        }
        if feedback.is_some() {
            self.record_feedback_readback(cmd);
        }
        self.record_readbacks(cmd, &images);
        self.submit_and_wait(&mut owned, cmd)?;

        self.read_back_bindings(bindings, &prepared)?;
        if let Some(feedback) = &feedback {
            self.read_feedback(feedback, &mut draw.stream_output)?;
        }
        for (slot, image) in &targets {
            match slot {
                Some(slot) => {
                    if let Some(t) = draw.render_targets.get_mut(*slot).and_then(|t| t.as_mut()) {
                        memory::read(self, image.staging, &mut t.data)?;
                    }
                }
                None => {
                    if let Some(depth) = draw.depth.as_mut() {
                        self.read_depth(image, depth)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates the color targets (with their slot) and the depth target (slot `None`),
    /// holding their initial contents, in attachment order.
    fn create_targets(
        &self,
        owned: &mut Owned<'_>,
        draw: &Draw<'_>,
    ) -> Result<Vec<(Option<usize>, HostImage)>, VulkanError> {
        let mut out = Vec::new();
        for (slot, target) in draw.render_targets.iter().enumerate() {
            if let Some(t) = target {
                let shape = ImageShape {
                    kind: if t.layers > 1 {
                        ImageKind::D2Array
                    } else {
                        ImageKind::D2
                    },
                    layers: t.layers.max(1),
                    samples: t.samples.max(1),
                    kept: t.kept,
                    ..ImageShape::d2(t.format, t.width, t.height)
                };
                let image = image::create_image(self, owned, shape, ImageRole::Color, &t.data)
                    .map_err(|e| VulkanError::Invalid(format!("render target {slot}: {e}")))?;
                out.push((Some(slot), image));
            }
        }
        if let Some(depth) = &draw.depth {
            let (format, data) = match &depth.stencil {
                None => (Format::D32Float, depth.data.clone()),
                Some(stencil) => {
                    let format = self.depth_stencil_format()?;
                    let mut data = if format == Format::D24UnormS8Uint {
                        map_words(&depth.data, |w| {
                            unorm24(f32::from_le_bytes(w)).to_le_bytes()
                        })
                    } else {
                        depth.data.clone()
                    };
                    data.extend_from_slice(&stencil.data);
                    (format, data)
                }
            };
            let image = image::create_image(
                self,
                owned,
                ImageShape::d2(format, depth.width, depth.height),
                ImageRole::Depth,
                &data,
            )
            .map_err(|e| VulkanError::Invalid(format!("depth target: {e}")))?;
            out.push((None, image));
        }
        Ok(out)
    }

    /// The depth-stencil format of depth targets with a stencil aspect: the first of
    /// `D32_SFLOAT_S8_UINT` and `D24_UNORM_S8_UINT` the device supports as an attachment
    /// that can be copied to and from.
    pub fn depth_stencil_format(&self) -> Result<Format, VulkanError> {
        let needed = vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT
            | vk::FormatFeatureFlags::TRANSFER_SRC
            | vk::FormatFeatureFlags::TRANSFER_DST;
        [Format::D32FloatS8Uint, Format::D24UnormS8Uint]
            .into_iter()
            .find(|format| {
                // SAFETY: a plain query on the context's physical device.
                let props = unsafe {
                    self.instance()
                        .get_physical_device_format_properties(self.physical, format.vk())
                };
                props.optimal_tiling_features.contains(needed)
            })
            .ok_or_else(|| {
                VulkanError::Invalid(
                    "the device supports no depth-stencil attachment format \
                     (D32_SFLOAT_S8_UINT or D24_UNORM_S8_UINT)"
                        .into(),
                )
            })
    }

    /// Reads the depth target's image back into `depth` (and its stencil aspect).
    fn read_depth(&self, image: &HostImage, depth: &mut DepthTarget) -> Result<(), VulkanError> {
        let Some(stencil) = depth.stencil.as_mut() else {
            return memory::read(self, image.staging, &mut depth.data);
        };
        let depth_len = depth.data.len();
        let mut all = vec![0u8; depth_len.saturating_add(stencil.data.len())];
        memory::read(self, image.staging, &mut all)?;
        let (depths, stencils) = all.split_at(depth_len);
        depth.data = if image.shape.format == Format::D24UnormS8Uint {
            map_words(depths, |w| {
                from_unorm24(u32::from_le_bytes(w)).to_le_bytes()
            })
        } else {
            depths.to_vec()
        };
        stencil.data.copy_from_slice(stencils);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unorm24_round_trips() {
        assert_eq!(unorm24(0.0), 0);
        assert_eq!(unorm24(1.0), 0x00ff_ffff);
        assert_eq!(unorm24(2.0), 0x00ff_ffff);
        assert_eq!(unorm24(-1.0), 0);
        assert_eq!(from_unorm24(0xff00_0000), 0.0);
        assert_eq!(from_unorm24(0x00ff_ffff), 1.0);
        for d in [0.25f32, 0.5, 0.75, 0.1] {
            assert!((from_unorm24(unorm24(d)) - d).abs() < 1e-7, "{d}");
        }
    }

    #[test]
    fn map_words_maps_each_word() {
        let bytes = map_words(&[1, 0, 0, 0, 2, 0, 0, 0], |w| {
            (u32::from_le_bytes(w) * 3).to_le_bytes()
        });
        assert_eq!(bytes, vec![3, 0, 0, 0, 6, 0, 0, 0]);
    }
}
