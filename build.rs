//! Build script: links the `dxbc2spirv` command so that a `dxbc2spirv translate` process
//! touches few pages of it. The library (`rlib`, `cdylib`) is unaffected: every argument
//! here goes to the binaries only (`cargo:rustc-link-arg-bins`).
//!
//! Almost all of a translation's peak RSS is file-backed pages: on a page fault in a
//! file mapping the kernel maps the whole 64 KiB window around the page that is already in
//! the page cache (fault-around), so every window of the binary a run touches counts in full.
//!
//! * **Packed relative relocations.** A position-independent executable is relocated at
//!   every start: the dynamic loader reads its relocation table and writes every pointer in
//!   its read-only data (vtables, string tables), so those pages count in the memory of every
//!   process. `-z pack-relative-relocs` (DT_RELR; GNU ld 2.38+, LLD, glibc 2.36+, all in
//!   Debian 12) stores the relative relocations as a compact bitmap, so the loader reads far
//!   less. The command stays position-independent (its code is still placed at a random
//!   address).
//! * **Hot functions first.** `src/cli/hot_symbols.txt` lists every function of the binary
//!   that a `dxbc2spirv translate` of the corpus's largest shader executes (start-up, argument
//!   parsing, reading, decoding, every translation stage, the optimiser, assembling, writing),
//!   then the further ones a `batch` over the whole corpus executes. LLD places them, in that
//!   order, at the start of `.text` (`--symbol-ordering-file`), so a translation's code spans
//!   a few contiguous 64 KiB windows instead of scattered windows all over the 2 MB of code.
//!   The list is written by `cargo xtask hot-symbols` (callgrind runs of the release binary);
//!   `cargo xtask test` fails when too few of its names are still in the binary. A stale
//!   list only costs memory (the functions it misses are placed after the listed ones, as
//!   usual), never correctness: `--no-warn-symbol-ordering` silences the names it lists that
//!   no longer exist. The option is LLD's (GNU ld has no equivalent), so it is passed only
//!   when the linker is rustc's default self-contained LLD: target
//!   `x86_64-unknown-linux-gnu`, rustc 1.90 or later, and neither a linker nor linker
//!   features chosen through `RUSTFLAGS` or cargo's `linker` setting.
//! * **Start-up code next to them.** `src/cli/startup_sections.ld` (a linker-script
//!   fragment, `INSERT BEFORE .text`) moves `.init`, `.plt` and `.fini`, a few dozen bytes
//!   every process runs, from after `.text` (a window of their own) to just before it, into
//!   the hot functions' first window; it also moves `.gcc_except_table` (landing pads, read
//!   only when a panic unwinds) from before `.rodata` to after `.eh_frame`, so the read-only
//!   data a run reads spans one window fewer. Passed under the same condition.

use std::path::Path;
use std::process::Command;

/// The ordering file, relative to the package root.
const HOT_SYMBOLS: &str = "src/cli/hot_symbols.txt";
/// The linker script that moves `.init`, `.plt` and `.fini` before `.text` and
/// `.gcc_except_table` after `.eh_frame`.
const STARTUP_SECTIONS: &str = "src/cli/startup_sections.ld";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={HOT_SYMBOLS}");
    println!("cargo:rerun-if-changed={STARTUP_SECTIONS}");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if default_lld() {
        let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
        let file = Path::new(&root).join(HOT_SYMBOLS);
        if file.is_file() {
            println!(
                "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
                file.display()
            );
            println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        }
        let script = Path::new(&root).join(STARTUP_SECTIONS);
        if script.is_file() {
            println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
        }
    }
}

/// Whether the binaries are linked by rustc's default linker on a target where that is LLD.
fn default_lld() -> bool {
    if std::env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu") {
        return false;
    }
    // A linker set in cargo's configuration (`target.<triple>.linker`) reaches the build
    // script as RUSTC_LINKER.
    if std::env::var_os("RUSTC_LINKER").is_some_and(|l| !l.is_empty()) {
        return false;
    }
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags.split('\x1f').any(selects_linker) {
        return false;
    }
    rustc_minor().is_some_and(|minor| minor >= 90)
}

/// Whether one rustc flag chooses the linker or its features (`-Clinker=…`,
/// `-C linker-flavor=…`, `-Clink-self-contained=…`, `-Zlinker-features=…`, the value of a
/// separate `-C`).
fn selects_linker(flag: &str) -> bool {
    let flag = flag
        .trim_start_matches("-C")
        .trim_start_matches("-Z")
        .trim_start_matches("codegen=");
    [
        "linker=",
        "linker-flavor=",
        "linker-features=",
        "link-self-contained=",
    ]
    .iter()
    .any(|name| flag.starts_with(name))
}

/// The minor version of the rustc that builds the package (`rustc 1.95.0 (…)` gives 95).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let out = Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}
