//! Signatures derived from a program's input and output declarations, for listings that
//! carry no signature tables.
//!
//! Each `dcl_input*`/`dcl_output*` declaration becomes one element: its register and mask
//! come from the declared operand (the last index for per-vertex arrays such as `v[3][0]` and
//! `vicp[32][1]`), registers without an index (`vPrim`, `oDepth`, `oMask`, …) get register
//! `u32::MAX` and mask `x`, and positions always get `xyzw`. Input coverage (`vCoverage`,
//! `vInnerCoverage`) and, outside geometry shaders, `vPrim` are not part of the input
//! signature, as with fxc. Semantic names are those fxc gives system values
//! (`SV_Position`, `SV_Target` with the register as its index for pixel-shader outputs —
//! stored, like `SV_Depth` and the other pixel-shader outputs, with system value `NONE`, as
//! fxc does —
//! `SV_TessFactor`/`SV_InsideTessFactor` with fxc's indices, …); plain registers become
//! `TEXCOORD` with increasing indices. Components are `uint` when the system value is an
//! integer (vertex, instance and primitive IDs, sample index, front face, array indices,
//! coverage, stencil reference) and when integer instructions access them and no float
//! instruction does; otherwise `float` (also when every access only moves bits). The second mask byte follows fxc's convention, from what
//! the program's instructions read and write: for inputs the components read, for outputs
//! the components never written (every component when a register is addressed relatively).
//!
//! Hull shaders put their control-point-phase outputs in the output signature and their
//! fork- and join-phase outputs (the tessellation factors and other patch constants) in the
//! patch constant signature; domain shaders read `vpc#` from the patch constant signature.

use super::signature::{ComponentType, MinPrecision, Signature, SignatureElement, SystemValue};
use crate::ir::{
    Declaration, Index, Operand, Program, RegisterKind, Stage, SystemValue as Name, ValueType,
};
use crate::isa::Opcode;

/// Builds the (input, output, patch constant) signatures a program's declarations imply.
///
/// The patch constant signature is `Some` (possibly empty) for hull and domain shaders and
/// `None` otherwise. Chunk codes are ISGN/OSGN/PCSG, OSG5 for shader model 5 geometry-shader
/// outputs, and ISG1/OSG1/PSG1 when a declaration carries a minimum precision.
pub fn signatures_from_program(program: &Program) -> (Signature, Signature, Option<Signature>) {
    let stage = program.model.stage;
    let usage = Usage::scan(program);
    let mut input = Vec::new();
    let mut output = Vec::new();
    let mut patch = Vec::new();
    let mut phase = Phase::Main;
    let mut stream = 0;
    for instruction in &program.instructions {
        match instruction.opcode {
            Opcode::HsDecls => phase = Phase::Main,
            Opcode::HsControlPointPhase => phase = Phase::ControlPoint,
            Opcode::HsForkPhase | Opcode::HsJoinPhase => phase = Phase::Patch,
            _ => {}
        }
        let Some(declaration) = &instruction.declaration else {
            continue;
        };
        let (operand, system_value) = match declaration {
            Declaration::Stream(operand) => {
                let op = program.operand(*operand);
                stream = op.indices().first().and_then(|i| i.as_imm32()).unwrap_or(0);
                continue;
            }
            Declaration::Signature {
                operand,
                system_value,
                ..
            } => (program.operand(*operand), *system_value),
            _ => continue,
        };
        let Some(target) = target(stage, phase, operand.kind) else {
            continue;
        };
        let Some(mut element) = element(stage, operand, system_value, target) else {
            continue;
        };
        element.stream = if target == Target::Output { stream } else { 0 };
        element.rw_mask = usage.rw_mask(operand.kind, &element, target != Target::Input);
        if element.component_type == ComponentType::Float32
            && element.system_value != SystemValue::Position
        {
            element.component_type = usage.component_type(operand.kind, &element);
        }
        let list = match target {
            Target::Input => &mut input,
            Target::Output => &mut output,
            Target::Patch => &mut patch,
        };
        let duplicate = list.iter().any(|e: &SignatureElement| {
            e.register == element.register
                && e.mask == element.mask
                && e.stream == element.stream
                && e.system_value == element.system_value
                && e.semantic_name == element.semantic_name
        });
        if !duplicate {
            list.push(element);
        }
    }
    let input = finish(input, *b"ISGN", *b"ISG1", false);
    let gs5 = stage == Stage::Geometry && program.model.major >= 5;
    let output = finish(
        output,
        if gs5 { *b"OSG5" } else { *b"OSGN" },
        *b"OSG1",
        stage == Stage::Pixel,
    );
    let patch = matches!(stage, Stage::Hull | Stage::Domain)
        .then(|| finish(patch, *b"PCSG", *b"PSG1", false));
    (input, output, patch)
}

