//! Reader for vkd3d's `.shader_test` format (tests/hlsl/*.shader_test, as run by vkd3d's
//! shader_runner) into a data model, plus the corpus blob lookup rules (see
//! /work/shared/corpus/README.md): [`profile`], [`blob_name`], [`expected_fxc`],
//! [`is_todo`] and the MANIFEST.tsv reader [`read_manifest`].

#![deny(missing_docs)]

mod command;
mod condition;
mod lookup;
mod resource;
pub mod runner;
mod scan;
pub mod stream_output;
#[cfg(test)]
mod tests;

pub use command::{
    Command, Probe, ProbeArea, ProbeValues, ResourceRef, StencilOpName, StencilState, TestLine,
    Topology, UniformValues,
};
pub use condition::{
    Atom, CompareOp, Condition, EvalContext, Literal, Mark, MarkKind, ShaderModel,
};
pub use lookup::{
    blob_name, body_hash, decode_hex, default_vertex_shader_blob, expected_fxc, is_todo, profile,
    read_manifest, section_model, ExpectedFxc, ManifestRow, RequireState, DEFAULT_VERTEX_SHADER,
};
pub use resource::{
    format_info, Comparison, ComponentKind, DataValue, FormatInfo, InputElement, Resource,
    ResourceKind, ResourceSize, Sampler,
};

use dxbc2spirv::{Error, Result};

/// A whole `.shader_test` file.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderTestFile {
    /// The sections in file order.
    pub sections: Vec<Section>,
}

/// One line kept verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLine {
    /// 1-based line number.
    pub line: u32,
    /// The text without its newline.
    pub text: String,
}

/// One section: a `[...]` header line and the lines up to the next line starting with `[`.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// 1-based line number of the header.
    pub line: u32,
    /// The header line verbatim, without its newline.
    pub header: String,
    /// The body's exact bytes (every line with its `\n`), the input of the blob hash rule.
    pub raw_body: String,
    /// What the section holds.
    pub kind: SectionKind,
}

/// The parsed content of a section.
#[derive(Debug, Clone, PartialEq)]
pub enum SectionKind {
    /// `[require]`.
    Require(Vec<RequireLine>),
    /// A shader or effect section.
    Shader(ShaderSection),
    /// `[srv N]`, `[uav N]`, `[rtv N]`, `[dsv]`, `[vb N]`.
    Resource(Resource),
    /// `[sampler N]`.
    Sampler(Sampler),
    /// `[input layout]`.
    InputLayout(Vec<InputElement>),
    /// `[test]`.
    Test(Vec<TestLine>),
    /// `[stream output]`, this project's extension (see [`stream_output`]).
    StreamOutput(stream_output::StreamOutputSection),
    /// `[interface vs|hs|ds|gs|ps]`, this project's extension: the stage-interface map of the
    /// shader sections of that stage that follow ([`dxbc2spirv::interface::InterfaceMap`] JSON,
    /// after an optional `link` line that takes the inputs from the previous stage).
    Interface(InterfaceSection),
    /// `[bindings]`, this project's extension: the binding map (the `--bindings` JSON) of the
    /// shader sections that follow, for example to place constant buffers in push constants.
    Bindings(dxbc2spirv::bindings::BindingMap),
    /// A section this reader does not know; its body stays in `raw_body`.
    Unknown,
}

/// An `[interface STAGE]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceSection {
    /// The stage whose shader sections it applies to.
    pub stage: Stage,
    /// `link`: the inputs (and a domain shader's patch constants) go where the previous
    /// stage of the draw put its outputs ([`dxbc2spirv::interface::InterfaceMap::inputs_from`]).
    pub link: bool,
    /// The map's own lists (the JSON after `link`, or the whole body).
    pub map: dxbc2spirv::interface::InterfaceMap,
}

/// One `[require]` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequireLine {
    /// 1-based line number.
    pub line: u32,
    /// What it requires.
    pub item: RequireItem,
}

/// A requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequireItem {
    /// `shader model >= X`.
    MinShaderModel(ShaderModel),
    /// `shader model < X`.
    MaxShaderModel(ShaderModel),
    /// `options: word…` (compile options such as `row-major`, `backcompat`).
    Options(Vec<String>),
    /// `format <name> <caps…>`, e.g. `format r32-float uav-load`.
    Format {
        /// Format name.
        name: String,
        /// Required capabilities.
        caps: Vec<String>,
    },
    /// A one-word feature such as `float64`, `int64`, `rov`, `wave-ops`, `depth-bounds`.
    Feature(String),
    /// Any other line, verbatim (trimmed).
    Raw(String),
}

