//! Helpers for tests: building containers and chunk payloads byte by byte.

use super::checksum;

/// Builds a container with a correct checksum from `(fourcc, data)` pairs.
pub fn container_bytes(chunks: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let dir_end = 32 + 4 * chunks.len();
    let mut offsets = Vec::new();
    let mut body = Vec::new();
    for (fourcc, data) in chunks {
        offsets.push((dir_end + body.len()) as u32);
        body.extend_from_slice(fourcc);
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
    }
    container_bytes_raw(chunks.len() as u32, &offsets, &body)
}

/// Builds a container with an arbitrary chunk count, directory and body, fixing up the
/// total size and checksum.
pub fn container_bytes_raw(count: u32, offsets: &[u32], body: &[u8]) -> Vec<u8> {
    let mut bytes = b"DXBC".to_vec();
    bytes.extend_from_slice(&[0; 16]);
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    bytes.extend_from_slice(&count.to_le_bytes());
    for o in offsets {
        bytes.extend_from_slice(&o.to_le_bytes());
    }
    bytes.extend_from_slice(body);
    let len = bytes.len() as u32;
    bytes[24..28].copy_from_slice(&len.to_le_bytes());
    let sum = checksum(&bytes);
    bytes[4..20].copy_from_slice(&sum);
    bytes
}

/// A growable little-endian byte buffer for writing chunk payloads.
#[derive(Default)]
pub struct Buf {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl Buf {
    /// Current length (the offset the next write lands at).
    pub fn pos(&self) -> u32 {
        self.bytes.len() as u32
    }
    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends a `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends a byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }
    /// Appends a NUL-terminated string and returns its offset.
    pub fn str(&mut self, s: &str) -> u32 {
        let at = self.pos();
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        at
    }
    /// Overwrites the `u32` at `at`.
    pub fn patch(&mut self, at: u32, v: u32) {
        let at = at as usize;
        self.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// Builds an RDEF chunk: one cbuffer `cb0` with `float4 color` and `S s` (struct with
/// `float a; int b;`), and two bindings. `sm` selects 40 (5.0), 41 (5.1) or 40-less 4.0.
pub fn sample_rdef(sm: u32) -> Vec<u8> {
    let sm5 = sm >= 50;
    let mut b = Buf::default();
    b.u32(1).u32(0).u32(2).u32(0); // counts and offsets patched below
    let (major, minor) = (sm / 10, sm % 10);
    b.u8(minor as u8).u8(major as u8).u16(0xffff);
    b.u32(0x100).u32(0);
    let binding_size = if sm >= 51 { 40 } else { 32 };
    let var_size = if sm5 { 40 } else { 24 };
    let type_size = if sm5 { 36 } else { 16 };
    if sm5 {
        let magic = if sm >= 51 {
            [0x13, 0x13, 0x44, 0x25]
        } else {
            *b"RD11"
        };
        b.bytes.extend_from_slice(&magic);
        b.u32(60)
            .u32(24)
            .u32(binding_size)
            .u32(var_size)
            .u32(type_size)
            .u32(12)
            .u32(0);
    }
    // Bindings.
    let bind_at = b.pos();
    b.patch(12, bind_at);
    let mut bind_names = Vec::new();
    for (k, (ty, ret, dim, point, count, flags, space)) in [
        (3u32, 0u32, 0u32, 5u32, 1u32, 0u32, 0u32),
        (2, 5, 4, 0, 8, 0xc, 1),
    ]
    .into_iter()
    .enumerate()
    {
        bind_names.push(b.pos());
        b.u32(0)
            .u32(ty)
            .u32(ret)
            .u32(dim)
            .u32(u32::MAX)
            .u32(point)
            .u32(count)
            .u32(flags);
        if binding_size == 40 {
            b.u32(space).u32(k as u32);
        }
    }
    // Constant buffer.
    let cb_at = b.pos();
    b.patch(4, cb_at);
    let cb_name_slot = b.pos();
    b.u32(0).u32(2).u32(0).u32(32).u32(0).u32(0);
    let vars_at = b.pos();
    b.patch(cb_at + 8, vars_at);
    let mut var_slots = Vec::new();
    for (off, size) in [(0u32, 16u32), (16, 8)] {
        var_slots.push(b.pos());
        b.u32(0).u32(off).u32(size).u32(2).u32(0).u32(0);
        if sm5 {
            b.u32(u32::MAX).u32(0).u32(u32::MAX).u32(0);
        }
    }
    // Types: float4, float, int, struct S.
    let mut type_at = Vec::new();
    for (class, base, rows, cols) in [
        (1u16, 3u16, 1u16, 4u16),
        (0, 3, 1, 1),
        (0, 2, 1, 1),
        (5, 0, 1, 2),
    ] {
        type_at.push(b.pos());
        b.u16(class).u16(base).u16(rows).u16(cols).u16(0);
        b.u16(if class == 5 { 2 } else { 0 }).u32(0);
        if sm5 {
            b.u32(0).u32(0).u32(0).u32(0).u32(0);
        }
    }
    let members_at = b.pos();
    b.patch(type_at[3] + 12, members_at);
    let member_slots = [b.pos(), b.pos() + 12];
    b.u32(0).u32(type_at[1]).u32(0);
    b.u32(0).u32(type_at[2]).u32(4);
    b.patch(var_slots[0] + 16, type_at[0]);
    b.patch(var_slots[1] + 16, type_at[3]);
    // Strings.
    let creator = b.str("test compiler");
    b.patch(24, creator);
    let n = b.str("samp0");
    b.patch(bind_names[0], n);
    let n = b.str("tex2");
    b.patch(bind_names[1], n);
    let n = b.str("cb0");
    b.patch(cb_name_slot, n);
    let n = b.str("color");
    b.patch(var_slots[0], n);
    let n = b.str("s");
    b.patch(var_slots[1], n);
    let n = b.str("a");
    b.patch(member_slots[0], n);
    let n = b.str("b");
    b.patch(member_slots[1], n);
    if sm5 {
        for (t, name) in type_at.iter().zip(["float4", "float", "int", "S"]) {
            let n = b.str(name);
            b.patch(t + 32, n);
        }
    }
    b.bytes
}
