//! Typed resources: textures and typed buffers (SRVs), samplers and typed UAVs (storage
//! images); sampling, gathers, texel loads, size/sample/LOD queries, typed UAV loads, stores
//! and atomics, and UAV counters.
//!
//! Bindings are the binding pass's (see [`crate::bindings`] for the default layout). UAV
//! counters (`imm_atomic_alloc`/`imm_atomic_consume`) live in a storage buffer of their own,
//! one per UAV (an array of them for a UAV array), at the counter's binding (by default the
//! UAV's binding + 64 for the D3D11 slots u0–u63, [`crate::bindings::UAV_COUNTER_BINDING_BASE`],
//! and the UAV's binding + 1 past them); the counter is its first dword.
//!
//! D3D's bounds rules: out-of-bounds `ld`, `ld_uav_typed` and `store_uav_typed` rely on
//! Vulkan's robust image access (`robustImageAccess`/`robustImageAccess2`, which returns 0
//! and drops writes); typed UAV atomics are bounds-checked here (out of bounds: no write,
//! result 0). `resinfo` with a mip level out of range returns 0 for the dimensions.
//!
//! `sampleinfo`/`samplepos` on `rasterizer` read the rasterizer's sample count from a
//! specialization constant ([`RASTERIZER_SAMPLE_COUNT_SPEC_ID`]) that the pipeline sets.

use super::builder::Operand as SpvOperand;
use spirv::{Capability, Decoration, Dim, ImageFormat, ImageOperands, Op, StorageClass, Word};

use super::descriptors::{Descriptor, DescriptorType};
use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::operands::mask_components;
use super::sparse::Feedback;
use crate::error::Result;
use crate::ir::{
    Declaration, InfoReturnType, Instruction, Operand, RegisterKind, ResourceDimension,
    ResourceRange, ReturnType, SamplerMode, Selection, Stage, UavFlags,
};
use crate::isa::Opcode;

/// The SpecId of the specialization constant that holds the rasterizer's sample count for
/// `sampleinfo`/`samplepos` on `rasterizer` (default 1).
pub const RASTERIZER_SAMPLE_COUNT_SPEC_ID: u32 = 0x100;

/// A declared texture, typed buffer or storage image.
#[derive(Debug, Clone, Copy)]
pub struct Image {
    /// The UniformConstant variable.
    pub var: Word,
    /// The `OpTypeImage`.
    pub ty: Word,
    /// The D3D dimension.
    pub dimension: ResourceDimension,
    /// The sampled type (float, int or uint).
    pub scalar: Scalar,
    /// A storage image (UAV) rather than a sampled image.
    pub uav: bool,
    /// The image format is `Unknown` (reads and writes need the "without format" caps).
    pub unknown_format: bool,
    /// The descriptor variable.
    pub desc: Descriptor,
    /// Selected through a non-uniform index (`var` is then that element's pointer).
    pub non_uniform: bool,
}

/// The shape of a dimension.
#[derive(Debug, Clone, Copy)]
struct Shape {
    dim: Dim,
    arrayed: bool,
    ms: bool,
    /// Coordinate components (including the array layer).
    coords: u32,
    /// Components of texel offsets (0: offsets are not allowed).
    offsets: u32,
    /// Components of a size query.
    size: u32,
}

fn shape(dimension: ResourceDimension) -> Option<Shape> {
    use ResourceDimension as D;
    let s = |dim, arrayed, ms, coords, offsets, size| Shape {
        dim,
        arrayed,
        ms,
        coords,
        offsets,
        size,
    };
    Some(match dimension {
        D::Buffer => s(Dim::DimBuffer, false, false, 1, 0, 1),
        D::Texture1D => s(Dim::Dim1D, false, false, 1, 1, 1),
        D::Texture1DArray => s(Dim::Dim1D, true, false, 2, 1, 2),
        D::Texture2D => s(Dim::Dim2D, false, false, 2, 2, 2),
        D::Texture2DArray => s(Dim::Dim2D, true, false, 3, 2, 3),
        D::Texture2DMS => s(Dim::Dim2D, false, true, 2, 2, 2),
        D::Texture2DMSArray => s(Dim::Dim2D, true, true, 3, 2, 3),
        D::Texture3D => s(Dim::Dim3D, false, false, 3, 3, 3),
        D::TextureCube => s(Dim::DimCube, false, false, 3, 0, 2),
        D::TextureCubeArray => s(Dim::DimCube, true, false, 4, 0, 3),
        _ => return None,
    })
}

/// Image operands of a sampling or fetch instruction.
#[derive(Debug, Default, Clone, Copy)]
struct ImageArgs {
    bias: Option<Word>,
    lod: Option<Word>,
    grad: Option<(Word, Word)>,
    const_offset: Option<Word>,
    offset: Option<Word>,
    sample: Option<Word>,
    /// The `_cl` forms' level-of-detail clamp (`MinLod`).
    min_lod: Option<Word>,
}

impl ImageArgs {
    fn push(&self, operands: &mut crate::spirv::builder::Operands) {
        let mut mask = ImageOperands::NONE;
        let mut rest = Vec::new();
        if let Some(b) = self.bias {
            mask |= ImageOperands::BIAS;
            rest.push(b);
        }
        if let Some(l) = self.lod {
            mask |= ImageOperands::LOD;
            rest.push(l);
        }
        if let Some((x, y)) = self.grad {
            mask |= ImageOperands::GRAD;
            rest.push(x);
            rest.push(y);
        }
        if let Some(o) = self.const_offset {
            mask |= ImageOperands::CONST_OFFSET;
            rest.push(o);
        }
        if let Some(o) = self.offset {
            mask |= ImageOperands::OFFSET;
            rest.push(o);
        }
        if let Some(s) = self.sample {
            mask |= ImageOperands::SAMPLE;
            rest.push(s);
        }
        if let Some(m) = self.min_lod {
            mask |= ImageOperands::MIN_LOD;
            rest.push(m);
        }
        if !mask.is_empty() {
            operands.push(SpvOperand::ImageOperands(mask));
            operands.extend(rest.into_iter().map(SpvOperand::IdRef));
        }
    }
}

