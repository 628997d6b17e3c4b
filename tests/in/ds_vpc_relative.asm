// A domain shader reading its tessellation factors by a relative index inside a
// dcl_indexrange of vpc registers: the factors are copied into a private array, read with a
// bounds check (0 outside).
ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyzw
dcl_input_siv vpc0.x, finalTriUeq0EdgeTessFactor
dcl_input_siv vpc1.x, finalTriVeq0EdgeTessFactor
dcl_input_siv vpc2.x, finalTriWeq0EdgeTessFactor
dcl_input_siv vpc3.x, finalTriInsideTessFactor
dcl_indexrange vpc0.x 4
dcl_output_siv o0.xyzw, position
dcl_output o1.x
dcl_temps 1
mul r0.xyzw, vDomain.xxxx, vicp[0][0].xyzw
mad r0.xyzw, vDomain.yyyy, vicp[1][0].xyzw, r0.xyzw
mad o0.xyzw, vDomain.zzzz, vicp[2][0].xyzw, r0.xyzw
ftou r0.x, vicp[0][0].w
mov o1.x, vpc[r0.x + 0].x
ret
