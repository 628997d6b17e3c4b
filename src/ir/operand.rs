//! Operands: registers, immediates, their indices, component selection and modifiers.

/// A handle to an operand in [`super::Program::operands`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperandId(pub u32);

pub use crate::isa::ValueType;

/// The register file (operand type) of an operand. Values are the format's operand-type codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RegisterKind {
    /// `r#`
    Temp = 0,
    /// `v#`
    Input = 1,
    /// `o#`
    Output = 2,
    /// `x#[n]`
    IndexableTemp = 3,
    /// `l(…)`
    Immediate32 = 4,
    /// `d(…)`
    Immediate64 = 5,
    /// `s#`
    Sampler = 6,
    /// `t#`
    Resource = 7,
    /// `cb#[n]`
    ConstantBuffer = 8,
    /// `icb[n]`
    ImmediateConstantBuffer = 9,
    /// `l#` (subroutine label; `l(…)` is an immediate)
    Label = 10,
    /// `vPrim`
    InputPrimitiveId = 11,
    /// `oDepth`
    OutputDepth = 12,
    /// `null`
    Null = 13,
    /// `rasterizer`
    Rasterizer = 14,
    /// `oMask`
    OutputCoverageMask = 15,
    /// `m#`
    Stream = 16,
    /// `fb#`
    FunctionBody = 17,
    /// `ft#`
    FunctionTable = 18,
    /// `fp#`
    Interface = 19,
    /// `fi#`
    FunctionInput = 20,
    /// `fo#`
    FunctionOutput = 21,
    /// `vOutputControlPointID`
    OutputControlPointId = 22,
    /// `vForkInstanceID`
    InputForkInstanceId = 23,
    /// `vJoinInstanceID`
    InputJoinInstanceId = 24,
    /// `vicp`
    InputControlPoint = 25,
    /// `vocp`
    OutputControlPoint = 26,
    /// `vpc`
    InputPatchConstant = 27,
    /// `vDomain`
    InputDomainPoint = 28,
    /// `this`
    ThisPointer = 29,
    /// `u#`
    UnorderedAccessView = 30,
    /// `g#`
    ThreadGroupSharedMemory = 31,
    /// `vThreadID`
    InputThreadId = 32,
    /// `vThreadGroupID`
    InputThreadGroupId = 33,
    /// `vThreadIDInGroup`
    InputThreadIdInGroup = 34,
    /// `vCoverage`
    InputCoverageMask = 35,
    /// `vThreadIDInGroupFlattened`
    InputThreadIdInGroupFlattened = 36,
    /// `vGSInstanceID`
    InputGsInstanceId = 37,
    /// `oDepthGE`
    OutputDepthGreaterEqual = 38,
    /// `oDepthLE`
    OutputDepthLessEqual = 39,
    /// `vCycleCounter`
    CycleCounter = 40,
    /// `oStencilRef`
    OutputStencilRef = 41,
    /// `vInnerCoverage`
    InnerCoverage = 42,
}

impl RegisterKind {
    /// All register kinds in code order.
    pub const ALL: [RegisterKind; 43] = {
        use RegisterKind::*;
        [
            Temp,
            Input,
            Output,
            IndexableTemp,
            Immediate32,
            Immediate64,
            Sampler,
            Resource,
            ConstantBuffer,
            ImmediateConstantBuffer,
            Label,
            InputPrimitiveId,
            OutputDepth,
            Null,
            Rasterizer,
            OutputCoverageMask,
            Stream,
            FunctionBody,
            FunctionTable,
            Interface,
            FunctionInput,
            FunctionOutput,
            OutputControlPointId,
            InputForkInstanceId,
            InputJoinInstanceId,
            InputControlPoint,
            OutputControlPoint,
            InputPatchConstant,
            InputDomainPoint,
            ThisPointer,
            UnorderedAccessView,
            ThreadGroupSharedMemory,
            InputThreadId,
            InputThreadGroupId,
            InputThreadIdInGroup,
            InputCoverageMask,
            InputThreadIdInGroupFlattened,
            InputGsInstanceId,
            OutputDepthGreaterEqual,
            OutputDepthLessEqual,
            CycleCounter,
            OutputStencilRef,
            InnerCoverage,
        ]
    };

