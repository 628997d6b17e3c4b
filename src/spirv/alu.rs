//! Arithmetic, logic, bit, comparison and conversion instructions, with D3D's semantics:
//! NaN-aware min/max, masked shift counts and bit-field widths, saturating float-to-integer
//! conversion with NaN giving 0, all-ones/zero comparison results, all-ones results of
//! `udiv` by zero, and `0xffffffff` from the `firstbit_*` family when no bit is found.
//!
//! Every instruction reads all of its sources before it writes any destination, so that
//! `sincos r0.x, r1.x, r0.x` or `udiv r0.x, r1.x, r0.x, r1.x` see the old values.
//!
//! Minimum-precision hints (`{min16f}`, `{min16i}`, …) are honoured by computing at full
//! 32-bit precision, which the hints allow (they set a minimum). Doubles are handled in
//! `doubles.rs`.
//!
//! `f32tof16` uses GLSL.std.450 `PackHalf2x16` on `(x, 0)` and keeps the low 16 bits; the
//! rounding of that conversion is the implementation's (Vulkan drivers round to nearest
//! even in practice, which is what D3D asks for, but SPIR-V does not promise it).

use super::builder::Operand::IdRef;
use spirv::Word;

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use super::operands::glsl;
use crate::error::Result;
use crate::ir::{Instruction, Modifier, Operand, RegisterKind, Stage};
use crate::isa::Opcode;

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
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const PACK_HALF_2X16: u32 = 58;
    pub const UNPACK_HALF_2X16: u32 = 62;
    pub const FIND_I_LSB: u32 = 73;
    pub const FIND_S_MSB: u32 = 74;
    pub const FIND_U_MSB: u32 = 75;
}

/// How a binary operation is formed.
#[derive(Debug, Clone, Copy)]
enum Binary {
    FAdd,
    FMul,
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

/// The operations with two results (`dst0`, `dst1`) from two integer sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pair {
    /// `imul`: high, low.
    SMul,
    /// `umul`: high, low.
    UMul,
    /// `udiv`: quotient, remainder.
    UDiv,
    /// `uaddc`: sum, carry.
    AddCarry,
    /// `usubb`: difference, borrow.
    SubBorrow,
}

/// Which derivative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Derivative {
    X,
    Y,
    XCoarse,
    XFine,
    YCoarse,
    YFine,
}

