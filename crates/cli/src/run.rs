//! The `run` subcommand: a compute shader dispatched on Vulkan with buffers given on the
//! command line, and the UAVs printed afterwards.
//!
//! Before any Vulkan call the buffers given are checked against the shader's reflection:
//! every UAV and constant buffer it declares must be given, as it declares it (a typed UAV
//! with a format of its texel type), and nothing it does not declare may be given.

use anyhow::{Context, Result};
use dxbc2spirv::analysis::binding_plan::ArrayShape;
use dxbc2spirv::bindings::DescriptorClass;
use dxbc2spirv::reflect::{RangeInfo, ShaderReflection};
use dxbc2spirv_testkit::vulkan::{self, Binding, Format, Resource};

use crate::cli::usage;

/// The numeric type of a typed buffer's texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numeric {
    /// 32-bit floats.
    Float,
    /// 32-bit unsigned integers.
    Uint,
    /// 32-bit signed integers.
    Sint,
}

impl Numeric {
    /// The value kind's name in messages (`f32`, `u32`, `i32`).
    fn value_name(self) -> &'static str {
        match self {
            Numeric::Float => "f32",
            Numeric::Uint => "u32",
            Numeric::Sint => "i32",
        }
    }

    /// Parses one value of this type into its bits.
    fn parse(self, value: &str) -> Option<u32> {
        match self {
            Numeric::Float => value.parse::<f32>().ok().map(f32::to_bits),
            Numeric::Uint => parse_u32(value),
            Numeric::Sint => value.parse::<i32>().ok().map(|v| v as u32),
        }
    }

    /// Formats one value of this type from its bits.
    fn show(self, bits: u32) -> String {
        match self {
            Numeric::Float => format!("{}", f32::from_bits(bits)),
            Numeric::Uint => bits.to_string(),
            Numeric::Sint => (bits as i32).to_string(),
        }
    }
}

/// A texel format a typed UAV buffer can be given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypedFormat {
    /// The name on the command line (`r32f`).
    pub name: &'static str,
    /// The view format.
    pub format: Format,
    /// Components per texel.
    pub components: usize,
    /// The components' type.
    pub numeric: Numeric,
}

/// The supported formats of typed UAV buffers.
pub const TYPED_FORMATS: [TypedFormat; 9] = {
    const fn f(
        name: &'static str,
        format: Format,
        components: usize,
        numeric: Numeric,
    ) -> TypedFormat {
        TypedFormat {
            name,
            format,
            components,
            numeric,
        }
    }
    [
        f("r32f", Format::R32Float, 1, Numeric::Float),
        f("r32ui", Format::R32Uint, 1, Numeric::Uint),
        f("r32i", Format::R32Sint, 1, Numeric::Sint),
        f("rg32f", Format::R32G32Float, 2, Numeric::Float),
        f("rg32ui", Format::R32G32Uint, 2, Numeric::Uint),
        f("rg32i", Format::R32G32Sint, 2, Numeric::Sint),
        f("rgba32f", Format::R32G32B32A32Float, 4, Numeric::Float),
        f("rgba32ui", Format::R32G32B32A32Uint, 4, Numeric::Uint),
        f("rgba32i", Format::R32G32B32A32Sint, 4, Numeric::Sint),
    ]
};

/// The names of the typed formats of one numeric type, for messages.
fn format_names(numeric: Option<Numeric>) -> String {
    TYPED_FORMATS
        .iter()
        .filter(|f| numeric.is_none_or(|n| f.numeric == n))
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a buffer's values were given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferKind {
    /// `raw:SIZE`: SIZE zero bytes.
    Raw,
    /// `u32:…`, `i32:…` or `f32:…`: 32-bit values of an untyped buffer.
    Words(Numeric),
    /// A typed buffer's format (`r32f:…`).
    Typed(TypedFormat),
}

/// A buffer given as `N=KIND:VALUES`.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferArg {
    /// The register number (`u#` or `cb#`).
    pub register: u32,
    /// How the values were given.
    pub kind: BufferKind,
    /// The initial bytes.
    pub bytes: Vec<u8>,
}

