//! SPIR-V text of the translator's modules (the command's `translate --text`), in rspirv's
//! disassembly format, so that the command carries no SPIR-V grammar tables: their pointers
//! would be relocated, and so written, at every start of the process.
//!
//! The printer knows the instructions the translator makes: an operand is an id unless
//! its table of operand layouts says otherwise, enumerants print as the `spirv` crate names them, constants as
//! numbers of their type, and `GLSL.std.450` instructions by name. An instruction or value it
//! does not know is an error naming its word offset, never a guess.

use std::collections::HashMap;
use std::fmt::Write as _;

use spirv::{Op, Word};

use crate::error::{Error, Location, Result};

/// What one operand word (or run of words) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Id,
    Literal,
    String,
    /// A literal whose printing depends on the result type (`OpConstant`).
    TypedLiteral,
    /// The instruction number of an `OpExtInst`.
    ExtInst,
    /// The operands of a decoration: by the decoration.
    DecorationParams,
    /// `OpSwitch`'s (literal, label) pairs.
    SwitchTargets,
    Capability,
    AddressingModel,
    MemoryModel,
    ExecutionModel,
    ExecutionMode,
    StorageClass,
    Decoration,
    Dim,
    ImageFormat,
    AccessQualifier,
    ImageOperands,
    SelectionControl,
    LoopControl,
    FunctionControl,
}

/// Whether an instruction has a result type and a result id.
fn results(op: Op) -> Option<(bool, bool)> {
    use Op::*;
    Some(match op {
        Nop
        | Capability
        | Extension
        | MemoryModel
        | EntryPoint
        | ExecutionMode
        | Name
        | MemberName
        | Decorate
        | MemberDecorate
        | Store
        | Branch
        | BranchConditional
        | Switch
        | Return
        | ReturnValue
        | Kill
        | Unreachable
        | TerminateInvocation
        | SelectionMerge
        | LoopMerge
        | FunctionEnd
        | ControlBarrier
        | MemoryBarrier
        | EmitVertex
        | EndPrimitive
        | EmitStreamVertex
        | EndStreamPrimitive
        | ImageWrite
        | BeginInvocationInterlockEXT
        | EndInvocationInterlockEXT
        | DemoteToHelperInvocation
        | TypeForwardPointer => (false, false),
        ExtInstImport | Label | TypeVoid | TypeBool | TypeInt | TypeFloat | TypeVector
        | TypeImage | TypeSampler | TypeSampledImage | TypeArray | TypeRuntimeArray
        | TypeStruct | TypePointer | TypeFunction => (false, true),
        Undef
        | Function
        | FunctionParameter
        | FunctionCall
        | Variable
        | Load
        | AccessChain
        | InBoundsAccessChain
        | ArrayLength
        | ImageTexelPointer
        | Constant
        | ConstantTrue
        | ConstantFalse
        | ConstantComposite
        | ConstantNull
        | SpecConstant
        | CopyObject
        | CompositeConstruct
        | CompositeExtract
        | CompositeInsert
        | VectorShuffle
        | Bitcast
        | ExtInst
        | Phi
        | Select
        | ReadClockKHR
        | SampledImage
        | ConvertFToU
        | ConvertFToS
        | ConvertSToF
        | ConvertUToF
        | UConvert
        | SConvert
        | FConvert
        | SNegate
        | FNegate
        | IAdd
        | FAdd
        | ISub
        | FSub
        | IMul
        | FMul
        | UDiv
        | SDiv
        | FDiv
        | UMod
        | SRem
        | SMod
        | FRem
        | FMod
        | Dot
        | IAddCarry
        | ISubBorrow
        | UMulExtended
        | SMulExtended
        | ShiftRightLogical
        | ShiftRightArithmetic
        | ShiftLeftLogical
        | BitwiseOr
        | BitwiseXor
        | BitwiseAnd
        | Not
        | BitFieldInsert
        | BitFieldSExtract
        | BitFieldUExtract
        | BitReverse
        | BitCount
        | Any
        | All
        | IsNan
        | IsInf
        | LogicalEqual
        | LogicalNotEqual
        | LogicalOr
        | LogicalAnd
        | LogicalNot
        | IEqual
        | INotEqual
        | UGreaterThan
        | SGreaterThan
        | UGreaterThanEqual
        | SGreaterThanEqual
        | ULessThan
        | SLessThan
        | ULessThanEqual
        | SLessThanEqual
        | FOrdEqual
        | FUnordEqual
        | FOrdNotEqual
        | FUnordNotEqual
        | FOrdLessThan
        | FUnordLessThan
        | FOrdGreaterThan
        | FUnordGreaterThan
        | FOrdLessThanEqual
        | FUnordLessThanEqual
        | FOrdGreaterThanEqual
        | FUnordGreaterThanEqual
        | DPdx
        | DPdy
        | Fwidth
        | DPdxFine
        | DPdyFine
        | FwidthFine
        | DPdxCoarse
        | DPdyCoarse
        | FwidthCoarse
        | ImageSampleImplicitLod
        | ImageSampleExplicitLod
        | ImageSampleDrefImplicitLod
        | ImageSampleDrefExplicitLod
        | ImageFetch
        | ImageGather
        | ImageDrefGather
        | ImageRead
        | Image
        | ImageQuerySizeLod
        | ImageQuerySize
        | ImageQueryLod
        | ImageQueryLevels
        | ImageQuerySamples
        | ImageSparseSampleImplicitLod
        | ImageSparseSampleExplicitLod
        | ImageSparseSampleDrefImplicitLod
        | ImageSparseSampleDrefExplicitLod
        | ImageSparseFetch
        | ImageSparseGather
        | ImageSparseDrefGather
        | ImageSparseRead
        | ImageSparseTexelsResident
        | AtomicLoad
        | AtomicExchange
        | AtomicCompareExchange
        | AtomicIIncrement
        | AtomicIDecrement
        | AtomicIAdd
        | AtomicISub
        | AtomicSMin
        | AtomicUMin
        | AtomicSMax
        | AtomicUMax
        | AtomicAnd
        | AtomicOr
        | AtomicXor
        | IsHelperInvocationEXT
        | VectorTimesScalar => (true, true),
        _ => return None,
    })
}

