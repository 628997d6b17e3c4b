//! `[test]` section commands.

use super::condition::{read_mark, EvalContext, Mark, MarkKind};
use super::resource::{read_comparison, Comparison, ResourceKind};
use super::scan::Scanner;
use dxbc2spirv::Result;

/// A resource named in a command, e.g. `rtv 0`, `uav 1`, `dsv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceRef {
    /// The kind of resource.
    pub kind: ResourceKind,
    /// Its slot (0 for `dsv`).
    pub slot: u32,
}

/// Values written by a `uniform` command.
#[derive(Debug, Clone, PartialEq)]
pub enum UniformValues {
    /// `float` / `float4`.
    Float(Vec<f32>),
    /// `double2`.
    Double(Vec<f64>),
    /// `int` / `int4`.
    Int(Vec<i32>),
    /// `uint` / `uint4`.
    Uint(Vec<u32>),
    /// `int64_t2`.
    Int64(Vec<i64>),
    /// `uint64_t2`.
    Uint64(Vec<u64>),
}

impl UniformValues {
    /// The little-endian 32-bit words written to the constant buffer.
    pub fn words(&self) -> Vec<u32> {
        match self {
            UniformValues::Float(v) => v.iter().map(|f| f.to_bits()).collect(),
            UniformValues::Int(v) => v.iter().map(|&i| i as u32).collect(),
            UniformValues::Uint(v) => v.clone(),
            UniformValues::Double(v) => v.iter().flat_map(|d| split64(d.to_bits())).collect(),
            UniformValues::Int64(v) => v.iter().flat_map(|&i| split64(i as u64)).collect(),
            UniformValues::Uint64(v) => v.iter().flat_map(|&u| split64(u)).collect(),
        }
    }
}

fn split64(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// Expected values of a probe.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeValues {
    /// `rgba(...)` / `f32(...)`: 1, 2 or 4 floats.
    F32(Vec<f32>),
    /// `f64(...)`: 1 or 2 doubles.
    F64(Vec<f64>),
    /// `u32(...)`: 1 or 4 values.
    U32(Vec<u32>),
    /// `i32(...)`: 1 or 4 values.
    I32(Vec<i32>),
    /// `u64(...)`: 1 or 2 values.
    U64(Vec<u64>),
    /// `i64(...)`: 1 or 2 values.
    I64(Vec<i64>),
}

/// The area a probe reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeArea {
    /// `(x)`: one element of a buffer (y = 0).
    Element(u32),
    /// `(x, y)`: one texel.
    Point {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
    /// `(x, y, layer)`: one texel of an array layer.
    Layer {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// Array layer.
        layer: u32,
    },
    /// `(left, top, right, bottom)`: a rectangle, right/bottom exclusive (as shader_runner's
    /// `set_rect`); the corpus only uses it with a zero origin, where it is also (x, y, w, h).
    Rect {
        /// Left column.
        left: i32,
        /// Top row.
        top: i32,
        /// Right column (exclusive).
        right: i32,
        /// Bottom row (exclusive).
        bottom: i32,
    },
}

/// A `probe` command.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The resource read; `None` means render target 0.
    pub resource: Option<ResourceRef>,
    /// Where to read.
    pub area: ProbeArea,
    /// What is expected.
    pub values: ProbeValues,
    /// Allowed error in units in the last place (float probes; 0 when absent).
    pub ulp: u32,
}

/// A primitive topology of a `draw` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topology {
    /// `triangle list`
    TriangleList,
    /// `triangle strip`
    TriangleStrip,
    /// `point list`
    PointList,
    /// `line list`
    LineList,
    /// `line strip`
    LineStrip,
    /// `N control point patch list`
    PatchList(u32),
}

