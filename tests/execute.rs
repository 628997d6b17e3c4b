//! Executes the project's `.shader_test` files (`shaders/**`) with the library's runner on a
//! Vulkan device (lavapipe on machines without a GPU): assemble, translate, dispatch or draw,
//! probe. Also drives the Vulkan runner directly (dispatches and draws).
//!
//! Set `DXBC2SPIRV_VALIDATION=1` to run under `VK_LAYER_KHRONOS_validation`; every
//! validation error then fails the test.
#![cfg(feature = "vulkan")]

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use dxbc2spirv::shader_test::runner::{self, BlobSource, Outcome};
use dxbc2spirv::shader_test::ShaderTestFile;
use dxbc2spirv::vulkan::{
    bytes_to_words, words_to_bytes, Binding, Context, Draw, Format, ImageShape, RenderTarget,
    Resource, Stages, Topology, VertexAttribute, VertexBuffer,
};

use dxbc2spirv::bindings::{CBV_BINDING_BASE as CB_BINDING_BASE, UAV_BINDING_BASE};

const INSTALL_HINT: &str = "install the Vulkan loader and lavapipe with \
    `apt-get install -y libvulkan1 && apt-get install -y -t bookworm-backports mesa-vulkan-drivers`";

/// The device, created once for this test binary, with a lock serialising dispatches (so
/// validation messages belong to the dispatch that caused them).
fn context() -> &'static Mutex<Context> {
    static CONTEXT: OnceLock<Result<Mutex<Context>, String>> = OnceLock::new();
    match CONTEXT.get_or_init(|| Context::new().map(Mutex::new).map_err(|e| e.to_string())) {
        Ok(ctx) => ctx,
        Err(why) => panic!("Vulkan could not be initialised: {why}\nTo fix: {INSTALL_HINT}"),
    }
}

/// The project's test files hold assembly only: no blob lookups.
struct NoBlobs;

impl BlobSource for NoBlobs {
    fn blob(
        &self,
        _: &str,
        section: &dxbc2spirv::shader_test::Section,
        _: &str,
        _: &[String],
    ) -> Result<Option<Vec<u8>>, String> {
        Err(format!(
            "line {}: project tests must hold assembly sections",
            section.line
        ))
    }
}

/// Runs one file; returns the number of probes that passed, or every failure and skip.
fn run_file(path: &Path) -> Result<usize, Vec<String>> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| vec![format!("{shown}: {e}")])?;
    let file = ShaderTestFile::parse_bytes(&bytes).map_err(|e| vec![format!("{shown}: {e}")])?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    let report = runner::run_file(&ctx, &file, &name, &NoBlobs);
    drop(ctx);
    let mut problems = Vec::new();
    let mut passed = 0;
    for r in &report.records {
        match &r.outcome {
            Outcome::Pass => passed += 1,
            Outcome::TodoFail { expected, actual } => eprintln!(
                "{shown}:{}: todo: {} (expected {expected}, actual {actual})",
                r.line,
                r.text.trim()
            ),
            Outcome::Fail { expected, actual } => problems.push(format!(
                "{shown}:{}: {}\n    expected {expected}\n    actual   {actual}",
                r.line,
                r.text.trim()
            )),
            Outcome::Skip(reason) if reason.starts_with("device lacks a required feature") => {
                eprintln!("{shown}:{}: {} skipped: {reason}", r.line, r.text.trim())
            }
            Outcome::Skip(reason) => problems.push(format!(
                "{shown}:{}: {} skipped: {reason}",
                r.line,
                r.text.trim()
            )),
        }
    }
    if report.records.is_empty() {
        problems.push(format!(
            "{shown}: no probe (a test file must check something)"
        ));
    }
    if problems.is_empty() {
        Ok(passed)
    } else {
        Err(problems)
    }
}

fn seed(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders/seeds")
        .join(name)
}

fn check(name: &str, min_probes: usize) {
    match run_file(&seed(name)) {
        Ok(probes) => assert!(
            probes >= min_probes,
            "{name}: only {probes} probes ran (expected at least {min_probes})"
        ),
        Err(failures) => panic!(
            "{name}: {} problem(s):\n{}",
            failures.len(),
            failures.join("\n")
        ),
    }
}

