//! Bounds-checked little-endian reads from the bytes of one chunk, with a work budget.
//!
//! Every read names what it was reading so that errors say which field was bad; the name is
//! any `Display` (`format_args!` in loops), formatted only when there is an error. The budget
//! bounds the total work and memory a chunk can cause (strings copied, type nodes built),
//! so that records that all point at the same large string or type cannot blow up.

use crate::error::{Error, Result};
use std::cell::Cell;
use std::fmt::Display;

/// Budget units granted per byte of chunk data.
const UNITS_PER_BYTE: usize = 32;
/// Budget units every chunk gets regardless of its size.
const BASE_UNITS: usize = 1 << 16;
/// Upper bound on any chunk's budget.
const MAX_UNITS: usize = 1 << 22;

/// A name for reads built from parts (`type at 0x40 member 2`), formatted only when a read
/// fails: `Label(|f| write!(f, "..."))`, usable where `format!` would allocate per record.
pub(crate) struct Label<F: Fn(&mut std::fmt::Formatter<'_>) -> std::fmt::Result>(pub F);

impl<F: Fn(&mut std::fmt::Formatter<'_>) -> std::fmt::Result> Display for Label<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self.0)(f)
    }
}

/// A view of one chunk's data that reports errors at byte offsets inside the chunk.
pub(crate) struct ChunkReader<'a> {
    /// The chunk's four-character code, used in error locations.
    pub fourcc: [u8; 4],
    /// The chunk's data (without the 8-byte chunk header).
    pub data: &'a [u8],
    /// Work units left (see the module documentation).
    budget: Cell<usize>,
}

impl<'a> ChunkReader<'a> {
    /// A reader over `data`, the contents of chunk `fourcc`.
    pub fn new(fourcc: [u8; 4], data: &'a [u8]) -> Self {
        let budget = data
            .len()
            .saturating_mul(UNITS_PER_BYTE)
            .saturating_add(BASE_UNITS)
            .min(MAX_UNITS);
        ChunkReader {
            fourcc,
            data,
            budget: Cell::new(budget),
        }
    }

    /// An error at `byte` inside this chunk.
    pub fn error(&self, byte: usize, message: impl Into<String>) -> Error {
        Error::chunk(self.fourcc, byte, message)
    }

    /// Spends `units` of the work budget, failing once it is exhausted.
    pub fn charge(&self, units: usize, at: usize) -> Result<()> {
        match self.budget.get().checked_sub(units) {
            Some(left) => {
                self.budget.set(left);
                Ok(())
            }
            None => Err(self.error(
                at,
                format!(
                    "the chunk's records expand to more data than a {}-byte chunk can describe \
                     (shared or self-referencing records?)",
                    self.data.len()
                ),
            )),
        }
    }

