//! Command-line parsing and the subcommands.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

mod batch;
mod explain;
mod generate;
mod input;
mod options;
mod progress;
mod reflect_text;

/// Exit status when the input could not be read or translated.
const EXIT_INPUT: i32 = 1;
/// Exit status for usage errors.
const EXIT_USAGE: i32 = 2;

/// An error in how the command was called (exit status 2), found after parsing: flags that
/// do not fit the input, binary output to a terminal.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error (exit status 2) with `message`.
pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

#[derive(Parser)]
#[command(
    name = "dxbc2spirv",
    version,
    about = "Translate Direct3D shader bytecode (DXBC, SM4.0-5.1) to SPIR-V",
    after_help = "Inputs are recognised by content: a DXBC container, assembly text or a \
                  .shader_test file (SPIR-V, DXIL, root signatures, empty and other binary \
                  input are refused, saying what they are); - means standard input or \
                  output.\n\nExit status: 0 success; 1 the input could not be read, \
                  translated, validated or run (one line on standard error naming the file \
                  and, for an instruction, its index, dword offset and the reason); 2 usage \
                  error (bad flags, flags that do not fit the input, binary output to a \
                  terminal)."
)]
struct Cli {
    /// On an error in an instruction, also print it disassembled with a caret under the
    /// operand at fault; in batch's summary, name every failing file.
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Disassemble a DXBC container into fxc-style assembly text.
    ///
    /// Example: dxbc2spirv disasm shader.dxbc -o shader.asm
    Disasm {
        /// The DXBC file, or - for standard input.
        input: PathBuf,
        /// Where to write the text (default: standard output; - for standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Accept a container whose checksum does not match.
        #[arg(long)]
        ignore_checksum: bool,
    },
    /// Translate a DXBC container into SPIR-V.
    ///
    /// The input may also be assembly text or a .shader_test file (its first `[... shader asm]`
    /// section, or the one --section names), assembled first.
    ///
    /// Example: dxbc2spirv translate shader.dxbc -o shader.spv --validate
    Translate {
        /// The DXBC file (or assembly text), or - for standard input.
        input: PathBuf,
        /// Which assembly section of a .shader_test file to translate (1 = the first).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        section: Option<u16>,
        /// Where to write the SPIR-V (default: standard output; - for standard output). Binary
        /// output is refused when standard output is a terminal.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Write a SPIR-V disassembly instead of the binary.
        #[arg(long)]
        text: bool,
        /// Run spirv-val (from PATH) on the result; a validation failure is an error.
        #[arg(long)]
        validate: bool,
        #[command(flatten)]
        translation: options::TranslateArgs,
    },
    /// List a shader's descriptor ranges with their bindings, signatures, push constants,
    /// thread-group size and geometry/tessellation parameters.
    ///
    /// Example: dxbc2spirv reflect shader.dxbc --json --bindings map.json
    Reflect {
        /// The DXBC file (or assembly text / .shader_test file), or - for standard input.
        input: PathBuf,
        /// Which assembly section of a .shader_test file to reflect (1 = the first).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        section: Option<u16>,
        /// Print JSON (otherwise text: model, thread-group size, geometry and tessellation
        /// parameters, signatures, one line per descriptor range, class linkage).
        #[arg(long)]
        json: bool,
        /// Print the interface map (JSON, the --interface format) that places the next
        /// stage's inputs where this shader's outputs are, matched by semantic: give it to
        /// the next stage's translate as --interface to link the two.
        #[arg(long, conflicts_with = "json")]
        next_stage_interface: bool,
        #[command(flatten)]
        translation: options::TranslateArgs,
    },
    /// Run a compute shader on Vulkan and print its UAVs afterwards.
    ///
    /// Every UAV and constant buffer the shader declares must be given, as the shader
    /// declares it, and nothing else; this is checked against the shader's reflection before
    /// Vulkan is called. A raw or structured UAV takes raw:SIZE (SIZE zero bytes) or 32-bit
    /// values (u32:1,2,…, i32:…, f32:…); a typed UAV buffer takes its format and texel values:
    /// r32f, r32ui, r32i, rg32f, rg32ui, rg32i, rgba32f, rgba32ui or rgba32i, of the shader's
    /// texel type. A constant buffer takes 32-bit values, zero-padded to its declared size.
    /// Bindings follow the default layout (u# = set 0, binding 160 + N; cb# = binding N).
    /// Textures, SRVs, samplers and register spaces other than 0 are not supported.
    ///
    /// Example: dxbc2spirv run shaders/seeds/store_raw.shader_test --dispatch 1,1,1 --uav 0=raw:80 --uav 1=raw:24
    Run {
        /// The DXBC file or assembly text (a .shader_test file: its first assembly section,
        /// or the one --section names), or - for standard input.
        input: PathBuf,
        /// Which assembly section of a .shader_test file to run (1 = the first).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        section: Option<u16>,
        /// Thread groups: X,Y,Z.
        #[arg(long, value_name = "X,Y,Z", value_parser = crate::run::parse_groups)]
        dispatch: [u32; 3],
        /// A UAV u#: N=raw:SIZE, N=u32:1,2,…, N=i32:…, N=f32:…, or for a typed UAV buffer
        /// N=FORMAT:VALUES (FORMAT: r32f, r32ui, r32i, rg32f, rg32ui, rg32i, rgba32f, rgba32ui,
        /// rgba32i).
        #[arg(long, value_name = "N=KIND:VALUES", value_parser = crate::run::parse_buffer)]
        uav: Vec<crate::run::BufferArg>,
        /// A constant buffer cb#: N=f32:1,2,3,4, N=u32:…, N=i32:….
        #[arg(long, value_name = "N=KIND:VALUES", value_parser = crate::run::parse_buffer)]
        cb: Vec<crate::run::BufferArg>,
    },
    /// Check a shader: read and check a DXBC container, translate it and run spirv-val on the
    /// module; or, given a SPIR-V module, run spirv-val on it. Prints one line per input.
    ///
    /// Example: dxbc2spirv validate shader.dxbc --target-env vulkan1.2
    Validate {
        /// The DXBC file, SPIR-V module, or assembly text / .shader_test file; - for
        /// standard input.
        input: PathBuf,
        /// Which assembly section of a .shader_test file to check (1 = the first).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        section: Option<u16>,
        #[command(flatten)]
        translation: options::TranslateArgs,
    },
    /// Convert every DXBC container under folders (a shader cache) to SPIR-V, in parallel.
    ///
    /// Folders are searched recursively; files are recognised by the DXBC magic, not their
    /// name. Each module is written under OUTDIR at the input's relative path, `.dxbc`
    /// replaced by (or `.spv` appended to) the name. One bad shader never stops the batch:
    /// failures are counted by reason in the summary and listed in the report. A progress
    /// bar is drawn on standard error when it is a terminal. The summary (on standard output,
    /// or standard error when the report goes to standard output) names the first failing
    /// files (all with --verbose). Exit status 1 when any shader failed.
    ///
    /// Example: dxbc2spirv batch cache/ -o spirv/ --jobs 8 --report report.json --shard 1/4
    Batch {
        /// Folders (searched recursively) and DXBC files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The output folder (created when missing).
        #[arg(short, long)]
        output: PathBuf,
        /// Worker threads (default: one per core).
        #[arg(short, long, value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Write a JSON report (one record per shader; - for standard output).
        #[arg(long, value_name = "REPORT.json")]
        report: Option<PathBuf>,
        /// Convert only shard I of N (1-based): files are split by a hash of their path, so
        /// N machines or CI jobs can share a cache.
        #[arg(long, value_name = "I/N", value_parser = batch::parse_shard)]
        shard: Option<(u64, u64)>,
        /// Run spirv-val on every module; a rejected module is a failure.
        #[arg(long)]
        validate: bool,
        #[command(flatten)]
        translation: options::TranslateArgs,
    },
    /// Assemble fxc-style assembly text into a DXBC container.
    ///
    /// The input is a listing, or a .shader_test file whose `[... shader asm]` section
    /// (the first, or the one --section names) is assembled.
    ///
    /// Example: dxbc2spirv asm shaders/seeds/store_raw.shader_test -o store_raw.dxbc
    Asm {
        /// The assembly text or .shader_test file, or - for standard input.
        input: PathBuf,
        /// Where to write the container (- for standard output, refused on a terminal).
        #[arg(short, long)]
        output: PathBuf,
        /// Which assembly section of a .shader_test file to assemble (1 = the first).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        section: Option<u16>,
    },
    /// Print the command's completion script for a shell.
    ///
    /// Example: dxbc2spirv completions bash > ~/.local/share/bash-completion/completions/dxbc2spirv
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the command's manual page (roff, section 1).
    ///
    /// Example: dxbc2spirv man > dxbc2spirv.1 && man -l dxbc2spirv.1
    Man,
}

