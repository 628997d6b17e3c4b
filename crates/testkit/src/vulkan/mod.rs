//! A small headless Vulkan runner: creates an instance and device once ([`Context::new`]),
//! then runs SPIR-V compute modules ([`Context::dispatch`]) or draws with graphics pipelines
//! into render targets ([`Context::draw`]), and reads every written resource back.
//!
//! The Vulkan loader is opened at run time, so the library works (and this module reports a
//! [`VulkanError`]) on machines without Vulkan. Setting the environment variable
//! `DXBC2SPIRV_VALIDATION=1` enables `VK_LAYER_KHRONOS_validation`; its messages are collected
//! and returned by [`Context::take_validation_messages`].

mod commands;
mod device;
mod dispatch;
mod draw;
mod graphics;
mod image;
mod interface;
mod kept;
mod memory;
mod ms_fill;
pub use kept::{next_kept_id, KeptUse};
pub use ms_fill::uniform_texels;
mod pipeline;
mod pipeline_timing;
mod xfb;

use std::fmt;

use ash::vk;

pub use device::{Context, Features};
pub use draw::{
    Blend, BlendFactor, CompareOp, DepthTarget, Draw, RenderTarget, Stages, Stencil, StencilOp,
    StencilTest, Topology, VertexAttribute, VertexBuffer, Viewport,
};
pub use xfb::FeedbackBuffer;

/// Why a Vulkan operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VulkanError {
    /// The Vulkan loader library could not be opened.
    NoLoader(String),
    /// No usable physical device (or no compute queue) was found.
    NoDevice(String),
    /// A Vulkan call failed with the given result.
    Call {
        /// The Vulkan function that failed.
        function: &'static str,
        /// The result it returned.
        result: vk::Result,
    },
    /// The request cannot be run as given (bad sizes, missing layer, no memory type …).
    Invalid(String),
}

impl VulkanError {
    /// A closure mapping a `vk::Result` into [`VulkanError::Call`] for `function`.
    pub(crate) fn call(function: &'static str) -> impl Fn(vk::Result) -> VulkanError {
        move |result| VulkanError::Call { function, result }
    }
}

impl fmt::Display for VulkanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VulkanError::NoLoader(why) => write!(f, "the Vulkan loader could not be opened: {why}"),
            VulkanError::NoDevice(why) => write!(f, "no usable Vulkan device: {why}"),
            VulkanError::Call { function, result } => write!(f, "{function} failed: {result}"),
            VulkanError::Invalid(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for VulkanError {}

/// A texel format for texel buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// One 32-bit unsigned integer.
    R32Uint,
    /// One 32-bit signed integer.
    R32Sint,
    /// One 32-bit float.
    R32Float,
    /// Two 32-bit unsigned integers.
    R32G32Uint,
    /// Two 32-bit floats.
    R32G32Float,
    /// Two 32-bit signed integers.
    R32G32Sint,
    /// Three 32-bit floats (vertex attributes).
    R32G32B32Float,
    /// 32-bit float depth (depth attachments).
    D32Float,
    /// 32-bit float depth and 8-bit stencil (depth-stencil attachments). Its staging data
    /// is every texel's 32-bit depth, then every texel's stencil byte (5 bytes a texel).
    D32FloatS8Uint,
    /// 24-bit normalized depth and 8-bit stencil (depth-stencil attachments). Its staging
    /// data is every texel's depth in the low 24 bits of a 32-bit word, then every texel's
    /// stencil byte (5 bytes a texel).
    D24UnormS8Uint,
    /// Four 32-bit unsigned integers.
    R32G32B32A32Uint,
    /// Four 32-bit signed integers.
    R32G32B32A32Sint,
    /// Four 32-bit floats.
    R32G32B32A32Float,
    /// Four 8-bit unsigned normalized values.
    R8G8B8A8Unorm,
    /// Four 8-bit unsigned integers.
    R8G8B8A8Uint,
    /// Four 16-bit floats.
    R16G16B16A16Float,
}

