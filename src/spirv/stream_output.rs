//! Stream output (D3D's name for transform feedback): the layout the application gives when
//! it creates the shader ([`StreamOutput`], D3D11's `D3D11_SO_DECLARATION_ENTRY` array,
//! buffer strides and rasterized stream) and its lowering to `TransformFeedback`.
//!
//! The layout is not in the bytecode, so it comes with the back-end options
//! ([`crate::TranslateOptions::stream_output`]). Each entry names an element of the output signature
//! by stream, semantic name (case-insensitive, as D3D compares them) and semantic index, and
//! a run of its components: `start` and `count` count the components of the element (its
//! mask), so for `TEXCOORD1` in `o1.zw` component 0 is `o1.z`. An entry without a semantic is
//! a gap: it skips `count` components (more than 4 allowed) of its buffer. Byte offsets are
//! packed as D3D packs them: an entry's offset is the sum of the components, times 4 bytes, of
//! the entries before it in the same output slot.
//!
//! Lowering: every captured entry gets its own Output variable (a vector of its component
//! count, the element's component type) decorated `XfbBuffer` (the slot), `XfbStride` (the
//! slot's stride), `Offset` (its byte offset), and, in a geometry shader with several
//! streams, `Stream`; the module declares `Capability TransformFeedback` and `ExecutionMode
//! Xfb`. The values are copied into these variables from the registers just before a
//! geometry shader emits a vertex to the entry's stream, and at the end of a vertex or
//! domain shader. These variables take the Locations after the shader's highest output
//! register, so they never collide with the outputs the next stage reads.
//!
//! The rasterized stream: Vulkan rasterizes the stream of the pipeline's
//! `rasterizationStream` (VK_EXT_transform_feedback; 0 by default, another stream needs the
//! `geometryStreams` feature and the `transformFeedbackRasterizationStreamSelect` property).
//! The translator gives the rasterized stream's registers the Output variables the next
//! stage reads (Location = register, and the built-ins); the application must set the same
//! stream as `rasterizationStream`. `rasterized_stream: None` is D3D's
//! `D3D11_SO_NO_RASTERIZED_STREAM`: the module is the one for stream 0, and the application
//! disables rasterization (`rasterizerDiscardEnable`).
//!
//! Registers of the other streams have no Output variable of their own (see
//! [`super::geometry`]): when an entry captures one, the register is held in a Private
//! variable, written by the program and copied out at `emit_stream`. Registers of a stream
//! that no entry captures and that is not rasterized are still not stored.

use crate::fast_hash::HashMap;
use spirv::{Capability, Decoration, ExecutionMode, StorageClass, Word};

use super::emitter::{Emitter, Val};
use super::io::Slot;
use super::module::{built, Scalar};
use crate::container::ComponentType;
use crate::error::{Error, Location, Result};
use crate::ir::{Declaration, RegisterKind, Stage};

/// One `D3D11_SO_DECLARATION_ENTRY`: a run of components of one output element, or a gap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamOutputEntry {
    /// The geometry-shader stream (0–3; 0 for vertex and domain shaders).
    pub stream: u32,
    /// The semantic name of the output element (compared case-insensitively); `None` for a
    /// gap that skips `component_count` components of the buffer.
    pub semantic_name: Option<String>,
    /// The semantic index of the output element.
    pub semantic_index: u32,
    /// The first captured component, counted in the element's components (0–3).
    pub start_component: u8,
    /// How many components are captured (1–4; a gap may skip more).
    pub component_count: u8,
    /// The output slot, i.e. the transform-feedback buffer (0–3).
    pub output_slot: u32,
}

/// The stream-output layout of a shader, as a D3D application gives it when it creates the
/// shader (`CreateGeometryShaderWithStreamOutput`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamOutput {
    /// The captured components, in buffer order within each slot.
    pub entries: Vec<StreamOutputEntry>,
    /// The vertex stride in bytes of each output slot; 0 means the packed size of the slot's
    /// entries.
    pub strides: [u32; 4],
    /// The stream that is rasterized: `Some(0)` (the default, and Vulkan's default
    /// `rasterizationStream`), another stream the geometry shader declares (the pipeline's
    /// `rasterizationStream` must then be the same), or `None` for no rasterization (see the
    /// module documentation).
    pub rasterized_stream: Option<u32>,
}

