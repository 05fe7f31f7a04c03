"""The benchmark behind ``make bench`` (see ``__main__`` and docs/BENCHMARK.md)."""
