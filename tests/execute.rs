//! Executes the project's `.shader_test` files (`shaders/**`) with the library's runner on a
//! Vulkan device (lavapipe on machines without a GPU): assemble, translate, dispatch or draw,
//! probe. Also drives the Vulkan runner directly (dispatches and draws).
//!
//! Set `DXBC2SPIRV_VALIDATION=1` to run under `VK_LAYER_KHRONOS_validation`; every
//! validation error then fails the test.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use dxbc2spirv_testkit::shader_test::runner::{self, BlobSource, Outcome};
use dxbc2spirv_testkit::shader_test::ShaderTestFile;
use dxbc2spirv_testkit::vulkan::{
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
        section: &dxbc2spirv_testkit::shader_test::Section,
        _: &str,
        _: &[String],
    ) -> Result<Option<Vec<u8>>, String> {
        Err(format!(
            "line {}: project tests must hold assembly sections",
            section.line
        ))
    }
}

/// Runs one file, translated with the optimiser and again without it; returns the number of
/// probes that passed in the optimised run, or every failure and skip of either run.
fn run_file(path: &Path) -> Result<usize, Vec<String>> {
    let optimised = run_file_once(path, false);
    let plain = run_file_once(path, true);
    match (optimised, plain) {
        (Ok(passed), Ok(_)) => Ok(passed),
        (optimised, plain) => {
            let mut problems = optimised.err().unwrap_or_default();
            problems.extend(
                plain
                    .err()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|p| format!("(translated without the optimiser) {p}")),
            );
            Err(problems)
        }
    }
}

/// Runs one file once; returns the number of probes that passed, or every failure and skip.
fn run_file_once(path: &Path, no_optimize: bool) -> Result<usize, Vec<String>> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| vec![format!("{shown}: {e}")])?;
    let file = ShaderTestFile::parse_bytes(&bytes).map_err(|e| vec![format!("{shown}: {e}")])?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    let tags = runner::device_tags(ctx.features());
    let settings = runner::RunSettings {
        device_tags: &tags,
        no_optimize,
        ..Default::default()
    };
    let report = runner::run_file_with(&ctx, &file, &name, &NoBlobs, &settings);
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
    let spirv = common::translate(&dxbc).expect("translates");
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

/// With `DXBC2SPIRV_VALIDATION=1`, the layer is on and reports what only it checks: a module
/// that asks for 32-bit denormal preservation (`DenormPreserve 32`), which lavapipe does not
/// offer (`shaderDenormPreserveFloat32`). (The runner itself refuses descriptor mismatches
/// before any Vulkan call, so they no longer reach the layer.)
#[test]
fn validation_layer_reports_errors() {
    if std::env::var("DXBC2SPIRV_VALIDATION").map_or(true, |v| v != "1") {
        return;
    }
    let text = "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\n\
        store_raw u0.x, l(0), l(7)\nret\n";
    let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).expect("reads");
    let spirv = common::translate(&dxbc).expect("translates");
    let spirv = with_denorm_preserve_32(&spirv);
    let mut bindings = vec![Binding::new(
        0,
        UAV_BINDING_BASE,
        Resource::StorageBuffer(words_to_bytes(&[0; 4])),
    )];
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    assert!(
        ctx.features().validation,
        "the validation layer is not enabled"
    );
    if ctx.features().denorm_preserve_float32 {
        eprintln!("NOT CHECKED: the device preserves 32-bit denormals, so the module is valid");
        return;
    }
    // The dispatch may succeed or fail; only the layer's report matters.
    let _ = ctx.dispatch(&spirv, &mut bindings, [1, 1, 1]);
    let messages = ctx.take_validation_messages();
    drop(ctx);
    eprintln!("validation messages (expected): {messages:#?}");
    assert!(
        !messages.is_empty(),
        "the validation layer reported nothing for DenormPreserve 32 on a device without it"
    );
}

