//! `dfma` with a single rounding: a soft-float fused multiply-add on the bit patterns of the
//! doubles, in 32-bit integer instructions only.
//!
//! D3D's `dfma` rounds once (the exact `a * b + c` rounded to nearest, ties to even), but
//! Vulkan lets GLSL.std.450 `Fma` be a multiply then an add, and lavapipe does that: it rounds
//! twice (last-bit errors, −0 for +0, −inf instead of NaN when the product overflows). So the
//! translator does not use the device's `Fma` at all. A module that uses `dfma` gets ONE helper
//! function,
//!
//! ```text
//! fma64(a_lo, a_hi, b_lo, b_hi, c_lo, c_hi : uint) -> uvec2 (lo, hi)
//! ```
//!
//! emitted after the other functions (a `dfma` lane is an `OpFunctionCall`). Its body is one
//! block without branches (every special case is computed and picked with `OpSelect`), made
//! of `uint` arithmetic, `OpUMulExtended`, `OpIAddCarry`, `OpISubBorrow`, shifts by amounts
//! below 32, comparisons and GLSL.std.450 `FindUMsb`: no `Int64`, no `Float64` operation, so
//! the device's float rounding, denormal flushing and contraction cannot change the result.
//!
//! Why integers: an exact algorithm in double arithmetic (error-free transformations and an
//! emulated round-to-odd sum) would need every intermediate `OpFMul`/`OpFAdd` correctly
//! rounded, uncontracted, with denormals kept and inf/NaN handled around it, and would still
//! need the special cases in integer code; the integer route depends on nothing but exact
//! integer instructions, so it gives the same bits on every device. It costs about 560
//! instructions, in one function shared by every `dfma` of the module.
//!
//! The algorithm, [`fma64`], is written once against the [`Ops`] trait. The back end
//! implements [`Ops`] by emitting instructions; the unit tests implement it by computing on
//! `u32` values, so the very sequence of operations the shader runs is checked against Rust's
//! correctly rounded `f64::mul_add` on millions of operands (and the shift amounts are
//! checked to stay below 32), and the execution tests run the emitted code on a device.
//!
//! The steps:
//!
//! 1. Unpack sign, exponent and significand (the implicit bit for exponents other than 0; a
//!    denormal has exponent 1 without it) and classify NaN, infinity and zero.
//! 2. Special cases, chosen at the end: a NaN operand gives that NaN quieted (the first of a,
//!    b, c); inf × 0, and inf − inf between the product and c, give the default NaN; an
//!    infinite product gives inf with the product's sign; an infinite c gives c; a zero
//!    product gives c exactly, or for a zero c the IEEE sum of zeros (−0 only when both are
//!    −0).
//! 3. Normalise the significands of a, b and c with `FindUMsb` and a left shift (denormals
//!    become normal, with an exponent below the normal range): a's top bit at bit 63 of two
//!    words, b's and c's at bit 61. Each carries its scale (the exponent of its last bit).
//! 4. The exact product, 4 words, from four 32×32→64 `OpUMulExtended`: its top bit is at bit
//!    124 or 125. c is placed in words 2 and 3, top bit at 125.
//! 5. Align: the operand with the smaller scale is shifted right to the other's scale, the
//!    bits shifted out OR-ed into its last bit ("sticky", the shift capped at 127). Both tops
//!    sit at bit 124 or 125, so the larger-scale operand has at least 20 zero low bits and a
//!    jammed bit only arises when the shifted operand is far below: the sum or difference is
//!    exact in everything that decides the rounding.
//! 6. Add, or subtract both ways and keep the non-negative one (the sign flips when the
//!    subtraction borrows). An exact zero is +0 (round to nearest).
//! 7. Normalise the result's top bit to bit 127; its exponent E = msb + scale + 1023. Below
//!    the normal range (E < 1) shift right by 1 − E with sticky (a denormal, or zero keeping
//!    its sign).
//! 8. Round to nearest even from the 53 bits at 127..75, the round bit 74 and the sticky
//!    bits below, and pack as `sign | (E' << 52) + significand + round-up`, where E' = E − 1
//!    for normal results (the implicit bit adds the last 1) and 0 for denormals: a round-up
//!    that carries out of the significand then raises the exponent, reaching the smallest
//!    normal or infinity exactly as IEEE says. E ≥ 2047 before rounding is ±inf.

