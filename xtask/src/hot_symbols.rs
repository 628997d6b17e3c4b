//! `cargo xtask hot-symbols`: writes `src/cli/hot_symbols.txt`, the functions the
//! `dxbc2spirv` binary runs when it translates, which `build.rs` hands to LLD
//! (`--symbol-ordering-file`) so that they lie together at the start of `.text`.
//!
//! The release binary is run under callgrind twice: `translate --strip-debug` of the corpus's
//! largest shader (the run whose peak RSS `cargo xtask bench` measures), then `batch
//! --strip-debug --jobs 1` over both corpora (every other shader; one job, so that the set of
//! functions does not depend on thread timing). The file lists the binary's functions the
//! first run executed, sorted by name, then those only the second executed, sorted by name:
//! the same code gives the same file. Names are the linker's (mangled); only names that `nm`
//! finds among the binary's code symbols are kept.
//!
//! [`check`] compares the file with a built binary: when fewer than [`MIN_PRESENT`] of its
//! names are still symbols of the binary, the list is stale (renamed or removed functions;
//! legacy symbol hashes come from the crate's metadata and a function's type, not from source
//! text, so ordinary edits keep the names) and `cargo xtask test` fails, naming the command
//! that regenerates it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::bench;
use crate::paths::{corpus_root, workspace_root};

/// The ordering file, relative to the workspace root (`build.rs` names it too).
pub const FILE: &str = "src/cli/hot_symbols.txt";

/// The smallest fraction of the file's names that must be symbols of the binary.
pub const MIN_PRESENT: f64 = 0.8;

/// The command that regenerates the file.
const REGENERATE: &str = "cargo xtask hot-symbols";

/// Regenerates the ordering file and prints how many functions it lists and their size.
pub fn run() -> Result<()> {
    if which("valgrind").is_none() {
        bail!("valgrind is not installed (apt-get install valgrind)");
    }
    let exe = bench::build_release_cli()?;
    let exe = exe
        .canonicalize()
        .with_context(|| format!("finding {}", exe.display()))?;
    let root = corpus_root()?;
    let (rel, largest) = bench::largest_blob(&root)?;
    let work = workspace_root().join("target").join("hot-symbols");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;

    println!("callgrind: dxbc2spirv translate {rel}");
    let mut translate: Vec<std::ffi::OsString> = vec![
        "translate".into(),
        "--strip-debug".into(),
        "-o".into(),
        "/dev/null".into(),
    ];
    translate.push(largest.into());
    let first = callgrind(&work, "translate", &exe, &translate, &[0])?;

    println!("callgrind: dxbc2spirv batch over both corpora (one job)");
    let mut batch: Vec<std::ffi::OsString> = vec!["batch".into()];
    batch.extend(
        bench::CORPORA
            .iter()
            .map(|(name, _)| root.join(name).into()),
    );
    batch.extend([
        "-o".into(),
        work.join("batch-out").into(),
        "--strip-debug".into(),
        "--jobs".into(),
        "1".into(),
    ]);
    // Exit status 1: some corpus shaders are rightly rejected.
    let then = callgrind(&work, "batch", &exe, &batch, &[0, 1])?;

    let object = exe.to_string_lossy();
    let sizes = code_symbols(&exe)?;
    let first: BTreeSet<String> = functions_of(&first, &object)
        .into_iter()
        .filter(|name| sizes.contains_key(name))
        .collect();
    let then: BTreeSet<String> = functions_of(&then, &object)
        .into_iter()
        .filter(|name| sizes.contains_key(name) && !first.contains(name))
        .collect();
    let text = ordering_file(&rel, &first, &then);
    let path = workspace_root().join(FILE);
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    let _ = std::fs::remove_dir_all(&work);

    let size = |set: &BTreeSet<String>| set.iter().map(|name| sizes[name]).sum::<u64>();
    println!(
        "{FILE}: {} functions, {} KiB: {} ({} KiB) run by translate, {} more ({} KiB) by batch",
        first.len() + then.len(),
        (size(&first) + size(&then)) / 1024,
        first.len(),
        size(&first) / 1024,
        then.len(),
        size(&then) / 1024,
    );
    Ok(())
}

