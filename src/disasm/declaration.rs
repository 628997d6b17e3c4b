//! Text of declarations.

use super::implied::{self, Role};
use super::literal;
use super::operand::{write_hints, write_operand_as};
use crate::ir::*;
use std::fmt::Write;

/// Writes a declaration (without a trailing newline).
pub fn write_declaration(
    out: &mut String,
    program: &Program,
    instruction: &Instruction,
    declaration: &Declaration,
) {
    let name = instruction.opcode.name();
    let sm51 = program.model.has_resource_ranges();
    match declaration {
        Declaration::GlobalFlags(flags) => {
            out.push_str(name);
            let mut rest = *flags;
            let mut first = true;
            for (bit, flag) in GLOBAL_FLAG_NAMES {
                if rest & bit != 0 {
                    out.push_str(if first { " " } else { " | " });
                    out.push_str(flag);
                    rest &= !bit;
                    first = false;
                }
            }
            if rest != 0 || first {
                let _ = write!(out, "{}0x{rest:08x}", if first { " " } else { " | " });
            }
        }
        Declaration::Resource {
            operand,
            range,
            dimension,
            sample_count,
            return_type,
            ..
        } => {
            let _ = write!(out, "dcl_resource_{}", dimension.name());
            let multisampled = matches!(
                dimension,
                ResourceDimension::Texture2DMS | ResourceDimension::Texture2DMSArray
            );
            // A sample count on another dimension is shown too, so that it is kept.
            if multisampled || *sample_count != 0 {
                let _ = write!(out, "({sample_count})");
            }
            out.push(' ');
            write_return_types(out, return_type);
            out.push(' ');
            write_range(out, program, range, *operand, false);
            write_space(out, sm51, range);
        }
        Declaration::ResourceRaw { operand, range } => {
            let _ = write!(out, "{name} ");
            write_range(out, program, range, *operand, false);
            write_space(out, sm51, range);
        }
        Declaration::ResourceStructured {
            operand,
            range,
            stride,
        } => {
            let _ = write!(out, "{name} ");
            write_range(out, program, range, *operand, false);
            let _ = write!(out, ", {stride}");
            write_space(out, sm51, range);
        }
        Declaration::UavTyped {
            operand,
            range,
            dimension,
            return_type,
            flags,
            ..
        } => {
            let _ = write!(out, "dcl_uav_typed_{}", dimension.name());
            write_uav_flags(out, flags);
            out.push(' ');
            write_return_types(out, return_type);
            out.push(' ');
            write_range(out, program, range, *operand, false);
            write_space(out, sm51, range);
        }
        Declaration::UavRaw {
            operand,
            range,
            flags,
        } => {
            out.push_str(name);
            write_uav_flags(out, flags);
            out.push(' ');
            write_range(out, program, range, *operand, false);
            write_space(out, sm51, range);
        }
        Declaration::UavStructured {
            operand,
            range,
            stride,
            flags,
        } => {
            out.push_str(name);
            write_uav_flags(out, flags);
            out.push(' ');
            write_range(out, program, range, *operand, false);
            let _ = write!(out, ", {stride}");
            write_space(out, sm51, range);
        }
        Declaration::ConstantBuffer {
            operand,
            range,
            size,
            dynamic,
        } => {
            let _ = write!(out, "{name} ");
            write_range(out, program, range, *operand, true);
            let access = if *dynamic {
                "dynamicIndexed"
            } else {
                "immediateIndexed"
            };
            let _ = write!(out, "[{size}]");
            write_declared_suffix(out, program, *operand);
            let _ = write!(out, ", {access}");
            write_space(out, sm51, range);
        }
        Declaration::Sampler {
            operand,
            range,
            mode,
        } => {
            let _ = write!(out, "{name} ");
            write_range(out, program, range, *operand, false);
            let _ = write!(out, ", {}", mode.name());
            write_space(out, sm51, range);
        }
        Declaration::TgsmRaw {
            operand,
            byte_count,
        } => {
            let _ = write!(out, "{name} ");
            write_operand_as(out, program, program.operand(*operand), Role::Declared);
            let _ = write!(out, ", {byte_count}");
        }
        Declaration::TgsmStructured {
            operand,
            stride,
            count,
        } => {
            let _ = write!(out, "{name} ");
            write_operand_as(out, program, program.operand(*operand), Role::Declared);
            let _ = write!(out, ", {stride}, {count}");
        }
        Declaration::Signature {
            operand,
            system_value,
            interpolation,
        } => {
            out.push_str(name);
            if let Some(mode) = interpolation.filter(|m| *m != Interpolation::Undefined) {
                let _ = write!(out, " {}", mode.name());
            }
            out.push(' ');
            write_operand_as(out, program, program.operand(*operand), Role::Declared);
            if let Some(sv) = system_value {
                let _ = write!(out, ", {}", sv.name());
            }
        }
        Declaration::IndexRange { operand, count } => {
            let _ = write!(out, "{name} ");
            write_operand_as(out, program, program.operand(*operand), Role::Declared);
            let _ = write!(out, " {count}");
        }
        Declaration::Temps(count) => {
            let _ = write!(out, "{name} {count}");
        }
        Declaration::IndexableTemp {
            register,
            size,
            components,
        } => {
            let _ = write!(out, "{name} x{register}[{size}], {components}");
        }
        Declaration::CustomData { class, data } => {
            write_custom_data(out, program.model, *class, program.data_slice(*data));
        }
        Declaration::GsOutputTopology(topology) => {
            let _ = write!(out, "{name} {}", topology.name());
        }
        Declaration::GsInputPrimitive(primitive) => {
            let text = primitive.name().unwrap_or_default();
            let _ = write!(out, "{name} {text}");
        }
        Declaration::MaxOutputVertexCount(n)
        | Declaration::GsInstanceCount(n)
        | Declaration::InputControlPointCount(n)
        | Declaration::OutputControlPointCount(n)
        | Declaration::HsForkPhaseInstanceCount(n)
        | Declaration::HsJoinPhaseInstanceCount(n) => {
            let _ = write!(out, "{name} {n}");
        }
        Declaration::Stream(operand) => {
            let _ = write!(out, "{name} ");
            write_operand_as(out, program, program.operand(*operand), Role::Declared);
        }
        Declaration::TessDomain(domain) => {
            let _ = write!(out, "{name} {}", domain.name());
        }
        Declaration::TessPartitioning(partitioning) => {
            let _ = write!(out, "{name} {}", partitioning.name());
        }
        Declaration::TessOutputPrimitive(primitive) => {
            let _ = write!(out, "{name} {}", primitive.name());
        }
        Declaration::HsMaxTessFactor(bits) => {
            let _ = write!(out, "{name} l(");
            literal::write_f32(out, *bits);
            out.push(')');
        }
        Declaration::ThreadGroup([x, y, z]) => {
            let _ = write!(out, "{name} {x}, {y}, {z}");
        }
        Declaration::FunctionBody(id) => {
            let _ = write!(out, "{name} fb{id}");
        }
        Declaration::FunctionTable { id, bodies } => {
            let _ = write!(out, "{name} ft{id} = {{");
            write_id_list(out, "fb", program.data_slice(*bodies));
            out.push('}');
        }
        Declaration::Interface {
            id,
            dynamic,
            table_length,
            array_length,
            tables,
        } => {
            out.push_str(name);
            if *dynamic {
                out.push_str("_dynamicindexed");
            }
            let _ = write!(out, " fp{id}[{array_length}][{table_length}] = {{");
            write_id_list(out, "ft", program.data_slice(*tables));
            out.push('}');
        }
    }
}