/// The stage of a shader section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// `[pixel shader]`
    Pixel,
    /// `[vertex shader]`
    Vertex,
    /// `[compute shader]`
    Compute,
    /// `[geometry shader]`
    Geometry,
    /// `[hull shader]`
    Hull,
    /// `[domain shader]`
    Domain,
    /// `[effect]`
    Effect,
}

impl Stage {
    /// The profile prefix (`ps`, `vs`, …; `fx` for effects).
    pub fn profile_prefix(self) -> &'static str {
        match self {
            Stage::Pixel => "ps",
            Stage::Vertex => "vs",
            Stage::Compute => "cs",
            Stage::Geometry => "gs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Effect => "fx",
        }
    }
}

/// How a shader section's body is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceFormat {
    /// HLSL source (the default).
    #[default]
    Hlsl,
    /// `asm`: this project's own assembly text.
    Asm,
    /// `dxbc-tpf-hex`: a DXBC blob as hex words.
    DxbcTpfHex,
    /// `d3dbc-hex`: an SM1-3 blob as hex words.
    D3dbcHex,
    /// `dxbc-dxil-hex`: a DXIL container as hex words.
    DxbcDxilHex,
}

/// One word of a shader header after the stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Qualifier {
    /// `todo`, `fail`, `notimpl`, `bug`, with an optional condition.
    Mark(Mark),
    /// A source format word.
    Format(SourceFormat),
    /// An unknown word, verbatim.
    Other(String),
}

/// A shader or effect section.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderSection {
    /// The stage.
    pub stage: Stage,
    /// The qualifiers after the stage in the header.
    pub qualifiers: Vec<Qualifier>,
    /// The source as shader_runner passes it on: the body without lines starting with `%`
    /// and without empty lines.
    pub source: String,
}

impl ShaderSection {
    /// The source format named by the qualifiers (HLSL when none is).
    pub fn format(&self) -> SourceFormat {
        self.qualifiers
            .iter()
            .find_map(|q| match q {
                Qualifier::Format(f) => Some(*f),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The conditional marks among the qualifiers.
    pub fn marks(&self) -> impl Iterator<Item = &Mark> {
        self.qualifiers.iter().filter_map(|q| match q {
            Qualifier::Mark(m) => Some(m),
            _ => None,
        })
    }
}

impl ShaderTestFile {
    /// Every section with the `[require]` state in force for it (a `[require]` section is
    /// paired with the state it sets up).
    pub fn sections_with_require(&self) -> Vec<(&Section, RequireState)> {
        let mut state = RequireState::default();
        self.sections
            .iter()
            .map(|section| {
                if let SectionKind::Require(lines) = &section.kind {
                    state = RequireState::from_require(lines);
                }
                (section, state.clone())
            })
            .collect()
    }

    /// Parses a file's bytes (which must be UTF-8).
    pub fn parse_bytes(bytes: &[u8]) -> Result<ShaderTestFile> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let prefix = bytes.get(..e.valid_up_to()).unwrap_or(&[]);
            let line = prefix
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                .saturating_add(1);
            Error::text(
                u32::try_from(line).unwrap_or(u32::MAX),
                1,
                "the file is not valid UTF-8",
            )
        })?;
        Self::parse(text)
    }

    /// Parses a file's text.
    pub fn parse(text: &str) -> Result<ShaderTestFile> {
        // Split into lines keeping byte offsets, so that raw bodies are exact slices.
        let mut lines: Vec<(usize, &str)> = Vec::new();
        let mut offset = 0usize;
        for piece in text.split_inclusive('\n') {
            lines.push((offset, piece));
            offset += piece.len();
        }
        let mut sections = Vec::new();
        let mut index = 0usize;
        // Lines before the first header must be blank or comments.
        while let Some((_, piece)) = lines.get(index) {
            if piece.starts_with('[') {
                break;
            }
            let trimmed = piece.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('%') {
                return Err(Error::text(
                    line_no(index),
                    1,
                    "text before the first section header",
                ));
            }
            index += 1;
        }
        while let Some(&(_, header_piece)) = lines.get(index) {
            let header_line = line_no(index);
            let mut end = index + 1;
            while lines.get(end).is_some_and(|(_, p)| !p.starts_with('[')) {
                end += 1;
            }
            let body_start = lines.get(index + 1).map_or(text.len(), |(o, _)| *o);
            let body_end = lines.get(end).map_or(text.len(), |(o, _)| *o);
            let raw_body = text.get(body_start..body_end).unwrap_or("").to_string();
            let header = header_piece.trim_end_matches(['\n', '\r']).to_string();
            let body: Vec<(u32, &str)> = lines
                .get(index + 1..end)
                .unwrap_or(&[])
                .iter()
                .enumerate()
                .map(|(i, (_, p))| (line_no(index + 1 + i), p.trim_end_matches(['\n', '\r'])))
                .collect();
            let kind = parse_section(&header, header_line, &body)?;
            sections.push(Section {
                line: header_line,
                header,
                raw_body,
                kind,
            });
            index = end;
        }
        Ok(ShaderTestFile { sections })
    }
}

