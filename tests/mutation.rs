//! Mutation test: corrupted corpus blobs must be read or rejected with an error, never panic.
//!
//! Every corpus blob is mutated with fixed seeds: bit flips, truncations, corrupted container
//! sizes, counts and offsets, corrupted chunk counts, corrupted instruction lengths and
//! program dwords. Most cases get a recomputed checksum so that the mutation reaches the
//! chunk parsers and the decoder rather than dying at the checksum. A case that reads is also
//! disassembled, checked for control flow, re-encoded and decoded again (the text must not
//! change), and its text assembled again (the tokens must not change), and translated: a
//! translation error must have a message, and a module must pass spirv-val (the distinct
//! modules, up to [`MAX_VALIDATED`], are validated after the run, two at a time). A panic
//! anywhere fails the test and prints the blob, seed and mutation.
//! `MUTATION_TRACE=1` prints each case before it runs (to find one that aborts the process,
//! e.g. by exhausting memory); the input of a module spirv-val rejects is saved under
//! `target/mutation-failures/`.

mod common;

use dxbc2spirv::{asm, container, disasm, ir, tpf, ReadOptions};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Cases per blob: with 1,243 corpus shaders and 24 root signatures this gives about 250,000.
const CASES_PER_BLOB: u64 = 200;

/// Distinct translated modules checked by spirv-val (each is a process: about 10 ms).
const MAX_VALIDATED: usize = 20_000;

/// A translated case kept for spirv-val: its description, input and module.
type Case = (String, Vec<u8>, Vec<u32>);

/// What happened to one mutated input.
enum Outcome {
    /// Read (and translated into the module, when it translates).
    Read(Option<Vec<u32>>),
    /// Rejected by the reader with an error.
    Rejected,
}

/// A small xorshift generator: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn interesting(rng: &mut Rng, len: usize) -> u32 {
    const VALUES: [u32; 11] = [
        0,
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fffe,
    ];
    match rng.below(14) {
        i if i < VALUES.len() => VALUES[i],
        11 => len as u32,
        12 => len as u32 + 1,
        _ => rng.next() as u32,
    }
}

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    if at + 4 <= bytes.len() {
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
}

/// Byte positions of interest in a valid container.
struct Layout {
    /// Chunk headers: (offset of the fourcc, data offset, data length).
    chunks: Vec<(usize, usize, usize)>,
    /// Byte offset of the program chunk's data, and its instructions' dword offsets.
    program: Option<(usize, Vec<u32>)>,
}

fn layout(bytes: &[u8]) -> Layout {
    let options = container::ParseOptions {
        ignore_checksum: true,
    };
    let Ok(parsed) = container::Container::parse(bytes, &options) else {
        return Layout {
            chunks: Vec::new(),
            program: None,
        };
    };
    let chunks = parsed
        .chunks
        .iter()
        .map(|c| (c.offset - 8, c.offset, c.data.len()))
        .collect();
    let program = parsed.program().and_then(|chunk| {
        let program = tpf::decode(chunk.data).ok()?;
        Some((
            chunk.offset,
            program.instructions.iter().map(|i| i.dword).collect(),
        ))
    });
    Layout { chunks, program }
}