/// The part of a hull shader a declaration is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before any phase, or not a hull shader.
    Main,
    /// `hs_control_point_phase`.
    ControlPoint,
    /// `hs_fork_phase` or `hs_join_phase`.
    Patch,
}

/// Which signature a declaration adds to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The input signature.
    Input,
    /// The output signature.
    Output,
    /// The patch constant signature.
    Patch,
}

/// Where a declared register of `kind` belongs, or `None` when it is not in a signature
/// (thread IDs, `vDomain`, fork instance IDs, `vocp`, input coverage, `vPrim` outside
/// geometry shaders, …).
fn target(stage: Stage, phase: Phase, kind: RegisterKind) -> Option<Target> {
    use RegisterKind as K;
    Some(match kind {
        K::InputPrimitiveId if stage != Stage::Geometry => return None,
        K::Input | K::InputControlPoint | K::InputPrimitiveId => {
            if stage == Stage::Compute {
                return None;
            }
            if stage == Stage::Hull && phase == Phase::Patch && kind != K::InputControlPoint {
                return None;
            }
            Target::Input
        }
        K::InputPatchConstant if stage == Stage::Domain => Target::Patch,
        K::Output => match (stage, phase) {
            (Stage::Compute, _) => return None,
            (Stage::Hull, Phase::Patch) => Target::Patch,
            _ => Target::Output,
        },
        K::OutputDepth
        | K::OutputDepthGreaterEqual
        | K::OutputDepthLessEqual
        | K::OutputCoverageMask
        | K::OutputStencilRef => Target::Output,
        _ => return None,
    })
}

/// The register a declared operand names: the last index of per-vertex arrays, else the
/// first; `u32::MAX` for registers without an index.
fn register(operand: &Operand) -> Option<u32> {
    let indices = operand.indices();
    let index = match operand.kind {
        RegisterKind::Input
        | RegisterKind::InputControlPoint
        | RegisterKind::OutputControlPoint => indices.last(),
        _ => indices.first(),
    };
    match index {
        Some(i) => Some(i.immediate().try_into().unwrap_or(u32::MAX)),
        None => Some(u32::MAX),
    }
}

/// The element a declaration describes (name and index are provisional; see [`finish`]).
fn element(
    stage: Stage,
    operand: &Operand,
    system_value: Option<Name>,
    target: Target,
) -> Option<SignatureElement> {
    use RegisterKind as K;
    let register = register(operand)?;
    let (sv, name, index) = match (operand.kind, system_value) {
        (K::InputPrimitiveId, _) => (SystemValue::PrimitiveId, "SV_PrimitiveID", 0),
        (K::OutputCoverageMask, _) => (SystemValue::Coverage, "SV_Coverage", 0),
        (K::OutputDepth, _) => (SystemValue::Depth, "SV_Depth", 0),
        (K::OutputDepthGreaterEqual, _) => {
            (SystemValue::DepthGreaterEqual, "SV_DepthGreaterEqual", 0)
        }
        (K::OutputDepthLessEqual, _) => (SystemValue::DepthLessEqual, "SV_DepthLessEqual", 0),
        (K::OutputStencilRef, _) => (SystemValue::StencilRef, "SV_StencilRef", 0),
        (_, Some(name)) => system_value_name(name),
        (K::Output, None) if stage == Stage::Pixel && target == Target::Output => {
            (SystemValue::Target, "SV_Target", register)
        }
        (_, None) => (SystemValue::Undefined, "TEXCOORD", 0),
    };
    let component_type = match sv {
        SystemValue::VertexId
        | SystemValue::InstanceId
        | SystemValue::PrimitiveId
        | SystemValue::IsFrontFace
        | SystemValue::SampleIndex
        | SystemValue::RenderTargetArrayIndex
        | SystemValue::ViewportArrayIndex
        | SystemValue::Coverage
        | SystemValue::StencilRef => ComponentType::Uint32,
        _ => ComponentType::Float32,
    };
    let mask = if register == u32::MAX {
        1
    } else if sv == SystemValue::Position {
        // A position is always a float4, whatever the shader declares.
        0xf
    } else {
        operand.mask() & 0xf
    };
    // fxc stores pixel-shader outputs as NONE and identifies them by name.
    let sv = if stage == Stage::Pixel && target == Target::Output {
        SystemValue::Undefined
    } else {
        sv
    };
    Some(SignatureElement {
        stream: 0,
        semantic_name: name.to_string(),
        semantic_index: index,
        system_value: sv,
        component_type,
        register,
        mask,
        rw_mask: 0,
        min_precision: MinPrecision::from_raw(operand.min_precision.code()),
    })
}

