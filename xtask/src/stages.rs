//! The per-blob pipeline: a table of named stages, run in order on each corpus blob.
//!
//! Adding a stage is one line in [`STAGES`] plus its function; a stage that produces
//! something stores it in [`Blob`]. A stage passes, fails (an `Err`), is skipped (the
//! translator does not handle the program yet) or meets an expected error (a corpus blob
//! listed in [`KNOWN_INVALID`]).

use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use dxbc2spirv::spirv::TargetEnv;
use dxbc2spirv::{disasm, Dxbc, ErrorKind, ReadOptions, TranslateOptions};

/// Deliberately invalid corpus programs: path relative to the corpus root (without
/// `.dxbc`), and why the translator must reject them. Their `translate` error counts as an
/// expected error, not a failure; translating one of them successfully is a failure.
pub const KNOWN_INVALID: &[(&str, &str)] = &[(
    "fxc/vkd3d_shader_api/ps_break_code_51",
    "`break` outside a loop (vkd3d's API test of an invalid program)",
)];

/// How a stage ended for one blob, when it did not fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The check passed.
    Passed,
    /// The translator does not handle this program yet; the reason, with its location.
    Skipped(String),
    /// A known-invalid blob was rejected as it should be: the listed reason and the error.
    ExpectedError(String),
}

/// One blob as it goes through the stages: the input and what earlier stages produced.
pub struct Blob<'a> {
    /// The blob's path relative to the corpus root, with `/` separators.
    pub path: &'a str,
    /// The container's bytes.
    pub bytes: &'a [u8],
    /// The read container, set by the `read` stage.
    pub dxbc: Option<Dxbc<'a>>,
    /// The disassembly, set by the `disassemble` stage.
    pub text: Option<String>,
}

impl<'a> Blob<'a> {
    /// A blob that no stage has touched yet.
    pub fn new(path: &'a str, bytes: &'a [u8]) -> Self {
        Blob {
            path,
            bytes,
            dxbc: None,
            text: None,
        }
    }

    /// True once `read` found a root-signature-only container (no shader to check further).
    pub fn is_root_signature(&self) -> bool {
        self.dxbc.as_ref().is_some_and(|d| d.is_root_signature())
    }

    /// The read container; an error when `read` has not run.
    fn dxbc(&self) -> Result<&Dxbc<'a>> {
        self.dxbc
            .as_ref()
            .ok_or_else(|| anyhow!("stage needs `read` to have run first"))
    }
}

/// One named step of the pipeline.
pub struct Stage {
    /// Name used in the report (`FAIL <name> …`, `<name>: N passed, N failed`).
    pub name: &'static str,
    /// The check; an `Err` (or a panic) fails the blob at this stage.
    pub run: fn(&mut Blob<'_>) -> Result<Outcome>,
}

/// The pipeline, in order. Later stages run only when the earlier ones passed.
pub const STAGES: &[Stage] = &[
    stage("read", read),
    stage("disassemble", disassemble),
    stage("reencode", reencode),
    stage("roundtrip", roundtrip),
    stage("translate", translate),
];

/// Builds a table row (keeps each row on one line after rustfmt).
const fn stage(name: &'static str, run: fn(&mut Blob<'_>) -> Result<Outcome>) -> Stage {
    Stage { name, run }
}

/// `dxbc2spirv::read` with default options: container, decoding, IR validation.
fn read(blob: &mut Blob<'_>) -> Result<Outcome> {
    blob.dxbc = Some(dxbc2spirv::read(blob.bytes, &ReadOptions::default())?);
    Ok(Outcome::Passed)
}

/// `disasm::disassemble`; the text must not be empty.
fn disassemble(blob: &mut Blob<'_>) -> Result<Outcome> {
    let text = disasm::disassemble(blob.dxbc()?);
    if text.trim().is_empty() {
        bail!("disassembly is empty");
    }
    blob.text = Some(text);
    Ok(Outcome::Passed)
}

