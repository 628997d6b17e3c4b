//! Resources from `.shader_test` `[srv N]` / `[uav N]` sections, with the contents the
//! Vulkan runner uploads (`shader_test::runner::resources::payload`).

use super::{Format, Resource, Shape};
use crate::shader_test::{Resource as Decl, ResourceKind, ResourceSize};
use dxbc2spirv::ir::ResourceDimension;

/// The format a section names, `r32g32b32a32-float` when it names none (as the runner).
fn format_of(decl: &Decl, what: &str) -> Result<Format, String> {
    let name = decl.format.as_deref().unwrap_or("r32g32b32a32-float");
    Format::from_name(name)
        .ok_or_else(|| format!("interpreter: {what} format {name} is not supported"))
}

/// The declared data as bytes, zero-padded or cut to `len`.
fn data_bytes(decl: &Decl, len: u64) -> Result<Vec<u8>, String> {
    let len = usize::try_from(len)
        .ok()
        .filter(|&n| n <= 1 << 30)
        .ok_or_else(|| format!("interpreter: a resource of {len} bytes is too large"))?;
    let mut bytes: Vec<u8> = decl.words().iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.resize(len, 0);
    Ok(bytes)
}

/// See [`Resource::from_shader_test`].
pub(super) fn from_shader_test(decl: &Decl) -> Result<Resource, String> {
    if !matches!(decl.kind, ResourceKind::Srv | ResourceKind::Uav) {
        return Err(format!(
            "interpreter: a {:?} section is not a shader resource (only [srv] and [uav] are)",
            decl.kind
        ));
    }
    let uav = decl.kind == ResourceKind::Uav;
    let raw = decl.format.as_deref() == Some("r32-typeless");
    let size = decl
        .size
        .ok_or_else(|| "interpreter: resource without a size".to_string())?;
    let times = |n: u32, each: u32| u64::from(n) * u64::from(each);
    match size {
        ResourceSize::RawBuffer(n) => Ok(Resource::new(Shape::Raw, data_bytes(decl, times(n, 4))?)),
        ResourceSize::CounterBuffer(n) => Ok(Resource::new(
            Shape::Structured { stride: 4 },
            data_bytes(decl, times(n, 4))?,
        )),
        ResourceSize::Buffer(n) => match decl.stride {
            Some(stride) => Ok(Resource::new(
                Shape::Structured { stride },
                data_bytes(decl, times(n, stride))?,
            )),
            None if raw => Ok(Resource::new(Shape::Raw, data_bytes(decl, times(n, 4))?)),
            None => {
                let format = format_of(decl, "buffer")?;
                let data = data_bytes(decl, times(n, format.texel_size()))?;
                Ok(Resource::new(Shape::TypedBuffer { format }, data))
            }
        },
        _ => {
            let format = format_of(decl, "texture")?;
            let levels = decl.levels.unwrap_or(1).max(1);
            let (dimension, width, height, depth_or_layers, multisampled) = match size {
                ResourceSize::Texture2d { width, height } => {
                    (ResourceDimension::Texture2D, width, height, 1, false)
                }
                ResourceSize::Texture2dMs { width, height, .. } if !uav => {
                    (ResourceDimension::Texture2DMS, width, height, 1, true)
                }
                ResourceSize::Texture2dArray {
                    width,
                    height,
                    layers,
                } => (
                    ResourceDimension::Texture2DArray,
                    width,
                    height,
                    layers,
                    false,
                ),
                ResourceSize::Texture3d {
                    width,
                    height,
                    depth,
                } => (ResourceDimension::Texture3D, width, height, depth, false),
                ResourceSize::Cube(n) => (ResourceDimension::TextureCube, n, n, 6, false),
                other => {
                    return Err(format!(
                        "interpreter: resource size {other:?} is not supported"
                    ))
                }
            };
            let shape = Shape::Texture {
                dimension,
                format,
                width,
                height,
                depth_or_layers,
                levels,
            };
            let len = texture_bytes(&shape)
                .ok_or_else(|| format!("interpreter: {shape:?} is too large"))?;
            let data = if multisampled {
                // The runner uploads no data to a multisampled image: it starts zeroed.
                data_bytes(
                    &Decl {
                        data: Vec::new(),
                        ..decl.clone()
                    },
                    len,
                )?
            } else {
                data_bytes(decl, len)?
            };
            Ok(Resource::new(shape, data))
        }
    }
}

/// Bytes of a texture in the runner's layout: layers × (sum over levels of the level's
/// width × height × depth × texel size), every extent halved per level and at least 1.
pub(super) fn texture_bytes(shape: &Shape) -> Option<u64> {
    let Shape::Texture {
        dimension,
        format,
        width,
        height,
        depth_or_layers,
        levels,
    } = *shape
    else {
        return None;
    };
    let three_d = dimension == ResourceDimension::Texture3D;
    let (depth, layers) = if three_d {
        (depth_or_layers, 1)
    } else {
        (1, depth_or_layers)
    };
    let at = |n: u32, level: u32| u64::from(n.checked_shr(level).unwrap_or(0).max(1));
    let per_layer = (0..levels).try_fold(0u64, |sum, level| {
        let texels = at(width, level)
            .checked_mul(at(height, level))?
            .checked_mul(at(depth, level))?;
        sum.checked_add(texels.checked_mul(u64::from(format.texel_size()))?)
    })?;
    per_layer.checked_mul(u64::from(layers))
}
