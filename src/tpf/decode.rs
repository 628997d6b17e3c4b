//! The decoder: SHDR/SHEX tokens into an [`ir::Program`](crate::ir::Program).
//!
//! Every read is bounds-checked against the instruction's length, every count against the
//! dwords that remain, so no input can panic, hang or allocate more than a small multiple of
//! its own size. Errors name the instruction index and the dword offset of its opcode token.

use super::tokens::{self, ext_opcode, field, operand as optok};
use crate::error::{Error, Location, Result};
use crate::ir::*;
use crate::isa::{Control, Layout, Opcode};

/// How deep relative addresses may nest (`x0[r0.x]` is depth 1).
const MAX_RELATIVE_DEPTH: u32 = 4;
/// The most operands any instruction has (`sample_d_cl_s`: two destinations, six sources).
const MAX_OPERANDS: usize = 8;

/// Decodes the bytes of a SHDR or SHEX chunk.
pub fn decode(code: &[u8]) -> Result<Program> {
    decode_into(code, &mut super::spare::Arrays::default())
}

/// [`decode`] into arrays kept from an earlier program (see [`super::spare`]).
pub fn decode_into(code: &[u8], arrays: &mut super::spare::Arrays) -> Result<Program> {
    if code.len() < 8 {
        return Err(Error::new(
            Location::ProgramDword { dword: 0 },
            format!(
                "the program is {} bytes long; the version and length tokens need 8",
                code.len()
            ),
        ));
    }
    if !code.len().is_multiple_of(4) {
        return Err(Error::new(
            Location::ProgramDword {
                dword: (code.len() / 4) as u32,
            },
            format!(
                "the program is {} bytes long, not a whole number of dwords",
                code.len()
            ),
        ));
    }
    // Read in place: no copy of the program into a Vec<u32>.
    let words = Words(code);
    let version = words.at(0);
    let model = decode_version(version)?;
    let declared = words.at(1) as usize;
    if declared < 2 || declared > words.len() {
        return Err(Error::new(
            Location::ProgramDword { dword: 1 },
            format!(
                "the program declares {declared} dwords but the chunk holds {}",
                words.len()
            ),
        ));
    }
    // Sized from the program's length so that decoding seldom grows and copies these
    // arrays (a copy holds both at once, the peak of a large program's memory): fxc's
    // instructions average 4-6 dwords with 2-3 operands, and no program has more than one
    // operand in two dwords but one of short instructions on temps alone.
    let program = arrays.program(model, declared / 5 + 4, declared / 2 + 4);
    let mut decoder = Decoder {
        words: Words(&code[..declared * 4]),
        program,
        index: 0,
        start: 0,
        end: 0,
        pos: 2,
        top: [Operand::NULL; MAX_OPERANDS],
    };
    decoder.run()?;
    Ok(decoder.program)
}

/// Decodes `count` operands in instruction form from `tokens` (a shader message's), resource
/// operands in SM5.1 form as an instruction's are: the operands with the arena of their
/// relative addresses; `None` unless the tokens are exactly that.
pub fn decode_operands(
    model: ShaderModel,
    tokens: &[u32],
    count: usize,
) -> Option<(Program, Vec<Operand>)> {
    let bytes: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
    let mut decoder = Decoder {
        words: Words(&bytes),
        program: Program::new(model),
        index: 0,
        start: 0,
        end: tokens.len(),
        pos: 0,
        top: [Operand::NULL; MAX_OPERANDS],
    };
    let operands = (0..count)
        .map(|_| {
            let mut operand = decoder.operand(ValueType::Bits, 0)?;
            decoder.normalise_resource_operand(&mut operand)?;
            Ok(operand)
        })
        .collect::<Result<Vec<_>>>()
        .ok()
        .filter(|_| decoder.pos == tokens.len())?;
    Some((decoder.program, operands))
}

