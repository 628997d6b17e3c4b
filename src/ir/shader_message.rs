//! The layout of a shader message (`D3D11_SB_CUSTOMDATA_SHADER_MESSAGE`), the custom-data
//! block fxc writes for HLSL's `printf` and `errorf`: after the block's class and length,
//! the message id (a message or an error), the format convention (plain text or printf), the
//! number of characters of the string, the number of operands and their length in dwords,
//! the operands' tokens, then the string with a terminating zero, padded to whole dwords.
//! fxc prints a printf-style message as `printf "format", operands…` (`errorf` for an
//! error); the disassembler and the assembler share this layout.

/// `D3D11_SB_SHADER_MESSAGE_ID_MESSAGE`.
pub const MESSAGE_ID: u32 = 0x0020_0102;
/// `D3D11_SB_SHADER_MESSAGE_ID_ERROR`.
pub const ERROR_ID: u32 = 0x0020_0103;
/// `D3D11_SB_SHADER_MESSAGE_FORMAT_ANSI_PRINTF`.
pub const FORMAT_PRINTF: u32 = 1;

/// A printf-style shader message read from its block's data (the dwords after the length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderMessage<'a> {
    /// An error (`errorf`) rather than a message (`printf`).
    pub error: bool,
    /// The format string's bytes.
    pub text: Vec<u8>,
    /// The number of operands.
    pub operand_count: usize,
    /// The operands' tokens.
    pub operand_tokens: &'a [u32],
}

impl ShaderMessage<'_> {
    /// The mnemonic fxc prints: `printf` or `errorf`.
    pub fn mnemonic(&self) -> &'static str {
        if self.error {
            "errorf"
        } else {
            "printf"
        }
    }

    /// The message of a block's data, when it is a well-formed printf-style message whose
    /// dwords are exactly its layout (anything else prints as raw custom data).
    pub fn parse(data: &[u32]) -> Option<ShaderMessage<'_>> {
        let [id, format, chars, count, length, rest @ ..] = data else {
            return None;
        };
        let error = match *id {
            MESSAGE_ID => false,
            ERROR_ID => true,
            _ => return None,
        };
        if *format != FORMAT_PRINTF {
            return None;
        }
        let length = *length as usize;
        let chars = *chars as usize;
        let tokens = rest.get(..length)?;
        let string = &rest[length..];
        if string.len() != chars / 4 + 1 {
            return None;
        }
        let bytes: Vec<u8> = string.iter().flat_map(|w| w.to_le_bytes()).collect();
        // The characters, then zeros to the end of the last dword.
        if bytes[..chars].contains(&0) || bytes[chars..].iter().any(|&b| b != 0) {
            return None;
        }
        Some(ShaderMessage {
            error,
            text: bytes[..chars].to_vec(),
            operand_count: *count as usize,
            operand_tokens: tokens,
        })
    }

    /// The block's data for this message.
    pub fn data(&self) -> Vec<u32> {
        let mut data = vec![
            if self.error { ERROR_ID } else { MESSAGE_ID },
            FORMAT_PRINTF,
            self.text.len() as u32,
            self.operand_count as u32,
            self.operand_tokens.len() as u32,
        ];
        data.extend_from_slice(self.operand_tokens);
        let mut bytes = self.text.clone();
        bytes.resize((self.text.len() / 4 + 1) * 4, 0);
        data.extend(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_reads_back_from_its_data() {
        let tokens = [0x0000_4001, 99];
        let message = ShaderMessage {
            error: false,
            text: b"v=%u".to_vec(),
            operand_count: 1,
            operand_tokens: &tokens,
        };
        let data = message.data();
        // Id, format, 4 characters, 1 operand of 2 dwords, the tokens, "v=%u" in memory
        // order and a zero dword.
        assert_eq!(
            data,
            [
                MESSAGE_ID,
                FORMAT_PRINTF,
                4,
                1,
                2,
                0x0000_4001,
                99,
                0x7525_3d76,
                0
            ]
        );
        assert_eq!(ShaderMessage::parse(&data), Some(message));
        // Another format, a short string or stray bytes after the terminator: not a message.
        let mut other = data.clone();
        other[1] = 0;
        assert_eq!(ShaderMessage::parse(&other), None);
        assert_eq!(ShaderMessage::parse(&data[..8]), None);
        let mut stray = data.clone();
        stray[8] = 0x0100_0000;
        assert_eq!(ShaderMessage::parse(&stray), None);
    }
}
