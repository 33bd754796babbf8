"""What the flag problem is, apart from any engine: the sequence of items,
results and the validator."""
