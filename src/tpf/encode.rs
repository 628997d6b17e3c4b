//! The encoder: an [`ir::Program`](crate::ir::Program) back into SHDR/SHEX tokens.
//!
//! It writes what fxc writes for the same program: the inverse of [`super::decode`], so that
//! decoding and re-encoding any compiler-written program gives back the same bytes.

use super::tokens::{ext_opcode, operand as optok, PRECISE_SHIFT, SATURATE_BIT, TEST_NONZERO_BIT};
use crate::error::{Error, Result};
use crate::ir::*;
use crate::isa::{Control, Layout, Opcode};

/// The longest instruction the 7-bit length field can describe.
const MAX_SHORT_LENGTH: usize = 127;

/// Encodes a program into the bytes of a SHDR/SHEX chunk.
pub fn encode(program: &Program) -> Result<Vec<u8>> {
    let words = encode_words(program)?;
    let mut bytes = Vec::with_capacity(words.len() * 4);
    for word in words {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    Ok(bytes)
}

/// Encodes a program into dwords (version token and length token first).
pub fn encode_words(program: &Program) -> Result<Vec<u32>> {
    let model = program.model;
    let mut words = Vec::with_capacity(program.operands.len() * 3 + program.instructions.len() * 2);
    words.push(
        (model.stage.program_type() << 16) | ((model.major as u32) << 4) | model.minor as u32,
    );
    words.push(0);
    let mut encoder = Encoder {
        program,
        words,
        index: 0,
        start: 0,
        depth: 0,
    };
    for (index, instruction) in program.instructions.iter().enumerate() {
        encoder.index = index as u32;
        encoder.start = encoder.words.len();
        encoder.instruction(instruction)?;
    }
    let total = encoder.words.len() as u32;
    encoder.words[1] = total;
    Ok(encoder.words)
}

/// The tokens of `operands` in instruction form (their relative addresses in `program`'s
/// arena), as a shader message holds them.
pub fn encode_operands(program: &Program, operands: &[Operand]) -> Result<Vec<u32>> {
    let mut encoder = Encoder {
        program,
        words: Vec::new(),
        index: 0,
        start: 0,
        depth: 0,
    };
    for operand in operands {
        encoder.operand(operand, true)?;
    }
    Ok(encoder.words)
}

struct Encoder<'a> {
    program: &'a Program,
    words: Vec<u32>,
    index: u32,
    start: usize,
    /// Relative operands being encoded inside each other (a program built by hand may hold a
    /// cycle, which the decoder never makes).
    depth: u32,
}

/// The deepest nesting of relative indices the encoder follows.
const MAX_RELATIVE_DEPTH: u32 = 8;

