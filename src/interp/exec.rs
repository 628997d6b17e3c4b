//! Registers, operands, control flow, threads and barriers of the reference interpreter.

use super::{Options, Resources};
use crate::ir::Program;
use crate::{ErrorKind, Result};

/// Runs a compute program (see [`super::dispatch`]).
pub(super) fn dispatch(
    program: &Program,
    _resources: &mut Resources,
    _groups: [u32; 3],
    _options: &Options,
) -> Result<()> {
    Err(super::error_at(program, 0, "the interpreter's executor is not written yet")
        .with_kind(ErrorKind::Unsupported))
}
