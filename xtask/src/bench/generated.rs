//! Generated compute shaders of 12,500 to 100,000 instructions: is translation time linear
//! in the program's size, and what does the largest cost in memory and output?
//!
//! The generator writes assembly text (`docs/assembly.md`), deterministically (a fixed-seed
//! xorshift), which `dxbc2spirv::asm::assemble` turns into a container. The mix: float and
//! integer ALU on temps, conversions and comparisons between them, constant-buffer reads,
//! raw-UAV loads and stores at computed addresses, `if`/`else`/`endif` blocks and counted
//! `loop`s (with an `if` inside some), all at most two levels deep.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use dxbc2spirv::{ReadOptions, TranslateOptions, Translator};
use serde_json::{json, Value};

use crate::paths::workspace_root;

/// The program sizes measured, in instructions (declarations not counted).
pub(super) const SIZES: [usize; 4] = [12_500, 25_000, 50_000, 100_000];

/// Rounds of each translation; the fastest is reported.
const ROUNDS: usize = 5;

/// Float temps `r0`–`r3`, integer temps `r4`–`r6`, the loop counter `r7`, addresses `r8`.
const FLOAT_REGS: u64 = 4;
/// The first integer temp.
const INT_BASE: u64 = 4;
/// How many integer temps.
const INT_REGS: u64 = 3;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    /// The next 64 random bits.
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 32) % n.max(1)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }

    /// One of `items`.
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// The program being written.
struct Writer {
    rng: Rng,
    text: String,
    /// Instructions written so far.
    count: usize,
    /// Indentation depth.
    depth: usize,
}

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

impl Writer {
    /// Writes one instruction line.
    fn emit(&mut self, line: &str) {
        let _ = writeln!(self.text, "{:width$}{line}", "", width = 2 * self.depth);
        self.count += 1;
    }

    /// A destination mask: one component, two, or all four.
    fn mask(&mut self) -> String {
        match self.rng.below(6) {
            0..=2 => COMPONENTS[self.rng.below(4) as usize].to_string(),
            3 => "xy".to_string(),
            4 => "zw".to_string(),
            _ => "xyzw".to_string(),
        }
    }

    /// A source selection for a destination of `mask`: one component for one, four otherwise.
    fn swizzle(&mut self, mask: &str) -> String {
        let n = if mask.len() == 1 { 1 } else { 4 };
        (0..n)
            .map(|_| COMPONENTS[self.rng.below(4) as usize])
            .collect()
    }

    /// A float literal of as many values as the selection needs.
    fn float_literal(&mut self, mask: &str) -> String {
        let n = if mask.len() == 1 { 1 } else { 4 };
        let values: Vec<String> = (0..n)
            .map(|_| format!("{:.6}", self.rng.below(64) as f64 * 0.25 - 4.0))
            .collect();
        format!("l({})", values.join(", "))
    }

    /// An integer literal of as many values as the selection needs.
    fn int_literal(&mut self, mask: &str) -> String {
        let n = if mask.len() == 1 { 1 } else { 4 };
        let values: Vec<String> = (0..n).map(|_| self.rng.below(32).to_string()).collect();
        format!("l({})", values.join(", "))
    }

    /// A float source: a float temp (sometimes negated), a constant or a literal.
    fn float_source(&mut self, mask: &str) -> String {
        let swizzle = self.swizzle(mask);
        match self.rng.below(10) {
            0 => format!("cb0[{}].{swizzle}", self.rng.below(16)),
            1 => self.float_literal(mask),
            2 => format!("-r{}.{swizzle}", self.rng.below(FLOAT_REGS)),
            _ => format!("r{}.{swizzle}", self.rng.below(FLOAT_REGS)),
        }
    }

    /// An integer source: an integer temp, the loop counter, a constant or a literal.
    fn int_source(&mut self, mask: &str) -> String {
        let swizzle = self.swizzle(mask);
        match self.rng.below(10) {
            0 => format!("cb0[{}].{swizzle}", self.rng.below(16)),
            1 => self.int_literal(mask),
            2 => format!("r7.{swizzle}"),
            _ => format!("r{}.{swizzle}", INT_BASE + self.rng.below(INT_REGS)),
        }
    }

    /// A float temp as a destination.
    fn float_dest(&mut self) -> u64 {
        self.rng.below(FLOAT_REGS)
    }

    /// An integer temp as a destination.
    fn int_dest(&mut self) -> u64 {
        INT_BASE + self.rng.below(INT_REGS)
    }

