//! What the runner knows of multisampled targets and textures. It keeps resolved values on
//! the host; the samples themselves stay on the device, in images the Vulkan context keeps
//! between draws ([`vulkan::KeptUse`]): a target drawn again continues its kept image, and
//! `copy rtv N srv M` gives the texture a copy of it.

use std::collections::{BTreeMap, BTreeSet};

use crate::vulkan::{self, KeptUse};

/// A render target's slot.
type Slot = u32;

/// The multisampled state of one file's run.
#[derive(Debug, Default)]
pub(super) struct Multisample {
    /// Targets drawn to (or copied into) since they were declared or cleared: their samples
    /// are not their host texels.
    drawn: BTreeSet<Slot>,
    /// The kept image holding a drawn target's samples.
    kept: BTreeMap<Slot, u64>,
    /// Textures (resource keys) whose samples are a copy of a kept image.
    copies: BTreeMap<super::Key, u64>,
    /// Multisampled resources whose contents were copied from one whose samples are not
    /// known (a copy of a copy, a texture copied into a target).
    unknown: BTreeSet<super::Key>,
    /// Every id this run asked the context to keep.
    ids: Vec<u64>,
}

impl Multisample {
    /// A target or texture is declared (again) or cleared: its host texels are its samples.
    pub(super) fn reset(&mut self, key: super::Key) {
        self.unknown.remove(&key);
        self.copies.remove(&key);
        if key.0 == crate::shader_test::ResourceKind::Rtv {
            self.drawn.remove(&key.2);
            self.kept.remove(&key.2);
        }
    }

    /// How a draw uses multisampled target `slot` whose host texels are `data` of `format`:
    /// a new kept image, the kept one continued, or why it cannot.
    pub(super) fn target_use(
        &mut self,
        slot: Slot,
        format: vulkan::Format,
        data: &[u8],
    ) -> Result<KeptUse, String> {
        if self.drawn.contains(&slot) {
            return self
                .kept
                .get(&slot)
                .map(|&id| KeptUse::Continue(id))
                .ok_or_else(|| {
                    format!(
                        "runner: rtv {slot} is multisampled and its samples are not known (copied \
                     into it, or lent to a copy); they cannot start another draw"
                    )
                });
        }
        if !vulkan::uniform_texels(format, data) {
            return Err(format!(
                "runner: rtv {slot} is multisampled with per-texel contents; Vulkan cannot copy \
                 contents into a multisampled image (it can only clear one to a value)"
            ));
        }
        let id = vulkan::next_kept_id();
        self.ids.push(id);
        self.kept.insert(slot, id);
        Ok(KeptUse::Start(id))
    }

    /// A draw wrote multisampled target `slot`.
    pub(super) fn drawn(&mut self, slot: Slot) {
        self.drawn.insert(slot);
    }

    /// `copy` from `src` (multisampled when `multisampled`) into `dst`.
    pub(super) fn copied(&mut self, src: super::Key, dst: super::Key, multisampled: bool) {
        let kept = (src.0 == crate::shader_test::ResourceKind::Rtv && self.drawn.contains(&src.2))
            .then(|| self.kept.remove(&src.2))
            .flatten();
        self.reset(dst);
        if dst.0 == crate::shader_test::ResourceKind::Rtv {
            self.drawn.insert(dst.2);
        }
        match kept {
            // The target's kept image becomes the texture's source; the target's own
            // samples are no longer known to the runner.
            Some(id) if dst.0 != crate::shader_test::ResourceKind::Rtv => {
                self.copies.insert(dst, id);
            }
            _ if multisampled => {
                self.unknown.insert(dst);
            }
            _ => {}
        }
    }

    /// How a multisampled texture `key` is bound: a copy of a kept image, or its host
    /// texels (`None`), or why it cannot be.
    pub(super) fn texture_use(&self, key: super::Key) -> Result<Option<KeptUse>, String> {
        if self.unknown.contains(&key) {
            return Err(format!(
                "runner: t{} is multisampled with contents copied from a multisampled resource \
                 whose samples the runner does not have",
                key.2
            ));
        }
        Ok(self.copies.get(&key).map(|&id| KeptUse::CopyOf(id)))
    }

    /// Releases every image this run had the context keep.
    pub(super) fn release(&mut self, ctx: &vulkan::Context) {
        ctx.release_kept(&self.ids);
        self.ids.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader_test::ResourceKind;

    const TEXEL: [u8; 4] = [0, 0, 128, 63];

    #[test]
    fn a_target_starts_continues_and_lends_its_samples_to_a_copy() {
        let mut ms = Multisample::default();
        let rtv = (ResourceKind::Rtv, 0, 0);
        let srv = (ResourceKind::Srv, 0, 1);
        let data = TEXEL.repeat(4);
        let Ok(KeptUse::Start(id)) = ms.target_use(0, vulkan::Format::R32Float, &data) else {
            panic!("a fresh target with one repeated texel starts a kept image");
        };
        ms.drawn(0);
        assert_eq!(
            ms.target_use(0, vulkan::Format::R32Float, &data),
            Ok(KeptUse::Continue(id)),
            "a target drawn again continues its kept image"
        );
        ms.copied(rtv, srv, true);
        assert_eq!(ms.texture_use(srv), Ok(Some(KeptUse::CopyOf(id))));
        let lent = ms.target_use(0, vulkan::Format::R32Float, &data);
        assert!(lent.is_err(), "the lent samples cannot continue: {lent:?}");
        ms.reset(rtv);
        assert!(matches!(
            ms.target_use(0, vulkan::Format::R32Float, &data),
            Ok(KeptUse::Start(other)) if other != id
        ));
        assert_eq!(ms.ids.len(), 2, "{:?}", ms.ids);
    }

    #[test]
    fn unknown_samples_are_refused_with_the_reason() {
        let mut ms = Multisample::default();
        let mut data = TEXEL.repeat(2);
        data[0] = 1;
        let err = ms.target_use(3, vulkan::Format::R32Float, &data);
        assert!(
            matches!(&err, Err(why) if why.contains("rtv 3") && why.contains("per-texel")),
            "{err:?}"
        );
        // A copy of a texture whose samples the runner does not have.
        let srv = (ResourceKind::Srv, 0, 2);
        ms.copied((ResourceKind::Srv, 0, 5), srv, true);
        let err = ms.texture_use(srv);
        assert!(matches!(&err, Err(why) if why.contains("t2")), "{err:?}");
    }
}
