//! Texel formats: names, layout, and D3D's conversions between stored texels and the 32-bit
//! values a shader sees.

/// How a format's channels are numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberKind {
    /// Floating point (32-bit, 16-bit half, or the unsigned 11/10-bit floats).
    Float,
    /// Unsigned normalized: 0..2ⁿ−1 reads 0.0..1.0.
    Unorm,
    /// Signed normalized: −(2ⁿ⁻¹−1)..2ⁿ⁻¹−1 reads −1.0..1.0.
    Snorm,
    /// Unsigned integer (also `typeless`, read as unsigned).
    Uint,
    /// Signed integer.
    Sint,
}

impl NumberKind {
    /// Whether the shader sees this kind as float bits (float, UNORM, SNORM).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            NumberKind::Float | NumberKind::Unorm | NumberKind::Snorm
        )
    }
}

/// A texel format of a typed buffer or texture: the channels a texel stores, from the
/// least significant bits of the little-endian texel upwards.
///
/// The conversion rules follow the D3D11.3 functional specification, 3.1.5 (16-bit float),
/// 3.1.6 (11- and 10-bit floats) and 3.2 (data conversion; integer ↔ float conversions are
/// exact, 3.2.3.2):
///
/// - float → UNORM / SNORM: NaN gives 0, the value is clamped to [0, 1] / [-1, 1], scaled by
///   2ⁿ−1 / 2ⁿ⁻¹−1 in 32-bit float arithmetic, then 0.5 is added (subtracted for negative
///   SNORM values) and the fraction dropped (round half away from zero; the spec
///   tolerates 0.6 ULP on the integer side, this is the ideal result);
/// - UNORM / SNORM → float: `c / (2ⁿ−1)` / `c / (2ⁿ⁻¹−1)` correctly rounded (3.2.3.2 requires
///   these exact); the most negative SNORM code reads −1.0;
/// - float32 → a smaller float (16-bit half, 11- and 10-bit unsigned floats): round toward
///   zero; a finite value beyond the target's range gives the largest finite value of the
///   same sign (never infinity); ±infinity stays infinity; NaN stays NaN; values too small
///   for the target's denormals give (signed) zero; formats without a sign bit (11/10-bit)
///   store 0 for every negative value, −infinity included;
/// - smaller float → float32: exact (denormals become normal float32 values);
/// - integer → an integer format of fewer bits: clamped to the target's range (the value is
///   read as unsigned for UINT formats, as two's complement for SINT formats); 32-bit
///   integer and float channels store the bits unchanged;
/// - on load, channels a format does not have read (0, 0, 0, 1), with 1 as float 1.0 for
///   float / UNORM / SNORM formats and integer 1 for UINT / SINT formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    kind: NumberKind,
    /// Bits of each stored channel, in storage order (unused entries 0).
    bits: [u8; 4],
    /// The shader component (0 = x/r … 3 = w/a) of each stored channel.
    component: [u8; 4],
    /// Stored channels (1 to 4).
    channels: u8,
}

/// The formats by name: the channel widths and the shader component of each channel, in
/// storage order.
const LAYOUTS: [(&str, &[u8], &[u8]); 14] = [
    ("r32", &[32], &[0]),
    ("r32g32", &[32, 32], &[0, 1]),
    ("r32g32b32", &[32, 32, 32], &[0, 1, 2]),
    ("r32g32b32a32", &[32, 32, 32, 32], &[0, 1, 2, 3]),
    ("r16", &[16], &[0]),
    ("r16g16", &[16, 16], &[0, 1]),
    ("r16g16b16a16", &[16, 16, 16, 16], &[0, 1, 2, 3]),
    ("r8", &[8], &[0]),
    ("r8g8", &[8, 8], &[0, 1]),
    ("r8g8b8a8", &[8, 8, 8, 8], &[0, 1, 2, 3]),
    ("b8g8r8a8", &[8, 8, 8, 8], &[2, 1, 0, 3]),
    ("r10g10b10a2", &[10, 10, 10, 2], &[0, 1, 2, 3]),
    ("r11g11b10", &[11, 11, 10], &[0, 1, 2]),
    ("d32", &[32], &[0]),
];

