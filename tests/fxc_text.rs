//! fxc's own text and vkd3d-compiler's `d3d-asm` text, as those tools wrote it.
//!
//! `tests/in/fxc_listings/*.asm` are listings fxc wrote (gathered from public repositories;
//! `tests/in/fxc_listings/SOURCES.md` names the repository, commit and path of each). Each
//! one must assemble unchanged, and the disassembly of the result must give back the
//! listing's declaration and instruction lines, except in the listings `LISTING_DIFFERENCES`
//! names with the reason (at most 2% of them; each must still differ). The comparison normalises only this: in the
//! listing, the lines before the version line (the header tables), blank lines, `//` comment
//! lines and `#line` directives are left out, as is the variable-tracking comment fxc writes
//! after some instructions (`mov r0.x, r1.x  // r0.x <- x`); on both sides whitespace at the
//! ends of lines is removed (fxc ends operand-less lines such as `ret ` with a space).
//! Indentation is compared. The disassembler prints fxc 10.1's text; in a listing of an
//! older fxc (its header names `HLSL Shader Compiler 6.3`, `9.29` or `9.30`) the one
//! difference, the lower-case register of `dcl_constantbuffer cb0[…]`, is read as 10.1's
//! `CB0[…]`.
//!
//! The header tables (the `//` lines before the version line) must print back too, without
//! whitespace at line ends, except in the listings `HEADER_DIFFERENCES` names with the
//! reason (fxc's class-linkage tables, which are not printed; blank lines around unnamed
//! nested structures), and in the listings of an fxc before 10 (their binding table prints
//! in 10.1's layout).
//!
//! Every file of `../shared/corpus/vkd3d_asm` (vkd3d-compiler's `d3d-asm` text of the corpus
//! blobs) must assemble, and the program must have the same instructions (opcodes, in order)
//! as the corpus blob it was printed from. vkd3d's text does not keep every encoding choice
//! (it prints `r0.x` for a swizzle `.xxxx`, for one), so the programs are compared by opcode.

mod common;

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn listings_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/in/fxc_listings")
}

/// Files under `dir` (recursively) whose name ends in `.asm`, sorted.
fn asm_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "asm") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// True for a version line such as `ps_5_0`.
fn is_version(line: &str) -> bool {
    let mut parts = line.split('_');
    let stage = parts.next().unwrap_or_default();
    let digits =
        |p: Option<&str>| p.is_some_and(|d| d.len() == 1 && d.bytes().all(|b| b.is_ascii_digit()));
    ["vs", "ps", "gs", "hs", "ds", "cs"].contains(&stage)
        && digits(parts.next())
        && digits(parts.next())
        && parts.next().is_none()
}

/// The version, declaration and instruction lines of a listing, normalised as the module
/// documentation says.
fn program_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut started = false;
    for raw in text.lines() {
        let line = raw.trim_end();
        let bare = line.trim_start();
        if !started {
            started = is_version(bare);
            if started {
                lines.push(line.to_string());
            }
            continue;
        }
        if bare.is_empty() || bare.starts_with("//") || bare.starts_with('#') {
            continue;
        }
        let code = line.find("//").map_or(line, |at| &line[..at]);
        lines.push(code.trim_end().to_string());
    }
    lines
}

/// Whether a listing's header names an fxc before 10 (6.3, 9.29, 9.30), which prints
/// `dcl_constantbuffer cb0[…]` where 10.1 prints `CB0[…]`.
fn before_fxc_10(text: &str) -> bool {
    text.lines()
        .find_map(|line| line.split_once("HLSL Shader Compiler "))
        .is_some_and(|(_, version)| !version.starts_with("10."))
}

/// The differing lines of two listings, numbered, for a failure message.
fn differences(expected: &[String], actual: &[String]) -> String {
    let mut out = String::new();
    for i in 0..expected.len().max(actual.len()) {
        let (e, a) = (expected.get(i), actual.get(i));
        if e != a {
            let _ = writeln!(
                out,
                "  line {}:\n    fxc: {:?}\n    ours: {:?}",
                i + 1,
                e,
                a
            );
        }
    }
    out
}

