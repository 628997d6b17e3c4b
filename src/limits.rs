//! Resource limits on untrusted input: the size of the container, the number of
//! instructions and declarations, control-flow nesting, temp and indexable-temp registers and
//! the immediate constant buffer.
//!
//! Translation layers hand the library bytes from applications they do not control. Every
//! stage is linear in the size of its input, and these limits bound that input, so a hostile
//! shader costs at most a bounded amount of time and memory and gets an error
//! ([`ErrorKind::Limit`]) naming the limit and, for the
//! program's limits, the instruction that crosses it. The defaults admit every shader that
//! Direct3D accepts (its own limits are quoted on each field) with room to spare.

use crate::error::{Error, ErrorKind, Location, Result};
use crate::ir::{Declaration, Program};
use crate::isa::Opcode;

/// The limits applied while reading a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Container size in bytes (default 16 MiB; fxc's largest outputs are a few hundred KiB).
    pub input_bytes: usize,
    /// Instructions and declarations in the program (default 1,048,576).
    pub instructions: usize,
    /// Declarations in the program (default 65,536).
    pub declarations: usize,
    /// Nesting depth of `if`/`loop`/`switch` (default 64, Direct3D's
    /// `D3D11_COMMONSHADER_FLOWCONTROL_NESTING_LIMIT`).
    pub nesting: usize,
    /// `dcl_temps` count (default 4096, Direct3D's `D3D11_COMMONSHADER_TEMP_REGISTER_COUNT`).
    pub temps: u32,
    /// Elements of all indexable temps together (default 4096 × 4: Direct3D's 4096
    /// registers, with room for hand-written code).
    pub indexable_elements: u64,
    /// Dwords of the immediate constant buffer (default 4096 × 4 × 4).
    pub immediate_constant_dwords: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            input_bytes: 16 << 20,
            instructions: 1 << 20,
            declarations: 1 << 16,
            nesting: 64,
            temps: 4096,
            indexable_elements: 4096 * 4,
            immediate_constant_dwords: 4096 * 4 * 4,
        }
    }
}

fn limit(location: Location, message: String) -> Error {
    Error::new(location, message).with_kind(ErrorKind::Limit)
}

