"""Benchmark our engine (engine/) against micrograd 0.1.0 on the same + and * graphs.

    python -m bench.bench_engine               # ~1 s of wall time per measured cell, ~10 s in all
    python -m bench.bench_engine --quick       # a short run, ~5 s
    python -m bench.bench_engine --json bench/results/engine.json | tee bench/results/engine.txt
                                               # the docs' figures: written, and docs/ rewritten

Graphs (only + and *, since micrograd has no tanh), built the same way with either Value class:
  chain-300  out = x; 300 times: out = out * w + b    (x=1, w=0.99, b=0.01: values stay finite)
  sop-500    x0*w0 + x1*w1 + ... + x499*w499, added left to right (fixed pseudo-random inputs)

Phases, each timed alone with time.perf_counter around a single call:
  build     make the leaves and the graph (the forward pass)
  backward  ours: backward(out); micrograd: out.backward(); traced: trace_backward(out, leaves)
  every step  the traced pass, then every Node and Step worked out (each step replays its closure):
            what stepping through every frame of the page costs in all, beside the plain backward

Every repetition builds a fresh graph (grads accumulate otherwise); building it for a backward
repetition is not timed. Ours and micrograd's alternate repetition by repetition, so drift in the
machine hits them alike. The traced pass is timed in a cell of its own and compared with the plain
backward of the ours/micrograd cell: alternated with it, the plain backward ran ~25% slower (the
trace's allocations leave the allocator and caches in another state). Timed alone, the
plain backward on the chain also swung by 20-40% between runs with memory layout; alternated
with micrograd's it repeats within a few per cent, the ratios within ~0.05. We report the median
and the minimum over repetitions.

Garbage collection: gc.freeze() first moves every object that exists before timing into the
permanent generation; then before each timed call gc.collect() frees the previous graphs (both
engines make reference cycles: a node's _backward closure refers to the node), and gc.disable()
holds for the timed call only. So no collection runs inside a measurement, and none is charged
to it. micrograd's topological sort is recursive: these graphs stay below ~610 levels, inside
Python's default limit of 1000.

Before timing, the script checks that both engines (and our traced pass) give the same output
and leaf grads to 1e-9, and exits with status 1 if not.
"""

import argparse
import gc
import math
import platform
import random
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path

from micrograd.engine import Value as MgValue

from bench import readme_tables
from engine import Value, backward, topological_order, trace_backward

ROOT = Path(__file__).resolve().parent.parent

CHAIN_STEPS = 300
SOP_TERMS = 500
TOLERANCE = 1e-9
GOAL_BACKWARD = 1.0  # ours/micrograd, plain backward: at most this
AIM_BACKWARD = 0.7  # ... and ideally this
GOAL_TRACED = 2.0  # traced/plain: at most this
NOISY = 1.15  # a cell whose median exceeds its min by more than this is flagged

_rng = random.Random(0)
SOP_XS = [_rng.uniform(-1.0, 1.0) for _ in range(SOP_TERMS)]
SOP_WS = [_rng.uniform(-1.0, 1.0) for _ in range(SOP_TERMS)]


# --- the graphs: V is our Value or micrograd's; both take Value(data) ---


def chain(V):
    """out = out * w + b, CHAIN_STEPS times, from out = x."""
    x, w, b = V(1.0), V(0.99), V(0.01)
    out = x
    for _ in range(CHAIN_STEPS):
        out = out * w + b
    return [x, w, b], out


def sum_of_products(V):
    """sum_i x_i * w_i, added left to right."""
    xs = [V(x) for x in SOP_XS]
    ws = [V(w) for w in SOP_WS]
    out = xs[0] * ws[0]
    for x, w in zip(xs[1:], ws[1:], strict=True):
        out = out + x * w
    return xs + ws, out


GRAPHS = {f'chain-{CHAIN_STEPS}': chain, f'sop-{SOP_TERMS}': sum_of_products}


# --- the runs: each takes what setup() made; `setup` None means nothing to prepare ---


def ours_backward(graph):
    backward(graph[1])


def micrograd_backward(graph):
    graph[1].backward()


def ours_traced(graph):
    leaves, out = graph
    return trace_backward(out, leaves)  # returned, so the Trace is freed after the clock stops


def ours_traced_every_step(graph):
    """The traced pass, then every step worked out (what stepping through all frames asks for)."""
    trace = ours_traced(graph)
    trace.nodes, list(trace.steps)
    return trace


# --- correctness ---


