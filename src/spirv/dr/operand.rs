//! One operand of an instruction in memory: a single word with what kind of word it is.
//!
//! Every operand the translator makes is one SPIR-V word, so an operand is eight bytes and
//! `Copy` (an instruction with four operands holds them inline in 32 bytes, and dropping it
//! touches none of them). The two kinds that take several words are stored as their words:
//!
//! - a literal string is its UTF-8 bytes, nul-terminated and packed four to a word, as in
//!   the binary ([`Operand::StringWord`]; [`string_operands`] makes them);
//! - a 64-bit literal is two [`Operand::LiteralBit32`] words, low-order first.

use spirv::Word;

/// An operand: one word of an instruction after its result type and id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// An id.
    IdRef(Word),
    /// An id of a scope constant.
    IdScope(Word),
    /// An id of a memory-semantics constant.
    IdMemorySemantics(Word),
    /// A 32-bit literal (or one word of a wider one).
    LiteralBit32(u32),
    /// The instruction number of an `OpExtInst`.
    LiteralExtInstInteger(u32),
    /// Four bytes of a literal string (see the module documentation).
    StringWord(u32),
    /// A storage class.
    StorageClass(spirv::StorageClass),
    /// A decoration.
    Decoration(spirv::Decoration),
    /// A built-in.
    BuiltIn(spirv::BuiltIn),
    /// A capability.
    Capability(spirv::Capability),
    /// An execution model.
    ExecutionModel(spirv::ExecutionModel),
    /// An execution mode.
    ExecutionMode(spirv::ExecutionMode),
    /// An addressing model.
    AddressingModel(spirv::AddressingModel),
    /// A memory model.
    MemoryModel(spirv::MemoryModel),
    /// An image dimensionality.
    Dim(spirv::Dim),
    /// An image format.
    ImageFormat(spirv::ImageFormat),
    /// An access qualifier.
    AccessQualifier(spirv::AccessQualifier),
    /// Image operand flags.
    ImageOperands(spirv::ImageOperands),
    /// Selection-control flags.
    SelectionControl(spirv::SelectionControl),
    /// Loop-control flags.
    LoopControl(spirv::LoopControl),
    /// Function-control flags.
    FunctionControl(spirv::FunctionControl),
}

impl Operand {
    /// The operand's word in the binary.
    #[inline]
    pub fn word(self) -> u32 {
        match self {
            Operand::IdRef(v)
            | Operand::IdScope(v)
            | Operand::IdMemorySemantics(v)
            | Operand::LiteralBit32(v)
            | Operand::LiteralExtInstInteger(v)
            | Operand::StringWord(v) => v,
            Operand::StorageClass(v) => v as u32,
            Operand::Decoration(v) => v as u32,
            Operand::BuiltIn(v) => v as u32,
            Operand::Capability(v) => v as u32,
            Operand::ExecutionModel(v) => v as u32,
            Operand::ExecutionMode(v) => v as u32,
            Operand::AddressingModel(v) => v as u32,
            Operand::MemoryModel(v) => v as u32,
            Operand::Dim(v) => v as u32,
            Operand::ImageFormat(v) => v as u32,
            Operand::AccessQualifier(v) => v as u32,
            Operand::ImageOperands(v) => v.bits(),
            Operand::SelectionControl(v) => v.bits(),
            Operand::LoopControl(v) => v.bits(),
            Operand::FunctionControl(v) => v.bits(),
        }
    }

    /// The id, when the operand is one (of any id kind).
    pub fn id_ref_any(&self) -> Option<Word> {
        match *self {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => Some(id),
            _ => None,
        }
    }
}

/// The operands of a literal string: its bytes, a terminating nul, and zero padding to a
/// whole word, four bytes to a word, the first in the low-order byte.
pub fn string_operands(text: &str) -> impl Iterator<Item = Operand> + '_ {
    let bytes = text.as_bytes();
    (0..bytes.len() / 4 + 1).map(move |word| {
        let mut value = 0u32;
        for (shift, byte) in bytes.iter().skip(word * 4).take(4).enumerate() {
            value |= u32::from(*byte) << (8 * shift);
        }
        Operand::StringWord(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operand_is_one_word_in_eight_bytes() {
        assert_eq!(std::mem::size_of::<Operand>(), 8);
        assert_eq!(Operand::IdRef(7).word(), 7);
        assert_eq!(Operand::StorageClass(spirv::StorageClass::Output).word(), 3);
        assert_eq!(
            Operand::ImageOperands(spirv::ImageOperands::LOD | spirv::ImageOperands::OFFSET).word(),
            0x2 | 0x10
        );
    }

    #[test]
    fn strings_pack_with_a_nul_and_read_back() {
        use crate::spirv::text::read_string;
        for (text, words) in [("", 1), ("abc", 1), ("main", 2), ("GLSL.std.450", 4)] {
            let operands: Vec<Operand> = string_operands(text).collect();
            assert!(operands.iter().all(|o| matches!(o, Operand::StringWord(_))));
            assert_eq!(operands.len(), words, "{text:?}: words");
            let mut trailing: Vec<u32> = operands.iter().map(|o| o.word()).collect();
            trailing.push(9);
            assert_eq!(
                read_string(&trailing),
                Some((text.to_string(), words)),
                "{text:?}: read back"
            );
        }
        assert_eq!(
            string_operands("main")
                .map(Operand::word)
                .collect::<Vec<_>>(),
            [0x6e69_616d, 0],
            "little-endian bytes, then a word of nul padding"
        );
        assert_eq!(read_string(&[0x6e69_616d]), None, "no nul");
    }
}