impl Default for StreamOutput {
    fn default() -> Self {
        StreamOutput {
            entries: Vec::new(),
            strides: [0; 4],
            rasterized_stream: Some(0),
        }
    }
}

impl StreamOutputEntry {
    /// A short description for error messages: `stream 1 TEXCOORD2` or `stream 0 gap`.
    pub fn describe(&self) -> String {
        match &self.semantic_name {
            Some(name) => format!("stream {} {name}{}", self.stream, self.semantic_index),
            None => format!("stream {} gap", self.stream),
        }
    }
}

impl StreamOutput {
    /// The vertex stride in bytes of output `slot`: the given one, or the packed size of
    /// the slot's entries when it is 0.
    pub fn stride(&self, slot: u32) -> u32 {
        match self.strides.get(slot as usize) {
            Some(&stride) if stride != 0 => stride,
            _ => self
                .entries
                .iter()
                .filter(|e| e.output_slot == slot)
                .map(|e| u32::from(e.component_count) * 4)
                .sum(),
        }
    }

    /// Reads the JSON form of `--stream-output` (described in `docs/stream-output.md`):
    /// `{"entries": [{"stream": 1, "semantic": "TEXCOORD", "index": 0, "start": 0,
    /// "count": 4, "slot": 0}, {"count": 2, "slot": 0}], "strides": [24],
    /// "rasterized_stream": 0}`. Omitted fields are 0 (`count` is required; an entry without
    /// `semantic` is a gap; `rasterized_stream` is 0 when absent and none when `null`).
    pub fn from_json(text: &str) -> Result<Self> {
        let bad = |m: String| Error::new(Location::None, format!("stream output: {m}"));
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("expected an object".into()))?;
        for key in object.keys() {
            if !matches!(key.as_str(), "entries" | "strides" | "rasterized_stream") {
                return Err(bad(format!("unknown key \"{key}\"")));
            }
        }
        let mut output = StreamOutput::default();
        if let Some(entries) = object.get("entries") {
            let entries = entries
                .as_array()
                .ok_or_else(|| bad("entries must be an array".into()))?;
            for (i, entry) in entries.iter().enumerate() {
                output
                    .entries
                    .push(parse_entry(entry).map_err(|m| bad(format!("entries[{i}]: {m}")))?);
            }
        }
        if let Some(strides) = object.get("strides") {
            let strides = strides
                .as_array()
                .filter(|s| s.len() <= 4)
                .ok_or_else(|| bad("strides must be an array of at most 4 numbers".into()))?;
            for (i, stride) in strides.iter().enumerate() {
                output.strides[i] = stride
                    .as_u64()
                    .and_then(|s| u32::try_from(s).ok())
                    .ok_or_else(|| bad(format!("strides[{i}] must be a number of bytes")))?;
            }
        }
        match object.get("rasterized_stream") {
            None => {}
            Some(serde_json::Value::Null) => output.rasterized_stream = None,
            Some(v) => {
                output.rasterized_stream = Some(
                    v.as_u64()
                        .filter(|&s| s <= 3)
                        .ok_or_else(|| bad("rasterized_stream must be 0-3 or null".into()))?
                        as u32,
                )
            }
        }
        Ok(output)
    }
}

