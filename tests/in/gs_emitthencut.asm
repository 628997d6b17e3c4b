// Geometry shader (SM4.0) with emit_then_cut: each input point becomes two one-vertex strips,
// so each vertex ends its own strip (OpEmitVertex then OpEndPrimitive); nop does nothing.
gs_4_0
dcl_input_siv v[1][0].xyzw, position
dcl_inputprimitive point
dcl_outputtopology linestrip
dcl_output_siv o0.xyzw, position
dcl_maxout 2
mov o0.xyzw, v[0][0].xyzw
emit_then_cut
nop
add o0.xyzw, v[0][0].xyzw, l(0.100000, 0.000000, 0.000000, 0.000000)
emit_then_cut
ret
