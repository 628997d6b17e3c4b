//! Resource sections: `[srv N]`, `[uav N]`, `[rtv N]`, `[dsv]`, `[vb N]`, `[sampler N]`
//! and `[input layout]`.

use super::scan::{parse_c_integer, wrap_u32, Scanner};
use super::RawLine;
use dxbc2spirv::Result;

/// Which kind of resource a resource section declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ResourceKind {
    /// `[srv N]`: a shader resource view (texture or buffer).
    Srv,
    /// `[uav N]`: an unordered access view.
    Uav,
    /// `[rtv N]`: a render target.
    Rtv,
    /// `[dsv]`: the depth-stencil target.
    Dsv,
    /// `[vb N]`: a vertex buffer.
    Vb,
}

/// The `size (...)` of a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceSize {
    /// `(buffer, N)`: N elements.
    Buffer(u32),
    /// `(raw_buffer, N)`: N 32-bit words of a byte-address buffer.
    RawBuffer(u32),
    /// `(counter_buffer, N)`: a structured buffer with a UAV counter, stride 4.
    CounterBuffer(u32),
    /// `(2d, width, height)`.
    Texture2d {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
    },
    /// `(2dms, samples, width, height)`.
    Texture2dMs {
        /// Sample count.
        samples: u32,
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
    },
    /// `(2darray, width, height, layers)`.
    Texture2dArray {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// Array layers.
        layers: u32,
    },
    /// `(3d, width, height, depth)`.
    Texture3d {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// Depth in texels.
        depth: u32,
    },
    /// `(cube, size)`: six square faces.
    Cube(u32),
}

/// One data value of a resource body. Like shader_runner, a token containing a `.` is a
/// 32-bit float and anything else is an integer (`strtoul` rules: hex, octal, a minus sign
/// wraps around); every value is one 32-bit word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DataValue {
    /// An integer token, already wrapped to 32 bits.
    Int(u32),
    /// A float token.
    Float(f32),
}

impl DataValue {
    /// The 32-bit word the runner uploads for this value.
    pub fn word(self) -> u32 {
        match self {
            DataValue::Int(v) => v,
            DataValue::Float(f) => f.to_bits(),
        }
    }
}

/// A `[srv]`, `[uav]`, `[rtv]`, `[dsv]` or `[vb]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// The kind of resource.
    pub kind: ResourceKind,
    /// The slot (register) number; 0 for `[dsv]`.
    pub slot: u32,
    /// The register space (SRVs and UAVs; this project's `[space S srv N]` extension).
    pub space: u32,
    /// `format <name>`, e.g. `r32g32b32a32-float`.
    pub format: Option<String>,
    /// `stride N` (structured buffers; makes the format unknown).
    pub stride: Option<u32>,
    /// `size (...)`.
    pub size: Option<ResourceSize>,
    /// `levels N` (mip levels).
    pub levels: Option<u32>,
    /// The data values in file order.
    pub data: Vec<DataValue>,
}

impl Resource {
    /// The data as the 32-bit words the runner uploads.
    pub fn words(&self) -> Vec<u32> {
        self.data.iter().map(|v| v.word()).collect()
    }
}

/// A comparison function (samplers, `depth`, `alpha test`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `never`
    Never,
    /// `less`
    Less,
    /// `equal`
    Equal,
    /// `less equal`
    LessEqual,
    /// `greater`
    Greater,
    /// `not equal`
    NotEqual,
    /// `greater equal`
    GreaterEqual,
    /// `always`
    Always,
}

/// How the components of a format are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentKind {
    /// `-float` (and `-float-shadow`).
    Float,
    /// `-sint`.
    Sint,
    /// `-uint`.
    Uint,
    /// `-unorm`.
    Unorm,
    /// `-snorm`.
    Snorm,
    /// `-typeless`.
    Typeless,
}

/// What a format name such as `r32g32b32a32-float` describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatInfo {
    /// Number of channels (1 to 4).
    pub components: u32,
    /// Bits per channel (all channels the same size).
    pub bits: u32,
    /// Channel type.
    pub kind: ComponentKind,
    /// `-float-shadow`: a depth format sampled with comparison.
    pub shadow: bool,
}

