// Subroutines and class linkage in a hull shader: the control-point phase calls l0 (its o0 is
// the invocation's control point), the fork phase calls l1 (which calls l2) and fcalls fb0
// (their o# are patch constants). Each subroutine is emitted for the kind of phase that calls
// it.
hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
dcl_hs_max_tessfactor l(16.000000)
dcl_function_body fb0
dcl_function_table ft0 = {fb0}
dcl_interface fp0[1][1] = {ft0}
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, vOutputControlPointID
call l0
ret
hs_fork_phase
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_temps 1
mov r0.x, l(2.000000)
call l1
fcall fp0[0][0]
ret
label l0
mov o0.xyzw, v[r0.x + 0][0].xyzw
ret
label l1
mov o0.x, r0.x
mov o1.x, r0.x
call l2
ret
label l2
mov o2.x, r0.x
ret
label fb0
mov o3.x, r0.x
ret
