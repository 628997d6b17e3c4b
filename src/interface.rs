//! The stage interface: where a shader's inputs and outputs sit in Vulkan's location space.
//!
//! Without a map every ordinary `v#`/`o#` register is a `vec4` at `Location = register`, so
//! two stages link when the compiler gave a semantic the same register in both. A
//! translation layer links by semantic instead, as D3D does: it gives an [`InterfaceMap`]
//! ([`crate::TranslateOptions::interface`]) that places each signature element (by semantic
//! name and index, compared without regard to case as D3D compares them, or by register) at
//! a location and component of its choosing, and [`InterfaceMap::inputs_from`] builds, from
//! the previous stage's reflection, the map that puts this shader's inputs where that stage's
//! outputs with the same semantic are. The reflection reports where every element went
//! ([`Placement`]; `placement` in the JSON).
//!
//! An element placed by a map is its own variable (a scalar or a vector of the element's
//! width) at the map's `Location`, with a `Component` decoration when it does not start at
//! component 0; its register components keep their order. A map entry may also name the
//! vector the element is part of (`vector_component`, `vector_components`): elements of one
//! vector then share one variable. That is what [`InterfaceMap::inputs_from`] writes, so that
//! an input reads the very variable the previous stage wrote: Vulkan matches an input with an
//! output only when both have the same `Location`, `Component` and type.
//!
//! System values that Vulkan has as built-ins (`SV_Position`, clip and cull distances,
//! `SV_IsFrontFace`, tessellation factors, …) stay built-ins and need no entry. A map's
//! list of inputs, outputs or patch constants, when given, must place every element of that
//! list that needs a location; an element it does not place is an error naming the element.
//! For inputs this is also Vulkan's rule: every input must have an interface match in the
//! previous stage ("Interface Matching" in the Vulkan specification's "Shader ClassInterfaces"
//! chapter: "All input variables and blocks must have an interface match in the preceding
//! shader stage, except for built-in variables in fragment shaders").
//!
//! Patch constants (a hull shader's patch-constant outputs, a domain shader's patch-constant
//! inputs) are decorated `Patch` and are matched only with `Patch` variables, but spirv-val
//! counts them in the same location space as the control points of the same storage class,
//! so a patch constant must not overlap a control point: that is an error here too.

use std::fmt;

use serde_json::{json, Value};

use crate::container::{Signature, SignatureElement, SystemValue};
use crate::error::{Error, Location, Result};
use crate::ir::Stage;

/// Which list of signature elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InterfaceFile {
    /// The input signature (`v#`, per-vertex `v[][]`, `vicp`).
    Inputs,
    /// The output signature (`o#`, a hull shader's control points).
    Outputs,
    /// The patch-constant signature (a hull shader's patch-constant outputs, a domain
    /// shader's `vpc#`).
    PatchConstants,
}

impl InterfaceFile {
    /// The JSON key of the list (`inputs`, `outputs`, `patch_constants`).
    pub fn name(self) -> &'static str {
        match self {
            InterfaceFile::Inputs => "inputs",
            InterfaceFile::Outputs => "outputs",
            InterfaceFile::PatchConstants => "patch_constants",
        }
    }

    fn singular(self) -> &'static str {
        match self {
            InterfaceFile::Inputs => "input",
            InterfaceFile::Outputs => "output",
            InterfaceFile::PatchConstants => "patch constant",
        }
    }
}

/// What an entry of an [`InterfaceMap`] places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterfaceKey {
    /// The element with this semantic name (compared without regard to case) and index.
    Semantic {
        /// The semantic name (`TEXCOORD`).
        name: String,
        /// The semantic index.
        index: u32,
    },
    /// Every element in this register (together, as the register's `vec4` would be).
    Register(u32),
}

impl fmt::Display for InterfaceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterfaceKey::Semantic { name, index } => write!(f, "{name}{index}"),
            InterfaceKey::Register(r) => write!(f, "register {r}"),
        }
    }
}

