"""A stand-in web-search command: prints JSON lines for its query, with hardware figures mixed in."""

import json
import sys

query = " ".join(sys.argv[1:])
results = [
    {
        "title": "H200 has 4.8 TB/s of HBM3e bandwidth and 141 GB of memory",
        "url": "https://example.com/h200-specs",
        "snippet": "The H200 peak bandwidth is 4800 GB/s; its L2 cache is 50 MB and it runs at 1980 MHz with 132 SMs.",
    },
    {
        "title": "Vectorized loads for memory-bound kernels",
        "url": "https://example.com/vectorize",
        "snippet": f"For '{query}': use float4 vectorized loads (tl.multiple_of hints) so each thread moves 16 bytes.",
    },
]
for r in results:
    print(json.dumps(r))
