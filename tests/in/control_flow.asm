// Control flow: if/else, loop with break/continue (plain and conditional), switch with
// fall-through and default, retc and discard in a pixel shader.
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[1], immediateIndexed
dcl_input_ps constant v0.x
dcl_output o0.xyzw
dcl_temps 3
mov r0.xyzw, l(0, 0, 0, 0)
ieq r1.x, v0.x, l(0)
if_nz r1.x
  mov r0.x, l(1)
else
  mov r0.x, l(2)
endif
if_z r1.x
  iadd r0.y, r0.y, l(1)
endif
mov r2.x, l(0)
loop
  uge r1.y, r2.x, cb0[0].x
  breakc_nz r1.y
  iadd r2.x, r2.x, l(1)
  and r1.z, r2.x, l(1)
  continuec_z r1.z
  iadd r0.z, r0.z, l(1)
  ieq r1.w, r0.z, l(10)
  if_nz r1.w
    break
  endif
  continue
endloop
switch v0.x
  case l(0)
  case l(1)
    iadd r0.w, r0.w, l(1)
  case l(2)
    iadd r0.w, r0.w, l(2)
    break
  case l(3)
    mov r0.w, l(7)
    break
  default
    mov r0.w, l(9)
    break
endswitch
ieq r1.x, r0.w, l(9)
retc_nz r1.x
ieq r1.y, r0.x, l(2)
discard_nz r1.y
discard_z r0.z
utof o0.xyzw, r0.xyzw
ret