/// Encodes the decoded program again; the tokens must equal the original chunk's.
fn reencode(blob: &mut Blob<'_>) -> Result<Outcome> {
    let dxbc = blob.dxbc()?;
    let (Some(program), Some(chunk)) = (&dxbc.program, dxbc.container.program()) else {
        return Ok(Outcome::Passed);
    };
    let words = dxbc2spirv::tpf::encode_words(program)?;
    first_difference(chunk.data, &words)?;
    Ok(Outcome::Passed)
}

/// Prints the program, assembles the text again and encodes it: the tokens must equal the
/// original chunk's, and printing the assembled program must give the same text.
fn roundtrip(blob: &mut Blob<'_>) -> Result<Outcome> {
    let dxbc = blob.dxbc()?;
    let (Some(program), Some(chunk)) = (&dxbc.program, dxbc.container.program()) else {
        return Ok(Outcome::Passed);
    };
    let text = disasm::program_text(program);
    let parsed = dxbc2spirv::asm::parse_program(&text)?;
    let words = dxbc2spirv::tpf::encode_words(&parsed)?;
    first_difference(chunk.data, &words)?;
    let again = disasm::program_text(&parsed);
    first_line_difference(&text, &again)?;
    Ok(Outcome::Passed)
}

/// The [`KNOWN_INVALID`] reason for a blob path, if it is listed.
pub fn known_invalid(path: &str) -> Option<&'static str> {
    let stem = path.strip_suffix(".dxbc").unwrap_or(path);
    KNOWN_INVALID
        .iter()
        .find(|(listed, _)| *listed == stem)
        .map(|(_, reason)| *reason)
}

/// `dxbc2spirv::translate` (default options: Vulkan 1.3), then spirv-val on the words; a
/// module that translates is also translated and validated for Vulkan 1.1 and 1.2, and for
/// Vulkan 1.3 without the optimiser (`no_optimize`), whose passes must not be what makes it
/// valid. The options are those a user gets by default (debug names kept).
///
/// An `Unsupported` error skips the blob; an `Invalid` error fails it, except for a blob in
/// [`KNOWN_INVALID`], where it is expected (and success is a failure).
fn translate(blob: &mut Blob<'_>) -> Result<Outcome> {
    let dxbc = blob.dxbc()?;
    if dxbc.program.is_none() {
        return Ok(Outcome::Passed);
    }
    let expected = known_invalid(blob.path);
    // The default target (Vulkan 1.3) decides the outcome; a module that translates must
    // also translate and validate for Vulkan 1.1 and 1.2 (other capabilities, extensions
    // and SPIR-V versions).
    let defaults = TranslateOptions::default();
    let result = dxbc.translate(&defaults);
    if result.is_ok() {
        for target in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_2] {
            let mut options = defaults.clone();
            options.target = target;
            let words = dxbc
                .translate(&options)
                .with_context(|| format!("translating for {}", target.name()))?;
            spirv_val(&words, target.name())
                .with_context(|| format!("validating for {}", target.name()))?;
        }
        let mut options = defaults.clone();
        options.no_optimize = true;
        let words = dxbc
            .translate(&options)
            .context("translating without the optimiser")?;
        spirv_val(&words, TargetEnv::default().name())
            .context("validating the module made without the optimiser")?;
    }
    match result {
        Err(e) => match (expected, e.kind) {
            (Some(reason), ErrorKind::Invalid) => {
                Ok(Outcome::ExpectedError(format!("{reason}: {e}")))
            }
            (_, ErrorKind::Unsupported) => Ok(Outcome::Skipped(e.to_string())),
            // Invalid input not listed as such, limits and internal faults.
            _ => Err(e.into()),
        },
        Ok(words) => {
            if let Some(reason) = expected {
                bail!("listed in KNOWN_INVALID ({reason}) but translated without an error");
            }
            spirv_val(&words, TargetEnv::default().name())?;
            Ok(Outcome::Passed)
        }
    }
}

