//! Double-pair legalization: the 32-bit masks and swizzles of double-precision operands
//! become explicit 64-bit lanes.
//!
//! DXBC registers are 32-bit; a double lives in two components, the low half first
//! (`x` low / `y` high, `z` low / `w` high, see `seeds/dmovc.md`). Instructions still write
//! 32-bit masks and read 32-bit swizzles, of which only a few are legal:
//!
//! - a 64-bit destination has mask `.xy`, `.zw` or `.xyzw`: lane 0 is `xy`, lane 1 is `zw`;
//! - a 32-bit destination of a double instruction (`dtof`, `deq`, …) has one or two
//!   components: lane `i` writes the `i`-th component of the mask;
//! - a double source has swizzle `.xyzw`, `.xyxy`, `.zwxy` or `.zwzw`: the double of lane
//!   `k` is the pair (`swizzle[2k]`, `swizzle[2k+1]`);
//! - a 32-bit source of a double instruction (`dmovc`'s condition, `ftod`/`itod`/`utod`) is
//!   read from component `swizzle[k]` for the lane writing double `k` (`xy` reads the first
//!   component after the swizzle, `zw` the second).
//!
//! `d(…)` immediates hold their doubles as (low, high) pairs, so they read like `.xyzw`; a
//! one-value `d(…)` is the same double for both lanes. Anything else is an error naming
//! the instruction. The emitter only follows the lanes this pass returns.

use crate::error::{Error, Result};
use crate::ir::{
    ComponentCount, Instruction, Operand, Program, RegisterKind, Selection, ValueType,
};

/// How a lane reads one source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceRead {
    /// A double: the components (or immediate values) of its low and high halves.
    Double {
        /// Component of the low 32 bits.
        low: u8,
        /// Component of the high 32 bits.
        high: u8,
    },
    /// A 32-bit value in one component (or immediate value).
    Single(u8),
}

/// One lane of a double-precision instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// For a 64-bit destination, the component of the low half (0 or 2; the high half is
    /// the next one); for a 32-bit destination, the component written.
    pub dst: u8,
    /// How each source is read, in operand order.
    pub srcs: Vec<SourceRead>,
}

/// A legalized double-precision instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoubleInstruction {
    /// Whether the destination holds doubles (pairs of components).
    pub wide_dst: bool,
    /// The lanes, in order; empty when the destination is `null`.
    pub lanes: Vec<Lane>,
}

/// Whether an instruction reads or writes doubles.
pub fn is_double(instruction: &Instruction) -> bool {
    let info = instruction.opcode.info();
    instruction.declaration.is_none()
        && info
            .dsts
            .iter()
            .chain(info.srcs)
            .any(|t| *t == ValueType::F64)
}

/// Legalizes every double-precision instruction of a program: `(instruction index, lanes)`.
pub fn legalize(program: &Program) -> Result<Vec<(usize, DoubleInstruction)>> {
    let mut out = Vec::new();
    for (index, instruction) in program.instructions.iter().enumerate() {
        if let Some(legal) = legalize_instruction(program, index, instruction)? {
            out.push((index, legal));
        }
    }
    Ok(out)
}

/// Legalizes one instruction (`index` is its position, for errors); `None` when it does not
/// use doubles.
pub fn legalize_instruction(
    program: &Program,
    index: usize,
    instruction: &Instruction,
) -> Result<Option<DoubleInstruction>> {
    if !is_double(instruction) {
        return Ok(None);
    }
    let name = instruction.opcode.name();
    let err = |message: String| {
        Error::instruction(
            u32::try_from(index).unwrap_or(u32::MAX),
            instruction.dword,
            format!("{name}: {message}"),
        )
    };
    let info = instruction.opcode.info();
    let dsts = program.dsts(instruction);
    let srcs = program.srcs(instruction);
    let (Some(dst), Some(dst_type)) = (dsts.first(), info.dsts.first()) else {
        return Err(err("a double instruction needs a destination".into()));
    };
    if dsts.len() != 1 || srcs.len() != info.srcs.len() {
        return Err(err("unexpected operand count".into()));
    }
    let wide_dst = *dst_type == ValueType::F64;
    // (destination component, double index) per lane.
    let slots: Vec<(u8, usize)> = if dst.kind == RegisterKind::Null {
        Vec::new()
    } else if wide_dst {
        match dst.mask() {
            0b0011 => vec![(0, 0)],
            0b1100 => vec![(2, 1)],
            0b1111 => vec![(0, 0), (2, 1)],
            mask => {
                return Err(err(format!(
                    "destination mask {} is not a legal double mask (.xy, .zw, .xyzw)",
                    mask_name(mask)
                )))
            }
        }
    } else {
        let components: Vec<u8> = (0..4u8).filter(|c| dst.mask() & (1 << c) != 0).collect();
        if components.is_empty() || components.len() > 2 {
            return Err(err(format!(
                "destination mask {} must have one or two components",
                mask_name(dst.mask())
            )));
        }
        components.into_iter().zip(0..).collect()
    };
    let mut lanes: Vec<Lane> = slots
        .iter()
        .map(|&(dst, _)| Lane {
            dst,
            srcs: Vec::with_capacity(srcs.len()),
        })
        .collect();
    for (i, (src, src_type)) in srcs.iter().zip(info.srcs).enumerate() {
        let reads: Vec<SourceRead> = if *src_type == ValueType::F64 {
            let pairs = double_pairs(src).map_err(|m| err(format!("source {}: {m}", i + 1)))?;
            slots
                .iter()
                .map(|&(_, k)| {
                    let (low, high) = pairs[k & 1];
                    SourceRead::Double { low, high }
                })
                .collect()
        } else {
            let mut reads = Vec::with_capacity(slots.len());
            for &(_, k) in &slots {
                reads.push(SourceRead::Single(
                    single_component(src, k).map_err(|m| err(format!("source {}: {m}", i + 1)))?,
                ));
            }
            reads
        };
        for (lane, read) in lanes.iter_mut().zip(reads) {
            lane.srcs.push(read);
        }
    }
    Ok(Some(DoubleInstruction { wide_dst, lanes }))
}

