"""Felt's benchmarks: ``python -m bench.run [--quick]`` (see bench/README.md)."""