/// One entry of an [`InterfaceMap`]: where the elements its key names go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceEntry {
    /// The element(s) placed.
    pub key: InterfaceKey,
    /// The `Location`.
    pub location: u32,
    /// The component (0–3) of the element's first component; `None` keeps the component it
    /// has in its register (a `TEXCOORD1` in `o1.zw` starts at component 2).
    pub component: Option<u32>,
    /// The vector the element is part of: (first component, number of components). `None`:
    /// the element alone (a register key: the whole `vec4` of the register).
    pub vector: Option<(u32, u32)>,
}

/// Where an element sits: the reflection reports one per element that has a location, and a
/// map entry gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The `Location`.
    pub location: u32,
    /// The component (0–3) of the element's first component.
    pub component: u32,
    /// The variable the element is part of: its first component (its `Component`
    /// decoration) …
    pub vector_component: u32,
    /// … and its number of components.
    pub vector_components: u32,
    /// The `Index` of a pixel shader's output (1 for `o1` with dual-source blending, else 0).
    pub index: u32,
}

impl Placement {
    /// The JSON form (`placement` of a signature element in the reflection).
    pub fn to_json(&self) -> Value {
        json!({
            "location": self.location,
            "component": self.component,
            "vector_component": self.vector_component,
            "vector_components": self.vector_components,
            "index": self.index,
        })
    }
}

/// Where a shader's inputs, outputs and patch constants go (see the module documentation).
///
/// JSON form (each list optional; an absent list keeps `Location = register` for it):
///
/// ```json
/// { "inputs":  [ { "semantic": "TEXCOORD", "index": 1, "location": 3 },
///                { "register": 2, "location": 5 } ],
///   "outputs": [ { "semantic": "COLOR", "index": 0, "location": 0, "component": 2 } ],
///   "patch_constants": [ { "semantic": "PATCHDATA", "index": 0, "location": 9 } ] }
/// ```
///
/// An entry has `semantic` (with `index`, default 0) or `register`, a `location`, and
/// optionally `component` (default: the element's component in its register) and
/// `vector_component` with `vector_components` (the vector the element is part of, as
/// [`InterfaceMap::inputs_from`] writes). Unknown keys are errors naming the key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InterfaceMap {
    /// Where the inputs go; `None`: `Location = register`.
    pub inputs: Option<Vec<InterfaceEntry>>,
    /// Where the outputs go; `None`: `Location = register`. Not for pixel shaders, whose
    /// outputs are render targets.
    pub outputs: Option<Vec<InterfaceEntry>>,
    /// Where the patch constants go; `None`: after the control points, by register.
    pub patch_constants: Option<Vec<InterfaceEntry>>,
}

const MAP_KEYS: &[&str] = &["inputs", "outputs", "patch_constants"];
const ENTRY_KEYS: &[&str] = &[
    "semantic",
    "index",
    "register",
    "location",
    "component",
    "vector_component",
    "vector_components",
];

fn bad(message: String) -> Error {
    Error::new(Location::None, format!("interface map: {message}"))
}

