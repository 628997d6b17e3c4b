//! SPIR-V text of a module (the command's `translate --text`): the module rspirv reads from
//! the words, printed by rspirv's disassembler.

use rspirv::binary::Disassemble as _;

use crate::error::{Error, Location, Result};

/// The module's disassembly; words rspirv cannot read are an error saying why.
pub fn disassemble(words: &[u32]) -> Result<String> {
    let module = rspirv::dr::load_words(words)
        .map_err(|e| Error::new(Location::None, format!("printing SPIR-V: {e}")))?;
    Ok(module.disassemble())
}

#[cfg(test)]
mod tests {
    use super::*;
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
