"""Benchmarks, run from the repository's root as modules: `python -m bench.bench_engine` (see each one's docstring).

A package, not loose scripts, so that they import the page's modules and bench.serve without sys.path edits;
a regular package (this file), so that no `bench` installed elsewhere can take its place.
"""

# the page benchmark's limits (bench_page.py), which the docs' tables also describe (readme_tables.py): here, so
# that writing a table imports no browser
STEP_TIMEOUT_MS = 120_000  # a step this long is written as '>'
FIRST_GRAPH_TIMEOUT_S = 180
WARM_LOADS = 5