    /// The kind for an operand-type code.
    pub fn from_code(code: u32) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }

    /// The name used in assembly text (`r`, `cb`, `vThreadID`, …).
    pub fn name(self) -> &'static str {
        use RegisterKind::*;
        match self {
            Temp => "r",
            Input => "v",
            Output => "o",
            IndexableTemp => "x",
            Immediate32 => "l",
            Immediate64 => "d",
            Sampler => "s",
            Resource => "t",
            ConstantBuffer => "cb",
            ImmediateConstantBuffer => "icb",
            Label => "l",
            InputPrimitiveId => "vPrim",
            OutputDepth => "oDepth",
            Null => "null",
            Rasterizer => "rasterizer",
            OutputCoverageMask => "oMask",
            Stream => "m",
            FunctionBody => "fb",
            FunctionTable => "ft",
            Interface => "fp",
            FunctionInput => "fi",
            FunctionOutput => "fo",
            OutputControlPointId => "vOutputControlPointID",
            InputForkInstanceId => "vForkInstanceID",
            InputJoinInstanceId => "vJoinInstanceID",
            InputControlPoint => "vicp",
            OutputControlPoint => "vocp",
            InputPatchConstant => "vpc",
            InputDomainPoint => "vDomain",
            ThisPointer => "this",
            UnorderedAccessView => "u",
            ThreadGroupSharedMemory => "g",
            InputThreadId => "vThreadID",
            InputThreadGroupId => "vThreadGroupID",
            InputThreadIdInGroup => "vThreadIDInGroup",
            InputCoverageMask => "vCoverage",
            InputThreadIdInGroupFlattened => "vThreadIDInGroupFlattened",
            InputGsInstanceId => "vGSInstanceID",
            OutputDepthGreaterEqual => "oDepthGE",
            OutputDepthLessEqual => "oDepthLE",
            CycleCounter => "vCycleCounter",
            OutputStencilRef => "oStencilRef",
            InnerCoverage => "vInnerCoverage",
        }
    }

    /// The upper-case name fxc 10.1 gives the resource classes where it writes them so
    /// (`CB`, `T`, `S`, `U`; see [`RegisterKind::upper_case_in`]); `None` for other kinds.
    pub fn upper_name(self) -> Option<&'static str> {
        match self {
            RegisterKind::ConstantBuffer => Some("CB"),
            RegisterKind::Resource => Some("T"),
            RegisterKind::Sampler => Some("S"),
            RegisterKind::UnorderedAccessView => Some("U"),
            _ => None,
        }
    }

    /// Whether fxc 10.1 writes this kind's name in upper case: every resource class in a
    /// shader model 5.1 program (`T0[3]`, `dcl_sampler S0[0:0]`), and the constant buffer in
    /// its declaration in every model (`dcl_constantbuffer CB0[4]`, but `cb0[1].x` in an
    /// instruction before 5.1). fxc 6.3 writes them all in lower case; the assembler reads
    /// both.
    pub fn upper_case_in(self, model: super::ShaderModel, declared: bool) -> bool {
        self.upper_name().is_some()
            && (model.has_resource_ranges() || (declared && self == RegisterKind::ConstantBuffer))
    }

    /// The name vkd3d-compiler's `d3d-asm` text gives this kind where it differs from fxc's.
    pub fn vkd3d_name(self) -> Option<&'static str> {
        match self {
            RegisterKind::InputDomainPoint => Some("vDomainLocation"),
            RegisterKind::InputForkInstanceId => Some("vForkInstanceId"),
            RegisterKind::InputJoinInstanceId => Some("vJoinInstanceId"),
            RegisterKind::InputPrimitiveId => Some("primID"),
            _ => None,
        }
    }

    /// True when `text` names this kind: fxc's name, the upper-case name of a resource
    /// class, or vkd3d-compiler's name.
    pub fn is_named(self, text: &str) -> bool {
        self.name() == text || self.upper_name() == Some(text) || self.vkd3d_name() == Some(text)
    }

    /// The name fxc 10.1 writes for this kind in `model` (see [`RegisterKind::upper_case_in`]).
    pub fn name_in(self, model: super::ShaderModel, declared: bool) -> &'static str {
        match self.upper_name() {
            Some(upper) if self.upper_case_in(model, declared) => upper,
            _ => self.name(),
        }
    }

    /// True for the resource classes whose operands are held as (range id, register index):
    /// samplers, shader resources, UAVs and constant buffers.
    pub fn is_resource_range(self) -> bool {
        matches!(
            self,
            RegisterKind::Sampler
                | RegisterKind::Resource
                | RegisterKind::UnorderedAccessView
                | RegisterKind::ConstantBuffer
        )
    }
}

