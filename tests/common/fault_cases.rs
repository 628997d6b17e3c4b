// The fault test programs (included, not a module: by tests/fault_rewrite.rs and
// tests/fault_vulkan.rs, each with the test kit's `Fault` and `spirv::Op` in scope).

/// One fault's program: its code, the UAVs it runs on, and what D3D gives.
// Each includer reads part of the fields (the module tests the opcodes, Vulkan the data).
#[allow(dead_code)]
struct Case {
    /// The fault the program exposes.
    fault: Fault,
    /// The whole program (assembly text).
    program: &'static str,
    /// The initial contents of `u0`, `u1`, … (raw or structured UAVs).
    uavs: &'static [&'static [u32]],
    /// The contents of the UAVs after the dispatch, by D3D's rules.
    expected: &'static [&'static [u32]],
    /// Opcodes the fault removes from the module (present without it, absent with it).
    gone: &'static [Op],
    /// Opcodes the fault adds to the module (more of them with it than without).
    new: &'static [Op],
}

const ONE_F32: u32 = 0x3f80_0000;
const ONE_F64_HIGH: u32 = 0x3ff0_0000;
const TWO_F64_HIGH: u32 = 0x4000_0000;
const FOUR_F64_HIGH: u32 = 0x4010_0000;

/// The results of the `lost-barrier` program: thread `i` reads `100 + (i + 1) % 64` and
/// `200 + (i + 1) % 64`.
const NEIGHBOURS: [u32; 128] = {
    let mut values = [0; 128];
    let mut i = 0;
    while i < 64 {
        let next = (i as u32 + 1) % 64;
        values[2 * i] = 100 + next;
        values[2 * i + 1] = 200 + next;
        i += 1;
    }
    values
};

