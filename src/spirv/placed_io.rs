//! Inputs and outputs placed by an [`InterfaceMap`](crate::interface::InterfaceMap) (see
//! [`crate::interface`]), and a pixel shader's outputs under dual-source blending.
//!
//! A placed element is a variable of its own (or of the vector the map names) at the map's
//! `Location` and `Component`; each of its register components is a [`Slot`] of that
//! variable, so the rest of the I/O lowering (relative addressing, held stores, `eval_*`)
//! reads and writes it as it does a register's `vec4`. Per-vertex elements (`v[n][r]`,
//! control points) are arrays of it; patch constants carry `Patch`.
//!
//! Dual-source blending ([`crate::TranslateOptions::dual_source_blending`]) makes a pixel shader's
//! `o0` and `o1` `Location 0, Index 0` and `Location 0, Index 1`. Vulkan then allows at most
//! `maxFragmentDualSrcAttachments` outputs (1 on the common devices), and D3D11 ignores the
//! other targets in that mode, so `o2` and above get no variable and their writes are
//! dropped (`Self::dropped_output`; the variables of `o0` and `o1` are made in `io.rs`).

use crate::fast_hash::HashMap;
use spirv::{Decoration, StorageClass, Word};

use super::emitter::Emitter;
use super::io::Slot;
use super::module::Scalar;
use super::stage_io::ArrayedSlot;
use crate::container::{ComponentType, Signature, SignatureElement};
use crate::error::Result;
use crate::interface::{mask_span, InterfaceFile, Placement, Placements};
use crate::ir::{RegisterKind, Stage};

/// A placed variable's key: (file, storage class, location | index << 16, vector component).
type VarKey = (u8, u32, u32, u32);

/// The placements of a translation with an interface map (or dual-source blending), and the
/// variables made for them.
#[derive(Debug, Default)]
pub struct PlacedState {
    /// Where each signature element goes.
    pub placements: Placements,
    /// The files the map lists (the others keep `Location = register`).
    mapped: [bool; 3],
    /// Variables by (file, storage class, location, vector component): (variable, component
    /// type, components).
    vars: HashMap<VarKey, (Word, Scalar, u32)>,
}

/// One register component of a placed element.
#[derive(Debug, Clone, Copy)]
pub struct PlacedComponent {
    /// The variable (an array of `length` for per-vertex elements).
    pub var: Word,
    /// The component type.
    pub scalar: Scalar,
    /// The variable's components (1: a scalar).
    pub count: u32,
    /// The component inside the variable (`None` for a scalar).
    pub index: Option<u32>,
    /// Whether this call made the variable.
    pub fresh: bool,
}

fn file_code(file: InterfaceFile) -> u8 {
    match file {
        InterfaceFile::Inputs => 0,
        InterfaceFile::Outputs => 1,
        InterfaceFile::PatchConstants => 2,
    }
}

fn element_scalar(element: &SignatureElement) -> Scalar {
    match element.component_type {
        ComponentType::Uint32 => Scalar::U32,
        ComponentType::Sint32 => Scalar::I32,
        _ => Scalar::F32,
    }
}

