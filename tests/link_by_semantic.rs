//! Draws the pipeline of `examples/link_by_semantic.rs` on Vulkan (lavapipe without a GPU)
//! with the test kit's runner and checks every pixel: the vertex and pixel shaders, packed
//! differently, link by semantic through the interface map, and the pixel shader's `cb1`
//! comes from push constants.
//!
//! The expected color, by hand: COLOR0 = (10, 20, 30, 40), TEXCOORD0 = (1, 2),
//! TEXCOORD1 = (3, 4), FOG = 0.5, `cb1[0]` = (2, 3, 4, 5); the pixel shader computes
//! `(COLOR0 + (TEXCOORD0, TEXCOORD1)) * cb1[0] + FOG`
//! = (11 · 2, 22 · 3, 33 · 4, 44 · 5) + 0.5 = (22.5, 66.5, 132.5, 220.5). All the values
//! are constant over the triangle, so interpolation keeps them exactly. Linked by register
//! instead, the pixel shader would read TEXCOORD1 where COLOR0 is and miss FOG.

#[allow(dead_code)]
#[path = "../examples/link_by_semantic.rs"]
mod example;

use dxbc2spirv_testkit::vulkan::{
    bytes_to_words, Context, Draw, Format, RenderTarget, Stages, Topology, VertexAttribute,
    VertexBuffer,
};

const EXPECTED: [f32; 4] = [22.5, 66.5, 132.5, 220.5];

fn disassembly(words: &[u32]) -> String {
    use rspirv::binary::Disassemble;
    rspirv::dr::load_words(words)
        .map(|m| m.disassemble())
        .unwrap_or_default()
}

#[test]
fn the_example_pipeline_links_by_semantic_on_vulkan() {
    let pipeline = example::build().unwrap_or_else(|e| panic!("translating: {e}"));
    let ctx = Context::new().unwrap_or_else(|e| {
        panic!(
            "Vulkan could not be initialised: {e}\nTo fix: install the Vulkan loader and \
             lavapipe (`apt-get install -y libvulkan1 && apt-get install -y -t \
             bookworm-backports mesa-vulkan-drivers`)"
        )
    });
    // POSITION: the vertex shader's inputs keep Location = register (the map places only
    // its outputs); take the location from the reflection as a layer would.
    let position = pipeline.vertex.reflection.placements.inputs[0]
        .expect("POSITION has a location")
        .location;
    let cb1: Vec<u8> = [2.0f32, 3.0, 4.0, 5.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let push = example::push_constants(&pipeline.pixel.reflection, &[(1, &cb1)]);
    assert_eq!(push.len(), 16, "cb1 is 16 bytes of push constants");
    let vertices: Vec<u8> = [-1.0f32, -1.0, -1.0, 3.0, 3.0, -1.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let mut draw = Draw {
        stages: Stages {
            vertex: &pipeline.vertex.words,
            pixel: Some(&pipeline.pixel.words),
            ..Stages::default()
        },
        topology: Topology::TriangleList,
        vertex_count: 3,
        instance_count: 1,
        vertex_buffers: vec![VertexBuffer {
            binding: 0,
            stride: 8,
            data: vertices,
        }],
        attributes: vec![VertexAttribute {
            location: position,
            binding: 0,
            format: Format::R32G32Float,
            offset: 0,
        }],
        render_targets: vec![Some(RenderTarget {
            format: Format::R32G32B32A32Float,
            width: 4,
            height: 4,
            layers: 1,
            samples: 1,
            data: vec![0; 16 * 16],
            kept: None,
        })],
        depth: None,
        viewports: Vec::new(),
        sample_mask: u32::MAX,
        specialization: Vec::new(),
        stream_output: Vec::new(),
        rasterized_stream: Some(0),
        push_constants: push,
        blend: None,
    };
    if let Err(e) = ctx.draw(&mut draw, &mut []) {
        panic!("draw failed: {e}");
    }
    let texels: Vec<f32> = draw.render_targets[0]
        .as_ref()
        .map(|t| bytes_to_words(&t.data))
        .unwrap_or_default()
        .into_iter()
        .map(f32::from_bits)
        .collect();
    assert_eq!(texels.len(), 64);
    for (i, texel) in texels.chunks(4).enumerate() {
        assert!(
            texel == EXPECTED,
            "pixel ({}, {}): expected {EXPECTED:?}, actual {texel:?}\n\
             vertex shader:\n{}\npixel shader:\n{}\nvertex module:\n{}\npixel module:\n{}",
            i % 4,
            i / 4,
            example::VERTEX_SHADER,
            example::PIXEL_SHADER,
            disassembly(&pipeline.vertex.words),
            disassembly(&pipeline.pixel.words)
        );
    }
}
