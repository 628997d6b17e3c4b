//! Tests of the generator: validity, determinism, the `.shader_test` text, coverage.

use super::{generate, BufferKind, Case, GenOptions, APPROXIMATE_SLOTS, APPROXIMATE_UAV};
use dxbc2spirv::ir::Program;
use dxbc2spirv::isa::Opcode;
use std::collections::BTreeSet;

/// Assembles and reads a case's program (the library's read path: decode and validate).
fn read(case: &Case) -> Result<Program, String> {
    let bytes = dxbc2spirv::asm::assemble(&case.asm).map_err(|e| format!("assemble: {e}"))?;
    let dxbc = dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default())
        .map_err(|e| format!("read: {e}"))?;
    let program = dxbc.program.ok_or("no program")?;
    dxbc2spirv::ir::validate(&program).map_err(|e| format!("validate: {e}"))?;
    Ok(program)
}

fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:4} {l}\n", i + 1))
        .collect()
}

#[test]
fn programs_assemble_read_and_validate() {
    let options = GenOptions::default();
    let mut failures = Vec::new();
    let mut instructions = 0usize;
    let mut largest = (0usize, 0u64);
    for seed in 0..2000u64 {
        let case = generate(seed, &options);
        match read(&case) {
            Ok(p) => {
                let n = p
                    .instructions
                    .iter()
                    .filter(|i| !i.opcode.is_declaration())
                    .count();
                instructions += n;
                largest = largest.max((n, seed));
            }
            Err(e) => failures.push((seed, e, case.asm)),
        }
    }
    if let Some((seed, e, asm)) = failures.first() {
        panic!(
            "{} of 2000 seeds fail; first: seed {seed}: {e}\n{}",
            failures.len(),
            numbered(asm)
        );
    }
    println!(
        "2000 programs: {} instructions on average, at most {} (seed {})",
        instructions / 2000,
        largest.0,
        largest.1
    );
    assert!(
        largest.0 <= 260,
        "seed {} has {} instructions",
        largest.1,
        largest.0
    );
}

#[test]
fn generation_is_deterministic() {
    for seed in [0u64, 1, 7, 12345, u64::MAX] {
        let a = generate(seed, &GenOptions::default());
        let b = generate(seed, &GenOptions::default());
        assert_eq!(a, b, "seed {seed} gave two different cases");
    }
    let a = generate(3, &GenOptions::default());
    let b = generate(4, &GenOptions::default());
    assert_ne!(a.asm, b.asm, "seeds 3 and 4 gave the same program");
}

#[test]
fn shader_test_text_parses() {
    use dxbc2spirv_testkit::shader_test::ShaderTestFile;
    for seed in 0..200u64 {
        let case = generate(seed, &GenOptions::default());
        let text = case.shader_test("probe uav 0 (0) u32(0)\n");
        let file = match ShaderTestFile::parse(&text) {
            Ok(f) => f,
            Err(e) => panic!("seed {seed}: {e}\n{}", numbered(&text)),
        };
        let headers: Vec<&str> = file.sections.iter().map(|s| s.header.as_str()).collect();
        assert!(
            headers.contains(&"[compute shader asm]") && headers.contains(&"[test]"),
            "seed {seed}: sections {headers:?}"
        );
        let want = case.srvs.len() + case.uavs.len() + 3;
        assert_eq!(headers.len(), want, "seed {seed}: sections {headers:?}");
        assert!(text.contains("dispatch "), "seed {seed}: no dispatch");
    }
}

