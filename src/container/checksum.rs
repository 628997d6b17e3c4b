//! DXBC's checksum: MD5's compression function (from the `md-5` crate) with DXBC's own
//! final-block layout.
//!
//! The checksum covers every byte after the checksum field (`bytes[20..]`, length `L`).
//! Full 64-byte blocks are compressed as in MD5. The last block differs from MD5's padding:
//! the bit count `L * 8` (as a `u32`) comes *first* in the final block and the last four
//! bytes hold `(L * 8) >> 2 | 1`:
//!
//! * tail shorter than 56 bytes: one block `[L*8][tail][0x80][zeros][(L*8)>>2|1]`;
//! * otherwise two blocks: `[tail][0x80][zeros]`, then `[L*8][zeros][(L*8)>>2|1]`.
//!
//! The result is the four state words in little-endian order, as stored in the header.

/// MD5's initial state.
const INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// Computes DXBC's checksum of a container: the MD5 variant over `bytes[20..]`.
///
/// For inputs shorter than 20 bytes the checksum is computed over no bytes at all.
pub fn checksum(bytes: &[u8]) -> [u8; 16] {
    let data = bytes.get(20..).unwrap_or(&[]);
    let mut state = INIT;
    // The full blocks go to the compression function in one call, without copies.
    let (blocks, tail) = data.as_chunks::<64>();
    md5::block_api::compress(&mut state, blocks);
    // DXBC sizes are 32-bit; the bit count wraps like the reference implementation's u32.
    let bits = (data.len() as u32).wrapping_mul(8);
    let bits_bytes = bits.to_le_bytes();
    let last_bytes = ((bits >> 2) | 1).to_le_bytes();

    let mut block = [0u8; 64];
    if tail.len() >= 56 {
        for (dst, src) in block.iter_mut().zip(tail) {
            *dst = *src;
        }
        if let Some(b) = block.get_mut(tail.len()) {
            *b = 0x80;
        }
        compress(&mut state, &block);
        block = [0u8; 64];
        put(&mut block, 0, &bits_bytes);
        put(&mut block, 60, &last_bytes);
    } else {
        put(&mut block, 0, &bits_bytes);
        put(&mut block, 4, tail);
        if let Some(b) = block.get_mut(4 + tail.len()) {
            *b = 0x80;
        }
        put(&mut block, 60, &last_bytes);
    }
    compress(&mut state, &block);

    let mut out = [0u8; 16];
    for (dst, word) in out.chunks_exact_mut(4).zip(state) {
        dst.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// Copies `src` into `block` starting at `at` (bytes that would not fit are dropped).
fn put(block: &mut [u8; 64], at: usize, src: &[u8]) {
    for (dst, s) in block.iter_mut().skip(at).zip(src) {
        *dst = *s;
    }
}

/// MD5's compression function (RustCrypto's `md-5`) on one 64-byte block; shorter input is
/// zero-extended.
fn compress(state: &mut [u32; 4], block: &[u8]) {
    let mut full = [0u8; 64];
    for (dst, src) in full.iter_mut().zip(block) {
        *dst = *src;
    }
    md5::block_api::compress(state, &[full]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Standard MD5 of `data`, built from the same compression function, to check it.
    fn md5(data: &[u8]) -> [u8; 16] {
        let mut state = INIT;
        let mut padded = data.to_vec();
        padded.push(0x80);
        while padded.len() % 64 != 56 {
            padded.push(0);
        }
        padded.extend_from_slice(&((data.len() as u64) * 8).to_le_bytes());
        for block in padded.chunks_exact(64) {
            compress(&mut state, block);
        }
        let mut out = [0u8; 16];
        for (dst, word) in out.chunks_exact_mut(4).zip(state) {
            dst.copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn compression_function_is_md5() {
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(&md5(b"The quick brown fox jumps over the lazy dog")),
            "9e107d9d372bb6826bd81d3542a419d6"
        );
    }

    #[test]
    fn short_input_is_checksum_of_nothing() {
        assert_eq!(checksum(&[]), checksum(&[7u8; 20]));
        assert_eq!(checksum(&[1, 2, 3]), checksum(&[0u8; 19]));
    }

    #[test]
    fn both_tail_layouts_differ_and_are_deterministic() {
        // 20 header bytes + 55 or 56 tail bytes exercise the one- and two-block endings.
        let a = vec![0xabu8; 20 + 55];
        let b = vec![0xabu8; 20 + 56];
        let c = vec![0xabu8; 20 + 64];
        assert_ne!(checksum(&a), checksum(&b));
        assert_ne!(checksum(&b), checksum(&c));
        assert_eq!(checksum(&b), checksum(&b.clone()));
    }
}