impl Encoder<'_> {
    fn err(&self, message: impl Into<String>) -> Error {
        Error::instruction(self.index, self.start as u32, message)
    }

    fn instruction(&mut self, instruction: &Instruction) -> Result<()> {
        let opcode = instruction.opcode;
        let info = opcode.info();
        if info.layout == Layout::CustomData {
            return self.custom_data(instruction);
        }
        self.words.push(0);
        let mut token = opcode as u32 | control_bits(instruction) | instruction.unused_control;
        match (&instruction.declaration, info.layout) {
            (Some(declaration), Layout::Declaration) => {
                self.declaration(declaration)?;
            }
            (None, Layout::Operands | Layout::InterfaceCall) => {
                token |= self.operation(instruction)?;
            }
            _ => {
                return Err(self.err(format!(
                    "{} does not match its declaration payload",
                    opcode.name()
                )))
            }
        }
        // Dwords past the last operand that the program kept, then the zero padding it had
        // (fxc pads `samplepos` with a zero dword).
        if instruction.trailing.len > 0 {
            let trailing = self.program.data_slice(instruction.trailing);
            if trailing.len() != instruction.trailing.len as usize {
                return Err(
                    self.err("the instruction's trailing dwords lie outside the data arena")
                );
            }
            self.words.extend_from_slice(trailing);
        }
        let padded = self.start + instruction.length as usize;
        while self.words.len() < padded {
            self.words.push(0);
        }
        let length = self.words.len() - self.start;
        if length > MAX_SHORT_LENGTH {
            return Err(self.err(format!(
                "{} is {length} dwords long; the format allows {MAX_SHORT_LENGTH}",
                opcode.name()
            )));
        }
        self.words[self.start] = token | ((length as u32) << 24);
        Ok(())
    }

    fn custom_data(&mut self, instruction: &Instruction) -> Result<()> {
        let Some(Declaration::CustomData { class, data }) = &instruction.declaration else {
            return Err(self.err("a custom-data block carries no data"));
        };
        let payload = self.program.data_slice(*data);
        self.words
            .push(Opcode::CustomData as u32 | (class.code() << 11));
        self.words.push(payload.len() as u32 + 2);
        self.words.extend_from_slice(payload);
        Ok(())
    }

    /// Writes an instruction's tokens after the opcode token; returns the opcode token's
    /// extended flag.
    fn operation(&mut self, instruction: &Instruction) -> Result<u32> {
        let extended = self.extended_opcode(&instruction.extended);
        if let Some(index) = instruction.call_index {
            self.words.push(index);
        }
        for operand in self.program.operands_of(instruction) {
            self.operand(operand, true)?;
        }
        Ok(if extended { 1 << 31 } else { 0 })
    }

    /// Writes the extended opcode tokens; returns whether there were any.
    fn extended_opcode(&mut self, extended: &ExtendedOpcode) -> bool {
        let mut tokens = [0u32; 3];
        let mut count = 0;
        if let Some(offsets) = extended.offsets {
            let nibble = |v: i8| (v as u32) & 0xf;
            tokens[count] = ext_opcode::SAMPLE_CONTROLS
                | nibble(offsets[0]) << 9
                | nibble(offsets[1]) << 13
                | nibble(offsets[2]) << 17;
            count += 1;
        }
        if let Some((dimension, stride)) = extended.resource {
            tokens[count] =
                ext_opcode::RESOURCE_DIM | dimension.code() << 6 | (stride & 0xfff) << 11;
            count += 1;
        }
        if let Some(types) = extended.return_type {
            tokens[count] = ext_opcode::RESOURCE_RETURN_TYPE | return_types(&types) << 6;
            count += 1;
        }
        for (i, token) in tokens[..count].iter().enumerate() {
            let more = if i + 1 < count { 1 << 31 } else { 0 };
            self.words.push(token | more);
        }
        count > 0
    }

    /// Writes an operand. `instruction_form` is false for declared registers.
    fn operand(&mut self, operand: &Operand, instruction_form: bool) -> Result<()> {
        let mut indices = [Index::Imm32(0); 3];
        let mut count = operand.index_count.min(3) as usize;
        indices[..count].copy_from_slice(operand.indices());
        // Before SM5.1, resource operands are written with the register only: `t3`, `cb1[4]`.
        if instruction_form
            && operand.kind.is_resource_range()
            && !self.program.model.has_resource_ranges()
            && count >= 2
        {
            indices = [indices[1], indices[2], Index::Imm32(0)];
            count -= 1;
        }
        let mut token = match operand.components {
            ComponentCount::Zero => 0,
            ComponentCount::One => 1,
            ComponentCount::Four => 2,
            ComponentCount::N(_) => 3,
        };
        if operand.components == ComponentCount::Four {
            token |= match operand.selection {
                Selection::Mask(mask) => (mask as u32 & 0xf) << 4,
                Selection::Swizzle(s) => {
                    1 << 2
                        | (s[0] as u32 & 3) << 4
                        | (s[1] as u32 & 3) << 6
                        | (s[2] as u32 & 3) << 8
                        | (s[3] as u32 & 3) << 10
                }
                Selection::Select1(c) => 2 << 2 | (c as u32 & 3) << 4,
            };
        }
        token |= (operand.kind as u32) << 12;
        token |= (count as u32) << 20;
        for (i, index) in indices[..count].iter().enumerate() {
            let representation = match index {
                Index::Imm32(_) => optok::IMM32,
                Index::Imm64(_) => optok::IMM64,
                Index::Relative(_) => optok::RELATIVE,
                Index::Imm32PlusRelative(..) => optok::IMM32_PLUS_RELATIVE,
                Index::Imm64PlusRelative(..) => optok::IMM64_PLUS_RELATIVE,
            };
            token |= representation << (22 + 3 * i);
        }
        let extended = operand.modifier != Modifier::None
            || operand.min_precision != MinPrecision::Default
            || operand.non_uniform;
        if extended {
            token |= 1 << 31;
        }
        self.words.push(token);
        if extended {
            let modifier = match operand.modifier {
                Modifier::None => 0,
                Modifier::Neg => 1,
                Modifier::Abs => 2,
                Modifier::AbsNeg => 3,
            };
            self.words.push(
                optok::EXT_MODIFIER
                    | modifier << 6
                    | operand.min_precision.code() << 14
                    | (operand.non_uniform as u32) << 17,
            );
        }
        let immediates = match (operand.kind, operand.components) {
            (RegisterKind::Immediate32, ComponentCount::One) => 1,
            (RegisterKind::Immediate32, ComponentCount::Four) => 4,
            (RegisterKind::Immediate64, ComponentCount::One) => 2,
            (RegisterKind::Immediate64, ComponentCount::Four) => 4,
            _ => 0,
        };
        self.words.extend_from_slice(&operand.values[..immediates]);
        for index in &indices[..count] {
            self.index(*index)?;
        }
        Ok(())
    }

    fn index(&mut self, index: Index) -> Result<()> {
        match index {
            Index::Imm32(value) => self.words.push(value),
            Index::Imm64(value) => {
                self.words.push((value >> 32) as u32);
                self.words.push(value as u32);
            }
            Index::Relative(id) => self.relative(id)?,
            Index::Imm32PlusRelative(value, id) => {
                self.words.push(value);
                self.relative(id)?;
            }
            Index::Imm64PlusRelative(value, id) => {
                self.words.push((value >> 32) as u32);
                self.words.push(value as u32);
                self.relative(id)?;
            }
        }
        Ok(())
    }

    fn relative(&mut self, id: OperandId) -> Result<()> {
        let Some(operand) = self.program.operands.get(id.0 as usize) else {
            return Err(self.err(format!("relative operand {} is outside the arena", id.0)));
        };
        if self.depth >= MAX_RELATIVE_DEPTH {
            return Err(self.err(format!(
                "relative indices nested deeper than {MAX_RELATIVE_DEPTH} (a cycle?)"
            )));
        }
        self.depth += 1;
        let result = self.operand(operand, true);
        self.depth -= 1;
        result
    }

    fn declared(&mut self, id: OperandId) -> Result<()> {
        let Some(operand) = self.program.operands.get(id.0 as usize) else {
            return Err(self.err(format!("declared operand {} is outside the arena", id.0)));
        };
        self.operand(operand, false)
    }

    /// Writes a resource declaration's operand (`t3` before SM5.1, `t1[10:*]` after), the
    /// `extra` dwords, and (SM5.1) the space.
    fn range_operand(
        &mut self,
        id: OperandId,
        range: &ResourceRange,
        cb_size: Option<u32>,
        extra: &[u32],
    ) -> Result<()> {
        let Some(declared) = self.program.operands.get(id.0 as usize) else {
            return Err(self.err(format!("declared operand {} is outside the arena", id.0)));
        };
        let mut operand = *declared;
        if self.program.model.has_resource_ranges() {
            operand.indices = [
                Index::Imm32(range.id),
                Index::Imm32(range.lower),
                Index::Imm32(range.upper.unwrap_or(u32::MAX)),
            ];
            operand.index_count = 3;
            self.operand(&operand, false)?;
            if let Some(size) = cb_size {
                self.words.push(size);
            }
            self.words.extend_from_slice(extra);
            self.words.push(range.space);
        } else {
            operand.indices[0] = Index::Imm32(range.id);
            operand.index_count = 1;
            if let Some(size) = cb_size {
                operand.indices[1] = Index::Imm32(size);
                operand.index_count = 2;
            }
            self.operand(&operand, false)?;
            self.words.extend_from_slice(extra);
        }
        Ok(())
    }

    /// Writes a declaration's tokens after the opcode token.
    fn declaration(&mut self, declaration: &Declaration) -> Result<()> {
        match declaration {
            Declaration::Resource {
                operand,
                range,
                return_type,
                ..
            }
            | Declaration::UavTyped {
                operand,
                range,
                return_type,
                ..
            } => self.range_operand(*operand, range, None, &[return_types(return_type)])?,
            Declaration::ResourceRaw { operand, range }
            | Declaration::UavRaw { operand, range, .. }
            | Declaration::Sampler { operand, range, .. } => {
                self.range_operand(*operand, range, None, &[])?
            }
            Declaration::ResourceStructured {
                operand,
                range,
                stride,
            }
            | Declaration::UavStructured {
                operand,
                range,
                stride,
                ..
            } => self.range_operand(*operand, range, None, &[*stride])?,
            Declaration::ConstantBuffer {
                operand,
                range,
                size,
                ..
            } => self.range_operand(*operand, range, Some(*size), &[])?,
            Declaration::TgsmRaw {
                operand,
                byte_count,
            } => {
                self.declared(*operand)?;
                self.words.push(*byte_count);
            }
            Declaration::TgsmStructured {
                operand,
                stride,
                count,
            } => {
                self.declared(*operand)?;
                self.words.extend_from_slice(&[*stride, *count]);
            }
            Declaration::Signature {
                operand,
                system_value,
                ..
            } => {
                self.declared(*operand)?;
                if let Some(sv) = system_value {
                    self.words.push(sv.code());
                }
            }
            Declaration::IndexRange { operand, count } => {
                self.declared(*operand)?;
                self.words.push(*count);
            }
            Declaration::Temps(n)
            | Declaration::MaxOutputVertexCount(n)
            | Declaration::GsInstanceCount(n)
            | Declaration::HsMaxTessFactor(n)
            | Declaration::HsForkPhaseInstanceCount(n)
            | Declaration::HsJoinPhaseInstanceCount(n)
            | Declaration::FunctionBody(n) => self.words.push(*n),
            Declaration::IndexableTemp {
                register,
                size,
                components,
            } => self
                .words
                .extend_from_slice(&[*register, *size, *components]),
            Declaration::CustomData { .. } => {
                return Err(self.err("custom data encoded as a declaration"));
            }
            Declaration::Stream(operand) => self.declared(*operand)?,
            Declaration::ThreadGroup(size) => self.words.extend_from_slice(size),
            Declaration::FunctionTable { id, bodies } => {
                let bodies = self.program.data_slice(*bodies);
                self.words.push(*id);
                self.words.push(bodies.len() as u32);
                self.words.extend_from_slice(bodies);
            }
            Declaration::Interface {
                id,
                table_length,
                array_length,
                tables,
                ..
            } => {
                let tables = self.program.data_slice(*tables);
                self.words.push(*id);
                self.words.push(*table_length);
                self.words
                    .push((array_length << 16) | (tables.len() as u32 & 0xffff));
                self.words.extend_from_slice(tables);
            }
            Declaration::GlobalFlags(_)
            | Declaration::GsOutputTopology(_)
            | Declaration::GsInputPrimitive(_)
            | Declaration::InputControlPointCount(_)
            | Declaration::OutputControlPointCount(_)
            | Declaration::TessDomain(_)
            | Declaration::TessPartitioning(_)
            | Declaration::TessOutputPrimitive(_) => {}
        }
        Ok(())
    }
}