fn decode_version(version: u32) -> Result<ShaderModel> {
    let at = Location::ProgramDword { dword: 0 };
    let stage = Stage::from_program_type(version >> 16).ok_or_else(|| {
        Error::new(
            at,
            format!(
                "unknown program type {:#x} in the version token",
                version >> 16
            ),
        )
    })?;
    let major = field(version, 4, 4) as u8;
    let minor = field(version, 0, 4) as u8;
    let supported = matches!((major, minor), (4, 0) | (4, 1) | (5, 0) | (5, 1));
    if !supported {
        return Err(Error::new(
            at,
            format!("shader model {major}.{minor} is not SM4.0–5.1"),
        ));
    }
    if matches!(stage, Stage::Hull | Stage::Domain) && major < 5 {
        return Err(Error::new(
            at,
            format!("{} programs need shader model 5", stage.prefix()),
        ));
    }
    Ok(ShaderModel {
        stage,
        major,
        minor,
    })
}

/// The program's dwords, read little-endian from the chunk's bytes (a whole number of
/// dwords).
#[derive(Clone, Copy)]
struct Words<'a>(&'a [u8]);

impl<'a> Words<'a> {
    fn len(&self) -> usize {
        self.0.len() / 4
    }

    /// Dword `i`, which must exist (like slice indexing).
    fn at(&self, i: usize) -> u32 {
        let b = &self.0[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    fn get(&self, i: usize) -> Option<u32> {
        (i < self.len()).then(|| self.at(i))
    }

    /// The dwords `start..end` (which must exist).
    fn range(
        self,
        start: usize,
        end: usize,
    ) -> impl ExactSizeIterator<Item = u32> + DoubleEndedIterator + 'a {
        self.0[start * 4..end * 4]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

struct Decoder<'a> {
    words: Words<'a>,
    program: Program,
    /// Index of the instruction being decoded.
    index: u32,
    /// Dword offset of its opcode token.
    start: usize,
    /// One past its last dword.
    end: usize,
    /// The next dword to read.
    pos: usize,
    /// The operands of the instruction being decoded (kept here so that no instruction
    /// initialises a fresh array).
    top: [Operand; MAX_OPERANDS],
}

impl Decoder<'_> {
    fn err(&self, message: impl Into<String>) -> Error {
        Error::instruction(self.index, self.start as u32, message)
    }

    fn next(&mut self) -> Result<u32> {
        if self.pos >= self.end {
            return Err(self.err(format!(
                "the instruction ends at dword {:#x} but needs more tokens",
                self.end
            )));
        }
        let word = self.words.at(self.pos);
        self.pos += 1;
        Ok(word)
    }

    fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }

    fn run(&mut self) -> Result<()> {
        while self.pos < self.words.len() {
            self.start = self.pos;
            self.end = self.words.len();
            let token = self.words.at(self.pos);
            let code = tokens::opcode(token);
            let opcode = Opcode::from_code(code)
                .ok_or_else(|| self.err(format!("unknown opcode {code} (token {token:#010x})")))?;
            let mut instruction = Instruction::new(opcode);
            instruction.dword = self.start as u32;
            if opcode.info().layout == Layout::CustomData {
                self.custom_data(token, &mut instruction)?;
            } else {
                self.set_length(token, opcode)?;
                self.pos = self.start + 1;
                if self.header_has_length_dword(token, opcode) {
                    self.pos += 1;
                }
                match opcode.info().layout {
                    Layout::Declaration => self.declaration(token, &mut instruction)?,
                    _ => self.operation(token, &mut instruction)?,
                }
                instruction.trailing = self.trailing();
                instruction.unused_control =
                    (token & 0x00ff_f800) & !super::encode::control_bits(&instruction);
            }
            instruction.length = (self.end - self.start) as u32;
            self.program.instructions.push(instruction);
            self.pos = self.end;
            self.index += 1;
        }
        Ok(())
    }

    /// The dwords the instruction's length counts past its last operand, up to the last one
    /// that is not zero, kept in the data arena (zero dwords after it, such as fxc's padding
    /// of `samplepos`, are kept by the instruction's length alone, so that the form is the
    /// same however the dwords were laid out). Like vkd3d-shader and DXVK, the translation
    /// ignores them.
    fn trailing(&mut self) -> DataRange {
        let from = self.pos.min(self.end);
        let last = self
            .words
            .range(from, self.end)
            .rposition(|w| w != 0)
            .map_or(from, |i| from + i + 1);
        if last > from {
            self.push_data(from, last)
        } else {
            DataRange::default()
        }
    }