impl FormatInfo {
    /// Bytes per texel.
    pub fn texel_size(&self) -> u32 {
        self.components.saturating_mul(self.bits) / 8
    }
}

/// Decodes a shader_test format name (`r32-float`, `r32g32b32a32-uint`, `r32-float-shadow`,
/// `r8g8b8a8-unorm`, …); `None` for a name this reader does not know.
pub fn format_info(name: &str) -> Option<FormatInfo> {
    let (channels, kind) = name.split_once('-')?;
    let (kind, shadow) = match kind {
        "float" => (ComponentKind::Float, false),
        "float-shadow" => (ComponentKind::Float, true),
        "sint" => (ComponentKind::Sint, false),
        "uint" => (ComponentKind::Uint, false),
        "unorm" => (ComponentKind::Unorm, false),
        "snorm" => (ComponentKind::Snorm, false),
        "typeless" => (ComponentKind::Typeless, false),
        _ => return None,
    };
    let mut rest = channels;
    let mut components = 0u32;
    let mut bits = None;
    for channel in ['r', 'g', 'b', 'a'] {
        let Some(after) = rest.strip_prefix(channel) else {
            break;
        };
        let len = after.bytes().take_while(u8::is_ascii_digit).count();
        let size: u32 = after.get(..len)?.parse().ok()?;
        if bits.is_some_and(|b| b != size) || !matches!(size, 8 | 16 | 32 | 64) {
            return None;
        }
        bits = Some(size);
        components += 1;
        rest = after.get(len..)?;
    }
    if !rest.is_empty() {
        return None;
    }
    Some(FormatInfo {
        components,
        bits: bits?,
        kind,
        shadow,
    })
}

/// Reads a comparison function name (one or two words).
pub(crate) fn read_comparison(s: &mut Scanner<'_>) -> Result<Comparison> {
    const NAMES: [(&str, Comparison); 8] = [
        ("less equal", Comparison::LessEqual),
        ("greater equal", Comparison::GreaterEqual),
        ("not equal", Comparison::NotEqual),
        ("never", Comparison::Never),
        ("less", Comparison::Less),
        ("equal", Comparison::Equal),
        ("greater", Comparison::Greater),
        ("always", Comparison::Always),
    ];
    for (name, cmp) in NAMES {
        if s.eat_words(name) {
            return Ok(cmp);
        }
    }
    Err(s.error("unknown comparison function"))
}

/// A `[sampler N]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampler {
    /// The sampler slot.
    pub slot: u32,
    /// The register space (this project's `[space S sampler N]` extension).
    pub space: u32,
    /// `filter <min> <mag> <mip>` words (`point` or `linear`).
    pub filter: Option<Vec<String>>,
    /// `address <u> <v> <w>` words (`wrap`, `clamp`, `mirror`, `border`, …).
    pub address: Option<Vec<String>>,
    /// `comparison <func>`: makes this a comparison sampler.
    pub comparison: Option<Comparison>,
    /// Lines that were not understood, kept verbatim.
    pub other: Vec<RawLine>,
}

/// One `[input layout]` line: `<slot> <format> <semantic> [index]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputElement {
    /// Vertex buffer slot.
    pub slot: u32,
    /// Format name, e.g. `r32g32-float`.
    pub format: String,
    /// Semantic name.
    pub semantic: String,
    /// Semantic index (0 when absent).
    pub index: u32,
}

/// Parses one directive or data line of a resource section into `res`.
pub(crate) fn parse_resource_line(res: &mut Resource, text: &str, line: u32) -> Result<()> {
    let mut s = Scanner::new(text, line);
    if s.eat_word("format") {
        let name = s.word().ok_or_else(|| s.error("missing format name"))?;
        res.format = Some(name.to_string());
    } else if s.eat_word("stride") {
        res.stride = Some(s.decimal_u32()?);
    } else if s.eat_word("size") {
        res.size = Some(read_size(&mut s)?);
    } else if s.eat_word("levels") {
        res.levels = Some(s.decimal_u32()?);
    } else {
        read_data(&mut s, &mut res.data)?;
        return Ok(());
    }
    if !s.at_end() {
        return Err(s.error("unexpected text after resource directive"));
    }
    Ok(())
}