/// The component type of a resource's return type.
///
/// `double` (with `continued` for its high half) is the return type of `Buffer<double2>`
/// and the like (fxc accepts doubles in typed resources as long as an element fits in four
/// 32-bit values): DXGI has no double format, so the view holds each double as two 32-bit
/// texel components and loads and stores move those bits unchanged, low half first, as a
/// double sits in two registers' components. Such a resource is read and written as `uint`.
///
/// `mixed` is what fxc declares for a `tbuffer` (`dcl_resource_buffer (mixed,mixed,mixed,
/// mixed)`, read with `ld`): the shader takes the texels' 32-bit patterns and reinterprets
/// them itself, so the resource is read as `uint` (as vkd3d-shader does), and the view bound
/// to it needs a 32-bit integer format (R32G32B32A32_UINT for a `tbuffer` of floats).
///
/// The other codes are no return type of a typed resource (an error naming the rule):
/// `continued` only follows a `double`, and `none`/`unused` say the component is not there.
fn return_scalar(return_type: ReturnType) -> std::result::Result<Scalar, &'static str> {
    match return_type {
        ReturnType::Float | ReturnType::Unorm | ReturnType::Snorm => Ok(Scalar::F32),
        ReturnType::Sint => Ok(Scalar::I32),
        ReturnType::Uint | ReturnType::Double | ReturnType::Mixed => Ok(Scalar::U32),
        ReturnType::Continued => Err("continued is the high half of a double before it"),
        ReturnType::None | ReturnType::Unused => Err("the component is not there"),
    }
}

/// The component of a resource operand's selection read for result component `c`.
fn selected(operand: &Operand, c: u8) -> u8 {
    match operand.selection {
        Selection::Swizzle(s) => s.get(c as usize).copied().unwrap_or(c) & 3,
        Selection::Select1(s) => s & 3,
        Selection::Mask(_) => c & 3,
    }
}

/// D3D's standard sample positions (in 1/16 pixel) for 1, 2, 4, 8 and 16 samples, one
/// after the other: the pattern for `n` samples starts at entry `n - 1`.
const SAMPLE_POSITIONS: [(i8, i8); 31] = [
    (0, 0),
    (4, 4),
    (-4, -4),
    (-2, -6),
    (6, -2),
    (-6, 2),
    (2, 6),
    (1, -3),
    (-1, 3),
    (5, 1),
    (-3, -5),
    (-5, 5),
    (-7, -1),
    (3, 7),
    (7, -7),
    (1, 1),
    (-1, -3),
    (-3, 2),
    (4, -1),
    (-5, -2),
    (2, 5),
    (5, 3),
    (3, -5),
    (-2, 6),
    (0, -7),
    (-4, -6),
    (-6, 4),
    (-8, 0),
    (7, -4),
    (6, 7),
    (-7, -8),
];

