//! Executes the compute seed tests (`shaders/seeds/*.shader_test`) on a Vulkan device
//! (lavapipe on machines without a GPU): assemble, translate, dispatch, probe.
//!
//! Set `DXBC2SPIRV_VALIDATION=1` to run under `VK_LAYER_KHRONOS_validation`; every
//! validation message then fails the test.
#![cfg(feature = "vulkan")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use dxbc2spirv::vulkan::{bytes_to_words, words_to_bytes, Binding, Context, Format, Resource};

/// The default layout's first UAV binding (src/spirv/resources.rs).
const UAV_BINDING_BASE: u32 = 160;
/// The default layout's first constant-buffer binding.
const CB_BINDING_BASE: u32 = 0;

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

#[derive(Debug, Clone)]
enum UavKind {
    Raw,
    Typed(Format),
    Structured(u32),
}

#[derive(Debug, Clone)]
struct Uav {
    kind: Option<UavKind>,
    format_name: Option<String>,
    /// Size in dwords (raw), texels (typed) or elements (structured).
    size: Option<u32>,
    data: Vec<u32>,
    line: usize,
}

impl Uav {
    fn dwords(&self) -> Result<usize, String> {
        let size = self.size.ok_or("no `size` line")? as usize;
        Ok(match self.kind {
            Some(UavKind::Raw) | Some(UavKind::Typed(_)) => size,
            Some(UavKind::Structured(stride)) => size * (stride as usize / 4),
            None => return Err("neither a `format` nor a `stride` line".into()),
        })
    }

    /// The first dword of probe index `index` of a probe of `count` values: as in vkd3d's
    /// runner, the index counts elements the size of the probed value (`u32(a, b, c, d)`: 16
    /// bytes).
    fn probe_offset(index: u32, count: usize) -> usize {
        index as usize * count
    }

    fn resource(&self, words: &[u32]) -> Result<Resource, String> {
        let bytes = words_to_bytes(words);
        Ok(match &self.kind {
            Some(UavKind::Raw) | Some(UavKind::Structured(_)) => Resource::StorageBuffer(bytes),
            Some(UavKind::Typed(format)) => Resource::StorageTexelBuffer {
                format: *format,
                data: bytes,
            },
            None => return Err("no kind".into()),
        })
    }
}

fn parse_u32(token: &str) -> Result<u32, String> {
    let t = token.trim();
    let parsed = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16)
    } else if let Some(neg) = t.strip_prefix('-') {
        neg.parse::<u32>().map(|v| v.wrapping_neg())
    } else {
        t.parse::<u32>()
    };
    parsed.map_err(|e| format!("`{t}` is not an integer: {e}"))
}

/// Reads `(a, b)` as two tokens.
fn parenthesised(text: &str) -> Option<(&str, &str)> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (a, b) = inner.split_once(',')?;
    Some((a.trim(), b.trim()))
}

enum Section {
    None,
    Uav(u32),
    Shader,
    Test,
    Ignored,
}

struct Runner<'a> {
    file: &'a Path,
    uavs: BTreeMap<u32, Uav>,
    shader: Option<(usize, String)>,
    spirv: Option<Vec<u32>>,
    /// The current contents of each UAV (reset when its declaration is read).
    contents: BTreeMap<u32, Vec<u32>>,
    test_line: usize,
    dispatched: bool,
    failures: Vec<String>,
    probes: usize,
}