/// One `[test]` command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `uniform <offset> <type> <values…>`: offset in 32-bit words of constant buffer 0.
    /// Missing integer values are 0, as in shader_runner. This project's extension
    /// `uniform cb<N> <offset> <type> <values…>` writes constant buffer `N` of space 0
    /// instead (e.g. `cb15`, the class-linkage instance data).
    Uniform {
        /// The constant-buffer register (0 unless `cb<N>` is given).
        buffer: u32,
        /// Offset in 32-bit words.
        offset: u32,
        /// The type name as written (`float4`, `uint`, …).
        type_name: String,
        /// The values.
        values: UniformValues,
    },
    /// `draw quad`: the runner's full-screen triangle with the default vertex shader.
    DrawQuad,
    /// `draw <topology> <vertex count> [instance count]`.
    Draw {
        /// Topology.
        topology: Topology,
        /// Vertex count.
        vertex_count: u32,
        /// Instance count (1 when absent).
        instance_count: u32,
    },
    /// `dispatch x y z`.
    Dispatch {
        /// Groups in x.
        x: u32,
        /// Groups in y.
        y: u32,
        /// Groups in z.
        z: u32,
    },
    /// `probe …`.
    Probe(Probe),
    /// `probe so SLOT (VERTEX[, WORD]) TYPE(values)`, this project's extension: the values
    /// of a stream-output buffer from 32-bit word WORD (default 0) of captured vertex VERTEX.
    ProbeStreamOutput {
        /// The output slot.
        slot: u32,
        /// The captured vertex (its offset is VERTEX times the slot's stride).
        vertex: u32,
        /// The 32-bit word inside the vertex where the values start.
        word: u32,
        /// The expected values.
        values: ProbeValues,
        /// Allowed ULPs for floats.
        ulp: u32,
    },
    /// `clear rtv N r g b a` / `clear dsv d` (also with an `f32(...)` literal).
    Clear {
        /// The target cleared.
        target: ResourceRef,
        /// The clear values.
        values: Vec<f32>,
    },
    /// `copy <src> <dst>`.
    Copy {
        /// Source resource.
        src: ResourceRef,
        /// Destination resource.
        dst: ResourceRef,
    },
    /// `depth <func>`: the depth test function.
    Depth(Comparison),
    /// `depth-bounds min max`.
    DepthBounds {
        /// Minimum depth.
        min: f32,
        /// Maximum depth.
        max: f32,
    },
    /// `sample mask N`: the pipeline's sample mask of later draws (C integer syntax; all
    /// ones until set).
    SampleMask(u32),
    /// `stencil FUNC PASS-OP REF [fail OP] [depth-fail OP] [read-mask M] [write-mask M]` or
    /// `stencil off`, this project's extension: the stencil test of later draws (`None`:
    /// off). Its target is a `[dsv]` with `format d32-float-s8-uint`.
    Stencil(Option<StencilState>),
    /// `probe dsv stencil (x, y) u32(N)`, this project's extension: the stencil value of a
    /// texel of the depth-stencil target.
    ProbeStencil {
        /// Where to read.
        area: ProbeArea,
        /// The expected stencil value (`u32(N)`, N from 0 to 255).
        values: ProbeValues,
    },
    /// `blend SRC DST` or `blend off`, this project's extension: additive blending
    /// `src · SRC + dst · DST` of color and alpha of later draws (`None`: off). Factors:
    /// `zero`, `one`, `src-color`, `one-minus-src-color`, `src-alpha`,
    /// `one-minus-src-alpha`, `src1-color`, `one-minus-src1-color`, `src1-alpha`,
    /// `one-minus-src1-alpha` (the `src1` ones read the second color of dual-source
    /// blending), `dst-color`.
    Blend(Option<(String, String)>),
    /// Any other command (e.g. `alpha test`, `viewport`, `shade mode`,
    /// `point-size`), kept verbatim without its prefixes so a runner can
    /// report it as unsupported.
    Other(String),
}

/// What a stencil test does to the stored value (D3D's stencil ops).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StencilOpName {
    /// `keep`
    Keep,
    /// `zero`
    Zero,
    /// `replace`: with the reference (a pixel shader's `SV_StencilRef` when it writes one).
    Replace,
    /// `incr-sat`
    IncrSat,
    /// `decr-sat`
    DecrSat,
    /// `invert`
    Invert,
    /// `incr` (wraps)
    Incr,
    /// `decr` (wraps)
    Decr,
}

