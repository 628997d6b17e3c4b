//! Double-precision instructions (`dadd` … `utod`), lane by lane as
//! [`crate::analysis::doubles`] legalized them.
//!
//! A double is read as its two 32-bit halves (`uint` loads of the components the pass
//! names), built into a `uvec2` and bitcast to `double`; results are bitcast back to a
//! `uvec2` and stored half by half. Moves (`dmov`, `dmovc`) never leave the bits: without
//! `_sat` they copy both halves unchanged, and the `-`/`|…|` modifiers are the IEEE sign-bit
//! operations on the high half for every instruction (so negating a NaN keeps its payload).
//!
//! D3D's rules: `dmin`/`dmax` return the non-NaN operand (`src0 < src1 ? src0 : src1`,
//! `>=` for `dmax`); `dne` is true for NaN; `dtoi`/`dtou` clamp to the integer range and
//! give 0 for NaN; `_sat` maps NaN and negatives (−0 included) to +0 and clamps at 1.
//! All sources of all lanes are read before any destination is written. `dfma` rounds once,
//! with a helper function in integer arithmetic ([`super::fma64`]), not the device's `Fma`.

use spirv::{Capability, ExecutionMode, Word};

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use crate::analysis::doubles::{legalize_instruction, SourceRead};
use crate::error::Result;
use crate::ir::{Instruction, Modifier, Operand, RegisterKind, ValueType};
use crate::isa::Opcode;

/// The sign bit of a double's high half.
const SIGN: u32 = 0x8000_0000;

/// A source value of one lane.
#[derive(Debug, Clone, Copy)]
enum Input {
    /// A double as its (low, high) `uint` halves, modifiers applied.
    Bits(Word, Word),
    /// A 32-bit value, typed and modified.
    Single(Val),
}

/// The result of one lane.
#[derive(Debug, Clone, Copy)]
enum Output {
    /// A double as (low, high) `uint` halves.
    Bits(Word, Word),
    /// A `double` value.
    Double(Word),
    /// A 32-bit value.
    Single(Val),
}