#[test]
fn seed_store_raw() {
    check("store_raw.shader_test", 7);
}

#[test]
fn seed_imm_atomic_cmp_exch() {
    check("imm_atomic_cmp_exch.shader_test", 4 * 17);
}

#[test]
fn seed_imm_atomic_and() {
    check("imm_atomic_and.shader_test", 4 * 9);
}

/// A constant buffer (uniform buffer at binding 0) copied into a raw UAV.
#[test]
fn constant_buffer_to_raw_uav() {
    let text = "cs_5_0\n\
        dcl_constantbuffer cb0[2], immediateIndexed\n\
        dcl_uav_raw u0\n\
        dcl_thread_group 1, 1, 1\n\
        store_raw u0.xyzw, l(0), cb0[1].xyzw\n\
        store_raw u0.xyzw, l(16), cb0[0].wzyx\n\
        ret\n";
    let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).expect("reads");
    let spirv =
        dxbc2spirv::translate(&dxbc, &dxbc2spirv::spirv::Options::default()).expect("translates");
    let mut bindings = vec![
        Binding::new(
            0,
            CB_BINDING_BASE,
            Resource::UniformBuffer(words_to_bytes(&[1, 2, 3, 4, 5, 6, 7, 8])),
        ),
        Binding::new(
            0,
            UAV_BINDING_BASE,
            Resource::StorageBuffer(words_to_bytes(&[0; 8])),
        ),
    ];
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    let result = ctx.dispatch(&spirv, &mut bindings, [1, 1, 1]);
    let messages = ctx.take_validation_messages();
    drop(ctx);
    if let Err(e) = result {
        panic!("dispatch failed: {e}");
    }
    assert!(messages.is_empty(), "validation: {messages:#?}");
    let out = bindings
        .get(1)
        .map(|b| bytes_to_words(b.resource.data()))
        .unwrap_or_default();
    assert_eq!(out, [5, 6, 7, 8, 4, 3, 2, 1]);
}

/// With `DXBC2SPIRV_VALIDATION=1`, the layer is on and reports a descriptor-type mismatch
/// (a storage buffer in the shader, a uniform buffer in the layout).
#[test]
fn validation_layer_reports_errors() {
    if std::env::var("DXBC2SPIRV_VALIDATION").map_or(true, |v| v != "1") {
        return;
    }
    let text = "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\n\
        store_raw u0.x, l(0), l(7)\nret\n";
    let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).expect("reads");
    let spirv =
        dxbc2spirv::translate(&dxbc, &dxbc2spirv::spirv::Options::default()).expect("translates");
    let mut bindings = vec![Binding::new(
        0,
        UAV_BINDING_BASE,
        Resource::UniformBuffer(words_to_bytes(&[0; 4])),
    )];
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    assert!(
        ctx.features().validation,
        "the validation layer is not enabled"
    );
    // The dispatch may succeed or fail; only the layer's report matters.
    let _ = ctx.dispatch(&spirv, &mut bindings, [1, 1, 1]);
    let messages = ctx.take_validation_messages();
    drop(ctx);
    eprintln!("validation messages (expected): {messages:#?}");
    assert!(
        !messages.is_empty(),
        "the validation layer reported nothing for a descriptor-type mismatch"
    );
}