const CASES: &[Case] = &[
    Case {
        fault: Fault::SwappedOperands,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xy, l(0), u0.xyxx
ishl r1.x, r0.x, r0.y
ishr r1.y, r0.x, r0.y
ushr r1.z, r0.x, r0.y
store_raw u0.xyz, l(8), r1.xyzx
ret
",
        // -16 and 2: ishl -64, ishr -4, ushr 0x3ffffffc (swapped: 2 << 16, 2 >> 16, 2 >> 16).
        uavs: &[&[0xffff_fff0, 2, 0, 0, 0]],
        expected: &[&[0xffff_fff0, 2, 0xffff_ffc0, 0xffff_fffc, 0x3fff_fffc]],
        gone: &[],
        new: &[Op::BitwiseAnd],
    },
    Case {
        fault: Fault::WrongComparison,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xy, l(0), u0.xyxx
ilt r1.x, r0.x, r0.y
lt r1.y, r0.x, r0.y
store_raw u0.xy, l(8), r1.xyxx
ret
",
        // Equal sources (5 and 5.0f as bits): not less.
        uavs: &[&[5, 5, 9, 9]],
        expected: &[&[5, 5, 0, 0]],
        gone: &[Op::SLessThan, Op::FOrdLessThan],
        new: &[Op::SLessThanEqual, Op::FOrdLessThanEqual],
    },
    Case {
        fault: Fault::DroppedSaturate,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xyzw, l(0), u0.xyzw
mul_sat r1.x, r0.x, l(2.0)
dadd_sat r1.zw, r0.zwzw, r0.zwzw
store_raw u0.x, l(16), r1.x
store_raw u0.xy, l(20), r1.zwzz
ret
",
        // 1.0f * 2 saturates to 1.0f; 1.0 + 1.0 saturates to 1.0.
        uavs: &[&[ONE_F32, 0, 0, ONE_F64_HIGH, 0, 0, 0]],
        expected: &[&[ONE_F32, 0, 0, ONE_F64_HIGH, ONE_F32, 0, ONE_F64_HIGH]],
        gone: &[],
        new: &[Op::CopyObject],
    },
    Case {
        fault: Fault::LoopExitOffByOne,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 1, 1, 1
ld_raw r2.x, l(0), u0.xxxx
mov r0.x, l(0)
loop
  uge r0.y, r0.x, r2.x
  breakc_nz r0.y
  iadd r0.x, r0.x, l(1)
endloop
mov r1.x, l(0)
loop
  iadd r1.x, r1.x, l(1)
  uge r1.y, r1.x, r2.x
  if_nz r1.y
    break
  endif
endloop
store_raw u0.xy, l(4), r0.xxxx
store_raw u0.x, l(8), r1.x
mov r0.z, l(0)
loop
  uge r0.w, r0.z, r2.x
  breakc_nz r0.w
  switch r0.z
    case l(1)
      iadd r0.z, r0.z, l(1)
      break
    default
      iadd r0.z, r0.z, l(1)
      break
  endswitch
endloop
store_raw u0.x, l(12), r0.z
ret
",
        // Three iterations each (a `break` out of a `switch` is no loop exit); with the fault
        // the loops run once more.
        uavs: &[&[3, 0, 0, 0]],
        expected: &[&[3, 3, 3, 3]],
        gone: &[],
        new: &[Op::Variable],
    },
    Case {
        fault: Fault::LostBarrier,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_structured u0, 8
dcl_tgsm_structured g0, 4, 64
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 64, 1, 1
iadd r0.x, vThreadIDInGroupFlattened.x, l(1)
and r0.x, r0.x, l(63)
iadd r1.x, vThreadIDInGroupFlattened.x, l(100)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
sync_g_t
ld_structured r0.y, r0.x, l(0), g0.xxxx
sync_g_t
iadd r1.x, vThreadIDInGroupFlattened.x, l(200)
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
sync_g_t
ld_structured r0.z, r0.x, l(0), g0.xxxx
store_structured u0.xy, vThreadIDInGroupFlattened.x, l(0), r0.yzyy
ret
",
        // Each thread reads its neighbour's values: (101, 201), (102, 202), …, (100, 200).
        uavs: &[&[0; 128]],
        expected: &[&NEIGHBOURS],
        gone: &[Op::ControlBarrier],
        new: &[],
    },
    Case {
        fault: Fault::OutOfBoundsWriteLands,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_uav_structured u1, 8
dcl_temps 1
dcl_thread_group 1, 1, 1
ld_raw r0.x, l(0), u0.xxxx
store_raw u0.xy, r0.x, l(7, 8, 0, 0)
store_structured u1.xy, l(1), l(4), l(5, 6, 0, 0)
store_structured u1.x, l(0), l(0), l(9)
ret
",
        // u0: bytes 12..20 of 16, the first dword lands and the second is dropped; u1: one
        // structure, index 1 is past the end.
        uavs: &[&[12, 1, 2, 3], &[0, 0]],
        expected: &[&[12, 1, 2, 7], &[9, 0]],
        gone: &[],
        new: &[Op::ISub],
    },
    Case {
        fault: Fault::WrongAtomicOp,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
atomic_iadd u0, l(0), l(3)
imm_atomic_iadd r0.x, u0, l(4), l(5)
store_raw u0.x, l(8), r0.x
ret
",
        uavs: &[&[1, 6, 0]],
        expected: &[&[4, 11, 6]],
        gone: &[Op::AtomicIAdd],
        new: &[Op::AtomicXor],
    },
    Case {
        fault: Fault::SwappedDoubleHalves,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xyzw, l(0), u0.xyzw
dadd r1.xyzw, r0.xyzw, r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
ret
",
        // (1.0, 2.0) + (1.0, 2.0) = (2.0, 4.0); with the halves swapped, each source is a
        // denormal.
        uavs: &[&[0, ONE_F64_HIGH, 0, TWO_F64_HIGH, 0, 0, 0, 0]],
        expected: &[&[
            0,
            ONE_F64_HIGH,
            0,
            TWO_F64_HIGH,
            0,
            TWO_F64_HIGH,
            0,
            FOUR_F64_HIGH,
        ]],
        gone: &[],
        new: &[Op::VectorShuffle],
    },
    Case {
        fault: Fault::UnclampedFtoi,
        program: "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.xyz, l(0), u0.xyzx
ftoi r1.x, r0.x
ftou r1.y, r0.y
ftoi r1.z, r0.z
store_raw u0.xyz, l(12), r1.xyzx
ret
",
        // 3e9 saturates to 0x7fffffff, -1.0 to 0 (ftou), NaN gives 0 (with the fault, each
        // 0x80000000).
        uavs: &[&[0x4f32_d05e, 0xbf80_0000, 0x7fc0_0000, 0, 0, 0]],
        expected: &[&[0x4f32_d05e, 0xbf80_0000, 0x7fc0_0000, 0x7fff_ffff, 0, 0]],
        gone: &[],
        new: &[Op::LogicalAnd],
    },
];
