//! Geometry shaders: the input primitive, output topology, vertex count and instance count
//! as execution modes; `emit`/`cut`/`emitthencut` and their `_stream` forms.
//!
//! D3D leaves the output registers undefined after an emit, as SPIR-V does after
//! `OpEmitVertex`, so outputs are written straight to the Output variables (outputs that
//! are addressed relatively live in a Private array and are copied out before each emit).
//! When the shader declares a stream other than 0 every output is decorated with its
//! stream (the `dcl_stream` in force when it was declared) and vertices are emitted with
//! `OpEmitStreamVertex` (capability `GeometryStreams`).

use spirv::{Capability, Decoration, ExecutionMode};
use std::collections::BTreeMap;

use super::emitter::Emitter;
use super::module::built;
use crate::error::Result;
use crate::ir::{Declaration, Instruction, PrimitiveTopology, RegisterKind, Stage};
use crate::tpf::opcodes::Opcode;

impl Emitter<'_> {
    /// Handles the geometry-shader declarations; false for any other declaration.
    pub fn geometry_declaration(&mut self, declaration: &Declaration) -> Result<bool> {
        match declaration {
            Declaration::GsInputPrimitive(primitive) => {
                let mode = match primitive.0 {
                    1 => ExecutionMode::InputPoints,
                    2 => ExecutionMode::InputLines,
                    3 => ExecutionMode::Triangles,
                    6 => ExecutionMode::InputLinesAdjacency,
                    7 => ExecutionMode::InputTrianglesAdjacency,
                    _ => {
                        return Err(self.unsupported(format!(
                            "geometry-shader input primitive {} is not translated yet",
                            primitive.name().unwrap_or_default()
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
                self.modes
                    .push((ExecutionMode::OutputVertices, vec![*count]));
            }
            Declaration::GsInstanceCount(count) => {
                self.modes
                    .push((ExecutionMode::Invocations, vec![(*count).max(1)]));
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
            self.modes.push((ExecutionMode::Invocations, vec![1]));
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
        let mut streams: BTreeMap<u32, u32> = BTreeMap::new();
        for (&(kind, register, _), slot) in &self.io.slots {
            if kind != RegisterKind::Output as u8 {
                continue;
            }
            let stream = self
                .io
                .stage
                .output_streams
                .get(&register)
                .copied()
                .unwrap_or(0);
            streams.insert(slot.var, stream);
        }
        for (var, stream) in streams {
            self.decorate(var, Decoration::Stream, &[stream]);
        }
        Ok(())
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
