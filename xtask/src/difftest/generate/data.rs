//! Edge values the generated programs load: NaNs with several payloads, infinities, signed
//! zeros, denormals, ±1, 0.5, large floats, integer extremes, and doubles as word pairs.

use super::Rng;

/// 32-bit float bit patterns.
pub(super) const FLOATS: &[u32] = &[
    0x7fc0_0000, // quiet NaN
    0x7fc1_2345, // quiet NaN, payload
    0xffc0_0001, // negative quiet NaN, payload
    0x7f80_0001, // signalling NaN
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest denormal
    0x807f_ffff, // largest negative denormal
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0xbf00_0000, // -0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0xc0b0_0000, // -5.5
    0x7f7f_ffff, // FLT_MAX
    0xff7f_ffff, // -FLT_MAX
    0x0080_0000, // FLT_MIN
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0x4f80_0000, // 2^32
    0x4b80_0001, // 2^24 + 2
    0x3eaa_aaab, // 1/3
    0x4049_0fdb, // pi
    0x4700_0000, // 32768
    0x477f_e000, // 65504 (half max)
    0x3380_0000, // 2^-24 (half denormal)
    0x4280_0000, // 64
    0xc2c8_0000, // -100
    0x3dcc_cccd, // 0.1
];

/// 32-bit integer patterns.
pub(super) const INTS: &[u32] = &[
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    15,
    16,
    31,
    32,
    33,
    63,
    0xffff_ffff,
    0xffff_fffe,
    0x8000_0000,
    0x7fff_ffff,
    0x8000_0001,
    0xffff_ffe0,
    0xffff_fff0,
    0x0000_ffff,
    0x0001_0000,
    0x1234_5678,
    0xdead_beef,
    0x0f0f_0f0f,
    0xaaaa_aaaa,
    0x3c00,
    0x7c00,
    0xfc01,
];

/// 64-bit double patterns.
pub(super) const DOUBLES: &[u64] = &[
    0x7ff8_0000_0000_0000, // quiet NaN
    0x7ff8_0000_0012_3456, // quiet NaN, payload
    0x7ff0_0000_0000_0001, // signalling NaN
    0x7ff0_0000_0000_0000, // +inf
    0xfff0_0000_0000_0000, // -inf
    0x0000_0000_0000_0000, // +0
    0x8000_0000_0000_0000, // -0
    0x0000_0000_0000_0001, // smallest denormal
    0x800f_ffff_ffff_ffff, // negative denormal
    0x3ff0_0000_0000_0000, // 1
    0xbff0_0000_0000_0000, // -1
    0x3fe0_0000_0000_0000, // 0.5
    0x4008_0000_0000_0001, // 3.0000000000000004
    0xc002_0000_0000_0003, // -2.2500000000000013
    0x7fef_ffff_ffff_ffff, // DBL_MAX
    0x47ef_ffff_e000_0000, // FLT_MAX as a double
    0x47f0_0000_0000_0000, // above FLT_MAX
    0x3690_0000_0000_0000, // below the float denormals
    0x3ff0_0000_0000_0001, // 1 + ulp
    0x4340_0000_0000_0000, // 2^53
    0xc1e0_0000_0000_0000, // -2^31
    0x3fd5_5555_5555_5555, // 1/3
];

/// Finite doubles written as `d(...)` immediates (exact in decimal).
pub(super) const DOUBLE_LITERALS: &[&str] = &[
    "0.5", "-2.0", "1.5", "3.0", "-0.25", "1024.0", "0.0", "-1.0", "6.5",
];

/// A random 32-bit word: a float, an integer or a random pattern.
pub(super) fn word(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0..=4 => rng.pick(FLOATS),
        5..=8 => rng.pick(INTS),
        _ => rng.next() as u32,
    }
}

/// Four words of which the first two or all four form doubles (low word first) when
/// `doubles`, else four [`word`]s.
pub(super) fn vec4(rng: &mut Rng, doubles: bool) -> [u32; 4] {
    if doubles {
        let a = rng.pick(DOUBLES);
        let b = if rng.chance(20) {
            rng.next()
        } else {
            rng.pick(DOUBLES)
        };
        [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]
    } else {
        [word(rng), word(rng), word(rng), word(rng)]
    }
}

/// `n` vectors of edge values; every third vector holds doubles.
pub(super) fn block(rng: &mut Rng, vectors: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(vectors as usize * 4);
    for i in 0..vectors {
        out.extend_from_slice(&vec4(rng, i % 3 == 2));
    }
    out
}
