//! The translation, stage by stage. [`translate`] is the whole of it, each stage one call:
//!
//! 1. **read** ([`crate::read_into`]): the container's chunks, signatures and resource
//!    definitions; the program decoded ([`crate::tpf`]) and each instruction checked
//!    ([`crate::ir::validate`]);
//! 2. **lower** ([`crate::lowering`]): the forms the back end does not take rewritten into
//!    ones it does (SM5.0 texture and sampler registers chosen at run time); most programs
//!    need none and are used as read;
//! 3. **validate** ([`validate`]): what needs the whole program — structured control flow and
//!    the stage's rules; a Direct3D runtime limit the shader goes past is a warning
//!    ([`crate::Warning`]), not a refusal;
//! 4. **analyse** ([`analyse`]): where each descriptor range is bound (the binding plan,
//!    [`crate::analysis::binding_plan`]) and where each signature element is
//!    ([`crate::interface::place_program`]);
//! 5. **emit** ([`crate::spirv::emit`]): the SPIR-V module, instruction by instruction (temp
//!    types and hull-shader phases are worked out as it starts);
//! 6. **reflect** ([`crate::reflect`]): what the application needs to use the module, from
//!    the same analysis; then the program is let go;
//! 7. **optimise** ([`crate::spirv::optimise`]): the optimiser's passes
//!    ([`crate::spirv::opt`]);
//! 8. **assemble** ([`crate::spirv::assemble`]): the module's words.
//!
//! A [`Workspace`] holds what a [`crate::Translator`] keeps from one translation for the
//! next; a one-call translation uses one that keeps nothing.

use crate::analysis::binding_plan::BindingPlan;
use crate::bindings::BindingMapper;
use crate::container::ChunkInfo;
use crate::error::Result;
use crate::interface::Placements;
use crate::ir::Program;
use crate::translation::{TranslateOptions, Translation};

/// The most memory a [`Workspace`] keeps between translations, in bytes: the decoder's
/// arrays ([`crate::tpf::spare::Arrays::MAX_HELD_BYTES`]), the emitter's tables with the last
/// module's memory (288 KiB) and the optimiser's tables (256 KiB). `tests/workspace.rs`
/// measures it over the corpus and a generated shader of 20,000 instructions.
pub const WORKSPACE_BYTES: usize = crate::tpf::spare::Arrays::MAX_HELD_BYTES
    + crate::spirv::emitter::KEPT_BYTES
    + crate::spirv::opt::KEPT_BYTES;

/// Everything kept from one translation for the next: the decoder's arrays, the emitter's
/// tables with the memory of the last module, and the optimiser's tables, each stage's
/// dropped when it grew past its share of [`WORKSPACE_BYTES`].
#[derive(Default)]
pub(crate) struct Workspace {
    /// Keep the stages' tables after a translation. Off for a one-call translation
    /// ([`crate::translate_bytes`]), which frees each stage's tables before the next stage
    /// makes its own, for the smallest peak memory.
    pub(crate) keep: bool,
    /// The decoder's program arrays.
    pub(crate) decoder: crate::tpf::spare::Arrays,
    /// The emitter's tables and the last module's memory.
    pub(crate) emitter: Option<Box<crate::spirv::emitter::Kept>>,
    /// The optimiser's tables.
    pub(crate) optimiser: Option<Box<crate::spirv::opt::Kept>>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("keep", &self.keep)
            .field("held_bytes", &self.held_bytes())
            .finish()
    }
}

impl Workspace {
    /// A workspace that keeps the stages' tables between translations.
    pub(crate) fn kept() -> Workspace {
        Workspace {
            keep: true,
            ..Workspace::default()
        }
    }

    /// The bytes of memory held (at most [`WORKSPACE_BYTES`] after a translation).
    pub(crate) fn held_bytes(&self) -> usize {
        self.decoder.held_bytes()
            + self.emitter.as_ref().map_or(0, |kept| kept.held_bytes())
            + self.optimiser.as_ref().map_or(0, |kept| kept.held_bytes())
    }
}

/// What the analysis finds before emission, used by the module and by the reflection alike.
pub(crate) struct Analysis {
    /// Where the program's descriptor ranges are bound.
    pub(crate) plan: BindingPlan,
    /// Where the signature elements are.
    pub(crate) placements: Placements,
}

/// Translates a DXBC container: every stage, in order. The program read is let go (its
/// arrays kept for the next program when the workspace keeps them) as soon as the module is
/// emitted and the reflection made from it, before the optimiser's tables are made: a large
/// program and those tables are never held at once.
pub(crate) fn translate(
    bytes: &[u8],
    options: &TranslateOptions,
    workspace: &mut Workspace,
) -> Result<Translation> {
    let mut dxbc = crate::read_into(bytes, &options.read_options(), &mut workspace.decoder)?;
    let program = dxbc.program.take().ok_or_else(|| dxbc.no_program())?;
    let emitted = emitted(
        &program,
        &dxbc.reflection,
        options,
        options.mapper(),
        workspace,
    )?;
    // The container's signatures move into the result (no copies).
    let reflection = crate::reflect::scan_owned_with_plan(
        emitted.lowered.as_ref().unwrap_or(&program),
        dxbc.reflection,
        emitted.analysis.plan,
        emitted.analysis.placements,
    )?;
    drop(emitted.lowered);
    workspace.decoder.keep(program);
    Ok(Translation {
        words: finish(emitted.module, options, workspace),
        reflection,
        warnings: emitted.warnings,
    })
}

