"""Benchmark the layout budget (server/layout.py): what dot costs on the graphs a link can ask for, and what the
quick layout costs in time and in quality.

    python -m bench.bench_layout            # ~6 min: dot's own layout of the tangled graphs runs to the end
    python -m bench.bench_layout --quick    # ~1 min: dot's own layout capped at 20 s

Graphs: every preset, chain(100) and chain(500), and typed formulas: sums of products whose variables are
reused (the shape that took 55 s), from the 31-variable one of the issue to the 399-character one.

For each graph, one run each, one at a time (dot is single-threaded; nothing else runs):
  full      dot -Tsvg with the page's attributes, to the end (or the cap): what an unbounded page paid
  quick     the same with layout.QUICK (nslimit=1, splines=line), as layout.quickened() applies it
  page      layout.lay_out(): what the page now pays (full within FULL_BUDGET, else quick), and which it got
Quality, from dot -Tjson of each layout: the drawing's width x height in inches, and the edges that pass
through a box they do not join (sampled along each edge's spline control points): the thing that makes a
quick layout harder to read.
"""

import argparse
import json
import platform
import random
import string
import subprocess
import sys
import time
from pathlib import Path

from bench import readme_tables
from engine import PRESETS, chain, parse_expression, trace_backward
from server import layout
from view.graph import build_dot
from view.numbers import number_width

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / 'bench' / 'results'


def sum_of_products(seed, variables, products):
    """Products of reused one-letter variables, summed: each variable used about 2·products/variables times."""
    rng = random.Random(seed)
    uses = list(string.ascii_letters[:variables]) * (2 * products // variables + 1)
    rng.shuffle(uses)
    return '+'.join(f'{uses[2 * i]}*{uses[2 * i + 1]}' for i in range(products))


def graphs():
    yield from PRESETS.items()
    yield 'chain(100)', chain(100)
    yield 'chain(500)', chain(500)
    for variables, products in [(31, 62), (40, 80), (50, 100)]:
        text = sum_of_products(0, variables, products)
        yield f'sum of {products} products, {variables} vars ({len(text)} chars)', parse_expression(text)
    yield 'sum of 100 products, 50 vars, seed 1', parse_expression(sum_of_products(1, 50, 100))


def dot_of(expression):
    leaves, out = expression.build(None)
    trace = trace_backward(out, leaves)
    return build_dot(trace, None, number_width(trace)), len(trace.nodes)


def timed_dot(source, cap, fmt='json'):
    start = time.monotonic()
    try:
        out = subprocess.run(['dot', f'-T{fmt}'], input=source, capture_output=True, text=True, timeout=cap).stdout
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - start
    return out, time.monotonic() - start


def quality(drawing):
    """(width, height) in inches and the number of edges that cross a box they do not join."""
    graph = json.loads(drawing)
    x0, y0, x1, y1 = map(float, graph['bb'].split(','))
    boxes = {}
    for obj in graph['objects']:
        if 'pos' in obj and obj.get('shape') == 'box':
            x, y = map(float, obj['pos'].split(','))
            w, h = float(obj['width']) * 36, float(obj['height']) * 36  # inches to half-points
            boxes[obj['_gvid']] = (x - w, y - h, x + w, y + h)
    crossing = 0
    for edge in graph.get('edges', []):
        points = [tuple(map(float, p.split(','))) for p in edge['pos'].split() if not p.startswith(('e,', 's,'))]
        samples = [
            (ax + (bx - ax) * t / 8, ay + (by - ay) * t / 8)
            for (ax, ay), (bx, by) in zip(points, points[1:])
            for t in range(1, 8)
        ]
        ends = {edge['tail'], edge['head']}
        if any(
            left < x < right and bottom < y < top
            for gvid, (left, bottom, right, top) in boxes.items()
            if gvid not in ends
            for x, y in samples
        ):
            crossing += 1
    return (x1 - x0) / 72, (y1 - y0) / 72, crossing, len(graph.get('edges', []))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--quick', action='store_true', help="cap dot's own layout at 20 s")
    parser.add_argument('--json', default=str(RESULTS / 'layout.json'))
    args = parser.parse_args()
    cap = 20.0 if args.quick else 180.0
    rows = []
    for name, expression in graphs():
        graph, nodes = dot_of(expression)
        quick_graph = layout.quickened(graph)
        full, full_s = timed_dot(graph.source, cap)
        quick, quick_s = timed_dot(quick_graph.source, cap)
        start = time.monotonic()
        got = layout.lay_out(graph)
        page_s = time.monotonic() - start
        row = {
            'graph': name, 'nodes': nodes, 'full_s': None if full is None else round(full_s, 2),
            'quick_s': round(quick_s, 2), 'page_s': round(page_s, 2), 'page_layout': 'quick' if got.quick else 'full',
            'full_quality': None if full is None else quality(full), 'quick_quality': quality(quick),
        }  # fmt: skip
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    lines = [
        'Layout benchmark: bench/bench_layout.py' + (' --quick' if args.quick else ''),
        f'machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, '
        f'{subprocess.run(["dot", "-V"], capture_output=True, text=True).stderr.strip()}',
        f'budgets: full {layout.FULL_BUDGET:g} s, then quick {layout.QUICK_BUDGET:g} s with {layout.QUICK}',
        '',
        'graph                                     | nodes | full s  | quick s | page s | page gets '
        '| size in (full -> quick)       | edges through a box (full -> quick)',
        '-' * 150,
    ]
    for r in rows:
        full_s = f'>{cap:g}' if r['full_s'] is None else f'{r["full_s"]:.2f}'
        fq, qq = r['full_quality'], r['quick_quality']
        size = ('?' if fq is None else f'{fq[0]:.0f}x{fq[1]:.0f}') + f' -> {qq[0]:.0f}x{qq[1]:.0f}'
        through = ('?' if fq is None else f'{fq[2]}') + f' -> {qq[2]} of {qq[3]}'
        lines.append(
            f'{r["graph"]:<41} | {r["nodes"]:>5} | {full_s:>7} | {r["quick_s"]:>7.2f} | {r["page_s"]:>6.2f} '
            f'| {r["page_layout"]:<9} | {size:<29} | {through}'
        )
    lines += [
        '',
        'full: dot with the page attributes, run to the end (capped); quick: with layout.QUICK; page: what',
        'layout.lay_out() took, which kills the full layout at its budget and then runs the quick one. Edges through',
        'a box: edges whose spline passes through a value box not at either end, sampled at 7 points per segment.',
    ]
    text = '\n'.join(lines) + '\n'
    readme_tables.write_results('layout', text, {'cap_s': cap, 'rows': rows}, out=str(Path(args.json).with_suffix('')))


if __name__ == '__main__':
    main()
