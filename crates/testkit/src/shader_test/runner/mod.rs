//! Runs `.shader_test` files on Vulkan: translates each shader section's DXBC, executes the
//! `[test]` commands (uniforms, dispatches, draws, clears, copies) on a
//! [`crate::vulkan::Context`] and checks every probe.
//!
//! The runner follows vkd3d's `shader_runner`: resources persist across `[test]` blocks
//! and are replaced by later sections of the same kind and slot; a draw without a render
//! target or depth target gets a 640x480 RGBA32F target; `draw quad` draws one large
//! triangle through slot 0 with the default vertex shader when the file has none. Each
//! resource is bound where the translator's default binding plan of the shaders that
//! declare it puts it ([`dxbc2spirv::bindings::DefaultBindings`]); `[srv N]`, `[uav N]` and
//! `[sampler N]` are register N of space 0, and this project's `[space S srv N]` form names
//! another register space (SM5.1). `uniform` writes constant buffer 0 as in vkd3d; this
//! project's `uniform cb<N> <offset> <type> <values…>` writes constant buffer `N` of space 0
//! (bound where the plan puts register `N`), e.g. `cb15`, the class-linkage instance data.
//!
//! Every probe gets an [`Outcome`]: a skip always carries its reason (a shader-model range
//! outside SM4.0–5.1, a device feature missing, no blob, a section fxc would refuse, or a
//! runner limitation named as such); a translation error is a failure.

mod interp;
mod multisample;
mod probe;
mod resources;
mod single_sample_ms;
mod stream_output;
mod uniforms;

pub use interp::interpret_file;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::shader_test::{
    self as st, Command, EvalContext, ExpectedFxc, RequireItem, ResourceKind, SectionKind,
    ShaderModel, ShaderTestFile, SourceFormat, Stage,
};
use crate::vulkan::{self, Binding, Context};
use dxbc2spirv::analysis::binding_plan::{ArrayShape, BindingPlan};
use dxbc2spirv::bindings::{DefaultBindings, DescriptorClass};
use dxbc2spirv::ir::{Declaration, ResourceDimension, ResourceRange};
use dxbc2spirv::ErrorKind;

pub use probe::{close_f32, close_f64, describe, Outcome};
pub use resources::vk_format;

use resources::Payload;

/// Smallest constant buffer bound (bytes), so shaders reading past the uniforms see zeros.
const CB0_MIN_BYTES: usize = 4096;
/// Skip reason for sections whose `[require]` range excludes SM4.0-5.1.
pub const NOT_SM45: &str = "not applicable: the [require] shader-model range excludes SM4.0-5.1";
/// The vertex shader `draw quad` uses when the file has none: position in, position out.
const DEFAULT_VS: &str = "vs_4_0\ndcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\n\
                          mov o0.xyzw, v0.xyzw\nret\n";

/// The one large triangle of `draw quad` (x, y in clip space), covering the whole target.
const QUAD: [f32; 6] = [-2.0, -2.0, -2.0, 4.0, 4.0, -2.0];

/// The stages of a draw.
const GRAPHICS_STAGES: [Stage; 5] = [
    Stage::Vertex,
    Stage::Hull,
    Stage::Domain,
    Stage::Geometry,
    Stage::Pixel,
];

/// One probe's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeRecord {
    /// 1-based line of the probe in the file.
    pub line: u32,
    /// The probe's text.
    pub text: String,
    /// What happened.
    pub outcome: Outcome,
    /// Whether every shader behind the probed contents is expected to compile with fxc.
    pub fxc_ok: bool,
}

/// What running one file gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileReport {
    /// Every probe, in file order.
    pub records: Vec<ProbeRecord>,
    /// Validation-layer warnings (errors fail the probes that follow the work instead).
    pub warnings: Vec<String>,
    /// With [`RunSettings::keep_uavs`]: every UAV of register space 0 by register, with its
    /// bytes after the file's last work, or why they are not known.
    pub uavs: BTreeMap<u32, Result<Vec<u8>, String>>,
}

/// Where the runner finds the DXBC of a shader section written in HLSL.
pub trait BlobSource {
    /// The blob of `section` (of the file named `file_name`) compiled for `profile` with the
    /// `[require]` `options`; `Ok(None)` when there is none (the upstream compile failed).
    fn blob(
        &self,
        file_name: &str,
        section: &st::Section,
        profile: &str,
        options: &[String],
    ) -> Result<Option<Vec<u8>>, String>;
}

/// A blob directory laid out as the corpus's `shader_test_dxbc`: blobs named by the section
/// hash rule, and an optional `MANIFEST.tsv` recording upstream compile failures.
#[derive(Debug, Clone)]
pub struct BlobDir {
    dir: PathBuf,
    manifest: HashMap<(String, u32), st::ManifestRow>,
}

impl BlobDir {
    /// Opens `dir`, reading its `MANIFEST.tsv` when there is one.
    pub fn open(dir: &Path) -> dxbc2spirv::Result<BlobDir> {
        let mut manifest = HashMap::new();
        let path = dir.join("MANIFEST.tsv");
        if path.is_file() {
            let text = std::fs::read_to_string(&path).map_err(|e| {
                dxbc2spirv::Error::new(
                    dxbc2spirv::error::Location::None,
                    format!("reading {}: {e}", path.display()),
                )
            })?;
            for row in st::read_manifest(&text)? {
                manifest.insert((row.test_file.clone(), row.line), row);
            }
        }
        Ok(BlobDir {
            dir: dir.to_path_buf(),
            manifest,
        })
    }
}

impl BlobSource for BlobDir {
    fn blob(
        &self,
        file_name: &str,
        section: &st::Section,
        profile: &str,
        options: &[String],
    ) -> Result<Option<Vec<u8>>, String> {
        let name = match self.manifest.get(&(file_name.to_string(), section.line)) {
            Some(row) => match row.blob_file() {
                Some(f) => f.to_string(),
                None => return Ok(None),
            },
            None => st::blob_name(section, profile, options),
        };
        match std::fs::read(self.dir.join(&name)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("reading {name}: {e}")),
        }
    }
}

/// A vertex shader input: (semantic name, semantic index, register).
type InputRegister = (String, u32, u32);

/// A translated shader's words and vertex inputs.
type Translated<'s> = (&'s [u32], &'s [InputRegister]);

/// A translated shader, or why it cannot run.
#[derive(Debug, Clone)]
enum ShaderState {
    /// Translated; `inputs` maps (semantic, index) to the input register (vertex shaders).
    Ready {
        words: Vec<u32>,
        inputs: Vec<InputRegister>,
        plan: BindingPlan,
        /// The translation's reflection (placements for `[interface] link`, push constants).
        reflection: Box<dxbc2spirv::reflect::ShaderReflection>,
        /// The SRV ranges declared multisampled.
        multisampled: Vec<ResourceRange>,
    },
    /// Work with this shader is skipped for this reason.
    Skip(String),
    /// Work with this shader fails with this message.
    Fail(String),
}

/// The current shader of one stage.
#[derive(Debug, Clone)]
struct Loaded {
    state: ShaderState,
    fxc_ok: bool,
}

/// What a resource holds: real contents or why they are not known.
#[derive(Debug, Clone)]
enum Contents {
    /// As uploaded or as written by the last dispatch or draw.
    Known,
    /// The last dispatch or draw was not run: probes are skipped.
    Skip(String),
    /// The last dispatch or draw failed: probes fail.
    Fail(String),
}

/// One resource of the file.
#[derive(Debug, Clone)]
struct Live {
    decl: st::Resource,
    payload: Result<Payload, String>,
    contents: Contents,
    fxc_ok: bool,
}

/// A resource's key: kind, register space and slot.
type Key = (ResourceKind, u32, u32);

