//! Minimum precision (`min16float`, `min10float`, `min16int`, `min16uint`) as native 16-bit
//! arithmetic.
//!
//! D3D lets a minimum-precision operation run at any precision at least as high as the one
//! named, so 32-bit arithmetic is always correct, and it is what the translator emits by
//! default. With [`Features::native_16bit`](super::Features::native_16bit) and the device's
//! `shaderFloat16` / `shaderInt16` (features `float16` / `int16`), the arithmetic
//! instructions whose destination and register sources all carry a 16-bit precision
//! (`add`, `mul`, `mad`, `min`, `max` for floats; `iadd`, `imad`, `umad`, `imin`, `imax`,
//! `umin`, `umax` for integers) compute in 16 bits: the sources are converted on reading,
//! the result converted back to 32 bits on writing, as registers stay 32 bits wide (D3D's
//! own register model). Other instructions, `_sat` and `precise` ones stay 32-bit, which D3D
//! allows. `min10float` (2.8 fixed point) is computed as half floats, whose precision is
//! higher. Where both widths give the exact result (values a 16-bit type holds exactly and
//! results that stay in range) the two modes agree bit for bit.

use spirv::{Capability, Word};

use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use crate::error::Result;
use crate::ir::{Instruction, MinPrecision, Operand, RegisterKind};
use crate::isa::Opcode;

/// How a 16-bit operation reads its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind16 {
    Float,
    Sint,
    Uint,
}

/// The 16-bit arithmetic of an instruction.
#[derive(Debug, Clone, Copy)]
enum Op16 {
    Add,
    Mul,
    Mad,
    Ext(u32),
}

/// GLSL.std.450 instruction numbers used here.
const NMIN: u32 = 79;
const NMAX: u32 = 80;
const SMIN: u32 = 39;
const SMAX: u32 = 42;
const UMIN: u32 = 38;
const UMAX: u32 = 41;

/// The 16-bit form of an opcode, if it has one.
fn op16(opcode: Opcode) -> Option<(Op16, Option<Kind16>)> {
    use Opcode as O;
    Some(match opcode {
        O::Add => (Op16::Add, Some(Kind16::Float)),
        O::Mul => (Op16::Mul, Some(Kind16::Float)),
        O::Mad => (Op16::Mad, Some(Kind16::Float)),
        O::Min => (Op16::Ext(NMIN), Some(Kind16::Float)),
        O::Max => (Op16::Ext(NMAX), Some(Kind16::Float)),
        // Signedness of iadd/imad comes from the destination's precision.
        O::Iadd => (Op16::Add, None),
        O::Imad => (Op16::Mad, None),
        O::Umad => (Op16::Mad, Some(Kind16::Uint)),
        O::Imin => (Op16::Ext(SMIN), Some(Kind16::Sint)),
        O::Imax => (Op16::Ext(SMAX), Some(Kind16::Sint)),
        O::Umin => (Op16::Ext(UMIN), Some(Kind16::Uint)),
        O::Umax => (Op16::Ext(UMAX), Some(Kind16::Uint)),
        _ => return None,
    })
}

/// The 16-bit kind of a register operand's precision.
fn kind_of(precision: MinPrecision) -> Option<Kind16> {
    match precision {
        MinPrecision::Float16 | MinPrecision::Float2_8 => Some(Kind16::Float),
        MinPrecision::Sint16 => Some(Kind16::Sint),
        MinPrecision::Uint16 => Some(Kind16::Uint),
        MinPrecision::Default => None,
    }
}