#[test]
fn cases_follow_the_contract() {
    for seed in 0..300u64 {
        let case = generate(seed, &GenOptions::default());
        let total = case.total_threads();
        assert!(
            case.threads().iter().product::<u32>() <= 64,
            "seed {seed}: {:?}",
            case.threads()
        );
        assert!(
            case.groups.iter().product::<u32>() <= 4,
            "seed {seed}: {:?}",
            case.groups
        );
        let approx = case
            .uavs
            .iter()
            .find(|b| b.register == APPROXIMATE_UAV && b.space == 0)
            .unwrap_or_else(|| panic!("seed {seed}: no u{APPROXIMATE_UAV}"));
        assert_eq!(approx.kind, BufferKind::Raw);
        assert_eq!(approx.words.len() as u32, total * 16, "seed {seed}");
        assert_eq!(case.constants.len(), 64, "seed {seed}");
        assert!(
            case.uavs.iter().all(|b| b.space == 0),
            "seed {seed}: a UAV outside space 0 (the harness compares space 0)"
        );
        if case.uavs.iter().any(|b| b.kind == BufferKind::Counter) {
            assert_eq!(total, 1, "seed {seed}: counter in a multi-thread program");
        }
        if total > 1 {
            for op in [
                "imm_atomic_cmp_exch",
                "imm_atomic_exch",
                "atomic_cmp_store",
                "imm_atomic_alloc",
            ] {
                for line in case.asm.lines().filter(|l| l.starts_with(op)) {
                    let shared = if case.model == (5, 0) {
                        line.contains(", u3,")
                    } else {
                        line.split(", ")
                            .any(|o| o.starts_with('u') && o.ends_with("[3]"))
                    };
                    assert!(
                        !shared && !line.contains(", g0"),
                        "seed {seed}: order-dependent `{line}` with {total} threads"
                    );
                }
            }
        }
    }
}

/// Opcodes the harness's faults (the test kit's rewrites) and the issue ask for.
const WANTED: &[Opcode] = &[
    Opcode::Ishl,
    Opcode::Ishr,
    Opcode::Ushr,
    Opcode::Udiv,
    Opcode::Ilt,
    Opcode::Ult,
    Opcode::Lt,
    Opcode::Ge,
    Opcode::Ige,
    Opcode::Uge,
    Opcode::Eq,
    Opcode::Ne,
    Opcode::Ieq,
    Opcode::Ine,
    Opcode::Sync,
    Opcode::AtomicIadd,
    Opcode::ImmAtomicIadd,
    Opcode::AtomicAnd,
    Opcode::AtomicOr,
    Opcode::AtomicXor,
    Opcode::AtomicImin,
    Opcode::AtomicImax,
    Opcode::AtomicUmin,
    Opcode::AtomicUmax,
    Opcode::AtomicCmpStore,
    Opcode::ImmAtomicCmpExch,
    Opcode::ImmAtomicExch,
    Opcode::ImmAtomicAlloc,
    Opcode::ImmAtomicConsume,
    Opcode::Dadd,
    Opcode::Dmul,
    Opcode::Dmax,
    Opcode::Dmin,
    Opcode::Deq,
    Opcode::Dne,
    Opcode::Dlt,
    Opcode::Dge,
    Opcode::Dtof,
    Opcode::Ftod,
    Opcode::Dmov,
    Opcode::Dmovc,
    Opcode::Iadd,
    Opcode::Imad,
    Opcode::Umad,
    Opcode::Imul,
    Opcode::Umul,
    Opcode::Uaddc,
    Opcode::Usubb,
    Opcode::Bfi,
    Opcode::Ubfe,
    Opcode::Ibfe,
    Opcode::Bfrev,
    Opcode::Countbits,
    Opcode::FirstbitHi,
    Opcode::FirstbitLo,
    Opcode::FirstbitShi,
    Opcode::F32ToF16,
    Opcode::F16ToF32,
    Opcode::Ftoi,
    Opcode::Ftou,
    Opcode::Itof,
    Opcode::Utof,
    Opcode::RoundNe,
    Opcode::RoundNi,
    Opcode::RoundPi,
    Opcode::RoundZ,
    Opcode::Frc,
    Opcode::Movc,
    Opcode::Swapc,
    Opcode::Dp2,
    Opcode::Dp3,
    Opcode::Dp4,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Not,
    Opcode::Ineg,
    Opcode::Min,
    Opcode::Max,
    Opcode::Imin,
    Opcode::Imax,
    Opcode::Umin,
    Opcode::Umax,
    Opcode::Add,
    Opcode::Mul,
    Opcode::Mad,
    Opcode::Mov,
    Opcode::If,
    Opcode::Else,
    Opcode::Switch,
    Opcode::Case,
    Opcode::Default,
    Opcode::Loop,
    Opcode::Break,
    Opcode::Breakc,
    Opcode::Continuec,
    Opcode::Call,
    Opcode::Callc,
    Opcode::Label,
    Opcode::Ret,
    Opcode::Retc,
    Opcode::LdRaw,
    Opcode::LdStructured,
    Opcode::Ld,
    Opcode::LdUavTyped,
    Opcode::StoreRaw,
    Opcode::StoreStructured,
    Opcode::StoreUavTyped,
    Opcode::Exp,
    Opcode::Log,
    Opcode::Rsq,
    Opcode::Sqrt,
    Opcode::Rcp,
    Opcode::Sincos,
    Opcode::Div,
    Opcode::DclIndexableTemp,
    Opcode::CustomData,
    Opcode::DclTgsmRaw,
    Opcode::DclTgsmStructured,
];

