//! A translation must not depend on what the translator translated before it: a
//! [`dxbc2spirv::Translator`] keeps decoder arrays and its stages' tables from one
//! translation to the next (to reuse their memory), and forgets their contents.
//!
//! Every `tests/in/*.asm` input is translated by the one-call `translate_bytes`; then all of
//! them are translated one after another by one translator, forwards and backwards (so each
//! follows different shaders, small ones after large ones and the other way round), and by a
//! second translator moved to another thread after the first pass. Every module must be word
//! for word the one-call translation's.

use std::path::{Path, PathBuf};

use dxbc2spirv::{TranslateOptions, Translator};

/// The assembled containers of `tests/in`, with their names, sorted by name.
fn containers() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("in");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no inputs in {}", dir.display());
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let bytes = dxbc2spirv::asm::assemble(&text)
                .unwrap_or_else(|e| panic!("{}: assembling: {e}", path.display()));
            (path.display().to_string(), bytes)
        })
        .collect()
}

/// The module (or the error's text) of one translation.
fn words(result: dxbc2spirv::Result<dxbc2spirv::Translation>) -> Result<Vec<u32>, String> {
    result.map(|t| t.words).map_err(|e| e.to_string())
}

/// Panics with the input's name and the first differing word when two results differ.
fn assert_same(
    name: &str,
    order: &str,
    fresh: &Result<Vec<u32>, String>,
    got: &Result<Vec<u32>, String>,
) {
    if fresh == got {
        return;
    }
    match (fresh, got) {
        (Ok(a), Ok(b)) => {
            let at = a
                .iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{name} translated {order} differs from its one-call translation: \
                 {} vs {} words, first difference at word {at} (one call {:?}, got {:?})",
                a.len(),
                b.len(),
                a.get(at),
                b.get(at)
            );
        }
        _ => panic!("{name} translated {order}: one call gave {fresh:?}, got {got:?}"),
    }
}

#[test]
fn a_translation_does_not_depend_on_the_ones_the_translator_made_before() {
    let inputs = containers();
    let mut unoptimised = TranslateOptions::default();
    unoptimised.no_optimize = true;
    for options in [TranslateOptions::default(), unoptimised] {
        let fresh: Vec<Result<Vec<u32>, String>> = inputs
            .iter()
            .map(|(_, bytes)| words(dxbc2spirv::translate_bytes(bytes, &options)))
            .collect();
        let label = if options.no_optimize {
            " (no optimiser)"
        } else {
            ""
        };
        let mut translator = Translator::new();
        for (order, indices) in [
            (
                "after the inputs before it",
                (0..inputs.len()).collect::<Vec<_>>(),
            ),
            (
                "after the inputs after it",
                (0..inputs.len()).rev().collect(),
            ),
        ] {
            for i in indices {
                let (name, bytes) = &inputs[i];
                let got = words(translator.translate(bytes, &options));
                assert_same(name, &format!("{order}{label}"), &fresh[i], &got);
            }
        }
        // A translator is Send: the same one goes on on another thread.
        std::thread::scope(|s| {
            s.spawn(|| {
                for (i, (name, bytes)) in inputs.iter().enumerate() {
                    let got = words(translator.translate(bytes, &options));
                    let order = format!("on another thread{label}");
                    assert_same(name, &order, &fresh[i], &got);
                }
            });
        });
    }
}