impl Emitter<'_> {
    /// Emits a minimum-precision instruction in 16 bits when the options, the device and
    /// every operand allow it; false leaves it to the 32-bit code.
    pub(super) fn alu_native16(&mut self, instruction: &Instruction) -> Result<bool> {
        let features = self.options.features;
        if !features.native_16bit || instruction.saturate || instruction.precise_mask != 0 {
            return Ok(false);
        }
        let Some((op, fixed)) = op16(instruction.opcode) else {
            return Ok(false);
        };
        let (dsts, srcs) = (
            self.program.dsts(instruction),
            self.program.srcs(instruction),
        );
        let [dst] = dsts else {
            return Ok(false);
        };
        let Some(kind) = kind_of(dst.min_precision) else {
            return Ok(false);
        };
        let integer_match = |k: Kind16| k == Kind16::Sint || k == Kind16::Uint;
        let fits = |k: Kind16| match fixed {
            Some(Kind16::Float) => k == Kind16::Float,
            Some(_) | None => integer_match(k),
        };
        if !fits(kind) {
            return Ok(false);
        }
        let register_ok = |s: &Operand| {
            s.kind == RegisterKind::Immediate32 || kind_of(s.min_precision).is_some_and(fits)
        };
        if !srcs.iter().all(register_ok) {
            return Ok(false);
        }
        let supported = match kind {
            Kind16::Float => features.float16,
            Kind16::Sint | Kind16::Uint => features.int16,
        };
        if !supported {
            return Ok(false);
        }
        let dst = *dst;
        let srcs: Vec<Operand> = srcs.to_vec();
        self.emit_native16(instruction, op, fixed.unwrap_or(kind), &dst, &srcs)?;
        Ok(true)
    }

    fn emit_native16(
        &mut self,
        instruction: &Instruction,
        op: Op16,
        kind: Kind16,
        dst: &Operand,
        srcs: &[Operand],
    ) -> Result<()> {
        let mask = dst.mask();
        let count = mask.count_ones().max(1);
        let (wide, narrow) = match kind {
            Kind16::Float => {
                self.m.capability(Capability::Float16);
                (Scalar::F32, self.m.b.type_float(16))
            }
            Kind16::Sint => {
                self.m.capability(Capability::Int16);
                (Scalar::I32, self.m.b.type_int(16, 1))
            }
            Kind16::Uint => {
                self.m.capability(Capability::Int16);
                (Scalar::U32, self.m.b.type_int(16, 0))
            }
        };
        let narrow_ty = if count > 1 {
            self.m.b.type_vector(narrow, count)
        } else {
            narrow
        };
        let mut args = Vec::with_capacity(srcs.len());
        for src in srcs {
            let value = self.load(src, wide, mask)?;
            let b = &mut self.m.b;
            args.push(built(match kind {
                Kind16::Float => b.f_convert(narrow_ty, None, value.id),
                Kind16::Sint => b.s_convert(narrow_ty, None, value.id),
                Kind16::Uint => b.u_convert(narrow_ty, None, value.id),
            })?);
        }
        let (Some(&a), Some(&b)) = (args.first(), args.get(1)) else {
            return Err(self.err("wrong operand count"));
        };
        let float = kind == Kind16::Float;
        let result = match op {
            Op16::Add if float => built(self.m.b.f_add(narrow_ty, None, a, b))?,
            Op16::Add => built(self.m.b.i_add(narrow_ty, None, a, b))?,
            Op16::Mul => built(self.m.b.f_mul(narrow_ty, None, a, b))?,
            Op16::Mad => {
                let Some(&c) = args.get(2) else {
                    return Err(self.err("wrong operand count"));
                };
                if float {
                    let p = built(self.m.b.f_mul(narrow_ty, None, a, b))?;
                    built(self.m.b.f_add(narrow_ty, None, p, c))?
                } else {
                    let p = built(self.m.b.i_mul(narrow_ty, None, a, b))?;
                    built(self.m.b.i_add(narrow_ty, None, p, c))?
                }
            }
            Op16::Ext(which) => {
                let glsl = self.m.glsl();
                built(self.m.b.ext_inst(
                    narrow_ty,
                    None,
                    glsl,
                    which,
                    [
                        super::builder::Operand::IdRef(a),
                        super::builder::Operand::IdRef(b),
                    ],
                ))?
            }
        };
        let wide_ty = self.m.vector(wide, count);
        let b = &mut self.m.b;
        let id: Word = built(match kind {
            Kind16::Float => b.f_convert(wide_ty, None, result),
            Kind16::Sint => b.s_convert(wide_ty, None, result),
            Kind16::Uint => b.u_convert(wide_ty, None, result),
        })?;
        self.store(
            dst,
            Val {
                id,
                scalar: wide,
                count,
            },
            instruction.saturate,
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::container::ChunkInfo;
    use crate::spirv::test_support::validate;
    use crate::spirv::{translate, Features};
    use crate::TranslateOptions as Options;
    use rspirv::dr::load_words;
    use spirv::{Capability, Op};

    const SHADER: &str = "cs_5_0
dcl_globalFlags refactoringAllowed | enableMinimumPrecision
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xyzw {min16f}, l(0), u0.xyzw
mad r1.xy {min16f}, r0.xyxx {min16f}, r0.zwzz {min16f}, l(0.5, 0.5, 0, 0)
umad r1.z {min16u}, r0.x {min16u}, r0.y {min16u}, l(1)
add r1.w, r0.x, r0.y
store_raw u0.xyzw, l(0), r1.xyzw
ret
";

    /// (Float16 declared, Int16 declared, number of OpFConvert + OpUConvert).
    fn translated(features: Features) -> (bool, bool, usize) {
        let program = crate::asm::parse_program(SHADER).unwrap();
        let options = Options {
            features,
            ..Options::default()
        };
        let words = translate(&program, &ChunkInfo::default(), &options).unwrap();
        validate(&words);
        let module = load_words(&words).unwrap();
        let has = |c: Capability| {
            module.capabilities.iter().any(|i| {
                matches!(i.operands.first(), Some(rspirv::dr::Operand::Capability(x)) if *x == c)
            })
        };
        let converts = module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .filter(|i| matches!(i.class.opcode, Op::FConvert | Op::UConvert))
            .count();
        (has(Capability::Float16), has(Capability::Int16), converts)
    }

    #[test]
    fn sixteen_bit_only_with_the_policy_and_the_device_features() {
        let on = Features {
            float16: true,
            int16: true,
            native_16bit: true,
            ..Features::default()
        };
        // mad: 3 sources in, 1 result out; umad: 3 in, 1 out; the 32-bit add: none.
        assert_eq!(translated(on), (true, true, 8));
        assert_eq!(translated(Features::default()), (false, false, 0));
        let no_half = Features {
            float16: false,
            ..on
        };
        assert_eq!(translated(no_half), (false, true, 4));
        let policy_off = Features {
            native_16bit: false,
            ..on
        };
        assert_eq!(translated(policy_off), (false, false, 0));
    }
}
