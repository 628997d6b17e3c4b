//! Arithmetic, logic, comparison and conversion instructions, with D3D's semantics:
//! NaN-aware min/max, masked shift counts, saturating float-to-integer conversion with NaN
//! giving 0, all-ones/zero comparison results.

use rspirv::dr::Operand::IdRef;
use spirv::Word;

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::operands::glsl;
use crate::error::Result;
use crate::ir::{Instruction, Operand};
use crate::tpf::opcodes::Opcode;

/// GLSL.std.450 numbers used by the ALU.
mod ext {
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const FRACT: u32 = 10;
    pub const SIN: u32 = 13;
    pub const COS: u32 = 14;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
    pub const FMA: u32 = 50;
}

/// How a binary operation is formed.
#[derive(Debug, Clone, Copy)]
enum Binary {
    FAdd,
    FMul,
    FDiv,
    IAdd,
    BitAnd,
    BitOr,
    BitXor,
}

/// A comparison.
#[derive(Debug, Clone, Copy)]
enum Compare {
    FOrdEqual,
    FUnordNotEqual,
    FOrdLessThan,
    FOrdGreaterThanEqual,
    IEqual,
    INotEqual,
    SLessThan,
    SGreaterThanEqual,
    ULessThan,
    UGreaterThanEqual,
}

