//! The program builder behind [`super::generate`]: structured control flow, instruction
//! choice, resources and their contents.

use super::data::{self, DOUBLE_LITERALS};
use super::{
    Buffer, BufferKind, Case, GenOptions, Rng, APPROXIMATE_SLOTS, APPROXIMATE_UAV,
    APPROXIMATE_WORDS_PER_THREAD,
};
use std::fmt::Write as _;

/// Vec4 slots per thread in u0 (the first `temps` receive the final dump).
const U0_SLOTS: u32 = 8;
/// Elements per thread in u1 and u2.
const ELEMENTS_PER_THREAD: u32 = 4;
/// Words of the shared atomic UAV u3.
const U3_WORDS: u32 = 8;
/// Vectors of cb0.
const CB_VECTORS: u32 = 16;
/// Vectors of cb0 that hold doubles (see [`data::block`]).
const CB_DOUBLE_VECTORS: &[u32] = &[2, 5, 8, 11, 14];
/// Words of each raw SRV.
const T0_WORDS: u32 = 64;
/// Elements of the structured SRV (stride 16) and of the typed SRV.
const T1_ELEMENTS: u32 = 8;
/// Entries of the immediate constant buffer and of the indexable temp.
const ARRAY_ENTRIES: u32 = 8;
/// Elements of the counter UAV.
const COUNTER_ELEMENTS: u32 = 8;
/// Loop counter registers at most.
const MAX_LOOPS: u32 = 6;

/// Operand value types (for immediates and modifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    F,
    I,
    U,
}

/// One resource range of one register: its range id (cs_5_1), register and space.
#[derive(Debug, Clone, Copy)]
struct Res {
    class: char,
    id: u32,
    reg: u32,
    space: u32,
}

/// How group-shared memory is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tgsm {
    Raw,
    Structured,
}

/// How the global thread index is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IndexFrom {
    ThreadId,
    GroupAndFlattened,
    GroupAndInGroup,
}

/// Generator state for one program.
struct Gen {
    rng: Rng,
    m51: bool,
    single: bool,
    doubles: bool,
    counters: bool,
    threads: [u32; 3],
    groups: [u32; 3],
    tpg: u32,
    total: u32,
    /// Data temps are r1..=temps.
    temps: u32,
    approx: u32,
    /// Scratch temp of the NaN canonicalisation (written right before each read).
    nan_scratch: u32,
    next_counter: u32,
    scope: Vec<u32>,
    loop_depth: u32,
    lines: Vec<String>,
    budget: i32,
    uses_doubles: bool,
    uses_icb: bool,
    uses_x0: bool,
    uses_counter_uav: bool,
    allocs: u32,
    tgsm: Option<Tgsm>,
    tgsm_rounds: u32,
    tail_value: Option<String>,
    index_from: IndexFrom,
    /// Subroutines and the current function (`None` = main).
    subs: u32,
    function: Option<u32>,
    called: Vec<bool>,
    typed_r32: bool,
    u: [Res; 5],
    u_approx: Res,
    u_counter: Res,
    t0: Res,
    t1: Res,
    t2: Res,
    cb_id: u32,
}

/// Builds the case of `seed`.
pub(super) fn build(seed: u64, options: &GenOptions) -> Case {
    let mut rng = Rng::new(seed);
    let m51 = match options.model {
        Some((5, 1)) => true,
        Some(_) => false,
        None => rng.chance(33),
    };
    let single = rng.chance(options.single_thread_percent);
    let (threads, groups) = if single {
        ([1, 1, 1], [1, 1, 1])
    } else {
        const SHAPES: &[[u32; 3]] = &[
            [2, 1, 1],
            [4, 1, 1],
            [8, 1, 1],
            [16, 1, 1],
            [32, 1, 1],
            [64, 1, 1],
            [4, 4, 1],
            [2, 2, 2],
            [8, 2, 1],
            [3, 5, 1],
            [4, 2, 4],
            [7, 1, 1],
            [5, 3, 2],
            [1, 6, 1],
            [1, 1, 3],
        ];
        const GROUPS: &[[u32; 3]] = &[
            [1, 1, 1],
            [1, 1, 1],
            [2, 1, 1],
            [1, 2, 1],
            [2, 2, 1],
            [1, 1, 3],
            [4, 1, 1],
            [1, 2, 2],
        ];
        (rng.pick(SHAPES), rng.pick(GROUPS))
    };
    let tpg = threads.iter().product::<u32>();
    let total = tpg * groups.iter().product::<u32>();
    let temps = rng.range(4, 6);

    // Registers, spaces and range ids.
    let (u, u_approx, u_counter, t0, t1, t2, cb_id);
    if m51 {
        let mut ids = [0u32, 1, 2, 3, 4, 5, 6];
        shuffle(&mut rng, &mut ids);
        let mk = |class: char, id: u32, reg: u32, space: u32| Res {
            class,
            id,
            reg,
            space,
        };
        // UAVs stay in space 0 (the harness compares space 0 by register); the SRVs take
        // other spaces.
        u = [
            mk('u', ids[0], 0, 0),
            mk('u', ids[1], 1, 0),
            mk('u', ids[2], 2, 0),
            mk('u', ids[3], 3, 0),
            mk('u', ids[4], 4, 0),
        ];
        u_approx = mk('u', ids[5], APPROXIMATE_UAV, 0);
        u_counter = u[4];
        let lo = rng.below(6);
        let mut tids = [0u32, 1, 2];
        shuffle(&mut rng, &mut tids);
        t0 = mk('t', tids[0], lo, rng.below(3));
        t1 = mk('t', tids[1], lo + 2, rng.below(3));
        t2 = mk('t', tids[2], lo + 3, rng.below(3));
        cb_id = rng.below(4);
    } else {
        let mk = |class: char, reg: u32| Res {
            class,
            id: reg,
            reg,
            space: 0,
        };
        u = [mk('u', 0), mk('u', 1), mk('u', 2), mk('u', 3), mk('u', 4)];
        u_approx = mk('u', APPROXIMATE_UAV);
        u_counter = u[4];
        t0 = mk('t', 0);
        t1 = mk('t', 1);
        t2 = mk('t', 2);
        cb_id = 0;
    }

    let index_from = match rng.below(3) {
        0 => IndexFrom::ThreadId,
        1 => IndexFrom::GroupAndFlattened,
        _ => IndexFrom::GroupAndInGroup,
    };
    let subs = rng.below(3);
    let tgsm = if rng.chance(60) {
        Some(if rng.chance(50) {
            Tgsm::Raw
        } else {
            Tgsm::Structured
        })
    } else {
        None
    };
    let budget = rng.range(15, options.max_body.max(16)) as i32;
    let g = Gen {
        m51,
        single,
        doubles: options.doubles,
        counters: options.counters,
        threads,
        groups,
        tpg,
        total,
        temps,
        approx: temps + 1,
        nan_scratch: temps + 2,
        next_counter: temps + 3,
        scope: Vec::new(),
        loop_depth: 0,
        lines: Vec::new(),
        budget,
        uses_doubles: false,
        uses_icb: rng.chance(40),
        uses_x0: rng.chance(40),
        uses_counter_uav: false,
        allocs: 0,
        tgsm,
        tgsm_rounds: 0,
        tail_value: None,
        index_from,
        subs,
        function: None,
        called: vec![false; subs as usize],
        typed_r32: rng.chance(50),
        u,
        u_approx,
        u_counter,
        t0,
        t1,
        t2,
        cb_id,
        rng,
    };
    g.program(seed)
}

/// Fisher–Yates shuffle.
fn shuffle(rng: &mut Rng, items: &mut [u32]) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        items.swap(i, j);
    }
}

impl Res {
    /// The operand naming the register (`u3`, or `u2[3]` in cs_5_1).
    fn name(&self, m51: bool) -> String {
        if m51 {
            format!("{}{}[{}]", self.class, self.id, self.reg)
        } else {
            format!("{}{}", self.class, self.reg)
        }
    }

    /// The declaration operand and its trailing space (before/after the other parameters).
    fn decl(&self, m51: bool, upper: u32) -> (String, String) {
        if m51 {
            (
                format!("{}{}[{}:{}]", self.class, self.id, self.reg, upper),
                format!(", space={}", self.space),
            )
        } else {
            (format!("{}{}", self.class, self.reg), String::new())
        }
    }
}

const COMPS: [char; 4] = ['x', 'y', 'z', 'w'];

impl Gen {
    fn emit(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
        self.budget -= 1;
    }

    fn comp(&mut self) -> char {
        COMPS[self.rng.below(4) as usize]
    }

    fn swizzle(&mut self) -> String {
        if self.rng.chance(25) {
            return "xyzw".into();
        }
        (0..4).map(|_| self.comp()).collect()
    }

