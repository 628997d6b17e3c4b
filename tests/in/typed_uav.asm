// Typed UAVs: ld_uav_typed and store_uav_typed on a buffer and a 2D texture, typed atomics
// (R32_UINT, returning the previous value), bufinfo, and UAV counters
// (imm_atomic_alloc/consume).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_typed_buffer (float,float,float,float) u0
dcl_uav_typed_texture2d (uint,uint,uint,uint) u1
dcl_uav_structured_opc u2, 4
dcl_input vThreadID.xy
dcl_temps 3
dcl_thread_group 8, 8, 1
ld_uav_typed r0.xyzw, vThreadID.xxxx, u0.xyzw
mul r0.xyzw, r0.xyzw, l(2.000000, 2.000000, 2.000000, 2.000000)
store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xyzw
ld_uav_typed r1.x, vThreadID.xyxx, u1.xxxx
imm_atomic_iadd r1.y, u1, vThreadID.xyxx, l(1)
atomic_umax u1, vThreadID.yxyy, r1.x
imm_atomic_cmp_exch r1.z, u1, l(0, 0, 0, 0), r1.y, l(7)
bufinfo r2.x, u0.xxxx
imm_atomic_alloc r2.y, u2
imm_atomic_consume r2.z, u2
iadd r1.w, r2.y, r2.z
store_uav_typed u1.xyzw, vThreadID.xyyy, r1.xyzw
ret