    /// True when the instruction length is in the dword after the opcode token: the length
    /// field is 0, or (for the class-linkage declarations) bit 31 is set.
    fn header_has_length_dword(&self, token: u32, opcode: Opcode) -> bool {
        tokens::length(token) == 0 || (tokens::extended(token) && is_long_declaration(opcode))
    }

    fn set_length(&mut self, token: u32, opcode: Opcode) -> Result<()> {
        let length = if self.header_has_length_dword(token, opcode) {
            let word = self.words.get(self.start + 1).ok_or_else(|| {
                self.err("the instruction length is in a dword past the end of the program")
            })?;
            if word < 2 {
                return Err(self.err(format!("instruction length {word} is too small")));
            }
            word as usize
        } else {
            tokens::length(token) as usize
        };
        let end = self
            .start
            .checked_add(length)
            .filter(|&e| e <= self.words.len());
        self.end = end.ok_or_else(|| {
            self.err(format!(
                "instruction length {length} runs past the end of the program ({} dwords)",
                self.words.len()
            ))
        })?;
        Ok(())
    }

    fn custom_data(&mut self, token: u32, instruction: &mut Instruction) -> Result<()> {
        let class_code = token >> 11;
        let class = CustomDataClass::from_code(class_code)
            .ok_or_else(|| self.err(format!("unknown custom-data class {class_code}")))?;
        let length = self
            .words
            .get(self.start + 1)
            .ok_or_else(|| self.err("custom-data block has no length dword"))?;
        let end = (length as usize)
            .checked_add(self.start)
            .filter(|&e| length >= 2 && e <= self.words.len())
            .ok_or_else(|| {
                self.err(format!(
                    "custom-data length {length} does not fit the program ({} dwords left)",
                    self.words.len() - self.start
                ))
            })?;
        self.end = end;
        let data = self.push_data(self.start + 2, end);
        instruction.declaration = Some(Declaration::CustomData { class, data });
        Ok(())
    }

    /// Appends the program's dwords `from..to` to the data arena.
    fn push_data(&mut self, from: usize, to: usize) -> DataRange {
        let start = self.program.data.len() as u32;
        self.program.data.extend(self.words.range(from, to));
        DataRange {
            start,
            len: (to - from) as u32,
        }
    }

    fn read_data(&mut self, count: u32, what: &str) -> Result<DataRange> {
        if count as usize > self.remaining() {
            return Err(self.err(format!(
                "{what} count {count} is more than the {} dwords left in the instruction",
                self.remaining()
            )));
        }
        let from = self.pos;
        self.pos += count as usize;
        Ok(self.push_data(from, self.pos))
    }

    fn operation(&mut self, token: u32, instruction: &mut Instruction) -> Result<()> {
        let info = instruction.opcode.info();
        let control = tokens::control(token) << 11;
        instruction.saturate = control & tokens::SATURATE_BIT != 0;
        instruction.precise_mask = field(token, tokens::PRECISE_SHIFT, 4) as u8;
        match info.control {
            Control::Test => {
                instruction.test = Some(if control & tokens::TEST_NONZERO_BIT != 0 {
                    Test::NonZero
                } else {
                    Test::Zero
                });
            }
            Control::ResinfoReturn => {
                instruction.info_return_type = Some(match field(token, 11, 2) {
                    0 => InfoReturnType::Float,
                    1 => InfoReturnType::RcpFloat,
                    2 => InfoReturnType::Uint,
                    n => return Err(self.err(format!("unknown resinfo return type {n}"))),
                });
            }
            Control::InfoReturn => {
                instruction.info_return_type = Some(if field(token, 11, 1) != 0 {
                    InfoReturnType::Uint
                } else {
                    InfoReturnType::Float
                });
            }
            Control::Sync => {
                instruction.saturate = false;
                instruction.sync = SyncFlags {
                    threads_in_group: field(token, 11, 1) != 0,
                    group_shared_memory: field(token, 12, 1) != 0,
                    uav_group: field(token, 13, 1) != 0,
                    uav_global: field(token, 14, 1) != 0,
                };
            }
            Control::Plain | Control::Declaration => {}
        }
        if tokens::extended(token) {
            self.extended_opcode(instruction)?;
        }
        if info.layout == Layout::InterfaceCall {
            instruction.call_index = Some(self.next()?);
        }
        // The operands are gathered in `self.top` (relative addresses go to the arena as they
        // are read) and then appended together, so that the instruction's are contiguous.
        let mut count = 0;
        for &value_type in info.dsts.iter().chain(info.srcs) {
            let mut operand = self.operand(value_type, 0)?;
            self.normalise_resource_operand(&mut operand)?;
            let slot = self.top.get_mut(count).ok_or_else(|| {
                Error::instruction(self.index, self.start as u32, "too many operands")
            })?;
            *slot = operand;
            count += 1;
        }
        instruction.dst_count = info.dsts.len() as u8;
        let start = self.program.operands.len() as u32;
        let top = self.top.get(..count).unwrap_or_default();
        self.program.operands.extend_from_slice(top);
        instruction.operands = OperandRange {
            start,
            len: count as u32,
        };
        Ok(())
    }