/// The module with `OpCapability DenormPreserve` and `OpExecutionMode main DenormPreserve 32`.
fn with_denorm_preserve_32(words: &[u32]) -> Vec<u32> {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Instruction, Operand};
    use rspirv::spirv::{Capability, ExecutionMode, Op};
    let mut module = rspirv::dr::load_words(words).expect("the module loads");
    let main = module.entry_points[0].operands[1].unwrap_id_ref();
    module.capabilities.push(Instruction::new(
        Op::Capability,
        None,
        None,
        vec![Operand::Capability(Capability::DenormPreserve)],
    ));
    module.execution_modes.push(Instruction::new(
        Op::ExecutionMode,
        None,
        None,
        vec![
            Operand::IdRef(main),
            Operand::ExecutionMode(ExecutionMode::DenormPreserve),
            Operand::LiteralBit32(32),
        ],
    ));
    module.assemble()
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
    // Once translated with the optimiser and once without.
    assert_eq!(failures.len(), 2, "{failures:#?}");
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
        common::translate(&dxbc).expect("translates")
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
        kept: None,
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
        sample_mask: u32::MAX,
        specialization: Vec::new(),
        stream_output: Vec::new(),
        rasterized_stream: Some(0),
        push_constants: Vec::new(),
        blend: None,
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
const PENDING: &[(&str, &str)] = &[];

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
    let spirv = common::translate(&dxbc).expect("translates");
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
            Resource::Sampler(dxbc2spirv_testkit::vulkan::SamplerDesc::default()),
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

/// splitmix64, for the random `dfma` operands.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A random sign and significand with a biased exponent in `lo..=hi`.
    fn with_exponent(&mut self, lo: u64, hi: u64) -> u64 {
        let r = self.next();
        let exp = lo + (r >> 11) % (hi - lo + 1);
        (r & (1 << 63)) | (exp << 52) | (self.next() & ((1 << 52) - 1))
    }
}