/// Runs the command line and returns the exit status.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let mut container = None;
    let verbose = cli.verbose;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        execute(cli.command, verbose, &mut container)
    }));
    let Ok(outcome) = outcome else {
        // The panic message is already on standard error; keep the exit-status contract.
        eprintln!("internal error: dxbc2spirv panicked (a bug, please report it with the input)");
        return EXIT_INPUT;
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e:#}");
            if e.chain().any(|c| c.is::<UsageError>()) {
                return EXIT_USAGE;
            }
            if verbose {
                let detail = e
                    .chain()
                    .find_map(|c| c.downcast_ref::<dxbc2spirv::Error>());
                if let (Some(error), Some(bytes)) = (detail, container.as_deref()) {
                    if let Some(text) = explain::instruction_with_caret(bytes, error) {
                        eprint!("{text}");
                    }
                }
            }
            EXIT_INPUT
        }
    }
}

/// Runs a subcommand and returns its exit status; `container` keeps the DXBC bytes it
/// read, for `--verbose` error detail.
fn execute(command: Command, verbose: bool, container: &mut Option<Vec<u8>>) -> Result<i32> {
    match command {
        Command::Completions { shell } => {
            write_output(None, &generate::completions::<Cli>(shell))?;
            Ok(0)
        }
        Command::Man => {
            write_output(None, &generate::man_page::<Cli>()?)?;
            Ok(0)
        }
        Command::Disasm {
            input,
            output,
            ignore_checksum,
        } => {
            let bytes = read_input(&input)?;
            // A container without a program disassembles to its header comments.
            let kind = input::recognise(&bytes);
            if !matches!(kind, input::Kind::RootSignature | input::Kind::NoProgram(_)) {
                if let Some(why) = kind.refusal(false) {
                    anyhow::bail!("{}: {why}", input.display());
                }
            }
            let bytes: &[u8] = container.insert(bytes);
            let options = dxbc2spirv::ReadOptions {
                ignore_checksum,
                ..Default::default()
            };
            let dxbc = dxbc2spirv::read(bytes, &options)
                .with_context(|| format!("{}", input.display()))?;
            let text = dxbc2spirv::disasm::disassemble(&dxbc);
            write_output(output.as_deref(), text.as_bytes())?;
            Ok(0)
        }
        Command::Translate {
            input,
            section,
            output,
            text,
            validate,
            translation,
        } => {
            let options = translation.options()?;
            if !text {
                refuse_binary_on_terminal(output.as_deref(), "SPIR-V", "--text, ")?;
            }
            if validate {
                require_spirv_val()?;
            }
            let bytes: &[u8] = container.insert(program_bytes(&input, section)?);
            let translation = dxbc2spirv::translate_bytes(bytes, &options)
                .with_context(|| format!("{}", input.display()))?;
            print_warnings(&input.display().to_string(), &translation.warnings);
            let words = translation.words;
            if validate {
                spirv_val(&words, options.target).with_context(|| {
                    format!("{}: spirv-val rejected the module", input.display())
                })?;
            }
            if text {
                let text = dxbc2spirv::spirv::disassemble(&words)
                    .with_context(|| format!("{}", input.display()))?;
                write_output(output.as_deref(), text.as_bytes())?;
            } else {
                let binary: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                write_output(output.as_deref(), &binary)?;
            }
            Ok(0)
        }
        Command::Run {
            input,
            section,
            dispatch,
            uav,
            cb,
        } => {
            let bytes: &[u8] = container.insert(program_bytes(&input, section)?);
            let name = input.display().to_string();
            let dxbc = dxbc2spirv::read(bytes, &dxbc2spirv::ReadOptions::default())
                .with_context(|| name.clone())?;
            let reflection = reflect_program(&dxbc, &dxbc2spirv::bindings::DefaultBindings)
                .with_context(|| name.clone())?;
            crate::run::check_compute(&reflection, &name)?;
            let plan = crate::run::plan(&reflection, &uav, &cb).with_context(|| name.clone())?;
            let text = crate::run::run(&dxbc, dispatch, plan).with_context(|| name.clone())?;
            write_output(None, text.as_bytes())?;
            Ok(0)
        }
        Command::Reflect {
            input,
            section,
            json,
            next_stage_interface,
            translation,
        } => {
            let options = translation.options()?;
            let bytes: &[u8] = container.insert(program_bytes(&input, section)?);
            let reflection = dxbc2spirv::scan_bytes(bytes, &options)
                .with_context(|| format!("{}", input.display()))?;
            let text = if next_stage_interface {
                let map = dxbc2spirv::interface::InterfaceMap::inputs_from(&reflection);
                let mut text = serde_json::to_string_pretty(&map.to_json())?;
                text.push('\n');
                text
            } else if json {
                let mut text = serde_json::to_string_pretty(&reflection.to_json())?;
                text.push('\n');
                text
            } else {
                reflect_text::text(&reflection)
            };
            write_output(None, text.as_bytes())?;
            Ok(0)
        }
        Command::Asm {
            input,
            output,
            section,
        } => {
            refuse_binary_on_terminal(Some(&output), "DXBC", "")?;
            let bytes = read_input(&input)?;
            let kind = input::recognise(&bytes);
            if kind == input::Kind::Dxbc {
                anyhow::bail!(
                    "{}: a DXBC container, not assembly text: `dxbc2spirv disasm` turns it \
                     into text",
                    input.display()
                );
            }
            if let Some(why) = kind.refusal(true) {
                anyhow::bail!("{}: {why}", input.display());
            }
            let text = String::from_utf8(bytes)
                .with_context(|| format!("{}: not UTF-8 text", input.display()))?;
            let (listing, place) = choose_listing(&text, &input, section)?;
            let container = dxbc2spirv::asm::assemble(&listing).context(place)?;
            write_output(Some(&output), &container)?;
            Ok(0)
        }
        Command::Validate {
            input,
            section,
            translation,
        } => {
            let options = translation.options()?;
            let target = options.target;
            let bytes = read_input(&input)?;
            let name = input.display();
            let kind = input::recognise(&bytes);
            if let input::Kind::Spirv { big_endian } = kind {
                require_spirv_val()?;
                if section.is_some() {
                    return Err(usage(format!(
                        "--section: {name} is {}, not a .shader_test file",
                        kind.describe()
                    )));
                }
                let words = spirv_words(&bytes, big_endian).with_context(|| format!("{name}"))?;
                spirv_val(&words, target).with_context(|| format!("{name}"))?;
                println!(
                    "{name}: ok: {} valid for {} ({} words)",
                    kind.describe(),
                    target.name(),
                    words.len()
                );
                return Ok(0);
            }
            let bytes = program_bytes_of(&input, bytes, section)?;
            require_spirv_val()?;
            let bytes: &[u8] = container.insert(bytes);
            let translation =
                dxbc2spirv::translate_bytes(bytes, &options).with_context(|| format!("{name}"))?;
            print_warnings(&name.to_string(), &translation.warnings);
            spirv_val(&translation.words, target).with_context(|| format!("{name}"))?;
            let read = if kind == input::Kind::Dxbc {
                "DXBC container read"
            } else {
                "assembly text assembled"
            };
            println!(
                "{name}: ok: {} {read}, checked and translated; spirv-val {} passed ({} words, {} descriptor ranges)",
                translation.reflection.model,
                target.name(),
                translation.words.len(),
                translation.reflection.ranges.len()
            );
            Ok(0)
        }
        Command::Batch {
            inputs,
            output,
            jobs,
            report,
            shard,
            validate,
            translation,
        } => {
            if validate {
                require_spirv_val()?;
            }
            let options = translation.options()?;
            batch::run(&batch::BatchArgs {
                inputs,
                output,
                jobs: jobs.map(usize::from),
                report,
                shard,
                options,
                validate,
                verbose,
            })
        }
    }
}