use super::builder::Operand::IdRef;
use spirv::Word;

use super::emitter::Emitter;
use super::module::{built, Module, Scalar};
use crate::error::Result;

/// GLSL.std.450 `FindUMsb`.
const FIND_U_MSB: u32 = 75;
/// The sign bit of a double's high half.
const SIGN: u32 = 0x8000_0000;
/// The quiet bit of a NaN's high half.
const QUIET: u32 = 0x0008_0000;
/// The high half of the default NaN.
const DEFAULT_NAN: u32 = 0x7ff8_0000;
/// The high half of +inf.
const INFINITY: u32 = 0x7ff0_0000;

/// The integer operations [`fma64`] is written in: 32-bit words (`U`, wrapping arithmetic)
/// and booleans (`B`). Shift amounts are always below 32.
pub(super) trait Ops {
    /// A 32-bit word.
    type U: Copy;
    /// A boolean.
    type B: Copy;
    /// A constant word.
    fn constant(&mut self, value: u32) -> Self::U;
    /// `x + y` modulo 2^32.
    fn add(&mut self, x: Self::U, y: Self::U) -> Result<Self::U>;
    /// `x - y` modulo 2^32.
    fn sub(&mut self, x: Self::U, y: Self::U) -> Result<Self::U>;
    /// `x + y` as (sum modulo 2^32, carry 0 or 1).
    fn add_carry(&mut self, x: Self::U, y: Self::U) -> Result<(Self::U, Self::U)>;
    /// `x - y` as (difference modulo 2^32, borrow 0 or 1).
    fn sub_borrow(&mut self, x: Self::U, y: Self::U) -> Result<(Self::U, Self::U)>;
    /// The 64-bit product `x * y` as (low, high).
    fn mul_extended(&mut self, x: Self::U, y: Self::U) -> Result<(Self::U, Self::U)>;
    /// Bitwise and.
    fn and(&mut self, x: Self::U, y: Self::U) -> Result<Self::U>;
    /// Bitwise or.
    fn or(&mut self, x: Self::U, y: Self::U) -> Result<Self::U>;
    /// Bitwise exclusive or.
    fn xor(&mut self, x: Self::U, y: Self::U) -> Result<Self::U>;
    /// `x << s`, `s` below 32.
    fn shl(&mut self, x: Self::U, s: Self::U) -> Result<Self::U>;
    /// `x >> s` (logical), `s` below 32.
    fn shr(&mut self, x: Self::U, s: Self::U) -> Result<Self::U>;
    /// The index of the most significant set bit; all ones for 0.
    fn msb(&mut self, x: Self::U) -> Result<Self::U>;
    /// `x == y`.
    fn eq(&mut self, x: Self::U, y: Self::U) -> Result<Self::B>;
    /// `x != y`.
    fn ne(&mut self, x: Self::U, y: Self::U) -> Result<Self::B>;
    /// `x < y` unsigned.
    fn ult(&mut self, x: Self::U, y: Self::U) -> Result<Self::B>;
    /// `x < y` as signed (two's complement) words.
    fn slt(&mut self, x: Self::U, y: Self::U) -> Result<Self::B>;
    /// `c ? x : y`.
    fn select(&mut self, c: Self::B, x: Self::U, y: Self::U) -> Result<Self::U>;
    /// Logical and.
    fn both(&mut self, x: Self::B, y: Self::B) -> Result<Self::B>;
    /// Logical or.
    fn either(&mut self, x: Self::B, y: Self::B) -> Result<Self::B>;
    /// Logical not.
    fn not(&mut self, x: Self::B) -> Result<Self::B>;
}

/// A double as (low, high) words.
pub(super) type Bits<U> = [U; 2];

/// One unpacked operand.
struct Parts<U, B> {
    /// The sign bit (0 or [`SIGN`]).
    sign: U,
    /// The biased exponent field, 0 to 2047.
    exp: U,
    /// The significand with its implicit bit, (low, high): up to 53 bits.
    significand: [U; 2],
    /// NaN.
    nan: B,
    /// ±inf.
    inf: B,
    /// ±0.
    zero: B,
}

