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

use super::builder::Operand as SpvOperand;
use super::emitter::Emitter;
use super::io::Slot;
use super::module::{built, Scalar};
use crate::error::Result;
use crate::ir::{Interpolation, RegisterKind};

/// GLSL.std.450 instruction numbers used here.
const FLOOR: u32 = 8;
const INTERPOLATE_AT_CENTROID: u32 = 76;
const INTERPOLATE_AT_SAMPLE: u32 = 77;
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
        let mut operands: crate::spirv::builder::Operands =
            smallvec::smallvec![SpvOperand::IdRef(pointer)];
        if number == INTERPOLATE_AT_OFFSET {
            let zero = self.splat_bits(Scalar::F32, 0, 2);
            operands.push(SpvOperand::IdRef(zero));
        }
        built(self.m.b.ext_inst(ty, None, glsl, number, operands))
    }

    /// Prologue code of a shader that runs per sample with `SV_Position` declared without
    /// `sample`: its components become values computed here: the pixel center's.
    pub(super) fn sample_rate_prologue(&mut self) -> Result<()> {
        let Some((register, frag_coord)) = self.io.sample_rate.position else {
            return Ok(());
        };
        if !self.io.sample_rate.per_sample {
            return Ok(());
        }
        let coord = self.frag_coord_value(frag_coord)?;
        let center = self.pixel_center(coord)?;
        let kind = RegisterKind::Input;
        for component in 0..4u8 {
            let Ok(slot) = self.slot_of_register(kind, register, component) else {
                continue;
            };
            let value = self.position_at(coord, component, center)?;
            let dst = match slot.class {
                // The w value the I/O prologue computed as 1 / FragCoord.w.
                StorageClass::Private => slot.var,
                _ => {
                    let name = ["position_x", "position_y", "position_z", "position_w"];
                    let dst = self.derived_key(name[usize::from(component)]);
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
            self.set_derived(dst, value)?;
        }
        Ok(())
    }

    /// `FragCoord`, loaded (once per block, as every read of read-only memory).
    pub(super) fn frag_coord_value(&mut self, frag_coord: Word) -> Result<Word> {
        self.read_only_vector(frag_coord, 0, |e| {
            let float4 = e.m.vector(Scalar::F32, 4);
            built(e.m.load(float4, frag_coord))
        })
    }

    /// The pixel center's x and y: `floor(FragCoord.xy) + 0.5` (`coord` is `FragCoord`).
    fn pixel_center(&mut self, coord: Word) -> Result<[Word; 2]> {
        let float = self.m.scalar(Scalar::F32);
        let glsl = self.m.glsl();
        let half = self.m.constant_bits(Scalar::F32, 0.5f32.to_bits());
        let mut center = [0; 2];
        for (axis, out) in center.iter_mut().enumerate() {
            let at = built(self.m.composite_extract(float, coord, &[axis as u32]))?;
            let operands = [SpvOperand::IdRef(at)];
            let floor = built(self.m.b.ext_inst(float, None, glsl, FLOOR, operands))?;
            *out = built(self.m.b.f_add(float, None, floor, half))?;
        }
        Ok(center)
    }

    /// Component `component` of `SV_Position` at the screen position `target` (x, y), given
    /// `FragCoord` (`coord`) where the invocation runs: x and y are the target; z and 1/w
    /// are affine in screen space, so they are moved from FragCoord's place to the target by
    /// their fine derivatives (w is the reciprocal of the moved 1/w).
    fn position_at(&mut self, coord: Word, component: u8, target: [Word; 2]) -> Result<Word> {
        if let Some(&xy) = target.get(usize::from(component)) {
            return Ok(xy);
        }
        self.m.capability(Capability::DerivativeControl);
        let float = self.m.scalar(Scalar::F32);
        let here = built(
            self.m
                .composite_extract(float, coord, &[u32::from(component)]),
        )?;
        let ddx = built(self.m.b.d_pdx_fine(float, None, here))?;
        let ddy = built(self.m.b.d_pdy_fine(float, None, here))?;
        let mut value = here;
        for (axis, slope) in [ddx, ddy].into_iter().enumerate() {
            let from = built(self.m.composite_extract(float, coord, &[axis as u32]))?;
            let distance = built(self.m.b.f_sub(float, None, target[axis], from))?;
            let change = built(self.m.b.f_mul(float, None, slope, distance))?;
            value = built(self.m.b.f_add(float, None, value, change))?;
        }
        if component == 3 {
            let one = self.m.constant_bits(Scalar::F32, 1.0f32.to_bits());
            value = built(self.m.b.f_div(float, None, one, value))?;
        }
        Ok(value)
    }

    /// `eval_sample_index` (`number` [`INTERPOLATE_AT_SAMPLE`], `extra` the sample index) or
    /// `eval_snapped` ([`INTERPOLATE_AT_OFFSET`], `extra` the offset in pixels) of component
    /// `component` of `SV_Position` (`frag_coord`): the pixel center moved to the sample's
    /// standard position or by the offset, z and w following (see
    /// [`Emitter::position_at`]). `eval_centroid` of it is refused: where the centroid is
    /// depends on coverage the shader cannot see exactly.
    pub(super) fn eval_position(
        &mut self,
        frag_coord: Word,
        component: u8,
        (number, extra): (u32, Word),
    ) -> Result<Word> {
        let float = self.m.scalar(Scalar::F32);
        let offset = match number {
            INTERPOLATE_AT_SAMPLE => {
                let count = self.rasterizer_sample_count();
                self.sample_position(count, extra)?.id
            }
            INTERPOLATE_AT_OFFSET => extra,
            _ => {
                return Err(self.unsupported(
                    "eval_centroid of SV_Position: FragCoord cannot be evaluated at the \
                     centroid, and where D3D puts the centroid of a partly covered pixel \
                     depends on coverage the shader cannot see exactly (a Vulkan limitation)",
                ))
            }
        };
        let coord = self.frag_coord_value(frag_coord)?;
        let center = self.pixel_center(coord)?;
        let mut target = [0; 2];
        for (axis, out) in target.iter_mut().enumerate() {
            let d = built(self.m.composite_extract(float, offset, &[axis as u32]))?;
            *out = built(self.m.b.f_add(float, None, center[axis], d))?;
        }
        self.position_at(coord, component, target)
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
