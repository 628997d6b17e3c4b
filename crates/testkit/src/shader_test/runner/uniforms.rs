//! The constant buffers a `.shader_test` file fills with `uniform` commands.

use std::collections::BTreeMap;

/// Constant-buffer words by register of space 0: `uniform N …` writes register N.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Uniforms {
    /// Register 0, which shaders of every file may read (bound even when empty).
    pub(super) cb0: Vec<u32>,
    /// The other registers written.
    pub(super) others: BTreeMap<u32, Vec<u32>>,
}

impl Uniforms {
    /// `uniform <buffer> <offset> …`: writes `words` from word `offset`; gaps are filled
    /// with 0x7f bytes as vkd3d's runner fills them, up to whole vectors.
    pub(super) fn set(&mut self, buffer: u32, offset: u32, words: &[u32]) {
        let start = usize::try_from(offset).unwrap_or(0);
        let end = start.saturating_add(words.len());
        let uniforms = match buffer {
            0 => &mut self.cb0,
            n => self.others.entry(n).or_default(),
        };
        if uniforms.len() < end {
            uniforms.resize(end.div_ceil(4) * 4, 0x7f7f_7f7f);
        }
        if let Some(dst) = uniforms.get_mut(start..end) {
            dst.copy_from_slice(words);
        }
    }

    /// Every buffer with its register, register 0 first.
    pub(super) fn buffers(&self) -> impl Iterator<Item = (u32, &[u32])> {
        std::iter::once((0, self.cb0.as_slice()))
            .chain(self.others.iter().map(|(&r, w)| (r, w.as_slice())))
    }
}

#[cfg(test)]
mod tests {
    use super::Uniforms;

    #[test]
    fn uniform_writes_fill_gaps_with_7f_bytes_to_whole_vectors() {
        let mut u = Uniforms::default();
        u.set(0, 2, &[5]);
        assert_eq!(u.cb0, vec![0x7f7f_7f7f, 0x7f7f_7f7f, 5, 0x7f7f_7f7f]);
        u.set(3, 0, &[1, 2]);
        let all: Vec<(u32, Vec<u32>)> = u.buffers().map(|(r, w)| (r, w.to_vec())).collect();
        assert_eq!(all[1], (3, vec![1, 2, 0x7f7f_7f7f, 0x7f7f_7f7f]));
    }
}