    /// One float ALU instruction.
    fn float_alu(&mut self) {
        let d = self.float_dest();
        let m = self.mask();
        let line = match self.rng.below(10) {
            0..=3 => {
                let op = self.rng.pick(&["add", "mul", "min", "max"]);
                let (a, b) = (self.float_source(&m), self.float_source(&m));
                format!("{op} r{d}.{m}, {a}, {b}")
            }
            4 | 5 => {
                let (a, b, c) = (
                    self.float_source(&m),
                    self.float_source(&m),
                    self.float_source(&m),
                );
                format!("mad r{d}.{m}, {a}, {b}, {c}")
            }
            6 => {
                let c = COMPONENTS[self.rng.below(4) as usize];
                let (a, b) = (self.rng.below(FLOAT_REGS), self.rng.below(FLOAT_REGS));
                format!("dp4 r{d}.{c}, r{a}.xyzw, r{b}.xyzw")
            }
            7 => {
                let op = self.rng.pick(&["sqrt", "rsq", "log"]);
                let s = self.swizzle(&m);
                format!("{op} r{d}.{m}, |r{}.{s}|", self.rng.below(FLOAT_REGS))
            }
            8 => {
                let op = self.rng.pick(&["frc", "exp", "round_ni", "mov_sat"]);
                let a = self.float_source(&m);
                format!("{op} r{d}.{m}, {a}")
            }
            _ => {
                let s = self.swizzle(&m);
                let cond = INT_BASE + self.rng.below(INT_REGS);
                let (a, b) = (self.float_source(&m), self.float_source(&m));
                format!("movc r{d}.{m}, r{cond}.{s}, {a}, {b}")
            }
        };
        self.emit(&line);
    }

    /// One integer ALU instruction.
    fn int_alu(&mut self) {
        let d = self.int_dest();
        let m = self.mask();
        let line = match self.rng.below(8) {
            0..=2 => {
                let op = self
                    .rng
                    .pick(&["iadd", "and", "or", "xor", "umin", "imax", "ine"]);
                let (a, b) = (self.int_source(&m), self.int_source(&m));
                format!("{op} r{d}.{m}, {a}, {b}")
            }
            3 => {
                let op = self.rng.pick(&["ishl", "ushr", "ishr"]);
                let a = self.int_source(&m);
                let shift = self.int_literal(&m);
                format!("{op} r{d}.{m}, {a}, {shift}")
            }
            4 => {
                let (a, b) = (self.int_source(&m), self.int_source(&m));
                format!("imul null, r{d}.{m}, {a}, {b}")
            }
            5 => {
                let (a, b, c) = (
                    self.int_source(&m),
                    self.int_source(&m),
                    self.int_source(&m),
                );
                format!("imad r{d}.{m}, {a}, {b}, {c}")
            }
            6 => {
                let op = self.rng.pick(&["lt", "ge", "eq", "ne"]);
                let (a, b) = (self.float_source(&m), self.float_source(&m));
                format!("{op} r{d}.{m}, {a}, {b}")
            }
            _ => {
                let op = self.rng.pick(&["ftoi", "ftou"]);
                let a = self.float_source(&m);
                format!("{op} r{d}.{m}, {a}")
            }
        };
        self.emit(&line);
    }

    /// An integer-to-float conversion.
    fn int_to_float(&mut self) {
        let d = self.float_dest();
        let m = self.mask();
        let op = self.rng.pick(&["itof", "utof"]);
        let a = self.int_source(&m);
        self.emit(&format!("{op} r{d}.{m}, {a}"));
    }

    /// A raw-UAV load at a computed address (two instructions).
    fn load(&mut self) {
        let c = COMPONENTS[self.rng.below(4) as usize];
        let i = INT_BASE + self.rng.below(INT_REGS);
        self.emit(&format!("and r8.y, r{i}.{c}, l(0x0000fff0)"));
        let d = if self.rng.below(2) == 0 {
            self.float_dest()
        } else {
            self.int_dest()
        };
        self.emit(&format!("ld_raw r{d}.xyzw, r8.y, u0.xyzw"));
    }

    /// A raw-UAV store at a computed address (two instructions).
    fn store(&mut self) {
        let c = COMPONENTS[self.rng.below(4) as usize];
        let i = INT_BASE + self.rng.below(INT_REGS);
        self.emit(&format!("and r8.z, r{i}.{c}, l(0x0000fff0)"));
        let s = self.rng.below(INT_BASE + INT_REGS);
        self.emit(&format!("store_raw u1.xyzw, r8.z, r{s}.xyzw"));
    }

    /// Straight-line code of exactly `n` instructions.
    fn straight(&mut self, mut n: usize) {
        while n > 0 {
            let roll = self.rng.below(100);
            if n >= 2 && roll < 8 {
                self.load();
                n -= 2;
            } else if n >= 2 && roll < 13 {
                self.store();
                n -= 2;
            } else {
                match roll % 10 {
                    0..=5 => self.float_alu(),
                    6..=8 => self.int_alu(),
                    _ => self.int_to_float(),
                }
                n -= 1;
            }
        }
    }