/// The reflection of a container's program (an error when it has none).
fn reflect_program(
    dxbc: &dxbc2spirv::Dxbc<'_>,
    mapper: &dyn dxbc2spirv::bindings::BindingMapper,
) -> Result<dxbc2spirv::reflect::ShaderReflection> {
    let program = dxbc.program.as_ref().context("no shader program")?;
    Ok(dxbc2spirv::reflect::scan(
        program,
        &dxbc.reflection,
        mapper,
    )?)
}

/// Refuses binary output (`what`) to standard output when it is a terminal: a usage error
/// with the ways out (`also` names another one, e.g. `--text, `).
fn refuse_binary_on_terminal(output: Option<&Path>, what: &str, also: &str) -> Result<()> {
    use std::io::IsTerminal;
    if binary_to_terminal(output, std::io::stdout().is_terminal()) {
        return Err(usage(format!(
            "refusing to write binary {what} to a terminal: give -o FILE, {also}or redirect \
             standard output"
        )));
    }
    Ok(())
}

/// True when output to `output` (`None` or `-`: standard output) would reach a terminal.
fn binary_to_terminal(output: Option<&Path>, stdout_is_terminal: bool) -> bool {
    stdout_is_terminal && output.is_none_or(|p| p.as_os_str() == "-")
}

