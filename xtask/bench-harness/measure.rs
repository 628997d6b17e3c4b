//! The in-process timing of `cargo xtask bench`: every corpus shader translated by a kept
//! `dxbc2spirv::Translator` and by the one-call `dxbc2spirv::translate_bytes`, in the same
//! rounds.
//!
//! This file is shared: xtask includes it as a module (the in-process run of the current
//! tree), and the stand-alone harness (`main.rs` next to it) is built with it against a tree's
//! own library, so that `cargo xtask bench --baseline REV` runs identical measurement code
//! against the baseline commit and against the current tree. It therefore uses only the
//! translator's long-standing public API (`translate_bytes`, `Translator::new`,
//! `Translator::translate`, `TranslateOptions::{debug_names, no_optimize}`) and the standard
//! library.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use dxbc2spirv::{TranslateOptions, Translator};

/// The sub-corpora: directory name and whether it is searched recursively.
pub const CORPORA: &[(&str, bool)] = &[("fxc", true), ("shader_test_dxbc", false)];

/// One corpus shader, loaded into memory.
pub struct Shader {
    /// The sub-corpus (an entry of [`CORPORA`]).
    pub corpus: &'static str,
    /// Path relative to the corpus root.
    pub rel: String,
    /// Absolute path.
    pub path: PathBuf,
    /// The container bytes.
    pub bytes: Vec<u8>,
    /// The size in bytes of the container's program chunk (SHDR or SHEX): the "program size"
    /// the largest quarter is chosen by.
    pub program_bytes: usize,
}

/// The size of the SHDR or SHEX chunk of a DXBC container, `None` when it has none (a root
/// signature) or the chunk table is malformed.
pub fn program_chunk_size(bytes: &[u8]) -> Option<usize> {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    if bytes.get(..4)? != b"DXBC" {
        return None;
    }
    let count = word(28)? as usize;
    (0..count).find_map(|i| {
        let offset = word(32 + 4 * i)? as usize;
        let fourcc = bytes.get(offset..offset + 4)?;
        if fourcc == b"SHDR" || fourcc == b"SHEX" {
            Some(word(offset + 4)? as usize)
        } else {
            None
        }
    })
}

/// Loads the `.dxbc` files of every sub-corpus under `root`, sorted by path within each,
/// leaving out containers without a program (root signatures).
pub fn load(root: &Path) -> Result<Vec<Shader>, String> {
    let mut shaders = Vec::new();
    for &(corpus, recursive) in CORPORA {
        let mut paths = Vec::new();
        collect(&root.join(corpus), recursive, &mut paths)?;
        paths.sort();
        let before = shaders.len();
        for path in paths {
            let bytes =
                std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            let Some(program_bytes) = program_chunk_size(&bytes) else {
                continue;
            };
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            shaders.push(Shader {
                corpus,
                rel,
                path,
                bytes,
                program_bytes,
            });
        }
        if shaders.len() == before {
            return Err(format!("no shaders in {}", root.join(corpus).display()));
        }
    }
    Ok(shaders)
}