/// The kinds of an instruction's operands after its result type and id: a fixed prefix,
/// then the kind of every further operand.
fn layout(op: Op) -> (&'static [Kind], Kind) {
    use Kind as K;
    match op {
        Op::Capability => (&[K::Capability], K::Id),
        Op::Extension | Op::ExtInstImport => (&[K::String], K::Id),
        Op::MemoryModel => (&[K::AddressingModel, K::MemoryModel], K::Id),
        Op::EntryPoint => (&[K::ExecutionModel, K::Id, K::String], K::Id),
        Op::ExecutionMode => (&[K::Id, K::ExecutionMode], K::Literal),
        Op::Name => (&[K::Id, K::String], K::Id),
        Op::MemberName => (&[K::Id, K::Literal, K::String], K::Id),
        Op::Decorate => (&[K::Id, K::Decoration, K::DecorationParams], K::Id),
        Op::MemberDecorate => (
            &[K::Id, K::Literal, K::Decoration, K::DecorationParams],
            K::Id,
        ),
        Op::TypeInt | Op::TypeFloat => (&[], K::Literal),
        Op::TypeVector => (&[K::Id], K::Literal),
        Op::TypeImage => (
            &[
                K::Id,
                K::Dim,
                K::Literal,
                K::Literal,
                K::Literal,
                K::Literal,
                K::ImageFormat,
                K::AccessQualifier,
            ],
            K::Id,
        ),
        Op::TypePointer => (&[K::StorageClass], K::Id),
        Op::TypeForwardPointer => (&[K::Id, K::StorageClass], K::Id),
        Op::Constant => (&[K::TypedLiteral], K::Id),
        Op::SpecConstant => (&[], K::Literal),
        Op::Variable => (&[K::StorageClass], K::Id),
        Op::Function => (&[K::FunctionControl], K::Id),
        Op::CompositeExtract => (&[K::Id], K::Literal),
        Op::CompositeInsert | Op::VectorShuffle => (&[K::Id, K::Id], K::Literal),
        Op::ArrayLength => (&[K::Id], K::Literal),
        Op::ExtInst => (&[K::Id, K::ExtInst], K::Id),
        Op::SelectionMerge => (&[K::Id, K::SelectionControl], K::Id),
        Op::LoopMerge => (&[K::Id, K::Id, K::LoopControl], K::Literal),
        Op::Switch => (&[K::Id, K::Id], K::SwitchTargets),
        Op::ImageSampleImplicitLod
        | Op::ImageSampleExplicitLod
        | Op::ImageSparseSampleImplicitLod
        | Op::ImageSparseSampleExplicitLod
        | Op::ImageFetch
        | Op::ImageSparseFetch
        | Op::ImageRead
        | Op::ImageSparseRead => (&[K::Id, K::Id, K::ImageOperands], K::Id),
        Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleDrefExplicitLod
        | Op::ImageSparseSampleDrefImplicitLod
        | Op::ImageSparseSampleDrefExplicitLod
        | Op::ImageGather
        | Op::ImageSparseGather
        | Op::ImageDrefGather
        | Op::ImageSparseDrefGather
        | Op::ImageWrite => (&[K::Id, K::Id, K::Id, K::ImageOperands], K::Id),
        _ => (&[], K::Id),
    }
}

