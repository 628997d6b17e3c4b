//! What the translation works out about a program before or while it emits the module: none
//! of these changes the program (the IR stays as read), each is a function of it with its own
//! tests.
//!
//! - [`binding_plan`]: where each descriptor range is bound ([`binding_plan::BindingPlan`]),
//!   made once by the pipeline's analysis and used by the module and the reflection;
//! - [`hull_phases`]: a hull shader's phases and where each instruction belongs;
//! - [`temp_types`]: the component type each temp register holds, where it can be inferred;
//! - [`doubles`]: how a double-precision instruction's 32-bit masks and swizzles name double
//!   lanes (asked per instruction by the emitter).

pub mod binding_plan;
pub mod doubles;
pub mod hull_phases;
pub mod temp_types;
