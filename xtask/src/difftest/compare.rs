//! Comparing the device's UAVs with the interpreter's, word by word, with D3D's allowances
//! named: the float modes of [`super::FLOAT_MODES`] (a word may equal the interpreter's
//! result in any of them), NaN payloads (a NaN matches any NaN: D3D keeps a NaN's bits only
//! through moves), the sign of a zero (min/max may return either zero) and, in the
//! approximate-results UAV
//! ([`super::generate::APPROXIMATE_UAV`]), the tolerance the D3D specification states for
//! the instruction that wrote the word ([`dxbc2spirv_testkit::interp::alu::tolerance`]); an
//! approximate result of a denormal input (the float modes disagree on it) is not compared.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use dxbc2spirv_testkit::interp::alu;

use super::generate::{APPROXIMATE_SLOTS, APPROXIMATE_UAV};

/// Words per thread in the approximate-results UAV (a slot per approximate instruction).
const APPROXIMATE_STRIDE: usize = 16;

/// The interpreter's UAVs (register → bytes), one map per float mode, the exact mode first.
pub struct Expected {
    /// Per float mode.
    pub modes: Vec<BTreeMap<u32, Vec<u8>>>,
}

/// One word (or one UAV) on which the device and the interpreter disagree.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// The UAV register.
    pub uav: u32,
    /// The word index, or `None` when the whole UAV is missing or unknown.
    pub word: Option<usize>,
    /// The interpreter's word (exact mode).
    pub expected: u32,
    /// What the device wrote, or why nothing is known.
    pub actual: Result<u32, String>,
    /// Which translation ran: `optimised` or `unoptimised`.
    pub translation: &'static str,
    /// The named tolerance that was applied, if any.
    pub tolerance: Option<&'static str>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = |w: u32| format!("0x{w:08x} ({} / {})", w as i32, f32::from_bits(w));
        match (&self.word, &self.actual) {
            (Some(word), Ok(actual)) => {
                write!(
                    f,
                    "u{} word {word} ({} translation): expected {}, actual {}",
                    self.uav,
                    self.translation,
                    value(self.expected),
                    value(*actual)
                )?;
                if let Some(t) = self.tolerance {
                    write!(f, " (outside the tolerance: {t})")?;
                }
                Ok(())
            }
            (_, Err(why)) => write!(f, "u{} ({} translation): {why}", self.uav, self.translation),
            (None, Ok(_)) => write!(
                f,
                "u{} ({} translation): no data",
                self.uav, self.translation
            ),
        }
    }
}

/// The 32-bit words of a byte slice (little-endian; a trailing partial word is dropped).
fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Whether `actual[word]` differs from `expected[word]` only in a NaN's payload, which D3D
/// leaves to the device for arithmetic (only moves keep a NaN's bits): both words are float
/// NaNs, or the word is half of an aligned pair that is a double NaN on both sides.
fn nan_payload_only(expected: &[u32], actual: &[u32], word: usize) -> bool {
    let (Some(&e), Some(&a)) = (expected.get(word), actual.get(word)) else {
        return false;
    };
    if f32::from_bits(e).is_nan() && f32::from_bits(a).is_nan() {
        return true;
    }
    let low = word & !1;
    let pair = |w: &[u32]| {
        Some(f64::from_bits(
            u64::from(*w.get(low)?) | (u64::from(*w.get(low + 1)?) << 32),
        ))
    };
    matches!((pair(expected), pair(actual)), (Some(x), Some(y)) if x.is_nan() && y.is_nan())
}

/// Whether the words are +0 and -0 (as 32-bit floats, or the high word of a double whose
/// low word is 0): D3D recommends IEEE 754R's signed zeros for min/max but does not require
/// them ("min(-0, +0)" may give either), so the sign of a zero result is not compared.
fn zero_sign_only(expected: &[u32], actual: &[u32], word: usize) -> bool {
    let (Some(&e), Some(&a)) = (expected.get(word), actual.get(word)) else {
        return false;
    };
    e != a && (e | a) == 0x8000_0000
}

/// The tolerance of a word of the approximate-results UAV.
fn approximate_tolerance(uav: u32, word: usize) -> Option<(&'static str, alu::Tolerance)> {
    if uav != APPROXIMATE_UAV {
        return None;
    }
    let opcode = *APPROXIMATE_SLOTS.get(word % APPROXIMATE_STRIDE)?;
    alu::tolerance(opcode)
}