/// The disassembly of the container a listing assembles to, or why there is none.
fn print_back(text: &str) -> Result<String, String> {
    let bytes = dxbc2spirv::asm::assemble(text).map_err(|e| format!("does not assemble: {e}"))?;
    let dxbc = dxbc2spirv::read(&bytes, &Default::default())
        .map_err(|e| format!("the assembled container does not read: {e}"))?;
    Ok(dxbc2spirv::disasm::disassemble(&dxbc))
}

/// The fewest listings the sweep takes (it fails when files go missing).
const MIN_LISTINGS: usize = 300;

/// Listings whose program lines do not print back, each with the reason. Each must still
/// differ, and they are at most 2% of the listings.
const LISTING_DIFFERENCES: &[(&str, &str)] = &[
    (
        "sdk2_bc6hdecode_cs.asm",
        "fxc prints a used zero of a mov immediate of integers as `0.000000` \
         (`l(0,248,0x0003e000,0.000000)`) where every other listing prints `0`; most likely \
         fxc followed the HLSL's types, which the bytecode does not keep",
    ),
    (
        "sdk2_bc7decode_cs.asm",
        "fxc prints the zeros of one column of an immediate constant buffer of integers as \
         `0.000000` (`{ 15, 0, 0.000000, 21}`) where every other listing prints `0`; most likely \
         fxc followed the HLSL's types, which the bytecode does not keep",
    ),
    (
        "slimshader_tesscs40_tessellateverticescs.asm",
        "fxc 9.30 prints a used zero of a movc immediate as `0.000000` \
         (`l(0,128,0.000000,0)`) where other listings print `0` (`l(0,1.000000,0,0)`); no \
         rule that the bytecode decides was found",
    ),
];

#[test]
fn fxc_listings_assemble_and_print_back() {
    let files = asm_files(&listings_dir());
    assert!(
        files.len() >= MIN_LISTINGS,
        "expected at least {MIN_LISTINGS} listings, found {}",
        files.len()
    );
    assert!(
        LISTING_DIFFERENCES.len() * 50 <= files.len(),
        "{} of {} listings do not print back: more than 2%",
        LISTING_DIFFERENCES.len(),
        files.len()
    );
    let sources = std::fs::read_to_string(listings_dir().join("SOURCES.md"))
        .expect("tests/in/fxc_listings/SOURCES.md");
    let mut failures = String::new();
    for path in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        assert!(
            sources.contains(&format!("`{name}`")),
            "SOURCES.md does not name the source of {name}"
        );
        let text = std::fs::read_to_string(path).expect("listing");
        let known = LISTING_DIFFERENCES.iter().find(|(n, _)| *n == name);
        let printed = match (print_back(&text), known) {
            (Ok(printed), _) => printed,
            (Err(_), Some(_)) => continue,
            (Err(e), None) => {
                let _ = writeln!(failures, "{name}: {e}");
                continue;
            }
        };
        let mut expected = program_lines(&text);
        if before_fxc_10(&text) {
            for line in &mut expected {
                if let Some(rest) = line.strip_prefix("dcl_constantbuffer cb") {
                    *line = format!("dcl_constantbuffer CB{rest}");
                }
            }
        }
        let actual = program_lines(&printed);
        match (expected == actual, known) {
            (false, None) => {
                let _ = writeln!(failures, "{name}:\n{}", differences(&expected, &actual));
            }
            (true, Some((_, reason))) => {
                let _ = writeln!(
                    failures,
                    "{name}: prints back now; take it out of LISTING_DIFFERENCES ({reason})"
                );
            }
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "listings that do not print back:\n{failures}"
    );
}

/// The header-table lines of a listing (the lines before the version line), without
/// whitespace at line ends.
fn header_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_end)
        .take_while(|line| !is_version(line.trim_start()))
        .map(str::to_string)
        .collect()
}

