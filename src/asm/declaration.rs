//! Declarations, as the disassembler prints them: the name (with a dimension, UAV flags or
//! `_dynamicindexed`), then signature registers, temps, geometry and tessellation settings,
//! class linkage and global flags. Resource ranges are read in `range`, data blocks in
//! `data`.
//!
//! The declared register is stored as the decoder stores it: in the operand arena and in
//! the instruction's operand range.

use super::lexer::{Kind, Token};
use super::number;
use super::range::split_uav_flags;
use super::Parser;
use crate::disasm::implied::Role;
use crate::error::Result;
use crate::ir::*;
use crate::isa::{Layout, Opcode};

/// True when a statement starting with `name` is a declaration.
pub(super) fn is_declaration(name: &str) -> bool {
    name.starts_with("dcl_")
}

impl<'a> Parser<'a> {
    /// Reads a declaration.
    pub(super) fn declaration(&mut self) -> Result<Instruction> {
        let head = self.advance();
        let name = head.text;
        if name == "dcl_immediateConstantBuffer" {
            return self.custom_data(CustomDataClass::ImmediateConstantBuffer);
        }
        if name == "dcl_customdata" {
            let token = self.ident("a custom-data class (comment, debuginfo, opaque, …)")?;
            let class = CustomDataClass::from_name(token.text).ok_or_else(|| {
                self.error_at(
                    token,
                    format!("unknown custom-data class {}", token.describe()),
                )
            })?;
            return self.custom_data(class);
        }
        let (opcode, rest) = resolve(name).ok_or_else(|| {
            self.error_at(head, format!("unknown declaration {}", head.describe()))
        })?;
        let mut instruction = Instruction::new(opcode);
        let declaration = self.declaration_body(&mut instruction, head, rest)?;
        instruction.declaration = Some(declaration);
        Ok(instruction)
    }

