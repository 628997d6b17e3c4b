// Tiled-resource feedback with the default features (shaderResourceResidency and
// shaderResourceMinLod): the _s forms become OpImageSparse* with the residency code turned
// into the status (1 = fully mapped), a non-zero clamp becomes MinLod and an immediate zero
// clamp none, check_access_fully_mapped tests the status; raw buffers report mapped; comparison
// gathers with and without offsets, a multisampled load, and deriv_rtx.
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_sampler s0, mode_default
dcl_sampler s1, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_raw t1
dcl_resource_texture2dms(4) (float,float,float,float) t2
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 3
sample_cl_s r0.xyzw, r1.x, v0.xyxx, t0.xyzw, s0, l(0.0)
sample_b_cl_s r0.xyzw, r1.y, v0.xyxx, t0.xyzw, s0, l(0.5), r0.w
sample_d_cl_s r2.xyzw, r1.z, v0.xyxx, t0.xyzw, s0, l(0.1, 0, 0, 0), l(0, 0.1, 0, 0), l(1.5)
sample_c_cl_s r2.x, r1.w, v0.xyxx, t0.xxxx, s1, l(0.5), l(2.0)
ld_raw_s r2.y, r0.x, l(0), t1.xxxx
gather4_c_s r2.z, r0.y, v0.xyxx, t0.xyzw, s1.x, l(0.5)
gather4_po_c_s r2.w, r0.z, v0.xyxx, l(1, -1, 0, 0), t0.xyzw, s1.x, l(0.5)
ld2dms_s r1.xyzw, r0.w, l(0, 0, 0, 0), t2.xyzw, l(2)
deriv_rtx r2.w, r2.w
and r1.xyzw, r1.xyzw, r0.xxxx
check_access_fully_mapped r1.xyzw, r1.xyzw
and r0.xyzw, r0.xyzw, r1.xyzw
add o0.xyzw, r0.xyzw, r2.xyzw
ret