fn read_size(s: &mut Scanner<'_>) -> Result<ResourceSize> {
    s.require("(")?;
    let kind = s.rest().trim_start();
    let len = kind
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(kind.len());
    let name = kind.get(..len).unwrap_or("").to_string();
    if !s.eat_word(&name) || name.is_empty() {
        return Err(s.error("missing resource dimension"));
    }
    let mut dims = Vec::new();
    while s.eat(",") {
        dims.push(s.decimal_u32()?);
    }
    s.require(")")?;
    let size = match (name.as_str(), dims.as_slice()) {
        ("buffer", &[n]) => ResourceSize::Buffer(n),
        ("raw_buffer", &[n]) => ResourceSize::RawBuffer(n),
        ("counter_buffer", &[n]) => ResourceSize::CounterBuffer(n),
        ("2d", &[width, height]) => ResourceSize::Texture2d { width, height },
        ("2dms", &[samples, width, height]) => ResourceSize::Texture2dMs {
            samples,
            width,
            height,
        },
        ("2darray", &[width, height, layers]) => ResourceSize::Texture2dArray {
            width,
            height,
            layers,
        },
        ("3d", &[width, height, depth]) => ResourceSize::Texture3d {
            width,
            height,
            depth,
        },
        ("cube", &[n]) => ResourceSize::Cube(n),
        _ => {
            return Err(s.error(format!(
                "malformed resource size ({name} with {} dimensions)",
                dims.len()
            )))
        }
    };
    Ok(size)
}

/// Reads data tokens until the end of the line (a `%` starts a comment).
fn read_data(s: &mut Scanner<'_>, out: &mut Vec<DataValue>) -> Result<()> {
    loop {
        s.skip_ws();
        let rest = s.rest();
        if rest.is_empty() || rest.starts_with('%') {
            return Ok(());
        }
        let int = parse_c_integer(rest);
        let is_float = rest.starts_with('.')
            || int.is_some_and(|(_, len)| rest.as_bytes().get(len) == Some(&b'.'))
            || (int.is_none() && rest.starts_with("-."));
        if is_float {
            let value = s.c_f32()?;
            out.push(DataValue::Float(value));
        } else {
            let (value, len) = int.ok_or_else(|| s.error("malformed data value"))?;
            let word = wrap_u32(value).ok_or_else(|| s.error("data value out of 32-bit range"))?;
            out.push(DataValue::Int(word));
            s.skip_bytes(len);
        }
    }
}

/// Parses one `[sampler]` line into `sampler`.
pub(crate) fn parse_sampler_line(sampler: &mut Sampler, text: &str, line: u32) -> Result<()> {
    let mut s = Scanner::new(text, line);
    if s.eat_word("filter") {
        sampler.filter = Some(words(&mut s));
    } else if s.eat_word("address") {
        sampler.address = Some(words(&mut s));
    } else if s.eat_word("comparison") {
        sampler.comparison = Some(read_comparison(&mut s)?);
        if !s.at_end() {
            return Err(s.error("unexpected text after comparison"));
        }
    } else {
        sampler.other.push(RawLine {
            line,
            text: text.to_string(),
        });
    }
    Ok(())
}

fn words(s: &mut Scanner<'_>) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(w) = s.word() {
        out.push(w.to_string());
    }
    out
}

