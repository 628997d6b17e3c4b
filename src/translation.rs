//! The one-call library entry point: DXBC bytes in, SPIR-V words and reflection out.
//!
//! [`translate_bytes`] reads the container, translates its program with the bindings of
//! [`TranslateOptions::bindings`] and returns a [`Translation`]:
//! the module's words together with the [`ShaderReflection`] (descriptor ranges with the
//! bindings the module uses, signatures, thread-group size) a translation layer needs to
//! build its pipeline layout.

use crate::bindings::{BindingMap, BindingMapper, DefaultBindings};
use crate::error::Result;
use crate::reflect::ShaderReflection;
use crate::spirv::{Features, StreamOutput, TargetEnv};
use crate::ReadOptions;

/// Everything [`translate_bytes`] may be asked to do differently.
///
/// Only switches that really change the output are here; each field says what it changes.
/// The C API (`dxbc2spirv_options_default`) and the command start from these same defaults
/// (docs/library.md lists them): Vulkan 1.3, debug names kept, checksum checked, the default
/// binding layout, the device features `float64`, `sparse_residency` and `min_lod` (the rest
/// off; see [`Features`]), the limits D3D admits, no stream output, the optimiser on.
///
/// New fields will come; build the options from [`TranslateOptions::default`] and set
/// the fields you change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TranslateOptions {
    /// The Vulkan version whose SPIR-V rules the module follows (SPIR-V 1.3 for Vulkan 1.1,
    /// 1.5 for 1.2, 1.6 for 1.3; demote needs an extension before 1.3).
    pub target: TargetEnv,
    /// Keep `OpName` debug names (register and resource names) in the module (default: on;
    /// they cost about a tenth of the module's size and nothing at run time).
    pub debug_names: bool,
    /// Accept a container whose checksum does not match its contents.
    pub ignore_checksum: bool,
    /// Where descriptor ranges are bound; `None` is the default layout
    /// ([`crate::bindings::DefaultBindings`]: cb at 0, samplers at 16, SRVs at 32, UAVs at
    /// 160, one set per register space).
    pub bindings: Option<BindingMap>,
    /// D3D-compatibility policies that depend on the device: `float64` (without it a
    /// double-precision instruction is an error instead of needing `shaderFloat64`) and
    /// `denorm_preserve_float64` (declare `DenormPreserve` for doubles, as D3D keeps double
    /// denormals; needs `shaderDenormPreserveFloat64`).
    pub features: Features,
    /// Resource limits on the input ([`crate::limits::Limits`]; the defaults admit every
    /// shader Direct3D accepts).
    pub limits: crate::limits::Limits,
    /// The stream-output (transform-feedback) layout of a vertex, domain or geometry shader,
    /// as the application gives it when it creates the shader (D3D11's
    /// `D3D11_SO_DECLARATION_ENTRY` array, strides and rasterized stream); `None` captures
    /// nothing. See [`StreamOutput`] and the `--stream-output` JSON form.
    pub stream_output: Option<StreamOutput>,
    /// Leave the SPIR-V as the emitter wrote it, without the optimiser's passes
    /// ([`crate::spirv::opt`]); the module computes the same results, only larger.
    pub no_optimize: bool,
    /// Where the inputs, outputs and patch constants go, by semantic or register
    /// ([`crate::interface::InterfaceMap`]; [`InterfaceMap::inputs_from`] links to the
    /// previous stage); `None`: `Location = register`. The reflection reports every element's
    /// place.
    ///
    /// [`InterfaceMap::inputs_from`]: crate::interface::InterfaceMap::inputs_from
    pub interface: Option<crate::interface::InterfaceMap>,
    /// Dual-source blending: a pixel shader's `o0` and `o1` become `Location 0, Index 0` and
    /// `Location 0, Index 1` (for `SRC1_COLOR`/`SRC1_ALPHA` blend factors); writes to `o2`
    /// and above are dropped, as D3D11 ignores those targets in that mode and Vulkan allows
    /// no other colour output. Off by default.
    pub dual_source_blending: bool,
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            target: TargetEnv::default(),
            debug_names: true,
            ignore_checksum: false,
            bindings: None,
            features: Features::default(),
            limits: crate::limits::Limits::default(),
            stream_output: None,
            no_optimize: false,
            interface: None,
            dual_source_blending: false,
        }
    }
}