    /// A swizzle for a structured read at byte `offset` of a 16-byte element: D3D leaves
    /// the whole result undefined when offset plus swizzle leave the element.
    fn element_swizzle(&mut self, offset: u32) -> String {
        let room = 4 - (offset / 4).min(3);
        (0..4)
            .map(|_| COMPS[self.rng.below(room) as usize])
            .collect()
    }

    fn mask(&mut self) -> String {
        if self.rng.chance(30) {
            return "xyzw".into();
        }
        loop {
            let bits = self.rng.below(16);
            if bits != 0 {
                return (0..4)
                    .filter(|i| bits & (1 << i) != 0)
                    .map(|i| COMPS[i])
                    .collect();
            }
        }
    }

    /// A mask `x`, `xy`, `xyz` or `xyzw` (raw and structured stores).
    fn prefix_mask(&mut self, max: u32) -> String {
        let n = self.rng.range(1, max.clamp(1, 4));
        COMPS[..n as usize].iter().collect()
    }

    fn data_reg(&mut self) -> u32 {
        self.rng.range(1, self.temps)
    }

    fn cb(&self, index: u32) -> String {
        if self.m51 {
            format!("cb{}[0][{index}]", self.cb_id)
        } else {
            format!("cb0[{index}]")
        }
    }

    fn cb_rel(&self, offset: u32) -> String {
        if self.m51 {
            format!("cb{}[0][r0.w + {offset}]", self.cb_id)
        } else {
            format!("cb0[r0.w + {offset}]")
        }
    }

    fn imm_word(&mut self, ty: Ty) -> u32 {
        match ty {
            Ty::F if self.rng.chance(85) => self.rng.pick(data::FLOATS),
            Ty::I | Ty::U if self.rng.chance(85) => self.rng.pick(data::INTS),
            _ => data::word(&mut self.rng),
        }
    }

    fn imm(&mut self, ty: Ty) -> String {
        let w: Vec<String> = (0..4)
            .map(|_| format!("0x{:08x}", self.imm_word(ty)))
            .collect();
        format!("l({})", w.join(", "))
    }

    fn imm1(&mut self, ty: Ty) -> String {
        format!("l(0x{:08x})", self.imm_word(ty))
    }

    /// A readable register with a 4-component swizzle (data temps, the thread indices,
    /// counters in scope).
    fn reg_src(&mut self) -> String {
        let roll = self.rng.below(100);
        if roll < 10 && !self.scope.is_empty() {
            let c = self.rng.pick(&self.scope.clone());
            return format!("r{c}.xxxx");
        }
        if roll < 16 {
            let s: String = (0..4)
                .map(|_| if self.rng.chance(50) { 'x' } else { 'y' })
                .collect();
            return format!("r0.{s}");
        }
        let r = self.data_reg();
        let s = self.swizzle();
        format!("r{r}.{s}")
    }

    fn modifier(&mut self, operand: String, ty: Ty) -> String {
        match ty {
            Ty::F => match self.rng.below(100) {
                0..=14 => format!("-{operand}"),
                15..=24 => format!("|{operand}|"),
                25..=29 => format!("-|{operand}|"),
                _ => operand,
            },
            Ty::I if self.rng.chance(10) => format!("-{operand}"),
            _ => operand,
        }
    }

    /// A source operand of type `ty` (register, cb0 or immediate), with source modifiers
    /// when `modifiers`.
    fn src(&mut self, ty: Ty, modifiers: bool) -> String {
        let roll = self.rng.below(100);
        let operand = if roll < 62 {
            self.reg_src()
        } else if roll < 80 {
            let k = self.rng.below(CB_VECTORS);
            let s = self.swizzle();
            format!("{}.{s}", self.cb(k))
        } else {
            return self.imm(ty);
        };
        if modifiers {
            self.modifier(operand, ty)
        } else {
            operand
        }
    }

    /// A one-component source (`r1.z`, `cb0[3].y`, `l(5)`).
    fn scalar(&mut self, ty: Ty) -> String {
        let roll = self.rng.below(100);
        if roll < 10 && !self.scope.is_empty() {
            let c = self.rng.pick(&self.scope.clone());
            return format!("r{c}.x");
        }
        if roll < 16 {
            return if self.rng.chance(50) { "r0.x" } else { "r0.y" }.into();
        }
        if roll < 70 {
            let r = self.data_reg();
            let c = self.comp();
            return format!("r{r}.{c}");
        }
        if roll < 85 {
            let k = self.rng.below(CB_VECTORS);
            let c = self.comp();
            return format!("{}.{c}", self.cb(k));
        }
        self.imm1(ty)
    }

    fn dst(&mut self) -> String {
        let r = self.data_reg();
        let m = self.mask();
        format!("r{r}.{m}")
    }

    /// A destination with one component.
    fn dst1(&mut self) -> String {
        let r = self.data_reg();
        let c = self.comp();
        format!("r{r}.{c}")
    }

    // ---- ALU -------------------------------------------------------------------------

