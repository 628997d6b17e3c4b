// Immediate constant buffer: a private array of vec4 constants read with a dynamic index
// (bounds-checked).
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_immediateConstantBuffer { { 1.000000, 0, 0, 1.000000},
                              { 0, 1.000000, 0, 1.000000},
                              { 0, 0, 1.000000, 1.000000} }
dcl_input_ps constant v0.x
dcl_output o0.xyzw
dcl_temps 1
mov r0.xy, icb[v0.x + 0].xwxx
mov o0.xyzw, icb[v0.x + 1].xyzw
add o0.xy, o0.xyxx, r0.xyxx
ret
