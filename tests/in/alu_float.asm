// Float instructions: _sat (NaN becomes 0), precise (NoContraction), neg/abs modifiers,
// dp2/dp3/dp4, mad, div, rcp, rsq, sqrt, exp, log, frc, round_*, sincos with either
// destination null, comparisons (eq ordered, ne unordered).
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_input_ps linear v0.xyzw
dcl_input_ps linear v1.xyzw
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_output o2.xyzw
dcl_temps 4
add_sat r0.x, v0.x, -v0.y
mul [precise] r0.y, |v0.z|, -|v0.w|
mad [precise(x)] r0.z, v0.x, v1.x, v1.y
div r0.w, v0.x, v1.z
dp2 r1.x, v0.xyxx, v1.xyxx
dp3 r1.y, v0.xyzx, v1.xyzx
dp4_sat r1.z, v0.xyzw, v1.xyzw
rcp r1.w, v1.w
rsq r2.x, v0.x
sqrt r2.y, v0.y
exp r2.z, v0.z
log r2.w, v0.w
frc r3.x, v1.x
round_ne r3.y, v1.y
round_ni r3.z, v1.z
round_pi r3.w, v1.w
sincos r0.x, null, v0.x
sincos null, r0.y, v0.y
eq r1.x, v0.x, v1.x
ne r1.y, v0.y, v1.y
lt r1.z, v0.z, v1.z
ge r1.w, v0.w, v1.w
round_z o2.x, v0.x
mov o0.xyzw, r0.xyzw
add o1.xyzw, r2.xyzw, r3.xyzw
movc o2.yzw, r1.yyzw, v0.yyzw, v1.yyzw
ret
