//! Tests of the executor: programs in assembly text, run on small resources.
