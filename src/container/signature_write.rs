//! Writing signature chunks (ISGN/OSGN/PCSG, OSG5, ISG1/OSG1/PSG1): the inverse of
//! [`Signature::parse`].

use super::layout::{to_u32, ByteWriter, WriteStyle};
use super::signature::Signature;

/// Writes `sig` as the data of a signature chunk in fxc's layout.
///
/// The record size follows `sig.fourcc`: 24 bytes for ISGN/OSGN/PCSG (and for any code that
/// is not a signature chunk), 28 for OSG5 (with the stream), 32 for ISG1/OSG1/PSG1 (stream
/// and minimum precision). Fields the chosen record cannot hold (a stream in ISGN, a minimum
/// precision in OSG5) are dropped. See [`write_signature_styled`] for the string table.
pub fn write_signature(sig: &Signature) -> Vec<u8> {
    write_signature_styled(sig, WriteStyle::Fxc)
}

/// Writes `sig` as the data of a signature chunk in the given layout.
///
/// The chunk is the element count, the offset of the first element (8), the elements, then
/// the names. fxc packs the distinct names in order of first use and pads the table once at
/// the end; vkd3d-shader writes every element's name, each padded to a dword boundary. Both
/// pad with `0xab`.
pub fn write_signature_styled(sig: &Signature, style: WriteStyle) -> Vec<u8> {
    let (stream, min_precision) = match &sig.fourcc {
        b"OSG5" => (true, false),
        b"ISG1" | b"OSG1" | b"PSG1" => (true, true),
        _ => (false, false),
    };
    let mut w = ByteWriter::new(style);
    w.u32(to_u32(sig.elements.len()));
    w.u32(8);
    let mut name_slots = Vec::with_capacity(sig.elements.len());
    for e in &sig.elements {
        if stream {
            w.u32(e.stream);
        }
        name_slots.push(w.pos());
        w.u32(0);
        w.u32(e.semantic_index);
        w.u32(e.system_value.raw());
        w.u32(e.component_type.raw());
        w.u32(e.register);
        w.u8(e.mask);
        w.u8(e.rw_mask);
        w.u16(0);
        if min_precision {
            w.u32(e.min_precision.raw());
        }
    }
    for (slot, e) in name_slots.into_iter().zip(&sig.elements) {
        let at = w.string(&e.semantic_name);
        w.patch(slot, at);
    }
    w.align();
    w.bytes
}

#[cfg(test)]
mod tests {
    use super::super::signature::{ComponentType, MinPrecision, SignatureElement, SystemValue};
    use super::*;

    fn element(name: &str, index: u32, reg: u32) -> SignatureElement {
        SignatureElement {
            stream: 1,
            semantic_name: name.to_string(),
            semantic_index: index,
            system_value: SystemValue::Undefined,
            component_type: ComponentType::Float32,
            register: reg,
            mask: 0x7,
            rw_mask: 0x3,
            min_precision: MinPrecision::Float16,
        }
    }

    fn sig(fourcc: &[u8; 4]) -> Signature {
        Signature {
            fourcc: *fourcc,
            elements: vec![
                element("TEXCOORD", 0, 0),
                element("COLOR", 0, 1),
                element("TEXCOORD", 1, 2),
            ],
        }
    }

    #[test]
    fn fxc_layout_shares_names() {
        let data = write_signature(&sig(b"ISGN"));
        let names = &data[8 + 3 * 24..];
        assert_eq!(names, b"TEXCOORD\0COLOR\0\xab");
        let back = Signature::parse(*b"ISGN", &data).unwrap();
        let mut expect = sig(b"ISGN");
        for e in &mut expect.elements {
            e.stream = 0;
            e.min_precision = MinPrecision::Default;
        }
        assert_eq!(back, expect);
    }

    #[test]
    fn vkd3d_layout_repeats_names() {
        let data = write_signature_styled(&sig(b"OSGN"), WriteStyle::Vkd3d);
        let names = &data[8 + 3 * 24..];
        assert_eq!(
            names,
            b"TEXCOORD\0\xab\xab\xabCOLOR\0\xab\xabTEXCOORD\0\xab\xab\xab"
        );
        assert_eq!(Signature::parse(*b"OSGN", &data).unwrap().elements.len(), 3);
    }

    #[test]
    fn every_record_size_round_trips() {
        for fourcc in [b"OSG5", b"ISG1", b"OSG1", b"PSG1"] {
            let s = sig(fourcc);
            let back = Signature::parse(*fourcc, &write_signature(&s)).unwrap();
            if fourcc == b"OSG5" {
                assert!(back.elements.iter().all(|e| e.stream == 1));
                assert!(back
                    .elements
                    .iter()
                    .all(|e| e.min_precision == MinPrecision::Default));
            } else {
                assert_eq!(back, s);
            }
        }
    }

    #[test]
    fn empty_and_unknown_codes() {
        let empty = Signature {
            fourcc: *b"PCSG",
            elements: Vec::new(),
        };
        assert_eq!(write_signature(&empty), [0, 0, 0, 0, 8, 0, 0, 0]);
        let odd = Signature {
            fourcc: *b"XXXX",
            elements: vec![element("", 0, u32::MAX)],
        };
        let data = write_signature(&odd);
        assert_eq!(data.len(), 8 + 24 + 4);
        let back = Signature::parse(*b"ISGN", &data).unwrap();
        assert_eq!(back.elements[0].register, u32::MAX);
        assert_eq!(back.elements[0].semantic_name, "");
    }
}
