//! The reference interpreter: executes an [`dxbc2spirv::ir::Program`] on the CPU with the semantics of
//! the D3D11/D3D12 functional specification, as an oracle independent of the SPIR-V back end
//! (it shares only the reader and the IR with the translator).
//!
//! Compute shaders: [`dispatch`] runs every thread group, and within a group runs the
//! threads one after another up to each `sync_*_t` barrier (a group's threads advance in
//! phases between barriers, which is all D3D promises about their order).
//!
//! - [`alu`]: the arithmetic, logic, conversion and double instructions, per D3D's rules;
//! - [`memory`]: resources (buffers and textures), formats, addressing, out-of-bounds rules
//!   and atomics;
//! - `exec`: registers, operands, control flow, threads and barriers.

pub mod alu;
mod exec;
pub mod memory;

use std::collections::BTreeMap;

use dxbc2spirv::ir::Program;
use dxbc2spirv::{Error, Result};

pub use memory::{Format, Resource, Shape};

/// The resources a dispatch sees, by `(register space, register)`: the D3D binding model,
/// independent of any Vulkan layout. SM4.0–5.0 registers are space 0; SM5.1 operands name
/// the absolute register in the range's space (`t1[12]` of `dcl_resource_raw t1[10:20],
/// space=3` is `(3, 12)`).
///
/// A resource the program declares but this lacks is unbound, as in D3D: its loads,
/// `bufinfo`, `resinfo`, atomics and UAV counter give 0, its stores and atomics write
/// nothing, and a constant buffer reads 0 everywhere. A register outside its declared
/// range is an error (D3D leaves such an access undefined).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resources {
    /// Shader resource views (`t#`).
    pub srvs: BTreeMap<(u32, u32), Resource>,
    /// Unordered access views (`u#`), written by the dispatch.
    pub uavs: BTreeMap<(u32, u32), Resource>,
    /// Constant buffers (`cb#`) as 32-bit words: vector `i` is words `4i..4i + 4`; a read
    /// past the end gives 0.
    pub constant_buffers: BTreeMap<(u32, u32), Vec<u32>>,
}

/// How the interpreter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Float rules: whether float32 denormals are flushed (D3D allows either for arithmetic;
    /// moves never flush).
    pub float: alu::FloatMode,
    /// Instructions one thread may execute before the run stops with an error (a loop that
    /// never ends).
    pub step_limit: u64,
    /// Refuse a program that reads a component of a temp (`r#`) before the thread writes
    /// it, whose value D3D leaves undefined (an `Invalid` error naming the instruction). Off
    /// by default: compilers emit such reads whose results go unused.
    pub undefined_reads: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            float: alu::FloatMode::default(),
            step_limit: 10_000_000,
            undefined_reads: false,
        }
    }
}

/// Runs a compute program (`cs_4_0` … `cs_5_1`) over `groups` thread groups with
/// `resources`; the UAVs (and their counters) hold what the dispatch wrote afterwards.
///
/// Groups run in order (x fastest), and within a group the threads in flattened order, each
/// until a `sync_*_t` barrier or its end; once every thread has reached the barrier or
/// ended, all continue. Group-shared memory starts zeroed in every group. Bounds: constant
/// buffers read 0 past the bound buffer; the immediate constant buffer and indexable temps
/// read 0 out of bounds and drop writes there; buffers and textures follow
/// [`memory::Resource`]'s rules.
///
/// Class linkage reads its instance bindings from `cb15` of space 0 in the translator's
/// form (per slot `s`: the function-table id in vector `2s`, `this[s]` in `2s + 1`);
/// `vCycleCounter` reads the thread's instruction count.
///
/// Errors name the instruction (index and dword): another stage, sampling or a register
/// file the interpreter does not model (unsupported); a malformed block
/// structure, a barrier that threads reach at different instructions, calls nested deeper
/// than 32, a resource register outside its range (invalid); a thread that exceeds
/// [`Options::step_limit`] or a dispatch over 65535 groups in a dimension (limit).
pub fn dispatch(
    program: &Program,
    resources: &mut Resources,
    groups: [u32; 3],
    options: &Options,
) -> Result<()> {
    exec::dispatch(program, resources, groups, options)
}

/// An interpreter error at an instruction.
pub(crate) fn error_at(program: &Program, index: usize, message: impl Into<String>) -> Error {
    let dword = program.instructions.get(index).map_or(0, |i| i.dword);
    Error::new(
        dxbc2spirv::Location::Instruction {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            dword,
        },
        message,
    )
}
