"""A small SASS listing shared by tests."""

SPILL_SASS = """
                Function : spill_kernel
        /*0000*/                   LDG.E R4, desc[UR4][R2.64] ;                    /* 0x0000000402047981 */
                                                                                  /* 0x000ea2000c1e1900 */
        /*0010*/                   STL [R1+0x8], R4 ;                              /* 0x0000080401007387 */
                                                                                  /* 0x000fe20000100800 */
        /*0020*/                   LDL R9, [R1+0x8] ;                              /* 0x00000800ff097983 */
                                                                                  /* 0x000fe20000100800 */
        /*0030*/                   EXIT ;                                          /* 0x000000000000794d */
"""
