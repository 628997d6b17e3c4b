//! Tests of the in-memory module: what the builder appends and refuses, and that the
//! assembled words are what rspirv reads back.

use super::{BuildError, Builder, Operand};
use spirv::{Op, StorageClass};

/// A builder with a function and its first block open.
fn open_block() -> Builder {
    let mut b = Builder::default();
    let void = b.type_void();
    let fn_type = b.type_function(void, []);
    b.begin_function(void, None, spirv::FunctionControl::NONE, fn_type)
        .expect("begin function");
    b.begin_block(None).expect("begin block");
    b
}

#[test]
fn identical_types_are_declared_once_unless_an_id_is_given() {
    let mut b = Builder::default();
    let float = b.type_float(32);
    assert_eq!(b.type_float(32), float);
    let uint = b.type_int(32, 0);
    assert_ne!(uint, float);
    assert_eq!(b.type_vector(float, 4), b.type_vector(float, 4));
    let id = b.id();
    assert_eq!(b.type_vector_id(Some(id), float, 4), id);
    let types = &b.module_ref().types_global_values;
    assert_eq!(types.len(), 4, "{types:?}");
}

#[test]
fn instructions_outside_a_block_are_refused() {
    let mut b = Builder::default();
    let float = b.type_float(32);
    assert_eq!(
        b.f_add(float, None, 1, 2),
        Err(BuildError::DetachedInstruction)
    );
    assert_eq!(b.branch(1), Err(BuildError::MismatchedTerminator));
    assert_eq!(b.begin_block(None), Err(BuildError::DetachedBlock));
    assert_eq!(b.end_function(), Err(BuildError::MismatchedFunctionEnd));
    let mut b = open_block();
    assert_eq!(b.begin_block(None), Err(BuildError::NestedBlock));
    b.ret().expect("return");
    // The terminator closed the block.
    assert_eq!(b.store(1, 2), Err(BuildError::DetachedInstruction));
    assert_eq!(b.select_block(Some(1)), Err(BuildError::BlockNotFound));
}

#[test]
fn the_class_table_gives_rspirvs_grammar_entry_for_every_opcode() {
    for class in rspirv::grammar::INSTRUCTION_TABLE.iter() {
        let ours = super::class_of(class.opcode);
        assert!(
            std::ptr::eq(ours, class),
            "{:?}: the table gives {:?}",
            class.opcode,
            ours.opname
        );
    }
    let inst = super::of_ids(Op::CompositeConstruct, Some(1), Some(2), &[3, 4, 5, 6, 7]);
    assert_eq!(inst.class.opname, "CompositeConstruct");
    assert_eq!(inst.operands[4], Operand::IdRef(7));
}

#[test]
fn assembled_words_read_back_as_the_same_module() {
    let mut b = open_block();
    b.set_version(1, 3);
    b.capability(spirv::Capability::Shader);
    b.capability(spirv::Capability::Float64);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let glsl = b.ext_inst_import("GLSL.std.450");
    let float = b.type_float(32);
    let double = b.type_float(64);
    let pointer = b.type_pointer(None, StorageClass::Output, float);
    let one = b.constant_bit32(float, 1.0f32.to_bits());
    let big = b.constant_bit64(double, 0x4000_0000_0000_0001);
    let var = b.id();
    b.module_mut().types_global_values.push(super::inst(
        Op::Variable,
        Some(pointer),
        Some(var),
        smallvec::smallvec![Operand::StorageClass(StorageClass::Output)],
    ));
    b.module_mut().annotations.push(super::inst(
        Op::Decorate,
        None,
        None,
        smallvec::smallvec![
            Operand::IdRef(var),
            Operand::Decoration(spirv::Decoration::Location),
            Operand::LiteralBit32(0),
        ],
    ));
    let sum = b.f_add(float, None, one, one).expect("add");
    let root = b
        .ext_inst(float, None, glsl, 31, [Operand::IdRef(sum)])
        .expect("sqrt");
    b.store(var, root).expect("store");
    b.ret().expect("return");
    b.end_function().expect("end");
    let function = b.module_ref().functions[0].def_id().expect("function id");
    b.entry_point(spirv::ExecutionModel::Fragment, function, "main", [var]);
    b.execution_mode(function, spirv::ExecutionMode::OriginUpperLeft, []);
    let module = b.module();
    let words = super::assemble(&module);
    assert_eq!(words[1], 0x0001_0300, "version word");
    assert_eq!(
        words[3],
        module.header.as_ref().expect("header").bound,
        "bound"
    );
    let read = rspirv::dr::load_words(&words).expect("rspirv reads the words");
    {
        use rspirv::binary::Assemble as _;
        assert_eq!(
            read.assemble(),
            words,
            "rspirv reads the words and writes them back the same"
        );
    }
    use rspirv::dr::Operand as Read;
    assert!(read
        .all_inst_iter()
        .any(|i| i.result_id == Some(big)
            && i.operands == [Read::LiteralBit64(0x4000_0000_0000_0001)]));
    assert!(read.entry_points[0].operands[2] == Read::LiteralString("main".into()));
    assert!(read.ext_inst_imports[0].operands[0] == Read::LiteralString("GLSL.std.450".into()));
    crate::spirv::test_support::validate(&words);
}

