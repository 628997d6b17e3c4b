// Rasterizer-ordered views: a raw and a typed ROV; the translated main runs inside an ordered
// pixel interlock (PixelInterlockOrderedEXT), called from a wrapper entry point between
// OpBeginInvocationInterlockEXT and OpEndInvocationInterlockEXT, so a discard or an early
// return in the body cannot leave the interlock unbalanced.
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw_rov u1
dcl_uav_typed_texture2d_rov (uint,uint,uint,uint) u2
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xyzw
dcl_temps 2
ftou r0.xy, v0.xyxx
ld_raw r1.x, l(0), u1.xxxx
discard_z r1.x
iadd r1.x, r1.x, l(1)
store_raw u1.x, l(0), r1.x
store_uav_typed u2.xyzw, r0.xyyy, r1.xxxx
retc_nz r1.x
mov o0.xyzw, l(1.000000, 1.000000, 1.000000, 1.000000)
ret
