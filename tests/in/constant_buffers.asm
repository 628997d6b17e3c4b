// Constant buffers: immediate and dynamic indexing into cb registers.
vs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[4], immediateIndexed
dcl_constantbuffer cb1[8], dynamicIndexed
dcl_input v0.xyzw
dcl_input v1.x
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_temps 2
mul r0.xyzw, v0.yyyy, cb0[1].xyzw
mad r0.xyzw, cb0[0].xyzw, v0.xxxx, r0.xyzw
mad r0.xyzw, cb0[2].xyzw, v0.zzzz, r0.xyzw
mad o0.xyzw, cb0[3].xyzw, v0.wwww, r0.xyzw
ishl r1.x, v1.x, l(1)
mov r0.xyzw, cb1[r1.x + 0].xyzw
add o1.xyzw, r0.xyzw, cb1[r1.x + 1].wzyx
ret
