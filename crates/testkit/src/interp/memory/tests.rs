//! Tests of the interpreter's formats, addressing, out-of-bounds rules, atomics and the
//! `.shader_test` constructor.

use super::format::*;
use super::*;

fn fmt(name: &str) -> Format {
    Format::from_name(name).unwrap_or_else(|| panic!("format {name} not recognised"))
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

/// Encodes `value` in `name` and checks the stored bytes.
fn check_encode(name: &str, value: [u32; 4], expected: &[u8]) {
    let actual = fmt(name).encode(value);
    assert_eq!(
        actual, expected,
        "{name}: encode({value:08x?}) gave {actual:02x?}, expected {expected:02x?}"
    );
}

/// Decodes `bytes` in `name` and checks what the shader sees.
fn check_decode(name: &str, bytes: &[u8], expected: [u32; 4]) {
    let actual = fmt(name).decode(bytes);
    assert_eq!(
        actual, expected,
        "{name}: decode({bytes:02x?}) gave {actual:08x?}, expected {expected:08x?}"
    );
}

fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn format_names_and_sizes() {
    let sizes = [
        ("r32-float", 4),
        ("r32-uint", 4),
        ("r32-sint", 4),
        ("r32-typeless", 4),
        ("r32-float-shadow", 4),
        ("r32g32-float", 8),
        ("r32g32-uint", 8),
        ("r32g32-sint", 8),
        ("r32g32b32-float", 12),
        ("r32g32b32-uint", 12),
        ("r32g32b32a32-float", 16),
        ("r32g32b32a32-uint", 16),
        ("r32g32b32a32-sint", 16),
        ("r32g32b32a32-typeless", 16),
        ("r16-float", 2),
        ("r16-unorm", 2),
        ("r16-snorm", 2),
        ("r16-uint", 2),
        ("r16-sint", 2),
        ("r16g16-float", 4),
        ("r16g16-unorm", 4),
        ("r16g16b16a16-float", 8),
        ("r16g16b16a16-unorm", 8),
        ("r16g16b16a16-snorm", 8),
        ("r16g16b16a16-uint", 8),
        ("r16g16b16a16-sint", 8),
        ("r8-unorm", 1),
        ("r8-snorm", 1),
        ("r8-uint", 1),
        ("r8-sint", 1),
        ("r8g8-unorm", 2),
        ("r8g8b8a8-unorm", 4),
        ("r8g8b8a8-snorm", 4),
        ("r8g8b8a8-uint", 4),
        ("r8g8b8a8-sint", 4),
        ("b8g8r8a8-unorm", 4),
        ("r10g10b10a2-unorm", 4),
        ("r10g10b10a2-uint", 4),
        ("r11g11b10-float", 4),
    ];
    for (name, size) in sizes {
        assert_eq!(fmt(name).texel_size(), size, "texel size of {name}");
    }
    for bad in [
        "r8-float",
        "r32-unorm",
        "r32g32b32a32-snorm",
        "r10g10b10a2-float",
        "r11g11b10-unorm",
        "r16g16b16-float",
        "r8g8b8-unorm",
        "r32",
        "rgba-float",
        "",
        "r32-float-srgb",
        "a8r8g8b8-unorm",
    ] {
        assert_eq!(
            Format::from_name(bad),
            None,
            "{bad:?} should not be a format"
        );
    }
    assert!(fmt("r32-uint").is_r32_integer());
    assert!(fmt("r32-sint").is_r32_integer());
    assert!(!fmt("r32-float").is_r32_integer());
    assert!(!fmt("r32g32-uint").is_r32_integer());
    assert_eq!(fmt("r10g10b10a2-unorm").component_bits(3), 2);
    assert_eq!(fmt("r11g11b10-float").component_bits(2), 10);
    assert_eq!(fmt("r11g11b10-float").component_bits(3), 0);
}

#[test]
fn missing_components_read_0_0_0_1() {
    check_decode("r32-float", &le(&[f(2.5)]), [f(2.5), 0, 0, f(1.0)]);
    check_decode("r32-uint", &le(&[7]), [7, 0, 0, 1]);
    check_decode("r32-sint", &le(&[u32::MAX]), [u32::MAX, 0, 0, 1]);
    check_decode(
        "r32g32-float",
        &le(&[f(1.5), f(-2.0)]),
        [f(1.5), f(-2.0), 0, f(1.0)],
    );
    check_decode("r8g8-unorm", &[255, 0], [f(1.0), 0, 0, f(1.0)]);
    check_decode("r16-uint", &[0xff, 0xff], [0xffff, 0, 0, 1]);
    check_decode("r11g11b10-float", &[0, 0, 0, 0], [0, 0, 0, f(1.0)]);
    // An absent texel (out of bounds) decodes like an all-zero one.
    check_decode("r32g32b32a32-float", &[], [0, 0, 0, 0]);
    check_decode("r16g16-sint", &[], [0, 0, 0, 1]);
}

#[test]
fn unorm_edges() {
    let cases: [(f32, u8); 10] = [
        (f32::NAN, 0),
        (f32::NEG_INFINITY, 0),
        (f32::INFINITY, 255),
        (-0.5, 0),
        (2.0, 255),
        (1.0, 255),
        (0.0, 0),
        (0.5, 128),           // 127.5 + 0.5 = 128 (round half up)
        (0.5 / 255.0, 1),     // 0.5 + 0.5
        (0.499_9 / 255.0, 0), // below the half
    ];
    for (value, code) in cases {
        check_encode("r8-unorm", [f(value), 0, 0, 0], &[code]);
    }
    check_encode("r16-unorm", [f(1.0), 0, 0, 0], &[0xff, 0xff]);
    check_encode("r16-unorm", [f(0.5), 0, 0, 0], &[0x00, 0x80]);
    check_decode("r8-unorm", &[255], [f(1.0), 0, 0, f(1.0)]);
    check_decode("r8-unorm", &[0], [0, 0, 0, f(1.0)]);
    check_decode("r8-unorm", &[51], [f(0.2), 0, 0, f(1.0)]);
    check_decode("r16-unorm", &[0xff, 0xff], [f(1.0), 0, 0, f(1.0)]);
    // Every code survives a round trip.
    for code in 0..=255u8 {
        let value = fmt("r8-unorm").decode(&[code]);
        check_encode("r8-unorm", value, &[code]);
    }
}

#[test]
fn snorm_edges() {
    let cases: [(f32, u8); 10] = [
        (f32::NAN, 0),
        (f32::NEG_INFINITY, 0x81),
        (f32::INFINITY, 0x7f),
        (-2.0, 0x81),
        (-1.0, 0x81),
        (1.0, 0x7f),
        (-0.0, 0),
        (0.5, 64),    // 63.5 + 0.5
        (-0.5, 0xc0), // -63.5 - 0.5 = -64
        (0.4 / 127.0, 0),
    ];
    for (value, code) in cases {
        check_encode("r8-snorm", [f(value), 0, 0, 0], &[code]);
    }
    check_decode("r8-snorm", &[0x80], [f(-1.0), 0, 0, f(1.0)]);
    check_decode("r8-snorm", &[0x81], [f(-1.0), 0, 0, f(1.0)]);
    check_decode("r8-snorm", &[0x7f], [f(1.0), 0, 0, f(1.0)]);
    check_decode("r8-snorm", &[0], [0, 0, 0, f(1.0)]);
    check_decode("r16-snorm", &[0x00, 0x80], [f(-1.0), 0, 0, f(1.0)]);
    check_decode("r16-snorm", &[0xff, 0x7f], [f(1.0), 0, 0, f(1.0)]);
    check_encode("r16-snorm", [f(-1.0), 0, 0, 0], &[0x01, 0x80]);
    for code in 0x81..=0x17fu32 {
        let code = (code & 0xff) as u8;
        let value = fmt("r8-snorm").decode(&[code]);
        check_encode("r8-snorm", value, &[code]);
    }
}

#[test]
fn half_rounds_toward_zero() {
    let cases: [(u32, u32); 16] = [
        (f(1.0), 0x3c00),
        (f(-2.0), 0xc000),
        (f(65504.0), 0x7bff),
        (f(65520.0), 0x7bff), // round-to-nearest would give infinity
        (f(1e10), 0x7bff),
        (f(-1e10), 0xfbff),
        (f(f32::INFINITY), 0x7c00),
        (f(f32::NEG_INFINITY), 0xfc00),
        (f(1.0 + 3.0 / 4096.0), 0x3c00), // nearest would be 0x3c01
        (f(-(1.0 + 3.0 / 4096.0)), 0xbc00),
        (f(2f32.powi(-24)), 0x0001),
        (f(2f32.powi(-25)), 0x0000),
        (f(2f32.powi(-15)), 0x0200),
        (f(-0.0), 0x8000),
        (1, 0x0000),           // a float32 denormal
        (0x8000_0001, 0x8000), // a negative float32 denormal
    ];
    for (value, half) in cases {
        assert_eq!(
            f32_to_half(value),
            half,
            "f32_to_half({:e} = {value:08x}): expected {half:04x}",
            f32::from_bits(value)
        );
    }
    let nan = f32_to_half(f(f32::NAN));
    assert!(
        nan & 0x7c00 == 0x7c00 && nan & 0x3ff != 0,
        "NaN gave {nan:04x}"
    );
    let decodes: [(u32, u32); 8] = [
        (0x3c00, f(1.0)),
        (0x0001, f(2f32.powi(-24))),
        (0x03ff, f(1023.0 * 2f32.powi(-24))),
        (0x7bff, f(65504.0)),
        (0xfc00, f(f32::NEG_INFINITY)),
        (0x8000, f(-0.0)),
        (0x3555, f(0.333_251_95)),
        (0xc000, f(-2.0)),
    ];
    for (half, value) in decodes {
        assert_eq!(half_to_f32(half), value, "half_to_f32({half:04x})");
    }
    assert!(f32::from_bits(half_to_f32(0x7e00)).is_nan());
    // Every finite half survives a round trip through float32.
    for h in (0..0x7c00u32).chain(0x8000..0xfc00) {
        assert_eq!(f32_to_half(half_to_f32(h)), h, "round trip of half {h:04x}");
    }
    check_encode("r16-float", [f(1.0), 0, 0, 0], &[0x00, 0x3c]);
    check_decode(
        "r16g16b16a16-float",
        &[0, 0x3c, 0, 0xc0, 0, 0, 0, 0x7c],
        [f(1.0), f(-2.0), 0, f(f32::INFINITY)],
    );
}

#[test]
fn small_floats() {
    // 11-bit: 5-bit exponent, 6-bit mantissa; 10-bit: 5-bit mantissa; no sign.
    let eleven: [(u32, u32); 10] = [
        (f(1.0), 0x3c0),
        (f(-1.0), 0),
        (f(-0.0), 0),
        (f(f32::NEG_INFINITY), 0),
        (f(f32::INFINITY), 0x7c0),
        (f(65024.0), 0x7bf),
        (f(1e9), 0x7bf),
        (f(1.0 + 1.5 / 64.0), 0x3c1), // toward zero
        (f(2f32.powi(-20)), 0x001),   // the smallest denormal
        (f(2f32.powi(-21)), 0),
    ];
    for (value, code) in eleven {
        assert_eq!(
            f32_to_small_float(value, 6),
            code,
            "11-bit float of {:e}",
            f32::from_bits(value)
        );
    }
    let ten: [(u32, u32); 6] = [
        (f(1.0), 0x1e0),
        (f(64512.0), 0x3df),
        (f(1e9), 0x3df),
        (f(f32::INFINITY), 0x3e0),
        (f(-5.0), 0),
        (f(2f32.powi(-19)), 0x001),
    ];
    for (value, code) in ten {
        assert_eq!(
            f32_to_small_float(value, 5),
            code,
            "10-bit float of {:e}",
            f32::from_bits(value)
        );
    }
    let nan = f32_to_small_float(f(f32::NAN), 6);
    assert!(
        nan & 0x7c0 == 0x7c0 && nan & 0x3f != 0,
        "NaN gave {nan:03x}"
    );
    let nan = f32_to_small_float(0xffc0_0000, 5); // a negative NaN stays NaN
    assert!(
        nan & 0x3e0 == 0x3e0 && nan & 0x1f != 0,
        "negative NaN gave {nan:03x}"
    );
    assert_eq!(small_float_to_f32(0x3c0, 6), f(1.0));
    assert_eq!(small_float_to_f32(0x001, 6), f(2f32.powi(-20)));
    assert_eq!(small_float_to_f32(0x7bf, 6), f(65024.0));
    assert_eq!(small_float_to_f32(0x3df, 5), f(64512.0));
    assert_eq!(small_float_to_f32(0x3e0, 5), f(f32::INFINITY));
    assert!(f32::from_bits(small_float_to_f32(0x7c1, 6)).is_nan());
    for code in 0..0x7c0 {
        assert_eq!(f32_to_small_float(small_float_to_f32(code, 6), 6), code);
    }
    // r11g11b10: r in bits 0-10, g in 11-21, b in 22-31.
    let word = 0x3c0 | (0x400 << 11) | (0x1c0u32 << 22); // 1.0, 2.0, 0.5
    check_encode(
        "r11g11b10-float",
        [f(1.0), f(2.0), f(0.5), f(7.0)],
        &word.to_le_bytes(),
    );
    check_decode(
        "r11g11b10-float",
        &word.to_le_bytes(),
        [f(1.0), f(2.0), f(0.5), f(1.0)],
    );
}

#[test]
fn packed_and_narrow_integers() {
    // r10g10b10a2-unorm: r bits 0-9, g 10-19, b 20-29, a 30-31.
    let word = 0x3ff | (0x200 << 20) | (3u32 << 30);
    check_encode(
        "r10g10b10a2-unorm",
        [f(1.0), f(0.0), f(0.5), f(1.0)],
        &word.to_le_bytes(),
    );
    check_decode(
        "r10g10b10a2-unorm",
        &word.to_le_bytes(),
        [f(1.0), 0, f(512.0 / 1023.0), f(1.0)],
    );
    // Integers clamp to the channel's range.
    let word = 0x3ff | (5 << 10) | (0x3ff << 20) | (3u32 << 30);
    check_encode("r10g10b10a2-uint", [2000, 5, 1023, 7], &word.to_le_bytes());
    check_decode("r10g10b10a2-uint", &word.to_le_bytes(), [1023, 5, 1023, 3]);
    check_encode("r8-uint", [300, 0, 0, 0], &[255]);
    check_encode("r8-uint", [u32::MAX, 0, 0, 0], &[255]);
    check_encode("r8-sint", [(-200i32) as u32, 0, 0, 0], &[0x80]);
    check_encode("r8-sint", [200, 0, 0, 0], &[0x7f]);
    check_encode("r8-sint", [u32::MAX, 0, 0, 0], &[0xff]);
    check_decode("r8-sint", &[0x80], [0xffff_ff80, 0, 0, 1]);
    check_encode("r16-sint", [(-40000i32) as u32, 0, 0, 0], &[0x00, 0x80]);
    check_encode("r16-uint", [70000, 0, 0, 0], &[0xff, 0xff]);
    check_decode(
        "r16g16b16a16-sint",
        &[0xfe, 0xff, 1, 0, 0, 0x80, 0xff, 0x7f],
        [(-2i32) as u32, 1, 0xffff_8000, 0x7fff],
    );
    check_encode("r8g8b8a8-uint", [1, 2, 256, 4], &[1, 2, 255, 4]);
    // 32-bit channels store the bits unchanged (NaN payloads, denormals, -0).
    check_encode(
        "r32-float",
        [0x7f80_0001, 0, 0, 0],
        &0x7f80_0001u32.to_le_bytes(),
    );
    check_encode("r32-float", [1, 0, 0, 0], &1u32.to_le_bytes());
    check_encode("r32g32b32-uint", [1, 2, 3, 4], &le(&[1, 2, 3]));
    // BGRA stores blue first.
    check_encode(
        "b8g8r8a8-unorm",
        [f(1.0), f(0.0), f(0.2), f(1.0)],
        &[51, 0, 255, 255],
    );
    check_decode(
        "b8g8r8a8-unorm",
        &[51, 0, 255, 255],
        [f(1.0), 0, f(0.2), f(1.0)],
    );
}

fn raw(words: &[u32]) -> Resource {
    Resource::new(Shape::Raw, le(words))
}

#[test]
fn raw_addressing_and_bounds() {
    let r = raw(&[10, 11, 12, 13, 14]);
    assert_eq!(r.load_dwords([0, 0]), [10, 11, 12, 13]);
    assert_eq!(r.load_dwords([4, 0]), [11, 12, 13, 14]);
    assert_eq!(
        r.load_dwords([8, 0]),
        [12, 13, 14, 0],
        "partly out of bounds"
    );
    assert_eq!(
        r.load_dwords([5, 0]),
        [11, 12, 13, 14],
        "the two low bits are ignored"
    );
    assert_eq!(r.load_dwords([7, 0]), [11, 12, 13, 14]);
    assert_eq!(r.load_dwords([20, 0]), [0; 4]);
    assert_eq!(r.load_dwords([u32::MAX, 0]), [0; 4]);
    let mut w = raw(&[0; 5]);
    w.store_dwords([12, 0], 0b1111, [1, 2, 3, 4]);
    assert_eq!(
        w.data,
        le(&[0, 0, 0, 1, 2]),
        "in-bounds dwords written, the rest dropped"
    );
    w.store_dwords([1, 0], 0b0011, [7, 8, 9, 9]);
    assert_eq!(
        w.data,
        le(&[7, 8, 0, 1, 2]),
        "mask .xy from offset 1 (rounded to 0)"
    );
    w.store_dwords([u32::MAX - 3, 0], 0b1111, [5; 4]);
    assert_eq!(
        w.data,
        le(&[7, 8, 0, 1, 2]),
        "far out of bounds: nothing written"
    );
    // A trailing partial dword is out of bounds.
    let mut odd = Resource::new(Shape::Raw, vec![1, 0, 0, 0, 2, 0]);
    assert_eq!(odd.load_dwords([0, 0]), [1, 0, 0, 0]);
    odd.store_dwords([4, 0], 1, [9, 0, 0, 0]);
    assert_eq!(odd.data, vec![1, 0, 0, 0, 2, 0]);
}

#[test]
fn structured_addressing_and_bounds() {
    let s = Resource::new(
        Shape::Structured { stride: 8 },
        le(&[10, 11, 20, 21, 30, 31]),
    );
    assert_eq!(
        s.load_dwords([1, 0]),
        [20, 21, 0, 0],
        "dwords past the stride read 0"
    );
    assert_eq!(s.load_dwords([1, 4]), [21, 0, 0, 0]);
    assert_eq!(s.load_dwords([2, 0]), [30, 31, 0, 0]);
    assert_eq!(s.load_dwords([3, 0]), [0; 4], "element past the end");
    assert_eq!(s.load_dwords([0, 8]), [0; 4], "offset at the stride");
    assert_eq!(s.load_dwords([u32::MAX, 0]), [0; 4]);
    // 0x2000_0001 * 8 wraps to 8 in 32 bits: still out of bounds.
    assert_eq!(s.load_dwords([0x2000_0001, 0]), [0; 4], "no 32-bit wrap");
    let mut w = Resource::new(Shape::Structured { stride: 8 }, le(&[0; 4]));
    w.store_dwords([1, 4], 0b0011, [5, 6, 0, 0]);
    assert_eq!(
        w.data,
        le(&[0, 0, 0, 5]),
        "the dword past the stride is dropped"
    );
    w.store_dwords([2, 0], 0b0011, [7, 7, 0, 0]);
    w.store_dwords([0x2000_0000, 0], 0b0011, [7, 7, 0, 0]);
    assert_eq!(w.data, le(&[0, 0, 0, 5]));
    // Bytes beyond the last whole element are not part of any element.
    let partial = Resource::new(Shape::Structured { stride: 8 }, le(&[1, 2, 3]));
    assert_eq!(partial.load_dwords([1, 0]), [0; 4]);
    assert_eq!(partial.dimensions(0), [1; 4]);
    let zero = Resource::new(Shape::Structured { stride: 0 }, le(&[1]));
    assert_eq!(zero.load_dwords([0, 0]), [0; 4]);
    assert_eq!(zero.dimensions(0), [0; 4]);
}

#[test]
fn typed_buffers() {
    let format = fmt("r32g32b32a32-float");
    let mut b = Resource::new(
        Shape::TypedBuffer { format },
        le(&[
            f(1.0),
            f(2.0),
            f(3.0),
            f(4.0),
            f(5.0),
            f(6.0),
            f(7.0),
            f(8.0),
        ]),
    );
    assert_eq!(
        b.load_typed([1, 9, 9], 5),
        [f(5.0), f(6.0), f(7.0), f(8.0)],
        "y, z and mip are ignored for buffers"
    );
    assert_eq!(b.load_typed([2, 0, 0], 0), [0; 4]);
    b.store_typed([0, 0, 0], [1, 2, 3, 4]);
    b.store_typed([2, 0, 0], [9; 4]);
    assert_eq!(b.data, le(&[1, 2, 3, 4, f(5.0), f(6.0), f(7.0), f(8.0)]));
    let r = Resource::new(
        Shape::TypedBuffer {
            format: fmt("r32-float"),
        },
        le(&[f(3.0)]),
    );
    assert_eq!(
        r.load_typed([1, 0, 0], 0),
        [0, 0, 0, f(1.0)],
        "missing channels' defaults"
    );
    let u = Resource::new(
        Shape::TypedBuffer {
            format: fmt("r32-uint"),
        },
        le(&[3]),
    );
    assert_eq!(u.load_typed([u32::MAX, 0, 0], 0), [0, 0, 0, 1]);
    assert_eq!(u.dimensions(0), [1; 4]);
    let mut n = Resource::new(
        Shape::TypedBuffer {
            format: fmt("r8g8b8a8-unorm"),
        },
        vec![0; 8],
    );
    n.store_typed([1, 0, 0], [f(1.0), f(0.5), f(f32::NAN), f(-1.0)]);
    assert_eq!(n.data, vec![0, 0, 0, 0, 255, 128, 0, 0]);
    assert_eq!(n.load_typed([1, 0, 0], 0), [f(1.0), f(128.0 / 255.0), 0, 0]);
    assert_eq!(n.dimensions(0), [2; 4]);
}

/// A 2D texture of r32-uint texels whose value is their index in the data.
fn counting_texture(dimension: ResourceDimension, w: u32, h: u32, d: u32, levels: u32) -> Resource {
    let shape = Shape::Texture {
        dimension,
        format: fmt("r32-uint"),
        width: w,
        height: h,
        depth_or_layers: d,
        levels,
    };
    let len = shader_test::texture_bytes(&shape).unwrap();
    let words: Vec<u32> = (0..(len / 4) as u32).collect();
    Resource::new(shape, le(&words))
}

#[test]
fn texture_layout_and_bounds() {
    // 4x4 with 3 levels: level 0 texels 0-15, level 1 16-19, level 2 20.
    let t = counting_texture(ResourceDimension::Texture2D, 4, 4, 1, 3);
    assert_eq!(t.data.len(), 21 * 4);
    assert_eq!(t.load_typed([3, 2, 0], 0)[0], 11);
    assert_eq!(t.load_typed([1, 1, 0], 1)[0], 19);
    assert_eq!(t.load_typed([0, 0, 7], 2)[0], 20, "z ignored for 2D");
    assert_eq!(t.load_typed([0, 0, 0], 3), [0, 0, 0, 1], "mip out of range");
    assert_eq!(
        t.load_typed([2, 0, 0], 1),
        [0, 0, 0, 1],
        "x out of range at mip 1"
    );
    assert_eq!(t.load_typed([0, 4, 0], 0), [0, 0, 0, 1]);
    assert_eq!(t.dimensions(0), [4, 4, 0, 3]);
    assert_eq!(t.dimensions(2), [1, 1, 0, 3]);
    assert_eq!(t.dimensions(3), [0, 0, 0, 3]);
    // 2D array 2x2, 3 layers, 2 levels: each layer holds its 4 + 1 texels.
    let a = counting_texture(ResourceDimension::Texture2DArray, 2, 2, 3, 2);
    assert_eq!(a.data.len(), 15 * 4);
    assert_eq!(a.load_typed([1, 0, 1], 0)[0], 6);
    assert_eq!(a.load_typed([0, 0, 1], 1)[0], 9);
    assert_eq!(a.load_typed([0, 0, 2], 1)[0], 14);
    assert_eq!(
        a.load_typed([0, 0, 3], 0),
        [0, 0, 0, 1],
        "layer out of range"
    );
    assert_eq!(a.dimensions(1), [1, 1, 3, 2]);
    // 3D 2x2x2 with 2 levels: level 0 texels 0-7 (slice-major), level 1 texel 8.
    let v = counting_texture(ResourceDimension::Texture3D, 2, 2, 2, 2);
    assert_eq!(v.data.len(), 9 * 4);
    assert_eq!(v.load_typed([1, 0, 1], 0)[0], 5);
    assert_eq!(v.load_typed([0, 0, 0], 1)[0], 8);
    assert_eq!(v.load_typed([0, 0, 2], 0), [0, 0, 0, 1], "z out of range");
    assert_eq!(v.dimensions(0), [2, 2, 2, 2]);
    // 1D array: the layer is the second coordinate.
    let l = counting_texture(ResourceDimension::Texture1DArray, 4, 1, 2, 1);
    assert_eq!(l.load_typed([1, 1, 0], 0)[0], 5);
    assert_eq!(l.load_typed([1, 2, 0], 0), [0, 0, 0, 1]);
    assert_eq!(l.dimensions(0), [4, 2, 0, 1]);
    let c = counting_texture(ResourceDimension::TextureCube, 2, 2, 6, 1);
    assert_eq!(c.load_typed([1, 1, 5], 0)[0], 23);
    assert_eq!(c.dimensions(0), [2, 2, 0, 1]);
    // Data shorter than the shape: the missing texels are out of bounds.
    let mut short = counting_texture(ResourceDimension::Texture2D, 2, 2, 1, 1);
    short.data.truncate(8);
    assert_eq!(short.load_typed([1, 1, 0], 0), [0, 0, 0, 1]);
    short.store_typed([1, 1, 0], [5, 0, 0, 0]);
    assert_eq!(short.data.len(), 8);
}

#[test]
fn texture_stores() {
    let shape = Shape::Texture {
        dimension: ResourceDimension::Texture2DArray,
        format: fmt("r8g8b8a8-unorm"),
        width: 2,
        height: 2,
        depth_or_layers: 2,
        levels: 1,
    };
    let mut t = Resource::zeroed(shape, 32);
    t.store_typed([1, 0, 1], [f(1.0), f(0.0), f(1.0), f(0.5)]);
    assert_eq!(&t.data[20..24], &[255, 0, 255, 128]);
    t.store_typed([2, 0, 0], [f(1.0); 4]);
    t.store_typed([0, 0, 2], [f(1.0); 4]);
    assert_eq!(
        t.data.iter().filter(|&&b| b != 0).count(),
        3,
        "{:?}",
        t.data
    );
}

#[test]
fn atomics_every_op() {
    let ops: [(AtomicOp, u32, u32, u32, u32); 14] = [
        // op, memory before, a, b, memory after
        (AtomicOp::Add, 5, 3, 0, 8),
        (AtomicOp::Add, u32::MAX, 2, 0, 1),
        (AtomicOp::And, 0b1100, 0b1010, 0, 0b1000),
        (AtomicOp::Or, 0b1100, 0b1010, 0, 0b1110),
        (AtomicOp::Xor, 0b1100, 0b1010, 0, 0b0110),
        (AtomicOp::IMax, (-5i32) as u32, 3, 0, 3),
        (AtomicOp::IMax, 7, (-1i32) as u32, 0, 7),
        (AtomicOp::IMin, (-5i32) as u32, 3, 0, (-5i32) as u32),
        (AtomicOp::UMax, (-5i32) as u32, 3, 0, (-5i32) as u32),
        (AtomicOp::UMin, (-5i32) as u32, 3, 0, 3),
        (AtomicOp::Exchange, 5, 9, 0, 9),
        (AtomicOp::CompareExchange, 5, 5, 9, 9),
        (AtomicOp::CompareExchange, 5, 4, 9, 5),
        (AtomicOp::UMin, 0, 3, 0, 0),
    ];
    for (op, before, a, b, after) in ops {
        let mut r = raw(&[0, before]);
        let old = r.atomic([4, 0, 0], op, a, b);
        assert_eq!(
            old,
            Some(before),
            "{op:?} on {before:#x} with ({a:#x}, {b:#x}): old"
        );
        assert_eq!(
            r.data,
            le(&[0, after]),
            "{op:?} on {before:#x} with ({a:#x}, {b:#x})"
        );
    }
}

#[test]
fn atomics_addressing_and_bounds() {
    let mut r = raw(&[1, 2]);
    assert_eq!(r.atomic([8, 0, 0], AtomicOp::Add, 1, 0), None);
    assert_eq!(r.atomic([u32::MAX, 0, 0], AtomicOp::Add, 1, 0), None);
    assert_eq!(
        r.atomic([6, 0, 0], AtomicOp::Add, 1, 0),
        Some(2),
        "low bits ignored"
    );
    assert_eq!(r.data, le(&[1, 3]));
    let mut s = Resource::new(Shape::Structured { stride: 8 }, le(&[1, 2, 3, 4]));
    assert_eq!(s.atomic([1, 4, 0], AtomicOp::Exchange, 9, 0), Some(4));
    assert_eq!(s.atomic([2, 0, 0], AtomicOp::Exchange, 9, 0), None);
    assert_eq!(
        s.atomic([0, 8, 0], AtomicOp::Exchange, 9, 0),
        None,
        "offset past the stride"
    );
    assert_eq!(s.data, le(&[1, 2, 3, 9]));
    let mut t = counting_texture(ResourceDimension::Texture2D, 2, 2, 1, 1);
    assert_eq!(t.atomic([1, 1, 0], AtomicOp::Add, 10, 0), Some(3));
    assert_eq!(t.atomic([2, 0, 0], AtomicOp::Add, 10, 0), None);
    assert_eq!(t.data, le(&[0, 1, 2, 13]));
    let mut b = Resource::new(
        Shape::TypedBuffer {
            format: fmt("r32-sint"),
        },
        le(&[5, 6]),
    );
    assert_eq!(
        b.atomic([1, 7, 7], AtomicOp::IMin, (-1i32) as u32, 0),
        Some(6)
    );
    assert_eq!(b.data, le(&[5, u32::MAX]));
    let mut fl = Resource::new(
        Shape::TypedBuffer {
            format: fmt("r32-float"),
        },
        le(&[5]),
    );
    assert_eq!(
        fl.atomic([0, 0, 0], AtomicOp::Add, 1, 0),
        None,
        "not an integer format"
    );
    assert_eq!(fl.data, le(&[5]));
}

#[test]
fn hidden_counter() {
    let mut r = raw(&[]);
    assert_eq!(r.counter_increment(), 0);
    assert_eq!(r.counter_increment(), 1);
    assert_eq!(r.counter, 2);
    assert_eq!(r.counter_decrement(), 1);
    assert_eq!(r.counter_decrement(), 0);
    assert_eq!(r.counter_decrement(), u32::MAX, "wraps below zero");
    assert_eq!(r.counter_increment(), u32::MAX);
    assert_eq!(r.counter, 0, "wraps above u32::MAX");
}

#[test]
fn buffer_dimensions() {
    assert_eq!(raw(&[1, 2, 3]).dimensions(0), [12; 4]);
    assert_eq!(Resource::new(Shape::Raw, vec![0; 7]).dimensions(0), [4; 4]);
    let s = Resource::new(Shape::Structured { stride: 12 }, vec![0; 36]);
    assert_eq!(s.dimensions(0), [3; 4]);
}

// --- .shader_test sections ---------------------------------------------------------------

fn manifest_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The `[srv]`/`[uav]` sections of a file, or `None` (loudly) when it is absent.
fn resources_of(path: &std::path::Path) -> Option<Vec<crate::shader_test::Resource>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("SKIPPED: {} is absent", path.display());
        return None;
    };
    let file = crate::shader_test::ShaderTestFile::parse(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(
        file.sections
            .into_iter()
            .filter_map(|s| match s.kind {
                crate::shader_test::SectionKind::Resource(r) => Some(r),
                _ => None,
            })
            .collect(),
    )
}

