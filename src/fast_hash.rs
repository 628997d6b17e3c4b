//! A fast, deterministic hasher for the translator's small integer-keyed maps.
//!
//! The emitter and the passes look up types, constants, temps and bindings by small integer
//! keys many times per instruction; std's default SipHash (built to resist hash flooding by
//! chosen keys) dominated those look-ups. The keys here come from one shader and the maps
//! live for one translation, so a multiply-rotate hash is enough. Output never depends on a
//! map's iteration order.

use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hasher over machine words.
#[derive(Debug, Clone, Copy, Default)]
pub struct FastHasher {
    hash: u64,
}

/// An odd constant with well-spread bits (from the golden ratio).
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with [`FastHasher`] (create with `HashMap::default()`).
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A `HashSet` with [`FastHasher`] (create with `HashSet::default()`).
pub type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<FastHasher>>;

/// The bytes of memory a map's table holds: its capacity in entries and their control
/// bytes (for bounding what a thread keeps between translations).
pub fn map_bytes<K, V>(map: &HashMap<K, V>) -> usize {
    map.capacity() * (std::mem::size_of::<(K, V)>() + 1)
}

/// The bytes of memory a vector's buffer holds.
pub fn vec_bytes<T>(list: &Vec<T>) -> usize {
    list.capacity() * std::mem::size_of::<T>()
}

/// The bytes of heap memory a small vector holds: none while its items are inline.
pub fn spilled_bytes<A: smallvec::Array>(list: &smallvec::SmallVec<A>) -> usize {
    if list.spilled() {
        list.capacity() * std::mem::size_of::<A::Item>()
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keep_distinct_keys_apart() {
        let mut map: HashMap<(u32, u8), u32> = HashMap::default();
        for r in 0..200u32 {
            for c in 0..4u8 {
                map.insert((r, c), r * 4 + u32::from(c));
            }
        }
        assert_eq!(map.len(), 800);
        assert_eq!(map.get(&(17, 3)), Some(&71));
        let mut set: HashSet<Vec<u32>> = HashSet::default();
        assert!(set.insert(vec![1, 2, 3]));
        assert!(!set.insert(vec![1, 2, 3]));
        assert!(set.insert(vec![1, 2]));
    }

    #[test]
    fn byte_tails_of_different_lengths_differ() {
        let hash = |bytes: &[u8]| {
            let mut h = FastHasher::default();
            h.write(bytes);
            h.finish()
        };
        assert_ne!(hash(&[0]), hash(&[0, 0]));
        assert_ne!(hash(b"abc"), hash(b"abd"));
    }
}
