//! Helpers of the optimiser's tests: a fragment-shader module to write code into, and
//! checks of what a pass left.

use crate::spirv::builder::Module as SpvModule;
use spirv::{
    AddressingModel, Capability, Decoration, ExecutionMode, ExecutionModel, FunctionControl,
    MemoryModel, Op, StorageClass, Word,
};

use crate::spirv::module::{Module, Scalar};

/// A fragment shader under construction: the function's first block is open.
pub struct Shell {
    /// The module builder.
    pub m: Module,
    /// `float`, `uint` and `vec4`/`uvec4`.
    pub float: Word,
    /// `uint`.
    pub uint: Word,
    /// `vec4`.
    pub vec4: Word,
    /// `uvec4`.
    pub uvec4: Word,
    /// An input `vec4` (location 0) and an output `vec4` (location 0).
    pub input: Word,
    /// The output `vec4`.
    pub output: Word,
    /// Every module-scope variable, for the entry point's interface.
    globals: Vec<Word>,
    function: Word,
}

impl Shell {
    /// A module with the entry function's first block open.
    pub fn new() -> Shell {
        let mut m = Module::new();
        m.capability(Capability::Shader);
        let float = m.scalar(Scalar::F32);
        let uint = m.scalar(Scalar::U32);
        let vec4 = m.vector(Scalar::F32, 4);
        let uvec4 = m.vector(Scalar::U32, 4);
        let input = m.global_variable(vec4, StorageClass::Input);
        let output = m.global_variable(vec4, StorageClass::Output);
        for var in [input, output] {
            m.decorate(var, Decoration::Location, &[0]);
        }
        let void = m.void();
        let fn_type = m.void_function();
        let function =
            m.b.begin_function(void, None, FunctionControl::NONE, fn_type)
                .expect("begin function");
        m.b.begin_block(None).expect("begin block");
        Shell {
            m,
            float,
            uint,
            vec4,
            uvec4,
            input,
            output,
            globals: vec![input, output],
            function,
        }
    }

    /// A new private variable of a type.
    pub fn private(&mut self, pointee: Word) -> Word {
        let var = self.m.global_variable(pointee, StorageClass::Private);
        self.globals.push(var);
        var
    }

    /// A `uint` constant.
    pub fn uint_const(&mut self, value: u32) -> Word {
        self.m.constant_u32(value)
    }

    /// A `float` constant.
    pub fn float_const(&mut self, value: f32) -> Word {
        self.m.constant_bits(Scalar::F32, value.to_bits())
    }

    /// Ends the current block with a branch to a new one, which is then open.
    pub fn next_block(&mut self) {
        let label = self.m.b.id();
        self.m.b.branch(label).expect("branch");
        self.m.b.begin_block(Some(label)).expect("begin block");
    }

    /// Returns from the function and finishes the module.
    pub fn finish(self) -> SpvModule {
        self.finish_with(|_| {})
    }

    /// Returns from the entry function, lets `more` add functions after it, and finishes
    /// the module.
    pub fn finish_with(mut self, more: impl FnOnce(&mut Module)) -> SpvModule {
        self.m.b.ret().expect("return");
        self.m.b.end_function().expect("end function");
        more(&mut self.m);
        self.m.b.entry_point(
            ExecutionModel::Fragment,
            self.function,
            "main",
            self.globals,
        );
        self.m
            .b
            .execution_mode(self.function, ExecutionMode::OriginUpperLeft, []);
        self.m
            .b
            .memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        self.m.finish_header();
        *std::mem::take(&mut self.m).b.module()
    }
}

/// The opcodes of the module's code, block by block, labels left out.
pub fn code(module: &SpvModule) -> Vec<Op> {
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .map(|i| i.class.opcode)
        .collect()
}

/// Panics unless the module's code is exactly these opcodes (with the module's disassembly).
pub fn assert_code(module: &SpvModule, expected: &[Op]) {
    assert_eq!(code(module), expected, "{}", text(module));
}

/// How many instructions of an opcode the module's code holds.
pub fn count(module: &SpvModule, op: Op) -> usize {
    code(module).into_iter().filter(|&o| o == op).count()
}

/// Panics unless spirv-val accepts the module (with its disassembly in the message).
pub fn assert_valid(module: &SpvModule) {
    crate::spirv::test_support::validate(&crate::spirv::builder::assemble(module));
}

/// The module's disassembly, for failure messages.
pub fn text(module: &SpvModule) -> String {
    crate::spirv::test_support::disassemble(&crate::spirv::builder::assemble(module))
}

/// Runs one pass with the module's information (as [`super::optimize`] gathers it).
pub fn run_pass(
    module: &mut SpvModule,
    pass: impl FnOnce(&mut SpvModule, &mut super::info::Info, &super::info::IdMap<bool>),
) {
    let mut info = super::info::Info::of(module);
    let plain = super::info::plain_variables(module, &info);
    pass(module, &mut info, &plain);
}