/// The result of [`translate_bytes`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Translation {
    /// The SPIR-V module's words.
    pub words: Vec<u32>,
    /// What the module needs from the application: descriptor ranges and their bindings,
    /// signatures, thread-group size, geometry and tessellation parameters.
    pub reflection: ShaderReflection,
    /// What the translation did not refuse but reports: Direct3D runtime limits the shader
    /// goes past that a Vulkan device need not share (docs/errors.md lists them), each with
    /// the instruction it is at.
    pub warnings: Vec<crate::Warning>,
}

impl Translation {
    /// The module as little-endian bytes (the form a `.spv` file holds).
    pub fn spirv_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

impl TranslateOptions {
    /// The options of reading the container (checksum leniency and limits).
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            ignore_checksum: self.ignore_checksum,
            limits: self.limits,
        }
    }

    /// The stage-interface layout these options choose (for [`crate::reflect::scan_with`]).
    pub fn interface_options(&self) -> crate::reflect::InterfaceOptions<'_> {
        crate::reflect::InterfaceOptions {
            map: self.interface.as_ref(),
            dual_source_blending: self.dual_source_blending,
        }
    }

    /// The binding mapper these options choose.
    pub fn mapper(&self) -> &dyn BindingMapper {
        match &self.bindings {
            Some(map) => map,
            None => &DefaultBindings,
        }
    }
}

/// Translates a DXBC container (its bytes) into SPIR-V, with its reflection.
///
/// Errors name where the input is wrong (instruction index and dword offset for program
/// errors) and whether the shader is malformed or uses something not translated yet.
///
/// The one-call form: it allocates its working memory and frees it. A caller that translates
/// many shaders keeps a [`Translator`] (one per thread) instead.
pub fn translate_bytes(bytes: &[u8], options: &TranslateOptions) -> Result<Translation> {
    crate::pipeline::translate(bytes, options, &mut Default::default())
}

/// Reads a DXBC container and gives its reflection without translating it: the descriptor
/// ranges with the bindings a translation with the same `options` would use, the
/// signatures, the thread-group size and the geometry and tessellation parameters (the
/// [`Translation::reflection`] of [`translate_bytes`], without making the module).
///
/// Of the options it uses the checksum leniency, the limits and the binding map. The
/// program is read and validated as for a translation, so a malformed program is an error
/// here too; one the translator would refuse as unsupported may still be scanned.
///
/// ```
/// use dxbc2spirv::{scan_bytes, TranslateOptions};
///
/// let dxbc = dxbc2spirv::asm::assemble(
///     "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 8, 2, 1\nstore_raw u0.x, l(0), l(1)\nret\n",
/// )?;
/// let reflection = scan_bytes(&dxbc, &TranslateOptions::default())?;
/// assert_eq!(reflection.thread_group, Some([8, 2, 1]));
/// assert_eq!(reflection.ranges[0].binding.binding.binding, 160); // u0, default layout
/// # Ok::<(), dxbc2spirv::Error>(())
/// ```
pub fn scan_bytes(bytes: &[u8], options: &TranslateOptions) -> Result<ShaderReflection> {
    let mut dxbc = crate::read(bytes, &options.read_options())?;
    let Some(program) = dxbc.program.take() else {
        return Err(dxbc.no_program());
    };
    crate::reflect::scan_owned(
        &program,
        dxbc.reflection,
        options.mapper(),
        options.interface_options(),
    )
}

/// A translator that keeps its working memory (the decoder's arrays, the emitter's and the
/// optimiser's tables and the last module's lists: at most [`Translator::MAX_HELD_BYTES`],
/// 804 KiB, which tests/workspace.rs measures) from one
/// translation for the next, so that
/// translating many shaders does not allocate, grow and free the same tables every time.
/// It is `Send`: keep one per thread (for example with rayon's `map_init`). The result of a
/// translation does not depend on what the translator translated before.
///
/// ```
/// use dxbc2spirv::{TranslateOptions, Translator};
///
/// let dxbc = dxbc2spirv::asm::assemble("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n")?;
/// let mut translator = Translator::new();
/// for _ in 0..3 {
///     let translation = translator.translate(&dxbc, &TranslateOptions::default())?;
///     assert_eq!(translation.words[0], 0x0723_0203);
/// }
/// # Ok::<(), dxbc2spirv::Error>(())
/// ```
#[derive(Debug)]
pub struct Translator {
    workspace: crate::pipeline::Workspace,
}