/// fxc's system value, semantic name and semantic index for a declared system value.
fn system_value_name(name: Name) -> (SystemValue, &'static str, u32) {
    match name {
        Name::Undefined => (SystemValue::Undefined, "TEXCOORD", 0),
        Name::Position => (SystemValue::Position, "SV_Position", 0),
        Name::ClipDistance => (SystemValue::ClipDistance, "SV_ClipDistance", 0),
        Name::CullDistance => (SystemValue::CullDistance, "SV_CullDistance", 0),
        Name::RenderTargetArrayIndex => (
            SystemValue::RenderTargetArrayIndex,
            "SV_RenderTargetArrayIndex",
            0,
        ),
        Name::ViewportArrayIndex => (SystemValue::ViewportArrayIndex, "SV_ViewportArrayIndex", 0),
        Name::VertexId => (SystemValue::VertexId, "SV_VertexID", 0),
        Name::PrimitiveId => (SystemValue::PrimitiveId, "SV_PrimitiveID", 0),
        Name::InstanceId => (SystemValue::InstanceId, "SV_InstanceID", 0),
        Name::IsFrontFace => (SystemValue::IsFrontFace, "SV_IsFrontFace", 0),
        Name::SampleIndex => (SystemValue::SampleIndex, "SV_SampleIndex", 0),
        Name::QuadUEq0EdgeTessFactor => (SystemValue::QuadEdgeTessFactor, "SV_TessFactor", 0),
        Name::QuadVEq0EdgeTessFactor => (SystemValue::QuadEdgeTessFactor, "SV_TessFactor", 1),
        Name::QuadUEq1EdgeTessFactor => (SystemValue::QuadEdgeTessFactor, "SV_TessFactor", 2),
        Name::QuadVEq1EdgeTessFactor => (SystemValue::QuadEdgeTessFactor, "SV_TessFactor", 3),
        Name::QuadUInsideTessFactor => {
            (SystemValue::QuadInsideTessFactor, "SV_InsideTessFactor", 0)
        }
        Name::QuadVInsideTessFactor => {
            (SystemValue::QuadInsideTessFactor, "SV_InsideTessFactor", 1)
        }
        Name::TriUEq0EdgeTessFactor => (SystemValue::TriEdgeTessFactor, "SV_TessFactor", 0),
        Name::TriVEq0EdgeTessFactor => (SystemValue::TriEdgeTessFactor, "SV_TessFactor", 1),
        Name::TriWEq0EdgeTessFactor => (SystemValue::TriEdgeTessFactor, "SV_TessFactor", 2),
        Name::TriInsideTessFactor => (SystemValue::TriInsideTessFactor, "SV_InsideTessFactor", 0),
        Name::LineDetailTessFactor => (SystemValue::LineDetailTessFactor, "SV_TessFactor", 0),
        Name::LineDensityTessFactor => (SystemValue::LineDensityTessFactor, "SV_TessFactor", 1),
        // D3D12-only values have no D3D_NAME in DXBC signatures; keep the declared code.
        Name::Barycentrics => (SystemValue::Other(23), "SV_Barycentrics", 0),
        Name::ShadingRate => (SystemValue::Other(24), "SV_ShadingRate", 0),
        Name::CullPrimitive => (SystemValue::Other(25), "SV_CullPrimitive", 0),
    }
}

