//! `[stream output]` sections, this project's extension of the format: the stream-output
//! (transform feedback) layout of the file's geometry shader and the buffers that capture it.
//!
//! ```text
//! [stream output]
//! 0 SV_Position 0 xyzw slot 0     % stream, semantic, index, components, output slot
//! 1 TEXCOORD 1 yz slot 1
//! 1 gap 2 slot 1                  % stream, `gap`, components skipped, output slot
//! stride 1 32                     % slot, bytes (default: the packed size of its entries)
//! buffer 0 96                     % slot, bytes: a zero-filled buffer bound at that slot
//! rasterized stream 0             % or `none` (default 0)
//! ```
//!
//! The layout applies to the geometry shader sections that follow it (`[stream output
//! vs]`/`[stream output ds]` name the vertex or domain shader instead). The components are a
//! contiguous run of the element's components, written as a mask.

use super::Stage;
use dxbc2spirv::error::Error;
use dxbc2spirv::spirv::{StreamOutput, StreamOutputEntry};
use dxbc2spirv::Result;

/// A parsed `[stream output]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamOutputSection {
    /// The stage whose shader sections the layout applies to (geometry by default).
    pub stage: Stage,
    /// The layout given to the translator.
    pub layout: StreamOutput,
    /// The buffers bound for draws, as (slot, size in bytes).
    pub buffers: Vec<(u32, u32)>,
}

/// Parses the section; `qualifier` is what follows `stream output` in the header.
pub(crate) fn parse_section(
    qualifier: &str,
    header_line: u32,
    lines: impl Iterator<Item = (u32, String)>,
) -> Result<StreamOutputSection> {
    let stage = match qualifier {
        "" | "gs" => Stage::Geometry,
        "vs" => Stage::Vertex,
        "ds" => Stage::Domain,
        other => {
            return Err(Error::text(
                header_line,
                1,
                format!("[stream output {other}]: expected vs, ds or gs"),
            ))
        }
    };
    let mut section = StreamOutputSection {
        stage,
        layout: StreamOutput::default(),
        buffers: Vec::new(),
    };
    for (line, text) in lines {
        let words: Vec<&str> = text.split_whitespace().collect();
        let bad = |m: &str| Error::text(line, 1, format!("stream output: {m}: {text}"));
        let number = |w: Option<&&str>, what: &str| -> Result<u32> {
            w.and_then(|w| w.parse::<u32>().ok())
                .ok_or_else(|| bad(&format!("expected {what}")))
        };
        let slot = |w: Option<&&str>| -> Result<u32> {
            number(w, "a slot number").and_then(|s| {
                if s < 4 {
                    Ok(s)
                } else {
                    Err(bad("slots are 0 to 3"))
                }
            })
        };
        match words.as_slice() {
            ["stride", ..] if words.len() == 3 => {
                let s = slot(words.get(1))?;
                section.layout.strides[s as usize] = number(words.get(2), "bytes")?;
            }
            ["buffer", ..] if words.len() == 3 => {
                section
                    .buffers
                    .push((slot(words.get(1))?, number(words.get(2), "bytes")?));
            }
            ["rasterized", "stream", "none"] => section.layout.rasterized_stream = None,
            ["rasterized", "stream", n] => {
                section.layout.rasterized_stream = Some(number(Some(n), "a stream")?)
            }
            [stream, "gap", count, "slot", s] => {
                section.layout.entries.push(StreamOutputEntry {
                    stream: number(Some(stream), "a stream")?,
                    semantic_name: None,
                    semantic_index: 0,
                    start_component: 0,
                    component_count: number(Some(count), "a component count")?
                        .try_into()
                        .map_err(|_| bad("too many components"))?,
                    output_slot: slot(Some(s))?,
                });
            }
            [stream, semantic, index, mask, "slot", s] => {
                let components: Vec<usize> = mask
                    .chars()
                    .map(|c| "xyzw".find(c))
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad("components are a mask such as xyzw or yz"))?;
                let start = components.first().copied().unwrap_or(0);
                let contiguous = components.iter().enumerate().all(|(i, &c)| c == start + i);
                if components.is_empty() || !contiguous {
                    return Err(bad("the components must be a contiguous run such as yz"));
                }
                section.layout.entries.push(StreamOutputEntry {
                    stream: number(Some(stream), "a stream")?,
                    semantic_name: Some(semantic.to_string()),
                    semantic_index: number(Some(index), "a semantic index")?,
                    start_component: start as u8,
                    component_count: components.len() as u8,
                    output_slot: slot(Some(s))?,
                });
            }
            _ => return Err(bad("unknown directive")),
        }
    }
    Ok(section)
}
