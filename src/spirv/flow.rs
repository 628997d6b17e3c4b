//! Control flow: D3D's structured `if`/`loop`/`switch` onto SPIR-V's selection, loop and
//! switch constructs; conditional `break`/`continue`/`ret`/`discard` as small selections;
//! subroutine calls; discard as demote-to-helper.

use super::builder::{Operand as SpvOperand, Operands};
use spirv::{SelectionControl, Word};

use super::emitter::Emitter;
use super::module::{built, Scalar};
use crate::error::Result;
use crate::ir::{Instruction, Test};
use crate::isa::Opcode;

/// An open control-flow construct.
#[derive(Debug, Clone)]
pub enum Construct {
    /// `if` … [`else` …] `endif`.
    If {
        /// The else block (empty when the source has no `else`).
        else_label: Word,
        /// The merge block.
        merge: Word,
        /// Whether `else` was seen.
        in_else: bool,
    },
    /// `loop` … `endloop`.
    Loop {
        /// The loop header.
        header: Word,
        /// The continue target.
        continue_target: Word,
        /// The merge block.
        merge: Word,
        /// Whether a `ret` of inlined code leaves the loop (see [`super::subroutines`]).
        returns: bool,
    },
    /// `switch` … `endswitch`.
    Switch {
        /// The selector value.
        selector: Word,
        /// The function-relative index of the header block.
        header_block: usize,
        /// The merge block.
        merge: Word,
        /// (literal, label) of each case, in order.
        cases: Vec<(u32, Word)>,
        /// The default label.
        default: Option<Word>,
        /// The label of the case block being filled, and whether it has any code yet.
        current: Option<(Word, bool)>,
        /// Every case block begun (sealed for SSA at `endswitch`, when the `OpSwitch`
        /// that branches to them exists).
        blocks: Vec<Word>,
        /// Whether a `ret` of inlined code leaves the switch (see [`super::subroutines`]).
        returns: bool,
    },
    /// The code of a subroutine or function body, inlined where it is called.
    Inline {
        /// The merge of the construct a `ret` leaves the body by (`None` when the body's
        /// only `ret` is its last instruction).
        merge: Option<Word>,
    },
}

