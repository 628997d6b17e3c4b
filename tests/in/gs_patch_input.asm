// A geometry shader fed 3-control-point patches (dcl_inputprimitive patch3, drawn with a patch
// list and no tessellation): Vulkan's Triangles input, the caller drawing a triangle list.
gs_5_0
dcl_input v[3][0].xyzw
dcl_input v[3][1].xy
dcl_inputprimitive patch3
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_maxout 3
mov o0.xyzw, v[0][0].xyzw
mov o1.xy, v[0][1].xyxx
emit
mov o0.xyzw, v[1][0].xyzw
mov o1.xy, v[1][1].xyxx
emit
mov o0.xyzw, v[2][0].xyzw
mov o1.xy, v[2][1].xyxx
emit
cut
ret
