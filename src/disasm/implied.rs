//! What the text implies about an operand's encoding, shared by the disassembler and the
//! assembler ([`crate::asm`]).
//!
//! The text shows a register's component selection as letters (`.x`, `.xy`, `.xyzw`,
//! `.xxyz`) or not at all. Which encoding those letters stand for depends on where the
//! operand sits; these are the choices fxc makes:
//!
//! * one letter is a select-1 on a source (and a relative address) and a mask on a
//!   destination or a declared register; `.xyzw` is a swizzle on a source and a mask on a
//!   destination or a declared register; two or three letters are a mask, four other
//!   letters a swizzle;
//! * an operand shown without letters has no components (`null`, `s0`, `u0` as an atomic
//!   destination, `g0`, `m0`, labels), or one component for the scalar system values
//!   (`vPrim`, `oDepth`, `oMask`, `vOutputControlPointID`, …); a declared register shown
//!   without letters has no components, except the scalar outputs and `vCoverage` (one),
//!   constant buffers (four, swizzle `.xyzw`) and, in SM5.1, every resource range
//!   (`t`, `u`, `s`: four, swizzle `.xyzw`);
//! * `l(…)` with one value has one component, with four values four (mask 0); `d(…)`
//!   likewise with one or two values.
//!
//! Where the bytes hold something else (vkd3d, for one, declares `t0`, `u0` and `vPrim`
//! with one component), the disassembler adds an annotation after the operand:
//!
//! * `{components=0}`, `{components=1}`, `{components=4}`: the component count of an operand
//!   shown without letters (`4` with mask 0);
//! * `{mask}`, `{swizzle}`, `{select1}`: the letters shown are a mask, a swizzle or a
//!   select-1 where the position implies another of these;
//! * `{mask=xy}`, `{swizzle=xxyz}`, `{select1=x}`: the selection of an immediate (whose
//!   text shows no letters).
//!
//! An instruction is as long as its encoding needs (with the dwords it keeps past its last
//! operand, shown as `{trailing=0x…}` by [`crate::disasm`]), except `samplepos`, which fxc
//! pads with one zero dword. Any other length (trailing zero dwords the decoder accepted, or an
//! unpadded `samplepos`) is shown as `{length=N}` at the end of the line.

use crate::ir::*;
use std::fmt::Write;

/// Where an operand sits, which decides what its selection letters mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A destination of an instruction.
    Destination,
    /// A source of an instruction, or a relative address.
    Source,
    /// The register a declaration declares.
    Declared,
    /// The register of a range declaration (`t0`, `cb0[4]`, `t1[0:3]`): never shown with
    /// letters.
    Range,
}

/// The component letters an operand's text shows: up to four component numbers (0–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Letters {
    /// The components, in text order.
    pub components: [u8; 4],
    /// How many letters are shown (0 when none).
    pub len: u8,
}

impl Letters {
    /// The letters as a slice.
    pub fn as_slice(&self) -> &[u8] {
        &self.components[..(self.len as usize).min(4)]
    }

    /// The letters that spell a mask (`xz` for mask 0b0101).
    pub fn of_mask(mask: u8) -> Letters {
        let mut letters = Letters::default();
        for c in (0..4u8).filter(|c| mask & (1 << c) != 0) {
            if let Some(slot) = letters.components.get_mut(letters.len as usize) {
                *slot = c;
                letters.len += 1;
            }
        }
        letters
    }

    /// The mask these letters spell, if they are distinct and in `xyzw` order.
    pub fn as_mask(&self) -> Option<u8> {
        let mut mask = 0u8;
        let mut last = None;
        for &c in self.as_slice() {
            if c > 3 || last.is_some_and(|l| l >= c) {
                return None;
            }
            mask |= 1 << c;
            last = Some(c);
        }
        Some(mask)
    }

    /// The letters a selection prints (nothing for mask 0).
    pub fn of_selection(selection: Selection) -> Letters {
        match selection {
            Selection::Mask(mask) => Letters::of_mask(mask),
            Selection::Swizzle(s) => Letters {
                components: s.map(|c| c & 3),
                len: 4,
            },
            Selection::Select1(c) => Letters {
                components: [c & 3, 0, 0, 0],
                len: 1,
            },
        }
    }
}

/// The letters a register operand's text shows in a role.
pub fn shown_letters(operand: &Operand, role: Role) -> Letters {
    match operand.components {
        ComponentCount::Four if !is_immediate(operand.kind) && role != Role::Range => {
            Letters::of_selection(operand.selection)
        }
        _ => Letters::default(),
    }
}

