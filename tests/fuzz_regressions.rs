//! Every input a fuzz target ever failed on (`tests/fuzz/regressions/<target>/`) replayed
//! through the same case (`dxbc2spirv::fuzzing`): no panic, no finding, and a module that
//! passes spirv-val where it translates. `cargo xtask fuzz` says where to put a new one.
//!
//! An input is either the bytes themselves or, for an input that is a corpus blob with a few
//! bytes changed (the corpus is never copied into the project), a `.patch` file: `#`
//! comment lines, `corpus <path under the corpus>`, then `set <byte offset> <hex bytes>`
//! lines applied to that blob, and an optional `prefix <hex bytes>` put before it (the
//! mutation script of a `mutate_program` input).

mod common;

use std::path::Path;

/// spirv-val (the library's runner) on a module, for Vulkan 1.3.
fn spirv_val(words: &[u32]) -> Result<(), String> {
    dxbc2spirv_testkit::spirv_val(words, dxbc2spirv::TargetEnv::Vulkan1_3.name())
        .map_err(|e| format!("spirv-val rejects the module: {e}"))
}

/// The corpus blob a `.patch` file names, with its `set` lines applied.
fn patched(path: &Path) -> Vec<u8> {
    let text = std::fs::read_to_string(path).expect("reading a patch");
    let mut data = Vec::new();
    let mut prefix = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let place = format!("{}:{}", path.display(), number + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(blob) = line.strip_prefix("corpus ") {
            let blob = common::corpus_dir().join(blob);
            data = std::fs::read(&blob)
                .unwrap_or_else(|e| panic!("{place}: cannot read {}: {e}", blob.display()));
        } else if let Some(hex) = line.strip_prefix("prefix ") {
            prefix = hex_bytes(hex, &place);
        } else if let Some(rest) = line.strip_prefix("set ") {
            let (offset, hex) = rest
                .split_once(' ')
                .unwrap_or_else(|| panic!("{place}: expected `set OFFSET HEX`"));
            let offset: usize = offset
                .parse()
                .unwrap_or_else(|e| panic!("{place}: bad offset {offset:?}: {e}"));
            let bytes = hex_bytes(hex, &place);
            assert!(
                offset + bytes.len() <= data.len(),
                "{place}: the patch runs past the end of the blob ({} bytes)",
                data.len()
            );
            data[offset..offset + bytes.len()].copy_from_slice(&bytes);
        } else {
            panic!("{place}: unknown line {line:?}");
        }
    }
    prefix.extend(data);
    prefix
}

/// The bytes of a hex string (two digits a byte).
fn hex_bytes(hex: &str, place: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .map(|i| {
            u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
                .unwrap_or_else(|e| panic!("{place}: bad hex {hex:?}: {e}"))
        })
        .collect()
}

#[test]
fn fuzz_findings_stay_fixed() {
    use dxbc2spirv::fuzzing as f;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/regressions");
    let mut failures = Vec::new();
    let mut count = 0;
    for target in ["read", "assemble", "translate", "mutate_program"] {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths
            .iter()
            .filter(|p| p.is_file() && p.file_name() != Some(".keep".as_ref()))
        {
            count += 1;
            let data = if path.extension().is_some_and(|e| e == "patch") {
                patched(path)
            } else {
                std::fs::read(path).expect("reading a regression input")
            };
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            let result = std::panic::catch_unwind(|| match target {
                "read" => f::read_case(&data).map(|()| None),
                "assemble" => f::assemble_case(&data).map(|()| None),
                "translate" => f::translate_case(&data),
                _ => f::mutate_program_case(&data),
            });
            let outcome = match result {
                Err(_) => Err("PANIC".to_string()),
                Ok(Err(finding)) => Err(finding),
                Ok(Ok(Some(words))) => spirv_val(&words),
                Ok(Ok(None)) => Ok(()),
            };
            if let Err(problem) = outcome {
                failures.push(format!("{target}/{name}: {problem}"));
            }
        }
    }
    println!("{count} fuzz regression inputs replayed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
