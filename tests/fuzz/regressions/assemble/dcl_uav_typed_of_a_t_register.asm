ps_5_0
dcl_uav_typed_texture2d (sint,sint,sint,sint) t0
atomic_iadd u0, l(0, 0, 0, 0), l(1)
ret