fn is_immediate(kind: RegisterKind) -> bool {
    matches!(kind, RegisterKind::Immediate32 | RegisterKind::Immediate64)
}

/// Registers that hold one value and are encoded with one component where they are read or
/// written without letters.
fn is_scalar(kind: RegisterKind) -> bool {
    use RegisterKind::*;
    matches!(
        kind,
        InputPrimitiveId
            | OutputControlPointId
            | OutputDepth
            | OutputDepthGreaterEqual
            | OutputDepthLessEqual
            | OutputStencilRef
            | OutputCoverageMask
            | InputCoverageMask
            | InnerCoverage
            | InputGsInstanceId
            | InputForkInstanceId
            | InputJoinInstanceId
            | InputThreadIdInGroupFlattened
            | CycleCounter
    )
}

/// Registers declared with one component.
fn is_declared_scalar(kind: RegisterKind) -> bool {
    use RegisterKind::*;
    matches!(
        kind,
        OutputDepth
            | OutputDepthGreaterEqual
            | OutputDepthLessEqual
            | OutputStencilRef
            | InputCoverageMask
            | InnerCoverage
    )
}

/// The component count and selection a register operand's text implies (see the module
/// documentation). Immediates are handled by [`implied_immediate`].
pub fn implied(
    model: ShaderModel,
    role: Role,
    kind: RegisterKind,
    letters: Letters,
) -> (ComponentCount, Selection) {
    let four = |selection| (ComponentCount::Four, selection);
    match letters.len {
        0 => {
            let identity = Selection::Swizzle([0, 1, 2, 3]);
            let count = match role {
                Role::Declared | Role::Range => match kind {
                    RegisterKind::ConstantBuffer => return four(identity),
                    k if k.is_resource_range() && model.has_resource_ranges() => {
                        return four(identity)
                    }
                    k if is_declared_scalar(k) => ComponentCount::One,
                    _ => ComponentCount::Zero,
                },
                Role::Destination | Role::Source if is_scalar(kind) => ComponentCount::One,
                Role::Destination | Role::Source => ComponentCount::Zero,
            };
            (count, Selection::Mask(0))
        }
        1 if role == Role::Source => four(Selection::Select1(letters.components[0] & 3)),
        4 if role == Role::Source || letters.as_mask().is_none() => {
            four(Selection::Swizzle(letters.components.map(|c| c & 3)))
        }
        _ => four(Selection::Mask(letters.as_mask().unwrap_or(0))),
    }
}

/// The component count an immediate with `values` values implies (`l(…)`: 1 or 4,
/// `d(…)`: 1 or 2), with mask 0 for the four-component form.
pub fn implied_immediate(kind: RegisterKind, values: usize) -> Option<ComponentCount> {
    match (kind, values) {
        (RegisterKind::Immediate32 | RegisterKind::Immediate64, 1) => Some(ComponentCount::One),
        (RegisterKind::Immediate32, 4) | (RegisterKind::Immediate64, 2) => {
            Some(ComponentCount::Four)
        }
        _ => None,
    }
}

/// For each instruction, the length to show as `{length=N}`: `Some` where the recorded
/// length is longer than the encoding needs and is not fxc's `samplepos` padding, or where a
/// `samplepos` is not padded. Empty when the program cannot be encoded.
pub fn lengths_to_show(program: &Program) -> Vec<Option<u32>> {
    let mut bare = program.clone();
    for instruction in &mut bare.instructions {
        instruction.length = 0;
    }
    let Ok(words) = crate::tpf::encode_words(&bare) else {
        return Vec::new();
    };
    let mut at = 2usize;
    let mut shown = Vec::with_capacity(program.instructions.len());
    for instruction in &program.instructions {
        let needed = if instruction.opcode == crate::isa::Opcode::CustomData {
            words.get(at + 1).copied().unwrap_or(0)
        } else {
            crate::tpf::tokens::length(words.get(at).copied().unwrap_or(0))
        };
        at += needed as usize;
        let implied = needed + implied_padding(instruction.opcode);
        let show = instruction.length != implied && instruction.length >= needed;
        shown.push(show.then_some(instruction.length));
    }
    shown
}

/// The zero dwords fxc pads an instruction with: one for `samplepos`.
pub fn implied_padding(opcode: crate::isa::Opcode) -> u32 {
    u32::from(opcode == crate::isa::Opcode::SamplePos)
}

