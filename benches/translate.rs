//! Criterion benches of the translator's stages on a few representative corpus shaders: a
//! small and a big pixel shader, a hull shader and a compute shader.
//!
//! Run with `cargo bench --bench translate` (or `cargo xtask bench --criterion`). The shaders
//! come from the shared corpus (`$DXBC2SPIRV_CORPUS`, or `../shared/corpus`); without it
//! the benches say so and measure nothing. Stages: container parse, reflection (RDEF and
//! signatures), program decode, IR validation, each IR pass that runs on its own (double
//! legalization, hull phases, temp-type inference, binding plan), SPIR-V emission (which
//! runs those passes again inside), and the whole `translate_bytes`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use dxbc2spirv::analysis;
use dxbc2spirv::bindings::DefaultBindings;
use dxbc2spirv::container::{ChunkInfo, Container, ParseOptions};
use dxbc2spirv::{ReadOptions, TranslateOptions};

/// The benched shaders: a label and the path under the corpus root.
const SHADERS: &[(&str, &str)] = &[
    ("small_ps", "fxc/d3d12/ps_code_7153.dxbc"),
    (
        "big_ps",
        "shader_test_dxbc/3ce07b7035cd2d51c91876a5fed00ff799f76ad9231d4afb4f5732c481e1b6b7.ps_4_0.dxbc",
    ),
    ("hs", "fxc/d3d12/hs_code_36944.dxbc"),
    ("cs", "fxc/d3d12/cs_code_18683.dxbc"),
];

/// The corpus root, or `None` (with a message) when it is absent.
fn corpus_root() -> Option<PathBuf> {
    let dir = match std::env::var_os("DXBC2SPIRV_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    };
    if dir.join("fxc").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "CORPUS NOT FOUND at {} (set DXBC2SPIRV_CORPUS): no translation benches run",
            dir.display()
        );
        None
    }
}

/// Benches every stage on every shader.
fn stages(c: &mut Criterion) {
    let Some(root) = corpus_root() else {
        return;
    };
    let mut options = TranslateOptions::default();
    options.debug_names = false;
    for &(label, rel) in SHADERS {
        let path = root.join(rel);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("{}: {e}; bench {label} skipped", path.display());
                continue;
            }
        };
        let dxbc = dxbc2spirv::read(&bytes, &ReadOptions::default()).expect("corpus blob reads");
        let program = dxbc.program.as_ref().expect("corpus blob has a program");
        let chunk = dxbc.container.program().expect("program chunk").data;
        let mut group = c.benchmark_group(label);
        group.bench_function("container", |b| {
            b.iter(|| Container::parse(black_box(&bytes), &ParseOptions::default()))
        });
        group.bench_function("reflection", |b| {
            b.iter(|| ChunkInfo::parse(black_box(&dxbc.container)))
        });
        group.bench_function("decode", |b| {
            b.iter(|| dxbc2spirv::tpf::decode(black_box(chunk)))
        });
        group.bench_function("validate", |b| {
            b.iter(|| dxbc2spirv::ir::validate(black_box(program)))
        });
        group.bench_function("pass_doubles", |b| {
            b.iter(|| analysis::doubles::legalize(black_box(program)))
        });
        group.bench_function("pass_hull_phases", |b| {
            b.iter(|| analysis::hull_phases::hull_phases(black_box(program)))
        });
        group.bench_function("pass_temp_types", |b| {
            b.iter(|| analysis::temp_types::infer_temp_types(black_box(program)))
        });
        group.bench_function("pass_bindings", |b| {
            b.iter(|| {
                analysis::binding_plan::BindingPlan::build(black_box(program), &DefaultBindings)
            })
        });
        group.bench_function("emit", |b| {
            b.iter(|| {
                dxbc2spirv::translate_program(
                    black_box(program),
                    &dxbc.reflection,
                    &options,
                    &DefaultBindings,
                )
            })
        });
        group.bench_function("whole", |b| {
            b.iter(|| dxbc2spirv::translate_bytes(black_box(&bytes), &options))
        });
        group.finish();
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
