//! Tiled-resource feedback: the `_s` forms (`sample_cl_s`, `ld_s`, `gather4_s`, …, 16
//! opcodes) and `check_access_fully_mapped`.
//!
//! A `_s` form is its base instruction with a second destination, the status, and for the
//! `_cl` forms a trailing level-of-detail clamp. The base instruction is emitted by the same
//! code as the plain form; only the image operation changes: with a status to write and
//! [`Features::sparse_residency`](super::Features::sparse_residency), it becomes the
//! `OpImageSparse*` form, and `OpImageSparseTexelsResident` of its residency code decides
//! the status.
//!
//! The status is D3D's opaque feedback value; this translator gives it one meaning that does
//! not depend on the device: **1 when every texel the access touched is mapped, 0 when
//! not**, and `check_access_fully_mapped` returns `0xffffffff` for a non-zero status and 0
//! for zero. Statuses are therefore always 1 where Vulkan cannot report residency: without
//! `sparse_residency` (no resource can then be partly resident), for typed buffers (a buffer
//! view has no sparse image operations) and for raw and structured buffers (storage buffers
//! have none either; unmapped tiles of a sparse buffer read as zero on devices with
//! `residencyNonResidentStrict`, as D3D's do).
//!
//! The clamp of a `_cl` form is the `MinLod` image operand (capability `MinLod`, feature
//! `shaderResourceMinLod`); an immediate 0 means no clamp, as D3D defines, and needs nothing.

use super::builder::Operand as SpvOperand;
use spirv::{Capability, Op, Word};

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::operands::mask_components;
use crate::error::Result;
use crate::ir::{Instruction, Operand, RegisterKind};
use crate::isa::Opcode;

/// The status destination and the level-of-detail clamp of a `_s` form.
#[derive(Debug, Clone, Copy)]
pub struct Feedback {
    /// Where the status goes (`null` when the program ignores it).
    pub status: Operand,
    /// The `_cl` forms' clamp operand.
    pub clamp: Option<Operand>,
}

/// The base instruction of a `_s` form and whether it carries a clamp operand.
pub fn sparse_base(opcode: Opcode) -> Option<(Opcode, bool)> {
    use Opcode as O;
    Some(match opcode {
        O::Gather4S => (O::Gather4, false),
        O::Gather4CS => (O::Gather4C, false),
        O::Gather4PoS => (O::Gather4Po, false),
        O::Gather4PoCS => (O::Gather4PoC, false),
        O::LdS => (O::Ld, false),
        O::LdMsS => (O::LdMs, false),
        O::LdUavTypedS => (O::LdUavTyped, false),
        O::LdRawS => (O::LdRaw, false),
        O::LdStructuredS => (O::LdStructured, false),
        O::SampleLS => (O::SampleL, false),
        O::SampleCLzS => (O::SampleCLz, false),
        O::SampleClS => (O::Sample, true),
        O::SampleBClS => (O::SampleB, true),
        O::SampleDClS => (O::SampleD, true),
        O::SampleCClS => (O::SampleC, true),
        _ => return None,
    })
}

/// The `OpImageSparse*` form of an image operation.
fn sparse_op(op: Op) -> Option<Op> {
    Some(match op {
        Op::ImageSampleImplicitLod => Op::ImageSparseSampleImplicitLod,
        Op::ImageSampleExplicitLod => Op::ImageSparseSampleExplicitLod,
        Op::ImageSampleDrefImplicitLod => Op::ImageSparseSampleDrefImplicitLod,
        Op::ImageSampleDrefExplicitLod => Op::ImageSparseSampleDrefExplicitLod,
        Op::ImageGather => Op::ImageSparseGather,
        Op::ImageDrefGather => Op::ImageSparseDrefGather,
        Op::ImageFetch => Op::ImageSparseFetch,
        Op::ImageRead => Op::ImageSparseRead,
        _ => return None,
    })
}

