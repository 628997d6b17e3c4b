//! Deliberate miscompilations, for testing the test harness: each [`Fault`] rewrites a
//! finished SPIR-V module (the words the translator returned) the way a plausible translator
//! bug would have written it. The differential harness's self-check
//! (`cargo xtask difftest --self-check`) runs its generated programs with a fault applied
//! ([`RunSettings::fault`](crate::shader_test::runner::RunSettings::fault)) and must see the
//! results disagree with the reference interpreter's.
//!
//! The translator knows nothing of this: a rewrite reads the module with rspirv, changes the
//! instructions it recognises (the sites of the fault) and assembles it again. A module
//! without a site is returned as it is, and [`Rewritten::changed`] says so, so a self-check
//! can skip the programs a fault does not touch. Every rewrite recognises the forms the back
//! end writes with the optimiser on and off, and keeps the module valid.

use std::collections::HashMap;

use rspirv::dr::{self, Block, Function, Instruction, Module, Operand};
use spirv::{Op, StorageClass, Word};

/// A deliberate miscompilation, done as a rewrite of a finished module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// The two operands of every shift (`OpShiftLeftLogical`, `OpShiftRightArithmetic`,
    /// `OpShiftRightLogical`) trade places: the count (already cut to five bits) is shifted
    /// by the low five bits of the value.
    SwappedOperands,
    /// `OpSLessThan` and `OpFOrdLessThan` compare less-or-equal.
    WrongComparison,
    /// The clamp of `_sat` is dropped: a float's `NMin(NMax(x, 0.0), 1.0)` is `x`, and a
    /// double's cap at 1.0 is gone.
    DroppedSaturate,
    /// Every loop runs once more: the first exit of a loop after it is entered (a branch to
    /// its merge block) is ignored, the code runs on as if the exit's condition were false.
    /// The exits rewritten are conditional branches to the merge block and branches to it
    /// from the first block of an `if` (which runs on at the `if`'s merge block); a `break`
    /// with no code after it in the loop is left alone.
    LoopExitOffByOne,
    /// `OpControlBarrier` is removed (`sync_*_t` loses its execution barrier).
    LostBarrier,
    /// A store to a runtime-sized buffer (a raw or structured UAV) guarded by its index
    /// being below `OpArrayLength` lands on the last element when the index is past the
    /// end, instead of being dropped.
    OutOfBoundsWriteLands,
    /// `OpAtomicIAdd` is an `OpAtomicXor`.
    WrongAtomicOp,
    /// The two dwords of every double made from integer bits (`OpBitcast` to a 64-bit
    /// float) are swapped: the high dword is read as the low one.
    SwappedDoubleHalves,
    /// `ftoi`/`ftou` without D3D's saturation to the integer range and NaN → 0: out-of-range
    /// and NaN sources give `0x80000000` (x86's "integer indefinite"). The selects on
    /// `OpIsNan` and on the top of the range around an `OpConvertFToS`/`OpConvertFToU` are
    /// replaced by one on the source being in range.
    UnclampedFtoi,
}

/// A module as a [`Fault`] left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewritten {
    /// The module's words (the original words when nothing changed).
    pub words: Vec<u32>,
    /// How many places the fault changed.
    pub sites: usize,
}

impl Rewritten {
    /// Whether the fault changed the module.
    pub fn changed(&self) -> bool {
        self.sites > 0
    }
}

impl Fault {
    /// Every fault, in the order of the documentation.
    pub const ALL: [Fault; 9] = [
        Fault::SwappedOperands,
        Fault::WrongComparison,
        Fault::DroppedSaturate,
        Fault::LoopExitOffByOne,
        Fault::LostBarrier,
        Fault::OutOfBoundsWriteLands,
        Fault::WrongAtomicOp,
        Fault::SwappedDoubleHalves,
        Fault::UnclampedFtoi,
    ];