/// The state of one file's run.
struct FileRun<'a> {
    ctx: &'a Context,
    file_name: &'a str,
    blobs: &'a dyn BlobSource,
    resources: BTreeMap<Key, Live>,
    samplers: BTreeMap<(u32, u32), Result<vulkan::SamplerDesc, String>>,
    input_layout: Vec<st::InputElement>,
    shaders: HashMap<Stage, Loaded>,
    /// The constant buffers written by `uniform` commands.
    uniforms: uniforms::Uniforms,
    depth: vulkan::CompareOp,
    /// The depth-bounds test set by `depth-bounds MIN MAX`.
    depth_bounds: Option<(f32, f32)>,
    /// The pipeline's sample mask (`sample mask N`).
    sample_mask: u32,
    /// Where the samples of multisampled targets and textures are.
    multisample: multisample::Multisample,
    /// The images the context keeps for multisampled stand-ins of single-sample textures
    /// ([`single_sample_ms`]), released with the file's.
    stand_ins: std::cell::RefCell<Vec<u64>>,
    /// The stencil test set by this project's `stencil` command.
    stencil: Option<vulkan::StencilTest>,
    /// Viewports set by `viewport N (x, y, w, h)`.
    viewports: Vec<vulkan::Viewport>,
    /// A `[test]` command changed pipeline state the runner does not model.
    unmodelled: Option<String>,
    /// `[require] native-16-bit`: minimum precision is translated to 16-bit arithmetic.
    native_16bit: bool,
    /// Translate without the optimiser.
    no_optimize: bool,
    /// The deliberate fault of the harness's self-check, applied to each translated module.
    fault: Option<crate::fault::Fault>,
    /// `[stream output]` layouts and what the last draw captured.
    stream_output: stream_output::StreamOutputRun,
    /// `[interface STAGE]` maps by stage.
    interfaces: HashMap<Stage, st::InterfaceSection>,
    /// The `[bindings]` map of the shaders that follow.
    binding_map: Option<dxbc2spirv::bindings::BindingMap>,
    /// `[require] dual-source-blending`: pixel shaders are translated for it.
    dual_source: bool,
    /// The `blend` state of later draws.
    blend: Option<vulkan::Blend>,
    report: FileReport,
}

/// How [`run_file_with`] runs a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunSettings<'a> {
    /// The condition tags the `if(…)`/`todo(…)` conditions see: the device's
    /// ([`device_tags`]), or `&[]` to run the probes a test file excludes on this device
    /// (vkd3d's files exclude some on llvmpipe for its own translator's sake).
    pub device_tags: &'a [&'a str],
    /// Translate the shaders without the optimiser ([`dxbc2spirv::spirv::opt`]).
    pub no_optimize: bool,
    /// Testing only: rewrite each translated module with this deliberate fault (the
    /// differential harness's self-check, [`crate::fault::Fault`]).
    pub fault: Option<crate::fault::Fault>,
    /// Keep every UAV's final bytes in [`FileReport::uavs`] (the differential harness
    /// compares them all, not only the probed elements).
    pub keep_uavs: bool,
}

/// Runs one parsed file (named `file_name` for blob lookups) and returns its probe records;
/// the `if(…)`/`todo(…)` conditions see the device's tags ([`device_tags`]).
pub fn run_file(
    ctx: &Context,
    file: &ShaderTestFile,
    file_name: &str,
    blobs: &dyn BlobSource,
) -> FileReport {
    let tags = device_tags(ctx.features());
    let settings = RunSettings {
        device_tags: &tags,
        ..Default::default()
    };
    run_file_with(ctx, file, file_name, blobs, &settings)
}

/// [`run_file`] with the condition tags and translation settings given.
pub fn run_file_with(
    ctx: &Context,
    file: &ShaderTestFile,
    file_name: &str,
    blobs: &dyn BlobSource,
    settings: &RunSettings<'_>,
) -> FileReport {
    let device_tags = settings.device_tags;
    let mut run = FileRun {
        ctx,
        file_name,
        blobs,
        resources: BTreeMap::new(),
        samplers: BTreeMap::new(),
        input_layout: Vec::new(),
        shaders: HashMap::new(),
        uniforms: Default::default(),
        depth: vulkan::CompareOp::Always,
        depth_bounds: None,
        sample_mask: u32::MAX,
        multisample: Default::default(),
        stand_ins: Default::default(),
        stencil: None,
        viewports: Vec::new(),
        unmodelled: None,
        native_16bit: false,
        no_optimize: settings.no_optimize,
        fault: settings.fault,
        stream_output: Default::default(),
        interfaces: HashMap::new(),
        binding_map: None,
        dual_source: false,
        blend: None,
        report: FileReport::default(),
    };
    let mut missing: Vec<String> = Vec::new();
    for (section, state) in file.sections_with_require() {
        // The model the runner uses for this part of the file (the lowest SM4/5 one).
        let model = state.min.max(ShaderModel::new(4, 0));
        let in_range = state.max.is_none_or(|max| model < max) && model < ShaderModel::new(6, 0);
        match &section.kind {
            SectionKind::Require(lines) => {
                missing = missing_features(lines, ctx.features());
                run.native_16bit = lines
                    .iter()
                    .any(|l| matches!(&l.item, RequireItem::Feature(n) if n == "native-16-bit"));
                run.dual_source = lines.iter().any(
                    |l| matches!(&l.item, RequireItem::Feature(n) if n == "dual-source-blending"),
                );
            }
            SectionKind::Resource(decl) => run.add_resource(decl),
            SectionKind::Sampler(s) => {
                run.samplers.insert((s.space, s.slot), sampler_desc(s));
            }
            SectionKind::InputLayout(elements) => run.input_layout = elements.clone(),
            SectionKind::StreamOutput(so) => {
                run.stream_output.sections.insert(so.stage, so.clone());
            }
            SectionKind::Interface(interface) => {
                run.interfaces.insert(interface.stage, interface.clone());
            }
            SectionKind::Bindings(map) => run.binding_map = Some(map.clone()),
            SectionKind::Shader(sh) if sh.stage != Stage::Effect => {
                let layout = run
                    .stream_output
                    .loaded(sh.stage)
                    .map(|so| so.layout.clone());
                let loaded = match st::profile(sh, &state) {
                    Some(profile) if in_range => Loaded {
                        state: run.load_shader(
                            section,
                            sh,
                            model,
                            &profile,
                            &state.options,
                            layout,
                        ),
                        fxc_ok: st::expected_fxc(&sh.qualifiers, model) == ExpectedFxc::Ok,
                    },
                    _ => Loaded {
                        state: ShaderState::Skip(NOT_SM45.into()),
                        fxc_ok: false,
                    },
                };
                run.shaders.insert(sh.stage, loaded);
            }
            SectionKind::Test(lines) => {
                let skip_all = if !in_range {
                    Some(NOT_SM45.to_string())
                } else if !missing.is_empty() {
                    Some(missing.join("; "))
                } else {
                    None
                };
                let eval = EvalContext {
                    model,
                    tags: device_tags,
                };
                for line in lines.iter().filter(|l| l.runs(&eval)) {
                    run.command(line, &eval, skip_all.as_deref());
                }
            }
            _ => {}
        }
    }
    if settings.keep_uavs {
        run.keep_uavs();
    }
    run.multisample.release(ctx);
    ctx.release_kept(&run.stand_ins.borrow());
    run.report
}

/// The condition tags (`if(!llvmpipe)`, `todo(llvmpipe)`) that describe the device. Only
/// device tags are set: the backend tags of vkd3d's runner (`vulkan`, `d3d12`, `glsl`, …) mark
/// vkd3d's own translator bugs, not this one's.
pub fn device_tags(features: &vulkan::Features) -> Vec<&'static str> {
    let mut tags = Vec::new();
    if features.device_name.contains("llvmpipe") {
        tags.push("llvmpipe");
    }
    tags
}