impl Emitter<'_> {
    /// Emits control-flow instructions; returns false for other opcodes.
    pub fn flow_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        let srcs = self.program.srcs(instruction);
        match instruction.opcode {
            Opcode::If => {
                let condition = self.condition(instruction)?;
                let header = self.m.b.selected_label();
                self.ssa_open_construct(header);
                let then_label = self.m.b.id();
                let else_label = self.m.b.id();
                let merge = self.m.b.id();
                built(self.m.selection_merge(merge, SelectionControl::NONE))?;
                built(
                    self.m
                        .b
                        .branch_conditional(condition, then_label, else_label, []),
                )?;
                built(self.m.begin_block(Some(then_label)))?;
                self.flow.push(Construct::If {
                    else_label,
                    merge,
                    in_else: false,
                });
            }
            Opcode::Else => match self.flow.last().cloned() {
                Some(Construct::If {
                    else_label,
                    merge,
                    in_else: false,
                }) => {
                    self.branch(merge)?;
                    built(self.m.begin_block(Some(else_label)))?;
                    self.block_open = true;
                    if let Some(Construct::If { in_else, .. }) = self.flow.last_mut() {
                        *in_else = true;
                    }
                }
                _ => return Err(self.err("else without a matching if")),
            },
            Opcode::EndIf => match self.flow.pop() {
                Some(Construct::If {
                    else_label,
                    merge,
                    in_else,
                }) => {
                    self.branch(merge)?;
                    if !in_else {
                        built(self.m.begin_block(Some(else_label)))?;
                        self.block_open = true;
                        self.branch(merge)?;
                    }
                    built(self.m.begin_block(Some(merge)))?;
                    self.block_open = true;
                    self.ssa_close_construct(Some(merge));
                }
                _ => return Err(self.err("endif without a matching if")),
            },
            Opcode::Loop => {
                let header = self.m.b.id();
                let body = self.m.b.id();
                let continue_target = self.m.b.id();
                let merge = self.m.b.id();
                let preheader = self.m.b.selected_label().filter(|_| self.block_open);
                self.ssa_open_construct(preheader);
                self.branch(header)?;
                // The back edge comes at `endloop`.
                self.ssa_unseal(header);
                built(self.m.begin_block(Some(header)))?;
                built(
                    self.m
                        .b
                        .loop_merge(merge, continue_target, spirv::LoopControl::NONE, []),
                )?;
                built(self.m.branch(body))?;
                built(self.m.begin_block(Some(body)))?;
                self.block_open = true;
                self.flow.push(Construct::Loop {
                    header,
                    continue_target,
                    merge,
                    returns: false,
                });
            }
            Opcode::EndLoop => match self.flow.pop() {
                Some(Construct::Loop {
                    header,
                    continue_target,
                    merge,
                    returns,
                    ..
                }) => {
                    self.branch(continue_target)?;
                    built(self.m.begin_block(Some(continue_target)))?;
                    built(self.m.branch(header))?;
                    self.ssa_seal(header);
                    built(self.m.begin_block(Some(merge)))?;
                    self.block_open = true;
                    // Once sealed, the header of a loop that does not write a key has the
                    // key's value from before the loop.
                    self.ssa_close_construct(Some(header));
                    if returns {
                        self.after_returning_construct()?;
                    }
                }
                _ => return Err(self.err("endloop without a matching loop")),
            },
            Opcode::Break => {
                let target = self.break_target()?;
                self.branch(target)?;
            }
            Opcode::Breakc => {
                let target = self.break_target()?;
                let condition = self.condition(instruction)?;
                self.conditional(condition, |e| e.branch(target))?;
            }
            Opcode::Continue => {
                let target = self.continue_target()?;
                self.branch(target)?;
            }
            Opcode::Continuec => {
                let target = self.continue_target()?;
                let condition = self.condition(instruction)?;
                self.conditional(condition, |e| e.branch(target))?;
            }
            Opcode::Ret => self.ret()?,
            Opcode::Retc => {
                let condition = self.condition(instruction)?;
                self.conditional(condition, |e| e.ret())?;
            }
            Opcode::Discard => {
                let condition = self.condition(instruction)?;
                self.conditional(condition, |e| e.demote())?;
            }
            Opcode::Switch => {
                let selector = match srcs.first() {
                    Some(operand) => self.load_scalar(operand, Scalar::U32)?.id,
                    None => return Err(self.err("switch needs a selector")),
                };
                let header_block = self
                    .m
                    .b
                    .selected_block()
                    .ok_or_else(|| self.err("switch outside a block"))?;
                let header = self.m.b.selected_label();
                self.ssa_open_construct(header);
                built(self.m.b.select_block(None))?;
                self.block_open = false;
                let merge = self.m.b.id();
                self.flow.push(Construct::Switch {
                    selector,
                    header_block,
                    merge,
                    cases: Vec::new(),
                    default: None,
                    current: None,
                    blocks: Vec::new(),
                    returns: false,
                });
            }
            Opcode::Case | Opcode::Default => self.case_label(instruction)?,
            Opcode::EndSwitch => self.end_switch()?,
            Opcode::Call => {
                let label = self.callee(instruction, 0)?;
                self.call_subroutine(label)?;
            }
            Opcode::Callc => {
                let label = self.callee(instruction, 1)?;
                let condition = self.condition(instruction)?;
                self.conditional(condition, |e| e.call_subroutine(label))?;
            }
            Opcode::Nop => {}
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Branches to `target` if the block is open, and closes it.
    pub fn branch(&mut self, target: Word) -> Result<()> {
        if self.block_open {
            built(self.m.branch(target))?;
            self.block_open = false;
        }
        Ok(())
    }

    /// The boolean condition of a conditional instruction: its first source compared with 0
    /// according to `_z`/`_nz`.
    fn condition(&mut self, instruction: &Instruction) -> Result<Word> {
        let operand = *self
            .program
            .srcs(instruction)
            .first()
            .ok_or_else(|| self.err("a conditional instruction needs a condition"))?;
        let value = self.load_scalar(&operand, Scalar::U32)?;
        let boolean = self.m.scalar(Scalar::Bool);
        let zero = self.m.constant_u32(0);
        if instruction.test == Some(Test::Zero) {
            built(self.m.b.i_equal(boolean, None, value.id, zero))
        } else {
            built(self.m.b.i_not_equal(boolean, None, value.id, zero))
        }
    }

    /// Emits `body` in a selection construct taken when `condition` holds; code continues
    /// in the merge block.
    pub fn conditional(
        &mut self,
        condition: Word,
        body: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let then_label = self.m.b.id();
        let merge = self.m.b.id();
        let header = self.m.b.selected_label();
        self.ssa_open_construct(header);
        built(self.m.selection_merge(merge, SelectionControl::NONE))?;
        built(
            self.m
                .b
                .branch_conditional(condition, then_label, merge, []),
        )?;
        built(self.m.begin_block(Some(then_label)))?;
        self.block_open = true;
        body(self)?;
        self.branch(merge)?;
        built(self.m.begin_block(Some(merge)))?;
        self.block_open = true;
        self.ssa_close_construct(Some(merge));
        Ok(())
    }

    /// Like [`Self::conditional`], for straight-line guarded code (bounds checks).
    pub fn guarded(
        &mut self,
        condition: Word,
        body: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        self.conditional(condition, body)
    }

    /// `ret`: leaves inlined code, or ends the invocation (writing its outputs).
    fn ret(&mut self) -> Result<()> {
        if !self.inline_return()? {
            self.function_exit()?;
            built(self.m.b.ret())?;
            self.block_open = false;
        }
        Ok(())
    }

    /// The constructs of the code being emitted, innermost first, up to the inlined body
    /// it belongs to (a subroutine's `break` cannot leave its caller's loop).
    fn own_constructs(&self) -> impl Iterator<Item = &Construct> {
        self.flow
            .iter()
            .rev()
            .take_while(|c| !matches!(c, Construct::Inline { .. }))
    }

    fn break_target(&self) -> Result<Word> {
        self.own_constructs()
            .find_map(|c| match c {
                Construct::Loop { merge, .. } | Construct::Switch { merge, .. } => Some(*merge),
                Construct::If { .. } | Construct::Inline { .. } => None,
            })
            .ok_or_else(|| self.err("break outside a loop or switch"))
    }

    fn continue_target(&self) -> Result<Word> {
        self.own_constructs()
            .find_map(|c| match c {
                Construct::Loop {
                    continue_target, ..
                } => Some(*continue_target),
                _ => None,
            })
            .ok_or_else(|| self.err("continue outside a loop"))
    }

    /// The label number a `call` (source `source`) or `callc` names.
    fn callee(&self, instruction: &Instruction, source: usize) -> Result<u32> {
        self.program
            .srcs(instruction)
            .get(source)
            .and_then(|o| o.indices[0].as_imm32())
            .ok_or_else(|| self.err("call needs a label"))
    }

    /// `discard`: the invocation becomes a helper invocation (it keeps running for
    /// derivatives but writes nothing).
    fn demote(&mut self) -> Result<()> {
        if self.options.target.spirv_version() < (1, 6) {
            self.m.extension("SPV_EXT_demote_to_helper_invocation");
        }
        self.m
            .capability(spirv::Capability::DemoteToHelperInvocation);
        // Not a block terminator: the block stays open.
        let inst = crate::spirv::builder::inst(
            spirv::Op::DemoteToHelperInvocation,
            None,
            None,
            Operands::new(),
        );
        built(self.m.b.append(inst))
    }

    fn case_label(&mut self, instruction: &Instruction) -> Result<()> {
        let literal = if instruction.opcode == Opcode::Case {
            let operand = *self
                .program
                .srcs(instruction)
                .first()
                .ok_or_else(|| self.err("case needs a value"))?;
            if operand.kind != crate::ir::RegisterKind::Immediate32 {
                return Err(self.err("case needs an immediate value"));
            }
            Some(operand.values[0])
        } else {
            None
        };
        let Some(Construct::Switch { current, .. }) = self.flow.last().cloned() else {
            return Err(self.err("case or default outside a switch"));
        };
        // Consecutive labels with no code between them share a block; otherwise the
        // previous case falls through into this one.
        let label = match current {
            Some((label, false)) => label,
            _ => {
                let label = self.m.b.id();
                self.branch(label)?;
                // The `switch` that jumps here is added at `endswitch`.
                self.ssa_unseal(label);
                built(self.m.begin_block(Some(label)))?;
                self.block_open = true;
                label
            }
        };
        if let Some(Construct::Switch {
            cases,
            default,
            current,
            blocks,
            ..
        }) = self.flow.last_mut()
        {
            if blocks.last() != Some(&label) {
                blocks.push(label);
            }
            match literal {
                Some(value) => cases.push((value, label)),
                None => *default = Some(label),
            }
            *current = Some((label, false));
        }
        Ok(())
    }

    /// Marks the current case block as having code (called for every non-label
    /// instruction inside a switch).
    pub fn note_case_code(&mut self) {
        if let Some(Construct::Switch {
            current: Some((_, has_code)),
            ..
        }) = self.flow.last_mut()
        {
            *has_code = true;
        }
    }

    fn end_switch(&mut self) -> Result<()> {
        let Some(Construct::Switch {
            selector,
            header_block,
            merge,
            cases,
            default,
            blocks,
            returns,
            ..
        }) = self.flow.pop()
        else {
            return Err(self.err("endswitch without a matching switch"));
        };
        self.branch(merge)?;
        let current = self.m.b.selected_block();
        built(self.m.b.select_block(Some(header_block)))?;
        built(self.m.selection_merge(merge, SelectionControl::NONE))?;
        let targets: Vec<(SpvOperand, Word)> = cases
            .iter()
            .map(|&(value, label)| (SpvOperand::LiteralBit32(value), label))
            .collect();
        built(self.m.b.switch(selector, default.unwrap_or(merge), targets))?;
        // Every case block, also one no branch reaches (a second `default` replaces the
        // first as the switch's target).
        for label in blocks {
            self.ssa_seal(label);
        }
        let _ = current;
        built(self.m.b.select_block(None))?;
        built(self.m.begin_block(Some(merge)))?;
        self.block_open = true;
        self.ssa_close_construct(Some(merge));
        if returns {
            self.after_returning_construct()?;
        }
        Ok(())
    }

    /// Translates the code of instructions `range` (declarations are skipped, and so is
    /// unreachable code) into the function being emitted.
    pub(super) fn translate_code(&mut self, range: std::ops::Range<usize>) -> Result<()> {
        let program = self.program;
        let mut dead = DeadCode::default();
        for index in range {
            let Some(instruction) = program.instructions.get(index) else {
                break;
            };
            if instruction.declaration.is_some() || dead.skip(instruction.opcode) {
                continue;
            }
            self.set_at(index, instruction);
            self.instruction(instruction)?;
            dead.translated(instruction.opcode, self.block_open);
        }
        Ok(())
    }
}