/// Splits a double into its fields and classes.
fn unpack<O: Ops>(o: &mut O, x: Bits<O::U>) -> Result<Parts<O::U, O::B>> {
    let [lo, hi] = x;
    let sign_mask = o.constant(SIGN);
    let sign = o.and(hi, sign_mask)?;
    let twenty = o.constant(20);
    let top = o.shr(hi, twenty)?;
    let max_exp = o.constant(0x7ff);
    let exp = o.and(top, max_exp)?;
    let frac_mask = o.constant(0x000f_ffff);
    let frac_hi = o.and(hi, frac_mask)?;
    let frac_any = o.or(frac_hi, lo)?;
    let zero_word = o.constant(0);
    let frac_zero = o.eq(frac_any, zero_word)?;
    let frac_nonzero = o.not(frac_zero)?;
    let exp_max = o.eq(exp, max_exp)?;
    let exp_zero = o.eq(exp, zero_word)?;
    let nan = o.both(exp_max, frac_nonzero)?;
    let inf = o.both(exp_max, frac_zero)?;
    let zero = o.both(exp_zero, frac_zero)?;
    let implicit = o.constant(0x0010_0000);
    let with_implicit = o.or(frac_hi, implicit)?;
    let sig_hi = o.select(exp_zero, frac_hi, with_implicit)?;
    Ok(Parts {
        sign,
        exp,
        significand: [lo, sig_hi],
        nan,
        inf,
        zero,
    })
}

/// `w << n` over little-endian words, `n` below `32 * w.len()`; bits above the last word are
/// dropped.
fn shl_words<O: Ops>(o: &mut O, w: &[O::U], n: O::U) -> Result<Vec<O::U>> {
    let zero = o.constant(0);
    let one = o.constant(1);
    let low5 = o.constant(31);
    let five = o.constant(5);
    let r = o.and(n, low5)?;
    let q = o.shr(n, five)?;
    let back = o.sub(low5, r)?;
    let mut bits = Vec::with_capacity(w.len());
    for i in 0..w.len() {
        let up = o.shl(w[i], r)?;
        let word = if i == 0 {
            up
        } else {
            // (w[i-1] >> 1) >> (31 - r): w[i-1] >> (32 - r), and 0 for r = 0.
            let half = o.shr(w[i - 1], one)?;
            let carried = o.shr(half, back)?;
            o.or(up, carried)?
        };
        bits.push(word);
    }
    let mut out = Vec::with_capacity(w.len());
    for i in 0..w.len() {
        let mut word = zero;
        for j in 0..=i {
            let jw = o.constant(j as u32);
            let is_j = o.eq(q, jw)?;
            word = o.select(is_j, bits[i - j], word)?;
        }
        out.push(word);
    }
    Ok(out)
}

/// `w >> n` over little-endian words with the bits shifted out OR-ed into the last bit
/// ("jamming"), `n` below `32 * w.len()`.
fn shr_jam_words<O: Ops>(o: &mut O, w: &[O::U], n: O::U) -> Result<Vec<O::U>> {
    let len = w.len();
    let zero = o.constant(0);
    let one = o.constant(1);
    let low5 = o.constant(31);
    let five = o.constant(5);
    let r = o.and(n, low5)?;
    let q = o.shr(n, five)?;
    let back = o.sub(low5, r)?;
    // Whole words first: u[i] = w[i + q]; the words below q are lost.
    let mut moved = Vec::with_capacity(len);
    for i in 0..len {
        let mut word = zero;
        for j in 0..len - i {
            let jw = o.constant(j as u32);
            let is_j = o.eq(q, jw)?;
            word = o.select(is_j, w[i + j], word)?;
        }
        moved.push(word);
    }
    let mut lost = zero;
    for (j, word) in w.iter().enumerate().take(len - 1) {
        let jw = o.constant(j as u32);
        let gone = o.ult(jw, q)?;
        let part = o.select(gone, *word, zero)?;
        lost = o.or(lost, part)?;
    }
    // Then bits: t[i] = (u[i] >> r) | (u[i+1] << (32 - r)), 0 for r = 0 on the second part.
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let down = o.shr(moved[i], r)?;
        let word = if i + 1 < len {
            let twice = o.shl(moved[i + 1], one)?;
            let carried = o.shl(twice, back)?;
            o.or(down, carried)?
        } else {
            down
        };
        out.push(word);
    }
    let twice = o.shl(moved[0], one)?;
    let lost_bits = o.shl(twice, back)?;
    let lost = o.or(lost, lost_bits)?;
    let sticky = o.ne(lost, zero)?;
    let jam = o.select(sticky, one, zero)?;
    out[0] = o.or(out[0], jam)?;
    Ok(out)
}

