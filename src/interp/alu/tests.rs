//! Tests of the ALU.