fn corpus(name: &str) -> std::path::PathBuf {
    manifest_dir()
        .join("../shared/corpus/shader_test")
        .join(name)
}

#[test]
fn shader_test_textures_with_levels() {
    let Some(sections) = resources_of(&corpus("calculate-lod.shader_test")) else {
        return;
    };
    let r = Resource::from_shader_test(&sections[0]).unwrap();
    assert_eq!(r.data.len(), 21 * 16, "4x4 + 2x2 + 1x1 rgba32f texels");
    assert_eq!(r.load_typed([0, 0, 0], 2), [f(0.5); 4]);
    assert_eq!(r.dimensions(0), [4, 4, 0, 3]);
}

#[test]
fn shader_test_3d_and_cube() {
    let Some(sections) = resources_of(&corpus("sampler.shader_test")) else {
        return;
    };
    let three_d = sections
        .iter()
        .find(|s| {
            matches!(
                s.size,
                Some(crate::shader_test::ResourceSize::Texture3d { .. })
            )
        })
        .unwrap();
    let r = Resource::from_shader_test(three_d).unwrap();
    assert_eq!(r.data.len(), 8 * 16);
    // The file's slice 1 starts "0.0 1.0 0.0 0.0"; texel (1, 1, 1) is "1.0 1.0 1.0 0.0".
    assert_eq!(r.load_typed([0, 0, 1], 0), [0, f(1.0), 0, 0]);
    assert_eq!(r.load_typed([1, 1, 1], 0), [f(1.0), f(1.0), f(1.0), 0]);
    assert_eq!(r.dimensions(0), [2, 2, 2, 1]);
    let cube = sections
        .iter()
        .find(|s| s.size == Some(crate::shader_test::ResourceSize::Cube(2)))
        .unwrap();
    let r = Resource::from_shader_test(cube).unwrap();
    assert_eq!(r.data.len(), 6 * 4 * 16);
    let words = cube.words();
    for layer in 0..6u32 {
        let at = (layer * 4 * 4 + 3 * 4) as usize;
        let expected = [words[at], words[at + 1], words[at + 2], words[at + 3]];
        assert_eq!(
            r.load_typed([1, 1, layer], 0),
            expected,
            "cube face {layer}, texel (1, 1)"
        );
    }
}