impl Emitter<'_> {
    /// ALU instructions (the opcodes the emitter's dispatch gives this part); returns false
    /// for other opcodes.
    pub fn alu_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        use Opcode as O;
        if derivative(instruction.opcode).is_some() && self.program.model.stage != Stage::Pixel {
            // Shader models 4 and 5 have derivatives in pixel shaders only (the SM4/SM5
            // assembly reference of each `deriv_*` instruction lists the pixel shader as its
            // one stage; compute shaders gained them in shader model 6.6). Checked before
            // anything else, so that a null destination does not hide the error.
            return Err(self.err(format!(
                "{} outside a pixel shader: D3D's shader models 4 and 5 compute derivatives \
                 only in pixel shaders (over a 2x2 quad of pixels)",
                instruction.opcode.name()
            )));
        }
        let dsts = self.program.dsts(instruction);
        if !dsts.is_empty() && dsts.iter().all(|d| d.kind == RegisterKind::Null) {
            // Every result is discarded and ALU instructions have no side effects.
            return Ok(true);
        }
        if self.alu_native16(instruction)? {
            return Ok(true);
        }
        let (f, i, u) = (Scalar::F32, Scalar::I32, Scalar::U32);
        match instruction.opcode {
            O::Mov => self.alu_mov(instruction)?,
            O::Movc => self.alu_movc(instruction)?,
            O::Swapc => self.alu_swapc(instruction)?,
            O::Add => self.binary(instruction, f, Binary::FAdd)?,
            O::Mul => self.binary(instruction, f, Binary::FMul)?,
            O::Div => self.div(instruction)?,
            O::Iadd => self.binary(instruction, i, Binary::IAdd)?,
            O::And => self.binary(instruction, u, Binary::BitAnd)?,
            O::Or => self.binary(instruction, u, Binary::BitOr)?,
            O::Xor => self.binary(instruction, u, Binary::BitXor)?,
            O::Mad | O::Imad | O::Umad => {
                let scalar = match instruction.opcode {
                    O::Mad => f,
                    O::Imad => i,
                    _ => u,
                };
                self.alu_op(instruction, &[scalar; 3], scalar, |e, ty, a| {
                    let (x, y, z) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
                    let (product, sum) = if scalar == Scalar::F32 {
                        let p = built(e.m.b.f_mul(ty, None, x, y))?;
                        (p, built(e.m.b.f_add(ty, None, p, z))?)
                    } else {
                        let p = built(e.m.b.i_mul(ty, None, x, y))?;
                        (p, built(e.m.b.i_add(ty, None, p, z))?)
                    };
                    e.precise(instruction, &[product]);
                    Ok(sum)
                })?;
            }
            O::Dp2 | O::Dp3 | O::Dp4 => self.alu_dot(instruction)?,
            // D3D: if one operand is NaN the other is returned (NMin/NMax).
            O::Min => self.min_max(instruction, glsl::NMIN)?,
            O::Max => self.min_max(instruction, glsl::NMAX)?,
            O::Imin => self.ext_binary(instruction, i, ext::SMIN)?,
            O::Imax => self.ext_binary(instruction, i, ext::SMAX)?,
            O::Umin => self.ext_binary(instruction, u, ext::UMIN)?,
            O::Umax => self.ext_binary(instruction, u, ext::UMAX)?,
            O::Eq => self.compare(instruction, f, Compare::FOrdEqual)?,
            O::Ne => self.compare(instruction, f, Compare::FUnordNotEqual)?,
            O::Lt => self.compare(instruction, f, Compare::FOrdLessThan)?,
            O::Ge => self.compare(instruction, f, Compare::FOrdGreaterThanEqual)?,
            O::Ieq => self.compare(instruction, i, Compare::IEqual)?,
            O::Ine => self.compare(instruction, i, Compare::INotEqual)?,
            O::Ilt => self.compare(instruction, i, Compare::SLessThan)?,
            O::Ige => self.compare(instruction, i, Compare::SGreaterThanEqual)?,
            O::Ult => self.compare(instruction, u, Compare::ULessThan)?,
            O::Uge => self.compare(instruction, u, Compare::UGreaterThanEqual)?,
            O::Ishl | O::Ishr | O::Ushr => {
                let opcode = instruction.opcode;
                let scalar = if opcode == O::Ushr { u } else { i };
                self.alu_op(instruction, &[scalar, u], scalar, |e, ty, a| {
                    let (value, count) = (arg(a, 0)?, arg(a, 1)?);
                    // Only the low five bits of the shift count are used.
                    let count = e.low_five_bits(count, a)?;
                    built(match opcode {
                        O::Ishl => e.m.b.shift_left_logical(ty, None, value, count),
                        O::Ishr => e.m.b.shift_right_arithmetic(ty, None, value, count),
                        _ => e.m.b.shift_right_logical(ty, None, value, count),
                    })
                })?;
            }
            O::Not => self.alu_op(instruction, &[u], u, |e, ty, a| {
                built(e.m.b.not(ty, None, arg(a, 0)?))
            })?,
            O::Ineg => self.alu_op(instruction, &[i], i, |e, ty, a| {
                built(e.m.b.s_negate(ty, None, arg(a, 0)?))
            })?,
            O::Countbits => self.alu_op(instruction, &[u], u, |e, ty, a| {
                built(e.m.b.bit_count(ty, None, arg(a, 0)?))
            })?,
            O::Bfrev => self.alu_op(instruction, &[u], u, |e, ty, a| {
                built(e.m.b.bit_reverse(ty, None, arg(a, 0)?))
            })?,
            O::FirstbitLo => self.alu_op(instruction, &[u], u, |e, _, a| {
                // FindILsb already gives -1 (0xffffffff) for 0.
                e.ext(arg_val(a, 0)?, ext::FIND_I_LSB, &[arg(a, 0)?])
            })?,
            O::FirstbitHi | O::FirstbitShi => {
                let which = if instruction.opcode == O::FirstbitHi {
                    ext::FIND_U_MSB
                } else {
                    ext::FIND_S_MSB
                };
                // Read as uint: FindSMsb reads the bits as signed whatever the type, and a
                // source modifier gives the same bits either way.
                self.alu_op(instruction, &[u], u, |e, ty, a| {
                    let x = arg_val(a, 0)?;
                    let msb = e.ext(x, which, &[x.id])?;
                    e.index_from_msb(ty, msb, x.count)
                })?;
            }
            O::Ubfe | O::Ibfe => self.alu_bitfield_extract(instruction)?,
            O::Bfi => self.alu_bitfield_insert(instruction)?,
            O::Msad => self.alu_msad(instruction)?,
            O::Imul => self.alu_pair(instruction, Pair::SMul)?,
            O::Umul => self.alu_pair(instruction, Pair::UMul)?,
            O::Udiv => self.alu_pair(instruction, Pair::UDiv)?,
            O::Uaddc => self.alu_pair(instruction, Pair::AddCarry)?,
            O::Usubb => self.alu_pair(instruction, Pair::SubBorrow)?,
            O::Itof => self.alu_op(instruction, &[i], f, |e, ty, a| {
                built(e.m.b.convert_s_to_f(ty, None, arg(a, 0)?))
            })?,
            O::Utof => self.alu_op(instruction, &[u], f, |e, ty, a| {
                built(e.m.b.convert_u_to_f(ty, None, arg(a, 0)?))
            })?,
            O::Ftoi => self.float_to_int(instruction, i)?,
            O::Ftou => self.float_to_int(instruction, u)?,
            O::F32ToF16 => self.alu_op(instruction, &[f], u, |e, _, a| {
                let x = arg_val(a, 0)?;
                e.per_component(&[x], u, |e, c| {
                    let x = word(c, 0)?;
                    let vec2 = e.m.vector(Scalar::F32, 2);
                    let zero = e.m.constant_bits(Scalar::F32, 0);
                    let pair = built(e.m.composite_construct(vec2, &[x, zero]))?;
                    let like = Val {
                        id: pair,
                        scalar: Scalar::U32,
                        count: 1,
                    };
                    e.ext(like, ext::PACK_HALF_2X16, &[pair])
                })
            })?,
            O::F16ToF32 => self.alu_op(instruction, &[u], f, |e, _, a| {
                let x = arg_val(a, 0)?;
                e.per_component(&[x], f, |e, c| {
                    let x = word(c, 0)?;
                    // UnpackHalf2x16 reads the low 16 bits into the first component.
                    let like = Val {
                        id: x,
                        scalar: Scalar::F32,
                        count: 2,
                    };
                    let pair = e.ext(like, ext::UNPACK_HALF_2X16, &[x])?;
                    let float = e.m.scalar(Scalar::F32);
                    built(e.m.composite_extract(float, pair, &[0]))
                })
            })?,
            O::Frc => self.frc(instruction)?,
            O::RoundNe => self.ext_unary(instruction, ext::ROUND_EVEN)?,
            O::RoundNi => self.ext_unary(instruction, ext::FLOOR)?,
            O::RoundPi => self.ext_unary(instruction, ext::CEIL)?,
            O::RoundZ => self.ext_unary(instruction, ext::TRUNC)?,
            O::Sqrt => self.ext_unary(instruction, ext::SQRT)?,
            O::Rsq => self.ext_unary(instruction, ext::INVERSE_SQRT)?,
            O::Exp => self.ext_unary(instruction, ext::EXP2)?,
            O::Log => self.ext_unary(instruction, ext::LOG2)?,
            O::Rcp => self.alu_op(instruction, &[f], f, |e, ty, a| {
                let x = arg_val(a, 0)?;
                let one = e.splat_bits(Scalar::F32, 1.0f32.to_bits(), x.count);
                built(e.m.b.f_div(ty, None, one, x.id))
            })?,
            O::Sincos => self.alu_sincos(instruction)?,
            other => match derivative(other) {
                Some(which) => self.alu_derivative(instruction, which)?,
                None => return Ok(false),
            },
        }
        Ok(true)
    }

    /// Source operand `i` of an instruction.
    fn alu_src(&self, instruction: &Instruction, i: usize) -> Result<Operand> {
        self.program
            .srcs(instruction)
            .get(i)
            .copied()
            .ok_or_else(|| {
                self.err(format!(
                    "{} is missing source operand {i}",
                    instruction.opcode.name()
                ))
            })
    }

    /// Destination operand `i` of an instruction.
    fn alu_dst(&self, instruction: &Instruction, i: usize) -> Result<Operand> {
        self.program
            .dsts(instruction)
            .get(i)
            .copied()
            .ok_or_else(|| {
                self.err(format!(
                    "{} is missing destination operand {i}",
                    instruction.opcode.name()
                ))
            })
    }

    /// The type a destination naturally holds (a temp's inferred type, else uint).
    fn natural_scalar(&self, dst: &Operand) -> Scalar {
        if dst.kind == RegisterKind::Temp {
            if let Some(register) = dst.indices[0].as_imm32() {
                let component = super::operands::mask_components(dst.mask())
                    .next()
                    .unwrap_or(0);
                return match self.temp_types.get(register, component) {
                    crate::analysis::temp_types::TempType::Float => Scalar::F32,
                    crate::analysis::temp_types::TempType::Int => Scalar::I32,
                    crate::analysis::temp_types::TempType::Uint => Scalar::U32,
                };
            }
        }
        if dst.kind == RegisterKind::Output {
            // An output's own component type: the value is stored without a cast.
            let component = super::operands::mask_components(dst.mask())
                .next()
                .unwrap_or(0);
            if let Ok(slot) = self.slot_of(dst, component) {
                if matches!(slot.scalar, Scalar::F32 | Scalar::I32 | Scalar::U32) {
                    return slot.scalar;
                }
            }
        }
        Scalar::U32
    }

    /// The type the untyped moves (`mov`, `movc`, `swapc`) copy `dst`'s value in.
    ///
    /// - `_sat` or a source modifier on a copied source: float (the modifiers of these
    ///   instructions are float modifiers, and `_sat` clamps floats), whatever the
    ///   minimum-precision hint says;
    /// - otherwise the destination's natural type (a temp's inferred type, an output's
    ///   component type, else `uint`), so that a plain copy of bits never goes
    ///   through a float (which could flush denormals or quiet NaNs). Minimum-precision
    ///   hints need nothing: values are kept at 32 bits.
    fn move_scalar(&self, instruction: &Instruction, dst: &Operand, copied: &[Operand]) -> Scalar {
        if instruction.saturate || copied.iter().any(|s| s.modifier != Modifier::None) {
            Scalar::F32
        } else {
            self.natural_scalar(dst)
        }
    }

    /// Reads a `movc`/`swapc` condition: true where the source is non-zero.
    fn alu_condition(&mut self, operand: &Operand, mask: u8) -> Result<Val> {
        let bits = self.load(operand, Scalar::U32, mask)?;
        self.cast(bits, Scalar::Bool)
    }

    fn alu_mov(&mut self, instruction: &Instruction) -> Result<()> {
        let dst = self.alu_dst(instruction, 0)?;
        let src = self.alu_src(instruction, 0)?;
        if !instruction.saturate && self.move_to_temp(&dst, &src)? {
            return Ok(());
        }
        let scalar = self.move_scalar(instruction, &dst, &[src]);
        let value = self.load(&src, scalar, dst.mask())?;
        self.store(&dst, value, instruction.saturate)
    }

    fn alu_movc(&mut self, instruction: &Instruction) -> Result<()> {
        let dst = self.alu_dst(instruction, 0)?;
        let (c, a, b) = (
            self.alu_src(instruction, 0)?,
            self.alu_src(instruction, 1)?,
            self.alu_src(instruction, 2)?,
        );
        let mask = dst.mask();
        let scalar = self.move_scalar(instruction, &dst, &[a, b]);
        let condition = self.alu_condition(&c, mask)?;
        let a = self.load(&a, scalar, mask)?;
        let b = self.load(&b, scalar, mask)?;
        let ty = self.m.vector(scalar, a.count);
        let id = built(self.m.select(ty, None, condition.id, a.id, b.id))?;
        self.store(&dst, Val { id, ..a }, instruction.saturate)
    }

    /// `swapc`: `dst0 = cond ? src2 : src1`, `dst1 = cond ? src1 : src2`, per component.
    fn alu_swapc(&mut self, instruction: &Instruction) -> Result<()> {
        let (c, a, b) = (
            self.alu_src(instruction, 0)?,
            self.alu_src(instruction, 1)?,
            self.alu_src(instruction, 2)?,
        );
        let mut results = Vec::with_capacity(2);
        for which in 0..2 {
            let dst = self.alu_dst(instruction, which)?;
            if dst.kind == RegisterKind::Null {
                continue;
            }
            let mask = dst.mask();
            let scalar = self.move_scalar(instruction, &dst, &[a, b]);
            let condition = self.alu_condition(&c, mask)?;
            let x = self.load(&a, scalar, mask)?;
            let y = self.load(&b, scalar, mask)?;
            let (on_true, on_false) = if which == 0 { (y, x) } else { (x, y) };
            let ty = self.m.vector(scalar, x.count);
            let id = built(
                self.m
                    .select(ty, None, condition.id, on_true.id, on_false.id),
            )?;
            results.push((dst, Val { id, ..x }));
        }
        for (dst, value) in results {
            self.store(&dst, value, instruction.saturate)?;
        }
        Ok(())
    }

    fn alu_dot(&mut self, instruction: &Instruction) -> Result<()> {
        let dst = self.alu_dst(instruction, 0)?;
        let width = match instruction.opcode {
            Opcode::Dp2 => 0b11,
            Opcode::Dp3 => 0b111,
            _ => 0b1111,
        };
        let a = self.load(&self.alu_src(instruction, 0)?, Scalar::F32, width)?;
        let b = self.load(&self.alu_src(instruction, 1)?, Scalar::F32, width)?;
        // Products summed in component order with FMul/FAdd rather than OpDot: Mesa's
        // lowering of OpDot lost a NaN product (`-0 * NaN`) that D3D keeps, which the
        // differential test found; each step is its own instruction, so `precise` and the
        // float controls apply to every one.
        let float = self.m.scalar(Scalar::F32);
        let mut steps = Vec::with_capacity(7);
        let mut id = 0;
        for i in 0..width.count_ones() {
            let x = self.extract(a, i)?.id;
            let y = self.extract(b, i)?.id;
            let product = built(self.m.b.f_mul(float, None, x, y))?;
            steps.push(product);
            id = if i == 0 {
                product
            } else {
                let sum = built(self.m.b.f_add(float, None, id, product))?;
                steps.push(sum);
                sum
            };
        }
        self.precise(instruction, &steps);
        let value = self.splat(
            Val {
                id,
                scalar: Scalar::F32,
                count: 1,
            },
            dst.mask(),
        )?;
        self.store(&dst, value, instruction.saturate)
    }

    /// Replicates a scalar into as many components as `mask` has.
    fn splat(&mut self, value: Val, mask: u8) -> Result<Val> {
        let count = mask.count_ones();
        if count <= 1 {
            return Ok(value);
        }
        let parts = [value.id; 4];
        self.compose(value.scalar, &parts[..(count as usize).min(4)])
    }

    /// Marks results `NoContraction` when the instruction is `precise`.
    fn precise(&mut self, instruction: &Instruction, ids: &[Word]) {
        if instruction.precise_mask != 0 {
            for &id in ids {
                self.decorate(id, spirv::Decoration::NoContraction, &[]);
            }
        }
    }

    /// The common shape of a one-result instruction: reads source `i` as `scalars[i]` (one
    /// component per bit of the destination mask), builds the result of type `result` with
    /// `op` (given the result type and the sources), marks it `precise` if asked and stores
    /// it (with `_sat` for float results).
    fn alu_op(
        &mut self,
        instruction: &Instruction,
        scalars: &[Scalar],
        result: Scalar,
        op: impl FnOnce(&mut Self, Word, &[Val]) -> Result<Word>,
    ) -> Result<()> {
        let dst = self.alu_dst(instruction, 0)?;
        let mask = dst.mask();
        // At most four sources: an array, not a Vec (this runs for every ALU instruction).
        if scalars.len() > 4 {
            return Err(self.internal("an ALU operation of more than 4 sources"));
        }
        let mut args = [Val {
            id: 0,
            scalar: Scalar::U32,
            count: 0,
        }; 4];
        for (i, &scalar) in scalars.iter().enumerate() {
            let src = self.alu_src(instruction, i)?;
            args[i] = self.load(&src, scalar, mask)?;
        }
        let count = mask.count_ones().max(1);
        let ty = self.m.vector(result, count);
        let id = op(self, ty, &args[..scalars.len()])?;
        self.precise(instruction, &[id]);
        self.store(
            &dst,
            Val {
                id,
                scalar: result,
                count,
            },
            instruction.saturate,
        )
    }

    /// Applies `op` to each component of `args` (all of one count) and composes the
    /// results (of type `result`).
    fn per_component(
        &mut self,
        args: &[Val],
        result: Scalar,
        mut op: impl FnMut(&mut Self, &[Word]) -> Result<Word>,
    ) -> Result<Word> {
        // Vectors have at most four components and the operations at most four arguments:
        // arrays, not Vecs (this runs per component of many ALU instructions).
        let count = args.first().map_or(1, |a| a.count).min(4) as usize;
        if args.len() > 4 {
            return Err(self.internal("a per-component operation of more than 4 values"));
        }
        let mut parts: [Word; 4] = [0; 4];
        for (i, part) in parts.iter_mut().enumerate().take(count) {
            let mut components: [Word; 4] = [0; 4];
            for (&value, component) in args.iter().zip(components.iter_mut()) {
                *component = self.extract(value, i as u32)?.id;
            }
            *part = op(self, &components[..args.len()])?;
        }
        Ok(self.compose(result, &parts[..count])?.id)
    }

    /// `value & 31` (for shift counts and bit-field widths and offsets), `like` giving the
    /// component count.
    fn low_five_bits(&mut self, value: Word, like: &[Val]) -> Result<Word> {
        let count = like.first().map_or(1, |v| v.count);
        let uint = self.m.vector(Scalar::U32, count);
        let mask = self.splat_bits(Scalar::U32, 31, count);
        built(self.m.b.bitwise_and(uint, None, value, mask))
    }

    /// `firstbit_hi`/`firstbit_shi`: `31 - msb`, or 0xffffffff when `msb` is -1 (no bit).
    fn index_from_msb(&mut self, ty: Word, msb: Word, count: u32) -> Result<Word> {
        let ones = self.splat_bits(Scalar::U32, u32::MAX, count);
        let thirty_one = self.splat_bits(Scalar::U32, 31, count);
        let boolean = self.m.vector(Scalar::Bool, count);
        let none = built(self.m.b.i_equal(boolean, None, msb, ones))?;
        let index = built(self.m.b.i_sub(ty, None, thirty_one, msb))?;
        built(self.m.select(ty, None, none, ones, index))
    }

    fn binary(&mut self, instruction: &Instruction, scalar: Scalar, op: Binary) -> Result<()> {
        self.alu_op(instruction, &[scalar, scalar], scalar, |e, ty, a| {
            let (x, y) = (arg(a, 0)?, arg(a, 1)?);
            let b = &mut e.m.b;
            built(match op {
                Binary::FAdd => b.f_add(ty, None, x, y),
                Binary::FMul => b.f_mul(ty, None, x, y),
                Binary::IAdd => b.i_add(ty, None, x, y),
                Binary::BitAnd => b.bitwise_and(ty, None, x, y),
                Binary::BitOr => b.bitwise_or(ty, None, x, y),
                Binary::BitXor => b.bitwise_xor(ty, None, x, y),
            })
        })
    }

    /// `div` with D3D's results for a zero divisor, which Vulkan leaves undefined (lavapipe
    /// gave 0 for `x / 0.0`, found by the differential test): ±infinity with the sign of
    /// `x * y`, NaN for `0 / 0` and `NaN / 0`; and NaN for a NaN divisor (lavapipe gave 0
    /// for `0.0 / NaN`).
    fn div(&mut self, instruction: &Instruction) -> Result<()> {
        self.alu_op(
            instruction,
            &[Scalar::F32, Scalar::F32],
            Scalar::F32,
            |e, ty, a| {
                let x = arg_val(a, 0)?;
                let y = arg(a, 1)?;
                let n = x.count;
                let quotient = built(e.m.b.f_div(ty, None, x.id, y))?;
                let uint = e.m.vector(Scalar::U32, n);
                let boolean = e.m.vector(Scalar::Bool, n);
                let x_bits = built(e.m.bitcast(uint, x.id))?;
                let y_bits = built(e.m.bitcast(uint, y))?;
                let signs = built(e.m.b.bitwise_xor(uint, None, x_bits, y_bits))?;
                let sign_bit = e.splat_bits(Scalar::U32, 0x8000_0000, n);
                let sign = built(e.m.b.bitwise_and(uint, None, signs, sign_bit))?;
                let inf_bits = e.splat_bits(Scalar::U32, 0x7f80_0000, n);
                let signed_inf = built(e.m.b.bitwise_or(uint, None, sign, inf_bits))?;
                let infinity = built(e.m.bitcast(ty, signed_inf))?;
                let zero = e.splat_bits(Scalar::F32, 0, n);
                let nan = e.splat_bits(Scalar::F32, 0x7fc0_0000, n);
                // 0 / 0 and NaN / 0 are NaN.
                let x_zero = built(e.m.b.f_ord_equal(boolean, None, x.id, zero))?;
                let by_zero = built(e.m.select(ty, None, x_zero, nan, infinity))?;
                let x_nan = built(e.m.b.is_nan(boolean, None, x.id))?;
                let by_zero = built(e.m.select(ty, None, x_nan, nan, by_zero))?;
                let y_zero = built(e.m.b.f_ord_equal(boolean, None, y, zero))?;
                let result = built(e.m.select(ty, None, y_zero, by_zero, quotient))?;
                // x / NaN is NaN: Mesa folded `0.0 / y` to 0 even under SignedZeroInfNanPreserve.
                let y_nan = built(e.m.b.is_nan(boolean, None, y))?;
                built(e.m.select(ty, None, y_nan, nan, result))
            },
        )
    }

    /// A GLSL.std.450 instruction whose result has the type and count of `like`.
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
        self.alu_op(instruction, &[Scalar::F32], Scalar::F32, |e, _, a| {
            let x = arg_val(a, 0)?;
            e.ext(x, which, &[x.id])
        })
    }

    /// `frc`: `x - floor(x)` kept below 1 (`Fract` of a tiny negative number rounds up to
    /// 1.0), and NaN for ±infinity (`inf - inf`; lavapipe's `Fract` gives 0), as the
    /// differential test found.
    fn frc(&mut self, instruction: &Instruction) -> Result<()> {
        /// GLSL.std.450 `FAbs`.
        const FABS: u32 = 4;
        self.alu_op(instruction, &[Scalar::F32], Scalar::F32, |e, ty, a| {
            let x = arg_val(a, 0)?;
            let fract = e.ext(x, ext::FRACT, &[x.id])?;
            let boolean = e.m.vector(Scalar::Bool, x.count);
            let one = e.splat_bits(Scalar::F32, 1.0f32.to_bits(), x.count);
            let below_one = e.splat_bits(Scalar::F32, 0x3f7f_ffff, x.count);
            let is_one = built(e.m.b.f_ord_greater_than_equal(boolean, None, fract, one))?;
            let kept = built(e.m.select(ty, None, is_one, below_one, fract))?;
            let magnitude = e.ext(x, FABS, &[x.id])?;
            let inf = e.splat_bits(Scalar::F32, 0x7f80_0000, x.count);
            let infinite = built(e.m.b.f_ord_equal(boolean, None, magnitude, inf))?;
            let nan = e.splat_bits(Scalar::F32, 0x7fc0_0000, x.count);
            built(e.m.select(ty, None, infinite, nan, kept))
        })
    }

    /// `min` / `max` with D3D's NaN rule for every NaN: `NMin`/`NMax`, then the other
    /// operand wherever one is a NaN. GLSL.std.450 promises the rule, but devices that follow
    /// IEEE 754-2008's minNum/maxNum (lavapipe) return NaN for a signalling NaN (found by the
    /// differential test: `max(0x7f800001, 2^31)` gave NaN), while D3D treats all NaNs alike.
    fn min_max(&mut self, instruction: &Instruction, which: u32) -> Result<()> {
        self.alu_op(
            instruction,
            &[Scalar::F32, Scalar::F32],
            Scalar::F32,
            |e, ty, a| {
                let x = arg_val(a, 0)?;
                let y = arg(a, 1)?;
                let r = e.ext(x, which, &[x.id, y])?;
                let boolean = e.m.vector(Scalar::Bool, x.count);
                let x_nan = built(e.m.b.is_nan(boolean, None, x.id))?;
                let r = built(e.m.select(ty, None, x_nan, y, r))?;
                let y_nan = built(e.m.b.is_nan(boolean, None, y))?;
                built(e.m.select(ty, None, y_nan, x.id, r))
            },
        )
    }

    fn ext_binary(&mut self, instruction: &Instruction, scalar: Scalar, which: u32) -> Result<()> {
        self.alu_op(instruction, &[scalar, scalar], scalar, |e, _, a| {
            let x = arg_val(a, 0)?;
            e.ext(x, which, &[x.id, arg(a, 1)?])
        })
    }

    fn compare(&mut self, instruction: &Instruction, scalar: Scalar, op: Compare) -> Result<()> {
        let dst = self.alu_dst(instruction, 0)?;
        let a = self.load(&self.alu_src(instruction, 0)?, scalar, dst.mask())?;
        let b = self.load(&self.alu_src(instruction, 1)?, scalar, dst.mask())?;
        if let Some(mask) = self.known_comparison(op, a, b) {
            return self.store(&dst, mask, false);
        }
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

    /// The D3D mask (all ones or 0 per component) of an integer comparison whose every
    /// component is known from constants: both sides constant, or one side the extreme of
    /// its type (nothing is less than `INT_MIN` or 0, nor greater than `INT_MAX` or
    /// `UINT_MAX`). Besides saving the work, this keeps from Mesa's compiler a loop exit
    /// `INT_MAX < i` on a counter, which never holds and on which lavapipe's pipeline
    /// creation never ends (`docs/oracle.md`).
    fn known_comparison(&mut self, op: Compare, a: Val, b: Val) -> Option<Val> {
        const INT_MIN: u32 = i32::MIN as u32;
        const INT_MAX: u32 = i32::MAX as u32;
        let (x, y) = (self.component_constants(a), self.component_constants(b));
        let mut bits = [0u32; 4];
        for (i, result) in bits.iter_mut().enumerate().take(a.count as usize) {
            let (x, y) = (x[i], y[i]);
            let known = match (op, x, y) {
                (Compare::IEqual, Some(x), Some(y)) => x == y,
                (Compare::INotEqual, Some(x), Some(y)) => x != y,
                (Compare::SLessThan, _, Some(INT_MIN)) | (Compare::SLessThan, Some(INT_MAX), _) => {
                    false
                }
                (Compare::SLessThan, Some(x), Some(y)) => (x as i32) < (y as i32),
                (Compare::SGreaterThanEqual, _, Some(INT_MIN))
                | (Compare::SGreaterThanEqual, Some(INT_MAX), _) => true,
                (Compare::SGreaterThanEqual, Some(x), Some(y)) => (x as i32) >= (y as i32),
                (Compare::ULessThan, _, Some(0)) | (Compare::ULessThan, Some(u32::MAX), _) => false,
                (Compare::ULessThan, Some(x), Some(y)) => x < y,
                (Compare::UGreaterThanEqual, _, Some(0))
                | (Compare::UGreaterThanEqual, Some(u32::MAX), _) => true,
                (Compare::UGreaterThanEqual, Some(x), Some(y)) => x >= y,
                _ => return None,
            };
            *result = if known { u32::MAX } else { 0 };
        }
        let id = self.constant_vector(Scalar::U32, &bits[..a.count as usize]);
        Some(Val {
            id,
            scalar: Scalar::U32,
            count: a.count,
        })
    }

    /// The constant bits of each component of a value (`None` for one that is not a
    /// constant, and past its components).
    fn component_constants(&self, value: Val) -> [Option<u32>; 4] {
        let Some(parts) = self.known_parts(value) else {
            return [None; 4];
        };
        let mut bits = [None; 4];
        for (bits, &part) in bits.iter_mut().zip(&parts).take(value.count as usize) {
            *bits = self.m.constant_value(part).map(|b| b as u32);
        }
        bits
    }

    /// `ftoi`/`ftou`: saturate to the integer range, NaN gives 0.
    fn float_to_int(&mut self, instruction: &Instruction, to: Scalar) -> Result<()> {
        self.alu_op(instruction, &[Scalar::F32], to, |e, ty, a| {
            let x = arg_val(a, 0)?;
            let n = x.count;
            let float = e.m.vector(Scalar::F32, n);
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
            let low_c = e.splat_bits(Scalar::F32, low.to_bits(), n);
            let high_c = e.splat_bits(Scalar::F32, high.to_bits(), n);
            let glsl = e.m.glsl();
            // NMax/NMin turn NaN into the bound; NaN must give 0, handled below.
            let clamped_low =
                built(
                    e.m.b
                        .ext_inst(float, None, glsl, glsl::NMAX, [IdRef(x.id), IdRef(low_c)]),
                )?;
            let clamped = built(e.m.b.ext_inst(
                float,
                None,
                glsl,
                glsl::NMIN,
                [IdRef(clamped_low), IdRef(high_c)],
            ))?;
            let converted = built(match to {
                Scalar::I32 => e.m.b.convert_f_to_s(ty, None, clamped),
                _ => e.m.b.convert_f_to_u(ty, None, clamped),
            })?;
            let boolean = e.m.vector(Scalar::Bool, n);
            let limit_c = e.splat_bits(Scalar::F32, limit.to_bits(), n);
            let too_big = built(e.m.b.f_ord_greater_than_equal(boolean, None, x.id, limit_c))?;
            let max = e.splat_bits(to, high_int, n);
            let saturated = built(e.m.select(ty, None, too_big, max, converted))?;
            let is_nan = built(e.m.b.is_nan(boolean, None, x.id))?;
            let zero = e.splat_bits(to, 0, n);
            built(e.m.select(ty, None, is_nan, zero, saturated))
        })
    }

    /// `sincos dst_sin, dst_cos, src`: both results are computed before either is written.
    fn alu_sincos(&mut self, instruction: &Instruction) -> Result<()> {
        let src = self.alu_src(instruction, 0)?;
        let mut results = Vec::with_capacity(2);
        for (i, which) in [ext::SIN, ext::COS].into_iter().enumerate() {
            let dst = self.alu_dst(instruction, i)?;
            if dst.kind == RegisterKind::Null {
                continue;
            }
            let x = self.load(&src, Scalar::F32, dst.mask())?;
            let id = self.ext(x, which, &[x.id])?;
            self.precise(instruction, &[id]);
            results.push((dst, Val { id, ..x }));
        }
        for (dst, value) in results {
            self.store(&dst, value, instruction.saturate)?;
        }
        Ok(())
    }

    /// The two-result integer instructions. Each non-null destination gets its result
    /// computed with its own mask; both are computed before either is written.
    fn alu_pair(&mut self, instruction: &Instruction, pair: Pair) -> Result<()> {
        let scalar = if pair == Pair::SMul {
            Scalar::I32
        } else {
            Scalar::U32
        };
        let (a, b) = (self.alu_src(instruction, 0)?, self.alu_src(instruction, 1)?);
        let mut results = Vec::with_capacity(2);
        for which in 0..2u32 {
            let dst = self.alu_dst(instruction, which as usize)?;
            if dst.kind == RegisterKind::Null {
                continue;
            }
            let mask = dst.mask();
            let x = self.load(&a, scalar, mask)?;
            let y = self.load(&b, scalar, mask)?;
            let ty = self.m.vector(scalar, x.count);
            let id = match pair {
                Pair::UDiv => self.unsigned_divide(x, y, which == 0)?,
                _ => {
                    let pair_ty = self.m.b.type_struct([ty, ty]);
                    let both = built(match pair {
                        Pair::SMul => self.m.b.s_mul_extended(pair_ty, None, x.id, y.id),
                        Pair::UMul => self.m.b.u_mul_extended(pair_ty, None, x.id, y.id),
                        Pair::AddCarry => self.m.b.i_add_carry(pair_ty, None, x.id, y.id),
                        _ => self.m.b.i_sub_borrow(pair_ty, None, x.id, y.id),
                    })?;
                    // Member 0 is the low half / sum / difference, member 1 the high half
                    // / carry / borrow. imul and umul put the high half in dst0.
                    let member = match (pair, which) {
                        (Pair::SMul | Pair::UMul, 0) => 1,
                        (Pair::SMul | Pair::UMul, _) => 0,
                        (_, w) => w,
                    };
                    built(self.m.composite_extract(ty, both, &[member]))?
                }
            };
            self.precise(instruction, &[id]);
            results.push((dst, Val { id, ..x }));
        }
        for (dst, value) in results {
            self.store(&dst, value, instruction.saturate)?;
        }
        Ok(())
    }

    /// `udiv`'s quotient (or remainder); division by zero gives 0xffffffff in both.
    fn unsigned_divide(&mut self, x: Val, y: Val, quotient: bool) -> Result<Word> {
        let n = x.count;
        let ty = self.m.vector(Scalar::U32, n);
        let boolean = self.m.vector(Scalar::Bool, n);
        let zero = self.splat_bits(Scalar::U32, 0, n);
        let one = self.splat_bits(Scalar::U32, 1, n);
        let ones = self.splat_bits(Scalar::U32, u32::MAX, n);
        let by_zero = built(self.m.b.i_equal(boolean, None, y.id, zero))?;
        // Divide by 1 instead of 0 so that no undefined value is ever computed.
        let divisor = built(self.m.select(ty, None, by_zero, one, y.id))?;
        let result = built(if quotient {
            self.m.b.u_div(ty, None, x.id, divisor)
        } else {
            self.m.b.u_mod(ty, None, x.id, divisor)
        })?;
        built(self.m.select(ty, None, by_zero, ones, result))
    }

    /// `ubfe`/`ibfe dst, width, offset, value` with D3D's rules: width and offset use their
    /// low five bits; width 0 gives 0; when `width + offset < 32` the field is extracted,
    /// else the value is shifted right by `offset` (logically for `ubfe`, arithmetically
    /// for `ibfe`). Extracting `min(width, 32 - offset)` bits gives exactly that, and keeps
    /// SPIR-V's `offset + count <= 32` rule.
    fn alu_bitfield_extract(&mut self, instruction: &Instruction) -> Result<()> {
        let signed = instruction.opcode == Opcode::Ibfe;
        let value_scalar = if signed { Scalar::I32 } else { Scalar::U32 };
        let scalars = [Scalar::U32, Scalar::U32, value_scalar];
        self.alu_op(instruction, &scalars, value_scalar, |e, _, a| {
            let width = e.low_five_bits(arg(a, 0)?, a)?;
            let offset = e.low_five_bits(arg(a, 1)?, a)?;
            let count = arg_val(a, 0)?.count;
            let uint = e.m.vector(Scalar::U32, count);
            let thirty_two = e.splat_bits(Scalar::U32, 32, count);
            let room = built(e.m.b.i_sub(uint, None, thirty_two, offset))?;
            let like = Val {
                id: width,
                scalar: Scalar::U32,
                count,
            };
            let bits = e.ext(like, ext::UMIN, &[width, room])?;
            let bits = Val { id: bits, ..like };
            let offset = Val { id: offset, ..like };
            let value = arg_val(a, 2)?;
            // Offset and Count of OpBitField*Extract are scalars: one extract per component.
            e.per_component(&[value, offset, bits], value_scalar, |e, c| {
                let (v, o, n) = (word(c, 0)?, word(c, 1)?, word(c, 2)?);
                let ty = e.m.scalar(value_scalar);
                built(if signed {
                    e.m.b.bit_field_s_extract(ty, None, v, o, n)
                } else {
                    e.m.b.bit_field_u_extract(ty, None, v, o, n)
                })
            })
        })
    }

    /// `bfi dst, width, offset, insert, base` with D3D's definition:
    /// `mask = ((1 << (width & 31)) - 1) << (offset & 31)`,
    /// `dst = ((insert << offset) & mask) | (base & ~mask)`.
    fn alu_bitfield_insert(&mut self, instruction: &Instruction) -> Result<()> {
        let u = Scalar::U32;
        self.alu_op(instruction, &[u, u, u, u], u, |e, ty, a| {
            let count = arg_val(a, 0)?.count;
            let width = e.low_five_bits(arg(a, 0)?, a)?;
            let offset = e.low_five_bits(arg(a, 1)?, a)?;
            let one = e.splat_bits(u, 1, count);
            let b = &mut e.m.b;
            let top = built(b.shift_left_logical(ty, None, one, width))?;
            let low_mask = built(b.i_sub(ty, None, top, one))?;
            let mask = built(b.shift_left_logical(ty, None, low_mask, offset))?;
            let shifted = built(b.shift_left_logical(ty, None, arg(a, 2)?, offset))?;
            let inserted = built(b.bitwise_and(ty, None, shifted, mask))?;
            let keep = built(b.not(ty, None, mask))?;
            let kept = built(b.bitwise_and(ty, None, arg(a, 3)?, keep))?;
            built(b.bitwise_or(ty, None, inserted, kept))
        })
    }

    /// `msad dst, ref, src, accum`: the masked sum of absolute differences. For each byte
    /// `i` of `ref` that is not 0, `|ref.byte[i] - src.byte[i]|` is added to `accum`
    /// (wrapping); bytes where `ref` is 0 are skipped.
    fn alu_msad(&mut self, instruction: &Instruction) -> Result<()> {
        let u = Scalar::U32;
        self.alu_op(instruction, &[u, u, u], u, |e, ty, a| {
            let count = arg_val(a, 0)?.count;
            let (reference, source) = (arg(a, 0)?, arg(a, 1)?);
            let boolean = e.m.vector(Scalar::Bool, count);
            let byte = e.splat_bits(u, 0xff, count);
            let zero = e.splat_bits(u, 0, count);
            let mut sum = arg(a, 2)?;
            for i in 0..4u32 {
                let shift = e.splat_bits(u, 8 * i, count);
                let b = &mut e.m.b;
                let r = built(b.shift_right_logical(ty, None, reference, shift))?;
                let r = built(b.bitwise_and(ty, None, r, byte))?;
                let s = built(b.shift_right_logical(ty, None, source, shift))?;
                let s = built(b.bitwise_and(ty, None, s, byte))?;
                let r_minus_s = built(b.i_sub(ty, None, r, s))?;
                let s_minus_r = built(b.i_sub(ty, None, s, r))?;
                let r_bigger = built(b.u_greater_than(boolean, None, r, s))?;
                let difference = built(b.select(ty, None, r_bigger, r_minus_s, s_minus_r))?;
                let masked = built(b.i_equal(boolean, None, r, zero))?;
                let difference = built(b.select(ty, None, masked, zero, difference))?;
                sum = built(b.i_add(ty, None, sum, difference))?;
            }
            Ok(sum)
        })
    }

    /// `deriv_rt{x,y}[_coarse|_fine]`: screen-space derivatives, fragment shaders only.
    fn alu_derivative(&mut self, instruction: &Instruction, which: Derivative) -> Result<()> {
        if !matches!(which, Derivative::X | Derivative::Y) {
            self.m.capability(spirv::Capability::DerivativeControl);
        }
        self.alu_op(instruction, &[Scalar::F32], Scalar::F32, |e, ty, a| {
            let x = arg(a, 0)?;
            let b = &mut e.m.b;
            built(match which {
                Derivative::X => b.d_pdx(ty, None, x),
                Derivative::Y => b.d_pdy(ty, None, x),
                Derivative::XCoarse => b.d_pdx_coarse(ty, None, x),
                Derivative::XFine => b.d_pdx_fine(ty, None, x),
                Derivative::YCoarse => b.d_pdy_coarse(ty, None, x),
                Derivative::YFine => b.d_pdy_fine(ty, None, x),
            })
        })
    }
}

