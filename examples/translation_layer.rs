//! How a translation layer (a D3D11/D3D12-on-Vulkan driver) uses the library: translate each
//! shader once, keyed by its bytecode, with the layer's own descriptor layout, and take
//! the pipeline layout from the reflection.
//!
//! Run: `cargo run --example translation_layer [SHADER.dxbc…]` (without arguments it uses a
//! shader assembled from text).

use std::collections::HashMap;
use std::sync::Arc;

use dxbc2spirv::bindings::BindingMap;
use dxbc2spirv::{translate_bytes, TranslateOptions, Translation};

/// The layer's shader cache: one translation per distinct bytecode.
struct ShaderCache {
    options: TranslateOptions,
    modules: HashMap<Vec<u8>, Arc<Translation>>,
}

impl ShaderCache {
    /// A cache that binds every register space to its own set, with SRVs at binding 0..,
    /// UAVs at 64.., constant buffers at 128.. and samplers at 160.. (the layer's layout;
    /// `fallback_to_default` is off, so an unmapped register is an error, not a surprise).
    fn new() -> Result<Self, dxbc2spirv::Error> {
        let map = BindingMap::from_json(
            r#"{ "ranges": [
                { "class": "srv",     "space": 0, "first": 0, "last": 63,  "set": 0, "binding": 0 },
                { "class": "uav",     "space": 0, "first": 0, "last": 63,  "set": 0, "binding": 64 },
                { "class": "cbv",     "space": 0, "first": 0, "last": 13,  "set": 0, "binding": 128 },
                { "class": "sampler", "space": 0, "first": 0, "last": 15,  "set": 0, "binding": 160 }
            ] }"#,
        )?;
        let mut options = TranslateOptions::default();
        options.bindings = Some(map);
        Ok(ShaderCache {
            options,
            modules: HashMap::new(),
        })
    }

    /// The translation of `dxbc`, translated on first use.
    fn get(&mut self, dxbc: &[u8]) -> Result<Arc<Translation>, dxbc2spirv::Error> {
        if let Some(module) = self.modules.get(dxbc) {
            return Ok(Arc::clone(module));
        }
        let module = Arc::new(translate_bytes(dxbc, &self.options)?);
        self.modules.insert(dxbc.to_vec(), Arc::clone(&module));
        Ok(module)
    }
}

fn describe(name: &str, module: &Translation) {
    println!(
        "{name}: {} -> {} SPIR-V words",
        module.reflection.model,
        module.words.len()
    );
    // What the pipeline layout needs: one descriptor per range, at the mapped binding.
    for range in &module.reflection.ranges {
        let b = &range.binding;
        println!(
            "  {:<8} {:<18} set {} binding {}",
            b.key.class.name(),
            range.name.as_deref().unwrap_or("(unnamed)"),
            b.binding.set,
            b.binding.binding
        );
    }
    if let Some([x, y, z]) = module.reflection.thread_group {
        println!("  thread group {x}x{y}x{z}");
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut cache = ShaderCache::new()?;
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        let dxbc = dxbc2spirv::asm::assemble(
            "cs_5_0\ndcl_constantbuffer cb0[1], immediateIndexed\ndcl_resource_raw t3\n\
             dcl_uav_raw u1\ndcl_temps 1\ndcl_thread_group 8, 8, 1\n\
             ld_raw r0.x, l(0), t3.xxxx\niadd r0.x, r0.x, cb0[0].x\n\
             store_raw u1.x, l(0), r0.x\nret\n",
        )?;
        let first = cache.get(&dxbc)?;
        let again = cache.get(&dxbc)?;
        assert!(Arc::ptr_eq(&first, &again), "the second use is a cache hit");
        describe("built-in example", &first);
    }
    for file in files {
        let bytes = std::fs::read(&file)?;
        match cache.get(&bytes) {
            Ok(module) => describe(&file, &module),
            // A layer would fall back or report; one bad shader does not stop it.
            Err(e) => eprintln!("{file}: {e}"),
        }
    }
    Ok(())
}
