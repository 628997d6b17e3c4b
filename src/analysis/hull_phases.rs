//! Hull-shader phases: splits an `hs_*` program into its control-point phase and its fork
//! and join phases, with each phase's instance count, and gathers the patch constants the
//! fork and join phases write.
//!
//! D3D runs the control-point phase once per output control point and every instance of
//! every fork and join phase once per patch, after all control points are written (join
//! phases after all fork phases). The back end turns that into one tessellation-control
//! entry point; this pass only describes the phases, so that both the declarations walk and
//! the code walk know which phase an instruction belongs to: `o#` means a control point in
//! the control-point phase and a patch constant in fork and join phases.

use std::collections::BTreeMap;

use crate::ir::{Declaration, Program, RegisterKind, Stage, SystemValue};
use crate::isa::Opcode;

/// The kind of a hull-shader phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseKind {
    /// `hs_decls`: global declarations (and the start of a program without phase markers).
    Declarations,
    /// `hs_control_point_phase`: runs once per output control point.
    ControlPoint,
    /// `hs_fork_phase`: runs `instance_count` times per patch.
    Fork,
    /// `hs_join_phase`: runs `instance_count` times per patch, after the fork phases.
    Join,
}

/// One phase: its kind, its instructions and how many instances run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    /// The kind.
    pub kind: PhaseKind,
    /// Index of the first instruction after the phase marker.
    pub start: usize,
    /// Index one past the last instruction of the phase.
    pub end: usize,
    /// Instances (`dcl_hs_fork_phase_instance_count`/`dcl_hs_join_phase_instance_count`;
    /// 1 when not declared).
    pub instance_count: u32,
}

/// One declared component of a patch constant register (`o#` of a fork or join phase).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchComponent {
    /// The system value (`Undefined` for an ordinary patch constant).
    pub system_value: SystemValue,
}

/// The phase layout of a hull shader.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HullPhases {
    /// Phases in program order (the declarations section included).
    pub phases: Vec<Phase>,
    /// `dcl_input_control_point_count` (0 when absent).
    pub input_control_points: u32,
    /// `dcl_output_control_point_count` (0 when absent).
    pub output_control_points: u32,
    /// `dcl_hs_max_tessfactor`, as a float.
    pub max_tess_factor: Option<f32>,
    /// Patch constant components by (register, component).
    pub patch_constants: BTreeMap<(u32, u8), PatchComponent>,
    /// Whether the control-point phase declares an output register.
    pub control_point_outputs: bool,
    /// Index of the first `label`: the subroutines and function bodies after the last
    /// phase, which belong to no phase (the program's length when there are none).
    pub subroutines: usize,
}

impl HullPhases {
    /// The phase an instruction belongs to (`Declarations` before the first phase marker).
    pub fn phase_at(&self, index: usize) -> PhaseKind {
        self.phases
            .iter()
            .find(|p| (p.start..p.end).contains(&index))
            .map(|p| p.kind)
            .unwrap_or(PhaseKind::Declarations)
    }

    /// The control-point phase, if the program has one that writes control points. A phase
    /// that declares no output register counts as absent, so the control points pass through
    /// as D3D does without a phase: it could only leave the domain shader's inputs undefined
    /// (vkd3d's compiler emits such a phase where fxc emits a pass-through one).
    pub fn control_point_phase(&self) -> Option<Phase> {
        if !self.control_point_outputs {
            return None;
        }
        self.phases
            .iter()
            .copied()
            .find(|p| p.kind == PhaseKind::ControlPoint)
    }

    /// The fork phases and then the join phases, in program order (the order they run in).
    pub fn patch_phases(&self) -> Vec<Phase> {
        let of = |kind| self.phases.iter().copied().filter(move |p| p.kind == kind);
        of(PhaseKind::Fork).chain(of(PhaseKind::Join)).collect()
    }

    /// The number of patch constant registers (one past the highest declared).
    pub fn patch_register_count(&self) -> u32 {
        self.patch_constants
            .keys()
            .map(|&(r, _)| r.saturating_add(1))
            .max()
            .unwrap_or(0)
    }
}

