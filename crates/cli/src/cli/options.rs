//! The translation flags shared by `translate`, `validate` and `batch`, turned into the
//! library's one options type, starting from its defaults (so the command, Rust and C agree).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use dxbc2spirv::bindings::BindingMap;
use dxbc2spirv::interface::InterfaceMap;
use dxbc2spirv::{StreamOutput, TargetEnv, TranslateOptions};

/// How to translate: the flags every translating subcommand takes.
#[derive(clap::Args, Debug, Clone)]
pub struct TranslateArgs {
    /// The Vulkan version to target: vulkan1.1, vulkan1.2 or vulkan1.3.
    #[arg(long, default_value = "vulkan1.3", value_parser = ["vulkan1.1", "vulkan1.2", "vulkan1.3"])]
    pub target_env: String,
    /// Leave out debug names.
    #[arg(long)]
    pub strip_debug: bool,
    /// Write the module as emitted, without the optimiser's passes.
    #[arg(long)]
    pub no_optimize: bool,
    /// Accept a container whose checksum does not match.
    #[arg(long)]
    pub ignore_checksum: bool,
    /// A JSON descriptor-binding map (docs/bindings.md); the default layout without.
    #[arg(long, value_name = "MAP.json")]
    pub bindings: Option<PathBuf>,
    /// A JSON stream-output (transform feedback) layout for a vertex, domain or geometry
    /// shader (docs/stream-output.md); nothing is captured without.
    #[arg(long, value_name = "FILE.json")]
    pub stream_output: Option<PathBuf>,
    /// A JSON stage-interface map: the location of each input, output and patch constant by
    /// semantic or register (docs/interface.md; `reflect --next-stage-interface` of the
    /// previous stage writes the one that links to it); Location = register without.
    #[arg(long, value_name = "MAP.json")]
    pub interface: Option<PathBuf>,
    /// Dual-source blending: a pixel shader's o0/o1 become Location 0, Index 0/1 (other
    /// colour outputs are dropped).
    #[arg(long)]
    pub dual_source_blending: bool,
}

impl TranslateArgs {
    /// The target environment of `--target-env`.
    pub fn target(&self) -> Result<TargetEnv> {
        TargetEnv::from_name(&self.target_env).with_context(|| {
            format!(
                "--target-env {}: expected vulkan1.1, vulkan1.2 or vulkan1.3",
                self.target_env
            )
        })
    }

    /// The library's options: its defaults, changed where a flag says so.
    pub fn options(&self) -> Result<TranslateOptions> {
        let mut options = TranslateOptions::default();
        options.target = self.target()?;
        options.debug_names = !self.strip_debug;
        options.no_optimize = self.no_optimize;
        options.ignore_checksum = self.ignore_checksum;
        options.bindings = load_binding_map(self.bindings.as_deref())?;
        options.stream_output = load_json(self.stream_output.as_deref(), StreamOutput::from_json)?;
        options.interface = load_json(self.interface.as_deref(), InterfaceMap::from_json)?;
        options.dual_source_blending = self.dual_source_blending;
        Ok(options)
    }
}

/// The binding map of `--bindings`, if given.
pub fn load_binding_map(path: Option<&Path>) -> Result<Option<BindingMap>> {
    load_json(path, BindingMap::from_json)
}

/// The file at `path`, if given, read by a `from_json` of the library; errors name the file.
fn load_json<T>(
    path: Option<&Path>,
    from_json: fn(&str) -> dxbc2spirv::Result<T>,
) -> Result<Option<T>> {
    let Some(path) = path else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let value = from_json(&text).with_context(|| format!("{}", path.display()))?;
    Ok(Some(value))
}
