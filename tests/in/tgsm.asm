// Thread-group shared memory: raw and structured g# registers, with barriers between the
// stores and the loads.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_tgsm_raw g0, 256
dcl_tgsm_structured g1, 8, 64
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
store_raw g0.x, r0.x, vThreadIDInGroupFlattened.x
store_structured g1.xy, vThreadIDInGroupFlattened.x, l(0), l(1, 2, 0, 0)
sync_g_t
xor r0.y, vThreadIDInGroupFlattened.x, l(1)
ishl r0.z, r0.y, l(2)
ld_raw r1.x, r0.z, g0.xxxx
ld_structured r1.yz, r0.y, l(0), g1.xxyx
ishl r0.w, vThreadIDInGroupFlattened.x, l(4)
store_raw u0.xyz, r0.w, r1.xyzx
ret