impl Format {
    /// The format of a `.shader_test` format name (`r32g32b32a32-float`, `r8-unorm`,
    /// `r10g10b10a2-unorm`, `r11g11b10-float`, `b8g8r8a8-unorm`, `r32-float-shadow`, …);
    /// `None` for a name that is not a DXGI format this interpreter models. `typeless`
    /// formats read and write as unsigned integers.
    pub fn from_name(name: &str) -> Option<Format> {
        let (layout, kind) = name.split_once('-')?;
        let kind = match kind {
            "float" | "float-shadow" => NumberKind::Float,
            "unorm" => NumberKind::Unorm,
            "snorm" => NumberKind::Snorm,
            "uint" => NumberKind::Uint,
            "sint" => NumberKind::Sint,
            "typeless" => NumberKind::Uint,
            _ => return None,
        };
        let typeless = name.ends_with("-typeless");
        let (_, bits, component) = LAYOUTS.iter().find(|(n, _, _)| *n == layout)?;
        let widest = bits.iter().copied().max().unwrap_or(0);
        let narrowest = bits.iter().copied().min().unwrap_or(0);
        let allowed = match layout {
            "r10g10b10a2" => matches!(kind, NumberKind::Unorm | NumberKind::Uint),
            "r11g11b10" => kind == NumberKind::Float || typeless,
            "b8g8r8a8" => kind == NumberKind::Unorm || typeless,
            "d32" => kind == NumberKind::Float,
            _ if widest == 32 => !matches!(kind, NumberKind::Unorm | NumberKind::Snorm),
            _ if widest == 8 => kind != NumberKind::Float,
            _ => narrowest == widest,
        };
        if !allowed {
            return None;
        }
        let mut format = Format {
            kind,
            bits: [0; 4],
            component: [0; 4],
            channels: u8::try_from(bits.len()).ok()?,
        };
        for (i, (&b, &c)) in bits.iter().zip(component.iter()).enumerate() {
            *format.bits.get_mut(i)? = b;
            *format.component.get_mut(i)? = c;
        }
        Some(format)
    }

    /// Bytes per texel.
    pub fn texel_size(self) -> u32 {
        let bits: u32 = self.bits.iter().map(|&b| u32::from(b)).sum();
        bits / 8
    }

    /// How the channels are numbers.
    pub fn kind(self) -> NumberKind {
        self.kind
    }

    /// The number of stored channels (1 to 4).
    pub fn channels(self) -> u32 {
        u32::from(self.channels)
    }

    /// Bits of the channel that holds shader component `component` (0 = r … 3 = a), or 0
    /// when the format does not store it.
    pub fn component_bits(self, component: usize) -> u32 {
        self.stored()
            .find(|&(_, c, _)| c == component)
            .map_or(0, |(_, _, bits)| bits)
    }

    /// Whether this is a single 32-bit integer channel (R32_UINT / R32_SINT / R32_TYPELESS):
    /// the formats typed atomics accept.
    pub fn is_r32_integer(self) -> bool {
        self.channels == 1
            && self.bits[0] == 32
            && matches!(self.kind, NumberKind::Uint | NumberKind::Sint)
    }

    /// The stored channels: (bit offset in the texel, shader component, bits).
    fn stored(self) -> impl Iterator<Item = (u32, usize, u32)> {
        let mut offset = 0u32;
        (0..usize::from(self.channels).min(4)).map(move |i| {
            let bits = u32::from(self.bits[i]);
            let at = offset;
            offset += bits;
            (at, usize::from(self.component[i]), bits)
        })
    }

    /// What the shader sees for a texel: the channels converted to 32-bit values (float
    /// bits for float/UNORM/SNORM formats), missing components (0, 0, 0, 1). `texel` holds
    /// at least [`Format::texel_size`] bytes (missing bytes read 0).
    pub fn decode(self, texel: &[u8]) -> [u32; 4] {
        let one = if self.kind.is_float() {
            1.0f32.to_bits()
        } else {
            1
        };
        let mut out = [0, 0, 0, one];
        let packed = texel
            .iter()
            .take(16)
            .enumerate()
            .fold(0u128, |acc, (i, &b)| acc | (u128::from(b) << (8 * i)));
        for (offset, component, bits) in self.stored() {
            let raw = extract(packed, offset, bits);
            if let Some(slot) = out.get_mut(component) {
                *slot = decode_channel(self.kind, raw, bits);
            }
        }
        out
    }

