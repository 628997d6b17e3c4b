//! Resources of the reference interpreter: buffers and textures with D3D's formats,
//! addressing, out-of-bounds rules and atomics.
//!
//! The rules, from the D3D11.3 functional specification (section numbers in brackets) and
//! Microsoft's SM5 instruction pages:
//!
//! - **Raw** (`[byte offset]`, 22.4.10 `ld_raw`, 22.4.11 `store_raw`): the offset addresses a
//!   window of four consecutive dwords. D3D requires it to be a multiple of 4 (22.3.47) and
//!   leaves other offsets undefined; this interpreter ignores the two low bits (the address
//!   is rounded down to a dword, as the Vulkan back end's `offset >> 2` does), so the
//!   generator should keep offsets aligned. Each dword is checked on its own: one past the
//!   end of the buffer reads 0 and is not written, the in-bounds dwords of the same access
//!   are read or written normally.
//! - **Structured** (`[element, byte offset]`, 22.4.12 `ld_structured`, 22.4.13
//!   `store_structured`; strides are multiples of 4, 22.3.44): the dword at
//!   `element * stride + offset + 4i` is out of bounds when `element` is not below the
//!   element count (`len / stride`) or when `offset + 4i + 4` passes the stride. D3D: an
//!   out-of-bounds element index reads 0 and writes nothing; an out-of-bounds *byte offset*
//!   makes a read's result undefined (every component) and a write makes the *whole UAV*
//!   undefined. The interpreter applies the element rule to both (reads 0, drops the write,
//!   per dword); a program whose byte offset passes the stride has no defined result, so
//!   the generator must not produce one. The address is computed without wrapping (64-bit).
//! - **Typed** (22.4.6 `ld`, 22.4.8 `ld_uav_typed`, 22.4.9 `store_uav_typed`): out of range
//!   in any dimension, the array layer or the mip level → a read returns 0 in every channel
//!   the format has and the defaults (0, 0, 0, 1) for the others (exactly what decoding an
//!   all-zero texel gives); a write stores nothing. D3D11 allows `ld_uav_typed` only on
//!   R32_UINT/SINT/FLOAT UAVs (5.3.9.5); `store_uav_typed` takes any format.
//! - **Atomics** (22.17, and the `imm_atomic_cmp_exch` page): out of bounds → nothing
//!   written, and D3D returns an undefined value (`None` here). Structured atomics take
//!   `[element, byte offset]` like loads; an out-of-bounds byte offset there makes the UAV
//!   undefined in D3D (the generator must avoid it). Typed atomics require a single 32-bit
//!   integer channel (R32_UINT/SINT). The hidden counter of `imm_atomic_alloc` /
//!   `imm_atomic_consume` wraps without clamping (5.3.10.2).
//! - **Group-shared memory** (`g#`, a [`Resource`] of shape [`Shape::Raw`] or
//!   [`Shape::Structured`]; 22.4.10-13): D3D leaves out-of-bounds accesses *undefined*: a
//!   read returns an undefined value and a write makes the contents of *all* shared memory
//!   undefined. The interpreter reads 0 and drops the write like a UAV, but no result of a
//!   program that goes out of bounds on `g#` can be compared; the generator must keep `g#`
//!   accesses in bounds.
//! - **Formats**: see [`Format`] (conversions of 3.1.5, 3.1.6 and 3.2).

mod format;
mod shader_test;
#[cfg(test)]
mod tests;

pub use format::{Format, NumberKind};

use dxbc2spirv::ir::ResourceDimension;

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
    /// A texture, laid out as the Vulkan runner uploads it (`vulkan::ImageShape`): for each
    /// array layer (6 per cube), for each mip level (level 0 first), the level's depth
    /// slices, each of rows top to bottom, each of texels left to right, tightly packed.
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

impl AtomicOp {
    /// The value memory holds after the operation on `old` with operands `a` and `b`.
    pub fn apply(self, old: u32, a: u32, b: u32) -> u32 {
        match self {
            AtomicOp::Add => old.wrapping_add(a),
            AtomicOp::And => old & a,
            AtomicOp::Or => old | a,
            AtomicOp::Xor => old ^ a,
            AtomicOp::IMax => (old as i32).max(a as i32) as u32,
            AtomicOp::IMin => (old as i32).min(a as i32) as u32,
            AtomicOp::UMax => old.max(a),
            AtomicOp::UMin => old.min(a),
            AtomicOp::Exchange => a,
            AtomicOp::CompareExchange => {
                if old == a {
                    b
                } else {
                    old
                }
            }
        }
    }
}