    /// An `if` block with a body (and sometimes an `else`) of `n` instructions in all,
    /// counting `if`, `else` and `endif`; `n` is at least 3.
    fn if_block(&mut self, n: usize) {
        let c = COMPONENTS[self.rng.below(4) as usize];
        let i = INT_BASE + self.rng.below(INT_REGS);
        let test = self.rng.pick(&["if_nz", "if_z"]);
        self.emit(&format!("{test} r{i}.{c}"));
        self.depth += 1;
        let body = n - 2;
        if body >= 3 && self.rng.below(3) == 0 {
            let first = body / 2;
            self.straight(first);
            self.depth -= 1;
            self.emit("else");
            self.depth += 1;
            self.straight(body - first - 1);
        } else {
            self.straight(body);
        }
        self.depth -= 1;
        self.emit("endif");
    }

    /// A loop running 1–4 times with a body of `n` instructions in all, counting the
    /// counter's set-up, test, increment, `loop` and `endloop`; `n` is at least 7.
    fn loop_block(&mut self, n: usize) {
        let trips = self.rng.range(1, 4);
        self.emit("mov r7.x, l(0)");
        self.emit("loop");
        self.depth += 1;
        self.emit(&format!("uge r8.w, r7.x, l({trips})"));
        self.emit("breakc_nz r8.w");
        let mut body = n - 6;
        if body >= 8 && self.rng.below(2) == 0 {
            let inner = self.rng.range(3, body - 3);
            let before = self.rng.range(0, body - inner);
            self.straight(before);
            self.if_block(inner);
            body -= inner + before;
        }
        self.straight(body);
        self.emit("iadd r7.x, r7.x, l(1)");
        self.depth -= 1;
        self.emit("endloop");
    }
}

/// The assembly text of a compute shader of exactly `instructions` instructions (at least 16;
/// declarations not counted), the same text for the same size every time. Every size starts
/// from the same seed, so a smaller program is, up to its last few blocks, the beginning of a
/// larger one: the sizes differ in length, not in mix.
pub(super) fn program(instructions: usize) -> String {
    let instructions = instructions.max(16);
    let mut w = Writer {
        rng: Rng(0x9e37_79b9_7f4a_7c15),
        text: String::new(),
        count: 0,
        depth: 0,
    };
    w.text.push_str(
        "cs_5_0\n\
         dcl_globalFlags refactoringAllowed\n\
         dcl_constantbuffer CB0[16], immediateIndexed\n\
         dcl_uav_raw u0\n\
         dcl_uav_raw u1\n\
         dcl_input vThreadID.x\n\
         dcl_temps 9\n\
         dcl_thread_group 64, 1, 1\n",
    );
    for line in [
        "ishl r8.x, vThreadID.x, l(4)",
        "ld_raw r0.xyzw, r8.x, u0.xyzw",
        "ld_raw r4.xyzw, r8.x, u1.xyzw",
        "mov r1.xyzw, cb0[0].xyzw",
        "mov r2.xyzw, cb0[1].xyzw",
        "mov r3.xyzw, l(1.000000, 2.000000, 3.000000, 4.000000)",
        "mov r5.xyzw, cb0[2].xyzw",
        "mov r6.xyzw, l(1, 2, 3, 4)",
        "mov r7.xyzw, l(0, 0, 0, 0)",
        "mov r8.yzw, l(0, 0, 0, 0)",
    ] {
        w.emit(line);
    }
    // The body, leaving three instructions for the epilogue.
    let end = instructions - 3;
    while w.count < end {
        let left = end - w.count;
        let roll = w.rng.below(100);
        if left >= 30 && roll < 4 {
            let n = w.rng.range(10, 24);
            w.loop_block(n);
        } else if left >= 12 && roll < 12 {
            let n = w.rng.range(4, 10);
            w.if_block(n);
        } else {
            let n = w.rng.range(1, 6).min(left);
            w.straight(n);
        }
    }
    w.emit("store_raw u1.xyzw, r8.x, r0.xyzw");
    w.emit("store_raw u0.xyzw, r8.x, r4.xyzw");
    w.emit("ret");
    w.text
}

/// What was measured for one generated shader.
struct Figures {
    instructions: usize,
    container_bytes: usize,
    fastest_ms: f64,
    spirv_bytes: usize,
}