/// The opcodes of a function's first block.
fn first_block_ops(b: &Builder, function: usize) -> Vec<Op> {
    b.module_ref().functions[function].blocks[0]
        .instructions
        .iter()
        .map(|i| i.class.opcode)
        .collect()
}

#[test]
fn deferred_stores_go_before_the_merge_and_terminator_once_per_pointer() {
    let mut b = open_block();
    let float = b.type_float(32);
    let (var, other) = (b.id(), b.id());
    b.defer_output_store(var, 10).expect("defer");
    b.defer_output_store(other, 11).expect("defer");
    b.defer_output_store(var, 12).expect("defer");
    // Nothing is stored yet: the block is still open.
    assert_eq!(first_block_ops(&b, 0), Vec::<Op>::new());
    let merge = b.id();
    b.module_mut().functions[0].blocks[0]
        .instructions
        .push(super::inst(
            Op::SelectionMerge,
            None,
            None,
            smallvec::smallvec![
                Operand::IdRef(merge),
                Operand::SelectionControl(spirv::SelectionControl::NONE),
            ],
        ));
    let condition = b.constant_true(float);
    b.branch_conditional(condition, merge, merge, [])
        .expect("branch");
    assert_eq!(
        first_block_ops(&b, 0),
        [
            Op::Store,
            Op::Store,
            Op::SelectionMerge,
            Op::BranchConditional
        ]
    );
    let stores: Vec<&[Operand]> = b.module_ref().functions[0].blocks[0]
        .instructions
        .iter()
        .filter(|i| i.class.opcode == Op::Store)
        .map(|i| &i.operands[..])
        .collect();
    // The later value replaced the earlier one, in the first store's place.
    assert_eq!(
        stores,
        [
            &[Operand::IdRef(var), Operand::IdRef(12)][..],
            &[Operand::IdRef(other), Operand::IdRef(11)][..]
        ]
    );
}

/// Disassembly of hand-written words.
mod text {
    use super::super::disassemble;
    use spirv::Op;

    const HEADER: [u32; 5] = [spirv::MAGIC_NUMBER, 0x0001_0600, 15 << 16, 10, 0];

    fn module(instructions: &[u32]) -> Vec<u32> {
        HEADER.iter().chain(instructions).copied().collect()
    }

    #[test]
    fn a_small_module_prints_in_rspirvs_format() {
        let words = module(&[
            (2 << 16) | Op::Capability as u32,
            spirv::Capability::Shader as u32,
            (4 << 16) | Op::Name as u32,
            2,
            0x6e69_616d,
            0,
            (4 << 16) | Op::TypeInt as u32,
            1,
            32,
            1,
            (4 << 16) | Op::Constant as u32,
            1,
            2,
            (-5i32) as u32,
        ]);
        assert_eq!(
            disassemble(&words).expect("prints"),
            "; SPIR-V\n; Version: 1.6\n; Generator: rspirv\n; Bound: 10\nOpCapability Shader\n\
             OpName %2 \"main\"\n%1 = OpTypeInt 32 1\n%2 = OpConstant  %1  -5"
        );
    }

    #[test]
    fn words_that_are_not_a_module_are_an_error() {
        for (words, what) in [
            (vec![1, 2], "a short header"),
            (vec![0xdead_beef, 0x0001_0600, 0, 10, 0], "no magic number"),
            (
                module(&[(5 << 16) | Op::Capability as u32, 1]),
                "a word count past the end",
            ),
            (
                module(&[(2 << 16) | Op::Capability as u32, 99_999]),
                "an unknown capability",
            ),
        ] {
            let result = disassemble(&words);
            assert!(result.is_err(), "{what}: {words:?} printed {result:?}");
        }
    }
}

#[test]
fn an_instruction_is_56_bytes_and_an_operand_8() {
    // A large shader's module is mostly instructions: their size is its memory.
    assert_eq!(
        [
            std::mem::size_of::<super::Instruction>(),
            std::mem::size_of::<Operand>()
        ],
        [56, 8]
    );
}

#[test]
fn an_instruction_without_a_result_has_none_and_one_with_a_result_keeps_it() {
    let mut inst = super::inst(Op::IAdd, Some(3), Some(7), super::Operands::new());
    assert_eq!((inst.result_type(), inst.result_id()), (Some(3), Some(7)));
    inst.set_result_type(None);
    inst.set_result_id(Some(9));
    assert_eq!((inst.result_type(), inst.result_id()), (None, Some(9)));
    let store = super::inst(Op::Store, None, None, super::Operands::new());
    assert_eq!((store.result_type(), store.result_id()), (None, None));
}
