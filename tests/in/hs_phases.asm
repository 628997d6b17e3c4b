// Hull shader: a control-point phase (InvocationId = vOutputControlPointID), a fork phase
// with three instances writing the triangle edge factors through a relative index, and a
// join phase reading a patch constant back (vpc); factors are clamped to
// dcl_hs_max_tessfactor; patch constants sit after the control-point locations.
hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_fractional_odd
dcl_tessellator_output_primitive output_triangle_cw
dcl_hs_max_tessfactor l(16.000000)
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_input v[3][1].xyzw
dcl_output o0.xyzw
dcl_output o1.xyzw
mov o0.xyzw, v[vOutputControlPointID][0].xyzw
mov o1.xyzw, v[vOutputControlPointID][1].xyzw
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_input vocp[3][1].x
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
mov r0.x, vForkInstanceID.x
mov o[r0.x].x, vocp[r0.x][1].x
ret
hs_join_phase
dcl_input vpc0.x
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_output o4.xy
add o3.x, vpc0.x, l(1.000000)
mov o4.xy, l(1.000000, 2.000000, 0, 0)
ret