impl InterfaceMap {
    /// Parses the JSON form. An unknown key, a missing location, a component out of 0–3, an
    /// element that would not fit in its vector or in one location, or a value of the wrong
    /// type is an error naming the entry.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("expected an object".into()))?;
        if let Some(key) = object.keys().find(|k| !MAP_KEYS.contains(&k.as_str())) {
            return Err(bad(format!(
                "unknown key {key:?} at the top level (allowed: {})",
                MAP_KEYS.join(", ")
            )));
        }
        let list = |file: InterfaceFile| -> Result<Option<Vec<InterfaceEntry>>> {
            let Some(value) = object.get(file.name()) else {
                return Ok(None);
            };
            let array = value
                .as_array()
                .ok_or_else(|| bad(format!("{} must be an array", file.name())))?;
            let mut entries = Vec::with_capacity(array.len());
            for (i, entry) in array.iter().enumerate() {
                entries.push(
                    parse_entry(entry).map_err(|m| bad(format!("{}[{i}]: {m}", file.name())))?,
                );
            }
            Ok(Some(entries))
        };
        Ok(InterfaceMap {
            inputs: list(InterfaceFile::Inputs)?,
            outputs: list(InterfaceFile::Outputs)?,
            patch_constants: list(InterfaceFile::PatchConstants)?,
        })
    }

    /// The JSON form [`InterfaceMap::from_json`] reads.
    pub fn to_json(&self) -> Value {
        let list = |entries: &Option<Vec<InterfaceEntry>>| {
            entries
                .as_ref()
                .map(|e| e.iter().map(InterfaceEntry::to_json).collect::<Vec<_>>())
        };
        let mut object = serde_json::Map::new();
        for (file, entries) in [
            (InterfaceFile::Inputs, &self.inputs),
            (InterfaceFile::Outputs, &self.outputs),
            (InterfaceFile::PatchConstants, &self.patch_constants),
        ] {
            if let Some(list) = list(entries) {
                object.insert(file.name().to_string(), Value::Array(list));
            }
        }
        Value::Object(object)
    }

    /// The map that places this shader's inputs where the previous stage (`previous`, the
    /// reflection of its translation) put its outputs with the same semantic, and, after a
    /// hull shader, the patch constants where it put them. Only the inputs (and patch
    /// constants) are set: the caller adds this shader's outputs if it places them too. Of
    /// a geometry shader's outputs, those of stream 0 are taken (the rasterized stream unless
    /// the stream-output layout chooses another).
    pub fn inputs_from(previous: &crate::reflect::ShaderReflection) -> InterfaceMap {
        let entries = |signature: &Option<Signature>, placements: &[Option<Placement>]| {
            let mut list = Vec::new();
            for (element, placement) in signature
                .iter()
                .flat_map(|s| s.elements.iter())
                .zip(placements)
            {
                // A geometry shader's other streams are not rasterized (stream 0 is, unless
                // stream output says otherwise).
                let Some(p) = placement.filter(|_| element.stream == 0) else {
                    continue;
                };
                list.push(InterfaceEntry {
                    key: InterfaceKey::Semantic {
                        name: element.semantic_name.clone(),
                        index: element.semantic_index,
                    },
                    location: p.location,
                    component: Some(p.component),
                    vector: Some((p.vector_component, p.vector_components)),
                });
            }
            list
        };
        let hull = previous.model.starts_with("hs_");
        InterfaceMap {
            inputs: Some(entries(&previous.outputs, &previous.placements.outputs)),
            outputs: None,
            patch_constants: hull.then(|| {
                entries(
                    &previous.patch_constants,
                    &previous.placements.patch_constants,
                )
            }),
        }
    }

    /// The list of `file`.
    pub fn list(&self, file: InterfaceFile) -> Option<&[InterfaceEntry]> {
        match file {
            InterfaceFile::Inputs => self.inputs.as_deref(),
            InterfaceFile::Outputs => self.outputs.as_deref(),
            InterfaceFile::PatchConstants => self.patch_constants.as_deref(),
        }
    }
}

impl InterfaceEntry {
    /// The JSON form of the entry.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::Map::new();
        match &self.key {
            InterfaceKey::Semantic { name, index } => {
                object.insert("semantic".into(), json!(name));
                object.insert("index".into(), json!(index));
            }
            InterfaceKey::Register(r) => {
                object.insert("register".into(), json!(r));
            }
        }
        object.insert("location".into(), json!(self.location));
        if let Some(c) = self.component {
            object.insert("component".into(), json!(c));
        }
        if let Some((first, count)) = self.vector {
            object.insert("vector_component".into(), json!(first));
            object.insert("vector_components".into(), json!(count));
        }
        Value::Object(object)
    }

    fn matches(&self, element: &SignatureElement) -> bool {
        match &self.key {
            InterfaceKey::Semantic { name, index } => {
                element.semantic_index == *index && element.semantic_name.eq_ignore_ascii_case(name)
            }
            InterfaceKey::Register(r) => element.register == *r,
        }
    }
}