/// `x + y` over little-endian words, the carry out dropped.
fn add_words<O: Ops>(o: &mut O, x: &[O::U], y: &[O::U]) -> Result<Vec<O::U>> {
    let mut out = Vec::with_capacity(x.len());
    let mut carry = None;
    for (a, b) in x.iter().zip(y) {
        let (sum, c1) = o.add_carry(*a, *b)?;
        let sum = match carry {
            None => {
                carry = Some(c1);
                sum
            }
            Some(c) => {
                let (sum, c2) = o.add_carry(sum, c)?;
                carry = Some(o.or(c1, c2)?);
                sum
            }
        };
        out.push(sum);
    }
    Ok(out)
}

/// `x - y` over little-endian words and the final borrow (1 when `y > x`).
fn sub_words<O: Ops>(o: &mut O, x: &[O::U], y: &[O::U]) -> Result<(Vec<O::U>, O::U)> {
    let mut out = Vec::with_capacity(x.len());
    let mut borrow = o.constant(0);
    for (i, (a, b)) in x.iter().zip(y).enumerate() {
        let (diff, b1) = o.sub_borrow(*a, *b)?;
        if i == 0 {
            borrow = b1;
            out.push(diff);
        } else {
            let (diff, b2) = o.sub_borrow(diff, borrow)?;
            borrow = o.or(b1, b2)?;
            out.push(diff);
        }
    }
    Ok((out, borrow))
}

/// The index of the most significant set bit of little-endian words; all ones for zero.
fn msb_words<O: Ops>(o: &mut O, w: &[O::U]) -> Result<O::U> {
    let zero = o.constant(0);
    let mut msb = o.msb(w[0])?;
    for (i, word) in w.iter().enumerate().skip(1) {
        let here = o.msb(*word)?;
        let base = o.constant(32 * i as u32);
        let at = o.add(here, base)?;
        let set = o.ne(*word, zero)?;
        msb = o.select(set, at, msb)?;
    }
    Ok(msb)
}

/// `min(x, y)` of signed words.
fn smin<O: Ops>(o: &mut O, x: O::U, y: O::U) -> Result<O::U> {
    let less = o.slt(x, y)?;
    o.select(less, x, y)
}

/// `max(x, y)` of signed words.
fn smax<O: Ops>(o: &mut O, x: O::U, y: O::U) -> Result<O::U> {
    let less = o.slt(x, y)?;
    o.select(less, y, x)
}

/// The significand normalised so that its top bit is at bit `top` of two words (unchanged
/// when zero), and the scale of its last bit (the unbiased exponent of bit 0, signed).
fn normalise<O: Ops>(o: &mut O, p: &Parts<O::U, O::B>, top: u32) -> Result<(Vec<O::U>, O::U)> {
    let zero = o.constant(0);
    let one = o.constant(1);
    let msb = msb_words(o, &p.significand)?;
    let any = o.or(p.significand[0], p.significand[1])?;
    let nonzero = o.ne(any, zero)?;
    let top_word = o.constant(top);
    let shift = o.sub(top_word, msb)?;
    let shift = o.select(nonzero, shift, zero)?;
    let normal = shl_words(o, &p.significand, shift)?;
    // The last bit of the unshifted significand weighs 2^(max(exp, 1) - 1075).
    let exp = smax(o, p.exp, one)?;
    let bias = o.constant(1075);
    let scale = o.sub(exp, bias)?;
    let scale = o.sub(scale, shift)?;
    Ok((normal, scale))
}