#[test]
fn shader_test_buffers() {
    let Some(sections) = resources_of(&corpus("srv-buffers.shader_test")) else {
        return;
    };
    let r = Resource::from_shader_test(&sections[0]).unwrap();
    assert!(
        matches!(r.shape, Shape::TypedBuffer { .. }),
        "{:?}",
        r.shape
    );
    assert_eq!(
        r.load_typed([3, 0, 0], 0),
        [f(12.0), f(13.0), f(14.0), f(15.0)]
    );
    assert_eq!(r.dimensions(0), [4; 4]);
    for s in &sections {
        if let Err(e) = Resource::from_shader_test(s) {
            panic!("srv-buffers.shader_test [{:?} {}]: {e}", s.kind, s.slot);
        }
    }
    let Some(sections) = resources_of(&corpus("uav-counter.shader_test")) else {
        return;
    };
    let r = Resource::from_shader_test(&sections[0]).unwrap();
    assert_eq!(r.shape, Shape::Structured { stride: 4 });
    assert_eq!(r.data.len(), 4);
}

#[test]
fn shader_test_raw_and_structured() {
    let path = manifest_dir().join("shaders/sm51/resource_ranges_cs.shader_test");
    let sections = resources_of(&path).expect("the project's own shaders are present");
    let raw = sections.iter().find(|s| s.slot == 5).unwrap();
    let r = Resource::from_shader_test(raw).unwrap();
    assert_eq!(r.shape, Shape::Raw);
    assert_eq!(r.load_dwords([0, 0]), [105, 205, 0, 0]);
    let structured = sections.iter().find(|s| s.slot == 12).unwrap();
    let r = Resource::from_shader_test(structured).unwrap();
    assert_eq!(r.shape, Shape::Structured { stride: 8 });
    assert_eq!(r.load_dwords([1, 0]), [312, 412, 0, 0]);
    let uav = sections
        .iter()
        .find(|s| s.kind == crate::shader_test::ResourceKind::Uav && s.slot == 3)
        .unwrap();
    let r = Resource::from_shader_test(uav).unwrap();
    assert_eq!(r.data, vec![0; 16]);
}

