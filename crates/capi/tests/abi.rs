//! The C library's binary interface, held still between versions:
//!
//! - the shared library exports exactly the functions the header declares (what rustc
//!   exports from a cdylib: the `#[no_mangle]` functions, nothing of Rust's own);
//! - the ABI record `abi.txt` (the header's functions, its enums' values and sizes, and its
//!   structs' sizes, alignments and field offsets as the C compiler lays them out) is checked
//!   in, and a change to any of it fails this test unless `DXBC2SPIRV_API_VERSION` (and with
//!   it the soname) changes too. After raising the version, `UPDATE_ABI=1 cargo test -p
//!   dxbc2spirv-capi --test abi` writes the new record.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate's directory.
fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The C header's text.
fn header_text() -> String {
    let path = crate_dir().join("include/dxbc2spirv.h");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// One declaration of the header.
#[derive(Debug, PartialEq)]
enum Declaration {
    /// A function prototype: its name and its text, whitespace normalised.
    Function { name: String, text: String },
    /// A struct with its fields' names.
    Struct { name: String, fields: Vec<String> },
    /// An enum with its constants' text (`NAME = value`).
    Enum {
        name: String,
        constants: Vec<String>,
    },
    /// A struct the caller only holds pointers to.
    Opaque { name: String },
}

/// The header's declarations and its `DXBC2SPIRV_API_VERSION`: cbindgen's output (one
/// `typedef struct`/`typedef enum` per type, prototypes ending in `;`), with comments, the
/// preprocessor lines and the C++ `extern "C"` wrapper left out.
fn parse_header(text: &str) -> (u32, Vec<Declaration>) {
    let mut version = None;
    let mut code = String::new();
    let mut in_cplusplus = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if line.starts_with("#ifdef __cplusplus") {
            in_cplusplus = true;
        } else if in_cplusplus {
            in_cplusplus = !line.starts_with("#endif");
        } else if let Some(value) = line.strip_prefix("#define DXBC2SPIRV_API_VERSION ") {
            version = Some(value.trim().parse().expect("a version number"));
        } else if !line.starts_with('#') && !line.starts_with("/*") {
            code.push_str(line);
            code.push(' ');
        }
    }
    let mut declarations = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in code.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ';' if depth == 0 => {
                let text = code[start..at].split_whitespace().collect::<Vec<_>>();
                declarations.push(declaration(&text.join(" ")));
                start = at + 1;
            }
            _ => {}
        }
    }
    assert!(
        code[start..].trim().is_empty(),
        "text after the last declaration: {}",
        &code[start..]
    );
    (
        version.expect("the header defines DXBC2SPIRV_API_VERSION"),
        declarations,
    )
}

/// One declaration's text (without its `;`).
fn declaration(text: &str) -> Declaration {
    let name_after_brace = || text.rsplit('}').next().unwrap_or("").trim().to_string();
    let body = || {
        let open = text.find('{').expect("a body");
        let close = text.rfind('}').expect("a body");
        text[open + 1..close].to_string()
    };
    if text.starts_with("typedef struct") && text.contains('{') {
        let fields = body()
            .split(';')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(|field| {
                let declarator = field.split('[').next().unwrap_or(field);
                let name = declarator.rsplit([' ', '*']).next().unwrap_or(declarator);
                name.to_string()
            })
            .collect();
        Declaration::Struct {
            name: name_after_brace(),
            fields,
        }
    } else if text.starts_with("typedef enum") {
        let constants = body()
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        Declaration::Enum {
            name: name_after_brace(),
            constants,
        }
    } else if let Some(rest) = text.strip_prefix("typedef struct ") {
        Declaration::Opaque {
            name: rest.split(' ').next().unwrap_or(rest).to_string(),
        }
    } else {
        let before = text.split('(').next().expect("a prototype");
        let name = before.rsplit([' ', '*']).next().unwrap_or(before);
        assert!(
            text.contains('(') && name.starts_with("dxbc2spirv_"),
            "a declaration this test does not know: {text}"
        );
        Declaration::Function {
            name: name.to_string(),
            text: text.replace("( ", "(").replace(" )", ")"),
        }
    }
}

