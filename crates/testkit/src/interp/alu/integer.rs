//! Integer and bitwise instructions (spec 22.11, 22.12, and the integer comparisons).

use super::Results;
use dxbc2spirv::isa::Opcode;

/// `true` in a 32-bit component.
const TRUE: u32 = 0xffff_ffff;

/// Whether this module evaluates `opcode`.
pub(super) fn handles(opcode: Opcode) -> bool {
    use Opcode as O;
    matches!(
        opcode,
        O::Iadd
            | O::Imad
            | O::Umad
            | O::Imul
            | O::Umul
            | O::Udiv
            | O::Ineg
            | O::Not
            | O::And
            | O::Or
            | O::Xor
            | O::Ishl
            | O::Ishr
            | O::Ushr
            | O::Imax
            | O::Imin
            | O::Umax
            | O::Umin
            | O::Ieq
            | O::Ine
            | O::Ilt
            | O::Ige
            | O::Ult
            | O::Uge
            | O::Uaddc
            | O::Usubb
            | O::Bfi
            | O::Ubfe
            | O::Ibfe
            | O::Bfrev
            | O::Countbits
            | O::FirstbitHi
            | O::FirstbitLo
            | O::FirstbitShi
            | O::Msad
    )
}

/// `ubfe` (`signed` false) and `ibfe` (`signed` true): width and offset are the low 5 bits.
pub(super) fn bitfield_extract(width: u32, offset: u32, value: u32, signed: bool) -> u32 {
    let (width, offset) = (width & 31, offset & 31);
    if width == 0 {
        0
    } else if width + offset < 32 {
        let shifted = value << (32 - (width + offset));
        if signed {
            ((shifted as i32) >> (32 - width)) as u32
        } else {
            shifted >> (32 - width)
        }
    } else if signed {
        ((value as i32) >> offset) as u32
    } else {
        value >> offset
    }
}

/// `bfi`: the low `width` bits of `insert` replace bits `offset..` of `base`.
pub(super) fn bitfield_insert(width: u32, offset: u32, insert: u32, base: u32) -> u32 {
    let (width, offset) = (width & 31, offset & 31);
    let mask = (((1u64 << width) - 1) << offset) as u32;
    ((insert << offset) & mask) | (base & !mask)
}

/// `firstbit_hi`: position of the highest set bit counted from the MSB, `~0` for none.
pub(super) fn firstbit_hi(value: u32) -> u32 {
    if value == 0 {
        TRUE
    } else {
        value.leading_zeros()
    }
}

/// `msad`: masked sum of absolute byte differences added to `accum`, saturating at
/// `u32::MAX` (the spec's recommended overflow behaviour; wrapping is also allowed).
pub(super) fn msad(reference: u32, source: u32, accum: u32) -> u32 {
    let mut accum = accum;
    for i in 0..4 {
        let r = (reference >> (8 * i)) as u8;
        if r == 0 {
            continue;
        }
        let s = (source >> (8 * i)) as u8;
        let diff = u32::from(r.abs_diff(s));
        match accum.checked_add(diff) {
            Some(sum) => accum = sum,
            None => return u32::MAX,
        }
    }
    accum
}

/// Evaluates an integer instruction.
pub(super) fn evaluate(opcode: Opcode, src: &dyn Fn(usize) -> [u32; 4]) -> Option<Results> {
    use Opcode as O;
    let (a, b, c, d) = (src(0), src(1), src(2), src(3));
    let un = |op: &dyn Fn(u32) -> u32| a.map(op);
    let bin = |op: &dyn Fn(u32, u32) -> u32| {
        let mut r = [0; 4];
        for i in 0..4 {
            r[i] = op(a[i], b[i]);
        }
        r
    };
    let tri = |op: &dyn Fn(u32, u32, u32) -> u32| {
        let mut r = [0; 4];
        for i in 0..4 {
            r[i] = op(a[i], b[i], c[i]);
        }
        r
    };
    // Two results per component.
    let pair = |op: &dyn Fn(u32, u32) -> (u32, u32)| {
        let mut r = [[0; 4]; 2];
        for i in 0..4 {
            let (x, y) = op(a[i], b[i]);
            r[0][i] = x;
            r[1][i] = y;
        }
        r
    };
    let test = |t: bool| if t { TRUE } else { 0 };
    let one = |v: [u32; 4]| [v, [0; 4]];
    Some(match opcode {
        O::Iadd => one(bin(&u32::wrapping_add)),
        O::Imad | O::Umad => one(tri(&|x, y, z| x.wrapping_mul(y).wrapping_add(z))),
        O::Imul => pair(&|x, y| {
            let p = i64::from(x as i32) * i64::from(y as i32);
            ((p >> 32) as u32, p as u32)
        }),
        O::Umul => pair(&|x, y| {
            let p = u64::from(x) * u64::from(y);
            ((p >> 32) as u32, p as u32)
        }),
        O::Udiv => pair(&|x, y| match (x.checked_div(y), x.checked_rem(y)) {
            (Some(q), Some(r)) => (q, r),
            _ => (u32::MAX, u32::MAX),
        }),
        O::Uaddc => pair(&|x, y| {
            let (sum, carry) = x.overflowing_add(y);
            (sum, u32::from(carry))
        }),
        O::Usubb => pair(&|x, y| {
            let (difference, borrow) = x.overflowing_sub(y);
            (difference, u32::from(borrow))
        }),
        O::Ineg => one(un(&u32::wrapping_neg)),
        O::Not => one(un(&|x| !x)),
        O::And => one(bin(&|x, y| x & y)),
        O::Or => one(bin(&|x, y| x | y)),
        O::Xor => one(bin(&|x, y| x ^ y)),
        O::Ishl => one(bin(&|x, y| x << (y & 31))),
        O::Ishr => one(bin(&|x, y| ((x as i32) >> (y & 31)) as u32)),
        O::Ushr => one(bin(&|x, y| x >> (y & 31))),
        O::Imax => one(bin(&|x, y| (x as i32).max(y as i32) as u32)),
        O::Imin => one(bin(&|x, y| (x as i32).min(y as i32) as u32)),
        O::Umax => one(bin(&u32::max)),
        O::Umin => one(bin(&u32::min)),
        O::Ieq => one(bin(&|x, y| test(x == y))),
        O::Ine => one(bin(&|x, y| test(x != y))),
        O::Ilt => one(bin(&|x, y| test((x as i32) < (y as i32)))),
        O::Ige => one(bin(&|x, y| test((x as i32) >= (y as i32)))),
        O::Ult => one(bin(&|x, y| test(x < y))),
        O::Uge => one(bin(&|x, y| test(x >= y))),
        O::Bfi => {
            let mut r = [0; 4];
            for i in 0..4 {
                r[i] = bitfield_insert(a[i], b[i], c[i], d[i]);
            }
            one(r)
        }
        O::Ubfe => one(tri(&|w, o, v| bitfield_extract(w, o, v, false))),
        O::Ibfe => one(tri(&|w, o, v| bitfield_extract(w, o, v, true))),
        O::Bfrev => one(un(&u32::reverse_bits)),
        O::Countbits => one(un(&u32::count_ones)),
        O::FirstbitHi => one(un(&firstbit_hi)),
        O::FirstbitLo => one(un(&|x| if x == 0 { TRUE } else { x.trailing_zeros() })),
        // Negative: the first 0 from the MSB; otherwise the first 1.
        O::FirstbitShi => one(un(&|x| firstbit_hi(if (x as i32) < 0 { !x } else { x }))),
        O::Msad => one(tri(&msad)),
        _ => return None,
    })
}
