"""plpuzzle's lab: the benchmarks that measure the product, shipped apart from it."""
