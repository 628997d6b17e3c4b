//! Tests of the correctly rounded `dfma` ([`super::fma64`]): the algorithm evaluated on `u32`
//! values (the same sequence of operations the emitted function runs, with every shift amount
//! checked below 32) against Rust's correctly rounded `f64::mul_add` on edge values and on
//! millions of random operands; and the emitted module: one helper function however many
//! `dfma` lanes, no GLSL.std.450 `Fma`, valid for every target.

use rspirv::dr::Operand as SpvOperand;
use spirv::Op;

use super::fma64::{fma64, Ops};
use super::test_support::validate_for;
use crate::container::ChunkInfo;
use crate::error::Result;
use crate::spirv::{translate, TargetEnv};
use crate::TranslateOptions as Options;

/// [`Ops`] on plain values.
struct Eval;

impl Ops for Eval {
    type U = u32;
    type B = bool;
    fn constant(&mut self, value: u32) -> u32 {
        value
    }
    fn add(&mut self, x: u32, y: u32) -> Result<u32> {
        Ok(x.wrapping_add(y))
    }
    fn sub(&mut self, x: u32, y: u32) -> Result<u32> {
        Ok(x.wrapping_sub(y))
    }
    fn add_carry(&mut self, x: u32, y: u32) -> Result<(u32, u32)> {
        let (sum, carry) = x.overflowing_add(y);
        Ok((sum, carry as u32))
    }
    fn sub_borrow(&mut self, x: u32, y: u32) -> Result<(u32, u32)> {
        let (diff, borrow) = x.overflowing_sub(y);
        Ok((diff, borrow as u32))
    }
    fn mul_extended(&mut self, x: u32, y: u32) -> Result<(u32, u32)> {
        let product = u64::from(x) * u64::from(y);
        Ok((product as u32, (product >> 32) as u32))
    }
    fn and(&mut self, x: u32, y: u32) -> Result<u32> {
        Ok(x & y)
    }
    fn or(&mut self, x: u32, y: u32) -> Result<u32> {
        Ok(x | y)
    }
    fn xor(&mut self, x: u32, y: u32) -> Result<u32> {
        Ok(x ^ y)
    }
    fn shl(&mut self, x: u32, s: u32) -> Result<u32> {
        assert!(s < 32, "shift left by {s}: undefined in SPIR-V");
        Ok(x << s)
    }
    fn shr(&mut self, x: u32, s: u32) -> Result<u32> {
        assert!(s < 32, "shift right by {s}: undefined in SPIR-V");
        Ok(x >> s)
    }
    fn msb(&mut self, x: u32) -> Result<u32> {
        Ok(if x == 0 {
            u32::MAX
        } else {
            31 - x.leading_zeros()
        })
    }
    fn eq(&mut self, x: u32, y: u32) -> Result<bool> {
        Ok(x == y)
    }
    fn ne(&mut self, x: u32, y: u32) -> Result<bool> {
        Ok(x != y)
    }
    fn ult(&mut self, x: u32, y: u32) -> Result<bool> {
        Ok(x < y)
    }
    fn slt(&mut self, x: u32, y: u32) -> Result<bool> {
        Ok((x as i32) < (y as i32))
    }
    fn select(&mut self, c: bool, x: u32, y: u32) -> Result<u32> {
        Ok(if c { x } else { y })
    }
    fn both(&mut self, x: bool, y: bool) -> Result<bool> {
        Ok(x && y)
    }
    fn either(&mut self, x: bool, y: bool) -> Result<bool> {
        Ok(x || y)
    }
    fn not(&mut self, x: bool) -> Result<bool> {
        Ok(!x)
    }
}