fn write_id_list(out: &mut String, prefix: &str, ids: &[u32]) {
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{prefix}{id}");
    }
}

/// Writes `t3` (before SM5.1) or `t1[10:*]` (SM5.1); the declared register's annotation
/// and hints follow (for constant buffers, after the size).
fn write_range(
    out: &mut String,
    program: &Program,
    range: &ResourceRange,
    operand: OperandId,
    size_follows: bool,
) {
    // The declared register's own kind: the decoder accepts any resource kind here.
    let prefix = program.operand(operand).kind.name_in(program.model, true);
    if program.model.has_resource_ranges() {
        let _ = write!(out, "{prefix}{}[{}:", range.id, range.lower);
        match range.upper {
            Some(upper) => {
                let _ = write!(out, "{upper}]");
            }
            None => out.push_str("*]"),
        }
    } else {
        let _ = write!(out, "{prefix}{}", range.id);
    }
    if !size_follows {
        write_declared_suffix(out, program, operand);
    }
}

/// Writes the annotation and hints of a range declaration's register (see [`implied`]).
fn write_declared_suffix(out: &mut String, program: &Program, operand: OperandId) {
    let declared = program.operand(operand);
    implied::write_annotation(out, program.model, Role::Range, declared);
    write_hints(out, declared);
}

fn write_space(out: &mut String, sm51: bool, range: &ResourceRange) {
    if sm51 {
        let _ = write!(out, ", space={}", range.space);
    }
}

fn write_uav_flags(out: &mut String, flags: &UavFlags) {
    if flags.globally_coherent {
        out.push_str("_glc");
    }
    if flags.rasterizer_ordered {
        out.push_str("_rov");
    }
    if flags.counter {
        out.push_str("_opc");
    }
}

/// Writes `(float,float,float,float)`.
pub fn write_return_types(out: &mut String, types: &[ReturnType; 4]) {
    out.push('(');
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(t.fxc_name());
    }
    out.push(')');
}

/// Writes a printf-style shader message as fxc does, `printf "format", operands…` (`errorf`
/// for an error); false, writing nothing, for a block that is not one.
fn write_shader_message(out: &mut String, model: ShaderModel, data: &[u32]) -> bool {
    let Some(message) = crate::ir::shader_message::ShaderMessage::parse(data) else {
        return false;
    };
    let tokens = message.operand_tokens;
    let Some((arena, operands)) = crate::tpf::decode_operands(model, tokens, message.operand_count)
    else {
        return false;
    };
    out.push_str(message.mnemonic());
    out.push(' ');
    crate::asm::write_string(out, &message.text);
    for operand in &operands {
        out.push_str(", ");
        super::operand::write_operand(out, &arena, operand);
    }
    true
}

fn write_custom_data(out: &mut String, model: ShaderModel, class: CustomDataClass, data: &[u32]) {
    if class == CustomDataClass::ShaderMessage && write_shader_message(out, model, data) {
        return;
    }
    if class == CustomDataClass::ImmediateConstantBuffer {
        const HEAD: &str = "dcl_immediateConstantBuffer { ";
        out.push_str(HEAD);
        if data.is_empty() {
            out.push('}');
            return;
        }
        for (row, values) in data.chunks(4).enumerate() {
            if row > 0 {
                out.push_str(",\n");
                out.push_str(&" ".repeat(HEAD.len()));
            }
            out.push_str("{ ");
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                literal::write_untyped(out, *value);
            }
            out.push('}');
        }
        out.push_str(" }");
    } else {
        let _ = write!(out, "dcl_customdata {} {{", class.name());
        for (i, value) in data.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            let _ = write!(out, "0x{value:08x}");
        }
        out.push_str(" }");
    }
}