/// Prints how many of the file's names are code symbols of `exe`; fails, naming the command
/// that regenerates the file, when fewer than [`MIN_PRESENT`] of them are.
pub fn check(exe: &Path) -> Result<()> {
    let (present, listed) = report(exe)?;
    if (present as f64) < MIN_PRESENT * listed as f64 {
        bail!(
            "{FILE} is stale: only {present} of its {listed} functions are in {} (at least {:.0}% \
             must be); regenerate it with `{REGENERATE}` and commit it",
            exe.display(),
            MIN_PRESENT * 100.0
        );
    }
    Ok(())
}

/// Prints and returns how many of the file's names are code symbols of `exe`, and how many
/// names it lists.
pub fn report(exe: &Path) -> Result<(usize, usize)> {
    let path = workspace_root().join(FILE);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let listed = listed_names(&text);
    let sizes = code_symbols(exe)?;
    let present = listed
        .iter()
        .filter(|name| sizes.contains_key(**name))
        .count();
    println!(
        "hot-symbol ordering ({FILE}): {present} of {} listed functions are in the binary ({:.1}%)",
        listed.len(),
        100.0 * present as f64 / listed.len().max(1) as f64
    );
    Ok((present, listed.len()))
}

/// Runs `exe args` under callgrind (names not demangled) and returns its output file's text.
fn callgrind(
    work: &Path,
    name: &str,
    exe: &Path,
    args: &[std::ffi::OsString],
    ok_statuses: &[i32],
) -> Result<String> {
    let out = work.join(format!("callgrind.{name}"));
    let mut out_arg = std::ffi::OsString::from("--callgrind-out-file=");
    out_arg.push(&out);
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--demangle=no"])
        .arg(out_arg)
        .arg(exe)
        .args(args)
        .output()
        .context("running valgrind")?;
    if !output
        .status
        .code()
        .is_some_and(|code| ok_statuses.contains(&code))
    {
        bail!(
            "callgrind run `{name}` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    std::fs::read_to_string(&out).with_context(|| format!("reading {}", out.display()))
}

/// The functions of `object` (an `ob=` file name) that have their own cost entry (`fn=`) in
/// a callgrind output file. Handles compressed names (`fn=(12) name` defines id 12, a later
/// `fn=(12)` or `cfn=(12)` refers to it; `ob=`/`cob=` share their own table) and plain ones.
pub fn functions_of(callgrind: &str, object: &str) -> BTreeSet<String> {
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut objects: HashMap<&str, &str> = HashMap::new();
    let mut current: Option<&str> = None;
    let mut out = BTreeSet::new();
    for line in callgrind.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let table = match key {
            "ob" | "cob" => &mut objects,
            "fn" | "cfn" => &mut names,
            _ => continue,
        };
        let value = value.trim();
        let name = match value.strip_prefix('(').and_then(|v| v.split_once(')')) {
            Some((id, rest)) => {
                let rest = rest.trim();
                if rest.is_empty() {
                    table.get(id).copied().unwrap_or("")
                } else {
                    table.insert(id, rest);
                    rest
                }
            }
            None => value,
        };
        match key {
            "ob" => current = Some(name),
            "fn" if current == Some(object) && !name.is_empty() => {
                out.insert(name.to_string());
            }
            _ => {}
        }
    }
    out
}

/// The defined code symbols of `exe` (`nm -S`: types t, T, W) with their sizes; a name that
/// occurs more than once (local symbols) has the sum of the sizes.
fn code_symbols(exe: &Path) -> Result<BTreeMap<String, u64>> {
    let output = Command::new("nm")
        .args(["-S", "--defined-only"])
        .arg(exe)
        .output()
        .context("running nm (binutils)")?;
    if !output.status.success() {
        bail!(
            "nm {} failed: {}",
            exe.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(parse_nm(&String::from_utf8_lossy(&output.stdout)))
}

/// Parses `nm -S` output (`address size type name`) into code symbols and their sizes.
fn parse_nm(text: &str) -> BTreeMap<String, u64> {
    let mut sizes = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [_, size, kind, name] = fields[..] {
            if matches!(kind, "t" | "T" | "W") {
                let size = u64::from_str_radix(size, 16).unwrap_or(0);
                *sizes.entry(name.to_string()).or_insert(0) += size;
            }
        }
    }
    sizes
}

/// The text of the ordering file: a comment header, then `first` and `then` in order.
fn ordering_file(largest: &str, first: &BTreeSet<String>, then: &BTreeSet<String>) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Functions of the dxbc2spirv binary in the order LLD places them at the start of .text\n\
         # (build.rs: --symbol-ordering-file), so that a translation touches few pages of code.\n\
         # Written by `{REGENERATE}`; do not edit. A stale list costs memory, not correctness.\n\
         #\n\
         # Run by `dxbc2spirv translate --strip-debug` of {largest}:"
    );
    for name in first {
        let _ = writeln!(text, "{name}");
    }
    let _ = writeln!(
        text,
        "# Run only by `dxbc2spirv batch --strip-debug` over both corpora:"
    );
    for name in then {
        let _ = writeln!(text, "{name}");
    }
    text
}