impl Emitter<'_> {
    /// Emits an instruction with a result into the selected block.
    pub(super) fn raw_op(
        &mut self,
        op: Op,
        ty: Word,
        operands: crate::spirv::builder::Operands,
    ) -> Result<Word> {
        let id = self.m.b.id();
        let inst = crate::spirv::builder::inst(op, Some(ty), Some(id), operands);
        built(self.m.b.append(inst))?;
        Ok(id)
    }

    /// `dcl_sampler`.
    pub fn declare_sampler(&mut self, range: &ResourceRange, _mode: SamplerMode) -> Result<()> {
        let ty = self.m.b.type_sampler();
        let desc = self.declare_descriptor(
            RegisterKind::Sampler,
            range,
            ty,
            StorageClass::UniformConstant,
            DescriptorType::Sampled,
            self.debug_name(format_args!("s{}", range.id)),
        )?;
        self.res.samplers.insert(range.id, desc);
        Ok(())
    }

    /// Whether an atomic instruction of the program targets UAV range `id`.
    fn uav_has_atomics(&self, id: u32) -> bool {
        self.program.instructions.iter().any(|instruction| {
            let Some((alloc, immediate)) = super::resources::atomic_info(instruction.opcode) else {
                return false;
            };
            if alloc {
                return false;
            }
            let operands = self.program.operands_of(instruction);
            let resource = if immediate {
                operands.get(1)
            } else {
                operands.first()
            };
            resource.is_some_and(|r| {
                r.kind == RegisterKind::UnorderedAccessView
                    && r.indices().first().and_then(|i| i.as_imm32()) == Some(id)
            })
        })
    }

    /// `dcl_resource_*` (typed SRVs) and `dcl_uav_typed_*`.
    pub fn declare_typed(
        &mut self,
        range: &ResourceRange,
        dimension: ResourceDimension,
        return_type: [ReturnType; 4],
        uav: Option<UavFlags>,
    ) -> Result<()> {
        let shape = shape(dimension).ok_or_else(|| {
            self.err(format!(
                "a typed resource of dimension {}",
                dimension.name()
            ))
        })?;
        let scalar = return_scalar(return_type[0]).map_err(|why| {
            self.err(format!(
                "a typed resource whose first component returns {}: {why}, not a typed \
                 resource's (unorm, snorm, sint, uint, float, double or mixed)",
                return_type[0].name()
            ))
        })?;
        let mut format = ImageFormat::Unknown;
        if let Some(flags) = uav {
            if flags.rasterizer_ordered {
                self.require_interlock()?;
            }
            if shape.ms {
                return Err(self.err("a multisampled UAV"));
            }
            if self.uav_has_atomics(range.id) {
                format = match return_type[0] {
                    ReturnType::Uint => ImageFormat::R32ui,
                    ReturnType::Sint => ImageFormat::R32i,
                    // The SM5 reference of every `atomic_*`/`imm_atomic_*` (seeds
                    // `imm_atomic_cmp_exch`, `imm_atomic_and`): "If typed, it must be declared
                    // as UINT/SINT with the bound resource format being R32_UINT/_SINT".
                    _ => {
                        return Err(self.err(format!(
                            "an atomic operation on u{}, a typed UAV returning {}: a typed UAV \
                             with atomics must be declared uint or sint (its format \
                             R32_UINT or R32_SINT)",
                            range.id,
                            return_type[0].name()
                        )))
                    }
                };
            }
        }
        let caps: &[Capability] = match (dimension, uav.is_some()) {
            (ResourceDimension::Buffer, false) => &[Capability::SampledBuffer],
            (ResourceDimension::Buffer, true) => &[Capability::ImageBuffer],
            (ResourceDimension::Texture1D | ResourceDimension::Texture1DArray, false) => {
                &[Capability::Sampled1D]
            }
            (ResourceDimension::Texture1D | ResourceDimension::Texture1DArray, true) => {
                &[Capability::Image1D]
            }
            (ResourceDimension::TextureCubeArray, false) => &[Capability::SampledCubeArray],
            (ResourceDimension::TextureCubeArray, true) => &[Capability::ImageCubeArray],
            (ResourceDimension::Texture2DMSArray, true) => &[Capability::ImageMSArray],
            _ => &[],
        };
        for &cap in caps {
            self.m.capability(cap);
        }
        let sampled_type = self.m.scalar(scalar);
        let ty = self.m.b.type_image(
            sampled_type,
            shape.dim,
            0,
            shape.arrayed as u32,
            shape.ms as u32,
            if uav.is_some() { 2 } else { 1 },
            format,
            None,
        );
        let buffer = dimension == ResourceDimension::Buffer;
        let (kind, prefix, descriptor_type) = match (uav, buffer) {
            (Some(_), true) => (
                RegisterKind::UnorderedAccessView,
                "u",
                DescriptorType::StorageTexelBuffer,
            ),
            (Some(_), false) => (
                RegisterKind::UnorderedAccessView,
                "u",
                DescriptorType::StorageImage,
            ),
            (None, true) => (
                RegisterKind::Resource,
                "t",
                DescriptorType::UniformTexelBuffer,
            ),
            (None, false) => (RegisterKind::Resource, "t", DescriptorType::Sampled),
        };
        let desc = self.declare_descriptor(
            kind,
            range,
            ty,
            StorageClass::UniformConstant,
            descriptor_type,
            self.debug_name(format_args!("{prefix}{}", range.id)),
        )?;
        let var = desc.var;
        if uav.is_some_and(|f| f.globally_coherent) {
            self.decorate(var, Decoration::Coherent, &[]);
        }
        self.res.images.insert(
            (kind as u8, range.id),
            Image {
                var,
                ty,
                dimension,
                scalar,
                uav: uav.is_some(),
                unknown_format: format == ImageFormat::Unknown,
                desc,
                non_uniform: false,
            },
        );
        Ok(())
    }

    /// The declared image of a `t#` or `u#` operand, if it is a typed one.
    pub fn image_of(&self, operand: &Operand) -> Option<Image> {
        let id = operand.indices().first().and_then(|i| i.as_imm32())?;
        self.res.images.get(&(operand.kind as u8, id)).copied()
    }

    /// The image with `var` pointing at the descriptor `operand` selects.
    fn select_image(&mut self, image: Image, operand: &Operand) -> Result<Image> {
        let selected = self.select_descriptor(&image.desc, operand)?;
        Ok(Image {
            var: selected.ptr,
            non_uniform: selected.non_uniform,
            ..image
        })
    }

    fn typed_image(&mut self, operand: &Operand) -> Result<(Image, Shape)> {
        let image = self.image_of(operand).ok_or_else(|| {
            self.err(format!(
                "{} is not a declared typed resource",
                operand.kind.name()
            ))
        })?;
        let shape = shape(image.dimension)
            .ok_or_else(|| self.err("a typed resource without a dimension"))?;
        let image = self.select_image(image, operand)?;
        Ok((image, shape))
    }

    fn load_image(&mut self, image: &Image) -> Result<Word> {
        let value = built(self.m.load(image.ty, image.var))?;
        if image.non_uniform {
            self.decorate(value, Decoration::NonUniform, &[]);
        }
        Ok(value)
    }

    fn sampled_image(&mut self, image: &Image, sampler: &Operand) -> Result<Word> {
        if sampler.kind != RegisterKind::Sampler {
            return Err(self.err("expected a sampler operand"));
        }
        let id = self.immediate_index(sampler, 0)?;
        let desc = self
            .res
            .samplers
            .get(&id)
            .copied()
            .ok_or_else(|| self.err(format!("s{id} is not declared")))?;
        let selected = self.select_descriptor(&desc, sampler)?;
        let sampler_ty = self.m.b.type_sampler();
        let sampler_value = built(self.m.load(sampler_ty, selected.ptr))?;
        if selected.non_uniform {
            self.decorate(sampler_value, Decoration::NonUniform, &[]);
        }
        let image_value = self.load_image(image)?;
        let ty = self.m.b.type_sampled_image(image.ty);
        let value = built(self.m.b.sampled_image(ty, None, image_value, sampler_value))?;
        if image.non_uniform || selected.non_uniform {
            self.decorate(value, Decoration::NonUniform, &[]);
        }
        Ok(value)
    }

    /// The first `count` components of an operand as `scalar`.
    fn coords(&mut self, operand: &Operand, scalar: Scalar, count: u32) -> Result<Word> {
        let mask = ((1u32 << count.min(4)) - 1) as u8;
        Ok(self.load(operand, scalar, mask)?.id)
    }

    /// The `_aoffimmi` offsets as a `ConstOffset` operand (none when all are zero or the
    /// dimension takes no offsets).
    fn const_offset(&mut self, instruction: &Instruction, shape: &Shape) -> Option<Word> {
        let offsets = instruction.extended.offsets?;
        let n = shape.offsets as usize;
        if n == 0 || offsets.iter().take(n).all(|&o| o == 0) {
            return None;
        }
        let bits: Vec<u32> = offsets.iter().take(n).map(|&o| o as i32 as u32).collect();
        Some(self.m.constant_vector(Scalar::I32, &bits))
    }

    /// Writes a 4-component result through the resource operand's swizzle into `dst`.
    fn store_selected(
        &mut self,
        instruction: &Instruction,
        dst: &Operand,
        resource: &Operand,
        value: Val,
    ) -> Result<()> {
        if dst.kind == RegisterKind::Null {
            return Ok(());
        }
        // The i-th written component reads component i (`.xyzw` of a `.xyzw` resource): the
        // value as it is, none of its components taken out here.
        let in_order = mask_components(dst.mask())
            .enumerate()
            .all(|(i, c)| selected(resource, c) as usize == i && i < value.count as usize);
        if in_order {
            return self.store(dst, value, instruction.saturate);
        }
        let mut parts = Vec::new();
        for c in mask_components(dst.mask()) {
            let from = selected(resource, c) as u32;
            parts.push(self.extract(value, from.min(value.count - 1))?.id);
        }
        if parts.is_empty() {
            return Ok(());
        }
        let result = self.compose(value.scalar, &parts)?;
        self.store(dst, result, instruction.saturate)
    }

    /// A 4-component value from up to four parts, padded with zeros.
    fn vec4_of(&mut self, scalar: Scalar, parts: &[Word]) -> Result<Val> {
        let zero = self.m.constant_bits(scalar, 0);
        let mut all: Vec<Word> = parts.iter().copied().take(4).collect();
        while all.len() < 4 {
            all.push(zero);
        }
        self.compose(scalar, &all)
    }

    /// The components of a vector value (or the value itself).
    fn parts_of(&mut self, value: Val) -> Result<Vec<Word>> {
        let mut parts = Vec::new();
        for i in 0..value.count {
            parts.push(self.extract(value, i)?.id);
        }
        Ok(parts)
    }

    /// Texture and typed-UAV instructions; returns false for other opcodes.
    pub fn texture_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        use Opcode as O;
        match instruction.opcode {
            O::Sample
            | O::SampleB
            | O::SampleL
            | O::SampleD
            | O::SampleC
            | O::SampleCLz
            | O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC => {
                let operands = self.program.operands_of(instruction);
                self.sample(instruction, instruction.opcode, operands, None)?
            }
            O::Ld | O::LdMs => {
                let operands = self.program.operands_of(instruction);
                self.texel_fetch(instruction, operands, None)?
            }
            O::Resinfo => self.resinfo(instruction)?,
            O::SampleInfo | O::SamplePos => self.sample_info(instruction)?,
            O::Lod => self.query_lod(instruction)?,
            O::Bufinfo => self.bufinfo(instruction)?,
            O::LdUavTyped => {
                let operands = self.program.operands_of(instruction);
                self.ld_uav_typed(instruction, operands, None)?
            }
            O::StoreUavTyped => self.store_uav_typed(instruction)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Sampling and gathers: `opcode` is the instruction's own or, for a `_s` form, its base
    /// (then `operands` lack the status and clamp, which `feedback` holds).
    pub(super) fn sample(
        &mut self,
        instruction: &Instruction,
        opcode: Opcode,
        operands: &[Operand],
        feedback: Option<&Feedback>,
    ) -> Result<()> {
        use Opcode as O;
        let programmable = matches!(opcode, O::Gather4Po | O::Gather4PoC);
        let (dst, coord, offset, resource, sampler, extra) = match (programmable, operands) {
            (false, [dst, coord, resource, sampler, extra @ ..]) => {
                (*dst, *coord, None, *resource, *sampler, extra)
            }
            (true, [dst, coord, offset, resource, sampler, extra @ ..]) => {
                (*dst, *coord, Some(*offset), *resource, *sampler, extra)
            }
            _ => return Err(self.err("wrong operand count")),
        };
        let (image, shape) = self.typed_image(&resource)?;
        if image.uav || shape.ms || shape.dim == Dim::DimBuffer {
            return Err(self.err("sampling needs a non-multisampled texture SRV"));
        }
        let pixel = self.program.model.stage == Stage::Pixel;
        let implicit = matches!(opcode, O::Sample | O::SampleB | O::SampleC);
        if !pixel && matches!(opcode, O::SampleB) {
            return Err(self.err(format!(
                "{} (implicit level of detail) is only allowed in pixel shaders",
                opcode.name()
            )));
        }
        let coordinate = self.coords(&coord, Scalar::F32, shape.coords)?;
        let sampled = self.sampled_image(&image, &sampler)?;
        let mut args = ImageArgs {
            const_offset: self.const_offset(instruction, &shape),
            ..Default::default()
        };
        if let Some(offset) = offset {
            if shape.offsets > 0 {
                args.offset = Some(self.coords(&offset, Scalar::I32, shape.offsets)?);
                args.const_offset = None;
                self.m.capability(Capability::ImageGatherExtended);
            }
        }
        let extra_value = |e: &mut Self, i: usize| -> Result<Word> {
            let operand = extra
                .get(i)
                .copied()
                .ok_or_else(|| e.err("wrong operand count"))?;
            Ok(e.load_scalar(&operand, Scalar::F32)?.id)
        };
        let comparison = matches!(
            opcode,
            O::SampleC | O::SampleCLz | O::Gather4C | O::Gather4PoC
        );
        if comparison && image.scalar != Scalar::F32 {
            return Err(self.err(format!(
                "{} compares against a resource whose return type is not float",
                opcode.name()
            )));
        }
        // D3D compares on 1D, 2D and cube textures (and their arrays) only; Vulkan forbids
        // depth-comparison sampling of 3D images.
        if comparison && image.dimension == ResourceDimension::Texture3D {
            return Err(self.err(format!(
                "{} compares against a 3D texture (comparison sampling takes 1D, 2D or cube \
                 textures)",
                opcode.name()
            )));
        }
        let float = self.m.scalar(Scalar::F32);
        let vec4 = self.m.vector(image.scalar, 4);
        let zero_f = self.m.constant_bits(Scalar::F32, 0);
        let explicit_zero = !pixel && implicit;
        let (op, result_ty, mut spv_operands, scalar_result) = match opcode {
            O::Sample | O::SampleB | O::SampleL | O::SampleD => {
                match opcode {
                    O::SampleB => args.bias = Some(extra_value(self, 0)?),
                    O::SampleL => args.lod = Some(extra_value(self, 0)?),
                    O::SampleD => {
                        let n = shape.coords - shape.arrayed as u32;
                        let ddx = extra.first().copied();
                        let ddy = extra.get(1).copied();
                        let (Some(ddx), Some(ddy)) = (ddx, ddy) else {
                            return Err(self.err("wrong operand count"));
                        };
                        let ddx = self.coords(&ddx, Scalar::F32, n)?;
                        let ddy = self.coords(&ddy, Scalar::F32, n)?;
                        args.grad = Some((ddx, ddy));
                    }
                    _ if explicit_zero => args.lod = Some(zero_f),
                    _ => {}
                }
                let op = if (opcode == O::Sample && !explicit_zero) || opcode == O::SampleB {
                    Op::ImageSampleImplicitLod
                } else {
                    Op::ImageSampleExplicitLod
                };
                (
                    op,
                    vec4,
                    smallvec::smallvec![SpvOperand::IdRef(sampled), SpvOperand::IdRef(coordinate)],
                    false,
                )
            }
            O::SampleC | O::SampleCLz => {
                let reference = extra_value(self, 0)?;
                let op = if opcode == O::SampleC && !explicit_zero {
                    Op::ImageSampleDrefImplicitLod
                } else {
                    args.lod = Some(zero_f);
                    Op::ImageSampleDrefExplicitLod
                };
                (
                    op,
                    float,
                    smallvec::smallvec![
                        SpvOperand::IdRef(sampled),
                        SpvOperand::IdRef(coordinate),
                        SpvOperand::IdRef(reference),
                    ],
                    true,
                )
            }
            O::Gather4 | O::Gather4Po => {
                let channel = self.m.constant_u32(selected(&sampler, 0) as u32);
                (
                    Op::ImageGather,
                    vec4,
                    smallvec::smallvec![
                        SpvOperand::IdRef(sampled),
                        SpvOperand::IdRef(coordinate),
                        SpvOperand::IdRef(channel),
                    ],
                    false,
                )
            }
            _ => {
                let reference = extra_value(self, 0)?;
                (
                    Op::ImageDrefGather,
                    vec4,
                    smallvec::smallvec![
                        SpvOperand::IdRef(sampled),
                        SpvOperand::IdRef(coordinate),
                        SpvOperand::IdRef(reference),
                    ],
                    false,
                )
            }
        };
        if matches!(
            opcode,
            O::Gather4 | O::Gather4C | O::Gather4Po | O::Gather4PoC
        ) && !matches!(shape.dim, Dim::Dim2D | Dim::DimCube)
        {
            return Err(self.err("gather4 needs a 2D, 2D array, cube or cube array texture"));
        }
        if let Some(clamp) = feedback.and_then(|f| f.clamp) {
            args.min_lod = self.lod_clamp(&clamp)?;
        }
        args.push(&mut spv_operands);
        let id = self.image_op(op, result_ty, spv_operands, feedback, false)?;
        let value = if scalar_result {
            // The comparison result is replicated to every component.
            self.vec4_of(Scalar::F32, &[id, id, id, id])?
        } else {
            Val {
                id,
                scalar: if matches!(opcode, O::Gather4C | O::Gather4PoC) {
                    Scalar::F32
                } else {
                    image.scalar
                },
                count: 4,
            }
        };
        self.store_selected(instruction, &dst, &resource, value)
    }

    /// `ld` and `ld2dms`: texel fetches, with the mip level in `.w` of the address.
    pub(super) fn texel_fetch(
        &mut self,
        instruction: &Instruction,
        operands: &[Operand],
        feedback: Option<&Feedback>,
    ) -> Result<()> {
        let (dst, coord, resource, sample) = match operands {
            [dst, coord, resource] => (*dst, *coord, *resource, None),
            [dst, coord, resource, sample] => (*dst, *coord, *resource, Some(*sample)),
            _ => return Err(self.err("wrong operand count")),
        };
        let (image, shape) = self.typed_image(&resource)?;
        if image.uav {
            return Err(self.err("ld reads shader resource views (use ld_uav_typed for UAVs)"));
        }
        if shape.dim == Dim::DimCube {
            return Err(
                self.err("ld cannot read a cube texture (D3D and Vulkan fetch no cube texels)")
            );
        }
        let coordinate = self.coords(&coord, Scalar::I32, shape.coords)?;
        let mut args = ImageArgs::default();
        if shape.ms {
            let sample =
                sample.ok_or_else(|| self.err("ld on a multisampled texture needs ld2dms"))?;
            args.sample = Some(self.load_scalar(&sample, Scalar::I32)?.id);
        } else if shape.dim != Dim::DimBuffer {
            args.lod = Some(self.load(&coord, Scalar::I32, 0b1000)?.id);
        }
        if shape.dim != Dim::DimBuffer {
            args.const_offset = self.const_offset(instruction, &shape);
        }
        let image_value = self.load_image(&image)?;
        let vec4 = self.m.vector(image.scalar, 4);
        let mut spv_operands = smallvec::smallvec![
            SpvOperand::IdRef(image_value),
            SpvOperand::IdRef(coordinate),
        ];
        args.push(&mut spv_operands);
        let buffer = shape.dim == Dim::DimBuffer;
        let id = self.image_op(Op::ImageFetch, vec4, spv_operands, feedback, buffer)?;
        let value = Val {
            id,
            scalar: image.scalar,
            count: 4,
        };
        self.store_selected(instruction, &dst, &resource, value)
    }

    /// `resinfo`: width, height, depth or array size, and the mip count.
    fn resinfo(&mut self, instruction: &Instruction) -> Result<()> {
        let operands = self.program.operands_of(instruction);
        let [dst, mip, resource] = operands else {
            return Err(self.err("wrong operand count"));
        };
        let (dst, mip, resource) = (*dst, *mip, *resource);
        let (image, shape) = self.typed_image(&resource)?;
        if shape.dim == Dim::DimBuffer {
            return Err(self.err("resinfo on a buffer (use bufinfo)"));
        }
        self.m.capability(Capability::ImageQuery);
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let size_ty = self.m.vector(Scalar::U32, shape.size);
        let image_value = self.load_image(&image)?;
        let (size, levels, in_range) = if image.uav || shape.ms {
            let size = self.raw_op(
                Op::ImageQuerySize,
                size_ty,
                smallvec::smallvec![SpvOperand::IdRef(image_value)],
            )?;
            let levels = self.m.constant_u32(1);
            let mip = self.load_scalar(&mip, Scalar::U32)?.id;
            let in_range = built(self.m.b.u_less_than(boolean, None, mip, levels))?;
            (size, levels, in_range)
        } else {
            let levels = self.raw_op(
                Op::ImageQueryLevels,
                uint,
                smallvec::smallvec![SpvOperand::IdRef(image_value)],
            )?;
            let mip = self.load_scalar(&mip, Scalar::U32)?.id;
            let in_range = built(self.m.b.u_less_than(boolean, None, mip, levels))?;
            let zero = self.m.constant_u32(0);
            let lod = built(self.m.select(uint, None, in_range, mip, zero))?;
            let size = self.raw_op(
                Op::ImageQuerySizeLod,
                size_ty,
                smallvec::smallvec![SpvOperand::IdRef(image_value), SpvOperand::IdRef(lod)],
            )?;
            (size, levels, in_range)
        };
        let size = Val {
            id: size,
            scalar: Scalar::U32,
            count: shape.size,
        };
        let dims = self.parts_of(size)?;
        let zero = self.m.constant_u32(0);
        let return_type = instruction
            .info_return_type
            .unwrap_or(InfoReturnType::Float);
        let value = match return_type {
            InfoReturnType::Uint => {
                let mut parts = Vec::new();
                for d in &dims {
                    parts.push(built(self.m.select(uint, None, in_range, *d, zero))?);
                }
                while parts.len() < 3 {
                    parts.push(zero);
                }
                parts.push(levels);
                self.vec4_of(Scalar::U32, &parts)?
            }
            InfoReturnType::Float | InfoReturnType::RcpFloat => {
                let float = self.m.scalar(Scalar::F32);
                let one = self.m.constant_bits(Scalar::F32, 1.0f32.to_bits());
                let zero_f = self.m.constant_bits(Scalar::F32, 0);
                let mut parts = Vec::new();
                for d in &dims {
                    let f = built(self.m.b.convert_u_to_f(float, None, *d))?;
                    let f = if return_type == InfoReturnType::RcpFloat {
                        built(self.m.b.f_div(float, None, one, f))?
                    } else {
                        f
                    };
                    // Dimensions of a mip level out of range read as 0.
                    parts.push(built(self.m.select(float, None, in_range, f, zero_f))?);
                }
                while parts.len() < 3 {
                    parts.push(zero_f);
                }
                parts.push(built(self.m.b.convert_u_to_f(float, None, levels))?);
                self.vec4_of(Scalar::F32, &parts)?
            }
        };
        self.store_selected(instruction, &dst, &resource, value)
    }

    /// `sampleinfo` (sample count in `.x`) and `samplepos` (the standard pattern).
    fn sample_info(&mut self, instruction: &Instruction) -> Result<()> {
        let operands = self.program.operands_of(instruction);
        let (dst, resource, index) = match operands {
            [dst, resource] => (*dst, *resource, None),
            [dst, resource, index] => (*dst, *resource, Some(*index)),
            _ => return Err(self.err("wrong operand count")),
        };
        let count = if resource.kind == RegisterKind::Rasterizer {
            self.rasterizer_sample_count()
        } else {
            let (image, shape) = self.typed_image(&resource)?;
            if !shape.ms {
                // The SM4.1 assembly reference of `sampleinfo` and `samplepos`: "valid only for
                // resources that can be loaded using ld2dms unless the rasterizer is
                // specified".
                return Err(self.err(format!(
                    "{} reads a resource that is not multisampled: D3D allows it only on \
                     resources ld2dms can load (texture2dms, texture2dmsarray) or on the \
                     rasterizer",
                    instruction.opcode.name()
                )));
            }
            self.m.capability(Capability::ImageQuery);
            let uint = self.m.scalar(Scalar::U32);
            let image_value = self.load_image(&image)?;
            self.raw_op(
                Op::ImageQuerySamples,
                uint,
                smallvec::smallvec![SpvOperand::IdRef(image_value)],
            )?
        };
        let value = match index {
            None => {
                if instruction.info_return_type == Some(InfoReturnType::Uint) {
                    self.vec4_of(Scalar::U32, &[count])?
                } else {
                    let float = self.m.scalar(Scalar::F32);
                    let f = built(self.m.b.convert_u_to_f(float, None, count))?;
                    self.vec4_of(Scalar::F32, &[f])?
                }
            }
            Some(index) => {
                let index = self.load_scalar(&index, Scalar::U32)?.id;
                let position = self.sample_position(count, index)?;
                let parts = self.parts_of(position)?;
                self.vec4_of(Scalar::F32, &parts)?
            }
        };
        self.store_selected(instruction, &dst, &resource, value)
    }

    /// The rasterizer's sample count: Vulkan has no built-in for it, so it is a
    /// specialization constant (SpecId [`RASTERIZER_SAMPLE_COUNT_SPEC_ID`], default 1) that
    /// the pipeline sets to its `rasterizationSamples`.
    pub(super) fn rasterizer_sample_count(&mut self) -> Word {
        if let Some(id) = self.res.rasterizer_samples {
            return id;
        }
        let uint = self.m.scalar(Scalar::U32);
        let id = self.m.b.spec_constant_bit32(uint, 1);
        self.decorate(
            id,
            spirv::Decoration::SpecId,
            &[RASTERIZER_SAMPLE_COUNT_SPEC_ID],
        );
        self.res.rasterizer_samples = Some(id);
        id
    }

    /// The standard position of sample `index` of `count` (0, 0 when out of range or for a
    /// count that has no standard pattern).
    pub(super) fn sample_position(&mut self, count: Word, index: Word) -> Result<Val> {
        let vec2 = self.m.vector(Scalar::F32, 2);
        let table = match self.res.sample_positions {
            Some(var) => var,
            None => {
                let mut elements = Vec::new();
                for (x, y) in SAMPLE_POSITIONS {
                    let bits = [(x as f32 / 16.0).to_bits(), (y as f32 / 16.0).to_bits()];
                    elements.push(self.m.constant_vector(Scalar::F32, &bits));
                }
                let array = self.m.array(vec2, SAMPLE_POSITIONS.len() as u32);
                let id = self.private_table(array, elements);
                self.res.sample_positions = Some(id);
                id
            }
        };
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let one = self.m.constant_u32(1);
        let zero = self.m.constant_u32(0);
        let sixteen = self.m.constant_u32(16);
        // A standard count is a power of two up to 16; the index must be below it.
        let minus_one = built(self.m.b.i_sub(uint, None, count, one))?;
        let and = built(self.m.b.bitwise_and(uint, None, count, minus_one))?;
        let pow2 = built(self.m.b.i_equal(boolean, None, and, zero))?;
        let nonzero = built(self.m.b.u_less_than(boolean, None, zero, count))?;
        let small = built(self.m.b.u_less_than_equal(boolean, None, count, sixteen))?;
        let below = built(self.m.b.u_less_than(boolean, None, index, count))?;
        let a = built(self.m.b.logical_and(boolean, None, pow2, nonzero))?;
        let b = built(self.m.b.logical_and(boolean, None, small, below))?;
        let valid = built(self.m.b.logical_and(boolean, None, a, b))?;
        let slot = built(self.m.b.i_add(uint, None, minus_one, index))?;
        let slot = built(self.m.select(uint, None, valid, slot, zero))?;
        let pointer = self.m.pointer(StorageClass::Private, vec2);
        let ptr = built(self.m.access_chain(pointer, table, &[slot]))?;
        let position = built(self.m.load(vec2, ptr))?;
        let zeros = self.splat_bits(Scalar::F32, 0, 2);
        let bvec2 = self.m.vector(Scalar::Bool, 2);
        let valid2 = built(self.m.composite_construct(bvec2, &[valid, valid]))?;
        let id = built(self.m.select(vec2, None, valid2, position, zeros))?;
        Ok(Val {
            id,
            scalar: Scalar::F32,
            count: 2,
        })
    }

    /// `lod`: (clamped, unclamped) level of detail.
    fn query_lod(&mut self, instruction: &Instruction) -> Result<()> {
        let operands = self.program.operands_of(instruction);
        let [dst, coord, resource, sampler] = operands else {
            return Err(self.err("wrong operand count"));
        };
        let (dst, coord, resource, sampler) = (*dst, *coord, *resource, *sampler);
        if self.program.model.stage != Stage::Pixel {
            return Err(self.err("lod (implicit level of detail) is only allowed in pixel shaders"));
        }
        let (image, shape) = self.typed_image(&resource)?;
        if image.uav || shape.ms || shape.dim == Dim::DimBuffer {
            return Err(self.err("lod needs a non-multisampled texture SRV"));
        }
        self.m.capability(Capability::ImageQuery);
        let n = shape.coords - shape.arrayed as u32;
        let coordinate = self.coords(&coord, Scalar::F32, n)?;
        let sampled = self.sampled_image(&image, &sampler)?;
        let vec2 = self.m.vector(Scalar::F32, 2);
        let id = self.raw_op(
            Op::ImageQueryLod,
            vec2,
            smallvec::smallvec![SpvOperand::IdRef(sampled), SpvOperand::IdRef(coordinate)],
        )?;
        let parts = self.parts_of(Val {
            id,
            scalar: Scalar::F32,
            count: 2,
        })?;
        let value = self.vec4_of(Scalar::F32, &parts)?;
        self.store_selected(instruction, &dst, &resource, value)
    }

    /// `bufinfo`: the element count of a typed, raw (bytes) or structured buffer.
    fn bufinfo(&mut self, instruction: &Instruction) -> Result<()> {
        let operands = self.program.operands_of(instruction);
        let [dst, resource] = operands else {
            return Err(self.err("wrong operand count"));
        };
        let (dst, resource) = (*dst, *resource);
        let count = match self.image_of(&resource) {
            Some(image) => {
                if image.dimension != ResourceDimension::Buffer {
                    return Err(self.err("bufinfo on a texture (use resinfo)"));
                }
                self.m.capability(Capability::ImageQuery);
                let uint = self.m.scalar(Scalar::U32);
                let image = self.select_image(image, &resource)?;
                let image_value = self.load_image(&image)?;
                self.raw_op(
                    Op::ImageQuerySize,
                    uint,
                    smallvec::smallvec![SpvOperand::IdRef(image_value)],
                )?
            }
            None => self.buffer_element_count(&resource)?,
        };
        let value = self.vec4_of(Scalar::U32, &[count, count, count, count])?;
        self.store_selected(instruction, &dst, &resource, value)
    }

    fn uav_coords(&mut self, operand: &Operand, shape: &Shape) -> Result<Word> {
        self.coords(operand, Scalar::U32, shape.coords)
    }

    /// `ld_uav_typed`.
    pub(super) fn ld_uav_typed(
        &mut self,
        instruction: &Instruction,
        operands: &[Operand],
        feedback: Option<&Feedback>,
    ) -> Result<()> {
        let [dst, coord, resource] = operands else {
            return Err(self.err("wrong operand count"));
        };
        let (dst, coord, resource) = (*dst, *coord, *resource);
        let (image, shape) = self.typed_image(&resource)?;
        if !image.uav {
            return Err(self.err("ld_uav_typed needs a typed UAV"));
        }
        if image.unknown_format {
            self.m.capability(Capability::StorageImageReadWithoutFormat);
        }
        let coordinate = self.uav_coords(&coord, &shape)?;
        let image_value = self.load_image(&image)?;
        let vec4 = self.m.vector(image.scalar, 4);
        let id = self.image_op(
            Op::ImageRead,
            vec4,
            smallvec::smallvec![
                SpvOperand::IdRef(image_value),
                SpvOperand::IdRef(coordinate),
            ],
            feedback,
            shape.dim == Dim::DimBuffer,
        )?;
        let value = Val {
            id,
            scalar: image.scalar,
            count: 4,
        };
        self.store_selected(instruction, &dst, &resource, value)
    }

    /// `store_uav_typed`: writes all four components.
    fn store_uav_typed(&mut self, instruction: &Instruction) -> Result<()> {
        let operands = self.program.operands_of(instruction);
        let [resource, coord, value] = operands else {
            return Err(self.err("wrong operand count"));
        };
        let (resource, coord, value) = (*resource, *coord, *value);
        let (image, shape) = self.typed_image(&resource)?;
        if !image.uav {
            return Err(self.err("store_uav_typed needs a typed UAV"));
        }
        if image.unknown_format {
            self.m
                .capability(Capability::StorageImageWriteWithoutFormat);
        }
        let coordinate = self.uav_coords(&coord, &shape)?;
        let texel = self.load(&value, image.scalar, 0b1111)?;
        let image_value = self.load_image(&image)?;
        let inst = crate::spirv::builder::of_ids(
            Op::ImageWrite,
            None,
            None,
            &[image_value, coordinate, texel.id],
        );
        built(self.m.b.append(inst))
    }

    /// A pointer to the texel of a typed UAV for an atomic, its in-bounds condition, and the
    /// UAV's component type.
    pub fn typed_atomic_pointer(
        &mut self,
        resource: &Operand,
        address: &Operand,
    ) -> Result<(Word, Word, Scalar)> {
        let (image, shape) = self.typed_image(resource)?;
        if !image.uav || image.unknown_format {
            return Err(self.err("atomics need an R32 uint or sint typed UAV"));
        }
        self.m.capability(Capability::ImageQuery);
        let coordinate = self.uav_coords(address, &shape)?;
        let image_value = self.load_image(&image)?;
        let size_ty = self.m.vector(Scalar::U32, shape.size);
        let size = self.raw_op(
            Op::ImageQuerySize,
            size_ty,
            smallvec::smallvec![SpvOperand::IdRef(image_value)],
        )?;
        let boolean = self.m.scalar(Scalar::Bool);
        let in_range = if shape.coords == 1 {
            built(self.m.b.u_less_than(boolean, None, coordinate, size))?
        } else {
            let bvec = self.m.vector(Scalar::Bool, shape.coords);
            let each = built(self.m.b.u_less_than(bvec, None, coordinate, size))?;
            built(self.m.b.all(boolean, None, each))?
        };
        let scalar_ty = self.m.scalar(image.scalar);
        let pointer = self.m.pointer(StorageClass::Image, scalar_ty);
        let zero = self.m.constant_u32(0);
        let ptr = built(
            self.m
                .b
                .image_texel_pointer(pointer, None, image.var, coordinate, zero),
        )?;
        if image.non_uniform {
            self.decorate(ptr, Decoration::NonUniform, &[]);
        }
        Ok((ptr, in_range, image.scalar))
    }

    /// `imm_atomic_alloc` (returns the counter before incrementing) and `imm_atomic_consume`
    /// (decrements and returns the new value) on a UAV's counter.
    pub fn counter_atomic(&mut self, result: &Operand, uav: &Operand, consume: bool) -> Result<()> {
        if uav.kind != RegisterKind::UnorderedAccessView {
            return Err(self.err("UAV counters belong to UAVs"));
        }
        let id = self.immediate_index(uav, 0)?;
        let desc = match self.res.counters.get(&id) {
            Some(&desc) => desc,
            None => {
                let range = self
                    .res
                    .uav_ranges
                    .get(&id)
                    .copied()
                    .ok_or_else(|| self.err(format!("u{id} is not declared")))?;
                let uint = self.m.scalar(Scalar::U32);
                let array = self.m.runtime_array(uint, 4);
                let block = self.m.block(array, false);
                let desc = self.declare_counter(&range, block)?;
                self.res.counters.insert(id, desc);
                desc
            }
        };
        let selected = self.select_descriptor(&desc, uav)?;
        let var = selected.ptr;
        let uint = self.m.scalar(Scalar::U32);
        let pointer = self.m.pointer(StorageClass::StorageBuffer, uint);
        let zero = self.m.constant_u32(0);
        let ptr = built(self.m.access_chain(pointer, var, &[zero, zero]))?;
        if selected.non_uniform {
            self.decorate(ptr, Decoration::NonUniform, &[]);
        }
        let scope = self.m.constant_u32(spirv::Scope::Device as u32);
        let relaxed = self.m.constant_u32(0);
        let value = if consume {
            let old = built(self.m.b.atomic_i_decrement(uint, None, ptr, scope, relaxed))?;
            let one = self.m.constant_u32(1);
            built(self.m.b.i_sub(uint, None, old, one))?
        } else {
            built(self.m.b.atomic_i_increment(uint, None, ptr, scope, relaxed))?
        };
        self.store(
            result,
            Val {
                id: value,
                scalar: Scalar::U32,
                count: 1,
            },
            false,
        )
    }

    /// Handles the typed declarations (`dcl_resource_*`, `dcl_sampler`, `dcl_uav_typed_*`);
    /// returns false for others.
    pub fn declare_texture(&mut self, declaration: &Declaration) -> Result<bool> {
        match declaration {
            Declaration::Resource {
                range,
                dimension,
                return_type,
                ..
            } => self.declare_typed(range, *dimension, *return_type, None)?,
            Declaration::UavTyped {
                range,
                dimension,
                return_type,
                flags,
                ..
            } => {
                self.res.uav_ranges.insert(range.id, *range);
                self.declare_typed(range, *dimension, *return_type, Some(*flags))?
            }
            Declaration::Sampler { range, mode, .. } => self.declare_sampler(range, *mode)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}
