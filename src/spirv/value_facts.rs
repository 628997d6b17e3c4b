//! What the emitter knows of the values it made by taking vectors apart, putting them
//! together and reinterpreting them, so that it does not make the round trips the
//! optimiser's `simplify` would remove:
//!
//! - a component of a vector put together from scalars is that scalar;
//! - a vector put together from the components of one vector, in order, is that vector (and
//!   from bitcasts of them, one bitcast of it);
//! - a bitcast back to the type a value was bitcast from is that value.
//!
//! A fact is about an SSA id and holds wherever the id may be used: the value it names
//! dominates the id, so every use of the id may take the value instead.

use spirv::Word;

use super::module::Scalar;
use super::opt::info::IdMap;

/// How a value was made. The table by id holds it with a construct's parts as an index
/// into a side table (`Fact<u32>`, 8 bytes), so that it stays small for a module of many
/// values.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Fact<Parts = [Word; 4]> {
    /// Nothing known.
    #[default]
    None,
    /// `OpCompositeExtract` of component `index` of `source`, a vector of `count` `scalar`s.
    Extract {
        source: Word,
        index: u8,
        count: u8,
        scalar: Scalar,
    },
    /// `OpCompositeConstruct` of these scalars (unused slots 0).
    Construct(Parts),
    /// `OpBitcast` of `source`, whose components were `from`.
    Bitcast { source: Word, from: Scalar },
}

impl<P> Fact<P> {
    /// The same fact with a construct's parts given by `parts`.
    fn with_parts<Q>(self, parts: impl FnOnce(P) -> Option<Q>) -> Fact<Q> {
        match self {
            Fact::None => Fact::None,
            Fact::Extract {
                source,
                index,
                count,
                scalar,
            } => Fact::Extract {
                source,
                index,
                count,
                scalar,
            },
            Fact::Construct(p) => parts(p).map_or(Fact::None, Fact::Construct),
            Fact::Bitcast { source, from } => Fact::Bitcast { source, from },
        }
    }
}

/// The most ids of a program whose facts table lists the ids it sets, so that the next
/// translation clears only those.
pub const TRACKED_IDS: usize = 1 << 16;

/// The facts of one translation, by id.
#[derive(Debug)]
pub struct ValueFacts {
    facts: IdMap<Fact<u32>>,
    /// The parts of the constructs the table names.
    constructs: Vec<[Word; 4]>,
}

impl Default for ValueFacts {
    fn default() -> Self {
        ValueFacts {
            facts: IdMap::tracked(),
            constructs: Vec::new(),
        }
    }
}

impl ValueFacts {
    /// Forgets everything (for the next translation), keeping the memory, with room for
    /// ids below `ids` and a few constructs.
    ///
    /// The table of a program with more than [`TRACKED_IDS`] ids does not keep a list of
    /// the ids it sets (which would add half its memory again); it is let go afterwards.
    pub fn forget(&mut self, ids: usize) {
        if ids > TRACKED_IDS {
            self.facts = IdMap::untracked();
        } else if self.facts.is_tracked() {
            self.facts.clear();
        } else {
            self.facts = IdMap::tracked();
        }
        self.facts.reserve(ids);
        self.constructs.clear();
        self.constructs.reserve(16);
    }

    /// The bytes of memory the table holds.
    pub fn held_bytes(&self) -> usize {
        self.facts.held_bytes() + crate::fast_hash::vec_bytes(&self.constructs)
    }

    /// What is known of `id`.
    #[inline]
    pub fn get(&self, id: Word) -> Fact {
        self.facts
            .get(id)
            .with_parts(|at| self.constructs.get(at as usize).copied())
    }

    /// Records how `id` was made.
    #[inline]
    pub fn set(&mut self, id: Word, fact: Fact) {
        let constructs = &mut self.constructs;
        let stored = fact.with_parts(|parts| {
            constructs.push(parts);
            Some((constructs.len() - 1) as u32)
        });
        self.facts.set(id, stored);
    }

    /// The vector `parts` take apart in order, when each part `i` is component `i` of one
    /// vector of exactly `parts.len()` `scalar`s.
    pub fn whole_vector(&self, scalar: Scalar, parts: &[Word]) -> Option<Word> {
        let mut whole = None;
        for (i, &part) in parts.iter().enumerate() {
            match self.get(part) {
                Fact::Extract {
                    source,
                    index,
                    count,
                    scalar: s,
                } if index as usize == i
                    && count as usize == parts.len()
                    && s == scalar
                    && whole.is_none_or(|w| w == source) =>
                {
                    whole = Some(source)
                }
                _ => return None,
            }
        }
        whole
    }