fn halves(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// The algorithm on bit patterns.
fn eval(a: u64, b: u64, c: u64) -> u64 {
    let [lo, hi] = fma64(&mut Eval, halves(a), halves(b), halves(c)).expect("evaluates");
    u64::from(lo) | (u64::from(hi) << 32)
}

/// The expected bits: `f64::mul_add` (one rounding); any NaN stands for every NaN.
fn expected(a: u64, b: u64, c: u64) -> u64 {
    f64::from_bits(a)
        .mul_add(f64::from_bits(b), f64::from_bits(c))
        .to_bits()
}

fn is_nan(x: u64) -> bool {
    f64::from_bits(x).is_nan()
}

/// Checks one case; the message names the operands, the expected and the actual bits.
fn check(a: u64, b: u64, c: u64) -> std::result::Result<(), String> {
    let want = expected(a, b, c);
    let got = eval(a, b, c);
    if got == want || (is_nan(want) && is_nan(got)) {
        return Ok(());
    }
    Err(format!(
        "fma({a:#018x}, {b:#018x}, {c:#018x}) = ({:e}) * ({:e}) + ({:e}): expected {want:#018x} \
         ({:e}), got {got:#018x} ({:e})",
        f64::from_bits(a),
        f64::from_bits(b),
        f64::from_bits(c),
        f64::from_bits(want),
        f64::from_bits(got)
    ))
}

/// Checks every case and fails with the first few mismatches.
fn check_all(cases: impl Iterator<Item = (u64, u64, u64)>) {
    let mut failures = Vec::new();
    let mut count = 0usize;
    let mut failed = 0usize;
    for (a, b, c) in cases {
        count += 1;
        if let Err(message) = check(a, b, c) {
            failed += 1;
            if failures.len() < 20 {
                failures.push(message);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{failed} of {count} cases wrong:\n{}",
        failures.join("\n")
    );
}

/// Edge values: zeros, denormals (smallest, largest, a middle one), the smallest normal, 1 and
/// its neighbours, values whose products tie, the largest finite, infinities and NaNs.
const EDGES: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x800f_ffff_ffff_ffff,
    0x0008_0000_0000_0000,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3ff0_0000_0000_0001,
    0x3fef_ffff_ffff_ffff,
    0xbff0_0000_0000_0001,
    0x3ff8_0000_0000_0000,
    0xbff8_0000_0000_0000,
    0x4008_0000_0000_0000,
    0x3ff0_0000_0800_0000,
    0x3ca0_0000_0000_0000,
    0xbca0_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7fe0_0000_0000_0000,
    0x5ff0_0000_0000_0000,
    0x2000_0000_0000_0000,
    0x1ff0_0000_0000_0001,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0123,
    0xfff8_0000_0000_0456,
];

#[test]
fn every_triple_of_edge_values() {
    let cases = EDGES
        .iter()
        .flat_map(|&a| EDGES.iter().map(move |&b| (a, b)))
        .flat_map(|(a, b)| EDGES.iter().map(move |&c| (a, b, c)));
    check_all(cases);
}

/// A NaN operand gives that NaN quieted, the first of a, b, c; inf × 0 and inf − inf give
/// the default NaN.
#[test]
fn nan_results() {
    let snan = 0x7ff0_0000_0000_0123;
    let qnan = 0xfff8_0000_0000_0456;
    let one = 1.0f64.to_bits();
    let inf = f64::INFINITY.to_bits();
    assert_eq!(eval(snan, qnan, one), 0x7ff8_0000_0000_0123);
    assert_eq!(eval(one, qnan, snan), qnan);
    assert_eq!(eval(one, one, snan), 0x7ff8_0000_0000_0123);
    assert_eq!(eval(inf, 0, one), 0x7ff8_0000_0000_0000);
    assert_eq!(
        eval(inf, one, f64::NEG_INFINITY.to_bits()),
        0x7ff8_0000_0000_0000
    );
}

/// splitmix64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A double with a random sign and significand and a biased exponent in `lo..=hi`.
    fn with_exponent(&mut self, lo: u64, hi: u64) -> u64 {
        let r = self.next();
        let exp = lo + (r >> 11) % (hi - lo + 1);
        let sig = self.significand();
        (r & (1 << 63)) | (exp << 52) | sig
    }

    /// 52 significand bits, often with long runs of zeros or ones (ties and carries).
    fn significand(&mut self) -> u64 {
        let r = self.next();
        let mask = (1u64 << 52) - 1;
        match r % 4 {
            0 => self.next() & mask,
            1 => (self.next() & mask) & !((1u64 << ((r >> 8) % 52)) - 1),
            2 => (self.next() & mask) | ((1u64 << ((r >> 8) % 52)) - 1),
            _ => 1u64 << ((r >> 8) % 52),
        }
    }
}

/// Random bit patterns: every class, every exponent.
#[test]
fn random_bit_patterns() {
    let mut rng = Rng(1);
    let cases = (0..300_000).map(|_| (rng.next(), rng.next(), rng.next()));
    check_all(cases.collect::<Vec<_>>().into_iter());
}

/// Exponents chosen so that c meets the product: sums, cancellations, ties at the rounding
/// point decided by the product's low bits.
#[test]
fn random_close_exponents() {
    let mut rng = Rng(2);
    let mut cases = Vec::new();
    for _ in 0..300_000 {
        let a = rng.with_exponent(1000, 1046);
        let b = rng.with_exponent(1000, 1046);
        let product = f64::from_bits(a) * f64::from_bits(b);
        let pe = (product.to_bits() >> 52) & 0x7ff;
        let r = rng.next();
        let c = match r % 4 {
            // c = -(a*b) rounded, give or take a few units in the last place: cancellation.
            0 => (-product)
                .to_bits()
                .wrapping_add((r >> 8) % 5)
                .wrapping_sub(2),
            // c near the product's magnitude.
            1 => rng.with_exponent(pe.saturating_sub(3), pe + 3),
            // c far below: only its sticky contribution.
            2 => rng.with_exponent(pe.saturating_sub(120), pe.saturating_sub(50)),
            // c far above.
            _ => rng.with_exponent(pe + 50, (pe + 120).min(2046)),
        };
        cases.push((a, b, c));
    }
    check_all(cases.into_iter());
}

/// Products of two 27-bit significands are exact in 53 or 54 bits: with 54 they lie halfway
/// between two doubles, and a c far below (or zero) decides the rounding alone.
#[test]
fn random_ties_decided_by_c() {
    let mut rng = Rng(4);
    let mut cases = Vec::new();
    for _ in 0..300_000 {
        let a = rng.with_exponent(900, 1100) & !((1u64 << 26) - 1);
        let b = rng.with_exponent(900, 1100) & !((1u64 << 26) - 1);
        let product = f64::from_bits(a) * f64::from_bits(b);
        let pe = (product.to_bits() >> 52) & 0x7ff;
        let r = rng.next();
        let c = match r % 3 {
            0 => r & (1 << 63),
            1 => rng.with_exponent(pe.saturating_sub(200), pe.saturating_sub(54)),
            _ => rng.next() & 0x800f_ffff_ffff_ffff,
        };
        cases.push((a, b, c));
    }
    check_all(cases.into_iter());
}

/// Results near the limits: overflow (with c bringing the product back into range or not),
/// underflow into denormals and zero, denormal operands.
#[test]
fn random_range_limits() {
    let mut rng = Rng(3);
    let mut cases = Vec::new();
    for _ in 0..300_000 {
        let r = rng.next();
        let (a, b) = match r % 3 {
            // Products around the overflow threshold.
            0 => (rng.with_exponent(1530, 1560), rng.with_exponent(1530, 1560)),
            // Products around the denormal range.
            1 => (rng.with_exponent(480, 520), rng.with_exponent(480, 530)),
            // A denormal operand.
            _ => (
                rng.next() & 0x800f_ffff_ffff_ffff,
                rng.with_exponent(1000, 1100),
            ),
        };
        let product = f64::from_bits(a) * f64::from_bits(b);
        let c = match (r >> 8) % 4 {
            0 => (-product).to_bits() ^ (rng.next() & 0xf),
            1 => rng.next() & 0x800f_ffff_ffff_ffff,
            2 => rng.with_exponent(2040, 2046),
            _ => rng.next() & 0x8000_0000_0000_0000,
        };
        cases.push((a, b, c));
    }
    check_all(cases.into_iter());
}

/// Exact ties between two doubles decided by the product's lowest bits, and exact zero sums.
#[test]
fn ties_and_exact_zeros() {
    let cases = [
        // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: the 2^-104 decides; minus 1 leaves it exactly.
        (
            0x3ff0_0000_0000_0001,
            0x3ff0_0000_0000_0001,
            0xbff0_0000_0000_0000,
        ),
        (
            0x3ff0_0000_0000_0001,
            0x3ff0_0000_0000_0001,
            0x0000_0000_0000_0000,
        ),
        // (1 + 2^-26)^2 = 1 + 2^-25 + 2^-52: exact.
        (
            0x3ff0_0000_0400_0000,
            0x3ff0_0000_0400_0000,
            0x8000_0000_0000_0000,
        ),
        // x*y - x*y with x*y exact: +0.
        (
            0x4008_0000_0000_0000,
            0x4000_0000_0000_0000,
            0xc018_0000_0000_0000,
        ),
        (
            0xc008_0000_0000_0000,
            0x4000_0000_0000_0000,
            0x4018_0000_0000_0000,
        ),
        // Zeros: +0 * 1 + -0 = +0; -0 * 1 + -0 = -0.
        (
            0x0000_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0x8000_0000_0000_0000,
        ),
        (
            0x8000_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0x8000_0000_0000_0000,
        ),
        // A product that underflows to -0 plus +0, and plus -0.
        (
            0x8000_0000_0000_0001,
            0x3fd0_0000_0000_0000,
            0x0000_0000_0000_0000,
        ),
        (
            0x8000_0000_0000_0001,
            0x3fd0_0000_0000_0000,
            0x8000_0000_0000_0000,
        ),
        // Half the smallest denormal (a tie to even: 0) and a bit more (the smallest).
        (
            0x0000_0000_0000_0001,
            0x3fe0_0000_0000_0000,
            0x0000_0000_0000_0000,
        ),
        (
            0x0000_0000_0000_0001,
            0x3fe0_0000_0000_0001,
            0x0000_0000_0000_0000,
        ),
        // The largest finite squared minus infinity, and minus the largest finite.
        (
            0x7fef_ffff_ffff_ffff,
            0x7fef_ffff_ffff_ffff,
            0xfff0_0000_0000_0000,
        ),
        (
            0x7fef_ffff_ffff_ffff,
            0x4000_0000_0000_0000,
            0xffef_ffff_ffff_ffff,
        ),
    ];
    check_all(cases.into_iter());
}

fn compile(text: &str, target: TargetEnv) -> Vec<u32> {
    let program = crate::asm::parse_program(text).expect("test program assembles");
    let options = Options {
        target,
        debug_names: true,
        ..Options::default()
    };
    translate(&program, &ChunkInfo::default(), &options).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Two `dfma` instructions (three lanes) share one helper function; the device's `Fma` is
/// not used; the module is valid for every target.
#[test]
fn one_helper_function_without_fma() {
    let text = "cs_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
        dcl_constantbuffer cb0[2], immediateIndexed\ndcl_temps 4\ndcl_thread_group 1, 1, 1\n\
        dfma r0.xyzw, r1.xyzw, -r2.xyzw, |cb0[0].zwxy|\n\
        dfma_sat r3.xy, r0.xyxy, cb0[1].xyxy, d(1.0, 0.0)\nret\n";
    for target in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let words = compile(text, target);
        validate_for(&words, target.name());
        let module = rspirv::dr::load_words(&words).expect("rspirv parses the module");
        assert_eq!(module.functions.len(), 2, "main and fma64");
        let helper: usize = module.functions[1]
            .blocks
            .iter()
            .map(|b| b.instructions.len())
            .sum();
        assert_eq!(module.functions[1].blocks.len(), 1, "no branches");
        assert!(helper < 1000, "the helper has {helper} instructions");
        let calls = module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
            .filter(|i| i.class.opcode == Op::FunctionCall)
            .count();
        assert_eq!(calls, 3, "one call per dfma lane");
        let fma = module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
            .any(|i| {
                i.class.opcode == Op::ExtInst
                    && matches!(
                        i.operands.get(1),
                        Some(SpvOperand::LiteralExtInstInteger(50))
                    )
            });
        assert!(!fma, "GLSL.std.450 Fma is used");
        let named = module.debug_names.iter().any(
            |i| matches!(i.operands.get(1), Some(SpvOperand::LiteralString(s)) if s == "fma64"),
        );
        assert!(named, "the helper is named fma64");
    }
}

/// A module without `dfma` has no helper.
#[test]
fn no_helper_without_dfma() {
    let text = "cs_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
        dcl_temps 4\ndcl_thread_group 1, 1, 1\ndadd r0.xyzw, r1.xyzw, r2.xyzw\nret\n";
    let words = compile(text, TargetEnv::Vulkan1_3);
    let module = rspirv::dr::load_words(&words).expect("rspirv parses the module");
    assert_eq!(module.functions.len(), 1);
}