impl Format {
    /// The Vulkan format.
    pub fn vk(self) -> vk::Format {
        match self {
            Format::R32Uint => vk::Format::R32_UINT,
            Format::R32Sint => vk::Format::R32_SINT,
            Format::R32Float => vk::Format::R32_SFLOAT,
            Format::R32G32Uint => vk::Format::R32G32_UINT,
            Format::R32G32Float => vk::Format::R32G32_SFLOAT,
            Format::R32G32Sint => vk::Format::R32G32_SINT,
            Format::R32G32B32Float => vk::Format::R32G32B32_SFLOAT,
            Format::D32Float => vk::Format::D32_SFLOAT,
            Format::D32FloatS8Uint => vk::Format::D32_SFLOAT_S8_UINT,
            Format::D24UnormS8Uint => vk::Format::D24_UNORM_S8_UINT,
            Format::R32G32B32A32Uint => vk::Format::R32G32B32A32_UINT,
            Format::R32G32B32A32Sint => vk::Format::R32G32B32A32_SINT,
            Format::R32G32B32A32Float => vk::Format::R32G32B32A32_SFLOAT,
            Format::R8G8B8A8Unorm => vk::Format::R8G8B8A8_UNORM,
            Format::R8G8B8A8Uint => vk::Format::R8G8B8A8_UINT,
            Format::R16G16B16A16Float => vk::Format::R16G16B16A16_SFLOAT,
        }
    }

    /// The size of one texel in bytes.
    pub fn texel_size(self) -> usize {
        match self {
            Format::R32Uint | Format::R32Sint | Format::R32Float | Format::D32Float => 4,
            Format::R8G8B8A8Unorm | Format::R8G8B8A8Uint => 4,
            Format::D32FloatS8Uint | Format::D24UnormS8Uint => 5,
            Format::R32G32Uint
            | Format::R32G32Float
            | Format::R32G32Sint
            | Format::R16G16B16A16Float => 8,
            Format::R32G32B32Float => 12,
            Format::R32G32B32A32Uint | Format::R32G32B32A32Sint | Format::R32G32B32A32Float => 16,
        }
    }
}

/// A sampler's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Filter {
    /// Nearest texel (point sampling).
    #[default]
    Nearest,
    /// Bilinear filtering.
    Linear,
}

/// A sampler's address mode (the same for u, v and w).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    /// Wrap around.
    #[default]
    Repeat,
    /// Mirror at every edge.
    MirroredRepeat,
    /// Clamp to the edge texel.
    ClampToEdge,
    /// Clamp to transparent black.
    ClampToBorder,
}

/// A sampler description (no anisotropy; every mip level is reachable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SamplerDesc {
    /// Minification and magnification filter.
    pub filter: Filter,
    /// Filter between mip levels.
    pub mip_filter: Filter,
    /// Address mode for every coordinate.
    pub address: AddressMode,
    /// The comparison of a comparison sampler.
    pub compare: Option<CompareOp>,
}

/// The dimensionality of an image resource (and of its view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImageKind {
    /// A 2D image.
    #[default]
    D2,
    /// A 2D array.
    D2Array,
    /// A 3D image.
    D3,
    /// A cube (6 layers).
    Cube,
    /// A cube array (6 layers per cube).
    CubeArray,
}

/// The format and size of an image resource. Its data is tightly packed texels: for each
/// layer, for each mip level, `depth` slices of `height` rows of `width` texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageShape {
    /// The dimensionality.
    pub kind: ImageKind,
    /// The texel format.
    pub format: Format,
    /// Width of level 0 in texels.
    pub width: u32,
    /// Height of level 0 in texels.
    pub height: u32,
    /// Depth of level 0 (3D images; 1 otherwise).
    pub depth: u32,
    /// Array layers (6 per cube for cubes).
    pub layers: u32,
    /// Mip levels.
    pub levels: u32,
    /// Samples per texel (1, or 2/4/8/16 for a multisampled 2D image, whose data must
    /// repeat one texel: every sample starts with it, unless `kept` says otherwise).
    pub samples: u32,
    /// A multisampled image the context keeps between draws, or whose samples come from
    /// one ([`KeptUse`]); `None` for every other image.
    pub kept: Option<KeptUse>,
}

