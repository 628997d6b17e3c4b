// Geometry shader with stream output (tests/in/gs_stream_output.json gives the layout):
// stream 0 (rasterized) and stream 1 emit points; stream 1 reuses register o0 (stream 0's
// position, read back at emit_stream m1) and has o2 of its own (held in a Private copy).
// Slot 0 captures stream 0's SV_Position and COLOR.yz, slot 1 captures stream 1's
// TEXCOORD1, a one-component gap and TEXCOORD2 (uint), with a stride of 32 bytes.
//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// SV_PrimitiveID           0    N/A   primID   PRIMID    uint    YES
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// m0:SV_Position           0   xyzw        0      POS   float   xyzw
// m0:COLOR                 0   xyzw        1     NONE   float   xyzw
// m1:TEXCOORD              1   xyzw        0     NONE   float   xyzw
// m1:TEXCOORD              2   xy          2     NONE    uint   xy  
//
gs_5_0
dcl_globalFlags refactoringAllowed
dcl_input_siv v[1][0].xyzw, position
dcl_input vPrim
dcl_temps 1
dcl_inputprimitive point
dcl_stream m0
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_stream m1
dcl_outputtopology pointlist
dcl_output o0.xyzw
dcl_output o2.xy
dcl_maxout 3
utof r0.x, vPrim
mov o0.xyzw, v[0][0].xyzw
mov o1.xy, v[0][0].xyxx
mov o1.z, r0.x
mov o1.w, l(1.000000)
emit_stream m0
mul o0.xy, v[0][0].xyxx, l(2.000000, 2.000000, 0.000000, 0.000000)
mov o0.z, l(0)
mov o0.w, r0.x
mov o2.x, vPrim
mov o2.y, l(5)
emit_stream m1
mov o0.xy, v[0][0].yxyy
mov o0.z, l(1.000000)
mov o0.w, r0.x
mov o2.x, vPrim
mov o2.y, l(7)
emit_stream m1
ret