impl Emitter<'_> {
    /// The `_s` forms and `check_access_fully_mapped`; returns false for other opcodes.
    pub(super) fn sparse_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        if instruction.opcode == Opcode::CheckAccessFullyMapped {
            self.check_access_fully_mapped(instruction)?;
            return Ok(true);
        }
        let Some((base, has_clamp)) = sparse_base(instruction.opcode) else {
            return Ok(false);
        };
        let all = self.program.operands_of(instruction);
        let [data, status, rest @ ..] = all else {
            return Err(self.err("wrong operand count"));
        };
        let (rest, clamp) = match (has_clamp, rest) {
            (true, [rest @ .., clamp]) => (rest, Some(*clamp)),
            (true, []) => return Err(self.err("wrong operand count")),
            (false, rest) => (rest, None),
        };
        let mut operands = Vec::with_capacity(rest.len() + 1);
        operands.push(*data);
        operands.extend_from_slice(rest);
        let feedback = Feedback {
            status: *status,
            clamp,
        };
        use Opcode as O;
        match base {
            O::Ld | O::LdMs => self.texel_fetch(instruction, &operands, Some(&feedback))?,
            O::LdUavTyped => self.ld_uav_typed(instruction, &operands, Some(&feedback))?,
            O::LdRaw | O::LdStructured => {
                self.raw_load(instruction, &operands)?;
                self.store_status(&feedback, None)?;
            }
            _ => self.sample(instruction, base, &operands, Some(&feedback))?,
        }
        Ok(true)
    }

    /// Emits an image operation with result type `ty`; with a status to write (and the
    /// device's residency feature, on an image that has sparse operations), its sparse form,
    /// writing the status. Returns the texel (or depth-comparison) result.
    pub(super) fn image_op(
        &mut self,
        op: Op,
        ty: Word,
        operands: crate::spirv::builder::Operands,
        feedback: Option<&Feedback>,
        buffer: bool,
    ) -> Result<Word> {
        let Some(feedback) = feedback.filter(|f| f.status.kind != RegisterKind::Null) else {
            return self.raw_op(op, ty, operands);
        };
        let sparse = sparse_op(op).filter(|_| !buffer && self.options.features.sparse_residency);
        let Some(sparse) = sparse else {
            let id = self.raw_op(op, ty, operands)?;
            self.store_status(feedback, None)?;
            return Ok(id);
        };
        self.m.capability(Capability::SparseResidency);
        let int = self.m.scalar(Scalar::I32);
        let pair = self.m.b.type_struct([int, ty]);
        let result = self.raw_op(sparse, pair, operands)?;
        let code = built(self.m.composite_extract(int, result, &[0]))?;
        let texel = built(self.m.composite_extract(ty, result, &[1]))?;
        let boolean = self.m.scalar(Scalar::Bool);
        let resident = self.raw_op(
            Op::ImageSparseTexelsResident,
            boolean,
            smallvec::smallvec![SpvOperand::IdRef(code)],
        )?;
        self.store_status(feedback, Some(resident))?;
        Ok(texel)
    }

    /// Writes the status: 1 where `resident` holds (or is unknown: `None`), 0 where not.
    fn store_status(&mut self, feedback: &Feedback, resident: Option<Word>) -> Result<()> {
        let one = self.m.constant_u32(1);
        let id = match resident {
            Some(resident) => {
                let uint = self.m.scalar(Scalar::U32);
                let zero = self.m.constant_u32(0);
                built(self.m.select(uint, None, resident, one, zero))?
            }
            None => one,
        };
        let value = Val {
            id,
            scalar: Scalar::U32,
            count: 1,
        };
        self.store(&feedback.status, value, false)
    }

    /// The `MinLod` operand of a `_cl` form's clamp: none for an immediate 0 (no clamp).
    pub(super) fn lod_clamp(&mut self, clamp: &Operand) -> Result<Option<Word>> {
        let selected = match clamp.selection {
            crate::ir::Selection::Select1(c) => c as usize & 3,
            crate::ir::Selection::Swizzle(s) => s[0] as usize & 3,
            crate::ir::Selection::Mask(_) => 0,
        };
        if clamp.kind == RegisterKind::Immediate32 {
            let bits = clamp.values.get(selected).copied().unwrap_or(0);
            if f32::from_bits(bits) == 0.0 {
                return Ok(None);
            }
        }
        if !self.options.features.min_lod {
            return Err(self.unsupported(
                "a level-of-detail clamp needs the device feature shaderResourceMinLod \
                 (Features::min_lod)",
            ));
        }
        self.m.capability(Capability::MinLod);
        Ok(Some(self.load_scalar(clamp, Scalar::F32)?.id))
    }

    /// `check_access_fully_mapped`: 0xffffffff for a non-zero status, 0 for zero.
    fn check_access_fully_mapped(&mut self, instruction: &Instruction) -> Result<()> {
        let [dst, src] = self.program.operands_of(instruction) else {
            return Err(self.err("wrong operand count"));
        };
        let (dst, src) = (*dst, *src);
        let count = mask_components(dst.mask()).count() as u32;
        if count == 0 {
            return Ok(());
        }
        let status = self.load(&src, Scalar::U32, dst.mask())?;
        let zero = self.splat_bits(Scalar::U32, 0, count);
        let ones = self.splat_bits(Scalar::U32, u32::MAX, count);
        let bools = self.m.vector(Scalar::Bool, count);
        let mapped = built(self.m.b.i_not_equal(bools, None, status.id, zero))?;
        let uints = self.m.vector(Scalar::U32, count);
        let id = built(self.m.select(uints, None, mapped, ones, zero))?;
        let value = Val {
            id,
            scalar: Scalar::U32,
            count,
        };
        self.store(&dst, value, false)
    }
}
