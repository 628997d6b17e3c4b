//! Analyses and transformations of the IR, one file per pass, each with its own tests.

pub mod bindings;
pub mod doubles;
pub mod hull_phases;
pub mod temp_types;
