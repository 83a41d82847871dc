"""Side-by-side benchmark of one Bayesian-optimisation round: kernelbandits vs BoTorch and
scikit-learn (see ``bench_peers.py``). The modules of this folder import each other as
top-level modules: run ``python benchmarks/peers/bench_peers.py``."""