/// A `stencil` command's test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StencilState {
    /// The comparison of the reference with the stored value.
    pub compare: Comparison,
    /// The op when both tests pass.
    pub pass: StencilOpName,
    /// The op when the stencil test fails (`keep` unless given).
    pub fail: StencilOpName,
    /// The op when the depth test fails (`keep` unless given).
    pub depth_fail: StencilOpName,
    /// The pipeline's reference value.
    pub reference: u32,
    /// The bits compared (0xff unless given).
    pub read_mask: u32,
    /// The bits written (0xff unless given).
    pub write_mask: u32,
}

fn read_stencil_op(s: &mut Scanner<'_>) -> Result<StencilOpName> {
    const NAMES: [(&str, StencilOpName); 8] = [
        ("keep", StencilOpName::Keep),
        ("zero", StencilOpName::Zero),
        ("replace", StencilOpName::Replace),
        ("incr-sat", StencilOpName::IncrSat),
        ("decr-sat", StencilOpName::DecrSat),
        ("invert", StencilOpName::Invert),
        ("incr", StencilOpName::Incr),
        ("decr", StencilOpName::Decr),
    ];
    for (name, op) in NAMES {
        if s.eat_word(name) {
            return Ok(op);
        }
    }
    Err(s.error("unknown stencil op (keep, zero, replace, incr-sat, decr-sat, invert, incr, decr)"))
}

/// Reads the rest of a `stencil` command after its comparison.
fn read_stencil(s: &mut Scanner<'_>, compare: Comparison) -> Result<StencilState> {
    let pass = read_stencil_op(s)?;
    let reference = s.c_u32()?;
    let mut state = StencilState {
        compare,
        pass,
        fail: StencilOpName::Keep,
        depth_fail: StencilOpName::Keep,
        reference,
        read_mask: 0xff,
        write_mask: 0xff,
    };
    while !s.at_end() {
        if s.eat_word("fail") {
            state.fail = read_stencil_op(s)?;
        } else if s.eat_word("depth-fail") {
            state.depth_fail = read_stencil_op(s)?;
        } else if s.eat_word("read-mask") {
            state.read_mask = s.c_u32()?;
        } else if s.eat_word("write-mask") {
            state.write_mask = s.c_u32()?;
        } else {
            return Err(s.error("expected fail, depth-fail, read-mask or write-mask"));
        }
    }
    Ok(state)
}

/// One `[test]` line: prefixes plus a command.
#[derive(Debug, Clone, PartialEq)]
pub struct TestLine {
    /// 1-based line number in the file.
    pub line: u32,
    /// `todo(...)`, `bug(...)`, `if(...)`, `fail(...)`, `winbug(...)` prefixes in order.
    pub marks: Vec<Mark>,
    /// The command.
    pub command: Command,
    /// The whole line as written (without the newline).
    pub text: String,
}

impl TestLine {
    /// True when every `if(...)` prefix holds in `ctx` (shader_runner skips the line
    /// otherwise).
    pub fn runs(&self, ctx: &EvalContext<'_>) -> bool {
        self.marks
            .iter()
            .filter(|m| m.kind == MarkKind::If)
            .all(|m| m.applies(ctx))
    }

    /// True when a `todo` prefix applies in `ctx` (a failure is expected).
    pub fn is_todo(&self, ctx: &EvalContext<'_>) -> bool {
        self.marks
            .iter()
            .any(|m| m.kind == MarkKind::Todo && m.applies(ctx))
    }

    /// True when a `bug` prefix applies in `ctx` (a known driver bug).
    pub fn is_bug(&self, ctx: &EvalContext<'_>) -> bool {
        self.marks
            .iter()
            .any(|m| m.kind == MarkKind::Bug && m.applies(ctx))
    }
}

/// Parses one `[test]` line.
/// The blend factors of `blend SRC DST`.
pub const BLEND_FACTORS: &[&str] = &[
    "zero",
    "one",
    "src-color",
    "one-minus-src-color",
    "src-alpha",
    "one-minus-src-alpha",
    "src1-color",
    "one-minus-src1-color",
    "src1-alpha",
    "one-minus-src1-alpha",
    "dst-color",
];

pub(crate) fn parse_test_line(text: &str, line: u32) -> Result<TestLine> {
    // `%` starts a comment that runs to the end of the line.
    let code = text.split('%').next().unwrap_or("");
    let mut s = Scanner::new(code, line);
    let mut marks = Vec::new();
    while let Some(mark) = read_mark(&mut s)? {
        marks.push(mark);
    }
    let command = parse_command(&mut s)?;
    Ok(TestLine {
        line,
        marks,
        command,
        text: text.to_string(),
    })
}

