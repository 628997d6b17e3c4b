//! The corpus rules: which profile a section compiles with, what its blob is called, what
//! the native compiler is expected to do, and the MANIFEST.tsv reader.

use sha2::{Digest, Sha256};

use super::condition::{EvalContext, MarkKind, ShaderModel};
use super::{Qualifier, RequireItem, RequireLine, Section, ShaderSection, SourceFormat, Stage};
use dxbc2spirv::{Error, Result};

/// The `[require]` state in force for a section: the shader-model range and the
/// `options:` words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequireState {
    /// Lowest allowed shader model (2.0 unless raised by `shader model >=`).
    pub min: ShaderModel,
    /// Exclusive upper bound from `shader model <`, if any.
    pub max: Option<ShaderModel>,
    /// The `options:` words.
    pub options: Vec<String>,
}

impl Default for RequireState {
    fn default() -> Self {
        RequireState {
            min: ShaderModel::new(2, 0),
            max: None,
            options: Vec::new(),
        }
    }
}

impl RequireState {
    /// The state after a `[require]` block (which resets everything first).
    pub fn from_require(lines: &[RequireLine]) -> RequireState {
        let mut state = RequireState::default();
        for line in lines {
            match &line.item {
                RequireItem::MinShaderModel(m) => state.min = *m,
                RequireItem::MaxShaderModel(m) => state.max = Some(*m),
                RequireItem::Options(words) => state.options.extend(words.iter().cloned()),
                _ => {}
            }
        }
        state
    }
}

/// What the native compiler (d3dcompiler/fxc) is expected to do with a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedFxc {
    /// Compiles.
    Ok,
    /// Fails to compile (`fail`).
    Fail,
    /// Not implemented (`notimpl`).
    NotImpl,
}

impl ExpectedFxc {
    /// The manifest spelling: `ok`, `fail` or `notimpl`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExpectedFxc::Ok => "ok",
            ExpectedFxc::Fail => "fail",
            ExpectedFxc::NotImpl => "notimpl",
        }
    }
}

/// The shader model a section is compiled with (SM4/5 only), as a profile name such as
/// `ps_4_0`; `None` when the corpus skips the section (effects, `d3dbc-hex`,
/// `dxbc-dxil-hex`, SM1-3-only or SM6-only sections).
pub fn profile(section: &ShaderSection, state: &RequireState) -> Option<String> {
    let model = section_model(section, state)?;
    Some(format!(
        "{}_{}",
        section.stage.profile_prefix(),
        model.profile_suffix()
    ))
}

/// The shader model behind [`profile`].
pub fn section_model(section: &ShaderSection, state: &RequireState) -> Option<ShaderModel> {
    if section.stage == Stage::Effect {
        return None;
    }
    if matches!(
        section.format(),
        SourceFormat::D3dbcHex | SourceFormat::DxbcDxilHex
    ) {
        return None;
    }
    let floor = match section.stage {
        Stage::Hull | Stage::Domain => ShaderModel::new(5, 0),
        _ => ShaderModel::new(4, 0),
    };
    let model = state.min.max(floor);
    if state.max.is_some_and(|max| model >= max) || model >= ShaderModel::new(6, 0) {
        return None;
    }
    Some(model)
}

/// Lowercase hex sha256 of a section's raw body (the corpus hash rule).
pub fn body_hash(section: &Section) -> String {
    let digest = Sha256::digest(section.raw_body.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The blob file name inside `shader_test_dxbc/`: `<sha256>.<profile>[.<opts>].dxbc`, where
/// `<opts>` are the `row-major`, `column-major` and `backcompat` words of `options`,
/// sorted and joined with `+`.
pub fn blob_name(section: &Section, profile: &str, options: &[String]) -> String {
    let mut opts: Vec<&str> = options
        .iter()
        .map(String::as_str)
        .filter(|o| matches!(*o, "row-major" | "column-major" | "backcompat"))
        .collect();
    opts.sort_unstable();
    opts.dedup();
    let hash = body_hash(section);
    if opts.is_empty() {
        format!("{hash}.{profile}.dxbc")
    } else {
        format!("{hash}.{profile}.{}.dxbc", opts.join("+"))
    }
}

fn any_mark(qualifiers: &[Qualifier], kind: MarkKind, model: ShaderModel) -> bool {
    let ctx = EvalContext::model(model);
    qualifiers.iter().any(|q| match q {
        Qualifier::Mark(m) => m.kind == kind && m.applies(&ctx),
        _ => false,
    })
}

/// What the native compiler is expected to do at `model`, from the `fail(...)` and
/// `notimpl(...)` qualifiers (`notimpl` wins over `fail`). Tags in conditions are false.
pub fn expected_fxc(qualifiers: &[Qualifier], model: ShaderModel) -> ExpectedFxc {
    if any_mark(qualifiers, MarkKind::NotImpl, model) {
        ExpectedFxc::NotImpl
    } else if any_mark(qualifiers, MarkKind::Fail, model) {
        ExpectedFxc::Fail
    } else {
        ExpectedFxc::Ok
    }
}

/// True when the section is marked `todo` at `model` (tags in conditions are false).
pub fn is_todo(qualifiers: &[Qualifier], model: ShaderModel) -> bool {
    any_mark(qualifiers, MarkKind::Todo, model)
}

/// Decodes a hex shader body as shader_runner does: groups of 8 hex digits are 32-bit
/// words stored little-endian; whitespace separates groups and `%` starts a comment
/// running to the end of the line.
pub fn decode_hex(source: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let line_no = u32::try_from(index.saturating_add(1)).unwrap_or(u32::MAX);
        let code = line.split('%').next().unwrap_or("");
        let mut column = 1u32;
        for word in code.split_whitespace() {
            if word.len() % 8 != 0 || !word.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::text(
                    line_no,
                    column,
                    format!("malformed hex word '{word}'"),
                ));
            }
            for chunk in word.as_bytes().chunks(8) {
                let text = std::str::from_utf8(chunk).unwrap_or("");
                let value = u32::from_str_radix(text, 16).map_err(|_| {
                    Error::text(line_no, column, format!("malformed hex word '{word}'"))
                })?;
                out.extend_from_slice(&value.to_le_bytes());
            }
            column = column.saturating_add(u32::try_from(word.len()).unwrap_or(0));
        }
    }
    Ok(out)
}

