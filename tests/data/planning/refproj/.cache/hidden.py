# hidden folders are skipped: vectorized float4 GROUP_SIZE_M num_stages
