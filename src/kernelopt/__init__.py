"""kernelopt: a profile-driven GPU kernel optimization loop.

Profile, read the evidence, change one thing, prove it, record it, repeat until the kernel is near its
roofline. Importing this package does no I/O, starts no process and imports no torch, triton or
matplotlib; every command lives in :mod:`kernelopt.cli` and every stage in its own subpackage.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