/// Ends a command. Like shader_runner, text after a complete command is ignored (the
/// corpus uses it for `# ...` notes); [`TestLine::text`] still has it.
fn finish(_s: &Scanner<'_>, command: Command) -> Result<Command> {
    Ok(command)
}

fn parse_command(s: &mut Scanner<'_>) -> Result<Command> {
    let start = s.rest().trim().to_string();
    if s.eat_word("dispatch") {
        let x = s.decimal_u32()?;
        let y = s.decimal_u32()?;
        let z = s.decimal_u32()?;
        return finish(s, Command::Dispatch { x, y, z });
    }
    if s.eat_word("clear") {
        let target = read_resource_ref(s)?.ok_or_else(|| s.error("expected a resource"))?;
        let values = match read_literal(s)? {
            Some(ProbeValues::F32(v)) => v,
            Some(_) => return Err(s.error("clear values must be floats")),
            None => {
                let mut v = Vec::new();
                while !s.at_end() && !s.rest().trim_start().starts_with('%') {
                    v.push(s.c_f32()?);
                }
                v
            }
        };
        return finish(s, Command::Clear { target, values });
    }
    if s.eat_word("blend") {
        if s.eat_word("off") {
            return finish(s, Command::Blend(None));
        }
        let factor = |s: &mut Scanner<'_>| -> Result<String> {
            let word = s.word().ok_or_else(|| s.error("expected a blend factor"))?;
            if BLEND_FACTORS.contains(&word) {
                Ok(word.to_string())
            } else {
                Err(s.error(format!(
                    "unknown blend factor {word} (known: {})",
                    BLEND_FACTORS.join(", ")
                )))
            }
        };
        let src = factor(s)?;
        let dst = factor(s)?;
        return finish(s, Command::Blend(Some((src, dst))));
    }
    if s.eat_word("depth-bounds") {
        let min = s.c_f32()?;
        let max = s.c_f32()?;
        return finish(s, Command::DepthBounds { min, max });
    }
    if s.eat_words("sample mask") {
        let mask = s.c_u32()?;
        return finish(s, Command::SampleMask(mask));
    }
    if s.eat_word("depth") {
        let cmp = read_comparison(s)?;
        return finish(s, Command::Depth(cmp));
    }
    if s.eat_words("draw quad") {
        return finish(s, Command::DrawQuad);
    }
    if s.eat_word("draw") {
        let topology = read_topology(s)?;
        let vertex_count = s.decimal_u32()?;
        let instance_count = if s.at_end() { 1 } else { s.decimal_u32()? };
        return finish(
            s,
            Command::Draw {
                topology,
                vertex_count,
                instance_count,
            },
        );
    }
    if s.eat_word("copy") {
        let src = read_resource_ref(s)?.ok_or_else(|| s.error("expected a source resource"))?;
        let dst =
            read_resource_ref(s)?.ok_or_else(|| s.error("expected a destination resource"))?;
        return finish(s, Command::Copy { src, dst });
    }
    if s.eat_word("stencil") {
        if s.eat_word("off") {
            return finish(s, Command::Stencil(None));
        }
        let mut probe = s.clone();
        if let Ok(compare) = read_comparison(&mut probe) {
            *s = probe;
            let state = read_stencil(s, compare)?;
            return finish(s, Command::Stencil(Some(state)));
        }
        return Ok(Command::Other(start));
    }
    if s.eat_words("probe dsv stencil") {
        let area = read_area(s)?;
        let values = match read_literal(s)? {
            Some(ProbeValues::U32(v)) if v.len() == 1 => ProbeValues::U32(v),
            _ => return Err(s.error("a stencil probe expects u32(N)")),
        };
        return finish(s, Command::ProbeStencil { area, values });
    }
    if s.eat_words("probe so") {
        let slot = s.decimal_u32()?;
        let (vertex, word) = match read_area(s)? {
            ProbeArea::Element(vertex) => (vertex, 0),
            ProbeArea::Point { x, y } => (x, y),
            _ => return Err(s.error("expected (vertex) or (vertex, word)")),
        };
        let values = read_literal(s)?.ok_or_else(|| s.error("expected a probe literal"))?;
        let ulp = if matches!(values, ProbeValues::F32(_) | ProbeValues::F64(_)) {
            s.decimal_u32().unwrap_or(0)
        } else {
            0
        };
        return finish(
            s,
            Command::ProbeStreamOutput {
                slot,
                vertex,
                word,
                values,
                ulp,
            },
        );
    }
    if s.eat("probe") {
        let resource = read_resource_ref(s)?;
        let area = read_area(s)?;
        let values = read_literal(s)?.ok_or_else(|| s.error("expected a probe literal"))?;
        // As in shader_runner, anything that is not a number after a float literal means 0.
        let ulp = if matches!(values, ProbeValues::F32(_) | ProbeValues::F64(_)) {
            s.decimal_u32().unwrap_or(0)
        } else {
            0
        };
        return finish(
            s,
            Command::Probe(Probe {
                resource,
                area,
                values,
                ulp,
            }),
        );
    }
    if s.eat_word("uniform") {
        let buffer = if s.eat("cb") { s.decimal_u32()? } else { 0 };
        let offset = s.decimal_u32()?;
        let type_name = s
            .word()
            .ok_or_else(|| s.error("missing uniform type"))?
            .to_string();
        let (count, values) = match type_name.as_str() {
            "float" => (1, UniformValues::Float(Vec::new())),
            "float4" => (4, UniformValues::Float(Vec::new())),
            "double2" => (2, UniformValues::Double(Vec::new())),
            "int" => (1, UniformValues::Int(Vec::new())),
            "int4" => (4, UniformValues::Int(Vec::new())),
            "uint" => (1, UniformValues::Uint(Vec::new())),
            "uint4" => (4, UniformValues::Uint(Vec::new())),
            "int64_t2" => (2, UniformValues::Int64(Vec::new())),
            "uint64_t2" => (2, UniformValues::Uint64(Vec::new())),
            _ => return Err(s.error(format!("unknown uniform type '{type_name}'"))),
        };
        let mut values = values;
        for _ in 0..count {
            // shader_runner's integer readers do not notice a missing value and write 0.
            let missing = s.at_end();
            match &mut values {
                UniformValues::Int(v) if missing => v.push(0),
                UniformValues::Uint(v) if missing => v.push(0),
                UniformValues::Int64(v) if missing => v.push(0),
                UniformValues::Uint64(v) if missing => v.push(0),
                UniformValues::Float(v) => v.push(s.c_f32()?),
                UniformValues::Double(v) => v.push(s.c_f64()?),
                UniformValues::Int(v) => v.push(s.c_i32()?),
                UniformValues::Uint(v) => v.push(s.c_u32()?),
                UniformValues::Int64(v) => v.push(s.c_i64()?),
                UniformValues::Uint64(v) => v.push(s.c_u64()?),
            }
        }
        return finish(
            s,
            Command::Uniform {
                buffer,
                offset,
                type_name,
                values,
            },
        );
    }
    Ok(Command::Other(start))
}

