//! The library's error type: every failure names where in the input it happened.

use std::fmt;

/// Where in the input an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// No specific place (for example an option conflict).
    None,
    /// A byte offset in the DXBC container, outside any chunk.
    Container {
        /// Byte offset from the start of the container.
        byte: usize,
    },
    /// A place inside one chunk of the container.
    Chunk {
        /// The chunk's four-character code, e.g. `*b"RDEF"`.
        fourcc: [u8; 4],
        /// Byte offset from the start of the chunk's data.
        byte: usize,
    },
    /// A token of the shader program (SHDR/SHEX chunk).
    Instruction {
        /// Zero-based index of the instruction (declarations count as instructions).
        index: u32,
        /// Dword offset of the instruction's opcode token from the start of the program
        /// (the version token is dword 0).
        dword: u32,
    },
    /// A dword of the shader program that is not (yet) inside a known instruction.
    ProgramDword {
        /// Dword offset from the start of the program.
        dword: u32,
    },
    /// A place in assembly text.
    Text {
        /// One-based line.
        line: u32,
        /// One-based column.
        column: u32,
    },
}

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is malformed or breaks a rule of the format.
    #[default]
    Invalid,
    /// The input is valid but uses something the translator does not handle (yet); the
    /// message names the feature.
    Unsupported,
    /// The input exceeds a resource limit ([`crate::limits::Limits`]).
    Limit,
    /// A fault of the translator, not of the input: an internal check failed (a bug to
    /// report with the input).
    Internal,
}

impl ErrorKind {
    /// The kind's name in reports: `invalid`, `unsupported`, `limit` or `internal`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Invalid => "invalid",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Limit => "limit",
            ErrorKind::Internal => "internal",
        }
    }
}

/// An error from reading, checking or translating a shader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Where the error was found.
    pub location: Location,
    /// What is wrong, in one sentence without a trailing full stop.
    pub message: String,
    /// Malformed input or an unsupported feature.
    pub kind: ErrorKind,
}

/// The library's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with a location.
    #[cold]
    #[inline(never)]
    pub fn new(location: Location, message: impl Into<String>) -> Self {
        Error {
            location,
            message: message.into(),
            kind: ErrorKind::Invalid,
        }
    }

    /// The same error with another kind.
    pub fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// An error for a valid input that uses a feature the translator does not handle.
    #[cold]
    #[inline(never)]
    pub fn unsupported(location: Location, message: impl Into<String>) -> Self {
        Error {
            location,
            message: message.into(),
            kind: ErrorKind::Unsupported,
        }
    }

    /// An error at a byte offset of the container.
    #[cold]
    #[inline(never)]
    pub fn container(byte: usize, message: impl Into<String>) -> Self {
        Self::new(Location::Container { byte }, message)
    }

    /// An error at a byte offset inside a chunk.
    #[cold]
    #[inline(never)]
    pub fn chunk(fourcc: [u8; 4], byte: usize, message: impl Into<String>) -> Self {
        Self::new(Location::Chunk { fourcc, byte }, message)
    }

    /// An error in an instruction of the program.
    #[cold]
    #[inline(never)]
    pub fn instruction(index: u32, dword: u32, message: impl Into<String>) -> Self {
        Self::new(Location::Instruction { index, dword }, message)
    }

    /// An error at a line and column of assembly text.
    #[cold]
    #[inline(never)]
    pub fn text(line: u32, column: u32, message: impl Into<String>) -> Self {
        Self::new(Location::Text { line, column }, message)
    }
}

/// Renders a four-character code, replacing bytes that are not printable ASCII by `?`.
pub fn fourcc_str(fourcc: [u8; 4]) -> String {
    fourcc
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Location::None => Ok(()),
            Location::Container { byte } => write!(f, "container byte {byte:#x}"),
            Location::Chunk { fourcc, byte } => write!(
                f,
                "chunk {} byte {byte:#x} (dword {:#x})",
                fourcc_str(fourcc),
                byte / 4
            ),
            Location::Instruction { index, dword } => {
                write!(f, "instruction {index} (dword {dword:#x})")
            }
            Location::ProgramDword { dword } => write!(f, "program dword {dword:#x}"),
            Location::Text { line, column } => write!(f, "line {line}, column {column}"),
        }
    }
}

/// `location: message`, or the message alone where there is no location.
fn located(f: &mut fmt::Formatter<'_>, location: &Location, message: &str) -> fmt::Result {
    if *location == Location::None {
        f.write_str(message)
    } else {
        write!(f, "{location}: {message}")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        located(f, &self.location, &self.message)
    }
}

impl std::error::Error for Error {}

/// What a translation did not refuse but reports: the shader goes past a limit of the
/// Direct3D runtime that a Vulkan device need not share (for example a cs_4_0 thread group
/// deeper than 1). The module is made all the same; whether the device runs it is the
/// device's limits' to say. docs/errors.md lists the rules of each kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where in the input.
    pub location: Location,
    /// What the shader goes past, with the limit's name.
    pub message: String,
}

impl Warning {
    /// A warning at an instruction (index and dword offset).
    pub fn instruction(index: u32, dword: u32, message: impl Into<String>) -> Self {
        Warning {
            location: Location::Instruction { index, dword },
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        located(f, &self.location, &self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_place() {
        let e = Error::instruction(37, 0x1a4, "dmovc: illegal swizzle");
        assert_eq!(
            e.to_string(),
            "instruction 37 (dword 0x1a4): dmovc: illegal swizzle"
        );
        let e = Error::chunk(*b"RDEF", 0x20, "bad");
        assert_eq!(e.to_string(), "chunk RDEF byte 0x20 (dword 0x8): bad");
        assert_eq!(fourcc_str([b'A', 0, b'C', 0xff]), "A?C?");
    }
}
