//! Runs the compute work of a `.shader_test` file on the reference interpreter
//! ([`crate::interp`]) instead of a Vulkan device, and checks the probes on UAVs: the
//! interpreter's own proof against the suites' expectations, before it judges the translator.
//!
//! Only UAV probes are recorded. A UAV last written by a draw (a pixel shader's UAV) is
//! probed as a skip naming the reason; render targets, stream output and stencil are not
//! probed at all (the interpreter runs compute shaders).

use std::collections::BTreeMap;

use super::probe::{self, Addressing};
use super::uniforms::Uniforms;
use super::{
    describe, shader_bytes, BlobSource, FileReport, Outcome, ProbeRecord, ShaderState, NOT_SM45,
};
use crate::interp::{self, Resource, Shape};
use crate::shader_test::{
    self as st, Command, EvalContext, ExpectedFxc, ResourceKind, SectionKind, ShaderModel,
    ShaderTestFile, Stage,
};
use dxbc2spirv::ErrorKind;

/// What a UAV holds for the probes.
#[derive(Debug, Clone)]
enum Contents {
    Known,
    Skip(String),
    Fail(String),
}

/// One `[srv N]` or `[uav N]` section in the interpreter's form.
struct Entry {
    resource: Result<Resource, String>,
    contents: Contents,
}

/// The compute shader in force.
enum Compute {
    Ready(dxbc2spirv::ir::Program),
    Unusable(ShaderState),
}

