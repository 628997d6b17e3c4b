//! Transform feedback (D3D's stream output) in a draw: buffers bound with
//! `vkCmdBindTransformFeedbackBuffersEXT`, captured between
//! `vkCmdBeginTransformFeedbackEXT` and `vkCmdEndTransformFeedbackEXT` (VK_EXT_transform_feedback),
//! then read back; and the rasterization stream of the pipeline.

use ash::vk;

use super::memory::{self, HostBuffer, Owned};
use super::{Context, VulkanError};

/// A transform-feedback buffer of a draw: its initial contents, replaced by the buffer's
/// contents after the draw (bytes the draw did not write keep their value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackBuffer {
    /// The buffer's bytes (its size is their count).
    pub data: Vec<u8>,
}

/// The transform-feedback buffers of a draw, created and bound by slot.
pub(super) struct Feedback {
    /// (slot, buffer) for every bound slot.
    buffers: Vec<(usize, HostBuffer)>,
}

impl Context {
    /// The extension's commands.
    fn transform_feedback_fns(&self) -> ash::ext::transform_feedback::Device {
        ash::ext::transform_feedback::Device::new(self.instance(), &self.device)
    }

    /// Creates the buffers of `slots` (`None` leaves a slot unbound); `None` when there are
    /// none, as then transform feedback is not begun.
    pub(super) fn create_feedback(
        &self,
        owned: &mut Owned<'_>,
        slots: &[Option<FeedbackBuffer>],
    ) -> Result<Option<Feedback>, VulkanError> {
        if slots.iter().all(Option::is_none) {
            return Ok(None);
        }
        if !self.features().transform_feedback {
            return Err(VulkanError::Invalid(
                "the device has no transform feedback (VK_EXT_transform_feedback with \
                 geometryStreams)"
                    .into(),
            ));
        }
        let mut buffers = Vec::new();
        for (slot, buffer) in slots.iter().enumerate() {
            let Some(buffer) = buffer else { continue };
            if buffer.data.is_empty() || buffer.data.len() % 4 != 0 {
                return Err(VulkanError::Invalid(format!(
                    "stream-output buffer {slot}: its size must be a non-zero multiple of 4 bytes"
                )));
            }
            let host = memory::create_buffer(
                self,
                owned,
                vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
                &buffer.data,
            )?;
            buffers.push((slot, host));
        }
        Ok(Some(Feedback { buffers }))
    }

    /// Binds the buffers and begins transform feedback (inside the render pass, after the
    /// pipeline is bound).
    pub(super) fn record_feedback_begin(&self, cmd: vk::CommandBuffer, feedback: &Feedback) {
        let xfb = self.transform_feedback_fns();
        // SAFETY: recording inside a render pass with a pipeline whose last pre-rasterization
        // stage declares Xfb; the buffers are live and have the transform-feedback usage.
        unsafe {
            for &(slot, host) in &feedback.buffers {
                let (buffer, offset, size) = (host.buffer, 0u64, host.size);
                (xfb.fp().cmd_bind_transform_feedback_buffers_ext)(
                    cmd,
                    slot as u32,
                    1,
                    &buffer,
                    &offset,
                    &size,
                );
            }
            (xfb.fp().cmd_begin_transform_feedback_ext)(
                cmd,
                0,
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
        }
    }

    /// Ends transform feedback (inside the render pass, after the draw).
    pub(super) fn record_feedback_end(&self, cmd: vk::CommandBuffer) {
        let xfb = self.transform_feedback_fns();
        // SAFETY: transform feedback was begun in this render pass.
        unsafe {
            (xfb.fp().cmd_end_transform_feedback_ext)(cmd, 0, 0, std::ptr::null(), std::ptr::null())
        };
    }

    /// Makes the captured vertices visible to the host (after the render pass).
    pub(super) fn record_feedback_readback(&self, cmd: vk::CommandBuffer) {
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFORM_FEEDBACK_WRITE_EXT)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: recording outside a render pass into a command buffer being recorded.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TRANSFORM_FEEDBACK_EXT,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            );
        }
    }

    /// Reads the buffers back into `slots` (after the submission finished).
    pub(super) fn read_feedback(
        &self,
        feedback: &Feedback,
        slots: &mut [Option<FeedbackBuffer>],
    ) -> Result<(), VulkanError> {
        for &(slot, host) in &feedback.buffers {
            if let Some(Some(buffer)) = slots.get_mut(slot) {
                memory::read(self, host, &mut buffer.data)?;
            }
        }
        Ok(())
    }
}

/// The rasterization-stream state for a pipeline: `None` when stream 0 (Vulkan's default)
/// is rasterized or nothing is; the stream create info otherwise.
pub(super) fn rasterization_stream(
    stream: Option<u32>,
) -> Option<vk::PipelineRasterizationStateStreamCreateInfoEXT<'static>> {
    match stream {
        None | Some(0) => None,
        Some(s) => Some(
            vk::PipelineRasterizationStateStreamCreateInfoEXT::default().rasterization_stream(s),
        ),
    }
}