    /// `len` bytes at `offset`.
    #[inline]
    pub fn bytes(&self, offset: usize, len: usize, what: impl Display) -> Result<&'a [u8]> {
        match offset
            .checked_add(len)
            .and_then(|end| self.data.get(offset..end))
        {
            Some(bytes) => Ok(bytes),
            None => Err(self.past_end(offset, len, &what)),
        }
    }

    /// The error of a read of `len` bytes at `offset` that runs past the end (kept out of
    /// line so that the inlined reads stay small).
    #[cold]
    #[inline(never)]
    fn past_end(&self, offset: usize, len: usize, what: &dyn Display) -> Error {
        self.error(
            offset,
            format!(
                "{what} at 0x{offset:x} (0x{len:x} bytes) runs past the end of the chunk \
                 (0x{:x} bytes)",
                self.data.len()
            ),
        )
    }

    /// The byte at `offset`.
    #[inline]
    pub fn u8(&self, offset: usize, what: impl Display) -> Result<u8> {
        self.array(offset, what).map(|[b]: [u8; 1]| b)
    }

    /// The little-endian `u16` at `offset`.
    #[inline]
    pub fn u16(&self, offset: usize, what: impl Display) -> Result<u16> {
        self.array(offset, what).map(u16::from_le_bytes)
    }

    /// The little-endian `u32` at `offset`.
    #[inline]
    pub fn u32(&self, offset: usize, what: impl Display) -> Result<u32> {
        self.array(offset, what).map(u32::from_le_bytes)
    }

    /// The little-endian `u64` at `offset`.
    #[inline]
    pub fn u64(&self, offset: usize, what: impl Display) -> Result<u64> {
        self.array(offset, what).map(u64::from_le_bytes)
    }

    /// `N` bytes at `offset` as an array.
    #[inline]
    fn array<const N: usize>(&self, offset: usize, what: impl Display) -> Result<[u8; N]> {
        let bytes = self.bytes(offset, N, &what)?;
        match <[u8; N]>::try_from(bytes) {
            Ok(array) => Ok(array),
            Err(_) => Err(self.past_end(offset, N, &what)),
        }
    }

    /// Checks that `count` records of `size` bytes fit at `offset` and returns the offset.
    ///
    /// Call this before allocating anything sized by `count`. An empty table is accepted
    /// wherever it points (writers leave the offset of empty tables at 0 or anywhere).
    pub fn table(&self, offset: u32, count: u32, size: usize, what: impl Display) -> Result<usize> {
        let start = offset as usize;
        if count == 0 {
            return Ok(start);
        }
        let total = (count as usize).checked_mul(size);
        let fits = match (total, self.data.len().checked_sub(start)) {
            (Some(total), Some(room)) => total <= room,
            _ => false,
        };
        if fits {
            Ok(start)
        } else {
            Err(self.error(
                start,
                format!(
                    "{what}: {count} records of {size} bytes at offset 0x{offset:x} do not fit in \
                     the chunk (0x{:x} bytes)",
                    self.data.len()
                ),
            ))
        }
    }

    /// The NUL-terminated string at `offset` (invalid UTF-8 is replaced, never an error).
    ///
    /// `what` names the string's owner, e.g. `"element 3 name"`.
    pub fn string(&self, offset: u32, what: impl Display) -> Result<String> {
        let start = offset as usize;
        let rest = self
            .data
            .get(start..)
            .filter(|r| !r.is_empty())
            .ok_or_else(|| {
                self.error(
                    start,
                    format!(
                        "{what} offset 0x{offset:x} is past the end of the chunk (0x{:x} bytes)",
                        self.data.len()
                    ),
                )
            })?;
        let len = rest.iter().position(|&b| b == 0).ok_or_else(|| {
            self.error(
                start,
                format!("{what} at 0x{offset:x} has no terminating nul byte before the end of the chunk"),
            )
        })?;
        self.charge(len.saturating_add(1), start)?;
        let text = rest.get(..len).unwrap_or_default();
        // Names are ASCII in practice: check them once and copy, and only replace invalid
        // UTF-8 when there is some.
        Ok(match std::str::from_utf8(text) {
            Ok(name) => name.to_owned(),
            Err(_) => String::from_utf8_lossy(text).into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_bounds() {
        let data = [1u8, 0, 0, 0, b'a', b'b', 0, 9];
        let r = ChunkReader::new(*b"TEST", &data);
        assert_eq!(r.u32(0, "x").unwrap(), 1);
        assert_eq!(r.u16(4, "x").unwrap(), 0x6261);
        assert_eq!(r.string(4, "name").unwrap(), "ab");
        assert_eq!(r.string(6, "name").unwrap(), "");
        let e = r.string(7, "element 3 name").unwrap_err();
        assert!(e.message.contains("no terminating nul"), "{e}");
        let e = r.string(8, "element 3 name").unwrap_err();
        assert_eq!(
            e.message,
            "element 3 name offset 0x8 is past the end of the chunk (0x8 bytes)"
        );
        assert!(r.u32(5, "x").is_err());
        assert!(r.u64(usize::MAX, "x").is_err());
        assert_eq!(r.table(4, 2, 2, "t").unwrap(), 4);
        assert!(r.table(4, 3, 2, "t").is_err());
        assert!(r.table(9, 0, 2, "t").is_ok());
        assert!(r.table(9, 1, 0, "t").is_err());
        assert!(r.table(0, u32::MAX, usize::MAX, "t").is_err());
    }

    #[test]
    fn budget_runs_out() {
        let data = [b'x', 0];
        let r = ChunkReader::new(*b"TEST", &data);
        let mut n = 0usize;
        while r.string(0, "s").is_ok() {
            n += 1;
            assert!(n < 1 << 20);
        }
        assert!(n > 1000);
    }
}
