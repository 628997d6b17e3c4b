//! `cargo xtask install`: builds the C library and installs it the way a C library is
//! installed, so that Meson's `dependency('dxbc2spirv')` and `pkg-config` find it:
//!
//! ```text
//! $DESTDIR$PREFIX/lib/libdxbc2spirv.so.N          shared library, soname libdxbc2spirv.so.N
//! $DESTDIR$PREFIX/lib/libdxbc2spirv.so            -> libdxbc2spirv.so.N
//! $DESTDIR$PREFIX/lib/libdxbc2spirv.a             static archive
//! $DESTDIR$PREFIX/lib/pkgconfig/dxbc2spirv.pc
//! $DESTDIR$PREFIX/include/dxbc2spirv/dxbc2spirv.h
//! ```
//!
//! N is the C API's version (`DXBC2SPIRV_API_VERSION`); crates/capi/build.rs writes the same
//! soname into the library. This is cargo-c's layout (`cargo cinstall`); cargo-c itself is not
//! used because Debian 12's (0.9.14, built on cargo 0.66) cannot read the workspace's lock
//! file (version 4) nor the manifests of current crates, and a newer one is built from source
//! with cargo inside it (docs/c-library.md).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::paths;

/// The reader of the version line, shared with crates/capi/build.rs.
#[path = "../../crates/capi/api_version.rs"]
mod source_version;

/// What `cargo xtask install` is asked to do.
pub struct Options {
    /// The prefix the files are installed under and the `.pc` file names.
    pub prefix: PathBuf,
    /// The library directory, relative to the prefix or absolute.
    pub libdir: PathBuf,
    /// The include directory, relative to the prefix or absolute.
    pub includedir: PathBuf,
    /// A staging root prepended to every installed path but not written into the `.pc` file
    /// (packagers' `DESTDIR`).
    pub destdir: Option<PathBuf>,
    /// Build with the dev profile instead of release (faster to build, slower to run).
    pub debug: bool,
}

/// The files one installation wrote.
#[derive(Debug)]
pub struct Installed {
    /// The real shared library (`libdxbc2spirv.so.N`).
    pub shared: PathBuf,
    /// The static archive.
    pub archive: PathBuf,
    /// The pkg-config file.
    pub pkg_config: PathBuf,
    /// The header.
    pub header: PathBuf,
}

/// Builds the C library and installs it.
pub fn run(options: &Options) -> Result<Installed> {
    if !options.prefix.is_absolute() {
        bail!(
            "--prefix must be an absolute path (it is written into dxbc2spirv.pc): {}",
            options.prefix.display()
        );
    }
    let root = paths::workspace_root();
    let version = api_version(&root)?;
    let package_version = package_version(&root)?;
    let private_libs = build(options.debug)?;
    let built = paths::target_dir().join(if options.debug { "debug" } else { "release" });
    let libdir = options.prefix.join(&options.libdir);
    let includedir = options.prefix.join(&options.includedir);
    let staged = |dir: &Path| -> PathBuf {
        match &options.destdir {
            Some(destdir) => destdir.join(dir.strip_prefix("/").unwrap_or(dir)),
            None => dir.to_path_buf(),
        }
    };
    let (lib_out, include_out) = (staged(&libdir), staged(&includedir));
    let pkgconfig_out = lib_out.join("pkgconfig");
    let header_out = include_out.join("dxbc2spirv");
    for dir in [&lib_out, &pkgconfig_out, &header_out] {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }

    let soname = format!("libdxbc2spirv.so.{version}");
    let shared = lib_out.join(&soname);
    copy(&built.join("libdxbc2spirv.so"), &shared, 0o755)?;
    let link = lib_out.join("libdxbc2spirv.so");
    if link.symlink_metadata().is_ok() {
        std::fs::remove_file(&link).with_context(|| format!("removing {}", link.display()))?;
    }
    std::os::unix::fs::symlink(&soname, &link)
        .with_context(|| format!("linking {} to {soname}", link.display()))?;
    let archive = lib_out.join("libdxbc2spirv.a");
    copy(&built.join("libdxbc2spirv.a"), &archive, 0o644)?;
    let header = header_out.join("dxbc2spirv.h");
    copy(
        &root.join("crates/capi/include/dxbc2spirv.h"),
        &header,
        0o644,
    )?;
    let pkg_config = pkgconfig_out.join("dxbc2spirv.pc");
    let text = pc_file(
        &options.prefix,
        &libdir,
        &includedir,
        &package_version,
        &private_libs,
    );
    std::fs::write(&pkg_config, text)
        .with_context(|| format!("writing {}", pkg_config.display()))?;
    let installed = Installed {
        shared,
        archive,
        pkg_config,
        header,
    };
    for path in [
        &installed.shared,
        &link,
        &installed.archive,
        &installed.pkg_config,
        &installed.header,
    ] {
        println!("installed {}", path.display());
    }
    Ok(installed)
}