def check(name, build):
    """Same output data and leaf grads from ours, micrograd's and our traced pass, to TOLERANCE.

    Returns the largest difference seen and the number of nodes in the graph.
    """
    results = {}
    for impl, V, run in [
        ('ours', Value, ours_backward),
        ('micrograd', MgValue, micrograd_backward),
        ('traced', Value, ours_traced),
    ]:
        leaves, out = build(V)
        run((leaves, out))
        results[impl] = [out.data] + [leaf.grad for leaf in leaves]
    nodes = len(topological_order(build(Value)[1]))
    worst = 0.0
    for impl in ('micrograd', 'traced'):
        for k, (a, b) in enumerate(zip(results['ours'], results[impl], strict=True)):
            worst = max(worst, abs(a - b))
            if not math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
                what = 'out.data' if k == 0 else f'grad of leaf {k - 1}'
                sys.exit(f'ABORT: {name}: {what} differs, ours {a!r} vs {impl} {b!r}')
    return worst, nodes


# --- timing ---


def one_rep(setup, run):
    arg = setup() if setup else None
    gc.collect()  # cheap after gc.freeze(): only the previous repetition's graphs are scanned
    gc.disable()
    try:
        t0 = time.perf_counter()
        result = run(arg)
        t1 = time.perf_counter()
    finally:
        gc.enable()
    del result, arg
    return t1 - t0


def measure(impls, budget, min_reps, warmup):
    """impls: name -> (setup, run). Alternate them until each had ~budget seconds of wall time."""
    for _ in range(warmup):
        for setup, run in impls.values():
            one_rep(setup, run)
    times = {name: [] for name in impls}
    start = time.perf_counter()
    while True:
        for name, (setup, run) in impls.items():
            times[name].append(one_rep(setup, run))
        reps = len(times[name])
        if reps >= min_reps and time.perf_counter() - start >= budget * len(impls):
            break
    return {
        name: {'median_us': statistics.median(ts) * 1e6, 'min_us': min(ts) * 1e6, 'reps': len(ts)}
        for name, ts in times.items()
    }


def run_all(budget, min_reps, warmup):
    cells = {}  # (graph, phase) -> impl -> stats
    for name, build in GRAPHS.items():
        cells[name, 'build'] = measure(
            {
                'ours': (None, lambda _, build=build: build(Value)),
                'micrograd': (None, lambda _, build=build: build(MgValue)),
            },
            budget,
            min_reps,
            warmup,
        )
        cells[name, 'backward'] = measure(
            {
                'ours': (lambda build=build: build(Value), ours_backward),
                'micrograd': (lambda build=build: build(MgValue), micrograd_backward),
            },
            budget,
            min_reps,
            warmup,
        )
        # alone: alternated with the traced pass, the plain backward ran ~25% slower (allocator state)
        cells[name, 'traced'] = measure(
            {'traced': (lambda build=build: build(Value), ours_traced)}, budget, min_reps, warmup
        )
        cells[name, 'every step'] = measure(
            {'every step': (lambda build=build: build(Value), ours_traced_every_step)}, budget, min_reps, warmup
        )
    return cells


# --- report ---


def ratio(a, b):
    return a / b if b else math.inf


def fmt_us(stats):
    return f'{stats["median_us"]:9.1f} / {stats["min_us"]:9.1f}'


def verdict(value, goal, aim=None):
    if value > goal:
        return 'MISSED'
    if aim is not None and value > aim:
        return 'met (aim not yet)'
    return 'met'