fn parse_entry(value: &Value) -> std::result::Result<InterfaceEntry, String> {
    let object = value.as_object().ok_or("expected an object")?;
    if let Some(key) = object.keys().find(|k| !ENTRY_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key {key:?} (allowed: {})",
            ENTRY_KEYS.join(", ")
        ));
    }
    let number = |key: &str| -> std::result::Result<Option<u32>, String> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("{key} must be a 32-bit unsigned number")),
        }
    };
    let key = match (object.get("semantic"), number("register")?) {
        (Some(_), Some(_)) => return Err("give semantic or register, not both".into()),
        (None, None) => return Err("semantic or register is missing".into()),
        (Some(name), None) => {
            let name = name.as_str().ok_or("semantic must be a string")?;
            if name.is_empty() {
                return Err("semantic is empty".into());
            }
            InterfaceKey::Semantic {
                name: name.to_string(),
                index: number("index")?.unwrap_or(0),
            }
        }
        (None, Some(register)) => {
            if object.contains_key("index") {
                return Err("index belongs to a semantic, not a register".into());
            }
            InterfaceKey::Register(register)
        }
    };
    let location = number("location")?.ok_or("location is missing")?;
    let component = number("component")?;
    if component.is_some_and(|c| c > 3) {
        return Err(format!(
            "component {} is not 0 to 3",
            component.unwrap_or(0)
        ));
    }
    let vector = match (number("vector_component")?, number("vector_components")?) {
        (None, None) => None,
        (Some(first), Some(count)) => {
            if count == 0 || first + count > 4 {
                return Err(format!(
                    "a vector of {count} components from component {first} does not fit in \
                     one location"
                ));
            }
            if component.is_some_and(|c| c < first || c >= first + count) {
                return Err(format!(
                    "component {} is outside the vector (components {first} to {})",
                    component.unwrap_or(0),
                    first + count - 1
                ));
            }
            Some((first, count))
        }
        _ => return Err("vector_component and vector_components go together".into()),
    };
    Ok(InterfaceEntry {
        key,
        location,
        component,
        vector,
    })
}

/// Whether a signature element of `file` in a `stage` shader is a variable at a location
/// (otherwise a built-in, or a register without a location such as `oDepth`).
pub fn uses_location(stage: Stage, file: InterfaceFile, element: &SignatureElement) -> bool {
    use SystemValue as S;
    if element.register >= 32 {
        return false;
    }
    let sv = element.system_value;
    let passed_on = matches!(sv, S::Undefined | S::VertexId | S::InstanceId);
    match (file, stage) {
        (InterfaceFile::Inputs, Stage::Vertex) => !matches!(sv, S::VertexId | S::InstanceId),
        // A domain shader's control points come from the hull shader by location, whatever
        // they are named.
        (InterfaceFile::Inputs, Stage::Domain) => true,
        (InterfaceFile::Inputs, _) => passed_on,
        (InterfaceFile::Outputs, Stage::Hull) => true,
        (InterfaceFile::Outputs, Stage::Pixel) => matches!(sv, S::Target | S::Undefined),
        (InterfaceFile::Outputs, _) => passed_on,
        (InterfaceFile::PatchConstants, _) => sv == S::Undefined,
    }
}

/// The first component and the number of components of an element's mask (its components
/// from the lowest to the highest set; 4 when the mask is empty).
pub fn mask_span(mask: u8) -> (u32, u32) {
    let mask = if mask & 0xf == 0 { 0xf } else { mask & 0xf };
    let first = mask.trailing_zeros();
    let last = 7 - mask.leading_zeros();
    (first, last - first + 1)
}

/// A short name of an element for errors: `TEXCOORD1 (o1.zw)`.
pub fn element_name(file: InterfaceFile, element: &SignatureElement) -> String {
    let prefix = if file == InterfaceFile::Outputs {
        "o"
    } else if file == InterfaceFile::PatchConstants {
        "vpc"
    } else {
        "v"
    };
    let mask: String = "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| element.mask & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect();
    format!(
        "{} {}{} ({prefix}{}.{mask})",
        file.singular(),
        element.semantic_name,
        element.semantic_index,
        element.register
    )
}

