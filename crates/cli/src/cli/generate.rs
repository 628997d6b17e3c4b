//! The command's shell completion scripts (clap_complete) and manual page (clap_mangen), both
//! made from the command-line definition, so they list every subcommand and flag there is.

use anyhow::{Context, Result};
use clap::CommandFactory;

/// The completion script of `shell` for the command `C`.
pub fn completions<C: CommandFactory>(shell: clap_complete::Shell) -> Vec<u8> {
    let mut command = C::command();
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    script
}

/// The manual page of the command `C` in roff, with its subcommands listed.
pub fn man_page<C: CommandFactory>() -> Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(C::command())
        .render(&mut page)
        .context("rendering the manual page")?;
    Ok(page)
}
