//! The C library as its users get it (a step of `cargo xtask test`): installed with
//! `cargo xtask install` into a temporary prefix, then crates/capi/tests/test.c built against
//! that installation four ways — Meson's `dependency('dxbc2spirv')` and
//! `cc $(pkg-config --cflags --libs dxbc2spirv)`, each linking the shared library and the
//! static archive — and each program run on the shaders test.c expects. A staged install
//! (`DESTDIR`) is checked to put the same files under the staging root with the `.pc` file
//! naming the real prefix.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::install::{self, Installed};
use crate::paths;

/// The shaders test.c reads, in its argument order: (source file, assembly section of a
/// `.shader_test` file or "").
const SOURCES: [(&str, &str); 7] = [
    ("shaders/seeds/store_raw.shader_test", "1"),
    ("tests/in/reflect/cs_ranges.asm", ""),
    ("tests/in/reflect/gs_params.asm", ""),
    ("shaders/layer/link_by_semantic.shader_test", "1"),
    ("shaders/layer/link_by_semantic.shader_test", "2"),
    ("shaders/layer/push_constants.shader_test", "2"),
    ("shaders/misc/cs_4_0_deep_thread_group.shader_test", "1"),
];

/// Installs the C library into a temporary prefix and builds and runs the four consumers.
pub fn run() -> Result<()> {
    let root = paths::workspace_root();
    let work = paths::target_dir().join("c-library");
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("emptying {}", work.display()))?;
    }
    let inputs = assemble_inputs(&root, &work)?;

    let prefix = work.join("prefix");
    let installed = install::run(&install::Options {
        prefix: prefix.clone(),
        libdir: "lib".into(),
        includedir: "include".into(),
        destdir: None,
        debug: false,
    })?;
    check_staged_install(&work, &installed)?;

    let pkg_config_path = prefix.join("lib/pkgconfig");
    let lib_dir = prefix.join("lib");
    for statically in [false, true] {
        let kind = if statically { "static" } else { "shared" };
        let meson = meson_consumer(&root, &work, &pkg_config_path, statically)?;
        let cc = cc_consumer(&root, &work, &pkg_config_path, statically)?;
        for (how, program) in [("meson", meson), ("pkg-config", cc)] {
            check_linkage(&program, statically)
                .with_context(|| format!("the {how} consumer, {kind}"))?;
            println!("running the {how} consumer ({kind}): {}", program.display());
            run_program(&program, &inputs, &root, &lib_dir)?;
        }
    }
    Ok(())
}

/// Assembles the shaders test.c reads into `work`, with the debug command (built here).
fn assemble_inputs(root: &Path, work: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(work).with_context(|| format!("creating {}", work.display()))?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .args(["build", "--quiet", "--package", "dxbc2spirv-cli"])
        .current_dir(root)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --package dxbc2spirv-cli exited with {status}");
    }
    let command = paths::target_dir().join("debug/dxbc2spirv");
    let mut inputs = Vec::new();
    for (source, section) in SOURCES {
        let stem = Path::new(source).file_stem().unwrap_or_default();
        let output = work.join(format!("{}{section}.dxbc", stem.to_string_lossy()));
        let mut args: Vec<&OsStr> = vec!["asm".as_ref(), source.as_ref(), "-o".as_ref()];
        args.push(output.as_os_str());
        if !section.is_empty() {
            args.extend([OsStr::new("--section"), OsStr::new(section)]);
        }
        run_checked(Command::new(&command).args(&args).current_dir(root))?;
        inputs.push(output);
    }
    Ok(inputs)
}

/// Installs again under a staging root (`DESTDIR`) and checks that the same files land there
/// and that the `.pc` file still names the real prefix.
fn check_staged_install(work: &Path, real: &Installed) -> Result<()> {
    let stage = work.join("stage");
    let prefix = work.join("prefix");
    let staged = install::run(&install::Options {
        prefix: prefix.clone(),
        libdir: "lib".into(),
        includedir: "include".into(),
        destdir: Some(stage.clone()),
        debug: false,
    })?;
    let under_stage = |path: &Path| stage.join(path.strip_prefix("/").unwrap_or(path));
    for (got, wanted) in [
        (&staged.shared, &real.shared),
        (&staged.archive, &real.archive),
        (&staged.pkg_config, &real.pkg_config),
        (&staged.header, &real.header),
    ] {
        if *got != under_stage(wanted) || !got.is_file() {
            bail!(
                "DESTDIR install: expected {}, got {}",
                under_stage(wanted).display(),
                got.display()
            );
        }
    }
    let pc = std::fs::read_to_string(&staged.pkg_config)?;
    let expected = format!("prefix={}\n", prefix.display());
    if !pc.starts_with(&expected) {
        bail!(
            "the staged dxbc2spirv.pc should start with `{}`:\n{pc}",
            expected.trim()
        );
    }
    Ok(())
}

