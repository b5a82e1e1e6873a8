"""What the tests and the benchmarks share: a server of the page (serve.py), replicas behind HAProxy with Redis
(replicas.py), and a live class's clients (follow.py). Imported as `tests.support.serve` from the repository's root,
as pytest and `python -m bench.X` both run."""
