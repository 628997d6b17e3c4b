cs_5_1
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0[4294967295:*], space=4294967295
dcl_resource_raw t1[536870912:536870913], space=4294967295
dcl_resource_raw t2[7:7], space=4294967295
dcl_uav_structured u0[3000000000:3000000000], 4, space=0
dcl_uav_raw u1[536870912:*], space=0
dcl_thread_group 1, 1, 1
dcl_temps 2
mov r1.x, l(1)
ld_raw r0.x, l(0), t0[4294967295].xxxx
ld_raw r0.y, l(0), t1[r1.x + 536870912].xxxx
ld_raw r0.z, l(0), t2[7].xxxx
imm_atomic_alloc r0.w, u0[3000000000]
store_raw u1[r1.x + 536870912].xyzw, l(0), r0.xyzw
ret
