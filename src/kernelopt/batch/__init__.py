"""``kernelopt batch DIR``: a folder of problems validated (or optimized) one by one, and the table
KernelBench users expect (correct, latency, speedup over PyTorch eager and torch.compile, fast_p).

- :mod:`.model`: the typed rows and table, fast_p, the CSV text (pure);
- :mod:`.problems`: the batch's items, which sub-folders are problems and why one is not (parses only);
- :mod:`.kernelbench`: KernelBench's layout, a level folder paired with a runs folder of generated kernels;
- :mod:`.rows`: the batch's options and how a row is made of a gate report or a workspace;
- :mod:`.runner`: the resumable batch and the one choice of how an item runs (:class:`~.runner.ProblemRunner`);
- :mod:`.warm`: validation through the pool of pre-started workers (the default);
- that pool is :mod:`kernelopt.worker.forkpool` (a fork server with torch imported, one fresh child per run);
- :mod:`.cold`: one problem in its own ``kernelopt`` process (``--cold``, ``--optimize``, Ray tasks);
- :mod:`.work`: the seconds a problem's workers spent checking and timing it (``work_s``);
- :mod:`.ray_runner`: the same problems as Ray tasks, one GPU each (``kernelopt[ray]``).
"""
