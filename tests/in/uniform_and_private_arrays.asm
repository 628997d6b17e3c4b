// A constant buffer and an indexable temp of the same shape (uint4[2]): the buffer's array
// type carries ArrayStride, the Private array's is another type without it (spirv-val
// 2025.5 refuses an explicit layout in the Private storage class).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[2], dynamicIndexed
dcl_uav_raw u0
dcl_temps 1
dcl_indexableTemp x0[2], 4
dcl_thread_group 1, 1, 1
mov x0[0].xyzw, cb0[0].xyzw
mov x0[1].xyzw, cb0[1].xyzw
mov r0.x, cb0[0].x
mov r0.xyzw, x0[r0.x + 0].xyzw
store_raw u0.xyzw, l(0), r0.xyzw
ret