/// A wrong probe fails, naming the line and both values.
#[test]
fn wrong_probe_is_reported() {
    let text = std::fs::read_to_string(seed("store_raw.shader_test")).expect("seed is readable");
    let tampered = text.replace("probe uav 1 (2) u32(21, 22)", "probe uav 1 (2) u32(21, 99)");
    assert_ne!(text, tampered, "the seed changed: update this test");
    let path = std::env::temp_dir().join(format!(
        "dxbc2spirv-wrong-probe-{}.shader_test",
        std::process::id()
    ));
    std::fs::write(&path, tampered).expect("temp file is writable");
    let result = run_file(&path);
    let _ = std::fs::remove_file(&path);
    let failures = result.expect_err("a wrong probe must fail");
    assert_eq!(failures.len(), 1, "{failures:#?}");
    let message = failures.first().map(String::as_str).unwrap_or("");
    let line = text
        .lines()
        .position(|l| l.trim() == "probe uav 1 (2) u32(21, 22)")
        .map_or(0, |i| i + 1);
    for part in [&format!(".shader_test:{line}: "), "[21, 99]", "[21, 22]"] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

/// A draw through the runner's graphics path: a vertex buffer with two attributes, a pixel
/// shader writing an interpolated colour and SV_Position to two render targets.
#[test]
fn draw_two_render_targets() {
    let assemble = |text: &str| {
        let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
        let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).expect("reads");
        dxbc2spirv::translate(&dxbc, &dxbc2spirv::spirv::Options::default()).expect("translates")
    };
    let vs = assemble(
        "vs_4_0\ndcl_input v0.xy\ndcl_input v1.xyzw\n\
         dcl_output_siv o0.xyzw, position\ndcl_output o1.xyzw\n\
         mov o0.xy, v0.xyxx\nmov o0.zw, l(0, 0, 0.5, 1.0)\nmov o1.xyzw, v1.xyzw\nret\n",
    );
    let ps = assemble(
        "ps_4_0\ndcl_input_ps_siv linear noperspective v0.xy, position\n\
         dcl_input_ps constant v1.xyzw\ndcl_output o0.xyzw\ndcl_output o1.xy\n\
         mov o0.xyzw, v1.xyzw\nmov o1.xy, v0.xyxx\nret\n",
    );
    // One triangle covering the 4x4 target; a constant colour (flat interpolation).
    let vertices: Vec<f32> = [
        [-1.0, -1.0, 0.25, 0.5, 0.75, 1.0],
        [-1.0, 3.0, 0.25, 0.5, 0.75, 1.0],
        [3.0, -1.0, 0.25, 0.5, 0.75, 1.0],
    ]
    .concat();
    let target = |format: Format| RenderTarget {
        format,
        width: 4,
        height: 4,
        layers: 1,
        samples: 1,
        data: vec![0; 16 * format.texel_size()],
    };
    let mut draw = Draw {
        stages: Stages {
            vertex: &vs,
            pixel: Some(&ps),
            ..Stages::default()
        },
        topology: Topology::TriangleList,
        vertex_count: 3,
        instance_count: 1,
        vertex_buffers: vec![VertexBuffer {
            binding: 0,
            stride: 24,
            data: vertices.iter().flat_map(|f| f.to_le_bytes()).collect(),
        }],
        attributes: vec![
            VertexAttribute {
                location: 0,
                binding: 0,
                format: Format::R32G32Float,
                offset: 0,
            },
            VertexAttribute {
                location: 1,
                binding: 0,
                format: Format::R32G32B32A32Float,
                offset: 8,
            },
        ],
        render_targets: vec![
            Some(target(Format::R32G32B32A32Float)),
            Some(target(Format::R32G32Float)),
        ],
        depth: None,
        viewports: Vec::new(),
        specialization: Vec::new(),
    };
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    let result = ctx.draw(&mut draw, &mut []);
    let messages = ctx.take_validation_messages();
    drop(ctx);
    if let Err(e) = result {
        panic!("draw failed: {e}");
    }
    assert!(messages.is_empty(), "validation: {messages:#?}");
    let floats = |t: &Option<RenderTarget>| -> Vec<f32> {
        t.as_ref()
            .map(|t| bytes_to_words(&t.data))
            .unwrap_or_default()
            .into_iter()
            .map(f32::from_bits)
            .collect()
    };
    let colour = floats(draw.render_targets.first().unwrap_or(&None));
    assert_eq!(colour.len(), 64);
    for (i, texel) in colour.chunks(4).enumerate() {
        assert_eq!(texel, [0.25, 0.5, 0.75, 1.0], "pixel {i} of target 0");
    }
    // SV_Position: pixel centres, (0, 0) at the top left as in Direct3D.
    let position = floats(draw.render_targets.get(1).unwrap_or(&None));
    for y in 0..4usize {
        for x in 0..4usize {
            let at = (y * 4 + x) * 2;
            let expected = [x as f32 + 0.5, y as f32 + 0.5];
            assert_eq!(
                position.get(at..at + 2),
                Some(&expected[..]),
                "pixel ({x}, {y})"
            );
        }
    }
}