    fn declaration_body(
        &mut self,
        instruction: &mut Instruction,
        head: Token<'a>,
        rest: &str,
    ) -> Result<Declaration> {
        use Opcode as O;
        let opcode = instruction.opcode;
        let bad_name = || self.error_at(head, format!("unknown declaration {}", head.describe()));
        // What follows the opcode's name: a dimension and UAV flags, or `_dynamicindexed`.
        let (dimension, flags) = match opcode {
            O::DclResource | O::DclUavTyped => {
                let (dimension, flags) = split_uav_flags(rest);
                let dimension = dimension
                    .strip_prefix('_')
                    .and_then(ResourceDimension::from_name)
                    .ok_or_else(bad_name)?;
                if opcode == O::DclResource && flags != UavFlags::default() {
                    return Err(bad_name());
                }
                (Some(dimension), flags)
            }
            O::DclUavRaw | O::DclUavStructured => {
                let (left, flags) = split_uav_flags(rest);
                if !left.is_empty() {
                    return Err(bad_name());
                }
                (None, flags)
            }
            O::DclInterface if rest == "_dynamicindexed" || rest.is_empty() => {
                (None, UavFlags::default())
            }
            _ if rest.is_empty() => (None, UavFlags::default()),
            _ => return Err(bad_name()),
        };
        Ok(match opcode {
            O::DclResource
            | O::DclUavTyped
            | O::DclResourceRaw
            | O::DclUavRaw
            | O::DclResourceStructured
            | O::DclUavStructured
            | O::DclConstantBuffer
            | O::DclSampler => self.range_declaration(instruction, dimension, flags)?,
            O::DclInput
            | O::DclOutput
            | O::DclInputSgv
            | O::DclInputSiv
            | O::DclOutputSgv
            | O::DclOutputSiv
            | O::DclInputPs
            | O::DclInputPsSgv
            | O::DclInputPsSiv => {
                let interpolation = match opcode {
                    O::DclInputPs | O::DclInputPsSgv | O::DclInputPsSiv => {
                        Some(self.interpolation()?)
                    }
                    _ => None,
                };
                let operand = self.declared_operand(instruction)?;
                let system_value = match opcode {
                    O::DclInput | O::DclOutput | O::DclInputPs => None,
                    _ => {
                        self.expect_punct(',', "before the system value")?;
                        let token = self.ident("a system value (position, vertex_id, …)")?;
                        Some(SystemValue::from_name(token.text).ok_or_else(|| {
                            self.error_at(
                                token,
                                format!("unknown system value {}", token.describe()),
                            )
                        })?)
                    }
                };
                Declaration::Signature {
                    operand,
                    system_value,
                    interpolation,
                }
            }
            O::DclIndexRange => {
                let operand = self.declared_operand(instruction)?;
                Declaration::IndexRange {
                    operand,
                    count: self.number_u32("the register count")?,
                }
            }
            O::DclTemps => Declaration::Temps(self.number_u32("the number of temps")?),
            O::DclIndexableTemp => {
                let register = self.numbered("x", "an indexable temp (x0)")?;
                self.expect_punct('[', "before the size")?;
                let size = self.number_u32("the number of elements")?;
                self.expect_punct(']', "after the size")?;
                self.expect_punct(',', "before the component count")?;
                Declaration::IndexableTemp {
                    register,
                    size,
                    components: self.number_u32("the component count")?,
                }
            }
            O::DclGlobalFlags => Declaration::GlobalFlags(self.global_flags()?),
            O::DclGsOutputPrimitiveTopology => {
                let token = self.ident("an output topology (pointlist, trianglestrip, …)")?;
                Declaration::GsOutputTopology(PrimitiveTopology::from_name(token.text).ok_or_else(
                    || {
                        self.error_at(
                            token,
                            format!("unknown output topology {}", token.describe()),
                        )
                    },
                )?)
            }
            O::DclGsInputPrimitive => {
                let token = self.ident("an input primitive (point, triangle, patch3, …)")?;
                let primitive = InputPrimitive::from_name(token.text).ok_or_else(|| {
                    self.error_at(
                        token,
                        format!("unknown input primitive {}", token.describe()),
                    )
                })?;
                Declaration::GsInputPrimitive(primitive)
            }
            O::DclMaxOutputVertexCount => {
                Declaration::MaxOutputVertexCount(self.number_u32("the vertex count")?)
            }
            O::DclGsInstanceCount => {
                Declaration::GsInstanceCount(self.number_u32("the instance count")?)
            }
            O::DclInputControlPointCount => Declaration::InputControlPointCount(
                self.number_at_most("the control point count", 0x3f)?,
            ),
            O::DclOutputControlPointCount => Declaration::OutputControlPointCount(
                self.number_at_most("the control point count", 0x3f)?,
            ),
            O::DclStream => Declaration::Stream(self.declared_operand(instruction)?),
            O::DclTessDomain => {
                let token = self.ident("a tessellator domain (domain_tri, …)")?;
                Declaration::TessDomain(TessDomain::from_name(token.text).ok_or_else(|| {
                    self.error_at(token, format!("unknown domain {}", token.describe()))
                })?)
            }
            O::DclTessPartitioning => {
                let token = self.ident("a partitioning (partitioning_integer, …)")?;
                Declaration::TessPartitioning(TessPartitioning::from_name(token.text).ok_or_else(
                    || self.error_at(token, format!("unknown partitioning {}", token.describe())),
                )?)
            }
            O::DclTessOutputPrimitive => {
                let token = self.ident("an output primitive (output_triangle_cw, …)")?;
                Declaration::TessOutputPrimitive(
                    TessOutputPrimitive::from_name(token.text).ok_or_else(|| {
                        self.error_at(
                            token,
                            format!("unknown output primitive {}", token.describe()),
                        )
                    })?,
                )
            }
            O::DclHsMaxTessFactor => {
                self.keyword("l", "before the maximum tessellation factor")?;
                self.expect_punct('(', "after 'l'")?;
                let (negative, token) = self.signed_number("the maximum tessellation factor")?;
                let bits = number::parse_immediate32(negative, token.text)
                    .map_err(|m| self.error_at(token, m))?;
                self.expect_punct(')', "after the maximum tessellation factor")?;
                Declaration::HsMaxTessFactor(bits)
            }
            O::DclHsForkPhaseInstanceCount => {
                Declaration::HsForkPhaseInstanceCount(self.number_u32("the instance count")?)
            }
            O::DclHsJoinPhaseInstanceCount => {
                Declaration::HsJoinPhaseInstanceCount(self.number_u32("the instance count")?)
            }
            O::DclThreadGroup => {
                let x = self.number_u32("the thread group width")?;
                self.expect_punct(',', "after the thread group width")?;
                let y = self.number_u32("the thread group height")?;
                self.expect_punct(',', "after the thread group height")?;
                let z = self.number_u32("the thread group depth")?;
                Declaration::ThreadGroup([x, y, z])
            }
            O::DclFunctionBody => {
                Declaration::FunctionBody(self.numbered("fb", "a function body (fb0)")?)
            }
            O::DclFunctionTable => {
                let id = self.numbered("ft", "a function table (ft0)")?;
                self.expect_punct('=', "after the function table")?;
                Declaration::FunctionTable {
                    id,
                    bodies: self.id_list("fb", "a function body (fb0)", u32::MAX)?,
                }
            }
            O::DclInterface => {
                let id = self.numbered("fp", "an interface (fp0)")?;
                self.expect_punct('[', "before the array length")?;
                let array_length = self.number_at_most("the array length", 0xffff)?;
                self.expect_punct(']', "after the array length")?;
                self.expect_punct('[', "before the table length")?;
                let table_length = self.number_u32("the table length")?;
                self.expect_punct(']', "after the table length")?;
                self.expect_punct('=', "after the interface")?;
                Declaration::Interface {
                    id,
                    dynamic: rest == "_dynamicindexed",
                    table_length,
                    array_length,
                    tables: self.id_list("ft", "a function table (ft0)", 0xffff)?,
                }
            }
            O::DclTgsmRaw => {
                let operand = self.declared_operand(instruction)?;
                self.expect_punct(',', "before the byte count")?;
                Declaration::TgsmRaw {
                    operand,
                    byte_count: self.number_u32("the byte count")?,
                }
            }
            O::DclTgsmStructured => {
                let operand = self.declared_operand(instruction)?;
                self.expect_punct(',', "before the structure stride")?;
                let stride = self.number_u32("the structure stride")?;
                self.expect_punct(',', "before the structure count")?;
                Declaration::TgsmStructured {
                    operand,
                    stride,
                    count: self.number_u32("the structure count")?,
                }
            }
            _ => return Err(bad_name()),
        })
    }

