//! Shared machinery for writing chunks: a little-endian byte buffer with string tables, and
//! the choice between the two byte layouts compilers use for the same contents.

/// Byte that fills the gaps compilers leave to keep records dword-aligned.
pub(crate) const PAD_BYTE: u8 = 0xab;

/// Whose byte layout a chunk writer reproduces.
///
/// The contents are the same either way (the parsers read both); only where strings and
/// records land differs:
///
/// * [`WriteStyle::Fxc`]: Microsoft's fxc. Strings are packed one after another without
///   padding and a string equal to one already written is shared; the gap before the next
///   record (and at the end of the chunk) is filled with `0xab`.
/// * [`WriteStyle::Vkd3d`]: vkd3d-shader's HLSL compiler. Every string is written where it is
///   needed, even when an equal one exists, each padded with `0xab` to a dword boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteStyle {
    /// fxc's layout (the default).
    #[default]
    Fxc,
    /// vkd3d-shader's layout.
    Vkd3d,
}

impl WriteStyle {
    /// The style of the compiler named by an RDEF creator string: vkd3d-shader's for
    /// `vkd3d-shader …`, fxc's for anything else.
    pub fn for_creator(creator: &str) -> WriteStyle {
        if creator.starts_with("vkd3d-shader") {
            WriteStyle::Vkd3d
        } else {
            WriteStyle::Fxc
        }
    }
}

/// Converts a length or offset to the `u32` the formats store, saturating (chunks never
/// approach 4 GiB; saturation only keeps absurd inputs from wrapping).
pub(crate) fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// A growable little-endian byte buffer with an optional table of strings already written.
pub(crate) struct ByteWriter {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
    /// The layout in effect.
    style: WriteStyle,
    /// Strings written so far and their offsets (fxc style shares them).
    strings: Vec<(String, u32)>,
}

impl ByteWriter {
    /// An empty buffer writing in `style`.
    pub fn new(style: WriteStyle) -> Self {
        ByteWriter {
            bytes: Vec::new(),
            style,
            strings: Vec::new(),
        }
    }

    /// The current length: the offset the next write lands at.
    pub fn pos(&self) -> u32 {
        to_u32(self.bytes.len())
    }

    /// Appends a byte.
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    /// Appends a little-endian `u16`.
    pub fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends a little-endian `u32`.
    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends raw bytes.
    pub fn raw(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Overwrites the `u32` at `at` (a slot reserved earlier); out-of-range slots are ignored.
    pub fn patch(&mut self, at: u32, v: u32) {
        let at = at as usize;
        if let Some(slot) = at
            .checked_add(4)
            .and_then(|end| self.bytes.get_mut(at..end))
        {
            slot.copy_from_slice(&v.to_le_bytes());
        }
    }

    /// Pads with [`PAD_BYTE`] to a dword boundary.
    pub fn align(&mut self) {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(PAD_BYTE);
        }
    }

    /// Writes `s` as a NUL-terminated string laid out in this writer's style and returns its
    /// offset. fxc style reuses an equal string written earlier and leaves the end unaligned
    /// (call [`Self::align`] before the next record); vkd3d style always writes a fresh copy
    /// and pads it to a dword boundary.
    pub fn string(&mut self, s: &str) -> u32 {
        match self.style {
            WriteStyle::Fxc => {
                if let Some(&(_, at)) = self.strings.iter().find(|(t, _)| t == s) {
                    return at;
                }
                let at = self.pos();
                self.raw(s.as_bytes());
                self.u8(0);
                self.strings.push((s.to_string(), at));
                at
            }
            WriteStyle::Vkd3d => {
                let at = self.pos();
                self.raw(s.as_bytes());
                self.u8(0);
                self.align();
                at
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fxc_strings_are_packed_and_shared() {
        let mut w = ByteWriter::new(WriteStyle::Fxc);
        assert_eq!(w.string("ab"), 0);
        assert_eq!(w.string("xyz"), 3);
        assert_eq!(w.string("ab"), 0);
        w.align();
        assert_eq!(w.bytes, b"ab\0xyz\0\xab");
    }

    #[test]
    fn vkd3d_strings_are_padded_and_repeated() {
        let mut w = ByteWriter::new(WriteStyle::Vkd3d);
        assert_eq!(w.string("ab"), 0);
        assert_eq!(w.string("ab"), 4);
        assert_eq!(w.string("abc"), 8);
        assert_eq!(w.bytes, b"ab\0\xabab\0\xababc\0");
    }

    #[test]
    fn patch_and_numbers() {
        let mut w = ByteWriter::new(WriteStyle::Fxc);
        w.u32(0);
        w.u16(0x0102);
        w.u8(3);
        w.patch(0, 0xdead_beef);
        w.patch(5, 1); // out of range: ignored
        w.patch(u32::MAX, 1);
        assert_eq!(w.bytes, [0xef, 0xbe, 0xad, 0xde, 2, 1, 3]);
        assert_eq!(w.pos(), 7);
        assert_eq!(to_u32(usize::MAX), u32::MAX);
        assert_eq!(
            WriteStyle::for_creator("vkd3d-shader 1.17"),
            WriteStyle::Vkd3d
        );
        assert_eq!(
            WriteStyle::for_creator("Microsoft (R) HLSL Shader Compiler 10.1"),
            WriteStyle::Fxc
        );
    }
}
