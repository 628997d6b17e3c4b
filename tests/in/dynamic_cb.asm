// fxc's class-linkage form of a constant-buffer register chosen at run time: this[0].x is
// the constant buffer of the class instance's data, this[0].y its offset. The reflection
// lists D3D11's slots 0-13 of space 0 under dynamic_constant_buffers (cb0 declared, the
// others bound as cbN would be and listed as $DynamicSlot ranges).
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0}
dcl_function_table ft1 = {fb1}
dcl_interface fp0[1][1] = {ft0, ft1}
dcl_constantbuffer cb0[1], immediateIndexed
dcl_output o0.xyzw
dcl_temps 2
fcall fp0[0][0]
mov o0.xyzw, r0.xyzw
ret
label fb0
mov r1.xy, this[0].xyxx
mov r0.xyzw, cb[r1.x + 0][r1.y + 0].xyzw
ret
label fb1
mov r1.xy, this[0].xyxx
add r0.xyzw, cb[r1.x + 0][r1.y + 1].xyzw, cb0[0].xyzw
ret