/// Where each element of one signature goes (parallel to its elements; `None` for those
/// without a location). `map` is the map's list for the file (`None`: the register scheme,
/// with patch constants from `patch_base` on); `dual_source` places a pixel shader's `o1` at
/// location 0, index 1.
pub fn place_signature(
    stage: Stage,
    file: InterfaceFile,
    signature: Option<&Signature>,
    map: Option<&[InterfaceEntry]>,
    patch_base: u32,
    dual_source: bool,
) -> Result<Vec<Option<Placement>>> {
    let Some(signature) = signature else {
        return Ok(Vec::new());
    };
    if map.is_some() && file == InterfaceFile::Outputs && stage == Stage::Pixel {
        return Err(bad(
            "a pixel shader's outputs are render targets (their locations are the target \
             numbers): the map cannot place them"
                .into(),
        ));
    }
    let mut placed = Vec::with_capacity(signature.elements.len());
    for element in &signature.elements {
        let dropped = dual_source
            && stage == Stage::Pixel
            && file == InterfaceFile::Outputs
            && element.register >= 2;
        if !uses_location(stage, file, element) || dropped {
            placed.push(None);
            continue;
        }
        let (first, width) = mask_span(element.mask);
        let placement = match map {
            None => {
                let mut location = element.register;
                let mut index = 0;
                if file == InterfaceFile::PatchConstants {
                    location = patch_base.saturating_add(element.register);
                }
                if dual_source && stage == Stage::Pixel && file == InterfaceFile::Outputs {
                    index = element.register;
                    location = 0;
                }
                Placement {
                    location,
                    component: first,
                    vector_component: 0,
                    vector_components: 4,
                    index,
                }
            }
            Some(entries) => {
                let entry = entries.iter().find(|e| e.matches(element)).ok_or_else(|| {
                    let why = if file == InterfaceFile::Inputs {
                        " (Vulkan requires every input to match an output of the previous \
                         stage; a map made by inputs_from lacks an input the previous stage \
                         does not write)"
                    } else {
                        ""
                    };
                    bad(format!(
                        "no entry places the {}{why}",
                        element_name(file, element)
                    ))
                })?;
                let component = match (&entry.key, entry.component) {
                    (_, Some(c)) => c,
                    _ => first,
                };
                let (vector_component, vector_components) = match (&entry.key, entry.vector) {
                    (_, Some(v)) => v,
                    (InterfaceKey::Register(_), None) => (0, 4),
                    (InterfaceKey::Semantic { .. }, None) => (component, width),
                };
                // An entry made in code, not read from JSON, may hold anything.
                if component > 3
                    || vector_components == 0
                    || vector_component.saturating_add(vector_components) > 4
                {
                    return Err(bad(format!(
                        "the entry for the {} has component {component} in a vector of \
                         {vector_components} from component {vector_component}: a location \
                         has components 0 to 3",
                        element_name(file, element)
                    )));
                }
                if component + width > vector_component + vector_components
                    || component < vector_component
                {
                    return Err(bad(format!(
                        "the {} has {width} component(s) and does not fit at component \
                         {component} of its vector (components {vector_component} to {})",
                        element_name(file, element),
                        vector_component + vector_components - 1
                    )));
                }
                Placement {
                    location: entry.location,
                    component,
                    vector_component,
                    vector_components,
                    index: 0,
                }
            }
        };
        placed.push(Some(placement));
    }
    // The register scheme places what the compiler packed; only a map can make overlaps.
    if map.is_some() {
        check_overlaps(file, &signature.elements, &placed)?;
    }
    Ok(placed)
}