fn line_no(index: usize) -> u32 {
    u32::try_from(index.saturating_add(1)).unwrap_or(u32::MAX)
}

/// Directive lines of a non-shader section: no blanks, no `%` comments.
fn directive_lines<'a>(body: &'a [(u32, &'a str)]) -> impl Iterator<Item = (u32, &'a str)> + 'a {
    body.iter().filter_map(|&(line, text)| {
        let trimmed = text.trim();
        (!trimmed.is_empty() && !trimmed.starts_with('%')).then_some((line, trimmed))
    })
}

fn parse_section(header: &str, line: u32, body: &[(u32, &str)]) -> Result<SectionKind> {
    let inner = header
        .strip_prefix('[')
        .and_then(|h| h.trim_end().strip_suffix(']'))
        .ok_or_else(|| Error::text(line, 1, "a section header must be '[...]'"))?
        .trim();
    let mut words = inner.splitn(2, char::is_whitespace);
    let first = words.next().unwrap_or("");
    let rest = words.next().unwrap_or("").trim();
    let slot = |rest: &str| -> Result<u32> {
        rest.parse::<u32>()
            .map_err(|_| Error::text(line, 2, format!("'{inner}' needs a slot number")))
    };
    if first == "space" {
        // This project's extension for SM5.1 register spaces: `[space S srv N]`.
        let mut w = rest.splitn(2, char::is_whitespace);
        let space = slot(w.next().unwrap_or(""))?;
        let section = format!("[{}]", w.next().unwrap_or("").trim());
        return match parse_section(&section, line, body)? {
            SectionKind::Resource(mut r)
                if matches!(r.kind, ResourceKind::Srv | ResourceKind::Uav) =>
            {
                r.space = space;
                Ok(SectionKind::Resource(r))
            }
            SectionKind::Sampler(mut sampler) => {
                sampler.space = space;
                Ok(SectionKind::Sampler(sampler))
            }
            _ => Err(Error::text(
                line,
                2,
                "a register space applies to srv, uav and sampler sections",
            )),
        };
    }
    let stage = match first {
        "pixel" | "vertex" | "compute" | "geometry" | "hull" | "domain" => {
            let mut w = rest.splitn(2, char::is_whitespace);
            if w.next() != Some("shader") {
                return Ok(SectionKind::Unknown);
            }
            let quals = w.next().unwrap_or("");
            let stage = match first {
                "pixel" => Stage::Pixel,
                "vertex" => Stage::Vertex,
                "compute" => Stage::Compute,
                "geometry" => Stage::Geometry,
                "hull" => Stage::Hull,
                _ => Stage::Domain,
            };
            Some((stage, quals))
        }
        "effect" => Some((Stage::Effect, rest)),
        _ => None,
    };
    if let Some((stage, quals)) = stage {
        let qualifiers = parse_qualifiers(quals, line)?;
        let mut source = String::new();
        for &(_, text) in body {
            if text.starts_with('%') || text.is_empty() {
                continue;
            }
            source.push_str(text);
            source.push('\n');
        }
        return Ok(SectionKind::Shader(ShaderSection {
            stage,
            qualifiers,
            source,
        }));
    }
    if first == "interface" || (first == "bindings" && rest.is_empty()) {
        let mut text = String::new();
        let mut link = false;
        for (_, t) in directive_lines(body) {
            if text.is_empty() && t == "link" && first == "interface" {
                link = true;
                continue;
            }
            text.push_str(t);
            text.push('\n');
        }
        if first == "bindings" {
            let map = dxbc2spirv::bindings::BindingMap::from_json(&text)
                .map_err(|e| Error::text(line, 1, format!("[bindings]: {e}")))?;
            return Ok(SectionKind::Bindings(map));
        }
        let stage = match rest {
            "vs" => Stage::Vertex,
            "hs" => Stage::Hull,
            "ds" => Stage::Domain,
            "gs" => Stage::Geometry,
            "ps" => Stage::Pixel,
            other => {
                return Err(Error::text(
                    line,
                    1,
                    format!("[interface {other}]: expected vs, hs, ds, gs or ps"),
                ))
            }
        };
        let map = if text.trim().is_empty() {
            dxbc2spirv::interface::InterfaceMap::default()
        } else {
            dxbc2spirv::interface::InterfaceMap::from_json(&text)
                .map_err(|e| Error::text(line, 1, format!("[interface {rest}]: {e}")))?
        };
        return Ok(SectionKind::Interface(InterfaceSection {
            stage,
            link,
            map,
        }));
    }
    if first == "stream" && (rest == "output" || rest.starts_with("output ")) {
        let qualifier = rest.trim_start_matches("output").trim();
        let lines = directive_lines(body).filter_map(|(line, text)| {
            let code = text.split('%').next().unwrap_or("").trim();
            (!code.is_empty()).then(|| (line, code.to_string()))
        });
        return Ok(SectionKind::StreamOutput(stream_output::parse_section(
            qualifier, line, lines,
        )?));
    }
    match first {
        "require" if rest.is_empty() => Ok(SectionKind::Require(
            directive_lines(body)
                .map(|(line, text)| RequireLine {
                    line,
                    item: parse_require(text),
                })
                .collect(),
        )),
        "test" if rest.is_empty() => {
            let mut out = Vec::new();
            for (l, text) in directive_lines(body) {
                out.push(command::parse_test_line(text, l)?);
            }
            Ok(SectionKind::Test(out))
        }
        "input" if rest == "layout" => {
            let mut out = Vec::new();
            for (l, text) in directive_lines(body) {
                out.push(resource::parse_input_element(text, l)?);
            }
            Ok(SectionKind::InputLayout(out))
        }
        "sampler" => {
            let mut sampler = Sampler {
                slot: slot(rest)?,
                space: 0,
                filter: None,
                address: None,
                comparison: None,
                other: Vec::new(),
            };
            for (l, text) in directive_lines(body) {
                resource::parse_sampler_line(&mut sampler, text, l)?;
            }
            Ok(SectionKind::Sampler(sampler))
        }
        "srv" | "uav" | "rtv" | "dsv" | "vb" => {
            let kind = match first {
                "srv" => ResourceKind::Srv,
                "uav" => ResourceKind::Uav,
                "rtv" => ResourceKind::Rtv,
                "dsv" => ResourceKind::Dsv,
                _ => ResourceKind::Vb,
            };
            let slot = if kind == ResourceKind::Dsv && rest.is_empty() {
                0
            } else {
                slot(rest)?
            };
            let mut res = Resource {
                kind,
                slot,
                space: 0,
                format: None,
                stride: None,
                size: None,
                levels: None,
                data: Vec::new(),
            };
            for (l, text) in directive_lines(body) {
                resource::parse_resource_line(&mut res, text, l)?;
            }
            Ok(SectionKind::Resource(res))
        }
        _ => Ok(SectionKind::Unknown),
    }
}

