//! `cargo xtask conformance`: runs the compute part of vkd3d's `.shader_test` files (the
//! shared corpus and this project's `shaders/`) through the translator on a Vulkan device
//! and checks every `probe uav` of a `[test]` block.
//!
//! Per file, the sections are walked in order keeping the current resources, the constant
//! buffer written by `uniform` commands and the current compute shader. A `dispatch` runs
//! the shader with every current resource bound at the translator's default bindings and
//! keeps the written contents; a `probe uav` compares them with the expected values.
//! Draws and render-target probes are not run yet and count as skips.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use dxbc2spirv::shader_test::{
    self as st, Command, EvalContext, ExpectedFxc, ProbeArea, ProbeValues, RequireItem,
    ResourceKind, ResourceSize, SectionKind, ShaderModel, ShaderTestFile, SourceFormat, Stage,
};
use dxbc2spirv::vulkan::{self, Binding, Format};
use dxbc2spirv::ErrorKind;

use crate::paths;

/// Binding of constant buffer 0.
const CB0_BINDING: u32 = 0;
/// First SRV binding.
const SRV_BINDING: u32 = 32;
/// First UAV binding.
const UAV_BINDING: u32 = 160;
/// Distance from a UAV binding to its counter's binding.
const COUNTER_OFFSET: u32 = 64;
/// Smallest constant buffer bound (bytes), so shaders reading past the uniforms see zeros.
const CB0_MIN_BYTES: usize = 4096;
/// Skip reason for sections whose `[require]` range excludes SM4.0-5.1.
const NOT_SM45: &str = "not applicable: the [require] shader-model range excludes SM4.0-5.1";
/// Skip reason for graphics work.
const GRAPHICS_SKIP: &str = "graphics (draw) is not run yet";

/// Options of the conformance run.
pub struct Options {
    /// Only files whose path contains this substring.
    pub filter: Option<String>,
    /// Write one JSON record per probe to this file.
    pub json: Option<PathBuf>,
    /// A directory of `.shader_test` files to run instead of the defaults.
    pub dir: Option<PathBuf>,
    /// The blob directory for `dir`.
    pub blobs: Option<PathBuf>,
}

/// The outcome of one probe.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// The values matched.
    Pass,
    /// The values did not match, or the shader could not be run.
    Fail { expected: String, actual: String },
    /// A `todo` probe that failed.
    TodoFail { expected: String, actual: String },
    /// Not run.
    Skip(String),
}

/// One probe's record.
struct Record {
    file: String,
    line: u32,
    text: String,
    outcome: Outcome,
    /// The compute shader section behind it is expected to compile with fxc.
    fxc_ok: bool,
}

/// Per-file counts.
#[derive(Default, Clone, Copy)]
struct Counts {
    passed: usize,
    failed: usize,
    todo_failed: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail { .. } => self.failed += 1,
            Outcome::TodoFail { .. } => self.todo_failed += 1,
            Outcome::Skip(_) => self.skipped += 1,
        }
    }
}

/// The state of the current compute shader.
#[derive(Clone)]
enum ShaderState {
    /// Translated.
    Ready(Vec<u32>),
    /// Probes after a dispatch are skipped for this reason.
    Skip(String),
    /// Probes after a dispatch fail with this message.
    Fail(String),
}

/// The current compute shader.
#[derive(Clone)]
struct CurrentShader {
    state: ShaderState,
    fxc_ok: bool,
}

/// What a UAV holds: real contents or the reason they are not known.
#[derive(Clone)]
enum Contents {
    /// Contents (as uploaded or as written by the last dispatch).
    Known,
    /// A dispatch or draw could not be run: probes are skipped.
    Skip(String),
    /// A dispatch failed: probes fail.
    Fail(String),
}

/// One resource of the file.
struct LiveResource {
    decl: st::Resource,
    /// The Vulkan resource (`Err` holds why the runner cannot create it).
    resource: std::result::Result<vulkan::Resource, String>,
    contents: Contents,
    /// Whether the last dispatch's shader was fxc-compilable.
    fxc_ok: bool,
}

