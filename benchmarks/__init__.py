"""Benchmarks of kernelbandits, run on demand from the repository's root as modules::

    python -m benchmarks.sample_efficiency --store ~/kb-bench-quality --page docs/benchmarks/sample_efficiency.md
    python -m benchmarks.peers.bench_peers --quick

Each benchmark is one module of this package built on :mod:`benchmarks.harness` (problems,
samplers, runner, JSON-lines store, tables, figures, pages); the results pages are
``docs/benchmarks/*.md`` (``make bench``, ``make bench-quality``, ``make bench-lifelong``,
``make bench-transfer``, ``make bench-multiobjective``).
"""
