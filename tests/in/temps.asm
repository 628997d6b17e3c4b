// Temporaries and indexable temporaries: dynamic indices are bounds-checked (reads out of
// range give 0, writes out of range are dropped).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_indexableTemp x0[4], 4
dcl_indexableTemp x1[3], 2
dcl_thread_group 4, 1, 1
mov x0[0].xyzw, l(1, 2, 3, 4)
mov x0[1].xyzw, l(5, 6, 7, 8)
mov x0[2].xy, l(9, 10, 0, 0)
mov x0[3].zw, l(0, 0, 11, 12)
mov x1[vThreadIDInGroupFlattened.x + 0].xy, l(13, 14, 0, 0)
mov x1[vThreadIDInGroupFlattened.x + 1].x, l(15, 0, 0, 0)
mov r0.xyzw, x0[vThreadIDInGroupFlattened.x + 0].xyzw
iadd r1.x, vThreadIDInGroupFlattened.x, l(1)
mov r1.yz, x1[r1.x + 0].xxyx
iadd r0.xy, r0.xyxx, r1.yzyy
ishl r1.w, vThreadIDInGroupFlattened.x, l(4)
store_raw u0.xyzw, r1.w, r0.xyzw
ret
