//! dxbc2spirv's test kit: what runs the translator's modules rather than making them.
//!
//! - [`vulkan`]: a headless Vulkan runner (compute dispatches, draws, stream output,
//!   multisampled targets) on whatever device the loader finds (lavapipe in CI).
//! - [`shader_test`]: vkd3d's `.shader_test` format and its runner, which translates each
//!   shader and checks the probes on Vulkan.
//! - [`interp`]: a reference interpreter of the decoded DXBC program, the differential
//!   oracle the translated modules are compared against.
//!
//! - [`spirv_val`]: runs SPIRV-Tools' validator on a module.
//! - [`fault`]: deliberate miscompilations, as rewrites of finished modules, for the
//!   differential harness's self-check.
//!
//! The translator crate (`dxbc2spirv`) depends on none of this; the command's `run`
//! subcommand, xtask and the tests do.
#![deny(unsafe_code)]

pub mod fault;
pub mod interp;
pub mod shader_test;
mod validate;
// A headless Vulkan runner: the only module with unsafe code, as it calls the Vulkan API.
#[allow(unsafe_code)]
pub mod vulkan;

pub use validate::spirv_val;
