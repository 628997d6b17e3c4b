//! The `dxbc2spirv` command.
#![forbid(unsafe_code)]

mod cli;
#[cfg(feature = "vulkan")]
mod run;

fn main() {
    std::process::exit(cli::run());
}
