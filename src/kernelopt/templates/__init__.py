"""Package data: files kernelopt writes into workspaces (test_kernel.py, .gitignore, README)."""
