//! Random valid cs_5_0/cs_5_1 compute programs for differential testing, with the resources
//! they run with.
//!
//! [`generate`] builds one [`Case`] from a seed (deterministic: the same seed and options give
//! the same text). The program is structure-aware (nested `if`/`else`, bounded loops,
//! `switch` with fall-through, subroutines, group-shared memory rounds between barriers,
//! indexable temps, an immediate constant buffer, doubles) and keeps to the contract the
//! differential harness relies on:
//!
//! * every thread writes only its own region of u0 (raw), u1 (structured) and u2 (typed),
//!   addressed from its flattened global thread index (`r0.x`); the last vector/element of
//!   each of those buffers is a pad that threads write only with thread-independent values
//!   (stores that run partly past the end) and never read;
//! * u3 is shared: only order-independent `atomic_*` ops, or any atomic when the dispatch runs
//!   one thread in total; `imm_atomic_*` results of shared memory are read only then;
//! * approximate instructions ([`APPROXIMATE_SLOTS`]) write a temp that is stored at once to
//!   the raw UAV [`APPROXIMATE_UAV`] at word `global_thread_index * 16 + slot` and never read;
//! * loops are bounded by a counter, group-shared memory and indexable temps are never
//!   addressed out of bounds, all temps are initialised first.
//!
//! Register use: `r0.x` the global thread index, `r0.y` the index in the group, `r0.z` and
//! `r0.w` scratch (written right before each use), `r1..=rT` data, then the approximate
//! result temp, then one counter register per loop.

#![cfg_attr(not(test), allow(dead_code))]

mod data;
mod program;
#[cfg(test)]
mod tests;

use dxbc2spirv::isa::Opcode;
use std::fmt::Write as _;

/// The raw UAV register (space 0) that receives the results of approximate instructions.
pub const APPROXIMATE_UAV: u32 = 7;

/// Approximate instructions in slot order: an instruction's result goes to word
/// `global_thread_index * 16 + slot` of [`APPROXIMATE_UAV`] (the last one run wins).
pub const APPROXIMATE_SLOTS: &[Opcode] = &[
    Opcode::Exp,
    Opcode::Log,
    Opcode::Rsq,
    Opcode::Sqrt,
    Opcode::Rcp,
    Opcode::Sincos,
    Opcode::Div,
];

/// Words per thread in the approximate-results UAV.
pub const APPROXIMATE_WORDS_PER_THREAD: u32 = 16;

/// Options of the generator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenOptions {
    /// Force a shader model, `(5, 0)` or `(5, 1)`; `None` picks one (about 1 in 3 is 5.1).
    pub model: Option<(u8, u8)>,
    /// Use double-precision instructions.
    pub doubles: bool,
    /// Use `imm_atomic_alloc`/`imm_atomic_consume` on a UAV with a counter (single-thread
    /// programs only; the buffer is a [`BufferKind::Counter`]).
    pub counters: bool,
    /// Percentage of programs that run one thread in total.
    pub single_thread_percent: u32,
    /// Upper bound on the instructions of the main body (before the final stores).
    pub max_body: u32,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            model: None,
            doubles: true,
            counters: true,
            single_thread_percent: 25,
            max_body: 90,
        }
    }
}

/// One generated test: the program, its dispatch and its resources.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The seed it was generated from.
    pub seed: u64,
    /// Shader model: `(5, 0)` or `(5, 1)`.
    pub model: (u8, u8),
    /// The compute shader, assembly text.
    pub asm: String,
    /// Dispatch size in thread groups.
    pub groups: [u32; 3],
    /// Shader resource views.
    pub srvs: Vec<Buffer>,
    /// Unordered access views (initial contents).
    pub uavs: Vec<Buffer>,
    /// cb0's words (register 0 of space 0): vector `i` is words `4i..4i+4`.
    pub constants: Vec<u32>,
}

/// A buffer bound to a register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    /// The register number (within its space).
    pub register: u32,
    /// The register space (0 for cs_5_0).
    pub space: u32,
    /// How the view reads the words.
    pub kind: BufferKind,
    /// The contents, 32-bit words.
    pub words: Vec<u32>,
}

