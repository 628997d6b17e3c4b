//! Input, output and patch-constant signatures (ISGN/OSGN/PCSG, OSG5, ISG1/OSG1/PSG1).

use super::reader::ChunkReader;
use crate::error::Result;

raw_enum! {
    /// The system value an element is bound to (`D3D_NAME`).
    SystemValue: u32 {
        /// No system value (`NONE`).
        Undefined = 0,
        /// `SV_Position` (`POS`).
        Position = 1,
        /// `SV_ClipDistance` (`CLIPDST`).
        ClipDistance = 2,
        /// `SV_CullDistance` (`CULLDST`).
        CullDistance = 3,
        /// `SV_RenderTargetArrayIndex` (`RTINDEX`).
        RenderTargetArrayIndex = 4,
        /// `SV_ViewportArrayIndex` (`VPINDEX`).
        ViewportArrayIndex = 5,
        /// `SV_VertexID` (`VERTID`).
        VertexId = 6,
        /// `SV_PrimitiveID` (`PRIMID`).
        PrimitiveId = 7,
        /// `SV_InstanceID` (`INSTID`).
        InstanceId = 8,
        /// `SV_IsFrontFace` (`FFACE`).
        IsFrontFace = 9,
        /// `SV_SampleIndex` (`SAMPLE`).
        SampleIndex = 10,
        /// Quad edge tessellation factor (`QUADEDGE`).
        QuadEdgeTessFactor = 11,
        /// Quad inside tessellation factor (`QUADINT`).
        QuadInsideTessFactor = 12,
        /// Triangle edge tessellation factor (`TRIEDGE`).
        TriEdgeTessFactor = 13,
        /// Triangle inside tessellation factor (`TRIINT`).
        TriInsideTessFactor = 14,
        /// Isoline detail tessellation factor (`LINEDET`).
        LineDetailTessFactor = 15,
        /// Isoline density tessellation factor (`LINEDEN`).
        LineDensityTessFactor = 16,
        /// `SV_Target` (`TARGET`).
        Target = 64,
        /// `SV_Depth` (`DEPTH`).
        Depth = 65,
        /// `SV_Coverage` (`COVERAGE`).
        Coverage = 66,
        /// `SV_DepthGreaterEqual` (`DEPTHGE`).
        DepthGreaterEqual = 67,
        /// `SV_DepthLessEqual` (`DEPTHLE`).
        DepthLessEqual = 68,
        /// `SV_StencilRef` (`STENCILREF`).
        StencilRef = 69,
        /// `SV_InnerCoverage` (`INNERCOV`).
        InnerCoverage = 70,
    }
}

impl SystemValue {
    /// The short name fxc prints in the SysValue column, or `None` for unknown values.
    pub fn fxc_name(self) -> Option<&'static str> {
        Some(match self {
            Self::Undefined => "NONE",
            Self::Position => "POS",
            Self::ClipDistance => "CLIPDST",
            Self::CullDistance => "CULLDST",
            Self::RenderTargetArrayIndex => "RTINDEX",
            Self::ViewportArrayIndex => "VPINDEX",
            Self::VertexId => "VERTID",
            Self::PrimitiveId => "PRIMID",
            Self::InstanceId => "INSTID",
            Self::IsFrontFace => "FFACE",
            Self::SampleIndex => "SAMPLE",
            Self::QuadEdgeTessFactor => "QUADEDGE",
            Self::QuadInsideTessFactor => "QUADINT",
            Self::TriEdgeTessFactor => "TRIEDGE",
            Self::TriInsideTessFactor => "TRIINT",
            Self::LineDetailTessFactor => "LINEDET",
            Self::LineDensityTessFactor => "LINEDEN",
            Self::Target => "TARGET",
            Self::Depth => "DEPTH",
            Self::Coverage => "COVERAGE",
            Self::DepthGreaterEqual => "DEPTHGE",
            Self::DepthLessEqual => "DEPTHLE",
            Self::StencilRef => "STENCILREF",
            Self::InnerCoverage => "INNERCOV",
            Self::Other(_) => return None,
        })
    }
}

raw_enum! {
    /// The scalar type of an element's components (`D3D_REGISTER_COMPONENT_TYPE`).
    ComponentType: u32 {
        /// Unknown type.
        Unknown = 0,
        /// 32-bit unsigned integer.
        Uint32 = 1,
        /// 32-bit signed integer.
        Sint32 = 2,
        /// 32-bit float.
        Float32 = 3,
    }
}