/// Adds the `.dxbc` files under `dir` (recursing when asked) to `out`.
fn collect(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("listing {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("listing {}: {e}", dir.display()))?
            .path();
        if path.is_dir() {
            if recursive {
                collect(&path, recursive, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "dxbc") {
            out.push(path);
        }
    }
    Ok(())
}

/// The options every timed translation uses: debug names stripped, the optimiser on unless
/// `no_optimize`.
pub fn options(no_optimize: bool) -> TranslateOptions {
    let mut options = TranslateOptions::default();
    options.debug_names = false;
    options.no_optimize = no_optimize;
    options
}

/// What was measured for one shader.
#[derive(Debug, Clone)]
pub struct Timing {
    /// The sub-corpus.
    pub corpus: String,
    /// Path relative to the corpus root.
    pub rel: String,
    /// The SHDR/SHEX chunk's size in bytes.
    pub program_bytes: usize,
    /// The module's size in words; `None` when the translator rejected the shader (it is not
    /// timed then).
    pub spirv_words: Option<usize>,
    /// Microseconds of each round with the kept `Translator`.
    pub kept_us: Vec<f64>,
    /// Microseconds of each round with `translate_bytes` (fresh working memory each call).
    pub one_call_us: Vec<f64>,
}

impl Timing {
    /// The fastest round of the kept `Translator`.
    pub fn kept_min(&self) -> f64 {
        min(&self.kept_us)
    }

    /// The median round of the kept `Translator`.
    pub fn kept_median(&self) -> f64 {
        median(&self.kept_us)
    }

    /// The fastest round of `translate_bytes`.
    pub fn one_call_min(&self) -> f64 {
        min(&self.one_call_us)
    }
}

/// The smallest value (0 for none).
fn min(values: &[f64]) -> f64 {
    values.iter().copied().reduce(f64::min).unwrap_or(0.0)
}

/// The median value (the upper one of an even count; 0 for none).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

/// Times every shader `reps` rounds (at least 1), on this thread.
///
/// First each shader is translated once by each form (a warm-up, which also finds the
/// rejected ones). Then, round after round over the whole corpus, each shader is translated by
/// the kept `Translator` and by `translate_bytes`, one after the other, the order swapped
/// every round, so that both forms see the same state of the machine.
pub fn measure(shaders: &[Shader], reps: usize, options: &TranslateOptions) -> Vec<Timing> {
    let reps = reps.max(1);
    let mut translator = Translator::new();
    let mut timings: Vec<Timing> = shaders
        .iter()
        .map(|s| {
            let words = translator
                .translate(&s.bytes, options)
                .ok()
                .map(|t| t.words.len());
            if words.is_some() {
                std::hint::black_box(dxbc2spirv::translate_bytes(&s.bytes, options).ok());
            }
            Timing {
                corpus: s.corpus.to_string(),
                rel: s.rel.clone(),
                program_bytes: s.program_bytes,
                spirv_words: words,
                kept_us: Vec::with_capacity(reps),
                one_call_us: Vec::with_capacity(reps),
            }
        })
        .collect();
    for round in 0..reps {
        for (s, t) in shaders.iter().zip(&mut timings) {
            if t.spirv_words.is_none() {
                continue;
            }
            let mut kept = || {
                let start = Instant::now();
                std::hint::black_box(translator.translate(&s.bytes, options).ok());
                start.elapsed().as_secs_f64() * 1e6
            };
            let one_call = || {
                let start = Instant::now();
                std::hint::black_box(dxbc2spirv::translate_bytes(&s.bytes, options).ok());
                start.elapsed().as_secs_f64() * 1e6
            };
            if round % 2 == 0 {
                t.kept_us.push(kept());
                t.one_call_us.push(one_call());
            } else {
                t.one_call_us.push(one_call());
                t.kept_us.push(kept());
            }
        }
    }
    timings
}

/// The timings as JSON: `{"reps": N, "shaders": [{"corpus", "rel", "program_bytes",
/// "spirv_words" (null when rejected), "kept_us": [...], "one_call_us": [...]}, ...]}`.
pub fn to_json(reps: usize, timings: &[Timing]) -> String {
    let mut out = String::new();
    let _ = write!(out, "{{\"reps\":{reps},\"shaders\":[");
    for (i, t) in timings.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let words = t
            .spirv_words
            .map_or_else(|| "null".to_string(), |w| w.to_string());
        let _ = write!(
            out,
            "\n{{\"corpus\":{},\"rel\":{},\"program_bytes\":{},\"spirv_words\":{words},\
             \"kept_us\":{},\"one_call_us\":{}}}",
            json_string(&t.corpus),
            json_string(&t.rel),
            t.program_bytes,
            json_numbers(&t.kept_us),
            json_numbers(&t.one_call_us),
        );
    }
    out.push_str("\n]}\n");
    out
}

/// A JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON array of numbers (three decimals: nanosecond resolution in microseconds).
fn json_numbers(values: &[f64]) -> String {
    let parts: Vec<String> = values.iter().map(|v| format!("{v:.3}")).collect();
    format!("[{}]", parts.join(","))
}
