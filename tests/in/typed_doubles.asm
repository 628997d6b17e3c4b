// Typed resources of doubles (HLSL Buffer<double2>, RWTexture2D<double2>): the return type
// (double,continued,double,continued) reads and writes a view of 32-bit uint texel
// components, each double as its low then high half; loads and stores move the bits.
cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_resource_buffer (double,continued,double,continued) t0
dcl_resource_texture2d (double,continued,double,continued) t1
dcl_uav_typed_buffer (double,continued,double,continued) u0
dcl_uav_typed_texture2d (double,continued,double,continued) u1
dcl_input vThreadID.xy
dcl_temps 3
dcl_thread_group 8, 8, 1
ld_indexable(buffer)(double,continued,double,continued) r0.xyzw, vThreadID.xxxx, t0.xyzw
dadd r0.xyzw, r0.xyzw, r0.xyzw
store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xyzw
ld_indexable(texture2d)(double,continued,double,continued) r1.xyzw, vThreadID.xyyy, t1.zwxy
ld_uav_typed_indexable(texture2d)(double,continued,double,continued) r2.xyzw, vThreadID.xyyy, u1.xyzw
dmul r2.xy, r2.xyxy, r1.zwzw
store_uav_typed u1.xyzw, vThreadID.xyyy, r2.xyzw
ret
