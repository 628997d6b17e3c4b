//! The translation-layer options over the whole corpus: every blob the translator takes is
//! translated again (a) with an interface map that places every element of every signature
//! by semantic away from its register (inputs and outputs at `31 - register`, patch
//! constants from location 40, semantic names lower-cased to exercise the case-insensitive
//! match; pixel shaders with dual-source blending) and (b) with every constant buffer in
//! push constants, one after the other. Every module must pass spirv-val; the only refusal
//! allowed is the one named in `REFUSED_WITH_A_MAP`, with its reason.

mod common;

use dxbc2spirv::bindings::BindingMap;
use dxbc2spirv::container::Signature;
use dxbc2spirv::interface::{InterfaceEntry, InterfaceKey, InterfaceMap};
use dxbc2spirv::{translate_bytes, TranslateOptions};

/// Blobs an interface map cannot place, with the reason's text: a vkd3d-compiled hull shader
/// without a control-point phase whose output signature is empty (its control points pass
/// through, and an outputs list places output-signature elements).
const REFUSED_WITH_A_MAP: &[(&str, &str)] = &[(
    "131cc179f4ebf98a383b39e5463a7459eb100a818e4df6f4490132ab759bf4eb.hs_5_0.dxbc",
    "no element of the output signature holds it",
)];

fn entries(
    signature: &Option<Signature>,
    location: impl Fn(u32) -> u32,
) -> Option<Vec<InterfaceEntry>> {
    let signature = signature.as_ref()?;
    Some(
        signature
            .elements
            .iter()
            .map(|e| InterfaceEntry {
                key: InterfaceKey::Semantic {
                    name: e.semantic_name.to_ascii_lowercase(),
                    index: e.semantic_index,
                },
                location: location(e.register.min(31)),
                component: None,
                vector: None,
            })
            .collect(),
    )
}

fn check(name: &str, what: &str, words: &[u32], failures: &mut Vec<String>) {
    if let Err(e) = dxbc2spirv_testkit::spirv_val(words, "vulkan1.3") {
        failures.push(format!("{name} ({what}): {e}"));
    }
}

#[test]
fn interface_maps_and_push_constants_over_the_corpus() {
    let mut failures = Vec::new();
    let (mut mapped, mut pushed, mut refused) = (0, 0, 0);
    for (name, bytes) in common::corpus_blobs() {
        let mut options = TranslateOptions::default();
        options.ignore_checksum = true;
        let Ok(plain) = translate_bytes(&bytes, &options) else {
            continue;
        };
        let r = &plain.reflection;
        let pixel = r.model.starts_with("ps");

        let mut with_map = options.clone();
        with_map.interface = Some(InterfaceMap {
            inputs: entries(&r.inputs, |reg| 31 - reg),
            outputs: if pixel {
                None
            } else {
                entries(&r.outputs, |reg| 31 - reg)
            },
            patch_constants: entries(&r.patch_constants, |reg| 40 + reg),
        });
        with_map.dual_source_blending = pixel;
        match translate_bytes(&bytes, &with_map) {
            Ok(t) => {
                mapped += 1;
                check(&name, "interface map", &t.words, &mut failures);
            }
            Err(e) => {
                let known = REFUSED_WITH_A_MAP
                    .iter()
                    .any(|(file, why)| name.ends_with(file) && e.to_string().contains(why));
                if known {
                    refused += 1;
                } else {
                    failures.push(format!("{name} (interface map): {e}"));
                }
            }
        }

        let buffers: Vec<_> = r
            .ranges
            .iter()
            .filter(|range| {
                range.dimension == Some("constant_buffer")
                    && range.name.as_deref() != Some("$DynamicSlot")
            })
            .map(|range| {
                let b = &range.binding;
                (
                    b.range.space,
                    b.range.lower,
                    b.range.upper,
                    range.cbuffer_size.unwrap_or(1),
                )
            })
            .collect();
        if buffers.is_empty() || r.dynamic_constant_buffers.is_some() {
            continue;
        }
        let mut offset = 0;
        let mut list = Vec::new();
        for (space, lower, upper, vectors) in buffers {
            if upper != Some(lower) {
                continue;
            }
            list.push(format!(
                r#"{{"class":"cbv","space":{space},"first":{lower},"push_constant":true,"offset":{offset}}}"#
            ));
            offset += vectors.max(1) * 16;
        }
        let json = format!(
            r#"{{"fallback_to_default":true,"ranges":[{}]}}"#,
            list.join(",")
        );
        let mut with_push = options.clone();
        with_push.bindings = Some(BindingMap::from_json(&json).expect("a valid map"));
        match translate_bytes(&bytes, &with_push) {
            Ok(t) => {
                pushed += 1;
                if t.reflection.push_constants.len() != list.len() {
                    failures.push(format!(
                        "{name} (push constants): {} buffers placed, {} reported",
                        list.len(),
                        t.reflection.push_constants.len()
                    ));
                }
                check(&name, "push constants", &t.words, &mut failures);
            }
            Err(e) => failures.push(format!("{name} (push constants): {e}")),
        }
    }
    println!("{mapped} modules with an interface map, {pushed} with push constants, {refused} known refusals");
    assert!(
        mapped > 1000 && pushed > 400,
        "too few modules: {mapped} mapped, {pushed} with push constants"
    );
    assert_eq!(
        refused,
        REFUSED_WITH_A_MAP.len(),
        "a known refusal did not happen"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