/// Every project test file under `shaders/` runs with no failure and no skip other than for a
/// feature the device lacks (named in the skip).
#[test]
fn every_project_shader_test_passes() {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect(&path, out);
            } else if path.extension().is_some_and(|e| e == "shader_test") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    collect(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders"),
        &mut files,
    );
    files.sort();
    assert!(!files.is_empty(), "no .shader_test files under shaders/");
    let mut problems = Vec::new();
    for file in &files {
        let pending = PENDING.iter().find(|(name, _)| file.ends_with(name));
        match (run_file(file), pending) {
            (Ok(_), None) => {}
            (Ok(_), Some((name, _))) => problems.push(format!(
                "{name} passes now: remove it from PENDING in tests/execute.rs"
            )),
            (Err(p), None) => problems.extend(p),
            (Err(p), Some((_, why))) => {
                eprintln!(
                    "{}: pending ({why}): {} problem(s)",
                    file.display(),
                    p.len()
                )
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Project tests whose features belong to open issues, with the feature.
const PENDING: &[(&str, &str)] = &[(
    "seeds/sm51_resource_ranges.shader_test",
    "SM5.1 resource ranges (issue 7)",
)];

/// `ld` (mip level 0: the address's w) and `sample_l` from a 2D texture (sampled image +
/// separate sampler), summed and written to a typed UAV texture (storage image).
#[test]
fn texture_load_and_sample_to_storage_image() {
    let text = "cs_5_0\n\
        dcl_sampler s0, mode_default\n\
        dcl_resource_texture2d (float,float,float,float) t0\n\
        dcl_uav_typed_texture2d (float,float,float,float) u0\n\
        dcl_input vThreadID.xy\n\
        dcl_temps 2\n\
        dcl_thread_group 2, 2, 1\n\
        mov r0.zw, l(0, 0, 0, 0)\n\
        mov r0.xy, vThreadID.xyxx\n\
        ld_indexable(texture2d)(float,float,float,float) r0.xyzw, r0.xyzw, t0.xyzw\n\
        utof r1.xy, vThreadID.xyxx\n\
        add r1.xy, r1.xyxx, l(0.5, 0.5, 0, 0)\n\
        mul r1.xy, r1.xyxx, l(0.5, 0.5, 0, 0)\n\
        sample_l_indexable(texture2d)(float,float,float,float) r1.xyzw, r1.xyxx, t0.xyzw, s0, l(0)\n\
        add r0.xyzw, r0.xyzw, r1.xyzw\n\
        store_uav_typed u0.xyzw, vThreadID.xyyy, r0.xyzw\n\
        ret\n";
    let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).expect("reads");
    let spirv =
        dxbc2spirv::translate(&dxbc, &dxbc2spirv::spirv::Options::default()).expect("translates");
    let texel = |x: u32, y: u32| {
        [
            x as f32 + 1.0,
            y as f32 + 1.0,
            (10 * (x + 1) + y) as f32,
            1.0,
        ]
    };
    let texels: Vec<f32> = (0..2)
        .flat_map(|y| (0..2).flat_map(move |x| texel(x, y)))
        .collect();
    let to_bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let mut bindings = vec![
        Binding::new(
            0,
            16,
            Resource::Sampler(dxbc2spirv::vulkan::SamplerDesc::default()),
        ),
        Binding::new(
            0,
            32,
            Resource::SampledImage {
                shape: ImageShape::d2(Format::R32G32B32A32Float, 2, 2),
                data: to_bytes(&texels),
            },
        ),
        Binding::new(
            0,
            UAV_BINDING_BASE,
            Resource::StorageImage {
                shape: ImageShape::d2(Format::R32G32B32A32Float, 2, 2),
                data: vec![0; 64],
            },
        ),
    ];
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    let result = ctx.dispatch(&spirv, &mut bindings, [1, 1, 1]);
    let messages = ctx.take_validation_messages();
    drop(ctx);
    if let Err(e) = result {
        panic!("dispatch failed: {e}");
    }
    assert!(messages.is_empty(), "validation: {messages:#?}");
    let out: Vec<f32> = bindings
        .get(2)
        .map(|b| bytes_to_words(b.resource.data()))
        .unwrap_or_default()
        .into_iter()
        .map(f32::from_bits)
        .collect();
    let expected: Vec<f32> = texels.iter().map(|v| v * 2.0).collect();
    assert_eq!(out, expected);
}
