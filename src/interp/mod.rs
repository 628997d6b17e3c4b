//! The reference interpreter: executes an [`ir::Program`] on the CPU with the semantics of
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

use crate::ir::Program;
use crate::{Error, Result};

pub use memory::{Format, Resource, Shape};

/// The resources a dispatch sees, by `(register space, register)`: the D3D binding model,
/// independent of any Vulkan layout.
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            float: alu::FloatMode::default(),
            step_limit: 10_000_000,
        }
    }
}

/// Runs a compute program over `groups` thread groups with `resources`; the UAVs hold what
/// the dispatch wrote afterwards.
///
/// Errors name the instruction (index and dword): an instruction the interpreter does not
/// execute (unsupported), a program that breaks a rule the translator would also refuse
/// (invalid), or a thread that exceeds [`Options::step_limit`].
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
        crate::Location::Instruction {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            dword,
        },
        message,
    )
}