/// Parses `N=raw:SIZE` (SIZE zero bytes), `N=u32:1,2,…`, `N=i32:…`, `N=f32:1.5,…` or a
/// typed format with its values, `N=r32f:1,2,…` (see [`TYPED_FORMATS`]).
pub fn parse_buffer(text: &str) -> std::result::Result<BufferArg, String> {
    let (register, rest) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected N=KIND:VALUES, e.g. 0=raw:256 or 0=u32:1,2"))?;
    let register: u32 = register
        .trim()
        .parse()
        .map_err(|_| format!("`{text}`: `{register}` is not a register number"))?;
    let (kind, values_text) = rest
        .split_once(':')
        .ok_or_else(|| format!("`{text}`: expected KIND:VALUES after the `=`"))?;
    let values = values_text
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty());
    let mut bytes = Vec::new();
    let (kind, numeric, components) = match kind {
        "raw" => {
            let size: usize = values_text
                .trim()
                .parse()
                .map_err(|_| format!("`{text}`: raw:SIZE needs a byte count"))?;
            if size == 0 || !size.is_multiple_of(4) || size > 1 << 28 {
                return Err(format!(
                    "`{text}`: the size must be a positive multiple of 4 bytes (at most 256 MiB)"
                ));
            }
            bytes.resize(size, 0);
            return Ok(BufferArg {
                register,
                kind: BufferKind::Raw,
                bytes,
            });
        }
        "u32" => (BufferKind::Words(Numeric::Uint), Numeric::Uint, 1),
        "i32" => (BufferKind::Words(Numeric::Sint), Numeric::Sint, 1),
        "f32" => (BufferKind::Words(Numeric::Float), Numeric::Float, 1),
        other => match TYPED_FORMATS.iter().find(|f| f.name == other) {
            Some(f) => (BufferKind::Typed(*f), f.numeric, f.components),
            None => {
                return Err(format!(
                    "`{text}`: unknown kind `{other}` (raw, u32, i32, f32, or a typed UAV's \
                     format: {})",
                    format_names(None)
                ))
            }
        },
    };
    for value in values {
        let word = numeric.parse(value).ok_or_else(|| {
            format!(
                "`{text}`: `{value}` is not a {} value",
                numeric.value_name()
            )
        })?;
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    if bytes.is_empty() {
        return Err(format!("`{text}`: no values"));
    }
    if !(bytes.len() / 4).is_multiple_of(components) {
        return Err(format!(
            "`{text}`: {} values are not a whole number of {components}-component texels",
            bytes.len() / 4
        ));
    }
    Ok(BufferArg {
        register,
        kind,
        bytes,
    })
}

fn parse_u32(value: &str) -> Option<u32> {
    match value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => value.parse().ok(),
    }
}

/// Parses `X,Y,Z`.
pub fn parse_groups(text: &str) -> std::result::Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y, z] = parts.as_slice() else {
        return Err(format!("`{text}`: expected X,Y,Z (three group counts)"));
    };
    let number = |v: &str| -> std::result::Result<u32, String> {
        v.parse()
            .map_err(|_| format!("`{text}`: `{v}` is not a group count"))
    };
    Ok([number(x)?, number(y)?, number(z)?])
}

/// The stage of a shader model name (`ps_5_0` → `a pixel shader`).
fn stage_of(model: &str) -> &'static str {
    match model.get(..2) {
        Some("ps") => "a pixel shader",
        Some("vs") => "a vertex shader",
        Some("gs") => "a geometry shader",
        Some("hs") => "a hull shader",
        Some("ds") => "a domain shader",
        Some("cs") => "a compute shader",
        _ => "not a compute shader",
    }
}

/// Refuses a shader that is not a compute shader (an input error: `run` cannot run it).
pub fn check_compute(reflection: &ShaderReflection, input: &str) -> Result<()> {
    if reflection.model.starts_with("cs_") {
        return Ok(());
    }
    anyhow::bail!(
        "run executes compute shaders; {input} is {} ({})",
        stage_of(&reflection.model),
        reflection.model
    )
}

/// One buffer to print after the run.
struct Shown {
    /// `u0`, `u0 counter`.
    label: String,
    /// Index into the bindings.
    binding: usize,
    /// Printed as typed values, or as hexadecimal words.
    typed: Option<TypedFormat>,
}

