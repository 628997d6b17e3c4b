//! The resources of a test file as the runner holds them: declared contents, current
//! contents after dispatches and draws, and their Vulkan form.

use super::probe::Addressing;
use crate::shader_test::{
    format_info, ComponentKind, DataValue, Resource as Decl, ResourceKind, ResourceSize,
};
use crate::vulkan::{self, Format, ImageKind, ImageShape};

/// The render target vkd3d's runner creates when a draw finds none: 640x480 RGBA32F.
pub(super) const DEFAULT_TARGET: (u32, u32) = (640, 480);

/// The Vulkan format of a shader_test format name.
pub fn vk_format(name: &str) -> Option<Format> {
    Some(match name {
        "r32-uint" | "r32-typeless" => Format::R32Uint,
        "r32-sint" => Format::R32Sint,
        "r32-float" => Format::R32Float,
        // A texture sampled with comparisons: D3D compares R32_FLOAT data, Vulkan needs a
        // depth format for that.
        "r32-float-shadow" => Format::D32Float,
        "r32g32-uint" => Format::R32G32Uint,
        "r32g32-sint" => Format::R32G32Sint,
        "r32g32-float" => Format::R32G32Float,
        "r32g32b32-float" => Format::R32G32B32Float,
        "r32g32b32a32-uint" => Format::R32G32B32A32Uint,
        "r32g32b32a32-sint" => Format::R32G32B32A32Sint,
        "r32g32b32a32-float" => Format::R32G32B32A32Float,
        "r8g8b8a8-unorm" => Format::R8G8B8A8Unorm,
        "r8g8b8a8-uint" => Format::R8G8B8A8Uint,
        "r16g16b16a16-float" => Format::R16G16B16A16Float,
        _ => return None,
    })
}

/// The declared data as bytes, resized to `len` (`None` to keep the data's length).
fn data_bytes(decl: &Decl, len: Option<usize>) -> Vec<u8> {
    let mut bytes = vulkan::words_to_bytes(&decl.words());
    if let Some(len) = len {
        bytes.resize(len, 0);
    }
    bytes
}

/// What the runner keeps of one resource.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Payload {
    /// An SRV or UAV, bound to a descriptor.
    Bound(vulkan::Resource),
    /// A color render target.
    Target(vulkan::RenderTarget),
    /// The depth target.
    Depth(vulkan::DepthTarget),
    /// A vertex buffer's bytes.
    Vertices(Vec<u8>),
}

impl Payload {
    /// The bytes a probe reads and how it addresses them.
    pub(super) fn probe_view(&self) -> (&[u8], Addressing) {
        let image = |format: Format, width: u32, height: u32| {
            Addressing::image(format.texel_size(), width, height)
        };
        match self {
            Payload::Bound(r) => (
                r.data(),
                r.image().map_or(Addressing::Buffer, |shape| {
                    image(shape.format, shape.width, shape.height)
                }),
            ),
            Payload::Target(t) => (&t.data, image(t.format, t.width, t.height)),
            Payload::Depth(d) => (&d.data, image(Format::D32Float, d.width, d.height)),
            Payload::Vertices(v) => (v, Addressing::Buffer),
        }
    }
}

