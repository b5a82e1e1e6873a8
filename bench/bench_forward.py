"""The server's time for forward mode (mode=forward) on the MLP and chain(500), beside the same graph watched (its
forward pass then its backward pass), in one run: making the frames, and the player's whole body (every frame's
patch, caption, explanation, sums and table: view/player_body.make_body), each on a trace made anew, so that no step
of it is cached from a run before. Then the costs table and the paths, which the page draws under the graph.

    python -m bench.bench_forward         # writes bench/results/forward.txt and .json
"""

import argparse
import statistics
import time

from bench.readme_tables import write_results
from engine import PRESETS, chain, trace_backward
from engine.forward import tangents
from engine.frames import frames
from view.forward import costs, paths_text
from view.numbers import number_width, tangent_width
from view.player_body import make_body

CASES = {'mlp': lambda: PRESETS['mlp'], 'chain 500': lambda: chain(500)}


def fresh_trace(expression):
    leaves, out = expression.build()
    return trace_backward(out, leaves)


def median_ms(make, f, runs):
    """The median CPU time of f(made) over `runs`, each on a new make(), made untimed."""
    times = []
    for _ in range(runs):
        made = make()
        tangents.cache_clear()
        start = time.process_time()
        f(made)
        times.append(time.process_time() - start)
    return 1000 * statistics.median(times)


def body(trace, wrt):
    width = number_width(trace) if wrt < 0 else max(number_width(trace), tangent_width(trace, wrt))
    shown = frames(trace, wrt=wrt)
    make_body(trace, shown, width=width, numeric=None, graph={}, in_pass=len(shown))
    return shown


def measure(runs):
    rows = []
    for name, expression in CASES.items():
        make = lambda expression=expression: fresh_trace(expression())  # noqa: E731
        trace = make()
        wrt = next(i for i, node in enumerate(trace.nodes) if node.is_input)
        rows.append(
            {
                'case': name,
                'values': len(trace.nodes),
                'watched frames': len(frames(trace)),
                'forward frames': len(frames(trace, wrt=wrt)),
                'watched: frames ms': median_ms(make, lambda t: frames(t), runs),
                'forward: frames ms': median_ms(make, lambda t, w=wrt: frames(t, wrt=w), runs),
                'watched: body ms': median_ms(make, lambda t: body(t, -1), runs),
                'forward: body ms': median_ms(make, lambda t, w=wrt: body(t, w), runs),
                'costs and paths ms': median_ms(
                    make, lambda t, w=wrt, e=expression: (costs(t, e().params), paths_text(t, w)), runs
                ),
            }
        )
    return rows


def table(rows):
    columns = list(rows[0])
    cells = [[f'{r[c]:,.1f}' if isinstance(r[c], float) else f'{r[c]:,}' if isinstance(r[c], int) else r[c]
              for c in columns] for r in rows]  # fmt: skip
    widths = [max(len(c), *(len(row[k]) for row in cells)) for k, c in enumerate(columns)]
    lines = [' | '.join(c.ljust(w) for c, w in zip(columns, widths)), '-+-'.join('-' * w for w in widths)]
    lines += [' | '.join(x.ljust(w) for x, w in zip(row, widths)) for row in cells]
    return '\n'.join(lines) + '\n\nCPU ms, median of the runs; each on a trace made anew (nothing cached).\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--out', help='path stem for .json and .txt (default bench/results/forward)')
    args = parser.parse_args()
    rows = measure(args.runs)
    write_results('forward', table(rows), rows, out=args.out)


if __name__ == '__main__':
    main()
