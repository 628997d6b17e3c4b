//! Whole listings into DXBC containers: the program, its signatures and its resource
//! definitions.

use super::parse_program;
use crate::container::{
    parse_header_comments, signatures_from_program, write_container, write_rdef, write_signature,
    Signature,
};
use crate::error::Result;
use crate::ir::Stage;
use crate::tpf;

/// Assembles a listing into the bytes of a DXBC container with a correct checksum.
///
/// The program becomes an SHDR (SM4) or SHEX (SM5) chunk. Signatures come from the
/// listing's `// Input signature` / `// Output signature` / `// Patch Constant signature`
/// tables, each one derived from the declarations when its table is absent. An RDEF chunk is
/// written when the listing has a resource-binding or buffer table, an SFI0 chunk (after the
/// program) when it has fxc's `Note: shader requires additional functionality:` block.
pub fn assemble(text: &str) -> Result<Vec<u8>> {
    let program = parse_program(text)?;
    let tables = parse_header_comments(text)?;
    let (input, output, patch_constant) = signatures_from_program(&program);
    let input = tables.input.unwrap_or(input);
    let output = tables.output.unwrap_or(output);
    let patch_constant = tables.patch_constant.or(patch_constant);
    let signature = |s: &Signature| (s.fourcc, write_signature(s));

    let mut chunks = Vec::with_capacity(5);
    if let Some(resources) = &tables.resources {
        chunks.push((*b"RDEF", write_rdef(resources)));
    }
    chunks.push(signature(&input));
    let domain = program.model.stage == Stage::Domain;
    match &patch_constant {
        Some(pc) if domain => {
            chunks.push(signature(pc));
            chunks.push(signature(&output));
        }
        Some(pc) => {
            chunks.push(signature(&output));
            chunks.push(signature(pc));
        }
        None => chunks.push(signature(&output)),
    }
    let code = if program.model.is_sm5() {
        *b"SHEX"
    } else {
        *b"SHDR"
    };
    chunks.push((code, tpf::encode(&program)?));
    if let Some(features) = tables.features {
        chunks.push((*b"SFI0", features.to_le_bytes().to_vec()));
    }
    Ok(write_container(&chunks))
}