    fn push_operands(&mut self, operands: &[Operand]) -> OperandRange {
        let start = self.program.operands.len() as u32;
        self.program.operands.extend_from_slice(operands);
        OperandRange {
            start,
            len: operands.len() as u32,
        }
    }

    fn extended_opcode(&mut self, instruction: &mut Instruction) -> Result<()> {
        loop {
            let token = self.next()?;
            match field(token, 0, 6) {
                ext_opcode::EMPTY => {}
                ext_opcode::SAMPLE_CONTROLS => {
                    let offset = |shift| ((field(token, shift, 4) as i8) << 4) >> 4;
                    instruction.extended.offsets = Some([offset(9), offset(13), offset(17)]);
                }
                ext_opcode::RESOURCE_DIM => {
                    let code = field(token, 6, 5);
                    let dimension = ResourceDimension::from_code(code).ok_or_else(|| {
                        self.err(format!(
                            "unknown resource dimension {code} in extended token"
                        ))
                    })?;
                    instruction.extended.resource = Some((dimension, field(token, 11, 12)));
                }
                ext_opcode::RESOURCE_RETURN_TYPE => {
                    instruction.extended.return_type = Some(self.return_types(token >> 6)?);
                }
                other => {
                    return Err(self.err(format!("unknown extended opcode token type {other}")))
                }
            }
            if !tokens::extended(token) {
                return Ok(());
            }
        }
    }

    fn return_types(&self, packed: u32) -> Result<[ReturnType; 4]> {
        let mut types = [ReturnType::None; 4];
        for (i, slot) in types.iter_mut().enumerate() {
            let code = field(packed, 4 * i as u32, 4);
            *slot = ReturnType::from_code(code)
                .ok_or_else(|| self.err(format!("unknown resource return type {code}")))?;
        }
        Ok(types)
    }

