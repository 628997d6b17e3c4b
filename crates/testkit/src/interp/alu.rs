//! The arithmetic, logic, conversion and double-precision instructions of the reference
//! interpreter, per the D3D11/D3D12 functional specification (D3D11.3 spec, sections 3.1
//! floating-point rules, 3.2 data conversion and 22.9–22.17 the instruction reference).
//!
//! - [`evaluate`] runs one instruction on already-read sources (the executor applies
//!   swizzles and source modifiers); this module applies `_sat` and the float32 denormal
//!   mode of [`FloatMode`].
//! - [`tolerance`] and [`within`] say how far a device may stray from the values computed
//!   here for the instructions D3D lets be approximate.
//!
//! Float32 rules followed here (spec 3.1): NaN in gives NaN out; `min`/`max` return the
//! non-NaN operand; comparisons are false with NaN except `ne`; with
//! [`FloatMode::flush_denormals`] arithmetic inputs and results that are denormal become
//! zero of the same sign, while `mov`, `movc` and `swapc` move bits unchanged (unless `_sat`
//! makes them float operations). `exp`, `log`, `rsq`, `sqrt`, `rcp`, `sincos` and `div`
//! are computed in f64 and rounded once to f32 (the best answer; devices get
//! [`tolerance`]). Doubles follow IEEE 754 with denormals kept.

mod doubles;
mod float;
mod half;
mod integer;
mod tolerance;

#[cfg(test)]
mod tests;

pub use half::{f16_to_f32, f32_to_f16};
pub use tolerance::{tolerance, within, within64, Tolerance, SINCOS_RANGE};

use dxbc2spirv::ir::ValueType;
use dxbc2spirv::isa::Opcode;

/// Float rules the device may choose and the interpreter follows one way per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FloatMode {
    /// Flush float32 denormal inputs and results of arithmetic to zero (sign kept).
    pub flush_denormals: bool,
    /// `mad` computed fused (one rounding) rather than multiply then add; D3D allows either.
    /// The dot products follow the same choice: fused, `dp4` is
    /// `fma(a.w, b.w, fma(a.z, b.z, fma(a.y, b.y, a.x * b.x)))`; unfused, each product and
    /// each sum is rounded, summed in component order.
    pub fuse_mad: bool,
    /// `f32tof16` rounds to nearest even, overflowing to infinity (IEEE, and what devices
    /// do), rather than toward zero with finite values clamped to ±65504 (the rule this
    /// interpreter reads in the D3D11.3 specification); the harness accepts either.
    pub f16_nearest: bool,
    /// `dp2`/`dp3`/`dp4` sum from the last component to the first (D3D fixes no order:
    /// its bound is the worst serial ordering).
    pub dot_reversed: bool,
}

/// The results of one ALU instruction: one 4-component vector per destination operand, in
/// destination order (`[hi, lo]` for `imul`, `[quotient, remainder]` for `udiv`, …).
pub type Results = [[u32; 4]; 2];

/// Evaluates one ALU instruction.
///
/// `srcs[k]` holds source `k`'s four 32-bit components after its swizzle and source
/// modifier: component `i` is what destination component `i` reads. `dst_masks[k]` is the
/// write mask of destination `k`. Component `i` of a result vector is written where the
/// mask has bit `i`; other components are ignored. `saturate` is the instruction's `_sat`.
///
/// Double-precision instructions read and write pairs of components as the spec lays them
/// out post-swizzle (see `seeds/dmovc.md`), which is also what the double-pair
/// legalization pass of the translator produces:
///
/// - a double source holds double 0 in components 0 (low half) and 1 (high half) and
///   double 1 in components 2 and 3 (the executor applies `-`/`_abs` to the sign bit of
///   the high halves);
/// - a 64-bit destination receives double 0 in components 0–1 and double 1 in 2–3 (the
///   legal masks `.xy`, `.zw`, `.xyzw` pick which are written);
/// - a 32-bit destination of a double instruction (`deq`, `dge`, `dlt`, `dne`, `dtof`,
///   `dtoi`, `dtou`) receives the result for double 0 in the first component its mask
///   enables and double 1 in the second (a mask of more than two components is illegal;
///   further components get 0);
/// - a 32-bit source of a double instruction (`dmovc`'s condition, `ftod`, `itod`,
///   `utod`) is read from component 0 for double 0 and component 1 for double 1.
///
/// `_sat` applies to float results (`[0, 1]`, NaN and −0 give +0), including `mov`/`movc`
/// (which then become float operations) and doubles; it is ignored for integer results.
/// Missing sources read as zero and missing masks as empty; nothing here panics.
///
/// Returns `None` for an opcode that is not an ALU instruction (flow control, memory,
/// resources, sampling, derivatives, declarations, stage-specific instructions and
/// `check_access_fully_mapped`), which the executor handles itself.
pub fn evaluate(
    opcode: Opcode,
    srcs: &[[u32; 4]],
    dst_masks: &[u8],
    saturate: bool,
    mode: FloatMode,
) -> Option<Results> {
    let src = |k: usize| srcs.get(k).copied().unwrap_or([0; 4]);
    let mask0 = dst_masks.first().copied().unwrap_or(0);
    let mut results: Results = match opcode {
        _ if float::handles(opcode) => float::evaluate(opcode, &src, saturate, mode)?,
        _ if integer::handles(opcode) => integer::evaluate(opcode, &src)?,
        _ if doubles::handles(opcode) => doubles::evaluate(opcode, &src, mask0, saturate, mode)?,
        Opcode::Nop => [[0; 4]; 2],
        _ => return None,
    };
    // `_sat` on float32 results (doubles saturate in their own module).
    if saturate {
        let info = opcode.info();
        for (k, result) in results.iter_mut().enumerate() {
            let float_result = match info.dsts.get(k) {
                Some(ValueType::F32) => true,
                Some(ValueType::Bits) => matches!(opcode, Opcode::Mov | Opcode::Movc),
                _ => false,
            };
            if float_result {
                *result = result.map(|bits| float::saturate(float::flush(bits, mode)));
            }
        }
    }
    Some(results)
}