impl Emitter<'_> {
    /// Places the signature elements when the options give an interface map or ask for
    /// dual-source blending; nothing otherwise (the register scheme).
    pub(super) fn placed_setup(&mut self) -> Result<()> {
        let map = self.options.interface.as_ref();
        let dual = self.dual_source();
        if map.is_none() && !dual {
            return Ok(());
        }
        let placements = self.placements.clone();
        let listed = |file| map.is_some_and(|m| m.list(file).is_some());
        let mapped = [
            listed(InterfaceFile::Inputs),
            listed(InterfaceFile::Outputs),
            listed(InterfaceFile::PatchConstants),
        ];
        self.io.placed = Some(Box::new(PlacedState {
            placements,
            mapped,
            vars: HashMap::default(),
        }));
        Ok(())
    }

    /// Whether the map places `file` (its components are then [`Self::placed_component`]s).
    pub(super) fn is_placed(&self, file: InterfaceFile) -> bool {
        self.io
            .placed
            .as_ref()
            .is_some_and(|p| p.mapped[file_code(file) as usize])
    }

    /// The highest location a placed output uses, plus one (0 when none): stream-output
    /// captures go after it.
    pub(super) fn placed_outputs_end(&self) -> u32 {
        let Some(placed) = &self.io.placed else {
            return 0;
        };
        placed
            .placements
            .outputs
            .iter()
            .chain(&placed.placements.patch_constants)
            .flatten()
            .map(|p| p.location.saturating_add(1))
            .max()
            .unwrap_or(0)
    }

    /// The highest location a placed control point uses, plus one: where a hull or domain
    /// shader's patch constants start when only the control points are placed.
    fn placed_control_points_end(&self) -> u32 {
        let Some(placed) = &self.io.placed else {
            return 0;
        };
        let list = if self.program.model.stage == Stage::Hull {
            &placed.placements.outputs
        } else {
            &placed.placements.inputs
        };
        list.iter()
            .flatten()
            .map(|p| p.location.saturating_add(1))
            .max()
            .unwrap_or(0)
    }

    /// Where the register scheme starts patch constants: after the control points' registers
    /// and, when a map places the control points, after their locations.
    pub(super) fn patch_location_base_with_map(&self, from_registers: u32) -> u32 {
        if self.is_placed(InterfaceFile::PatchConstants) {
            return from_registers;
        }
        from_registers.max(self.placed_control_points_end())
    }

    fn signature_of(&self, file: InterfaceFile) -> Option<&Signature> {
        match file {
            InterfaceFile::Inputs => self.reflection.input.as_ref(),
            InterfaceFile::Outputs => self.reflection.output.as_ref(),
            InterfaceFile::PatchConstants => self.reflection.patch_constant.as_ref(),
        }
    }

    /// The element of `file` holding `register`.`component` with a placement.
    fn placed_element(
        &self,
        file: InterfaceFile,
        register: u32,
        component: u8,
    ) -> Result<(SignatureElement, Placement)> {
        let placed = self
            .io
            .placed
            .as_ref()
            .ok_or_else(|| self.internal("no placements"))?;
        let list = match file {
            InterfaceFile::Inputs => &placed.placements.inputs,
            InterfaceFile::Outputs => &placed.placements.outputs,
            InterfaceFile::PatchConstants => &placed.placements.patch_constants,
        };
        let elements = self.signature_of(file).map(|s| s.elements.as_slice());
        let found =
            elements.unwrap_or(&[]).iter().zip(list).find(|(e, p)| {
                e.register == register && e.mask & (1 << component) != 0 && p.is_some()
            });
        match found {
            Some((element, Some(placement))) => Ok((element.clone(), *placement)),
            _ => Err(self.err(format!(
                "{}{register}.{} is declared, but no element of the {} signature holds it: an \
                 interface map places signature elements",
                match file {
                    InterfaceFile::Inputs => "v",
                    InterfaceFile::Outputs => "o",
                    InterfaceFile::PatchConstants => "vpc",
                },
                ['x', 'y', 'z', 'w'][usize::from(component & 3)],
                match file {
                    InterfaceFile::Inputs => "input",
                    InterfaceFile::Outputs => "output",
                    InterfaceFile::PatchConstants => "patch-constant",
                }
            ))),
        }
    }

    /// The variable and index of one register component of a placed file: the variable of
    /// its element's vector (made on first use, an array of `array` elements for per-vertex
    /// registers, `Patch` for patch constants).
    pub(super) fn placed_component(
        &mut self,
        file: InterfaceFile,
        register: u32,
        component: u8,
        class: StorageClass,
        array: Option<u32>,
    ) -> Result<PlacedComponent> {
        let (element, placement) = self.placed_element(file, register, component)?;
        let (first, _) = mask_span(element.mask);
        let at = placement.component + u32::from(component) - first;
        let index_in_vector = at - placement.vector_component;
        let count = placement.vector_components;
        let key = (
            file_code(file),
            class as u32,
            placement.location | (placement.index << 16),
            placement.vector_component,
        );
        let known = self
            .io
            .placed
            .as_ref()
            .and_then(|p| p.vars.get(&key))
            .copied();
        let (var, scalar, fresh) = match known {
            Some((var, scalar, _)) => (var, scalar, false),
            None => {
                let scalar = element_scalar(&element);
                let prefix = if class == StorageClass::Input {
                    "in"
                } else {
                    "out"
                };
                let var = self.io_global(
                    class,
                    scalar,
                    count,
                    array,
                    format_args!(
                        "{prefix}_{}{}",
                        element.semantic_name, element.semantic_index
                    ),
                );
                self.decorate(var, Decoration::Location, &[placement.location]);
                if placement.vector_component != 0 {
                    self.decorate(var, Decoration::Component, &[placement.vector_component]);
                }
                if placement.index != 0 {
                    self.decorate(var, Decoration::Index, &[placement.index]);
                }
                if file == InterfaceFile::PatchConstants {
                    self.decorate(var, Decoration::Patch, &[]);
                }
                if let Some(placed) = self.io.placed.as_mut() {
                    placed.vars.insert(key, (var, scalar, count));
                }
                (var, scalar, true)
            }
        };
        Ok(PlacedComponent {
            var,
            scalar,
            count,
            index: (count > 1).then_some(index_in_vector),
            fresh,
        })
    }

    /// Maps the components `mask` of a placed `v#`/`o#` (or a domain shader's `vpc#`) to
    /// their variables; returns the variables made by this call (for interpolation
    /// decorations) with their component types.
    pub(super) fn placed_vector(
        &mut self,
        file: InterfaceFile,
        kind: RegisterKind,
        register: u32,
        mask: u8,
        class: StorageClass,
    ) -> Result<Vec<(Word, Scalar)>> {
        let mut fresh = Vec::new();
        for component in 0..4u8 {
            if mask & (1 << component) == 0 {
                continue;
            }
            let placed = self.placed_component(file, register, component, class, None)?;
            if placed.fresh {
                fresh.push((placed.var, placed.scalar));
            }
            let slot = Slot {
                var: placed.var,
                class,
                scalar: placed.scalar,
                count: placed.count,
                index: placed.index,
            };
            self.set_slot(kind, register, component, slot);
        }
        Ok(fresh)
    }

    /// Maps the components `mask` of a placed per-vertex register (`v[n][r]`, `vicp`,
    /// control-point outputs) to arrays of `length`.
    pub(super) fn placed_arrayed(
        &mut self,
        kind: RegisterKind,
        register: u32,
        length: u32,
        mask: u8,
    ) -> Result<()> {
        let (file, class) = if kind == RegisterKind::Input {
            (InterfaceFile::Inputs, StorageClass::Input)
        } else {
            (InterfaceFile::Outputs, StorageClass::Output)
        };
        for component in 0..4u8 {
            if mask & (1 << component) == 0 {
                continue;
            }
            let placed = self.placed_component(file, register, component, class, Some(length))?;
            let slot = ArrayedSlot {
                var: placed.var,
                class,
                scalar: placed.scalar,
                count: placed.count,
                index: placed.index,
            };
            self.io
                .stage
                .arrayed
                .insert((kind as u8, register, component), slot);
        }
        Ok(())
    }

    /// Whether this is a pixel shader under dual-source blending (its `o0`/`o1` at location
    /// 0, index 0 and 1; `o2` and above dropped).
    pub(super) fn dual_source(&self) -> bool {
        self.options.dual_source_blending && self.program.model.stage == Stage::Pixel
    }

    /// Whether a write to `operand` is dropped: `o2` and above of a pixel shader under
    /// dual-source blending.
    pub(super) fn dropped_output(&self, operand: &crate::ir::Operand) -> bool {
        self.dual_source()
            && operand.kind == RegisterKind::Output
            && operand
                .indices()
                .last()
                .and_then(|i| i.as_imm32())
                .is_some_and(|r| r >= 2)
    }
}
