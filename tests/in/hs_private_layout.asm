// A hull shader whose patch constants (a Private array of four uint4) have the shape of
// its constant buffer cb0[4] (a Uniform array of four uint4 with an ArrayStride): the two
// arrays must be distinct types, as Vulkan forbids explicit layouts in the Private storage
// class (VUID-StandaloneSpirv-None-10684).
hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
dcl_constantbuffer cb0[4], dynamicIndexed
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_output o0.xyzw
dcl_temps 1
mov r0.x, vOutputControlPointID
mov r0.y, cb0[r0.x].y
add o0.xyzw, v[vOutputControlPointID][0].xyzw, r0.yyyy
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
mov r0.x, vForkInstanceID.x
mov o[r0.x].x, cb0[r0.x].z
ret
hs_fork_phase
dcl_output_siv o3.x, finalTriInsideTessFactor
mov o3.x, cb0[3].w
ret