/// Builds the runner's form of a resource section.
pub(super) fn payload(decl: &Decl) -> Result<Payload, String> {
    let count = |n: u32, size: usize| usize::try_from(n).unwrap_or(0).saturating_mul(size);
    let texture_format = |decl: &Decl| {
        let name = decl.format.as_deref().unwrap_or("r32g32b32a32-float");
        vk_format(name).ok_or_else(|| format!("runner: texture format {name} is not supported"))
    };
    let texels = |w: u32, h: u32| usize::try_from(u64::from(w) * u64::from(h)).unwrap_or(0);
    match decl.kind {
        ResourceKind::Vb => return Ok(Payload::Vertices(data_bytes(decl, None))),
        ResourceKind::Rtv | ResourceKind::Dsv => {
            let (width, height, layers, samples) = match decl.size {
                Some(ResourceSize::Texture2d { width, height }) => (width, height, 1, 1),
                Some(ResourceSize::Texture2dMs {
                    samples,
                    width,
                    height,
                }) if decl.kind == ResourceKind::Rtv => (width, height, 1, samples),
                Some(ResourceSize::Texture2dArray {
                    width,
                    height,
                    layers,
                }) if decl.kind == ResourceKind::Rtv => (width, height, layers.max(1), 1),
                None => (DEFAULT_TARGET.0, DEFAULT_TARGET.1, 1, 1),
                Some(other) => {
                    return Err(format!(
                        "runner: render target size {other:?} is not supported"
                    ))
                }
            };
            if decl.kind == ResourceKind::Dsv {
                // A depth target is 32-bit float depth whatever its format says, except
                // this project's `d32-float-s8-uint`, which adds a stencil aspect (starting
                // at 0); other stencil formats are not modelled.
                let stencil = match decl.format.as_deref() {
                    Some("d32-float-s8-uint") => Some(vulkan::Stencil {
                        data: vec![0; texels(width, height)],
                        test: None,
                    }),
                    Some(other) if other.ends_with("-s8-uint") => {
                        return Err(format!(
                            "runner: depth-stencil format {other} is not supported \
                             (d32-float-s8-uint is)"
                        ))
                    }
                    _ => None,
                };
                let data = data_bytes(decl, Some(texels(width, height).saturating_mul(4)));
                return Ok(Payload::Depth(vulkan::DepthTarget {
                    width,
                    height,
                    data,
                    compare: vulkan::CompareOp::Always,
                    bounds: None,
                    stencil,
                }));
            }
            let format = texture_format(decl)?;
            let layer_bytes = texels(width, height).saturating_mul(format.texel_size());
            let len = layer_bytes.saturating_mul(usize::try_from(layers).unwrap_or(0));
            let data = data_bytes(decl, Some(len));
            return Ok(Payload::Target(vulkan::RenderTarget {
                format,
                width,
                height,
                layers,
                samples,
                data,
                kept: None,
            }));
        }
        _ => {}
    }
    let uav = decl.kind == ResourceKind::Uav;
    let raw = decl.format.as_deref() == Some("r32-typeless");
    Ok(Payload::Bound(match decl.size {
        Some(ResourceSize::RawBuffer(n)) | Some(ResourceSize::CounterBuffer(n)) => {
            vulkan::Resource::StorageBuffer(data_bytes(decl, Some(count(n, 4))))
        }
        Some(ResourceSize::Buffer(n)) if decl.stride.is_some() || raw => {
            let stride = decl.stride.map_or(4, |s| usize::try_from(s).unwrap_or(0));
            vulkan::Resource::StorageBuffer(data_bytes(decl, Some(count(n, stride))))
        }
        Some(ResourceSize::Buffer(n)) => {
            let name = decl.format.as_deref().unwrap_or("r32g32b32a32-float");
            let format = vk_format(name)
                .ok_or_else(|| format!("runner: buffer format {name} is not supported"))?;
            let data = data_bytes(decl, Some(count(n, format.texel_size())));
            if uav {
                vulkan::Resource::StorageTexelBuffer { format, data }
            } else {
                vulkan::Resource::UniformTexelBuffer { format, data }
            }
        }
        Some(size) => {
            let format = texture_format(decl)?;
            let levels = decl.levels.unwrap_or(1).max(1);
            let mut samples = 1;
            let (kind, width, height, depth, layers) = match size {
                ResourceSize::Texture2d { width, height } => (ImageKind::D2, width, height, 1, 1),
                ResourceSize::Texture2dMs {
                    samples: count,
                    width,
                    height,
                } if !uav => {
                    samples = count;
                    (ImageKind::D2, width, height, 1, 1)
                }
                ResourceSize::Texture2dArray {
                    width,
                    height,
                    layers,
                } => (ImageKind::D2Array, width, height, 1, layers),
                ResourceSize::Texture3d {
                    width,
                    height,
                    depth,
                } => (ImageKind::D3, width, height, depth, 1),
                ResourceSize::Cube(n) => (ImageKind::Cube, n, n, 1, 6),
                other => return Err(format!("runner: resource size {other:?} is not supported")),
            };
            let shape = ImageShape {
                kind,
                format,
                width,
                height,
                depth,
                layers,
                levels,
                samples,
                kept: None,
            };
            let len = shape
                .byte_size()
                .ok_or_else(|| format!("runner: {shape:?} is too large"))?;
            let data = data_bytes(decl, Some(len));
            if uav {
                vulkan::Resource::StorageImage { shape, data }
            } else {
                vulkan::Resource::SampledImage { shape, data }
            }
        }
        None => return Err("runner: resource without a size".into()),
    }))
}

/// The bytes of one texel of `format_name` cleared to `values` (floats converted to the
/// format's integer type where it has one).
pub(super) fn clear_texel(format_name: &str, values: &[f32]) -> Result<Vec<u8>, String> {
    let info = format_info(format_name)
        .filter(|i| i.bits == 32)
        .ok_or_else(|| format!("runner: clearing {format_name} is not supported"))?;
    let n = usize::try_from(info.components).unwrap_or(0);
    let words: Vec<u32> = values
        .iter()
        .take(n)
        .map(|&v| match info.kind {
            ComponentKind::Uint | ComponentKind::Typeless => v as u32,
            ComponentKind::Sint => v as i32 as u32,
            _ => v.to_bits(),
        })
        .collect();
    Ok(vulkan::words_to_bytes(&words))
}

/// The default render target's declaration.
pub(super) fn default_target() -> Decl {
    Decl {
        kind: ResourceKind::Rtv,
        slot: 0,
        space: 0,
        format: Some("r32g32b32a32-float".into()),
        stride: None,
        size: Some(ResourceSize::Texture2d {
            width: DEFAULT_TARGET.0,
            height: DEFAULT_TARGET.1,
        }),
        levels: None,
        data: Vec::<DataValue>::new(),
    }
}

/// Whether every texel of a bound image repeats the first (buffers: true).
pub(super) fn uniform_texels(resource: &vulkan::Resource) -> bool {
    resource
        .image()
        .is_none_or(|shape| vulkan::uniform_texels(shape.format, resource.data()))
}