/// The bindings of a run and what to print afterwards.
pub struct Plan {
    bindings: Vec<Binding>,
    shown: Vec<Shown>,
}

/// What a range declares, for messages: `a typed UAV buffer (float)`.
fn declared(range: &RangeInfo) -> String {
    let b = &range.binding;
    let name = range
        .name
        .as_ref()
        .map_or_else(String::new, |n| format!(" `{n}`"));
    let what = match (b.key.class, range.dimension) {
        (DescriptorClass::UnorderedAccess, Some("raw_buffer")) => "a raw UAV".to_string(),
        (DescriptorClass::UnorderedAccess, Some("structured_buffer")) => format!(
            "a structured UAV ({}-byte elements)",
            range.stride.unwrap_or(0)
        ),
        (DescriptorClass::UnorderedAccess, Some("buffer")) => format!(
            "a typed UAV buffer ({})",
            range.return_type.map_or("?", |r| r[0])
        ),
        (DescriptorClass::UnorderedAccess, dim) => {
            format!("a typed UAV {}", dim.unwrap_or("resource"))
        }
        (DescriptorClass::ConstantBuffer, _) => format!(
            "a constant buffer of {} bytes",
            range.cbuffer_size.unwrap_or(0).saturating_mul(16)
        ),
        (DescriptorClass::ShaderResource, dim) => {
            format!("a shader resource ({})", dim.unwrap_or("resource"))
        }
        (DescriptorClass::Sampler, _) => "a sampler".to_string(),
        (DescriptorClass::UavCounter, _) => "a UAV counter".to_string(),
    };
    format!("{what}{name}")
}

/// The typed texel type a UAV's return type needs.
fn numeric_of(return_type: &str) -> Option<Numeric> {
    match return_type {
        "float" | "unorm" | "snorm" => Some(Numeric::Float),
        "uint" => Some(Numeric::Uint),
        "sint" => Some(Numeric::Sint),
        _ => None,
    }
}

