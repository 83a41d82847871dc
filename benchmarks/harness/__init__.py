"""The one scaffolding every benchmark of ``benchmarks/`` is built on.

* :mod:`~benchmarks.harness.problems`: the single-objective problems (known optima);
* :mod:`~benchmarks.harness.samplers`: named sampler specs and ``--variant``;
* :mod:`~benchmarks.harness.botorch_loop`: BoTorch's own ask/tell loop, the reference;
* :mod:`~benchmarks.harness.runner`: one thread per run, timed trials, worker processes;
* :mod:`~benchmarks.harness.store`: the JSON-lines results store (resumable);
* :mod:`~benchmarks.harness.tables` and :mod:`~benchmarks.harness.figures`: the tables and
  the figure of a page;
* :mod:`~benchmarks.harness.pages`: the generated blocks of ``docs/benchmarks/*.md``;
* :mod:`~benchmarks.harness.machine`: machine, versions, code version and command line;
* :mod:`~benchmarks.harness.cli`: the shared command-line options.
"""
