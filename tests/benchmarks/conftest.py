"""The benchmarks are the package ``benchmarks`` of the source checkout (imported from the
repository's root, which pytest puts on ``sys.path``: ``pythonpath`` in ``pyproject.toml``);
an installed kernelbandits has no ``benchmarks/``, so these tests are then not collected."""

from _repo import ROOT

collect_ignore_glob = [] if (ROOT / "benchmarks" / "__init__.py").is_file() else ["test_*.py"]