/// `a * b + c` rounded once to nearest even, on the bits of doubles (see the module doc).
pub(super) fn fma64<O: Ops>(
    o: &mut O,
    a: Bits<O::U>,
    b: Bits<O::U>,
    c: Bits<O::U>,
) -> Result<Bits<O::U>> {
    let zero = o.constant(0);
    let one = o.constant(1);
    let sign_bit = o.constant(SIGN);
    let pa = unpack(o, a)?;
    let pb = unpack(o, b)?;
    let pc = unpack(o, c)?;
    let sign_p = o.xor(pa.sign, pb.sign)?;
    let signs = o.xor(sign_p, pc.sign)?;
    let subtract = o.ne(signs, zero)?;

    // The exact product, top bit at 124 or 125 (a at bit 63 times b at bit 61).
    let (ma, scale_a) = normalise(o, &pa, 63)?;
    let (mb, scale_b) = normalise(o, &pb, 61)?;
    let (l00, h00) = o.mul_extended(ma[0], mb[0])?;
    let (l01, h01) = o.mul_extended(ma[0], mb[1])?;
    let (l10, h10) = o.mul_extended(ma[1], mb[0])?;
    let (l11, h11) = o.mul_extended(ma[1], mb[1])?;
    let product = add_words(o, &[l00, h00, l11, h11], &[zero, l01, h01, zero])?;
    let product = add_words(o, &product, &[zero, l10, h10, zero])?;
    let scale_p = o.add(scale_a, scale_b)?;

    // c in words 2 and 3, top bit at 125.
    let (mc, scale_c) = normalise(o, &pc, 61)?;
    let addend = [zero, zero, mc[0], mc[1]];
    let sixty_four = o.constant(64);
    let scale_c = o.sub(scale_c, sixty_four)?;

    // Alignment: the smaller scale is shifted right to the larger one (a zero c never
    // leads, so the product is never shifted against it).
    let delta = o.sub(scale_c, scale_p)?;
    let c_behind = o.slt(delta, zero)?;
    let p_leads = o.either(c_behind, pc.zero)?;
    let most = o.constant(127);
    let forward = smin(o, delta, most)?;
    let shift_p = o.select(p_leads, zero, forward)?;
    let back = o.sub(zero, delta)?;
    let back = smax(o, back, zero)?;
    let back = smin(o, back, most)?;
    let shift_c = o.select(p_leads, back, zero)?;
    let x = shr_jam_words(o, &product, shift_p)?;
    let y = shr_jam_words(o, &addend, shift_c)?;
    let scale = o.select(p_leads, scale_p, scale_c)?;

    // The sum, or the difference taken in the non-negative order.
    let sum = add_words(o, &x, &y)?;
    let (forward_diff, borrow) = sub_words(o, &x, &y)?;
    let (backward_diff, _) = sub_words(o, &y, &x)?;
    let negative = o.ne(borrow, zero)?;
    let mut s = Vec::with_capacity(4);
    for i in 0..4 {
        let diff = o.select(negative, backward_diff[i], forward_diff[i])?;
        s.push(o.select(subtract, diff, sum[i])?);
    }
    let flipped = o.both(subtract, negative)?;
    let flip = o.select(flipped, sign_bit, zero)?;
    let sign = o.xor(sign_p, flip)?;

    // Normalise to bit 127; the biased exponent of the top bit.
    let msb = msb_words(o, &s)?;
    let any01 = o.or(s[0], s[1])?;
    let any23 = o.or(s[2], s[3])?;
    let any = o.or(any01, any23)?;
    let exact_zero = o.eq(any, zero)?;
    let up = o.sub(most, msb)?;
    let up = o.select(exact_zero, zero, up)?;
    let n = shl_words(o, &s, up)?;
    let bias = o.constant(1023);
    let e = o.add(msb, scale)?;
    let e = o.add(e, bias)?;
    let tiny = o.slt(e, one)?;
    let below = o.sub(one, e)?;
    let below = smin(o, below, most)?;
    let down = o.select(tiny, below, zero)?;
    let n = shr_jam_words(o, &n, down)?;
    let e_minus_one = o.sub(e, one)?;
    let field = o.select(tiny, zero, e_minus_one)?;

    // Round to nearest even and pack.
    let eleven = o.constant(11);
    let ten = o.constant(10);
    let twenty_one = o.constant(21);
    let twenty = o.constant(20);
    let sig_hi = o.shr(n[3], eleven)?;
    let from_hi = o.shl(n[3], twenty_one)?;
    let from_lo = o.shr(n[2], eleven)?;
    let sig_lo = o.or(from_hi, from_lo)?;
    let round = o.shr(n[2], ten)?;
    let round = o.and(round, one)?;
    let low_mask = o.constant(0x3ff);
    let rest = o.and(n[2], low_mask)?;
    let rest = o.or(rest, n[1])?;
    let rest = o.or(rest, n[0])?;
    let sticky = o.ne(rest, zero)?;
    let sticky = o.select(sticky, one, zero)?;
    let last = o.and(sig_lo, one)?;
    let tie_break = o.or(sticky, last)?;
    let round_up = o.and(round, tie_break)?;
    let (lo, carry) = o.add_carry(sig_lo, round_up)?;
    let hi = o.shl(field, twenty)?;
    let hi = o.add(hi, sig_hi)?;
    let hi = o.add(hi, carry)?;
    let hi = o.or(hi, sign)?;
    let limit = o.constant(2047);
    let in_range = o.slt(e, limit)?;
    let infinity = o.constant(INFINITY);
    let signed_inf = o.or(sign, infinity)?;
    let lo = o.select(in_range, lo, zero)?;
    let hi = o.select(in_range, hi, signed_inf)?;
    let lo = o.select(exact_zero, zero, lo)?;
    let hi = o.select(exact_zero, zero, hi)?;

    // Special cases, innermost first.
    // A zero product: c, or for a zero c the sum of zeros (−0 only for −0 + −0).
    let p_zero = o.either(pa.zero, pb.zero)?;
    let zero_sign = o.and(sign_p, pc.sign)?;
    let zero_or_c = o.select(pc.zero, zero_sign, c[1])?;
    let lo = o.select(p_zero, c[0], lo)?;
    let hi = o.select(p_zero, zero_or_c, hi)?;
    // An infinite c with a finite product.
    let lo = o.select(pc.inf, c[0], lo)?;
    let hi = o.select(pc.inf, c[1], hi)?;
    // An infinite product.
    let p_inf = o.either(pa.inf, pb.inf)?;
    let product_inf = o.or(sign_p, infinity)?;
    let lo = o.select(p_inf, zero, lo)?;
    let hi = o.select(p_inf, product_inf, hi)?;
    // Invalid operations: inf × 0 and inf − inf.
    let inf_zero = o.both(pa.inf, pb.zero)?;
    let zero_inf = o.both(pa.zero, pb.inf)?;
    let inf_times_zero = o.either(inf_zero, zero_inf)?;
    let both_inf = o.both(p_inf, pc.inf)?;
    let inf_minus_inf = o.both(both_inf, subtract)?;
    let invalid = o.either(inf_times_zero, inf_minus_inf)?;
    let default_nan = o.constant(DEFAULT_NAN);
    let lo = o.select(invalid, zero, lo)?;
    let hi = o.select(invalid, default_nan, hi)?;
    // NaN operands: the first, quieted.
    let quiet = o.constant(QUIET);
    let (mut lo, mut hi) = (lo, hi);
    for (x, nan) in [(c, pc.nan), (b, pb.nan), (a, pa.nan)] {
        let quieted = o.or(x[1], quiet)?;
        lo = o.select(nan, x[0], lo)?;
        hi = o.select(nan, quieted, hi)?;
    }
    Ok([lo, hi])
}

