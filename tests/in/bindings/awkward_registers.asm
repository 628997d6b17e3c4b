cs_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[20:20][1], immediateIndexed, space=0
dcl_sampler s0[20:20], mode_default, space=1
dcl_resource_texture2d (float,float,float,float) t0[199:199], space=3
dcl_resource_raw t1[200:*], space=3
dcl_resource_raw t2[0:3], space=4294967295
dcl_resource_buffer (uint,uint,uint,uint) t3[536870911:*], space=2
dcl_uav_typed_buffer (uint,uint,uint,uint) u0[100:100], space=0
dcl_uav_structured_opc u1[70:71], 4, space=0
dcl_uav_raw u2[0:0], space=0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r1.x, l(0)
sample_l r0.xyzw, l(0.5, 0.5, 0, 0), t0[199].xyzw, s0[20], l(0)
ld_raw r0.y, l(0), t1[r1.x + 200].xxxx
ld_raw r0.z, l(0), t2[r1.x + 0].xxxx
ld r1.yzw, r1.xxxx, t3[r1.x + 536870911].yzwx
iadd r0.w, r1.y, cb0[20][0].x
store_uav_typed u0[100].xyzw, l(0, 0, 0, 0), r0.xyzw
imm_atomic_alloc r1.x, u1[r1.x + 70]
store_raw u2[0].x, l(0), r1.x
ret