impl ImageShape {
    /// A single-level 2D image.
    pub fn d2(format: Format, width: u32, height: u32) -> Self {
        ImageShape {
            kind: ImageKind::D2,
            format,
            width,
            height,
            depth: 1,
            layers: 1,
            levels: 1,
            samples: 1,
            kept: None,
        }
    }

    /// The Vulkan sample count.
    pub fn sample_flags(&self) -> vk::SampleCountFlags {
        sample_count_flags(self.samples)
    }

    /// The size of `level` (each dimension halved per level, at least 1).
    pub fn level_extent(&self, level: u32) -> (u32, u32, u32) {
        let at = |n: u32| n.checked_shr(level).unwrap_or(0).max(1);
        (at(self.width), at(self.height), at(self.depth))
    }

    /// Bytes of one level of one layer.
    pub fn level_bytes(&self, level: u32) -> Option<usize> {
        let (w, h, d) = self.level_extent(level);
        usize::try_from(u64::from(w) * u64::from(h) * u64::from(d))
            .ok()?
            .checked_mul(self.format.texel_size())
    }

    /// Bytes of the whole image (every layer and level).
    pub fn byte_size(&self) -> Option<usize> {
        let per_layer = (0..self.levels).try_fold(0usize, |sum, level| {
            sum.checked_add(self.level_bytes(level)?)
        })?;
        per_layer.checked_mul(usize::try_from(self.layers).ok()?)
    }
}

/// A resource bound to one descriptor. Contents are uploaded before the dispatch; the contents
/// of writable resources (storage buffers, storage texel buffers and storage images) are read
/// back into the same `Vec` after it. Image data is laid out as [`ImageShape`] says.
#[derive(Debug, Clone, PartialEq)]
pub enum Resource {
    /// A storage buffer (`StorageBuffer` storage class); read back.
    StorageBuffer(Vec<u8>),
    /// A uniform buffer (constant buffer); not read back.
    UniformBuffer(Vec<u8>),
    /// A storage texel buffer (typed UAV buffer); read back.
    StorageTexelBuffer {
        /// The texel format of the view.
        format: Format,
        /// The buffer's bytes (a whole number of texels).
        data: Vec<u8>,
    },
    /// A uniform texel buffer (typed SRV buffer); not read back.
    UniformTexelBuffer {
        /// The texel format of the view.
        format: Format,
        /// The buffer's bytes (a whole number of texels).
        data: Vec<u8>,
    },
    /// A storage image (typed UAV texture); read back.
    StorageImage {
        /// Format and size.
        shape: ImageShape,
        /// The texels.
        data: Vec<u8>,
    },
    /// A sampled image (SRV texture); not read back.
    SampledImage {
        /// Format and size.
        shape: ImageShape,
        /// The texels.
        data: Vec<u8>,
    },
    /// A separate sampler.
    Sampler(SamplerDesc),
}

impl Resource {
    /// The Vulkan descriptor type of this resource.
    pub fn descriptor_type(&self) -> vk::DescriptorType {
        match self {
            Resource::StorageBuffer(_) => vk::DescriptorType::STORAGE_BUFFER,
            Resource::UniformBuffer(_) => vk::DescriptorType::UNIFORM_BUFFER,
            Resource::StorageTexelBuffer { .. } => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            Resource::UniformTexelBuffer { .. } => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            Resource::StorageImage { .. } => vk::DescriptorType::STORAGE_IMAGE,
            Resource::SampledImage { .. } => vk::DescriptorType::SAMPLED_IMAGE,
            Resource::Sampler(_) => vk::DescriptorType::SAMPLER,
        }
    }

