// Subroutines: label/call/callc (temps are shared with the caller), ret inside a
// subroutine and a conditional call.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_thread_group 4, 1, 1
mov r0.x, vThreadIDInGroupFlattened.x
mov r1.x, l(0)
call l0
and r0.y, r0.x, l(1)
callc_nz r0.y, l1
ishl r0.z, r0.x, l(2)
store_raw u0.x, r0.z, r1.x
ret
label l0
iadd r1.x, r1.x, l(10)
ret
label l1
ieq r0.w, r0.x, l(3)
retc_nz r0.w
iadd r1.x, r1.x, l(100)
ret
