"""The command-line interface: one thin module per command; the only place that prints."""
