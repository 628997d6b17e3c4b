//! Unit tests of the decoder, one group per opcode family, on tokens written here.
