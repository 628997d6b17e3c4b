// Sampling and texel loads: sample, sample_b, sample_l, sample_d, sample_c, sample_c_lz
// with immediate offsets, gather4 and gather4_po(_c), ld on a 2D texture and a buffer,
// ld2dms, resinfo with each return type, lod, and a swizzled resource operand.
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_sampler s0, mode_default
dcl_sampler s1, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2darray (float,float,float,float) t1
dcl_resource_texturecube (float,float,float,float) t2
dcl_resource_buffer (uint,uint,uint,uint) t3
dcl_resource_texture2dms(4) (float,float,float,float) t4
dcl_resource_texture3d (sint,sint,sint,sint) t5
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 4
sample r0.xyzw, v0.xyxx, t0.xyzw, s0
sample_b r1.xyzw, v0.xyzx, t1.yxzw, s0, l(0.500000)
sample_l r2.xyzw, v0.xyzx, t2.xyzw, s0, l(2.000000)
sample_d r3.xyzw, v0.xyxx, t0.xyzw, s0, v0.zwzz, v0.wzww
add r0.xyzw, r0.xyzw, r1.xyzw
add r0.xyzw, r0.xyzw, r2.xyzw
add r0.xyzw, r0.xyzw, r3.xyzw
sample_c r1.x, v0.xyxx, t0.xxxx, s1, v0.z
sample_c_lz_aoffimmi(1,-1,0) r1.y, v0.xyxx, t0.xxxx, s1, v0.w
gather4 r2.xyzw, v0.xyxx, t0.xyzw, s0.x
gather4_po r3.xyzw, v0.xyxx, l(1, 2, 0, 0), t0.xyzw, s0.y
gather4_po_c r1.zw, v0.xyxx, l(-1, 0, 0, 0), t0.xyzw, s1.x, v0.z
ld r2.xyzw, l(1, 2, 0, 0), t0.xyzw
ld r3.xyzw, l(5, 0, 0, 0), t3.xyzw
ld2dms r2.xyzw, l(1, 1, 0, 0), t4.xyzw, l(3)
ld r3.xyzw, l(1, 2, 3, 0), t5.xyzw
resinfo r1.xyzw, l(0), t0.xyzw
resinfo_uint r2.xyzw, l(1), t1.xyzw
resinfo_rcpFloat r3.xy, l(0), t2.xyzw
lod r3.zw, v0.xyxx, t0.zwxy, s0
add o0.xyzw, r0.xyzw, r1.xyzw
ret