/// Compares the device's UAVs with the interpreter's.
pub fn compare(
    expected: &Expected,
    actual: &BTreeMap<u32, Result<Vec<u8>, String>>,
    translation: &'static str,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let Some(exact) = expected.modes.first() else {
        return out;
    };
    for (&uav, expected_bytes) in exact {
        let mismatch = |word, expected, actual, tolerance| Mismatch {
            uav,
            word,
            expected,
            actual,
            translation,
            tolerance,
        };
        let device = match actual.get(&uav) {
            Some(Ok(bytes)) => words(bytes),
            Some(Err(why)) => {
                out.push(mismatch(None, 0, Err(why.clone()), None));
                continue;
            }
            None => {
                out.push(mismatch(
                    None,
                    0,
                    Err("the device run kept no such UAV".into()),
                    None,
                ));
                continue;
            }
        };
        let modes: Vec<Vec<u32>> = expected
            .modes
            .iter()
            .map(|m| m.get(&uav).map(|b| words(b)).unwrap_or_default())
            .collect();
        let want = words(expected_bytes);
        if device.len() != want.len() {
            out.push(mismatch(
                None,
                0,
                Err(format!(
                    "the device's UAV has {} words, the interpreter's {}",
                    device.len(),
                    want.len()
                )),
                None,
            ));
            continue;
        }
        for (word, (&e, &a)) in want.iter().zip(&device).enumerate() {
            let in_some_mode = modes.iter().any(|m| m.get(word) == Some(&a));
            if in_some_mode {
                continue;
            }
            if modes.iter().any(|m| nan_payload_only(m, &device, word)) {
                continue;
            }
            if modes.iter().any(|m| zero_sign_only(m, &device, word)) {
                continue;
            }
            let tolerance = approximate_tolerance(uav, word);
            if tolerance.is_some() && !modes.iter().all(|m| m.get(word) == Some(&e)) {
                // An approximate result whose input was a denormal: D3D flushes it, Vulkan
                // may keep it, and the instruction's precision rule is stated for neither.
                continue;
            }
            if let Some((_, t)) = tolerance {
                if modes
                    .iter()
                    .filter_map(|m| m.get(word))
                    .any(|&e| alu::within(t, e, a))
                {
                    continue;
                }
            }
            out.push(mismatch(Some(word), e, Ok(a), tolerance.map(|(n, _)| n)));
        }
    }
    out
}

/// `probe` lines that check every UAV word against the interpreter: exact where every float
/// mode agrees, within the instruction's ULP tolerance for approximate results (exact for an
/// infinity every mode gives); words the
/// modes disagree on, or whose tolerance is not in ULPs, are listed in a comment.
pub fn probes(expected: &Expected) -> String {
    let mut text = String::new();
    let Some(exact) = expected.modes.first() else {
        return text;
    };
    for (&uav, bytes) in exact {
        let want = words(bytes);
        let agreed = |word: usize| {
            expected.modes.iter().all(|m| {
                m.get(&uav)
                    .and_then(|b| words(b).get(word).copied())
                    .is_some_and(|w| w == want[word])
            })
        };
        let mut unprobed = Vec::new();
        for (word, &value) in want.iter().enumerate() {
            match approximate_tolerance(uav, word) {
                Some((_, alu::Tolerance::Ulps(n))) if f32::from_bits(value).is_finite() => {
                    let _ = writeln!(
                        text,
                        "probe uav {uav} ({word}) f32({:?}) {n}",
                        f32::from_bits(value)
                    );
                }
                // An infinity must match exactly under a ULP tolerance.
                Some((_, alu::Tolerance::Ulps(_)))
                    if f32::from_bits(value).is_infinite() && agreed(word) =>
                {
                    let _ = writeln!(text, "probe uav {uav} ({word}) u32({value})");
                }
                Some(_) => unprobed.push(word),
                None if agreed(word) => {
                    let _ = writeln!(text, "probe uav {uav} ({word}) u32({value})");
                }
                None => unprobed.push(word),
            }
        }
        if !unprobed.is_empty() {
            let _ = writeln!(
                text,
                "% u{uav} words not probed (the float modes or tolerances allow several values): {unprobed:?}"
            );
        }
    }
    text
}