fn parse_entry(value: &serde_json::Value) -> std::result::Result<StreamOutputEntry, String> {
    let object = value.as_object().ok_or("expected an object")?;
    for key in object.keys() {
        if !matches!(
            key.as_str(),
            "stream" | "semantic" | "index" | "start" | "count" | "slot"
        ) {
            return Err(format!("unknown key \"{key}\""));
        }
    }
    let number = |key: &str, default: Option<u64>| -> std::result::Result<u64, String> {
        match object.get(key) {
            None => default.ok_or(format!("\"{key}\" is required")),
            Some(v) => v
                .as_u64()
                .filter(|&n| n <= u64::from(u8::MAX) || key == "index")
                .ok_or(format!("\"{key}\" must be a small number")),
        }
    };
    let semantic_name = match object.get("semantic") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(
            v.as_str()
                .ok_or("\"semantic\" must be a string")?
                .to_string(),
        ),
    };
    Ok(StreamOutputEntry {
        stream: number("stream", Some(0))? as u32,
        semantic_name,
        semantic_index: u32::try_from(number("index", Some(0))?)
            .map_err(|_| "\"index\" is too large")?,
        start_component: number("start", Some(0))? as u8,
        component_count: number("count", None)? as u8,
        output_slot: number("slot", Some(0))? as u32,
    })
}

/// One captured entry, resolved against the output signature.
#[derive(Debug, Clone)]
struct Capture {
    /// The entry's stream.
    stream: u32,
    /// The component type of the element.
    scalar: Scalar,
    /// The captured (register, component) pairs, in order.
    sources: Vec<(u32, u8)>,
    /// The Output variable.
    var: Word,
}

/// State of the stream-output lowering.
#[derive(Debug, Default)]
pub struct StreamOutputState {
    /// The captured entries.
    captures: Vec<Capture>,
    /// Private copies of registers of the streams that are not rasterized by (register, component).
    shadows: HashMap<(u32, u8), Slot>,
}

impl StreamOutputState {
    /// Whether stream output captures anything (it then reads the outputs back).
    pub fn captures_any(&self) -> bool {
        !self.captures.is_empty()
    }
}

