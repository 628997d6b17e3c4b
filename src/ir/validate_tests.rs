//! Unit tests of the IR validators.
