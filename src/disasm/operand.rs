//! Text of operands: registers with their indices, component selection and modifiers.

use super::implied::{self, Role};
use super::literal;
use crate::ir::*;
use std::fmt::Write;

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// Writes a source operand as fxc prints it (`-|r0.xyzw|`, `cb0[1].x`, `l(1.000000, 0, 0, 0)`).
pub fn write_operand(out: &mut String, program: &Program, operand: &Operand) {
    write_operand_as(out, program, operand, Role::Source);
}

/// Writes an operand in a role (destination, source or declared register), with the
/// annotation its encoding needs when the text would imply another (see [`implied`]).
pub fn write_operand_as(out: &mut String, program: &Program, operand: &Operand, role: Role) {
    write_operand_styled(out, program, operand, role, literal::Style::default());
}

/// Writes an operand in a role with an instruction's immediate style (see
/// [`literal::style`]).
pub(super) fn write_operand_styled(
    out: &mut String,
    program: &Program,
    operand: &Operand,
    role: Role,
    style: literal::Style,
) {
    write_operand_in(out, program, operand, role, style, None);
}

/// Writes an operand in a role with an instruction's immediate style; `precision` is the
/// instruction's precision (its destination's) where a source of another precision prints
/// as fxc's `{min16f as def32}` (see [`write_hints_in`]).
pub(super) fn write_operand_in(
    out: &mut String,
    program: &Program,
    operand: &Operand,
    role: Role,
    style: literal::Style,
    precision: Option<MinPrecision>,
) {
    let (open, close) = match operand.modifier {
        Modifier::None => ("", ""),
        Modifier::Neg => ("-", ""),
        Modifier::Abs => ("|", "|"),
        Modifier::AbsNeg => ("-|", "|"),
    };
    out.push_str(open);
    match operand.kind {
        RegisterKind::Immediate32 | RegisterKind::Immediate64 => {
            if operand.kind == RegisterKind::Immediate32 {
                write_immediate32(out, operand, style);
            } else {
                write_immediate64(out, operand);
            }
            // fxc never gives an immediate indices, but the format can: keep them.
            for index in operand.indices() {
                write_bracketed(out, program, *index);
            }
        }
        _ => {
            let normalised = matches!(role, Role::Destination | Role::Source);
            write_register_in(out, program, operand, normalised);
            write_selection(out, operand);
        }
    }
    out.push_str(close);
    implied::write_annotation(out, program.model, role, operand);
    write_hints_in(out, operand, precision);
}

/// Writes the ` {min16f}` and ` {nonuniform}` hints of an operand's extended token.
pub fn write_hints(out: &mut String, operand: &Operand) {
    write_hints_in(out, operand, None);
}

/// Writes the hints of an operand; `instruction` is the precision of the instruction the
/// operand is a float source of, if any: a source of another precision prints as fxc's
/// `{min16f as def32}` (or `{def32 as min16f}`), one of the same as `{min16f}`.
pub fn write_hints_in(out: &mut String, operand: &Operand, instruction: Option<MinPrecision>) {
    let own = operand.min_precision;
    match instruction {
        Some(to) if to != own => {
            let _ = write!(out, " {{{} as {}}}", own.fxc_name(), to.fxc_name());
        }
        _ if own != MinPrecision::Default => {
            let _ = write!(out, " {{{}}}", own.name());
        }
        _ => {}
    }
    if operand.non_uniform {
        out.push_str(" {nonuniform}");
    }
}

fn write_immediate32(out: &mut String, operand: &Operand, style: literal::Style) {
    out.push_str("l(");
    let count = operand.immediate_count().min(4);
    literal::write_values(out, &operand.values[..count], operand.value_type, style);
    out.push(')');
}

fn write_immediate64(out: &mut String, operand: &Operand) {
    out.push_str("d(");
    for i in 0..operand.immediate_count() {
        if i > 0 {
            out.push_str(", ");
        }
        literal::write_f64(out, operand.value64(i));
    }
    out.push(')');
}