    /// The bytes of a texel holding `value` (as a shader writes it: float bits for
    /// float/UNORM/SNORM formats, integers for UINT/SINT) with D3D's conversions.
    pub fn encode(self, value: [u32; 4]) -> Vec<u8> {
        let mut packed = 0u128;
        for (offset, component, bits) in self.stored() {
            let v = value.get(component).copied().unwrap_or(0);
            let raw = encode_channel(self.kind, v, bits);
            packed |= u128::from(raw & mask(bits)) << offset;
        }
        let size = usize::try_from(self.texel_size()).unwrap_or(0);
        packed.to_le_bytes().iter().take(size).copied().collect()
    }
}

/// The low `bits` bits set.
fn mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

/// `bits` bits of `packed` from bit `offset`.
fn extract(packed: u128, offset: u32, bits: u32) -> u32 {
    let shifted = packed.checked_shr(offset).unwrap_or(0);
    (shifted & u128::from(mask(bits))) as u32
}

/// One stored channel of `bits` bits as the shader sees it.
fn decode_channel(kind: NumberKind, raw: u32, bits: u32) -> u32 {
    match kind {
        NumberKind::Float => match bits {
            32 => raw,
            16 => half_to_f32(raw),
            11 => small_float_to_f32(raw, 6),
            10 => small_float_to_f32(raw, 5),
            _ => 0,
        },
        NumberKind::Unorm => unorm_to_f32(raw, bits),
        NumberKind::Snorm => snorm_to_f32(raw, bits),
        NumberKind::Uint => raw,
        NumberKind::Sint => sign_extend(raw, bits),
    }
}

/// One channel of `bits` bits holding the shader value `v`.
fn encode_channel(kind: NumberKind, v: u32, bits: u32) -> u32 {
    match kind {
        NumberKind::Float => match bits {
            32 => v,
            16 => f32_to_half(v),
            11 => f32_to_small_float(v, 6),
            10 => f32_to_small_float(v, 5),
            _ => 0,
        },
        NumberKind::Unorm => f32_to_unorm(f32::from_bits(v), bits),
        NumberKind::Snorm => f32_to_snorm(f32::from_bits(v), bits),
        NumberKind::Uint => uint_clamp(v, bits),
        NumberKind::Sint => sint_clamp(v, bits),
    }
}

/// Sign-extends the low `bits` bits of `raw`.
pub fn sign_extend(raw: u32, bits: u32) -> u32 {
    if bits == 0 || bits >= 32 {
        return raw;
    }
    let shift = 32 - bits;
    (((raw << shift) as i32) >> shift) as u32
}

/// An unsigned value clamped to `bits` bits (D3D: integers narrow by clamping).
pub fn uint_clamp(v: u32, bits: u32) -> u32 {
    v.min(mask(bits))
}

/// A two's complement value clamped to the range of a `bits`-bit signed integer, as the
/// low `bits` bits.
pub fn sint_clamp(v: u32, bits: u32) -> u32 {
    if bits == 0 || bits >= 32 {
        return v;
    }
    let max = (1i64 << (bits - 1)) - 1;
    let min = -(1i64 << (bits - 1));
    let clamped = i64::from(v as i32).clamp(min, max);
    (clamped as u32) & mask(bits)
}

/// UNORM code → float bits: `c / (2ⁿ−1)`.
pub fn unorm_to_f32(raw: u32, bits: u32) -> u32 {
    let max = mask(bits);
    if max == 0 {
        return 0;
    }
    (raw as f32 / max as f32).to_bits()
}

/// SNORM code → float bits: the most negative code reads −1.0, others `c / (2ⁿ⁻¹−1)`.
pub fn snorm_to_f32(raw: u32, bits: u32) -> u32 {
    if bits < 2 {
        return 0;
    }
    let value = i64::from(sign_extend(raw, bits) as i32);
    let max = (1i64 << (bits.min(32) - 1)) - 1;
    (value.max(-max) as f32 / max as f32).to_bits()
}

