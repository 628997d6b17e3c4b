// Double precision: lanes from the legalization pass; moves copy bits, modifiers flip the
// high half's sign bit, arithmetic goes through uvec2 <-> double bitcasts.
cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions
dcl_constantbuffer cb0[2], immediateIndexed
dcl_temps 3
dcl_thread_group 1, 1, 1
dmov r0.xyzw, -cb0[0].zwxy
dmovc r1.zw, r0.yxxx, r0.xyzw, d(4.5, 1.0)
dadd r2.xy, r0.xyxy, |r1.zwzw|
dmin r2.zw, r2.xyxy, cb0[1].zwzw
dlt r1.x, d(1.0, 0.0), r2.zwzw
dtoi r1.y, r2.xyxy
itod r0.xyzw, r1.xyxx
ret