/// Orders the elements as fxc does (by stream and register, register-less elements last)
/// and numbers the semantic indices of names that repeat.
fn finish(
    mut elements: Vec<SignatureElement>,
    fourcc: [u8; 4],
    fourcc_min_precision: [u8; 4],
    pixel_output: bool,
) -> Signature {
    elements.sort_by_key(|e| (e.stream, e.register, e.mask.trailing_zeros()));
    let mut counters: Vec<(String, u32)> = Vec::new();
    for e in &mut elements {
        let fixed = e.semantic_name.contains("TessFactor")
            || (pixel_output && e.semantic_name == "SV_Target");
        if fixed {
            continue;
        }
        let slot = match counters.iter_mut().find(|(n, _)| *n == e.semantic_name) {
            Some(slot) => slot,
            None => {
                counters.push((e.semantic_name.clone(), 0));
                match counters.last_mut() {
                    Some(slot) => slot,
                    None => continue,
                }
            }
        };
        e.semantic_index = slot.1;
        slot.1 = slot.1.saturating_add(1);
    }
    let min_precision = elements
        .iter()
        .any(|e| e.min_precision != MinPrecision::Default);
    Signature {
        fourcc: if min_precision {
            fourcc_min_precision
        } else {
            fourcc
        },
        elements,
    }
}

/// Which components of which registers the program's instructions read and write, and as
/// what type.
struct Usage {
    /// `(kind, register, components, type)` touched with an immediate register index.
    touched: Vec<(RegisterKind, u32, u8, ValueType)>,
    /// Register kinds addressed with a relative index somewhere.
    relative: Vec<RegisterKind>,
}

impl Usage {
    /// Scans every operand of every instruction that is not a declaration.
    fn scan(program: &Program) -> Usage {
        let mut usage = Usage {
            touched: Vec::new(),
            relative: Vec::new(),
        };
        for instruction in &program.instructions {
            if instruction.declaration.is_some() {
                continue;
            }
            for operand in program.operands_of(instruction) {
                usage.add(program, operand, 0);
            }
        }
        usage
    }

    /// Records one operand and the operands of its relative indices.
    fn add(&mut self, program: &Program, operand: &Operand, depth: u32) {
        if depth > 4 {
            return;
        }
        let components = match operand.components {
            crate::ir::ComponentCount::Four => operand.selection.mask(),
            _ => 1,
        };
        let indices = operand.indices();
        let register_index = match operand.kind {
            RegisterKind::Input
            | RegisterKind::InputControlPoint
            | RegisterKind::OutputControlPoint => indices.last(),
            _ => indices.first(),
        };
        for index in indices {
            if let Some(rel) = index.relative() {
                let rel = *program.operand(rel);
                self.add(program, &rel, depth + 1);
            }
        }
        let ty = operand.value_type;
        match register_index {
            Some(Index::Imm32(r)) => self.touched.push((operand.kind, *r, components, ty)),
            Some(Index::Imm64(r)) => self.touched.push((
                operand.kind,
                u32::try_from(*r).unwrap_or(u32::MAX),
                components,
                ty,
            )),
            Some(_) => {
                if !self.relative.contains(&operand.kind) {
                    self.relative.push(operand.kind);
                }
            }
            None => self.touched.push((operand.kind, u32::MAX, components, ty)),
        }
    }

    /// The second mask byte for an element declared through a register of `kind`.
    fn rw_mask(&self, kind: RegisterKind, e: &SignatureElement, output: bool) -> u8 {
        let used = if self.relative.contains(&kind) {
            e.mask
        } else {
            self.touched
                .iter()
                .filter(|(k, r, _, _)| *k == kind && *r == e.register)
                .fold(0, |m, (_, _, c, _)| m | c)
                & e.mask
        };
        if output {
            !used & 0xf
        } else {
            used
        }
    }

