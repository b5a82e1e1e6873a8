"""Benchmarks, run from the repository's root as modules: `python -m bench.bench_page` (see each one's docstring);
the engine's micro-benchmarks on pytest-benchmark, `python -m pytest bench/test_engine_speed.py`.

A package, not loose scripts, so that they import the page's modules and tests.support without sys.path edits;
a regular package (this file), so that no `bench` installed elsewhere can take its place.
"""

# the page benchmark's limits (bench_page.py), which the docs' tables also describe (readme_tables.py): here, so
# that writing a table imports no browser
STEP_TIMEOUT_MS = 120_000  # a step this long is written as '>'
FIRST_GRAPH_TIMEOUT_S = 180
WARM_LOADS = 5

# a live class's goals (bench_class.py), which the docs' block reads its figures against: a step reaches every
# student (p95) within this, a student's first graph from the join link (warm) is at most this more than
# Streamlit's own empty page, and the projector shows the class's answers complete (every one counted, each group
# line) within this of the last answer's 200
CLASS_P95_GOAL_MS = 1000
CLASS_FIRST_GRAPH_GOAL_S = 1.5
CLASS_SPREAD_GOAL_S = 2.0

# learning together's goal (bench_together.py): the projector's sums complete (every point in, from every phone)
# within this of the last phone's share
TOGETHER_SUMS_GOAL_S = 2.0