/// Configures and builds crates/capi/tests/meson.build; returns the program.
fn meson_consumer(
    root: &Path,
    work: &Path,
    pkg_config_path: &Path,
    statically: bool,
) -> Result<PathBuf> {
    let build = work.join(if statically {
        "meson-static"
    } else {
        "meson-shared"
    });
    let flag = format!("-Dstatic={statically}");
    run_checked(
        Command::new("meson")
            .arg("setup")
            .arg(&build)
            .arg(root.join("crates/capi/tests"))
            .arg(&flag)
            .env("PKG_CONFIG_PATH", pkg_config_path),
    )?;
    run_checked(Command::new("ninja").arg("-C").arg(&build))?;
    Ok(build.join("consumer"))
}

/// Builds test.c with `cc` and the flags `pkg-config` gives; returns the program. The static
/// program takes the archive with `-Wl,-Bstatic` and the archive's own needs from
/// `pkg-config --static`.
fn cc_consumer(
    root: &Path,
    work: &Path,
    pkg_config_path: &Path,
    statically: bool,
) -> Result<PathBuf> {
    let pkg_config = |args: &[&str]| -> Result<Vec<String>> {
        let output = Command::new("pkg-config")
            .args(args)
            .arg("dxbc2spirv")
            .env("PKG_CONFIG_PATH", pkg_config_path)
            .output()
            .context("running pkg-config")?;
        if !output.status.success() {
            bail!(
                "pkg-config {} dxbc2spirv failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout)
            .split_whitespace()
            .map(str::to_string)
            .collect())
    };
    let program = work.join(if statically { "cc-static" } else { "cc-shared" });
    let mut args: Vec<String> = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
        .map(str::to_string)
        .to_vec();
    args.push(root.join("crates/capi/tests/test.c").display().to_string());
    args.push("-o".into());
    args.push(program.display().to_string());
    args.extend(pkg_config(&["--cflags"])?);
    if statically {
        args.push("-Wl,-Bstatic".into());
        args.extend(pkg_config(&["--libs"])?);
        args.push("-Wl,-Bdynamic".into());
        args.extend(pkg_config(&["--static", "--libs-only-l"])?);
    } else {
        args.extend(pkg_config(&["--libs"])?);
    }
    run_checked(Command::new("cc").args(&args))?;
    Ok(program)
}

/// Checks what the program loads: the versioned shared library when linked to it, and
/// nothing of ours when linked to the archive.
fn check_linkage(program: &Path, statically: bool) -> Result<()> {
    let output = Command::new("readelf")
        .args(["-d".as_ref(), program.as_os_str()])
        .output()
        .context("running readelf")?;
    let dynamic = String::from_utf8_lossy(&output.stdout);
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|line| line.contains("(NEEDED)"))
        .filter_map(|line| line.split('[').nth(1)?.split(']').next())
        .collect();
    let ours: Vec<&&str> = needed
        .iter()
        .filter(|lib| lib.starts_with("libdxbc2spirv"))
        .collect();
    let soname = format!(
        "libdxbc2spirv.so.{}",
        install::api_version(&paths::workspace_root())?
    );
    match (statically, ours.as_slice()) {
        (true, []) => Ok(()),
        (false, [lib]) if **lib == soname => Ok(()),
        _ => bail!(
            "{} needs {needed:?}; expected {}",
            program.display(),
            if statically {
                "no libdxbc2spirv".to_string()
            } else {
                soname
            }
        ),
    }
}

/// Runs a consumer on the inputs, the installed library directory on the library path (as
/// an installed library in a system directory would be found).
fn run_program(program: &Path, inputs: &[PathBuf], root: &Path, lib_dir: &Path) -> Result<()> {
    run_checked(
        Command::new(program)
            .args(inputs)
            .current_dir(root)
            .env("LD_LIBRARY_PATH", lib_dir),
    )
}

/// Runs a command, failing with its name when it fails.
fn run_checked(command: &mut Command) -> Result<()> {
    let shown = format!("{command:?}");
    let status = command
        .status()
        .with_context(|| format!("running {shown}"))?;
    if !status.success() {
        bail!("{shown} exited with {status}");
    }
    Ok(())
}
