//! The `dxbc2spirv` command.
#![forbid(unsafe_code)]

mod cli;
mod run;

fn main() {
    std::process::exit(cli::run());
}
