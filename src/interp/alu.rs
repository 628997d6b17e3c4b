//! The arithmetic, logic, conversion and double-precision instructions of the reference
//! interpreter, per the D3D11/D3D12 functional specification.

use crate::tpf::opcodes::Opcode;

/// Float rules the device may choose and the interpreter follows one way per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FloatMode {
    /// Flush float32 denormal inputs and results of arithmetic to zero (sign kept).
    pub flush_denormals: bool,
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
/// Returns `None` for an opcode that is not an ALU instruction (flow control, memory,
/// declarations), which the executor handles itself.
pub fn evaluate(
    opcode: Opcode,
    srcs: &[[u32; 4]],
    dst_masks: &[u8],
    saturate: bool,
    mode: FloatMode,
) -> Option<Results> {
    let _ = (opcode, srcs, dst_masks, saturate, mode);
    None
}