/// The module's disassembly.
pub fn disassemble(words: &[u32]) -> Result<String> {
    let [magic, version, generator, bound, _schema, ..] = *words else {
        return Err(text_error(0, "shorter than a module header"));
    };
    if magic != spirv::MAGIC_NUMBER {
        return Err(text_error(0, "no SPIR-V magic number"));
    }
    let mut p = Printer::default();
    let _ = write!(
        p.out,
        "; SPIR-V\n; Version: {}.{}\n; Generator: {}\n; Bound: {}",
        (version >> 16) & 0xff,
        (version >> 8) & 0xff,
        generator_name(generator >> 16),
        bound
    );
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(text_error(at, "instruction word count out of range"));
        }
        p.out.push('\n');
        p.instruction(at, &words[at..at + count])?;
        at += count;
    }
    Ok(p.out)
}

/// The name rspirv gives a generator's tool id.
fn generator_name(tool: u32) -> &'static str {
    match tool {
        15 => "rspirv",
        _ => "Unknown",
    }
}

/// An error at word `at` of the module.
#[cold]
fn text_error(at: usize, message: impl std::fmt::Display) -> Error {
    Error::new(
        Location::None,
        format!("printing SPIR-V, word {at}: {message}"),
    )
}

/// A scalar type, for printing constants.
#[derive(Debug, Clone, Copy)]
enum Number {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

/// The printer's state: the text and what earlier instructions declared.
#[derive(Default)]
struct Printer {
    out: String,
    numbers: HashMap<Word, Number>,
    /// The ids of `GLSL.std.450` imports.
    glsl: Vec<Word>,
}

impl Printer {
    fn instruction(&mut self, at: usize, inst: &[u32]) -> Result<()> {
        let op = Op::from_u32(inst[0] & 0xffff)
            .ok_or_else(|| text_error(at, format!("unknown opcode {}", inst[0] & 0xffff)))?;
        let (has_type, has_id) = results(op)
            .ok_or_else(|| text_error(at, format!("the printer does not know Op{op:?}")))?;
        let mut rest = &inst[1..];
        let mut take = |present: bool| -> Result<Option<Word>> {
            if !present {
                return Ok(None);
            }
            let (&first, tail) = rest
                .split_first()
                .ok_or_else(|| text_error(at, "missing result"))?;
            rest = tail;
            Ok(Some(first))
        };
        let result_type = take(has_type)?;
        let result_id = take(has_id)?;
        self.track(op, result_id, rest);
        let operands = self.operands(at, op, result_type, rest)?;
        // rspirv's spacing: two spaces around the result type, and a space before the
        // operands when there are any (always for constants and extended instructions).
        let space = if !operands.is_empty() || matches!(op, Op::Constant | Op::ExtInst) {
            " "
        } else {
            ""
        };
        if let Some(id) = result_id {
            let _ = write!(self.out, "%{id} = ");
        }
        let _ = write!(self.out, "Op{op:?}");
        if let Some(ty) = result_type {
            let _ = write!(self.out, "  %{ty}{space}");
        }
        self.out.push_str(space);
        self.out.push_str(&operands.join(" "));
        Ok(())
    }

    /// Notes the numeric types and `GLSL.std.450` imports later instructions refer to.
    fn track(&mut self, op: Op, result_id: Option<Word>, operands: &[u32]) {
        let Some(id) = result_id else { return };
        match (op, operands) {
            (Op::TypeInt, &[width, signed]) => {
                self.numbers.insert(
                    id,
                    Number::Int {
                        width,
                        signed: signed == 1,
                    },
                );
            }
            (Op::TypeFloat, &[width, ..]) => {
                self.numbers.insert(id, Number::Float { width });
            }
            (Op::ExtInstImport, _)
                if read_string(operands).is_some_and(|(name, _)| name == "GLSL.std.450") =>
            {
                self.glsl.push(id);
            }
            _ => {}
        }
    }

