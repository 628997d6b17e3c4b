//! The shader feature flags chunk (SFI0).

use super::reader::ChunkReader;
use crate::error::Result;

/// The SFI0 chunk: a 64-bit set of optional features the shader needs.
///
/// Bit meanings are those of the container's feature-info flags (DXC's
/// `ShaderFeatureInfo_*`, which match `D3D_SHADER_REQUIRES_*` except bit 0x2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FeatureFlags {
    /// The stored value, including bits this reader does not name.
    pub raw: u64,
}

impl FeatureFlags {
    /// Double-precision floating point.
    pub const DOUBLES: u64 = 0x1;
    /// Compute shaders plus raw and structured buffers via shader 4.x.
    pub const COMPUTE_SHADERS_PLUS_RAW_AND_STRUCTURED_BUFFERS_VIA_SHADER_4_X: u64 = 0x2;
    /// UAVs at every shader stage.
    pub const UAVS_AT_EVERY_STAGE: u64 = 0x4;
    /// 64 UAV slots.
    pub const UAVS_64: u64 = 0x8;
    /// Minimum-precision types.
    pub const MINIMUM_PRECISION: u64 = 0x10;
    /// Direct3D 11.1 double extensions.
    pub const DOUBLE_EXTENSIONS_11_1: u64 = 0x20;
    /// Direct3D 11.1 shader extensions.
    pub const SHADER_EXTENSIONS_11_1: u64 = 0x40;
    /// Level 9 comparison filtering.
    pub const LEVEL_9_COMPARISON_FILTERING: u64 = 0x80;
    /// Tiled resources.
    pub const TILED_RESOURCES: u64 = 0x100;
    /// Pixel shader stencil reference output.
    pub const STENCIL_REF: u64 = 0x200;
    /// Inner coverage input.
    pub const INNER_COVERAGE: u64 = 0x400;
    /// Typed UAV loads of additional formats.
    pub const TYPED_UAV_LOAD_ADDITIONAL_FORMATS: u64 = 0x800;
    /// Rasterizer ordered views.
    pub const ROVS: u64 = 0x1000;
    /// Viewport and render target array index from any shader feeding the rasterizer.
    pub const VIEWPORT_AND_RT_ARRAY_INDEX_FROM_ANY_SHADER_FEEDING_RASTERIZER: u64 = 0x2000;

    /// The named bits with fxc-like descriptions, in bit order.
    pub const NAMES: [(u64, &'static str); 14] = [
        (Self::DOUBLES, "Double-precision floating point"),
        (
            Self::COMPUTE_SHADERS_PLUS_RAW_AND_STRUCTURED_BUFFERS_VIA_SHADER_4_X,
            "Compute Shaders, Raw and Structured buffers via Shader 4.x",
        ),
        (Self::UAVS_AT_EVERY_STAGE, "UAVs at every shader stage"),
        (Self::UAVS_64, "64 UAV slots"),
        (Self::MINIMUM_PRECISION, "Minimum-precision data types"),
        (
            Self::DOUBLE_EXTENSIONS_11_1,
            "Double-precision extensions for 11.1",
        ),
        (Self::SHADER_EXTENSIONS_11_1, "Shader extensions for 11.1"),
        (
            Self::LEVEL_9_COMPARISON_FILTERING,
            "Comparison filtering for feature level 9",
        ),
        (Self::TILED_RESOURCES, "Tiled resources"),
        (Self::STENCIL_REF, "PS Output Stencil Ref"),
        (Self::INNER_COVERAGE, "PS Inner Coverage"),
        (
            Self::TYPED_UAV_LOAD_ADDITIONAL_FORMATS,
            "Typed UAV Load Additional Formats",
        ),
        (Self::ROVS, "Raster Ordered UAVs"),
        (
            Self::VIEWPORT_AND_RT_ARRAY_INDEX_FROM_ANY_SHADER_FEEDING_RASTERIZER,
            "SV_RenderTargetArrayIndex or SV_ViewportArrayIndex from any shader feeding rasterizer",
        ),
    ];

    /// Parses the data of an SFI0 chunk (at least 8 bytes; the first 8 are the flags).
    pub fn parse(data: &[u8]) -> Result<Self> {
        let r = ChunkReader::new(*b"SFI0", data);
        Ok(FeatureFlags {
            raw: r.u64(0, "feature flags")?,
        })
    }

    /// Whether every bit of `flag` is set.
    pub fn contains(&self, flag: u64) -> bool {
        self.raw & flag == flag
    }

    /// Descriptions of the named bits that are set.
    pub fn descriptions(&self) -> Vec<&'static str> {
        Self::NAMES
            .iter()
            .filter(|(bit, _)| self.contains(*bit))
            .map(|(_, name)| *name)
            .collect()
    }