    /// Whether `parts`, each itself or a bitcast of it, are the components of one vector
    /// in order (see [`ValueFacts::whole_vector`]): `Some(true)` when any is a bitcast,
    /// `Some(false)` when none is, `None` when they are not.
    pub fn whole_vector_through_bitcasts(&self, parts: &[Word]) -> Option<bool> {
        self.vector_through_bitcasts(parts)
            .map(|(_, _, any_bitcast)| any_bitcast)
    }

    /// The vector whose components `parts` are in order, each itself or a bitcast of it
    /// (see [`ValueFacts::whole_vector`]): the vector, its components' type, and whether
    /// any part is a bitcast.
    pub fn vector_through_bitcasts(&self, parts: &[Word]) -> Option<(Word, Scalar, bool)> {
        let mut peeled = [0; 4];
        let mut any_bitcast = false;
        for (to, &part) in peeled.iter_mut().zip(parts) {
            *to = match self.get(part) {
                Fact::Bitcast { source, .. } => {
                    any_bitcast = true;
                    source
                }
                _ => part,
            };
        }
        let peeled = peeled.get(..parts.len())?;
        let Fact::Extract { scalar, .. } = self.get(*peeled.first()?) else {
            return None;
        };
        self.whole_vector(scalar, peeled)
            .map(|vector| (vector, scalar, any_bitcast))
    }

    /// The vector of `from`s whose bitcast components `parts` are, in order (see
    /// [`ValueFacts::whole_vector`]), with `from`.
    pub fn whole_bitcast_vector(&self, parts: &[Word]) -> Option<(Word, Scalar)> {
        let mut sources = [0; 4];
        let mut from = None;
        for (slot, &part) in sources.iter_mut().zip(parts) {
            match self.get(part) {
                Fact::Bitcast { source, from: f } if from.is_none_or(|x| x == f) => {
                    *slot = source;
                    from = Some(f);
                }
                _ => return None,
            }
        }
        let from = from?;
        let whole = self.whole_vector(from, &sources[..parts.len()])?;
        Some((whole, from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extract(source: Word, index: u8, count: u8) -> Fact {
        Fact::Extract {
            source,
            index,
            count,
            scalar: Scalar::F32,
        }
    }

    #[test]
    fn a_stored_fact_is_small_and_reads_back() {
        assert!(std::mem::size_of::<Fact<u32>>() <= 8);
        let mut f = ValueFacts::default();
        f.set(7, Fact::Construct([1, 2, 3, 0]));
        f.set(8, extract(7, 1, 3));
        assert_eq!(f.get(7), Fact::Construct([1, 2, 3, 0]));
        assert_eq!(f.get(8), extract(7, 1, 3));
    }

    #[test]
    fn components_in_order_of_one_vector_are_the_vector() {
        let mut f = ValueFacts::default();
        for (id, index) in [(11, 0), (12, 1), (13, 2), (14, 3)] {
            f.set(id, extract(10, index, 4));
        }
        assert_eq!(f.whole_vector(Scalar::F32, &[11, 12, 13, 14]), Some(10));
        assert_eq!(
            f.whole_vector(Scalar::F32, &[12, 11, 13, 14]),
            None,
            "order"
        );
        assert_eq!(f.whole_vector(Scalar::F32, &[11, 12, 13]), None, "too few");
        assert_eq!(f.whole_vector(Scalar::U32, &[11, 12, 13, 14]), None, "type");
        f.set(15, extract(20, 3, 4));
        assert_eq!(
            f.whole_vector(Scalar::F32, &[11, 12, 13, 15]),
            None,
            "two vectors"
        );
        assert_eq!(
            f.whole_vector(Scalar::F32, &[11, 12, 13, 99]),
            None,
            "unknown"
        );
    }

    #[test]
    fn bitcast_components_in_order_are_a_bitcast_of_the_vector() {
        let mut f = ValueFacts::default();
        f.set(11, extract(10, 0, 2));
        f.set(12, extract(10, 1, 2));
        f.set(
            21,
            Fact::Bitcast {
                source: 11,
                from: Scalar::F32,
            },
        );
        f.set(
            22,
            Fact::Bitcast {
                source: 12,
                from: Scalar::F32,
            },
        );
        assert_eq!(f.whole_bitcast_vector(&[21, 22]), Some((10, Scalar::F32)));
        assert_eq!(f.whole_bitcast_vector(&[22, 21]), None);
        f.set(
            23,
            Fact::Bitcast {
                source: 12,
                from: Scalar::I32,
            },
        );
        assert_eq!(
            f.whole_bitcast_vector(&[21, 23]),
            None,
            "mixed source types"
        );
        f.forget(0);
        assert_eq!(f.get(21), Fact::None);
    }
}
