//! A translation split for caching: the expensive per-shader stage once, the cheap
//! per-pipeline stage (binding the descriptor ranges) as often as a pipeline needs it.
//!
//! [`CachedShader::new`] reads, validates and translates a shader with the default bindings
//! ([`DefaultBindings`]) and records, for every descriptor range, where its `DescriptorSet`
//! and `Binding` decoration operands sit in the words. [`CachedShader::bind`] copies the words
//! and patches those operands with the bindings a [`BindingMapper`] chooses: the result is
//! word for word the module a full translation with that mapper gives (a test checks it), at
//! the cost of a copy. [`CachedShader::to_bytes`] and [`CachedShader::from_bytes`] store it,
//! so a translation layer can keep it in its disk cache.
//!
//! A mapper used with a cached shader must keep each range's array offset at the default
//! (0): the offset is part of the array types and index arithmetic, which a patch cannot
//! change. Binding fails with an error naming the range otherwise.

use crate::bindings::{
    BindingMapper, DefaultBindings, DescriptorClass, DescriptorKind, RangeKey, ShaderBindings,
};
use crate::error::{Error, Location, Result};

/// Where one descriptor variable's set and binding are in the words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Site {
    /// The range the variable stands for (a UAV's counter has class `UavCounter`).
    key: RangeKey,
    /// Index of the `DescriptorSet` decoration's literal.
    set_word: usize,
    /// Index of the `Binding` decoration's literal.
    binding_word: usize,
}

/// A shader translated once, with its descriptor bindings left to choose per pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedShader {
    words: Vec<u32>,
    sites: Vec<Site>,
}

/// Magic of [`CachedShader::to_bytes`]: "D2SC" and a format version.
const MAGIC: [u8; 4] = *b"D2SC";
const VERSION: u32 = 1;

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Location::None, message)
}

impl CachedShader {
    /// Reads and translates a DXBC container and records its binding sites. The bindings are
    /// the default layout's whatever `options.bindings` says (they are chosen per pipeline
    /// with [`CachedShader::bind`]); the other options apply as to [`crate::translate_bytes`].
    pub fn new(bytes: &[u8], options: &crate::TranslateOptions) -> Result<Self> {
        let dxbc = crate::read(bytes, &options.read_options())?;
        let program = dxbc.shader_program()?;
        let workspace = &mut crate::pipeline::Workspace::default();
        let built = crate::pipeline::module(
            program,
            &dxbc.reflection,
            options,
            &DefaultBindings,
            workspace,
        )?;
        let (words, plan) = (built.words, built.analysis.plan);
        let decorations = binding_decorations(&words);
        let mut sites = Vec::new();
        for b in &plan.bindings {
            let mut add = |key: RangeKey, set: u32, binding: u32| {
                for &(id_set, set_word, binding_word) in &decorations {
                    if id_set == (set, binding) {
                        sites.push(Site {
                            key,
                            set_word,
                            binding_word,
                        });
                    }
                }
            };
            add(b.key, b.binding.set, b.binding.binding);
            if let Some(counter) = b.counter {
                let key = RangeKey {
                    class: DescriptorClass::UavCounter,
                    kind: DescriptorKind::Buffer,
                    ..b.key
                };
                add(key, counter.set, counter.binding);
            }
        }
        Ok(CachedShader { words, sites })
    }

    /// The module with the default bindings.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The module with every descriptor range bound where `mapper` says (asked about all the
    /// ranges at once, [`BindingMapper::map_shader`]); an unmapped range, or one mapped with a
    /// non-zero array offset, is an error naming it.
    pub fn bind(&self, mapper: &dyn BindingMapper) -> Result<Vec<u32>> {
        let mut words = self.words.clone();
        let keys: Vec<RangeKey> = self.sites.iter().map(|s| s.key).collect();
        let chosen = ShaderBindings::new(mapper, &keys);
        for site in &self.sites {
            if mapper.push_constant(&site.key).is_some() {
                return Err(invalid(format!(
                    "{}: a cached shader cannot move a constant buffer into push constants \
                     (translate it with the mapper instead)",
                    site.key
                )));
            }
            let binding = chosen.resolve(&site.key)?;
            if binding.array_offset != 0 {
                return Err(invalid(format!(
                    "{}: a cached shader cannot move a range to array offset {} (translate it \
                     with the mapper instead)",
                    site.key, binding.array_offset
                )));
            }
            for (at, value) in [
                (site.set_word, binding.set),
                (site.binding_word, binding.binding),
            ] {
                let word = words
                    .get_mut(at)
                    .ok_or_else(|| invalid("a binding site lies outside the module"))?;
                *word = value;
            }
        }
        Ok(words)
    }

