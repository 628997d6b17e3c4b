ps_4_0
dcl_temps 10000002 