/// The view type of a [`Buffer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferKind {
    /// A byte-address buffer.
    Raw,
    /// A structured buffer of `stride`-byte elements.
    Structured {
        /// Bytes per element.
        stride: u32,
    },
    /// A typed buffer with a `.shader_test` format name (`r32-uint`, `r32g32b32a32-uint`).
    Typed {
        /// The format name.
        format: &'static str,
    },
    /// A structured buffer of stride 4 with a UAV counter that starts at 0
    /// (`size (counter_buffer, N)`); only in single-thread programs.
    Counter,
}

impl Buffer {
    /// The section lines after the header (format/stride, size, blank line, data).
    fn write_section(&self, out: &mut String, class: &str) {
        if self.space == 0 {
            let _ = writeln!(out, "[{class} {}]", self.register);
        } else {
            let _ = writeln!(out, "[space {} {class} {}]", self.space, self.register);
        }
        match self.kind {
            BufferKind::Raw => {
                out.push_str("format r32-typeless\n");
                let _ = writeln!(out, "size (raw_buffer, {})", self.words.len());
            }
            BufferKind::Structured { stride } => {
                let _ = writeln!(out, "stride {stride}");
                let elements = self.words.len() as u32 / (stride / 4).max(1);
                let _ = writeln!(out, "size (buffer, {elements})");
            }
            BufferKind::Typed { format } => {
                let _ = writeln!(out, "format {format}");
                let per = if format.starts_with("r32g32b32a32") {
                    4
                } else {
                    1
                };
                let _ = writeln!(out, "size (buffer, {})", self.words.len() / per);
            }
            BufferKind::Counter => {
                let _ = writeln!(out, "size (counter_buffer, {})", self.words.len());
            }
        }
        out.push('\n');
        for line in self.words.chunks(8) {
            let text: Vec<String> = line.iter().map(|w| format!("0x{w:08x}")).collect();
            out.push_str(&text.join(" "));
            out.push('\n');
        }
        out.push('\n');
    }
}

impl Case {
    /// The thread-group size the program declares (`dcl_thread_group`; 1, 1, 1 if none).
    pub fn threads(&self) -> [u32; 3] {
        let mut size = [1u32; 3];
        if let Some(line) = self
            .asm
            .lines()
            .find_map(|l| l.trim().strip_prefix("dcl_thread_group"))
        {
            for (slot, n) in size.iter_mut().zip(line.split(',')) {
                *slot = n.trim().parse().unwrap_or(1);
            }
        }
        size
    }

    /// Threads in the whole dispatch.
    pub fn total_threads(&self) -> u32 {
        self.groups.iter().product::<u32>() * self.threads().iter().product::<u32>()
    }

    /// A complete `.shader_test` file in this project's dialect: requirement, one section per
    /// buffer, the program, and a `[test]` section with cb0 (`uniform`), the dispatch and
    /// `probes` appended verbatim.
    pub fn shader_test(&self, probes: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "% dxbc2spirv difftest generator, seed {} ({} threads)\n",
            self.seed,
            self.total_threads()
        );
        let _ = writeln!(
            out,
            "[require]\nshader model >= {}.{}\n",
            self.model.0, self.model.1
        );
        for srv in &self.srvs {
            srv.write_section(&mut out, "srv");
        }
        for uav in &self.uavs {
            uav.write_section(&mut out, "uav");
        }
        out.push_str("[compute shader asm]\n");
        out.push_str(&self.asm);
        if !self.asm.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\n[test]\n");
        for (i, v) in self.constants.chunks(4).enumerate() {
            let words: Vec<String> = (0..4)
                .map(|c| v.get(c).copied().unwrap_or(0).to_string())
                .collect();
            let _ = writeln!(out, "uniform {} uint4 {}", i * 4, words.join(" "));
        }
        let _ = writeln!(
            out,
            "dispatch {} {} {}",
            self.groups[0], self.groups[1], self.groups[2]
        );
        out.push_str(probes);
        if !probes.is_empty() && !probes.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

/// A small deterministic PRNG (splitmix64).
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x6a09_e667_f3bc_c908)
    }

    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        if n == 0 {
            0
        } else {
            ((self.next() >> 32) % u64::from(n)) as u32
        }
    }

    /// A number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// True with probability `percent`/100.
    pub(crate) fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    /// One element of `items`, which must not be empty (every caller passes a constant list).
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
}

/// Generates the case of `seed`.
pub fn generate(seed: u64, options: &GenOptions) -> Case {
    program::build(seed, options)
}
