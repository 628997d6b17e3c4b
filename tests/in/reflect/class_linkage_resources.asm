// Class linkage with the texture and sampler chosen by the instance (t[r1.x + 0], s[r1.y + 0],
// t[r1.x + 4]): each becomes a switch over the declared registers that fit
// (src/lowering/dynamic_resources.rs); shaders/class_linkage/textures_samplers.shader_test runs it.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_function_body fb0
dcl_function_table ft0 = {fb0}
dcl_interface fp0[3][1] = {ft0}
dcl_sampler s0, mode_default
dcl_sampler s1, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2d (float,float,float,float) t1
dcl_resource_texture2d (float,float,float,float) t3
dcl_resource_buffer (uint,uint,uint,uint) t4
dcl_uav_raw u0
dcl_temps 4
dcl_thread_group 1, 1, 1
mov r2.x, l(0)
mov r0.x, l(0)
fcall fp0[0][0]
mov r2.x, l(1)
mov r0.x, l(32)
fcall fp0[1][0]
mov r2.x, l(2)
mov r0.x, l(64)
fcall fp0[2][0]
ret
label fb0
mov r1.xy, this[r2.x + 0].zwzz
sample_l_indexable(texture2d)(float,float,float,float) r3.xyzw, l(1.250000, 0.500000, 0.000000, 0.000000), t[r1.x + 0].xyzw, s[r1.y + 0], l(0.000000)
store_raw u0.xyzw, r0.x, r3.xyzw
ld_indexable(buffer)(uint,uint,uint,uint) r3.x, l(0, 0, 0, 0), t[r1.x + 4].xyzw
iadd r0.x, r0.x, l(16)
store_raw u0.x, r0.x, r3.x
ret