/// Tracks unreachable code: after a `break`, `continue` or `ret` has closed the block, the
/// instructions up to the end of the enclosing construct (an `else`, `case`, `default`,
/// `endif`, `endloop`, `endswitch` or `label` of its own level) can never run and are not
/// translated. A jump from them would also leave SPIR-V's structured constructs (an
/// unreachable block is in no loop, so it may not branch to a continue target).
#[derive(Debug, Default)]
pub struct DeadCode {
    /// Constructs opened inside the unreachable code, when in it.
    depth: Option<u32>,
}

impl DeadCode {
    /// Whether to skip an instruction (it is unreachable).
    pub fn skip(&mut self, opcode: Opcode) -> bool {
        let Some(depth) = self.depth.as_mut() else {
            return false;
        };
        match opcode {
            Opcode::If | Opcode::Loop | Opcode::Switch => *depth += 1,
            Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch if *depth > 0 => *depth -= 1,
            Opcode::Else | Opcode::Case | Opcode::Default if *depth > 0 => {}
            Opcode::Else
            | Opcode::Case
            | Opcode::Default
            | Opcode::EndIf
            | Opcode::EndLoop
            | Opcode::EndSwitch
            | Opcode::Label
            | Opcode::HsDecls
            | Opcode::HsControlPointPhase
            | Opcode::HsForkPhase
            | Opcode::HsJoinPhase => {
                self.depth = None;
                return false;
            }
            _ => {}
        }
        true
    }

    /// Notes an instruction that was translated: an unconditional jump that closed the block
    /// starts unreachable code.
    pub fn translated(&mut self, opcode: Opcode, block_open: bool) {
        if !block_open && matches!(opcode, Opcode::Break | Opcode::Continue | Opcode::Ret) {
            self.depth = Some(0);
        }
    }
}
