//! Writing a complete DXBC container from its chunks.

use super::checksum;
use super::layout::to_u32;

/// Size of the fixed header: magic, checksum, version, total size, chunk count.
const HEADER_SIZE: usize = 32;

/// Builds a DXBC container from `(fourcc, data)` chunks, in the order given.
///
/// The layout is fxc's: the `DXBC` magic, the 16-byte checksum, version 1, the total size,
/// the chunk count, one offset per chunk, then each chunk as its fourcc, its data size and
/// its data. Chunks follow each other directly; a chunk whose data is not a whole number of
/// dwords is followed by zero bytes up to the next dword boundary before the next chunk (the
/// size field keeps the real length, and nothing is added after the last chunk). The
/// checksum (MD5-based, as fxc computes it) is computed last, over the finished bytes.
pub fn write_container(chunks: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let directory_end = HEADER_SIZE + 4 * chunks.len();
    let body_len: usize = chunks
        .iter()
        .map(|(_, d)| 8 + d.len().next_multiple_of(4))
        .sum();
    let mut bytes = Vec::with_capacity(directory_end + body_len);
    bytes.extend_from_slice(b"DXBC");
    bytes.extend_from_slice(&[0; 16]);
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes()); // total size, patched below
    bytes.extend_from_slice(&to_u32(chunks.len()).to_le_bytes());
    let mut offset = directory_end;
    for (i, (_, data)) in chunks.iter().enumerate() {
        bytes.extend_from_slice(&to_u32(offset).to_le_bytes());
        offset += 8 + data.len();
        if i + 1 < chunks.len() {
            offset = offset.next_multiple_of(4);
        }
    }
    for (i, (fourcc, data)) in chunks.iter().enumerate() {
        bytes.extend_from_slice(fourcc);
        bytes.extend_from_slice(&to_u32(data.len()).to_le_bytes());
        bytes.extend_from_slice(data);
        if i + 1 < chunks.len() {
            bytes.resize(bytes.len().next_multiple_of(4), 0);
        }
    }
    let total = to_u32(bytes.len()).to_le_bytes();
    if let Some(slot) = bytes.get_mut(24..28) {
        slot.copy_from_slice(&total);
    }
    let sum = checksum(&bytes);
    if let Some(slot) = bytes.get_mut(4..20) {
        slot.copy_from_slice(&sum);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::super::test_util::container_bytes;
    use super::super::{Container, ParseOptions};
    use super::*;

    #[test]
    fn matches_the_test_builder_and_parses() {
        let chunks = vec![(*b"ABCD", vec![1, 2, 3, 4]), (*b"SHEX", vec![9; 8])];
        let bytes = write_container(&chunks);
        assert_eq!(bytes, container_bytes(&chunks));
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        assert_eq!(c.version, 1);
        assert_eq!(c.chunks.len(), 2);
        assert_eq!(c.chunks[1].data, &[9; 8]);
        assert_eq!(c.chunks[0].offset, 32 + 8 + 8);
    }

    #[test]
    fn empty_container() {
        let bytes = write_container(&[]);
        assert_eq!(bytes.len(), 32);
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        assert!(c.chunks.is_empty());
    }

    #[test]
    fn unaligned_chunks_are_padded_between_but_not_after() {
        let chunks = vec![(*b"AAAA", vec![1, 2, 3]), (*b"BBBB", vec![4, 5])];
        let bytes = write_container(&chunks);
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        assert_eq!(c.chunks[0].data, &[1, 2, 3]);
        assert_eq!(c.chunks[1].data, &[4, 5]);
        assert_eq!(c.chunks[1].offset % 4, 0);
        assert_eq!(bytes.len(), 40 + 8 + 4 + 8 + 2);
        assert_eq!(bytes[40 + 8 + 3], 0);
    }
}
