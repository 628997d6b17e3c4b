//! dxbc2spirv: a translator from Direct3D shader bytecode (DXBC, Shader Model 4.0–5.1)
//! to SPIR-V for Vulkan.
//!
//! The pipeline is `container` (DXBC chunks, signatures, reflection) → `tpf` (the
//! tokenized program format, decoded into the [`ir`]) → passes → SPIR-V emission.
//! [`read`] runs the first two steps; [`disasm`] prints what was read as assembly text.
#![deny(unsafe_code)]

pub mod asm;
pub mod bindings;
pub mod container;
pub mod disasm;
pub mod error;
pub mod ir;
pub mod passes;
pub mod reflect;
pub mod shader_test;
pub mod spirv;
pub mod tpf;
/// A headless Vulkan compute runner for executing translated shaders (the only module with
/// unsafe code: it calls the Vulkan API).
#[cfg(feature = "vulkan")]
#[allow(unsafe_code)]
pub mod vulkan;

pub use error::{Error, ErrorKind, Location, Result};

/// Options for reading a DXBC container.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Accept a container whose checksum does not match its contents.
    pub ignore_checksum: bool,
}

/// Everything read from one DXBC container.
#[derive(Debug, Clone)]
pub struct Dxbc<'a> {
    /// The container's chunk directory.
    pub container: container::Container<'a>,
    /// Signatures, resource definitions, feature flags, interfaces and statistics.
    pub reflection: container::Reflection,
    /// The decoded shader program, or `None` when the container holds no SHDR/SHEX chunk
    /// (for example a root signature).
    pub program: Option<ir::Program>,
}

impl Dxbc<'_> {
    /// True when the container holds a root signature (RTS0) and no shader program.
    pub fn is_root_signature(&self) -> bool {
        self.program.is_none() && self.container.find(*b"RTS0").is_some()
    }
}

/// Reads a DXBC container: checks it, parses its chunks and decodes and validates its program.
pub fn read<'a>(bytes: &'a [u8], options: &ReadOptions) -> Result<Dxbc<'a>> {
    let container = container::Container::parse(
        bytes,
        &container::ParseOptions {
            ignore_checksum: options.ignore_checksum,
        },
    )?;
    let reflection = container::Reflection::parse(&container)?;
    let program = match container.program() {
        Some(chunk) => {
            let program = tpf::decode(chunk.data)?;
            ir::validate(&program)?;
            Some(program)
        }
        None => None,
    };
    Ok(Dxbc {
        container,
        reflection,
        program,
    })
}

/// Translates a read container's program into SPIR-V words (default bindings).
pub fn translate(dxbc: &Dxbc<'_>, options: &spirv::Options) -> Result<Vec<u32>> {
    translate_with_bindings(dxbc, options, &bindings::DefaultBindings)
}

/// Translates a read container's program with descriptor bindings chosen by `mapper`.
pub fn translate_with_bindings(
    dxbc: &Dxbc<'_>,
    options: &spirv::Options,
    mapper: &dyn bindings::BindingMapper,
) -> Result<Vec<u32>> {
    let program = dxbc.program.as_ref().ok_or_else(|| {
        Error::new(
            Location::None,
            if dxbc.is_root_signature() {
                "the container holds a root signature, not a shader"
            } else {
                "the container holds no shader program (no SHDR or SHEX chunk)"
            },
        )
    })?;
    ir::validate_control_flow(program)?;
    spirv::translate_with_bindings(program, &dxbc.reflection, options, mapper)
}
