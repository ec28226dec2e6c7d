"""``kernelopt batch DIR``: a folder of problems validated (or optimized) one by one, and the table
KernelBench users expect (correct, latency, speedup over PyTorch eager and torch.compile, fast_p).

- :mod:`.model`: the typed rows and table, fast_p, the CSV text (pure);
- :mod:`.problems`: which sub-folders are problems, and why a folder is not one (parses, never imports);
- :mod:`.runner`: one problem in its own ``kernelopt`` process with a time limit, the resumable batch;
- :mod:`.ray_runner`: the same problems as Ray tasks, one GPU each (``kernelopt[ray]``).
"""
