cs_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[2:4][4], dynamicIndexed, space=0
dcl_resource_raw t0[8:11], space=2
dcl_resource_structured t1[4:*], 16, space=0
dcl_uav_raw u0[0:3], space=0
dcl_uav_structured_opc u1[4:5], 4, space=0
dcl_uav_typed_texture2d (uint,uint,uint,uint) u2[6:7], space=0
dcl_input vThreadID.xyz
dcl_temps 4
dcl_thread_group 8, 4, 1
mov r1.xyzw, cb0[r0.x + 2][3].xyzw
ld_raw r0.z, l(0), t0[r1.x + 8].xxxx {nonuniform}
ld_structured r0.w, l(1), l(4), t1[r1.y + 4].xxxx
store_raw u0[r1.z + 0].xy, l(0), r0.zwzz
imm_atomic_alloc r3.x, u1[r1.x + 4]
atomic_iadd u2[7], vThreadID.xyyy, r3.x
ld_uav_typed r2.xyzw, vThreadID.xyyy, u2[6].xyzw
ret