    /// Each operand's text.
    fn operands(
        &self,
        at: usize,
        op: Op,
        result_type: Option<Word>,
        mut words: &[u32],
    ) -> Result<Vec<String>> {
        let (prefix, rest) = layout(op);
        let mut out = Vec::with_capacity(words.len());
        let mut kinds = prefix.iter().copied();
        let mut decoration = None;
        let mut ext_set = None;
        while !words.is_empty() {
            let kind = kinds.next().unwrap_or(rest);
            let w = words[0];
            let mut used = 1;
            let bad = |what: &str| text_error(at, format!("Op{op:?}: {what} {w}"));
            let text = match kind {
                Kind::Id => format!("%{w}"),
                Kind::Literal => w.to_string(),
                Kind::String => {
                    let (text, count) =
                        read_string(words).ok_or_else(|| bad("unterminated string at"))?;
                    used = count;
                    format!("{text:?}")
                }
                Kind::TypedLiteral => {
                    let number = result_type
                        .and_then(|t| self.numbers.get(&t).copied())
                        .ok_or_else(|| bad("constant of a type that is not a number, word"))?;
                    let (text, count) =
                        typed_literal(number, words).ok_or_else(|| bad("short constant"))?;
                    used = count;
                    text
                }
                Kind::ExtInst => {
                    let glsl = ext_set.is_some_and(|set| self.glsl.contains(&set));
                    match spirv::GlslStd450Op::from_u32(w).filter(|_| glsl) {
                        Some(name) => format!("{name:?}"),
                        None => w.to_string(),
                    }
                }
                Kind::DecorationParams => {
                    // The decoration's operands: a built-in names its value; the others
                    // the translator uses take literals.
                    match decoration {
                        Some(spirv::Decoration::BuiltIn) => enumerant(spirv::BuiltIn::from_u32(w))
                            .ok_or_else(|| bad("unknown built-in"))?,
                        _ => w.to_string(),
                    }
                }
                Kind::SwitchTargets => {
                    let &[value, label, ..] = words else {
                        return Err(bad("switch target without a label after"));
                    };
                    used = 2;
                    format!("{value} %{label}")
                }
                Kind::Capability => enumerant(spirv::Capability::from_u32(w))
                    .ok_or_else(|| bad("unknown capability"))?,
                Kind::AddressingModel => enumerant(spirv::AddressingModel::from_u32(w))
                    .ok_or_else(|| bad("unknown addressing model"))?,
                Kind::MemoryModel => enumerant(spirv::MemoryModel::from_u32(w))
                    .ok_or_else(|| bad("unknown memory model"))?,
                Kind::ExecutionModel => enumerant(spirv::ExecutionModel::from_u32(w))
                    .ok_or_else(|| bad("unknown execution model"))?,
                Kind::ExecutionMode => enumerant(spirv::ExecutionMode::from_u32(w))
                    .ok_or_else(|| bad("unknown execution mode"))?,
                Kind::StorageClass => enumerant(spirv::StorageClass::from_u32(w))
                    .ok_or_else(|| bad("unknown storage class"))?,
                Kind::Decoration => {
                    decoration = spirv::Decoration::from_u32(w);
                    enumerant(decoration).ok_or_else(|| bad("unknown decoration"))?
                }
                Kind::Dim => {
                    // rspirv drops the `Dim` of the enumerant's name (`2D`, `Cube`, `Buffer`).
                    let name = enumerant(spirv::Dim::from_u32(w))
                        .ok_or_else(|| bad("unknown dimension"))?;
                    name.get(3..).unwrap_or_default().to_string()
                }
                Kind::ImageFormat => enumerant(spirv::ImageFormat::from_u32(w))
                    .ok_or_else(|| bad("unknown image format"))?,
                Kind::AccessQualifier => enumerant(spirv::AccessQualifier::from_u32(w))
                    .ok_or_else(|| bad("unknown access qualifier"))?,
                Kind::ImageOperands => flags(w, IMAGE_OPERANDS, image_operand)
                    .ok_or_else(|| bad("unknown image operands"))?,
                Kind::SelectionControl => flags(w, SELECTION_CONTROL, selection_control)
                    .ok_or_else(|| bad("unknown selection control"))?,
                Kind::LoopControl => flags(w, LOOP_CONTROL, loop_control)
                    .ok_or_else(|| bad("unknown loop control"))?,
                Kind::FunctionControl => flags(w, FUNCTION_CONTROL, function_control)
                    .ok_or_else(|| bad("unknown function control"))?,
            };
            if op == Op::ExtInst && out.is_empty() {
                ext_set = Some(w);
            }
            out.push(text);
            words = &words[used.min(words.len())..];
        }
        Ok(out)
    }
}

/// An enumerant's name, as the `spirv` crate (and so rspirv) spells it.
fn enumerant<T: std::fmt::Debug>(value: Option<T>) -> Option<String> {
    value.map(|v| format!("{v:?}"))
}

/// A flag word's names (`A|B`, or `None` for no flag), in the order of `bits`; `None` when
/// a set bit has no name.
fn flags(word: u32, bits: &[u32], name: fn(u32) -> &'static str) -> Option<String> {
    if word == 0 {
        return Some("None".to_string());
    }
    let named = bits.iter().fold(0, |all, bit| all | bit);
    if word & !named != 0 {
        return None;
    }
    let parts: Vec<&str> = bits
        .iter()
        .filter(|&&bit| word & bit != 0)
        .map(|&bit| name(bit))
        .collect();
    Some(parts.join("|"))
}

/// Image operand bits, in the grammar's order (names in [`image_operand`]).
const IMAGE_OPERANDS: &[u32] = &[
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000,
    0x10000,
];

/// The grammar's name of an image operand bit (a `match`, not a table of pointers: see the
/// module documentation).
fn image_operand(bit: u32) -> &'static str {
    match bit {
        0x1 => "Bias",
        0x2 => "Lod",
        0x4 => "Grad",
        0x8 => "ConstOffset",
        0x10 => "Offset",
        0x20 => "ConstOffsets",
        0x40 => "Sample",
        0x80 => "MinLod",
        0x100 => "MakeTexelAvailable",
        0x200 => "MakeTexelVisible",
        0x400 => "NonPrivateTexel",
        0x800 => "VolatileTexel",
        0x1000 => "SignExtend",
        0x2000 => "ZeroExtend",
        0x4000 => "Nontemporal",
        _ => "Offsets",
    }
}