/// Float → UNORM code: NaN → 0, clamp to [0, 1], scale by 2ⁿ−1 (float32), add 0.5 (float32),
/// drop the fraction.
pub fn f32_to_unorm(f: f32, bits: u32) -> u32 {
    if f.is_nan() {
        return 0;
    }
    let scale = mask(bits) as f32;
    let c = f.clamp(0.0, 1.0) * scale + 0.5;
    (c as u32).min(mask(bits))
}

/// Float → SNORM code (low `bits` bits): NaN → 0, clamp to [−1, 1], scale by 2ⁿ⁻¹−1 (float32),
/// add 0.5 (subtract for negative values), drop the fraction.
pub fn f32_to_snorm(f: f32, bits: u32) -> u32 {
    if f.is_nan() || !(2..=32).contains(&bits) {
        return 0;
    }
    let max = ((1u32 << (bits - 1)) - 1) as f32;
    let c = f.clamp(-1.0, 1.0) * max;
    let c = if c >= 0.0 { c + 0.5 } else { c - 0.5 };
    let i = (c as i32).clamp(-(max as i32), max as i32);
    (i as u32) & mask(bits)
}

/// float32 bits → half bits: round toward zero, finite overflow to the largest finite half
/// of the same sign, infinity and NaN kept, too small → signed zero.
pub fn f32_to_half(bits: u32) -> u32 {
    let sign = (bits >> 16) & 0x8000;
    sign | f32_to_small(bits & 0x7fff_ffff, 10)
}

/// float32 bits → an unsigned 5-bit-exponent float with `mantissa` bits (6: 11-bit float,
/// 5: 10-bit float): negative values (and −infinity, −0) give 0, otherwise as
/// [`f32_to_half`].
pub fn f32_to_small_float(bits: u32, mantissa: u32) -> u32 {
    let nan = (bits & 0x7fff_ffff) > 0x7f80_0000;
    if bits & 0x8000_0000 != 0 && !nan {
        return 0;
    }
    f32_to_small(bits & 0x7fff_ffff, mantissa)
}

/// The magnitude of float32 `bits` (sign clear) as a 5-bit-exponent float with `m`
/// mantissa bits, rounded toward zero.
fn f32_to_small(bits: u32, m: u32) -> u32 {
    if !(1..=22).contains(&m) {
        return 0;
    }
    let exp = (bits >> 23) & 0xff;
    let mant = bits & 0x7f_ffff;
    let inf = 0x1f << m;
    if exp == 0xff {
        return if mant == 0 {
            inf
        } else {
            // A quiet NaN keeping the payload's top bits.
            inf | (1 << (m - 1)) | (mant >> (23 - m))
        };
    }
    if exp == 0 {
        return 0;
    }
    let e = exp as i32 - 127;
    if e > 15 {
        return inf - 1;
    }
    if e >= -14 {
        return (((e + 15) as u32) << m) | (mant >> (23 - m));
    }
    // A denormal of the target: units of 2^(−14−m).
    let shift = 9 - e - m as i32;
    (0x80_0000 | mant).checked_shr(shift as u32).unwrap_or(0)
}

/// Half bits → float32 bits (exact).
pub fn half_to_f32(raw: u32) -> u32 {
    let sign = (raw & 0x8000) << 16;
    sign | small_float_to_f32(raw & 0x7fff, 10)
}

/// An unsigned 5-bit-exponent float with `m` mantissa bits → float32 bits (exact).
pub fn small_float_to_f32(raw: u32, m: u32) -> u32 {
    if !(1..=22).contains(&m) {
        return 0;
    }
    let exp = (raw >> m) & 0x1f;
    let mant = raw & mask(m);
    match exp {
        0 => {
            // Denormal: mant × 2^(−14−m), exact in float32.
            let v = mant as f32 * f32::from_bits(((127 - 14 - m as i32) as u32) << 23);
            v.to_bits()
        }
        0x1f if mant == 0 => 0x7f80_0000,
        0x1f => 0x7fc0_0000 | (mant << (23 - m)),
        _ => ((exp + 127 - 15) << 23) | (mant << (23 - m)),
    }
}