/// Applies one mutation; returns its description.
fn mutate(bytes: &mut Vec<u8>, layout: &Layout, rng: &mut Rng) -> String {
    let len = bytes.len();
    match rng.below(9) {
        0 => {
            let flips = 1 + rng.below(8);
            for _ in 0..flips {
                let bit = rng.below(len * 8);
                bytes[bit / 8] ^= 1 << (bit % 8);
            }
            format!("{flips} bit flip(s)")
        }
        1 => {
            let keep = rng.below(len);
            bytes.truncate(keep);
            format!("truncated to {keep} bytes")
        }
        2 => {
            // Container header: total size (24), chunk count (28), or a chunk offset.
            let field = match rng.below(3) {
                0 => 24,
                1 => 28,
                _ => 32 + 4 * rng.below(layout.chunks.len().max(1)),
            };
            let value = interesting(rng, len);
            put_u32(bytes, field, value);
            format!("container field at byte {field} set to {value:#x}")
        }
        3 if !layout.chunks.is_empty() => {
            let (header, _, _) = layout.chunks[rng.below(layout.chunks.len())];
            let value = interesting(rng, len);
            put_u32(bytes, header + 4, value);
            format!("chunk size at byte {} set to {value:#x}", header + 4)
        }
        4 if !layout.chunks.is_empty() => {
            // A count or offset near the start of a chunk (signature element count, RDEF
            // counts and offsets, program length token).
            let (_, data, size) = layout.chunks[rng.below(layout.chunks.len())];
            let at = data + 4 * rng.below((size / 4).clamp(1, 8));
            let value = interesting(rng, len);
            put_u32(bytes, at, value);
            format!("chunk dword at byte {at} set to {value:#x}")
        }
        5 | 6 if layout.program.is_some() => {
            let Some((data, instructions)) = &layout.program else {
                return "none".into();
            };
            let dword = instructions[rng.below(instructions.len())] as usize;
            let at = data + 4 * dword;
            if at + 4 > len {
                return "none".into();
            }
            let token =
                u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            let value = match rng.below(4) {
                0 => (token & !0x7f00_0000) | ((rng.below(128) as u32) << 24),
                1 => (token & !0x7ff) | rng.below(240) as u32,
                2 => token ^ (1 << rng.below(32)),
                _ => interesting(rng, len),
            };
            put_u32(bytes, at, value);
            format!("opcode token at program dword {dword:#x} set to {value:#010x}")
        }
        7 if layout.program.is_some() => {
            let Some((data, _)) = &layout.program else {
                return "none".into();
            };
            let words = (len.saturating_sub(*data)) / 4;
            let dword = rng.below(words);
            let value = interesting(rng, len);
            put_u32(bytes, data + 4 * dword, value);
            format!("program dword {dword:#x} set to {value:#x}")
        }
        _ => {
            // Splice: copy a random range over another place.
            let from = rng.below(len);
            let to = rng.below(len);
            let n = rng.below(64).min(len - from).min(len - to);
            let copy = bytes[from..from + n].to_vec();
            bytes[to..to + n].copy_from_slice(&copy);
            format!("{n} bytes copied from {from} to {to}")
        }
    }
}

fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= 20 {
        let sum = container::checksum(bytes);
        bytes[4..20].copy_from_slice(&sum);
    }
}

/// Runs every stage that exists today on one input. Returns whether it was read.
fn exercise(bytes: &[u8], options: &ReadOptions) -> Result<Outcome, String> {
    let dxbc = match dxbc2spirv::read(bytes, options) {
        Ok(dxbc) => dxbc,
        Err(e) => {
            if e.message.is_empty() {
                return Err("an error with an empty message".into());
            }
            return Ok(Outcome::Rejected);
        }
    };
    let text = disasm::disassemble(&dxbc);
    if let Some(program) = &dxbc.program {
        let _ = ir::validate_control_flow(program);
        let before = disasm::program_text(program);
        if let Ok(encoded) = tpf::encode(program) {
            let again = tpf::decode(&encoded)
                .map_err(|e| format!("re-encoded program does not decode: {e}"))?;
            let after = disasm::program_text(&again);
            if before != after {
                return Err(format!(
                    "re-encoding changed the program:\n--- before\n{before}\n--- after\n{after}"
                ));
            }
            // The text must carry everything: assembling it gives back the same tokens.
            let parsed = asm::parse_program_unchecked(&before)
                .map_err(|e| format!("the disassembly does not assemble: {e}\n{before}"))?;
            let reassembled = tpf::encode(&parsed)
                .map_err(|e| format!("the assembled program does not encode: {e}"))?;
            if reassembled != encoded {
                return Err(format!(
                    "assembling the disassembly changed the tokens:\n{before}"
                ));
            }
        }
    }
    if text.is_empty() {
        return Err("empty disassembly".into());
    }
    if dxbc.program.is_none() {
        return Ok(Outcome::Read(None));
    }
    match common::translate(&dxbc) {
        Ok(words) => Ok(Outcome::Read(Some(words))),
        Err(e) if e.message.is_empty() => Err("a translation error with an empty message".into()),
        Err(_) => Ok(Outcome::Read(None)),
    }
}

