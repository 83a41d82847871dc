"""Side-by-side benchmark of one Bayesian-optimisation round: kernelbandits vs BoTorch and
scikit-learn (see :mod:`benchmarks.peers.bench_peers`; ``contract`` is the interface every
implementation answers, ``timing`` times the rounds of one cell). Run from the repository's
root: ``python -m benchmarks.peers.bench_peers --quick``."""