/// The derivative a `deriv_*` opcode computes (`None` for other opcodes).
fn derivative(opcode: Opcode) -> Option<Derivative> {
    Some(match opcode {
        Opcode::DerivRtx => Derivative::X,
        Opcode::DerivRty => Derivative::Y,
        Opcode::DerivRtxCoarse => Derivative::XCoarse,
        Opcode::DerivRtxFine => Derivative::XFine,
        Opcode::DerivRtyCoarse => Derivative::YCoarse,
        Opcode::DerivRtyFine => Derivative::YFine,
        _ => return None,
    })
}

/// The id of source value `i`.
fn arg(args: &[Val], i: usize) -> Result<Word> {
    arg_val(args, i).map(|v| v.id)
}

/// Component id `i` of a per-component operation.
fn word(components: &[Word], i: usize) -> Result<Word> {
    components.get(i).copied().ok_or_else(|| {
        crate::error::Error::new(
            crate::error::Location::None,
            format!("internal error: ALU component source {i} is missing"),
        )
        .with_kind(crate::ErrorKind::Internal)
    })
}

/// Source value `i`.
fn arg_val(args: &[Val], i: usize) -> Result<Val> {
    args.get(i).copied().ok_or_else(|| {
        crate::error::Error::new(
            crate::error::Location::None,
            format!("internal error: ALU source {i} is missing"),
        )
        .with_kind(crate::ErrorKind::Internal)
    })
}