    /// Reads the declared register of a declaration that prints it as an operand
    /// (`v0.xy`, `vicp[3][0].x`, `g0`, `m0`) and stores it as the decoder does.
    fn declared_operand(&mut self, instruction: &mut Instruction) -> Result<OperandId> {
        let operand = self.operand(Role::Declared, ValueType::None, 0)?;
        let id = OperandId(self.program.operands.len() as u32);
        self.program.operands.push(operand);
        instruction.operands = OperandRange {
            start: id.0,
            len: 1,
        };
        Ok(id)
    }

    /// Reads a name made of `prefix` and a number (`x0`, `fb3`, `t1`).
    fn numbered(&mut self, prefix: &str, what: &str) -> Result<u32> {
        let token = self.ident(what)?;
        token
            .text
            .strip_prefix(prefix)
            .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(number::parse_u32)
            .ok_or_else(|| {
                self.error_at(
                    token,
                    format!("expected {what}, found {}", token.describe()),
                )
            })
    }

    /// Reads `{fb0, fb1}` into the data arena; at most `max` entries.
    fn id_list(&mut self, prefix: &str, what: &str, max: u32) -> Result<DataRange> {
        self.expect_punct('{', "before the list")?;
        let start = self.program.data.len() as u32;
        let mut len = 0u32;
        if !self.eat('}') {
            loop {
                let token = self.peek();
                let id = self.numbered(prefix, what)?;
                if len == max {
                    return Err(
                        self.error_at(token, format!("the list has more than {max} entries"))
                    );
                }
                self.program.data.push(id);
                len += 1;
                if self.eat('}') {
                    break;
                }
                self.expect_punct(',', "or '}' in the list")?;
            }
        }
        Ok(DataRange { start, len })
    }

    /// Reads the interpolation words of `dcl_input_ps` (`linear noperspective centroid`);
    /// none means [`Interpolation::Undefined`].
    fn interpolation(&mut self) -> Result<Interpolation> {
        let start = self.peek();
        let mut words = String::new();
        while self.peek().kind == Kind::Ident && is_interpolation_word(self.peek().text) {
            if !words.is_empty() {
                words.push(' ');
            }
            words.push_str(self.advance().text);
        }
        Interpolation::from_name(&words)
            .ok_or_else(|| self.error_at(start, format!("unknown interpolation mode '{words}'")))
    }

    /// Reads `refactoringAllowed | enableDoublePrecisionFloatOps | 0x00100000`.
    fn global_flags(&mut self) -> Result<u32> {
        let mut flags = 0u32;
        loop {
            let token = self.peek();
            let bits = match token.kind {
                Kind::Ident => {
                    self.advance();
                    GLOBAL_FLAG_NAMES
                        .iter()
                        .find(|(_, name)| *name == token.text)
                        .map(|(bit, _)| *bit)
                        .ok_or_else(|| {
                            self.error_at(
                                token,
                                format!("unknown global flag {}", token.describe()),
                            )
                        })?
                }
                _ => {
                    let bits = self.number_u32("a global flag")?;
                    if bits & !0x00ff_f800 != 0 {
                        return Err(self.error_at(
                            token,
                            format!("global flags {bits:#x} lie outside bits 11–23"),
                        ));
                    }
                    bits
                }
            };
            flags |= bits;
            if !self.eat('|') {
                return Ok(flags);
            }
        }
    }
}

/// The opcode a declaration's name starts with, and what follows it (a dimension, UAV
/// flags, `_dynamicindexed`).
fn resolve(name: &str) -> Option<(Opcode, &str)> {
    let declarations = || {
        crate::isa::OPCODES
            .iter()
            .filter(|info| info.layout == Layout::Declaration)
    };
    if let Some(opcode) =
        Opcode::from_name(name).filter(|op| op.info().layout == Layout::Declaration)
    {
        return Some((opcode, ""));
    }
    // The longest declaration name that takes a suffix and that `name` extends with `_…`.
    declarations()
        .filter(|info| {
            matches!(
                info.opcode,
                Opcode::DclResource
                    | Opcode::DclUavTyped
                    | Opcode::DclUavRaw
                    | Opcode::DclUavStructured
                    | Opcode::DclInterface
            )
        })
        .filter(|info| {
            name.strip_prefix(info.name)
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .max_by_key(|info| info.name.len())
        .and_then(|info| Some((info.opcode, name.get(info.name.len()..)?)))
}

/// True for the words of interpolation modes (`linear`, `centroid`, …).
fn is_interpolation_word(word: &str) -> bool {
    (0..16)
        .filter_map(Interpolation::from_code)
        .any(|mode| mode.name().split(' ').any(|w| w == word))
}