def report(cells):
    rows, traced_rows = [], []
    for (graph, phase), stats in cells.items():
        if phase in ('traced', 'every step'):
            continue
        ours, mg = stats['ours'], stats['micrograd']
        row = {
            'graph': graph,
            'phase': phase,
            'ours': ours,
            'micrograd': mg,
            'ratio_median': ratio(ours['median_us'], mg['median_us']),
            'ratio_min': ratio(ours['min_us'], mg['min_us']),
        }
        if phase == 'backward':
            row['goal'] = f'≤ {GOAL_BACKWARD:.1f} (aim {AIM_BACKWARD:.1f})'
            row['verdict'] = verdict(row['ratio_median'], GOAL_BACKWARD, AIM_BACKWARD)
            traced = cells[graph, 'traced']['traced']
            every = cells[graph, 'every step']['every step']
            traced_rows.append(
                {
                    'graph': graph,
                    'traced': traced,
                    'every_step': every,
                    'every_step_ratio': ratio(every['median_us'], ours['median_us']),
                    'plain': ours,
                    'ratio_median': ratio(traced['median_us'], ours['median_us']),
                    'ratio_min': ratio(traced['min_us'], ours['min_us']),
                    'goal': f'≤ {GOAL_TRACED:.1f}×',
                    'verdict': verdict(ratio(traced['median_us'], ours['median_us']), GOAL_TRACED),
                }
            )
        rows.append(row)

    head = ['graph', 'phase', 'ours (µs)', 'micrograd (µs)', 'ratio ours/micrograd', 'goal']
    body = [
        [
            r['graph'],
            r['phase'],
            fmt_us(r['ours']),
            fmt_us(r['micrograd']),
            f'{r["ratio_median"]:.3f} / {r["ratio_min"]:.3f}',
            f'{r["goal"]}: {r["verdict"]}' if 'goal' in r else '-',
        ]
        for r in rows
    ]
    print_table(head, body)
    print()
    head = ['graph', 'traced (µs)', 'plain (µs)', 'ratio traced/plain', 'goal', 'traced + every step (µs)', 'ratio']
    body = [
        [
            r['graph'],
            fmt_us(r['traced']),
            fmt_us(r['plain']),
            f'{r["ratio_median"]:.2f} / {r["ratio_min"]:.2f}',
            f'{r["goal"]}: {r["verdict"]}',
            fmt_us(r['every_step']),
            f'{r["every_step_ratio"]:.1f}',
        ]
        for r in traced_rows
    ]
    print_table(head, body)
    print('\ntimes: median / min over repetitions, µs per call; ratios: of medians / of mins; goals judge the medians')
    noisy = [
        f'{graph} {phase} {impl}'
        for (graph, phase), stats in cells.items()
        for impl, st in stats.items()
        if st['median_us'] > NOISY * st['min_us']
    ]
    if noisy:
        print(
            f'noisy (median > {NOISY:g} × min, is the machine busy? the mins are the steadier guide): '
            + ', '.join(noisy)
        )
    return rows, traced_rows


def print_table(head, body):
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=True)]

    def line(cells):
        return ' | '.join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    print(line(head))
    print('-+-'.join('-' * w for w in widths))
    for cells in body:
        print(line(cells))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='a short run (~5 s)')
    parser.add_argument('--json', metavar='PATH', help='also write the results as JSON to PATH')
    parser.add_argument('--budget', type=float, help='seconds of wall time per measured cell (default 1, quick 0.4)')
    args = parser.parse_args(argv)
    budget = args.budget if args.budget is not None else (0.4 if args.quick else 1.0)
    min_reps, warmup = (5, 2) if args.quick else (20, 5)

    checked = {name: check(name, build) for name, build in GRAPHS.items()}
    worst = {name: d for name, (d, _) in checked.items()}
    nodes = {name: n for name, (_, n) in checked.items()}
    print(
        f'correctness: same out.data and leaf grads (ours, micrograd, traced) to {TOLERANCE:g}; '
        + ', '.join(f'{name} max |diff| {d:.1e}' for name, d in worst.items())
    )
    print('graphs: ' + ', '.join(f'{name} ({n} nodes)' for name, n in nodes.items()))
    print(
        f'Python {platform.python_version()}, micrograd {metadata.version("micrograd")}, '
        f'{budget:g} s per cell, gc disabled during each timed call\n'
    )

    gc.collect()
    gc.freeze()
    try:
        cells = run_all(budget, min_reps, warmup)
    finally:
        gc.unfreeze()
    rows, traced_rows = report(cells)

    if args.json:
        result = {
            'meta': {
                'python': platform.python_version(),
                'implementation': platform.python_implementation(),
                'platform': platform.platform(),
                'micrograd': metadata.version('micrograd'),
                'quick': args.quick,
                'budget_s_per_cell': budget,
                'timer': 'time.perf_counter, one call per repetition, fresh graph each repetition',
                'gc': 'gc.freeze() before timing; gc.collect() before and gc.disable() during each timed call',
                'units': 'microseconds per call',
            },
            'graphs': {name: {'nodes': n} for name, n in nodes.items()},
            'correctness': {'tolerance': TOLERANCE, 'max_abs_diff': worst},
            'goals': {
                'backward_ours_over_micrograd_max': GOAL_BACKWARD,
                'backward_ours_over_micrograd_aim': AIM_BACKWARD,
                'traced_over_plain_max': GOAL_TRACED,
            },
            'comparison': rows,
            'traced': traced_rows,
        }
        readme_tables.write_results('engine', None, result, out=str(Path(args.json).with_suffix('')))


if __name__ == '__main__':
    main()
