//! Probe checks: compares the expected values of a `probe` command with a resource's bytes,
//! as vkd3d's runner does (floats within a number of ULPs, integers exactly).

use std::fmt::Write as _;

use crate::shader_test::{Probe, ProbeArea, ProbeValues};

/// The outcome of one probe.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The values matched.
    Pass,
    /// The values did not match, or the work behind them failed.
    Fail {
        /// The expected values.
        expected: String,
        /// What was found (or why nothing was).
        actual: String,
    },
    /// A probe marked `todo` or `bug` that failed.
    TodoFail {
        /// The expected values.
        expected: String,
        /// What was found.
        actual: String,
    },
    /// Not run, with the reason.
    Skip(String),
}

/// How a probe finds its element in a resource's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Addressing {
    /// A buffer: element `x` starts at `x` times the probe's value size (vkd3d's rule).
    Buffer,
    /// An image of texels of `texel` bytes in rows of `row_pitch` bytes, layers of
    /// `layer_pitch` bytes (level 0 of each layer; mip levels beyond 0 are not probed).
    Image {
        /// Bytes per texel.
        texel: usize,
        /// Bytes per row.
        row_pitch: usize,
        /// Bytes per layer.
        layer_pitch: usize,
    },
}

impl Addressing {
    /// Level 0 of an image of `width` × `height` texels of `texel` bytes, tightly packed.
    pub(super) fn image(texel: usize, width: u32, height: u32) -> Addressing {
        let row_pitch = usize::try_from(width).unwrap_or(0).saturating_mul(texel);
        Addressing::Image {
            texel,
            row_pitch,
            layer_pitch: row_pitch.saturating_mul(usize::try_from(height).unwrap_or(0)),
        }
    }
}

/// Compares a float with an expected one within `ulps` (±0 are equal, NaN matches NaN).
pub fn close_f32(actual: f32, expected: f32, ulps: u32) -> bool {
    if expected.is_nan() {
        return actual.is_nan();
    }
    let key = |f: f32| {
        let i = i64::from(f.to_bits() as i32);
        if i < 0 {
            i64::from(i32::MIN) - i
        } else {
            i
        }
    };
    (key(actual) - key(expected)).unsigned_abs() <= u64::from(ulps)
}

/// [`close_f32`] for doubles.
pub fn close_f64(actual: f64, expected: f64, ulps: u32) -> bool {
    if expected.is_nan() {
        return actual.is_nan();
    }
    let key = |f: f64| {
        let i = i128::from(f.to_bits() as i64);
        if i < 0 {
            i128::from(i64::MIN) - i
        } else {
            i
        }
    };
    (key(actual) - key(expected)).unsigned_abs() <= u128::from(ulps)
}

/// The expected values as text.
pub fn describe(values: &ProbeValues) -> String {
    match values {
        ProbeValues::F32(v) => format!("f32{v:?}"),
        ProbeValues::F64(v) => format!("f64{v:?}"),
        ProbeValues::U32(v) => format!("u32{v:?}"),
        ProbeValues::I32(v) => format!("i32{v:?}"),
        ProbeValues::U64(v) => format!("u64{v:?}"),
        ProbeValues::I64(v) => format!("i64{v:?}"),
    }
}

/// The size in bytes of the values a probe compares.
fn value_size(values: &ProbeValues) -> usize {
    match values {
        ProbeValues::F32(v) => v.len() * 4,
        ProbeValues::U32(v) => v.len() * 4,
        ProbeValues::I32(v) => v.len() * 4,
        ProbeValues::F64(v) => v.len() * 8,
        ProbeValues::U64(v) => v.len() * 8,
        ProbeValues::I64(v) => v.len() * 8,
    }
}

/// The points (x, y, layer) a probe covers.
fn points(area: ProbeArea) -> Vec<(u32, u32, u32)> {
    match area {
        ProbeArea::Element(x) => vec![(x, 0, 0)],
        ProbeArea::Point { x, y } => vec![(x, y, 0)],
        ProbeArea::Layer { x, y, layer } => vec![(x, y, layer)],
        ProbeArea::Rect {
            left,
            top,
            right,
            bottom,
        } => {
            let mut v = Vec::new();
            for y in top.max(0)..bottom.max(0) {
                for x in left.max(0)..right.max(0) {
                    v.push((x.unsigned_abs(), y.unsigned_abs(), 0));
                }
            }
            v
        }
    }
}

/// The values found in `bytes`, printed like [`describe`] prints the expected ones.
fn actual_text(values: &ProbeValues, words: &[u32], quads: &[u64]) -> String {
    match values {
        ProbeValues::U32(_) => format!("u32{words:?}"),
        ProbeValues::I32(_) => format!(
            "i32{:?}",
            words.iter().map(|&w| w as i32).collect::<Vec<_>>()
        ),
        ProbeValues::F32(_) => format!(
            "f32{:?}",
            words.iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>()
        ),
        ProbeValues::U64(_) => format!("u64{quads:?}"),
        ProbeValues::I64(_) => format!(
            "i64{:?}",
            quads.iter().map(|&q| q as i64).collect::<Vec<_>>()
        ),
        ProbeValues::F64(_) => format!(
            "f64{:?}",
            quads.iter().map(|&q| f64::from_bits(q)).collect::<Vec<_>>()
        ),
    }
}