    /// The component type the instructions treat the element's components as: float when
    /// any access is a float one or every access only moves bits (`mov`, loads, stores),
    /// else uint (integer instructions do not tell int from uint; uint is the common case).
    fn component_type(&self, kind: RegisterKind, e: &SignatureElement) -> ComponentType {
        let (mut float, mut integer) = (false, false);
        for (k, r, c, ty) in &self.touched {
            if *k != kind || *r != e.register || c & e.mask == 0 {
                continue;
            }
            match ty {
                ValueType::F32 | ValueType::F64 => float = true,
                ValueType::U32 | ValueType::I32 => integer = true,
                ValueType::Bits | ValueType::None => {}
            }
        }
        if integer && !float {
            ComponentType::Uint32
        } else {
            ComponentType::Float32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpf::decode;

    /// Assembles the program bytes from tokens (version and length filled in).
    fn program(stage: u32, major: u32, minor: u32, body: &[u32]) -> Program {
        let mut words = vec![(stage << 16) | (major << 4) | minor, body.len() as u32 + 2];
        words.extend_from_slice(body);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        decode(&bytes).unwrap()
    }

    /// Operand token for a one-index register of `kind` with a write mask.
    fn reg_mask(kind: u32, mask: u32) -> u32 {
        2 | (mask << 4) | (kind << 12) | (1 << 20)
    }

    #[test]
    fn pixel_shader() {
        // dcl_input_ps_siv linear noperspective v0.xyzw, position
        // dcl_input_ps linear v1.xy
        // dcl_input_ps linear v1.zw   (packed into the same register)
        // dcl_input_ps_sgv constant v2.x, is_front_face
        // dcl_output o0.xyzw ; dcl_output o1.xy ; dcl_output oDepth
        // mov o0.xyzw, v1.xyzw ; mov o1.xy, v1.xyxx ; mov oDepth, v0.z ; ret
        let p = program(
            0,
            5,
            0,
            &[
                0x0400_0064 | (4 << 11),
                reg_mask(1, 0xf),
                0,
                1,
                0x0300_0062 | (2 << 11),
                reg_mask(1, 0x3),
                1,
                0x0300_0062 | (2 << 11),
                reg_mask(1, 0xc),
                1,
                0x0400_0063 | (1 << 11),
                reg_mask(1, 0x1),
                2,
                9,
                0x0300_0065,
                reg_mask(2, 0xf),
                0,
                0x0300_0065,
                reg_mask(2, 0x3),
                1,
                0x0200_0065,
                0x0000_c001,
                // mov o0.xyzw, v1.xyzw
                0x0500_0036,
                reg_mask(2, 0xf),
                0,
                0x0010_1e46,
                1,
                // mov o1.xy, v1.xyxx
                0x0500_0036,
                reg_mask(2, 0x3),
                1,
                0x0010_1046,
                1,
                // mov oDepth, v0.z
                0x0400_0036,
                0x0000_c001,
                0x0010_102a,
                0,
                0x0100_003e,
            ],
        );
        let (input, output, patch) = signatures_from_program(&p);
        assert!(patch.is_none());
        assert_eq!(input.fourcc, *b"ISGN");
        let names: Vec<_> = input
            .elements
            .iter()
            .map(|e| {
                (
                    e.semantic_name.as_str(),
                    e.semantic_index,
                    e.register,
                    e.mask,
                    e.rw_mask,
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("SV_Position", 0, 0, 0xf, 0x4),
                ("TEXCOORD", 0, 1, 0x3, 0x3),
                ("TEXCOORD", 1, 1, 0xc, 0xc),
                ("SV_IsFrontFace", 0, 2, 0x1, 0x0),
            ]
        );
        assert_eq!(input.elements[3].component_type, ComponentType::Uint32);
        assert_eq!(input.elements[3].system_value, SystemValue::IsFrontFace);
        let out: Vec<_> = output
            .elements
            .iter()
            .map(|e| {
                (
                    e.semantic_name.as_str(),
                    e.semantic_index,
                    e.register,
                    e.mask,
                    e.rw_mask,
                )
            })
            .collect();
        assert_eq!(
            out,
            [
                ("SV_Target", 0, 0, 0xf, 0x0),
                ("SV_Target", 1, 1, 0x3, 0xc),
                ("SV_Depth", 0, u32::MAX, 0x1, 0xe),
            ]
        );
        assert_eq!(output.elements[2].system_value, SystemValue::Undefined);
        assert_eq!(output.elements[0].system_value, SystemValue::Undefined);
    }

    #[test]
    fn vertex_shader_ids_and_positions() {
        // dcl_input_sgv v0.x, vertex_id ; dcl_input v1.xyz ; dcl_output_siv o0.xyzw, position
        // dcl_output o1.xy ; dcl_output_siv o2.x, clip_distance ; ret
        let p = program(
            1,
            4,
            0,
            &[
                0x0400_0060,
                reg_mask(1, 0x1),
                0,
                6,
                0x0300_005f,
                reg_mask(1, 0x7),
                1,
                0x0400_0067,
                reg_mask(2, 0xf),
                0,
                1,
                0x0300_0065,
                reg_mask(2, 0x3),
                1,
                0x0400_0067,
                reg_mask(2, 0x1),
                2,
                2,
                0x0100_003e,
            ],
        );
        let (input, output, _) = signatures_from_program(&p);
        assert_eq!(input.elements[0].semantic_name, "SV_VertexID");
        assert_eq!(input.elements[0].component_type, ComponentType::Uint32);
        assert_eq!(input.elements[1].semantic_name, "TEXCOORD");
        // Nothing reads the inputs or writes the outputs.
        assert_eq!(input.elements[1].rw_mask, 0);
        let out: Vec<_> = output
            .elements
            .iter()
            .map(|e| (e.semantic_name.as_str(), e.system_value, e.rw_mask))
            .collect();
        assert_eq!(
            out,
            [
                ("SV_Position", SystemValue::Position, 0xf),
                ("TEXCOORD", SystemValue::Undefined, 0xf),
                ("SV_ClipDistance", SystemValue::ClipDistance, 0xf),
            ]
        );
    }

    #[test]
    fn hull_shader_phases() {
        // hs_decls ; hs_control_point_phase ; dcl_input vicp[3][0].xyzw ; dcl_output o0.xyzw
        // hs_fork_phase ; dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
        // dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor ; hs_join_phase
        // dcl_output_siv o3.x, finalTriInsideTessFactor ; ret
        let vicp = 2 | (0xf << 4) | (25 << 12) | (2 << 20);
        let p = program(
            3,
            5,
            0,
            &[
                0x0100_0071,
                0x0100_0072,
                0x0400_005f,
                vicp,
                3,
                0,
                0x0300_0065,
                reg_mask(2, 0xf),
                0,
                0x0100_0073,
                0x0400_0067,
                reg_mask(2, 0x1),
                0,
                17,
                0x0400_0067,
                reg_mask(2, 0x1),
                1,
                18,
                0x0100_0074,
                0x0400_0067,
                reg_mask(2, 0x1),
                3,
                20,
                0x0100_003e,
            ],
        );
        let (input, output, patch) = signatures_from_program(&p);
        assert_eq!(input.elements.len(), 1);
        assert_eq!(input.elements[0].register, 0);
        assert_eq!(output.elements.len(), 1);
        let patch = patch.unwrap();
        assert_eq!(patch.fourcc, *b"PCSG");
        let pc: Vec<_> = patch
            .elements
            .iter()
            .map(|e| {
                (
                    e.semantic_name.as_str(),
                    e.semantic_index,
                    e.system_value,
                    e.register,
                )
            })
            .collect();
        assert_eq!(
            pc,
            [
                ("SV_TessFactor", 0, SystemValue::TriEdgeTessFactor, 0),
                ("SV_TessFactor", 1, SystemValue::TriEdgeTessFactor, 1),
                (
                    "SV_InsideTessFactor",
                    0,
                    SystemValue::TriInsideTessFactor,
                    3
                ),
            ]
        );
    }

    #[test]
    fn compute_shaders_have_no_signatures() {
        // dcl_input vThreadID.xyz ; ret
        let p = program(
            5,
            5,
            0,
            &[0x0200_005f, 2 | (7 << 4) | (32 << 12), 0x0100_003e],
        );
        let (input, output, patch) = signatures_from_program(&p);
        assert!(input.elements.is_empty() && output.elements.is_empty() && patch.is_none());
    }
}