/// Selection-control bits.
const SELECTION_CONTROL: &[u32] = &[0x1, 0x2];

/// The grammar's name of a selection-control bit.
fn selection_control(bit: u32) -> &'static str {
    match bit {
        0x1 => "Flatten",
        _ => "DontFlatten",
    }
}

/// Loop-control bits.
const LOOP_CONTROL: &[u32] = &[0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100];

/// The grammar's name of a loop-control bit.
fn loop_control(bit: u32) -> &'static str {
    match bit {
        0x1 => "Unroll",
        0x2 => "DontUnroll",
        0x4 => "DependencyInfinite",
        0x8 => "DependencyLength",
        0x10 => "MinIterations",
        0x20 => "MaxIterations",
        0x40 => "IterationMultiple",
        0x80 => "PeelCount",
        _ => "PartialCount",
    }
}

/// Function-control bits.
const FUNCTION_CONTROL: &[u32] = &[0x1, 0x2, 0x4, 0x8, 0x10000];

/// The grammar's name of a function-control bit.
fn function_control(bit: u32) -> &'static str {
    match bit {
        0x1 => "Inline",
        0x2 => "DontInline",
        0x4 => "Pure",
        0x8 => "Const",
        _ => "OptNoneEXT",
    }
}

/// A constant's value as text (by its type, as rspirv prints it) and the words it takes.
fn typed_literal(number: Number, words: &[u32]) -> Option<(String, usize)> {
    let wide = match number {
        Number::Int { width, .. } | Number::Float { width } => width == 64,
    };
    if wide {
        let &[low, high, ..] = words else { return None };
        let bits = u64::from(low) | (u64::from(high) << 32);
        let text = match number {
            Number::Int { signed: true, .. } => (bits as i64).to_string(),
            Number::Int { signed: false, .. } => bits.to_string(),
            Number::Float { .. } => f64::from_bits(bits).to_string(),
        };
        return Some((text, 2));
    }
    let bits = *words.first()?;
    let text = match number {
        Number::Int { signed: true, .. } => (bits as i32).to_string(),
        Number::Int { signed: false, .. } => bits.to_string(),
        Number::Float { .. } => f32::from_bits(bits).to_string(),
    };
    Some((text, 1))
}

