"""Benchmarks, run from the repository's root as modules: `python -m bench.bench_engine` (see each one's docstring).

A package, not loose scripts, so that they import the page's modules and devtools.serve without sys.path edits;
a regular package (this file), so that no `bench` installed elsewhere can take its place.
"""