/// Describes the phases of a hull shader; `None` for the other stages.
pub fn hull_phases(program: &Program) -> Option<HullPhases> {
    if program.model.stage != Stage::Hull {
        return None;
    }
    let mut layout = HullPhases {
        subroutines: program.subroutines_start(),
        ..HullPhases::default()
    };
    let mut current = Phase {
        kind: PhaseKind::Declarations,
        start: 0,
        end: 0,
        instance_count: 1,
    };
    for (index, instruction) in program
        .instructions
        .iter()
        .enumerate()
        .take(layout.subroutines)
    {
        let kind = match instruction.opcode {
            Opcode::HsDecls => Some(PhaseKind::Declarations),
            Opcode::HsControlPointPhase => Some(PhaseKind::ControlPoint),
            Opcode::HsForkPhase => Some(PhaseKind::Fork),
            Opcode::HsJoinPhase => Some(PhaseKind::Join),
            _ => None,
        };
        if let Some(kind) = kind {
            current.end = index;
            layout.phases.push(current);
            current = Phase {
                kind,
                start: index + 1,
                end: index + 1,
                instance_count: 1,
            };
            continue;
        }
        let Some(declaration) = &instruction.declaration else {
            continue;
        };
        match declaration {
            Declaration::InputControlPointCount(n) => layout.input_control_points = *n,
            Declaration::OutputControlPointCount(n) => layout.output_control_points = *n,
            Declaration::HsMaxTessFactor(bits) => {
                layout.max_tess_factor = Some(f32::from_bits(*bits))
            }
            Declaration::HsForkPhaseInstanceCount(n) | Declaration::HsJoinPhaseInstanceCount(n) => {
                current.instance_count = *n
            }
            Declaration::Signature { operand, .. }
                if current.kind == PhaseKind::ControlPoint
                    && program.operand(*operand).kind == RegisterKind::Output =>
            {
                layout.control_point_outputs = true;
            }
            Declaration::Signature {
                operand,
                system_value,
                ..
            } if matches!(current.kind, PhaseKind::Fork | PhaseKind::Join) => {
                let operand = program.operand(*operand);
                if operand.kind != RegisterKind::Output {
                    continue;
                }
                let Some(register) = operand.indices().first().and_then(|i| i.as_imm32()) else {
                    continue;
                };
                let system_value = system_value.unwrap_or(SystemValue::Undefined);
                for component in 0..4u8 {
                    if operand.mask() & (1 << component) != 0 {
                        layout
                            .patch_constants
                            .insert((register, component), PatchComponent { system_value });
                    }
                }
            }
            _ => {}
        }
    }
    current.end = layout.subroutines;
    layout.phases.push(current);
    layout
        .phases
        .retain(|p| p.start < p.end || p.kind != PhaseKind::Declarations);
    Some(layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HULL: &str = "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
dcl_hs_max_tessfactor l(16.000000)
hs_control_point_phase
dcl_input v[3][0].xyzw
dcl_input vOutputControlPointID
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, vOutputControlPointID
mov o0.xyzw, v[r0.x][0].xyzw
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
mov r0.x, vForkInstanceID.x
mov o[r0.x].x, l(1.000000)
ret
hs_join_phase
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_output o4.yz
mov o3.x, l(1.000000)
mov o4.yz, l(0, 0, 0, 0)
ret
";

    fn layout(text: &str) -> HullPhases {
        let program = crate::asm::parse_program(text).expect("assembles");
        hull_phases(&program).expect("a hull shader")
    }

    #[test]
    fn splits_the_phases_with_their_instance_counts() {
        let layout = layout(HULL);
        let kinds: Vec<(PhaseKind, u32)> = layout
            .phases
            .iter()
            .map(|p| (p.kind, p.instance_count))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (PhaseKind::Declarations, 1),
                (PhaseKind::ControlPoint, 1),
                (PhaseKind::Fork, 3),
                (PhaseKind::Join, 1),
            ]
        );
        assert_eq!(layout.input_control_points, 3);
        assert_eq!(layout.output_control_points, 3);
        assert_eq!(layout.max_tess_factor, Some(16.0));
        let cp = layout.control_point_phase().expect("a control-point phase");
        assert_eq!(layout.phase_at(cp.start), PhaseKind::ControlPoint);
        assert_eq!(layout.phase_at(0), PhaseKind::Declarations);
        let patch = layout.patch_phases();
        assert_eq!(patch.len(), 2);
        assert_eq!(layout.phase_at(patch[1].start), PhaseKind::Join);
    }

    #[test]
    fn subroutines_after_the_last_phase_belong_to_no_phase() {
        let text = format!("{HULL}label l0\nmov o4.y, l(2.000000)\nret\n");
        let text = text.replace(
            "mov o4.yz, l(0, 0, 0, 0)\nret\n",
            "mov o4.yz, l(0, 0, 0, 0)\ncall l0\nret\n",
        );
        let program = crate::asm::parse_program(&text).expect("assembles");
        let layout = hull_phases(&program).expect("a hull shader");
        let label = program.subroutines_start();
        assert_eq!(program.instructions[label].opcode, Opcode::Label);
        assert_eq!(layout.subroutines, label);
        let join = layout.patch_phases()[1];
        assert_eq!(join.end, label, "the join phase ends at the label");
        assert_eq!(layout.phase_at(label + 1), PhaseKind::Declarations);
        // Without labels the section starts at the end.
        let plain = crate::asm::parse_program(HULL).expect("assembles");
        assert_eq!(plain.subroutines_start(), plain.instructions.len());
    }

    #[test]
    fn a_control_point_phase_without_outputs_counts_as_absent() {
        let layout = layout(
            "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
hs_control_point_phase
ret
hs_fork_phase
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
mov o0.x, l(1.000000)
ret
",
        );
        assert!(!layout.control_point_outputs);
        assert!(layout.control_point_phase().is_none(), "{layout:?}");
        assert!(layout
            .phases
            .iter()
            .any(|p| p.kind == PhaseKind::ControlPoint));
        assert!(self::layout(HULL).control_point_outputs);
    }

    #[test]
    fn gathers_patch_constants_of_fork_and_join_phases_only() {
        let layout = layout(HULL);
        let keys: Vec<(u32, u8)> = layout.patch_constants.keys().copied().collect();
        assert_eq!(keys, vec![(0, 0), (1, 0), (2, 0), (3, 0), (4, 1), (4, 2)]);
        assert_eq!(
            layout.patch_constants[&(3, 0)].system_value,
            SystemValue::TriInsideTessFactor
        );
        assert_eq!(
            layout.patch_constants[&(4, 1)].system_value,
            SystemValue::Undefined
        );
        assert_eq!(layout.patch_register_count(), 5);
    }

    #[test]
    fn a_hull_shader_without_control_point_phase() {
        let layout = layout(
            "hs_5_0
hs_decls
dcl_input_control_point_count 4
dcl_output_control_point_count 4
dcl_tessellator_domain domain_quad
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
hs_fork_phase
dcl_output_siv o0.x, finalQuadUeq0EdgeTessFactor
mov o0.x, l(1.000000)
ret
",
        );
        assert!(layout.control_point_phase().is_none());
        assert_eq!(layout.patch_phases().len(), 1);
    }

    #[test]
    fn other_stages_have_no_phases() {
        let program = crate::asm::parse_program("vs_5_0\nret\n").expect("assembles");
        assert!(hull_phases(&program).is_none());
    }
}
