//! The IR: one normalised form for every shader model from SM4.0 to SM5.1.
//!
//! A [`Program`] is a list of [`Instruction`]s (declarations included, in program order, so
//! hull-shader phases keep their own declarations) whose operands live in one arena,
//! [`Program::operands`], addressed by [`OperandId`]. Relative-address operands live in the
//! same arena, so an instruction holds no heap allocation of its own.
//!
//! Every operand carries the [`ValueType`] its instruction reads or writes it as (DXBC
//! registers are untyped 32-bit; the opcode decides how the bits are read), taken from the
//! opcode table in [`crate::isa`].
//!
//! Resources are held in SM5.1 form for every model: declarations carry a
//! [`ResourceRange`] (range id, lower bound, upper bound or unbounded, register space), and
//! resource operands in instructions have two indices (range id, absolute register index) —
//! three for constant buffers (range id, register index, element). The decoder rewrites
//! SM4.0–5.0 operands into that form (`t3` becomes `t3[3]`, `cb1[4]` becomes `cb1[1][4]`).

mod decl;
mod operand;
pub mod shader_message;
mod validate;

pub use decl::*;
pub use operand::*;
pub use validate::{validate, validate_control_flow, validate_stage_rules};

use crate::isa::Opcode;

/// The pipeline stage a program runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Pixel (fragment) shader.
    Pixel,
    /// Vertex shader.
    Vertex,
    /// Geometry shader.
    Geometry,
    /// Hull (tessellation control) shader.
    Hull,
    /// Domain (tessellation evaluation) shader.
    Domain,
    /// Compute shader.
    Compute,
}

impl Stage {
    /// The two-letter prefix of the version line, e.g. `ps`.
    pub fn prefix(self) -> &'static str {
        match self {
            Stage::Pixel => "ps",
            Stage::Vertex => "vs",
            Stage::Geometry => "gs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Compute => "cs",
        }
    }

    /// The stage for a program-type value of the version token.
    pub fn from_program_type(value: u32) -> Option<Stage> {
        Some(match value {
            0 => Stage::Pixel,
            1 => Stage::Vertex,
            2 => Stage::Geometry,
            3 => Stage::Hull,
            4 => Stage::Domain,
            5 => Stage::Compute,
            _ => return None,
        })
    }

    /// The program-type value of the version token.
    pub fn program_type(self) -> u32 {
        self as u32
    }
}

/// A shader model: stage and version, e.g. `ps_5_1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShaderModel {
    /// The stage.
    pub stage: Stage,
    /// Major version (4 or 5).
    pub major: u8,
    /// Minor version (0 or 1).
    pub minor: u8,
}

impl ShaderModel {
    /// True for SM5.1 and later, where resources are declared as ranges.
    pub fn has_resource_ranges(self) -> bool {
        (self.major, self.minor) >= (5, 1)
    }

    /// True for SM5.0 and later.
    pub fn is_sm5(self) -> bool {
        self.major >= 5
    }

    /// The model's name (`ps_5_0`), written without the formatting machinery (a translation
    /// reports it every time).
    pub fn name(self) -> String {
        let mut name = String::with_capacity(8);
        name.push_str(self.stage.prefix());
        for number in [self.major, self.minor] {
            name.push('_');
            if number >= 10 {
                name.push(char::from(b'0' + number / 10 % 10));
            }
            name.push(char::from(b'0' + number % 10));
        }
        name
    }
}

impl std::fmt::Display for ShaderModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// The range id the IR gives an SM5.0 constant-buffer, texture or sampler operand whose
/// register is chosen at run time, as fxc writes it for class linkage
/// (`cb[r1.y + 0][r1.x + 0]`, `t[r0.x + 0]`, `s[r0.y + 0]`): not a declared range. The operand
/// is `(DYNAMIC_RANGE, register index[, element])`, the register index holding the relative
/// address. A constant-buffer register is one of D3D11's slots `0..D3D11_CB_SLOTS` of space 0
/// (a register outside them reads 0); a texture or sampler register is one of the declared
/// registers ([`crate::lowering::dynamic_resources`]).
pub const DYNAMIC_RANGE: u32 = u32::MAX;

/// The constant-buffer slots of a D3D11 shader stage (D3D11's
/// `D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT`).
pub const D3D11_CB_SLOTS: u32 = 14;

/// Whether an operand is the SM5.0 dynamically indexed constant-buffer register
/// ([`DYNAMIC_RANGE`]).
pub fn is_dynamic_cb(model: ShaderModel, operand: &Operand) -> bool {
    operand.kind == RegisterKind::ConstantBuffer && is_dynamic_register(model, operand)
}

/// Whether an operand is an SM5.0 constant-buffer, texture or sampler register chosen at run
/// time ([`DYNAMIC_RANGE`]).
pub fn is_dynamic_register(model: ShaderModel, operand: &Operand) -> bool {
    matches!(
        operand.kind,
        RegisterKind::ConstantBuffer | RegisterKind::Resource | RegisterKind::Sampler
    ) && !model.has_resource_ranges()
        && operand.indices[0].as_imm32() == Some(DYNAMIC_RANGE)
}

