//! Stream output in the runner (this project's extension): the `[stream output]` layout is
//! given to the translator for the shader sections of its stage that follow it; a draw whose
//! last pre-rasterization shader was translated with a layout binds its zero-filled
//! `buffer` slots, captures into them (Vulkan transform feedback) and keeps their contents
//! for `probe so` until the next such draw.

use std::collections::{BTreeMap, HashMap};

use super::probe::{self, Addressing, Outcome};
use super::{Contents, FileRun};
use crate::shader_test::stream_output::StreamOutputSection;
use crate::shader_test::{Probe, ProbeArea, ProbeValues, Stage};
use crate::vulkan;

/// The strides of the four slots and the captured buffers by slot.
type Captured = ([u32; 4], BTreeMap<u32, Vec<u8>>);

/// The stream-output state of a file's run.
#[derive(Debug)]
pub(super) struct StreamOutputRun {
    /// The layouts of the `[stream output]` sections seen so far, by stage.
    pub(super) sections: HashMap<Stage, StreamOutputSection>,
    /// The layout each stage's current shader was translated with.
    pub(super) loaded: HashMap<Stage, StreamOutputSection>,
    /// The strides and buffers captured by the last draw with stream output.
    captured: Option<Captured>,
    /// What the last draw with stream output did.
    contents: Contents,
    /// Whether that draw's shaders are expected to compile with fxc.
    fxc_ok: bool,
}

impl Default for StreamOutputRun {
    fn default() -> Self {
        StreamOutputRun {
            sections: HashMap::new(),
            loaded: HashMap::new(),
            captured: None,
            contents: Contents::Fail("no draw has captured stream output".into()),
            fxc_ok: false,
        }
    }
}

impl StreamOutputRun {
    /// Records the layout a newly loaded shader of `stage` was translated with.
    pub(super) fn loaded(&mut self, stage: Stage) -> Option<&StreamOutputSection> {
        match self.sections.get(&stage) {
            Some(section) => {
                self.loaded.insert(stage, section.clone());
            }
            None => {
                self.loaded.remove(&stage);
            }
        }
        self.loaded.get(&stage)
    }
}

impl FileRun<'_> {
    /// The layout of the draw's last pre-rasterization stage, if its shader has one.
    pub(super) fn draw_stream_output(&self) -> Option<StreamOutputSection> {
        let last = [Stage::Geometry, Stage::Domain]
            .into_iter()
            .find(|s| self.shaders.contains_key(s))
            .unwrap_or(Stage::Vertex);
        self.stream_output.loaded.get(&last).cloned()
    }

    /// Fills a draw's stream-output buffers and rasterized stream from `section`.
    pub(super) fn prepare_stream_output(
        draw: &mut vulkan::Draw<'_>,
        section: Option<&StreamOutputSection>,
    ) {
        let Some(section) = section else { return };
        draw.rasterized_stream = section.layout.rasterized_stream;
        for &(slot, size) in &section.buffers {
            let slot = slot as usize;
            if draw.stream_output.len() <= slot {
                draw.stream_output.resize(slot + 1, None);
            }
            draw.stream_output[slot] = Some(vulkan::FeedbackBuffer {
                data: vec![0; size as usize],
            });
        }
    }

    /// Keeps what a draw with stream output captured.
    pub(super) fn store_stream_output(
        &mut self,
        section: &StreamOutputSection,
        buffers: Vec<Option<vulkan::FeedbackBuffer>>,
    ) {
        let strides = [0u32, 1, 2, 3].map(|slot| section.layout.stride(slot));
        let buffers = buffers
            .into_iter()
            .enumerate()
            .filter_map(|(slot, b)| b.map(|b| (slot as u32, b.data)))
            .collect();
        self.stream_output.captured = Some((strides, buffers));
    }

    /// Records the outcome of a draw for `probe so` (only draws with stream output).
    pub(super) fn stream_output_written(
        &mut self,
        had_layout: bool,
        outcome: &Contents,
        fxc_ok: bool,
    ) {
        if had_layout {
            self.stream_output.contents = outcome.clone();
            self.stream_output.fxc_ok = fxc_ok;
        }
    }

    /// Checks `probe so SLOT (VERTEX, WORD) values`.
    pub(super) fn probe_stream_output(
        &self,
        slot: u32,
        vertex: u32,
        word: u32,
        values: &ProbeValues,
        ulp: u32,
    ) -> (Outcome, bool) {
        let so = &self.stream_output;
        let outcome = match (&so.contents, &so.captured) {
            (Contents::Skip(reason), _) => Outcome::Skip(reason.clone()),
            (Contents::Fail(message), _) => Outcome::Fail {
                expected: probe::describe(values),
                actual: message.clone(),
            },
            (Contents::Known, None) => Outcome::Fail {
                expected: probe::describe(values),
                actual: "no draw has captured stream output".into(),
            },
            (Contents::Known, Some((strides, buffers))) => match buffers.get(&slot) {
                None => Outcome::Fail {
                    expected: probe::describe(values),
                    actual: format!("no stream-output buffer is bound at slot {slot}"),
                },
                Some(data) => {
                    let stride = strides.get(slot as usize).copied().unwrap_or(0) as usize;
                    let start = (vertex as usize)
                        .saturating_mul(stride)
                        .saturating_add((word as usize).saturating_mul(4));
                    let data = data.get(start..).unwrap_or(&[]);
                    let probe = Probe {
                        resource: None,
                        area: ProbeArea::Element(0),
                        values: values.clone(),
                        ulp,
                    };
                    match probe::check(data, Addressing::Buffer, &probe) {
                        Outcome::Fail { expected, actual } => Outcome::Fail {
                            expected,
                            actual: format!(
                                "{actual} (slot {slot}, vertex {vertex}, byte {start})"
                            ),
                        },
                        other => other,
                    }
                }
            },
        };
        (outcome, so.fxc_ok)
    }
}
