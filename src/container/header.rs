//! Parsing of the container header and chunk directory.

use super::{checksum, Chunk, Container, ParseOptions};
use crate::error::{Error, Result};

/// Size of the fixed header: magic, checksum, version, total size, chunk count.
const HEADER_SIZE: usize = 32;
/// Size of a chunk header: fourcc and data size.
const CHUNK_HEADER_SIZE: usize = 8;

/// Reads the little-endian `u32` at `at`, if it is inside `bytes`.
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let end = at.checked_add(4)?;
    let b = bytes.get(at..end)?;
    <[u8; 4]>::try_from(b).ok().map(u32::from_le_bytes)
}

/// Renders bytes as lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl<'a> Container<'a> {
    /// Parses a DXBC container, checking its layout and (unless told not to) its checksum.
    ///
    /// Unknown chunks are kept; only the header and directory are validated here.
    pub fn parse(bytes: &'a [u8], options: &ParseOptions) -> Result<Self> {
        if bytes.len() < HEADER_SIZE {
            return Err(Error::container(
                0,
                format!(
                    "the input is {} bytes long, shorter than the 32-byte DXBC header",
                    bytes.len()
                ),
            ));
        }
        let magic = bytes.get(0..4).unwrap_or_default();
        if magic != b"DXBC" {
            return Err(Error::container(
                0,
                format!("bad magic 0x{} (expected \"DXBC\")", hex(magic)),
            ));
        }
        let mut stored = [0u8; 16];
        for (dst, src) in stored.iter_mut().zip(bytes.iter().skip(4)) {
            *dst = *src;
        }
        let field = |at: usize| {
            u32_at(bytes, at).ok_or_else(|| Error::container(at, "header field cut off"))
        };
        let version = field(20)?;
        let total_size = field(24)?;
        let count = field(28)?;

        if total_size as usize != bytes.len() {
            return Err(Error::container(
                24,
                format!(
                    "the header's total size 0x{total_size:x} does not match the input length 0x{:x}",
                    bytes.len()
                ),
            ));
        }

        if !options.ignore_checksum {
            let computed = checksum(bytes);
            if computed != stored {
                return Err(Error::container(
                    4,
                    format!(
                        "checksum mismatch: the header has {}, the contents give {}",
                        hex(&stored),
                        hex(&computed)
                    ),
                ));
            }
        }

        let room = bytes.len().saturating_sub(HEADER_SIZE) / 4;
        if count as usize > room {
            return Err(Error::container(
                28,
                format!(
                    "chunk count {count} needs 0x{:x} bytes of offsets but only 0x{:x} bytes follow \
                     the header",
                    (count as u64) * 4,
                    bytes.len().saturating_sub(HEADER_SIZE)
                ),
            ));
        }

        let mut chunks = Vec::with_capacity(count as usize);
        for index in 0..count as usize {
            let entry = HEADER_SIZE + index * 4;
            let offset = field(entry)? as usize;
            let fits_header = offset
                .checked_add(CHUNK_HEADER_SIZE)
                .is_some_and(|end| end <= bytes.len());
            if !fits_header {
                return Err(Error::container(
                    entry,
                    format!(
                        "chunk {index} offset 0x{offset:x} leaves no room for its 8-byte header in \
                         the 0x{:x}-byte container",
                        bytes.len()
                    ),
                ));
            }
            let mut fourcc = [0u8; 4];
            for (dst, src) in fourcc.iter_mut().zip(bytes.iter().skip(offset)) {
                *dst = *src;
            }
            let size = field(offset + 4)? as usize;
            let start = offset + CHUNK_HEADER_SIZE;
            let data = start
                .checked_add(size)
                .and_then(|end| bytes.get(start..end))
                .ok_or_else(|| {
                    Error::container(
                        offset + 4,
                        format!(
                            "chunk {index} ({}) declares 0x{size:x} bytes of data at 0x{start:x}, \
                             past the end of the 0x{:x}-byte container",
                            crate::error::fourcc_str(fourcc),
                            bytes.len()
                        ),
                    )
                })?;
            chunks.push(Chunk {
                fourcc,
                offset: start,
                data,
            });
        }

        Ok(Container {
            checksum: stored,
            version,
            total_size,
            chunks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{container_bytes, container_bytes_raw};
    use super::*;
    use crate::error::Location;

    fn strict() -> ParseOptions {
        ParseOptions::default()
    }

    #[test]
    fn minimal_container_round_trips() {
        let bytes = container_bytes(&[(*b"ABCD", vec![1, 2, 3]), (*b"SHDR", vec![9; 8])]);
        let c = Container::parse(&bytes, &strict()).unwrap();
        assert_eq!(c.version, 1);
        assert_eq!(c.total_size as usize, bytes.len());
        assert_eq!(c.chunks.len(), 2);
        assert_eq!(&c.chunks[0].fourcc, b"ABCD");
        assert_eq!(c.chunks[0].data, &[1, 2, 3]);
        assert_eq!(&bytes[c.chunks[1].offset..c.chunks[1].offset + 8], &[9; 8]);
        assert_eq!(c.program().unwrap().fourcc, *b"SHDR");
        assert!(c.find(*b"RDEF").is_none());
        assert_eq!(c.checksum, checksum(&bytes));
    }

    #[test]
    fn program_prefers_shex() {
        let bytes = container_bytes(&[(*b"SHDR", vec![1; 4]), (*b"SHEX", vec![2; 4])]);
        let c = Container::parse(&bytes, &strict()).unwrap();
        assert_eq!(c.program().unwrap().fourcc, *b"SHEX");
    }

    #[test]
    fn empty_container_has_no_chunks() {
        let bytes = container_bytes(&[]);
        let c = Container::parse(&bytes, &strict()).unwrap();
        assert!(c.chunks.is_empty());
        assert!(c.program().is_none());
    }

    #[test]
    fn flipped_byte_fails_checksum_unless_ignored() {
        let mut bytes = container_bytes(&[(*b"SHEX", vec![0x11; 70])]);
        let last = bytes.len() - 1;
        bytes[last] ^= 0x40;
        let e = Container::parse(&bytes, &strict()).unwrap_err();
        assert_eq!(e.location, Location::Container { byte: 4 });
        assert!(
            e.message.starts_with("checksum mismatch: the header has "),
            "{e}"
        );
        let opts = ParseOptions {
            ignore_checksum: true,
        };
        assert!(Container::parse(&bytes, &opts).is_ok());
    }

    #[test]
    fn header_errors() {
        assert!(Container::parse(&[], &strict()).is_err());
        assert!(Container::parse(b"DXBC", &strict()).is_err());
        let mut bytes = container_bytes(&[]);
        bytes[0] = b'X';
        let e = Container::parse(&bytes, &strict()).unwrap_err();
        assert!(e.message.contains("bad magic"), "{e}");

        let mut bytes = container_bytes(&[(*b"ABCD", vec![0; 4])]);
        bytes.push(0);
        let e = Container::parse(&bytes, &strict()).unwrap_err();
        assert_eq!(e.location, Location::Container { byte: 24 });
        assert!(
            e.message.contains("0x30") && e.message.contains("0x31"),
            "{e}"
        );
    }

    #[test]
    fn directory_errors() {
        let ignore = ParseOptions {
            ignore_checksum: true,
        };
        // Huge chunk count.
        let bytes = container_bytes_raw(u32::MAX, &[], &[]);
        let e = Container::parse(&bytes, &ignore).unwrap_err();
        assert_eq!(e.location, Location::Container { byte: 28 });
        // Chunk offset past the end.
        let bytes = container_bytes_raw(1, &[0xffff_fff0], &[]);
        let e = Container::parse(&bytes, &ignore).unwrap_err();
        assert_eq!(e.location, Location::Container { byte: 32 });
        assert!(e.message.contains("chunk 0 offset 0xfffffff0"), "{e}");
        // Chunk size past the end.
        let mut tail = b"ABCD".to_vec();
        tail.extend_from_slice(&0xffff_ffffu32.to_le_bytes());
        let bytes = container_bytes_raw(1, &[36], &tail);
        let e = Container::parse(&bytes, &ignore).unwrap_err();
        assert_eq!(e.location, Location::Container { byte: 40 });
        // Checked mode catches the same files by checksum first, still without panicking.
        assert!(Container::parse(&bytes, &strict()).is_err());
    }
}