/// Runs spirv-val on each module (two threads); returns the failures.
/// The input of each rejected module is written to `target/mutation-failures/`, ready to be
/// copied into `tests/fuzz/regressions/translate/`.
fn validate_all(modules: Vec<Case>) -> Vec<String> {
    let saved = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mutation-failures");
    let chunks: Vec<Vec<Case>> = {
        let mut halves = vec![Vec::new(), Vec::new()];
        for (i, m) in modules.into_iter().enumerate() {
            halves[i % 2].push(m);
        }
        halves
    };
    let failures = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .enumerate()
            .map(|(t, chunk)| {
                let saved = saved.clone();
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for (what, input, words) in chunk {
                        let target = dxbc2spirv::spirv::TargetEnv::Vulkan1_3;
                        if let Err(e) = dxbc2spirv_testkit::spirv_val(&words, target.name()) {
                            let _ = std::fs::create_dir_all(&saved);
                            let input_path =
                                saved.join(format!("case-{t}-{}.dxbc", failures.len()));
                            let _ = std::fs::write(&input_path, &input);
                            failures.push(format!(
                                "{what} (input saved as {}): spirv-val rejects the module: {e}",
                                input_path.display()
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect::<Vec<_>>()
    });
    failures
}

#[test]
fn mutated_corpus_blobs_never_panic() {
    let blobs = common::corpus_blobs();
    assert!(
        blobs.len() > 1200,
        "expected the whole corpus, found {} blobs",
        blobs.len()
    );
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let (mut cases, mut read, mut rejected, mut translated) = (0u64, 0u64, 0u64, 0u64);
    let mut modules: HashMap<u64, Case> = HashMap::new();
    for (blob_index, (name, original)) in blobs.iter().enumerate() {
        let layout = layout(original);
        for case in 0..CASES_PER_BLOB {
            let seed = 0x9e37_79b9_7f4a_7c15 ^ ((blob_index as u64) << 20) ^ case;
            let mut rng = Rng(seed | 1);
            let mut bytes = original.clone();
            let mutation = mutate(&mut bytes, &layout, &mut rng);
            let check_checksum = rng.below(10) == 0;
            if !check_checksum {
                fix_checksum(&mut bytes);
            }
            let options = ReadOptions {
                ignore_checksum: !check_checksum,
                ..Default::default()
            };
            cases += 1;
            if std::env::var_os("MUTATION_TRACE").is_some() {
                eprintln!("case {name} seed {seed:#x} ({mutation})");
            }
            match catch_unwind(AssertUnwindSafe(|| exercise(&bytes, &options))) {
                Ok(Ok(Outcome::Read(module))) => {
                    read += 1;
                    if let Some(words) = module {
                        translated += 1;
                        let mut hasher = std::collections::hash_map::DefaultHasher::new();
                        words.hash(&mut hasher);
                        if modules.len() < MAX_VALIDATED {
                            modules.entry(hasher.finish()).or_insert_with(|| {
                                (
                                    format!("{name} seed {seed:#x} ({mutation})"),
                                    bytes.clone(),
                                    words,
                                )
                            });
                        }
                    }
                }
                Ok(Ok(Outcome::Rejected)) => rejected += 1,
                Ok(Err(problem)) => {
                    failures.push(format!("{name} seed {seed:#x} ({mutation}): {problem}"))
                }
                Err(panic) => {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.push(format!(
                        "{name} seed {seed:#x} ({mutation}): PANIC {message}"
                    ));
                }
            }
        }
    }
    std::panic::set_hook(previous_hook);
    let validated = modules.len();
    failures.extend(validate_all(modules.into_values().collect()));
    println!(
        "mutation: {cases} cases, {read} read, {rejected} rejected, {translated} translated, \
         {validated} distinct modules validated, {} failures",
        failures.len()
    );
    assert!(cases >= 100_000, "only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} mutated inputs failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