/// Two elements whose components overlap at one location are an error naming both, unless
/// they share one vector (the register scheme, or elements of one previous-stage variable)
/// and their own components do not overlap, or they belong to different streams of a
/// geometry shader (only one stream is rasterized; the others are captured by stream output
/// or dropped).
fn check_overlaps(
    file: InterfaceFile,
    elements: &[SignatureElement],
    placed: &[Option<Placement>],
) -> Result<()> {
    for (i, a) in placed.iter().enumerate() {
        let Some(a) = a else { continue };
        for (j, b) in placed.iter().enumerate().skip(i + 1) {
            let Some(b) = b else { continue };
            if a.location != b.location
                || a.index != b.index
                || elements[i].stream != elements[j].stream
            {
                continue;
            }
            let same_vector = a.vector_component == b.vector_component
                && a.vector_components == b.vector_components;
            let span = |p: &Placement, e: &SignatureElement| {
                let (_, width) = mask_span(e.mask);
                (p.component, p.component + width)
            };
            let (a0, a1) = if same_vector {
                span(a, &elements[i])
            } else {
                (a.vector_component, a.vector_component + a.vector_components)
            };
            let (b0, b1) = if same_vector {
                span(b, &elements[j])
            } else {
                (b.vector_component, b.vector_component + b.vector_components)
            };
            if a0 < b1 && b0 < a1 {
                // The same element listed twice (a damaged signature) is not two elements.
                if elements[i].register == elements[j].register
                    && elements[i].mask == elements[j].mask
                    && same_vector
                {
                    continue;
                }
                return Err(bad(format!(
                    "the {} and the {} overlap at location {} (components {} to {} and {} to \
                     {})",
                    element_name(file, &elements[i]),
                    element_name(file, &elements[j]),
                    a.location,
                    a0,
                    a1 - 1,
                    b0,
                    b1 - 1
                )));
            }
        }
    }
    Ok(())
}

/// Checks that no patch constant shares a location with a control point of the same storage
/// class (spirv-val counts `Patch` and per-vertex variables in one location space).
pub fn check_patch_overlap(
    control_points: (&[SignatureElement], &[Option<Placement>]),
    cp_file: InterfaceFile,
    patches: (&[SignatureElement], &[Option<Placement>]),
) -> Result<()> {
    for (pe, pp) in patches.0.iter().zip(patches.1) {
        let Some(pp) = pp else { continue };
        for (ce, cp) in control_points.0.iter().zip(control_points.1) {
            let Some(cp) = cp else { continue };
            if pp.location == cp.location {
                return Err(bad(format!(
                    "the {} and the {} share location {}: patch constants and control \
                     points of one storage class need different locations",
                    element_name(InterfaceFile::PatchConstants, pe),
                    element_name(cp_file, ce),
                    pp.location
                )));
            }
        }
    }
    Ok(())
}

/// The placements of every signature of a shader.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placements {
    /// Parallel to the input signature's elements.
    pub inputs: Vec<Option<Placement>>,
    /// Parallel to the output signature's elements.
    pub outputs: Vec<Option<Placement>>,
    /// Parallel to the patch-constant signature's elements.
    pub patch_constants: Vec<Option<Placement>>,
}

/// One past the highest register of a signature's elements (among D3D's 32; registers past
/// them, in a damaged signature, have no location).
pub fn registers_end(signature: Option<&Signature>) -> u32 {
    signature
        .iter()
        .flat_map(|s| &s.elements)
        .filter(|e| e.register < 32)
        .map(|e| e.register + 1)
        .max()
        .unwrap_or(0)
}

/// Where the register scheme puts patch constant 0 of a hull or domain shader: one past the
/// last control-point register, since per-vertex and per-patch variables share the location
/// space. The hull shader (its control-point outputs, or the inputs it passes through when
/// it has no control-point phase) and the domain shader (its control-point inputs) both
/// derive it from the control-point signature and from the control-point registers the
/// program declares, which only differ when a damaged signature lacks a declared register.
/// `hull` is the hull shader's phases ([`crate::analysis::hull_phases::hull_phases`]). The
/// module and the reflection both place patch constants from this one value.
pub fn patch_constant_base(
    program: &crate::ir::Program,
    signatures: &crate::container::ChunkInfo,
    hull: Option<&crate::analysis::hull_phases::HullPhases>,
) -> u32 {
    use crate::analysis::hull_phases::PhaseKind;
    use crate::ir::{Declaration, RegisterKind};
    let is_hull = program.model.stage == crate::ir::Stage::Hull;
    let control_points = if is_hull {
        signatures.output.as_ref()
    } else {
        signatures.input.as_ref()
    };
    let passthrough = hull.is_some_and(|h| h.control_point_phase().is_none());
    let mut declared = 0u32;
    for (index, instruction) in program.instructions.iter().enumerate() {
        let Some(Declaration::Signature { operand, .. }) = &instruction.declaration else {
            continue;
        };
        let operand = program.operand(*operand);
        let counts = match operand.kind {
            RegisterKind::Output => {
                hull.map(|h| h.phase_at(index)) == Some(PhaseKind::ControlPoint)
            }
            RegisterKind::OutputControlPoint => true,
            RegisterKind::InputControlPoint => !is_hull || passthrough,
            RegisterKind::Input => is_hull && passthrough && operand.index_count == 2,
            _ => false,
        };
        if !counts {
            continue;
        }
        // Registers past D3D's 32 have no location (declaring one is an error).
        if let Some(register) = operand.indices().last().and_then(|i| i.as_imm32()) {
            declared = declared.max(register.saturating_add(1));
        }
    }
    // Control points passed through are the input signature's registers.
    let passed_through = if passthrough {
        registers_end(signatures.input.as_ref())
    } else {
        0
    };
    declared
        .max(registers_end(control_points))
        .max(passed_through)
}