/// [`Ops`] as SPIR-V instructions in the selected block.
struct Emit<'m> {
    /// The module.
    m: &'m mut Module,
    /// `uint`.
    uint: Word,
    /// `bool`.
    boolean: Word,
    /// `struct { uint, uint }`, the result of the extended arithmetic.
    pair: Word,
    /// The GLSL.std.450 import.
    glsl: Word,
}

impl Emit<'_> {
    /// The two members of an extended-arithmetic result.
    fn split(&mut self, pair: Word) -> Result<(Word, Word)> {
        let first = built(self.m.composite_extract(self.uint, pair, &[0]))?;
        let second = built(self.m.composite_extract(self.uint, pair, &[1]))?;
        Ok((first, second))
    }
}

impl Ops for Emit<'_> {
    type U = Word;
    type B = Word;
    fn constant(&mut self, value: u32) -> Word {
        self.m.constant_u32(value)
    }
    fn add(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.i_add(self.uint, None, x, y))
    }
    fn sub(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.i_sub(self.uint, None, x, y))
    }
    fn add_carry(&mut self, x: Word, y: Word) -> Result<(Word, Word)> {
        let pair = built(self.m.b.i_add_carry(self.pair, None, x, y))?;
        self.split(pair)
    }
    fn sub_borrow(&mut self, x: Word, y: Word) -> Result<(Word, Word)> {
        let pair = built(self.m.b.i_sub_borrow(self.pair, None, x, y))?;
        self.split(pair)
    }
    fn mul_extended(&mut self, x: Word, y: Word) -> Result<(Word, Word)> {
        let pair = built(self.m.b.u_mul_extended(self.pair, None, x, y))?;
        self.split(pair)
    }
    fn and(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.bitwise_and(self.uint, None, x, y))
    }
    fn or(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.bitwise_or(self.uint, None, x, y))
    }
    fn xor(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.bitwise_xor(self.uint, None, x, y))
    }
    fn shl(&mut self, x: Word, s: Word) -> Result<Word> {
        built(self.m.b.shift_left_logical(self.uint, None, x, s))
    }
    fn shr(&mut self, x: Word, s: Word) -> Result<Word> {
        built(self.m.b.shift_right_logical(self.uint, None, x, s))
    }
    fn msb(&mut self, x: Word) -> Result<Word> {
        built(
            self.m
                .b
                .ext_inst(self.uint, None, self.glsl, FIND_U_MSB, [IdRef(x)]),
        )
    }
    fn eq(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.i_equal(self.boolean, None, x, y))
    }
    fn ne(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.i_not_equal(self.boolean, None, x, y))
    }
    fn ult(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.u_less_than(self.boolean, None, x, y))
    }
    fn slt(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.s_less_than(self.boolean, None, x, y))
    }
    fn select(&mut self, c: Word, x: Word, y: Word) -> Result<Word> {
        built(self.m.select(self.uint, None, c, x, y))
    }
    fn both(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.logical_and(self.boolean, None, x, y))
    }
    fn either(&mut self, x: Word, y: Word) -> Result<Word> {
        built(self.m.b.logical_or(self.boolean, None, x, y))
    }
    fn not(&mut self, x: Word) -> Result<Word> {
        built(self.m.b.logical_not(self.boolean, None, x))
    }
}

