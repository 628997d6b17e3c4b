//! How a translation layer links shader stages by semantic, as Direct3D does, and passes a
//! constant buffer through push constants.
//!
//! The vertex and pixel shaders below were packed differently by their compiler: the vertex
//! shader writes COLOR0 to `o1`, TEXCOORD0 to `o2.xy`, FOG to `o2.z` and TEXCOORD1 to
//! `o3.xy`; the pixel shader reads TEXCOORD1 from `v1.xy`, TEXCOORD0 from `v1.zw`, COLOR0
//! from `v2` and FOG from `v3.x`. With `Location = register` they would not link. The layer
//! gives the vertex shader's outputs its own locations (an `InterfaceMap`), translates the
//! pixel shader with the map derived from the vertex shader's reflection
//! (`InterfaceMap::inputs_from`), and places the pixel shader's `cb1` in push constants.
//!
//! Run: `cargo run --example link_by_semantic`. `tests/link_by_semantic.rs` draws this very
//! pipeline on Vulkan and checks the pixels.

use dxbc2spirv::bindings::BindingMap;
use dxbc2spirv::interface::{InterfaceFile, InterfaceMap};
use dxbc2spirv::reflect::ShaderReflection;
use dxbc2spirv::{translate_bytes, TranslateOptions, Translation};

/// The vertex shader (fxc's listing form: the signature tables name the semantics).
pub const VERTEX_SHADER: &str = "//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// POSITION                 0   xy          0     NONE   float   xy
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// COLOR                    0   xyzw        1     NONE   float   xyzw
// TEXCOORD                 0   xy          2     NONE   float   xy
// FOG                      0     z         2     NONE   float     z
// TEXCOORD                 1   xy          3     NONE   float   xy
//
vs_5_0
dcl_input v0.xy
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_output o2.xy
dcl_output o2.z
dcl_output o3.xy
mov o0.xy, v0.xyxx
mov o0.zw, l(0, 0, 0, 1.0)
mov o1.xyzw, l(10.0, 20.0, 30.0, 40.0)
mov o2.xy, l(1.0, 2.0, 0, 0)
mov o2.z, l(0.5)
mov o3.xy, l(3.0, 4.0, 0, 0)
ret
";

/// The pixel shader, packed otherwise; `cb1[0]` scales the color.
pub const PIXEL_SHADER: &str = "//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float
// TEXCOORD                 1   xy          1     NONE   float   xy
// TEXCOORD                 0     zw        1     NONE   float     zw
// COLOR                    0   xyzw        2     NONE   float   xyzw
// FOG                      0   x           3     NONE   float   x
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Target                0   xyzw        0   TARGET   float   xyzw
//
ps_5_0
dcl_constantbuffer CB1[1], immediateIndexed
dcl_input_ps linear v1.xy
dcl_input_ps linear v1.zw
dcl_input_ps linear v2.xyzw
dcl_input_ps linear v3.x
dcl_output o0.xyzw
dcl_temps 1
add r0.xy, v2.xyxx, v1.zwzz
add r0.zw, v2.zzzw, v1.xxxy
mad o0.xyzw, r0.xyzw, cb1[0].xyzw, v3.xxxx
ret
";

/// The layer's locations for the vertex shader's outputs, by semantic (TEXCOORD1 shares
/// location 1 with TEXCOORD0; FOG keeps its component, z, at location 2).
pub const VERTEX_OUTPUTS: &str = r#"{ "outputs": [
    { "semantic": "COLOR", "index": 0, "location": 0 },
    { "semantic": "TEXCOORD", "index": 0, "location": 1 },
    { "semantic": "TEXCOORD", "index": 1, "location": 1, "component": 2 },
    { "semantic": "FOG", "index": 0, "location": 2 } ] }"#;