/// The literal string whose words start at `words[0]` (up to its terminating nul), and the
/// number of words it takes; `None` when they hold no nul or no UTF-8.
pub(crate) fn read_string(words: &[u32]) -> Option<(String, usize)> {
    let mut bytes = Vec::new();
    for (index, word) in words.iter().enumerate() {
        for byte in word.to_le_bytes() {
            if byte == 0 {
                return String::from_utf8(bytes).ok().map(|s| (s, index + 1));
            }
            bytes.push(byte);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: [u32; 5] = [spirv::MAGIC_NUMBER, 0x0001_0600, 15 << 16, 10, 0];

    fn module(instructions: &[u32]) -> Vec<u32> {
        HEADER.iter().chain(instructions).copied().collect()
    }

    #[test]
    fn a_small_module_prints_as_rspirv_prints_it() {
        let words = module(&[
            (2 << 16) | Op::Capability as u32,
            spirv::Capability::Shader as u32,
            (4 << 16) | Op::TypeInt as u32,
            1,
            32,
            1,
            (4 << 16) | Op::Constant as u32,
            1,
            2,
            (-5i32) as u32,
            (4 << 16) | Op::Name as u32,
            2,
            0x6e69_616d,
            0,
        ]);
        assert_eq!(
            disassemble(&words).expect("prints"),
            "; SPIR-V\n; Version: 1.6\n; Generator: rspirv\n; Bound: 10\nOpCapability Shader\n\
             %1 = OpTypeInt 32 1\n%2 = OpConstant  %1  -5\nOpName %2 \"main\""
        );
    }

    /// The source files of the back end (not its tests), with their paths.
    fn back_end_sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).expect("src/spirv lists").flatten() {
            let path = entry.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if path.is_dir() {
                back_end_sources(&path, out);
            } else if name.ends_with(".rs")
                && !name.ends_with("tests.rs")
                && name != "test_support.rs"
                && name != "text.rs"
            {
                let text = std::fs::read_to_string(&path).expect("source reads");
                out.push((path.display().to_string(), text));
            }
        }
    }

    #[test]
    fn every_opcode_the_back_end_names_prints() {
        // Opcode names: `Op::Name` anywhere in the back end, and `=> Name;` in the builder's
        // instruction tables.
        let names: HashMap<String, Op> = (0..=0xffff)
            .filter_map(Op::from_u32)
            .map(|op| (format!("{op:?}"), op))
            .collect();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/spirv");
        let mut sources = Vec::new();
        back_end_sources(&dir, &mut sources);
        assert!(
            sources.len() > 20,
            "only {} back-end files found",
            sources.len()
        );
        let mut missing = Vec::new();
        for (path, text) in &sources {
            let qualified = text
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .filter_map(|word| word.strip_prefix("Op::"));
            let table_rows = text
                .lines()
                .filter_map(|line| line.trim().strip_suffix(';')?.rsplit_once("=> "))
                .map(|(_, name)| name);
            for name in qualified.chain(table_rows) {
                if let Some(&op) = names.get(name) {
                    if results(op).is_none() {
                        missing.push(format!("Op{name} ({path})"));
                    }
                }
            }
        }
        missing.sort();
        missing.dedup();
        assert!(missing.is_empty(), "the printer does not know: {missing:?}");
    }

    #[test]
    fn what_the_printer_does_not_know_is_an_error() {
        for (words, what) in [
            (vec![1, 2], "a short header"),
            (
                module(&[(2 << 16) | Op::SizeOf as u32, 1]),
                "an opcode it does not print",
            ),
            (module(&[(2 << 16) | 0xfff0, 1]), "an opcode SPIR-V lacks"),
            (
                module(&[(5 << 16) | Op::Capability as u32, 1]),
                "a word count past the end",
            ),
            (module(&[Op::Capability as u32]), "a word count of 0"),
            (
                module(&[(2 << 16) | Op::Capability as u32, 99_999]),
                "an unknown capability",
            ),
            (
                module(&[(3 << 16) | Op::Name as u32, 7, 0x6e69_616d]),
                "a string without its nul",
            ),
            (
                module(&[(4 << 16) | Op::Constant as u32, 9, 3, 7]),
                "a constant of an undeclared type",
            ),
        ] {
            assert!(disassemble(&words).is_err(), "{what}: {words:?} printed");
        }
    }
}
