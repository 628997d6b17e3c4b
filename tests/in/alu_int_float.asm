// Conversions and integer/float arithmetic: ftoi/ftou (saturating, NaN -> 0), itof/utof,
// min/max, shifts (the shift count is masked to 5 bits).
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_input_ps linear v0.xyzw
dcl_input_ps constant v1.xy
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_temps 3
ftoi r0.xy, v0.xyxx
ftou r0.zw, v0.zzzw
min r1.x, v0.x, v0.y
max r1.y, v0.z, v0.w
imin r1.z, r0.x, r0.y
imax r1.w, r0.x, l(-5)
umin r2.x, r0.z, r0.w
umax r2.y, r0.z, l(7)
ishl r2.z, v1.x, v1.y
ishr r2.w, r0.x, l(33)
ushr r0.x, r0.z, v1.y
itof r0.y, r1.z
utof r0.z, r2.x
mov o0.xyzw, r1.xyzw
add o0.xy, o0.xyxx, r0.xyxx
mov o1.xyzw, r2.xyzw
iadd o1.x, o1.x, r0.x
ret
