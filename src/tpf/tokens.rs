//! Bit fields of opcode, operand and extended tokens, shared by the decoder and encoder.

/// Extracts `width` bits of `token` starting at bit `shift`.
pub const fn field(token: u32, shift: u32, width: u32) -> u32 {
    (token >> shift) & ((1u32 << width) - 1)
}

/// Opcode token: the opcode (bits 0–10).
pub const fn opcode(token: u32) -> u32 {
    field(token, 0, 11)
}
/// Opcode token: the control bits (11–23), opcode-specific.
pub const fn control(token: u32) -> u32 {
    field(token, 11, 13)
}
/// Opcode token: instruction length in dwords (bits 24–30).
pub const fn length(token: u32) -> u32 {
    field(token, 24, 7)
}
/// Opcode, operand and extended tokens: the "extended" bit 31.
pub const fn extended(token: u32) -> bool {
    token >> 31 != 0
}
/// Opcode token: `_sat` (bit 13).
pub const SATURATE_BIT: u32 = 1 << 13;
/// Opcode token: the non-zero test (bit 18).
pub const TEST_NONZERO_BIT: u32 = 1 << 18;
/// Opcode token: shift of the precise mask (bits 19–22).
pub const PRECISE_SHIFT: u32 = 19;

/// Extended opcode token types (bits 0–5).
pub mod ext_opcode {
    /// No extension.
    pub const EMPTY: u32 = 0;
    /// Immediate texel offsets (u: 9–12, v: 13–16, w: 17–20, signed 4-bit).
    pub const SAMPLE_CONTROLS: u32 = 1;
    /// Resource dimension (6–10) and structure stride (11–22).
    pub const RESOURCE_DIM: u32 = 2;
    /// Four 4-bit return types (6–21).
    pub const RESOURCE_RETURN_TYPE: u32 = 3;
}

/// Operand token fields.
pub mod operand {
    use super::field;
    /// Number of components: 0, 1, 4 or N (bits 0–1).
    pub const fn num_components(token: u32) -> u32 {
        field(token, 0, 2)
    }
    /// Selection mode of a four-component operand: mask, swizzle, select-1 (bits 2–3).
    pub const fn selection_mode(token: u32) -> u32 {
        field(token, 2, 2)
    }
    /// Operand type (bits 12–19).
    pub const fn kind(token: u32) -> u32 {
        field(token, 12, 8)
    }
    /// Index dimension 0–3 (bits 20–21).
    pub const fn index_dimension(token: u32) -> u32 {
        field(token, 20, 2)
    }
    /// Representation of index `i` (bits 22–24, 25–27, 28–30).
    pub const fn index_representation(token: u32, i: u32) -> u32 {
        field(token, 22 + 3 * i, 3)
    }
    /// Index representations.
    pub const IMM32: u32 = 0;
    /// 64-bit immediate index.
    pub const IMM64: u32 = 1;
    /// Relative index.
    pub const RELATIVE: u32 = 2;
    /// 32-bit immediate plus relative.
    pub const IMM32_PLUS_RELATIVE: u32 = 3;
    /// 64-bit immediate plus relative.
    pub const IMM64_PLUS_RELATIVE: u32 = 4;
    /// Extended operand token type: modifier (bits 6–13 modifier, 14–16 min precision,
    /// 17 non-uniform).
    pub const EXT_MODIFIER: u32 = 1;
}
