//! Resource range declarations: resources and UAVs (`t3`; SM5.1 `t1[10:*], space=2`),
//! constant buffers (`cb0[4]`, `cb0[0:0][4]`) and samplers. The declared register is stored
//! as the decoder stores it, with the indices [id, lower, upper] for every model.

use super::number;
use super::Parser;
use crate::disasm::implied::{Letters, Role};
use crate::error::Result;
use crate::ir::*;
use crate::isa::Opcode;

/// The `_glc`, `_rov`, `_opc` flags that may end a UAV declaration's name, in order.
const UAV_FLAGS: [&str; 3] = ["_glc", "_rov", "_opc"];

impl Parser<'_> {
    /// Reads the rest of a resource, UAV, constant-buffer or sampler declaration, whose name
    /// gave the dimension and UAV flags.
    pub(super) fn range_declaration(
        &mut self,
        instruction: &mut Instruction,
        dimension: Option<ResourceDimension>,
        flags: UavFlags,
    ) -> Result<Declaration> {
        use Opcode as O;
        Ok(match instruction.opcode {
            O::DclResource => {
                let dimension = dimension.unwrap_or(ResourceDimension::Unknown);
                let mut sample_count = 0;
                if self.eat_unspaced('(') {
                    sample_count = self.number_at_most("the sample count", 0x7f)?;
                    self.expect_punct(')', "after the sample count")?;
                }
                let return_type = self.parenthesised_return_types()?;
                let (operand, range) = self.range(instruction, RegisterKind::Resource, None)?;
                Declaration::Resource {
                    operand,
                    range: self.finish_range(range)?,
                    dimension,
                    sample_count,
                    return_type,
                }
            }
            O::DclUavTyped => {
                let return_type = self.parenthesised_return_types()?;
                let (operand, range) =
                    self.range(instruction, RegisterKind::UnorderedAccessView, None)?;
                Declaration::UavTyped {
                    operand,
                    range: self.finish_range(range)?,
                    dimension: dimension.unwrap_or(ResourceDimension::Unknown),
                    return_type,
                    flags,
                }
            }
            O::DclResourceRaw => {
                let (operand, range) = self.range(instruction, RegisterKind::Resource, None)?;
                Declaration::ResourceRaw {
                    operand,
                    range: self.finish_range(range)?,
                }
            }
            O::DclUavRaw => {
                let (operand, range) =
                    self.range(instruction, RegisterKind::UnorderedAccessView, None)?;
                Declaration::UavRaw {
                    operand,
                    range: self.finish_range(range)?,
                    flags,
                }
            }
            O::DclResourceStructured => {
                let (operand, range) = self.range(instruction, RegisterKind::Resource, None)?;
                self.expect_punct(',', "before the structure stride")?;
                let stride = self.number_u32("the structure stride")?;
                Declaration::ResourceStructured {
                    operand,
                    range: self.finish_range(range)?,
                    stride,
                }
            }
            O::DclUavStructured => {
                let (operand, range) =
                    self.range(instruction, RegisterKind::UnorderedAccessView, None)?;
                self.expect_punct(',', "before the structure stride")?;
                let stride = self.number_u32("the structure stride")?;
                Declaration::UavStructured {
                    operand,
                    range: self.finish_range(range)?,
                    stride,
                    flags,
                }
            }
            O::DclConstantBuffer => {
                let mut size = 0;
                let (operand, range) =
                    self.range(instruction, RegisterKind::ConstantBuffer, Some(&mut size))?;
                self.expect_punct(',', "before immediateIndexed or dynamicIndexed")?;
                let access = self.ident("immediateIndexed or dynamicIndexed")?;
                let dynamic = match access.text {
                    "immediateIndexed" => false,
                    "dynamicIndexed" => true,
                    _ => {
                        return Err(self.error_at(
                            access,
                            format!(
                                "expected immediateIndexed or dynamicIndexed, found {}",
                                access.describe()
                            ),
                        ))
                    }
                };
                Declaration::ConstantBuffer {
                    operand,
                    range: self.finish_range(range)?,
                    size,
                    dynamic,
                }
            }
            O::DclSampler => {
                let (operand, range) = self.range(instruction, RegisterKind::Sampler, None)?;
                // vkd3d-compiler leaves out `mode_default`.
                let space_follows = self.peek().is(',') && self.peek_at(1).text == "space";
                let mode = if self.peek().ends_line() || space_follows {
                    SamplerMode::Default
                } else {
                    self.expect_punct(',', "before the sampler mode")?;
                    let token =
                        self.ident("a sampler mode (mode_default, mode_comparison, mode_mono)")?;
                    SamplerMode::from_name(token.text).ok_or_else(|| {
                        self.error_at(token, format!("unknown sampler mode {}", token.describe()))
                    })?
                };
                Declaration::Sampler {
                    operand,
                    range: self.finish_range(range)?,
                    mode,
                }
            }
            other => {
                return Err(self.error_at(
                    self.peek(),
                    format!("{} is not a range declaration", other.name()),
                ))
            }
        })
    }

    /// Reads a range register: `t3` (before SM5.1) or `t1[10:*]` (SM5.1); for constant
    /// buffers also the size (`cb0[4]`, `cb0[0:0][4]`); then the annotations. The operand
    /// is stored with the indices [id, lower, upper]. The space, if any, is read by
    /// [`Self::finish_range`].
    pub(super) fn range(
        &mut self,
        instruction: &mut Instruction,
        kind: RegisterKind,
        size: Option<&mut u32>,
    ) -> Result<(OperandId, ResourceRange)> {
        let start = self.peek();
        let what = format!("a {} register ({}0)", kind.name(), kind.name());
        let token = self.ident(&what)?;
        // The register file must be the declaration's own, as the decoder requires.
        let split = token
            .text
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(token.text.len());
        let (name, digits) = token.text.split_at(split);
        if let Some(found) = RegisterKind::ALL
            .iter()
            .copied()
            .find(|k| k.is_resource_range() && k.is_named(name) && *k != kind)
        {
            return Err(self.error_at(
                token,
                format!(
                    "{} declares a {} register; it needs a {} register",
                    instruction.opcode.name(),
                    found.name(),
                    kind.name()
                ),
            ));
        }
        let id = Some(digits)
            .filter(|d| {
                !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && kind.is_named(name)
            })
            .and_then(number::parse_u32)
            .ok_or_else(|| {
                self.error_at(
                    token,
                    format!("expected {what}, found {}", token.describe()),
                )
            })?;
        let mut range = ResourceRange {
            id,
            lower: id,
            upper: Some(id),
            space: 0,
        };
        if self.program.model.has_resource_ranges() {
            if !self.eat_unspaced('[') {
                return Err(
                    self.expected("'[' and the range (e.g. [0:3] or [0:*]): SM5.1 declares ranges")
                );
            }
            range.lower = self.number_u32("the range's lower bound")?;
            self.expect_punct(':', "after the lower bound")?;
            range.upper = if self.eat('*') {
                None
            } else {
                Some(self.number_u32("the range's upper bound or '*'")?)
                    .filter(|&upper| upper != u32::MAX)
            };
            self.expect_punct(']', "after the range")?;
        }
        if let Some(size) = size {
            if !self.eat_unspaced('[') {
                return Err(self.expected("'[' and the constant buffer size"));
            }
            *size = self.number_u32("the constant buffer size (in 16-byte vectors)")?;
            self.expect_punct(']', "after the constant buffer size")?;
        }
        // vkd3d-compiler writes `.xyzw` after some declared registers (`t0[1:1].xyzw`); the
        // declaration's encoding does not depend on it.
        if self.peek().is('.') && !self.peek().spaced && self.peek_at(1).text == "xyzw" {
            self.advance();
            self.advance();
        }
        let annotations = self.annotations()?;
        let mut operand = Operand::register(kind, ComponentCount::Zero, Selection::Mask(0));
        self.encoding(
            &mut operand,
            Role::Range,
            Letters::default(),
            None,
            &annotations,
            start,
        )?;
        operand.min_precision = annotations.min_precision;
        operand.non_uniform = annotations.non_uniform;
        operand.value_type = ValueType::None;
        operand.indices = [
            Index::Imm32(range.id),
            Index::Imm32(range.lower),
            Index::Imm32(range.upper.unwrap_or(u32::MAX)),
        ];
        operand.index_count = 3;
        let operand_id = OperandId(self.program.operands.len() as u32);
        self.program.operands.push(operand);
        instruction.operands = OperandRange {
            start: operand_id.0,
            len: 1,
        };
        Ok((operand_id, range))
    }

    /// Reads `, space=N` in SM5.1 and returns the complete range.
    fn finish_range(&mut self, mut range: ResourceRange) -> Result<ResourceRange> {
        self.space(&mut range)?;
        Ok(range)
    }

    fn space(&mut self, range: &mut ResourceRange) -> Result<()> {
        if self.program.model.has_resource_ranges() {
            self.expect_punct(',', "before the register space")?;
            self.keyword("space", "after ','")?;
            self.expect_punct('=', "after 'space'")?;
            range.space = self.number_u32("the register space")?;
        }
        Ok(())
    }

    /// Reads `(float,float,float,float)`.
    fn parenthesised_return_types(&mut self) -> Result<[ReturnType; 4]> {
        self.expect_punct('(', "before the return types")?;
        let types = self.return_types()?;
        self.expect_punct(')', "after the return types")?;
        Ok(types)
    }
}

/// Splits `_glc`, `_rov` and `_opc` off the end of a name.
pub(super) fn split_uav_flags(mut rest: &str) -> (&str, UavFlags) {
    let mut flags = UavFlags::default();
    for (i, flag) in UAV_FLAGS.iter().enumerate().rev() {
        if let Some(left) = rest.strip_suffix(flag) {
            rest = left;
            match i {
                0 => flags.globally_coherent = true,
                1 => flags.rasterizer_ordered = true,
                _ => flags.counter = true,
            }
        }
    }
    (rest, flags)
}
