// discard in a pixel shader: discard_nz and discard_z, also inside a branch.
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_input_ps constant v0.xy
dcl_output o0.xyzw
discard_nz v0.x
mov o0.xyzw, l(1.000000, 0, 0, 1.000000)
ret