raw_enum! {
    /// Minimum precision of an element (`D3D_MIN_PRECISION`), from ISG1/OSG1/PSG1 only.
    MinPrecision: u32 {
        /// Full precision.
        Default = 0,
        /// At least 16-bit float.
        Float16 = 1,
        /// At least 2.8 fixed point (10-bit float).
        Float2_8 = 2,
        /// At least 16-bit signed integer.
        Sint16 = 4,
        /// At least 16-bit unsigned integer.
        Uint16 = 5,
        /// Any 16-bit type.
        Any16 = 0xf0,
        /// Any 10-bit type.
        Any10 = 0xf1,
    }
}

impl MinPrecision {
    /// The name fxc prints in a signature's Format column for a minimum precision, or
    /// `None` for full precision (the Format column then shows the component type) and for
    /// unknown values.
    pub fn fxc_name(self) -> Option<&'static str> {
        Some(match self {
            Self::Float16 => "min16f",
            Self::Float2_8 => "min2_8f",
            Self::Sint16 => "min16i",
            Self::Uint16 => "min16u",
            Self::Any16 => "any16",
            Self::Any10 => "any10",
            Self::Default | Self::Other(_) => return None,
        })
    }
}

/// One element (row) of a signature.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SignatureElement {
    /// Geometry-shader output stream (OSG5/OSG1 only; 0 otherwise).
    pub stream: u32,
    /// Semantic name, e.g. `TEXCOORD` or `SV_Position`.
    pub semantic_name: String,
    /// Semantic index.
    pub semantic_index: u32,
    /// System value the element is bound to.
    pub system_value: SystemValue,
    /// Component type.
    pub component_type: ComponentType,
    /// Register index (`u32::MAX` for elements without a register, such as `oDepth`).
    pub register: u32,
    /// Components present (bit 0 = x … bit 3 = w).
    pub mask: u8,
    /// The second mask byte as stored: for inputs the components read; for outputs and patch
    /// constants the components *never* written (fxc's convention; see [`Self::used_mask`]).
    pub rw_mask: u8,
    /// Minimum precision (ISG1/OSG1/PSG1 only; `Default` otherwise).
    pub min_precision: MinPrecision,
}

impl SignatureElement {
    /// Components actually used: `rw_mask` for inputs, `mask & !rw_mask` for outputs.
    pub fn used_mask(&self, is_output: bool) -> u8 {
        if is_output {
            self.mask & !self.rw_mask
        } else {
            self.rw_mask
        }
    }
}

/// A parsed signature chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Signature {
    /// The chunk it came from (`ISGN`, `OSG5`, `PSG1`, …).
    pub fourcc: [u8; 4],
    /// The elements in stored order.
    pub elements: Vec<SignatureElement>,
}

/// Record layout of one signature chunk flavour.
struct Layout {
    /// Bytes per element.
    size: usize,
    /// Whether the record starts with a stream index.
    stream: bool,
    /// Whether the record ends with a minimum precision.
    min_precision: bool,
}

/// The record layout for a signature chunk code, or `None` if it is not a signature.
fn layout(fourcc: [u8; 4]) -> Option<Layout> {
    match &fourcc {
        b"ISGN" | b"OSGN" | b"PCSG" => Some(Layout {
            size: 24,
            stream: false,
            min_precision: false,
        }),
        b"OSG5" => Some(Layout {
            size: 28,
            stream: true,
            min_precision: false,
        }),
        b"ISG1" | b"OSG1" | b"PSG1" => Some(Layout {
            size: 32,
            stream: true,
            min_precision: true,
        }),
        _ => None,
    }
}

impl Signature {
    /// Whether `fourcc` names a signature chunk this module can parse.
    pub fn is_signature_chunk(fourcc: [u8; 4]) -> bool {
        layout(fourcc).is_some()
    }

    /// Parses the data of signature chunk `fourcc`.
    pub fn parse(fourcc: [u8; 4], data: &[u8]) -> Result<Self> {
        let r = ChunkReader::new(fourcc, data);
        let layout = layout(fourcc).ok_or_else(|| {
            r.error(
                0,
                format!(
                    "{} is not a signature chunk",
                    crate::error::fourcc_str(fourcc)
                ),
            )
        })?;
        let count = r.u32(0, "element count")?;
        let first = r.u32(4, "element array offset")?;
        let start = r.table(first, count, layout.size, "element array")?;
        let mut elements = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            // `table` checked that every record lies inside the chunk.
            let mut at = start + i * layout.size;
            let field = |at: usize, name: &str| r.u32(at, format_args!("element {i} {name}"));
            let stream = if layout.stream {
                at += 4;
                field(at - 4, "stream")?
            } else {
                0
            };
            let name_offset = field(at, "name offset")?;
            let semantic_name = r.string(name_offset, format_args!("element {i} name"))?;
            let semantic_index = field(at + 4, "semantic index")?;
            let system_value = SystemValue::from_raw(field(at + 8, "system value")?);
            let component_type = ComponentType::from_raw(field(at + 12, "component type")?);
            let register = field(at + 16, "register")?;
            let mask = r.u8(at + 20, format_args!("element {i} mask"))?;
            let rw_mask = r.u8(at + 21, format_args!("element {i} read/write mask"))?;
            let min_precision = if layout.min_precision {
                MinPrecision::from_raw(field(at + 24, "minimum precision")?)
            } else {
                MinPrecision::Default
            };
            elements.push(SignatureElement {
                stream,
                semantic_name,
                semantic_index,
                system_value,
                component_type,
                register,
                mask,
                rw_mask,
                min_precision,
            });
        }
        Ok(Signature { fourcc, elements })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::Buf;
    use super::*;
    use crate::error::Location;