/// Rewrites an SM4.0–5.0 resource operand of an instruction into SM5.1 form, as the decoder
/// and the assembler read it: `t3` → `t3[3]`, `cb1[4]` → `cb1[1][4]`, and in SM5.0 a
/// constant-buffer register chosen at run time, `cb[r1.y + 0][r1.x + 0]`, →
/// `cb[DYNAMIC_RANGE][r1.y + 0][r1.x + 0]`, and a texture or sampler register, `t[r0.x + 0]`,
/// → `t[DYNAMIC_RANGE][r0.x + 0]` (see [`DYNAMIC_RANGE`]).
///
/// Other registers chosen at run time are invalid: before SM5.0 and for UAVs the bytecode
/// has no such operand.
pub fn normalise_resource_operand(
    model: ShaderModel,
    operand: &mut Operand,
) -> std::result::Result<(), (crate::error::ErrorKind, String)> {
    use crate::error::ErrorKind;
    if model.has_resource_ranges() || !operand.kind.is_resource_range() {
        return Ok(());
    }
    let expected = if operand.kind == RegisterKind::ConstantBuffer {
        2
    } else {
        1
    };
    if operand.index_count != expected {
        return Err((
            ErrorKind::Invalid,
            format!(
                "a {} operand takes {expected} index(es) in shader model {model}, found {}",
                operand.kind.name(),
                operand.index_count
            ),
        ));
    }
    let register = operand.indices[0];
    let wide = matches!(register, Index::Imm64(_) | Index::Imm64PlusRelative(..));
    let id = match (register.as_imm32(), operand.kind) {
        (Some(register), _) => register,
        (
            None,
            RegisterKind::ConstantBuffer | RegisterKind::Resource | RegisterKind::Sampler,
        ) if model.is_sm5() && !wide => DYNAMIC_RANGE,
        (None, _) => {
            return Err((
                ErrorKind::Invalid,
                format!(
                    "a {} register indexed at run time or by a 64-bit number, which shader model {model} does not allow (only SM5.0 constant buffers, textures and samplers take a relative register)",
                    operand.kind.name()
                ),
            ))
        }
    };
    operand.indices = [Index::Imm32(id), register, operand.indices[1]];
    operand.index_count += 1;
    Ok(())
}

/// A decoded program.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// Stage and version.
    pub model: ShaderModel,
    /// Instructions and declarations in program order.
    pub instructions: Vec<Instruction>,
    /// The operand arena: every instruction's operands, and relative-address operands.
    pub operands: Vec<Operand>,
    /// The data arena: immediate constant buffers, custom data, function and interface tables.
    pub data: Vec<u32>,
}

impl Program {
    /// Index of the first `label` instruction, where the subroutines and function bodies
    /// begin (after the main program, or after a hull shader's last phase); the program's
    /// length when it has none.
    pub fn subroutines_start(&self) -> usize {
        self.instructions
            .iter()
            .position(|i| i.opcode == Opcode::Label)
            .unwrap_or(self.instructions.len())
    }

    /// An empty program of the given model.
    pub fn new(model: ShaderModel) -> Self {
        Program {
            model,
            instructions: Vec::new(),
            operands: Vec::new(),
            data: Vec::new(),
        }
    }

    /// The operand with this id.
    ///
    /// Ids come from this program's instructions and indices, so a miss means the program
    /// was assembled by hand wrongly; [`validate`] reports that case as an error, and this
    /// accessor returns a null operand instead of panicking.
    pub fn operand(&self, id: OperandId) -> &Operand {
        self.operands.get(id.0 as usize).unwrap_or(&Operand::NULL)
    }

    /// The operands of an instruction, destinations first.
    pub fn operands_of(&self, instruction: &Instruction) -> &[Operand] {
        let start = instruction.operands.start as usize;
        let end = start + instruction.operands.len as usize;
        self.operands.get(start..end).unwrap_or(&[])
    }

    /// The destination operands of an instruction.
    pub fn dsts(&self, instruction: &Instruction) -> &[Operand] {
        let all = self.operands_of(instruction);
        &all[..(instruction.dst_count as usize).min(all.len())]
    }

    /// The source operands of an instruction.
    pub fn srcs(&self, instruction: &Instruction) -> &[Operand] {
        let all = self.operands_of(instruction);
        &all[(instruction.dst_count as usize).min(all.len())..]
    }

    /// A slice of the data arena.
    pub fn data_slice(&self, range: DataRange) -> &[u32] {
        let start = range.start as usize;
        self.data
            .get(start..start + range.len as usize)
            .unwrap_or(&[])
    }
}

/// A range of [`Program::operands`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OperandRange {
    /// First operand.
    pub start: u32,
    /// Number of operands.
    pub len: u32,
}