    /// The note Microsoft's disassembler prints for a pixel shader whose global flags force
    /// early depth and stencil tests (`forceEarlyDepthStencil`): derived from the program,
    /// it stands for no SFI0 bit (fxc sets none for it).
    pub const EARLY_DEPTH_STENCIL_NOTE: &'static str = "Early depth-stencil";

    /// fxc's title line of the feature notes in a listing's header.
    pub const NOTE_TITLE: &'static str = "Note: shader requires additional functionality:";

    /// The lines of fxc's note (after the title): each named bit's description, then each
    /// bit without a name as `0x…` (so that the text keeps every bit).
    pub fn note_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.descriptions().iter().map(|d| d.to_string()).collect();
        let unknown = self.unknown_bits();
        lines.extend(
            (0..64)
                .map(|bit| 1u64 << bit)
                .filter(|bit| unknown & bit != 0)
                .map(|bit| format!("0x{bit:016x}")),
        );
        lines
    }

    /// The bit a note line names ([`FeatureFlags::note_lines`]), or `None`.
    pub fn bit_of_note(line: &str) -> Option<u64> {
        match line.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16)
                .ok()
                .filter(|b| b.is_power_of_two()),
            None => Self::NAMES
                .iter()
                .find(|(_, name)| *name == line)
                .map(|(bit, _)| *bit),
        }
    }

    /// The set bits this reader has no name for.
    pub fn unknown_bits(&self) -> u64 {
        let known = Self::NAMES.iter().fold(0u64, |acc, (bit, _)| acc | bit);
        self.raw & !known
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_lines_read_back() {
        let f = FeatureFlags {
            raw: FeatureFlags::DOUBLES | FeatureFlags::ROVS | (1 << 40),
        };
        let lines = f.note_lines();
        assert_eq!(
            lines,
            [
                "Double-precision floating point",
                "Raster Ordered UAVs",
                "0x0000010000000000"
            ]
        );
        let raw = lines
            .iter()
            .map(|l| FeatureFlags::bit_of_note(l).unwrap())
            .fold(0, |a, b| a | b);
        assert_eq!(raw, f.raw);
        assert_eq!(FeatureFlags::bit_of_note("Something else"), None);
    }

    #[test]
    fn parses_flags() {
        let f = FeatureFlags::parse(&[0x10, 0x08, 0, 0, 0, 0, 0, 0x80]).unwrap();
        assert!(f.contains(FeatureFlags::MINIMUM_PRECISION));
        assert!(f.contains(FeatureFlags::TYPED_UAV_LOAD_ADDITIONAL_FORMATS));
        assert!(!f.contains(FeatureFlags::DOUBLES));
        assert_eq!(f.descriptions().len(), 2);
        assert_eq!(f.unknown_bits(), 0x8000_0000_0000_0000);
        let e = FeatureFlags::parse(&[1, 2, 3]).unwrap_err();
        assert_eq!(
            e.location,
            crate::error::Location::Chunk {
                fourcc: *b"SFI0",
                byte: 0
            }
        );
    }
}
