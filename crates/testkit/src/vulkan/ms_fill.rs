//! The starting contents of a multisampled image. Vulkan cannot copy a buffer into a
//! multisampled image, so an image whose texels are all equal (a cleared render target) is
//! cleared to that texel's value; other contents cannot be uploaded this way.

use ash::vk;

use super::{Format, VulkanError};

/// The clear value that gives every sample of a multisampled image of `format` the texel
/// all of `data` repeats; an error when the texels differ or the format has no clear value
/// here.
pub(super) fn uniform_fill(
    format: Format,
    data: &[u8],
) -> Result<vk::ClearColorValue, VulkanError> {
    if !uniform_texels(format, data) {
        return Err(VulkanError::Invalid(
            "a multisampled image can start only with every texel equal (cleared): Vulkan \
             cannot copy per-texel or per-sample contents into it"
                .into(),
        ));
    }
    texel_clear_value(format, data.get(..format.texel_size()).unwrap_or_default())
}

/// Whether `data`, texels of `format`, repeats one texel (what a multisampled image can
/// start with).
pub fn uniform_texels(format: Format, data: &[u8]) -> bool {
    let size = format.texel_size();
    let first = data.get(..size).unwrap_or_default();
    size == 0 || data.chunks_exact(size).all(|texel| texel == first)
}

/// The clear value of one texel of `format` (its bytes, little-endian).
fn texel_clear_value(format: Format, texel: &[u8]) -> Result<vk::ClearColorValue, VulkanError> {
    let words = |width: usize| -> [u32; 4] {
        let mut out = [0u32; 4];
        for (slot, chunk) in out.iter_mut().zip(texel.chunks_exact(width)) {
            let mut bytes = [0u8; 4];
            bytes[..width].copy_from_slice(chunk);
            *slot = u32::from_le_bytes(bytes);
        }
        out
    };
    Ok(match format {
        Format::R32Float | Format::R32G32Float | Format::R32G32B32A32Float => vk::ClearColorValue {
            float32: words(4).map(f32::from_bits),
        },
        Format::R32Uint | Format::R32G32Uint | Format::R32G32B32A32Uint | Format::R8G8B8A8Uint => {
            vk::ClearColorValue {
                uint32: words(if format == Format::R8G8B8A8Uint { 1 } else { 4 }),
            }
        }
        Format::R32Sint | Format::R32G32Sint | Format::R32G32B32A32Sint => vk::ClearColorValue {
            int32: words(4).map(|w| w as i32),
        },
        Format::R8G8B8A8Unorm => vk::ClearColorValue {
            float32: words(1).map(|b| b as f32 / 255.0),
        },
        Format::R16G16B16A16Float => vk::ClearColorValue {
            float32: words(2).map(|h| crate::interp::alu::f16_to_f32(h as u16)),
        },
        other => {
            return Err(VulkanError::Invalid(format!(
                "a multisampled image of format {other:?} cannot be filled"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_texels_give_their_clear_value() {
        let texel: Vec<u8> = [0.5f32, -1.0, 2.0, 0.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let data = texel.repeat(3);
        let value = uniform_fill(Format::R32G32B32A32Float, &data).expect("uniform");
        // SAFETY: the union was written as float32.
        assert_eq!(unsafe { value.float32 }, [0.5, -1.0, 2.0, 0.0]);
        let value = uniform_fill(Format::R8G8B8A8Unorm, &[255, 0, 51, 255, 255, 0, 51, 255])
            .expect("uniform");
        // SAFETY: as above.
        assert_eq!(unsafe { value.float32 }, [1.0, 0.0, 0.2, 1.0]);
        let value = uniform_fill(Format::R32Sint, &(-3i32).to_le_bytes()).expect("uniform");
        // SAFETY: the union was written as int32.
        assert_eq!(unsafe { value.int32 }[0], -3);
    }

    #[test]
    fn differing_texels_are_refused() {
        let Err(err) = uniform_fill(Format::R32Float, &[0, 0, 0, 0, 0, 0, 128, 63]) else {
            panic!("two different R32Float texels (0.0, 1.0) were accepted as uniform");
        };
        assert!(err.to_string().contains("every texel equal"), "{err}");
    }
}
