//! The `run` subcommand: a compute shader dispatched on Vulkan with buffers given on the
//! command line, and the UAVs printed afterwards.

use anyhow::{bail, Context, Result};
use dxbc2spirv::vulkan::{self, Binding, Resource};

/// Descriptor bindings of the default layout (see the README).
const UAV_BINDING_BASE: u32 = 160;
const CBV_BINDING_BASE: u32 = 0;

/// A buffer given as `N=KIND:VALUES`.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferArg {
    /// The register number (`u#` or `cb#`).
    pub register: u32,
    /// The initial bytes.
    pub bytes: Vec<u8>,
}

/// Parses `N=raw:SIZE` (SIZE zero bytes), `N=u32:1,2,…`, `N=i32:…` or `N=f32:1.5,…`.
pub fn parse_buffer(text: &str) -> Result<BufferArg> {
    let (register, rest) = text.split_once('=').with_context(|| {
        format!("`{text}`: expected N=KIND:VALUES, e.g. 0=raw:256 or 0=u32:1,2")
    })?;
    let register: u32 = register
        .trim()
        .parse()
        .with_context(|| format!("`{text}`: `{register}` is not a register number"))?;
    let (kind, values) = rest
        .split_once(':')
        .with_context(|| format!("`{text}`: expected KIND:VALUES after the `=`"))?;
    let values_text = values;
    let values = values.split(',').map(str::trim).filter(|v| !v.is_empty());
    let mut bytes = Vec::new();
    match kind {
        "raw" => {
            let size: usize = values_text
                .trim()
                .parse()
                .with_context(|| format!("`{text}`: raw:SIZE needs a byte count"))?;
            if size == 0 || !size.is_multiple_of(4) || size > 1 << 28 {
                bail!(
                    "`{text}`: the size must be a positive multiple of 4 bytes (at most 256 MiB)"
                );
            }
            bytes.resize(size, 0);
        }
        "u32" | "i32" | "f32" => {
            for value in values {
                let word = match kind {
                    "u32" => parse_u32(value),
                    "i32" => value.parse::<i32>().ok().map(|v| v as u32),
                    _ => value.parse::<f32>().ok().map(f32::to_bits),
                }
                .with_context(|| format!("`{text}`: `{value}` is not a {kind} value"))?;
                bytes.extend_from_slice(&word.to_le_bytes());
            }
            if bytes.is_empty() {
                bail!("`{text}`: no values");
            }
        }
        other => bail!("`{text}`: unknown kind `{other}` (raw, u32, i32 or f32)"),
    }
    Ok(BufferArg { register, bytes })
}

fn parse_u32(value: &str) -> Option<u32> {
    match value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => value.parse().ok(),
    }
}

/// Parses `X,Y,Z`.
pub fn parse_groups(text: &str) -> Result<[u32; 3]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y, z] = parts.as_slice() else {
        bail!("--dispatch `{text}`: expected X,Y,Z");
    };
    let number = |v: &str| -> Result<u32> {
        v.parse()
            .with_context(|| format!("--dispatch `{text}`: `{v}` is not a group count"))
    };
    Ok([number(x)?, number(y)?, number(z)?])
}

/// Dispatches the module and returns the text to print: every UAV's dwords after the run.
pub fn run(
    spirv: &[u32],
    groups: [u32; 3],
    uavs: &[BufferArg],
    cbs: &[BufferArg],
) -> Result<String> {
    let context = vulkan::Context::new().context(
        "Vulkan is not available (on Debian 12: apt-get install -t bookworm-backports \
         mesa-vulkan-drivers)",
    )?;
    let mut bindings = Vec::new();
    for uav in uavs {
        bindings.push(Binding::new(
            0,
            UAV_BINDING_BASE + uav.register,
            Resource::StorageBuffer(uav.bytes.clone()),
        ));
    }
    for cb in cbs {
        let mut bytes = cb.bytes.clone();
        bytes.resize(bytes.len().div_ceil(16) * 16, 0);
        bindings.push(Binding::new(
            0,
            CBV_BINDING_BASE + cb.register,
            Resource::UniformBuffer(bytes),
        ));
    }
    context
        .dispatch(spirv, &mut bindings, groups)
        .context("the dispatch failed")?;
    let mut out = String::new();
    for (uav, binding) in uavs.iter().zip(&bindings) {
        let words = vulkan::bytes_to_words(binding.resource.data());
        out.push_str(&format!("u{} ({} bytes):\n", uav.register, words.len() * 4));
        for (row, chunk) in words.chunks(4).enumerate() {
            let cells: Vec<String> = chunk.iter().map(|w| format!("0x{w:08x}")).collect();
            out.push_str(&format!("  [{:4}] {}\n", row * 4, cells.join(" ")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_and_groups_parse() {
        assert_eq!(parse_buffer("0=raw:8").unwrap().bytes, vec![0; 8]);
        let b = parse_buffer("2=u32:1,0x10").unwrap();
        assert_eq!((b.register, b.bytes), (2, vec![1, 0, 0, 0, 16, 0, 0, 0]));
        assert_eq!(
            parse_buffer("1=f32:1.0").unwrap().bytes,
            1.0f32.to_le_bytes().to_vec()
        );
        assert!(parse_buffer("x=raw:8").is_err());
        assert!(parse_buffer("0=raw:7").is_err());
        assert!(parse_buffer("0=u64:1").is_err());
        assert_eq!(parse_groups("4,1,1").unwrap(), [4, 1, 1]);
        assert!(parse_groups("4,1").is_err());
    }
}