/// A texel position after the dimension's coordinate rules: `x`, `y`, `z` (3D slice),
/// array `layer`, mip `level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TexelAt {
    x: u32,
    y: u32,
    z: u32,
    layer: u32,
    level: u32,
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

    /// A resource of this shape with `len` zero bytes (group-shared memory, outputs).
    pub fn zeroed(shape: Shape, len: usize) -> Resource {
        Resource::new(shape, vec![0; len])
    }

    /// `[srv N]` / `[uav N]` section of a `.shader_test` file as a resource, with the
    /// contents the Vulkan runner uploads: `size (raw_buffer, N)` (raw, N dwords),
    /// `(counter_buffer, N)` (structured, stride 4), `(buffer, N)` with `stride` (structured)
    /// or `format r32-typeless` (raw) or another format (typed), and the textures `(2d …)`,
    /// `(2dms …)` (contents zero: the runner uploads no multisampled data), `(2darray …)`,
    /// `(3d …)` and `(cube …)` with `levels`. The data words are zero-padded (or cut) to the
    /// size. Errors name what is not supported.
    pub fn from_shader_test(decl: &crate::shader_test::Resource) -> Result<Resource, String> {
        shader_test::from_shader_test(decl)
    }

    /// The 32-bit word at byte `at`, if all four bytes exist.
    fn word(&self, at: u64) -> Option<u32> {
        let at = usize::try_from(at).ok()?;
        let bytes = self.data.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// Writes the 32-bit word at byte `at`; false (nothing written) if it does not exist.
    fn set_word(&mut self, at: u64, value: u32) -> bool {
        let Some(at) = usize::try_from(at).ok() else {
            return false;
        };
        let Some(end) = at.checked_add(4) else {
            return false;
        };
        match self.data.get_mut(at..end) {
            Some(bytes) => {
                bytes.copy_from_slice(&value.to_le_bytes());
                true
            }
            None => false,
        }
    }

    /// The byte position of dword `i` of a raw or structured access at `address`, or
    /// `None` when that dword is out of bounds.
    pub fn dword_at(&self, address: [u32; 2], i: u32) -> Option<u64> {
        let len = self.data.len() as u64;
        match self.shape {
            Shape::Raw => {
                let at = u64::from(address[0] & !3) + 4 * u64::from(i);
                (at + 4 <= len).then_some(at)
            }
            Shape::Structured { stride } => {
                let stride = u64::from(stride);
                let offset = u64::from(address[1] & !3) + 4 * u64::from(i);
                if stride == 0 || offset + 4 > stride {
                    return None;
                }
                let elements = len / stride;
                (u64::from(address[0]) < elements).then(|| u64::from(address[0]) * stride + offset)
            }
            _ => None,
        }
    }

    /// `ld_raw` / `ld_structured`: the four dwords from the address (`[byte offset]` for raw,
    /// `[element, byte offset]` for structured); dwords out of bounds read 0 (see the module
    /// documentation for the structured byte-offset and group-shared cases). Other shapes
    /// read 0.
    pub fn load_dwords(&self, address: [u32; 2]) -> [u32; 4] {
        let mut out = [0; 4];
        for (i, slot) in (0u32..).zip(out.iter_mut()) {
            if let Some(at) = self.dword_at(address, i) {
                *slot = self.word(at).unwrap_or(0);
            }
        }
        out
    }

    /// `store_raw` / `store_structured`: writes component `i` of `values` to dword `i` from
    /// the address, for each bit `i` set in `mask` (D3D masks are `.x`, `.xy`, `.xyz`,
    /// `.xyzw`: values already swizzled); dwords out of bounds are dropped, the others are
    /// written.
    pub fn store_dwords(&mut self, address: [u32; 2], mask: u8, values: [u32; 4]) {
        for (i, &value) in (0u32..).zip(values.iter()) {
            if mask & (1 << i) == 0 {
                continue;
            }
            if let Some(at) = self.dword_at(address, i) {
                self.set_word(at, value);
            }
        }
    }

    /// The texel position of `coords` at `mip` under the dimension's rules (`ld`: a buffer
    /// uses x; 1D x; 1D array x and layer y; 2D x, y; 2D array and cube x, y and layer z; 3D
    /// x, y, z; the coordinates a dimension does not use are ignored), or `None` out of
    /// bounds.
    fn texel_index(&self, coords: [u32; 3], mip: u32) -> Option<(usize, Format)> {
        let [a, b, c] = coords;
        match self.shape {
            Shape::TypedBuffer { format } => {
                let size = u64::from(format.texel_size());
                let count = (self.data.len() as u64).checked_div(size)?;
                if u64::from(a) >= count {
                    return None;
                }
                Some((usize::try_from(u64::from(a) * size).ok()?, format))
            }
            Shape::Texture {
                dimension,
                format,
                width,
                height,
                depth_or_layers,
                levels,
            } => {
                use ResourceDimension as D;
                let at = match dimension {
                    D::Buffer | D::Texture1D => TexelAt {
                        x: a,
                        y: 0,
                        z: 0,
                        layer: 0,
                        level: mip,
                    },
                    D::Texture1DArray => TexelAt {
                        x: a,
                        y: 0,
                        z: 0,
                        layer: b,
                        level: mip,
                    },
                    D::Texture3D => TexelAt {
                        x: a,
                        y: b,
                        z: c,
                        layer: 0,
                        level: mip,
                    },
                    D::Texture2DArray
                    | D::Texture2DMSArray
                    | D::TextureCube
                    | D::TextureCubeArray => TexelAt {
                        x: a,
                        y: b,
                        z: 0,
                        layer: c,
                        level: mip,
                    },
                    _ => TexelAt {
                        x: a,
                        y: b,
                        z: 0,
                        layer: 0,
                        level: mip,
                    },
                };
                let three_d = dimension == D::Texture3D;
                let (depth, layers) = if three_d {
                    (depth_or_layers.max(1), 1)
                } else {
                    (1, depth_or_layers.max(1))
                };
                let texel = u64::from(format.texel_size());
                let extent =
                    |n: u32, level: u32| u64::from(n.checked_shr(level).unwrap_or(0).max(1));
                let level_bytes = |level: u32| {
                    extent(width, level)
                        * extent(height, level)
                        * if three_d { extent(depth, level) } else { 1 }
                        * texel
                };
                if at.level >= levels || at.layer >= layers {
                    return None;
                }
                let (w, h) = (extent(width, at.level), extent(height, at.level));
                let d = if three_d { extent(depth, at.level) } else { 1 };
                if u64::from(at.x) >= w || u64::from(at.y) >= h || u64::from(at.z) >= d {
                    return None;
                }
                let layer_bytes: u64 = (0..levels.min(64)).map(level_bytes).sum();
                let before: u64 = (0..at.level).map(level_bytes).sum();
                let within =
                    ((u64::from(at.z) * h + u64::from(at.y)) * w + u64::from(at.x)) * texel;
                let offset = u64::from(at.layer) * layer_bytes + before + within;
                let end = offset.checked_add(texel)?;
                if end > self.data.len() as u64 {
                    return None;
                }
                Some((usize::try_from(offset).ok()?, format))
            }
            _ => None,
        }
    }

    /// The format of a typed buffer or texture.
    pub fn format(&self) -> Option<Format> {
        match self.shape {
            Shape::TypedBuffer { format } | Shape::Texture { format, .. } => Some(format),
            _ => None,
        }
    }

    /// `ld`, `ld_uav_typed`: the texel at `coords` (x, y, z or layer; `mip` for textures,
    /// ignored for buffers) as the shader sees it (floats as bits, integers as integers,
    /// missing components (0, 0, 0, 1)); out of bounds (any coordinate the dimension uses,
    /// the layer or the mip) reads 0 in the format's channels and (0, 0, 0, 1) in the others,
    /// as D3D's `ld` specifies. Raw and structured buffers read 0.
    pub fn load_typed(&self, coords: [u32; 3], mip: u32) -> [u32; 4] {
        let Some(format) = self.format() else {
            return [0; 4];
        };
        match self.texel_index(coords, mip) {
            Some((at, format)) => {
                let size = usize::try_from(format.texel_size()).unwrap_or(0);
                let bytes = self.data.get(at..at.saturating_add(size)).unwrap_or(&[]);
                format.decode(bytes)
            }
            None => format.decode(&[]),
        }
    }

    /// `store_uav_typed`: converts `value` to the format and writes the texel at `coords`
    /// (mip level 0: a UAV views one level); out of bounds is dropped.
    pub fn store_typed(&mut self, coords: [u32; 3], value: [u32; 4]) {
        let Some((at, format)) = self.texel_index(coords, 0) else {
            return;
        };
        let bytes = format.encode(value);
        if let Some(slot) = self.data.get_mut(at..at.saturating_add(bytes.len())) {
            slot.copy_from_slice(&bytes);
        }
    }

    /// An atomic operation on the 32-bit word at `address` (raw `[byte offset]`, structured
    /// `[element, byte offset]`, typed `[x, y, z]`) with operands `a` (and `b` for compare
    /// exchange); returns the word it held, or `None` out of bounds (nothing is written) or
    /// on a typed resource whose format is not a single 32-bit integer channel.
    pub fn atomic(&mut self, address: [u32; 3], op: AtomicOp, a: u32, b: u32) -> Option<u32> {
        let at = match self.shape {
            Shape::Raw | Shape::Structured { .. } => self.dword_at([address[0], address[1]], 0)?,
            Shape::TypedBuffer { format } | Shape::Texture { format, .. } => {
                if !format.is_r32_integer() {
                    return None;
                }
                self.texel_index(address, 0)?.0 as u64
            }
        };
        let old = self.word(at)?;
        self.set_word(at, op.apply(old, a, b));
        Some(old)
    }

    /// `imm_atomic_alloc`: increments the hidden counter (wrapping) and returns its value
    /// before the increment.
    pub fn counter_increment(&mut self) -> u32 {
        let old = self.counter;
        self.counter = old.wrapping_add(1);
        old
    }

    /// `imm_atomic_consume`: decrements the hidden counter (wrapping) and returns its value
    /// after the decrement.
    pub fn counter_decrement(&mut self) -> u32 {
        self.counter = self.counter.wrapping_sub(1);
        self.counter
    }

    /// `bufinfo`'s element count, replicated in all four components (raw: bytes, rounded
    /// down to whole dwords; structured: whole elements; typed: whole texels), or a
    /// texture's size at `mip` for `resinfo` as integers: `[width, height, depth or array
    /// size, levels]` with D3D's zeros (1D: `[w, 0, 0, levels]`; 1D array: `[w, layers, 0,
    /// levels]`; 2D and cube: `[w, h, 0, levels]`; 2D array: `[w, h, layers, levels]`; cube
    /// array: `[w, h, cubes, levels]` (D3D leaves z undefined); 3D `[w, h, d, levels]`), and
    /// `[0, 0, 0, levels]` when `mip` is not below `levels`. The caller converts to float or
    /// reciprocals, and reports 1 level for a UAV (a UAV views one mip level).
    pub fn dimensions(&self, mip: u32) -> [u32; 4] {
        let len = self.data.len() as u64;
        let count = |n: u64| [u32::try_from(n).unwrap_or(u32::MAX); 4];
        match self.shape {
            Shape::Raw => count(len & !3),
            Shape::Structured { stride } => count(len.checked_div(u64::from(stride)).unwrap_or(0)),
            Shape::TypedBuffer { format } => {
                count(len.checked_div(u64::from(format.texel_size())).unwrap_or(0))
            }
            Shape::Texture {
                dimension,
                width,
                height,
                depth_or_layers,
                levels,
                ..
            } => {
                use ResourceDimension as D;
                if mip >= levels {
                    return [0, 0, 0, levels];
                }
                let at = |n: u32| n.checked_shr(mip).unwrap_or(0).max(1);
                let (w, h) = (at(width), at(height));
                match dimension {
                    D::Buffer | D::Texture1D => [w, 0, 0, levels],
                    D::Texture1DArray => [w, depth_or_layers, 0, levels],
                    D::Texture2DArray | D::Texture2DMSArray => [w, h, depth_or_layers, levels],
                    D::TextureCubeArray => [w, h, depth_or_layers / 6, levels],
                    D::Texture3D => [w, h, at(depth_or_layers), levels],
                    _ => [w, h, 0, levels],
                }
            }
        }
    }
}
