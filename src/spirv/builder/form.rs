//! The back end's own form of a module while it is built and optimised: every instruction
//! a small value with its operands inline (no heap list per instruction), each operand one
//! word with what the word means. The sections and the function, block and instruction
//! shapes follow the SPIR-V module layout, so that the emitter and the passes read the way
//! the specification does; [`super::assemble`] writes the words.
//!
//! An operand is 8 bytes and `Copy`; an instruction keeps up to [`INLINE_OPERANDS`]
//! operands inline (56 bytes in all: its result type and id are words, 0 for none) and only
//! longer ones (phis of many blocks, switches, large composites) on the heap. A 64-bit
//! literal is its two words, low first, as in the binary; a literal string is an index into
//! the module's string table.

use smallvec::SmallVec;
use spirv::{
    AccessQualifier, AddressingModel, BuiltIn, Capability, Decoration, Dim, ExecutionMode,
    ExecutionModel, FunctionControl, ImageFormat, ImageOperands, LoopControl, MemoryModel,
    SelectionControl, StorageClass, Word,
};
use std::borrow::Cow;

/// The operands kept inline in an instruction.
pub const INLINE_OPERANDS: usize = 4;

/// A literal string of a module: its index in [`Module::strings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StringId(pub u32);

/// One operand word and what it means (the kinds of the SPIR-V grammar the back end
/// writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// An id.
    IdRef(Word),
    /// An id of a scope constant.
    IdScope(Word),
    /// An id of a memory-semantics constant.
    IdMemorySemantics(Word),
    /// A 32-bit literal (a 64-bit one is two of them, the low word first).
    LiteralBit32(u32),
    /// An extended instruction's number.
    LiteralExtInstInteger(u32),
    /// A literal string, in the module's string table.
    LiteralString(StringId),
    /// A storage class.
    StorageClass(StorageClass),
    /// A decoration.
    Decoration(Decoration),
    /// A capability.
    Capability(Capability),
    /// An execution mode.
    ExecutionMode(ExecutionMode),
    /// An execution model.
    ExecutionModel(ExecutionModel),
    /// Image operands' mask.
    ImageOperands(ImageOperands),
    /// An image format.
    ImageFormat(ImageFormat),
    /// Selection control.
    SelectionControl(SelectionControl),
    /// Loop control.
    LoopControl(LoopControl),
    /// Function control.
    FunctionControl(FunctionControl),
    /// A built-in.
    BuiltIn(BuiltIn),
    /// An image dimension.
    Dim(Dim),
    /// An access qualifier.
    AccessQualifier(AccessQualifier),
    /// An addressing model.
    AddressingModel(AddressingModel),
    /// A memory model.
    MemoryModel(MemoryModel),
}

impl Operand {
    /// The id an operand refers to, when it is an id.
    #[inline]
    pub fn id(&self) -> Option<Word> {
        match *self {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => Some(id),
            _ => None,
        }
    }

    /// The operand's word (a string's is its index; see [`Module::strings`]).
    #[inline]
    pub fn word(&self) -> Word {
        match *self {
            Operand::IdRef(v)
            | Operand::IdScope(v)
            | Operand::IdMemorySemantics(v)
            | Operand::LiteralBit32(v)
            | Operand::LiteralExtInstInteger(v) => v,
            Operand::LiteralString(s) => s.0,
            Operand::StorageClass(v) => v as u32,
            Operand::Decoration(v) => v as u32,
            Operand::Capability(v) => v as u32,
            Operand::ExecutionMode(v) => v as u32,
            Operand::ExecutionModel(v) => v as u32,
            Operand::ImageOperands(v) => v.bits(),
            Operand::ImageFormat(v) => v as u32,
            Operand::SelectionControl(v) => v.bits(),
            Operand::LoopControl(v) => v.bits(),
            Operand::FunctionControl(v) => v.bits(),
            Operand::BuiltIn(v) => v as u32,
            Operand::Dim(v) => v as u32,
            Operand::AccessQualifier(v) => v as u32,
            Operand::AddressingModel(v) => v as u32,
            Operand::MemoryModel(v) => v as u32,
        }
    }
}

/// An instruction's operands (after its result type and id), inline up to
/// [`INLINE_OPERANDS`].
pub type Operands = SmallVec<[Operand; INLINE_OPERANDS]>;

/// The operand list of `first` (inline without a copy loop when they fit).
#[inline]
pub fn operands<const N: usize>(first: [Operand; N]) -> Operands {
    if N <= INLINE_OPERANDS {
        let mut inline = [Operand::LiteralBit32(0); INLINE_OPERANDS];
        inline[..N].copy_from_slice(&first);
        Operands::from_buf_and_len(inline, N)
    } else {
        Operands::from_slice(&first)
    }
}

/// A grammar entry of rspirv's instruction table.
pub type Class = &'static rspirv::grammar::Instruction<'static>;

/// An instruction: its opcode's grammar entry, result type and id, and operands (56 bytes:
/// the result type and id are words, 0 for none, as no id is 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// The opcode's grammar entry (`class.opcode` is the opcode).
    pub class: Class,
    /// The result type (0 for none; see [`Instruction::result_type`]).
    ty: Word,
    /// The result id (0 for none; see [`Instruction::result_id`]).
    id: Word,
    /// The operands after the result type and id.
    pub operands: Operands,
}