impl Runner<'_> {
    fn fail(&mut self, line: usize, message: impl AsRef<str>) {
        self.failures.push(format!(
            "{}:{line} (test section at line {}): {}",
            self.file.display(),
            self.test_line,
            message.as_ref()
        ));
    }

    fn translate(&mut self) -> Result<Vec<u32>, String> {
        if let Some(words) = &self.spirv {
            return Ok(words.clone());
        }
        let (line, text) = self.shader.clone().ok_or("no shader before the test")?;
        let bytes = dxbc2spirv::asm::assemble(&text)
            .map_err(|e| format!("shader at line {line}: assembling failed: {e}"))?;
        let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default())
            .map_err(|e| format!("shader at line {line}: reading failed: {e}"))?;
        let words = dxbc2spirv::translate(&dxbc, &dxbc2spirv::spirv::Options::default())
            .map_err(|e| format!("shader at line {line}: translation failed: {e}"))?;
        self.spirv = Some(words.clone());
        Ok(words)
    }

    fn dispatch(&mut self, line: usize, groups: [u32; 3]) -> Result<(), String> {
        let spirv = self.translate()?;
        let mut bindings = Vec::new();
        let mut order = Vec::new();
        for (&n, uav) in &self.uavs {
            let words = self.contents.get(&n).cloned().unwrap_or_default();
            let resource = uav
                .resource(&words)
                .map_err(|e| format!("uav {n} (line {}): {e}", uav.line))?;
            bindings.push(Binding::new(0, UAV_BINDING_BASE + n, resource));
            order.push(n);
        }
        let ctx = context().lock().unwrap_or_else(|e| e.into_inner());
        let result = ctx.dispatch(&spirv, &mut bindings, groups);
        let messages = ctx.take_validation_messages();
        drop(ctx);
        result.map_err(|e| format!("dispatch at line {line} failed: {e}"))?;
        for m in messages {
            self.fail(line, format!("validation layer: {m}"));
        }
        for (n, b) in order.into_iter().zip(bindings) {
            self.contents.insert(n, bytes_to_words(b.resource.data()));
        }
        self.dispatched = true;
        Ok(())
    }

    fn probe(&mut self, line: usize, rest: &str) -> Result<(), String> {
        // probe uav N (I) u32(a, b, ...)
        let rest = rest.trim();
        let rest = rest
            .strip_prefix("uav")
            .ok_or("only `probe uav` is supported")?;
        let (n, rest) = rest.trim().split_once(' ').ok_or("bad probe")?;
        let n = parse_u32(n)?;
        let rest = rest.trim();
        let close = rest.find(')').ok_or("bad probe index")?;
        let index = parse_u32(rest.get(1..close).ok_or("bad probe index")?)?;
        let values = rest
            .get(close + 1..)
            .unwrap_or("")
            .trim()
            .strip_prefix("u32(")
            .and_then(|v| v.strip_suffix(')'))
            .ok_or("only u32(...) probes are supported")?;
        let expected: Vec<u32> = values.split(',').map(parse_u32).collect::<Result<_, _>>()?;
        if !self.dispatched {
            return Err("probe before any dispatch".into());
        }
        if !self.uavs.contains_key(&n) {
            return Err(format!("uav {n} is not declared"));
        }
        let offset = Uav::probe_offset(index, expected.len());
        let contents = self.contents.get(&n).cloned().unwrap_or_default();
        let actual: Vec<Option<u32>> = (0..expected.len())
            .map(|i| contents.get(offset + i).copied())
            .collect();
        self.probes += 1;
        if actual.iter().zip(&expected).any(|(a, e)| *a != Some(*e)) {
            let shown: Vec<String> = actual
                .iter()
                .map(|a| a.map_or("<out of bounds>".into(), |v| v.to_string()))
                .collect();
            self.fail(
                line,
                format!(
                    "probe uav {n} ({index}): expected {expected:?}, got [{}] (whole uav: {contents:?})",
                    shown.join(", ")
                ),
            );
        }
        Ok(())
    }

    fn test_line(&mut self, line: usize, text: &str) -> Result<(), String> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("dispatch ") {
            let v: Vec<u32> = rest
                .split_whitespace()
                .map(parse_u32)
                .collect::<Result<_, _>>()?;
            let groups: [u32; 3] = v.try_into().map_err(|_| "dispatch needs 3 counts")?;
            self.dispatch(line, groups)
        } else if let Some(rest) = text.strip_prefix("probe ") {
            self.probe(line, rest)
        } else {
            Err(format!("unsupported test line `{text}`"))
        }
    }

    fn uav_line(&mut self, n: u32, text: &str) -> Result<(), String> {
        let uav = self.uavs.get_mut(&n).ok_or("no uav")?;
        let text = text.trim();
        if let Some(format) = text.strip_prefix("format ") {
            let format = format.trim();
            uav.format_name = Some(format.to_string());
            uav.kind = Some(match format {
                "r32-typeless" => UavKind::Raw,
                "r32-uint" => UavKind::Typed(Format::R32Uint),
                "r32-sint" => UavKind::Typed(Format::R32Sint),
                "r32-float" => UavKind::Typed(Format::R32Float),
                other => return Err(format!("unsupported uav format `{other}`")),
            });
        } else if let Some(stride) = text.strip_prefix("stride ") {
            let stride = parse_u32(stride)?;
            if stride == 0 || stride % 4 != 0 {
                return Err(format!("unsupported stride {stride}"));
            }
            uav.kind = Some(UavKind::Structured(stride));
        } else if let Some(size) = text.strip_prefix("size ") {
            let (kind, count) = parenthesised(size).ok_or("bad size line")?;
            if kind != "raw_buffer" && kind != "buffer" {
                return Err(format!("unsupported resource kind `{kind}`"));
            }
            uav.size = Some(parse_u32(count)?);
        } else {
            for token in text.split_whitespace() {
                uav.data.push(parse_u32(token)?);
            }
        }
        Ok(())
    }

    /// Fixes a declared UAV's initial contents (its data padded with zeros to its size).
    fn finish_uav(&mut self, n: u32) -> Result<(), String> {
        let uav = self.uavs.get(&n).ok_or("no uav")?;
        let dwords = uav.dwords()?;
        if uav.data.len() > dwords {
            return Err(format!(
                "{} data values for a uav of {dwords} dwords",
                uav.data.len()
            ));
        }
        let mut data = uav.data.clone();
        data.resize(dwords, 0);
        self.contents.insert(n, data);
        Ok(())
    }
}