/// Parses one `[input layout]` line.
pub(crate) fn parse_input_element(text: &str, line: u32) -> Result<InputElement> {
    let mut s = Scanner::new(text, line);
    let slot = s.decimal_u32()?;
    let format = s
        .word()
        .ok_or_else(|| s.error("missing element format"))?
        .to_string();
    let semantic = s
        .word()
        .ok_or_else(|| s.error("missing semantic name"))?
        .to_string();
    let index = if s.at_end() { 0 } else { s.decimal_u32()? };
    if !s.at_end() {
        return Err(s.error("unexpected text after input element"));
    }
    Ok(InputElement {
        slot,
        format,
        semantic,
        index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res() -> Resource {
        Resource {
            kind: ResourceKind::Srv,
            slot: 0,
            space: 0,
            format: None,
            stride: None,
            size: None,
            levels: None,
            data: Vec::new(),
        }
    }

    #[test]
    fn directives_and_data() {
        let mut r = res();
        parse_resource_line(&mut r, "format r32g32b32a32-float", 1).unwrap();
        parse_resource_line(&mut r, "size (2d, 640, 480)", 2).unwrap();
        parse_resource_line(&mut r, "levels 2", 3).unwrap();
        parse_resource_line(&mut r, "1.0 -1.0 .5 0x7fff -7000 12", 4).unwrap();
        assert_eq!(r.format.as_deref(), Some("r32g32b32a32-float"));
        assert_eq!(
            r.size,
            Some(ResourceSize::Texture2d {
                width: 640,
                height: 480
            })
        );
        assert_eq!(r.levels, Some(2));
        assert_eq!(
            r.data,
            vec![
                DataValue::Float(1.0),
                DataValue::Float(-1.0),
                DataValue::Float(0.5),
                DataValue::Int(0x7fff),
                DataValue::Int(7000u32.wrapping_neg()),
                DataValue::Int(12),
            ]
        );
        assert_eq!(r.words()[0], 1.0f32.to_bits());
        parse_resource_line(&mut r, "stride 16", 5).unwrap();
        assert_eq!(r.stride, Some(16));
        for (text, size) in [
            ("size (buffer, 4)", ResourceSize::Buffer(4)),
            ("size (raw_buffer, 8)", ResourceSize::RawBuffer(8)),
            ("size (counter_buffer, 1)", ResourceSize::CounterBuffer(1)),
            (
                "size (2dms, 4, 64, 64)",
                ResourceSize::Texture2dMs {
                    samples: 4,
                    width: 64,
                    height: 64,
                },
            ),
            (
                "size (2darray, 640, 480, 4)",
                ResourceSize::Texture2dArray {
                    width: 640,
                    height: 480,
                    layers: 4,
                },
            ),
            (
                "size (3d, 2, 2, 2)",
                ResourceSize::Texture3d {
                    width: 2,
                    height: 2,
                    depth: 2,
                },
            ),
            ("size (cube, 2)", ResourceSize::Cube(2)),
        ] {
            parse_resource_line(&mut r, text, 1).unwrap();
            assert_eq!(r.size, Some(size), "{text}");
        }
        assert!(parse_resource_line(&mut r, "size (2d, 1)", 1).is_err());
        assert!(parse_resource_line(&mut r, "1.0 zz", 1).is_err());
    }

    #[test]
    fn formats() {
        let f = format_info("r32g32b32a32-float").unwrap();
        assert_eq!(
            (f.components, f.bits, f.kind, f.texel_size()),
            (4, 32, ComponentKind::Float, 16)
        );
        let f = format_info("r32-float-shadow").unwrap();
        assert!(f.shadow);
        assert_eq!(format_info("r32g32-uint").map(|f| f.texel_size()), Some(8));
        assert_eq!(
            format_info("r32-typeless").map(|f| f.kind),
            Some(ComponentKind::Typeless)
        );
        assert_eq!(format_info("r32g16-float"), None);
        assert_eq!(format_info("x32-float"), None);
        assert_eq!(format_info("r32-weird"), None);
    }

    #[test]
    fn samplers_and_layouts() {
        let mut s = Sampler {
            slot: 0,
            space: 0,
            filter: None,
            address: None,
            comparison: None,
            other: Vec::new(),
        };
        parse_sampler_line(&mut s, "filter linear linear point", 1).unwrap();
        parse_sampler_line(&mut s, "address clamp wrap border", 2).unwrap();
        parse_sampler_line(&mut s, "comparison greater equal", 3).unwrap();
        parse_sampler_line(&mut s, "border 1 2 3 4", 4).unwrap();
        assert_eq!(s.filter.as_ref().map(Vec::len), Some(3));
        assert_eq!(
            s.address
                .as_ref()
                .and_then(|a| a.get(2))
                .map(String::as_str),
            Some("border")
        );
        assert_eq!(s.comparison, Some(Comparison::GreaterEqual));
        assert_eq!(s.other.len(), 1);
        let e = parse_input_element("1 r32g32b32a32-float TEXCOORD 2", 1).unwrap();
        assert_eq!((e.slot, e.semantic.as_str(), e.index), (1, "TEXCOORD", 2));
        let e = parse_input_element("0 r32g32-float POSITION", 1).unwrap();
        assert_eq!(e.index, 0);
        assert!(parse_input_element("x", 1).is_err());
    }
}
