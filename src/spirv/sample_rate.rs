//! Pixel shaders that run once per sample, as Direct3D defines them.
//!
//! A pixel shader runs once per covered sample when it reads `SV_SampleIndex` or declares an
//! input with `sample` interpolation (D3D11 functional specification, 16.3 "Sample
//! Frequency Execution"). Its other inputs keep their declared place: an input declared
//! `linear` (or `linear noperspective`) is still evaluated at the pixel center, one declared
//! `centroid` at the centroid, and `SV_Position` is the pixel center unless it is declared
//! with `sample` interpolation.
//!
//! Vulkan evaluates every input at the sample being shaded once sample shading is on (the
//! `SampleId` built-in or a `Sample` decoration turns it on, with `minSampleShading` 1.0),
//! and `FragCoord.xy` is then the sample's position. So in such a shader:
//!
//! - an input declared without `sample` is read with `InterpolateAtOffset` (offset 0, the
//!   pixel center) or `InterpolateAtCentroid` instead of a load;
//! - `SV_Position.xy` is `floor(FragCoord.xy) + 0.5`. Its `.z` and `.w` are affine in
//!   screen space, so their value at the center is the sample's value moved back by the
//!   screen-space derivatives: `z - dFdxFine(z) * dx - dFdyFine(z) * dy`, with (dx, dy) the
//!   sample's offset from the center (`.w` is rebuilt the same way from `FragCoord.w`, the
//!   interpolated 1/w, before taking its reciprocal).

use spirv::{Capability, StorageClass, Word};

use super::dr::Operand as SpvOperand;
use super::emitter::Emitter;
use super::io::Slot;
use super::module::{built, Scalar};
use crate::error::Result;
use crate::ir::{Interpolation, RegisterKind};

/// GLSL.std.450 instruction numbers used here.
const FLOOR: u32 = 8;
const INTERPOLATE_AT_CENTROID: u32 = 76;
const INTERPOLATE_AT_OFFSET: u32 = 78;

/// What the translation of a pixel shader needs to know to keep D3D's evaluation places
/// when the shader runs per sample.
#[derive(Debug, Default)]
pub struct SampleRate {
    /// The shader reads `SV_SampleIndex` or has a `sample`-interpolated input.
    per_sample: bool,
    /// Interpolated float inputs declared without `sample`: variable → declared `centroid`.
    centered: std::collections::BTreeMap<Word, bool>,
    /// `SV_Position` when declared without `sample` interpolation: (register, the
    /// `FragCoord` variable).
    position: Option<(u32, Word)>,
}

