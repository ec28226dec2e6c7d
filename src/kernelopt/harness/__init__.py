"""Stage 4: the validation harness (worker, correctness, timing, the quality gate) and the ceilings measurement."""