    /// One element's fields for building test chunks.
    struct El<'a> {
        stream: u32,
        name: &'a str,
        index: u32,
        sv: u32,
        ty: u32,
        reg: u32,
        mask: u8,
        rw: u8,
        prec: u32,
    }

    fn build(layout_size: usize, els: &[El]) -> Vec<u8> {
        let mut b = Buf::default();
        b.u32(els.len() as u32).u32(8);
        let mut name_slots = Vec::new();
        for e in els {
            if layout_size != 24 {
                b.u32(e.stream);
            }
            name_slots.push(b.pos());
            b.u32(0).u32(e.index).u32(e.sv).u32(e.ty).u32(e.reg);
            b.u8(e.mask).u8(e.rw).u16(0);
            if layout_size == 32 {
                b.u32(e.prec);
            }
        }
        for (slot, e) in name_slots.into_iter().zip(els) {
            let at = b.str(e.name);
            b.patch(slot, at);
        }
        b.bytes
    }

    fn two() -> Vec<El<'static>> {
        vec![
            El {
                stream: 0,
                name: "SV_Position",
                index: 0,
                sv: 1,
                ty: 3,
                reg: 0,
                mask: 0xf,
                rw: 0x3,
                prec: 0,
            },
            El {
                stream: 1,
                name: "TEXCOORD",
                index: 2,
                sv: 0,
                ty: 1,
                reg: 1,
                mask: 0x6,
                rw: 0x2,
                prec: 5,
            },
        ]
    }

    #[test]
    fn parses_isgn() {
        let data = build(24, &two());
        let s = Signature::parse(*b"ISGN", &data).unwrap();
        assert_eq!(s.elements.len(), 2);
        let e = &s.elements[1];
        assert_eq!(e.semantic_name, "TEXCOORD");
        assert_eq!(e.semantic_index, 2);
        assert_eq!(e.component_type, ComponentType::Uint32);
        assert_eq!((e.register, e.mask, e.rw_mask), (1, 0x6, 0x2));
        assert_eq!(e.stream, 0);
        assert_eq!(s.elements[0].system_value, SystemValue::Position);
        assert_eq!(e.used_mask(false), 0x2);
        assert_eq!(e.used_mask(true), 0x4);
    }

    #[test]
    fn parses_osg5_and_isg1() {
        let s = Signature::parse(*b"OSG5", &build(28, &two())).unwrap();
        assert_eq!(s.elements[1].stream, 1);
        assert_eq!(s.elements[1].semantic_name, "TEXCOORD");
        let s = Signature::parse(*b"ISG1", &build(32, &two())).unwrap();
        assert_eq!(s.elements[1].min_precision, MinPrecision::Uint16);
        assert_eq!(s.elements[1].stream, 1);
        assert_eq!(s.elements[0].semantic_name, "SV_Position");
    }

    #[test]
    fn rejects_bad_counts_and_names() {
        let mut data = build(24, &two());
        data[0..4].copy_from_slice(&0x1000_0000u32.to_le_bytes());
        let e = Signature::parse(*b"ISGN", &data).unwrap_err();
        assert_eq!(
            e.location,
            Location::Chunk {
                fourcc: *b"ISGN",
                byte: 8
            }
        );
        assert!(e.message.contains("element array"), "{e}");

        let mut data = build(24, &two());
        data[8 + 24..8 + 28].copy_from_slice(&0x1234u32.to_le_bytes());
        let e = Signature::parse(*b"ISGN", &data).unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "element 1 name offset 0x1234 is past the end of the chunk (0x{:x} bytes)",
                data.len()
            )
        );
        assert!(Signature::parse(*b"ISGN", &[1, 0, 0]).is_err());
        assert!(Signature::parse(*b"RDEF", &data).is_err());
        let empty = Signature::parse(*b"OSGN", &[0, 0, 0, 0, 8, 0, 0, 0]).unwrap();
        assert!(empty.elements.is_empty());
    }
}
