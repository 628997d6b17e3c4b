// Raw and structured buffers: SRV and UAV loads, store_raw with .x/.xy/.xyz/.xyzw masks and
// structured stores.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0
dcl_resource_structured t1, 16
dcl_uav_raw u0
dcl_uav_structured u1, 12
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 8, 1, 1
ishl r0.x, vThreadID.x, l(4)
ld_raw r1.xyzw, r0.x, t0.xyzw
ld_structured r2.xyzw, vThreadID.x, l(0), t1.xyzw
ld_raw r0.yz, l(8), u0.xxyx
ld_structured r0.w, vThreadID.x, l(4), u1.x
store_raw u0.x, r0.x, r1.x
store_raw u0.xy, r0.x, r1.xyxx
store_raw u0.xyz, r0.x, r2.xyzx
store_raw u0.xyzw, r0.x, r2.wzyx
store_raw u0.xy, l(64), r0.zwzz
store_structured u1.xyz, vThreadID.x, l(0), r1.xyzx
store_structured u1.x, vThreadID.x, l(8), r0.w
ret
