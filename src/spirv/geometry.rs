//! Geometry shaders: the input primitive, output topology, vertex count and instance count
//! as execution modes; `emit`/`cut`/`emitthencut` and their `_stream` forms.
//!
//! D3D leaves the output registers undefined after an emit, as SPIR-V does after
//! `OpEmitVertex`, so outputs are written straight to the Output variables (outputs that
//! are addressed relatively live in a Private array and are copied out before each emit).
//!
//! Streams: each `dcl_stream mN` opens its own set of output registers, which may reuse the
//! register numbers of other streams (`o0` is the position of stream 0 and of stream 1).
//! Stream 0, the rasterized one (or the one the stream-output layout rasterizes), gets the
//! Output variables; when the shader declares other streams, every Output is decorated with
//! that stream and vertices are emitted with `OpEmitStreamVertex` (capability
//! `GeometryStreams`). The registers of the other streams only
//! reach memory through stream output (transform feedback), whose layout the caller
//! supplies ([`super::StreamOutput`], lowered in [`super::stream_output`]): the captured
//! ones are kept and copied out at each emit to their stream. Without it their values have
//! no destination, as in D3D without a stream-output buffer for the stream, and registers
//! that stream 0 does not declare are not stored.

//!
//! Patch input primitives (`dcl_inputprimitive patchN`, a geometry shader drawn with a
//! patch-list topology and no tessellation): Vulkan draws patch lists only through
//! tessellation, but a list of N-vertex patches delivers the same vertices, in the same
//! order and grouping, as the list topology whose primitives have N vertices. So `patch1`,
//! `patch2`, `patch3`, `patch4` and `patch6` translate as points, lines, triangles, lines
//! with adjacency and triangles with adjacency, and the caller draws the matching list
//! topology (`POINT_LIST`, `LINE_LIST`, `TRIANGLE_LIST`, `LINE_LIST_WITH_ADJACENCY`,
//! `TRIANGLE_LIST_WITH_ADJACENCY`) where D3D draws `N_CONTROL_POINT_PATCHLIST`. Other patch
//! sizes have no Vulkan primitive of that many vertices and are an error.

use spirv::{Capability, Decoration, ExecutionMode, StorageClass};
use std::collections::BTreeSet;

use super::emitter::{Emitter, Val};
use super::module::built;
use crate::error::Result;
use crate::ir::{Declaration, Instruction, Operand, PrimitiveTopology, RegisterKind, Stage};
use crate::isa::Opcode;