/// The control bits (11–23) of an instruction's opcode token that its IR fields determine.
/// The decoder keeps any other set bits in [`Instruction::unused_control`].
pub fn control_bits(instruction: &Instruction) -> u32 {
    match &instruction.declaration {
        Some(declaration) => declaration_control_bits(declaration),
        None => operation_control_bits(instruction),
    }
}

fn operation_control_bits(instruction: &Instruction) -> u32 {
    let info = instruction.opcode.info();
    let mut control = 0;
    if instruction.saturate {
        control |= SATURATE_BIT;
    }
    control |= (instruction.precise_mask as u32 & 0xf) << PRECISE_SHIFT;
    match info.control {
        Control::Test => {
            if instruction.test == Some(Test::NonZero) {
                control |= TEST_NONZERO_BIT;
            }
        }
        Control::ResinfoReturn => {
            control |= match instruction.info_return_type {
                Some(InfoReturnType::RcpFloat) => 1 << 11,
                Some(InfoReturnType::Uint) => 2 << 11,
                _ => 0,
            };
        }
        Control::InfoReturn => {
            if instruction.info_return_type == Some(InfoReturnType::Uint) {
                control |= 1 << 11;
            }
        }
        Control::Sync => {
            let sync = instruction.sync;
            control = (sync.threads_in_group as u32) << 11
                | (sync.group_shared_memory as u32) << 12
                | (sync.uav_group as u32) << 13
                | (sync.uav_global as u32) << 14
                | (instruction.precise_mask as u32 & 0xf) << PRECISE_SHIFT;
        }
        Control::Plain | Control::Declaration => {}
    }
    control
}