    fn operand(&mut self, value_type: ValueType, depth: u32) -> Result<Operand> {
        let token = self.next()?;
        let components = match optok::num_components(token) {
            0 => ComponentCount::Zero,
            1 => ComponentCount::One,
            2 => ComponentCount::Four,
            _ => return Err(self.err("N-component operands are not defined by the format")),
        };
        let selection = if components == ComponentCount::Four {
            match optok::selection_mode(token) {
                0 => Selection::Mask(field(token, 4, 4) as u8),
                1 => Selection::Swizzle([
                    field(token, 4, 2) as u8,
                    field(token, 6, 2) as u8,
                    field(token, 8, 2) as u8,
                    field(token, 10, 2) as u8,
                ]),
                2 => Selection::Select1(field(token, 4, 2) as u8),
                _ => return Err(self.err("operand selection mode 3 is not defined")),
            }
        } else {
            Selection::Mask(0)
        };
        let code = optok::kind(token);
        let kind = RegisterKind::from_code(code)
            .ok_or_else(|| self.err(format!("unknown operand type {code}")))?;
        let mut operand = Operand::register(kind, components, selection);
        operand.value_type = value_type;
        let mut extended = tokens::extended(token);
        while extended {
            let ext = self.next()?;
            match field(ext, 0, 6) {
                0 => {}
                optok::EXT_MODIFIER => {
                    operand.modifier = match field(ext, 6, 8) {
                        0 => Modifier::None,
                        1 => Modifier::Neg,
                        2 => Modifier::Abs,
                        3 => Modifier::AbsNeg,
                        m => return Err(self.err(format!("unknown operand modifier {m}"))),
                    };
                    let precision = field(ext, 14, 3);
                    operand.min_precision =
                        MinPrecision::from_code(precision).ok_or_else(|| {
                            self.err(format!("unknown minimum precision {precision}"))
                        })?;
                    operand.non_uniform = field(ext, 17, 1) != 0;
                }
                t => return Err(self.err(format!("unknown extended operand token type {t}"))),
            }
            extended = tokens::extended(ext);
        }
        match kind {
            RegisterKind::Immediate32 | RegisterKind::Immediate64 => {
                let words = match (kind, components) {
                    (RegisterKind::Immediate32, ComponentCount::One) => 1,
                    (RegisterKind::Immediate32, ComponentCount::Four) => 4,
                    (_, ComponentCount::One) => 2,
                    (_, ComponentCount::Four) => 4,
                    _ => return Err(self.err("an immediate operand must have 1 or 4 components")),
                };
                for i in 0..words {
                    operand.values[i] = self.next()?;
                }
            }
            _ => {}
        }
        let dimension = optok::index_dimension(token);
        operand.index_count = dimension as u8;
        for i in 0..dimension {
            operand.indices[i as usize] =
                self.index(optok::index_representation(token, i), depth)?;
        }
        Ok(operand)
    }

    fn index(&mut self, representation: u32, depth: u32) -> Result<Index> {
        Ok(match representation {
            optok::IMM32 => Index::Imm32(self.next()?),
            optok::IMM64 => Index::Imm64(self.imm64()?),
            optok::RELATIVE => Index::Relative(self.relative(depth)?),
            optok::IMM32_PLUS_RELATIVE => {
                let imm = self.next()?;
                Index::Imm32PlusRelative(imm, self.relative(depth)?)
            }
            optok::IMM64_PLUS_RELATIVE => {
                let imm = self.imm64()?;
                Index::Imm64PlusRelative(imm, self.relative(depth)?)
            }
            r => return Err(self.err(format!("unknown index representation {r}"))),
        })
    }

    fn imm64(&mut self) -> Result<u64> {
        let high = self.next()? as u64;
        let low = self.next()? as u64;
        Ok((high << 32) | low)
    }

    fn relative(&mut self, depth: u32) -> Result<OperandId> {
        if depth >= MAX_RELATIVE_DEPTH {
            return Err(self.err(format!(
                "relative addresses nest deeper than {MAX_RELATIVE_DEPTH} levels"
            )));
        }
        let mut operand = self.operand(ValueType::I32, depth + 1)?;
        self.normalise_resource_operand(&mut operand)?;
        let id = OperandId(self.program.operands.len() as u32);
        self.program.operands.push(operand);
        Ok(id)
    }

    /// Rewrites an SM4.0–5.0 resource operand into SM5.1 form
    /// ([`crate::ir::normalise_resource_operand`]).
    fn normalise_resource_operand(&self, operand: &mut Operand) -> Result<()> {
        crate::ir::normalise_resource_operand(self.program.model, operand)
            .map_err(|(kind, message)| self.err(message).with_kind(kind))
    }

    /// Reads a declaration's register operand and stores it in the operand arena.
    fn decl_operand(&mut self, instruction: &mut Instruction) -> Result<(OperandId, Operand)> {
        let operand = self.operand(ValueType::None, 0)?;
        let id = OperandId(self.program.operands.len() as u32);
        instruction.operands = self.push_operands(&[operand]);
        Ok((id, operand))
    }

