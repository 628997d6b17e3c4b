//! Draws: a graphics pipeline of vertex, optional tessellation and geometry, and optional
//! pixel stages, rendering into color targets (and an optional depth target) that are read
//! back after the draw, with the same descriptor bindings as a dispatch.

use ash::vk;

use super::dispatch::prepared_images;
use super::graphics;
use super::image::{self, HostImage, ImageRole};
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
    /// Samples per pixel (1, or 2/4/8/16: multisampled, starting cleared to zero and read
    /// back resolved; every target of a draw has the same count).
    pub samples: u32,
    /// `layers * width * height` texels: layer by layer, row by row.
    pub data: Vec<u8>,
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

/// A 32-bit float depth target: uploaded before the draw, read back after it.
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
        if draw.depth.is_some() && draw.samples() > 1 {
            return Err(VulkanError::Invalid(
                "multisampled draws with a depth target are not supported".into(),
            ));
        }
        let mut owned = Owned::new(&self.device);
        pipeline::create_set_layouts(self, &mut owned, bindings)?;
        pipeline::create_pipeline_layout(self, &mut owned)?;
        let targets = self.create_targets(&mut owned, draw)?;
        graphics::create_render_pass(self, &mut owned, draw)?;
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
        self.record_uploads(cmd, &images);
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
            let data = match slot {
                Some(slot) => draw
                    .render_targets
                    .get_mut(*slot)
                    .and_then(|t| t.as_mut())
                    .map(|t| &mut t.data),
                None => draw.depth.as_mut().map(|d| &mut d.data),
            };
            if let Some(data) = data {
                memory::read(self, image.staging, data)?;
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
                    ..ImageShape::d2(t.format, t.width, t.height)
                };
                let image = image::create_image(self, owned, shape, ImageRole::Color, &t.data)
                    .map_err(|e| VulkanError::Invalid(format!("render target {slot}: {e}")))?;
                out.push((Some(slot), image));
            }
        }
        if let Some(depth) = &draw.depth {
            let image = image::create_image(
                self,
                owned,
                ImageShape::d2(Format::D32Float, depth.width, depth.height),
                ImageRole::Depth,
                &depth.data,
            )
            .map_err(|e| VulkanError::Invalid(format!("depth target: {e}")))?;
            out.push((None, image));
        }
        Ok(out)
    }
}
