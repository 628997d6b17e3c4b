//! The SPIR-V back end: a validated [`ir::Program`](crate::ir::Program) into a Vulkan SPIR-V
//! module.
//!
//! The emitter walks the program once. Declarations create the module's variables (inputs
//! and outputs, constant buffers, resources, group-shared memory); temps become SSA values
//! (`ssa.rs`; subroutines are inlined where they are called, `subroutines.rs`), typed by [`crate::analysis::temp_types`] so that a value is only bitcast
//! where the program really reinterprets its bits; D3D's structured control flow maps onto
//! SPIR-V's selection, loop and switch constructs. Each instruction family lives in its
//! own file (`alu`, `flow`, `io`, `resources`, …) as an `impl Emitter` block.
//!
//! Anything the translator does not handle yet is an [`ErrorKind::Unsupported`] error that
//! names the instruction: never silently dropped, never wrong output.
//!
//! [`ErrorKind::Unsupported`]: crate::error::ErrorKind::Unsupported

mod alu;
#[cfg(test)]
mod alu_tests;
mod block_values;
pub(crate) mod builder;
mod descriptors;
#[cfg(test)]
mod descriptors_tests;
mod doubles;
#[cfg(test)]
mod doubles_tests;
pub(crate) mod emitter;
mod flow;
#[cfg(test)]
mod flow_tests;
mod fma64;
#[cfg(test)]
mod fma64_tests;
mod geometry;
mod hull;
mod io;
#[cfg(test)]
mod io_tests;
mod linkage;
#[cfg(test)]
mod linkage_tests;
mod min_precision;
mod module;
mod operands;
pub mod opt;
mod placed_io;
#[cfg(test)]
mod push_constant_tests;
mod resources;
mod sample_rate;
mod sparse;
mod ssa;
mod stage_builtins;
mod stage_io;
#[cfg(test)]
mod stage_tests;
mod stream_output;
#[cfg(test)]
mod stream_output_tests;
mod subroutines;
#[cfg(test)]
mod subroutines_tests;
mod tessellation;
#[cfg(test)]
pub(crate) mod test_support;

mod textures;
#[cfg(test)]
mod textures_tests;
mod value_facts;

pub use builder::disassemble;
pub use module::Scalar;
pub use stream_output::{StreamOutput, StreamOutputEntry};
pub use textures::RASTERIZER_SAMPLE_COUNT_SPEC_ID;

use crate::container::ChunkInfo;
use crate::error::Result;
use crate::ir::Program;

/// The Vulkan version whose SPIR-V rules the module follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TargetEnv {
    /// Vulkan 1.1: SPIR-V 1.3, demote through `SPV_EXT_demote_to_helper_invocation`.
    Vulkan1_1,
    /// Vulkan 1.2: SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3: SPIR-V 1.6 (the default).
    #[default]
    Vulkan1_3,
}

impl TargetEnv {
    /// The SPIR-V version (major, minor) of modules for this target.
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
        }
    }

    /// The `--target-env` name spirv-val uses (`vulkan1.3`).
    pub fn name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_1 => "vulkan1.1",
            TargetEnv::Vulkan1_2 => "vulkan1.2",
            TargetEnv::Vulkan1_3 => "vulkan1.3",
        }
    }

    /// The target for a `--target-env` name.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "vulkan1.1" => TargetEnv::Vulkan1_1,
            "vulkan1.2" => TargetEnv::Vulkan1_2,
            "vulkan1.3" => TargetEnv::Vulkan1_3,
            _ => return None,
        })
    }
}