/// The corpus locations and the blob lookup table.
struct Sources {
    /// (directory, blob directory, use the manifest).
    dirs: Vec<(PathBuf, PathBuf)>,
    /// Manifest rows by (file name, header line).
    manifest: HashMap<(String, u32), st::ManifestRow>,
}

/// Runs the conformance suite.
pub fn run(options: &Options) -> Result<()> {
    let start = Instant::now();
    let sources = sources(options)?;
    let ctx = vulkan::Context::new().context("Vulkan is not available")?;
    let features = ctx.features().clone();
    println!(
        "device: {} (Vulkan {})",
        features.device_name,
        features.api_version_string()
    );
    let mut files = Vec::new();
    for (dir, blobs) in &sources.dirs {
        let mut found = Vec::new();
        collect(dir, &mut found)?;
        found.sort();
        for path in found {
            let shown = path.display().to_string();
            if options
                .filter
                .as_ref()
                .is_some_and(|f| !shown.contains(f.as_str()))
            {
                continue;
            }
            files.push((path, blobs.clone()));
        }
    }
    let mut records = Vec::new();
    let mut total = Counts::default();
    for (path, blobs) in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let shown = shown_path(path);
        let file_records = match run_file(&ctx, &features, path, &name, &shown, blobs, &sources) {
            Ok(r) => r,
            Err(e) => vec![Record {
                file: shown.clone(),
                line: 0,
                text: String::new(),
                outcome: Outcome::Fail {
                    expected: "the file runs".into(),
                    actual: format!("{e:#}"),
                },
                fxc_ok: true,
            }],
        };
        let mut counts = Counts::default();
        for r in &file_records {
            counts.add(&r.outcome);
        }
        let todo = if counts.todo_failed > 0 {
            format!(", {} todo-failed", counts.todo_failed)
        } else {
            String::new()
        };
        println!(
            "{shown}: {} passed, {} failed, {} skipped{todo}",
            counts.passed, counts.failed, counts.skipped
        );
        for r in &file_records {
            if let Outcome::Fail { expected, actual } = &r.outcome {
                println!("  FAIL {}:{}: {}", r.file, r.line, r.text.trim());
                println!("       expected {expected}");
                println!("       actual   {actual}");
            }
        }
        total.passed += counts.passed;
        total.failed += counts.failed;
        total.todo_failed += counts.todo_failed;
        total.skipped += counts.skipped;
        records.extend(file_records);
    }
    for message in ctx.take_validation_messages() {
        println!("validation: {message}");
    }
    print_summary(&records);
    if let Some(json) = &options.json {
        write_json(json, &records)?;
    }
    println!(
        "time: {:.1} s for {} files",
        start.elapsed().as_secs_f64(),
        files.len()
    );
    let todo = if total.todo_failed > 0 {
        format!(" ({} todo-failed)", total.todo_failed)
    } else {
        String::new()
    };
    println!(
        "{} passed, {} failed, {} skipped{todo}",
        total.passed, total.failed, total.skipped
    );
    if total.failed > 0 {
        bail!("{} probes failed", total.failed);
    }
    Ok(())
}