impl Instruction {
    /// An instruction of grammar entry `class` with these result type, id and operands.
    #[inline]
    pub fn new(
        class: Class,
        result_type: Option<Word>,
        result_id: Option<Word>,
        operands: Operands,
    ) -> Instruction {
        Instruction {
            class,
            ty: result_type.unwrap_or(0),
            id: result_id.unwrap_or(0),
            operands,
        }
    }

    /// The result type, for an instruction with one.
    #[inline]
    pub fn result_type(&self) -> Option<Word> {
        (self.ty != 0).then_some(self.ty)
    }

    /// The result id, for an instruction with one.
    #[inline]
    pub fn result_id(&self) -> Option<Word> {
        (self.id != 0).then_some(self.id)
    }

    /// Sets the result type (`None`: no result type).
    #[inline]
    pub fn set_result_type(&mut self, result_type: Option<Word>) {
        self.ty = result_type.unwrap_or(0);
    }

    /// Sets the result id (`None`: no result id).
    #[inline]
    pub fn set_result_id(&mut self, result_id: Option<Word>) {
        self.id = result_id.unwrap_or(0);
    }

    /// Whether two type declarations declare the same type (same opcode and operands).
    pub fn is_type_identical(&self, other: &Instruction) -> bool {
        self.class.opcode == other.class.opcode && self.operands == other.operands
    }
}

/// A basic block: its label and its instructions (the terminator last).
#[derive(Debug, Clone, Default)]
pub struct Block {
    /// The id of its `OpLabel` (0 for none).
    pub label: Word,
    /// The instructions.
    pub instructions: Vec<Instruction>,
}

impl Block {
    /// The label's id.
    pub fn label_id(&self) -> Option<Word> {
        (self.label != 0).then_some(self.label)
    }
}

/// A function: its `OpFunction`, parameters, blocks and `OpFunctionEnd`.
#[derive(Debug, Clone, Default)]
pub struct Function {
    /// The `OpFunction`.
    pub def: Option<Instruction>,
    /// The `OpFunctionEnd`.
    pub end: Option<Instruction>,
    /// The `OpFunctionParameter`s.
    pub parameters: Vec<Instruction>,
    /// The blocks, the entry block first.
    pub blocks: Vec<Block>,
}

impl Function {
    /// The function's id.
    pub fn def_id(&self) -> Option<Word> {
        self.def.as_ref().and_then(|d| d.result_id())
    }
}

/// The module header's fields that the back end sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleHeader {
    /// The SPIR-V version word.
    pub version: Word,
    /// One past the largest id.
    pub bound: Word,
}

impl ModuleHeader {
    /// A header of the newest SPIR-V version the `spirv` crate knows and the bound `bound`.
    pub fn new(bound: Word) -> ModuleHeader {
        let mut header = ModuleHeader { version: 0, bound };
        header.set_version(spirv::MAJOR_VERSION, spirv::MINOR_VERSION);
        header
    }

    /// Sets the version.
    pub fn set_version(&mut self, major: u8, minor: u8) {
        self.version = (u32::from(major) << 16) | (u32::from(minor) << 8);
    }
}

/// A section that most modules hold one or two instructions of, kept inline (most
/// translations then allocate no list for it).
pub type Few<const N: usize> = SmallVec<[Instruction; N]>;

/// A module in the back end's form: the sections in layout order, and the strings its
/// literal-string operands name.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// The header (set when the module is finished).
    pub header: Option<ModuleHeader>,
    /// `OpCapability`s.
    pub capabilities: Few<2>,
    /// `OpExtension`s.
    pub extensions: Few<1>,
    /// `OpExtInstImport`s.
    pub ext_inst_imports: Few<1>,
    /// The `OpMemoryModel`.
    pub memory_model: Option<Instruction>,
    /// `OpEntryPoint`s.
    pub entry_points: Few<1>,
    /// `OpExecutionMode`s.
    pub execution_modes: Few<2>,
    /// `OpString`, `OpSource…`.
    pub debug_string_source: Vec<Instruction>,
    /// `OpName`, `OpMemberName`.
    pub debug_names: Vec<Instruction>,
    /// `OpModuleProcessed`.
    pub debug_module_processed: Vec<Instruction>,
    /// Decorations.
    pub annotations: Vec<Instruction>,
    /// Types, constants and module-scope variables.
    pub types_global_values: Vec<Instruction>,
    /// The functions.
    pub functions: Vec<Function>,
    /// The text of every literal string (see [`Operand::LiteralString`]); the fixed ones
    /// (the entry point's name, the extended instruction set's) are not copied. Up to two
    /// are inline: a module without debug names has its entry point's name and at most one
    /// import's.
    pub strings: SmallVec<[Cow<'static, str>; 2]>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }

    /// A literal string operand of `text`, kept in the module's string table.
    pub fn string(&mut self, text: impl Into<Cow<'static, str>>) -> Operand {
        self.strings.push(text.into());
        Operand::LiteralString(StringId((self.strings.len() - 1) as u32))
    }

    /// The text of a literal string operand.
    pub fn text(&self, id: StringId) -> &str {
        self.strings.get(id.0 as usize).map_or("", |text| text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_and_instructions_are_small() {
        assert_eq!(std::mem::size_of::<Operand>(), 8);
        assert!(
            std::mem::size_of::<Instruction>() <= 64,
            "{}",
            std::mem::size_of::<Instruction>()
        );
    }
}