/// Places the signature elements of a program (the register scheme, or `map`'s places, with
/// patch constants from [`patch_constant_base`]). A translation makes this once: the module's
/// variables and the reflection's [`Placement`]s both come from it.
pub(crate) fn place_program(
    program: &crate::ir::Program,
    signatures: &crate::container::ChunkInfo,
    map: Option<&InterfaceMap>,
    dual_source_blending: bool,
) -> Result<Placements> {
    let stage = program.model.stage;
    let hull = crate::analysis::hull_phases::hull_phases(program);
    let patch_base = patch_constant_base(program, signatures, hull.as_ref());
    place_all(
        stage,
        [
            signatures.input.as_ref(),
            signatures.output.as_ref(),
            signatures.patch_constant.as_ref(),
        ],
        map,
        patch_base,
        dual_source_blending && stage == Stage::Pixel,
    )
}

/// Places the elements of all three signatures of a shader (`patch_base`: where the register
/// scheme starts patch constants).
pub fn place_all(
    stage: Stage,
    signatures: [Option<&Signature>; 3],
    map: Option<&InterfaceMap>,
    patch_base: u32,
    dual_source: bool,
) -> Result<Placements> {
    let [inputs, outputs, patches] = signatures;
    let list = |file| map.and_then(|m| m.list(file));
    let inputs_placed = place_signature(
        stage,
        InterfaceFile::Inputs,
        inputs,
        list(InterfaceFile::Inputs),
        0,
        false,
    )?;
    let outputs_placed = place_signature(
        stage,
        InterfaceFile::Outputs,
        outputs,
        list(InterfaceFile::Outputs),
        0,
        dual_source,
    )?;
    // Patch constants by register start after the control points' locations.
    let control_points_end = match stage {
        Stage::Hull => &outputs_placed,
        Stage::Domain => &inputs_placed,
        _ => &inputs_placed,
    }
    .iter()
    .flatten()
    .map(|p| p.location.saturating_add(1))
    .max()
    .unwrap_or(0);
    let patch_base = if matches!(stage, Stage::Hull | Stage::Domain) {
        patch_base.max(control_points_end)
    } else {
        patch_base
    };
    let placements = Placements {
        inputs: inputs_placed,
        outputs: outputs_placed,
        patch_constants: place_signature(
            stage,
            InterfaceFile::PatchConstants,
            patches,
            list(InterfaceFile::PatchConstants),
            patch_base,
            false,
        )?,
    };
    let (cp_file, cp_signature, cp_placed) = match stage {
        Stage::Hull => (InterfaceFile::Outputs, outputs, &placements.outputs),
        Stage::Domain => (InterfaceFile::Inputs, inputs, &placements.inputs),
        _ => return Ok(placements),
    };
    if map.is_some_and(|m| m.patch_constants.is_some() || m.list(cp_file).is_some()) {
        if let (Some(cps), Some(pcs)) = (cp_signature, patches) {
            check_patch_overlap(
                (&cps.elements, cp_placed),
                cp_file,
                (&pcs.elements, &placements.patch_constants),
            )?;
        }
    }
    Ok(placements)
}

#[cfg(test)]
mod tests;