/// Builds the C API crate (shared library and static archive) and returns the native
/// libraries the static archive needs (rustc's `native-static-libs`).
fn build(debug: bool) -> Result<String> {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(paths::workspace_root()).args([
        "rustc",
        "--package",
        "dxbc2spirv-capi",
        "--lib",
    ]);
    if !debug {
        command.arg("--release");
    }
    command.args(["--", "--print", "native-static-libs"]);
    let output = command.output().context("running cargo rustc")?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("cargo rustc -p dxbc2spirv-capi failed:\n{stderr}");
    }
    // Cargo replays the note when the library is already built.
    stderr
        .lines()
        .find_map(|line| line.trim().strip_prefix("note: native-static-libs: "))
        .map(|libs| libs.trim().to_string())
        .context("rustc printed no `native-static-libs` note for the static archive")
}

/// The C API's version (`DXBC2SPIRV_API_VERSION` of crates/capi/src/lib.rs).
pub fn api_version(root: &Path) -> Result<u32> {
    let path = root.join("crates/capi/src/lib.rs");
    let source =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    source_version::api_version(&source)
        .with_context(|| format!("{} defines no DXBC2SPIRV_API_VERSION", path.display()))
}

/// The C API crate's package version (the `.pc` file's `Version`).
fn package_version(root: &Path) -> Result<String> {
    let path = root.join("crates/capi/Cargo.toml");
    let manifest =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    manifest
        .lines()
        .find_map(|line| {
            let value = line.strip_prefix("version = \"")?;
            Some(value.strip_suffix('"')?.to_string())
        })
        .with_context(|| format!("{} has no version line", path.display()))
}

/// The text of `dxbc2spirv.pc`.
fn pc_file(
    prefix: &Path,
    libdir: &Path,
    includedir: &Path,
    version: &str,
    private_libs: &str,
) -> String {
    // Paths under the prefix are written relative to `${prefix}`, so that a packager may
    // move the tree (pkg-config's --define-prefix).
    let under_prefix = |dir: &Path| match dir.strip_prefix(prefix) {
        Ok(rest) if rest.as_os_str().is_empty() => "${prefix}".to_string(),
        Ok(rest) => format!("${{prefix}}/{}", rest.display()),
        Err(_) => dir.display().to_string(),
    };
    format!(
        "prefix={prefix}\n\
         libdir={libdir}\n\
         includedir={includedir}\n\
         \n\
         Name: dxbc2spirv\n\
         Description: Translator from Direct3D shader bytecode (DXBC) to SPIR-V for Vulkan\n\
         Version: {version}\n\
         Libs: -L${{libdir}} -ldxbc2spirv\n\
         Libs.private: {private_libs}\n\
         Cflags: -I${{includedir}}/dxbc2spirv\n",
        prefix = prefix.display(),
        libdir = under_prefix(libdir),
        includedir = under_prefix(includedir),
    )
}

/// Copies a file and sets its permissions.
fn copy(from: &Path, to: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    // Replace rather than overwrite: a program running from the old library keeps its copy.
    if to.symlink_metadata().is_ok() {
        std::fs::remove_file(to).with_context(|| format!("removing {}", to.display()))?;
    }
    std::fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting the mode of {}", to.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pc_file_names_directories_under_the_prefix_relative_to_it() {
        let text = pc_file(
            Path::new("/opt/d2s"),
            Path::new("/opt/d2s/lib"),
            Path::new("/usr/include"),
            "0.1.0",
            "-lm -lc",
        );
        assert!(
            text.starts_with("prefix=/opt/d2s\nlibdir=${prefix}/lib\n"),
            "{text}"
        );
        assert!(text.contains("includedir=/usr/include\n"), "{text}");
        assert!(text.contains("Libs: -L${libdir} -ldxbc2spirv\n"), "{text}");
        assert!(text.contains("Libs.private: -lm -lc\n"), "{text}");
        assert!(
            text.contains("Cflags: -I${includedir}/dxbc2spirv\n"),
            "{text}"
        );
        assert!(text.contains("Version: 0.1.0\n"), "{text}");
    }

    #[test]
    fn the_api_version_is_read_from_the_c_api_source() {
        let version = api_version(&paths::workspace_root()).expect("a version");
        assert!(version >= 3, "DXBC2SPIRV_API_VERSION {version}");
    }
}