/// The layer's binding map: `cb1` in push constants at byte 0 (16 bytes), everything else
/// where the default layout puts it.
pub const BINDINGS: &str = r#"{ "fallback_to_default": true, "ranges": [
    { "class": "cbv", "space": 0, "first": 1, "push_constant": true, "offset": 0, "size": 16 } ] }"#;

/// The translated pipeline.
pub struct Pipeline {
    /// The vertex shader's module and reflection.
    pub vertex: Translation,
    /// The pixel shader's module and reflection.
    pub pixel: Translation,
}

/// Translates both stages as a layer does: the vertex shader with its own locations, the
/// pixel shader linked to it by semantic, both with the layer's binding map.
pub fn build() -> Result<Pipeline, dxbc2spirv::Error> {
    let bindings = BindingMap::from_json(BINDINGS)?;
    let mut options = TranslateOptions::default();
    options.bindings = Some(bindings.clone());
    options.interface = Some(InterfaceMap::from_json(VERTEX_OUTPUTS)?);
    let vertex = translate_bytes(&dxbc2spirv::asm::assemble(VERTEX_SHADER)?, &options)?;

    let mut options = TranslateOptions::default();
    options.bindings = Some(bindings);
    options.interface = Some(InterfaceMap::inputs_from(&vertex.reflection));
    let pixel = translate_bytes(&dxbc2spirv::asm::assemble(PIXEL_SHADER)?, &options)?;
    Ok(Pipeline { vertex, pixel })
}

/// The push-constant bytes of a stage: each constant buffer its translation placed in push
/// constants, at its offset, from `data` (the buffer's contents by register).
pub fn push_constants(reflection: &ShaderReflection, data: &[(u32, &[u8])]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for buffer in &reflection.push_constants {
        let start = buffer.offset as usize;
        let end = start + buffer.size as usize;
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        if let Some((_, contents)) = data.iter().find(|(r, _)| *r == buffer.register) {
            let n = contents.len().min(end - start);
            bytes[start..start + n].copy_from_slice(&contents[..n]);
        }
    }
    bytes
}

fn describe(stage: &str, t: &Translation) {
    let r = &t.reflection;
    println!("{stage}: {} -> {} SPIR-V words", r.model, t.words.len());
    for (file, signature, placements) in [
        (InterfaceFile::Inputs, &r.inputs, &r.placements.inputs),
        (InterfaceFile::Outputs, &r.outputs, &r.placements.outputs),
    ] {
        let elements = signature.iter().flat_map(|s| &s.elements);
        for (element, placement) in elements.zip(placements) {
            let place = match placement {
                Some(p) => format!(
                    "location {} component {} (in a vector of {} from component {})",
                    p.location, p.component, p.vector_components, p.vector_component
                ),
                None => "built-in".to_string(),
            };
            println!(
                "  {} {}{} (register {}): {place}",
                file.name(),
                element.semantic_name,
                element.semantic_index,
                element.register
            );
        }
    }
    for p in &r.push_constants {
        println!(
            "  push constants: cb{} of space {} at bytes {}..{}",
            p.register,
            p.space,
            p.offset,
            p.offset + p.size
        );
    }
    for range in &r.ranges {
        let b = &range.binding;
        println!(
            "  descriptor: {}{} at set {} binding {}",
            b.register.name(),
            b.range.id,
            b.binding.set,
            b.binding.binding
        );
    }
}

fn main() -> Result<(), dxbc2spirv::Error> {
    let pipeline = build()?;
    describe("vertex shader", &pipeline.vertex);
    describe("pixel shader", &pipeline.pixel);
    // The pipeline layout: one push-constant range covering every stage's buffers.
    let size = [&pipeline.vertex, &pipeline.pixel]
        .iter()
        .flat_map(|t| &t.reflection.push_constants)
        .map(|p| p.offset + p.size)
        .max()
        .unwrap_or(0);
    println!("pipeline layout: VkPushConstantRange {{ offset 0, size {size} }}");
    Ok(())
}
