//! The tokenized program format (the SHDR/SHEX chunk): the opcode table, the bit fields of
//! its tokens, and the decoder into the [`crate::ir`].

mod decode;
pub mod opcodes;
pub mod tokens;

pub use decode::decode;
