//! The optimiser: passes over the emitted module (`super::builder::Module`, before it is
//! assembled) that make it smaller without changing what it computes.
//!
//! The emitter keeps temps as SSA values (subroutines are inlined) and reads registers one
//! component at a time; that is simple and always right, but it is large. The passes, in the order [`optimize`] runs them:
//!
//! 1. `inline`: a one-block function called once (a hull-shader phase) replaces its call;
//! 2. `split`: private arrays and vectors reached only through constant indices (indexable
//!    temps, patch constants) become one variable per element;
//! 3. `forward`: within a block, a load of a private or function variable (the elements
//!    `split` made, a phase's instance id) reuses the value last stored to it or loaded
//!    from it (SSA values instead of memory round trips);
//! 4. `merge_stores`: component stores that write a whole output vector become one store;
//! 5. `simplify`: peepholes (extracts of constructs, constructs of extracts, bitcasts of
//!    bitcasts, constant vectors, integer constant folding) and common-subexpression
//!    elimination of pure instructions;
//! 6. `branches`: selections on conditions `simplify` made constant become plain
//!    branches, and the straight chains of blocks left are joined (then `forward` again);
//! 7. `dead_stores`: stores that no load can observe, and private variables never loaded;
//! 8. `dce`: instructions whose results are unused, and unused variables, constants,
//!    types and their decorations.
//!
//! The emitter reads read-only vector memory (inputs, constant buffers, class-linkage data)
//! a whole vector at a time and takes components out of it, so that no pass has to rewrite
//! component reads (`tests/vector_reads.rs` checks the corpus and the snapshot inputs).
//! `forward` and `dead_stores` run only when the code has function-scope variables or loads
//! or stores private ones, and `merge_stores` only when it has access chains into outputs
//! (the emitter holds output stores to the end of their block, so straight-line
//! vertex and pixel shaders have neither).
//!
//! Every pass keeps the module valid; `TranslateOptions::no_optimize` turns them all off,
//! and the project's execution tests run both ways.

mod branches;
mod dce;
#[cfg(test)]
mod dce_tests;
mod dead_stores;
mod forward;
#[cfg(test)]
mod forward_tests;
pub(crate) mod info;
mod inline;
mod merge_stores;
mod simplify;
#[cfg(test)]
mod simplify_tests;
mod split;
#[cfg(test)]
mod test_support;

use crate::spirv::builder::Module;
use crate::spirv::with_tables;

/// The tables the passes fill, kept from one run to the next by a [`crate::Translator`] so
/// that a translation reuses memory that is already mapped and in cache (bounded by
/// [`KEPT_BYTES`]).
#[derive(Default)]
pub(crate) struct Kept {
    info: info::Info,
    simplify: simplify::Tables,
    dce: dce::Tables,
}

/// The most memory of tables kept, in bytes.
pub(crate) const KEPT_BYTES: usize = 256 * 1024;

impl Kept {
    /// The bytes of memory the tables hold.
    pub(crate) fn held_bytes(&self) -> usize {
        self.info.held_bytes() + self.simplify.held_bytes() + self.dce.held_bytes()
    }
}

/// Runs every pass over a module.
pub fn optimize(module: &mut Module) {
    optimize_with(module, &mut None, false);
}

/// [`optimize`] with the tables of an earlier run (see [`crate::pipeline::Workspace`]), kept for
/// the next when `keep` is set.
pub(crate) fn optimize_with(module: &mut Module, slot: &mut Option<Box<Kept>>, keep: bool) {
    with_tables(slot, keep, KEPT_BYTES, Kept::held_bytes, |kept| {
        run_passes(module, kept, keep)
    });
}

/// Every pass, with these tables; those that will not be kept (`keep` unset, or past their
/// share) are freed as soon as their pass is done.
fn run_passes(module: &mut Module, kept: &mut Kept, keep: bool) {
    let Kept {
        info,
        simplify: simplify_tables,
        dce: dce_tables,
    } = kept;
    inline::run(module);
    info.refill(module);
    if split::run(module, info) {
        info.note_variable_memory();
    }
    // Without variable memory (straight-line code keeps its temps in values), the passes
    // that track variables have nothing to do.
    let plain = info
        .has_variable_memory()
        .then(|| info::plain_variables(module, info));
    if let Some(plain) = &plain {
        forward::run(module, info, plain);
    }
    if info.has_output_chains() {
        merge_stores::run(module, info);
    }
    simplify::run(module, info, simplify_tables);
    let too_large = |held: usize| !keep || held > KEPT_BYTES;
    // Tables that will not be kept go as soon as their pass is done, so that a large
    // module's tables are not all held at once.
    if too_large(simplify_tables.held_bytes()) {
        // Its table by id serves dce (the pass's own, when kept, is large enough already).
        dce_tables.adopt(std::mem::take(simplify_tables).into_id_memory());
    }
    if branches::run(module, info) {
        // Joined blocks let loads see stores that were in another block.
        if let Some(plain) = &plain {
            forward::run(module, info, plain);
        }
    }
    if let Some(plain) = &plain {
        dead_stores::run(module, plain);
    }
    drop(plain);
    if too_large(info.held_bytes()) {
        *info = info::Info::default();
    }
    dce::run(module, dce_tables);
}
