//! The disassembler: a read container as fxc-style assembly text.
//!
//! The text is fxc's listing format: `//` header tables for resource bindings and
//! signatures, the version line, then one declaration or instruction per line. It is also
//! exact: every immediate prints in a form that gives back its bits, and encodings that fxc's
//! text cannot show are spelled out (see `literal` and the `u64` index suffix), so that the
//! assembler can rebuild the same tokens.

mod declaration;
pub mod implied;
mod literal;
mod operand;
mod tessellation;

pub use declaration::write_return_types;
pub use literal::{write_f32, write_f64, write_u32, write_untyped};
pub use operand::{
    mask_letters, write_hints, write_operand, write_operand_as, write_register, write_selection,
};

use crate::ir::*;
use crate::Dxbc;
use implied::Role;
use std::fmt::Write;

/// Disassembles a read container: header comments, then the program (if any).
pub fn disassemble(dxbc: &Dxbc<'_>) -> String {
    let mut out = String::new();
    let notes = dxbc.program.as_ref().map(program_notes).unwrap_or_default();
    crate::container::write_header_comments_noting(&dxbc.reflection, notes, &mut out);
    match &dxbc.program {
        Some(program) => {
            tessellation::write_tessellation_tables(&mut out, program);
            out.push_str(&program_text(program));
        }
        None if dxbc.is_root_signature() => out.push_str("// root signature: no shader program\n"),
        None => out.push_str("// no shader program\n"),
    }
    out
}

/// What the header says of the program itself, from its declarations in one pass: forced
/// early depth-stencil tests (the global flags), a pixel shader that runs once per sample (an
/// input interpolated per sample, or `SV_SampleIndex`), a shader message (`printf`).
fn program_notes(program: &Program) -> crate::container::ProgramNotes {
    let mut notes = crate::container::ProgramNotes {
        program: true,
        ..Default::default()
    };
    let pixel = program.model.stage == Stage::Pixel;
    for declaration in program
        .instructions
        .iter()
        .filter_map(|i| i.declaration.as_ref())
    {
        match declaration {
            Declaration::GlobalFlags(flags) => {
                notes.early_depth_stencil |= flags & FORCE_EARLY_DEPTH_STENCIL != 0;
            }
            Declaration::Signature {
                interpolation,
                system_value,
                ..
            } => {
                notes.sample_frequency |= pixel
                    && (matches!(
                        interpolation,
                        Some(
                            Interpolation::LinearSample | Interpolation::LinearNoPerspectiveSample
                        )
                    ) || *system_value == Some(SystemValue::SampleIndex));
            }
            Declaration::CustomData {
                class: CustomDataClass::ShaderMessage,
                ..
            } => notes.debug_layer = true,
            _ => {}
        }
    }
    notes
}

/// The program's text: the version line, then one line per declaration or instruction.
///
/// An instruction whose length is not what its encoding needs (fxc pads `samplepos` with
/// one zero dword, and only that) ends with `{length=N}`.
#[doc(hidden)]
pub fn program_text(program: &Program) -> String {
    let mut out = String::with_capacity(program.instructions.len() * 40 + 16);
    let _ = writeln!(out, "{}", program.model);
    let lengths = implied::lengths_to_show(program);
    let mut depth = 0usize;
    for (i, instruction) in program.instructions.iter().enumerate() {
        let (before, after) = nesting(instruction.opcode);
        depth = depth.saturating_sub(before);
        for _ in 0..depth {
            out.push_str("  ");
        }
        depth += after;
        write_instruction(&mut out, program, instruction);
        if let Some(Some(length)) = lengths.get(i) {
            let _ = write!(out, " {{length={length}}}");
        }
        out.push('\n');
    }
    out
}

/// How an instruction changes fxc's indentation (two spaces a level): the levels it closes
/// before it is written and opens after (`if`, `loop` and `switch` open one, `else` closes
/// and reopens one, the `end…` instructions close one). The assembler ignores indentation.
fn nesting(opcode: crate::isa::Opcode) -> (usize, usize) {
    use crate::isa::Opcode as O;
    match opcode {
        O::If | O::Loop | O::Switch => (0, 1),
        O::Else => (1, 1),
        O::EndIf | O::EndLoop | O::EndSwitch => (1, 0),
        _ => (0, 0),
    }
}