impl Emitter<'_> {
    /// `enableDoublePrecisionFloatOps` in the global flags: declares `Float64` when the
    /// target has it (instructions that use doubles fail on targets without it).
    pub fn double_global_flags(&mut self, flags: u32) {
        if flags & (1 << 12) != 0 && self.options.features.float64 {
            self.m.scalar(Scalar::F64);
        }
    }

    /// Emits a double-precision instruction; `false` when the instruction uses no doubles.
    pub fn double_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        let index = self.at.0 as usize;
        let Some(legal) = legalize_instruction(self.program, index, instruction)? else {
            return Ok(false);
        };
        let name = instruction.opcode.name();
        if !self.options.features.float64 {
            return Err(self.unsupported(format!(
                "{name}: the target has no double-precision support (shaderFloat64)"
            )));
        }
        self.double_float_controls();
        let info = instruction.opcode.info();
        let Some(dst) = self.program.dsts(instruction).first().copied() else {
            return Err(self.err(format!("{name} needs a destination")));
        };
        let srcs: Vec<Operand> = self.program.srcs(instruction).to_vec();
        let mut inputs = Vec::with_capacity(legal.lanes.len());
        for lane in &legal.lanes {
            let mut values = Vec::with_capacity(srcs.len());
            for ((src, read), ty) in srcs.iter().zip(&lane.srcs).zip(info.srcs) {
                values.push(self.double_input(src, *read, *ty)?);
            }
            inputs.push(values);
        }
        let mut outputs = Vec::with_capacity(inputs.len());
        for values in &inputs {
            let out = self.double_op(instruction, values)?;
            outputs.push(self.double_saturate(instruction, out)?);
        }
        for (lane, out) in legal.lanes.iter().zip(outputs) {
            match self.double_bits(out)? {
                Output::Bits(low, high) => {
                    let uint = |id| Val {
                        id,
                        scalar: Scalar::U32,
                        count: 1,
                    };
                    self.store_component(&dst, lane.dst, uint(low))?;
                    self.store_component(&dst, lane.dst + 1, uint(high))?;
                }
                Output::Single(value) => self.store_component(&dst, lane.dst, value)?,
                Output::Double(_) => return Err(self.err(format!("{name}: unsplit double"))),
            }
        }
        Ok(true)
    }

    /// Declares `DenormPreserve` and `SignedZeroInfNanPreserve` for 64-bit floats once each,
    /// when the target supports them.
    fn double_float_controls(&mut self) {
        if self.options.features.signed_zero_inf_nan_preserve_float64
            && !self.modes.iter().any(|(mode, args)| {
                *mode == ExecutionMode::SignedZeroInfNanPreserve && args[..] == [64]
            })
        {
            self.m.capability(Capability::SignedZeroInfNanPreserve);
            if self.options.target.spirv_version() < (1, 4) {
                self.m.extension("SPV_KHR_float_controls");
            }
            self.push_mode(ExecutionMode::SignedZeroInfNanPreserve, &[64]);
        }
        self.double_denorm_preserve();
    }

    /// Declares `DenormPreserve` for 64-bit floats once, when the target supports it.
    fn double_denorm_preserve(&mut self) {
        if !self.options.features.denorm_preserve_float64
            || self
                .modes
                .iter()
                .any(|(mode, _)| *mode == ExecutionMode::DenormPreserve)
        {
            return;
        }
        self.m.capability(Capability::DenormPreserve);
        if self.options.target.spirv_version() < (1, 4) {
            self.m.extension("SPV_KHR_float_controls");
        }
        self.push_mode(ExecutionMode::DenormPreserve, &[64]);
    }

    /// The raw bits of component `component` of a source (an immediate's value).
    fn double_half(&mut self, src: &Operand, component: u8) -> Result<Word> {
        if matches!(
            src.kind,
            RegisterKind::Immediate32 | RegisterKind::Immediate64
        ) {
            let bits = src.values.get(component as usize).copied().unwrap_or(0);
            return Ok(self.m.constant_u32(bits));
        }
        let raw = self.load_component(src, component)?;
        Ok(self.cast(raw, Scalar::U32)?.id)
    }

    /// Reads one source of a lane.
    fn double_input(&mut self, src: &Operand, read: SourceRead, ty: ValueType) -> Result<Input> {
        match read {
            SourceRead::Double { low, high } => {
                let low = self.double_half(src, low)?;
                let mut high = self.double_half(src, high)?;
                let uint = self.m.scalar(Scalar::U32);
                match src.modifier {
                    Modifier::None => {}
                    Modifier::Neg => {
                        let sign = self.m.constant_u32(SIGN);
                        high = built(self.m.b.bitwise_xor(uint, None, high, sign))?;
                    }
                    Modifier::Abs => {
                        let rest = self.m.constant_u32(!SIGN);
                        high = built(self.m.b.bitwise_and(uint, None, high, rest))?;
                    }
                    Modifier::AbsNeg => {
                        let sign = self.m.constant_u32(SIGN);
                        high = built(self.m.b.bitwise_or(uint, None, high, sign))?;
                    }
                }
                Ok(Input::Bits(low, high))
            }
            SourceRead::Single(component) => {
                let scalar = match ty {
                    ValueType::F32 => Scalar::F32,
                    ValueType::I32 => Scalar::I32,
                    _ => Scalar::U32,
                };
                let value = if matches!(src.kind, RegisterKind::Immediate32) {
                    let bits = src.values.get(component as usize).copied().unwrap_or(0);
                    Val {
                        id: self.m.constant_bits(scalar, bits),
                        scalar,
                        count: 1,
                    }
                } else {
                    let raw = self.load_component(src, component)?;
                    self.cast(raw, scalar)?
                };
                Ok(Input::Single(self.modify(value, src.modifier)?))
            }
        }
    }

    /// A double source as a `double` value.
    fn as_double(&mut self, input: Input) -> Result<Word> {
        match input {
            Input::Bits(low, high) => self.bits_to_double(low, high),
            Input::Single(_) => Err(self.err("a 32-bit value where a double was expected")),
        }
    }

    fn bits_to_double(&mut self, low: Word, high: Word) -> Result<Word> {
        let uvec2 = self.m.vector(Scalar::U32, 2);
        let pair = built(self.m.composite_construct(uvec2, &[low, high]))?;
        let double = self.m.scalar(Scalar::F64);
        built(self.m.bitcast(double, pair))
    }

    /// A result as halves (doubles split) or a 32-bit value.
    fn double_bits(&mut self, out: Output) -> Result<Output> {
        let Output::Double(id) = out else {
            return Ok(out);
        };
        let uvec2 = self.m.vector(Scalar::U32, 2);
        let uint = self.m.scalar(Scalar::U32);
        let pair = built(self.m.bitcast(uvec2, id))?;
        let low = built(self.m.composite_extract(uint, pair, &[0]))?;
        let high = built(self.m.composite_extract(uint, pair, &[1]))?;
        Ok(Output::Bits(low, high))
    }

    fn single(&self, values: &[Input], i: usize) -> Result<Val> {
        match values.get(i) {
            Some(Input::Single(value)) => Ok(*value),
            _ => Err(self.err("a missing 32-bit source")),
        }
    }

    fn double_arg(&mut self, values: &[Input], i: usize) -> Result<Word> {
        let input = values
            .get(i)
            .copied()
            .ok_or_else(|| self.err("a missing double source"))?;
        self.as_double(input)
    }

    /// Marks a result `NoContraction` when the instruction is `precise`.
    fn double_precise(&mut self, instruction: &Instruction, id: Word) {
        if instruction.precise_mask != 0 {
            self.decorate(id, spirv::Decoration::NoContraction, &[]);
        }
    }

    /// The operation of one lane.
    fn double_op(&mut self, instruction: &Instruction, values: &[Input]) -> Result<Output> {
        let double = self.m.scalar(Scalar::F64);
        let boolean = self.m.scalar(Scalar::Bool);
        let opcode = instruction.opcode;
        let out = match opcode {
            Opcode::Dmov => match values.first() {
                Some(Input::Bits(low, high)) => Output::Bits(*low, *high),
                _ => return Err(self.err("dmov needs a double source")),
            },
            Opcode::Dmovc => {
                let condition = self.single(values, 0)?;
                let (Some(Input::Bits(l1, h1)), Some(Input::Bits(l2, h2))) =
                    (values.get(1), values.get(2))
                else {
                    return Err(self.err("dmovc needs double sources"));
                };
                let test = self.cast(condition, Scalar::Bool)?.id;
                let uint = self.m.scalar(Scalar::U32);
                let low = built(self.m.select(uint, None, test, *l1, *l2))?;
                let high = built(self.m.select(uint, None, test, *h1, *h2))?;
                Output::Bits(low, high)
            }
            Opcode::Dadd | Opcode::Dmul | Opcode::Ddiv => {
                let a = self.double_arg(values, 0)?;
                let b = self.double_arg(values, 1)?;
                let id = match opcode {
                    Opcode::Dadd => built(self.m.b.f_add(double, None, a, b))?,
                    Opcode::Dmul => built(self.m.b.f_mul(double, None, a, b))?,
                    _ => built(self.m.b.f_div(double, None, a, b))?,
                };
                self.double_precise(instruction, id);
                Output::Double(id)
            }
            Opcode::Drcp => {
                let a = self.double_arg(values, 0)?;
                let one = self.m.constant_f64_bits(1.0f64.to_bits());
                let id = built(self.m.b.f_div(double, None, one, a))?;
                self.double_precise(instruction, id);
                Output::Double(id)
            }
            Opcode::Dfma => {
                // One rounding, whatever the device's Fma does (see `super::fma64`).
                let (
                    Some(Input::Bits(a_lo, a_hi)),
                    Some(Input::Bits(b_lo, b_hi)),
                    Some(Input::Bits(c_lo, c_hi)),
                ) = (values.first(), values.get(1), values.get(2))
                else {
                    return Err(self.err("dfma needs double sources"));
                };
                let [lo, hi] = self.fma64_call([*a_lo, *a_hi], [*b_lo, *b_hi], [*c_lo, *c_hi])?;
                Output::Bits(lo, hi)
            }
            Opcode::Dmin | Opcode::Dmax => {
                let a = self.double_arg(values, 0)?;
                let b = self.double_arg(values, 1)?;
                let pick_a = if opcode == Opcode::Dmin {
                    built(self.m.b.f_ord_less_than(boolean, None, a, b))?
                } else {
                    built(self.m.b.f_ord_greater_than_equal(boolean, None, a, b))?
                };
                let ordered = built(self.m.select(double, None, pick_a, a, b))?;
                let b_nan = built(self.m.b.is_nan(boolean, None, b))?;
                Output::Double(built(self.m.select(double, None, b_nan, a, ordered))?)
            }
            Opcode::Deq | Opcode::Dne | Opcode::Dlt | Opcode::Dge => {
                let a = self.double_arg(values, 0)?;
                let b = self.double_arg(values, 1)?;
                let test = match opcode {
                    Opcode::Deq => built(self.m.b.f_ord_equal(boolean, None, a, b))?,
                    Opcode::Dne => built(self.m.b.f_unord_not_equal(boolean, None, a, b))?,
                    Opcode::Dlt => built(self.m.b.f_ord_less_than(boolean, None, a, b))?,
                    _ => built(self.m.b.f_ord_greater_than_equal(boolean, None, a, b))?,
                };
                let mask = self.cast(
                    Val {
                        id: test,
                        scalar: Scalar::Bool,
                        count: 1,
                    },
                    Scalar::U32,
                )?;
                Output::Single(mask)
            }
            Opcode::Dtof => {
                let a = self.double_arg(values, 0)?;
                let float = self.m.scalar(Scalar::F32);
                let id = built(self.m.b.f_convert(float, None, a))?;
                Output::Single(Val {
                    id,
                    scalar: Scalar::F32,
                    count: 1,
                })
            }
            Opcode::Dtoi | Opcode::Dtou => {
                let a = self.double_arg(values, 0)?;
                Output::Single(self.double_to_integer(a, opcode == Opcode::Dtoi)?)
            }
            Opcode::Ftod => {
                let a = self.single(values, 0)?;
                Output::Double(built(self.m.b.f_convert(double, None, a.id))?)
            }
            Opcode::Itod => {
                let a = self.single(values, 0)?;
                Output::Double(built(self.m.b.convert_s_to_f(double, None, a.id))?)
            }
            Opcode::Utod => {
                let a = self.single(values, 0)?;
                Output::Double(built(self.m.b.convert_u_to_f(double, None, a.id))?)
            }
            // The emitter gives this part the opcodes with a double operand, all above
            // (`doubles_tests::every_double_opcode_is_tested` walks the table).
            _ => return Err(self.err(super::emitter::dispatch_miss(opcode))),
        };
        Ok(out)
    }

    /// `dtoi`/`dtou`: truncation after clamping to the integer range; NaN gives 0.
    fn double_to_integer(&mut self, a: Word, signed: bool) -> Result<Val> {
        let double = self.m.scalar(Scalar::F64);
        let boolean = self.m.scalar(Scalar::Bool);
        let (low, high) = if signed {
            (-2_147_483_648.0f64, 2_147_483_647.0f64)
        } else {
            (0.0f64, 4_294_967_295.0f64)
        };
        let low = self.m.constant_f64_bits(low.to_bits());
        let high = self.m.constant_f64_bits(high.to_bits());
        let below = built(self.m.b.f_ord_less_than(boolean, None, a, low))?;
        let raised = built(self.m.select(double, None, below, low, a))?;
        let above = built(self.m.b.f_ord_greater_than(boolean, None, raised, high))?;
        let clamped = built(self.m.select(double, None, above, high, raised))?;
        let scalar = if signed { Scalar::I32 } else { Scalar::U32 };
        let ty = self.m.scalar(scalar);
        let converted = if signed {
            built(self.m.b.convert_f_to_s(ty, None, clamped))?
        } else {
            built(self.m.b.convert_f_to_u(ty, None, clamped))?
        };
        let nan = built(self.m.b.is_nan(boolean, None, a))?;
        let zero = self.m.constant_bits(scalar, 0);
        let id = built(self.m.select(ty, None, nan, zero, converted))?;
        Ok(Val {
            id,
            scalar,
            count: 1,
        })
    }

    /// `_sat`: doubles clamp to [+0, 1] with NaN giving +0; 32-bit float results use the
    /// float saturation; other results are unchanged.
    fn double_saturate(&mut self, instruction: &Instruction, out: Output) -> Result<Output> {
        if !instruction.saturate {
            return Ok(out);
        }
        let value = match out {
            Output::Single(value) => return Ok(Output::Single(self.saturate(value)?)),
            Output::Bits(low, high) => self.bits_to_double(low, high)?,
            Output::Double(id) => id,
        };
        let double = self.m.scalar(Scalar::F64);
        let boolean = self.m.scalar(Scalar::Bool);
        let zero = self.m.constant_f64_bits(0);
        let one = self.m.constant_f64_bits(1.0f64.to_bits());
        let above_one = built(self.m.b.f_ord_greater_than(boolean, None, value, one))?;
        let capped = built(self.m.select(double, None, above_one, one, value))?;
        let positive = built(self.m.b.f_ord_greater_than(boolean, None, value, zero))?;
        Ok(Output::Double(built(
            self.m.select(double, None, positive, capped, zero),
        )?))
    }
}