impl Default for Translator {
    fn default() -> Self {
        Translator::new()
    }
}

impl Translator {
    /// A translator with nothing kept yet.
    pub fn new() -> Translator {
        Translator {
            workspace: crate::pipeline::Workspace::kept(),
        }
    }

    /// Translates a DXBC container as [`translate_bytes`] does.
    pub fn translate(&mut self, bytes: &[u8], options: &TranslateOptions) -> Result<Translation> {
        crate::pipeline::translate(bytes, options, &mut self.workspace)
    }

    /// The bytes of working memory the translator keeps between translations: at most
    /// [`Translator::MAX_HELD_BYTES`] (each stage drops what grew past its share).
    pub fn held_bytes(&self) -> usize {
        self.workspace.held_bytes()
    }

    /// The most working memory a translator keeps between translations, in bytes.
    pub const MAX_HELD_BYTES: usize = crate::pipeline::WORKSPACE_BYTES;
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 4, 1, 1\n\
                          store_raw u0.x, l(0), l(7)\nret\n";

    #[test]
    fn bytes_in_words_and_reflection_out() {
        let bytes = crate::asm::assemble(SHADER).expect("assembles");
        let t = translate_bytes(&bytes, &TranslateOptions::default()).expect("translates");
        assert_eq!(t.words.first(), Some(&0x0723_0203));
        assert_eq!(t.reflection.thread_group, Some([4, 1, 1]));
        assert_eq!(t.reflection.ranges.len(), 1);
        assert_eq!(t.spirv_bytes().len(), t.words.len() * 4);
    }

    #[test]
    fn a_binding_map_moves_the_uav() {
        let bytes = crate::asm::assemble(SHADER).expect("assembles");
        let map = BindingMap::from_json(
            r#"{"ranges":[{"class":"uav","space":0,"first":0,"last":0,"set":3,"binding":5}]}"#,
        )
        .expect("map");
        let options = TranslateOptions {
            bindings: Some(map),
            ..Default::default()
        };
        let t = translate_bytes(&bytes, &options).expect("translates");
        let binding = t
            .reflection
            .ranges
            .first()
            .expect("one range")
            .binding
            .binding;
        assert_eq!((binding.set, binding.binding), (3, 5));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(translate_bytes(b"DXBC", &TranslateOptions::default()).is_err());
        assert!(translate_bytes(&[], &TranslateOptions::default()).is_err());
        assert!(scan_bytes(b"DXBC", &TranslateOptions::default()).is_err());
        assert!(scan_bytes(&[], &TranslateOptions::default()).is_err());
    }

    /// A scan with a binding map gives the map's binding and the declared parameters, and
    /// the reflection a translation with the same options gives.
    #[test]
    fn scan_gives_the_translations_reflection() {
        let bytes = crate::asm::assemble(SHADER).expect("assembles");
        let map = BindingMap::from_json(
            r#"{"ranges":[{"class":"uav","space":0,"first":0,"last":0,"set":1,"binding":9}]}"#,
        )
        .expect("map");
        let options = TranslateOptions {
            bindings: Some(map),
            ..Default::default()
        };
        let scanned = scan_bytes(&bytes, &options).expect("scans");
        assert_eq!(scanned.thread_group, Some([4, 1, 1]), "{scanned:#?}");
        let binding = scanned.ranges.first().expect("one range").binding.binding;
        assert_eq!((binding.set, binding.binding), (1, 9), "{scanned:#?}");
        let translated = translate_bytes(&bytes, &options).expect("translates");
        assert_eq!(scanned.to_json(), translated.reflection.to_json());
    }