impl Emitter<'_> {
    /// Resolves the stream-output layout against the output signature and declares the
    /// capture variables (after the declarations, before any code).
    pub fn stream_output_setup(&mut self) -> Result<()> {
        let Some(so) = self.options.stream_output.as_ref() else {
            return Ok(());
        };
        let stage = self.program.model.stage;
        let bad = |m: String| Error::new(Location::None, format!("stream output: {m}"));
        if !matches!(stage, Stage::Vertex | Stage::Domain | Stage::Geometry) {
            return Err(bad(format!(
                "a {} shader has no stream output (only vertex, domain and geometry shaders do)",
                stage.prefix()
            )));
        }
        let mut streams: Vec<u32> = self
            .program
            .instructions
            .iter()
            .filter_map(|i| match &i.declaration {
                Some(Declaration::Stream(operand)) => {
                    self.operand(*operand).indices().first()?.as_imm32()
                }
                _ => None,
            })
            .collect();
        if streams.is_empty() {
            streams.push(0);
        }
        if let Some(s) = so.rasterized_stream {
            if !streams.contains(&s) {
                return Err(bad(format!(
                    "the rasterized stream is {s}, but the {} shader declares no stream {s}",
                    stage.prefix()
                )));
            }
        }
        let signature = self.reflection.output.as_ref();
        // (entry index, stream, slot, offset, scalar, sources) of the captured entries.
        let mut resolved = Vec::new();
        let mut packed = [0u32; 4];
        let mut slot_stream: [Option<u32>; 4] = [None; 4];
        for (i, entry) in so.entries.iter().enumerate() {
            let at = |m: String| bad(format!("entry {i} ({}): {m}", entry.describe()));
            if entry.stream > 3 || entry.output_slot > 3 {
                return Err(at("stream and output slot must be 0 to 3".into()));
            }
            if !streams.contains(&entry.stream) {
                return Err(at(format!(
                    "the {} shader declares no stream {}",
                    stage.prefix(),
                    entry.stream
                )));
            }
            let slot = entry.output_slot as usize;
            match slot_stream[slot] {
                Some(s) if s != entry.stream => {
                    return Err(at(format!(
                        "output slot {slot} already holds stream {s} (a buffer takes one stream)"
                    )))
                }
                _ => slot_stream[slot] = Some(entry.stream),
            }
            let count = u32::from(entry.component_count);
            if count == 0 {
                return Err(at("the component count is 0".into()));
            }
            let offset = packed[slot] * 4;
            packed[slot] += count;
            let Some(name) = &entry.semantic_name else {
                continue;
            };
            let element = signature
                .and_then(|s| {
                    s.elements.iter().find(|e| {
                        e.stream == entry.stream
                            && e.semantic_index == entry.semantic_index
                            && e.semantic_name.eq_ignore_ascii_case(name)
                    })
                })
                .ok_or_else(|| {
                    at(format!(
                        "the output signature has no {name}{} in stream {}",
                        entry.semantic_index, entry.stream
                    ))
                })?;
            if element.register == u32::MAX {
                return Err(at("the element has no register".into()));
            }
            let components: Vec<u8> = (0..4u8).filter(|c| element.mask & (1 << c) != 0).collect();
            let start = usize::from(entry.start_component);
            if start + count as usize > components.len() || count > 4 {
                return Err(at(format!(
                    "components {start} to {} are out of range: the element has {} ({})",
                    start + count as usize - 1,
                    components.len(),
                    components
                        .iter()
                        .map(|&c| ['x', 'y', 'z', 'w'][c as usize])
                        .collect::<String>()
                )));
            }
            let scalar = match element.component_type {
                ComponentType::Uint32 => Scalar::U32,
                ComponentType::Sint32 => Scalar::I32,
                _ => Scalar::F32,
            };
            let sources = components[start..start + count as usize]
                .iter()
                .map(|&c| (element.register, c))
                .collect();
            resolved.push((i, entry.stream, slot, offset, scalar, sources));
        }
        let mut strides = [0u32; 4];
        for slot in 0..4 {
            let given = so.strides[slot];
            strides[slot] = if given == 0 { packed[slot] * 4 } else { given };
            if given != 0 && (given % 4 != 0 || given < packed[slot] * 4) {
                return Err(bad(format!(
                    "the stride of output slot {slot} is {given} bytes; it must be a multiple \
                     of 4 and hold the slot's {} bytes",
                    packed[slot] * 4
                )));
            }
        }
        if resolved.is_empty() {
            return Ok(());
        }
        self.m.capability(Capability::TransformFeedback);
        self.add_mode(ExecutionMode::Xfb);
        // The capture variables' Locations start after every output register.
        let first_location = signature
            .iter()
            .flat_map(|s| s.elements.iter())
            .filter(|e| e.register != u32::MAX)
            .map(|e| e.register + 1)
            .chain(
                self.io
                    .slots
                    .keys()
                    .filter(|(k, _, _)| *k == RegisterKind::Output as u8)
                    .map(|&(_, r, _)| r + 1),
            )
            .chain(self.io.stage.stream_outputs.iter().map(|&(_, r, _)| r + 1))
            .chain(std::iter::once(self.placed_outputs_end()))
            .max()
            .unwrap_or(0);
        let decorate_stream = stage == Stage::Geometry && self.io.stage.multi_stream;
        let mut captures = Vec::new();
        for (n, (i, stream, slot, offset, scalar, sources)) in resolved.into_iter().enumerate() {
            let sources: Vec<(u32, u8)> = sources;
            for &(register, component) in &sources {
                self.stream_output_source(i, stream, register, component)?;
            }
            let var = self.io_global(
                StorageClass::Output,
                scalar,
                sources.len() as u32,
                None,
                format_args!("xfb{i}"),
            );
            self.decorate(var, Decoration::Location, &[first_location + n as u32]);
            self.decorate(var, Decoration::XfbBuffer, &[slot as u32]);
            self.decorate(var, Decoration::XfbStride, &[strides[slot]]);
            self.decorate(var, Decoration::Offset, &[offset]);
            if decorate_stream {
                self.decorate(var, Decoration::Stream, &[stream]);
            }
            captures.push(Capture {
                stream,
                scalar,
                sources,
                var,
            });
        }
        self.io.stage.xfb.captures = captures;
        Ok(())
    }

    /// Checks that a captured register component can be read at emit time, giving registers
    /// of the streams that are not rasterized their Private copy.
    fn stream_output_source(
        &mut self,
        entry: usize,
        stream: u32,
        register: u32,
        component: u8,
    ) -> Result<()> {
        let key = (RegisterKind::Output as u8, register, component);
        if stream == self.rasterized_stream() {
            if self.io.slots.contains_key(&key) {
                return Ok(());
            }
            return Err(Error::new(
                Location::None,
                format!(
                    "stream output: entry {entry}: o{register} component {component} is not \
                     declared by the shader"
                ),
            ));
        }
        let declared = self
            .io
            .stage
            .stream_outputs
            .iter()
            .any(|&(s, r, mask)| s == stream && r == register && mask & (1 << component) != 0);
        if !declared {
            return Err(Error::new(
                Location::None,
                format!(
                    "stream output: entry {entry}: o{register} component {component} is not \
                     declared in stream {stream}"
                ),
            ));
        }
        if self.io.slots.contains_key(&key)
            || self
                .io
                .stage
                .xfb
                .shadows
                .contains_key(&(register, component))
        {
            // Stream 0 has an Output variable for it, or another entry made the copy.
            return Ok(());
        }
        let scalar = Scalar::U32;
        let var = self.io_global(
            StorageClass::Private,
            scalar,
            4,
            None,
            format_args!("o{register}_streams"),
        );
        for c in 0..4u8 {
            let slot = Slot {
                var,
                class: StorageClass::Private,
                scalar,
                count: 4,
                index: Some(u32::from(c)),
            };
            self.io
                .stage
                .xfb
                .shadows
                .entry((register, c))
                .or_insert(slot);
        }
        Ok(())
    }

    /// The stream whose registers get the Output variables the next stage reads: the
    /// rasterized stream of the stream-output layout, else 0.
    pub fn rasterized_stream(&self) -> u32 {
        self.options
            .stream_output
            .as_ref()
            .and_then(|so| so.rasterized_stream)
            .unwrap_or(0)
    }

    /// The Private copy of a register of a stream that is not rasterized that stream output captures.
    pub fn stream_output_shadow(&self, register: u32, component: u8) -> Option<Slot> {
        self.io
            .stage
            .xfb
            .shadows
            .get(&(register, component))
            .copied()
    }

    /// Copies the registers into the capture variables of `stream` (all of them for `None`,
    /// at the end of a vertex or domain shader).
    pub fn stream_output_copy(&mut self, stream: Option<u32>) -> Result<()> {
        let captures: Vec<Capture> = self
            .io
            .stage
            .xfb
            .captures
            .iter()
            .filter(|c| stream.is_none_or(|s| s == c.stream))
            .cloned()
            .collect();
        for capture in captures {
            let count = capture.sources.len() as u32;
            for (i, &(register, component)) in capture.sources.iter().enumerate() {
                let key = (RegisterKind::Output as u8, register, component);
                let slot = match self.io.slots.get(&key) {
                    Some(&slot) => slot,
                    None => self
                        .stream_output_shadow(register, component)
                        .ok_or_else(|| {
                            self.err(format!("o{register} component {component} has no storage"))
                        })?,
                };
                let pointer = self.slot_pointer(slot)?;
                let ty = self.m.scalar(slot.scalar);
                let id = built(self.m.load(ty, pointer))?;
                let value = self.cast(
                    Val {
                        id,
                        scalar: slot.scalar,
                        count: 1,
                    },
                    capture.scalar,
                )?;
                let target = if count == 1 {
                    capture.var
                } else {
                    let element = self.m.scalar(capture.scalar);
                    let pointer = self.m.pointer(StorageClass::Output, element);
                    let index = self.m.constant_u32(i as u32);
                    built(self.m.access_chain(pointer, capture.var, &[index]))?
                };
                built(self.m.store(target, value.id))?;
            }
        }
        Ok(())
    }
}
