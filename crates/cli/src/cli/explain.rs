//! `--verbose` error detail: the failing instruction, disassembled, with a caret under the
//! operand the message names.

use dxbc2spirv::disasm::{write_instruction, write_operand};
use dxbc2spirv::{Error, Location};

/// The instruction an error points at with a caret line under the operand it names, or
/// `None` when the error has no instruction or the program cannot be decoded.
pub fn instruction_with_caret(container: &[u8], error: &Error) -> Option<String> {
    let Location::Instruction { index, .. } = error.location else {
        return None;
    };
    let parsed = dxbc2spirv::container::Container::parse(
        container,
        &dxbc2spirv::container::ParseOptions {
            ignore_checksum: true,
        },
    )
    .ok()?;
    let program = dxbc2spirv::tpf::decode(parsed.program()?.data).ok()?;
    let instruction = program.instructions.get(usize::try_from(index).ok()?)?;
    let mut line = String::new();
    write_instruction(&mut line, &program, instruction);
    // Where each operand's text starts, found left to right after the mnemonic.
    let mut spans = Vec::new();
    let mut from = line.find(' ').unwrap_or(line.len());
    for operand in program.operands_of(instruction) {
        let mut text = String::new();
        write_operand(&mut text, &program, operand);
        let start = line.get(from..).and_then(|rest| rest.find(text.as_str()));
        match start {
            Some(at) => {
                spans.push(Some((from + at, text.len().max(1))));
                from += at + text.len();
            }
            None => spans.push(None),
        }
    }
    let dst_count = usize::from(instruction.dst_count);
    let named = named_operand(&error.message, dst_count).or_else(|| {
        // An operand whose text the message quotes (a swizzle such as `.xzyw`).
        spans.iter().position(|span| {
            span.and_then(|(at, len)| line.get(at..at + len))
                .and_then(|text| text.rsplit_once('.').map(|(_, s)| s))
                .is_some_and(|suffix| {
                    suffix.len() > 1 && error.message.contains(&format!(".{suffix}"))
                })
        })
    });
    let (at, len) = named
        .and_then(|i| spans.get(i).copied().flatten())
        .unwrap_or((0, line.find(' ').unwrap_or(line.len()).max(1)));
    let caret = format!("{}{}", " ".repeat(at), "^".repeat(len));
    Some(format!(
        "    {index}: {line}\n    {}{caret}\n",
        " ".repeat(digits(index) + 2)
    ))
}

/// The operand (index among all operands) a message names as `source N` (1-based among the
/// sources) or `destination`.
fn named_operand(message: &str, dst_count: usize) -> Option<usize> {
    if let Some((_, rest)) = message.split_once("source ") {
        let n: usize = rest
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?;
        return (dst_count + n).checked_sub(1);
    }
    message.contains("destination").then_some(0)
}

/// Decimal digits of `n`.
fn digits(n: u32) -> usize {
    n.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caret_sits_under_the_named_source() {
        let text = "cs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n\
                    dmovc r0.xy, r1.x, r1.xzyw, r1.xyxy\nret\n";
        let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
        let error = dxbc2spirv::translate_bytes(&bytes, &Default::default())
            .map(|_| ())
            .expect_err("illegal swizzle");
        let shown = instruction_with_caret(&bytes, &error).expect("an instruction");
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 2, "{shown}");
        let at = lines[0].find("r1.xzyw").expect("operand shown");
        assert_eq!(lines[1].find('^'), Some(at), "{shown}");
        assert_eq!(lines[1].trim().len(), "r1.xzyw".len(), "{shown}");
    }

    #[test]
    fn sources_count_from_one_after_the_destinations() {
        assert_eq!(named_operand("dmovc: source 2: bad", 1), Some(2));
        assert_eq!(named_operand("destination r0 has a modifier", 1), Some(0));
        assert_eq!(named_operand("something else", 1), None);
    }
}