fn read_topology(s: &mut Scanner<'_>) -> Result<Topology> {
    for (words, topology) in [
        ("triangle list", Topology::TriangleList),
        ("triangle strip", Topology::TriangleStrip),
        ("point list", Topology::PointList),
        ("line list", Topology::LineList),
        ("line strip", Topology::LineStrip),
    ] {
        if s.eat_words(words) {
            return Ok(topology);
        }
    }
    let mut probe = s.clone();
    if let Ok(n) = probe.decimal_u32() {
        if probe.eat_words("control point patch list") && (1..=32).contains(&n) {
            *s = probe;
            return Ok(Topology::PatchList(n));
        }
    }
    Err(s.error("unknown primitive topology"))
}

/// Reads `rtv N`, `rtv-N`, `srv N`, `uav N`, `vb N` or `dsv`, if present.
fn read_resource_ref(s: &mut Scanner<'_>) -> Result<Option<ResourceRef>> {
    if s.eat_word("dsv") {
        return Ok(Some(ResourceRef {
            kind: ResourceKind::Dsv,
            slot: 0,
        }));
    }
    for (name, kind) in [
        ("rtv", ResourceKind::Rtv),
        ("srv", ResourceKind::Srv),
        ("uav", ResourceKind::Uav),
        ("vb", ResourceKind::Vb),
    ] {
        s.skip_ws();
        let rest = s.rest();
        if let Some(after) = rest.strip_prefix(name) {
            if after.starts_with(|c: char| c.is_whitespace() || c == '-') {
                s.skip_bytes(name.len() + 1);
                let slot = s.decimal_u32()?;
                return Ok(Some(ResourceRef { kind, slot }));
            }
        }
    }
    Ok(None)
}

