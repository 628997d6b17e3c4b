// Barriers: every sync flag combination a compute shader can use.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_tgsm_raw g0, 4
dcl_input vThreadIDInGroupFlattened
dcl_thread_group 32, 1, 1
store_raw g0.x, l(0), vThreadIDInGroupFlattened.x
sync_g
sync_g_t
sync_ugroup
sync_ugroup_t
sync_ugroup_g_t
sync_uglobal
sync_uglobal_t
sync_uglobal_g
sync_uglobal_g_t
store_raw u0.x, l(0), vThreadIDInGroupFlattened.x
ret