/// Checks the buffers given against what the shader declares and lays out the bindings
/// (the default layout, as the translation used). A missing, mismatched or undeclared
/// buffer is a usage error naming the register and what the shader declares.
pub fn plan(reflection: &ShaderReflection, uavs: &[BufferArg], cbs: &[BufferArg]) -> Result<Plan> {
    for (flag, args) in [("--uav", uavs), ("--cb", cbs)] {
        for (i, a) in args.iter().enumerate() {
            if args[..i].iter().any(|b| b.register == a.register) {
                return Err(usage(format!("{flag} {}: given twice", a.register)));
            }
        }
    }
    let mut plan = Plan {
        bindings: Vec::new(),
        shown: Vec::new(),
    };
    let mut used_uavs = vec![false; uavs.len()];
    let mut used_cbs = vec![false; cbs.len()];
    for range in &reflection.ranges {
        let b = &range.binding;
        let prefix = match b.key.class {
            DescriptorClass::ConstantBuffer => "cb",
            DescriptorClass::UnorderedAccess | DescriptorClass::UavCounter => "u",
            DescriptorClass::ShaderResource => "t",
            DescriptorClass::Sampler => "s",
        };
        let label = match b.range.upper {
            Some(u) if u == b.range.lower => format!("{prefix}{}", b.range.lower),
            Some(u) => format!("{prefix}{}..{prefix}{u}", b.range.lower),
            None => format!("{prefix}{}..", b.range.lower),
        };
        let what = declared(range);
        let refuse = |why: &str| usage(format!("{label} is {what}: {why}"));
        if range.name.as_deref() == Some("$ClassLinkage") {
            return Err(usage(format!(
                "the shader uses interfaces (class linkage in {label}): run does not fill \
                 class-instance data"
            )));
        }
        if matches!(
            b.key.class,
            DescriptorClass::ShaderResource | DescriptorClass::Sampler
        ) {
            return Err(refuse(
                "run binds only UAVs (--uav) and constant buffers (--cb)",
            ));
        }
        if b.range.space != 0 {
            return Err(refuse(&format!(
                "it is in register space {}; run binds space 0 only",
                b.range.space
            )));
        }
        let Some(upper) = b.range.upper else {
            return Err(refuse("run does not bind unbounded ranges"));
        };
        let array_size = match b.shape {
            ArrayShape::Single => 0,
            ArrayShape::Bounded(n) => n.saturating_add(b.binding.array_offset),
            ArrayShape::Runtime => return Err(refuse("run does not bind runtime arrays")),
        };
        for register in b.range.lower..=upper {
            let element = register - b.range.lower + b.binding.array_offset;
            let at = |binding: u32, resource: Resource| Binding {
                set: b.binding.set,
                binding,
                element,
                array_size,
                resource,
            };
            let one = if b.range.lower == upper {
                what.clone()
            } else {
                format!("{what} ({label})")
            };
            if b.key.class == DescriptorClass::ConstantBuffer {
                let hint = format!("give --cb {register}=f32:… (or u32:…, i32:…)");
                let Some(i) = cbs.iter().position(|c| c.register == register) else {
                    return Err(usage(format!("cb{register} is {one}; {hint}")));
                };
                used_cbs[i] = true;
                let cb = &cbs[i];
                if let BufferKind::Typed(f) = cb.kind {
                    return Err(usage(format!(
                        "--cb {register}={}: cb{register} is {one}, not a typed buffer; {hint}",
                        f.name
                    )));
                }
                let declared = usize::try_from(range.cbuffer_size.unwrap_or(0))
                    .unwrap_or(0)
                    .saturating_mul(16);
                let mut bytes = cb.bytes.clone();
                bytes.resize(bytes.len().max(declared).div_ceil(16) * 16, 0);
                plan.bindings
                    .push(at(b.binding.binding, Resource::UniformBuffer(bytes)));
                continue;
            }
            let typed = range.dimension == Some("buffer");
            let untyped = matches!(range.dimension, Some("raw_buffer" | "structured_buffer"));
            let numeric = range.return_type.and_then(|r| numeric_of(r[0]));
            let hint = if typed {
                let names = format_names(numeric);
                let first = names.split(", ").next().unwrap_or("r32f").to_string();
                format!("give --uav {register}={first}:… (formats: {names})")
            } else {
                format!("give --uav {register}=raw:SIZE (or u32:…, i32:…, f32:…)")
            };
            if !typed && !untyped {
                return Err(usage(format!(
                    "u{register} is {one}: run binds UAV buffers only (raw, structured or \
                     typed buffers)"
                )));
            }
            if typed && numeric.is_none() {
                return Err(usage(format!(
                    "u{register} is {one}: run supports typed UAVs of float, unorm, snorm, \
                     uint or sint texels"
                )));
            }
            let Some(i) = uavs.iter().position(|u| u.register == register) else {
                return Err(usage(format!("u{register} is {one}; {hint}")));
            };
            used_uavs[i] = true;
            let uav = &uavs[i];
            let resource = match (uav.kind, typed) {
                (BufferKind::Typed(f), true) if Some(f.numeric) == numeric => {
                    Resource::StorageTexelBuffer {
                        format: f.format,
                        data: uav.bytes.clone(),
                    }
                }
                (BufferKind::Typed(f), true) => {
                    return Err(usage(format!(
                        "--uav {register}={}: u{register} is {one}, whose texels are not {} \
                         values; {hint}",
                        f.name,
                        f.numeric.value_name()
                    )))
                }
                (_, true) => {
                    return Err(usage(format!(
                        "--uav {register}: u{register} is {one}, which takes a format; {hint}"
                    )))
                }
                (BufferKind::Typed(f), false) => {
                    return Err(usage(format!(
                        "--uav {register}={}: u{register} is {one}, which takes no format; \
                         {hint}",
                        f.name
                    )))
                }
                (_, false) => Resource::StorageBuffer(uav.bytes.clone()),
            };
            plan.shown.push(Shown {
                label: format!("u{register}"),
                binding: plan.bindings.len(),
                typed: match uav.kind {
                    BufferKind::Typed(f) => Some(f),
                    _ => None,
                },
            });
            plan.bindings.push(at(b.binding.binding, resource));
            if let (true, Some(counter)) = (b.usage.counter, b.counter) {
                plan.shown.push(Shown {
                    label: format!("u{register} counter"),
                    binding: plan.bindings.len(),
                    typed: None,
                });
                plan.bindings.push(Binding {
                    set: counter.set,
                    ..at(counter.binding, Resource::StorageBuffer(vec![0; 4]))
                });
            }
        }
    }
    let declared_list = |prefix: &str| {
        let list: Vec<String> = reflection
            .ranges
            .iter()
            .filter(|r| {
                r.binding.key.class
                    == if prefix == "u" {
                        DescriptorClass::UnorderedAccess
                    } else {
                        DescriptorClass::ConstantBuffer
                    }
            })
            .map(|r| format!("{prefix}{}", r.binding.range.lower))
            .collect();
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        }
    };
    for (flag, prefix, args, used) in [
        ("--uav", "u", uavs, &used_uavs),
        ("--cb", "cb", cbs, &used_cbs),
    ] {
        if let Some(a) = args
            .iter()
            .zip(used.iter())
            .find(|(_, &u)| !u)
            .map(|(a, _)| a)
        {
            return Err(usage(format!(
                "{flag} {}: the shader declares no {prefix}{} (it declares {})",
                a.register,
                a.register,
                declared_list(prefix)
            )));
        }
    }
    Ok(plan)
}

