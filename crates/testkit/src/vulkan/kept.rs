//! Multisampled render targets kept by the context between draws. Vulkan copies nothing
//! between a buffer and a multisampled image, so a caller that keeps only resolved values
//! on the host cannot give a later draw (or a texture copied from the target) the samples
//! a draw left; the context keeps such an image instead, under an id the caller chooses
//! ([`next_kept_id`]), until the caller releases it ([`Context::release_kept`]).
//!
//! A kept image lives in `TRANSFER_SRC_OPTIMAL` between submissions (where the read-back of
//! its draw leaves it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use ash::vk;

use super::image::{self, HostImage};
use super::{Context, ImageShape, VulkanError};

/// How an image takes part in keeping: see [`ImageShape::kept`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeptUse {
    /// A multisampled render target whose new image the context keeps under this id
    /// (replacing any image kept under it); its samples start with the fill value.
    Start(u64),
    /// A multisampled render target drawn on the image kept under this id, its samples as
    /// the last draw left them.
    Continue(u64),
    /// A multisampled texture whose samples are copied from the image kept under this id
    /// (of the same format, size and sample count).
    CopyOf(u64),
}

/// A fresh id for [`KeptUse`], unique in the process.
pub fn next_kept_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The images a context keeps, by id.
#[derive(Debug, Default)]
pub(super) struct KeptImages(Mutex<HashMap<u64, Kept>>);

/// One kept image with its memory and shape.
#[derive(Debug, Clone, Copy)]
struct Kept {
    image: vk::Image,
    memory: vk::DeviceMemory,
    shape: ImageShape,
}

impl KeptImages {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Kept>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Context {
    /// Creates the image of `info` (shape `shape`) and keeps it under `id`, freeing the one
    /// kept under it before.
    pub(super) fn keep_new_image(
        &self,
        id: u64,
        info: &vk::ImageCreateInfo<'_>,
        shape: ImageShape,
    ) -> Result<vk::Image, VulkanError> {
        let (image, memory) = image::allocate_image_memory(self, info)?;
        let old = self.kept.lock().insert(
            id,
            Kept {
                image,
                memory,
                shape,
            },
        );
        if let Some(old) = old {
            self.free_kept(old);
        }
        Ok(image)
    }

    /// The image kept under `id`, which must have `shape` (its `kept` field aside).
    pub(super) fn kept_image(&self, id: u64, shape: &ImageShape) -> Result<vk::Image, VulkanError> {
        let kept = self.kept.lock().get(&id).copied();
        match kept {
            Some(k)
                if ImageShape {
                    kept: None,
                    ..k.shape
                } == ImageShape {
                    kept: None,
                    ..*shape
                } =>
            {
                Ok(k.image)
            }
            Some(k) => Err(VulkanError::Invalid(format!(
                "the image kept under id {id} is {:?}, not {shape:?}",
                k.shape
            ))),
            None => Err(VulkanError::Invalid(format!(
                "no image is kept under id {id}"
            ))),
        }
    }

    /// Frees the images kept under `ids` (ids without one are ignored).
    pub fn release_kept(&self, ids: &[u64]) {
        let freed: Vec<Kept> = {
            let mut kept = self.kept.lock();
            ids.iter().filter_map(|id| kept.remove(id)).collect()
        };
        for k in freed {
            self.free_kept(k);
        }
    }

    /// Frees every kept image (the context is being dropped).
    pub(super) fn release_all_kept(&self) {
        let all: Vec<Kept> = self.kept.lock().drain().map(|(_, k)| k).collect();
        for k in all {
            self.free_kept(k);
        }
    }

    /// Records the copy of the image kept under `id` (in `TRANSFER_SRC_OPTIMAL`) into
    /// `dst` (in `TRANSFER_DST_OPTIMAL`, of the same shape).
    pub(super) fn record_copy_of_kept(
        &self,
        cmd: vk::CommandBuffer,
        id: u64,
        dst: &HostImage,
    ) -> Result<(), VulkanError> {
        let src = self.kept_image(id, &dst.shape)?;
        let layers = vk::ImageSubresourceLayers::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .layer_count(dst.shape.layers);
        let region = vk::ImageCopy::default()
            .src_subresource(layers)
            .dst_subresource(layers)
            .extent(vk::Extent3D {
                width: dst.shape.width,
                height: dst.shape.height,
                depth: 1,
            });
        // SAFETY: a command buffer in the recording state; both images are live, of the
        // same format, size and sample count, in the layouts named.
        unsafe {
            self.device.cmd_copy_image(
                cmd,
                src,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
        }
        Ok(())
    }

    fn free_kept(&self, k: Kept) {
        // SAFETY: every submission waits for its fence before returning, so no work uses
        // the image; the image and memory belong to this device and are freed once.
        unsafe {
            self.device.destroy_image(k.image, None);
            self.device.free_memory(k.memory, None);
        }
    }
}
