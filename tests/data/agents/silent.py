"""An agent that exits 0 having done nothing."""