impl Limits {
    /// Checks the size of a container before it is parsed.
    pub fn check_input(&self, bytes: &[u8]) -> Result<()> {
        if bytes.len() > self.input_bytes {
            return Err(limit(
                Location::None,
                format!(
                    "the container is {} bytes; the limit is {} (Limits::input_bytes)",
                    bytes.len(),
                    self.input_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Checks a decoded program against the program limits.
    pub fn check_program(&self, program: &Program) -> Result<()> {
        if program.instructions.len() > self.instructions {
            return Err(limit(
                Location::None,
                format!(
                    "the program has {} instructions; the limit is {} (Limits::instructions)",
                    program.instructions.len(),
                    self.instructions
                ),
            ));
        }
        let mut declarations = 0usize;
        let mut depth = 0usize;
        let mut indexable = 0u64;
        for (index, instruction) in program.instructions.iter().enumerate() {
            let at = |message: String| {
                limit(
                    Location::Instruction {
                        index: index as u32,
                        dword: instruction.dword,
                    },
                    message,
                )
            };
            match instruction.opcode {
                Opcode::If | Opcode::Loop | Opcode::Switch => {
                    depth += 1;
                    if depth > self.nesting {
                        return Err(at(format!(
                            "{} nests control flow {depth} deep; the limit is {} (Limits::nesting)",
                            instruction.opcode.name(),
                            self.nesting
                        )));
                    }
                }
                Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch => {
                    depth = depth.saturating_sub(1);
                }
                // Subroutine bodies and hull-shader phases start at the top level.
                Opcode::Label
                | Opcode::HsDecls
                | Opcode::HsControlPointPhase
                | Opcode::HsForkPhase
                | Opcode::HsJoinPhase => depth = 0,
                _ => {}
            }
            let Some(declaration) = &instruction.declaration else {
                continue;
            };
            declarations += 1;
            if declarations > self.declarations {
                return Err(at(format!(
                    "more than {} declarations (Limits::declarations)",
                    self.declarations
                )));
            }
            match declaration {
                Declaration::Temps(n) if *n > self.temps => {
                    return Err(at(format!(
                        "dcl_temps {n}; the limit is {} (Limits::temps)",
                        self.temps
                    )));
                }
                Declaration::IndexableTemp { size, .. } => {
                    indexable += u64::from(*size);
                    if indexable > self.indexable_elements {
                        return Err(at(format!(
                            "indexable temps reach {indexable} elements; the limit is {} \
                             (Limits::indexable_elements)",
                            self.indexable_elements
                        )));
                    }
                }
                Declaration::CustomData { data, .. }
                    if data.len > self.immediate_constant_dwords =>
                {
                    return Err(at(format!(
                        "a {}-dword data block; the limit is {} (Limits::immediate_constant_dwords)",
                        data.len, self.immediate_constant_dwords
                    )));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(text: &str) -> Program {
        crate::asm::parse_program(text).expect("assembles")
    }

    fn kind_and_text(result: Result<()>) -> (ErrorKind, String) {
        let e = result.expect_err("a limit error");
        (e.kind, e.to_string())
    }

    #[test]
    fn the_defaults_admit_the_corpus_shapes() {
        let p = program(
            "cs_5_0\ndcl_temps 4096\ndcl_indexableTemp x0[4096], 4\ndcl_thread_group 1, 1, 1\nret\n",
        );
        Limits::default()
            .check_program(&p)
            .expect("within the defaults");
    }

    #[test]
    fn each_limit_names_itself_and_the_instruction() {
        let p = program("cs_5_0\ndcl_temps 9\ndcl_thread_group 1, 1, 1\nret\n");
        let limits = Limits {
            temps: 8,
            ..Limits::default()
        };
        let (kind, text) = kind_and_text(limits.check_program(&p));
        assert_eq!(kind, ErrorKind::Limit);
        assert!(
            text.contains("instruction 0") && text.contains("Limits::temps"),
            "{text}"
        );

        let p = program(
            "cs_5_0\ndcl_indexableTemp x0[10], 4\ndcl_indexableTemp x1[10], 4\n\
             dcl_thread_group 1, 1, 1\nret\n",
        );
        let limits = Limits {
            indexable_elements: 15,
            ..Limits::default()
        };
        let (_, text) = kind_and_text(limits.check_program(&p));
        assert!(
            text.contains("instruction 1") && text.contains("indexable"),
            "{text}"
        );

        let p = program("cs_5_0\ndcl_thread_group 1, 1, 1\nret\nret\nret\n");
        let limits = Limits {
            instructions: 3,
            ..Limits::default()
        };
        let (_, text) = kind_and_text(limits.check_program(&p));
        assert!(text.contains("Limits::instructions"), "{text}");

        let limits = Limits {
            declarations: 0,
            ..Limits::default()
        };
        let (_, text) = kind_and_text(limits.check_program(&p));
        assert!(text.contains("Limits::declarations"), "{text}");

        let limits = Limits {
            input_bytes: 10,
            ..Limits::default()
        };
        let (_, text) = kind_and_text(limits.check_input(&[0; 11]));
        assert!(text.contains("11 bytes"), "{text}");
    }

    #[test]
    fn nesting_is_counted_per_construct() {
        let mut text = String::from("cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n");
        for _ in 0..3 {
            text.push_str("if_nz r0.x\n");
        }
        for _ in 0..3 {
            text.push_str("endif\n");
        }
        text.push_str("loop\nbreak\nendloop\nret\n");
        let p = program(&text);
        let three = Limits {
            nesting: 3,
            ..Limits::default()
        };
        three.check_program(&p).expect("three deep is allowed");
        let two = Limits {
            nesting: 2,
            ..Limits::default()
        };
        let (_, message) = kind_and_text(two.check_program(&p));
        assert!(
            message.contains("instruction 4") && message.contains("3 deep"),
            "{message}"
        );
    }

    #[test]
    fn a_large_immediate_constant_buffer_is_refused() {
        let p = program(
            "ps_5_0\ndcl_immediateConstantBuffer { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } }\nret\n",
        );
        let limits = Limits {
            immediate_constant_dwords: 7,
            ..Limits::default()
        };
        let (_, text) = kind_and_text(limits.check_program(&p));
        assert!(text.contains("8-dword"), "{text}");
    }
}
