"""``python -m kernelopt`` runs the CLI."""

from kernelopt.cli.start import run

if __name__ == "__main__":
    run()