impl Emitter<'_> {
    /// ALU instructions; returns false for other opcodes.
    pub fn alu_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        use Opcode as O;
        let dsts = self.program.dsts(instruction);
        let srcs = self.program.srcs(instruction);
        let sat = instruction.saturate;
        match instruction.opcode {
            O::Mov => {
                let dst = first(dsts)?;
                let scalar = if sat || srcs.iter().any(|s| s.modifier != crate::ir::Modifier::None)
                {
                    Scalar::F32
                } else {
                    self.natural_scalar(&dst)
                };
                let value = self.load(&srcs[0], scalar, dst.mask())?;
                self.store(&dst, value, sat)?;
            }
            O::Movc => {
                let dst = first(dsts)?;
                let mask = dst.mask();
                let scalar = if sat {
                    Scalar::F32
                } else {
                    self.natural_scalar(&dst)
                };
                let condition = self.load(&srcs[0], Scalar::Bool, mask)?;
                let a = self.load(&srcs[1], scalar, mask)?;
                let b = self.load(&srcs[2], scalar, mask)?;
                let ty = self.m.vector(scalar, a.count);
                let id = built(self.m.b.select(ty, None, condition.id, a.id, b.id))?;
                self.store(&dst, Val { id, ..a }, sat)?;
            }
            O::Add => self.binary(instruction, Scalar::F32, Binary::FAdd)?,
            O::Mul => self.binary(instruction, Scalar::F32, Binary::FMul)?,
            O::Div => self.binary(instruction, Scalar::F32, Binary::FDiv)?,
            O::Iadd => self.binary(instruction, Scalar::I32, Binary::IAdd)?,
            O::And => self.binary(instruction, Scalar::U32, Binary::BitAnd)?,
            O::Or => self.binary(instruction, Scalar::U32, Binary::BitOr)?,
            O::Xor => self.binary(instruction, Scalar::U32, Binary::BitXor)?,
            O::Mad => {
                let dst = first(dsts)?;
                let mask = dst.mask();
                let a = self.load(&srcs[0], Scalar::F32, mask)?;
                let b = self.load(&srcs[1], Scalar::F32, mask)?;
                let c = self.load(&srcs[2], Scalar::F32, mask)?;
                let ty = self.m.vector(Scalar::F32, a.count);
                let product = built(self.m.b.f_mul(ty, None, a.id, b.id))?;
                let id = built(self.m.b.f_add(ty, None, product, c.id))?;
                self.precise(instruction, &[product, id]);
                self.store(&dst, Val { id, ..a }, sat)?;
            }
            O::Dp2 | O::Dp3 | O::Dp4 => {
                let dst = first(dsts)?;
                let width = match instruction.opcode {
                    O::Dp2 => 0b11,
                    O::Dp3 => 0b111,
                    _ => 0b1111,
                };
                let a = self.load(&srcs[0], Scalar::F32, width)?;
                let b = self.load(&srcs[1], Scalar::F32, width)?;
                let float = self.m.scalar(Scalar::F32);
                let id = built(self.m.b.dot(float, None, a.id, b.id))?;
                self.precise(instruction, &[id]);
                let value = self.splat(
                    Val {
                        id,
                        scalar: Scalar::F32,
                        count: 1,
                    },
                    dst.mask(),
                )?;
                self.store(&dst, value, sat)?;
            }
            O::Min | O::Max => {
                // D3D: if one operand is NaN the other is returned (NMin/NMax).
                let which = if instruction.opcode == O::Min {
                    glsl::NMIN
                } else {
                    glsl::NMAX
                };
                self.ext_binary(instruction, Scalar::F32, which)?;
            }
            O::Eq => self.compare(instruction, Scalar::F32, Compare::FOrdEqual)?,
            O::Ne => self.compare(instruction, Scalar::F32, Compare::FUnordNotEqual)?,
            O::Lt => self.compare(instruction, Scalar::F32, Compare::FOrdLessThan)?,
            O::Ge => self.compare(instruction, Scalar::F32, Compare::FOrdGreaterThanEqual)?,
            O::Ieq => self.compare(instruction, Scalar::I32, Compare::IEqual)?,
            O::Ine => self.compare(instruction, Scalar::I32, Compare::INotEqual)?,
            O::Ilt => self.compare(instruction, Scalar::I32, Compare::SLessThan)?,
            O::Ige => self.compare(instruction, Scalar::I32, Compare::SGreaterThanEqual)?,
            O::Ult => self.compare(instruction, Scalar::U32, Compare::ULessThan)?,
            O::Uge => self.compare(instruction, Scalar::U32, Compare::UGreaterThanEqual)?,
            O::Ishl | O::Ishr | O::Ushr => {
                let dst = first(dsts)?;
                let mask = dst.mask();
                let scalar = if instruction.opcode == O::Ushr {
                    Scalar::U32
                } else {
                    Scalar::I32
                };
                let value = self.load(&srcs[0], scalar, mask)?;
                let count = self.load(&srcs[1], Scalar::U32, mask)?;
                // Only the low five bits of the shift count are used.
                let uint = self.m.vector(Scalar::U32, count.count);
                let five = self.splat_bits(Scalar::U32, 31, count.count);
                let count = built(self.m.b.bitwise_and(uint, None, count.id, five))?;
                let ty = self.m.vector(scalar, value.count);
                let id = built(match instruction.opcode {
                    O::Ishl => self.m.b.shift_left_logical(ty, None, value.id, count),
                    O::Ishr => self.m.b.shift_right_arithmetic(ty, None, value.id, count),
                    _ => self.m.b.shift_right_logical(ty, None, value.id, count),
                })?;
                self.store(&dst, Val { id, ..value }, sat)?;
            }
            O::Not => self.unary(instruction, Scalar::U32, |e, ty, x| {
                built(e.m.b.not(ty, None, x.id))
            })?,
            O::Ineg => self.unary(instruction, Scalar::I32, |e, ty, x| {
                built(e.m.b.s_negate(ty, None, x.id))
            })?,
            O::Itof => self.convert(instruction, Scalar::I32, Scalar::F32)?,
            O::Utof => self.convert(instruction, Scalar::U32, Scalar::F32)?,
            O::Ftoi => self.float_to_int(instruction, Scalar::I32)?,
            O::Ftou => self.float_to_int(instruction, Scalar::U32)?,
            O::Frc => self.ext_unary(instruction, ext::FRACT)?,
            O::RoundNe => self.ext_unary(instruction, ext::ROUND_EVEN)?,
            O::RoundNi => self.ext_unary(instruction, ext::FLOOR)?,
            O::RoundPi => self.ext_unary(instruction, ext::CEIL)?,
            O::RoundZ => self.ext_unary(instruction, ext::TRUNC)?,
            O::Sqrt => self.ext_unary(instruction, ext::SQRT)?,
            O::Rsq => self.ext_unary(instruction, ext::INVERSE_SQRT)?,
            O::Exp => self.ext_unary(instruction, ext::EXP2)?,
            O::Log => self.ext_unary(instruction, ext::LOG2)?,
            O::Rcp => {
                self.unary(instruction, Scalar::F32, |e, ty, x| {
                    let one = e.splat_bits(Scalar::F32, 1.0f32.to_bits(), x.count);
                    built(e.m.b.f_div(ty, None, one, x.id))
                })?;
            }
            O::Sincos => {
                for (i, which) in [ext::SIN, ext::COS].into_iter().enumerate() {
                    let dst = dsts[i];
                    if dst.kind == crate::ir::RegisterKind::Null {
                        continue;
                    }
                    let x = self.load(&srcs[0], Scalar::F32, dst.mask())?;
                    let id = self.ext(x, which, &[x.id])?;
                    self.store(&dst, Val { id, ..x }, sat)?;
                }
            }
            _ => return Ok(false),
        }
        let _ = ext::FMA;
        Ok(true)
    }

    /// The type a destination naturally holds (a temp's inferred type, else uint).
    fn natural_scalar(&self, dst: &Operand) -> Scalar {
        if dst.kind == crate::ir::RegisterKind::Temp {
            if let Some(register) = dst.indices[0].as_imm32() {
                let component = super::operands::mask_components(dst.mask())
                    .next()
                    .unwrap_or(0);
                return match self.temp_types.get(register, component) {
                    crate::passes::temp_types::TempType::Float => Scalar::F32,
                    crate::passes::temp_types::TempType::Int => Scalar::I32,
                    crate::passes::temp_types::TempType::Uint => Scalar::U32,
                };
            }
        }
        Scalar::U32
    }

    /// Replicates a scalar into as many components as `mask` has.
    fn splat(&mut self, value: Val, mask: u8) -> Result<Val> {
        let count = mask.count_ones();
        if count <= 1 {
            return Ok(value);
        }
        let parts = vec![value.id; count as usize];
        self.compose(value.scalar, &parts)
    }

    /// Marks results `NoContraction` when the instruction is `precise`.
    fn precise(&mut self, instruction: &Instruction, ids: &[Word]) {
        if instruction.precise_mask != 0 {
            for &id in ids {
                self.decorate(id, spirv::Decoration::NoContraction, &[]);
            }
        }
    }

    fn binary(&mut self, instruction: &Instruction, scalar: Scalar, op: Binary) -> Result<()> {
        let dst = first(self.program.dsts(instruction))?;
        let srcs = self.program.srcs(instruction);
        let mask = dst.mask();
        let a = self.load(&srcs[0], scalar, mask)?;
        let b = self.load(&srcs[1], scalar, mask)?;
        let ty = self.m.vector(scalar, a.count);
        let id = built(match op {
            Binary::FAdd => self.m.b.f_add(ty, None, a.id, b.id),
            Binary::FMul => self.m.b.f_mul(ty, None, a.id, b.id),
            Binary::FDiv => self.m.b.f_div(ty, None, a.id, b.id),
            Binary::IAdd => self.m.b.i_add(ty, None, a.id, b.id),
            Binary::BitAnd => self.m.b.bitwise_and(ty, None, a.id, b.id),
            Binary::BitOr => self.m.b.bitwise_or(ty, None, a.id, b.id),
            Binary::BitXor => self.m.b.bitwise_xor(ty, None, a.id, b.id),
        })?;
        if scalar == Scalar::F32 {
            self.precise(instruction, &[id]);
        }
        self.store(&dst, Val { id, ..a }, instruction.saturate)
    }

    fn unary(
        &mut self,
        instruction: &Instruction,
        scalar: Scalar,
        op: impl FnOnce(&mut Self, Word, Val) -> Result<Word>,
    ) -> Result<()> {
        let dst = first(self.program.dsts(instruction))?;
        let src = self.program.srcs(instruction)[0];
        let x = self.load(&src, scalar, dst.mask())?;
        let ty = self.m.vector(scalar, x.count);
        let id = op(self, ty, x)?;
        self.store(&dst, Val { id, ..x }, instruction.saturate)
    }

    fn ext(&mut self, like: Val, which: u32, args: &[Word]) -> Result<Word> {
        let ty = self.m.vector(like.scalar, like.count);
        let glsl = self.m.glsl();
        built(
            self.m
                .b
                .ext_inst(ty, None, glsl, which, args.iter().map(|&a| IdRef(a))),
        )
    }

    fn ext_unary(&mut self, instruction: &Instruction, which: u32) -> Result<()> {
        let dst = first(self.program.dsts(instruction))?;
        let src = self.program.srcs(instruction)[0];
        let x = self.load(&src, Scalar::F32, dst.mask())?;
        let id = self.ext(x, which, &[x.id])?;
        self.precise(instruction, &[id]);
        self.store(&dst, Val { id, ..x }, instruction.saturate)
    }

    fn ext_binary(&mut self, instruction: &Instruction, scalar: Scalar, which: u32) -> Result<()> {
        let dst = first(self.program.dsts(instruction))?;
        let srcs = self.program.srcs(instruction);
        let a = self.load(&srcs[0], scalar, dst.mask())?;
        let b = self.load(&srcs[1], scalar, dst.mask())?;
        let id = self.ext(a, which, &[a.id, b.id])?;
        self.store(&dst, Val { id, ..a }, instruction.saturate)
    }

    fn compare(&mut self, instruction: &Instruction, scalar: Scalar, op: Compare) -> Result<()> {
        let dst = first(self.program.dsts(instruction))?;
        let srcs = self.program.srcs(instruction);
        let a = self.load(&srcs[0], scalar, dst.mask())?;
        let b = self.load(&srcs[1], scalar, dst.mask())?;
        let ty = self.m.vector(Scalar::Bool, a.count);
        let b_ = &mut self.m.b;
        let id = built(match op {
            Compare::FOrdEqual => b_.f_ord_equal(ty, None, a.id, b.id),
            Compare::FUnordNotEqual => b_.f_unord_not_equal(ty, None, a.id, b.id),
            Compare::FOrdLessThan => b_.f_ord_less_than(ty, None, a.id, b.id),
            Compare::FOrdGreaterThanEqual => b_.f_ord_greater_than_equal(ty, None, a.id, b.id),
            Compare::IEqual => b_.i_equal(ty, None, a.id, b.id),
            Compare::INotEqual => b_.i_not_equal(ty, None, a.id, b.id),
            Compare::SLessThan => b_.s_less_than(ty, None, a.id, b.id),
            Compare::SGreaterThanEqual => b_.s_greater_than_equal(ty, None, a.id, b.id),
            Compare::ULessThan => b_.u_less_than(ty, None, a.id, b.id),
            Compare::UGreaterThanEqual => b_.u_greater_than_equal(ty, None, a.id, b.id),
        })?;
        let mask = self.cast(
            Val {
                id,
                scalar: Scalar::Bool,
                count: a.count,
            },
            Scalar::U32,
        )?;
        self.store(&dst, mask, false)
    }

    fn convert(&mut self, instruction: &Instruction, from: Scalar, to: Scalar) -> Result<()> {
        let dst = first(self.program.dsts(instruction))?;
        let src = self.program.srcs(instruction)[0];
        let x = self.load(&src, from, dst.mask())?;
        let ty = self.m.vector(to, x.count);
        let id = built(match from {
            Scalar::I32 => self.m.b.convert_s_to_f(ty, None, x.id),
            _ => self.m.b.convert_u_to_f(ty, None, x.id),
        })?;
        self.store(
            &dst,
            Val {
                id,
                scalar: to,
                count: x.count,
            },
            instruction.saturate,
        )
    }

    /// `ftoi`/`ftou`: saturate to the integer range, NaN gives 0.
    fn float_to_int(&mut self, instruction: &Instruction, to: Scalar) -> Result<()> {
        let dst = first(self.program.dsts(instruction))?;
        let src = self.program.srcs(instruction)[0];
        let x = self.load(&src, Scalar::F32, dst.mask())?;
        let n = x.count;
        let float = self.m.vector(Scalar::F32, n);
        // [low, high] is the range that converts exactly; from `limit` on the result
        // saturates to `high_int`.
        let (low, high, limit, high_int) = match to {
            Scalar::I32 => (
                -2147483648.0f32,
                2147483520.0f32,
                2147483648.0f32,
                i32::MAX as u32,
            ),
            _ => (0.0f32, 4294967040.0f32, 4294967296.0f32, u32::MAX),
        };
        let low_c = self.splat_bits(Scalar::F32, low.to_bits(), n);
        let high_c = self.splat_bits(Scalar::F32, high.to_bits(), n);
        let glsl = self.m.glsl();
        // NMax/NMin turn NaN into the bound; NaN must give 0, handled below.
        let clamped_low =
            built(
                self.m
                    .b
                    .ext_inst(float, None, glsl, glsl::NMAX, [IdRef(x.id), IdRef(low_c)]),
            )?;
        let clamped = built(self.m.b.ext_inst(
            float,
            None,
            glsl,
            glsl::NMIN,
            [IdRef(clamped_low), IdRef(high_c)],
        ))?;
        let ty = self.m.vector(to, n);
        let converted = built(match to {
            Scalar::I32 => self.m.b.convert_f_to_s(ty, None, clamped),
            _ => self.m.b.convert_f_to_u(ty, None, clamped),
        })?;
        let boolean = self.m.vector(Scalar::Bool, n);
        let limit_c = self.splat_bits(Scalar::F32, limit.to_bits(), n);
        let too_big = built(
            self.m
                .b
                .f_ord_greater_than_equal(boolean, None, x.id, limit_c),
        )?;
        let max = self.splat_bits(to, high_int, n);
        let saturated = built(self.m.b.select(ty, None, too_big, max, converted))?;
        let is_nan = built(self.m.b.is_nan(boolean, None, x.id))?;
        let zero = self.splat_bits(to, 0, n);
        let id = built(self.m.b.select(ty, None, is_nan, zero, saturated))?;
        self.store(
            &dst,
            Val {
                id,
                scalar: to,
                count: n,
            },
            false,
        )
    }
}

/// The first destination.
fn first(dsts: &[Operand]) -> Result<Operand> {
    dsts.first().copied().ok_or_else(|| {
        crate::error::Error::new(
            crate::error::Location::None,
            "an instruction without a destination",
        )
    })
}
