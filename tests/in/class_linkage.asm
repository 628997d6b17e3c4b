// Class linkage: function bodies (label fbN, numbered independently of subroutine labels lN),
// function tables, a plain and a dynamically indexed interface array, fcall through a
// constant and a dynamic array index, and this[] with a constant and a relative slot (the
// instance data of cb15: per slot a uvec4 {table id} then the this[] uvec4).
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_function_body fb0
dcl_function_body fb1
dcl_function_body fb2
dcl_function_body fb3
dcl_function_table ft0 = {fb0, fb2}
dcl_function_table ft1 = {fb1, fb3}
dcl_function_table ft2 = {fb1, fb1}
dcl_interface fp0[1][2] = {ft0, ft1}
dcl_interface_dynamicindexed fp1[3][2] = {ft0, ft1, ft2}
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 3
mov r0.xyzw, v0.xyzw
ftou r2.x, v0.x
fcall fp0[0][0]
fcall fp1[r2.x + 0][1]
fcall fp1[2][0]
call l0
mov o0.xyzw, r0.xyzw
ret
label fb0
add r0.xyzw, r0.xyzw, l(1.000000, 1.000000, 1.000000, 1.000000)
ret
label fb1
utof r1.xyzw, this[0].xyzw
add r0.xyzw, r0.xyzw, r1.xyzw
ret
label fb2
mul r0.xyzw, r0.xyzw, l(2.000000, 2.000000, 2.000000, 2.000000)
ret
label fb3
utof r1.xy, this[r2.x + 1].zwzz
add r0.xy, r0.xyxx, r1.xyxx
ret
label l0
mov r0.w, l(1.000000)
ret