/// The (low, high) components of double 0 and double 1 of a double source.
fn double_pairs(src: &Operand) -> std::result::Result<[(u8, u8); 2], String> {
    match (src.kind, src.components) {
        (RegisterKind::Immediate64, ComponentCount::One) => return Ok([(0, 1), (0, 1)]),
        (RegisterKind::Immediate64, ComponentCount::Four) => return Ok([(0, 1), (2, 3)]),
        (_, ComponentCount::Four) => {}
        _ => return Err("a double needs a four-component operand".into()),
    }
    let swizzle = match src.selection {
        Selection::Swizzle(s) => s,
        Selection::Mask(0b1111) => [0, 1, 2, 3],
        Selection::Mask(_) if src.kind == RegisterKind::Immediate32 => [0, 1, 2, 3],
        Selection::Mask(m) => {
            return Err(format!(
                "selection {} is not a legal double swizzle",
                mask_name(m)
            ))
        }
        Selection::Select1(c) => {
            return Err(format!(
                "selection .{} is not a legal double swizzle (.xyzw, .xyxy, .zwxy, .zwzw)",
                letter(c)
            ))
        }
    };
    let pair = |a: u8, b: u8| match (a, b) {
        (0, 1) | (2, 3) => Some((a, b)),
        _ => None,
    };
    match (pair(swizzle[0], swizzle[1]), pair(swizzle[2], swizzle[3])) {
        (Some(first), Some(second)) => Ok([first, second]),
        _ => Err(format!(
            "swizzle .{} is not a legal double swizzle (.xyzw, .xyxy, .zwxy, .zwzw)",
            swizzle.iter().map(|&c| letter(c)).collect::<String>()
        )),
    }
}

/// The component a 32-bit source is read from for double `k` (0 or 1) of the destination.
fn single_component(src: &Operand, k: usize) -> std::result::Result<u8, String> {
    match (src.kind, src.components) {
        (RegisterKind::Immediate64, _) => Err("a 32-bit value cannot be a d(…) immediate".into()),
        (_, ComponentCount::Four) => Ok(src.selection.component(k) & 3),
        (_, ComponentCount::One) => Ok(0),
        _ => Err("a value needs a one- or four-component operand".into()),
    }
}

fn letter(c: u8) -> char {
    ['x', 'y', 'z', 'w'][(c & 3) as usize]
}