/// The names of the header's functions.
fn header_functions(declarations: &[Declaration]) -> BTreeSet<String> {
    declarations
        .iter()
        .filter_map(|d| match d {
            Declaration::Function { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

/// The package's shared library, built now: `cargo test` does not build a cdylib for the
/// integration tests of a package that has no rlib, so without this the test would read
/// whatever an earlier build left. Its path comes from cargo's artifact messages.
fn shared_library() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--package",
            "dxbc2spirv-capi",
            "--lib",
            "--message-format=json",
        ])
        .current_dir(crate_dir())
        .output()
        .expect("running cargo build");
    assert!(
        output.status.success(),
        "cargo build -p dxbc2spirv-capi failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .flat_map(|message| {
            let files = message["filenames"].as_array().cloned().unwrap_or_default();
            files
                .into_iter()
                .filter_map(|f| f.as_str().map(PathBuf::from))
        })
        .find(|path| path.extension().is_some_and(|e| e == "so"))
        .expect("cargo reported the shared library it built")
}

/// The symbols a shared library defines and exports (`nm -D --defined-only`).
fn exported_symbols(library: &Path) -> BTreeSet<String> {
    let output = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(library)
        .output()
        .expect("running nm (binutils)");
    assert!(
        output.status.success(),
        "nm -D {} failed",
        library.display()
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().nth(2))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_shared_library_exports_exactly_the_headers_functions() {
    let (_, declarations) = parse_header(&header_text());
    let declared = header_functions(&declarations);
    let library = shared_library();
    let exported = exported_symbols(&library);
    let undeclared: Vec<_> = exported.difference(&declared).collect();
    let missing: Vec<_> = declared.difference(&exported).collect();
    assert!(
        undeclared.is_empty() && missing.is_empty(),
        "{}: exported but not in the header: {undeclared:?}; in the header but not exported: {missing:?}",
        library.display()
    );
}

#[test]
fn the_shared_library_is_named_by_the_api_version() {
    let (version, _) = parse_header(&header_text());
    let library = shared_library();
    let output = Command::new("readelf")
        .arg("-d")
        .arg(&library)
        .output()
        .expect("running readelf (binutils)");
    let dynamic = String::from_utf8_lossy(&output.stdout);
    let expected = format!("Library soname: [libdxbc2spirv.so.{version}]");
    assert!(
        dynamic.contains(&expected),
        "{}: expected `{expected}` in its dynamic section:\n{dynamic}",
        library.display()
    );
}

/// The layout of the header's structs and the sizes of its enums as the C compiler makes
/// them: a program that prints `sizeof`, `_Alignof` and `offsetof`, compiled with `cc`.
fn c_layout(declarations: &[Declaration], include: &Path, scratch: &str) -> String {
    let mut program = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include \"dxbc2spirv.h\"\nint main(void) {\n",
    );
    for declaration in declarations {
        match declaration {
            Declaration::Struct { name, fields } => {
                program.push_str(&format!(
                    "  printf(\"struct {name} size %zu align %zu\\n\", sizeof(struct {name}), _Alignof(struct {name}));\n"
                ));
                for field in fields {
                    program.push_str(&format!(
                        "  printf(\"  {field} offset %zu size %zu\\n\", offsetof(struct {name}, {field}), sizeof(((struct {name} *)0)->{field}));\n"
                    ));
                }
            }
            Declaration::Enum { name, .. } => program.push_str(&format!(
                "  printf(\"enum {name} size %zu\\n\", sizeof(enum {name}));\n"
            )),
            _ => {}
        }
    }
    program.push_str("  return 0;\n}\n");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("abi")
        .join(scratch);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let source = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&source, &program).expect("writing the layout program");
    let status = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Werror", "-I"])
        .arg(include)
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("running cc");
    assert!(status.success(), "cc failed on {}", source.display());
    let output = Command::new(&exe)
        .output()
        .expect("running the layout program");
    assert!(output.status.success(), "{} failed", exe.display());
    String::from_utf8(output.stdout).expect("text")
}

/// The ABI record of a header: its version, functions, opaque types, enum constants and the
/// compiler's layout of its structs and enums.
fn abi_record(version: u32, declarations: &[Declaration], include: &Path, scratch: &str) -> String {
    let mut record = String::from(
        "# The C ABI of libdxbc2spirv: generated by crates/capi/tests/abi.rs from\n\
         # include/dxbc2spirv.h; a change fails that test unless DXBC2SPIRV_API_VERSION changes.\n",
    );
    record.push_str(&format!("api_version {version}\n"));
    for declaration in declarations {
        match declaration {
            Declaration::Function { text, .. } => record.push_str(&format!("function {text}\n")),
            Declaration::Opaque { name } => record.push_str(&format!("opaque {name}\n")),
            Declaration::Enum { name, constants } => {
                record.push_str(&format!("enum {name}\n"));
                for constant in constants {
                    record.push_str(&format!("  {constant}\n"));
                }
            }
            Declaration::Struct { .. } => {}
        }
    }
    record.push_str(&c_layout(declarations, include, scratch));
    record
}