impl Emitter<'_> {
    /// Handles the geometry-shader declarations; false for any other declaration.
    pub fn geometry_declaration(&mut self, declaration: &Declaration) -> Result<bool> {
        match declaration {
            Declaration::GsInputPrimitive(primitive) => {
                let mode = match primitive.0 {
                    // patch1, patch2 and patch3 and patch4 and patch6: see the module notes.
                    1 | 8 => ExecutionMode::InputPoints,
                    2 | 9 => ExecutionMode::InputLines,
                    3 | 10 => ExecutionMode::Triangles,
                    6 | 11 => ExecutionMode::InputLinesAdjacency,
                    7 | 13 => ExecutionMode::InputTrianglesAdjacency,
                    12 | 14..=39 => {
                        return Err(self.unsupported(format!(
                            "a geometry shader with {} control-point patches as input \
                             primitive: Vulkan's geometry shaders take points, lines, \
                             triangles or their adjacency forms (1, 2, 3, 4 or 6 vertices), \
                             and patch lists only feed tessellation (a Vulkan limitation)",
                            primitive.0 - 7
                        )))
                    }
                    other => {
                        return Err(self.err(format!(
                            "geometry-shader input primitive {other} (D3D10_SB_PRIMITIVE is a \
                             point, line, triangle, their adjacency forms or a patch of 1 to 32 \
                             control points)"
                        )))
                    }
                };
                self.add_mode(mode);
            }
            Declaration::GsOutputTopology(topology) => {
                let mode = match topology {
                    PrimitiveTopology::PointList => ExecutionMode::OutputPoints,
                    PrimitiveTopology::LineList | PrimitiveTopology::LineStrip => {
                        ExecutionMode::OutputLineStrip
                    }
                    PrimitiveTopology::TriangleList | PrimitiveTopology::TriangleStrip => {
                        ExecutionMode::OutputTriangleStrip
                    }
                    other => {
                        return Err(self.err(format!(
                            "{} is not a geometry-shader output topology",
                            other.name()
                        )))
                    }
                };
                self.add_mode(mode);
            }
            Declaration::MaxOutputVertexCount(count) => {
                self.push_mode(ExecutionMode::OutputVertices, &[*count]);
            }
            Declaration::GsInstanceCount(count) => {
                self.push_mode(ExecutionMode::Invocations, &[(*count).max(1)]);
            }
            Declaration::Stream(operand) => {
                let operand = *self.operand(*operand);
                let stream = self.immediate_index(&operand, 0)?;
                if stream > 3 {
                    return Err(self.err(format!("stream m{stream} (D3D has streams 0 to 3)")));
                }
                self.io.stage.stream = stream;
                if stream != 0 {
                    self.io.stage.multi_stream = true;
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Geometry-shader modes and decorations that need every declaration: the default
    /// instance count and the output streams.
    pub fn geometry_finish(&mut self) -> Result<()> {
        if self.program.model.stage != Stage::Geometry {
            return Ok(());
        }
        if !self
            .modes
            .iter()
            .any(|(m, _)| *m == ExecutionMode::Invocations)
        {
            self.push_mode(ExecutionMode::Invocations, &[1]);
        }
        let has =
            |e: &Self, modes: &[ExecutionMode]| e.modes.iter().any(|(m, _)| modes.contains(m));
        if !has(self, &[ExecutionMode::OutputVertices]) {
            return Err(self.err("a geometry shader needs dcl_maxout"));
        }
        let inputs = [
            ExecutionMode::InputPoints,
            ExecutionMode::InputLines,
            ExecutionMode::InputLinesAdjacency,
            ExecutionMode::Triangles,
            ExecutionMode::InputTrianglesAdjacency,
        ];
        if !has(self, &inputs) {
            return Err(self.err("a geometry shader needs dcl_inputprimitive"));
        }
        let outputs = [
            ExecutionMode::OutputPoints,
            ExecutionMode::OutputLineStrip,
            ExecutionMode::OutputTriangleStrip,
        ];
        if !has(self, &outputs) {
            // Without dcl_outputtopology a shader cannot emit: any topology is right.
            let emits = self.program.instructions.iter().any(|i| {
                matches!(
                    i.opcode,
                    Opcode::Emit
                        | Opcode::EmitThenCut
                        | Opcode::EmitStream
                        | Opcode::EmitThenCutStream
                )
            });
            if emits {
                return Err(self.err("a geometry shader that emits needs dcl_outputtopology"));
            }
            self.add_mode(ExecutionMode::OutputPoints);
        }
        if !self.io.stage.multi_stream {
            return Ok(());
        }
        self.m.capability(Capability::GeometryStreams);
        let outputs: BTreeSet<u32> = self
            .io
            .slots
            .iter()
            .filter(|((kind, _, _), slot)| {
                *kind != RegisterKind::Input as u8 && slot.class == StorageClass::Output
            })
            .map(|(_, slot)| slot.var)
            .collect();
        for var in outputs {
            let main = self.rasterized_stream();
            self.decorate(var, Decoration::Stream, &[main]);
        }
        Ok(())
    }

    /// A write to an output register that only the streams that are not rasterized declare: kept in its Private copy
    /// when stream output captures it, else dropped (see the module comment); true when the
    /// write was such a one.
    pub fn stream_output_store(
        &mut self,
        operand: &Operand,
        component: u8,
        value: Val,
    ) -> Result<bool> {
        if self.program.model.stage != Stage::Geometry
            || !self.io.stage.multi_stream
            || operand.kind != RegisterKind::Output
        {
            return Ok(false);
        }
        let Some(register) = operand.indices().first().and_then(|i| i.as_imm32()) else {
            return Ok(false);
        };
        if self
            .io
            .slots
            .contains_key(&(RegisterKind::Output as u8, register, component))
        {
            return Ok(false);
        }
        let declared = self
            .io
            .stage
            .stream_outputs
            .iter()
            .any(|&(_, r, mask)| r == register && mask & (1 << component) != 0);
        if let Some(slot) = self.stream_output_shadow(register, component) {
            // A register of a stream that is not rasterized that stream output captures.
            let value = self.cast(value, slot.scalar)?;
            let pointer = self.slot_pointer(slot)?;
            built(self.m.store(pointer, value.id))?;
            Ok(true)
        } else if declared {
            Ok(true)
        } else {
            Err(self.err(format!(
                "o{register} component {component} is written but not declared"
            )))
        }
    }

    /// `emit`, `cut`, `emitthencut` and their `_stream` forms; false for other instructions.
    pub fn geometry_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        let (emit, cut, streamed) = match instruction.opcode {
            Opcode::Emit => (true, false, false),
            Opcode::Cut => (false, true, false),
            Opcode::EmitThenCut => (true, true, false),
            Opcode::EmitStream => (true, false, true),
            Opcode::CutStream => (false, true, true),
            Opcode::EmitThenCutStream => (true, true, true),
            _ => return Ok(false),
        };
        if self.program.model.stage != Stage::Geometry {
            return Err(self.err(format!(
                "{} is only valid in geometry shaders",
                instruction.opcode.name()
            )));
        }
        let stream = if streamed {
            let operand = self
                .program
                .srcs(instruction)
                .first()
                .copied()
                .ok_or_else(|| self.err("a stream instruction needs a stream operand"))?;
            self.immediate_index(&operand, 0)?
        } else {
            0
        };
        if stream > 3 {
            return Err(self.err(format!("stream m{stream} (D3D has streams 0 to 3)")));
        }
        let by_stream = self.io.stage.multi_stream;
        if emit {
            // Outputs addressed relatively are held in a Private array until now.
            self.function_exit()?;
            self.stream_output_copy(Some(stream))?;
            if by_stream {
                let id = self.m.constant_u32(stream);
                built(self.m.b.emit_stream_vertex(id))?;
            } else {
                built(self.m.b.emit_vertex())?;
            }
        }
        if cut {
            if by_stream {
                let id = self.m.constant_u32(stream);
                built(self.m.b.end_stream_primitive(id))?;
            } else {
                built(self.m.b.end_primitive())?;
            }
        }
        Ok(true)
    }
}