fn read_area(s: &mut Scanner<'_>) -> Result<ProbeArea> {
    s.require("(")?;
    let mut coords = vec![s.c_integer()?];
    while s.eat(",") {
        coords.push(s.c_integer()?);
    }
    s.require(")")?;
    let u = |v: i128| u32::try_from(v).map_err(|_| s.error("probe coordinate out of range"));
    let i = |v: i128| i32::try_from(v).map_err(|_| s.error("probe coordinate out of range"));
    match *coords.as_slice() {
        [x] => Ok(ProbeArea::Element(u(x)?)),
        [x, y] => Ok(ProbeArea::Point { x: u(x)?, y: u(y)? }),
        [x, y, layer] => Ok(ProbeArea::Layer {
            x: u(x)?,
            y: u(y)?,
            layer: u(layer)?,
        }),
        [left, top, right, bottom] => Ok(ProbeArea::Rect {
            left: i(left)?,
            top: i(top)?,
            right: i(right)?,
            bottom: i(bottom)?,
        }),
        _ => Err(s.error("a probe area has 1 to 4 coordinates")),
    }
}

/// Reads `rgba(...)`, `f32(...)`, `f64(...)`, `u32(...)`, `i32(...)`, `u64(...)` or
/// `i64(...)`, or returns `None` when the text does not start with one of those names.
fn read_literal(s: &mut Scanner<'_>) -> Result<Option<ProbeValues>> {
    let names = ["rgba", "f32", "f64", "u32", "i32", "u64", "i64"];
    let mut found = None;
    for name in names {
        let mut probe = s.clone();
        if probe.eat(name) && probe.eat("(") {
            *s = probe;
            found = Some(name);
            break;
        }
    }
    let Some(name) = found else {
        return Ok(None);
    };
    let mut values = match name {
        "f64" => ProbeValues::F64(Vec::new()),
        "u32" => ProbeValues::U32(Vec::new()),
        "i32" => ProbeValues::I32(Vec::new()),
        "u64" => ProbeValues::U64(Vec::new()),
        "i64" => ProbeValues::I64(Vec::new()),
        _ => ProbeValues::F32(Vec::new()),
    };
    loop {
        match &mut values {
            ProbeValues::F32(v) => v.push(s.c_f32()?),
            ProbeValues::F64(v) => v.push(s.c_f64()?),
            ProbeValues::U32(v) => v.push(s.c_u32()?),
            ProbeValues::I32(v) => v.push(s.c_i32()?),
            ProbeValues::U64(v) => v.push(s.c_u64()?),
            ProbeValues::I64(v) => v.push(s.c_i64()?),
        }
        if !s.eat(",") {
            break;
        }
    }
    s.require(")")?;
    let count = match &values {
        ProbeValues::F32(v) => v.len(),
        ProbeValues::F64(v) => v.len(),
        ProbeValues::U32(v) => v.len(),
        ProbeValues::I32(v) => v.len(),
        ProbeValues::U64(v) => v.len(),
        ProbeValues::I64(v) => v.len(),
    };
    if count > 4 {
        return Err(s.error("a literal has at most 4 values"));
    }
    Ok(Some(values))
}

#[cfg(test)]
mod tests {
    use super::super::condition::ShaderModel;
    use super::*;

    fn cmd(text: &str) -> Command {
        parse_test_line(text, 1).unwrap().command
    }