/// Checks that the `spirv-val` on `PATH` is SPIRV-Tools 2025.5 (the project's own, put first on
/// `PATH` by xtask when installed); the error says how to get it.
pub fn check_spirv_val() -> Result<()> {
    let version = Command::new("spirv-val")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.lines().next().unwrap_or("").trim().to_string()
        });
    match version {
        Some(v) if crate::tools::is_wanted_spirv_tools(&v) => {
            println!("spirv-val: {v}");
            Ok(())
        }
        found => bail!(
            "the `translate` stage validates with SPIRV-Tools v{} and found {}; \
             `cargo xtask test` installs it into {} (or run `{}`)",
            crate::tools::SPIRV_TOOLS_VERSION,
            found.map_or("no spirv-val".to_string(), |v| format!("`{v}`")),
            crate::tools::spirv_tools_bin().display(),
            crate::tools::pip_command().join(" "),
        ),
    }
}

/// Runs `spirv-val --target-env vulkan1.3` on SPIR-V words; the error is its first line.
pub fn spirv_val(words: &[u32], target: &str) -> Result<()> {
    TargetEnv::from_name(target).ok_or_else(|| anyhow!("unknown target {target}"))?;
    dxbc2spirv_testkit::spirv_val(words, target).map_err(|e| {
        let text = e.to_string();
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("(no message)");
        anyhow!("{first}")
    })
}

/// A skip reason without its `instruction N (dword 0x…)` locations, so that the same
/// reason from different places groups together.
pub fn strip_location(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut rest = reason;
    while let Some(start) = rest.find("instruction ") {
        let after = &rest[start + "instruction ".len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let tail = &after[digits..];
        match (digits, tail.strip_prefix(" (dword ")) {
            (1.., Some(dword)) if dword.contains(')') => {
                out.push_str(&rest[..start]);
                let close = dword.find(')').map_or(0, |i| i + 1);
                let after_close = &dword[close..];
                rest = after_close.strip_prefix(": ").unwrap_or(after_close);
                if out.ends_with(' ') {
                    rest = rest.strip_prefix(' ').unwrap_or(rest);
                }
            }
            _ => {
                out.push_str(&rest[..start + "instruction ".len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Compares two texts; the error shows the first differing line of both.
fn first_line_difference(expected: &str, actual: &str) -> Result<()> {
    let mut left = expected.lines();
    let mut right = actual.lines();
    for number in 1.. {
        match (left.next(), right.next()) {
            (None, None) => break,
            (a, b) if a == b => {}
            (a, b) => bail!(
                "printing the assembled program differs at line {number}: {:?} became {:?}",
                a.unwrap_or("<end>"),
                b.unwrap_or("<end>")
            ),
        }
    }
    Ok(())
}

/// Compares chunk bytes with encoded dwords; the error names the first differing dword.
pub fn first_difference(original: &[u8], words: &[u32]) -> Result<()> {
    let original: Vec<u32> = original
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let declared = original.get(1).copied().unwrap_or(0) as usize;
    let original = &original[..declared.min(original.len())];
    if let Some(i) = (0..original.len().max(words.len())).find(|&i| original.get(i) != words.get(i))
    {
        bail!(
            "dword {i:#x} differs: original {:#010x?}, encoded {:#010x?} ({} vs {} dwords)",
            original.get(i),
            words.get(i),
            original.len(),
            words.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_location_groups_reasons() {
        assert_eq!(
            strip_location("instruction 12 (dword 0x5a): dcl_sampler is not translated yet"),
            "dcl_sampler is not translated yet"
        );
        assert_eq!(
            strip_location("in instruction 3 (dword 0x1f) and instruction 4 (dword 0x22): x"),
            "in and x"
        );
        assert_eq!(strip_location("instruction set"), "instruction set");
        assert_eq!(strip_location("instruction 7 (word"), "instruction 7 (word");
    }

    #[test]
    fn known_invalid_matches_exact_paths() {
        assert!(known_invalid("fxc/vkd3d_shader_api/ps_break_code_51.dxbc").is_some());
        assert!(known_invalid("fxc/vkd3d_shader_api/ps_break_code_5.dxbc").is_none());
    }
}
