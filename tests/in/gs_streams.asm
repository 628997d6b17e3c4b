// Geometry shader: two instances, triangles in, points out on two streams
// (OpEmitStreamVertex; stream 1 reuses register o0, and only stream 0, the rasterized one,
// has Output variables, decorated Stream 0), SV_PrimitiveID, SV_GSInstanceID, the render
// target array index, and a vertex index taken from a register.
gs_5_0
dcl_globalFlags refactoringAllowed
dcl_input_siv v[3][0].xyzw, position
dcl_input v[3][1].xy
dcl_input vPrim
dcl_input vGSInstanceID
dcl_temps 1
dcl_inputprimitive triangle
dcl_stream m0
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output_siv o1.x, rendertarget_array_index
dcl_stream m1
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o2.xy
dcl_maxout 6
dcl_gsinstances 2
mov r0.x, l(0)
loop
  uge r0.y, r0.x, l(3)
  breakc_nz r0.y
  mov o0.xyzw, v[r0.x][0].xyzw
  mov o1.x, vGSInstanceID
  emit_stream m0
  mov o0.xyzw, v[r0.x][0].xyzw
  mov o2.xy, v[r0.x][1].xyxx
  mov o2.y, vPrim
  emit_stream m1
  iadd r0.x, r0.x, l(1)
endloop
cut_stream m0
ret