fn declaration_control_bits(declaration: &Declaration) -> u32 {
    let uav = |flags: &UavFlags| {
        (flags.globally_coherent as u32) << 16
            | (flags.rasterizer_ordered as u32) << 17
            | (flags.counter as u32) << 23
    };
    match declaration {
        Declaration::GlobalFlags(flags) => flags & 0x00ff_f800,
        Declaration::Resource {
            dimension,
            sample_count,
            ..
        } => dimension.code() << 11 | (sample_count & 0x7f) << 16,
        Declaration::UavTyped {
            dimension, flags, ..
        } => dimension.code() << 11 | uav(flags),
        Declaration::UavRaw { flags, .. } | Declaration::UavStructured { flags, .. } => uav(flags),
        Declaration::ConstantBuffer { dynamic, .. } => (*dynamic as u32) << 11,
        Declaration::Sampler { mode, .. } => mode.code() << 11,
        Declaration::Signature { interpolation, .. } => {
            interpolation.map_or(0, |mode| mode.code() << 11)
        }
        Declaration::GsOutputTopology(topology) => topology.code() << 11,
        Declaration::GsInputPrimitive(primitive) => (primitive.0 & 0x3f) << 11,
        Declaration::InputControlPointCount(n) | Declaration::OutputControlPointCount(n) => {
            (n & 0x3f) << 11
        }
        Declaration::TessDomain(domain) => domain.code() << 11,
        Declaration::TessPartitioning(partitioning) => partitioning.code() << 11,
        Declaration::TessOutputPrimitive(primitive) => primitive.code() << 11,
        Declaration::Interface { dynamic, .. } => (*dynamic as u32) << 11,
        _ => 0,
    }
}

/// Packs four return types into 16 bits.
fn return_types(types: &[ReturnType; 4]) -> u32 {
    types
        .iter()
        .enumerate()
        .fold(0, |acc, (i, t)| acc | t.code() << (4 * i))
}