/// A path relative to the workspace root's parent when possible.
fn shown_path(path: &Path) -> String {
    let root = paths::workspace_root();
    if let Ok(rel) = path.strip_prefix(&root) {
        return rel.display().to_string();
    }
    let parent = root.parent().map(Path::to_path_buf).unwrap_or_default();
    match path.strip_prefix(&parent) {
        Ok(rel) => format!("../{}", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

/// The directories to run and the manifest.
fn sources(options: &Options) -> Result<Sources> {
    let mut manifest = HashMap::new();
    let mut dirs = Vec::new();
    match (&options.dir, &options.blobs) {
        (Some(dir), blobs) => {
            let blobs = blobs.clone().unwrap_or_else(|| dir.clone());
            load_manifest(&blobs, &mut manifest)?;
            dirs.push((dir.clone(), blobs));
        }
        (None, Some(_)) => bail!("--blobs needs --dir"),
        (None, None) => {
            let corpus = paths::corpus_root()?;
            let blobs = corpus.join("shader_test_dxbc");
            load_manifest(&blobs, &mut manifest)?;
            dirs.push((corpus.join("shader_test"), blobs.clone()));
            dirs.push((paths::workspace_root().join("shaders"), blobs));
        }
    }
    Ok(Sources { dirs, manifest })
}

/// Reads `MANIFEST.tsv` of a blob directory when there is one.
fn load_manifest(blobs: &Path, out: &mut HashMap<(String, u32), st::ManifestRow>) -> Result<()> {
    let path = blobs.join("MANIFEST.tsv");
    if !path.is_file() {
        return Ok(());
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let rows = st::read_manifest(&text).with_context(|| format!("reading {}", path.display()))?;
    for row in rows {
        out.insert((row.test_file.clone(), row.line), row);
    }
    Ok(())
}

/// Every `.shader_test` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "shader_test") {
            out.push(path);
        }
    }
    Ok(())
}

/// Why the `[require]` lines cannot be met here, one entry per unmet line.
fn missing_features(lines: &[st::RequireLine], features: &vulkan::Features) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines {
        match &line.item {
            RequireItem::Feature(name) => {
                let have = match name.as_str() {
                    "float64" => Some(features.shader_float64),
                    "geometry-shader" => Some(features.geometry_shader),
                    "tessellation-shader" => Some(features.tessellation_shader),
                    "rov" => Some(features.fragment_shader_interlock),
                    _ => None,
                };
                match have {
                    Some(true) => {}
                    Some(false) => out.push(format!("device lacks a required feature: {name}")),
                    None => out.push(format!(
                        "device lacks a required feature: {name} (not queried by this runner)"
                    )),
                }
            }
            RequireItem::Format { name, caps } if vk_format(name).is_none() => {
                out.push(format!(
                    "device lacks a required feature: format {name} {} (not mapped by this runner)",
                    caps.join(" ")
                ));
            }
            RequireItem::Raw(text) => out.push(format!(
                "device lacks a required feature: {text} (not understood by this runner)"
            )),
            _ => {}
        }
    }
    out
}

/// The Vulkan format of a shader_test format name.
fn vk_format(name: &str) -> Option<Format> {
    Some(match name {
        "r32-uint" | "r32-typeless" => Format::R32Uint,
        "r32-sint" => Format::R32Sint,
        "r32-float" => Format::R32Float,
        "r32g32-uint" => Format::R32G32Uint,
        "r32g32-float" => Format::R32G32Float,
        "r32g32b32a32-uint" => Format::R32G32B32A32Uint,
        "r32g32b32a32-sint" => Format::R32G32B32A32Sint,
        "r32g32b32a32-float" => Format::R32G32B32A32Float,
        "r8g8b8a8-unorm" => Format::R8G8B8A8Unorm,
        "r8g8b8a8-uint" => Format::R8G8B8A8Uint,
        "r16g16b16a16-float" => Format::R16G16B16A16Float,
        _ => return None,
    })
}

/// The declared data as bytes, resized to `len` (`None` to keep the data's length).
fn data_bytes(decl: &st::Resource, len: Option<usize>) -> Vec<u8> {
    let mut bytes = vulkan::words_to_bytes(&decl.words());
    if let Some(len) = len {
        bytes.resize(len, 0);
    }
    bytes
}

