//! The per-blob pipeline: a table of named stages, run in order on each corpus blob.
//!
//! Adding a stage (assembler round trip, SPIR-V translation, spirv-val) is one line in
//! [`STAGES`] plus its function; a stage that produces something stores it in [`Blob`].

use anyhow::{anyhow, bail, Result};
use dxbc2spirv::{disasm, Dxbc, ReadOptions};

/// One blob as it goes through the stages: the input and what earlier stages produced.
pub struct Blob<'a> {
    /// The container's bytes.
    pub bytes: &'a [u8],
    /// The read container, set by the `read` stage.
    pub dxbc: Option<Dxbc<'a>>,
    /// The disassembly, set by the `disassemble` stage.
    pub text: Option<String>,
}

impl<'a> Blob<'a> {
    /// A blob that no stage has touched yet.
    pub fn new(bytes: &'a [u8]) -> Self {
        Blob {
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
    pub run: fn(&mut Blob<'_>) -> Result<()>,
}

/// The pipeline, in order. Later stages run only when the earlier ones passed.
pub const STAGES: &[Stage] = &[
    stage("read", read),
    stage("disassemble", disassemble),
    stage("reencode", reencode),
    stage("roundtrip", roundtrip),
];

/// Builds a table row (keeps each row on one line after rustfmt).
const fn stage(name: &'static str, run: fn(&mut Blob<'_>) -> Result<()>) -> Stage {
    Stage { name, run }
}

/// `dxbc2spirv::read` with default options: container, decoding, IR validation.
fn read(blob: &mut Blob<'_>) -> Result<()> {
    blob.dxbc = Some(dxbc2spirv::read(blob.bytes, &ReadOptions::default())?);
    Ok(())
}

/// `disasm::disassemble`; the text must not be empty.
fn disassemble(blob: &mut Blob<'_>) -> Result<()> {
    let text = disasm::disassemble(blob.dxbc()?);
    if text.trim().is_empty() {
        bail!("disassembly is empty");
    }
    blob.text = Some(text);
    Ok(())
}

/// Encodes the decoded program again; the tokens must equal the original chunk's.
fn reencode(blob: &mut Blob<'_>) -> Result<()> {
    let dxbc = blob.dxbc()?;
    let (Some(program), Some(chunk)) = (&dxbc.program, dxbc.container.program()) else {
        return Ok(());
    };
    let words = dxbc2spirv::tpf::encode_words(program)?;
    first_difference(chunk.data, &words)
}

/// Prints the program, assembles the text again and encodes it: the tokens must equal the
/// original chunk's, and printing the assembled program must give the same text.
fn roundtrip(blob: &mut Blob<'_>) -> Result<()> {
    let dxbc = blob.dxbc()?;
    let (Some(program), Some(chunk)) = (&dxbc.program, dxbc.container.program()) else {
        return Ok(());
    };
    let text = disasm::program_text(program);
    let parsed = dxbc2spirv::asm::parse_program(&text)?;
    let words = dxbc2spirv::tpf::encode_words(&parsed)?;
    first_difference(chunk.data, &words)?;
    let again = disasm::program_text(&parsed);
    first_line_difference(&text, &again)
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
