//! Subroutines (`label lN` after the main program, called by `call` and `callc`) and
//! class-linkage function bodies (`label fbN`, called through `fcall`) are inlined where
//! they are called: Direct3D forbids recursion, and a subroutine reads and writes the
//! caller's temps, so inlined code keeps every temp an SSA value of one function.
//!
//! A body whose only `ret` is its last instruction is emitted in place. A body that returns
//! earlier is wrapped in a switch construct with only a default target, so that a `ret`
//! is a branch to the switch's merge (a switch break, allowed from nested selections). A
//! `ret` inside a loop or switch of the body cannot branch there directly: it sets a return
//! flag (a hidden temp of the inlined call, an SSA value like the others) and breaks out of
//! its construct; after each construct it left, the flag is tested and the break repeated
//! until the wrapper is left.

use std::ops::Range;

use spirv::SelectionControl;

use super::emitter::Emitter;
use super::flow::Construct;
use super::module::{built, Scalar};
use crate::error::Result;
use crate::fast_hash::HashMap;
use crate::ir::{Program, RegisterKind};
use crate::isa::Opcode;

/// The most instructions that inlining may translate in one program (a call graph that
/// inlines to more is refused rather than allowed to grow without bound).
const MAX_INLINED: usize = 1 << 17;

/// The register of the return flag of the call inlined at depth `depth` (1 for the
/// outermost): a temp register past any a program may declare.
fn return_flag(depth: usize) -> u32 {
    u32::MAX - depth as u32
}

/// The bodies of a program's subroutines and function bodies, and the calls being inlined.
#[derive(Debug, Default)]
pub struct Subroutines {
    /// The code of each subroutine `lN` (after its `label`), by label number.
    labels: HashMap<u32, Range<usize>>,
    /// The code of each function body `fbN`, by body number.
    bodies: HashMap<u32, Range<usize>>,
    /// The labels (instruction indices) of the calls being inlined, outermost first.
    active: Vec<usize>,
    /// The instructions inlined so far.
    inlined: usize,
}

impl Subroutines {
    /// The subroutines and function bodies of `program` (from its first `label` on).
    pub fn of(program: &Program) -> Subroutines {
        let mut subroutines = Subroutines::default();
        let from = program.subroutines_start();
        let starts: Vec<usize> = (from..program.instructions.len())
            .filter(|&i| program.instructions[i].opcode == Opcode::Label)
            .collect();
        for (n, &start) in starts.iter().enumerate() {
            let end = starts
                .get(n + 1)
                .copied()
                .unwrap_or(program.instructions.len());
            let Some(label) = program.srcs(&program.instructions[start]).first() else {
                continue;
            };
            let Some(number) = label.indices().first().and_then(|i| i.as_imm32()) else {
                continue;
            };
            let table = match label.kind {
                RegisterKind::FunctionBody => &mut subroutines.bodies,
                _ => &mut subroutines.labels,
            };
            table.insert(number, start + 1..end);
        }
        subroutines
    }

    /// Whether a function body `fbN` exists.
    pub fn has_body(&self, body: u32) -> bool {
        self.bodies.contains_key(&body)
    }
}

/// How a body returns.
struct Returns {
    /// A `ret` or `retc` other than a last `ret` outside any construct.
    early: bool,
    /// A `ret` or `retc` inside a loop or switch of the body.
    nested: bool,
}

/// How the code `range` of `program` returns.
fn returns(program: &Program, range: &Range<usize>) -> Returns {
    let mut found = Returns {
        early: false,
        nested: false,
    };
    // Open constructs, and open loops and switches.
    let (mut open, mut breakable) = (0u32, 0u32);
    let last = range.end.checked_sub(1);
    for index in range.clone() {
        let instruction = &program.instructions[index];
        match instruction.opcode {
            Opcode::If => open += 1,
            Opcode::EndIf => open = open.saturating_sub(1),
            Opcode::Loop | Opcode::Switch => {
                open += 1;
                breakable += 1;
            }
            Opcode::EndLoop | Opcode::EndSwitch => {
                open = open.saturating_sub(1);
                breakable = breakable.saturating_sub(1);
            }
            Opcode::Ret | Opcode::Retc => {
                let final_ret =
                    instruction.opcode == Opcode::Ret && open == 0 && Some(index) == last;
                if !final_ret {
                    found.early = true;
                }
                if breakable > 0 {
                    found.nested = true;
                }
            }
            _ => {}
        }
    }
    found
}

