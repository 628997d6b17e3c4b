//! The text form of `dxbc2spirv reflect` (without `--json`): the model, thread-group size,
//! geometry and tessellation parameters, the signatures, one line per descriptor range and
//! the class linkage, from the public [`ShaderReflection`] (the same data as the JSON).

use std::fmt::Write as _;

use dxbc2spirv::container::Signature;
use dxbc2spirv::reflect::ShaderReflection;

/// The whole reflection as text; sections a shader does not have are left out.
pub fn text(r: &ShaderReflection) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "model: {}", r.model);
    if let Some([x, y, z]) = r.thread_group {
        let _ = writeln!(out, "thread group: {x} x {y} x {z}");
    }
    let s = &r.stage;
    let n = |v: Option<u32>| v.map(|n| n.to_string());
    let t = |v: Option<&str>| v.map(str::to_string);
    let geometry = [
        ("input primitive", s.input_primitive.clone()),
        ("output topology", t(s.output_topology)),
        ("max output vertices", n(s.max_output_vertices)),
        ("instances", n(s.instances)),
    ];
    let tessellation = [
        ("input control points", n(s.input_control_points)),
        ("output control points", n(s.output_control_points)),
        ("domain", t(s.domain)),
        ("partitioning", t(s.partitioning)),
        ("output primitive", t(s.output_primitive)),
        ("max tess factor", s.max_tess_factor.map(|f| f.to_string())),
    ];
    for (label, list) in [
        ("geometry", &geometry[..]),
        ("tessellation", &tessellation[..]),
    ] {
        let set: Vec<String> = list
            .iter()
            .filter_map(|(name, value)| Some(format!("{name} {}", value.as_ref()?)))
            .collect();
        if !set.is_empty() {
            let _ = writeln!(out, "{label}: {}", set.join(", "));
        }
    }
    for (name, signature) in [
        ("inputs", &r.inputs),
        ("outputs", &r.outputs),
        ("patch constants", &r.patch_constants),
    ] {
        if let Some(signature) = signature {
            write_signature(&mut out, name, signature);
        }
    }
    let ranges = r.summary();
    if ranges.is_empty() {
        out.push_str("descriptor ranges: none\n");
    } else {
        out.push_str("descriptor ranges:\n");
        for line in ranges.lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out.push_str("push constants: none\n");
    if let Some(linkage) = &r.class_linkage {
        let _ = writeln!(
            out,
            "class linkage: cb{} space {} -> set {} binding {}, {} slots, {} interfaces, {} \
             function tables",
            linkage.binding.range.lower,
            linkage.binding.range.space,
            linkage.binding.binding.set,
            linkage.binding.binding.binding,
            linkage.slots,
            linkage.interfaces.len(),
            linkage.function_tables.len()
        );
    }
    out
}

/// One signature: a header and one line per element.
fn write_signature(out: &mut String, name: &str, signature: &Signature) {
    if signature.elements.is_empty() {
        let _ = writeln!(out, "{name}: none");
        return;
    }
    let _ = writeln!(out, "{name}:");
    for e in &signature.elements {
        let register = if e.register == u32::MAX {
            "-".to_string()
        } else {
            e.register.to_string()
        };
        let system_value = e
            .system_value
            .fxc_name()
            .map_or_else(|| e.system_value.raw().to_string(), str::to_string);
        let component = match e.component_type.raw() {
            1 => "uint",
            2 => "int",
            3 => "float",
            _ => "unknown",
        };
        let stream = if e.stream != 0 {
            format!(" stream {}", e.stream)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {}{} register {register} mask {} {system_value} {component}{stream}",
            e.semantic_name,
            e.semantic_index,
            mask(e.mask),
        );
    }
}

/// `xyzw` letters of a component mask.
fn mask(bits: u8) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect()
}