#[test]
fn coverage_over_500_seeds() {
    let options = GenOptions::default();
    let mut seen = BTreeSet::new();
    let mut share = std::collections::BTreeMap::<&str, u32>::new();
    let mut text = String::new();
    let mut models = [0u32; 2];
    let mut single = 0;
    for seed in 0..500u64 {
        let case = generate(seed, &options);
        let program = read(&case).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let ops: BTreeSet<Opcode> = program.instructions.iter().map(|i| i.opcode).collect();
        for op in &ops {
            *share.entry(op.name()).or_default() += 1;
        }
        if case.total_threads() > 1 && ops.contains(&Opcode::Sync) {
            *share.entry("(sync_g_t, several threads)").or_default() += 1;
        }
        seen.extend(ops);
        text.push_str(&case.asm);
        models[usize::from(case.model.1)] += 1;
        single += u32::from(case.total_threads() == 1);
    }
    let mut table: Vec<(u32, &str)> = share.iter().map(|(k, v)| (*v, *k)).collect();
    table.sort();
    for (n, op) in table {
        println!("{op:>32}: {n:3} of 500 programs");
    }
    let missing: Vec<&str> = WANTED
        .iter()
        .filter(|op| !seen.contains(op))
        .map(|op| op.name())
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    for feature in [
        "_sat ",
        "-r",
        "|r",
        "-|r",
        "x0[r0.w",
        "icb[r0.w",
        "cb0[r0.w",
        "][r0.w",
        "space=1",
        "{nonuniform}",
        "r0.w + ",
        "continuec_",
        "retc_z",
        "retc_nz",
        "callc_nz",
        "l(0xfffffff0)",
    ] {
        assert!(text.contains(feature), "never generated: `{feature}`");
    }
    assert!(
        models[0] > 250 && models[1] > 100,
        "models 5.0/5.1: {models:?}"
    );
    assert!(
        (60..=190).contains(&single),
        "single-thread programs: {single}"
    );
    assert!(
        APPROXIMATE_SLOTS.iter().all(|op| seen.contains(op)),
        "approximate ops missing"
    );
}

