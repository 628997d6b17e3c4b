//! Every corpus shader translated once and bound afterwards ([`CachedShader`]) gives, word
//! for word, the module a full translation with the same binding mapper gives; and the cached
//! form survives `to_bytes` / `from_bytes`.

mod common;

use dxbc2spirv::bindings::{Binding, BindingMapper, DefaultBindings, RangeKey};
use dxbc2spirv::cache::CachedShader;

/// Every range in set `2 * space + 1`, at binding 7 + its default binding.
struct Moved;

impl BindingMapper for Moved {
    fn map(&self, range: &RangeKey) -> Option<Binding> {
        let default = DefaultBindings.map(range)?;
        Some(Binding {
            set: 2 * range.space + 1,
            binding: 7 + default.binding,
            array_offset: 0,
        })
    }
}

#[test]
fn cached_and_bound_equals_translated_with_the_mapper() {
    let options = common::options();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, bytes) in common::corpus_blobs() {
        let Ok(dxbc) = dxbc2spirv::read(&bytes, &options.read_options()) else {
            continue;
        };
        let Ok(program) = dxbc.shader_program() else {
            continue;
        };
        let Ok(direct) = dxbc2spirv::translate_program(program, &dxbc.reflection, &options, &Moved)
        else {
            continue;
        };
        let result = CachedShader::new(&bytes, &options)
            .and_then(|c| CachedShader::from_bytes(&c.to_bytes()))
            .and_then(|c| c.bind(&Moved));
        match result {
            Ok(words) if words == direct => checked += 1,
            Ok(words) => {
                let at = words.iter().zip(&direct).position(|(a, b)| a != b);
                failures.push(format!(
                    "{name}: the bound module differs from the direct translation at word {at:?} \
                     (lengths {} and {})",
                    words.len(),
                    direct.len()
                ));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 1000, "only {checked} corpus shaders were checked");
    eprintln!("{checked} corpus shaders: cached + bound == translated with the mapper");
}