impl Emitter<'_> {
    /// `call lN`: the subroutine's code, inlined.
    pub(super) fn call_subroutine(&mut self, label: u32) -> Result<()> {
        let range = self
            .subroutines
            .labels
            .get(&label)
            .cloned()
            .ok_or_else(|| self.err(format!("call to l{label}, which no label declares")))?;
        self.inline(range)
    }

    /// The code of function body `fbN`, inlined (one case of an `fcall`).
    pub(super) fn call_body(&mut self, body: u32) -> Result<()> {
        let range =
            self.subroutines.bodies.get(&body).cloned().ok_or_else(|| {
                self.err(format!("fcall reaches fb{body}, which no label declares"))
            })?;
        self.inline(range)
    }

    /// Inlines the code `range` (a body after its `label`) into the block being emitted.
    fn inline(&mut self, range: Range<usize>) -> Result<()> {
        let label = range.start.wrapping_sub(1);
        if self.subroutines.active.contains(&label) {
            return Err(self.err(
                "a recursive call (a subroutine reaches itself; Direct3D forbids recursion)",
            ));
        }
        self.subroutines.inlined += range.len();
        if self.subroutines.inlined > MAX_INLINED {
            return Err(self.unsupported(format!(
                "the subroutine calls inline to more than {MAX_INLINED} instructions"
            )));
        }
        let at = self.at;
        // A hull shader's subroutine reads and writes the registers of the phase that calls it.
        let phase = self.io.stage.subroutine_phase;
        self.io.stage.subroutine_phase = self.hull_phase();
        self.subroutines.active.push(label);
        let program = self.program;
        let returns = returns(program, &range);
        let result = if returns.early {
            self.inline_wrapped(range, returns.nested)
        } else {
            self.flow.push(Construct::Inline { merge: None });
            let result = self.translate_code(range);
            self.flow.pop();
            result
        };
        self.subroutines.active.pop();
        self.io.stage.subroutine_phase = phase;
        self.at = at;
        result
    }

    /// Inlines a body that returns early inside a switch construct with only a default.
    fn inline_wrapped(&mut self, range: Range<usize>, nested: bool) -> Result<()> {
        let header = self.m.b.selected_label();
        self.ssa_open_construct(header);
        let body = self.m.b.id();
        let merge = self.m.b.id();
        let selector = self.m.constant_u32(0);
        built(self.m.selection_merge(merge, SelectionControl::NONE))?;
        built(self.m.b.switch(selector, body, []))?;
        built(self.m.begin_block(Some(body)))?;
        self.block_open = true;
        self.flow.push(Construct::Inline { merge: Some(merge) });
        if nested {
            let zero = self.m.constant_u32(0);
            self.ssa_write(return_flag(self.inline_depth()), 0, zero)?;
        }
        self.translate_code(range)?;
        self.flow.pop();
        self.branch(merge)?;
        built(self.m.begin_block(Some(merge)))?;
        self.block_open = true;
        self.ssa_close_construct(Some(merge));
        Ok(())
    }

    /// The number of calls being inlined around the code being emitted.
    fn inline_depth(&self) -> usize {
        self.flow
            .iter()
            .filter(|c| matches!(c, Construct::Inline { .. }))
            .count()
    }

    /// `ret` in inlined code: leaves the innermost construct that can be left towards the
    /// end of the inlined body (with the return flag set when that is a loop or switch of
    /// the body). Returns false outside inlined code (a `ret` of the entry function).
    pub(super) fn inline_return(&mut self) -> Result<bool> {
        let depth = self.inline_depth();
        let Some(position) = self.flow.iter().rposition(|c| {
            matches!(
                c,
                Construct::Loop { .. } | Construct::Switch { .. } | Construct::Inline { .. }
            )
        }) else {
            return Ok(false);
        };
        if depth == 0 {
            return Ok(false);
        }
        match &mut self.flow[position] {
            // Without a merge, the `ret` is the body's last instruction: its code simply ends.
            Construct::Inline { merge } => {
                if let Some(merge) = *merge {
                    self.branch(merge)?;
                }
            }
            Construct::Loop { merge, returns, .. } | Construct::Switch { merge, returns, .. } => {
                *returns = true;
                let merge = *merge;
                let one = self.m.constant_u32(1);
                self.ssa_write(return_flag(depth), 0, one)?;
                self.branch(merge)?;
            }
            Construct::If { .. } => return Err(self.internal("an if is not left by ret")),
        }
        Ok(true)
    }

    /// After a loop or switch of inlined code that a `ret` left: when the return flag is
    /// set, leaves the next construct too.
    pub(super) fn after_returning_construct(&mut self) -> Result<()> {
        let depth = self.inline_depth();
        let flag = self.ssa_read(return_flag(depth), 0, Scalar::U32)?;
        let boolean = self.m.scalar(Scalar::Bool);
        let zero = self.m.constant_u32(0);
        let set = built(self.m.b.i_not_equal(boolean, None, flag, zero))?;
        self.conditional(set, |e| e.inline_return().map(|_| ()))
    }
}