/// A range of [`Program::data`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DataRange {
    /// First dword.
    pub start: u32,
    /// Number of dwords.
    pub len: u32,
}

/// The zero/non-zero test of conditional instructions (`if_z`, `breakc_nz`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// Taken when the value is zero (`_z`).
    Zero,
    /// Taken when the value is non-zero (`_nz`).
    NonZero,
}

/// The return type of `resinfo` (`_uint`, `_rcpFloat`) and of `sampleinfo`/`samplepos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoReturnType {
    /// Floats (no suffix).
    Float,
    /// Reciprocal floats, `resinfo` only (`_rcpFloat`).
    RcpFloat,
    /// Unsigned integers (`_uint`).
    Uint,
}

/// The flags of `sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SyncFlags {
    /// Wait for all threads of the group (`_t`).
    pub threads_in_group: bool,
    /// Group-shared memory barrier (`_g`).
    pub group_shared_memory: bool,
    /// UAV memory barrier within the group (`_ugroup`).
    pub uav_group: bool,
    /// UAV memory barrier across the device (`_uglobal`).
    pub uav_global: bool,
}

/// What the extended opcode tokens of an instruction said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtendedOpcode {
    /// Immediate texel offsets `_aoffimmi(u,v,w)`, when a sample-controls token is present.
    pub offsets: Option<[i8; 3]>,
    /// The resource dimension and structure stride `_indexable(dim[, stride=N])`, when a
    /// resource-dimension token is present.
    pub resource: Option<(ResourceDimension, u32)>,
    /// The return types `(float,float,float,float)`, when a return-type token is present.
    pub return_type: Option<[ReturnType; 4]>,
}

/// One instruction or declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// The opcode.
    pub opcode: Opcode,
    /// Dword offset of the opcode token from the start of the program (version token = 0).
    pub dword: u32,
    /// Length in dwords, including the opcode token.
    pub length: u32,
    /// The instruction's operands in [`Program::operands`], destinations first.
    pub operands: OperandRange,
    /// How many of the operands are destinations.
    pub dst_count: u8,
    /// `_sat`: clamp results to [0, 1].
    pub saturate: bool,
    /// The zero/non-zero test of conditional instructions.
    pub test: Option<Test>,
    /// Components whose results are `precise` (bit 0 = x).
    pub precise_mask: u8,
    /// Return type of `resinfo`, `sampleinfo` and `samplepos`.
    pub info_return_type: Option<InfoReturnType>,
    /// Flags of `sync`.
    pub sync: SyncFlags,
    /// Extended opcode tokens.
    pub extended: ExtendedOpcode,
    /// The extra dword operand of `fcall` (function index within the table).
    pub call_index: Option<u32>,
    /// The declaration this instruction makes, if it is one.
    pub declaration: Option<Declaration>,
    /// Control bits (11–23) of the opcode token that the format leaves unused for this
    /// opcode but the program set; kept so that the program re-encodes to the same tokens.
    pub unused_control: u32,
    /// Dwords that the instruction's length counts past its last operand, up to the last
    /// one that is not zero (fxc once wrote a `sample_d_cl_s` one dword longer than its
    /// operands, `0x00002000`; vkd3d-shader and DXVK ignore such dwords). They are kept in
    /// [`Program::data`] so that the program re-encodes to the same tokens; zero dwords
    /// after them are kept by [`Instruction::length`] alone.
    pub trailing: DataRange,
}

impl Instruction {
    /// A plain instruction with no modifiers, declaration or operands.
    pub fn new(opcode: Opcode) -> Self {
        Instruction {
            opcode,
            dword: 0,
            length: 0,
            operands: OperandRange::default(),
            dst_count: 0,
            saturate: false,
            test: None,
            precise_mask: 0,
            info_return_type: None,
            sync: SyncFlags::default(),
            extended: ExtendedOpcode::default(),
            call_index: None,
            declaration: None,
            unused_control: 0,
            trailing: DataRange { start: 0, len: 0 },
        }
    }
}

#[cfg(test)]
mod stage_rules_tests;
#[cfg(test)]
mod validate_tests;

#[cfg(test)]
mod model_name_tests {
    use super::*;

    #[test]
    fn model_names_are_prefix_major_minor() {
        let name = |stage, major, minor| {
            ShaderModel {
                stage,
                major,
                minor,
            }
            .name()
        };
        assert_eq!(name(Stage::Pixel, 5, 0), "ps_5_0");
        assert_eq!(name(Stage::Hull, 5, 1), "hs_5_1");
        assert_eq!(name(Stage::Compute, 4, 1), "cs_4_1");
        assert_eq!(name(Stage::Vertex, 15, 12), "vs_15_12");
        let model = ShaderModel {
            stage: Stage::Geometry,
            major: 4,
            minor: 0,
        };
        assert_eq!(model.to_string(), model.name());
    }
}
