//! Translation time grows linearly with the program: synthetic compute shaders of about 1k,
//! 10k and 100k instructions (arithmetic, raw loads and stores, branches, loops) are
//! assembled and translated; each tenfold step in size may cost at most 40 times the time
//! (linear is 10; a quadratic stage would show 100). Each size takes the fastest of five
//! runs. The margin above 10 is for memory: a 100k-instruction program's module no longer
//! fits in the caches and its allocations slow the allocator down (on 2 loaded cores the
//! step measured 19–25×, with instruction counts growing linearly). This checks a shape,
//! not a speed (speed is `cargo xtask bench`'s).

use std::time::{Duration, Instant};

/// One block of ten instructions.
const BLOCK: &str = "add r0.xyzw, r0.xyzw, r1.xyzw
mul r1.xy, r0.xyxx, l(2.0, 3.0, 0, 0)
ld_raw r2.x, l(0), t0.xxxx
if_nz r2.x
  mad r0.x, r1.x, r1.y, r0.z
else
  iadd r3.x, r3.x, l(1)
endif
store_raw u0.x, l(0), r0.x
ftou r3.y, r0.w
";

fn program(blocks: usize) -> String {
    let mut text = String::from(
        "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_resource_raw t0\ndcl_uav_raw u0\n\
         dcl_temps 4\ndcl_thread_group 1, 1, 1\nmov r0.xyzw, l(0, 0, 0, 0)\n\
         mov r1.xyzw, l(0, 0, 0, 0)\nmov r3.xyzw, l(0, 0, 0, 0)\n",
    );
    for i in 0..blocks {
        if i % 100 == 0 {
            text.push_str("loop\nbreakc_nz r3.x\n");
        }
        text.push_str(BLOCK);
        if i % 100 == 99 || i + 1 == blocks {
            text.push_str("endloop\n");
        }
    }
    text.push_str("ret\n");
    text
}

fn fastest_translation(bytes: &[u8]) -> Duration {
    (0..5)
        .map(|_| {
            let start = Instant::now();
            let t = dxbc2spirv::translate_bytes(bytes, &dxbc2spirv::TranslateOptions::default())
                .expect("the synthetic program translates");
            assert!(!t.words.is_empty());
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn translation_time_is_linear_in_program_size() {
    let mut times = Vec::new();
    for blocks in [100, 1_000, 10_000] {
        let text = program(blocks);
        let bytes = dxbc2spirv::asm::assemble(&text).expect("the synthetic program assembles");
        let instructions = dxbc2spirv::read(&bytes, &Default::default())
            .expect("reads")
            .program
            .map_or(0, |p| p.instructions.len());
        let time = fastest_translation(&bytes);
        println!("{instructions:>7} instructions: {time:?}");
        times.push((instructions, time));
    }
    for pair in times.windows(2) {
        let [(n0, t0), (n1, t1)] = pair else {
            continue;
        };
        let ratio = t1.as_secs_f64() / t0.as_secs_f64().max(1e-9);
        assert!(
            ratio < 40.0,
            "{n0} → {n1} instructions: time {t0:?} → {t1:?}, {ratio:.1}× (linear would be about 10×)"
        );
    }
}
