// Atomics on raw and structured UAVs and on group-shared memory, with and without a
// returned value (imm_atomic_cmp_exch, imm_atomic_and, atomic_*).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_uav_structured u1, 8
dcl_tgsm_raw g0, 16
dcl_tgsm_structured g1, 4, 8
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_thread_group 8, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
mov r0.y, vThreadIDInGroupFlattened.x
mov r0.z, l(4)
atomic_iadd u0, r0.x, l(1)
atomic_and u0, l(0), l(0xfffffff0)
atomic_or u1, l(1, 4, 0, 0), l(2)
atomic_xor g0, l(4), vThreadIDInGroupFlattened.x
atomic_cmp_store u0, l(4), l(0), vThreadIDInGroupFlattened.x
atomic_umax g1, l(2, 0, 0, 0), vThreadIDInGroupFlattened.x
imm_atomic_cmp_exch r1.x, u0, l(8), l(0), l(1)
imm_atomic_cmp_exch r1.y, u1, r0.yzyy, r1.x, l(5)
imm_atomic_cmp_exch r1.z, g0, l(0), l(0), r1.y
imm_atomic_and r2.x, u0, l(12), l(0xff)
imm_atomic_and r2.y, u1, l(0, 4, 0, 0), r1.z
imm_atomic_and r2.z, g0, l(8), l(0x0f)
imm_atomic_iadd r2.w, g1, l(1, 0, 0, 0), l(1)
imm_atomic_exch r0.y, u0, l(16), r2.w
imm_atomic_imin r0.z, u0, l(20), r2.z
iadd r0.y, r0.y, r0.z
store_raw u0.xyzw, l(32), r2.xyzy
ret