/// A module with what was found on the way to it.
pub(crate) struct Built {
    /// The module's words.
    pub(crate) words: Vec<u32>,
    /// The analysis it was made with, for the reflection.
    pub(crate) analysis: Analysis,
}

/// The module of a program that was read (or parsed): stages 2 to 5, 7 and 8 of
/// [`translate`] — lower, validate, analyse, emit, optimise, assemble. An error in a lowered program names
/// the instruction of the program as read.
pub(crate) fn module(
    program: &Program,
    signatures: &ChunkInfo,
    options: &TranslateOptions,
    mapper: &dyn BindingMapper,
    workspace: &mut Workspace,
) -> Result<Built> {
    let emitted = emitted(program, signatures, options, mapper, workspace)?;
    Ok(Built {
        words: finish(emitted.module, options, workspace),
        analysis: emitted.analysis,
    })
}

/// An emitted module, not yet optimised, with what was found on the way to it.
struct Emitted {
    /// The module as the emitter made it.
    module: Box<crate::spirv::builder::Module>,
    /// The analysis it was made with, for the reflection.
    analysis: Analysis,
    /// The validation's warnings.
    warnings: Vec<crate::Warning>,
    /// The program the module was made from, when a lowering rewrote the one read.
    lowered: Option<Program>,
}

/// Stages 2 to 5 of [`translate`]: lower, validate, analyse, emit. An error in a lowered
/// program names the instruction of the program as read.
fn emitted(
    program: &Program,
    signatures: &ChunkInfo,
    options: &TranslateOptions,
    mapper: &dyn BindingMapper,
    workspace: &mut Workspace,
) -> Result<Emitted> {
    let Some(lowered) = crate::lowering::lower(program)? else {
        return emitted_of(program, signatures, options, mapper, workspace);
    };
    match emitted_of(&lowered, signatures, options, mapper, workspace) {
        Ok(emitted) => Ok(Emitted {
            lowered: Some(lowered),
            ..emitted
        }),
        Err(e) => Err(crate::lowering::locate_in(program, e)),
    }
}

/// [`emitted`] of a program that needs no lowering.
fn emitted_of(
    program: &Program,
    signatures: &ChunkInfo,
    options: &TranslateOptions,
    mapper: &dyn BindingMapper,
    workspace: &mut Workspace,
) -> Result<Emitted> {
    let warnings = validate(program)?;
    let analysis = analyse(program, signatures, options, mapper)?;
    let module = crate::spirv::emit(program, signatures, options, &analysis, workspace)?;
    Ok(Emitted {
        module,
        analysis,
        warnings,
        lowered: None,
    })
}

/// Stages 7 and 8 of [`translate`]: the emitted module optimised and assembled.
fn finish(
    mut module: Box<crate::spirv::builder::Module>,
    options: &TranslateOptions,
    workspace: &mut Workspace,
) -> Vec<u32> {
    crate::spirv::optimise(&mut module, options, workspace);
    crate::spirv::assemble(module, workspace)
}

/// The checks that need the whole program: structured control flow, then the stage's rules
/// (each instruction was checked as it was read). What only restates a Direct3D runtime
/// limit is returned as a warning, not refused.
pub(crate) fn validate(program: &Program) -> Result<Vec<crate::Warning>> {
    crate::ir::validate_control_flow(program)?;
    let mut warnings = Vec::new();
    crate::ir::validate_stage_rules(program, &mut warnings)?;
    Ok(warnings)
}

/// The binding plan and the placements of a validated program.
pub(crate) fn analyse(
    program: &Program,
    signatures: &ChunkInfo,
    options: &TranslateOptions,
    mapper: &dyn BindingMapper,
) -> Result<Analysis> {
    let plan = BindingPlan::build(program, mapper)?;
    let placements = crate::interface::place_program(
        program,
        signatures,
        options.interface.as_ref(),
        options.dual_source_blending,
    )?;
    Ok(Analysis { plan, placements })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_translator_keeps_the_stages_tables_and_a_one_call_translation_does_not() {
        let bytes =
            crate::asm::assemble("ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1, 2, 3, 4)\nret\n")
                .expect("assembles");
        let options = TranslateOptions::default();
        let mut kept = Workspace::kept();
        assert_eq!(kept.held_bytes(), 0, "a new workspace");
        translate(&bytes, &options, &mut kept).expect("translates");
        assert!(
            kept.emitter.is_some() && kept.optimiser.is_some(),
            "after a translation: the emitter's and optimiser's tables"
        );
        assert!(kept.held_bytes() > 0 && kept.held_bytes() <= WORKSPACE_BYTES);
        let mut one_call = Workspace::default();
        translate(&bytes, &options, &mut one_call).expect("translates");
        assert!(
            one_call.emitter.is_none() && one_call.optimiser.is_none(),
            "tables that are not kept"
        );
    }
}