    fn alu(&mut self) {
        const FBIN: &[&str] = &["add", "mul", "min", "max"];
        const FUN: &[&str] = &["frc", "round_ne", "round_ni", "round_pi", "round_z", "mov"];
        const FCMP: &[&str] = &["eq", "ne", "lt", "ge"];
        const IBIN: &[&str] = &["iadd", "imin", "imax", "ishl", "ishr"];
        const ICMP: &[&str] = &["ieq", "ine", "ilt", "ige"];
        const UBIN: &[&str] = &["and", "or", "xor", "umin", "umax", "ushr"];
        const UCMP: &[&str] = &["ult", "uge"];
        const UUN: &[&str] = &[
            "not",
            "bfrev",
            "countbits",
            "firstbit_hi",
            "firstbit_lo",
            "firstbit_shi",
            "f16tof32",
            "utof",
        ];
        const FCONV: &[&str] = &["ftoi", "ftou", "f32tof16"];
        const TWO: &[(&str, Ty)] = &[
            ("imul", Ty::I),
            ("umul", Ty::U),
            ("udiv", Ty::U),
            ("uaddc", Ty::U),
            ("usubb", Ty::U),
        ];
        let d = self.dst();
        match self.rng.below(20) {
            0..=2 => {
                let op = self.rng.pick(FBIN);
                let sat = self.sat();
                let a = self.src(Ty::F, true);
                let b = self.src(Ty::F, true);
                self.emit(format!("{op}{sat} {d}, {a}, {b}"));
                self.canon_f32(&d, sat);
                if op != "mul" {
                    self.canon_zero(&d);
                }
            }
            3 => {
                let op = self.rng.pick(FUN);
                let sat = self.sat();
                let a = self.src(Ty::F, true);
                self.emit(format!("{op}{sat} {d}, {a}"));
                self.canon_f32(&d, sat);
            }
            4 => {
                let sat = self.sat();
                let (a, b, c) = (
                    self.src(Ty::F, true),
                    self.src(Ty::F, true),
                    self.src(Ty::F, true),
                );
                self.emit(format!("mad{sat} {d}, {a}, {b}, {c}"));
                self.canon_f32(&d, sat);
                self.canon_zero(&d);
            }
            5 => {
                let op = self.rng.pick(&["dp2", "dp3", "dp4"]);
                let sat = self.sat();
                let a = self.src(Ty::F, true);
                let b = self.src(Ty::F, true);
                self.emit(format!("{op}{sat} {d}, {a}, {b}"));
                self.canon_f32(&d, sat);
                self.canon_zero(&d);
            }
            6 => {
                let op = self.rng.pick(FCMP);
                let a = self.src(Ty::F, true);
                let b = self.src(Ty::F, true);
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            7 | 8 => {
                let op = self.rng.pick(IBIN);
                let a = self.src(Ty::I, op == "iadd");
                let b = self.src(if op.starts_with("ish") { Ty::U } else { Ty::I }, false);
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            9 => {
                let op = self.rng.pick(ICMP);
                let a = self.src(Ty::I, false);
                let b = self.src(Ty::I, false);
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            10 | 11 => {
                let op = self.rng.pick(UBIN);
                let a = self.src(Ty::U, false);
                let b = self.src(Ty::U, false);
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            12 => {
                let op = self.rng.pick(UCMP);
                let a = self.src(Ty::U, false);
                let b = self.src(Ty::U, false);
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            13 => {
                let op = self.rng.pick(UUN);
                let a = self.src(Ty::U, false);
                self.emit(format!("{op} {d}, {a}"));
                if op == "f16tof32" {
                    self.canon_f32(&d, "");
                }
            }
            14 => {
                if self.rng.chance(50) {
                    let op = self.rng.pick(FCONV);
                    let a = self.src(Ty::F, true);
                    if op == "f32tof16" {
                        // The half bits of a NaN are not specified: a fixed half NaN instead.
                        let (s, mask) = (self.nan_scratch, d.split('.').nth(1).unwrap_or("x"));
                        self.emit(format!("ne r{s}.{mask}, {a}, {a}"));
                        self.emit(format!("{op} {d}, {a}"));
                        let r = d.split('.').next().unwrap_or("r1");
                        self.emit(format!(
                            "movc {d}, r{s}.xyzw, l(0x00007e00, 0x00007e00, 0x00007e00, 0x00007e00), {r}.xyzw"
                        ));
                    } else {
                        self.emit(format!("{op} {d}, {a}"));
                    }
                } else {
                    let op = self.rng.pick(&["itof", "ineg"]);
                    let a = self.src(Ty::I, op == "itof");
                    self.emit(format!("{op} {d}, {a}"));
                }
            }
            15 => {
                let (op, ty) = self.rng.pick(&[
                    ("imad", Ty::I),
                    ("umad", Ty::U),
                    ("ubfe", Ty::U),
                    ("ibfe", Ty::I),
                    ("bfi", Ty::U),
                ]);
                let a = self.src(Ty::U, op == "imad");
                let b = self.src(Ty::U, false);
                let c = self.src(ty, op == "imad");
                if op == "bfi" {
                    let e = self.src(Ty::U, false);
                    self.emit(format!("bfi {d}, {a}, {b}, {c}, {e}"));
                } else {
                    self.emit(format!("{op} {d}, {a}, {b}, {c}"));
                }
            }
            16 => {
                let (op, ty) = self.rng.pick(TWO);
                let (d0, d1) = self.two_dsts();
                let a = self.src(ty, false);
                let b = self.src(ty, false);
                self.emit(format!("{op} {d0}, {d1}, {a}, {b}"));
            }
            17 => {
                let c = self.src(Ty::U, false);
                let modifiers = self.rng.chance(30);
                let a = self.src(Ty::F, modifiers);
                let b = self.src(Ty::U, false);
                self.emit(format!("movc {d}, {c}, {a}, {b}"));
                if modifiers {
                    self.canon_f32(&d, "");
                }
            }
            18 => {
                let (d0, d1) = self.two_dsts_masked(true);
                let c = self.src(Ty::U, false);
                let a = self.src(Ty::U, false);
                let b = self.src(Ty::U, false);
                self.emit(format!("swapc {d0}, {d1}, {c}, {a}, {b}"));
            }
            _ => {
                let a = self.src(Ty::F, true);
                let sat = self.sat();
                self.emit(format!("mov{sat} {d}, {a}"));
                if a.starts_with('-') || a.starts_with('|') {
                    self.canon_f32(&d, sat);
                }
            }
        }
    }

    /// Replaces NaNs in the components `dst` (`r3.xz`) wrote by one fixed NaN: D3D does not
    /// specify the bits of a NaN a float operation returns, and the harness compares bits.
    /// Saturated results are never NaN.
    fn canon_f32(&mut self, dst: &str, sat: &str) {
        if sat.is_empty() {
            self.replace_where(
                dst,
                "ne",
                "",
                "l(0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000)",
            );
        }
    }

    /// Replaces a zero result of a sum (`add`, `mad`, the dot products) or of `min`/`max` in
    /// the components `dst` wrote by +0. IEEE 754 makes `-0 + +0` +0, but lavapipe folds
    /// `x + 0.0` to `x` even under `SignedZeroInfNanPreserve`, and D3D's float rules bound
    /// sums only in ULPs and let `min(-0, +0)` be either zero: the sign of such a zero is not
    /// compared, in the word stored or where it flows into integer operations (see
    /// docs/oracle.md).
    fn canon_zero(&mut self, dst: &str) {
        self.replace_where(dst, "eq", "l(0, 0, 0, 0)", "l(0, 0, 0, 0)");
    }

    /// [`Gen::canon_zero`] for the doubles of register `r` in `mask` (`xy`, `zw`, `xyzw`),
    /// after `dadd`, `dmin` or `dmax`.
    fn canon_zero_f64(&mut self, r: u32, mask: &str) {
        self.replace_doubles_where(r, mask, "deq", "l(0, 0, 0, 0)", "l(0, 0, 0, 0)");
    }

    /// Replaces the components `dst` (`r3.xz`) wrote by `replacement` where
    /// `{test} value, {other}` holds (`other` empty: the value itself), through the scratch
    /// register.
    fn replace_where(&mut self, dst: &str, test: &str, other: &str, replacement: &str) {
        let (r, mask) = dst.split_once('.').unwrap_or((dst, "xyzw"));
        let s = self.nan_scratch;
        let other = if other.is_empty() {
            format!("{r}.xyzw")
        } else {
            other.to_string()
        };
        self.emit(format!("{test} r{s}.{mask}, {r}.xyzw, {other}"));
        self.emit(format!("movc {dst}, r{s}.xyzw, {replacement}, {r}.xyzw"));
    }

    /// [`Gen::canon_f32`] for the doubles of register `r` in `mask` (`xy`, `zw`, `xyzw`).
    fn canon_f64(&mut self, r: u32, mask: &str) {
        let nan = match mask {
            "xy" => "l(0, 0x7ff80000, 0, 0)",
            "zw" => "l(0, 0, 0, 0x7ff80000)",
            _ => "l(0, 0x7ff80000, 0, 0x7ff80000)",
        };
        self.replace_doubles_where(r, mask, "dne", "", nan);
    }

    /// [`Gen::replace_where`] for the doubles of register `r` in `mask` (`xy`, `zw`,
    /// `xyzw`): their words are replaced by those of `replacement` where
    /// `{test} value, {other}` holds (`other` empty: the value itself).
    fn replace_doubles_where(
        &mut self,
        r: u32,
        mask: &str,
        test: &str,
        other: &str,
        replacement: &str,
    ) {
        let s = self.nan_scratch;
        let (result, cond, src) = match mask {
            "xy" => ("x", "xxxx", "xyxy"),
            "zw" => ("x", "xxxx", "zwzw"),
            _ => ("xy", "xxyy", "xyzw"),
        };
        let other = if other.is_empty() {
            format!("r{r}.{src}")
        } else {
            other.to_string()
        };
        self.emit(format!("{test} r{s}.{result}, r{r}.{src}, {other}"));
        self.emit(format!(
            "movc r{r}.{mask}, r{s}.{cond}, {replacement}, r{r}.xyzw"
        ));
    }

    fn sat(&mut self) -> &'static str {
        if self.rng.chance(20) {
            "_sat"
        } else {
            ""
        }
    }

    /// Two destinations in different registers (either may be `null`, not both).
    fn two_dsts(&mut self) -> (String, String) {
        self.two_dsts_masked(false)
    }

    fn two_dsts_masked(&mut self, both: bool) -> (String, String) {
        let a = self.data_reg();
        let mut b = self.data_reg();
        if b == a {
            b = if a == self.temps { 1 } else { a + 1 };
        }
        let (ma, mb) = (self.mask(), self.mask());
        let da = format!("r{a}.{ma}");
        let db = format!("r{b}.{mb}");
        if both {
            return (da, db);
        }
        match self.rng.below(4) {
            0 => ("null".into(), db),
            1 => (da, "null".into()),
            _ => (da, db),
        }
    }

    // ---- doubles ---------------------------------------------------------------------

    fn dsrc(&mut self) -> String {
        let pair = |g: &mut Gen| if g.rng.chance(50) { "xy" } else { "zw" };
        let s = format!("{}{}", pair(self), pair(self));
        let roll = self.rng.below(100);
        let operand = if roll < 65 {
            let r = self.data_reg();
            format!("r{r}.{s}")
        } else if roll < 88 {
            let k = self.rng.pick(CB_DOUBLE_VECTORS);
            format!("{}.{s}", self.cb(k))
        } else {
            let a = self.rng.pick(DOUBLE_LITERALS);
            let b = self.rng.pick(DOUBLE_LITERALS);
            return format!("d({a}, {b})");
        };
        match self.rng.below(100) {
            0..=14 => format!("-{operand}"),
            15..=22 => format!("|{operand}|"),
            23..=26 => format!("-|{operand}|"),
            _ => operand,
        }
    }

    fn dmask(&mut self) -> &'static str {
        self.rng.pick(&["xy", "zw", "xyzw", "xyzw"])
    }

    /// A 32-bit destination of one or two components.
    fn dst12(&mut self) -> String {
        let r = self.data_reg();
        let a = self.rng.below(4) as usize;
        if self.rng.chance(50) {
            return format!("r{r}.{}", COMPS[a]);
        }
        let b = (a + 1 + self.rng.below(3) as usize) % 4;
        let (a, b) = (a.min(b), a.max(b));
        format!("r{r}.{}{}", COMPS[a], COMPS[b])
    }

    fn double(&mut self) {
        self.uses_doubles = true;
        let r = self.data_reg();
        match self.rng.below(10) {
            0..=2 => {
                let op = self.rng.pick(&["dadd", "dmul", "dmin", "dmax"]);
                let m = self.dmask();
                let sat = if self.rng.chance(10) { "_sat" } else { "" };
                let (a, b) = (self.dsrc(), self.dsrc());
                self.emit(format!("{op}{sat} r{r}.{m}, {a}, {b}"));
                if sat.is_empty() {
                    self.canon_f64(r, m);
                }
                if op != "dmul" {
                    self.canon_zero_f64(r, m);
                }
            }
            3 | 9 => {
                let op = self.rng.pick(&["deq", "dne", "dlt", "dge"]);
                let d = self.dst12();
                let (a, b) = (self.dsrc(), self.dsrc());
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            4 => {
                let m = self.dmask();
                let a = self.dsrc();
                self.emit(format!("dmov r{r}.{m}, {a}"));
                if a.starts_with(['-', '|']) {
                    self.canon_f64(r, m);
                }
            }
            5 => {
                let m = self.dmask();
                let c = self.src(Ty::U, false);
                let (a, b) = (self.dsrc(), self.dsrc());
                self.emit(format!("dmovc r{r}.{m}, {c}, {a}, {b}"));
                if a.starts_with(['-', '|']) || b.starts_with(['-', '|']) {
                    self.canon_f64(r, m);
                }
            }
            6 => {
                let d = self.dst12();
                let a = self.dsrc();
                self.emit(format!("dtof {d}, {a}"));
                self.canon_f32(&d, "");
            }
            7 => {
                let m = self.rng.pick(&["xy", "xyzw"]);
                let a = self.src(Ty::F, true);
                self.emit(format!("ftod r{r}.{m}, {a}"));
                self.canon_f64(r, m);
            }
            _ => {
                // Both lanes through one op, results compared as floats too.
                let (a, b) = (self.dsrc(), self.dsrc());
                self.emit(format!("dadd r{r}.xyzw, {a}, {b}"));
                self.canon_f64(r, "xyzw");
                let d = self.dst12();
                self.emit(format!("dtof {d}, r{r}.xyzw"));
                self.canon_f32(&d, "");
            }
        }
    }

    // ---- approximate -----------------------------------------------------------------

    fn approximate(&mut self) {
        let slot = self.rng.below(APPROXIMATE_SLOTS.len() as u32);
        let op = APPROXIMATE_SLOTS[slot as usize];
        let name = op.name();
        let a = self.approx;
        match name {
            "sincos" => {
                let s = self.scalar(Ty::F);
                self.emit(format!("max r0.w, {s}, l(0xc2c80000)"));
                self.emit("min r0.w, r0.w, l(0x42c80000)");
                if self.rng.chance(50) {
                    self.emit(format!("sincos r{a}.x, null, r0.w"));
                } else {
                    self.emit(format!("sincos null, r{a}.x, r0.w"));
                }
            }
            "div" => {
                let (x, y) = (self.scalar(Ty::F), self.scalar(Ty::F));
                self.emit(format!("div r{a}.x, {x}, {y}"));
            }
            _ => {
                let mut x = self.scalar(Ty::F);
                if !x.starts_with("l(") {
                    x = self.modifier(x, Ty::F);
                }
                self.emit(format!("{name} r{a}.x, {x}"));
            }
        }
        let u7 = self.u_approx.name(self.m51);
        self.emit(format!(
            "imad r0.z, r0.x, l({}), l({})",
            APPROXIMATE_WORDS_PER_THREAD * 4,
            slot * 4
        ));
        self.emit(format!("store_raw {u7}.x, r0.z, r{a}.x"));
        self.emit(format!("mov r{a}.x, l(0)"));
    }

    // ---- memory ----------------------------------------------------------------------

    fn u0_bytes(&self) -> u32 {
        (self.total * U0_SLOTS + 1) * 16
    }

    fn u12_elements(&self) -> u32 {
        self.total * ELEMENTS_PER_THREAD + 1
    }

    fn typed_load(&self) -> &'static str {
        "ld_uav_typed_indexable(buffer)(uint,uint,uint,uint)"
    }

    /// A store to this thread's own region of u0, u1 or u2.
    fn store_own(&mut self) {
        let src = self.reg_src();
        match self.rng.below(3) {
            0 => {
                let slot = self.rng.range(self.temps, U0_SLOTS - 1);
                let m = self.prefix_mask(4);
                let u0 = self.u[0].name(self.m51);
                self.emit(format!(
                    "imad r0.z, r0.x, l({}), l({})",
                    U0_SLOTS * 16,
                    slot * 16
                ));
                self.emit(format!("store_raw {u0}.{m}, r0.z, {src}"));
            }
            1 => {
                let k = self.rng.below(ELEMENTS_PER_THREAD);
                let off = self.rng.below(4);
                let m = self.prefix_mask(4 - off);
                let u1 = self.u[1].name(self.m51);
                self.emit(format!("imad r0.z, r0.x, l({ELEMENTS_PER_THREAD}), l({k})"));
                self.emit(format!(
                    "store_structured {u1}.{m}, r0.z, l({}), {src}",
                    off * 4
                ));
            }
            _ => {
                let k = self.rng.below(ELEMENTS_PER_THREAD);
                let u2 = self.u[2].name(self.m51);
                self.emit(format!("imad r0.z, r0.x, l({ELEMENTS_PER_THREAD}), l({k})"));
                self.emit(format!("store_uav_typed {u2}.xyzw, r0.zzzz, {src}"));
            }
        }
    }

    /// A load from this thread's own region of u0, u1 or u2, or from an SRV.
    fn load(&mut self) {
        let d = self.dst();
        let s = self.swizzle();
        match self.rng.below(6) {
            0 => {
                let slot = self.rng.below(U0_SLOTS);
                let u0 = self.u[0].name(self.m51);
                self.emit(format!(
                    "imad r0.z, r0.x, l({}), l({})",
                    U0_SLOTS * 16,
                    slot * 16
                ));
                self.emit(format!("ld_raw {d}, r0.z, {u0}.{s}"));
            }
            1 => {
                let k = self.rng.below(ELEMENTS_PER_THREAD);
                let off = self.rng.below(4) * 4;
                let u1 = self.u[1].name(self.m51);
                // Components past the element's end would be undefined.
                let s = self.element_swizzle(off);
                self.emit(format!("imad r0.z, r0.x, l({ELEMENTS_PER_THREAD}), l({k})"));
                self.emit(format!("ld_structured {d}, r0.z, l({off}), {u1}.{s}"));
            }
            2 if self.typed_r32 => {
                let k = self.rng.below(ELEMENTS_PER_THREAD);
                let u2 = self.u[2].name(self.m51);
                let d = self.dst1();
                self.emit(format!("imad r0.z, r0.x, l({ELEMENTS_PER_THREAD}), l({k})"));
                self.emit(format!("{} {d}, r0.zzzz, {u2}.xxxx", self.typed_load()));
            }
            3 => {
                let (t0, flag) = self.t0_operand();
                let addr = match self.rng.below(4) {
                    0 | 1 => format!("l({})", self.rng.below(T0_WORDS / 4) * 16),
                    2 => {
                        let x = self.scalar(Ty::U);
                        self.emit(format!("and r0.z, {x}, l(0x000001fc)"));
                        "r0.z".into()
                    }
                    _ => {
                        self.emit("ishl r0.z, r0.x, l(2)");
                        "r0.z".into()
                    }
                };
                self.emit(format!("ld_raw {d}, {addr}, {t0}.{s}{flag}"));
            }
            4 => {
                let t1 = self.t1.name(self.m51);
                let index = if self.rng.chance(60) {
                    format!("l({})", self.rng.below(T1_ELEMENTS))
                } else {
                    let x = self.scalar(Ty::U);
                    self.emit(format!("and r0.z, {x}, l(15)"));
                    "r0.z".into()
                };
                let off = self.rng.below(4) * 4;
                let s = self.element_swizzle(off);
                self.emit(format!("ld_structured {d}, {index}, l({off}), {t1}.{s}"));
            }
            _ => {
                let t2 = self.t2.name(self.m51);
                let index = if self.rng.chance(60) {
                    format!("l({}, 0, 0, 0)", self.rng.below(T1_ELEMENTS))
                } else {
                    let x = self.scalar(Ty::U);
                    self.emit(format!("and r0.z, {x}, l(15)"));
                    "r0.zzzz".into()
                };
                self.emit(format!(
                    "ld_indexable(buffer)(uint,uint,uint,uint) {d}, {index}, {t2}.{s}"
                ));
            }
        }
    }

    /// The raw SRV operand: in cs_5_1 sometimes a dynamic index into its two-register range.
    /// Returns the operand and what follows its swizzle (`{nonuniform}` for a dynamic index).
    fn t0_operand(&mut self) -> (String, &'static str) {
        if self.m51 && self.rng.chance(50) {
            let x = self.scalar(Ty::U);
            self.emit(format!("and r0.w, {x}, l(1)"));
            (
                format!("t{}[r0.w + {}]", self.t0.id, self.t0.reg),
                " {nonuniform}",
            )
        } else if self.m51 && self.rng.chance(50) {
            (format!("t{}[{}]", self.t0.id, self.t0.reg + 1), "")
        } else {
            (self.t0.name(self.m51), "")
        }
    }

    /// A value the same in every thread (for stores several threads make to one place).
    /// The one value every store partly past the end writes to each dword it reaches (an
    /// immediate or a constant-buffer component, replicated): the stores may sit in different
    /// branches, and different values from different threads would race.
    fn tail_src(&mut self) -> String {
        if let Some(src) = &self.tail_value {
            return src.clone();
        }
        let src = if self.rng.chance(50) {
            let w = self.imm_word(Ty::U);
            format!("l(0x{w:08x}, 0x{w:08x}, 0x{w:08x}, 0x{w:08x})")
        } else {
            let k = self.rng.below(CB_VECTORS);
            let c = self.rng.pick(&['x', 'y', 'z', 'w']);
            format!("{}.{c}{c}{c}{c}", self.cb(k))
        };
        self.tail_value = Some(src.clone());
        src
    }

    /// Out-of-bounds accesses: loads past the end (read 0), stores wholly past the end
    /// (dropped) and stores partly past the end, all of one value ([`Gen::tail_src`]).
    fn out_of_bounds(&mut self) {
        let (u0, u1, u2) = (
            self.u[0].name(self.m51),
            self.u[1].name(self.m51),
            self.u[2].name(self.m51),
        );
        let bytes = self.u0_bytes();
        let elements = self.u12_elements();
        match self.rng.below(9) {
            0 => {
                let a = self.rng.pick(&[bytes, bytes + 16, 0xffff_fff0]);
                let src = self.reg_src();
                let m = self.prefix_mask(4);
                self.emit(format!("store_raw {u0}.{m}, l({a}), {src}"));
            }
            1 => {
                let back = self.rng.pick(&[4u32, 8, 12]);
                let src = self.tail_src();
                self.emit(format!("store_raw {u0}.xyzw, l({}), {src}", bytes - back));
            }
            2 => {
                let i = self.rng.pick(&[elements, elements + 3, 0xffff_ffff]);
                let src = self.reg_src();
                self.emit(format!("store_structured {u1}.xyzw, l({i}), l(0), {src}"));
            }
            3 => {
                let src = self.tail_src();
                let off = self.rng.below(4);
                let m = self.prefix_mask(4 - off);
                self.emit(format!(
                    "store_structured {u1}.{m}, l({}), l({}), {src}",
                    elements - 1,
                    off * 4
                ));
            }
            4 => {
                let i = self.rng.pick(&[elements, elements + 1, 0xffff_ffff]);
                let src = self.reg_src();
                self.emit(format!("store_uav_typed {u2}.xyzw, l({i}, 0, 0, 0), {src}"));
            }
            5 => {
                let src = self.tail_src();
                self.emit(format!(
                    "store_uav_typed {u2}.xyzw, l({}, 0, 0, 0), {src}",
                    elements - 1
                ));
            }
            6 => {
                let d = self.dst();
                let s = self.swizzle();
                let (res, flag, a) = if self.rng.chance(50) {
                    (u0, "", self.rng.pick(&[bytes, 0xffff_fff0]))
                } else {
                    let (t0, flag) = self.t0_operand();
                    let a = self
                        .rng
                        .pick(&[T0_WORDS * 4, T0_WORDS * 4 - 8, 0xffff_fff0]);
                    (t0, flag, a)
                };
                self.emit(format!("ld_raw {d}, l({a}), {res}.{s}{flag}"));
            }
            7 => {
                let d = self.dst();
                let s = self.swizzle();
                if self.rng.chance(50) {
                    let i = self.rng.pick(&[elements, 0xffff_ffff]);
                    self.emit(format!("ld_structured {d}, l({i}), l(0), {u1}.{s}"));
                } else {
                    let t1 = self.t1.name(self.m51);
                    let i = self.rng.pick(&[T1_ELEMENTS, 0x1000_0000]);
                    let s = self.element_swizzle(4);
                    self.emit(format!("ld_structured {d}, l({i}), l(4), {t1}.{s}"));
                }
            }
            _ => {
                let d = self.dst();
                let s = self.swizzle();
                if self.typed_r32 && self.rng.chance(50) {
                    let d = self.dst1();
                    self.emit(format!(
                        "{} {d}, l({elements}, 0, 0, 0), {u2}.xxxx",
                        self.typed_load()
                    ));
                } else {
                    let t2 = self.t2.name(self.m51);
                    let i = self.rng.pick(&[T1_ELEMENTS, 0xffff_ffff]);
                    self.emit(format!(
                        "ld_indexable(buffer)(uint,uint,uint,uint) {d}, l({i}, 0, 0, 0), {t2}.{s}"
                    ));
                }
            }
        }
    }

    fn atomic(&mut self) {
        const ORDERLESS: &[(&str, Ty)] = &[
            ("iadd", Ty::I),
            ("and", Ty::U),
            ("or", Ty::U),
            ("xor", Ty::U),
            ("imin", Ty::I),
            ("imax", Ty::I),
            ("umin", Ty::U),
            ("umax", Ty::U),
        ];
        let u3 = self.u[3].name(self.m51);
        let u0 = self.u[0].name(self.m51);
        let roll = if self.single {
            self.rng.below(8)
        } else {
            self.rng.below(6)
        };
        match roll {
            0 | 1 => {
                let (op, ty) = if self.rng.chance(35) {
                    ("iadd", Ty::I)
                } else {
                    self.rng.pick(ORDERLESS)
                };
                // Different operations on one word do not commute with each other (an add
                // and an xor): with several threads each operation keeps its own word.
                let own_word = ORDERLESS
                    .iter()
                    .position(|(o, _)| *o == op)
                    .map_or(0, |i| i as u32 % U3_WORDS);
                let a = if self.rng.chance(10) {
                    self.rng.pick(&[U3_WORDS * 4, 0xffff_fff0])
                } else if self.single {
                    self.rng.below(U3_WORDS) * 4
                } else {
                    own_word * 4
                };
                let v = self.scalar(ty);
                self.emit(format!("atomic_{op} {u3}, l({a}), {v}"));
            }
            2 => {
                // Shared: the returned value depends on thread order unless one thread runs.
                // With several threads, the add's own word (see above).
                let a = if self.single {
                    self.rng.below(U3_WORDS) * 4
                } else {
                    0
                };
                let v = self.scalar(Ty::I);
                let d = if self.single {
                    self.dst1()
                } else {
                    "r0.w".into()
                };
                self.emit(format!("imm_atomic_iadd {d}, {u3}, l({a}), {v}"));
            }
            3 | 6 | 7 if self.single => {
                const IMM: &[(&str, Ty)] = &[
                    ("iadd", Ty::I),
                    ("and", Ty::U),
                    ("or", Ty::U),
                    ("xor", Ty::U),
                    ("imin", Ty::I),
                    ("imax", Ty::I),
                    ("umin", Ty::U),
                    ("umax", Ty::U),
                    ("exch", Ty::U),
                    ("exch", Ty::U),
                    ("exch", Ty::U),
                ];
                let a = self.rng.below(U3_WORDS) * 4;
                let d = self.dst1();
                match self.rng.below(4) {
                    0 => {
                        let (c, v) = (self.scalar(Ty::U), self.scalar(Ty::U));
                        self.emit(format!("imm_atomic_cmp_exch {d}, {u3}, l({a}), {c}, {v}"));
                    }
                    1 => {
                        let (c, v) = (self.scalar(Ty::U), self.scalar(Ty::U));
                        self.emit(format!("atomic_cmp_store {u3}, l({a}), {c}, {v}"));
                    }
                    _ => {
                        let (op, ty) = self.rng.pick(IMM);
                        let v = self.scalar(ty);
                        self.emit(format!("imm_atomic_{op} {d}, {u3}, l({a}), {v}"));
                    }
                }
            }
            3 | 4 => {
                // This thread's own word of u0: any atomic, result used.
                let slot = self.rng.range(self.temps, U0_SLOTS - 1);
                let c = self.rng.below(4);
                self.emit(format!(
                    "imad r0.z, r0.x, l({}), l({})",
                    U0_SLOTS * 16,
                    slot * 16 + c * 4
                ));
                let d = self.dst1();
                if self.rng.chance(30) {
                    let (c, v) = (self.scalar(Ty::U), self.scalar(Ty::U));
                    self.emit(format!("imm_atomic_cmp_exch {d}, {u0}, r0.z, {c}, {v}"));
                } else {
                    let (op, ty) = self.rng.pick(ORDERLESS);
                    let v = self.scalar(ty);
                    self.emit(format!("imm_atomic_{op} {d}, {u0}, r0.z, {v}"));
                }
            }
            _ if self.typed_r32 => {
                let k = self.rng.below(ELEMENTS_PER_THREAD);
                let u2 = self.u[2].name(self.m51);
                self.emit(format!("imad r0.z, r0.x, l({ELEMENTS_PER_THREAD}), l({k})"));
                let (op, ty) = self.rng.pick(ORDERLESS);
                let v = self.scalar(ty);
                if self.rng.chance(50) {
                    let d = self.dst1();
                    self.emit(format!("imm_atomic_{op} {d}, {u2}, r0.z, {v}"));
                } else {
                    self.emit(format!("atomic_{op} {u2}, r0.z, {v}"));
                }
            }
            _ => {
                let v = self.scalar(Ty::I);
                self.emit(format!("atomic_iadd {u3}, l(0), {v}"));
            }
        }
    }

    /// `imm_atomic_alloc`/`imm_atomic_consume` on the counter UAV (single thread, top level
    /// of main, never more consumes than allocations).
    fn counter_op(&mut self) {
        self.uses_counter_uav = true;
        let u4 = self.u_counter.name(self.m51);
        let r = self.data_reg();
        let c = self.comp();
        if self.allocs > 0 && self.rng.chance(50) {
            self.allocs -= 1;
            self.emit(format!("imm_atomic_consume r{r}.{c}, {u4}"));
        } else {
            self.allocs += 1;
            self.emit(format!("imm_atomic_alloc r{r}.{c}, {u4}"));
        }
        let v = self.scalar(Ty::U);
        self.emit(format!("store_structured {u4}.x, r{r}.{c}, l(0), {v}"));
    }

    /// Indexable temp, immediate constant buffer or relatively addressed cb0.
    fn indexed(&mut self) {
        let d = self.dst();
        let s = self.swizzle();
        match self.rng.below(5) {
            0 if self.uses_x0 => {
                let x = self.scalar(Ty::U);
                self.emit(format!("and r0.w, {x}, l(3)"));
                let k = self.rng.below(ARRAY_ENTRIES - 3);
                self.emit(format!("mov {d}, x0[r0.w + {k}].{s}"));
            }
            1 if self.uses_x0 => {
                let x = self.scalar(Ty::U);
                self.emit(format!("and r0.w, {x}, l(3)"));
                let k = self.rng.below(ARRAY_ENTRIES - 3);
                let m = self.mask();
                let v = self.src(Ty::I, false);
                if self.rng.chance(50) {
                    self.emit(format!("mov x0[r0.w + {k}].{m}, {v}"));
                } else {
                    let w = self.src(Ty::I, false);
                    self.emit(format!("iadd x0[r0.w + {k}].{m}, {v}, {w}"));
                }
            }
            2 if self.uses_x0 => {
                let k = self.rng.below(ARRAY_ENTRIES);
                let v = self.src(Ty::F, false);
                self.emit(format!("add {d}, x0[{k}].{s}, {v}"));
                self.canon_f32(&d, "");
            }
            3 if self.uses_icb => {
                let x = self.scalar(Ty::U);
                self.emit(format!("and r0.w, {x}, l(3)"));
                let k = self.rng.below(ARRAY_ENTRIES - 3);
                if self.rng.chance(50) {
                    self.emit(format!("mov {d}, icb[r0.w + {k}].{s}"));
                } else {
                    let v = self.src(Ty::U, false);
                    self.emit(format!("xor {d}, icb[r0.w + {k}].{s}, {v}"));
                }
            }
            4 if self.uses_icb => {
                let k = self.rng.below(ARRAY_ENTRIES);
                let v = self.src(Ty::I, false);
                self.emit(format!("iadd {d}, icb[{k}].{s}, {v}"));
            }
            _ => {
                let x = self.scalar(Ty::U);
                self.emit(format!("and r0.w, {x}, l(7)"));
                let k = self.rng.below(CB_VECTORS - 7);
                self.emit(format!("mov {d}, {}.{s}", self.cb_rel(k)));
            }
        }
    }

    // ---- group-shared memory ---------------------------------------------------------

    /// One round: every thread writes its vector, barrier, optional atomics on a shared
    /// vector (initialised by thread 0), then each thread reads its neighbour's vector.
    fn tgsm_round(&mut self, kind: Tgsm) {
        let n = self.tpg;
        if self.tgsm_rounds > 0 {
            self.emit("sync_g_t");
        }
        self.tgsm_rounds += 1;
        let a = self.data_reg();
        let s = self.swizzle();
        match kind {
            Tgsm::Raw => {
                self.emit("ishl r0.z, r0.y, l(4)");
                self.emit(format!("store_raw g0.xyzw, r0.z, r{a}.{s}"));
            }
            Tgsm::Structured => {
                self.emit(format!("store_structured g0.xyzw, r0.y, l(0), r{a}.{s}"));
            }
        }
        let atomics = self.rng.chance(50);
        let shared = |k: u32| match kind {
            Tgsm::Raw => format!("l({})", n * 16 + k * 4),
            Tgsm::Structured => format!("l({n}, {}, 0, 0)", k * 4),
        };
        if atomics {
            let init = self.imm(Ty::U);
            self.emit("if_z r0.y");
            match kind {
                Tgsm::Raw => self.emit(format!("store_raw g0.xyzw, l({}), {init}", n * 16)),
                Tgsm::Structured => {
                    self.emit(format!("store_structured g0.xyzw, l({n}), l(0), {init}"))
                }
            }
            self.emit("endif");
        }
        self.emit("sync_g_t");
        let mut k = 0;
        if atomics {
            const ORDERLESS: &[(&str, Ty)] = &[
                ("iadd", Ty::I),
                ("and", Ty::U),
                ("or", Ty::U),
                ("xor", Ty::U),
                ("imin", Ty::I),
                ("imax", Ty::I),
                ("umin", Ty::U),
                ("umax", Ty::U),
            ];
            k = self.rng.below(4);
            let (op, ty) = self.rng.pick(ORDERLESS);
            let v = self.scalar(ty);
            let addr = shared(k);
            if self.single && self.rng.chance(50) {
                let d = self.dst1();
                self.emit(format!("imm_atomic_{op} {d}, g0, {addr}, {v}"));
            } else {
                self.emit(format!("atomic_{op} g0, {addr}, {v}"));
            }
            self.emit("sync_g_t");
        }
        self.emit("iadd r0.z, r0.y, l(1)");
        if self.rng.chance(50) {
            self.emit(format!("udiv null, r0.z, r0.z, l({n})"));
        } else {
            self.emit(format!("ieq r0.w, r0.z, l({n})"));
            self.emit("movc r0.z, r0.w, l(0), r0.z");
        }
        let d = self.dst();
        let s = self.swizzle();
        match kind {
            Tgsm::Raw => {
                self.emit("ishl r0.z, r0.z, l(4)");
                self.emit(format!("ld_raw {d}, r0.z, g0.{s}"));
            }
            Tgsm::Structured => {
                self.emit(format!("ld_structured {d}, r0.z, l(0), g0.{s}"));
            }
        }
        if atomics {
            let d = self.dst1();
            match kind {
                Tgsm::Raw => self.emit(format!("ld_raw {d}, l({}), g0.xxxx", n * 16 + k * 4)),
                Tgsm::Structured => {
                    self.emit(format!("ld_structured {d}, l({n}), l({}), g0.xxxx", k * 4))
                }
            }
        }
    }

    // ---- control flow ----------------------------------------------------------------

    /// A condition in `r0.w` from a comparison, or a data component.
    fn condition(&mut self) -> String {
        if self.rng.chance(55) {
            let (op, ty) = self.rng.pick(&[
                ("lt", Ty::F),
                ("ge", Ty::F),
                ("eq", Ty::F),
                ("ne", Ty::F),
                ("ilt", Ty::I),
                ("ige", Ty::I),
                ("ieq", Ty::I),
                ("ine", Ty::I),
                ("ult", Ty::U),
                ("uge", Ty::U),
            ]);
            let (a, b) = (self.scalar(ty), self.scalar(ty));
            self.emit(format!("{op} r0.w, {a}, {b}"));
            "r0.w".into()
        } else {
            self.scalar(Ty::U)
        }
    }

    fn test(&mut self) -> &'static str {
        if self.rng.chance(50) {
            "nz"
        } else {
            "z"
        }
    }

    fn block(&mut self, depth: u32, max_items: u32) {
        let n = self.rng.range(1, max_items);
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.item(depth);
        }
    }

    fn item(&mut self, depth: u32) {
        let nest = depth < 3 && self.budget > 6;
        let top_main = depth == 0 && self.function.is_none();
        let roll = self.rng.below(100);
        match roll {
            0..=33 => self.alu(),
            34..=39 => self.approximate(),
            40..=44 => self.store_own(),
            45..=50 => self.load(),
            51..=54 => self.out_of_bounds(),
            55..=59 => self.atomic(),
            60..=63 => self.indexed(),
            64..=71 if self.doubles => self.double(),
            72..=76 if nest => self.if_block(depth),
            77..=80 if nest => self.loop_block(depth),
            81..=83 if nest => self.switch_block(depth),
            84..=86 if self.loop_depth <= 1 => self.call(),
            87..=92 if top_main => match self.tgsm {
                Some(kind) => self.tgsm_round(kind),
                None => self.alu(),
            },
            93..=97 if top_main && self.single && self.counters => self.counter_op(),
            _ => self.alu(),
        }
    }

    fn if_block(&mut self, depth: u32) {
        let c = self.condition();
        let t = self.test();
        self.emit(format!("if_{t} {c}"));
        self.block(depth + 1, 4);
        if self.rng.chance(50) {
            self.emit("else");
            self.block(depth + 1, 4);
        }
        self.emit("endif");
    }

    fn loop_block(&mut self, depth: u32) {
        // Subroutines (which loops may call) hold at most one loop level.
        let max_depth = if self.function.is_some() { 1 } else { 3 };
        if self.next_counter >= self.temps + 3 + MAX_LOOPS || self.loop_depth >= max_depth {
            return self.if_block(depth);
        }
        let c = self.next_counter;
        self.next_counter += 1;
        let max = if self.function.is_some() {
            3
        } else {
            [8, 4, 2][self.loop_depth as usize]
        };
        let n = self.rng.range(1, max);
        self.emit(format!("mov r{c}.x, l(0)"));
        let limit = if self.rng.chance(40) {
            let k = self.rng.below(CB_VECTORS);
            let comp = self.comp();
            self.emit(format!("umin r{c}.y, {}.{comp}, l({n})", self.cb(k)));
            format!("r{c}.y")
        } else {
            format!("l({n})")
        };
        self.emit("loop");
        // The exit test stays true once the counter passes the limit (never `ieq`): a loop
        // whose first exit is skipped (the self-check's `loop-exit-off-by-one` fault) still
        // ends, on the device too.
        let (cmp, t) = self
            .rng
            .pick(&[("uge", "nz"), ("ult", "z"), ("ige", "nz"), ("ilt", "z")]);
        self.emit(format!("{cmp} r0.w, r{c}.x, {limit}"));
        self.emit(format!("breakc_{t} r0.w"));
        self.emit(format!("iadd r{c}.x, r{c}.x, l(1)"));
        // The body reads the counter, so one iteration more or less changes the results.
        let d = self.dst();
        let op = self.rng.pick(&["iadd", "xor", "imul", "ishl"]);
        let a = self.src(Ty::I, false);
        if op == "imul" {
            self.emit(format!("imul null, {d}, {a}, r{c}.xxxx"));
        } else {
            self.emit(format!("{op} {d}, {a}, r{c}.xxxx"));
        }
        self.scope.push(c);
        self.loop_depth += 1;
        self.block(depth + 1, 5);
        match self.rng.below(4) {
            0 => {
                let cond = self.condition();
                let t = self.test();
                self.emit(format!("continuec_{t} {cond}"));
                self.block(depth + 1, 2);
            }
            1 => {
                let cond = self.condition();
                let t = self.test();
                self.emit(format!("if_{t} {cond}"));
                self.emit("break");
                self.emit("endif");
            }
            2 => {
                let cond = self.condition();
                let t = self.test();
                self.emit(format!("breakc_{t} {cond}"));
                self.block(depth + 1, 2);
            }
            _ => {}
        }
        self.loop_depth -= 1;
        self.scope.pop();
        self.emit("endloop");
        if self.rng.chance(60) {
            // The iteration count itself, to this thread's own region.
            let slot = self.rng.range(self.temps, U0_SLOTS - 1);
            let comp = self.rng.below(4);
            let u0 = self.u[0].name(self.m51);
            self.emit(format!(
                "imad r0.z, r0.x, l({}), l({})",
                U0_SLOTS * 16,
                slot * 16 + comp * 4
            ));
            self.emit(format!("store_raw {u0}.x, r0.z, r{c}.x"));
        }
    }

    fn switch_block(&mut self, depth: u32) {
        let x = self.scalar(Ty::U);
        if self.rng.chance(80) {
            self.emit(format!("and r0.w, {x}, l(3)"));
            self.emit("switch r0.w");
        } else {
            self.emit(format!("mov r0.w, {x}"));
            self.emit("switch r0.w");
        }
        let cases = self.rng.range(1, 3);
        let mut labels: Vec<u32> = vec![0, 1, 2, 3, 0xffff_ffff];
        shuffle(&mut self.rng, &mut labels);
        let default_at = self.rng.below(cases + 1);
        let mut next = 0usize;
        for i in 0..=cases {
            if i == default_at {
                self.emit("default");
            } else {
                self.emit(format!("case l({})", labels[next]));
                next += 1;
                if self.rng.chance(25) && next < labels.len() {
                    // Two labels on one body.
                    self.emit(format!("case l({})", labels[next]));
                    next += 1;
                }
            }
            self.block(depth + 1, 3);
            // The last body breaks; others may fall through.
            if i == cases || self.rng.chance(65) {
                self.emit("break");
            }
        }
        self.emit("endswitch");
    }

    fn call(&mut self) {
        let first = self.function.map_or(0, |f| f + 1);
        if first >= self.subs {
            return self.alu();
        }
        let j = self.rng.range(first, self.subs - 1);
        self.called[j as usize] = true;
        if self.rng.chance(50) {
            self.emit(format!("call l{j}"));
        } else {
            let c = self.condition();
            let t = self.test();
            self.emit(format!("callc_{t} {c}, l{j}"));
        }
    }

    // ---- program ---------------------------------------------------------------------

    fn subroutine(&mut self, j: u32) -> Vec<String> {
        self.function = Some(j);
        let saved = std::mem::take(&mut self.lines);
        let saved_budget = self.budget;
        self.budget = self.rng.range(4, 14) as i32;
        self.emit(format!("label l{j}"));
        let parts = self.rng.range(1, 3);
        for _ in 0..parts {
            self.block(1, 4);
            if self.rng.chance(40) {
                let c = self.condition();
                let t = self.test();
                self.emit(format!("retc_{t} {c}"));
            }
        }
        self.block(1, 2);
        self.emit("ret");
        self.budget = saved_budget;
        self.function = None;
        std::mem::replace(&mut self.lines, saved)
    }

    fn program(mut self, seed: u64) -> Case {
        // Data first: cb0, the SRVs, the immediate constant buffer.
        let constants = data::block(&mut self.rng, CB_VECTORS);
        let icb = data::block(&mut self.rng, ARRAY_ENTRIES);
        let mut srvs = Vec::new();
        let t0_regs = if self.m51 { 2 } else { 1 };
        for i in 0..t0_regs {
            srvs.push(Buffer {
                register: self.t0.reg + i,
                space: self.t0.space,
                kind: BufferKind::Raw,
                words: data::block(&mut self.rng, T0_WORDS / 4),
            });
        }
        srvs.push(Buffer {
            register: self.t1.reg,
            space: self.t1.space,
            kind: BufferKind::Structured { stride: 16 },
            words: data::block(&mut self.rng, T1_ELEMENTS),
        });
        srvs.push(Buffer {
            register: self.t2.reg,
            space: self.t2.space,
            kind: BufferKind::Typed {
                format: "r32g32b32a32-uint",
            },
            words: data::block(&mut self.rng, T1_ELEMENTS),
        });

        // Subroutines (each may call the later ones), then main.
        let mut sub_lines = Vec::new();
        for j in (0..self.subs).rev() {
            let lines = self.subroutine(j);
            sub_lines.push(lines);
        }
        sub_lines.reverse();

        self.prologue();
        while self.budget > 0 {
            self.item(0);
        }
        if let (Some(kind), 0) = (self.tgsm, self.tgsm_rounds) {
            self.tgsm_round(kind);
        }
        for j in 0..self.subs {
            if !self.called[j as usize] {
                self.emit(format!("call l{j}"));
            }
        }
        let u0 = self.u[0].name(self.m51);
        for k in 1..=self.temps {
            self.emit(format!(
                "imad r0.z, r0.x, l({}), l({})",
                U0_SLOTS * 16,
                (k - 1) * 16
            ));
            self.emit(format!("store_raw {u0}.xyzw, r0.z, r{k}.xyzw"));
        }
        self.emit("ret");
        let body = std::mem::take(&mut self.lines);

        let mut asm = self.header(&icb);
        for line in body.iter().chain(sub_lines.iter().flatten()) {
            asm.push_str(line);
            asm.push('\n');
        }

        // UAVs: own regions filled with a pattern, shared ones with zeros or edge values.
        let mut uavs = Vec::new();
        let u0_words = self.u0_bytes() / 4;
        let u12 = self.u12_elements();
        let typed_format = if self.typed_r32 {
            "r32-uint"
        } else {
            "r32g32b32a32-uint"
        };
        let typed_words = if self.typed_r32 { u12 } else { u12 * 4 };
        let pattern = |rng: &mut Rng, n: u32| -> Vec<u32> {
            (0..n)
                .map(|_| if rng.chance(70) { 0 } else { data::word(rng) })
                .collect()
        };
        let words = pattern(&mut self.rng, u0_words);
        uavs.push(self.buffer(self.u[0], BufferKind::Raw, words));
        let words = pattern(&mut self.rng, u12 * 4);
        uavs.push(self.buffer(self.u[1], BufferKind::Structured { stride: 16 }, words));
        let words = pattern(&mut self.rng, typed_words);
        uavs.push(self.buffer(
            self.u[2],
            BufferKind::Typed {
                format: typed_format,
            },
            words,
        ));
        let words = pattern(&mut self.rng, U3_WORDS);
        uavs.push(self.buffer(self.u[3], BufferKind::Raw, words));
        if self.uses_counter_uav {
            uavs.push(self.buffer(
                self.u_counter,
                BufferKind::Counter,
                vec![0; COUNTER_ELEMENTS as usize],
            ));
        }
        uavs.push(self.buffer(
            self.u_approx,
            BufferKind::Raw,
            vec![0; (self.total * APPROXIMATE_WORDS_PER_THREAD) as usize],
        ));

        Case {
            seed,
            model: if self.m51 { (5, 1) } else { (5, 0) },
            asm,
            groups: self.groups,
            srvs,
            uavs,
            constants,
        }
    }

    fn buffer(&self, res: Res, kind: BufferKind, words: Vec<u32>) -> Buffer {
        Buffer {
            register: res.reg,
            space: res.space,
            kind,
            words,
        }
    }

    /// Thread indices into r0.x/r0.y, data temps, the indexable temp.
    fn prologue(&mut self) {
        let [tx, ty, _] = self.threads;
        let [gx, gy, _] = self.groups;
        match self.index_from {
            IndexFrom::ThreadId => {
                self.emit(format!(
                    "imad r0.x, vThreadID.z, l({}), vThreadID.y",
                    gy * ty
                ));
                self.emit(format!("imad r0.x, r0.x, l({}), vThreadID.x", gx * tx));
            }
            IndexFrom::GroupAndFlattened | IndexFrom::GroupAndInGroup => {
                self.emit(format!(
                    "imad r0.x, vThreadGroupID.z, l({gy}), vThreadGroupID.y"
                ));
                self.emit(format!("imad r0.x, r0.x, l({gx}), vThreadGroupID.x"));
            }
        }
        match self.index_from {
            IndexFrom::GroupAndInGroup => {
                self.emit(format!(
                    "imad r0.y, vThreadIDInGroup.z, l({ty}), vThreadIDInGroup.y"
                ));
                self.emit(format!("imad r0.y, r0.y, l({tx}), vThreadIDInGroup.x"));
            }
            _ => self.emit("mov r0.y, vThreadIDInGroupFlattened.x"),
        }
        if self.index_from != IndexFrom::ThreadId {
            self.emit(format!("imad r0.x, r0.x, l({}), r0.y", self.tpg));
        }
        for r in 1..=self.temps {
            let s = self.swizzle();
            match self.rng.below(4) {
                0 => {
                    let k = self.rng.below(CB_VECTORS);
                    self.emit(format!("mov r{r}.xyzw, {}.{s}", self.cb(k)));
                }
                1 => {
                    let t0 = self.t0.name(self.m51);
                    let a = self.rng.below(T0_WORDS / 4) * 16;
                    self.emit(format!("ld_raw r{r}.xyzw, l({a}), {t0}.{s}"));
                }
                2 => {
                    let v = self.imm(Ty::U);
                    self.emit(format!("mov r{r}.xyzw, {v}"));
                }
                _ => {
                    let k = self.rng.below(CB_VECTORS);
                    self.emit(format!("mov r{r}.xyzw, {}.{s}", self.cb(k)));
                    let c = self.comp();
                    self.emit(format!("iadd r{r}.{c}, r{r}.{c}, r0.x"));
                }
            }
        }
        // Make threads differ.
        let r = self.data_reg();
        let m = self.mask();
        self.emit(format!("xor r{r}.{m}, r{r}.xyzw, r0.xxxx"));
        if self.uses_x0 {
            for i in 0..ARRAY_ENTRIES {
                let v = self.src(Ty::U, false);
                self.emit(format!("mov x0[{i}].xyzw, {v}"));
            }
        }
    }

    fn header(&self, icb: &[u32]) -> String {
        let m = self.m51;
        let mut h = String::new();
        let _ = writeln!(h, "cs_5_{}", if m { 1 } else { 0 });
        if self.uses_doubles {
            h.push_str("dcl_globalFlags enableDoublePrecisionFloatOps\n");
        }
        if self.uses_icb {
            h.push_str("dcl_immediateConstantBuffer {");
            for (i, v) in icb.chunks(4).enumerate() {
                let w: Vec<String> = v.iter().map(|w| format!("0x{w:08x}")).collect();
                let sep = if i == 0 { " " } else { ",\n    " };
                let _ = write!(h, "{sep}{{ {} }}", w.join(", "));
            }
            h.push_str(" }\n");
        }
        if m {
            let _ = writeln!(
                h,
                "dcl_constantbuffer cb{}[0:0][{CB_VECTORS}], dynamicIndexed, space=0",
                self.cb_id
            );
        } else {
            let _ = writeln!(h, "dcl_constantbuffer cb0[{CB_VECTORS}], dynamicIndexed");
        }
        let t0_upper = if m { self.t0.reg + 1 } else { self.t0.reg };
        let (o, s) = self.t0.decl(m, t0_upper);
        let _ = writeln!(h, "dcl_resource_raw {o}{s}");
        let (o, s) = self.t1.decl(m, self.t1.reg);
        let _ = writeln!(h, "dcl_resource_structured {o}, 16{s}");
        let (o, s) = self.t2.decl(m, self.t2.reg);
        let _ = writeln!(h, "dcl_resource_buffer (uint,uint,uint,uint) {o}{s}");
        let (o, s) = self.u[0].decl(m, self.u[0].reg);
        let _ = writeln!(h, "dcl_uav_raw {o}{s}");
        let (o, s) = self.u[1].decl(m, self.u[1].reg);
        let _ = writeln!(h, "dcl_uav_structured {o}, 16{s}");
        let (o, s) = self.u[2].decl(m, self.u[2].reg);
        let _ = writeln!(h, "dcl_uav_typed_buffer (uint,uint,uint,uint) {o}{s}");
        let (o, s) = self.u[3].decl(m, self.u[3].reg);
        let _ = writeln!(h, "dcl_uav_raw {o}{s}");
        if self.uses_counter_uav {
            let (o, s) = self.u_counter.decl(m, self.u_counter.reg);
            let _ = writeln!(h, "dcl_uav_structured {o}, 4{s}");
        }
        let (o, s) = self.u_approx.decl(m, self.u_approx.reg);
        let _ = writeln!(h, "dcl_uav_raw {o}{s}");
        match self.index_from {
            IndexFrom::ThreadId => {
                h.push_str("dcl_input vThreadID.xyz\ndcl_input vThreadIDInGroupFlattened\n")
            }
            IndexFrom::GroupAndFlattened => {
                h.push_str("dcl_input vThreadGroupID.xyz\ndcl_input vThreadIDInGroupFlattened\n")
            }
            IndexFrom::GroupAndInGroup => {
                h.push_str("dcl_input vThreadGroupID.xyz\ndcl_input vThreadIDInGroup.xyz\n")
            }
        }
        let _ = writeln!(h, "dcl_temps {}", self.next_counter);
        if self.uses_x0 {
            let _ = writeln!(h, "dcl_indexableTemp x0[{ARRAY_ENTRIES}], 4");
        }
        if self.tgsm_rounds > 0 {
            match self.tgsm {
                Some(Tgsm::Raw) => {
                    let _ = writeln!(h, "dcl_tgsm_raw g0, {}", (self.tpg + 1) * 16);
                }
                Some(Tgsm::Structured) => {
                    let _ = writeln!(h, "dcl_tgsm_structured g0, 16, {}", self.tpg + 1);
                }
                None => {}
            }
        }
        let [x, y, z] = self.threads;
        let _ = writeln!(h, "dcl_thread_group {x}, {y}, {z}");
        h
    }
}
