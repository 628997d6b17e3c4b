// Pixel shader I/O: interpolation modes (linear, centroid, sample, noperspective,
// constant), SV_Position (w is 1/FragCoord.w), SV_IsFrontFace (all-ones/zero), SV_SampleIndex,
// SV_PrimitiveID, SV_Depth, SV_Coverage out, early depth-stencil, eval_centroid.
ps_5_0
dcl_globalFlags refactoringAllowed | forceEarlyDepthStencil
dcl_input_ps_siv linear noperspective v0.xyzw, position
dcl_input_ps linear centroid v1.xy
dcl_input_ps linear sample v1.zw
dcl_input_ps linear noperspective v2.xy
dcl_input_ps constant v3.x
dcl_input_ps_sgv v4.x, is_front_face
dcl_input_ps_sgv v5.x, sampleIndex
dcl_input_ps_sgv v6.x, primitive_id
dcl_output o0.xyzw
dcl_output oDepth
dcl_output oMask
dcl_temps 2
eval_centroid r0.xy, v1.xyxx
add r0.xy, r0.xyxx, v1.zwzz
add r0.zw, v0.xxxy, v2.xxxy
movc r1.x, v4.x, l(1.000000), l(0)
utof r1.y, v5.x
utof r1.z, v6.x
mov r1.w, v0.w
mov o0.xyzw, r0.xyzw
mov oDepth, v0.z
iadd oMask, v3.x, l(1)
add o0.xyzw, o0.xyzw, r1.xyzw
ret
