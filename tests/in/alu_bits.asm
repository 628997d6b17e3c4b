// Integer and bit instructions with D3D's edge rules: imul/umul with both results (the high
// half may be null), udiv by zero giving 0xffffffff in quotient and remainder, imad/umad,
// countbits, firstbit_hi/lo/shi (0xffffffff when no bit is set), bfrev, ubfe/ibfe/bfi with
// width and offset masked to 5 bits, uaddc/usubb, swapc, f32tof16/f16tof32.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_input vThreadID.xy
dcl_temps 6
dcl_thread_group 4, 1, 1
ld_raw r0.xyzw, l(0), u0.xyzw
imul r1.x, r1.y, r0.x, r0.y
imul null, r1.z, r0.z, l(-3)
umul r2.x, r2.y, r0.x, r0.w
udiv r3.x, r3.y, r0.x, r0.y
udiv r3.z, null, r0.z, l(0)
imad r4.x, r0.x, r0.y, r0.z
umad r4.y, r0.x, r0.y, r0.w
countbits r4.z, r0.x
firstbit_hi r4.w, r0.y
firstbit_lo r5.x, r0.z
firstbit_shi r5.y, r0.w
bfrev r5.z, r0.x
ubfe r5.w, l(4), l(8), r0.y
ibfe r0.x, l(31), l(3), r0.z
bfi r0.y, l(8), l(4), r0.w, r0.x
uaddc r2.z, r2.w, r0.x, r0.y
usubb r3.w, r4.x, r0.z, r0.w
swapc r1.xy, r2.xy, r0.xyxx, r3.xyxx, r4.xyxx
f32tof16 r5.x, r0.x
f16tof32 r5.y, r5.x
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xyzw, l(32), r2.xyzw
store_raw u0.xyzw, l(48), r3.xyzw
store_raw u0.xyzw, l(64), r4.xyzw
store_raw u0.xyzw, l(80), r5.xyzw
ret