/// The names an ordering file lists (comment lines and blank lines left out).
fn listed_names(text: &str) -> Vec<&str> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .collect()
}

/// The path of a program on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A callgrind output in the compressed form, with a call into another object and a
    /// function first named in a `cfn=` line.
    const SAMPLE: &str = "\
version: 1
creator: callgrind-3.19.0
events: Ir
ob=(1) /usr/lib/x86_64-linux-gnu/libc.so.6
fl=(1) ???
fn=(1) malloc
0 12
ob=(2) /bin/dxbc2spirv
fl=(2) ???
fn=(2) main
0 3
cfn=(3) _ZN10dxbc2spirv4read17h0123456789abcdefE
calls=1 0
0 40
cob=(1)
cfn=(1)
calls=1 0
0 12
fn=(3)
0 40
fn=(4) _RNvCs1234_3std2rt10lang_start
0 5
ob=(1)
fn=(5) free
0 2
ob=(2)
fn=(2)
0 1
";

    #[test]
    fn functions_of_one_object() {
        let names = functions_of(SAMPLE, "/bin/dxbc2spirv");
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "_RNvCs1234_3std2rt10lang_start",
                "_ZN10dxbc2spirv4read17h0123456789abcdefE",
                "main"
            ]
        );
        let libc = functions_of(SAMPLE, "/usr/lib/x86_64-linux-gnu/libc.so.6");
        assert_eq!(libc.into_iter().collect::<Vec<_>>(), ["free", "malloc"]);
    }

    #[test]
    fn functions_of_uncompressed_names() {
        let text = "ob=/bin/a\nfn=f\n0 1\ncfn=g\ncalls=1 0\n0 1\nob=/bin/b\nfn=h\n0 1\nob=/bin/a\nfn=g\n0 1\n";
        assert_eq!(
            functions_of(text, "/bin/a").into_iter().collect::<Vec<_>>(),
            ["f", "g"]
        );
    }

    #[test]
    fn nm_code_symbols() {
        let text = "\
0000000000001000 0000000000000010 T main
0000000000001010 0000000000000020 t local
0000000000001030 0000000000000008 t local
0000000000002000 0000000000000004 R CONSTANT
0000000000003000 W weak_no_size
0000000000001040 0000000000000004 W weak
";
        let sizes = parse_nm(text);
        assert_eq!(sizes.len(), 3);
        assert_eq!(sizes["main"], 0x10);
        assert_eq!(sizes["local"], 0x28);
        assert_eq!(sizes["weak"], 4);
    }

    #[test]
    fn file_round_trip() {
        let first: BTreeSet<String> = ["b", "a"].iter().map(|s| s.to_string()).collect();
        let then: BTreeSet<String> = ["c"].iter().map(|s| s.to_string()).collect();
        let text = ordering_file("x/y.dxbc", &first, &then);
        assert!(text.starts_with("# "));
        assert_eq!(listed_names(&text), ["a", "b", "c"]);
    }
}