/// Why the `[require]` lines cannot be met here, one entry per unmet line.
pub fn missing_features(lines: &[st::RequireLine], features: &vulkan::Features) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines {
        match &line.item {
            RequireItem::Feature(name) => {
                let have = match name.as_str() {
                    "float64" => Some(features.shader_float64),
                    "int64" => Some(features.shader_int64),
                    "rt-vp-array-index" => Some(features.shader_output_layer),
                    "geometry-shader" => Some(features.geometry_shader),
                    "tessellation-shader" => Some(features.tessellation_shader),
                    "rov" => Some(features.fragment_shader_interlock),
                    "inner-coverage" => Some(features.fully_covered_input),
                    "stencil-export" => Some(features.shader_stencil_export),
                    "native-16-bit" => Some(features.shader_float16 && features.shader_int16),
                    "shader-clock" => Some(features.shader_subgroup_clock),
                    "depth-bounds" => Some(features.depth_bounds),
                    "dual-source-blending" => Some(features.dual_src_blend),
                    _ => None,
                };
                if let Some(why) = not_direct3d_10(name) {
                    out.push(why);
                    continue;
                }
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

/// The reason a `[require]` capability does not apply, for the capabilities vkd3d's runner
/// offers only to Direct3D 9 shaders: fixed-function states that Direct3D 10 and later do not
/// have (points are one pixel, fog and user clip planes are the shader's job).
fn not_direct3d_10(name: &str) -> Option<String> {
    let state = match name {
        "point-size" => "the fixed-function point size",
        "fog" => "fixed-function fog",
        "clip-planes" => "fixed-function user clip planes",
        _ => return None,
    };
    Some(format!(
        "not applicable: {name} is {state}, a Direct3D 9 render state that Direct3D 10-12 \
         do not have"
    ))
}

/// The Vulkan sampler of a `[sampler]` section.
fn sampler_desc(s: &st::Sampler) -> Result<vulkan::SamplerDesc, String> {
    let words = s.filter.as_deref().unwrap_or_default();
    let linear = |i: usize| words.get(i).is_some_and(|w| w == "linear");
    let filter = if linear(0) || linear(1) {
        vulkan::Filter::Linear
    } else {
        vulkan::Filter::Nearest
    };
    let mip_filter = if linear(2) {
        vulkan::Filter::Linear
    } else {
        vulkan::Filter::Nearest
    };
    let address = match s
        .address
        .as_deref()
        .and_then(|a| a.first())
        .map(String::as_str)
    {
        None | Some("wrap") => vulkan::AddressMode::Repeat,
        Some("clamp") => vulkan::AddressMode::ClampToEdge,
        Some("mirror") => vulkan::AddressMode::MirroredRepeat,
        Some("border") => vulkan::AddressMode::ClampToBorder,
        Some(other) => return Err(format!("runner: address mode {other} is not supported")),
    };
    Ok(vulkan::SamplerDesc {
        filter,
        mip_filter,
        address,
        compare: s.comparison.map(compare_op),
    })
}

impl FileRun<'_> {
    /// Adds (or replaces) a resource section.
    fn add_resource(&mut self, decl: &st::Resource) {
        self.multisample.reset((decl.kind, decl.space, decl.slot));
        self.resources.insert(
            (decl.kind, decl.space, decl.slot),
            Live {
                decl: decl.clone(),
                payload: resources::payload(decl),
                contents: Contents::Known,
                fxc_ok: true,
            },
        );
    }

    /// Adds the default render target unless there is a render target 0 or a depth target.
    fn set_default_target(&mut self) {
        if !self.resources.contains_key(&(ResourceKind::Rtv, 0, 0))
            && !self.resources.contains_key(&(ResourceKind::Dsv, 0, 0))
        {
            self.add_resource(&resources::default_target());
        }
    }

    /// Translates a shader section, or says why not.
    fn load_shader(
        &self,
        section: &st::Section,
        shader: &st::ShaderSection,
        model: ShaderModel,
        profile: &str,
        options: &[String],
        stream_output: Option<dxbc2spirv::spirv::StreamOutput>,
    ) -> ShaderState {
        if matches!(
            st::expected_fxc(&shader.qualifiers, model),
            ExpectedFxc::Fail | ExpectedFxc::NotImpl
        ) {
            return ShaderState::Skip(format!(
                "shader is expected not to compile with fxc for {profile}"
            ));
        }
        let bytes = match shader_bytes(
            self.blobs,
            self.file_name,
            section,
            shader,
            profile,
            options,
        ) {
            Ok(bytes) => bytes,
            Err(why) => return why.into(),
        };
        let mut options = options_for(self.ctx.features());
        options.features.native_16bit = self.native_16bit;
        options.stream_output = stream_output;
        options.no_optimize = self.no_optimize;
        options.dual_source_blending = self.dual_source && shader.stage == Stage::Pixel;
        options.interface = match self.interface_map(shader.stage) {
            Ok(map) => map,
            Err(why) => return ShaderState::Fail(why),
        };
        let mapper: &dyn dxbc2spirv::bindings::BindingMapper = match &self.binding_map {
            Some(map) => map,
            None => &DefaultBindings,
        };
        translate(&bytes, options, mapper, self.fault)
    }

    /// The interface map of a `stage` shader: its `[interface]` section's lists, with the
    /// inputs (and a domain shader's patch constants) of `link` taken from the reflection
    /// of the previous stage the file loaded (a hull shader for a domain shader; for a
    /// pixel shader the geometry, domain or vertex shader, the first loaded).
    fn interface_map(
        &self,
        stage: Stage,
    ) -> Result<Option<dxbc2spirv::interface::InterfaceMap>, String> {
        let Some(section) = self.interfaces.get(&stage) else {
            return Ok(None);
        };
        let mut map = section.map.clone();
        if section.link {
            let previous: &[Stage] = match stage {
                Stage::Pixel => &[Stage::Geometry, Stage::Domain, Stage::Vertex],
                Stage::Geometry => &[Stage::Domain, Stage::Vertex],
                Stage::Domain => &[Stage::Hull],
                Stage::Hull => &[Stage::Vertex],
                _ => &[],
            };
            let reflection = previous
                .iter()
                .find_map(|s| match self.shaders.get(s).map(|l| &l.state) {
                    Some(ShaderState::Ready { reflection, .. }) => Some(reflection),
                    _ => None,
                })
                .ok_or_else(|| {
                    format!(
                        "[interface {}] link: no translated shader of the previous stage",
                        stage.profile_prefix()
                    )
                })?;
            let linked = dxbc2spirv::interface::InterfaceMap::inputs_from(reflection);
            map.inputs = linked.inputs;
            if linked.patch_constants.is_some() {
                map.patch_constants = linked.patch_constants;
            }
        }
        Ok(Some(map))
    }

    /// Runs one `[test]` command.
    fn command(&mut self, line: &st::TestLine, eval: &EvalContext<'_>, skip_all: Option<&str>) {
        match &line.command {
            Command::Uniform {
                buffer,
                offset,
                values,
                ..
            } => self.uniforms.set(*buffer, *offset, &values.words()),
            Command::Blend(blend) => {
                self.blend = match blend {
                    None => None,
                    Some((src, dst)) => match (blend_factor(src), blend_factor(dst)) {
                        (Some(src), Some(dst)) => Some(vulkan::Blend { src, dst }),
                        _ => None,
                    },
                };
            }
            Command::Dispatch { x, y, z } => {
                let outcome = match skip_all {
                    Some(reason) => Contents::Skip(reason.to_string()),
                    None => self.dispatch([*x, *y, *z]),
                };
                let fxc_ok = self.shaders.get(&Stage::Compute).is_some_and(|s| s.fxc_ok);
                self.written(outcome, fxc_ok, &[ResourceKind::Uav]);
            }
            Command::DrawQuad => {
                self.set_default_target();
                self.input_layout = vec![st::InputElement {
                    slot: 0,
                    format: "r32g32-float".into(),
                    semantic: "position".into(),
                    index: 0,
                }];
                let quad: Vec<u32> = QUAD.iter().map(|f| f.to_bits()).collect();
                self.resources.insert(
                    (ResourceKind::Vb, 0, 0),
                    Live {
                        decl: st::Resource {
                            kind: ResourceKind::Vb,
                            slot: 0,
                            space: 0,
                            format: None,
                            stride: None,
                            size: None,
                            levels: None,
                            data: Vec::new(),
                        },
                        payload: Ok(Payload::Vertices(vulkan::words_to_bytes(&quad))),
                        contents: Contents::Known,
                        fxc_ok: true,
                    },
                );
                self.draw_command(vulkan::Topology::TriangleList, 3, 1, skip_all);
            }
            Command::Draw {
                topology,
                vertex_count,
                instance_count,
            } => {
                self.set_default_target();
                let topology = match topology {
                    st::Topology::TriangleList => vulkan::Topology::TriangleList,
                    st::Topology::TriangleStrip => vulkan::Topology::TriangleStrip,
                    st::Topology::PointList => vulkan::Topology::PointList,
                    st::Topology::LineList => vulkan::Topology::LineList,
                    st::Topology::LineStrip => vulkan::Topology::LineStrip,
                    st::Topology::PatchList(n) => vulkan::Topology::PatchList(*n),
                };
                self.draw_command(topology, *vertex_count, *instance_count, skip_all);
            }
            Command::Clear { target, values } => {
                if target.kind == ResourceKind::Rtv {
                    self.set_default_target();
                }
                self.clear(target.kind, target.slot, values);
            }
            Command::Copy { src, dst } => {
                self.copy((src.kind, 0, src.slot), (dst.kind, 0, dst.slot))
            }
            Command::Depth(comparison) => self.depth = compare_op(*comparison),
            Command::Stencil(state) => self.stencil = state.map(stencil_test),
            Command::DepthBounds { min, max } => {
                if self.ctx.features().depth_bounds {
                    self.depth_bounds = Some((*min, *max));
                } else {
                    self.unmodelled = Some("device lacks a required feature: depth-bounds".into());
                }
            }
            Command::SampleMask(mask) => self.sample_mask = *mask,
            Command::Other(text) => match parse_viewport(text) {
                Some((index, viewport)) => {
                    let index = usize::try_from(index).unwrap_or(usize::MAX);
                    if index < 16 {
                        if self.viewports.len() <= index {
                            self.viewports
                                .resize(index + 1, vulkan::Viewport::default());
                        }
                        if let Some(v) = self.viewports.get_mut(index) {
                            *v = viewport;
                        }
                    }
                }
                None => {
                    let word = text.split_whitespace().next().unwrap_or("");
                    self.unmodelled = Some(format!("runner: `{word}` is not supported"));
                }
            },
            Command::Probe(_)
            | Command::ProbeStreamOutput { .. }
            | Command::ProbeStencil { .. } => {
                let todo = line.is_todo(eval) || line.is_bug(eval);
                let (outcome, fxc_ok) = match (skip_all, &line.command) {
                    (Some(reason), _) => (Outcome::Skip(reason.to_string()), false),
                    (None, Command::Probe(probe)) => self.probe(probe),
                    (
                        None,
                        Command::ProbeStreamOutput {
                            slot,
                            vertex,
                            word,
                            values,
                            ulp,
                        },
                    ) => self.probe_stream_output(*slot, *vertex, *word, values, *ulp),
                    (None, Command::ProbeStencil { area, values }) => {
                        self.probe_stencil(*area, values)
                    }
                    (None, _) => (Outcome::Skip("not a probe".into()), false),
                };
                let outcome = match outcome {
                    Outcome::Fail { expected, actual } if todo => {
                        Outcome::TodoFail { expected, actual }
                    }
                    other => other,
                };
                self.report.records.push(ProbeRecord {
                    line: line.line,
                    text: line.text.clone(),
                    outcome,
                    fxc_ok,
                });
            }
        }
    }

    /// Copies every UAV of space 0 into the report.
    fn keep_uavs(&mut self) {
        for (&(kind, space, slot), live) in &self.resources {
            if kind != ResourceKind::Uav || space != 0 {
                continue;
            }
            let bytes = match (&live.contents, &live.payload) {
                (Contents::Known, Ok(payload)) => Ok(payload.probe_view().0.to_vec()),
                (Contents::Known, Err(why))
                | (Contents::Skip(why), _)
                | (Contents::Fail(why), _) => Err(why.clone()),
            };
            self.report.uavs.insert(slot, bytes);
        }
    }

    /// Records what a dispatch or draw did to the resources of `kinds`.
    fn written(&mut self, outcome: Contents, fxc_ok: bool, kinds: &[ResourceKind]) {
        for live in self
            .resources
            .values_mut()
            .filter(|r| kinds.contains(&r.decl.kind))
        {
            live.fxc_ok = fxc_ok;
            if !matches!(outcome, Contents::Known) {
                live.contents = outcome.clone();
            }
        }
    }

    /// The shader of `stage`, translated, or the contents its failure leaves.
    fn ready(&self, stage: Stage) -> Result<Option<Translated<'_>>, Contents> {
        match self.shaders.get(&stage).map(|s| &s.state) {
            None => Ok(None),
            Some(ShaderState::Skip(reason)) => Err(Contents::Skip(reason.clone())),
            Some(ShaderState::Fail(message)) => Err(Contents::Fail(message.clone())),
            Some(ShaderState::Ready { words, inputs, .. }) => Ok(Some((words, inputs))),
        }
    }

    /// The descriptor bindings of every current SRV, UAV, sampler and constant buffer 0
    /// that the shaders of `stages` declare, placed where the translator's default binding
    /// plan of those shaders puts them, with the key of each binding's resource (UAVs are
    /// stored back by it).
    fn bindings(&self, stages: &[Stage]) -> Result<(Vec<Binding>, Vec<Option<Key>>), Contents> {
        let ready: Vec<(&BindingPlan, &[ResourceRange])> = stages
            .iter()
            .filter_map(|stage| match self.shaders.get(stage).map(|s| &s.state) {
                Some(ShaderState::Ready {
                    plan, multisampled, ..
                }) => Some((plan, multisampled.as_slice())),
                _ => None,
            })
            .collect();
        let plans: Vec<&BindingPlan> = ready.iter().map(|(plan, _)| *plan).collect();
        let multisampled = |space: u32, register: u32| {
            ready.iter().flat_map(|(_, ms)| ms.iter()).any(|r| {
                r.space == space
                    && register >= r.lower
                    && r.upper.is_none_or(|upper| register <= upper)
            })
        };
        let locate = |class, space, register| {
            plans
                .iter()
                .find_map(|plan| plan.locate(class, space, register))
        };
        let mut bindings = Vec::new();
        let mut keys = Vec::new();
        let mut push = |at: Option<(u32, u32, u32)>, resource, key| {
            if let Some((set, binding, element)) = at {
                bindings.push(Binding::array_element(set, binding, element, resource));
                keys.push(key);
            }
        };
        let mut cb = vulkan::words_to_bytes(&self.uniforms.cb0);
        cb.resize(cb.len().max(CB0_MIN_BYTES).div_ceil(16) * 16, 0);
        push(
            locate(DescriptorClass::ConstantBuffer, 0, 0),
            vulkan::Resource::UniformBuffer(cb),
            None,
        );
        for (&register, words) in &self.uniforms.others {
            let mut cb = vulkan::words_to_bytes(words);
            cb.resize(cb.len().max(16).div_ceil(16) * 16, 0);
            push(
                locate(DescriptorClass::ConstantBuffer, 0, register),
                vulkan::Resource::UniformBuffer(cb),
                None,
            );
        }
        for (&key, live) in &self.resources {
            let (kind, space, slot) = key;
            let class = match kind {
                ResourceKind::Srv => DescriptorClass::ShaderResource,
                ResourceKind::Uav => DescriptorClass::UnorderedAccess,
                _ => continue,
            };
            let Some(at) = locate(class, space, slot) else {
                continue;
            };
            let resource = match &live.payload {
                Ok(Payload::Bound(r)) => r.clone(),
                Ok(_) => continue,
                Err(why) => return Err(Contents::Skip(why.clone())),
            };
            let single_sample = resource.image().is_none_or(|shape| shape.samples <= 1);
            let kept = if single_sample {
                None
            } else {
                self.multisample.texture_use(key).map_err(Contents::Skip)?
            };
            let resource = match (resource, kept) {
                (vulkan::Resource::SampledImage { shape, data }, Some(kept)) => {
                    vulkan::Resource::SampledImage {
                        shape: vulkan::ImageShape {
                            kept: Some(kept),
                            ..shape
                        },
                        data,
                    }
                }
                (resource, _) => resource,
            };
            if !single_sample && kept.is_none() && !resources::uniform_texels(&resource) {
                // Vulkan copies nothing into a multisampled image; it can be cleared.
                return Err(Contents::Skip(format!(
                    "runner: t{slot} is multisampled with per-texel contents; Vulkan cannot \
                     copy contents into a multisampled image (it can only clear one to a value)"
                )));
            }
            let resource =
                if kind == ResourceKind::Srv && single_sample && multisampled(space, slot) {
                    // D3D tolerates a single-sample texture where the shader declares a
                    // multisampled one; Vulkan does not: bind a multisampled stand-in.
                    let (stand_in, id) =
                        single_sample_ms::stand_in(self.ctx, &resource, self.no_optimize)
                            .map_err(|why| Contents::Skip(format!("t{slot}: {why}")))?;
                    self.stand_ins.borrow_mut().push(id);
                    stand_in
                } else {
                    resource
                };
            push(Some(at), resource, Some(key));
            if matches!(live.decl.size, Some(st::ResourceSize::CounterBuffer(_))) {
                push(
                    locate(DescriptorClass::UavCounter, space, slot),
                    vulkan::Resource::StorageBuffer(vec![0; 4]),
                    None,
                );
            }
        }
        for (&(space, slot), sampler) in &self.samplers {
            let Some(at) = locate(DescriptorClass::Sampler, space, slot) else {
                continue;
            };
            let desc = sampler.clone().map_err(Contents::Skip)?;
            push(Some(at), vulkan::Resource::Sampler(desc), None);
        }
        // Bounded arrays get the descriptor count the shader declares.
        for b in &mut bindings {
            b.array_size = plans
                .iter()
                .flat_map(|plan| &plan.bindings)
                .filter(|d| (d.binding.set, d.binding.binding) == (b.set, b.binding))
                .filter_map(|d| match d.shape {
                    ArrayShape::Bounded(n) => Some(n.saturating_add(d.binding.array_offset)),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
        }
        Ok((bindings, keys))
    }

    /// Stores the written contents of UAV bindings after a dispatch or draw.
    fn store_bindings(&mut self, bindings: Vec<Binding>, keys: Vec<Option<Key>>) {
        for (b, key) in bindings.into_iter().zip(keys) {
            let Some(key) = key.filter(|k| k.0 == ResourceKind::Uav) else {
                continue;
            };
            if let Some(live) = self.resources.get_mut(&key) {
                live.payload = Ok(Payload::Bound(b.resource));
                live.contents = Contents::Known;
            }
        }
    }

    /// Runs a dispatch; returns what the UAVs hold afterwards.
    fn dispatch(&mut self, groups: [u32; 3]) -> Contents {
        let spirv = match self.ready(Stage::Compute) {
            Ok(Some((words, _))) => words.to_vec(),
            Ok(None) => return Contents::Fail("dispatch without a compute shader".into()),
            Err(contents) => return contents,
        };
        let (mut bindings, keys) = match self.bindings(&[Stage::Compute]) {
            Ok(b) => b,
            Err(contents) => return contents,
        };
        if let Err(e) = self.ctx.dispatch(&spirv, &mut bindings, groups) {
            return Contents::Fail(format!("vulkan: {e}"));
        }
        let errors = self.validation_errors();
        self.store_bindings(bindings, keys);
        errors
    }

    /// Takes the validation layer's messages: warnings are kept in the report, errors make
    /// the work's contents a failure.
    fn validation_errors(&mut self) -> Contents {
        let (errors, warnings): (Vec<String>, Vec<String>) = self
            .ctx
            .take_validation_messages()
            .into_iter()
            .partition(|m| m.starts_with("error"));
        self.report.warnings.extend(warnings);
        if errors.is_empty() {
            Contents::Known
        } else {
            Contents::Fail(format!("validation: {}", errors.join("; ")))
        }
    }

    /// Runs a draw command and records its effect on targets and UAVs.
    fn draw_command(
        &mut self,
        topology: vulkan::Topology,
        vertex_count: u32,
        instance_count: u32,
        skip_all: Option<&str>,
    ) {
        let outcome = match (skip_all, &self.unmodelled) {
            (Some(reason), _) => Contents::Skip(reason.to_string()),
            (None, Some(reason)) => Contents::Skip(reason.clone()),
            (None, None) => self.draw(topology, vertex_count, instance_count),
        };
        let fxc_ok = GRAPHICS_STAGES
            .iter()
            .filter_map(|s| self.shaders.get(s))
            .all(|s| s.fxc_ok);
        let had_layout = self.draw_stream_output().is_some();
        self.stream_output_written(had_layout, &outcome, fxc_ok);
        self.written(
            outcome,
            fxc_ok,
            &[ResourceKind::Uav, ResourceKind::Rtv, ResourceKind::Dsv],
        );
    }

    /// Runs a draw; returns what the targets and UAVs hold afterwards.
    fn draw(
        &mut self,
        topology: vulkan::Topology,
        vertex_count: u32,
        instance_count: u32,
    ) -> Contents {
        // Where each multisampled target's samples come from.
        let mut kept = BTreeMap::new();
        for (&(kind, space, slot), live) in &self.resources {
            if let (ResourceKind::Rtv, 0, Ok(Payload::Target(t))) = (kind, space, &live.payload) {
                if t.samples > 1 {
                    match self.multisample.target_use(slot, t.format, &t.data) {
                        Ok(used) => kept.insert(slot, used),
                        Err(why) => return Contents::Skip(why),
                    };
                }
            }
        }
        let default_vs;
        let (vertex, inputs) = match self.ready(Stage::Vertex) {
            Ok(Some(vs)) => vs,
            Ok(None) => {
                let mut options = options_for(self.ctx.features());
                options.no_optimize = self.no_optimize;
                default_vs = translate(
                    &match dxbc2spirv::asm::assemble(DEFAULT_VS) {
                        Ok(b) => b,
                        Err(e) => return Contents::Fail(format!("assembling the default VS: {e}")),
                    },
                    options,
                    &DefaultBindings,
                    None,
                );
                match &default_vs {
                    ShaderState::Ready { words, .. } => (words.as_slice(), &[][..]),
                    ShaderState::Skip(r) | ShaderState::Fail(r) => {
                        return Contents::Fail(format!("default VS: {r}"))
                    }
                }
            }
            Err(contents) => return contents,
        };
        let optional = |stage| self.ready(stage).map(|s| s.map(|(w, _)| w));
        let (hull, domain, geometry, pixel) = match (
            optional(Stage::Hull),
            optional(Stage::Domain),
            optional(Stage::Geometry),
            optional(Stage::Pixel),
        ) {
            (Ok(h), Ok(d), Ok(g), Ok(p)) => (h, d, g, p),
            (Err(c), ..) | (_, Err(c), ..) | (_, _, Err(c), _) | (.., Err(c)) => return c,
        };
        let (vertex_buffers, attributes) = match self.vertex_input(inputs) {
            Ok(v) => v,
            Err(contents) => return contents,
        };
        let mut render_targets = Vec::new();
        let mut depth = None;
        for (&(kind, _, slot), live) in &self.resources {
            match (&live.payload, kind) {
                (Ok(Payload::Target(t)), ResourceKind::Rtv) => {
                    let mut t = t.clone();
                    t.kept = kept.get(&slot).copied();
                    let slot = usize::try_from(slot).unwrap_or(usize::MAX);
                    if render_targets.len() <= slot {
                        render_targets.resize(slot.saturating_add(1), None);
                    }
                    if let Some(entry) = render_targets.get_mut(slot) {
                        *entry = Some(t);
                    }
                }
                (Ok(Payload::Depth(d)), ResourceKind::Dsv) => {
                    let stencil = match (&d.stencil, self.stencil) {
                        (Some(s), test) => Some(vulkan::Stencil {
                            data: s.data.clone(),
                            test,
                        }),
                        (None, None) => None,
                        (None, Some(_)) => {
                            return Contents::Fail(
                                "a stencil test is set but the [dsv] has no stencil aspect \
                                 (format d32-float-s8-uint)"
                                    .into(),
                            )
                        }
                    };
                    depth = Some(vulkan::DepthTarget {
                        compare: self.depth,
                        bounds: self.depth_bounds,
                        stencil,
                        ..d.clone()
                    });
                }
                (Err(why), ResourceKind::Rtv | ResourceKind::Dsv) => {
                    return Contents::Skip(why.clone())
                }
                _ => {}
            }
        }
        let (mut bindings, keys) = match self.bindings(&GRAPHICS_STAGES) {
            Ok(b) => b,
            Err(contents) => return contents,
        };
        let stream_output = self.draw_stream_output();
        if stream_output.is_some() && !self.ctx.features().transform_feedback {
            return Contents::Skip(
                "device lacks a required feature: transform feedback (VK_EXT_transform_feedback)"
                    .into(),
            );
        }
        let other_stream = stream_output
            .as_ref()
            .is_some_and(|so| so.layout.rasterized_stream.unwrap_or(0) != 0);
        if other_stream && !self.ctx.features().rasterization_stream_select {
            return Contents::Skip(
                "device lacks a required feature: transformFeedbackRasterizationStreamSelect \
                 (rasterizing a stream other than 0)"
                    .into(),
            );
        }
        let mut draw = vulkan::Draw {
            stages: vulkan::Stages {
                vertex,
                hull,
                domain,
                geometry,
                pixel,
            },
            topology,
            vertex_count,
            instance_count,
            vertex_buffers,
            attributes,
            render_targets,
            depth,
            viewports: self.viewports.clone(),
            sample_mask: self.sample_mask,
            specialization: Vec::new(),
            stream_output: Vec::new(),
            rasterized_stream: Some(0),
            push_constants: self.push_constant_bytes(&GRAPHICS_STAGES),
            blend: self.blend,
        };
        Self::prepare_stream_output(&mut draw, stream_output.as_ref());
        // The rasterizer sample count (`sampleinfo rasterizer`) is specialization constant 0x100.
        draw.specialization = vec![(
            dxbc2spirv::spirv::RASTERIZER_SAMPLE_COUNT_SPEC_ID,
            draw.render_targets
                .iter()
                .flatten()
                .map(|t| t.samples)
                .max()
                .unwrap_or(1),
        )];
        if let Err(e) = self.ctx.draw(&mut draw, &mut bindings) {
            return Contents::Fail(format!("vulkan: {e}"));
        }
        let feedback = std::mem::take(&mut draw.stream_output);
        let (targets, depth) = (draw.render_targets, draw.depth);
        if let Some(so) = &stream_output {
            self.store_stream_output(so, feedback);
        }
        let errors = self.validation_errors();
        self.store_bindings(bindings, keys);
        for (slot, target) in targets.into_iter().enumerate() {
            let Some(target) = target else { continue };
            let key = (
                ResourceKind::Rtv,
                0,
                u32::try_from(slot).unwrap_or(u32::MAX),
            );
            if target.samples > 1 {
                self.multisample.drawn(key.2);
            }
            if let Some(live) = self.resources.get_mut(&key) {
                live.payload = Ok(Payload::Target(target));
                live.contents = Contents::Known;
            }
        }
        if let (Some(d), Some(live)) = (depth, self.resources.get_mut(&(ResourceKind::Dsv, 0, 0))) {
            live.payload = Ok(Payload::Depth(d));
            live.contents = Contents::Known;
        }
        errors
    }

    /// The push-constant bytes of the loaded shaders of `stages`: each constant buffer their
    /// translations placed in push constants, at its offset, from the `uniform cbN` words
    /// (space 0; zero where none were written). Empty when no shader uses push constants.
    fn push_constant_bytes(&self, stages: &[Stage]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for stage in stages {
            let Some(ShaderState::Ready { reflection, .. }) =
                self.shaders.get(stage).map(|s| &s.state)
            else {
                continue;
            };
            for buffer in &reflection.push_constants {
                let start = buffer.offset as usize;
                let end = start.saturating_add(buffer.size as usize);
                if bytes.len() < end {
                    bytes.resize(end, 0);
                }
                let words: &[u32] = match buffer.register {
                    0 => &self.uniforms.cb0,
                    r => self.uniforms.others.get(&r).map_or(&[][..], Vec::as_slice),
                };
                let data = vulkan::words_to_bytes(words);
                let n = data.len().min(end - start);
                if let (Some(dst), Some(src)) = (bytes.get_mut(start..start + n), data.get(..n)) {
                    dst.copy_from_slice(src);
                }
            }
        }
        bytes
    }

    /// The vertex buffers and attributes of the current input layout for a vertex shader
    /// with `inputs` (semantic, index, register); the default vertex shader has none and
    /// reads `position` at location 0.
    #[allow(clippy::type_complexity)]
    fn vertex_input(
        &self,
        inputs: &[InputRegister],
    ) -> Result<(Vec<vulkan::VertexBuffer>, Vec<vulkan::VertexAttribute>), Contents> {
        let mut attributes = Vec::new();
        let mut offsets: BTreeMap<u32, u32> = BTreeMap::new();
        for element in &self.input_layout {
            let format = vk_format(&element.format).ok_or_else(|| {
                Contents::Skip(format!(
                    "runner: vertex format {} is not supported",
                    element.format
                ))
            })?;
            let offset = offsets.entry(element.slot).or_insert(0);
            let location = if inputs.is_empty() {
                Some(0)
            } else {
                inputs
                    .iter()
                    .find(|(name, index, _)| {
                        name.eq_ignore_ascii_case(&element.semantic) && *index == element.index
                    })
                    .map(|&(_, _, register)| register)
            };
            if let Some(location) = location {
                attributes.push(vulkan::VertexAttribute {
                    location,
                    binding: element.slot,
                    format,
                    offset: *offset,
                });
            }
            *offset = offset.saturating_add(u32::try_from(format.texel_size()).unwrap_or(0));
        }
        let mut buffers = Vec::new();
        for (&slot, &stride) in &offsets {
            match self
                .resources
                .get(&(ResourceKind::Vb, 0, slot))
                .map(|l| &l.payload)
            {
                Some(Ok(Payload::Vertices(data))) if !data.is_empty() => {
                    buffers.push(vulkan::VertexBuffer {
                        binding: slot,
                        stride,
                        data: data.clone(),
                    })
                }
                Some(Err(why)) => return Err(Contents::Skip(why.clone())),
                _ => return Err(Contents::Fail(format!("no vertex buffer in slot {slot}"))),
            }
        }
        Ok((buffers, attributes))
    }

    /// `clear rtv N r g b a` / `clear dsv d`.
    fn clear(&mut self, kind: ResourceKind, slot: u32, values: &[f32]) {
        if kind == ResourceKind::Rtv {
            self.multisample.reset((kind, 0, slot));
        }
        let Some(live) = self.resources.get_mut(&(kind, 0, slot)) else {
            return;
        };
        let format = live
            .decl
            .format
            .clone()
            .unwrap_or_else(|| "r32g32b32a32-float".into());
        match &mut live.payload {
            Ok(Payload::Target(t)) => match resources::clear_texel(&format, values) {
                Ok(texel) => {
                    for chunk in t.data.chunks_exact_mut(texel.len().max(1)) {
                        chunk.copy_from_slice(&texel);
                    }
                    live.contents = Contents::Known;
                }
                Err(why) => live.contents = Contents::Skip(why),
            },
            Ok(Payload::Depth(d)) => {
                let depth = values.first().copied().unwrap_or(0.0).to_le_bytes();
                for chunk in d.data.chunks_exact_mut(4) {
                    chunk.copy_from_slice(&depth);
                }
                // This project's `clear dsv DEPTH STENCIL`: the stencil value is optional.
                if let (Some(stencil), Some(&value)) = (d.stencil.as_mut(), values.get(1)) {
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    stencil.data.fill(value.clamp(0.0, 255.0) as u8);
                }
                live.contents = Contents::Known;
            }
            _ => {}
        }
    }

    /// `copy SRC DST`: the runner keeps contents on the host, so this copies bytes.
    fn copy(&mut self, src: Key, dst: Key) {
        let Some(source) = self.resources.get(&src) else {
            return;
        };
        let multisampled = match &source.payload {
            Ok(Payload::Target(t)) => t.samples > 1,
            Ok(Payload::Bound(r)) => r.image().is_some_and(|shape| shape.samples > 1),
            _ => false,
        };
        self.multisample.copied(src, dst, multisampled);
        let (bytes, contents, fxc_ok) = match &source.payload {
            Ok(p) => (
                p.probe_view().0.to_vec(),
                source.contents.clone(),
                source.fxc_ok,
            ),
            Err(why) => (Vec::new(), Contents::Skip(why.clone()), false),
        };
        if let Some(live) = self.resources.get_mut(&dst) {
            let data = match &mut live.payload {
                Ok(Payload::Bound(r)) => r.data_mut(),
                Ok(Payload::Target(t)) => Some(&mut t.data),
                Ok(Payload::Depth(d)) => Some(&mut d.data),
                Ok(Payload::Vertices(v)) => Some(v),
                Err(_) => None,
            };
            if let Some(data) = data {
                let n = data.len().min(bytes.len());
                if let (Some(d), Some(s)) = (data.get_mut(..n), bytes.get(..n)) {
                    d.copy_from_slice(s);
                }
            }
            live.contents = contents;
            live.fxc_ok = fxc_ok;
        }
    }

    /// Checks one `probe dsv stencil` (this project's extension) against the stencil aspect
    /// of the depth-stencil target.
    fn probe_stencil(&self, area: st::ProbeArea, values: &st::ProbeValues) -> (Outcome, bool) {
        let fail = |actual: &str| Outcome::Fail {
            expected: format!("stencil {}", describe(values)),
            actual: actual.to_string(),
        };
        let Some(live) = self.resources.get(&(ResourceKind::Dsv, 0, 0)) else {
            return (fail("no [dsv]"), false);
        };
        let outcome = match (&live.contents, &live.payload) {
            (Contents::Skip(reason), _) => Outcome::Skip(reason.clone()),
            (Contents::Fail(message), _) => fail(message),
            (Contents::Known, Err(why)) => Outcome::Skip(why.clone()),
            (Contents::Known, Ok(Payload::Depth(d))) => match &d.stencil {
                None => fail("the [dsv] has no stencil aspect (format d32-float-s8-uint)"),
                Some(stencil) => {
                    // Each stencil byte widened to a 32-bit word, probed as `u32`.
                    let words: Vec<u8> = stencil
                        .data
                        .iter()
                        .flat_map(|&b| u32::from(b).to_le_bytes())
                        .collect();
                    let row_pitch = usize::try_from(d.width).unwrap_or(0).saturating_mul(4);
                    let addressing = probe::Addressing::Image {
                        texel: 4,
                        row_pitch,
                        layer_pitch: row_pitch
                            .saturating_mul(usize::try_from(d.height).unwrap_or(0)),
                    };
                    let probe = st::Probe {
                        resource: None,
                        area,
                        values: values.clone(),
                        ulp: 0,
                    };
                    match probe::check(&words, addressing, &probe) {
                        Outcome::Fail { expected, actual } => Outcome::Fail {
                            expected: format!("stencil {expected}"),
                            actual: format!("stencil {actual}"),
                        },
                        other => other,
                    }
                }
            },
            (Contents::Known, Ok(_)) => fail("the dsv is not a depth target"),
        };
        (outcome, live.fxc_ok)
    }

    /// Checks one probe; returns its outcome and whether the shaders behind it are fxc-ok.
    fn probe(&self, probe: &st::Probe) -> (Outcome, bool) {
        let key = probe
            .resource
            .map_or((ResourceKind::Rtv, 0, 0), |r| (r.kind, 0, r.slot));
        let Some(live) = self.resources.get(&key) else {
            return (
                Outcome::Fail {
                    expected: format!("{:?} {} exists", key.0, key.1),
                    actual: "no such resource".into(),
                },
                false,
            );
        };
        let outcome = match (&live.contents, &live.payload) {
            (Contents::Skip(reason), _) => Outcome::Skip(reason.clone()),
            (Contents::Fail(message), _) => Outcome::Fail {
                expected: describe(&probe.values),
                actual: message.clone(),
            },
            (Contents::Known, Err(why)) => Outcome::Skip(why.clone()),
            (Contents::Known, Ok(payload)) => {
                let (data, addressing) = payload.probe_view();
                probe::check(data, addressing, probe)
            }
        };
        (outcome, live.fxc_ok)
    }
}

/// Why a shader section has no DXBC: work with it is skipped, or fails.
#[derive(Debug, Clone)]
enum NoBytes {
    Skip(String),
    Fail(String),
}

impl From<NoBytes> for ShaderState {
    fn from(why: NoBytes) -> ShaderState {
        match why {
            NoBytes::Skip(reason) => ShaderState::Skip(reason),
            NoBytes::Fail(message) => ShaderState::Fail(message),
        }
    }
}

/// The DXBC of a shader section: assembled, decoded from hex, or the compiled blob; or why
/// there is none.
fn shader_bytes(
    blobs: &dyn BlobSource,
    file_name: &str,
    section: &st::Section,
    shader: &st::ShaderSection,
    profile: &str,
    options: &[String],
) -> Result<Vec<u8>, NoBytes> {
    match shader.format() {
        SourceFormat::Asm => dxbc2spirv::asm::assemble(&shader.source)
            .map_err(|e| NoBytes::Fail(format!("assembling: {e}"))),
        SourceFormat::DxbcTpfHex => {
            st::decode_hex(&shader.source).map_err(|e| NoBytes::Fail(format!("decoding hex: {e}")))
        }
        _ => match blobs.blob(file_name, section, profile, options) {
            Ok(Some(b)) => Ok(b),
            Ok(None) => Err(NoBytes::Skip("no blob (upstream compile failure)".into())),
            Err(e) => Err(NoBytes::Fail(e)),
        },
    }
}

/// The translator's options for a device: the Vulkan version it runs and the optional
/// features it has (debug names left out: the runner never reads them).
pub fn options_for(features: &vulkan::Features) -> dxbc2spirv::TranslateOptions {
    let target = match vulkan_major_minor(features.api_version) {
        (1, 1) => dxbc2spirv::spirv::TargetEnv::Vulkan1_1,
        (1, 2) => dxbc2spirv::spirv::TargetEnv::Vulkan1_2,
        _ => dxbc2spirv::spirv::TargetEnv::Vulkan1_3,
    };

    let mut wanted = dxbc2spirv::spirv::Features::default();
    wanted.float64 = features.shader_float64;
    wanted.denorm_preserve_float64 = features.denorm_preserve_float64;
    wanted.signed_zero_inf_nan_preserve_float32 = features.signed_zero_inf_nan_preserve_float32;
    wanted.signed_zero_inf_nan_preserve_float64 = features.signed_zero_inf_nan_preserve_float64;
    // lavapipe (Mesa 25.0) crashes in its JIT code on `OpImageSparse*` of an image that is
    // not sparse, so the `_s` forms use the fallback there (statuses say "fully mapped",
    // which every resource of the runner is).
    wanted.sparse_residency =
        features.shader_resource_residency && !features.device_name.contains("llvmpipe");
    wanted.min_lod = features.shader_resource_min_lod;
    wanted.float16 = features.shader_float16;
    wanted.int16 = features.shader_int16;
    wanted.native_16bit = false;
    wanted.shader_clock = features.shader_subgroup_clock;
    let mut options = dxbc2spirv::TranslateOptions::default();
    options.target = target;
    options.features = wanted;
    options.debug_names = false;
    options
}

/// The (major, minor) of a packed Vulkan version.
fn vulkan_major_minor(version: u32) -> (u32, u32) {
    (version >> 22, (version >> 12) & 0x3ff)
}

/// Translates DXBC bytes into SPIR-V with these options, with the vertex-input table of its
/// input signature.
/// The factor of a `blend` command's name (see [`st::Command::Blend`]).
fn blend_factor(name: &str) -> Option<vulkan::BlendFactor> {
    use vulkan::BlendFactor as F;
    Some(match name {
        "zero" => F::Zero,
        "one" => F::One,
        "src-color" => F::SrcColor,
        "one-minus-src-color" => F::OneMinusSrcColor,
        "src-alpha" => F::SrcAlpha,
        "one-minus-src-alpha" => F::OneMinusSrcAlpha,
        "src1-color" => F::Src1Color,
        "one-minus-src1-color" => F::OneMinusSrc1Color,
        "src1-alpha" => F::Src1Alpha,
        "one-minus-src1-alpha" => F::OneMinusSrc1Alpha,
        "dst-color" => F::DstColor,
        _ => return None,
    })
}

/// Translates a shader's bytes; with a `fault`, the module is rewritten with it.
fn translate(
    bytes: &[u8],
    options: dxbc2spirv::TranslateOptions,
    mapper: &dyn dxbc2spirv::bindings::BindingMapper,
    fault: Option<crate::fault::Fault>,
) -> ShaderState {
    let dxbc = match dxbc2spirv::read(bytes, &dxbc2spirv::ReadOptions::default()) {
        Ok(d) => d,
        Err(e) => return ShaderState::Fail(format!("reading: {e}")),
    };
    let Some(program) = &dxbc.program else {
        return ShaderState::Fail("the container holds no shader program".into());
    };
    let interface = dxbc2spirv::reflect::InterfaceOptions {
        map: options.interface.as_ref(),
        dual_source_blending: options.dual_source_blending,
    };
    let reflection =
        match dxbc2spirv::reflect::scan_with(program, &dxbc.reflection, mapper, interface) {
            Ok(reflection) => reflection,
            Err(e) => return ShaderState::Fail(format!("binding plan: {e}")),
        };
    let plan = reflection.plan.clone();
    match dxbc2spirv::translate_program(program, &dxbc.reflection, &options, mapper) {
        Ok(words) => {
            let words = match fault.map(|f| (f, f.rewrite(&words))) {
                None => words,
                Some((_, Ok(rewritten))) => rewritten.words,
                Some((f, Err(e))) => return ShaderState::Fail(format!("fault {f}: {e}")),
            };
            // Vertex inputs at the locations the translation gave them (the register, or
            // the interface map's).
            let inputs = dxbc
                .reflection
                .input
                .iter()
                .flat_map(|s| &s.elements)
                .zip(
                    reflection
                        .placements
                        .inputs
                        .iter()
                        .copied()
                        .chain(std::iter::repeat(None)),
                )
                .filter(|(e, _)| e.system_value == dxbc2spirv::container::SystemValue::Undefined)
                .map(|(e, p)| {
                    let location = p.map_or(e.register, |p| p.location);
                    (e.semantic_name.clone(), e.semantic_index, location)
                })
                .collect();
            let multisampled = program
                .instructions
                .iter()
                .filter_map(|i| match &i.declaration {
                    Some(Declaration::Resource {
                        range,
                        dimension:
                            ResourceDimension::Texture2DMS | ResourceDimension::Texture2DMSArray,
                        ..
                    }) => Some(*range),
                    _ => None,
                })
                .collect();
            ShaderState::Ready {
                words,
                inputs,
                plan,
                reflection: Box::new(reflection),
                multisampled,
            }
        }
        Err(e) if e.kind == ErrorKind::Unsupported => {
            ShaderState::Skip(format!("unsupported: {e}"))
        }
        Err(e) => ShaderState::Fail(format!("translation error: {e}")),
    }
}

/// `viewport N (x, y, width, height)`.
fn parse_viewport(text: &str) -> Option<(u32, vulkan::Viewport)> {
    let rest = text.trim().strip_prefix("viewport")?;
    let (index, values) = rest.split_once('(')?;
    let index = index.trim().parse().ok()?;
    let values: Vec<f32> = values
        .trim_end()
        .strip_suffix(')')?
        .split(',')
        .map(|v| v.trim().parse().ok())
        .collect::<Option<_>>()?;
    match values[..] {
        [x, y, width, height] => Some((
            index,
            vulkan::Viewport {
                x,
                y,
                width,
                height,
            },
        )),
        _ => None,
    }
}

/// The Vulkan compare op of a shader_test comparison.
/// The Vulkan form of a `stencil` command's test.
fn stencil_test(state: st::StencilState) -> vulkan::StencilTest {
    let op = |op: st::StencilOpName| match op {
        st::StencilOpName::Keep => vulkan::StencilOp::Keep,
        st::StencilOpName::Zero => vulkan::StencilOp::Zero,
        st::StencilOpName::Replace => vulkan::StencilOp::Replace,
        st::StencilOpName::IncrSat => vulkan::StencilOp::IncrementClamp,
        st::StencilOpName::DecrSat => vulkan::StencilOp::DecrementClamp,
        st::StencilOpName::Invert => vulkan::StencilOp::Invert,
        st::StencilOpName::Incr => vulkan::StencilOp::IncrementWrap,
        st::StencilOpName::Decr => vulkan::StencilOp::DecrementWrap,
    };
    vulkan::StencilTest {
        compare: compare_op(state.compare),
        pass: op(state.pass),
        fail: op(state.fail),
        depth_fail: op(state.depth_fail),
        reference: state.reference,
        compare_mask: state.read_mask,
        write_mask: state.write_mask,
    }
}

fn compare_op(c: st::Comparison) -> vulkan::CompareOp {
    match c {
        st::Comparison::Never => vulkan::CompareOp::Never,
        st::Comparison::Less => vulkan::CompareOp::Less,
        st::Comparison::Equal => vulkan::CompareOp::Equal,
        st::Comparison::LessEqual => vulkan::CompareOp::LessEqual,
        st::Comparison::Greater => vulkan::CompareOp::Greater,
        st::Comparison::NotEqual => vulkan::CompareOp::NotEqual,
        st::Comparison::GreaterEqual => vulkan::CompareOp::GreaterEqual,
        st::Comparison::Always => vulkan::CompareOp::Always,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` parsed.
    fn file(text: &str) -> ShaderTestFile {
        ShaderTestFile::parse(text).unwrap()
    }

    #[test]
    fn stencil_export_is_a_required_feature() {
        let f = file("[require]\nstencil-export\n");
        let SectionKind::Require(lines) = &f.sections[0].kind else {
            panic!("{:?}", f.sections[0].kind)
        };
        let without = vulkan::Features::default();
        assert_eq!(
            missing_features(lines, &without),
            vec!["device lacks a required feature: stencil-export".to_string()]
        );
        let with = vulkan::Features {
            shader_stencil_export: true,
            ..Default::default()
        };
        assert!(missing_features(lines, &with).is_empty());
    }

    #[test]
    fn depth_bounds_is_queried_and_direct3d_9_states_do_not_apply() {
        let f = file("[require]\ndepth-bounds\npoint-size\nfog\n");
        let SectionKind::Require(lines) = &f.sections[0].kind else {
            panic!("{:?}", f.sections[0].kind)
        };
        let with = vulkan::Features {
            depth_bounds: true,
            ..Default::default()
        };
        let missing = missing_features(lines, &with);
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(
            missing.iter().all(|m| m.starts_with("not applicable: ")
                && m.contains("Direct3D 9 render state")),
            "{missing:?}"
        );
        let without = missing_features(lines, &vulkan::Features::default());
        assert_eq!(
            without.first().map(String::as_str),
            Some("device lacks a required feature: depth-bounds"),
            "{without:?}"
        );
    }

    #[test]
    fn shader_clock_is_a_required_feature_that_options_follow() {
        let f = file("[require]\nshader-clock\n");
        let SectionKind::Require(lines) = &f.sections[0].kind else {
            panic!("{:?}", f.sections[0].kind)
        };
        let without = vulkan::Features::default();
        assert_eq!(
            missing_features(lines, &without),
            vec!["device lacks a required feature: shader-clock".to_string()]
        );
        assert!(!options_for(&without).features.shader_clock);
        let with = vulkan::Features {
            shader_subgroup_clock: true,
            ..Default::default()
        };
        assert!(missing_features(lines, &with).is_empty());
        assert!(options_for(&with).features.shader_clock);
    }

    #[test]
    fn depth_stencil_targets() {
        let f = file(
            "[dsv]\nformat d32-float-s8-uint\nsize (2d, 3, 2)\n\n[dsv]\nsize (2d, 3, 2)\n\n\
             [dsv]\nformat d24-unorm-s8-uint\n",
        );
        let payloads: Vec<_> = f
            .sections
            .iter()
            .filter_map(|s| match &s.kind {
                SectionKind::Resource(r) => Some(resources::payload(r)),
                _ => None,
            })
            .collect();
        let Ok(Payload::Depth(d)) = &payloads[0] else {
            panic!("{:?}", payloads[0])
        };
        assert_eq!(d.data.len(), 24);
        assert_eq!(d.stencil.as_ref().map(|s| s.data.clone()), Some(vec![0; 6]));
        let Ok(Payload::Depth(d)) = &payloads[1] else {
            panic!("{:?}", payloads[1])
        };
        assert_eq!(d.stencil, None);
        assert!(payloads[2].is_err(), "{:?}", payloads[2]);
    }

    #[test]
    fn stencil_commands_map_to_vulkan() {
        let state = st::StencilState {
            compare: st::Comparison::Equal,
            pass: st::StencilOpName::IncrSat,
            fail: st::StencilOpName::Invert,
            depth_fail: st::StencilOpName::Decr,
            reference: 9,
            read_mask: 0x0f,
            write_mask: 0xf0,
        };
        assert_eq!(
            stencil_test(state),
            vulkan::StencilTest {
                compare: vulkan::CompareOp::Equal,
                pass: vulkan::StencilOp::IncrementClamp,
                fail: vulkan::StencilOp::Invert,
                depth_fail: vulkan::StencilOp::DecrementWrap,
                reference: 9,
                compare_mask: 0x0f,
                write_mask: 0xf0,
            }
        );
    }
}
