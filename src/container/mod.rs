//! The DXBC container: header, chunk directory, checksum, and the reflection chunks
//! (signatures, resource definitions, feature flags, class linkage, statistics).
//!
//! All parsing is defensive: every offset, size and count comes from untrusted bytes and is
//! checked against the bytes that remain before it is used or allocated for.
//!
//! The writing side serves the assembler: [`write_container`] builds a container from
//! chunks, [`write_signature`] and [`write_rdef`] are the inverses of the chunk parsers (in
//! fxc's or vkd3d-shader's byte layout, see [`WriteStyle`]), [`parse_header_comments`]
//! reads back the `//` tables [`write_header_comments`] prints, and
//! [`signatures_from_program`] derives signatures for listings that have no tables.

#[macro_use]
mod raw_enum;

mod checksum;
mod chunk_info;
mod class_linkage;
mod comments;
mod features;
mod header;
mod header_parse;
mod layout;
mod program_signatures;
mod rdef;
mod rdef_write;
mod reader;
mod resources;
mod signature;
mod signature_write;
mod statistics;
mod write;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod test_util;
#[cfg(test)]
mod write_corpus_tests;

pub use checksum::checksum;
pub use chunk_info::ChunkInfo;
pub use class_linkage::{
    ClassInstance, ClassInterfaces, ClassType, InterfaceSlot, InterfaceSlotEntry,
};
pub use comments::{write_header_comments, write_header_comments_noting, ProgramNotes};
pub use features::FeatureFlags;
pub use header_parse::{parse_header_comments, HeaderTables};
pub use layout::WriteStyle;
pub use program_signatures::signatures_from_program;
pub use rdef_write::{write_rdef, write_rdef_styled};
pub use resources::{
    ConstantBuffer, ConstantBufferType, ProgramType, Rd11Header, ResourceBinding,
    ResourceDefinitions, ResourceDimension, ResourceReturnType, ShaderInputType, ShaderType,
    TypeMember, Variable, VariableClass, VariableType,
};
pub use signature::{ComponentType, MinPrecision, Signature, SignatureElement, SystemValue};
pub use signature_write::{write_signature, write_signature_styled};
pub use statistics::Statistics;
pub use write::write_container;

/// Options for [`Container::parse`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions {
    /// Accept containers whose header checksum does not match their contents.
    pub ignore_checksum: bool,
}

/// One chunk of a container: its code and its data.
#[derive(Debug, Clone, Copy)]
pub struct Chunk<'a> {
    /// The four-character code, e.g. `*b"SHEX"`.
    pub fourcc: [u8; 4],
    /// Byte offset of the chunk's data (after the 8-byte chunk header) in the container.
    pub offset: usize,
    /// The chunk's data.
    pub data: &'a [u8],
}

/// A parsed DXBC container: header fields and the chunks in directory order.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    /// The 16 checksum bytes from the header.
    pub checksum: [u8; 16],
    /// The container version field (1 for every known container).
    pub version: u32,
    /// The total size field, equal to the length of the parsed bytes.
    pub total_size: u32,
    /// Every chunk, known or not, in directory order.
    pub chunks: Vec<Chunk<'a>>,
}

impl<'a> Container<'a> {
    /// The first chunk with code `fourcc`.
    pub fn find(&self, fourcc: [u8; 4]) -> Option<&Chunk<'a>> {
        self.chunks.iter().find(|c| c.fourcc == fourcc)
    }

    /// The shader program: the SHEX chunk, else the SHDR chunk.
    pub fn program(&self) -> Option<&Chunk<'a>> {
        self.find(*b"SHEX").or_else(|| self.find(*b"SHDR"))
    }
}
