//! Tests of the executor: programs in assembly text (assembled, then read back as the
//! library reads a container), run on small resources, results checked word by word.

use super::operands::apply_modifier;
use crate::interp::{dispatch, Options, Resource, Resources, Shape};
use dxbc2spirv::ir::{Modifier, Program, ValueType};
use dxbc2spirv::{ErrorKind, Location};

/// Assembles and reads a program, panicking with the text on failure.
fn program(text: &str) -> Program {
    let bytes =
        dxbc2spirv::asm::assemble(text).unwrap_or_else(|e| panic!("assembling: {e}\n{text}"));
    dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default())
        .unwrap_or_else(|e| panic!("reading: {e}\n{text}"))
        .program
        .unwrap_or_else(|| panic!("no program in\n{text}"))
}

/// A raw buffer of `n` dwords holding `fill`.
fn raw(n: usize, fill: u32) -> Resource {
    Resource::new(Shape::Raw, fill.to_le_bytes().repeat(n))
}

/// The dwords of a resource.
fn words(resource: &Resource) -> Vec<u32> {
    resource
        .data
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Runs `text` with a raw `u0` of `n` dwords (filled with `0xdeadbeef` so that unwritten
/// words show) plus `extra` resources, and returns `u0`'s dwords.
fn run_u0(text: &str, n: usize, groups: [u32; 3], mut resources: Resources) -> Vec<u32> {
    resources.uavs.insert((0, 0), raw(n, 0xdead_beef));
    let program = program(text);
    dispatch(&program, &mut resources, groups, &Options::default())
        .unwrap_or_else(|e| panic!("dispatch failed: {e}\n{text}"));
    words(&resources.uavs[&(0, 0)])
}

/// Checks `u0` word by word, printing the program, the expected and the actual words.
fn check(text: &str, actual: &[u32], expected: &[u32]) {
    if actual != expected {
        let diffs: Vec<String> = actual
            .iter()
            .zip(expected)
            .enumerate()
            .filter(|(_, (a, e))| a != e)
            .map(|(i, (a, e))| format!("  word {i}: expected {e:#x} ({e}), got {a:#x} ({a})"))
            .collect();
        panic!(
            "results differ:\n{}\nexpected {expected:?}\nactual   {actual:?}\nprogram:\n{text}",
            diffs.join("\n")
        );
    }
}

/// Runs a program (one group, u0 a 16-dword raw buffer) expecting it to succeed.
fn run_ok(text: &str, options: &Options) {
    let mut resources = Resources::default();
    resources.uavs.insert((0, 0), raw(16, 0));
    dispatch(&program(text), &mut resources, [1, 1, 1], options)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
}

/// Runs a program expecting an error; returns it.
fn run_err(text: &str, options: &Options) -> dxbc2spirv::Error {
    let program = program(text);
    let mut resources = Resources::default();
    resources.uavs.insert((0, 0), raw(16, 0));
    match dispatch(&program, &mut resources, [1, 1, 1], options) {
        Ok(()) => panic!("expected an error from\n{text}"),
        Err(e) => e,
    }
}

/// The instruction index of an error.
fn index_of(error: &dxbc2spirv::Error) -> u32 {
    match error.location {
        Location::Instruction { index, .. } => index,
        ref other => panic!("error {error} is not at an instruction: {other:?}"),
    }
}

const HEAD8: &str = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_thread_group 8, 1, 1
";

#[test]
fn if_else_nested() {
    let text = format!(
        "{HEAD8}mov r0.x, vThreadIDInGroupFlattened.x
and r1.x, r0.x, l(1)
mov r2.x, l(0)
if_nz r1.x
  ult r1.y, r0.x, l(4)
  if_z r1.y
    mov r2.x, l(30)
  else
    mov r2.x, l(10)
  endif
else
  ieq r1.z, r0.x, l(2)
  if_nz r1.z
    mov r2.x, l(20)
  endif
  iadd r2.x, r2.x, l(1)
endif
ishl r3.x, r0.x, l(2)
store_raw u0.x, r3.x, r2.x
ret
"
    );
    let actual = run_u0(&text, 8, [1, 1, 1], Resources::default());
    // odd: <4 → 10, else 30; even: 2 → 21, else 1
    check(&text, &actual, &[1, 10, 21, 10, 1, 30, 1, 30]);
}

#[test]
fn nested_loops_with_break_and_continue() {
    // For thread t: sum over i in 0..t, j in 0..8 with j odd skipped (continuec), the inner
    // loop broken at j == i (breakc), the outer one broken by a plain break at i == 5.
    let text = format!(
        "{HEAD8}mov r0.x, vThreadIDInGroupFlattened.x
mov r0.y, l(0)
mov r0.z, l(0)
loop
  uge r1.x, r0.z, r0.x
  breakc_nz r1.x
  ieq r1.y, r0.z, l(5)
  if_nz r1.y
    break
  endif
  mov r0.w, l(0)
  loop
    ieq r1.z, r0.w, r0.z
    breakc_nz r1.z
    and r1.w, r0.w, l(1)
    iadd r0.w, r0.w, l(1)
    continuec_nz r1.w
    iadd r0.y, r0.y, r0.w
  endloop
  iadd r0.z, r0.z, l(1)
  continue
  mov r0.y, l(999)
endloop
ishl r3.x, r0.x, l(2)
store_raw u0.x, r3.x, r0.y
ret
"
    );
    let expected: Vec<u32> = (0..8u32)
        .map(|t| {
            let mut sum = 0;
            for i in 0..t.min(5) {
                let mut j = 0;
                while j != i {
                    let odd = j & 1;
                    j += 1;
                    if odd == 0 {
                        sum += j;
                    }
                }
            }
            sum
        })
        .collect();
    let actual = run_u0(&text, 8, [1, 1, 1], Resources::default());
    check(&text, &actual, &expected);
}

#[test]
fn switch_with_fall_through_default_and_nesting() {
    let text = format!(
        "{HEAD8}mov r0.x, vThreadIDInGroupFlattened.x
mov r0.y, l(0)
switch r0.x
  case l(0)
  case l(1)
    iadd r0.y, r0.y, l(1)
  case l(2)
    iadd r0.y, r0.y, l(10)
    break
  case l(5)
    mov r0.z, l(0)
    loop
      iadd r0.z, r0.z, l(1)
      ieq r1.x, r0.z, l(3)
      breakc_nz r1.x
    endloop
    iadd r0.y, r0.y, r0.z
    break
  default
    iadd r0.y, r0.y, l(100)
  case l(7)
    iadd r0.y, r0.y, l(1000)
    break
endswitch
ishl r3.x, r0.x, l(2)
store_raw u0.x, r3.x, r0.y
ret
"
    );
    let actual = run_u0(&text, 8, [1, 1, 1], Resources::default());
    check(&text, &actual, &[11, 11, 10, 1100, 1100, 3, 1100, 1000]);
}

#[test]
fn switch_without_match_or_default_skips_to_the_end() {
    let text = format!(
        "{HEAD8}mov r0.y, l(7)
switch vThreadIDInGroupFlattened.x
  case l(3)
    mov r0.y, l(3)
    break
endswitch
ishl r3.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r3.x, r0.y
ret
"
    );
    let actual = run_u0(&text, 8, [1, 1, 1], Resources::default());
    check(&text, &actual, &[7, 7, 7, 3, 7, 7, 7, 7]);
}

#[test]
fn calls_nested_calls_and_retc() {
    // l0 adds 1, calls l1 (adds 10, returns early for odd threads before adding 100), then
    // adds 1000; threads >= 6 return from the main program before the store.
    let text = format!(
        "{HEAD8}mov r0.x, vThreadIDInGroupFlattened.x
mov r0.y, l(0)
and r1.x, r0.x, l(1)
call l0
ieq r1.y, r0.x, l(3)
callc_nz r1.y, l0
uge r1.z, r0.x, l(6)
retc_nz r1.z
ishl r3.x, r0.x, l(2)
store_raw u0.x, r3.x, r0.y
ret
label l0
iadd r0.y, r0.y, l(1)
call l1
iadd r0.y, r0.y, l(1000)
ret
label l1
iadd r0.y, r0.y, l(10)
retc_nz r1.x
iadd r0.y, r0.y, l(100)
ret
"
    );
    let actual = run_u0(&text, 8, [1, 1, 1], Resources::default());
    let d = 0xdead_beef;
    check(&text, &actual, &[1111, 1011, 1111, 2022, 1111, 1011, d, d]);
}

#[test]
fn indexable_temps_with_relative_indices_and_bounds() {
    // x0[4] filled with 10*i + t through a relative index; reads back x0[t % 4],
    // x0[r + 2] (out of bounds for r >= 2 reads 0) and after a write out of bounds
    // (dropped) the whole array's sum.
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_indexableTemp x0[4], 4
dcl_indexableTemp x1[2], 2
dcl_thread_group 4, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
mov r0.y, l(0)
loop
  uge r1.x, r0.y, l(4)
  breakc_nz r1.x
  imad r1.y, r0.y, l(10), r0.x
  mov x0[r0.y + 0].xyzw, r1.yyyy
  iadd r0.y, r0.y, l(1)
endloop
mov x0[r0.x + 4].x, l(5555)
mov x1[1].xy, l(7, 8, 0, 0)
mov r2.x, x0[r0.x + 0].y
mov r2.y, x0[r0.x + 2].z
iadd r2.z, x0[0].x, x0[1].w
iadd r2.z, r2.z, x0[2].x
iadd r2.z, r2.z, x0[3].x
iadd r2.w, x1[1].x, x1[1].y
ishl r3.x, r0.x, l(4)
store_raw u0.xyzw, r3.x, r2.xyzw
ret
";
    let actual = run_u0(text, 16, [1, 1, 1], Resources::default());
    let mut expected = Vec::new();
    for t in 0..4u32 {
        let x = |i: u32| if i < 4 { 10 * i + t } else { 0 };
        expected.extend([x(t), x(t + 2), x(0) + x(1) + x(2) + x(3), 15]);
    }
    check(text, &actual, &expected);
}

#[test]
fn immediate_constant_buffer_with_bounds() {
    let text = "cs_5_0
dcl_immediateConstantBuffer { { 1, 2, 3, 4 },
                              { 5, 6, 7, 8 },
                              { 9, 10, 11, 12 } }
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 4, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
mov r1.xyzw, icb[r0.x + 0].wzyx
ishl r0.y, r0.x, l(4)
store_raw u0.xyzw, r0.y, r1.xyzw
ret
";
    let actual = run_u0(text, 16, [1, 1, 1], Resources::default());
    check(
        text,
        &actual,
        &[4, 3, 2, 1, 8, 7, 6, 5, 12, 11, 10, 9, 0, 0, 0, 0],
    );
}

#[test]
fn constant_buffers_in_spaces_relative_and_out_of_bounds() {
    // SM5.1: cb0 is register 3 of space 1 (2 vectors bound, 4 declared), cb1 register 0 of
    // space 0 is not bound at all. Thread t reads cb0[3][t] (t >= 2 is past the buffer) and
    // cb1[0][0].
    let text = "cs_5_1
dcl_constantbuffer cb0[0:3][4], dynamicIndexed, space=1
dcl_constantbuffer cb1[0:0][1], immediateIndexed, space=0
dcl_uav_raw u0[0:0], space=0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 4, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
mov r1.xyz, cb0[3][r0.x + 0].zyxw
mov r1.w, cb1[0][0].x
ishl r0.y, r0.x, l(4)
store_raw u0[0].xyzw, r0.y, r1.xyzw
ret
";
    let mut resources = Resources::default();
    resources
        .constant_buffers
        .insert((1, 3), vec![1, 2, 3, 4, 5, 6, 7]);
    let actual = run_u0(text, 16, [1, 1, 1], resources);
    check(
        text,
        &actual,
        &[3, 2, 1, 0, 7, 6, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    );
}

#[test]
fn sm50_dynamic_constant_buffer_slot() {
    // cb[r.y][r.x]: the register chosen at run time; slot 14 and beyond read 0.
    let text = "cs_5_0
dcl_constantbuffer cb0[1], immediateIndexed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.xy, l(1, 2, 0, 0)
mov r1.x, cb[r0.y + 0][r0.x + 0].y
mov r1.y, cb[r0.y + 12][r0.x + 0].y
mov r1.z, cb0[0].x
store_raw u0.xyz, l(0), r1.xyzx
ret
";
    let mut resources = Resources::default();
    resources.constant_buffers.insert((0, 0), vec![42, 0, 0, 0]);
    resources
        .constant_buffers
        .insert((0, 2), vec![0, 0, 0, 0, 0, 77, 0, 0]);
    let actual = run_u0(text, 3, [1, 1, 1], resources);
    check(text, &actual, &[77, 0, 42]);
}

#[test]
fn group_shared_memory_across_a_barrier() {
    // Thread i writes g0[i], waits, reads g0[(i + 1) % 8]; g1 is structured and holds
    // (i, i*i) at element i, read back from element 7 - i after the same barrier.
    let text = "cs_5_0
dcl_uav_raw u0
dcl_tgsm_raw g0, 32
dcl_tgsm_structured g1, 8, 8
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadGroupID.x
dcl_temps 4
dcl_thread_group 8, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
imad r0.y, vThreadGroupID.x, l(100), r0.x
ishl r0.z, r0.x, l(2)
store_raw g0.x, r0.z, r0.y
imad r0.w, r0.x, r0.x, l(0)
store_structured g1.xy, r0.x, l(0), r0.xwxx
sync_g_t
iadd r1.x, r0.x, l(1)
and r1.x, r1.x, l(7)
ishl r1.x, r1.x, l(2)
ld_raw r2.x, r1.x, g0.xxxx
iadd r1.y, l(7), -r0.x
ld_structured r2.yz, r1.y, l(0), g1.xxyx
imad r3.x, vThreadGroupID.x, l(8), r0.x
imad r3.x, r3.x, l(12), l(0)
store_raw u0.xyz, r3.x, r2.xyzx
ret
";
    let program_text = text;
    let actual = run_u0(program_text, 48, [2, 1, 1], Resources::default());
    let mut expected = Vec::new();
    for group in 0..2u32 {
        for i in 0..8u32 {
            let j = 7 - i;
            expected.extend([group * 100 + (i + 1) % 8, j, j * j]);
        }
    }
    check(program_text, &actual, &expected);
}

#[test]
fn atomics_and_the_uav_counter() {
    // u0[0] += 1 per thread; imm_atomic_iadd on u0[1] returns distinct old values, each
    // thread marks u0[4 + old]; u0[2] umax of the ids; u0[3] cmp_store by thread 5 only;
    // u1's counter hands out slots 0..7 (threads run in order); g0 ors 1 << t and thread
    // 0 stores it after the barrier in u0[12]; u0[13] exchanged by every thread (the olds
    // summed in u0[14]); u0[15] cmp_exch'ed (only thread 0 matches; olds summed in u0[16]).
    let text = "cs_5_0
dcl_uav_raw u0
dcl_uav_structured_opc u1, 4
dcl_tgsm_raw g0, 4
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_thread_group 8, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
atomic_iadd u0, l(0), l(1)
imm_atomic_iadd r1.x, u0, l(4), l(1)
iadd r1.y, r1.x, l(4)
ishl r1.y, r1.y, l(2)
store_raw u0.x, r1.y, l(1)
atomic_umax u0, l(8), r0.x
ieq r2.x, r0.x, l(5)
if_nz r2.x
  atomic_cmp_store u0, l(12), l(0), l(6)
endif
imm_atomic_alloc r1.z, u1
store_structured u1.x, r1.z, l(0), r0.x
ishl r2.y, l(1), r0.x
atomic_or g0, l(0), r2.y
imm_atomic_exch r1.w, u0, l(52), r0.x
atomic_iadd u0, l(56), r1.w
imm_atomic_cmp_exch r2.w, u0, l(60), r0.x, l(100)
atomic_iadd u0, l(64), r2.w
sync_g_t
ieq r2.z, r0.x, l(0)
if_nz r2.z
  ld_raw r3.x, l(0), g0.xxxx
  store_raw u0.x, l(48), r3.x
endif
ret
";
    let mut resources = Resources::default();
    resources.uavs.insert(
        (0, 1),
        Resource::new(Shape::Structured { stride: 4 }, vec![0xff; 32]),
    );
    resources.uavs.insert((0, 0), raw(17, 0));
    let program = program(text);
    dispatch(&program, &mut resources, [1, 1, 1], &Options::default())
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let u0 = words(&resources.uavs[&(0, 0)]);
    check(
        text,
        &u0,
        &[8, 8, 7, 6, 1, 1, 1, 1, 1, 1, 1, 1, 0xff, 7, 21, 100, 700],
    );
    let u1 = &resources.uavs[&(0, 1)];
    check(text, &words(u1), &[0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(u1.counter, 8, "u1's counter after 8 allocs");
}

#[test]
fn consume_decrements_and_returns_the_new_count() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_uav_structured_opc u1, 4
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 4, 1, 1
imm_atomic_consume r0.x, u1
ishl r1.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r1.x, r0.x
ret
";
    let mut resources = Resources::default();
    let mut u1 = Resource::new(Shape::Structured { stride: 4 }, vec![0; 16]);
    u1.counter = 10;
    resources.uavs.insert((0, 1), u1);
    let actual = run_u0(text, 4, [1, 1, 1], resources);
    check(text, &actual, &[9, 8, 7, 6]);
}

#[test]
fn thread_ids_over_a_multi_group_dispatch() {
    // Groups of 2x1x2 threads, a 2x2x1 dispatch: each thread stores its ids at its
    // vThreadID-flattened slot (x + 4 * (y + 2 * z)).
    let text = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.xyz
dcl_input vThreadGroupID.xyz
dcl_input vThreadIDInGroup.xyz
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_thread_group 2, 1, 2
imad r0.x, vThreadID.z, l(2), vThreadID.y
imad r0.x, r0.x, l(4), vThreadID.x
imad r0.x, r0.x, l(40), l(0)
mov r1.xyz, vThreadID.xyzx
mov r1.w, vThreadGroupID.x
store_raw u0.xyzw, r0.x, r1.xyzw
iadd r0.y, r0.x, l(16)
mov r2.xy, vThreadGroupID.yzyy
mov r2.zw, vThreadIDInGroup.xxxy
store_raw u0.xyzw, r0.y, r2.xyzw
iadd r0.y, r0.x, l(32)
mov r2.x, vThreadIDInGroup.z
mov r2.y, vThreadIDInGroupFlattened.x
store_raw u0.xy, r0.y, r2.xyxx
ret
";
    let actual = run_u0(text, 16 * 10, [2, 2, 1], Resources::default());
    let mut expected = vec![0xdead_beef; 160];
    for gy in 0..2u32 {
        for gx in 0..2u32 {
            for lz in 0..2u32 {
                for lx in 0..2u32 {
                    let (x, y, z) = (gx * 2 + lx, gy, lz);
                    let slot = (x + 4 * (y + 2 * z)) as usize * 10;
                    expected[slot..slot + 10].copy_from_slice(&[
                        x,
                        y,
                        z,
                        gx,
                        gy,
                        0,
                        lx,
                        0,
                        lz,
                        lz * 2 + lx,
                    ]);
                }
            }
        }
    }
    check(text, &actual, &expected);
}

#[test]
fn unbound_resources_read_zero_and_drop_writes() {
    let text = "cs_5_0
dcl_uav_raw u0
dcl_uav_raw u1
dcl_resource_raw t0
dcl_temps 1
dcl_thread_group 1, 1, 1
store_raw u1.x, l(0), l(5)
ld_raw r0.x, l(0), u1.xxxx
ld_raw r0.y, l(0), t0.xxxx
imm_atomic_iadd r0.z, u1, l(0), l(3)
bufinfo r0.w, u1.xxxx
store_raw u0.xyzw, l(0), r0.xyzw
ret
";
    let actual = run_u0(text, 4, [1, 1, 1], Resources::default());
    check(text, &actual, &[0, 0, 0, 0]);
}

#[test]
fn step_limit_stops_an_endless_loop() {
    let text = format!(
        "{HEAD8}mov r0.x, l(0)
loop
  iadd r0.x, r0.x, l(1)
endloop
ret
"
    );
    let options = Options {
        step_limit: 1000,
        ..Options::default()
    };
    let error = run_err(&text, &options);
    assert_eq!(error.kind, ErrorKind::Limit, "{error}");
    assert!(error.message.contains("1000"), "{error}");
    let index = index_of(&error);
    assert!(
        (6..=8).contains(&index),
        "error at instruction {index}: {error}"
    );
}

#[test]
fn sampling_is_unsupported() {
    let text = "cs_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
sample_l r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(0)
store_raw u0.xyzw, l(0), r0.xyzw
ret
";
    let error = run_err(text, &Options::default());
    assert_eq!(error.kind, ErrorKind::Unsupported, "{error}");
    assert!(error.message.contains("sample_l"), "{error}");
    assert_eq!(index_of(&error), 5, "{error}");
}

#[test]
fn divergent_barrier_is_invalid() {
    let text = format!(
        "{HEAD8}and r0.x, vThreadIDInGroupFlattened.x, l(1)
if_nz r0.x
  sync_g_t
else
  sync_g_t
endif
ret
"
    );
    let error = run_err(&text, &Options::default());
    assert_eq!(error.kind, ErrorKind::Invalid, "{error}");
    assert!(error.message.contains("divergent"), "{error}");
}

#[test]
fn threads_that_ended_do_not_hold_a_barrier() {
    // Odd threads return before the barrier; even ones wait, then read what every even
    // thread wrote.
    let text = format!(
        "{HEAD8}mov r0.x, vThreadIDInGroupFlattened.x
and r0.y, r0.x, l(1)
retc_nz r0.y
ishl r0.z, r0.x, l(2)
store_raw u0.x, r0.z, r0.x
sync_uglobal_t
iadd r1.x, r0.z, l(8)
and r1.x, r1.x, l(31)
ld_raw r1.y, r1.x, u0.xxxx
iadd r1.z, r0.z, l(4)
store_raw u0.x, r1.z, r1.y
ret
"
    );
    let actual = run_u0(&text, 8, [1, 1, 1], Resources::default());
    check(&text, &actual, &[0, 2, 2, 4, 4, 6, 6, 0]);
}

#[test]
fn other_stages_are_unsupported() {
    let text = "ps_5_0
dcl_output o0.xyzw
mov o0.xyzw, l(0, 0, 0, 0)
ret
";
    let error = run_err(text, &Options::default());
    assert_eq!(error.kind, ErrorKind::Unsupported, "{error}");
}

#[test]
fn malformed_nesting_is_invalid_and_names_the_instruction() {
    for (text, index) in [
        ("cs_5_0\ndcl_thread_group 1, 1, 1\nloop\nendif\nret\n", 2),
        ("cs_5_0\ndcl_thread_group 1, 1, 1\nbreak\nret\n", 1),
        ("cs_5_0\ndcl_thread_group 1, 1, 1\nif_nz l(1)\nret\n", 1),
        ("cs_5_0\ndcl_thread_group 1, 1, 1\ncall l3\nret\n", 1),
    ] {
        let program = dxbc2spirv::asm::parse_program_unchecked(text)
            .unwrap_or_else(|e| panic!("parsing {text}: {e}"));
        let error = dispatch(
            &program,
            &mut Resources::default(),
            [1, 1, 1],
            &Options::default(),
        )
        .expect_err(text);
        assert_eq!(error.kind, ErrorKind::Invalid, "{text}: {error}");
        assert_eq!(index_of(&error), index, "{text}: {error}");
    }
}

#[test]
fn source_modifiers_by_value_type() {
    let cases: [([u32; 4], Modifier, ValueType, [u32; 4]); 7] = [
        // Floats: the sign bit only; a denormal and a NaN keep their bits.
        (
            [0x0000_0001, 0x7fc0_0001, 0x3f80_0000, 0x8000_0000],
            Modifier::Neg,
            ValueType::F32,
            [0x8000_0001, 0xffc0_0001, 0xbf80_0000, 0],
        ),
        (
            [0x8000_0001, 0xffc0_0001, 0xbf80_0000, 0],
            Modifier::Abs,
            ValueType::F32,
            [0x0000_0001, 0x7fc0_0001, 0x3f80_0000, 0],
        ),
        (
            [1, 0x8000_0001, 0, 0],
            Modifier::AbsNeg,
            ValueType::F32,
            [0x8000_0001, 0x8000_0001, 0x8000_0000, 0x8000_0000],
        ),
        // Integers: two's complement, i32::MIN stays.
        (
            [5, (-5i32) as u32, 0x8000_0000, 0],
            Modifier::Neg,
            ValueType::I32,
            [(-5i32) as u32, 5, 0x8000_0000, 0],
        ),
        (
            [5, (-5i32) as u32, 0x8000_0000, 0],
            Modifier::Abs,
            ValueType::U32,
            [5, 5, 0x8000_0000, 0],
        ),
        // Doubles: the high words (components 1 and 3) only.
        (
            [1, 0x3ff0_0000, 2, 0xbff0_0000],
            Modifier::Neg,
            ValueType::F64,
            [1, 0xbff0_0000, 2, 0x3ff0_0000],
        ),
        // `mov` moves bits but takes float modifiers.
        (
            [0x3f80_0000, 0, 0, 0],
            Modifier::Neg,
            ValueType::Bits,
            [0xbf80_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000],
        ),
    ];
    for (input, modifier, value_type, expected) in cases {
        let mut value = input;
        apply_modifier(&mut value, modifier, value_type);
        assert_eq!(
            value, expected,
            "{modifier:?} on {value_type:?} of {input:#x?}"
        );
    }
}

#[test]
fn out_of_range_resource_register_is_an_error() {
    let text = "cs_5_1
dcl_uav_raw u0[0:0], space=0
dcl_uav_raw u1[2:3], space=0
dcl_temps 1
dcl_thread_group 1, 1, 1
mov r0.x, l(5)
store_raw u1[r0.x + 0].x, l(0), l(1)
ret
";
    let error = run_err(text, &Options::default());
    assert_eq!(error.kind, ErrorKind::Invalid, "{error}");
    assert_eq!(index_of(&error), 5, "{error}");
}

/// A texture of `r32-uint` texels holding `0x1000 * layer + 0x100 * level + index within
/// the level`, laid out layer by layer, each layer's levels one after another.
fn uint_texture(
    dimension: dxbc2spirv::ir::ResourceDimension,
    size: [u32; 3],
    levels: u32,
) -> Resource {
    let format = crate::interp::Format::from_name("r32-uint").expect("r32-uint");
    let three_d = dimension == dxbc2spirv::ir::ResourceDimension::Texture3D;
    let layers = if three_d { 1 } else { size[2] };
    let mut data = Vec::new();
    for layer in 0..layers {
        for level in 0..levels {
            let w = (size[0] >> level).max(1);
            let h = (size[1] >> level).max(1);
            let d = if three_d {
                (size[2] >> level).max(1)
            } else {
                1
            };
            for i in 0..w * h * d {
                data.extend((0x1000 * layer + 0x100 * level + i).to_le_bytes());
            }
        }
    }
    Resource::new(
        Shape::Texture {
            dimension,
            format,
            width: size[0],
            height: size[1],
            depth_or_layers: size[2],
            levels,
        },
        data,
    )
}

#[test]
fn typed_loads_with_mips_layers_offsets_and_bounds() {
    // t0: a typed buffer of 4 uint4 elements; t1: a 4x4 texture with 3 levels; t2: a 2x2
    // array of 3 layers with 2 levels.
    let text = "cs_5_0
dcl_resource_buffer (uint,uint,uint,uint) t0
dcl_resource_texture2d (uint,uint,uint,uint) t1
dcl_resource_texture2darray (uint,uint,uint,uint) t2
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld r0.xyzw, l(2, 0, 0, 0), t0.wzyx
store_raw u0.xyzw, l(0), r0.xyzw
ld r0.xyzw, l(4, 0, 0, 0), t0.xyzw
store_raw u0.xyzw, l(16), r0.xyzw
ld r1.x, l(1, 2, 0, 0), t1.xxxx
ld r1.y, l(1, 1, 1, 0), t1.yxxx
ld_aoffimmi(1,-1,0) r1.z, l(0, 1, 1, 0), t1.xxxx
ld r1.w, l(0, 0, 3, 0), t1.xxxx
store_raw u0.xyzw, l(32), r1.xyzw
ld r1.x, l(1, 0, 2, 0), t2.xxxx
ld r1.y, l(0, 0, 1, 1), t2.xxxx
ld r1.z, l(0, 0, 3, 0), t2.xxxx
ld_indexable(texture2d)(uint,uint,uint,uint) r1.w, l(3, 3, 0, 0), t1.xxxx
store_raw u0.xyzw, l(48), r1.xyzw
ret
";
    let mut resources = Resources::default();
    let format = crate::interp::Format::from_name("r32g32b32a32-uint").expect("format");
    let elements: Vec<u8> = (0..16u32).flat_map(|v| (v + 1).to_le_bytes()).collect();
    resources.srvs.insert(
        (0, 0),
        Resource::new(Shape::TypedBuffer { format }, elements),
    );
    use dxbc2spirv::ir::ResourceDimension as D;
    resources
        .srvs
        .insert((0, 1), uint_texture(D::Texture2D, [4, 4, 1], 3));
    resources
        .srvs
        .insert((0, 2), uint_texture(D::Texture2DArray, [2, 2, 3], 2));
    let actual = run_u0(text, 16, [1, 1, 1], resources);
    check(
        text,
        &actual,
        &[
            // element 2 reversed; element 4 is out of bounds
            12, 11, 10, 9, 0, 0, 0, 0,
            // (1,2) level 0 = 9; (1,1) level 1 through .yxxx (r1.y reads x) = 0x103;
            // (0,1)+(1,-1) level 1 = (1,0) → 0x101; level 3 does not exist
            9, 0x103, 0x101, 0,
            // array (1,0) layer 2 level 0; (0,0) layer 1 level 1; layer 3 is out of
            // bounds; (3,3) level 0 = 15
            0x2001, 0x1100, 0, 15,
        ],
    );
}

#[test]
fn typed_uav_stores_and_loads() {
    // Thread t stores t + 100 at (t, 1) of a 4x2 r32-uint UAV texture, then (after a
    // barrier) loads (3 - t, 1), (t, 0) (.x and the missing .w) and an out-of-bounds (t, 2).
    let text = "cs_5_0
dcl_uav_typed_texture2d (uint,uint,uint,uint) u1
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_thread_group 4, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
mov r0.y, l(1)
iadd r1.x, r0.x, l(100)
store_uav_typed u1.xyzw, r0.xyyy, r1.xxxx
sync_uglobal_t
iadd r0.z, l(3), -r0.x
ld_uav_typed r2.x, r0.zyyy, u1.xxxx
mov r0.w, l(0)
ld_uav_typed r2.y, r0.xwww, u1.xxxx
ld_uav_typed r2.z, r0.xwww, u1.xxwx
mov r0.w, l(2)
ld_uav_typed r2.w, r0.xwww, u1.xxxx
ishl r0.w, r0.x, l(4)
store_raw u0.xyzw, r0.w, r2.xyzw
ret
";
    let mut resources = Resources::default();
    use dxbc2spirv::ir::ResourceDimension as D;
    resources
        .uavs
        .insert((0, 1), uint_texture(D::Texture2D, [4, 2, 1], 1));
    let actual = run_u0(text, 16, [1, 1, 1], resources);
    let mut expected = Vec::new();
    for t in 0..4u32 {
        // The missing .w of an r32 texel reads 1; (t, 2) is out of bounds.
        expected.extend([103 - t, t, 1, 0]);
    }
    check(text, &actual, &expected);
}

#[test]
fn resinfo_in_every_return_type_and_bufinfo() {
    let text = "cs_5_0
dcl_resource_texture2d (uint,uint,uint,uint) t1
dcl_resource_texture2darray (uint,uint,uint,uint) t2
dcl_resource_structured t3, 8
dcl_uav_typed_texture2d (uint,uint,uint,uint) u1
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
resinfo_uint r0.xyzw, l(1), t1.xyzw
store_raw u0.xyzw, l(0), r0.xyzw
resinfo r0.xyzw, l(0), t1.xyzw
store_raw u0.xyzw, l(16), r0.xyzw
resinfo_rcpFloat r0.xyzw, l(1), t2.xyzw
store_raw u0.xyzw, l(32), r0.xyzw
resinfo_rcpFloat r0.xyzw, l(5), t1.wzyx
store_raw u0.xyzw, l(48), r0.xyzw
resinfo_uint r0.xyzw, l(0), u1.xyzw
store_raw u0.xyzw, l(64), r0.xyzw
bufinfo r0.x, t3.xxxx
bufinfo r0.y, u0.xxxx
resinfo_uint r0.zw, l(0), t4.xxxy
store_raw u0.xyzw, l(80), r0.xyzw
ret
";
    let text = &text.replace(
        "dcl_resource_structured t3, 8\n",
        "dcl_resource_structured t3, 8\ndcl_resource_texture2d (float,float,float,float) t4\n",
    );
    let mut resources = Resources::default();
    use dxbc2spirv::ir::ResourceDimension as D;
    resources
        .srvs
        .insert((0, 1), uint_texture(D::Texture2D, [4, 4, 1], 3));
    resources
        .srvs
        .insert((0, 2), uint_texture(D::Texture2DArray, [8, 2, 3], 2));
    resources.srvs.insert(
        (0, 3),
        Resource::new(Shape::Structured { stride: 8 }, vec![0; 8 * 5 + 4]),
    );
    resources
        .uavs
        .insert((0, 1), uint_texture(D::Texture2D, [4, 2, 1], 3));
    let actual = run_u0(text, 24, [1, 1, 1], resources);
    let f = |v: f32| v.to_bits();
    check(
        text,
        &actual,
        &[
            2,
            2,
            0,
            3,
            f(4.0),
            f(4.0),
            0,
            f(3.0),
            // 1/4, 1/1 at level 1; the array size is not a reciprocal
            f(0.25),
            f(1.0),
            f(3.0),
            f(2.0),
            // level 5 is out of range: 1/0 for width and height, swizzled wzyx
            f(3.0),
            0,
            f(f32::INFINITY),
            f(f32::INFINITY),
            // a UAV has one level
            4,
            2,
            0,
            1,
            // 5 structures; u0 is 24 dwords = 96 bytes; t4 is unbound
            5,
            96,
            0,
            0,
        ],
    );
}

#[test]
fn sync_in_every_flag_combination() {
    // Thread i writes g0[i], syncs, reads g0[(i + 1) % 8]. With `_t` every thread sees
    // its neighbour's write; the memory-only forms do not stop the thread (threads run one
    // after another, so a later neighbour has not written yet: D3D leaves that order open,
    // the test checks only that the run goes through and each thread's own write).
    let names = ["uglobal", "ugroup", "g", "t"];
    for flags in 1u32..16 {
        let suffix: String = names
            .iter()
            .enumerate()
            .filter(|(bit, _)| flags & (1 << bit) != 0)
            .map(|(_, name)| format!("_{name}"))
            .collect();
        let text = format!(
            "cs_5_0
dcl_uav_raw u0
dcl_tgsm_raw g0, 32
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 8, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
iadd r0.y, vThreadIDInGroupFlattened.x, l(10)
store_raw g0.x, r0.x, r0.y
sync{suffix}
iadd r1.x, r0.x, l(4)
and r1.x, r1.x, l(31)
ld_raw r1.y, r1.x, g0.xxxx
ishl r1.z, r0.x, l(1)
mov r1.x, r0.y
store_raw u0.xy, r1.z, r1.xyxx
ret
"
        );
        let actual = run_u0(&text, 16, [1, 1, 1], Resources::default());
        for i in 0..8 {
            assert_eq!(
                actual[2 * i],
                10 + i as u32,
                "own write of thread {i}\n{text}"
            );
            if flags & 8 != 0 {
                let neighbour = 10 + (i as u32 + 1) % 8;
                assert_eq!(
                    actual[2 * i + 1],
                    neighbour,
                    "thread {i} after the barrier\n{text}"
                );
            }
        }
    }
}

#[test]
fn sm51_relative_resource_indices_and_srv_loads() {
    // t0..t1 of space 2 (raw, registers 4..5) and t2 (structured, stride 8, register 0 of
    // space 1) read through run-time register indices; u1[r + 7] picks a UAV of range
    // 7..8.
    let text = "cs_5_1
dcl_resource_raw t0[4:5], space=2
dcl_resource_structured t1[0:0], 8, space=1
dcl_uav_raw u0[0:0], space=0
dcl_uav_raw u1[7:8], space=0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 2, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
ld_raw r1.x, l(4), t0[r0.x + 4].xxxx
ld_structured r1.yz, r0.x, l(4), t1[0].xxyx
ishl r0.y, r0.x, l(4)
iadd r1.w, r0.x, l(50)
store_raw u0[0].xyzw, r0.y, r1.xyzw
store_raw u1[r0.x + 7].x, l(0), r1.w
ret
";
    let mut resources = Resources::default();
    let bytes = |words: &[u32]| {
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    resources
        .srvs
        .insert((2, 4), Resource::new(Shape::Raw, bytes(&[1, 2])));
    resources
        .srvs
        .insert((2, 5), Resource::new(Shape::Raw, bytes(&[3, 4])));
    resources.srvs.insert(
        (1, 0),
        Resource::new(Shape::Structured { stride: 8 }, bytes(&[5, 6, 7, 8])),
    );
    resources.uavs.insert((0, 7), raw(1, 0));
    resources.uavs.insert((0, 8), raw(1, 0));
    resources.uavs.insert((0, 0), raw(8, 0xdead_beef));
    let program = program(text);
    dispatch(&program, &mut resources, [1, 1, 1], &Options::default())
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    // Thread 1's structured read of element 1 at byte 4: dwords 3 and (past the
    // structure, so out of bounds) 4.
    check(
        text,
        &words(&resources.uavs[&(0, 0)]),
        &[2, 6, 0, 50, 4, 8, 0, 51],
    );
    check(text, &words(&resources.uavs[&(0, 7)]), &[50]);
    check(text, &words(&resources.uavs[&(0, 8)]), &[51]);
}

#[test]
fn double_operands_take_modifiers_on_their_high_words() {
    let text = "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
dmov r0.xy, d(1.5, 0)
dmov r0.zw, -r0.xyxy
dadd r1.xy, |r0.zwzw|, d(2.0, 0)
dadd r1.zw, -|r0.xyxy|, r0.zwzw
store_raw u0.xyzw, l(0), r1.xyzw
ret
";
    let actual = run_u0(text, 4, [1, 1, 1], Resources::default());
    let d = |v: f64| {
        let bits = v.to_bits();
        [bits as u32, (bits >> 32) as u32]
    };
    let expected: Vec<u32> = [d(3.5), d(-3.0)].concat();
    check(text, &actual, &expected);
}

/// Every compute program of the project's own suite (`shaders/**/*.shader_test` compute
/// sections and `tests/in/*.asm`) runs with no resources bound: nothing panics, and an
/// error is only ever an unsupported feature or the step limit (a valid program is never
/// called invalid).
#[test]
fn the_project_compute_programs_run_unbound() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut texts = Vec::new();
    let mut dirs = vec![root.join("shaders")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "shader_test") {
                let file = std::fs::read_to_string(&path).unwrap_or_default();
                for section in dxbc2spirv::asm::asm_sections(&file) {
                    if section.header == "[compute shader asm]" {
                        texts.push((format!("{}:{}", path.display(), section.line), section.text));
                    }
                }
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir(root.join("tests/in")) {
        for entry in entries.flatten() {
            let path = entry.path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if path.extension().is_some_and(|e| e == "asm")
                && text.lines().any(|l| l.trim().starts_with("cs_"))
            {
                texts.push((path.display().to_string(), text));
            }
        }
    }
    assert!(
        texts.len() >= 10,
        "found only {} compute programs",
        texts.len()
    );
    let options = Options {
        step_limit: 100_000,
        ..Options::default()
    };
    let mut ran = 0;
    let mut report = Vec::new();
    for (name, text) in &texts {
        let Ok(bytes) = dxbc2spirv::asm::assemble(text) else {
            continue;
        };
        let Ok(Some(program)) =
            dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).map(|d| d.program)
        else {
            continue;
        };
        ran += 1;
        if let Err(error) = dispatch(&program, &mut Resources::default(), [2, 1, 1], &options) {
            if error.kind == ErrorKind::Invalid {
                report.push(format!("{name}: {error}"));
            }
        }
    }
    assert!(ran >= 10, "ran only {ran} of {} programs", texts.len());
    assert!(
        report.is_empty(),
        "valid programs called invalid:\n{}",
        report.join("\n")
    );
}

#[test]
fn residency_loads_abort_and_debug_break() {
    // `_s` loads give the plain load's data and a status every check calls fully mapped;
    // the status may overwrite the address register (written after the load); abort and
    // debug_break do nothing.
    let text = "cs_5_0
dcl_resource_raw t1
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 1, 1, 1
mov r2.x, l(4)
debug_break
ld_raw_s r0.xy, r2.x, r2.x, t1.zxyw
check_access_fully_mapped r1.x, r2.x
abort
ld_raw_s r0.zw, null, l(0), t1.xxxy
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xy, l(16), r1.xxxx
ret
";
    let mut resources = Resources::default();
    let bytes: Vec<u8> = [7u32, 8, 9, 10]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    resources
        .srvs
        .insert((0, 1), Resource::new(Shape::Raw, bytes));
    let actual = run_u0(text, 6, [1, 1, 1], resources);
    check(text, &actual, &[10, 8, 7, 8, u32::MAX, u32::MAX]);
}

/// Every compute blob of the corpus (fxc's and vkd3d's, `../shared/corpus`, not part of
/// the project) runs with nothing bound and 2 groups: nothing panics and no valid program
/// is called invalid. Fails loudly when the corpus is absent.
#[test]
fn the_corpus_compute_blobs_run_unbound() {
    let corpus = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("../shared/corpus");
    assert!(
        corpus.join("fxc").is_dir() && corpus.join("shader_test_dxbc").is_dir(),
        "\n\n*** THE TEST CORPUS IS MISSING ***\nlooked for {}; the project's UAV probes on the \
         interpreter are checked by tests/interp_proof.rs\n",
        corpus.display()
    );
    let mut blobs = Vec::new();
    let mut dirs = vec![corpus.join("fxc"), corpus.join("shader_test_dxbc")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "dxbc") {
                blobs.push(path);
            }
        }
    }
    let options = Options {
        step_limit: 100_000,
        ..Options::default()
    };
    let (mut ran, mut report) = (0, Vec::new());
    for path in &blobs {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(Some(program)) =
            dxbc2spirv::read(&bytes, &dxbc2spirv::ReadOptions::default()).map(|d| d.program)
        else {
            continue;
        };
        if program.model.stage != dxbc2spirv::ir::Stage::Compute {
            continue;
        }
        ran += 1;
        if let Err(error) = dispatch(&program, &mut Resources::default(), [2, 1, 1], &options) {
            if error.kind == ErrorKind::Invalid {
                report.push(format!("{}: {error}", path.display()));
            }
        }
    }
    eprintln!("ran {ran} compute blobs of {}", blobs.len());
    assert!(
        report.is_empty(),
        "valid programs called invalid:\n{}",
        report.join("\n")
    );
}

#[test]
fn class_linkage_calls_through_the_bound_table() {
    // fp0[2][1] = {ft0, ft1}: slot 0 bound to ft1, slot 1 to table 9 (not listed: no
    // call); a run-time index of 2 is past the slots (no call). this[1].y is read directly.
    let text = "cs_5_0
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0}
dcl_function_table ft1 = {fb1}
dcl_interface_dynamicindexed fp0[2][1] = {ft0, ft1}
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.x, l(0)
fcall fp0[0][0]
mov r1.y, l(1)
fcall fp0[r1.y + 0][0]
mov r1.y, l(2)
fcall fp0[r1.y + 0][0]
mov r0.y, this[1].y
store_raw u0.xy, l(0), r0.xyxx
ret
label fb0
iadd r0.x, r0.x, l(1)
ret
label fb1
iadd r0.x, r0.x, l(10)
ret
";
    let mut resources = Resources::default();
    resources.constant_buffers.insert(
        (0, 15),
        vec![1, 0, 0, 0, 5, 6, 7, 8, 9, 0, 0, 0, 50, 60, 70, 80],
    );
    let actual = run_u0(text, 2, [1, 1, 1], resources);
    check(text, &actual, &[10, 60]);
}

#[test]
fn undefined_reads_of_temps_are_refused_only_when_asked() {
    let text = "cs_5_0\ndcl_uav_raw u0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n\
                mov r0.xy, l(1, 2, 0, 0)\nmov r1.x, r0.y\nstore_raw u0.xy, l(0), r0.xzxx\nret\n";
    let strict = Options {
        undefined_reads: true,
        ..Options::default()
    };
    let error = run_err(text, &strict);
    assert_eq!(index_of(&error), 5, "{error}");
    assert!(error.message.contains("r0.z"), "{error}");
    // Off by default: the unwritten component reads 0.
    run_ok(text, &Options::default());
}

#[test]
fn undefined_shared_memory_and_racing_stores_are_refused_when_asked() {
    let strict = Options {
        undefined_reads: true,
        ..Options::default()
    };
    let head = "cs_5_0\ndcl_uav_raw u0\ndcl_temps 2\ndcl_tgsm_raw g0, 16\n\
                dcl_thread_group 2, 1, 1\n";
    // Thread 0 writes dword 0, everyone reads dword 1 after the barrier: nobody wrote it.
    let unwritten = format!(
        "{head}if_z vThreadIDInGroupFlattened.x\nstore_raw g0.x, l(0), l(7)\nendif\n\
         sync_g_t\nld_raw r0.x, l(4), g0.xxxx\nstore_raw u0.x, l(0), r0.x\nret\n"
    );
    let error = run_err(&unwritten, &strict);
    assert_eq!(index_of(&error), 8, "{error}");
    assert!(error.message.contains("before any thread"), "{error}");
    // Each thread writes its dword, then all read thread 0's with no barrier between: a
    // race for thread 1.
    let race = format!(
        "{head}ishl r0.x, vThreadIDInGroupFlattened.x, l(2)\nstore_raw g0.x, r0.x, l(7)\n\
         ld_raw r1.x, l(0), g0.xxxx\nret\n"
    );
    let error = run_err(&race, &strict);
    assert!(error.message.contains("no barrier"), "{error}");
    // With the barrier it is defined.
    run_ok(&race.replace("ld_raw", "sync_g_t\nld_raw"), &strict);
    // Two threads storing different values to one UAV dword race; the same value does not.
    let uav = format!("{head}store_raw u0.x, l(0), vThreadIDInGroupFlattened.x\nret\n");
    let error = run_err(&uav, &strict);
    assert!(error.message.contains("thread order"), "{error}");
    run_ok(
        &uav.replace("vThreadIDInGroupFlattened.x\n", "l(3)\n"),
        &strict,
    );
}