impl Emitter<'_> {
    /// Notes a pixel shader's interpolated float input variable and its declared mode.
    pub(super) fn note_interpolation(&mut self, var: Word, mode: Interpolation) {
        match mode {
            Interpolation::LinearSample | Interpolation::LinearNoPerspectiveSample => {
                self.io.sample_rate.per_sample = true;
            }
            Interpolation::LinearCentroid | Interpolation::LinearNoPerspectiveCentroid => {
                self.io.sample_rate.centered.insert(var, true);
            }
            _ => {
                self.io.sample_rate.centered.insert(var, false);
            }
        }
    }

    /// Notes that the pixel shader reads `SV_SampleIndex`.
    pub(super) fn note_sample_index(&mut self) {
        self.io.sample_rate.per_sample = true;
    }

    /// Notes a pixel shader's `SV_Position` input (at `register`, read from `frag_coord`).
    pub(super) fn note_position(
        &mut self,
        register: u32,
        frag_coord: Word,
        mode: Option<Interpolation>,
    ) {
        match mode {
            Some(Interpolation::LinearSample | Interpolation::LinearNoPerspectiveSample) => {
                self.io.sample_rate.per_sample = true;
            }
            _ => self.io.sample_rate.position = Some((register, frag_coord)),
        }
    }

    /// Reads an input variable, or a pointer into one (`var` is the variable): a load, or in
    /// a shader that runs per sample, its evaluation at the place its declaration names.
    pub(super) fn read_input(&mut self, ty: Word, var: Word, pointer: Word) -> Result<Word> {
        let Some(&centroid) = self.io.sample_rate.centered.get(&var) else {
            return built(self.m.load(ty, pointer));
        };
        match (self.io.sample_rate.per_sample, centroid) {
            (false, _) => built(self.m.load(ty, pointer)),
            (true, false) => self.interpolate(ty, INTERPOLATE_AT_OFFSET, pointer),
            (true, true) => self.interpolate(ty, INTERPOLATE_AT_CENTROID, pointer),
        }
    }

    /// `InterpolateAtCentroid`, or `InterpolateAtOffset` at offset 0 (the pixel center), of
    /// an interpolated input.
    fn interpolate(&mut self, ty: Word, number: u32, pointer: Word) -> Result<Word> {
        self.m.capability(Capability::InterpolationFunction);
        let glsl = self.m.glsl();
        let mut operands = vec![SpvOperand::IdRef(pointer)];
        if number == INTERPOLATE_AT_OFFSET {
            let zero = self.splat_bits(Scalar::F32, 0, 2);
            operands.push(SpvOperand::IdRef(zero));
        }
        built(self.m.b.ext_inst(ty, None, glsl, number, operands))
    }

    /// Prologue code of a shader that runs per sample with `SV_Position` declared without
    /// `sample`: its components become Private copies holding the pixel center's values.
    pub(super) fn sample_rate_prologue(&mut self) -> Result<()> {
        let Some((register, frag_coord)) = self.io.sample_rate.position else {
            return Ok(());
        };
        if !self.io.sample_rate.per_sample {
            return Ok(());
        }
        let float = self.m.scalar(Scalar::F32);
        let float4 = self.m.vector(Scalar::F32, 4);
        let glsl = self.m.glsl();
        let half = self.m.constant_bits(Scalar::F32, 0.5f32.to_bits());
        let coord = built(self.m.load(float4, frag_coord))?;
        // The pixel center's x and y, and the sample's offset from it (dx, dy).
        let mut center = [0; 2];
        let mut offset = [0; 2];
        for axis in 0..2 {
            let at = built(self.m.composite_extract(float, coord, &[axis as u32]))?;
            let floor =
                built(
                    self.m
                        .b
                        .ext_inst(float, None, glsl, FLOOR, [SpvOperand::IdRef(at)]),
                )?;
            center[axis] = built(self.m.b.f_add(float, None, floor, half))?;
            offset[axis] = built(self.m.b.f_sub(float, None, at, center[axis]))?;
        }
        let [dx, dy] = offset;
        self.m.capability(Capability::DerivativeControl);
        let kind = RegisterKind::Input;
        for component in 0..4u8 {
            let Ok(slot) = self.slot_of_register(kind, register, component) else {
                continue;
            };
            let value = match component {
                0 | 1 => center[usize::from(component)],
                _ => {
                    // z, or FragCoord.w (1/w) when the slot is the Private w copy.
                    let sample = built(self.m.composite_extract(
                        float,
                        coord,
                        &[u32::from(component)],
                    ))?;
                    let ddx = built(self.m.b.d_pdx_fine(float, None, sample))?;
                    let ddy = built(self.m.b.d_pdy_fine(float, None, sample))?;
                    let by_x = built(self.m.b.f_mul(float, None, ddx, dx))?;
                    let by_y = built(self.m.b.f_mul(float, None, ddy, dy))?;
                    let moved = built(self.m.b.f_sub(float, None, sample, by_x))?;
                    let value = built(self.m.b.f_sub(float, None, moved, by_y))?;
                    if component == 3 {
                        let one = self.m.constant_bits(Scalar::F32, 1.0f32.to_bits());
                        built(self.m.b.f_div(float, None, one, value))?
                    } else {
                        value
                    }
                }
            };
            let dst = match slot.class {
                // The w copy the I/O prologue filled with 1 / FragCoord.w.
                StorageClass::Private => slot.var,
                _ => {
                    let name = ["position_x", "position_y", "position_z", "position_w"];
                    let dst = self.private_copy(Scalar::F32, name[usize::from(component)]);
                    self.set_scalar_slot(
                        kind,
                        register,
                        component,
                        dst,
                        StorageClass::Private,
                        Scalar::F32,
                    );
                    dst
                }
            };
            built(self.m.store(dst, value))?;
        }
        Ok(())
    }

    /// The slot of a declared input register component (no operand needed).
    fn slot_of_register(&self, kind: RegisterKind, register: u32, component: u8) -> Result<Slot> {
        self.io
            .slots
            .get(&(kind as u8, register, component))
            .copied()
            .ok_or_else(|| self.err("SV_Position component not declared"))
    }
}