/// The component count of an operand as encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComponentCount {
    /// No components (resources, samplers, labels, `null` in some places).
    Zero,
    /// One component (`vPrim`, `oDepth`, scalar immediates).
    One,
    /// Four components with a mask, swizzle or single-component selection.
    Four,
    /// N components (reserved by the format, never emitted by compilers); the value is kept.
    N(u8),
}

/// How a four-component operand selects its components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Selection {
    /// A write mask (bit 0 = x): `.xy`.
    Mask(u8),
    /// A swizzle (each entry 0–3): `.xyxx`.
    Swizzle([u8; 4]),
    /// One component (0–3): `.x`.
    Select1(u8),
}

impl Selection {
    /// The mask of the components read or written.
    pub fn mask(self) -> u8 {
        match self {
            Selection::Mask(m) => m,
            Selection::Swizzle(s) => s.iter().fold(0, |m, &c| m | (1 << (c & 3))),
            Selection::Select1(c) => 1 << (c & 3),
        }
    }

    /// The component read for destination component `i` (identity for masks).
    pub fn component(self, i: usize) -> u8 {
        match self {
            Selection::Mask(_) => (i & 3) as u8,
            Selection::Swizzle(s) => s[i & 3],
            Selection::Select1(c) => c,
        }
    }
}

/// A source modifier from the extended operand token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Modifier {
    /// No modifier.
    #[default]
    None,
    /// `-x`
    Neg,
    /// `|x|`
    Abs,
    /// `-|x|`
    AbsNeg,
}

/// A minimum-precision hint from the extended operand token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MinPrecision {
    /// Full 32-bit precision.
    #[default]
    Default,
    /// `min16float`
    Float16,
    /// `min10float` (2.8 fixed point)
    Float2_8,
    /// `min16int`
    Sint16,
    /// `min16uint`
    Uint16,
}

impl MinPrecision {
    /// The text form used in assembly (`min16f`, …), empty for the default.
    pub fn name(self) -> &'static str {
        match self {
            MinPrecision::Default => "",
            MinPrecision::Float16 => "min16f",
            MinPrecision::Float2_8 => "min2_8f",
            MinPrecision::Sint16 => "min16i",
            MinPrecision::Uint16 => "min16u",
        }
    }

    /// The name fxc 10.1 gives the precision in `{min16f as def32}`: [`MinPrecision::name`],
    /// and `def32` for the default.
    pub fn fxc_name(self) -> &'static str {
        match self {
            MinPrecision::Default => "def32",
            other => other.name(),
        }
    }

    /// The precision named `text` ([`MinPrecision::fxc_name`]).
    pub fn from_fxc_name(text: &str) -> Option<Self> {
        (0..8)
            .filter_map(MinPrecision::from_code)
            .find(|p| p.fxc_name() == text)
    }

    /// The precision for a format code.
    pub fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            0 => MinPrecision::Default,
            1 => MinPrecision::Float16,
            2 => MinPrecision::Float2_8,
            4 => MinPrecision::Sint16,
            5 => MinPrecision::Uint16,
            _ => return None,
        })
    }

    /// The format code.
    pub fn code(self) -> u32 {
        match self {
            MinPrecision::Default => 0,
            MinPrecision::Float16 => 1,
            MinPrecision::Float2_8 => 2,
            MinPrecision::Sint16 => 4,
            MinPrecision::Uint16 => 5,
        }
    }
}