/// Translates 300 programs (`DIFFTEST_TRANSLATE_COUNT`) with spirv-val; skipped (loudly) when spirv-val is not on PATH.
/// A failure here is a translator refusal or an invalid module: report it.
#[test]
fn programs_translate_and_validate() {
    let on_path = std::process::Command::new("spirv-val")
        .arg("--version")
        .output()
        .is_ok();
    if !on_path {
        println!("SKIPPED: spirv-val is not on PATH");
        return;
    }
    let options = dxbc2spirv::TranslateOptions::default();
    let count: u64 = std::env::var("DIFFTEST_TRANSLATE_COUNT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let mut failures = Vec::new();
    for seed in 0..count {
        let case = generate(seed, &GenOptions::default());
        let bytes = match dxbc2spirv::asm::assemble(&case.asm) {
            Ok(b) => b,
            Err(e) => panic!("seed {seed}: assemble: {e}"),
        };
        let checked = dxbc2spirv::translate_bytes(&bytes, &options)
            .map_err(|e| e.to_string())
            .and_then(|t| {
                dxbc2spirv_testkit::spirv_val(&t.words, options.target.name())
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = checked {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Writes the `.shader_test` files of seeds 0..N (N from `DIFFTEST_DUMP_COUNT`, default 50)
/// to the folder `DIFFTEST_DUMP` for manual runs (`cargo xtask conformance --dir`).
#[test]
#[ignore]
fn dump_cases() {
    let Ok(dir) = std::env::var("DIFFTEST_DUMP") else {
        println!("set DIFFTEST_DUMP to a folder");
        return;
    };
    let count: u64 = std::env::var("DIFFTEST_DUMP_COUNT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    std::fs::create_dir_all(&dir).expect("create the dump folder");
    for seed in 0..count {
        let case = generate(seed, &GenOptions::default());
        let path = std::path::Path::new(&dir).join(format!("gen_{seed:05}.shader_test"));
        std::fs::write(&path, case.shader_test("")).expect("write a case");
    }
}

#[test]
fn options_are_honoured() {
    let options = GenOptions {
        model: Some((5, 1)),
        doubles: false,
        counters: false,
        single_thread_percent: 100,
        max_body: 30,
    };
    for seed in 0..100u64 {
        let case = generate(seed, &options);
        let program = read(&case).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(case.model, (5, 1), "seed {seed}");
        assert_eq!(case.total_threads(), 1, "seed {seed}");
        assert!(case.asm.starts_with("cs_5_1"), "seed {seed}");
        let doubles: Vec<&str> = program
            .instructions
            .iter()
            .map(|i| i.opcode.name())
            .filter(|n| {
                n.starts_with('d')
                    && !n.starts_with("dcl")
                    && !n.starts_with("dp")
                    && *n != "div"
                    && *n != "default"
            })
            .collect();
        assert!(doubles.is_empty(), "seed {seed}: {doubles:?}");
        assert!(
            !case.uavs.iter().any(|b| b.kind == BufferKind::Counter),
            "seed {seed}: a counter UAV with counters off"
        );
    }
    let case = generate(
        5,
        &GenOptions {
            model: Some((5, 0)),
            ..GenOptions::default()
        },
    );
    assert!(case.asm.starts_with("cs_5_0"));
    assert!(case.uavs.iter().chain(&case.srvs).all(|b| b.space == 0));
}

/// The operand names of the UAV registers 0, 1, 2, 3 and 7 (`u3` or `u5[3]` in cs_5_1), from
/// the declarations.
fn uav_names(asm: &str) -> std::collections::BTreeMap<u32, String> {
    let mut names = std::collections::BTreeMap::new();
    for line in asm.lines().filter(|l| l.starts_with("dcl_uav_")) {
        let Some(operand) = line.split([' ', ',']).find(|w| w.starts_with('u')) else {
            continue;
        };
        // `u3` or `u5[3:3]`.
        let (name, register) = match operand.split_once('[') {
            Some((id, range)) => {
                let reg = range.split(':').next().unwrap_or("");
                (format!("{id}[{reg}]"), reg.parse().unwrap_or(u32::MAX))
            }
            None => (
                operand.to_string(),
                operand[1..].parse().unwrap_or(u32::MAX),
            ),
        };
        names.insert(register, name);
    }
    names
}

/// Splits an instruction line into its mnemonic and operands (top-level commas only).
fn operands(line: &str) -> (&str, Vec<String>) {
    let (op, rest) = line.split_once(' ').unwrap_or((line, ""));
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for ch in rest.chars() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    (op, out)
}

fn immediate(operand: &str) -> Option<u32> {
    let inner = operand.strip_prefix("l(")?.split([',', ')']).next()?.trim();
    match inner.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => inner.parse().ok(),
    }
}

/// Static check of the harness contract on the text: accesses to u0/u1/u2 address this
/// thread's own region (`imad r0.z, r0.x, l(stride), l(c)` just before, `c` inside the
/// region), or an immediate wholly past the end, or the pad with a thread-independent
/// value; shared u3 and g0 results are used only with one thread; the approximate temp is
/// read only by its store to u7.
fn check_contract(case: &Case) -> Result<(), String> {
    let names = uav_names(&case.asm);
    let name = |r: u32| names.get(&r).cloned().unwrap_or_default();
    let (u0, u1, u2, u3, u7) = (name(0), name(1), name(2), name(3), name(7));
    let size = |r: u32| {
        case.uavs
            .iter()
            .find(|b| b.register == r)
            .map(|b| b.words.len())
    };
    let u0_bytes = size(0).unwrap_or(0) as u32 * 4;
    let elements = (case.total_threads() * 4 + 1) as u64;
    let single = case.total_threads() == 1;
    let lines: Vec<&str> = case.asm.lines().collect();
    let mut approx = None;
    for (i, line) in lines.iter().enumerate() {
        let (op, ops) = operands(line);
        let base = |o: &String| o.split('.').next().unwrap_or("").to_string();
        let fail = |why: &str| Err(format!("line {}: `{line}`: {why}", i + 1));
        // Which operand is the resource and which the address.
        let (res, addr) = if op.starts_with("store_") || op.starts_with("atomic_") {
            (ops.first().map(base), ops.get(1).cloned())
        } else if op.starts_with("imm_atomic_") {
            (ops.get(1).map(base), ops.get(2).cloned())
        } else if op.starts_with("ld_raw") || op.starts_with("ld_uav_typed") {
            (ops.get(2).map(base), ops.get(1).cloned())
        } else if op.starts_with("ld_structured") {
            (ops.get(3).map(base), ops.get(1).cloned())
        } else {
            (None, None)
        };
        let (Some(res), Some(addr)) = (res, addr) else {
            continue;
        };
        if res == u3 || res == "g0" {
            let ordered = op.starts_with("imm_atomic_") && !ops[0].starts_with("r0.w")
                || op == "atomic_cmp_store"
                || op.contains("exch");
            if ordered && !single {
                return fail("order-dependent shared atomic with several threads");
            }
            continue;
        }
        if res == u7 {
            if let Some(r) = ops.get(2) {
                approx = Some(base(r));
            }
            continue;
        }
        let (stride, bytes) = if res == u0 {
            (128u32, true)
        } else if res == u1 || res == u2 {
            (4, false)
        } else {
            continue;
        };
        if addr.starts_with("r0.z") {
            let prev = lines.get(i.wrapping_sub(1)).copied().unwrap_or("");
            let (pop, pops) = operands(prev);
            let ok = pop == "imad"
                && pops.len() == 4
                && pops[1] == "r0.x"
                && immediate(&pops[2]) == Some(stride)
                && immediate(&pops[3]).is_some_and(|c| c < stride);
            if !ok {
                return fail(&format!("address not from this thread's region: `{prev}`"));
            }
            continue;
        }
        let Some(a) = immediate(&addr) else {
            return fail("address neither r0.z nor an immediate");
        };
        let past_end = if bytes {
            a >= u0_bytes
        } else {
            u64::from(a) >= elements
        };
        if past_end {
            continue;
        }
        let in_pad = if bytes {
            a >= u0_bytes - 16
        } else {
            u64::from(a) == elements - 1
        };
        let value = ops.last().cloned().unwrap_or_default();
        let uniform = value.starts_with("l(") || value.starts_with("cb");
        if !(op.starts_with("store_") && in_pad && uniform) {
            return fail("immediate address inside the buffer");
        }
    }
    if let Some(a) = approx {
        for (i, line) in lines.iter().enumerate() {
            let (op, ops) = operands(line);
            let dests = match op {
                "sincos" | "swapc" | "imul" | "umul" | "udiv" | "uaddc" | "usubb" => 2,
                _ => 1,
            };
            let reads = ops.iter().skip(dests).any(|o| {
                o.trim_start_matches(['-', '|'])
                    .starts_with(&format!("{a}."))
            });
            let store = op == "store_raw" && ops.first().is_some_and(|o| o.starts_with(&u7));
            if reads && !store {
                return Err(format!(
                    "line {}: `{line}` reads the approximate temp {a}",
                    i + 1
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn programs_keep_to_the_harness_contract() {
    for seed in 0..1000u64 {
        let case = generate(seed, &GenOptions::default());
        if let Err(e) = check_contract(&case) {
            panic!("seed {seed}: {e}\n{}", numbered(&case.asm));
        }
    }
}

#[test]
fn contract_check_catches_violations() {
    let case = generate(1, &GenOptions::default());
    let mut bad = case.clone();
    bad.asm = case
        .asm
        .replacen("imad r0.z, r0.x, l(128)", "imad r0.z, r0.y, l(128)", 1);
    assert_ne!(bad.asm, case.asm, "seed 1 has no u0 address to break");
    assert!(check_contract(&bad).is_err(), "an address from r0.y passed");
    let mut bad = case.clone();
    bad.asm = case.asm.replacen("ret\n", "mov r1.x, r6.x\nret\n", 1);
    let approx_used = case.asm.contains("store_raw u7.x, r0.z, r6.x");
    assert!(
        !approx_used || check_contract(&bad).is_err(),
        "a read of the approximate temp passed"
    );
}

#[test]
#[ignore]
fn print_seed() {
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let case = generate(seed, &GenOptions::default());
    println!("{}", case.shader_test(""));
}
