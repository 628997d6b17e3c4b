//! A single-sample texture bound where the shader declares `texture2dms`. D3D tolerates it
//! (a load of sample 0 reads the texel); Vulkan binds only multisampled images to a
//! multisampled image type and copies nothing into one. So the runner draws the texture into
//! a 4-sample target the context keeps, every sample of a pixel the texel (a per-pixel
//! shader writes all covered samples), and binds a copy of it. What differs from D3D: the
//! texture reports 4 samples to `sampleinfo`/`resinfo`, and samples 1 to 3 read the texel
//! (D3D: out of range).

use crate::shader_test::runner::{options_for, translate, ShaderState, DEFAULT_VS, QUAD};
use crate::vulkan::{self, Format, ImageKind, ImageShape, KeptUse};

/// The sample count of the stand-in image.
const SAMPLES: u32 = 4;

/// The pixel shader that copies texel (x, y) of `t0` to the target.
const COPY_PS: &str = "ps_4_1
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xyzw
dcl_temps 1
ftou r0.xy, v0.xyxx
mov r0.zw, l(0, 0, 0, 0)
ld r0.xyzw, r0.xyzw, t0.xyzw
mov o0.xyzw, r0.xyzw
ret
";

/// The multisampled stand-in for single-sample texture `resource` (a 2D sampled image of a
/// float or normalized format, one level) and the id of the image the context keeps for it
/// (the caller releases it after the work); or why there is none.
pub(super) fn stand_in(
    ctx: &vulkan::Context,
    resource: &vulkan::Resource,
    no_optimize: bool,
) -> Result<(vulkan::Resource, u64), String> {
    let refuse = |why: &str| {
        format!(
            "runner: the shader declares a multisampled texture and the test gives a \
             single-sample one, which Vulkan cannot bind to a multisampled image type; {why}"
        )
    };
    let (shape, data) = match resource {
        vulkan::Resource::SampledImage { shape, data } => (*shape, data),
        _ => return Err(refuse("it is not a texture")),
    };
    let float = matches!(
        shape.format,
        Format::R32Float
            | Format::R32G32Float
            | Format::R32G32B32A32Float
            | Format::R8G8B8A8Unorm
            | Format::R16G16B16A16Float
    );
    if shape.kind != ImageKind::D2 || shape.layers != 1 || shape.levels != 1 || !float {
        return Err(refuse(
            "the runner's multisampled stand-in is made for one-level 2D textures of float \
             or normalized formats only",
        ));
    }
    let mut options = options_for(ctx.features());
    options.no_optimize = no_optimize;
    let words =
        |text: &str| -> Result<(Vec<u32>, dxbc2spirv::analysis::binding_plan::BindingPlan), String> {
            let bytes = dxbc2spirv::asm::assemble(text).map_err(|e| format!("runner: {e}"))?;
            match translate(
                &bytes,
                options.clone(),
                &dxbc2spirv::bindings::DefaultBindings,
                None,
            ) {
                ShaderState::Ready { words, plan, .. } => Ok((words, plan)),
                ShaderState::Skip(why) | ShaderState::Fail(why) => Err(format!("runner: {why}")),
            }
        };
    let (vs, _) = words(DEFAULT_VS)?;
    let (ps, plan) = words(COPY_PS)?;
    let (set, binding, element) = plan
        .locate(dxbc2spirv::bindings::DescriptorClass::ShaderResource, 0, 0)
        .ok_or_else(|| refuse("the copy shader's t0 has no binding"))?;
    let mut bindings = vec![vulkan::Binding::array_element(
        set,
        binding,
        element,
        resource.clone(),
    )];
    let id = vulkan::next_kept_id();
    let target = vulkan::RenderTarget {
        format: shape.format,
        width: shape.width,
        height: shape.height,
        layers: 1,
        samples: SAMPLES,
        data: vec![0; data.len()],
        kept: Some(KeptUse::Start(id)),
    };
    let mut draw = vulkan::Draw {
        stages: vulkan::Stages {
            vertex: &vs,
            pixel: Some(&ps),
            ..Default::default()
        },
        topology: vulkan::Topology::TriangleList,
        vertex_count: 3,
        instance_count: 1,
        vertex_buffers: vec![vulkan::VertexBuffer {
            binding: 0,
            stride: 8,
            data: QUAD.iter().flat_map(|f| f.to_le_bytes()).collect(),
        }],
        attributes: vec![vulkan::VertexAttribute {
            location: 0,
            binding: 0,
            format: Format::R32G32Float,
            offset: 0,
        }],
        render_targets: vec![Some(target)],
        depth: None,
        viewports: Vec::new(),
        sample_mask: u32::MAX,
        specialization: vec![(dxbc2spirv::spirv::RASTERIZER_SAMPLE_COUNT_SPEC_ID, SAMPLES)],
        stream_output: Vec::new(),
        push_constants: Vec::new(),
        blend: None,
        rasterized_stream: Some(0),
    };
    if let Err(e) = ctx.draw(&mut draw, &mut bindings) {
        ctx.release_kept(&[id]);
        return Err(refuse(&format!(
            "drawing its multisampled stand-in failed: {e}"
        )));
    }
    let stand_in = vulkan::Resource::SampledImage {
        shape: ImageShape {
            samples: SAMPLES,
            kept: Some(KeptUse::CopyOf(id)),
            ..shape
        },
        data: data.clone(),
    };
    Ok((stand_in, id))
}