/// Runs `file` (named `file_name` for blob lookups) on the reference interpreter and returns
/// the records of its UAV probes. The `if(…)` conditions see no device tags: the interpreter
/// stands for D3D itself.
pub fn interpret_file(
    file: &ShaderTestFile,
    file_name: &str,
    blobs: &dyn BlobSource,
    options: &interp::Options,
) -> FileReport {
    let mut resources: BTreeMap<(ResourceKind, u32, u32), Entry> = BTreeMap::new();
    let mut uniforms = Uniforms::default();
    let mut compute: Option<Compute> = None;
    let mut report = FileReport::default();
    for (section, state) in file.sections_with_require() {
        let model = state.min.max(ShaderModel::new(4, 0));
        let in_range = state.max.is_none_or(|max| model < max) && model < ShaderModel::new(6, 0);
        match &section.kind {
            SectionKind::Resource(decl)
                if matches!(decl.kind, ResourceKind::Srv | ResourceKind::Uav) =>
            {
                resources.insert(
                    (decl.kind, decl.space, decl.slot),
                    Entry {
                        resource: Resource::from_shader_test(decl),
                        contents: Contents::Known,
                    },
                );
            }
            SectionKind::Shader(sh) if sh.stage == Stage::Compute => {
                compute = Some(match st::profile(sh, &state) {
                    Some(_) if !in_range => Compute::Unusable(ShaderState::Skip(NOT_SM45.into())),
                    None => Compute::Unusable(ShaderState::Skip(NOT_SM45.into())),
                    Some(profile) => load(blobs, file_name, section, sh, model, &profile, &state),
                });
            }
            SectionKind::Test(lines) => {
                let eval = EvalContext { model, tags: &[] };
                for line in lines.iter().filter(|l| l.runs(&eval)) {
                    match &line.command {
                        Command::Uniform {
                            buffer,
                            offset,
                            values,
                            ..
                        } => uniforms.set(*buffer, *offset, &values.words()),
                        Command::Dispatch { x, y, z } => {
                            let outcome = if in_range {
                                dispatch(&compute, &mut resources, &uniforms, [*x, *y, *z], options)
                            } else {
                                Contents::Skip(NOT_SM45.into())
                            };
                            set_uav_contents(&mut resources, &outcome);
                        }
                        Command::DrawQuad | Command::Draw { .. } => set_uav_contents(
                            &mut resources,
                            &Contents::Skip(
                                "written by a draw: the interpreter runs compute shaders".into(),
                            ),
                        ),
                        Command::Clear { .. } | Command::Copy { .. } => set_uav_contents(
                            &mut resources,
                            &Contents::Skip(
                                "after a clear or copy, which the interpreter's runner does not \
                                 model"
                                    .into(),
                            ),
                        ),
                        Command::Probe(probe)
                            if probe.resource.is_some_and(|r| r.kind == ResourceKind::Uav) =>
                        {
                            let slot = probe.resource.map_or(0, |r| r.slot);
                            let outcome = if !in_range {
                                Outcome::Skip(NOT_SM45.into())
                            } else {
                                check(resources.get(&(ResourceKind::Uav, 0, slot)), probe)
                            };
                            let todo = line.is_todo(&eval) || line.is_bug(&eval);
                            let outcome = match outcome {
                                Outcome::Fail { expected, actual } if todo => {
                                    Outcome::TodoFail { expected, actual }
                                }
                                other => other,
                            };
                            report.records.push(ProbeRecord {
                                line: line.line,
                                text: line.text.clone(),
                                outcome,
                                fxc_ok: true,
                            });
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    report
}

/// Reads the compute shader of a section into a program, or says why it cannot run.
fn load(
    blobs: &dyn BlobSource,
    file_name: &str,
    section: &st::Section,
    shader: &st::ShaderSection,
    model: ShaderModel,
    profile: &str,
    state: &st::RequireState,
) -> Compute {
    if matches!(
        st::expected_fxc(&shader.qualifiers, model),
        ExpectedFxc::Fail | ExpectedFxc::NotImpl
    ) {
        return Compute::Unusable(ShaderState::Skip(format!(
            "shader is expected not to compile with fxc for {profile}"
        )));
    }
    let bytes = match shader_bytes(blobs, file_name, section, shader, profile, &state.options) {
        Ok(bytes) => bytes,
        Err(why) => return Compute::Unusable(why.into()),
    };
    match dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()) {
        Ok(dxbc) => match dxbc.program {
            Some(program) => Compute::Ready(program),
            None => Compute::Unusable(ShaderState::Fail(
                "the container holds no shader program".into(),
            )),
        },
        Err(e) => Compute::Unusable(ShaderState::Fail(format!("reading: {e}"))),
    }
}

/// Runs a dispatch on the interpreter; the UAVs take what it wrote.
fn dispatch(
    compute: &Option<Compute>,
    resources: &mut BTreeMap<(ResourceKind, u32, u32), Entry>,
    uniforms: &Uniforms,
    groups: [u32; 3],
    options: &interp::Options,
) -> Contents {
    let program = match compute {
        None => return Contents::Fail("dispatch without a compute shader".into()),
        Some(Compute::Unusable(ShaderState::Skip(why))) => return Contents::Skip(why.clone()),
        Some(Compute::Unusable(ShaderState::Fail(why))) => return Contents::Fail(why.clone()),
        Some(Compute::Unusable(ShaderState::Ready { .. })) => {
            return Contents::Fail("internal: a ready shader marked unusable".into())
        }
        Some(Compute::Ready(program)) => program,
    };
    let mut bound = interp::Resources::default();
    for (&(kind, space, slot), entry) in resources.iter() {
        let Ok(resource) = &entry.resource else {
            continue;
        };
        let map = if kind == ResourceKind::Uav {
            &mut bound.uavs
        } else {
            &mut bound.srvs
        };
        map.insert((space, slot), resource.clone());
    }
    for (register, words) in uniforms.buffers() {
        bound.constant_buffers.insert((0, register), words.to_vec());
    }
    if let Err(e) = interp::dispatch(program, &mut bound, groups, options) {
        return match e.kind {
            ErrorKind::Unsupported => Contents::Skip(format!("interpreter: unsupported: {e}")),
            _ => Contents::Fail(format!("interpreter: {e}")),
        };
    }
    for ((space, slot), resource) in bound.uavs {
        if let Some(entry) = resources.get_mut(&(ResourceKind::Uav, space, slot)) {
            entry.resource = Ok(resource);
        }
    }
    Contents::Known
}

/// Records what the last work did to every UAV.
fn set_uav_contents(resources: &mut BTreeMap<(ResourceKind, u32, u32), Entry>, outcome: &Contents) {
    for ((kind, ..), entry) in resources.iter_mut() {
        if *kind == ResourceKind::Uav {
            entry.contents = outcome.clone();
        }
    }
}

/// Checks a probe against a UAV.
fn check(entry: Option<&Entry>, probe: &st::Probe) -> Outcome {
    let Some(entry) = entry else {
        return Outcome::Fail {
            expected: describe(&probe.values),
            actual: "no such UAV".into(),
        };
    };
    match (&entry.contents, &entry.resource) {
        (Contents::Skip(why), _) => Outcome::Skip(why.clone()),
        (Contents::Fail(why), _) => Outcome::Fail {
            expected: describe(&probe.values),
            actual: why.clone(),
        },
        (Contents::Known, Err(why)) => Outcome::Skip(format!("interpreter resource: {why}")),
        (Contents::Known, Ok(resource)) => {
            probe::check(&resource.data, addressing(resource.shape), probe)
        }
    }
}

/// How a probe addresses a resource's bytes (level 0 of textures).
fn addressing(shape: Shape) -> Addressing {
    match shape {
        Shape::Texture {
            format,
            width,
            height,
            ..
        } => Addressing::image(
            usize::try_from(format.texel_size()).unwrap_or(0),
            width,
            height,
        ),
        _ => Addressing::Buffer,
    }
}