impl Emitter<'_> {
    /// One `dfma` lane: a call of the module's `fma64` function (declared on first use,
    /// defined by [`Emitter::fma64_finish`]) on the sources' (low, high) words; returns the
    /// result's (low, high) words.
    pub(super) fn fma64_call(
        &mut self,
        a: Bits<Word>,
        b: Bits<Word>,
        c: Bits<Word>,
    ) -> Result<Bits<Word>> {
        let function = match self.fma64 {
            Some(id) => id,
            None => {
                let id = self.m.b.id();
                self.fma64 = Some(id);
                id
            }
        };
        let uint = self.m.scalar(Scalar::U32);
        let uvec2 = self.m.vector(Scalar::U32, 2);
        let result = built(self.m.function_call(
            uvec2,
            function,
            &[a[0], a[1], b[0], b[1], c[0], c[1]],
        ))?;
        let lo = built(self.m.composite_extract(uint, result, &[0]))?;
        let hi = built(self.m.composite_extract(uint, result, &[1]))?;
        Ok([lo, hi])
    }

    /// Defines the `fma64` function when a `dfma` called it; called once every other
    /// function has ended.
    pub(super) fn fma64_finish(&mut self) -> Result<()> {
        let Some(id) = self.fma64 else {
            return Ok(());
        };
        let uint = self.m.scalar(Scalar::U32);
        let boolean = self.m.scalar(Scalar::Bool);
        let uvec2 = self.m.vector(Scalar::U32, 2);
        let pair = self.m.b.type_struct([uint, uint]);
        let glsl = self.m.glsl();
        let fn_type = self.m.b.type_function(uvec2, [uint; 6]);
        built(
            self.m
                .b
                .begin_function(uvec2, Some(id), spirv::FunctionControl::NONE, fn_type),
        )?;
        let mut params = [0; 6];
        for param in &mut params {
            *param = built(self.m.b.function_parameter(uint))?;
        }
        built(self.m.begin_block(None))?;
        let mut emit = Emit {
            m: &mut self.m,
            uint,
            boolean,
            pair,
            glsl,
        };
        let [lo, hi] = fma64(
            &mut emit,
            [params[0], params[1]],
            [params[2], params[3]],
            [params[4], params[5]],
        )?;
        let result = built(self.m.composite_construct(uvec2, &[lo, hi]))?;
        built(self.m.b.ret_value(result))?;
        built(self.m.b.end_function())?;
        if self.options.debug_names {
            self.m.b.name(id, "fma64");
        }
        Ok(())
    }
}