/// `dfma` rounds once on the device: 16,384 random operand triples (random bit patterns,
/// products meeting c for cancellations, products near overflow and in the denormal range,
/// denormal operands, products halfway between two doubles) against Rust's correctly rounded `f64::mul_add`, bit
/// for bit (any NaN for a NaN).
#[test]
fn dfma_rounds_once_on_random_operands() {
    let text = "cs_5_0\n\
        dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
        dcl_uav_raw u0\n\
        dcl_uav_raw u1\n\
        dcl_input vThreadID.x\n\
        dcl_temps 6\n\
        dcl_thread_group 64, 1, 1\n\
        imul null, r4.x, vThreadID.x, l(48)\n\
        ld_raw r0.xyzw, r4.x, u0.xyzw\n\
        iadd r4.y, r4.x, l(16)\n\
        ld_raw r1.xyzw, r4.y, u0.xyzw\n\
        iadd r4.y, r4.x, l(32)\n\
        ld_raw r5.xyzw, r4.y, u0.xyzw\n\
        dfma r2.xyzw, r0.xyzw, r1.xyzw, r5.xyzw\n\
        ishl r4.z, vThreadID.x, l(4)\n\
        store_raw u1.xyzw, r4.z, r2.xyzw\n\
        ret\n";
    const THREADS: usize = 8192;
    let mut rng = SplitMix(0xdf3a);
    let mut cases = Vec::with_capacity(2 * THREADS);
    for i in 0..2 * THREADS {
        let r = rng.next();
        let case = match i % 5 {
            0 => (rng.next(), rng.next(), rng.next()),
            1 => {
                let a = rng.with_exponent(990, 1056);
                let b = rng.with_exponent(990, 1056);
                let product = f64::from_bits(a) * f64::from_bits(b);
                let pe = (product.to_bits() >> 52) & 0x7ff;
                let c = if r & 1 == 0 {
                    (-product)
                        .to_bits()
                        .wrapping_add((r >> 8) % 5)
                        .wrapping_sub(2)
                } else {
                    rng.with_exponent(pe.saturating_sub(60), (pe + 60).min(2046))
                };
                (a, b, c)
            }
            2 => {
                let (a, b) = if r & 1 == 0 {
                    (rng.with_exponent(1530, 1560), rng.with_exponent(1530, 1560))
                } else {
                    (rng.with_exponent(480, 520), rng.with_exponent(480, 530))
                };
                let product = f64::from_bits(a) * f64::from_bits(b);
                let c = match (r >> 8) % 3 {
                    0 => (-product).to_bits() ^ (rng.next() & 0xf),
                    1 => rng.next() & 0x800f_ffff_ffff_ffff,
                    _ => rng.with_exponent(2040, 2046),
                };
                (a, b, c)
            }
            3 => (
                rng.next() & 0x800f_ffff_ffff_ffff,
                rng.with_exponent(1000, 1100),
                rng.next() & 0x800f_ffff_ffff_ffff,
            ),
            // Two 27-bit significands: a product halfway between two doubles one time in
            // eight, rounded by a c far below (or zero) alone.
            _ => {
                let a = rng.with_exponent(900, 1100) & !((1 << 26) - 1);
                let b = rng.with_exponent(900, 1100) & !((1 << 26) - 1);
                let product = f64::from_bits(a) * f64::from_bits(b);
                let pe = (product.to_bits() >> 52) & 0x7ff;
                let c = if r & 1 == 0 {
                    r & (1 << 63)
                } else {
                    rng.with_exponent(pe.saturating_sub(200), pe.saturating_sub(54))
                };
                (a, b, c)
            }
        };
        cases.push(case);
    }
    // Thread t: a = (a0, a1), b = (b0, b1), c = (c0, c1) of cases 2t and 2t+1.
    let halves = |x: u64| [x as u32, (x >> 32) as u32];
    let mut input = Vec::with_capacity(12 * THREADS);
    for pair in cases.chunks(2) {
        let (first, second) = (pair[0], pair[1]);
        for (x, y) in [
            (first.0, second.0),
            (first.1, second.1),
            (first.2, second.2),
        ] {
            input.extend(halves(x));
            input.extend(halves(y));
        }
    }
    let bytes = dxbc2spirv::asm::assemble(text).expect("assembles");
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).expect("reads");
    let spirv = common::translate(&dxbc).expect("translates");
    let mut bindings = vec![
        Binding::new(
            0,
            UAV_BINDING_BASE,
            Resource::StorageBuffer(words_to_bytes(&input)),
        ),
        Binding::new(
            0,
            UAV_BINDING_BASE + 1,
            Resource::StorageBuffer(words_to_bytes(&vec![0; 4 * THREADS])),
        ),
    ];
    let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
    if !ctx.features().shader_float64 {
        eprintln!("dfma_rounds_once_on_random_operands skipped: the device lacks shaderFloat64");
        return;
    }
    let result = ctx.dispatch(&spirv, &mut bindings, [(THREADS / 64) as u32, 1, 1]);
    let messages = ctx.take_validation_messages();
    drop(ctx);
    if let Err(e) = result {
        panic!("dispatch failed: {e}\n{text}");
    }
    assert!(messages.is_empty(), "validation: {messages:#?}");
    let out = bindings
        .get(1)
        .map(|b| bytes_to_words(b.resource.data()))
        .unwrap_or_default();
    let mut failures = Vec::new();
    for (i, &(a, b, c)) in cases.iter().enumerate() {
        let got = u64::from(out[2 * i]) | (u64::from(out[2 * i + 1]) << 32);
        let want = f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits();
        let nan = |x: u64| f64::from_bits(x).is_nan();
        if got != want && !(nan(got) && nan(want)) {
            failures.push(format!(
                "dfma({a:#018x}, {b:#018x}, {c:#018x}): expected {want:#018x} ({:e}), \
                 actual {got:#018x} ({:e})",
                f64::from_bits(want),
                f64::from_bits(got)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} dfma results wrong (first 20):\n{}\nshader:\n{text}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