/// Dispatches the module with the planned bindings and returns the text to print: every
/// UAV after the run (typed UAVs as values of their format, others as hexadecimal words).
///
/// The shader is translated for the device: with the optional features it has
/// ([`dxbc2spirv_testkit::shader_test::runner::options_for`]), so a shader that reads `vCycleCounter`
/// runs where the device can read a clock.
pub fn run(dxbc: &dxbc2spirv::Dxbc, groups: [u32; 3], mut plan: Plan) -> Result<String> {
    let context = vulkan::Context::new().context(
        "Vulkan is not available (on Debian 12: apt-get install -t bookworm-backports \
         mesa-vulkan-drivers)",
    )?;
    let options = dxbc2spirv_testkit::shader_test::runner::options_for(context.features());
    let spirv = dxbc.translate(&options)?;
    context
        .dispatch(&spirv, &mut plan.bindings, groups)
        .context("the dispatch failed")?;
    let mut out = String::new();
    for shown in &plan.shown {
        let Some(binding) = plan.bindings.get(shown.binding) else {
            continue;
        };
        let words = vulkan::bytes_to_words(binding.resource.data());
        let (header, per_row, cell): (String, usize, Box<dyn Fn(u32) -> String>) = match shown.typed
        {
            Some(f) => (
                format!(
                    "{} ({}, {} texels):",
                    shown.label,
                    f.name,
                    words.len() / f.components
                ),
                f.components.max(4),
                Box::new(move |w| f.numeric.show(w)),
            ),
            None => (
                format!("{} ({} bytes):", shown.label, words.len() * 4),
                4,
                Box::new(|w| format!("0x{w:08x}")),
            ),
        };
        out.push_str(&header);
        out.push('\n');
        for (row, chunk) in words.chunks(per_row).enumerate() {
            let cells: Vec<String> = chunk.iter().map(|&w| cell(w)).collect();
            out.push_str(&format!("  [{:4}] {}\n", row * per_row, cells.join(" ")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_and_groups_parse() {
        assert_eq!(parse_buffer("0=raw:8").unwrap().bytes, vec![0; 8]);
        let b = parse_buffer("2=u32:1,0x10").unwrap();
        assert_eq!((b.register, b.bytes), (2, vec![1, 0, 0, 0, 16, 0, 0, 0]));
        assert_eq!(
            parse_buffer("1=f32:1.0").unwrap().bytes,
            1.0f32.to_le_bytes().to_vec()
        );
        let typed = parse_buffer("0=rgba32i:1,-2,3,4").unwrap();
        assert!(matches!(typed.kind, BufferKind::Typed(f) if f.format == Format::R32G32B32A32Sint));
        assert_eq!(typed.bytes.len(), 16);
        for bad in [
            "x=raw:8",
            "0=raw:7",
            "0=u64:1",
            "0=foo:1",
            "0=rg32f:1,2,3",
            "0=r32ui:-1",
            "0=f32:",
        ] {
            assert!(parse_buffer(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_groups("4,1,1").unwrap(), [4, 1, 1]);
        assert!(parse_groups("4,1").is_err());
    }
}