/// Writes the annotation (with a leading space) that an operand needs when its encoding
/// differs from what its text implies in this role; writes nothing otherwise.
pub fn write_annotation(out: &mut String, model: ShaderModel, role: Role, operand: &Operand) {
    let letters = shown_letters(operand, role);
    let (count, selection) = if is_immediate(operand.kind) {
        // The number of values shows the component count.
        (operand.components, Selection::Mask(0))
    } else {
        implied(model, role, operand.kind, letters)
    };
    let same = match operand.components {
        ComponentCount::Four => count == ComponentCount::Four && selection == operand.selection,
        other => other == count,
    };
    if same {
        return;
    }
    match (operand.components, operand.selection) {
        (ComponentCount::Zero, _) => out.push_str(" {components=0}"),
        (ComponentCount::One, _) => out.push_str(" {components=1}"),
        (ComponentCount::N(n), _) => {
            let _ = write!(out, " {{components=n{n}}}");
        }
        (ComponentCount::Four, Selection::Mask(0)) => out.push_str(" {components=4}"),
        (ComponentCount::Four, selection) => {
            let _ = write!(out, " {{{}", selection_mode(selection));
            if letters.len == 0 {
                // Nothing shows the letters (an immediate, a range declaration).
                out.push('=');
                write_letters(out, Letters::of_selection(selection));
            }
            out.push('}');
        }
    }
}

/// The annotation name of a selection mode.
fn selection_mode(selection: Selection) -> &'static str {
    match selection {
        Selection::Mask(_) => "mask",
        Selection::Swizzle(_) => "swizzle",
        Selection::Select1(_) => "select1",
    }
}

fn write_letters(out: &mut String, letters: Letters) {
    for &c in letters.as_slice() {
        out.push(['x', 'y', 'z', 'w'][(c & 3) as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(minor: u8) -> ShaderModel {
        ShaderModel {
            stage: Stage::Pixel,
            major: 5,
            minor,
        }
    }

    fn letters(text: &str) -> Letters {
        let mut l = Letters::default();
        for (i, c) in text.bytes().enumerate() {
            l.components[i] = b"xyzw".iter().position(|&x| x == c).unwrap() as u8;
            l.len += 1;
        }
        l
    }

    #[test]
    fn letters_mean_mask_or_select_by_role() {
        use RegisterKind::Temp;
        let m = model(0);
        assert_eq!(
            implied(m, Role::Source, Temp, letters("x")),
            (ComponentCount::Four, Selection::Select1(0))
        );
        assert_eq!(
            implied(m, Role::Destination, Temp, letters("x")),
            (ComponentCount::Four, Selection::Mask(1))
        );
        assert_eq!(
            implied(m, Role::Source, Temp, letters("xyzw")),
            (ComponentCount::Four, Selection::Swizzle([0, 1, 2, 3]))
        );
        assert_eq!(
            implied(m, Role::Declared, Temp, letters("xyzw")),
            (ComponentCount::Four, Selection::Mask(15))
        );
        assert_eq!(
            implied(m, Role::Source, Temp, letters("xz")),
            (ComponentCount::Four, Selection::Mask(5))
        );
    }

    #[test]
    fn unlettered_operands_follow_fxc() {
        use RegisterKind::*;
        let (m50, m51) = (model(0), model(1));
        assert_eq!(
            implied(m50, Role::Declared, Resource, Letters::default()).0,
            ComponentCount::Zero
        );
        assert_eq!(
            implied(m51, Role::Declared, Resource, Letters::default()).0,
            ComponentCount::Four
        );
        assert_eq!(
            implied(m50, Role::Source, InputPrimitiveId, Letters::default()).0,
            ComponentCount::One
        );
        assert_eq!(
            implied(m50, Role::Declared, InputPrimitiveId, Letters::default()).0,
            ComponentCount::Zero
        );
        assert_eq!(
            implied(m50, Role::Declared, OutputDepth, Letters::default()).0,
            ComponentCount::One
        );
    }

    #[test]
    fn annotations_name_what_the_text_cannot_show() {
        let m = model(0);
        let mut operand = Operand::register(
            RegisterKind::Resource,
            ComponentCount::One,
            Selection::Mask(0),
        );
        let mut out = String::new();
        write_annotation(&mut out, m, Role::Declared, &operand);
        assert_eq!(out, " {components=1}");
        operand.components = ComponentCount::Zero;
        out.clear();
        write_annotation(&mut out, m, Role::Declared, &operand);
        assert_eq!(out, "");
        let temp = Operand::register(RegisterKind::Temp, ComponentCount::Four, Selection::Mask(1));
        write_annotation(&mut out, m, Role::Source, &temp);
        assert_eq!(out, " {mask}");
    }
}