/// Checks a probe against a resource's bytes.
pub(super) fn check(data: &[u8], addressing: Addressing, probe: &Probe) -> Outcome {
    let size = value_size(&probe.values);
    for (x, y, layer) in points(probe.area) {
        let index = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
        let offset = match addressing {
            Addressing::Buffer => index(x).saturating_mul(size),
            Addressing::Image {
                texel,
                row_pitch,
                layer_pitch,
            } => index(layer)
                .saturating_mul(layer_pitch)
                .saturating_add(index(y).saturating_mul(row_pitch))
                .saturating_add(index(x).saturating_mul(texel)),
        };
        let Some(bytes) = data.get(offset..offset.saturating_add(size)) else {
            return Outcome::Fail {
                expected: describe(&probe.values),
                actual: format!("({x}, {y}) is outside the resource ({} bytes)", data.len()),
            };
        };
        let words = crate::vulkan::bytes_to_words(bytes);
        let quads: Vec<u64> = bytes
            .chunks_exact(8)
            .filter_map(|c| <[u8; 8]>::try_from(c).ok().map(u64::from_le_bytes))
            .collect();
        let ok = match &probe.values {
            ProbeValues::U32(v) => words == *v,
            ProbeValues::I32(v) => words.iter().zip(v).all(|(&a, &e)| a as i32 == e),
            ProbeValues::F32(v) => words
                .iter()
                .zip(v)
                .all(|(&a, &e)| close_f32(f32::from_bits(a), e, probe.ulp)),
            ProbeValues::U64(v) => quads == *v,
            ProbeValues::I64(v) => quads.iter().zip(v).all(|(&a, &e)| a as i64 == e),
            ProbeValues::F64(v) => quads
                .iter()
                .zip(v)
                .all(|(&a, &e)| close_f64(f64::from_bits(a), e, probe.ulp)),
        };
        if !ok {
            let mut actual = actual_text(&probe.values, &words, &quads);
            if !matches!(probe.area, ProbeArea::Element(_)) {
                let _ = write!(actual, " at ({x}, {y})");
            }
            return Outcome::Fail {
                expected: describe(&probe.values),
                actual,
            };
        }
    }
    Outcome::Pass
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(area: ProbeArea, values: ProbeValues) -> Probe {
        Probe {
            resource: None,
            area,
            values,
            ulp: 0,
        }
    }

    fn bytes(words: &[u32]) -> Vec<u8> {
        crate::vulkan::words_to_bytes(words)
    }

    #[test]
    fn float_ulps() {
        assert!(close_f32(0.0, -0.0, 0));
        assert!(close_f32(1.0, f32::from_bits(1.0f32.to_bits() + 2), 2));
        assert!(!close_f32(1.0, f32::from_bits(1.0f32.to_bits() + 3), 2));
        assert!(close_f32(f32::NAN, f32::NAN, 0));
        assert!(!close_f32(1.0, f32::NAN, 100));
        assert!(close_f64(-0.0, 0.0, 0));
        assert!(!close_f64(1.0, 1.5, 4));
    }

    #[test]
    fn buffer_offsets_use_the_probe_value_size() {
        let data = bytes(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let check_buf = |p: &Probe| check(&data, Addressing::Buffer, p);
        let p = probe(ProbeArea::Element(5), ProbeValues::U32(vec![6]));
        assert_eq!(check_buf(&p), Outcome::Pass);
        let p = probe(ProbeArea::Element(1), ProbeValues::U32(vec![5, 6, 7, 8]));
        assert_eq!(check_buf(&p), Outcome::Pass);
        let p = probe(ProbeArea::Element(1), ProbeValues::U64(vec![3 | (4 << 32)]));
        assert_eq!(check_buf(&p), Outcome::Pass);
        let p = probe(ProbeArea::Element(2), ProbeValues::U32(vec![0, 0, 0, 0]));
        assert!(matches!(check_buf(&p), Outcome::Fail { .. }));
        let p = probe(ProbeArea::Element(9), ProbeValues::U32(vec![0]));
        assert!(
            matches!(check_buf(&p), Outcome::Fail { actual, .. } if actual.contains("outside"))
        );
    }

    #[test]
    fn image_offsets_use_texels_and_rows() {
        // A 2x2 image of one-word texels: rows of 8 bytes.
        let data = bytes(&[10, 11, 12, 13]);
        let image = Addressing::Image {
            texel: 4,
            row_pitch: 8,
            layer_pitch: 16,
        };
        let p = probe(ProbeArea::Point { x: 1, y: 1 }, ProbeValues::U32(vec![13]));
        assert_eq!(check(&data, image, &p), Outcome::Pass);
        let rect = ProbeArea::Rect {
            left: 0,
            top: 1,
            right: 2,
            bottom: 2,
        };
        let p = probe(rect, ProbeValues::U32(vec![12]));
        assert!(
            matches!(check(&data, image, &p), Outcome::Fail { actual, .. } if actual.ends_with("at (1, 1)"))
        );
    }
}