/// The Vulkan resource for a `[srv]` / `[uav]` section.
fn make_resource(decl: &st::Resource) -> std::result::Result<vulkan::Resource, String> {
    let uav = decl.kind == ResourceKind::Uav;
    let raw = decl.format.as_deref() == Some("r32-typeless");
    let count = |n: u32, size: usize| usize::try_from(n).unwrap_or(0).saturating_mul(size);
    match decl.size {
        Some(ResourceSize::RawBuffer(n)) => Ok(vulkan::Resource::StorageBuffer(data_bytes(
            decl,
            Some(count(n, 4)),
        ))),
        Some(ResourceSize::CounterBuffer(n)) => Ok(vulkan::Resource::StorageBuffer(data_bytes(
            decl,
            Some(count(n, 4)),
        ))),
        Some(ResourceSize::Buffer(n)) if decl.stride.is_some() || raw => {
            let stride = decl.stride.map_or(4, |s| usize::try_from(s).unwrap_or(0));
            Ok(vulkan::Resource::StorageBuffer(data_bytes(
                decl,
                Some(count(n, stride)),
            )))
        }
        Some(ResourceSize::Buffer(n)) => {
            let name = decl.format.as_deref().unwrap_or("r32g32b32a32-float");
            let format = vk_format(name)
                .ok_or_else(|| format!("runner: buffer format {name} not supported"))?;
            let data = data_bytes(decl, Some(count(n, format.texel_size())));
            Ok(if uav {
                vulkan::Resource::StorageTexelBuffer { format, data }
            } else {
                vulkan::Resource::UniformTexelBuffer { format, data }
            })
        }
        Some(ResourceSize::Texture2d { width, height }) => {
            if decl.levels.is_some_and(|l| l > 1) {
                return Err("runner: mipmapped textures are not supported".into());
            }
            let name = decl.format.as_deref().unwrap_or("r32g32b32a32-float");
            let format = vk_format(name)
                .ok_or_else(|| format!("runner: texture format {name} not supported"))?;
            let texels = usize::try_from(u64::from(width) * u64::from(height)).unwrap_or(0);
            let data = data_bytes(decl, Some(texels.saturating_mul(format.texel_size())));
            Ok(if uav {
                vulkan::Resource::StorageImage2D {
                    format,
                    width,
                    height,
                    data,
                }
            } else {
                vulkan::Resource::SampledImage2D {
                    format,
                    width,
                    height,
                    data,
                }
            })
        }
        Some(other) => Err(format!("runner: resource size {other:?} not supported")),
        None => Err("runner: resource without a size".into()),
    }
}

/// Where a file's blobs are looked up.
struct BlobLookup<'a> {
    /// The `.shader_test` file name (the manifest key).
    file_name: &'a str,
    /// The blob directory.
    blobs: &'a Path,
    /// The manifest.
    sources: &'a Sources,
}

/// The compute shader of a section, translated, or why not.
fn load_shader(
    section: &st::Section,
    shader: &st::ShaderSection,
    model: ShaderModel,
    profile: &str,
    options: &[String],
    lookup: &BlobLookup<'_>,
) -> ShaderState {
    let BlobLookup {
        file_name,
        blobs,
        sources,
    } = *lookup;
    if matches!(
        st::expected_fxc(&shader.qualifiers, model),
        ExpectedFxc::Fail | ExpectedFxc::NotImpl
    ) {
        return ShaderState::Skip(format!(
            "shader is expected not to compile with fxc for {profile}"
        ));
    }
    let bytes = match shader.format() {
        SourceFormat::Asm => match dxbc2spirv::asm::assemble(&shader.source) {
            Ok(b) => b,
            Err(e) => return ShaderState::Fail(format!("assembling: {e}")),
        },
        SourceFormat::DxbcTpfHex
            if !sources
                .manifest
                .contains_key(&(file_name.into(), section.line)) =>
        {
            match st::decode_hex(&shader.source) {
                Ok(b) => b,
                Err(e) => return ShaderState::Fail(format!("decoding hex: {e}")),
            }
        }
        _ => {
            let name = match sources.manifest.get(&(file_name.to_string(), section.line)) {
                Some(row) => match row.blob_file() {
                    Some(f) => f.to_string(),
                    None => return ShaderState::Skip("no blob (upstream compile failure)".into()),
                },
                None => st::blob_name(section, profile, options),
            };
            match std::fs::read(blobs.join(&name)) {
                Ok(b) => b,
                Err(_) => return ShaderState::Skip("no blob (upstream compile failure)".into()),
            }
        }
    };
    let translated = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default())
        .and_then(|dxbc| dxbc2spirv::translate(&dxbc, &dxbc2spirv::spirv::Options::default()));
    match translated {
        Ok(words) => ShaderState::Ready(words),
        Err(e) if e.kind == ErrorKind::Unsupported => {
            ShaderState::Skip(format!("unsupported: {e}"))
        }
        Err(e) => ShaderState::Fail(format!("translation error: {e}")),
    }
}

