"""The project's own helpers for its tests, benchmarks and docs (not part of the page).

A package at the top of the repository, so that tests/ (pytest puts the repository on sys.path: pyproject.toml's
pythonpath), bench/ and docs/ (run from the repository as modules, `python -m bench.bench_page`, which puts the
working directory on sys.path) all import `devtools.serve` the same way, with no sys.path edits. Not tests/serve.py
in a `tests` package: the test modules import one another by their bare names (`from test_player import replay`),
which a package would turn into `tests.test_player`.
"""