/// Optional device features a module may rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Features {
    /// `shaderFloat64`: double-precision instructions (on by default; without it they are
    /// an error).
    pub float64: bool,
    /// `shaderDenormPreserveFloat64`: declare `DenormPreserve` for doubles, as D3D keeps
    /// double denormals (off by default, as not every device has it).
    pub denorm_preserve_float64: bool,
    /// `shaderSignedZeroInfNanPreserveFloat32`: declare `SignedZeroInfNanPreserve` for
    /// 32-bit floats, so that the device keeps NaN, infinities and signed zeros through
    /// arithmetic as D3D does (off by default, as not every device has it; without it a
    /// device may fold `x * 0` to 0).
    pub signed_zero_inf_nan_preserve_float32: bool,
    /// `shaderSignedZeroInfNanPreserveFloat64`: the same for doubles, declared when the
    /// module uses them (off by default).
    pub signed_zero_inf_nan_preserve_float64: bool,
    /// `shaderResourceResidency`: the `_s` forms read residency with `OpImageSparse*` (on
    /// by default; without it every status says "fully mapped", as no resource can then be
    /// partly resident).
    pub sparse_residency: bool,
    /// `shaderResourceMinLod`: the level-of-detail clamp of the `_cl_s` forms (on by
    /// default; without it a non-zero clamp is an error).
    pub min_lod: bool,
    /// `shaderFloat16`: half-float arithmetic (off by default).
    pub float16: bool,
    /// `shaderInt16`: 16-bit integer arithmetic (off by default).
    pub int16: bool,
    /// A policy rather than a device feature: compute minimum-precision arithmetic in
    /// 16 bits where `float16` / `int16` allow (off by default: 32 bits, which D3D always
    /// allows).
    pub native_16bit: bool,
    /// `shaderSubgroupClock` of `VK_KHR_shader_clock`: `vCycleCounter` reads the subgroup
    /// clock with `OpReadClockKHR` (off by default; without it a read is an error).
    pub shader_clock: bool,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            float64: true,
            denorm_preserve_float64: false,
            signed_zero_inf_nan_preserve_float32: false,
            signed_zero_inf_nan_preserve_float64: false,
            sparse_residency: true,
            min_lod: true,
            float16: false,
            int16: false,
            native_16bit: false,
            shader_clock: false,
        }
    }
}

/// Translates a program with the default bindings (for the crate's tests).
#[cfg(test)]
pub(crate) fn translate(
    program: &Program,
    reflection: &ChunkInfo,
    options: &crate::TranslateOptions,
) -> Result<Vec<u32>> {
    crate::translate_program(
        program,
        reflection,
        options,
        &crate::bindings::DefaultBindings,
    )
}

/// Runs a stage with its tables: the workspace's kept ones (which the stage empties first),
/// or new ones on the stack when none are kept, so that a one-call translation allocates no
/// box for them. Afterwards the tables are kept when `keep` is set and they hold at most
/// `limit` bytes (`held_bytes` measures them), and freed otherwise.
pub(crate) fn with_tables<T: Default, R>(
    slot: &mut Option<Box<T>>,
    keep: bool,
    limit: usize,
    held_bytes: fn(&T) -> usize,
    stage: impl FnOnce(&mut T) -> R,
) -> R {
    match slot {
        Some(kept) => {
            let result = stage(kept);
            if !keep || held_bytes(kept) > limit {
                *slot = None;
            }
            result
        }
        None => {
            let mut tables = T::default();
            let result = stage(&mut tables);
            if keep && held_bytes(&tables) <= limit {
                *slot = Some(Box::new(tables));
            }
            result
        }
    }
}

/// Emits the module of a validated program with its analysis ([`crate::pipeline`]).
pub(crate) fn emit(
    program: &Program,
    signatures: &ChunkInfo,
    options: &crate::TranslateOptions,
    analysis: &crate::pipeline::Analysis,
    workspace: &mut crate::pipeline::Workspace,
) -> Result<Box<builder::Module>> {
    emitter::Emitter::run(
        program,
        signatures,
        options,
        &analysis.plan,
        &analysis.placements,
        workspace,
    )
}

/// Runs the optimiser's passes over a module (none with `options.no_optimize`), with the
/// workspace's tables.
pub(crate) fn optimise(
    module: &mut builder::Module,
    options: &crate::TranslateOptions,
    workspace: &mut crate::pipeline::Workspace,
) {
    if options.no_optimize {
        return;
    }
    opt::optimize_with(module, &mut workspace.optimiser, workspace.keep);
}

/// Writes a module's words; its memory serves the next module when the workspace keeps it.
pub(crate) fn assemble(
    module: Box<builder::Module>,
    workspace: &mut crate::pipeline::Workspace,
) -> Vec<u32> {
    let words = builder::assemble(&module);
    if let Some(kept) = workspace.emitter.as_mut() {
        kept.recycled().keep(module);
    }
    words
}
