// The signed/unsigned min/max and or/xor atomics without and with a returned value, on a
// raw UAV and on group-shared memory.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_tgsm_raw g0, 16
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 4, 1, 1
atomic_imax u0, l(0), vThreadIDInGroupFlattened.x
atomic_imin u0, l(4), vThreadIDInGroupFlattened.x
atomic_umin u0, l(8), vThreadIDInGroupFlattened.x
atomic_imax g0, l(0), vThreadIDInGroupFlattened.x
imm_atomic_or r0.x, u0, l(12), vThreadIDInGroupFlattened.x
imm_atomic_xor r0.y, u0, l(16), vThreadIDInGroupFlattened.x
imm_atomic_imax r0.z, g0, l(4), vThreadIDInGroupFlattened.x
imm_atomic_umin r0.w, g0, l(8), vThreadIDInGroupFlattened.x
iadd r1.x, r0.x, r0.y
iadd r1.x, r1.x, r0.z
iadd r1.x, r1.x, r0.w
store_raw u0.x, l(20), r1.x
ret