    /// The resource's bytes (empty for a sampler).
    pub fn data(&self) -> &[u8] {
        match self {
            Resource::StorageBuffer(data)
            | Resource::UniformBuffer(data)
            | Resource::StorageTexelBuffer { data, .. }
            | Resource::UniformTexelBuffer { data, .. }
            | Resource::StorageImage { data, .. }
            | Resource::SampledImage { data, .. } => data,
            Resource::Sampler(_) => &[],
        }
    }

    /// The resource's bytes, mutably (`None` for a sampler).
    pub fn data_mut(&mut self) -> Option<&mut Vec<u8>> {
        match self {
            Resource::StorageBuffer(data)
            | Resource::UniformBuffer(data)
            | Resource::StorageTexelBuffer { data, .. }
            | Resource::UniformTexelBuffer { data, .. }
            | Resource::StorageImage { data, .. }
            | Resource::SampledImage { data, .. } => Some(data),
            Resource::Sampler(_) => None,
        }
    }

    /// True when the shader may write the resource (it is read back after a dispatch).
    pub fn is_writable(&self) -> bool {
        matches!(
            self,
            Resource::StorageBuffer(_)
                | Resource::StorageTexelBuffer { .. }
                | Resource::StorageImage { .. }
        )
    }

    /// The texel-buffer view format, if the resource is a texel buffer.
    pub fn texel_format(&self) -> Option<Format> {
        match self {
            Resource::StorageTexelBuffer { format, .. }
            | Resource::UniformTexelBuffer { format, .. } => Some(*format),
            _ => None,
        }
    }

    /// The shape of an image resource.
    pub fn image(&self) -> Option<&ImageShape> {
        match self {
            Resource::StorageImage { shape, .. } | Resource::SampledImage { shape, .. } => {
                Some(shape)
            }
            _ => None,
        }
    }
}

/// One descriptor of a dispatch or draw: element `element` of the array at `binding` of
/// descriptor set `set` (element 0 of a single descriptor). The elements given for one binding
/// make it an array of the highest element + 1 descriptors; elements not given stay unwritten
/// (partially bound), so the shader must not read them.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The descriptor set.
    pub set: u32,
    /// The binding within the set.
    pub binding: u32,
    /// The array element within the binding.
    pub element: u32,
    /// The binding's descriptor count when the shader declares a larger array than the
    /// elements given (0: the highest element given + 1).
    pub array_size: u32,
    /// What is bound.
    pub resource: Resource,
}

impl Binding {
    /// A single descriptor in descriptor set `set` at `binding`.
    pub fn new(set: u32, binding: u32, resource: Resource) -> Self {
        Binding {
            set,
            binding,
            element: 0,
            array_size: 0,
            resource,
        }
    }

    /// Element `element` of the descriptor array at `binding` of set `set`.
    pub fn array_element(set: u32, binding: u32, element: u32, resource: Resource) -> Self {
        Binding {
            set,
            binding,
            element,
            array_size: 0,
            resource,
        }
    }
}

/// The Vulkan sample count of `samples` samples per pixel (1 for anything unsupported).
pub(crate) fn sample_count_flags(samples: u32) -> vk::SampleCountFlags {
    match samples {
        2 => vk::SampleCountFlags::TYPE_2,
        4 => vk::SampleCountFlags::TYPE_4,
        8 => vk::SampleCountFlags::TYPE_8,
        16 => vk::SampleCountFlags::TYPE_16,
        _ => vk::SampleCountFlags::TYPE_1,
    }
}

/// Packs 32-bit words into little-endian bytes (for buffer contents).
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Reads little-endian 32-bit words from bytes (a trailing partial word is dropped).
pub fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .filter_map(|c| <[u8; 4]>::try_from(c).ok().map(u32::from_le_bytes))
        .collect()
}
