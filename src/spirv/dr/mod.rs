//! The SPIR-V module in memory while it is built and optimised: rspirv's `dr` layout
//! (sections, functions, blocks, instructions with typed operands), with each instruction's
//! operands stored inline, so that making, rewriting and dropping an instruction does not
//! touch the heap.
//!
//! - [`Instruction`], [`Block`], [`Function`] and [`Module`] are the data, each operand one
//!   word ([`operand`]);
//! - [`Builder`](build::Builder) appends to a module, with rspirv's builder method names;
//! - [`Module::assemble`] writes the binary.

mod assemble;
mod build;
pub mod deferred;
pub mod operand;
mod recycle;
#[cfg(test)]
mod tests;

pub use build::{BuildError, Builder};
pub use operand::Operand;
pub use recycle::Recycled;

use spirv::{Op, Word};

/// Operands kept inline: 98.9% of the instructions the translator makes have four or
/// fewer; longer lists move to the heap.
pub type Operands = smallvec::SmallVec<[Operand; 4]>;

/// What kind of instruction an instruction is (kept as a struct so that the opcode reads
/// `inst.class.opcode`, as with rspirv's instructions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    /// The opcode.
    pub opcode: Op,
}

/// One instruction: its opcode, result type and id, and operands.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// The opcode (`class.opcode`).
    pub class: Class,
    /// The result type id, for instructions that have one.
    pub result_type: Option<Word>,
    /// The result id, for instructions that have one.
    pub result_id: Option<Word>,
    /// The operands after the result type and id.
    pub operands: Operands,
}

impl Instruction {
    /// An instruction of opcode `op`.
    pub fn new(
        op: Op,
        result_type: Option<Word>,
        result_id: Option<Word>,
        operands: impl Into<Operands>,
    ) -> Instruction {
        Instruction {
            class: Class { opcode: op },
            result_type,
            result_id,
            operands: operands.into(),
        }
    }

    /// An instruction whose operands are all ids.
    pub fn of_ids(
        op: Op,
        result_type: Option<Word>,
        result_id: Option<Word>,
        ids: &[Word],
    ) -> Instruction {
        Instruction::new(
            op,
            result_type,
            result_id,
            ids.iter()
                .map(|&id| Operand::IdRef(id))
                .collect::<Operands>(),
        )
    }

    /// Whether two type declarations declare the same type (opcode and operands).
    pub fn is_type_identical(&self, other: &Instruction) -> bool {
        self.class.opcode == other.class.opcode && self.operands == other.operands
    }
}

/// A basic block: its label and instructions (the terminator last).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    /// The `OpLabel`.
    pub label: Option<Instruction>,
    /// The instructions after the label.
    pub instructions: Vec<Instruction>,
}

/// A function: its `OpFunction`, parameters, blocks and `OpFunctionEnd`.
#[derive(Debug, Clone, Default, PartialEq)]
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
        self.def.as_ref().and_then(|d| d.result_id)
    }
}

/// The module header's fields that vary: version and id bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleHeader {
    /// The SPIR-V version word (`0x00MMmm00`).
    pub version: u32,
    /// One more than the largest id.
    pub bound: Word,
}

impl ModuleHeader {
    /// A header of the newest SPIR-V version (until one is set) with the id bound `bound`.
    pub fn new(bound: Word) -> ModuleHeader {
        let mut header = ModuleHeader { version: 0, bound };
        header.set_version(spirv::MAJOR_VERSION, spirv::MINOR_VERSION);
        header
    }

    /// Sets the version.
    pub fn set_version(&mut self, major: u8, minor: u8) {
        self.version = ((major as u32) << 16) | ((minor as u32) << 8);
    }
}

/// A module: its header and each section of the logical layout, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    /// The header (`None` until a version or bound is set).
    pub header: Option<ModuleHeader>,
    /// `OpCapability`s.
    pub capabilities: Vec<Instruction>,
    /// `OpExtension`s.
    pub extensions: Vec<Instruction>,
    /// `OpExtInstImport`s.
    pub ext_inst_imports: Vec<Instruction>,
    /// The `OpMemoryModel`.
    pub memory_model: Option<Instruction>,
    /// `OpEntryPoint`s.
    pub entry_points: Vec<Instruction>,
    /// `OpExecutionMode`s.
    pub execution_modes: Vec<Instruction>,
    /// `OpName`s and other debug names.
    pub debug_names: Vec<Instruction>,
    /// Decorations.
    pub annotations: Vec<Instruction>,
    /// Types, constants and module-scope variables.
    pub types_global_values: Vec<Instruction>,
    /// Functions.
    pub functions: Vec<Function>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }

    /// Every instruction of the module, in layout order.
    pub fn all_inst_iter(&self) -> impl Iterator<Item = &Instruction> {
        self.global_inst_iter()
            .chain(self.functions.iter().flat_map(|f| f.all_inst_iter()))
    }

    /// The sections before the first function, in layout order.
    pub fn global_lists(&self) -> [&[Instruction]; 9] {
        [
            &self.capabilities,
            &self.extensions,
            &self.ext_inst_imports,
            self.memory_model.as_slice(),
            &self.entry_points,
            &self.execution_modes,
            &self.debug_names,
            &self.annotations,
            &self.types_global_values,
        ]
    }

    /// The instructions before the first function, in layout order.
    pub fn global_inst_iter(&self) -> impl Iterator<Item = &Instruction> {
        self.global_lists().into_iter().flatten()
    }
}

impl Function {
    /// Every instruction of the function, in order.
    pub fn all_inst_iter(&self) -> impl Iterator<Item = &Instruction> {
        self.def
            .iter()
            .chain(&self.parameters)
            .chain(
                self.blocks
                    .iter()
                    .flat_map(|b| b.label.iter().chain(&b.instructions)),
            )
            .chain(&self.end)
    }
}
