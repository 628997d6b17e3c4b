// Hull shader whose join phase runs twice (dcl_hs_join_phase_instance_count, with
// vJoinInstanceID) and an isoline domain: each instance writes one of the two isoline
// factors through a relative index.
hs_5_0
hs_decls
dcl_input_control_point_count 2
dcl_output_control_point_count 2
dcl_tessellator_domain domain_isoline
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_line
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[2][0].xyzw
dcl_output o0.xyzw
mov o0.xyzw, v[vOutputControlPointID][0].xyzw
ret
hs_join_phase
dcl_hs_join_phase_instance_count 2
dcl_input vJoinInstanceID
dcl_output_siv o0.x, finalLineDetailTessFactor
dcl_output_siv o1.x, finalLineDensityTessFactor
dcl_temps 1
dcl_indexrange o0.x 2
mov r0.x, vJoinInstanceID.x
utof r0.y, vJoinInstanceID.x
add o[r0.x].x, r0.y, l(1.000000)
ret
