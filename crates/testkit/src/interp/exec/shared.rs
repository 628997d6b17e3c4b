//! The record of group-shared memory writes that
//! [`crate::interp::Options::undefined_reads`] checks: D3D leaves group-shared memory
//! undefined until a thread of the group writes it, and leaves the result undefined when
//! threads of a group touch the same dword between two barriers and one of the accesses
//! is a plain store (or an atomic whose returned value is used).
//!
//! Across the whole dispatch, two threads storing different values to one UAV dword race
//! as well (no barrier orders threads of different groups), and so does a plain store to a
//! dword another thread changed with an atomic.
//!
//! The interpreter runs the threads of a phase one after another, so such a race still
//! gives it one answer; the record turns it into an error instead, so that a program (or a
//! minimiser's cut of one) whose result depends on thread order is never judged.

use dxbc2spirv::fast_hash::HashMap;

/// The last write to one dword of group-shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Write {
    /// The writer's flattened thread index in the group.
    thread: u32,
    /// The phase (count of barriers passed) it was written in.
    phase: u32,
    /// Whether it was written by an atomic that returns nothing.
    atomic: bool,
}

/// How an instruction touches a dword of group-shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Touch {
    /// A load (`ld_raw`, `ld_structured`).
    Load,
    /// A plain store.
    Store,
    /// An atomic that returns nothing (its final value does not depend on order).
    Atomic,
    /// An `imm_atomic_*`: its returned value depends on the order of the writes before.
    ImmAtomic,
}

/// The write record of one thread group, one entry per dword of each `g#`.
#[derive(Debug, Clone, Default)]
pub(super) struct Record {
    /// By the plan's `g#` slot, then by dword.
    dwords: Vec<Vec<Option<Write>>>,
    /// Barriers passed so far in this group.
    pub phase: u32,
}

impl Record {
    /// An empty record for group-shared memory of these byte sizes.
    pub fn new(sizes: impl Iterator<Item = usize>) -> Record {
        Record {
            dwords: sizes.map(|bytes| vec![None; bytes / 4]).collect(),
            phase: 0,
        }
    }

    /// Checks one access by thread `thread` to the dword at byte `at` of slot `slot` and
    /// records it; the error names what makes the access undefined.
    pub fn touch(
        &mut self,
        slot: usize,
        at: u64,
        thread: u32,
        touch: Touch,
    ) -> std::result::Result<(), String> {
        let Some(entry) = self
            .dwords
            .get_mut(slot)
            .and_then(|d| d.get_mut(usize::try_from(at / 4).ok()?))
        else {
            return Ok(());
        };
        let phase = self.phase;
        let reads = touch != Touch::Store;
        match *entry {
            None if reads => {
                return Err(format!(
                    "reads byte {at} of group-shared memory before any thread of the group writes it (D3D leaves the value undefined)"
                ))
            }
            Some(w) if w.thread != thread && w.phase == phase => {
                let orderless = touch == Touch::Atomic && w.atomic;
                if !orderless {
                    return Err(format!(
                        "thread {thread} accesses byte {at} of group-shared memory that thread {} wrote with no barrier between (the result depends on thread order)",
                        w.thread
                    ));
                }
            }
            _ => {}
        }
        if touch != Touch::Load {
            *entry = Some(Write {
                thread,
                phase,
                atomic: touch == Touch::Atomic,
            });
        }
        Ok(())
    }
}

/// A UAV dword: (space, register, byte).
type UavDword = (u32, u32, u64);

/// The last store to a UAV dword: the writer's `vThreadID` and the value, `None` for an
/// atomic's (whose value depends on order).
type Stored = ([u32; 3], Option<u32>);

/// The stores of a dispatch to UAV dwords, for the same checks across threads.
#[derive(Debug, Clone, Default)]
pub(super) struct UavRecord {
    /// The last store to each dword written.
    dwords: HashMap<UavDword, Stored>,
}

impl UavRecord {
    /// Checks a store of `value` (`None`: an atomic) by thread `thread` to the dword at byte
    /// `at` of the UAV `key` and records it.
    pub fn store(
        &mut self,
        key: (u32, u32),
        at: u64,
        thread: [u32; 3],
        value: Option<u32>,
    ) -> std::result::Result<(), String> {
        let dword = (key.0, key.1, at);
        if let Some(&(writer, old)) = self.dwords.get(&dword) {
            // Equal values (an atomic's `None` included) do not depend on the order.
            if writer != thread && value != old {
                return Err(format!(
                    "thread {thread:?} writes byte {at} of u{} (space {}) that thread {writer:?} wrote differently (the result depends on thread order)",
                    key.1, key.0
                ));
            }
        }
        self.dwords.insert(dword, (thread, value));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uav_stores_of_different_values_by_different_threads_are_refused() {
        let mut r = UavRecord::default();
        r.store((0, 1), 8, [0, 0, 0], Some(5)).unwrap();
        r.store((0, 1), 8, [1, 0, 0], Some(5)).unwrap();
        r.store((0, 1), 8, [1, 0, 0], Some(6)).unwrap();
        let race = r.store((0, 1), 8, [2, 0, 0], Some(7));
        assert!(
            race.unwrap_err().contains("thread order"),
            "different values"
        );
        r.store((0, 1), 12, [0, 0, 0], None).unwrap();
        r.store((0, 1), 12, [3, 0, 0], None).unwrap();
        assert!(
            r.store((0, 1), 12, [4, 0, 0], Some(1)).is_err(),
            "store after atomics"
        );
        r.store((0, 2), 8, [9, 0, 0], Some(1)).unwrap();
    }

    #[test]
    fn unwritten_reads_and_races_are_refused_orderless_atomics_are_not() {
        let mut r = Record::new([16usize].into_iter());
        let load = r.touch(0, 0, 0, Touch::Load);
        assert!(
            load.unwrap_err().contains("before any thread"),
            "unwritten read"
        );
        r.touch(0, 0, 0, Touch::Store).unwrap();
        r.touch(0, 0, 0, Touch::Load).unwrap();
        let race = r.touch(0, 0, 1, Touch::Load);
        assert!(
            race.unwrap_err().contains("no barrier"),
            "read of another thread's store"
        );
        r.phase += 1;
        r.touch(0, 0, 1, Touch::Load).unwrap();
        r.touch(0, 4, 0, Touch::Store).unwrap();
        r.phase += 1;
        r.touch(0, 4, 0, Touch::Atomic).unwrap();
        r.touch(0, 4, 1, Touch::Atomic).unwrap();
        let imm = r.touch(0, 4, 2, Touch::ImmAtomic);
        assert!(
            imm.is_err(),
            "imm_atomic after another thread's atomic in the phase"
        );
        let store = r.touch(0, 4, 2, Touch::Store);
        assert!(
            store.is_err(),
            "store after another thread's atomic in the phase"
        );
        // Out of range positions are the memory code's business (they read 0).
        r.touch(0, 64, 0, Touch::Load).unwrap();
    }
}