/// Runs one `.shader_test` file; returns the number of probes checked, or every failure.
fn run_file(file: &Path) -> Result<usize, Vec<String>> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| vec![format!("{}: cannot read: {e}", file.display())])?;
    let mut r = Runner {
        file,
        uavs: BTreeMap::new(),
        shader: None,
        spirv: None,
        contents: BTreeMap::new(),
        test_line: 0,
        dispatched: false,
        failures: Vec::new(),
        probes: 0,
    };
    let mut section = Section::None;
    let mut after_test = false;
    let mut shader_text = String::new();
    let lines: Vec<&str> = text.lines().collect();
    // A sentinel header at the end closes the last section.
    for (i, raw) in lines.iter().copied().chain(["[end]"]).enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.starts_with('[') {
            // Close the current section.
            let closed = match section {
                Section::Uav(n) => r.finish_uav(n).map_err(|e| format!("uav {n}: {e}")),
                Section::Shader => {
                    if let Some((_, text)) = &mut r.shader {
                        *text = std::mem::take(&mut shader_text);
                    }
                    Ok(())
                }
                _ => Ok(()),
            };
            if let Err(e) = closed {
                r.fail(line, e);
                return Err(r.failures);
            }
            let header = trimmed.trim_start_matches('[').trim_end_matches(']').trim();
            section = if let Some(n) = header.strip_prefix("uav ") {
                let Ok(n) = parse_u32(n) else {
                    r.fail(line, format!("bad header `{trimmed}`"));
                    return Err(r.failures);
                };
                if after_test {
                    r.uavs.clear();
                    r.contents.clear();
                    after_test = false;
                }
                r.uavs.insert(
                    n,
                    Uav {
                        kind: None,
                        format_name: None,
                        size: None,
                        data: Vec::new(),
                        line,
                    },
                );
                Section::Uav(n)
            } else if header == "compute shader asm" {
                r.shader = Some((line, String::new()));
                r.spirv = None;
                shader_text.clear();
                Section::Shader
            } else if header == "test" {
                r.test_line = line;
                r.dispatched = false;
                after_test = true;
                Section::Test
            } else if header == "end" || header == "require" {
                Section::Ignored
            } else {
                r.fail(line, format!("unsupported section `{trimmed}`"));
                return Err(r.failures);
            };
            continue;
        }
        if matches!(section, Section::Shader) {
            shader_text.push_str(raw);
            shader_text.push('\n');
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('%') {
            continue;
        }
        let result = match section {
            Section::Uav(n) => r.uav_line(n, trimmed).map_err(|e| format!("uav {n}: {e}")),
            Section::Test => r.test_line(line, trimmed),
            Section::Ignored => Ok(()),
            Section::None | Section::Shader => Err(format!("unexpected line `{trimmed}`")),
        };
        if let Err(e) = result {
            r.fail(line, e);
        }
    }
    if r.failures.is_empty() {
        Ok(r.probes)
    } else {
        Err(r.failures)
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
            "{name}: {} failure(s):\n{}",
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

/// A wrong probe fails, naming the file, the test section, the probe line and both values.
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
    let line_of = |needle: &str| {
        text.lines()
            .position(|l| l.trim() == needle)
            .map_or(0, |i| i + 1)
    };
    let probe_line = format!(".shader_test:{} ", line_of("probe uav 1 (2) u32(21, 22)"));
    let test_line = format!("test section at line {}", line_of("[test]"));
    for part in [&probe_line, &test_line, "[21, 99]", "[21, 22]"] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

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
            Resource::SampledImage2D {
                format: Format::R32G32B32A32Float,
                width: 2,
                height: 2,
                data: to_bytes(&texels),
            },
        ),
        Binding::new(
            0,
            UAV_BINDING_BASE,
            Resource::StorageImage2D {
                format: Format::R32G32B32A32Float,
                width: 2,
                height: 2,
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