fn mask_name(mask: u8) -> String {
    let letters: String = (0..4u8)
        .filter(|c| mask & (1 << c) != 0)
        .map(letter)
        .collect();
    format!(".{letters}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legal(line: &str) -> Result<DoubleInstruction> {
        let text = format!("cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 4\n{line}\nret\n");
        let program = crate::asm::parse_program(&text).expect("test program assembles");
        let index = 2;
        let instruction = &program.instructions[index];
        Ok(legalize_instruction(&program, index, instruction)?.expect("a double instruction"))
    }

    fn d(low: u8, high: u8) -> SourceRead {
        SourceRead::Double { low, high }
    }

    #[test]
    fn wide_masks_and_swizzles_become_lanes() {
        let out = legal("dadd r0.xyzw, r1.zwxy, r2.xyzw").unwrap();
        assert!(out.wide_dst);
        assert_eq!(
            out.lanes,
            vec![
                Lane {
                    dst: 0,
                    srcs: vec![d(2, 3), d(0, 1)]
                },
                Lane {
                    dst: 2,
                    srcs: vec![d(0, 1), d(2, 3)]
                },
            ]
        );
        // .zw reads the second double of each source.
        let out = legal("dmul r0.zw, r1.xyzw, r2.zwxy").unwrap();
        assert_eq!(
            out.lanes,
            vec![Lane {
                dst: 2,
                srcs: vec![d(2, 3), d(0, 1)]
            }]
        );
        let out = legal("dmov r0.xy, r1.zwzw").unwrap();
        assert_eq!(out.lanes[0].srcs, vec![d(2, 3)]);
    }

    #[test]
    fn dmovc_condition_is_32_bit_from_the_first_two_swizzled_components() {
        let out = legal("dmovc r0.xyzw, r3.wzyx, r1.xyxy, r2.zwzw").unwrap();
        assert_eq!(
            out.lanes[0].srcs,
            vec![SourceRead::Single(3), d(0, 1), d(2, 3)]
        );
        assert_eq!(
            out.lanes[1].srcs,
            vec![SourceRead::Single(2), d(0, 1), d(2, 3)]
        );
        // .zw alone uses the second condition component.
        let out = legal("dmovc r0.zw, r3.yxzw, r1.xyzw, r2.xyzw").unwrap();
        assert_eq!(out.lanes[0].dst, 2);
        assert_eq!(
            out.lanes[0].srcs,
            vec![SourceRead::Single(0), d(2, 3), d(2, 3)]
        );
    }

    #[test]
    fn narrow_destinations_take_doubles_in_mask_order() {
        let out = legal("dtof r0.xz, r1.zwxy").unwrap();
        assert!(!out.wide_dst);
        assert_eq!(out.lanes[0].dst, 0);
        assert_eq!(out.lanes[0].srcs, vec![d(2, 3)]);
        assert_eq!(out.lanes[1].dst, 2);
        assert_eq!(out.lanes[1].srcs, vec![d(0, 1)]);
        let out = legal("dlt r0.w, d(1.0, 0.0), r1.xyxy").unwrap();
        assert_eq!(out.lanes.len(), 1);
        assert_eq!(out.lanes[0].srcs, vec![d(0, 1), d(0, 1)]);
    }

    #[test]
    fn conversions_to_double_read_32_bit_components() {
        let out = legal("itod r0.xyzw, r1.yxxx").unwrap();
        assert_eq!(out.lanes[0].srcs, vec![SourceRead::Single(1)]);
        assert_eq!(out.lanes[1].srcs, vec![SourceRead::Single(0)]);
        let out = legal("ftod r0.zw, r1.z").unwrap();
        assert_eq!(out.lanes[0].srcs, vec![SourceRead::Single(2)]);
    }

    #[test]
    fn immediates_hold_pairs() {
        let out = legal("dadd r0.xyzw, d(1.0, 2.0), d(3.0)").unwrap();
        assert_eq!(out.lanes[1].srcs, vec![d(2, 3), d(0, 1)]);
    }

    #[test]
    fn illegal_masks_and_swizzles_name_the_instruction() {
        for (line, needle) in [
            (
                "dadd r0.xyz, r1.xyzw, r2.xyzw",
                "dadd: destination mask .xyz",
            ),
            ("dmov r0.yz, r1.xyzw", "dmov: destination mask .yz"),
            (
                "dmovc r0.x, r3.x, r1.xyzw, r2.xyzw",
                "dmovc: destination mask .x",
            ),
            (
                "dmovc r0.xy, r3.x, r1.yxzw, r2.xyzw",
                "dmovc: source 2: swizzle .yxzw",
            ),
            (
                "dmovc r0.xy, r3.x, r1.xyzw, r2.xxzw",
                "dmovc: source 3: swizzle .xxzw",
            ),
            ("dmul r0.xy, r1.xyzw, r2.x", "dmul: source 2: selection .x"),
            ("dtof r0.xyz, r1.xyzw", "dtof: destination mask .xyz"),
            (
                "deq r0.xy, r1.ywxy, r2.xyzw",
                "deq: source 1: swizzle .ywxy",
            ),
        ] {
            let error = legal(line).expect_err(line);
            let text = error.to_string();
            assert!(text.contains(needle), "{line}: {text}");
            assert!(text.contains("instruction 2"), "{line}: {text}");
        }
    }

    #[test]
    fn legalize_lists_only_double_instructions() {
        let text = "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 2\nmov r0.x, l(1)\ndmov r1.xy, r0.xyxy\nret\n";
        let program = crate::asm::parse_program(text).expect("test program assembles");
        let all = legalize(&program).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].0, 3);
    }
}