/// Registers whose first index fxc prints in brackets even when it is an immediate.
fn brackets_first_index(operand: &Operand) -> bool {
    match operand.kind {
        RegisterKind::ImmediateConstantBuffer
        | RegisterKind::InputControlPoint
        | RegisterKind::OutputControlPoint
        | RegisterKind::ThisPointer => true,
        RegisterKind::Input => operand.index_count == 2,
        _ => false,
    }
}

/// Writes a register name and its indices, without component selection, for an instruction
/// operand (resource operands are held in SM5.1 form).
pub fn write_register(out: &mut String, program: &Program, operand: &Operand) {
    write_register_in(out, program, operand, true);
}

/// Writes a register name and its indices; `normalised` when the operand is an instruction
/// operand whose resource indices are in SM5.1 form (declared registers are not).
pub(super) fn write_register_in(
    out: &mut String,
    program: &Program,
    operand: &Operand,
    normalised: bool,
) {
    out.push_str(operand.kind.name_in(program.model, !normalised));
    let mut indices = operand.indices();
    // Before SM5.1 a resource operand's range id is its register: print `t3`, `cb1[4]`; an
    // SM5.0 register chosen at run time is bracketed: `cb[r1.y + 0][r1.x + 0]`, `t[r0.x + 0]`.
    if normalised && operand.kind.is_resource_range() && !program.model.has_resource_ranges() {
        if let [id, register, rest @ ..] = indices {
            if is_dynamic_register(program.model, operand) {
                write_bracketed(out, program, *register);
            } else {
                write_index(out, program, *id);
            }
            for index in rest {
                write_bracketed(out, program, *index);
            }
            return;
        }
    }
    if let Some((first, rest)) = indices.split_first() {
        match first {
            Index::Imm32(_) if !brackets_first_index(operand) => {
                write_index(out, program, *first);
                indices = rest;
            }
            _ => {}
        }
    }
    for index in indices {
        write_bracketed(out, program, *index);
    }
}

fn write_bracketed(out: &mut String, program: &Program, index: Index) {
    out.push('[');
    write_index(out, program, index);
    out.push(']');
}

/// Writes an index expression: `3`, `r0.x`, `r0.x + 3`; 64-bit immediates get a `u64` suffix.
fn write_index(out: &mut String, program: &Program, index: Index) {
    match index {
        Index::Imm32(value) => {
            let _ = write!(out, "{value}");
        }
        Index::Imm64(value) => {
            let _ = write!(out, "{value}u64");
        }
        Index::Relative(id) => write_operand(out, program, program.operand(id)),
        Index::Imm32PlusRelative(value, id) => {
            write_operand(out, program, program.operand(id));
            let _ = write!(out, " + {}", value as i32);
        }
        Index::Imm64PlusRelative(value, id) => {
            write_operand(out, program, program.operand(id));
            let _ = write!(out, " + {value}u64");
        }
    }
}

/// Writes `.xyzw`-style component selection for four-component operands.
pub fn write_selection(out: &mut String, operand: &Operand) {
    if operand.components != ComponentCount::Four {
        return;
    }
    match operand.selection {
        Selection::Mask(0) => {}
        Selection::Mask(mask) => {
            out.push('.');
            for (i, c) in COMPONENTS.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    out.push(*c);
                }
            }
        }
        Selection::Swizzle(swizzle) => {
            out.push('.');
            for c in swizzle {
                out.push(COMPONENTS[(c & 3) as usize]);
            }
        }
        Selection::Select1(c) => {
            out.push('.');
            out.push(COMPONENTS[(c & 3) as usize]);
        }
    }
}

/// Writes a component mask as letters (`xy`), for tables and masks outside operands.
pub fn mask_letters(mask: u8) -> String {
    COMPONENTS
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| *c)
        .collect()
}
