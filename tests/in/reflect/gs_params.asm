gs_4_0
dcl_input_siv v[3][0].xyzw, position
dcl_inputprimitive triangle
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_maxout 3
mov o0.xyzw, v[0][0].xyzw
emit
ret
