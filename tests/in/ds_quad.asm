// Domain shader: quad domain, the domain location (TessCoord), control points (vicp, by
// location), a patch constant (Patch, after the control-point locations) and the inside
// tessellation factors (TessLevelInner).
ds_5_0
dcl_input_control_point_count 4
dcl_tessellator_domain domain_quad
dcl_input vDomain.xy
dcl_input vicp[4][0].xyzw
dcl_input vpc0.xy
dcl_input_siv vpc4.x, finalQuadUInsideTessFactor
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_temps 2
add r0.xyzw, -vicp[0][0].xyzw, vicp[1][0].xyzw
mad r0.xyzw, vDomain.xxxx, r0.xyzw, vicp[0][0].xyzw
add r1.xyzw, -vicp[3][0].xyzw, vicp[2][0].xyzw
mad r1.xyzw, vDomain.xxxx, r1.xyzw, vicp[3][0].xyzw
add r1.xyzw, -r0.xyzw, r1.xyzw
mad o0.xyzw, vDomain.yyyy, r1.xyzw, r0.xyzw
mov o1.xy, vpc0.xyxx
mov o1.z, vpc4.x
mov o1.w, l(1.000000)
ret