/// Generates, translates (kept `Translator`, the fastest of [`ROUNDS`]) and validates the
/// shaders of [`SIZES`], prints their figures and the peak RSS of translating the largest in
/// a fresh process with the release command `exe`.
pub(super) fn run(exe: &Path, options: &TranslateOptions) -> Result<Value> {
    let dir = workspace_root().join("target").join("bench-generated");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let spirv_val = crate::tools::spirv_tools_bin().join("spirv-val");
    let mut translator = Translator::new();
    let mut figures = Vec::new();
    let mut largest = None;
    println!(
        "generated compute shaders (float and integer ALU, raw UAV loads and stores, constant \
         reads, if and loop blocks), kept Translator, fastest of {ROUNDS} rounds:"
    );
    println!(
        "{:>12} {:>12} {:>10} {:>10} {:>12} {:>10}",
        "instructions", "container B", "ms", "µs/instr", "SPIR-V B", "spirv-val"
    );
    for &size in &SIZES {
        let text = program(size);
        let bytes = dxbc2spirv::asm::assemble(&text)
            .with_context(|| format!("assembling the generated {size}-instruction shader"))?;
        let dxbc = dxbc2spirv::read(&bytes, &ReadOptions::default())?;
        let program = dxbc.program.as_ref().context("no program")?;
        let instructions = program
            .instructions
            .iter()
            .filter(|i| !i.opcode.is_declaration())
            .count();
        if instructions != size {
            bail!("the generated shader has {instructions} instructions, not {size}");
        }
        let mut fastest = f64::INFINITY;
        let mut words = Vec::new();
        for _ in 0..ROUNDS {
            let start = std::time::Instant::now();
            let t = translator
                .translate(&bytes, options)
                .with_context(|| format!("translating the generated {size}-instruction shader"))?;
            fastest = fastest.min(start.elapsed().as_secs_f64() * 1e3);
            words = t.words;
        }
        let path = dir.join(format!("cs_{size}.dxbc"));
        std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
        let validated = if spirv_val.is_file() {
            let spv = dir.join(format!("cs_{size}.spv"));
            let spirv: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&spv, spirv)?;
            let out = Command::new(&spirv_val)
                .arg("--target-env")
                .arg("vulkan1.3")
                .arg(&spv)
                .output()
                .with_context(|| format!("running {}", spirv_val.display()))?;
            if !out.status.success() {
                bail!(
                    "spirv-val rejects the module of the generated {size}-instruction shader \
                     ({}): {}",
                    spv.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            "ok"
        } else {
            "not found"
        };
        println!(
            "{:>12} {:>12} {:>10.2} {:>10.3} {:>12} {:>10}",
            size,
            bytes.len(),
            fastest,
            fastest * 1e3 / size as f64,
            words.len() * 4,
            validated
        );
        figures.push(Figures {
            instructions: size,
            container_bytes: bytes.len(),
            fastest_ms: fastest,
            spirv_bytes: words.len() * 4,
        });
        largest = Some(path);
    }
    let per_instruction = |f: &Figures| f.fastest_ms / f.instructions as f64;
    let (first, last) = (&figures[0], &figures[figures.len() - 1]);
    let linearity = per_instruction(last) / per_instruction(first);
    println!(
        "time per instruction at {} against {}: {linearity:.2}× (1.00 = linear)",
        last.instructions, first.instructions
    );
    let mut report = json!({
        "rounds": ROUNDS,
        "shaders": figures.iter().map(|f| json!({
            "instructions": f.instructions,
            "container_bytes": f.container_bytes,
            "fastest_ms": f.fastest_ms,
            "us_per_instruction": per_instruction(f) * 1e3,
            "spirv_bytes": f.spirv_bytes,
        })).collect::<Vec<_>>(),
        "per_instruction_ratio": linearity,
    });
    if let Some(path) = largest {
        match super::peak_rss_kb(exe, &path)? {
            Some(kb) => {
                println!(
                    "peak RSS translating the {}-instruction shader in a fresh process: {:.2} MB",
                    last.instructions,
                    kb as f64 / 1024.0
                );
                report["peak_rss_kb"] = json!(kb);
            }
            None => println!("peak RSS: /usr/bin/time not found (apt-get install time)"),
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_programs_have_the_size_asked_and_translate() {
        for size in [16, 500, 1_003] {
            let text = program(size);
            assert_eq!(text, program(size), "the generator is deterministic");
            let bytes = dxbc2spirv::asm::assemble(&text).expect("assembles");
            let dxbc = dxbc2spirv::read(&bytes, &ReadOptions::default()).expect("reads");
            let program = dxbc.program.expect("a program");
            let instructions = program
                .instructions
                .iter()
                .filter(|i| !i.opcode.is_declaration())
                .count();
            assert_eq!(instructions, size);
            dxbc2spirv::translate_bytes(&bytes, &TranslateOptions::default()).expect("translates");
        }
    }
}