/// Writes one instruction or declaration (without a trailing newline).
///
/// Control bits that the format leaves unused but the program set are shown at the end as
/// `{unused_control=0x800}`, and dwords past the last operand as `{trailing=0x00002000}`, so
/// that the text keeps them.
#[doc(hidden)]
pub fn write_instruction(out: &mut String, program: &Program, instruction: &Instruction) {
    if let Some(declaration) = &instruction.declaration {
        declaration::write_declaration(out, program, instruction, declaration);
    } else {
        write_mnemonic(out, instruction);
        let style = literal::style(instruction.opcode);
        let operands = program.operands_of(instruction);
        // A float source of another precision than a float destination prints as
        // `{min16f as def32}`.
        let float = |o: &Operand| matches!(o.value_type, ValueType::F32 | ValueType::Bits);
        let destination = operands
            .first()
            .filter(|d| instruction.dst_count > 0 && float(d))
            .map(|d| d.min_precision);
        for (i, operand) in operands.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            let role = if i < instruction.dst_count as usize {
                Role::Destination
            } else {
                Role::Source
            };
            let precision = destination.filter(|_| role == Role::Source && float(operand));
            match instruction.call_index {
                // fxc prints the call site as a last index of the interface: `fp0[0][1]`
                // (after a comma when the interface already has three indices).
                Some(site) if operand.index_count >= 3 => {
                    operand::write_operand_styled(out, program, operand, role, style);
                    let _ = write!(out, ", {site}");
                }
                Some(site) => {
                    let mut text = String::new();
                    write_operand_as(&mut text, program, operand, role);
                    let mut register = String::new();
                    operand::write_register_in(&mut register, program, operand, true);
                    let at = text
                        .find(&register)
                        .map_or(text.len(), |p| p + register.len());
                    text.insert_str(at, &format!("[{site}]"));
                    out.push_str(&text);
                }
                None => operand::write_operand_in(out, program, operand, role, style, precision),
            }
        }
    }
    if instruction.unused_control != 0 {
        let _ = write!(out, " {{unused_control={:#x}}}", instruction.unused_control);
    }
    write_trailing(out, program.data_slice(instruction.trailing));
}

/// Writes the dwords an instruction's length counts past its last operand (see
/// [`Instruction::trailing`]) as ` {trailing=0x00002000}` (several separated by commas);
/// nothing when there are none.
fn write_trailing(out: &mut String, trailing: &[u32]) {
    for (i, word) in trailing.iter().enumerate() {
        out.push_str(if i == 0 { " {trailing=" } else { "," });
        let _ = write!(out, "{word:#010x}");
    }
    if !trailing.is_empty() {
        out.push('}');
    }
}

/// Writes the opcode name with its suffixes: test, `_sat`, offsets, resource dimension,
/// return types, info return type, sync flags and `[precise]`.
fn write_mnemonic(out: &mut String, instruction: &Instruction) {
    out.push_str(instruction.opcode.name());
    let sync = instruction.sync;
    if sync.uav_global {
        out.push_str("_uglobal");
    }
    if sync.uav_group {
        out.push_str("_ugroup");
    }
    if sync.group_shared_memory {
        out.push_str("_g");
    }
    if sync.threads_in_group {
        out.push_str("_t");
    }
    match instruction.test {
        Some(Test::Zero) => out.push_str("_z"),
        Some(Test::NonZero) => out.push_str("_nz"),
        None => {}
    }
    if instruction.saturate {
        out.push_str("_sat");
    }
    // fxc writes the suffix names first, then their groups in the same order:
    // `sample_l_aoffimmi_indexable(0,1,0)(texture2d)(float,float,float,float)`.
    let extended = &instruction.extended;
    if extended.offsets.is_some() {
        out.push_str("_aoffimmi");
    }
    if extended.resource.is_some() {
        out.push_str("_indexable");
    }
    if let Some([u, v, w]) = extended.offsets {
        let _ = write!(out, "({u},{v},{w})");
    }
    // A multisampled resource's sample count (the stride field) follows the return types:
    // `ldms_indexable(texture2dms)(float,float,float,float)(4)`.
    let mut sample_count = None;
    if let Some((dimension, stride)) = extended.resource {
        let _ = write!(out, "({}", dimension.name());
        let multisampled = matches!(
            dimension,
            ResourceDimension::Texture2DMS | ResourceDimension::Texture2DMSArray
        );
        if multisampled && stride != 0 && extended.return_type.is_some() {
            sample_count = Some(stride);
        } else if dimension == ResourceDimension::StructuredBuffer || stride != 0 {
            let _ = write!(out, ", stride={stride}");
        }
        out.push(')');
    }
    if let Some(types) = &extended.return_type {
        write_return_types(out, types);
    }
    if let Some(count) = sample_count {
        let _ = write!(out, "({count})");
    }
    match instruction.info_return_type {
        Some(InfoReturnType::Uint) => out.push_str("_uint"),
        Some(InfoReturnType::RcpFloat) => out.push_str("_rcpFloat"),
        Some(InfoReturnType::Float) | None => {}
    }
    match instruction.precise_mask {
        0 => {}
        0xf => out.push_str(" [precise]"),
        mask => {
            let _ = write!(out, " [precise({})]", mask_letters(mask));
        }
    }
}