fn parse_qualifiers(text: &str, line: u32) -> Result<Vec<Qualifier>> {
    let mut s = scan::Scanner::new(text, line);
    let mut out = Vec::new();
    loop {
        if let Some(mark) = condition::read_mark(&mut s)? {
            out.push(Qualifier::Mark(mark));
            continue;
        }
        let Some(word) = s.word() else { break };
        out.push(match word {
            "asm" => Qualifier::Format(SourceFormat::Asm),
            "dxbc-tpf-hex" => Qualifier::Format(SourceFormat::DxbcTpfHex),
            "d3dbc-hex" => Qualifier::Format(SourceFormat::D3dbcHex),
            "dxbc-dxil-hex" => Qualifier::Format(SourceFormat::DxbcDxilHex),
            other => Qualifier::Other(other.to_string()),
        });
    }
    Ok(out)
}

fn parse_require(text: &str) -> RequireItem {
    if let Some(rest) = text.strip_prefix("shader model") {
        let rest = rest.trim();
        if let Some(model) = rest
            .strip_prefix(">=")
            .and_then(|m| ShaderModel::parse(m.trim()))
        {
            return RequireItem::MinShaderModel(model);
        }
        if let Some(model) = rest
            .strip_prefix('<')
            .and_then(|m| ShaderModel::parse(m.trim()))
        {
            return RequireItem::MaxShaderModel(model);
        }
        return RequireItem::Raw(text.to_string());
    }
    if let Some(rest) = text.strip_prefix("options:") {
        return RequireItem::Options(rest.split_whitespace().map(str::to_string).collect());
    }
    let mut words = text.split_whitespace();
    match (words.next(), words.next()) {
        (Some("format"), Some(name)) => RequireItem::Format {
            name: name.to_string(),
            caps: words.map(str::to_string).collect(),
        },
        (Some(word), None)
            if word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
        {
            RequireItem::Feature(word.to_string())
        }
        _ => RequireItem::Raw(text.to_string()),
    }
}