/// Runs one file and returns its probe records.
fn run_file(
    ctx: &vulkan::Context,
    features: &vulkan::Features,
    path: &Path,
    file_name: &str,
    shown: &str,
    blobs: &Path,
    sources: &Sources,
) -> Result<Vec<Record>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let file = ShaderTestFile::parse_bytes(&bytes).map_err(|e| anyhow::anyhow!("parsing: {e}"))?;
    let mut records = Vec::new();
    let mut resources: BTreeMap<(u8, u32), LiveResource> = BTreeMap::new();
    let mut uniforms: Vec<u32> = Vec::new();
    let mut shader: Option<CurrentShader> = None;
    let mut missing: Vec<String> = Vec::new();
    for (section, state) in file.sections_with_require() {
        // The model the runner uses for this part of the file (the lowest SM4/5 one).
        let floor = ShaderModel::new(4, 0);
        let model = state.min.max(floor);
        let in_range = state.max.is_none_or(|max| model < max) && model < ShaderModel::new(6, 0);
        match &section.kind {
            SectionKind::Require(lines) => {
                missing = missing_features(lines, features);
            }
            SectionKind::Resource(decl) => {
                let key = match decl.kind {
                    ResourceKind::Srv => 0,
                    ResourceKind::Uav => 1,
                    _ => continue,
                };
                resources.insert(
                    (key, decl.slot),
                    LiveResource {
                        decl: decl.clone(),
                        resource: make_resource(decl),
                        contents: Contents::Known,
                        fxc_ok: true,
                    },
                );
            }
            SectionKind::Shader(sh) if sh.stage == Stage::Compute => {
                let (state_now, fxc_ok) = match st::profile(sh, &state) {
                    Some(profile) if in_range => {
                        let fxc_ok = st::expected_fxc(&sh.qualifiers, model) == ExpectedFxc::Ok;
                        (
                            load_shader(
                                section,
                                sh,
                                model,
                                &profile,
                                &state.options,
                                &BlobLookup {
                                    file_name,
                                    blobs,
                                    sources,
                                },
                            ),
                            fxc_ok,
                        )
                    }
                    _ => (ShaderState::Skip(NOT_SM45.into()), false),
                };
                shader = Some(CurrentShader {
                    state: state_now,
                    fxc_ok,
                });
            }
            SectionKind::Test(lines) => {
                let eval = EvalContext { model, tags: &[] };
                for line in lines {
                    if !line.runs(&eval) {
                        continue;
                    }
                    let skip_all = if !in_range {
                        Some(NOT_SM45.to_string())
                    } else if !missing.is_empty() {
                        Some(missing.join("; "))
                    } else {
                        None
                    };
                    match &line.command {
                        Command::Uniform { offset, values, .. } => {
                            let start = usize::try_from(*offset).unwrap_or(0);
                            let words = values.words();
                            let end = start.saturating_add(words.len());
                            if uniforms.len() < end {
                                uniforms.resize(end, 0);
                            }
                            if let Some(dst) = uniforms.get_mut(start..end) {
                                dst.copy_from_slice(&words);
                            }
                        }
                        Command::Dispatch { x, y, z } => {
                            let outcome = if let Some(reason) = &skip_all {
                                Contents::Skip(reason.clone())
                            } else {
                                dispatch(
                                    ctx,
                                    shader.as_ref(),
                                    &mut resources,
                                    &uniforms,
                                    [*x, *y, *z],
                                )
                            };
                            let fxc_ok = shader.as_ref().is_some_and(|s| s.fxc_ok);
                            for r in resources
                                .values_mut()
                                .filter(|r| r.decl.kind == ResourceKind::Uav)
                            {
                                r.fxc_ok = fxc_ok;
                                if !matches!(outcome, Contents::Known) {
                                    r.contents = outcome.clone();
                                }
                            }
                        }
                        Command::DrawQuad | Command::Draw { .. } => {
                            for r in resources
                                .values_mut()
                                .filter(|r| r.decl.kind == ResourceKind::Uav)
                            {
                                r.contents = Contents::Skip(GRAPHICS_SKIP.into());
                                r.fxc_ok = false;
                            }
                        }
                        Command::Probe(probe) => {
                            let todo = line.is_todo(&eval) || line.is_bug(&eval);
                            let (outcome, fxc_ok) = match (probe.resource, &skip_all) {
                                (_, Some(reason)) => (Outcome::Skip(reason.clone()), false),
                                (Some(r), None) if r.kind == ResourceKind::Uav => {
                                    match resources.get(&(1, r.slot)) {
                                        Some(live) => (check_probe(live, probe), live.fxc_ok),
                                        None => (
                                            Outcome::Fail {
                                                expected: format!("uav {} exists", r.slot),
                                                actual: "no such resource".into(),
                                            },
                                            false,
                                        ),
                                    }
                                }
                                _ => (Outcome::Skip(GRAPHICS_SKIP.into()), false),
                            };
                            let outcome = match outcome {
                                Outcome::Fail { expected, actual } if todo => {
                                    Outcome::TodoFail { expected, actual }
                                }
                                other => other,
                            };
                            records.push(Record {
                                file: shown.to_string(),
                                line: line.line,
                                text: line.text.clone(),
                                outcome,
                                fxc_ok,
                            });
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(records)
}

/// Runs a dispatch and stores the written contents; returns what the UAVs hold afterwards.
fn dispatch(
    ctx: &vulkan::Context,
    shader: Option<&CurrentShader>,
    resources: &mut BTreeMap<(u8, u32), LiveResource>,
    uniforms: &[u32],
    groups: [u32; 3],
) -> Contents {
    let spirv = match shader.map(|s| &s.state) {
        None => return Contents::Fail("dispatch without a compute shader".into()),
        Some(ShaderState::Skip(reason)) => return Contents::Skip(reason.clone()),
        Some(ShaderState::Fail(message)) => return Contents::Fail(message.clone()),
        Some(ShaderState::Ready(words)) => words,
    };
    let mut cb = vulkan::words_to_bytes(uniforms);
    cb.resize(cb.len().max(CB0_MIN_BYTES).div_ceil(16) * 16, 0);
    let mut bindings = vec![Binding::new(
        0,
        CB0_BINDING,
        vulkan::Resource::UniformBuffer(cb),
    )];
    let mut keys = Vec::new();
    for (&(kind, slot), live) in resources.iter() {
        let resource = match &live.resource {
            Ok(r) => r.clone(),
            Err(why) => return Contents::Skip(why.clone()),
        };
        let base = if kind == 1 { UAV_BINDING } else { SRV_BINDING };
        let binding = base.saturating_add(slot);
        bindings.push(Binding::new(0, binding, resource));
        keys.push((kind, slot));
        if matches!(live.decl.size, Some(ResourceSize::CounterBuffer(_))) {
            bindings.push(Binding::new(
                0,
                binding.saturating_add(COUNTER_OFFSET),
                vulkan::Resource::StorageBuffer(vec![0; 4]),
            ));
        }
    }
    if let Err(e) = ctx.dispatch(spirv, &mut bindings, groups) {
        return Contents::Fail(format!("vulkan: {e}"));
    }
    let messages = ctx.take_validation_messages();
    for b in bindings.into_iter().skip(1) {
        let key = if b.binding >= UAV_BINDING {
            (1u8, b.binding - UAV_BINDING)
        } else {
            (0u8, b.binding.saturating_sub(SRV_BINDING))
        };
        if let Some(live) = resources.get_mut(&key) {
            if b.binding < UAV_BINDING + COUNTER_OFFSET || key.0 == 0 {
                live.resource = Ok(b.resource);
                live.contents = Contents::Known;
            }
        }
    }
    if !messages.is_empty() {
        return Contents::Fail(format!("validation: {}", messages.join("; ")));
    }
    Contents::Known
}

/// Compares a float with an expected one within `ulps` (as vkd3d's `compare_float`).
fn close_f32(actual: f32, expected: f32, ulps: u32) -> bool {
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
fn close_f64(actual: f64, expected: f64, ulps: u32) -> bool {
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

/// Checks one `probe uav` against the current contents.
fn check_probe(live: &LiveResource, probe: &st::Probe) -> Outcome {
    match &live.contents {
        Contents::Skip(reason) => return Outcome::Skip(reason.clone()),
        Contents::Fail(message) => {
            return Outcome::Fail {
                expected: describe(&probe.values),
                actual: message.clone(),
            }
        }
        Contents::Known => {}
    }
    let resource = match &live.resource {
        Ok(r) => r,
        Err(why) => return Outcome::Skip(why.clone()),
    };
    let data = resource.data();
    // Row pitch: images are tightly packed rows; buffers are one row.
    let row_pitch = resource.image().map_or(data.len(), |(format, width, _)| {
        usize::try_from(width)
            .unwrap_or(0)
            .saturating_mul(format.texel_size())
    });
    let (elem_count, comp_size) = match &probe.values {
        ProbeValues::F32(v) => (v.len(), 4),
        ProbeValues::U32(v) => (v.len(), 4),
        ProbeValues::I32(v) => (v.len(), 4),
        ProbeValues::F64(v) => (v.len(), 8),
        ProbeValues::U64(v) => (v.len(), 8),
        ProbeValues::I64(v) => (v.len(), 8),
    };
    let elem_size = elem_count * comp_size;
    let points: Vec<(u32, u32)> = match probe.area {
        ProbeArea::Element(x) => vec![(x, 0)],
        ProbeArea::Point { x, y } => vec![(x, y)],
        ProbeArea::Layer { .. } => {
            return Outcome::Skip("runner: array layers not supported".into())
        }
        ProbeArea::Rect {
            left,
            top,
            right,
            bottom,
        } => {
            let mut v = Vec::new();
            for y in top.max(0)..bottom.max(0) {
                for x in left.max(0)..right.max(0) {
                    v.push((x.unsigned_abs(), y.unsigned_abs()));
                }
            }
            v
        }
    };
    for (x, y) in points {
        let offset = usize::try_from(y)
            .unwrap_or(usize::MAX)
            .saturating_mul(row_pitch)
            .saturating_add(
                usize::try_from(x)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(elem_size),
            );
        let Some(bytes) = data.get(offset..offset.saturating_add(elem_size)) else {
            return Outcome::Fail {
                expected: describe(&probe.values),
                actual: format!("({x}, {y}) is outside the resource ({} bytes)", data.len()),
            };
        };
        let words = vulkan::bytes_to_words(bytes);
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
            let actual = match &probe.values {
                ProbeValues::U32(_) => format!("u32{words:?}"),
                ProbeValues::I32(_) => {
                    format!(
                        "i32{:?}",
                        words.iter().map(|&w| w as i32).collect::<Vec<_>>()
                    )
                }
                ProbeValues::F32(_) => format!(
                    "f32{:?}",
                    words.iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>()
                ),
                ProbeValues::U64(_) => format!("u64{quads:?}"),
                ProbeValues::I64(_) => {
                    format!(
                        "i64{:?}",
                        quads.iter().map(|&q| q as i64).collect::<Vec<_>>()
                    )
                }
                ProbeValues::F64(_) => format!(
                    "f64{:?}",
                    quads.iter().map(|&q| f64::from_bits(q)).collect::<Vec<_>>()
                ),
            };
            let mut where_ = String::new();
            if !matches!(probe.area, ProbeArea::Element(_)) {
                let _ = write!(where_, " at ({x}, {y})");
            }
            return Outcome::Fail {
                expected: describe(&probe.values),
                actual: format!("{actual}{where_}"),
            };
        }
    }
    Outcome::Pass
}

/// The expected values as text.
fn describe(values: &ProbeValues) -> String {
    match values {
        ProbeValues::F32(v) => format!("f32{v:?}"),
        ProbeValues::F64(v) => format!("f64{v:?}"),
        ProbeValues::U32(v) => format!("u32{v:?}"),
        ProbeValues::I32(v) => format!("i32{v:?}"),
        ProbeValues::U64(v) => format!("u64{v:?}"),
        ProbeValues::I64(v) => format!("i64{v:?}"),
    }
}

/// Prints the skip reasons with counts and the compute-probe figures.
fn print_summary(records: &[Record]) {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for r in records {
        if let Outcome::Skip(reason) = &r.outcome {
            *reasons.entry(reason.clone()).or_default() += 1;
        }
    }
    let mut sorted: Vec<_> = reasons.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("skip reasons:");
    for (reason, count) in sorted {
        println!("  {count:5}  {reason}");
    }
    let mut fxc = Counts::default();
    for r in records.iter().filter(|r| r.fxc_ok) {
        fxc.add(&r.outcome);
    }
    println!(
        "compute probes (shader expected to compile with fxc): {} passed, {} failed, {} todo-failed, {} skipped",
        fxc.passed, fxc.failed, fxc.todo_failed, fxc.skipped
    );
}

/// Writes one JSON record per probe.
fn write_json(path: &Path, records: &[Record]) -> Result<()> {
    let list: Vec<serde_json::Value> = records
        .iter()
        .map(|r| {
            let (status, detail) = match &r.outcome {
                Outcome::Pass => ("pass", serde_json::json!({})),
                Outcome::Fail { expected, actual } => (
                    "fail",
                    serde_json::json!({ "expected": expected, "actual": actual }),
                ),
                Outcome::TodoFail { expected, actual } => (
                    "todo-failed",
                    serde_json::json!({ "expected": expected, "actual": actual }),
                ),
                Outcome::Skip(reason) => ("skip", serde_json::json!({ "reason": reason })),
            };
            let mut record = serde_json::json!({
                "file": r.file,
                "line": r.line,
                "command": r.text.trim(),
                "status": status,
                "fxc_ok": r.fxc_ok,
            });
            if let (Some(obj), Some(extra)) = (record.as_object_mut(), detail.as_object()) {
                for (k, v) in extra {
                    obj.insert(k.clone(), v.clone());
                }
            }
            record
        })
        .collect();
    let text = serde_json::to_string_pretty(&list)?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(words: &[u32]) -> LiveResource {
        let decl = st::Resource {
            kind: ResourceKind::Uav,
            slot: 0,
            format: Some("r32-typeless".into()),
            stride: None,
            size: Some(ResourceSize::RawBuffer(u32::try_from(words.len()).unwrap())),
            levels: None,
            data: words.iter().map(|&w| st::DataValue::Int(w)).collect(),
        };
        LiveResource {
            resource: make_resource(&decl),
            decl,
            contents: Contents::Known,
            fxc_ok: true,
        }
    }

    fn probe(x: u32, values: ProbeValues) -> st::Probe {
        st::Probe {
            resource: None,
            area: ProbeArea::Element(x),
            values,
            ulp: 0,
        }
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
    fn probe_offsets_use_the_probe_element_size() {
        let r = live(&[1, 2, 3, 4, 5, 6, 7, 8]);
        // One u32: element x is word x.
        assert_eq!(
            check_probe(&r, &probe(5, ProbeValues::U32(vec![6]))),
            Outcome::Pass
        );
        // Four u32: element x is 16 bytes.
        assert_eq!(
            check_probe(&r, &probe(1, ProbeValues::U32(vec![5, 6, 7, 8]))),
            Outcome::Pass
        );
        // One 64-bit value: element x is 8 bytes.
        assert_eq!(
            check_probe(&r, &probe(1, ProbeValues::U64(vec![3 | (4 << 32)]))),
            Outcome::Pass
        );
        assert!(matches!(
            check_probe(&r, &probe(2, ProbeValues::U32(vec![0, 0, 0, 0]))),
            Outcome::Fail { .. }
        ));
    }
}