    /// Reads a resource declaration's operand and (for SM5.1) its trailing dwords up to the
    /// space, and returns its range in SM5.1 form. `extra` dwords (return type, size, stride)
    /// sit between the operand and the space; they are returned in order.
    fn resource_decl(
        &mut self,
        instruction: &mut Instruction,
        extra: usize,
    ) -> Result<(OperandId, ResourceRange, [u32; 2])> {
        let (id, operand) = self.decl_operand(instruction)?;
        let expected = match instruction.opcode {
            Opcode::DclConstantBuffer => RegisterKind::ConstantBuffer,
            Opcode::DclSampler => RegisterKind::Sampler,
            Opcode::DclUavTyped | Opcode::DclUavRaw | Opcode::DclUavStructured => {
                RegisterKind::UnorderedAccessView
            }
            _ => RegisterKind::Resource,
        };
        if operand.kind != expected {
            return Err(self.err(format!(
                "{} declares a {} register; it needs a {} register",
                instruction.opcode.name(),
                operand.kind.name(),
                expected.name()
            )));
        }
        let mut extras = [0u32; 2];
        for slot in extras.iter_mut().take(extra) {
            *slot = self.next()?;
        }
        let immediate = |i: usize| operand.indices.get(i).and_then(|x| x.as_imm32());
        let range = if self.program.model.has_resource_ranges() {
            let space = self.next()?;
            match (
                operand.index_count,
                immediate(0),
                immediate(1),
                immediate(2),
            ) {
                (3, Some(id), Some(lower), Some(upper)) => ResourceRange {
                    id,
                    lower,
                    upper: (upper != u32::MAX).then_some(upper),
                    space,
                },
                _ => {
                    return Err(self.err(format!(
                        "an SM5.1 {} declaration needs three immediate indices (id, lower, upper)",
                        operand.kind.name()
                    )))
                }
            }
        } else {
            let expected = if operand.kind == RegisterKind::ConstantBuffer {
                2
            } else {
                1
            };
            match (operand.index_count as usize == expected, immediate(0)) {
                (true, Some(register)) => ResourceRange {
                    id: register,
                    lower: register,
                    upper: Some(register),
                    space: 0,
                },
                _ => {
                    return Err(self.err(format!(
                        "a {} declaration needs {expected} immediate index(es)",
                        operand.kind.name()
                    )))
                }
            }
        };
        if !operand.kind.is_resource_range() {
            return Err(self.err(format!(
                "a resource declaration cannot declare a {} register",
                operand.kind.name()
            )));
        }
        // Hold the declared register in SM5.1 form: [id][lower][upper].
        let upper = range.upper.unwrap_or(u32::MAX);
        if let Some(stored) = self.program.operands.get_mut(id.0 as usize) {
            stored.indices = [
                Index::Imm32(range.id),
                Index::Imm32(range.lower),
                Index::Imm32(upper),
            ];
            stored.index_count = 3;
        }
        Ok((id, range, extras))
    }

    fn uav_flags(token: u32) -> UavFlags {
        UavFlags {
            globally_coherent: field(token, 16, 1) != 0,
            rasterizer_ordered: field(token, 17, 1) != 0,
            counter: field(token, 23, 1) != 0,
        }
    }

    /// Reads a `width`-bit enumeration at `shift` of `token`; unknown codes are errors.
    fn field_enum<T>(
        &self,
        token: u32,
        shift: u32,
        width: u32,
        from_code: fn(u32) -> Option<T>,
        what: &str,
    ) -> Result<T> {
        let code = field(token, shift, width);
        self.coded(from_code(code), what, code)
    }

    fn coded<T>(&self, value: Option<T>, what: &str, code: u32) -> Result<T> {
        value.ok_or_else(|| self.err(format!("unknown {what} {code}")))
    }