#[test]
fn shader_test_every_file_builds_or_names_the_problem() {
    let mut dirs = vec![manifest_dir().join("shaders")];
    dirs.push(manifest_dir().join("../shared/corpus/shader_test"));
    let mut built = 0;
    let mut refused = Vec::new();
    let mut stack = dirs;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("SKIPPED: {} is absent", dir.display());
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "shader_test") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(file) = crate::shader_test::ShaderTestFile::parse(&text) else {
                continue;
            };
            for section in file.sections {
                let crate::shader_test::SectionKind::Resource(r) = section.kind else {
                    continue;
                };
                if !matches!(
                    r.kind,
                    crate::shader_test::ResourceKind::Srv | crate::shader_test::ResourceKind::Uav
                ) {
                    continue;
                }
                match Resource::from_shader_test(&r) {
                    Ok(_) => built += 1,
                    Err(e) => refused.push(format!("{}: {e}", path.display())),
                }
            }
        }
    }
    eprintln!("{built} resource sections built; refused: {refused:#?}");
    assert!(built > 0);
    for message in &refused {
        assert!(message.contains("interpreter:"), "{message}");
    }
}

/// Texel sizes and texture layouts agree with what the Vulkan runner uploads.
#[test]
fn layout_matches_the_vulkan_runner() {
    use crate::vulkan::{ImageKind, ImageShape};
    let names = [
        "r32-uint",
        "r32-typeless",
        "r32-sint",
        "r32-float",
        "r32-float-shadow",
        "r32g32-uint",
        "r32g32-sint",
        "r32g32-float",
        "r32g32b32-float",
        "r32g32b32a32-uint",
        "r32g32b32a32-sint",
        "r32g32b32a32-float",
        "r8g8b8a8-unorm",
        "r8g8b8a8-uint",
        "r16g16b16a16-float",
    ];
    for name in names {
        let vk = crate::shader_test::runner::vk_format(name)
            .unwrap_or_else(|| panic!("the runner no longer knows {name}"));
        assert_eq!(
            fmt(name).texel_size() as usize,
            vk.texel_size(),
            "texel size of {name}"
        );
    }
    let vk = crate::shader_test::runner::vk_format("r32g32b32a32-float").unwrap();
    let cases = [
        (ResourceDimension::Texture2D, ImageKind::D2, 5, 3, 1, 3),
        (
            ResourceDimension::Texture2DArray,
            ImageKind::D2Array,
            4,
            4,
            3,
            3,
        ),
        (ResourceDimension::Texture3D, ImageKind::D3, 4, 2, 5, 3),
        (ResourceDimension::TextureCube, ImageKind::Cube, 4, 4, 6, 2),
    ];
    for (dimension, kind, width, height, depth_or_layers, levels) in cases {
        let three_d = kind == ImageKind::D3;
        let image = ImageShape {
            kind,
            format: vk,
            width,
            height,
            depth: if three_d { depth_or_layers } else { 1 },
            layers: if three_d { 1 } else { depth_or_layers },
            levels,
            samples: 1,
            kept: None,
        };
        let shape = Shape::Texture {
            dimension,
            format: fmt("r32g32b32a32-float"),
            width,
            height,
            depth_or_layers,
            levels,
        };
        assert_eq!(
            shader_test::texture_bytes(&shape),
            image.byte_size().map(|n| n as u64),
            "{shape:?} against the runner's {image:?}"
        );
        // Mark the first texel of every (layer, level) where the runner's layout puts it,
        // and read each back through the interpreter's addressing.
        let mut texture = Resource::zeroed(shape, image.byte_size().unwrap());
        let level_bytes = |level: u32| image.level_bytes(level).unwrap();
        let layer_bytes: usize = (0..levels).map(level_bytes).sum();
        let layers = if three_d { 1 } else { depth_or_layers };
        let marker = |layer: u32, level: u32| 100 * layer + level + 1;
        for layer in 0..layers {
            for level in 0..levels {
                let before: usize = (0..level).map(level_bytes).sum();
                let at = layer as usize * layer_bytes + before;
                texture.data[at..at + 4].copy_from_slice(&marker(layer, level).to_le_bytes());
            }
        }
        for layer in 0..layers {
            for level in 0..levels {
                assert_eq!(
                    texture.load_typed([0, 0, layer], level)[0],
                    marker(layer, level),
                    "{shape:?}: first texel of layer {layer}, level {level}"
                );
            }
        }
    }
}