    /// The fault's kebab-case name (`swapped-operands`).
    pub fn name(self) -> &'static str {
        match self {
            Fault::SwappedOperands => "swapped-operands",
            Fault::WrongComparison => "wrong-comparison",
            Fault::DroppedSaturate => "dropped-saturate",
            Fault::LoopExitOffByOne => "loop-exit-off-by-one",
            Fault::LostBarrier => "lost-barrier",
            Fault::OutOfBoundsWriteLands => "out-of-bounds-write-lands",
            Fault::WrongAtomicOp => "wrong-atomic-op",
            Fault::SwappedDoubleHalves => "swapped-double-halves",
            Fault::UnclampedFtoi => "unclamped-ftoi",
        }
    }

    /// The fault of a [`Fault::name`].
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }

    /// What the fault breaks, in one line (for reports).
    pub fn description(self) -> &'static str {
        match self {
            Fault::SwappedOperands => "the two operands of every shift are swapped",
            Fault::WrongComparison => "signed and float less-than compare less-or-equal",
            Fault::DroppedSaturate => "the clamp of _sat to [0, 1] is dropped",
            Fault::LoopExitOffByOne => "the first exit of each entered loop is ignored once",
            Fault::LostBarrier => "every OpControlBarrier is removed",
            Fault::OutOfBoundsWriteLands => "UAV buffer stores past the end land on the last dword",
            Fault::WrongAtomicOp => "OpAtomicIAdd is an atomic xor",
            Fault::SwappedDoubleHalves => "the low and high dwords of each double are swapped",
            Fault::UnclampedFtoi => "ftoi/ftou give 0x80000000 out of range and for NaN",
        }
    }

    /// Rewrites a module (its words) with the fault. A module the fault does not touch comes
    /// back as it is, with no sites; an error only when the words are no module rspirv reads.
    pub fn rewrite(self, words: &[u32]) -> Result<Rewritten, String> {
        let module =
            dr::load_words(words).map_err(|e| format!("the module does not parse: {e}"))?;
        let mut r = Rewriter::new(module);
        match self {
            Fault::SwappedOperands => r.swap_shift_operands(),
            Fault::WrongComparison => r.change_opcodes(&[
                (Op::SLessThan, Op::SLessThanEqual),
                (Op::FOrdLessThan, Op::FOrdLessThanEqual),
            ]),
            Fault::DroppedSaturate => r.drop_saturate(),
            Fault::LoopExitOffByOne => r.skip_first_loop_exits(),
            Fault::LostBarrier => r.remove(Op::ControlBarrier),
            Fault::OutOfBoundsWriteLands => r.land_out_of_bounds_stores(),
            Fault::WrongAtomicOp => r.change_opcodes(&[(Op::AtomicIAdd, Op::AtomicXor)]),
            Fault::SwappedDoubleHalves => r.swap_double_halves(),
            Fault::UnclampedFtoi => r.unclamp_ftoi(),
        }
        if r.sites == 0 {
            return Ok(Rewritten {
                words: words.to_vec(),
                sites: 0,
            });
        }
        use rspirv::binary::Assemble;
        Ok(Rewritten {
            words: r.module.assemble(),
            sites: r.sites,
        })
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// GLSL.std.450's instruction numbers the rewrites use.
mod glsl {
    pub const UMIN: u32 = 38;
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
}

/// The id an operand names.
fn id_of(operand: &Operand) -> Option<Word> {
    match operand {
        Operand::IdRef(id) => Some(*id),
        _ => None,
    }
}

/// The id operand `n` of an instruction names.
fn operand_id(instruction: &Instruction, n: usize) -> Option<Word> {
    instruction.operands.get(n).and_then(id_of)
}

/// Changes an instruction's opcode, keeping its result and operands.
fn set_opcode(instruction: &mut Instruction, op: Op) {
    let operands = std::mem::take(&mut instruction.operands);
    *instruction = Instruction::new(op, instruction.result_type, instruction.result_id, operands);
}

/// Turns an instruction into `OpCopyObject` of `value` (same result id and type).
fn make_copy(instruction: &mut Instruction, value: Word) {
    set_opcode(instruction, Op::CopyObject);
    instruction.operands = vec![Operand::IdRef(value)];
}

/// Where instructions go before a block's terminator (and its merge instruction).
fn before_terminator(block: &Block) -> usize {
    let mut at = block.instructions.len().saturating_sub(1);
    if at > 0
        && matches!(
            block.instructions[at - 1].class.opcode,
            Op::SelectionMerge | Op::LoopMerge
        )
    {
        at -= 1;
    }
    at
}

/// Where instructions go at the start of a block (after its phis).
fn after_phis(block: &Block) -> usize {
    block
        .instructions
        .iter()
        .take_while(|i| i.class.opcode == Op::Phi)
        .count()
}

/// A block's label id.
fn label(block: &Block) -> Option<Word> {
    block.label.as_ref().and_then(|l| l.result_id)
}

/// The labels a block's terminator branches to.
fn successors(block: &Block) -> Vec<Word> {
    let Some(last) = block.instructions.last() else {
        return Vec::new();
    };
    match last.class.opcode {
        Op::Branch => last.operands.iter().filter_map(id_of).collect(),
        Op::BranchConditional => last
            .operands
            .iter()
            .skip(1)
            .take(2)
            .filter_map(id_of)
            .collect(),
        Op::Switch => last.operands.iter().skip(1).filter_map(id_of).collect(),
        _ => Vec::new(),
    }
}

/// The ids of an `unclamped-ftoi` site ([`Rewriter::ftoi_site`]).
struct FtoiSite {
    /// The boolean (vector) type of the tests.
    boolean: Word,
    /// The float source.
    x: Word,
    /// The bottom of the integer range, as a float.
    low: Word,
    /// `x >= limit`, the test for the top saturation.
    too_big: Word,
    /// The conversion of the clamped source.
    converted: Word,
}

/// A module being rewritten, with the definitions of its ids as loaded.
struct Rewriter {
    module: Module,
    /// Every result id's defining instruction (as loaded, before any rewrite).
    defs: HashMap<Word, Instruction>,
    /// How many places were changed.
    sites: usize,
}

impl Rewriter {
    fn new(module: Module) -> Rewriter {
        let mut defs = HashMap::new();
        let globals = module.types_global_values.iter();
        let imports = module.ext_inst_imports.iter();
        let functions = module.functions.iter().flat_map(|f| {
            f.parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
        });
        for instruction in globals.chain(imports).chain(functions) {
            if let Some(id) = instruction.result_id {
                defs.insert(id, instruction.clone());
            }
        }
        Rewriter {
            module,
            defs,
            sites: 0,
        }
    }

    /// A fresh id.
    fn id(&mut self) -> Word {
        match self.module.header.as_mut() {
            Some(header) => {
                let id = header.bound;
                header.bound += 1;
                id
            }
            None => 0,
        }
    }

    /// The instruction defining `id`.
    fn def(&self, id: Word) -> Option<&Instruction> {
        self.defs.get(&id)
    }

    /// The opcode of `id`'s definition.
    fn def_op(&self, id: Word) -> Option<Op> {
        self.def(id).map(|d| d.class.opcode)
    }

    /// The bits of a scalar constant, or of every component of a composite constant whose
    /// components are all the same (a splat).
    fn splat_bits(&self, id: Word) -> Option<u64> {
        let def = self.def(id)?;
        match def.class.opcode {
            Op::Constant => match def.operands.first()? {
                Operand::LiteralBit32(v) => Some(u64::from(*v)),
                Operand::LiteralBit64(v) => Some(*v),
                _ => None,
            },
            Op::ConstantNull => Some(0),
            Op::ConstantComposite => {
                let mut parts = def
                    .operands
                    .iter()
                    .map(|o| id_of(o).and_then(|c| self.splat_bits(c)));
                let first = parts.next()??;
                parts.all(|p| p == Some(first)).then_some(first)
            }
            _ => None,
        }
    }

    /// A global instruction (type or constant) of `op` with these result type and operands,
    /// added when the module has none.
    fn global(&mut self, op: Op, result_type: Option<Word>, operands: Vec<Operand>) -> Word {
        if let Some(found) = self.module.types_global_values.iter().find(|i| {
            i.class.opcode == op && i.result_type == result_type && i.operands == operands
        }) {
            if let Some(id) = found.result_id {
                return id;
            }
        }
        let id = self.id();
        let instruction = Instruction::new(op, result_type, Some(id), operands);
        self.defs.insert(id, instruction.clone());
        self.module.types_global_values.push(instruction);
        id
    }

    /// A 32-bit integer constant of `ty` (a scalar or vector integer type, splatted).
    fn int_constant(&mut self, ty: Word, value: u32) -> Option<Word> {
        let def = self.def(ty)?.clone();
        match def.class.opcode {
            Op::TypeInt => {
                Some(self.global(Op::Constant, Some(ty), vec![Operand::LiteralBit32(value)]))
            }
            Op::TypeVector => {
                let component = operand_id(&def, 0)?;
                let count = match def.operands.get(1)? {
                    Operand::LiteralBit32(n) => *n as usize,
                    _ => return None,
                };
                let part = self.int_constant(component, value)?;
                Some(self.global(
                    Op::ConstantComposite,
                    Some(ty),
                    vec![Operand::IdRef(part); count],
                ))
            }
            _ => None,
        }
    }

    /// The boolean type.
    fn bool_type(&mut self) -> Word {
        self.global(Op::TypeBool, None, vec![])
    }

    /// The GLSL.std.450 import, added when the module has none.
    fn glsl(&mut self) -> Word {
        let name = Operand::LiteralString("GLSL.std.450".into());
        if let Some(id) = self
            .module
            .ext_inst_imports
            .iter()
            .find(|i| i.operands.first() == Some(&name))
            .and_then(|i| i.result_id)
        {
            return id;
        }
        let id = self.id();
        self.module.ext_inst_imports.push(Instruction::new(
            Op::ExtInstImport,
            None,
            Some(id),
            vec![name],
        ));
        id
    }

    /// Whether `id` is a float type of `width` bits, or a vector of them.
    fn is_float(&self, ty: Word, width: u32) -> bool {
        match self.def(ty) {
            Some(d) if d.class.opcode == Op::TypeFloat => {
                d.operands.first() == Some(&Operand::LiteralBit32(width))
            }
            Some(d) if d.class.opcode == Op::TypeVector => {
                operand_id(d, 0).is_some_and(|c| self.is_float(c, width))
            }
            _ => false,
        }
    }

    /// How many components a scalar or vector type has.
    fn component_count(&self, ty: Word) -> Option<u32> {
        let def = self.def(ty)?;
        match def.class.opcode {
            Op::TypeVector => match def.operands.get(1)? {
                Operand::LiteralBit32(n) => Some(*n),
                _ => None,
            },
            _ => Some(1),
        }
    }

    /// Every instruction in the functions, mutably.
    fn instructions_mut(&mut self) -> impl Iterator<Item = &mut Instruction> {
        self.module
            .functions
            .iter_mut()
            .flat_map(|f| f.blocks.iter_mut())
            .flat_map(|b| b.instructions.iter_mut())
    }

    /// `wrong-comparison`, `wrong-atomic-op`: opcodes replaced by others of the same form.
    fn change_opcodes(&mut self, changes: &[(Op, Op)]) {
        let mut sites = 0;
        for instruction in self.instructions_mut() {
            if let Some(&(_, to)) = changes
                .iter()
                .find(|(from, _)| *from == instruction.class.opcode)
            {
                set_opcode(instruction, to);
                sites += 1;
            }
        }
        self.sites += sites;
    }

    /// `lost-barrier`: every instruction of `op` removed.
    fn remove(&mut self, op: Op) {
        let mut sites = 0;
        for block in self
            .module
            .functions
            .iter_mut()
            .flat_map(|f| f.blocks.iter_mut())
        {
            let before = block.instructions.len();
            block.instructions.retain(|i| i.class.opcode != op);
            sites += before - block.instructions.len();
        }
        self.sites += sites;
    }

    /// Applies `edit` to each block of each function (by function and block index), so it
    /// can look at the definitions while it changes the block.
    fn for_each_block(&mut self, mut edit: impl FnMut(&mut Rewriter, usize, usize)) {
        for f in 0..self.module.functions.len() {
            for b in 0..self.module.functions[f].blocks.len() {
                edit(self, f, b);
            }
        }
    }

    fn block_mut(&mut self, f: usize, b: usize) -> &mut Block {
        &mut self.module.functions[f].blocks[b]
    }

    /// `swapped-operands`: `Shift value, count` becomes `Shift count, (value & 31)`.
    fn swap_shift_operands(&mut self) {
        self.for_each_block(|r, f, b| {
            let mut i = 0;
            while i < r.block_mut(f, b).instructions.len() {
                let instruction = r.block_mut(f, b).instructions[i].clone();
                let shift = matches!(
                    instruction.class.opcode,
                    Op::ShiftLeftLogical | Op::ShiftRightArithmetic | Op::ShiftRightLogical
                );
                let (Some(value), Some(count)) =
                    (operand_id(&instruction, 0), operand_id(&instruction, 1))
                else {
                    i += 1;
                    continue;
                };
                let count_type = r.def(count).and_then(|d| d.result_type);
                let Some(count_type) = count_type.filter(|_| shift) else {
                    i += 1;
                    continue;
                };
                let Some(mask) = r.int_constant(count_type, 31) else {
                    i += 1;
                    continue;
                };
                let cut = r.id();
                let and = Instruction::new(
                    Op::BitwiseAnd,
                    Some(count_type),
                    Some(cut),
                    vec![Operand::IdRef(value), Operand::IdRef(mask)],
                );
                let block = r.block_mut(f, b);
                block.instructions[i].operands = vec![Operand::IdRef(count), Operand::IdRef(cut)];
                block.instructions.insert(i, and);
                r.sites += 1;
                i += 2;
            }
        });
    }

    /// `dropped-saturate`: `NMin(NMax(x, 0.0), 1.0)` on floats becomes `x`; a double's
    /// `Select(x > 1.0, 1.0, x)` becomes `x`.
    fn drop_saturate(&mut self) {
        let glsl = self.glsl();
        let (zero, one_f32, one_f64) = (0u64, u64::from(1.0f32.to_bits()), 1.0f64.to_bits());
        let mut changes = Vec::new();
        for instruction in self
            .module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
        {
            let Some(result) = instruction.result_id else {
                continue;
            };
            let ty = instruction.result_type.unwrap_or(0);
            match instruction.class.opcode {
                Op::ExtInst
                    if operand_id(instruction, 0) == Some(glsl)
                        && instruction.operands.get(1)
                            == Some(&Operand::LiteralExtInstInteger(glsl::NMIN))
                        && self.is_float(ty, 32) =>
                {
                    let (Some(low), Some(one)) =
                        (operand_id(instruction, 2), operand_id(instruction, 3))
                    else {
                        continue;
                    };
                    let Some(max) = self.def(low) else { continue };
                    let is_nmax = max.class.opcode == Op::ExtInst
                        && operand_id(max, 0) == Some(glsl)
                        && max.operands.get(1) == Some(&Operand::LiteralExtInstInteger(glsl::NMAX));
                    let (Some(x), Some(floor)) = (operand_id(max, 2), operand_id(max, 3)) else {
                        continue;
                    };
                    if is_nmax
                        && self.splat_bits(one) == Some(one_f32)
                        && self.splat_bits(floor) == Some(zero)
                    {
                        changes.push((result, x));
                    }
                }
                Op::Select if self.is_float(ty, 64) => {
                    let (Some(condition), Some(cap), Some(x)) = (
                        operand_id(instruction, 0),
                        operand_id(instruction, 1),
                        operand_id(instruction, 2),
                    ) else {
                        continue;
                    };
                    let Some(test) = self.def(condition) else {
                        continue;
                    };
                    if test.class.opcode == Op::FOrdGreaterThan
                        && operand_id(test, 0) == Some(x)
                        && operand_id(test, 1) == Some(cap)
                        && self.splat_bits(cap) == Some(one_f64)
                    {
                        changes.push((result, x));
                    }
                }
                _ => {}
            }
        }
        self.copy_results(&changes);
    }

    /// Turns the instructions defining each `(result, value)`'s result into copies of the
    /// value.
    fn copy_results(&mut self, changes: &[(Word, Word)]) {
        let changes: HashMap<Word, Word> = changes.iter().copied().collect();
        let mut sites = 0;
        for instruction in self.instructions_mut() {
            if let Some(&value) = instruction.result_id.and_then(|id| changes.get(&id)) {
                make_copy(instruction, value);
                sites += 1;
            }
        }
        self.sites += sites;
    }

    /// `unclamped-ftoi`: `Select(IsNan(x), 0, Select(x >= limit, max, Convert(clamped)))`
    /// becomes `Select(x >= low && !(x >= limit), Convert(clamped), 0x80000000)`: x86's
    /// "integer indefinite" for NaN and out-of-range sources, `low` taken from the clamp
    /// `NMin(NMax(x, low), high)` of the conversion's source.
    fn unclamp_ftoi(&mut self) {
        self.for_each_block(|r, f, b| {
            let mut i = 0;
            while i < r.block_mut(f, b).instructions.len() {
                let instruction = r.block_mut(f, b).instructions[i].clone();
                match r.ftoi_site(&instruction) {
                    Some(site) => {
                        let added = r.unclamp(f, b, i, site);
                        i += added + 1;
                    }
                    None => i += 1,
                }
            }
        });
    }

    /// The parts of an `unclamped-ftoi` site: the outer select on `OpIsNan` of a float-to-
    /// integer conversion's source.
    fn ftoi_site(&self, select: &Instruction) -> Option<FtoiSite> {
        if select.class.opcode != Op::Select {
            return None;
        }
        let condition = operand_id(select, 0)?;
        let test = self.def(condition)?;
        if test.class.opcode != Op::IsNan {
            return None;
        }
        let x = operand_id(test, 0)?;
        let inner = self.def(operand_id(select, 2)?)?;
        if inner.class.opcode != Op::Select {
            return None;
        }
        let too_big = operand_id(inner, 0)?;
        let converted = operand_id(inner, 2)?;
        let conversion = self.def(converted)?;
        if !matches!(conversion.class.opcode, Op::ConvertFToS | Op::ConvertFToU) {
            return None;
        }
        let high = self.def(operand_id(conversion, 0)?)?;
        let low = self.def(operand_id(high, 2)?)?;
        let is_glsl = |d: &Instruction, n: u32| {
            d.class.opcode == Op::ExtInst
                && d.operands.get(1) == Some(&Operand::LiteralExtInstInteger(n))
        };
        if !is_glsl(high, glsl::NMIN) || !is_glsl(low, glsl::NMAX) || operand_id(low, 2) != Some(x)
        {
            return None;
        }
        Some(FtoiSite {
            boolean: test.result_type?,
            x,
            low: operand_id(low, 3)?,
            too_big,
            converted,
        })
    }

    /// Rewrites the select at instruction `i` of a block; returns how many instructions
    /// went in before it.
    fn unclamp(&mut self, f: usize, b: usize, i: usize, site: FtoiSite) -> usize {
        let Some(ty) = self.block_mut(f, b).instructions[i].result_type else {
            return 0;
        };
        let Some(indefinite) = self.int_constant(ty, 0x8000_0000) else {
            return 0;
        };
        let (above_low, below_limit, in_range) = (self.id(), self.id(), self.id());
        let boolean = site.boolean;
        let new = [
            Instruction::new(
                Op::FOrdGreaterThanEqual,
                Some(boolean),
                Some(above_low),
                vec![Operand::IdRef(site.x), Operand::IdRef(site.low)],
            ),
            Instruction::new(
                Op::LogicalNot,
                Some(boolean),
                Some(below_limit),
                vec![Operand::IdRef(site.too_big)],
            ),
            Instruction::new(
                Op::LogicalAnd,
                Some(boolean),
                Some(in_range),
                vec![Operand::IdRef(above_low), Operand::IdRef(below_limit)],
            ),
        ];
        let block = self.block_mut(f, b);
        block.instructions[i].operands = vec![
            Operand::IdRef(in_range),
            Operand::IdRef(site.converted),
            Operand::IdRef(indefinite),
        ];
        block.instructions.splice(i..i, new);
        self.sites += 1;
        3
    }

    /// `swapped-double-halves`: the integer vector of each `OpBitcast` to 64-bit floats has
    /// its dwords swapped in pairs first.
    fn swap_double_halves(&mut self) {
        self.for_each_block(|r, f, b| {
            let mut i = 0;
            while i < r.block_mut(f, b).instructions.len() {
                let instruction = r.block_mut(f, b).instructions[i].clone();
                let ty = instruction.result_type.unwrap_or(0);
                let source = operand_id(&instruction, 0);
                let source_type = source.and_then(|s| r.def(s)).and_then(|d| d.result_type);
                let count = source_type.and_then(|t| r.component_count(t)).unwrap_or(0);
                let (Some(source), Some(source_type)) = (source, source_type) else {
                    i += 1;
                    continue;
                };
                if instruction.class.opcode != Op::Bitcast
                    || !r.is_float(ty, 64)
                    || count < 2
                    || !count.is_multiple_of(2)
                {
                    i += 1;
                    continue;
                }
                let swapped = r.id();
                let mut operands = vec![Operand::IdRef(source), Operand::IdRef(source)];
                operands.extend((0..count).map(|c| Operand::LiteralBit32(c ^ 1)));
                let shuffle = Instruction::new(
                    Op::VectorShuffle,
                    Some(source_type),
                    Some(swapped),
                    operands,
                );
                let block = r.block_mut(f, b);
                block.instructions[i].operands = vec![Operand::IdRef(swapped)];
                block.instructions.insert(i, shuffle);
                r.sites += 1;
                i += 2;
            }
        });
    }

    /// `out-of-bounds-write-lands`: a block entered when `index < OpArrayLength(..)` whose
    /// stores go through an access chain ending in `index` is entered when the length is
    /// not 0 instead, and its stores go to `UMin(index, length - 1)`.
    fn land_out_of_bounds_stores(&mut self) {
        let glsl = self.glsl();
        self.for_each_block(|r, f, b| {
            let Some(branch) = r.block_mut(f, b).instructions.last().cloned() else {
                return;
            };
            if branch.class.opcode != Op::BranchConditional {
                return;
            }
            let (Some(condition), Some(target)) = (operand_id(&branch, 0), operand_id(&branch, 1))
            else {
                return;
            };
            let Some(test) = r.def(condition).cloned() else {
                return;
            };
            let (Some(index), Some(length)) = (operand_id(&test, 0), operand_id(&test, 1)) else {
                return;
            };
            if test.class.opcode != Op::ULessThan || r.def_op(length) != Some(Op::ArrayLength) {
                return;
            }
            let Some(uint) = test
                .operands
                .first()
                .and_then(id_of)
                .and_then(|i| r.def(i))
                .and_then(|d| d.result_type)
            else {
                return;
            };
            let Some(t) = r.module.functions[f]
                .blocks
                .iter()
                .position(|blk| label(blk) == Some(target))
            else {
                return;
            };
            // The stores of the guarded block through a chain ending in the index.
            let stores: Vec<(usize, Instruction)> = r.module.functions[f].blocks[t]
                .instructions
                .iter()
                .enumerate()
                .filter(|(_, i)| i.class.opcode == Op::Store)
                .filter_map(|(n, i)| {
                    let chain = r.def(operand_id(i, 0)?)?;
                    let last = chain.operands.last().and_then(id_of);
                    (chain.class.opcode == Op::AccessChain && last == Some(index))
                        .then(|| (n, chain.clone()))
                })
                .collect();
            if stores.is_empty() {
                return;
            }
            let (Some(one), Some(zero)) = (r.int_constant(uint, 1), r.int_constant(uint, 0)) else {
                return;
            };
            let boolean = r.bool_type();
            let (last, clamped) = (r.id(), r.id());
            let mut new = vec![
                Instruction::new(
                    Op::ISub,
                    Some(uint),
                    Some(last),
                    vec![Operand::IdRef(length), Operand::IdRef(one)],
                ),
                Instruction::new(
                    Op::ExtInst,
                    Some(uint),
                    Some(clamped),
                    vec![
                        Operand::IdRef(glsl),
                        Operand::LiteralExtInstInteger(glsl::UMIN),
                        Operand::IdRef(index),
                        Operand::IdRef(last),
                    ],
                ),
            ];
            let mut pointers = Vec::new();
            for (n, chain) in &stores {
                let pointer = r.id();
                let mut operands = chain.operands.clone();
                if let Some(index_operand) = operands.last_mut() {
                    *index_operand = Operand::IdRef(clamped);
                }
                new.push(Instruction::new(
                    Op::AccessChain,
                    chain.result_type,
                    Some(pointer),
                    operands,
                ));
                // The new pointer keeps the old one's decorations (NonUniform).
                let old = chain.result_id.unwrap_or(0);
                let decorations: Vec<Instruction> = r
                    .module
                    .annotations
                    .iter()
                    .filter(|a| a.class.opcode == Op::Decorate && operand_id(a, 0) == Some(old))
                    .map(|a| {
                        let mut copy = a.clone();
                        copy.operands[0] = Operand::IdRef(pointer);
                        copy
                    })
                    .collect();
                r.module.annotations.extend(decorations);
                pointers.push((*n, pointer));
            }
            let added = new.len();
            let guarded = r.block_mut(f, t);
            for (n, pointer) in pointers {
                guarded.instructions[n].operands[0] = Operand::IdRef(pointer);
            }
            let at = after_phis(guarded);
            guarded.instructions.splice(at..at, new);
            debug_assert!(added > 0);
            let not_empty = r.id();
            let block = r.block_mut(f, b);
            let at = before_terminator(block);
            block.instructions.insert(
                at,
                Instruction::new(
                    Op::INotEqual,
                    Some(boolean),
                    Some(not_empty),
                    vec![Operand::IdRef(length), Operand::IdRef(zero)],
                ),
            );
            if let Some(terminator) = block.instructions.last_mut() {
                terminator.operands[0] = Operand::IdRef(not_empty);
            }
            r.sites += 1;
        });
    }

    /// `loop-exit-off-by-one`: each loop with exits gets a flag (a function variable),
    /// cleared where the loop is entered; an exit is taken only when the flag was set
    /// before, and sets it.
    fn skip_first_loop_exits(&mut self) {
        for f in 0..self.module.functions.len() {
            let loops: Vec<(usize, Word)> = self.module.functions[f]
                .blocks
                .iter()
                .enumerate()
                .filter_map(|(n, block)| {
                    let merge = block
                        .instructions
                        .iter()
                        .find(|i| i.class.opcode == Op::LoopMerge)?;
                    Some((n, operand_id(merge, 0)?))
                })
                .collect();
            for (header, merge) in loops {
                self.skip_first_exit(f, header, merge);
            }
        }
    }

    /// One loop of [`Self::skip_first_loop_exits`]: the header's block index and the merge
    /// block's label.
    fn skip_first_exit(&mut self, f: usize, header: usize, merge: Word) {
        let function: &Function = &self.module.functions[f];
        let Some(header_label) = label(&function.blocks[header]) else {
            return;
        };
        let index: HashMap<Word, usize> = function
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(n, b)| Some((label(b)?, n)))
            .collect();
        let mut predecessors: HashMap<Word, Vec<usize>> = HashMap::new();
        for (n, block) in function.blocks.iter().enumerate() {
            for s in successors(block) {
                predecessors.entry(s).or_default().push(n);
            }
        }
        // The exits: a conditional branch with the merge block as one target, or a branch
        // to it from a block whose single predecessor heads a selection (the block runs on
        // at that selection's merge block instead).
        enum Exit {
            Conditional(usize),
            Branch(usize, usize, Word),
        }
        let mut exits = Vec::new();
        for &n in predecessors.get(&merge).map(Vec::as_slice).unwrap_or(&[]) {
            let block = &function.blocks[n];
            let Some(last) = block.instructions.last() else {
                continue;
            };
            match last.class.opcode {
                Op::BranchConditional => {
                    let targets = (operand_id(last, 1), operand_id(last, 2));
                    if (targets.0 == Some(merge)) != (targets.1 == Some(merge)) {
                        exits.push(Exit::Conditional(n));
                    }
                }
                Op::Branch => {
                    let Some(&[p]) = label(block)
                        .and_then(|l| predecessors.get(&l))
                        .map(Vec::as_slice)
                    else {
                        continue;
                    };
                    let head = &function.blocks[p];
                    let at = before_terminator(head);
                    let Some(selection_merge) = head
                        .instructions
                        .get(at)
                        .filter(|i| i.class.opcode == Op::SelectionMerge)
                        .and_then(|i| operand_id(i, 0))
                    else {
                        continue;
                    };
                    let Some(&e) = index.get(&selection_merge) else {
                        continue;
                    };
                    // The selection's merge block's phis need a value for the new edge: the
                    // one from the selection's header.
                    let phis_ok = function.blocks[e]
                        .instructions
                        .iter()
                        .take_while(|i| i.class.opcode == Op::Phi)
                        .all(|phi| {
                            phi.operands
                                .chunks(2)
                                .any(|pair| id_of(&pair[1]) == label(head))
                        });
                    if selection_merge != merge
                        && selection_merge != label(block).unwrap_or(0)
                        && phis_ok
                    {
                        exits.push(Exit::Branch(n, p, selection_merge));
                    }
                }
                _ => {}
            }
        }
        if exits.is_empty() {
            return;
        }
        let entries: Vec<usize> = predecessors
            .get(&header_label)
            .map(|p| p.iter().copied().filter(|&p| p < header).collect())
            .unwrap_or_default();
        let boolean = self.bool_type();
        let pointer = self.global(
            Op::TypePointer,
            None,
            vec![
                Operand::StorageClass(StorageClass::Function),
                Operand::IdRef(boolean),
            ],
        );
        let yes = self.global(Op::ConstantTrue, Some(boolean), vec![]);
        let no = self.global(Op::ConstantFalse, Some(boolean), vec![]);
        let flag = self.id();
        let blocks = &mut self.module.functions[f].blocks;
        blocks[0].instructions.insert(
            0,
            Instruction::new(
                Op::Variable,
                Some(pointer),
                Some(flag),
                vec![Operand::StorageClass(StorageClass::Function)],
            ),
        );
        let store = |value: Word| {
            Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(flag), Operand::IdRef(value)],
            )
        };
        for entry in entries {
            let block = &mut self.module.functions[f].blocks[entry];
            let at = before_terminator(block);
            block.instructions.insert(at, store(no));
        }
        for exit in exits {
            let before = self.id();
            let load = Instruction::new(
                Op::Load,
                Some(boolean),
                Some(before),
                vec![Operand::IdRef(flag)],
            );
            match exit {
                Exit::Conditional(n) => {
                    let (leave, take, set, keep) = (self.id(), self.id(), self.id(), self.id());
                    let block = &mut self.module.functions[f].blocks[n];
                    let Some(last) = block.instructions.last().cloned() else {
                        continue;
                    };
                    let Some(condition) = operand_id(&last, 0) else {
                        continue;
                    };
                    let on_true = operand_id(&last, 1) == Some(merge);
                    let logical = |op: Op, id: Word, operands: &[Word]| {
                        Instruction::new(
                            op,
                            Some(boolean),
                            Some(id),
                            operands.iter().map(|&o| Operand::IdRef(o)).collect(),
                        )
                    };
                    let mut new = vec![load];
                    // `leave`: the branch would leave the loop.
                    if on_true {
                        new.push(logical(Op::CopyObject, leave, &[condition]));
                    } else {
                        new.push(logical(Op::LogicalNot, leave, &[condition]));
                    }
                    new.push(logical(Op::LogicalAnd, take, &[leave, before]));
                    new.push(logical(Op::LogicalOr, set, &[before, leave]));
                    new.push(store(set));
                    // The new condition: leave when `take` (on the true or the false edge).
                    if on_true {
                        new.push(logical(Op::CopyObject, keep, &[take]));
                    } else {
                        new.push(logical(Op::LogicalNot, keep, &[take]));
                    }
                    let at = before_terminator(block);
                    block.instructions.splice(at..at, new);
                    if let Some(terminator) = block.instructions.last_mut() {
                        terminator.operands[0] = Operand::IdRef(keep);
                    }
                }
                Exit::Branch(n, p, selection_merge) => {
                    let blocks = &mut self.module.functions[f].blocks;
                    let (Some(from), Some(head)) = (label(&blocks[n]), label(&blocks[p])) else {
                        continue;
                    };
                    let block = &mut blocks[n];
                    let at = before_terminator(block);
                    block.instructions.splice(at..at, [load, store(yes)]);
                    if let Some(terminator) = block.instructions.last_mut() {
                        *terminator = Instruction::new(
                            Op::BranchConditional,
                            None,
                            None,
                            vec![
                                Operand::IdRef(before),
                                Operand::IdRef(merge),
                                Operand::IdRef(selection_merge),
                            ],
                        );
                    }
                    if let Some(e) = blocks
                        .iter()
                        .position(|b| label(b) == Some(selection_merge))
                    {
                        for phi in blocks[e]
                            .instructions
                            .iter_mut()
                            .take_while(|i| i.class.opcode == Op::Phi)
                        {
                            let value = phi
                                .operands
                                .chunks(2)
                                .find(|pair| id_of(&pair[1]) == Some(head))
                                .map(|pair| pair[0].clone());
                            if let Some(value) = value {
                                phi.operands.push(value);
                                phi.operands.push(Operand::IdRef(from));
                            }
                        }
                    }
                }
            }
            self.sites += 1;
        }
    }
}
