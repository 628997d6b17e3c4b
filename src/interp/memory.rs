//! Resources of the reference interpreter: buffers and textures with D3D's formats,
//! addressing, out-of-bounds rules and atomics.

use crate::ir::ResourceDimension;

/// A texel format of a typed buffer or texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Placeholder until the format table is written.
    pub texel_size: u32,
}

impl Format {
    /// The format of a `.shader_test` format name (`r32g32b32a32-float`, `r8-unorm`, …).
    pub fn from_name(name: &str) -> Option<Format> {
        let _ = name;
        None
    }

    /// Bytes per texel.
    pub fn texel_size(self) -> u32 {
        self.texel_size
    }
}

/// How a resource's bytes are addressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A byte-address (raw) buffer.
    Raw,
    /// A structured buffer of `stride`-byte elements.
    Structured {
        /// Bytes per element.
        stride: u32,
    },
    /// A typed buffer of `format` elements.
    TypedBuffer {
        /// The element format.
        format: Format,
    },
    /// A texture: mip levels are stored one after another, level 0 first; within a level,
    /// layers (or depth slices) one after another, rows top to bottom, texels left to right.
    Texture {
        /// The dimension (1D, 2D, 2D array, 3D, cube…).
        dimension: ResourceDimension,
        /// The texel format.
        format: Format,
        /// Width of level 0 in texels.
        width: u32,
        /// Height of level 0 (1 for 1D).
        height: u32,
        /// Depth of level 0 for 3D, the layer count for arrays (6 per cube), else 1.
        depth_or_layers: u32,
        /// Mip levels.
        levels: u32,
    },
}

/// One resource: its shape, its bytes and its hidden UAV counter.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// How the bytes are addressed.
    pub shape: Shape,
    /// The bytes.
    pub data: Vec<u8>,
    /// The UAV counter of `imm_atomic_alloc` / `imm_atomic_consume`.
    pub counter: u32,
}

/// The operation of an `atomic_*` / `imm_atomic_*` instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// `iadd`
    Add,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `imax`
    IMax,
    /// `imin`
    IMin,
    /// `umax`
    UMax,
    /// `umin`
    UMin,
    /// `exch` (`imm_atomic_exch` only)
    Exchange,
    /// `cmp_store` / `imm_atomic_cmp_exch`: store the second operand where memory equals
    /// the first.
    CompareExchange,
}

impl Resource {
    /// A resource of this shape holding these bytes, with its counter at 0.
    pub fn new(shape: Shape, data: Vec<u8>) -> Resource {
        Resource {
            shape,
            data,
            counter: 0,
        }
    }

    /// `ld_raw` / `ld_structured`: the four dwords from the address (`[byte offset]` for raw,
    /// `[element, byte offset]` for structured); dwords out of bounds read 0.
    pub fn load_dwords(&self, address: [u32; 2]) -> [u32; 4] {
        let _ = address;
        [0; 4]
    }

    /// `store_raw` / `store_structured`: writes the components of `values` selected by
    /// `mask` to consecutive dwords from the address; dwords out of bounds are dropped.
    pub fn store_dwords(&mut self, address: [u32; 2], mask: u8, values: [u32; 4]) {
        let _ = (address, mask, values);
    }

    /// `ld`, `ld_uav_typed`: the texel at `coords` (x, y, z or layer; `mip` for textures) as
    /// the shader sees it (floats as bits, integers as integers, missing components
    /// (0, 0, 0, 1)); out of bounds reads 0 in every component.
    pub fn load_typed(&self, coords: [u32; 3], mip: u32) -> [u32; 4] {
        let _ = (coords, mip);
        [0; 4]
    }

    /// `store_uav_typed`: converts `value` to the format and writes the texel at `coords`;
    /// out of bounds is dropped.
    pub fn store_typed(&mut self, coords: [u32; 3], value: [u32; 4]) {
        let _ = (coords, value);
    }

    /// An atomic operation on the 32-bit word at `address` (raw `[byte offset]`, structured
    /// `[element, byte offset]`, typed `[x, y, z]`) with operands `a` (and `b` for compare
    /// exchange); returns the word it held, or `None` out of bounds (nothing is written).
    pub fn atomic(&mut self, address: [u32; 3], op: AtomicOp, a: u32, b: u32) -> Option<u32> {
        let _ = (address, op, a, b);
        None
    }

    /// `bufinfo`'s element count (raw: bytes; structured: elements; typed: elements), or a
    /// texture's size at `mip` for `resinfo` (`[width, height, depth or layers, levels]`).
    pub fn dimensions(&self, mip: u32) -> [u32; 4] {
        let _ = mip;
        [0; 4]
    }
}
