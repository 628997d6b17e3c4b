//! dxbc2spirv: a translator from Direct3D shader bytecode (DXBC, Shader Model 4.0–5.1)
//! to SPIR-V for Vulkan.
//!
//! [`translate_bytes`] does everything in one call: DXBC bytes in, SPIR-V words and the
//! shader's reflection (descriptor bindings, signatures) out; a [`Translator`] does the same
//! and keeps its working memory for the next shader. Each translation goes through these
//! stages, one call each:
//!
//! 1. **read**: the container's chunks, signatures and resource definitions
//!    ([`container`]); the program decoded from the tokenized format ([`tpf`]) into the
//!    [`ir`], each instruction checked ([`ir::validate`]). [`read`] stops here; [`disasm`]
//!    prints what was read as assembly text;
//! 2. **lower**: forms the back end does not take rewritten into ones it does ([`lowering`]);
//! 3. **validate**: what needs the whole program (structured control flow, the stage's rules);
//! 4. **analyse**: where each descriptor range is bound (the binding plan, with the
//!    [`bindings`] of [`TranslateOptions::bindings`]) and where each signature element goes
//!    ([`interface`]);
//! 5. **emit**: the SPIR-V module ([`spirv`]), temps as SSA values, subroutines inlined;
//! 6. **optimise**: the optimiser's passes ([`spirv::opt`]; [`TranslateOptions::no_optimize`]
//!    skips them);
//! 7. **assemble**: the module's words ([`Translation::words`]);
//! 8. **reflect**: what the application needs from the same analysis
//!    ([`Translation::reflection`], [`reflect`]; [`scan_bytes`] gives it without translating).
//!
//! ```
//! use dxbc2spirv::{translate_bytes, TranslateOptions};
//!
//! // A container, here assembled from fxc-style text (normally read from a file or a cache).
//! let dxbc = dxbc2spirv::asm::assemble(
//!     "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 64, 1, 1\n\
//!      store_raw u0.x, l(0), l(42)\nret\n",
//! )?;
//! let translation = translate_bytes(&dxbc, &TranslateOptions::default())?;
//! assert_eq!(translation.words[0], 0x0723_0203); // the SPIR-V magic number
//! assert_eq!(translation.reflection.thread_group, Some([64, 1, 1]));
//! let uav = &translation.reflection.ranges[0].binding.binding;
//! assert_eq!((uav.set, uav.binding), (0, 160)); // u0 in the default layout
//! # Ok::<(), dxbc2spirv::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod asm;
pub mod bindings;
pub mod cache;
pub mod disasm;
pub mod error;
pub mod interface;
pub mod limits;
pub mod reflect;
pub mod translation;

mod pipeline;

// The translator's inner stages. They are public only for the workspace's other crates (the
// test kit's interpreter and runners, the command, xtask and the fuzz targets) and are not
// part of the library's API: hidden from its documentation and free to change.
#[doc(hidden)]
pub mod analysis;
#[doc(hidden)]
pub mod container;
#[doc(hidden)]
pub mod fast_hash;
#[doc(hidden)]
pub mod fuzzing;
#[doc(hidden)]
pub mod ir;
#[doc(hidden)]
pub mod isa;
#[doc(hidden)]
pub mod lowering;
#[doc(hidden)]
pub mod spirv;
#[doc(hidden)]
pub mod tpf;

pub use error::{Error, ErrorKind, Location, Result, Warning};
pub use spirv::{Features, StreamOutput, TargetEnv};
pub use translation::{scan_bytes, translate_bytes, TranslateOptions, Translation, Translator};

/// Options for reading a DXBC container.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Accept a container whose checksum does not match its contents.
    pub ignore_checksum: bool,
    /// Resource limits on the input.
    pub limits: limits::Limits,
}

/// Everything read from one DXBC container.
#[derive(Debug, Clone)]
pub struct Dxbc<'a> {
    /// The container's chunk directory.
    pub container: container::Container<'a>,
    /// Signatures, resource definitions, feature flags, interfaces and statistics.
    pub reflection: container::ChunkInfo,
    /// The decoded shader program, or `None` when the container holds no SHDR/SHEX chunk
    /// (for example a root signature).
    pub program: Option<ir::Program>,
}

impl Dxbc<'_> {
    /// True when the container holds a root signature (RTS0) and no shader program.
    pub fn is_root_signature(&self) -> bool {
        self.program.is_none() && self.container.find(*b"RTS0").is_some()
    }

    /// The program, or the error saying why there is none (a root signature, or no SHDR/SHEX
    /// chunk).
    pub fn shader_program(&self) -> Result<&ir::Program> {
        self.program.as_ref().ok_or_else(|| self.no_program())
    }

    /// Translates the program with the options' bindings ([`translate_program`] with this
    /// container's signatures and [`TranslateOptions::mapper`]), for the workspace's crates.
    #[doc(hidden)]
    pub fn translate(&self, options: &TranslateOptions) -> Result<Vec<u32>> {
        translate_program(
            self.shader_program()?,
            &self.reflection,
            options,
            options.mapper(),
        )
    }

    /// The error for a container without a program: a root signature or no SHDR/SHEX chunk.
    pub(crate) fn no_program(&self) -> Error {
        Error::new(
            Location::None,
            if self.is_root_signature() {
                "the container holds a root signature, not a shader"
            } else {
                "the container holds no shader program (no SHDR or SHEX chunk)"
            },
        )
    }
}

/// Reads a DXBC container: checks it, parses its chunks and decodes and validates its program.
pub fn read<'a>(bytes: &'a [u8], options: &ReadOptions) -> Result<Dxbc<'a>> {
    read_into(bytes, options, &mut tpf::spare::Arrays::default())
}

/// [`read`], decoding into arrays kept from an earlier program.
pub(crate) fn read_into<'a>(
    bytes: &'a [u8],
    options: &ReadOptions,
    arrays: &mut tpf::spare::Arrays,
) -> Result<Dxbc<'a>> {
    options.limits.check_input(bytes)?;
    let container = container::Container::parse(
        bytes,
        &container::ParseOptions {
            ignore_checksum: options.ignore_checksum,
        },
    )?;
    let reflection = container::ChunkInfo::parse(&container)?;
    let program = match container.program() {
        Some(chunk) => {
            let program = tpf::decode_into(chunk.data, arrays)?;
            options.limits.check_program(&program)?;
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

/// Translates a program (read from a container, or parsed from assembly) with its
/// container's signatures and resource definitions into SPIR-V words: the steps of
/// [`translate_bytes`] after reading, for the workspace's own crates (the test kit, the
/// command, xtask and the tests), which read or make the program themselves. `mapper` binds
/// the descriptor ranges ([`TranslateOptions::mapper`]: the options' own).
#[doc(hidden)]
pub fn translate_program(
    program: &ir::Program,
    signatures: &container::ChunkInfo,
    options: &TranslateOptions,
    mapper: &dyn bindings::BindingMapper,
) -> Result<Vec<u32>> {
    let workspace = &mut pipeline::Workspace::default();
    pipeline::module(program, signatures, options, mapper, workspace).map(|built| built.words)
}