    #[test]
    fn uniforms() {
        assert_eq!(
            cmd("uniform 0 float4 1.0 -2 3.5 4"),
            Command::Uniform {
                buffer: 0,
                offset: 0,
                type_name: "float4".into(),
                values: UniformValues::Float(vec![1.0, -2.0, 3.5, 4.0]),
            }
        );
        assert_eq!(
            cmd("uniform cb15 8 uint4 1 2 3 4"),
            Command::Uniform {
                buffer: 15,
                offset: 8,
                type_name: "uint4".into(),
                values: UniformValues::Uint(vec![1, 2, 3, 4]),
            }
        );
        assert!(parse_test_line("uniform cb 0 uint 1", 1).is_err());
        let Command::Uniform { values, .. } = cmd("uniform 4 uint 0xffffffff") else {
            panic!()
        };
        assert_eq!(values, UniformValues::Uint(vec![u32::MAX]));
        let Command::Uniform { values, .. } = cmd("uniform 0 double2 1.5 2") else {
            panic!()
        };
        assert_eq!(values.words().len(), 4);
        let Command::Uniform { values, .. } = cmd("uniform 0 int64_t2 -1 5") else {
            panic!()
        };
        assert_eq!(values.words(), vec![u32::MAX, u32::MAX, 5, 0]);
        assert!(parse_test_line("uniform 0 float3 1 2 3", 1).is_err());
        assert!(parse_test_line("uniform 0 int 0xffffffff", 1).is_err());
    }

    #[test]
    fn draws_and_dispatch() {
        assert_eq!(cmd("draw quad"), Command::DrawQuad);
        assert_eq!(
            cmd("draw triangle list 3 4"),
            Command::Draw {
                topology: Topology::TriangleList,
                vertex_count: 3,
                instance_count: 4
            }
        );
        assert_eq!(
            cmd("draw 3 control point patch list 3"),
            Command::Draw {
                topology: Topology::PatchList(3),
                vertex_count: 3,
                instance_count: 1
            }
        );
        assert_eq!(
            cmd("dispatch 4 1 1"),
            Command::Dispatch { x: 4, y: 1, z: 1 }
        );
        assert!(parse_test_line("dispatch 4 1", 1).is_err());
        assert!(parse_test_line("draw hexagon 3", 1).is_err());
    }

    #[test]
    fn probes() {
        let Command::Probe(p) = cmd("probe (0, 0) rgba (0.2, -0.1, 0.0075, -0.15) 16") else {
            panic!()
        };
        assert_eq!(p.resource, None);
        assert_eq!(p.area, ProbeArea::Point { x: 0, y: 0 });
        assert_eq!(p.ulp, 16);
        let Command::Probe(p) = cmd("probe uav 1 (3) u32(0xdeadbeef,  2)") else {
            panic!()
        };
        assert_eq!(
            p.resource,
            Some(ResourceRef {
                kind: ResourceKind::Uav,
                slot: 1
            })
        );
        assert_eq!(p.values, ProbeValues::U32(vec![0xdeadbeef, 2]));
        let Command::Probe(p) = cmd("probe rtv 1 (1,2) f64(1.5)") else {
            panic!()
        };
        assert_eq!(p.area, ProbeArea::Point { x: 1, y: 2 });
        assert_eq!(p.values, ProbeValues::F64(vec![1.5]));
        let Command::Probe(p) = cmd("probe(0, 0, 640, 480) i32(-1, 2, 3, 4)") else {
            panic!()
        };
        assert_eq!(
            p.area,
            ProbeArea::Rect {
                left: 0,
                top: 0,
                right: 640,
                bottom: 480
            }
        );
        let Command::Probe(p) = cmd("probe dsv (1, 1, 2) i64(-5)") else {
            panic!()
        };
        assert_eq!(
            p.area,
            ProbeArea::Layer {
                x: 1,
                y: 1,
                layer: 2
            }
        );
        assert_eq!(p.values, ProbeValues::I64(vec![-5]));
        assert!(parse_test_line("probe (0, 0) rgba(1, 2, 3, 4, 5)", 1).is_err());
        assert!(parse_test_line("probe (0, 0) xyz(1)", 1).is_err());
        assert!(parse_test_line("probe (0, 0 rgba(1)", 1).is_err());
    }