/// The program spirv-val is run as (`dxbc2spirv_testkit::spirv_val` finds it on PATH).
const SPIRV_VAL: &str = "spirv-val";

/// Fails, saying so, when spirv-val is not on PATH.
fn require_spirv_val() -> Result<()> {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(SPIRV_VAL).is_file()));
    if !found {
        anyhow::bail!(
            "{SPIRV_VAL} is not installed (not found on PATH): validation needs SPIRV-Tools' \
             {SPIRV_VAL} (2025.5 or later) on PATH"
        );
    }
    Ok(())
}

/// Runs spirv-val on a module for `target`.
pub(crate) fn spirv_val(words: &[u32], target: dxbc2spirv::TargetEnv) -> Result<()> {
    Ok(dxbc2spirv_testkit::spirv_val(words, target.name())?)
}

/// A SPIR-V file's words, in either byte order.
fn spirv_words(bytes: &[u8], big_endian: bool) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        anyhow::bail!(
            "a SPIR-V module is whole words; this one has {} bytes",
            bytes.len()
        );
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| {
            let word = <[u8; 4]>::try_from(c).unwrap_or_default();
            if big_endian {
                u32::from_be_bytes(word)
            } else {
                u32::from_le_bytes(word)
            }
        })
        .collect())
}

fn read_input(path: &Path) -> Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
        Ok(bytes)
    } else {
        std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
    }
}

fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<()> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, bytes).with_context(|| format!("{}: cannot write", p.display()))
        }
        _ => std::io::stdout()
            .write_all(bytes)
            .context("writing standard output"),
    }
}

/// The listing to assemble: the whole text, or the chosen `[... shader asm]` section of a
/// `.shader_test` file; with a description of where it came from, for errors. `--section`
/// on text without sections is a usage error.
fn choose_listing(text: &str, input: &Path, section: Option<u16>) -> Result<(String, String)> {
    let sections = dxbc2spirv::asm::asm_sections(text);
    if sections.is_empty() {
        if let Some(n) = section {
            return Err(usage(format!(
                "--section {n}: {} is assembly text, not a .shader_test file",
                input.display()
            )));
        }
        return Ok((text.to_string(), input.display().to_string()));
    }
    let count = sections.len();
    let n = section.unwrap_or(1);
    let chosen = sections
        .into_iter()
        .nth(usize::from(n) - 1)
        .ok_or_else(|| {
            usage(format!(
                "--section {n}: {} has {count} assembly section{}",
                input.display(),
                if count == 1 { "" } else { "s" }
            ))
        })?;
    let place = format!(
        "{} {} (line {})",
        input.display(),
        chosen.header,
        chosen.line
    );
    Ok((chosen.text, place))
}

/// The input's bytes as a DXBC container with an SM4/5 program: read as is, or assembled
/// when it is assembly text or a `.shader_test` file; any other input is refused, saying
/// what it is.
fn program_bytes(input: &Path, section: Option<u16>) -> Result<Vec<u8>> {
    let bytes = read_input(input)?;
    program_bytes_of(input, bytes, section)
}

/// [`program_bytes`] of bytes already read.
fn program_bytes_of(input: &Path, bytes: Vec<u8>, section: Option<u16>) -> Result<Vec<u8>> {
    let kind = input::recognise(&bytes);
    if let Some(why) = kind.refusal(true) {
        anyhow::bail!("{}: {why}", input.display());
    }
    if kind == input::Kind::Dxbc {
        if let Some(n) = section {
            return Err(usage(format!(
                "--section {n}: {} is a DXBC container, not a .shader_test file",
                input.display()
            )));
        }
        return Ok(bytes);
    }
    let text =
        String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8 text", input.display()))?;
    let (listing, place) = choose_listing(&text, input, section)?;
    dxbc2spirv::asm::assemble(&listing).context(place)
}

/// Prints a translation's warnings to standard error, one line each naming the input.
fn print_warnings(input: &str, warnings: &[dxbc2spirv::Warning]) {
    for warning in warnings {
        eprintln!("warning: {input}: {warning}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_output_is_refused_only_on_a_terminal() {
        assert!(binary_to_terminal(None, true));
        assert!(binary_to_terminal(Some(Path::new("-")), true));
        assert!(!binary_to_terminal(Some(Path::new("out.spv")), true));
        assert!(!binary_to_terminal(None, false));
    }
}