/// The version a record was written for.
fn record_version(record: &str) -> Option<u32> {
    record
        .lines()
        .find_map(|line| line.strip_prefix("api_version ")?.parse().ok())
}

/// What the check of a record concludes.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// The record is the committed one.
    Same,
    /// The ABI changed but the version did not: an error.
    ChangedWithoutVersion,
    /// The version changed: the record is to be rewritten.
    NewVersion,
}

/// Compares the current record with the committed one.
fn verdict(current: &str, committed: &str) -> Verdict {
    if current == committed {
        Verdict::Same
    } else if record_version(current) == record_version(committed) {
        Verdict::ChangedWithoutVersion
    } else {
        Verdict::NewVersion
    }
}

/// The lines of `a` missing from `b`, then those of `b` missing from `a`.
fn difference(a: &str, b: &str) -> String {
    let (a_lines, b_lines): (BTreeSet<&str>, BTreeSet<&str>) =
        (a.lines().collect(), b.lines().collect());
    let mut out = String::new();
    for line in a_lines.difference(&b_lines) {
        out.push_str(&format!("- {line}\n"));
    }
    for line in b_lines.difference(&a_lines) {
        out.push_str(&format!("+ {line}\n"));
    }
    out
}

#[test]
fn the_abi_changes_only_with_the_api_version() {
    let (version, declarations) = parse_header(&header_text());
    let current = abi_record(
        version,
        &declarations,
        &crate_dir().join("include"),
        "header",
    );
    let path = crate_dir().join("abi.txt");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    match verdict(&current, &committed) {
        Verdict::Same => {}
        Verdict::ChangedWithoutVersion => panic!(
            "the C ABI changed but DXBC2SPIRV_API_VERSION is still {version} (lines of {} removed -, added +):\n{}\
             raise DXBC2SPIRV_API_VERSION in crates/capi/src/lib.rs (the soname follows it), regenerate the \
             header, then run UPDATE_ABI=1 cargo test -p dxbc2spirv-capi --test abi",
            path.display(),
            difference(&committed, &current)
        ),
        Verdict::NewVersion if std::env::var_os("UPDATE_ABI").is_some() => {
            std::fs::write(&path, &current).expect("writing the ABI record");
        }
        Verdict::NewVersion => panic!(
            "DXBC2SPIRV_API_VERSION is {version} and {} records version {:?}: record the new ABI with \
             UPDATE_ABI=1 cargo test -p dxbc2spirv-capi --test abi",
            path.display(),
            record_version(&committed)
        ),
    }
}

#[test]
fn a_struct_field_or_a_function_added_without_a_new_version_is_refused() {
    let header = header_text();
    let (version, declarations) = parse_header(&header);
    let committed = abi_record(
        version,
        &declarations,
        &crate_dir().join("include"),
        "unedited",
    );
    let edits = [
        (
            "a field",
            "  uint8_t dual_source_blending;\n",
            "  uint8_t dual_source_blending;\n  uint32_t new_field;\n",
        ),
        (
            "a function",
            "const char *dxbc2spirv_version(void);",
            "const char *dxbc2spirv_version(void);\n\nvoid dxbc2spirv_new_function(void);",
        ),
    ];
    for (what, from, to) in edits {
        let edited = header.replace(from, to);
        assert_ne!(edited, header, "the test's edit for {what} applies");
        // The edited header, compiled as the real one is.
        let scratch = what.replace(' ', "_");
        let include = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("abi-edited")
            .join(&scratch);
        std::fs::create_dir_all(&include).expect("a temporary directory");
        std::fs::write(include.join("dxbc2spirv.h"), &edited).expect("writing the edited header");
        let (_, edited_declarations) = parse_header(&edited);
        let record = abi_record(version, &edited_declarations, &include, &scratch);
        assert_eq!(
            verdict(&record, &committed),
            Verdict::ChangedWithoutVersion,
            "{what} added at version {version}:\n{}",
            difference(&committed, &record)
        );
        let raised = edited.replace(
            &format!("#define DXBC2SPIRV_API_VERSION {version}\n"),
            &format!("#define DXBC2SPIRV_API_VERSION {}\n", version + 1),
        );
        let (raised_version, raised_declarations) = parse_header(&raised);
        assert_eq!(raised_version, version + 1, "the version edit applies");
        let record = abi_record(raised_version, &raised_declarations, &include, &scratch);
        assert_eq!(
            verdict(&record, &committed),
            Verdict::NewVersion,
            "{what} added with the version raised"
        );
    }
}