    /// The cached form as bytes: magic, version, the words, then the sites.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.words.len() * 4 + self.sites.len() * 32);
        out.extend_from_slice(&MAGIC);
        let mut put = |v: u32| out.extend_from_slice(&v.to_le_bytes());
        put(VERSION);
        put(u32::try_from(self.words.len()).unwrap_or(u32::MAX));
        for &w in &self.words {
            put(w);
        }
        put(u32::try_from(self.sites.len()).unwrap_or(u32::MAX));
        for s in &self.sites {
            put(class_code(s.key.class));
            put(u32::from(s.key.kind == DescriptorKind::Image));
            put(s.key.space);
            put(s.key.lower);
            put(s.key.upper.unwrap_or(u32::MAX));
            put(u32::from(s.key.upper.is_some()));
            put(u32::try_from(s.set_word).unwrap_or(u32::MAX));
            put(u32::try_from(s.binding_word).unwrap_or(u32::MAX));
        }
        out
    }

    /// Reads what [`CachedShader::to_bytes`] wrote; anything else is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut words = bytes
            .get(4..)
            .filter(|_| bytes.get(..4) == Some(&MAGIC[..]))
            .ok_or_else(|| invalid("not a cached shader (bad magic)"))?
            .chunks(4)
            .map(|c| <[u8; 4]>::try_from(c).map(u32::from_le_bytes));
        let mut next = || -> Result<u32> {
            words
                .next()
                .and_then(|w| w.ok())
                .ok_or_else(|| invalid("a cached shader is truncated"))
        };
        if next()? != VERSION {
            return Err(invalid("a cached shader of another format version"));
        }
        let count = usize::try_from(next()?).unwrap_or(usize::MAX);
        if count.saturating_mul(4) > bytes.len() {
            return Err(invalid("a cached shader is truncated"));
        }
        let module = (0..count).map(|_| next()).collect::<Result<Vec<u32>>>()?;
        let site_count = usize::try_from(next()?).unwrap_or(usize::MAX);
        if site_count.saturating_mul(32) > bytes.len() {
            return Err(invalid("a cached shader is truncated"));
        }
        let mut sites = Vec::with_capacity(site_count);
        for _ in 0..site_count {
            let class = class_from_code(next()?)?;
            let kind = if next()? != 0 {
                DescriptorKind::Image
            } else {
                DescriptorKind::Buffer
            };
            let (space, lower, upper, bounded) = (next()?, next()?, next()?, next()?);
            let (set_word, binding_word) = (next()?, next()?);
            let index = |w: u32| {
                usize::try_from(w)
                    .ok()
                    .filter(|&i| i < module.len())
                    .ok_or_else(|| invalid("a binding site lies outside the module"))
            };
            sites.push(Site {
                key: RangeKey {
                    class,
                    kind,
                    space,
                    lower,
                    upper: (bounded != 0).then_some(upper),
                },
                set_word: index(set_word)?,
                binding_word: index(binding_word)?,
            });
        }
        Ok(CachedShader {
            words: module,
            sites,
        })
    }
}

/// Each variable's `(DescriptorSet, Binding)` with the word indices of both literals.
fn binding_decorations(words: &[u32]) -> Vec<((u32, u32), usize, usize)> {
    const OP_DECORATE: u32 = 71;
    const DESCRIPTOR_SET: u32 = 34;
    const BINDING: u32 = 33;
    let mut sets = std::collections::HashMap::new();
    let mut bindings = std::collections::HashMap::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let length = usize::try_from(first >> 16).unwrap_or(0);
        if length == 0 {
            break;
        }
        if first & 0xffff == OP_DECORATE && length == 4 {
            if let (Some(&id), Some(&decoration), Some(&value)) =
                (words.get(at + 1), words.get(at + 2), words.get(at + 3))
            {
                match decoration {
                    DESCRIPTOR_SET => {
                        sets.insert(id, (value, at + 3));
                    }
                    BINDING => {
                        bindings.insert(id, (value, at + 3));
                    }
                    _ => {}
                }
            }
        }
        at += length;
    }
    let mut out: Vec<_> = sets
        .iter()
        .filter_map(|(id, &(set, set_word))| {
            let &(binding, binding_word) = bindings.get(id)?;
            Some(((set, binding), set_word, binding_word))
        })
        .collect();
    out.sort_unstable_by_key(|&(_, set_word, _)| set_word);
    out
}

fn class_code(class: DescriptorClass) -> u32 {
    match class {
        DescriptorClass::ConstantBuffer => 0,
        DescriptorClass::Sampler => 1,
        DescriptorClass::ShaderResource => 2,
        DescriptorClass::UnorderedAccess => 3,
        DescriptorClass::UavCounter => 4,
    }
}