/// One row of `shader_test_dxbc/MANIFEST.tsv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestRow {
    /// File name inside `shader_test/`, or `shader_runner.c`.
    pub test_file: String,
    /// The section header verbatim.
    pub section_header: String,
    /// 1-based header line (0 for the default vertex shader).
    pub line: u32,
    /// Profile, e.g. `ps_4_0`.
    pub profile: String,
    /// Blob file name, or `COMPILE_FAILED <message>`.
    pub blob: String,
    /// `ok`, `fail` or `notimpl`.
    pub expected_fxc: String,
    /// `todo` or `-`.
    pub todo: String,
    /// `vkd3d-hlsl` or `hex`.
    pub source: String,
    /// The `options:` words in force, or `-`.
    pub require_options: String,
}

impl ManifestRow {
    /// The blob file name, or `None` when compiling failed.
    pub fn blob_file(&self) -> Option<&str> {
        (!self.blob.starts_with("COMPILE_FAILED")).then_some(self.blob.as_str())
    }
}

/// Undoes CSV-style quoting of a field (a quoted field with doubled inner quotes).
fn unquote(field: &str) -> String {
    match field.strip_prefix('"').and_then(|f| f.strip_suffix('"')) {
        Some(inner) => inner.replace("\"\"", "\""),
        None => field.to_string(),
    }
}

/// Reads MANIFEST.tsv text (with its header row); quoted fields are unquoted.
pub fn read_manifest(text: &str) -> Result<Vec<ManifestRow>> {
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = u32::try_from(index.saturating_add(1)).unwrap_or(u32::MAX);
        if index == 0 || line.is_empty() {
            continue;
        }
        let fields: Vec<String> = line.split('\t').map(unquote).collect();
        let [test_file, section_header, header_line, profile, blob, expected_fxc, todo, source, require_options] =
            fields.as_slice()
        else {
            return Err(Error::text(
                line_no,
                1,
                format!("expected 9 tab-separated fields, found {}", fields.len()),
            ));
        };
        let header_line = header_line
            .parse::<u32>()
            .map_err(|_| Error::text(line_no, 1, format!("bad line number '{header_line}'")))?;
        rows.push(ManifestRow {
            test_file: test_file.clone(),
            section_header: section_header.clone(),
            line: header_line,
            profile: profile.clone(),
            blob: blob.clone(),
            expected_fxc: expected_fxc.clone(),
            todo: todo.clone(),
            source: source.clone(),
            require_options: require_options.clone(),
        });
    }
    Ok(rows)
}

/// The vertex shader shader_runner uses for `draw quad` when the file has none
/// (no trailing newline). Its blobs are `<sha256 of this>.vs_4_0.dxbc` / `.vs_5_0.dxbc`.
pub const DEFAULT_VERTEX_SHADER: &str =
    "float4 main(float4 pos : position) : sv_position\n{\n    return pos;\n}";

/// The blob file name of [`DEFAULT_VERTEX_SHADER`] for `profile` (`vs_4_0` or `vs_5_0`).
pub fn default_vertex_shader_blob(profile: &str) -> String {
    let digest = Sha256::digest(DEFAULT_VERTEX_SHADER.as_bytes());
    let hash: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hash}.{profile}.dxbc")
}
