//! The `dxbc2spirv` command.
#![forbid(unsafe_code)]

mod cli;

fn main() {
    std::process::exit(cli::run());
}