fn class_from_code(code: u32) -> Result<DescriptorClass> {
    Ok(match code {
        0 => DescriptorClass::ConstantBuffer,
        1 => DescriptorClass::Sampler,
        2 => DescriptorClass::ShaderResource,
        3 => DescriptorClass::UnorderedAccess,
        4 => DescriptorClass::UavCounter,
        _ => return Err(invalid("a cached shader names an unknown descriptor class")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{Binding, BindingMapper};

    /// Moves every range to set 3, binding 100 + its default binding.
    struct Moved;

    impl BindingMapper for Moved {
        fn map(&self, range: &RangeKey) -> Option<Binding> {
            let default = DefaultBindings.map(range)?;
            Some(Binding {
                set: 3,
                binding: 100 + default.binding,
                array_offset: 0,
            })
        }
    }

    struct Offset;

    impl BindingMapper for Offset {
        fn map(&self, range: &RangeKey) -> Option<Binding> {
            Some(Binding {
                array_offset: 2,
                ..DefaultBindings.map(range)?
            })
        }
    }

    const SHADER: &str = "cs_5_0\n\
        dcl_constantbuffer cb1[1], immediateIndexed\n\
        dcl_sampler s2, mode_default\n\
        dcl_resource_texture2d (float,float,float,float) t3\n\
        dcl_uav_raw u4\n\
        dcl_uav_structured_opc u5, 4\n\
        dcl_temps 1\n\
        dcl_thread_group 1, 1, 1\n\
        sample_l_indexable(texture2d)(float,float,float,float) r0.xyzw, l(0.5, 0.5, 0, 0), t3.xyzw, s2, l(0)\n\
        add r0.xyzw, r0.xyzw, cb1[0].xyzw\n\
        store_raw u4.xyzw, l(0), r0.xyzw\n\
        imm_atomic_alloc r0.x, u5\n\
        ret\n";

    /// The full translation with `mapper`.
    fn translate(dxbc: &crate::Dxbc<'_>, mapper: &dyn crate::bindings::BindingMapper) -> Vec<u32> {
        let program = dxbc.shader_program().expect("a program");
        let options = crate::TranslateOptions::default();
        crate::translate_program(program, &dxbc.reflection, &options, mapper).expect("translates")
    }

    fn cached() -> (Vec<u8>, CachedShader) {
        let bytes = crate::asm::assemble(SHADER).expect("assembles");
        let cached =
            CachedShader::new(&bytes, &crate::TranslateOptions::default()).expect("translates");
        (bytes, cached)
    }

    #[test]
    fn bound_module_equals_a_full_translation_with_the_mapper() {
        let (bytes, cached) = cached();
        assert_eq!(
            cached.sites.len(),
            6,
            "cb, sampler, texture, two UAVs, one counter"
        );
        let dxbc = crate::read(&bytes, &crate::ReadOptions::default()).expect("reads");
        let direct = translate(&dxbc, &Moved);
        assert_eq!(cached.bind(&Moved).expect("binds"), direct);
        // The default mapper gives back the cached words.
        assert_eq!(
            cached.bind(&DefaultBindings).expect("binds"),
            cached.words()
        );
    }

    /// Registers the default layout numbers per shader (from 2^29 on) are bound as a full
    /// translation binds them, by the default and by a map falling back to it.
    #[test]
    fn the_largest_registers_bind_as_in_a_full_translation() {
        let text = "cs_5_1\n\
            dcl_resource_raw t0[4294967295:*], space=0\n\
            dcl_uav_raw u0[536870912:536870912], space=0\n\
            dcl_temps 1\n\
            dcl_thread_group 1, 1, 1\n\
            ld_raw r0.x, l(0), t0[4294967295].xxxx\n\
            store_raw u0[536870912].x, l(0), r0.x\n\
            ret\n";
        let bytes = crate::asm::assemble(text).expect("assembles");
        let cached =
            CachedShader::new(&bytes, &crate::TranslateOptions::default()).expect("translates");
        assert_eq!(
            cached.bind(&DefaultBindings).expect("binds"),
            cached.words()
        );
        let map = crate::bindings::BindingMap::from_json(
            r#"{"fallback_to_default": true, "ranges": [
                {"class": "srv", "first": 4294967295, "set": 1, "binding": 7}]}"#,
        )
        .expect("a map");
        let dxbc = crate::read(&bytes, &crate::ReadOptions::default()).expect("reads");
        let direct = translate(&dxbc, &map);
        assert_eq!(cached.bind(&map).expect("binds"), direct);
    }

    #[test]
    fn bytes_round_trip_and_corruption_is_an_error() {
        let (_, cached) = cached();
        let bytes = cached.to_bytes();
        assert_eq!(
            CachedShader::from_bytes(&bytes).expect("reads back"),
            cached
        );
        for cut in [0, 3, 8, 12, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                CachedShader::from_bytes(bytes.get(..cut).unwrap_or_default()).is_err(),
                "a cache cut at {cut} bytes must be rejected"
            );
        }
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(CachedShader::from_bytes(&bad).is_err());
    }

    #[test]
    fn array_offsets_and_unmapped_ranges_are_named_errors() {
        let (_, cached) = cached();
        let err = cached.bind(&Offset).expect_err("offsets cannot be patched");
        assert!(err.to_string().contains("array offset 2"), "{err}");
        struct Nothing;
        impl BindingMapper for Nothing {
            fn map(&self, _: &RangeKey) -> Option<Binding> {
                None
            }
        }
        let err = cached.bind(&Nothing).expect_err("unmapped");
        assert!(
            err.to_string().contains("no descriptor binding is mapped"),
            "{err}"
        );
    }
}