    /// A program the translator refuses is still scanned (the scan makes no module); a
    /// container without a program is an error naming what it holds.
    #[test]
    fn scan_without_translation() {
        // Doubles without `float64` are an error of translation, not of reading.
        let text = "cs_5_0\ndcl_globalFlags enableDoublePrecisionFloatOps\n\
                    dcl_uav_raw u0\ndcl_temps 1\ndcl_thread_group 2, 1, 1\n\
                    dadd r0.xy, d(1.0, 0.0), d(2.0, 0.0)\nstore_raw u0.xy, l(0), r0.xyxx\nret\n";
        let bytes = crate::asm::assemble(text).expect("assembles");
        let options = TranslateOptions {
            features: Features {
                float64: false,
                ..Features::default()
            },
            ..Default::default()
        };
        let error = translate_bytes(&bytes, &options).expect_err("doubles are refused");
        let scanned = scan_bytes(&bytes, &options)
            .unwrap_or_else(|e| panic!("scan fails where translation failed with {error}: {e}"));
        assert_eq!(scanned.thread_group, Some([2, 1, 1]));
        assert_eq!(scanned.ranges.len(), 1, "{scanned:#?}");
    }

    /// The `(field, default)` rows of the options table in docs/library.md.
    fn documented_defaults() -> Vec<(String, String)> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/library.md");
        let text = std::fs::read_to_string(&path).expect("docs/library.md");
        text.lines()
            .skip_while(|line| !line.starts_with("| field | default |"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                (cells[1].trim_matches('`').to_string(), cells[2].to_string())
            })
            .collect()
    }

    /// The names and values (`{:?}`) of a struct's fields, from its pretty `Debug` form.
    fn fields(pretty: &str) -> Vec<(String, String)> {
        pretty
            .lines()
            .filter_map(|line| line.strip_prefix("    "))
            .filter(|line| !line.starts_with(' '))
            .filter_map(|line| {
                let (name, value) = line.split_once(": ")?;
                Some((name.to_string(), value.trim_end_matches(',').to_string()))
            })
            .collect()
    }

    #[test]
    fn the_documented_defaults_are_the_codes() {
        let defaults = TranslateOptions::default();
        let documented = documented_defaults();
        let names: Vec<String> = fields(&format!("{defaults:#?}"))
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let listed: Vec<&String> = documented.iter().map(|(name, _)| name).collect();
        assert_eq!(
            listed.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            names.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            "docs/library.md's table lists the fields of TranslateOptions, in order"
        );
        let on_off = |on: bool| if on { "on" } else { "off" };
        // The features the table says are on: the `code` names before " on".
        let features_on = |cell: &str| -> Vec<String> {
            let before = cell.split(" on").next().unwrap_or("");
            before
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        let features = fields(&format!("{:#?}", defaults.features));
        let enabled: Vec<String> = features
            .iter()
            .filter(|(_, value)| value == "true")
            .map(|(name, _)| name.clone())
            .collect();
        for (field, cell) in &documented {
            let expected_start = match field.as_str() {
                "target" => format!("`TargetEnv::{:?}`", defaults.target),
                "debug_names" => on_off(defaults.debug_names).to_string(),
                "ignore_checksum" => on_off(defaults.ignore_checksum).to_string(),
                "no_optimize" => on_off(defaults.no_optimize).to_string(),
                "dual_source_blending" => on_off(defaults.dual_source_blending).to_string(),
                "bindings" if defaults.bindings.is_none() => "`None`".to_string(),
                "stream_output" if defaults.stream_output.is_none() => "`None`".to_string(),
                "interface" if defaults.interface.is_none() => "`None`".to_string(),
                "features" => {
                    assert_eq!(
                        features_on(cell),
                        enabled,
                        "docs/library.md: the features on by default"
                    );
                    assert!(cell.ends_with("the rest off"), "features: {cell}");
                    continue;
                }
                // Described, not stated as a value: the limits' values are
                // `Limits::default()`'s own documentation.
                "limits" => continue,
                other => panic!("docs/library.md: `{other}` = {cell}: no check for this field"),
            };
            assert!(
                cell.starts_with(&expected_start),
                "docs/library.md says `{field}` defaults to {cell}; the code: {expected_start}"
            );
        }
    }
}
