//! The tokenized program format (the SHDR/SHEX chunk): the bit fields of its tokens, the
//! decoder into the [`crate::ir`] and the encoder back (the opcode table is [`crate::isa`]).

mod decode;
mod encode;
pub mod spare;
pub mod tokens;

pub use decode::{decode, decode_into, decode_operands};
pub use encode::{encode, encode_operands, encode_words};

#[cfg(test)]
mod decode_tests;