/// Listings whose header tables do not print back, each with the reason.
const HEADER_DIFFERENCES: &[(&str, &str)] = &[
    (
        "dxd_rasterorderviews.asm",
        "fxc widens the register column for `oStencilRef` in the output signature",
    ),
    (
        "dxdsdk_dynamicshaderlinkage11_ps.asm",
        "the class-type and interface-slot tables: the assembler writes no IFCE chunk",
    ),
    (
        "dxd_advancedhlsl_vs.asm",
        "fxc's blank `//` lines around unnamed structures nested in a structure",
    ),
    (
        "dxd_structured_buffers_extra_5.asm",
        "fxc's blank `//` lines around unnamed structures nested in a structure",
    ),
    (
        "dxd_subroutines_ps.asm",
        "the class-type and interface-slot tables: the assembler writes no IFCE chunk",
    ),
    (
        "dxdecompiler_ps5_interfaces.asm",
        "the class-type and interface-slot tables: the assembler writes no IFCE chunk",
    ),
    (
        "dxdecompiler_sm51_test.asm",
        "fxc widens the register column for `oStencilRef` in the output signature",
    ),
];

/// Why a listing's header tables do not print back: it is named in [`HEADER_DIFFERENCES`],
/// or an fxc before 10 wrote it (its binding table prints in 10.1's layout).
fn header_difference(name: &str, text: &str) -> Option<&'static str> {
    HEADER_DIFFERENCES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, reason)| *reason)
        .or_else(|| {
            before_fxc_10(text).then_some("an older fxc's binding table prints in 10.1's layout")
        })
}

/// The header tables print back (`//` lines before the version, whitespace at line ends
/// removed) except where [`header_difference`] says why not; those must still differ.
#[test]
fn fxc_header_tables_print_back() {
    let mut failures = String::new();
    for path in asm_files(&listings_dir()) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).expect("listing");
        let printed = match print_back(&text) {
            Ok(printed) => printed,
            // A listing that does not assemble is named in LISTING_DIFFERENCES (the test
            // above fails otherwise).
            Err(_) => continue,
        };
        let (expected, actual) = (header_lines(&text), header_lines(&printed));
        match (expected == actual, header_difference(name, &text)) {
            (true, Some(reason)) => {
                let _ = writeln!(
                    failures,
                    "{name}: prints back now; take it out of HEADER_DIFFERENCES ({reason})"
                );
            }
            (false, None) => {
                let _ = writeln!(failures, "{name}:\n{}", differences(&expected, &actual));
            }
            _ => {}
        }
    }
    assert!(failures.is_empty(), "header tables:\n{failures}");
}

#[test]
fn normalisation_keeps_code_and_indentation() {
    let text = "// header\nps_4_0\n#line 3 \"a.hlsl\"\n\n  mov r0.x, r1.x  // r0.x <- x\nret \n";
    assert_eq!(program_lines(text), ["ps_4_0", "  mov r0.x, r1.x", "ret"]);
}

#[test]
fn vkd3d_d3d_asm_text_assembles_to_the_same_instructions() {
    let root = common::corpus_dir();
    let files = asm_files(&root.join("vkd3d_asm"));
    assert!(
        !files.is_empty(),
        "no vkd3d_asm files under {}",
        root.display()
    );
    let mut failures = String::new();
    for path in &files {
        let relative = path.strip_prefix(root.join("vkd3d_asm")).unwrap_or(path);
        let blob_path = root.join(relative).with_extension("dxbc");
        let text = std::fs::read_to_string(path).expect("vkd3d text");
        let program = match dxbc2spirv::asm::parse_program(&text) {
            Ok(program) => program,
            Err(e) => {
                let _ = writeln!(failures, "{}: {e}", relative.display());
                continue;
            }
        };
        let blob =
            std::fs::read(&blob_path).unwrap_or_else(|e| panic!("{}: {e}", blob_path.display()));
        let dxbc = dxbc2spirv::read(&blob, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", blob_path.display()));
        let original = dxbc.program.as_ref().expect("a shader program");
        let opcodes = |p: &dxbc2spirv::ir::Program| {
            p.instructions.iter().map(|i| i.opcode).collect::<Vec<_>>()
        };
        if opcodes(&program) != opcodes(original) {
            let _ = writeln!(
                failures,
                "{}: opcodes differ from {}:\n  text: {:?}\n  blob: {:?}",
                relative.display(),
                blob_path.display(),
                opcodes(&program),
                opcodes(original)
            );
        }
    }
    assert!(failures.is_empty(), "{failures}");
}