    #[test]
    fn other_commands() {
        assert_eq!(
            cmd("clear rtv 0 1.0 1.0 0.0 1.0"),
            Command::Clear {
                target: ResourceRef {
                    kind: ResourceKind::Rtv,
                    slot: 0
                },
                values: vec![1.0, 1.0, 0.0, 1.0]
            }
        );
        assert_eq!(
            cmd("clear dsv 0.5"),
            Command::Clear {
                target: ResourceRef {
                    kind: ResourceKind::Dsv,
                    slot: 0
                },
                values: vec![0.5]
            }
        );
        assert_eq!(
            cmd("copy rtv 0 srv 0"),
            Command::Copy {
                src: ResourceRef {
                    kind: ResourceKind::Rtv,
                    slot: 0
                },
                dst: ResourceRef {
                    kind: ResourceKind::Srv,
                    slot: 0
                }
            }
        );
        assert_eq!(
            cmd("depth greater equal"),
            Command::Depth(Comparison::GreaterEqual)
        );
        assert_eq!(
            cmd("depth-bounds 0.3 0.6"),
            Command::DepthBounds { min: 0.3, max: 0.6 }
        );
        assert_eq!(cmd("stencil ref 3"), Command::Other("stencil ref 3".into()));
        assert_eq!(cmd("sample mask 0x3"), Command::SampleMask(3));
        assert_eq!(cmd("sample mask 10"), Command::SampleMask(10));
        assert_eq!(cmd("stencil off"), Command::Stencil(None));
        assert_eq!(
            cmd("stencil always replace 0x55"),
            Command::Stencil(Some(StencilState {
                compare: Comparison::Always,
                pass: StencilOpName::Replace,
                fail: StencilOpName::Keep,
                depth_fail: StencilOpName::Keep,
                reference: 0x55,
                read_mask: 0xff,
                write_mask: 0xff,
            }))
        );
        assert_eq!(
            cmd("stencil not equal incr-sat 7 fail zero depth-fail decr read-mask 0xf0 write-mask 3"),
            Command::Stencil(Some(StencilState {
                compare: Comparison::NotEqual,
                pass: StencilOpName::IncrSat,
                fail: StencilOpName::Zero,
                depth_fail: StencilOpName::Decr,
                reference: 7,
                read_mask: 0xf0,
                write_mask: 3,
            }))
        );
        assert!(parse_test_line("stencil always frob 1", 1).is_err());
        assert!(parse_test_line("stencil always keep 1 sideways keep", 1).is_err());
        assert_eq!(
            cmd("probe dsv stencil (3, 4) u32(17)"),
            Command::ProbeStencil {
                area: ProbeArea::Point { x: 3, y: 4 },
                values: ProbeValues::U32(vec![17]),
            }
        );
        assert!(parse_test_line("probe dsv stencil (3, 4) f32(17)", 1).is_err());
        assert_eq!(
            cmd("clear dsv 1.0 5"),
            Command::Clear {
                target: ResourceRef {
                    kind: ResourceKind::Dsv,
                    slot: 0
                },
                values: vec![1.0, 5.0]
            }
        );
        assert_eq!(
            cmd("alpha test less 1.0"),
            Command::Other("alpha test less 1.0".into())
        );
    }

    #[test]
    fn prefixes() {
        let t = parse_test_line(
            "todo(msl & sm>=6) bug(sm<4) if(sm>=4) probe (0, 0) rgba(1, 1, 1, 1)",
            7,
        )
        .unwrap();
        assert_eq!(t.line, 7);
        let kinds: Vec<_> = t.marks.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, vec![MarkKind::Todo, MarkKind::Bug, MarkKind::If]);
        let ctx = EvalContext::model(ShaderModel::new(6, 0));
        assert!(!t.marks[0].applies(&ctx));
        assert!(!t.marks[1].applies(&ctx));
        assert!(t.marks[2].applies(&ctx));
        assert!(t.runs(&ctx));
        assert!(!t.is_todo(&ctx));
        assert!(!t.is_bug(&ctx));
        assert!(!t.runs(&EvalContext::model(ShaderModel::new(3, 0))));
        assert!(t.is_bug(&EvalContext::model(ShaderModel::new(3, 0))));
        assert!(matches!(t.command, Command::Probe(_)));
        let t = parse_test_line("todo draw quad", 1).unwrap();
        assert_eq!(t.marks.len(), 1);
        assert_eq!(t.command, Command::DrawQuad);
    }
}
