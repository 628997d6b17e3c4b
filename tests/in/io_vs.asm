// Vertex shader I/O: inputs at locations with their signature types, SV_VertexID and
// SV_InstanceID (counted from 0: VertexIndex - BaseVertex, InstanceIndex - BaseInstance),
// SV_Position, clip and cull distances.
vs_5_0
dcl_globalFlags refactoringAllowed
dcl_input v0.xyzw
dcl_input v1.xy
dcl_input_sgv v2.x, vertex_id
dcl_input_sgv v3.x, instance_id
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_output_siv o2.x, clip_distance
dcl_output_siv o2.y, cull_distance
dcl_temps 1
utof r0.x, v2.x
utof r0.y, v3.x
add o0.xyzw, v0.xyzw, r0.xyxx
mov o1.xy, v1.xyxx
mov o2.x, v0.z
mov o2.y, -v0.z
ret