    fn declaration(&mut self, token: u32, instruction: &mut Instruction) -> Result<()> {
        use Opcode as O;
        let opcode = instruction.opcode;
        if tokens::extended(token) && !is_long_declaration(opcode) {
            return Err(self.err("declarations do not take extended opcode tokens"));
        }
        let sm51 = self.program.model.has_resource_ranges();
        let declaration = match opcode {
            O::DclResource => {
                let dimension = self.field_enum(
                    token,
                    11,
                    5,
                    ResourceDimension::from_code,
                    "resource dimension",
                )?;
                let (operand, range, extra) = self.resource_decl(instruction, 1)?;
                Declaration::Resource {
                    operand,
                    range,
                    dimension,
                    sample_count: field(token, 16, 7),
                    return_type: self.return_types(extra[0])?,
                }
            }
            O::DclResourceRaw => {
                let (operand, range, _) = self.resource_decl(instruction, 0)?;
                Declaration::ResourceRaw { operand, range }
            }
            O::DclResourceStructured => {
                let (operand, range, extra) = self.resource_decl(instruction, 1)?;
                Declaration::ResourceStructured {
                    operand,
                    range,
                    stride: extra[0],
                }
            }
            O::DclUavTyped => {
                let dimension = self.field_enum(
                    token,
                    11,
                    5,
                    ResourceDimension::from_code,
                    "resource dimension",
                )?;
                let (operand, range, extra) = self.resource_decl(instruction, 1)?;
                Declaration::UavTyped {
                    operand,
                    range,
                    dimension,
                    return_type: self.return_types(extra[0])?,
                    flags: Self::uav_flags(token),
                }
            }
            O::DclUavRaw => {
                let (operand, range, _) = self.resource_decl(instruction, 0)?;
                Declaration::UavRaw {
                    operand,
                    range,
                    flags: Self::uav_flags(token),
                }
            }
            O::DclUavStructured => {
                let (operand, range, extra) = self.resource_decl(instruction, 1)?;
                Declaration::UavStructured {
                    operand,
                    range,
                    stride: extra[0],
                    flags: Self::uav_flags(token),
                }
            }
            O::DclConstantBuffer => {
                let dynamic = field(token, 11, 1) != 0;
                if sm51 {
                    let (operand, range, extra) = self.resource_decl(instruction, 1)?;
                    Declaration::ConstantBuffer {
                        operand,
                        range,
                        size: extra[0],
                        dynamic,
                    }
                } else {
                    let size_index = self.peek_cb_size()?;
                    let (operand, range, _) = self.resource_decl(instruction, 0)?;
                    Declaration::ConstantBuffer {
                        operand,
                        range,
                        size: size_index,
                        dynamic,
                    }
                }
            }
            O::DclSampler => {
                let mode = self.field_enum(token, 11, 4, SamplerMode::from_code, "sampler mode")?;
                let (operand, range, _) = self.resource_decl(instruction, 0)?;
                Declaration::Sampler {
                    operand,
                    range,
                    mode,
                }
            }
            O::DclIndexRange => {
                let (operand, _) = self.decl_operand(instruction)?;
                Declaration::IndexRange {
                    operand,
                    count: self.next()?,
                }
            }
            O::DclGsOutputPrimitiveTopology => Declaration::GsOutputTopology(self.field_enum(
                token,
                11,
                6,
                PrimitiveTopology::from_code,
                "output topology",
            )?),
            O::DclGsInputPrimitive => {
                let code = field(token, 11, 6);
                let primitive = InputPrimitive(code);
                self.coded(primitive.name(), "input primitive", code)?;
                Declaration::GsInputPrimitive(primitive)
            }
            O::DclMaxOutputVertexCount => Declaration::MaxOutputVertexCount(self.next()?),
            O::DclGsInstanceCount => Declaration::GsInstanceCount(self.next()?),
            O::DclInput | O::DclOutput => {
                let (operand, _) = self.decl_operand(instruction)?;
                Declaration::Signature {
                    operand,
                    system_value: None,
                    interpolation: None,
                }
            }
            O::DclInputSgv | O::DclInputSiv | O::DclOutputSgv | O::DclOutputSiv => {
                let (operand, _) = self.decl_operand(instruction)?;
                let system_value = Some(self.system_value()?);
                Declaration::Signature {
                    operand,
                    system_value,
                    interpolation: None,
                }
            }
            O::DclInputPs | O::DclInputPsSgv | O::DclInputPsSiv => {
                let interpolation =
                    self.field_enum(token, 11, 4, Interpolation::from_code, "interpolation mode")?;
                let (operand, _) = self.decl_operand(instruction)?;
                let system_value = if opcode == O::DclInputPs {
                    None
                } else {
                    Some(self.system_value()?)
                };
                Declaration::Signature {
                    operand,
                    system_value,
                    interpolation: Some(interpolation),
                }
            }
            O::DclTemps => Declaration::Temps(self.next()?),
            O::DclIndexableTemp => Declaration::IndexableTemp {
                register: self.next()?,
                size: self.next()?,
                components: self.next()?,
            },
            O::DclGlobalFlags => Declaration::GlobalFlags(token & 0x00ff_f800),
            O::DclStream => {
                let (operand, _) = self.decl_operand(instruction)?;
                Declaration::Stream(operand)
            }
            O::DclFunctionBody => Declaration::FunctionBody(self.next()?),
            O::DclFunctionTable => {
                let id = self.next()?;
                let count = self.next()?;
                Declaration::FunctionTable {
                    id,
                    bodies: self.read_data(count, "function table")?,
                }
            }
            O::DclInterface => {
                let id = self.next()?;
                let table_length = self.next()?;
                let lengths = self.next()?;
                Declaration::Interface {
                    id,
                    dynamic: field(token, 11, 1) != 0,
                    table_length,
                    array_length: lengths >> 16,
                    tables: self.read_data(lengths & 0xffff, "interface table")?,
                }
            }
            O::DclInputControlPointCount => {
                Declaration::InputControlPointCount(field(token, 11, 6))
            }
            O::DclOutputControlPointCount => {
                Declaration::OutputControlPointCount(field(token, 11, 6))
            }
            O::DclTessDomain => Declaration::TessDomain(self.field_enum(
                token,
                11,
                2,
                TessDomain::from_code,
                "tessellator domain",
            )?),
            O::DclTessPartitioning => Declaration::TessPartitioning(self.field_enum(
                token,
                11,
                3,
                TessPartitioning::from_code,
                "tessellator partitioning",
            )?),
            O::DclTessOutputPrimitive => Declaration::TessOutputPrimitive(self.field_enum(
                token,
                11,
                3,
                TessOutputPrimitive::from_code,
                "tessellator output primitive",
            )?),
            O::DclHsMaxTessFactor => Declaration::HsMaxTessFactor(self.next()?),
            O::DclHsForkPhaseInstanceCount => Declaration::HsForkPhaseInstanceCount(self.next()?),
            O::DclHsJoinPhaseInstanceCount => Declaration::HsJoinPhaseInstanceCount(self.next()?),
            O::DclThreadGroup => {
                Declaration::ThreadGroup([self.next()?, self.next()?, self.next()?])
            }
            O::DclTgsmRaw => {
                let (operand, _) = self.decl_operand(instruction)?;
                Declaration::TgsmRaw {
                    operand,
                    byte_count: self.next()?,
                }
            }
            O::DclTgsmStructured => {
                let (operand, _) = self.decl_operand(instruction)?;
                Declaration::TgsmStructured {
                    operand,
                    stride: self.next()?,
                    count: self.next()?,
                }
            }
            other => {
                return Err(self.err(format!(
                    "{} is listed as a declaration but has no declaration layout",
                    other.name()
                )))
            }
        };
        instruction.declaration = Some(declaration);
        Ok(())
    }

    /// For an SM4/5.0 `dcl_constantbuffer cb#[size]`, reads the size from the operand's
    /// second index without consuming anything.
    fn peek_cb_size(&mut self) -> Result<u32> {
        let saved = self.pos;
        let operands = self.program.operands.len();
        let operand = self.operand(ValueType::None, 0)?;
        self.pos = saved;
        self.program.operands.truncate(operands);
        match (operand.index_count, operand.indices[1].as_imm32()) {
            (2, Some(size)) => Ok(size),
            _ => Err(self.err(
                "dcl_constantbuffer needs two immediate indices (register, size) before SM5.1",
            )),
        }
    }

    fn system_value(&mut self) -> Result<SystemValue> {
        let code = self.next()?;
        self.coded(SystemValue::from_code(code), "system value", code)
    }
}

/// The class-linkage declarations, whose bit 31 means "the length is in the next dword".
fn is_long_declaration(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::DclFunctionBody | Opcode::DclFunctionTable | Opcode::DclInterface
    )
}