/// One index of a register: an immediate, a relative address, or both added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Index {
    /// A 32-bit immediate.
    Imm32(u32),
    /// A 64-bit immediate.
    Imm64(u64),
    /// The value of another operand (a register with one selected component).
    Relative(OperandId),
    /// A 32-bit immediate plus the value of another operand: `[r0.x + 3]`.
    Imm32PlusRelative(u32, OperandId),
    /// A 64-bit immediate plus the value of another operand.
    Imm64PlusRelative(u64, OperandId),
}

impl Index {
    /// The immediate part (0 for a purely relative index).
    pub fn immediate(self) -> u64 {
        match self {
            Index::Imm32(v) | Index::Imm32PlusRelative(v, _) => v as u64,
            Index::Imm64(v) | Index::Imm64PlusRelative(v, _) => v,
            Index::Relative(_) => 0,
        }
    }

    /// The relative-address operand, if any.
    pub fn relative(self) -> Option<OperandId> {
        match self {
            Index::Relative(r)
            | Index::Imm32PlusRelative(_, r)
            | Index::Imm64PlusRelative(_, r) => Some(r),
            Index::Imm32(_) | Index::Imm64(_) => None,
        }
    }

    /// The value when the index is a plain immediate that fits 32 bits.
    pub fn as_imm32(self) -> Option<u32> {
        match self {
            Index::Imm32(v) => Some(v),
            Index::Imm64(v) => u32::try_from(v).ok(),
            _ => None,
        }
    }
}

/// One operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Operand {
    /// The register file.
    pub kind: RegisterKind,
    /// The encoded component count.
    pub components: ComponentCount,
    /// Component selection (meaningful for [`ComponentCount::Four`]).
    pub selection: Selection,
    /// The indices; only the first `index_count` are meaningful.
    pub indices: [Index; 3],
    /// Number of indices (0–3).
    pub index_count: u8,
    /// Source modifier.
    pub modifier: Modifier,
    /// Minimum-precision hint.
    pub min_precision: MinPrecision,
    /// SM5.1 non-uniform resource index.
    pub non_uniform: bool,
    /// Immediate values: four 32-bit values for `l(…)`, or two 64-bit values as
    /// (low, high) pairs for `d(…)`.
    pub values: [u32; 4],
    /// How the instruction reads or writes this operand.
    pub value_type: ValueType,
}

impl Operand {
    /// The `null` operand.
    pub const NULL: Operand = Operand {
        kind: RegisterKind::Null,
        components: ComponentCount::Zero,
        selection: Selection::Mask(0),
        indices: [Index::Imm32(0); 3],
        index_count: 0,
        modifier: Modifier::None,
        min_precision: MinPrecision::Default,
        non_uniform: false,
        values: [0; 4],
        value_type: ValueType::None,
    };

    /// A register operand with no indices yet.
    pub fn register(kind: RegisterKind, components: ComponentCount, selection: Selection) -> Self {
        Operand {
            kind,
            components,
            selection,
            ..Operand::NULL
        }
    }

    /// The meaningful indices.
    pub fn indices(&self) -> &[Index] {
        &self.indices[..(self.index_count as usize).min(3)]
    }

    /// The number of immediate values (`l(…)`: 1 or 4; `d(…)`: 1 or 2).
    pub fn immediate_count(&self) -> usize {
        match (self.kind, self.components) {
            (RegisterKind::Immediate32, ComponentCount::One) => 1,
            (RegisterKind::Immediate32, ComponentCount::Four) => 4,
            (RegisterKind::Immediate64, ComponentCount::One) => 1,
            (RegisterKind::Immediate64, ComponentCount::Four) => 2,
            _ => 0,
        }
    }

    /// The 64-bit immediate `i` of a `d(…)` operand.
    pub fn value64(&self, i: usize) -> u64 {
        let lo = self.values[(2 * i) & 3] as u64;
        let hi = self.values[(2 * i + 1) & 3] as u64;
        lo | (hi << 32)
    }

    /// The mask of components this operand reads or writes (1 for scalar operands).
    pub fn mask(&self) -> u8 {
        match self.components {
            ComponentCount::Zero => 0,
            ComponentCount::One => 1,
            ComponentCount::Four => self.selection.mask(),
            ComponentCount::N(_) => 0,
        }
    }
}
