// Dwords an instruction's length counts past its last operand: fxc once wrote a
// sample_d_cl_s one dword longer than its operands, ending in 0x00002000. They are kept
// ({trailing=…}, so the program re-encodes bit-exact) and ignored by the translation, as
// vkd3d-shader and DXVK ignore them.
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 3 {trailing=0x00000001}
sample_d_cl_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v0.xyxx, t0.xyzw, s0, v0.zwzz, v0.wzww, l(1.500000) {trailing=0x00002000}
check_access_fully_mapped r1.x, r1.x
and r2.x, r1.x, l(0x3f800000)
mov r2.yzw, r0.xxyz {trailing=0xffffffff} {length=7}
add o0.xyzw, r2.xyzw, r0.wwww
ret
