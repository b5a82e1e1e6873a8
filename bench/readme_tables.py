"""The docs' benchmark figures, made from bench/results/*.json, so that the two cannot drift apart.

    python -m bench.readme_tables            # rewrite every marked block of docs/*.md from the results
    python -m bench.readme_tables --check    # exit 1 if a page says something else (tests/unit/test_readme.py)

Each block of figures sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in exactly one of the pages
(README.md and docs/*.md: today docs/ alone), found by its marks, so a block moves with its text. A benchmark
that writes its results into bench/results/ rewrites the blocks made from them (update()); no figure in those
blocks is typed by hand.
"""

import argparse
import json
import math
import re
import statistics
import sys
import textwrap
from pathlib import Path

from bench import (
    CLASS_FIRST_GRAPH_GOAL_S,
    CLASS_P95_GOAL_MS,
    CLASS_SPREAD_GOAL_S,
    FIRST_GRAPH_TIMEOUT_S,
    STEP_TIMEOUT_MS,
    WARM_LOADS,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / 'results'
ROOT = HERE.parent

# the page's goals (issue 3), which the page benchmark's figures are read against
SEED_SCALE = ('neuron', 'reuse', 'chain (10)')  # the exercise's own graphs
STEP_MEDIAN_GOAL_MS = 50  # at seed scale
STEP_MEDIAN_GOAL_BIG_MS = 100  # on the 500-chain
FIRST_GRAPH_WARM_GOAL_S = 1.5  # at seed scale


# --- how figures are written ----------------------------------------------------------------------------------


def span(values, digits=0, unit=''):
    """'13–16 µs', or '15 µs' when both ends round alike."""
    low, high = f'{min(values):,.{digits}f}', f'{max(values):,.{digits}f}'
    return (low if low == high else f'{low}–{high}') + unit


def met(ok):
    return 'met' if ok else 'missed'


def prose(text):
    """A paragraph, or a '- ' bullet, wrapped as the rest of the docs are; never with a line that markdown would
    read as the start of a list, a heading, a quote or a table."""
    indent = '  ' if text.startswith('- ') else ''
    for width in range(105, 80, -1):
        lines = textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
        if not any(re.match(r'\s*([-+*#>|]|\d+[.)])(\s|$)', line) for line in lines[1:]):
            return '\n'.join(lines)
    raise ValueError(f'cannot wrap: {text}')


def joined(parts):
    """Paragraphs, bullets and tables, one a part: the prose wrapped, the tables as they are."""
    return '\n'.join(part if part.startswith('|') else prose(part) for part in parts)


def table(head, rows):
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    return '\n'.join(lines + ['| ' + ' | '.join(row) + ' |' for row in rows])


# --- the blocks: each takes {results stem: the parsed JSON} -------------------------------------------------


def _graph_name(key):
    kind, n = key.rsplit('-', 1)
    return {'chain': f'chain of {n} `out*w + b`', 'sop': f'sum of {n} products'}[kind]


def engine(results):
    r = results['engine']
    reps = [c[impl]['reps'] for c in r['comparison'] for impl in ('ours', 'micrograd')]
    graphs = ', '.join(f'{_graph_name(g)} ({v["nodes"]:,} nodes)' for g, v in r['graphs'].items())
    cells = sorted(r['comparison'], key=lambda c: c['phase'] != 'backward')  # the backward rows first
    first = table(
        ['graph', 'phase', 'ours (µs)', 'micrograd (µs)', 'ours / micrograd'],
        [
            [
                _graph_name(c['graph']),
                c['phase'],
                f'{c["ours"]["median_us"]:.0f} / {c["ours"]["min_us"]:.0f}',
                f'{c["micrograd"]["median_us"]:.0f} / {c["micrograd"]["min_us"]:.0f}',
                f'{c["ratio_median"]:.2f} / {c["ratio_min"]:.2f}',
            ]  # fmt: skip
            for c in cells
        ],
    )

    def ms(us):
        return f'{us / 1000:.1f}' if us < 10_000 else f'{us / 1000:.0f}'

    traced = r['traced']
    second = table(
        ['graph', 'traced (µs)', 'plain (µs)', 'traced / plain', 'traced, then every step worked out (ms)'],
        [
            [
                _graph_name(t['graph']),
                f'{t["traced"]["median_us"]:.0f} / {t["traced"]["min_us"]:.0f}',
                f'{t["plain"]["median_us"]:.0f} / {t["plain"]["min_us"]:.0f}',
                f'{t["ratio_median"]:.2f} / {t["ratio_min"]:.2f}',
                f'{ms(t["every_step"]["median_us"])} / {ms(t["every_step"]["min_us"])}',
            ]  # fmt: skip
            for t in traced
        ],
    )
    goals, backward = r['goals'], [c for c in r['comparison'] if c['phase'] == 'backward']
    per_step = [
        (t['every_step']['median_us'] - t['traced']['median_us']) / r['graphs'][t['graph']]['nodes'] for t in traced
    ]

    def ratios(rows):
        return ' and '.join(f'{row["ratio_median"]:.2f}' for row in rows)

    def verdicts(rows):
        return ' and '.join(sorted({row['verdict'] for row in rows}))

    most, aim = goals['backward_ours_over_micrograd_max'], goals['backward_ours_over_micrograd_aim']
    backward_goal = f'≤ {most:.1f}, aim {aim:.1f}'
    return joined(
        [
            f'Python {r["meta"]["python"]}, micrograd {r["meta"]["micrograd"]}; graphs: {graphs}; median / min of '
            f'{span(reps)} runs a cell, µs per call.',
            '',
            first,
            '',
            second,
            '',
            f'Goals: plain backward no slower than micrograd ({backward_goal}): {ratios(backward)}, '
            f'{verdicts(backward)}; traced ≤ {goals["traced_over_plain_max"]:g}× plain: {ratios(traced)}, '
            f"{verdicts(traced)}. The trace records only the grads each `_backward` call wrote; a step's full account "
            '(amounts per input slot, local gradients) is worked out when the page shows it, '
            f'{span(per_step, unit=" µs")} a step, so working out every step costs '
            f'{span([t["every_step_ratio"] for t in traced])}× a plain backward.',
        ]
    )


SOURCES = {'dot': 'server (dot)', 'browser': 'browser'}  # the layout sources, as the docs name them


def _first(c, timeout):
    cold, warm = c.get('first_graph_cold_s'), c.get('first_graph_warm_s')
    if cold is None:
        return f'none: "{c["notice"].split(". ")[0]}."' if c.get('notice') else f'no graph within {timeout} s'
    return f'{cold:.2f} / ' + (f'{warm:.2f}' if warm is not None else f'none within {timeout} s')


def _laid_out(c):
    warm = c.get('laid_out_warm_ms')
    if c.get('laid_out_cold_ms') is None or not warm or None in warm:
        return 'n/a'
    return f'{c["laid_out_cold_ms"]:,.0f} / {statistics.median(warm):,.0f}'


def _server_cpu(c):
    if 'server_cpu_warm_ms' not in c:
        return 'n/a'
    return f'{c["server_cpu_cold_ms"]:,.0f} / {c["server_cpu_warm_ms"]:,.0f}'


def _total(c):
    return c['server_cpu_total_s'] + c['browser_cpu_total_s']


def _drawing(d):
    return f'{d["width_pt"]:,.0f} × {d["height_pt"]:,.0f} pt'


def page(results):
    r = results['page']
    rows, steps = [], set()
    for source, cases in r['pages'].items():
        for name, c in cases.items():
            if 'step_median_ms' in c:
                steps.add(c['steps'])
                times = (c['step_median_ms'], c['step_max_ms'])
                step = ' / '.join(f'> {x:,.0f}' if x >= STEP_TIMEOUT_MS else f'{x:,.0f}' for x in times)
            else:
                step = 'n/a'
            play = c.get('play_10_per_s')
            rows.append([
                'MLP' if name == 'mlp' else name, SOURCES[source], _first(c, FIRST_GRAPH_TIMEOUT_S), _laid_out(c),
                step, f'{play["dropped"]} of {play["shown"]}' if play else 'n/a',
                _server_cpu(c),
                f'{r["server_rerun_s"][source][name] * 1000:.0f}',
            ])  # fmt: skip
    head = ['case', 'laid out by', 'first graph cold / warm (s)', 'of it, the browser laying out: cold / warm (ms)',
            'step median / max (ms)', 'play at 10/s: frames dropped', 'server CPU a load, cold / warm (ms)',
            'server per rerun (ms)']  # fmt: skip

    def got(source, name, key):
        return r['pages'][source].get(name, {}).get(key)

    goals = []
    for source, label in SOURCES.items():
        seed = [got(source, name, 'step_median_ms') for name in SEED_SCALE]
        big = got(source, 'chain 500', 'step_median_ms')
        warm = [got(source, name, 'first_graph_warm_s') for name in SEED_SCALE]
        plays = [c['play_10_per_s'] for c in r['pages'][source].values() if 'play_10_per_s' in c]
        dropped, shown = sum(p['dropped'] for p in plays), sum(p['shown'] for p in plays)
        big_text = 'no step: no graph' if big is None else f'{big:.0f} ms: {met(big <= STEP_MEDIAN_GOAL_BIG_MS)}'
        goals.append(
            f"- **Laid out by the {label}:** a step's median ≤ {STEP_MEDIAN_GOAL_MS} ms at seed scale "
            f'({span(seed, unit=" ms")}): {met(max(seed) <= STEP_MEDIAN_GOAL_MS)}; ≤ {STEP_MEDIAN_GOAL_BIG_MS} ms '
            f'on the 500-chain ({big_text}); playing at 10 steps per second, {dropped} of {shown} frames dropped: '
            f'{met(dropped == 0)}; first graph ≤ {FIRST_GRAPH_WARM_GOAL_S} s warm at seed scale '
            f'({span(warm, 2, " s")}): {met(max(warm) <= FIRST_GRAPH_WARM_GOAL_S)}.'
        )
    neuron = got('browser', 'neuron', 'first_graph_warm_s')
    goals.append(
        f"- **The neuron's first graph without dot:** ≤ {FIRST_GRAPH_WARM_GOAL_S} s warm ({neuron:.2f} s; "
        f'{got("dot", "neuron", "first_graph_warm_s"):.2f} s with it): {met(neuron <= FIRST_GRAPH_WARM_GOAL_S)}.'
    )
    d = r['download']
    lay = r['layouts']
    layout_rows = [
        [
            f'`{row["graph"]}`' if row['graph'].startswith('chain(') else row['graph'],
            f'{row["wasm"]["first_ms"]:,.0f}',
            f'{row["wasm"]["later_median_ms"]:,.0f}' if row['wasm']['later_median_ms'] is not None else 'n/a',
            f'{row["wasm"]["until_first_ms"]:,.0f}',
            f'{row["native"]["median_ms"]:,.0f}',
            f'{row["wasm"]["first_ms"] / row["native"]["median_ms"]:.2f}',
            _drawing(row['wasm']['drawing']),
            _drawing(row['native']['drawing']),
        ]
        for row in lay
    ]
    alike = all(row['wasm']['drawing'][k] == row['native']['drawing'][k] for row in lay for k in ('nodes', 'edges'))
    wider, taller = ([100 * (row['wasm']['drawing'][k] / row['native']['drawing'][k] - 1) for row in lay]
                     for k in ('width_pt', 'height_pt'))  # fmt: skip
    students = max(c['students'] for cases in r['class'].values() for c in cases.values())
    class_rows = []
    for source, cases in r['class'].items():
        for name, c in cases.items():
            drawn = [s for s in c['first_graph_s'] if s is not None]
            others = c['server_cpu_others_ms']
            class_rows.append([
                name, SOURCES[source], str(c['students']),
                f'{statistics.median(drawn):.2f} / {max(drawn):.2f}' if drawn else 'none',
                f'{c["server_cpu_first_ms"]:,.0f}' + (f' / {others:,.0f}' if others is not None else ''),
                f'{c["server_cpu_total_s"]:.1f}', f'{c["browser_cpu_total_s"]:.1f}',
                f'{_total(c):.1f}', '; '.join(c['notices']) or '-',
            ])  # fmt: skip
    both = [name for name in r['class'].get('browser', {}) if name in r['class'].get('dot', {})]
    compared = []
    for name in both:
        served, each = r['class']['dot'][name], r['class']['browser'][name]
        if name == 'tangled formula':
            laid = statistics.median(x for x in each['laid_out_ms'] if x is not None) / 1000
            compared.append(
                f'the tangled formula cost the server {served["server_cpu_total_s"]:.1f} s of CPU with dot and '
                f"{each['server_cpu_total_s']:.1f} s without, where its sender's tab laid it out in {laid:.1f} s"
            )
            continue
        first = [statistics.median(s for s in c['first_graph_s'] if s is not None) for c in (each, served)]
        compared.append(
            f'on the {name} ({each["students"]} students), laying out in each browser instead of once on the server '
            f'changed the CPU used in all by {_total(each) - _total(served):+.1f} s (the server '
            f'{each["server_cpu_total_s"] - served["server_cpu_total_s"]:+.1f} s, the browsers '
            f'{each["browser_cpu_total_s"] - served["browser_cpu_total_s"]:+.1f} s) and the median first graph by '
            f'{first[0] - first[1]:+.2f} s'
        )
    return joined(
        [
            table(head, rows),
            '',
            f'Every step figure is over {span(steps)} steps; a warm first graph is the median of {WARM_LOADS} loads. '
            'Against the goals:',
            '',
            *goals,
            '',
            f'The WebAssembly, `static/graphviz/index.js` (Graphviz {lay[0]["wasm_version"]}), is '
            f'{d["file_bytes"]:,} bytes; Streamlit sends it as {d["identity"]["bytes"]:,} bytes plain and '
            f'{d["gzip"]["bytes"]:,} with `Accept-Encoding: gzip` ({d["gzip"]["content_encoding"] or "not"} '
            f'compressed), with an ETag and Last-Modified and no Cache-Control, so a browser keeps it for a while '
            'and then asks whether it changed.',
            '',
            'Laying out the same DOT, graph after graph, one layout at a time: in Chromium by the WebAssembly in a '
            'Web Worker, timed in the worker (a new worker per graph, `Graphviz.load()` in it once, then `gv.dot()`; '
            "the page's player makes one layout per worker, the first), and by the native `dot -Tsvg` "
            f'({lay[0]["native_version"]}) as the server runs it, a new process each time; the median of '
            f'{span([len(row["native"]["runs_ms"]) for row in lay])} runs:',
            '',
            table(
                [
                    'graph',
                    'WebAssembly: first layout (ms)',
                    'later ones (ms)',
                    'a new worker to its first SVG (ms)',
                    'native dot (ms)',
                    'first layout / native',
                    'WebAssembly drawing',
                    'native drawing',
                ],
                layout_rows,
            ),  # fmt: skip
            '',
            f'The two draw the same nodes and edges{"" if alike else " (not in every graph: see page.json)"}; the '
            f"WebAssembly's drawings are {span(wider, 0, ' %')} wider and {span(taller, 0, ' %')} taller (its text "
            'measures).',
            '',
            f'Where the server has dot, which side should lay out? A class of {students} opens the same expression, '
            'one student after another, each in a browser of their own (a new context: its cache empty), on a fresh '
            "server; CPU from /proc, the server's with its dot, the browsers' every chromium process on this same "
            'machine (so each browser also pays for drawing the page); then one student opens a tangled typed formula '
            f'(a sum of 62 products of 31 reused variables):',
            '',
            table(
                [
                    'expression',
                    'laid out by',
                    'students',
                    'first graph median / max (s)',
                    'server CPU, first student / each other (ms)',
                    'server CPU, all (s)',
                    "browsers' CPU, all (s)",
                    'CPU, all (s)',
                    'the page said',
                ],
                class_rows,
            ),  # fmt: skip
            *(['', 'Measured so: ' + '; '.join(compared) + '.'] if compared else []),
        ]
    )


def _sessions(run):
    return run['sessions']['websocket'] + run['sessions']['chromium']


def _step_ms(run):
    return ' / '.join(f'{run["page_step_ms"][k]:.0f}' for k in ('p50', 'p95', 'max')) + ' ms'


def load(results):
    r = results['load']
    hold, levels, loads, memory = r['hold'], r['levels'], r['loads'], r['memory']
    top = max(levels['runs'], key=lambda run: run['level'])
    rows = [
        [f'{_sessions(hold)} sessions, each stepping every {r["settings"]["step_every"]:g} s for {hold["seconds"]:g} s '
         f'({hold["steps"]["total"]:,} steps)', _step_ms(hold), f'{hold["server_cpu_ms_per_step"]:.2f} ms',
         f'{hold["server_rss_mb"]["after"]:.0f} MB'],
        [f'{_sessions(top)} sessions, {top["seconds"]:g} s', _step_ms(top), f'{top["server_cpu_ms_per_step"]:.2f} ms',
         f'{top["server_rss_mb"]["after"]:.0f} MB'],
    ]  # fmt: skip
    over = levels['first_over']
    neuron, chain = loads['neuron'], loads['chain 100']
    exprs, sessions, chains = memory['expressions'], memory['sessions'], memory['chains']
    goal, stalled = memory['goal_mb_after_expressions'], memory.get('stalled')
    return joined(
        [
            f'On a {r["machine"]["cores"]}-core machine, with the load generator on the same cores (full output in '
            f'`bench/results/load.txt`; load average {r["machine"]["load_average_at_start"][0]:.1f} at the start: '
            'the machine may have been shared with other work, which the steps in the page, drawn by Chromium on '
            'these cores, feel; the server spends next to nothing on a step):',
            '',
            table(['load', 'step in the page p50 / p95 / max', 'server CPU per step', 'server RSS'], rows),
            '',
            f'- The goal, p95 ≤ {levels["limit_ms"]} ms at {_sessions(hold)} sessions: '
            f'{met(hold["page_step_ms"]["p95"] <= levels["limit_ms"])}; '
            + (f'no level up to {top["level"]} sessions passed it.' if over is None else f'{over} sessions passed it.'),
            f'- **Page loads:** {neuron["loads_per_s"]:.1f} a second for the neuron (p95 {neuron["load_s"]["p95"]:.2f} '
            f's), {chain["loads_per_s"]:.1f} for a 100-step chain, with {neuron["clients"]} clients loading at once; '
            f'{span([neuron["server_cpu_ms_per_load"], chain["server_cpu_ms_per_load"]], unit=" ms")} of server CPU '
            'a load.',
            f'- **Memory:** {memory["rss_mb_start"]:.0f} MB at start, {memory["rss_mb_after_first_load"]:.0f} MB '
            f'after the first page, {exprs["rss_mb_after"]:.0f} MB after {exprs["loaded"]:,} distinct typed formulas '
            f'one after another (goal ≤ {goal} MB: {met(memory["goal_met"])}), '
            f'{sessions["rss_mb_after"]:.0f} MB after {sessions["loaded"]} more sessions one after another, and '
            f'{chains["rss_mb_after"]:.0f} MB after {chains["loaded"]} chains of 500 steps with distinct inputs '
            f'(goal ≤ {goal} MB: {met(chains["rss_mb_after"] <= goal)}'
            + (
                f'; layout budgets of {r["settings"]["layout_budgets"]} s for this part, so that a loaded machine '
                'lays every chain out'
                if r['settings'].get('layout_budgets')
                else ''
            )
            + ')'
            + (
                f'; {stalled["websockets"]} websockets that never read, open {stalled["seconds"]:g} s: '
                f'{stalled["rss_mb_before"]:.0f} → {stalled["rss_mb_while_open"]:.0f} MB, and '
                f'{stalled["rss_mb_5s_after_closed"]:.0f} MB 5 s after they closed (goal ≤ {goal} MB: '
                f'{met(max(stalled["rss_mb_while_open"], stalled["rss_mb_5s_after_closed"]) <= goal)}); '
                f'the peak {memory["rss_mb_peak"]:.0f} MB'
                if stalled
                else ''
            )
            + '.',
            *_reruns(r, results.get('load_before')),
        ]
    )


# a class, for sizing replicas from what one replica holds (bench/results/replica.json)
CLASS_SIZES = (30, 300, 3_000)
CHANGE_EVERY_S = 6  # at the busiest, each student changes an input every 6 s (issue 22's load)
OPEN_WITHIN_S = 30  # the whole class opens the link within 30 s
REPLICA_MEMORY_MB = 1024  # what deploy/ gives each replica
LIMITS = {
    'inputs': 'Input changes, each a run of the script on the server,',
    'loads': 'Page loads',
    'memory': "The sessions' memory",
}


def replicas_for(n, r):
    """{term: replicas} for a class of n from one replica's figures r (replica.json), and 'all': the most, plus
    one spare so that a dead replica's pages fit on the others."""
    hold = r['hold']
    room = REPLICA_MEMORY_MB - hold['server_rss_mb']['before_open'] - r['caches_mb']
    terms = {
        'inputs': math.ceil(n / CHANGE_EVERY_S / r['saturate']['changes_per_s']),
        'loads': math.ceil(n / OPEN_WITHIN_S / r['loads']['neuron']['loads_per_s']),
        'memory': math.ceil(n * hold['rss_mb_per_session'] / room),
    }
    return {**terms, 'all': max(terms.values()) + 1}


def _reruns(r, before):
    """The input changes under a class, and each preset's server CPU a rerun, against the run before issue 22's
    changes (bench/results/load_before) where there is one."""
    if 'inputs' not in r or 'reruns' not in r:
        return []
    inputs, trip = r['inputs'], r['inputs']['round_trip_ms']
    was = (before or {}).get('inputs', {}).get('round_trip_ms')
    load = inputs['load_average']
    rows = []
    for name, row in r['reruns'].items():
        was_row = (before or {}).get('reruns', {}).get(name)
        rows.append([name, _rerun(was_row), _rerun(row), _sent(was_row), _sent(row)])
    return [
        f'- **Input changes under a class:** {inputs["sessions"]} sessions, each changing an input every '
        f'{inputs["every_s"]:g} s for {inputs["seconds"]:g} s (each to a value nobody set before), on the neuron: '
        f'p50 / p95 / max {fmt_ms(trip["p50"])} / {fmt_ms(trip["p95"])} / {fmt_ms(trip["max"])} from the change '
        f'to the end of its run (goal p95 ≤ 1 s: {met(trip["p95"] is not None and trip["p95"] <= 1000)}), the '
        f'server at {inputs["server_cpu_share_of_one_core"]:.2f} of a core'
        + (
            f'; before: {fmt_ms(was["p50"])} / {fmt_ms(was["p95"])}'
            + (
                f' ({was["unfinished"]:,} of {before["inputs"]["changes"]:,} never finished)'
                if was.get('unfinished')
                else ''
            )
            + f', load average at most {_most(before["inputs"]["load_average"]):.1f} during'
            if was
            else ''
        )
        + f'. Load average {load["at_start"][0]:.1f} at the start, at most {_most(load):.1f} during (the machine may '
        'have been shared with other work).',
        '',
        'Server CPU for one input change, one session alone on the server (a value not set before each time; '
        "Streamlit's gc.collect after every run is off, the graph is sent once a session, what every frame shares is "
        'made once):',
        '',
        table(['page', 'server CPU before', 'after', 'sent a change, before', 'after'], rows),
    ]


NO_GRAPH_BYTES = 20_000  # a rerun that sent less showed no graph: its layout was refused (a busy, shared machine)


def _rerun(row):
    if row is None:
        return '-'
    refused = ' (no graph: layout refused)' if row['received_bytes_per_rerun'] < NO_GRAPH_BYTES else ''
    return fmt_ms(row['server_cpu_ms_per_rerun']) + refused


def _sent(row):
    return '-' if row is None else f'{row["received_bytes_per_rerun"] / 1000:,.0f} kB'


def _most(load):
    return max([load['at_start'][0], *load['during_1min']])


def fmt_ms(x):
    """'23 ms', '1.2 s', or 'never' (a percentile that fell on a change that never finished)."""
    if x is None:
        return 'never'
    return f'{x / 1000:.1f} s' if x >= 1000 else f'{x:.0f} ms'


def replica(results):
    r = results['replica']
    hold, inputs, loads = r['hold'], r['saturate'], r['loads']['neuron']
    base = hold['server_rss_mb']['before_open']
    room = REPLICA_MEMORY_MB - base - r['caches_mb']
    per_session = hold['rss_mb_per_session']
    load_average = r['machine']['load_average_at_start'][0]
    largest = replicas_for(CLASS_SIZES[-1], r)
    most = max(('inputs', 'loads', 'memory'), key=largest.get)
    rows = []
    for n in CLASS_SIZES:
        need = replicas_for(n, r)
        rows.append([
            f'{n:,}', f'{n / CHANGE_EVERY_S:,.1f} / {inputs["changes_per_s"]:.1f} → {need["inputs"]}',
            f'{n / OPEN_WITHIN_S:,.1f} / {loads["loads_per_s"]:.1f} → {need["loads"]}',
            f'{n:,} × {per_session * 1000:.0f} kB / {room:,.0f} MB → {need["memory"]}', f'**{need["all"]}**',
        ])  # fmt: skip
    return joined(
        [
            f'Measured by `python -m bench.bench_load --replica` (`bench/results/replica.txt`), one replica (one '
            f'Python process: about one core at most) on a {r["machine"]["cores"]}-core machine (load average '
            f'{load_average:.1f} at the start; the load generator and Chromium on the same cores), so a dedicated '
            f'core does at least as well (the same machine, nearly idle, served '
            f'{results["load"]["loads"]["neuron"]["loads_per_s"]:.1f} page loads a second in '
            '[*Load*](performance.md#load)):',
            '',
            f'- **Sessions stepping:** {_sessions(hold)} sessions each stepping every '
            f'{r["settings"]["step_every"]:g} s for {hold["seconds"]:g} s ({hold["steps"]["total"]:,} steps): '
            f'steps at p95 {hold["page_step_ms"]["p95"]:.0f} ms in the page, the server at '
            f'{hold["server_cpu_share_of_one_core"]:.2f} of a core, and '
            f'{hold["ws_received_bytes_per_session_per_s"] / 1000:.1f} kB a second to each session: a step sends '
            'the server nothing, so stepping does not limit a replica.',
            f'- **Input changes:** {inputs["changes_per_s"]:.1f} a second, the server saturated ({inputs["clients"]} '
            'sessions each changing an input to a value not seen before, then again; each change '
            f'{inputs["server_cpu_ms_per_change"]:.0f} ms of CPU, p95 {inputs["change_s"]["p95"]:.2f} s).',
            f'- **Page loads:** {loads["loads_per_s"]:.1f} a second for the neuron ({loads["clients"]} clients at '
            f'once, p95 {loads["load_s"]["p95"]:.2f} s, {loads["server_cpu_ms_per_load"]:.0f} ms of CPU a load).',
            f'- **Memory:** {per_session * 1000:.0f} kB a session held open (of {hold["sessions"]["websocket"]} on the '
            f'neuron); {base:.0f} MB after the first pages, '
            f'and the shared caches at most {r["caches_mb"]:.0f} MB more, so a replica of {REPLICA_MEMORY_MB:,} MB '
            f'has room for {room:,.0f} MB of sessions.',
            '',
            f"**How many replicas:** the most of three, plus one spare so that a dead replica's pages fit on the "
            f'others: input changes (each student changing an input every {CHANGE_EVERY_S} s at the busiest, divided '
            f"by a replica's {inputs['changes_per_s']:.1f} a second), page loads (the class opening the link within "
            f"{OPEN_WITHIN_S} s, divided by {loads['loads_per_s']:.1f} a second) and memory (the sessions' kB, "
            f'divided by the {room:,.0f} MB of room), each rounded up:',
            '',
            table(
                [
                    'class',
                    'input changes a second → replicas',
                    'page loads a second → replicas',
                    "sessions' memory → replicas",
                    'replicas, with one spare',
                ],
                rows,
            ),  # fmt: skip
            '',
            f'{LIMITS[most]} set the number. Give each replica a core. A cheaper rerun lowers it in proportion: '
            '`python -m bench.bench_load --replica` measures again, and this table follows.',
        ]
    )


def _layout_rows(results):
    return {row['graph']: row for row in results['layout']['rows']}


def layout(results):
    rows = [row for row in results['layout']['rows'] if row['full_s'] is not None]
    slowest = max(rows, key=lambda row: row['full_s'])
    quick = [row for row in rows if row['page_layout'] == 'quick']
    return (
        f'Measured by `python -m bench.bench_layout` (`bench/results/layout.txt`): the slowest graph, a '
        f'{slowest["graph"]}, took `dot` {slowest["full_s"]:.0f} s, and {slowest["quick_s"]:.1f} s as a quick '
        f'layout. On the {len(quick)} sums the page lays out quickly, '
        f'{span([row["quick_quality"][2] for row in quick])} of their '
        f'{span([row["quick_quality"][3] for row in quick])} edges pass through a box they do not join, against '
        f"{span([row['full_quality'][2] for row in quick])} in `dot`'s own layout."
    )


def chains(results):
    rows = _layout_rows(results)
    return (
        f'along a line, {rows["chain(100)"]["full_s"]:.2f} s for a 100-step chain and '
        f'{rows["chain(500)"]["full_s"]:.1f} s for 500 (`bench/results/layout.txt`)'
    )


def exports(results):
    decks = {row['graph']: row['total_s'] for row in results['exports']['rows'] if row['export'] == 'pass pptx'}
    return f"the neuron's whole deck takes {decks['neuron']:.1f} s, the MLP's {decks['mlp']:.1f} s"


FRAME_MS = 1000 / 60  # one animation frame on a 60 Hz screen


def _beside_watched(r, first_graph=False):
    """A run of modes beside the same graphs watched (bench_page --modes, --forward) as a table: a row a case, its
    step beside its graph's watched step, measured in the same run; with `first_graph`, its first graph cold / warm
    too."""
    player = r['pages']['dot']
    rows = []
    for name, c in player.items():
        graph, _, mode = name.partition(', ')
        watched = player[graph]
        first = [f'{c["first_graph_cold_s"]:.2f} / {c["first_graph_warm_s"]:.2f}'] if first_graph else []
        rows.append([
            'MLP' if graph == 'mlp' else graph, mode or 'watch', *first,
            f'{c["step_median_ms"]:.0f} / {c["step_max_ms"]:.0f}',
            f'{watched["step_median_ms"]:.0f}',
            f'{c["play_10_per_s"]["dropped"]} of {c["play_10_per_s"]["shown"]}',
            f'{r["server_rerun_s"]["dot"][name] * 1000:.0f}',
        ])  # fmt: skip
    head = ['graph', 'mode', *(['first graph cold / warm (s)'] if first_graph else []), 'step median / max (ms)',
            'watched: step median (ms)', 'play at 10/s: dropped', 'server per rerun (ms)']  # fmt: skip
    return table(head, rows)


def modes(results):
    """Each teaching mode's step beside the same graph watched, from one run (bench_page --modes)."""
    r = results['modes']
    player = r['pages']['dot']
    slowest = max(c['step_median_ms'] for c in player.values())
    return joined([
        _beside_watched(r), '',
        f'Every mode steps in the browser as watching does: the slowest median is {slowest:.0f} ms, against the '
        f'goal of {STEP_MEDIAN_GOAL_MS} ms ({met(slowest <= STEP_MEDIAN_GOAL_MS)}).',
    ])  # fmt: skip


def modes_forward(results):
    """Forward mode's step beside the same graph watched, from one run (bench_page --forward): within one
    animation frame of watching's, the goal (issue 32)."""
    r = results['modes_forward']
    player = r['pages']['dot']
    over = {name.partition(', ')[0]: c['step_median_ms'] - player[name.partition(', ')[0]]['step_median_ms']
            for name, c in player.items() if name.endswith(', forward')}  # fmt: skip
    most = max(over, key=over.get)
    machine, graph = r['machine'], 'the MLP' if most == 'mlp' else most
    said = (f'at most {over[most]:.1f} ms more than watching\'s on the same graph ({graph})' if over[most] > 0
            else 'less than watching\'s on every graph')  # fmt: skip
    return joined([
        _beside_watched(r, first_graph=True), '',
        f'{player[next(iter(player))]["steps"]} steps a case, on a {machine["cores"]}-core machine (load average '
        f'{machine["load_average_at_start"][0]:.1f} at the start, {machine["load_average_at_end"][0]:.1f} at the '
        'end). A step is timed to the second animation frame after the click: one whose work fits in a frame '
        f'takes one to two frames ({FRAME_MS:.0f}–{2 * FRAME_MS:.0f} ms at 60 Hz). Forward mode\'s median is '
        f'{said}: the goal is within one animation frame of it, {FRAME_MS:.1f} ms ({met(over[most] <= FRAME_MS)}).',
    ])  # fmt: skip


def _listed(shapes):
    """'the tall shape', 'the compact and wide shapes', 'the tall, wide and compact shapes'."""
    shapes = list(shapes)
    if len(shapes) == 1:
        return f'the {shapes[0]} shape'
    return f'the {", ".join(shapes[:-1])} and {shapes[-1]} shapes'


def screens(results):
    rows = results['screens']['rows']
    whole = sum(r['whole'] and r['readable'] for r in rows)
    said = [
        f'Measured by `python -m bench.bench_screens` (`bench/results/screens.txt`): {whole} of {len(rows)} '
        'graph-and-screen pairs are whole and readable.'
    ]
    for screen in dict.fromkeys(r['screen'] for r in rows):
        on = [r for r in rows if r['screen'] == screen]
        share = span([100 * r['height_share'] for r in on], 1, ' %')
        wide = sum(r['wide_whole'] and r['wide_px'] >= r['px'] - 0.05 for r in on)
        said.append(f'- {screen}: numbers {span([r["px"] for r in on], 1, " px")} ({share} of the height), in '
                    f'{_listed(dict.fromkeys(r["shape"] for r in on))}; the wide shape alone was whole '
                    f'at that size for {wide} of the {len(on)}.')  # fmt: skip
    return joined(said)


def live_class(results):
    r = results['class']
    cases, empty, goals = r['cases'], r['empty_page'], r['goals']

    def ms(x):
        return f'{x:,.0f}' if x >= 10 else f'{x:.1f}'

    def row(name, cell):
        return [name, *(cell(c) for c in cases)]

    rows = [
        row("a step reaching every student: p50 / p95 / max (ms)",
            lambda c: ' / '.join(ms(c['latency_ms'][k]) for k in ('p50', 'p95', 'max'))),
        row('students who missed a step', lambda c: f"{c['missed']} of {c['students'] * c['steps']:,}"),
        row("the replicas' CPU a step / with no step, a second (ms)",
            lambda c: f"{ms(c['server_cpu_ms_per_step'])} / {ms(c['server_idle_cpu_ms_per_s'])}"),
        row('memory a student following (kB)', lambda c: f"{c['kb_per_student']:.0f}"),
        row(f"a student's first graph from the join link, warm (s; Streamlit's empty page {empty['warm_s']:.2f})",
            lambda c: f"{c['first_graph']['warm_s']:.2f} (+{goals[c['case']]['first_graph_over_empty_s']:.2f})"),
    ]  # fmt: skip
    answered = all(c.get('answers') for c in cases)
    if answered:
        a = cases[0]['answers']
        rows += [
            row(f"{a['students']} answers within {a['within_s']:g} s: the answer route p50 / p95 / max (ms)",
                lambda c: ' / '.join(ms(c['answers']['route_ms'][k]) for k in ('p50', 'p95', 'max'))),
            row("the replicas' CPU an answer (ms)", lambda c: f"{c['answers']['server_cpu_ms_per_answer']:.1f}"),
            row("from the last answer's 200 to the projector showing every answer and group (s)",
                lambda c: f"{c['answers']['last_answer_to_spread_s']:.2f}"),
            row('an answer to the projector: fastest / p50 / slowest (ms)',
                lambda c: ' / '.join(ms(c['answers']['answer_to_projector_ms'][k]) for k in ('min', 'p50', 'max'))),
        ]  # fmt: skip
    two = [c for c in cases if 'latency_ms_same_replica' in c]
    said = [
        f'Measured by `python -m bench.bench_class` (`bench/results/class.txt`): {cases[0]["students"]} students '
        f'following one room over server-sent events, the lecturer stepping {cases[0]["steps"]} times, on a '
        f'{r["machine"]["cores"]}-core machine (load average {r["machine"]["load_average_at_start"][0]:.1f} at the '
        'start; the servers, the students and Chromium on the same cores):',
        '',
        table(['', *(c['name'] for c in cases)], rows),
        '',
    ]
    if two:
        c = two[0]
        same, other = c['latency_ms_same_replica'], c['latency_ms_other_replica']
        said.append(
            f'On two replicas a step reaches the students of the replica that took it in p95 {ms(same["p95"])} ms, '
            f"and the other's when its watcher next reads Redis (every 0.5 s): p95 {ms(other['p95'])} ms. Redis "
            f'took {ms(c["redis_cpu_ms_per_step"])} ms of CPU a step and HAProxy {ms(c["haproxy_cpu_ms_per_step"])} ms.'
        )
        said.append('')
    if answered:
        a = cases[0]['answers']
        refresh = ' and '.join(f'{c["answers"]["projector_refresh_s"]:.2f}' for c in cases)
        said.append(
            f"The answers: the lecturer's projector (Chromium) asks the room, and each student posts one answer at a "
            f'random moment within {a["within_s"]:g} s, a mix of right and the typical mistakes. The projector reads '
            f'the room once a second (here every {refresh} s): an answer waits for the next reading, 0 to 1 s, then '
            "for that run and the browser's drawing of it, which the fastest answer to the projector shows alone "
            "(the table's last row). So the wait after the last answer is mostly where it fell in that second: the "
            'refresh, not the answer route or the store, sets it, up to 1 s more than the fastest.'
        )
        said.append('')

    def verdict(c):
        g = goals[c['case']]
        said = (f'{c["name"]}: p95 {ms(c["latency_ms"]["p95"])} ms, {met(g["p95_met"])}, '
                f'+{g["first_graph_over_empty_s"]:.2f} s, {met(g["first_graph_met"])}')  # fmt: skip
        if answered:
            said += f', and {c["answers"]["last_answer_to_spread_s"]:.2f} s, {met(g["spread_met"])}'
        return said

    spread = (f', and the projector shows every answer within {CLASS_SPREAD_GOAL_S:g} s of the last one'
              if answered else '')  # fmt: skip
    said.append(
        f"Goals: a step reaches every student within {CLASS_P95_GOAL_MS / 1000:g} s (p95), a student's first "
        f"graph comes within {CLASS_FIRST_GRAPH_GOAL_S:g} s of Streamlit's own empty page{spread}: "
        f'{"; ".join(verdict(c) for c in cases)}.'
    )
    return joined(said)


BLOCKS = {  # name: (the results it is made from, how)
    'engine': (('engine',), engine),
    'page': (('page',), page),
    'modes': (('modes',), modes),
    'modes-forward': (('modes_forward',), modes_forward),
    'load': (('load', 'load_before'), load),
    'replica': (('replica', 'load'), replica),
    'layout': (('layout',), layout),
    'layout-chains': (('layout',), chains),
    'exports': (('exports',), exports),
    'screens': (('screens',), screens),
    'class': (('class',), live_class),
}


# --- the pages ---------------------------------------------------------------------------------------------------


def pages():
    """The pages a block may sit in: the README and docs/*.md."""
    return [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]


def made(names=BLOCKS):
    """{block name: its text}, from the results files."""
    stems = {stem for name in names for stem in BLOCKS[name][0]}
    results = {stem: json.loads((RESULTS / f'{stem}.json').read_text()) for stem in stems}
    return {name: BLOCKS[name][1](results) for name in names}


def marks(name):
    return f'<!-- bench:{name} -->', f'<!-- /bench:{name} -->'


def home(name):
    """The one page that holds block `name`."""
    start = marks(name)[0]
    holding = [page for page in pages() if start in page.read_text()]
    if len(holding) != 1:
        where = ', '.join(str(page.relative_to(ROOT)) for page in holding) or 'none'
        raise ValueError(f'block {name!r} must be in exactly one of README.md and docs/*.md, not: {where}')
    return holding[0]


def shown(text, name):
    """What the page's block `name` holds now."""
    start, end = marks(name)
    if text.count(start) != 1 or text.count(end) != 1:
        raise ValueError(f'the page needs exactly one {start} … {end}')
    inner = text.split(start, 1)[1].split(end, 1)[0]
    return inner.strip('\n') if '\n' in inner else inner


def rewrite(text, blocks):
    """`text` with each block replaced; a block of several lines stands on lines of its own."""
    for name, body in blocks.items():
        start, end = marks(name)
        shown(text, name)  # exactly one of each mark
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + start + (f'\n{body}\n' if '\n' in body else body) + end + after
    return text


def rewritten(names=BLOCKS):
    """{page: (its text now, its text with these blocks made again)} for each page holding one of them."""
    by_page = {}
    for name in names:
        by_page.setdefault(home(name), []).append(name)
    out = {}
    for page, held in by_page.items():
        text = page.read_text()
        out[page] = (text, rewrite(text, made(held)))
    return out


def write_results(stem, text, results, out=None):
    """A benchmark's results, the one way every benchmark writes them: `text` printed, then written to
    bench/results/STEM.txt and `results` to .json, and into the docs' blocks; or, with `out` (a path stem other
    than that), to OUT.txt and OUT.json alone. `text` None: the JSON alone (the text went to the terminal)."""
    path = Path(out) if out else RESULTS / stem
    path.parent.mkdir(parents=True, exist_ok=True)
    if text is not None:
        print(text)
        path.with_name(path.name + '.txt').write_text(text if text.endswith('\n') else text + '\n')
    path.with_name(path.name + '.json').write_text(
        json.dumps(results, indent=1, ensure_ascii=False, default=str) + '\n'
    )
    print(f'wrote {path}{".txt and " if text is not None else ""}.json')
    if path.resolve() == (RESULTS / stem).resolve():
        update(stem)


def update(*stems):
    """Rewrite the blocks made from these results, in the pages that hold them (a benchmark calls it after writing
    them)."""
    names = [name for name, (sources, _) in BLOCKS.items() if set(sources) & set(stems)]
    for page, (text, new) in rewritten(names).items():
        if new != text:
            page.write_text(new)
            print(f'rewrote {page.relative_to(ROOT)}: {", ".join(n for n in names if home(n) == page)}')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--check', action='store_true', help='only check: exit 1 if a page differs')
    args = parser.parse_args(argv)
    changed = {page: new for page, (text, new) in rewritten().items() if new != text}
    if args.check:
        if changed:
            differ = ', '.join(str(page.relative_to(ROOT)) for page in changed)
            sys.exit(f'{differ} do not say what bench/results/ says: run python -m bench.readme_tables')
        return
    for page, new in changed.items():
        page.write_text(new)


if __name__ == '__main__':
    main()
