"""The docs' benchmark figures, made from bench/results/*.json, so that the two cannot drift apart.

    python -m bench.readme_tables            # rewrite every marked block of docs/*.md from the results
    python -m bench.readme_tables --check    # exit 1 if a page says something else (tests/unit/test_readme.py)

Each block of figures sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in exactly one of the pages
(README.md and docs/*.md: today docs/ alone), found by its marks, so a block moves with its text. A benchmark
that writes its results into bench/results/ rewrites the blocks made from them (update()); no figure in those
blocks is typed by hand. The words are in bench/templates/NAME.md, a template a block (str.format's {fields},
which may read the results: `{r[hold][seconds]:g}`; `[[section]]` lines start the fragments a block picks
from), and the code here works out the figures that fill them.
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
    TOGETHER_SUMS_GOAL_S,
    WARM_LOADS,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / 'results'
ROOT = HERE.parent
TEMPLATES = HERE / 'templates'

# the page's goals (issue 3), which the page benchmark's figures are read against
SEED_SCALE = ('neuron', 'reuse', 'chain (10)')  # the exercise's own graphs
STEP_MEDIAN_GOAL_MS = 50  # at seed scale
STEP_MEDIAN_GOAL_BIG_MS = 100  # on the 500-chain
FIRST_GRAPH_WARM_GOAL_S = 1.5  # at seed scale
LOAD_P95_GOAL_MS = 100  # a step in the page, with a class's sessions open (bench_load)


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


# --- the blocks: each takes {results stem: the parsed JSON}; the prose is in bench/templates/NAME.md ------------


def sections(name):
    """{section: its text} of bench/templates/NAME.md: the block's own first (''), then each `[[section]]`'s."""
    parts = re.split(r'^\[\[(\w+)\]\]\n', (TEMPLATES / f'{name}.md').read_text(), flags=re.M)
    return {'': parts[0], **dict(zip(parts[1::2], parts[2::2]))}


def fill(template, /, section='', wrap=True, **fields):
    """bench/templates/TEMPLATE.md's `section` with its {fields} filled (str.format: `{r[hold][seconds]:g}` reads
    the results and formats them). Each line of it is a part of the block: a paragraph or a bullet (wrapped, with
    `wrap`), a table (as it is) or an empty line; a line that is one field alone, left empty, is left out; a field
    may hold several lines (a table, bullets)."""
    lines = []
    for line in sections(template)[section].rstrip('\n').split('\n'):
        text = line.format(**fields)
        if text or not re.fullmatch(r'\{\w+\}', line):
            lines += text.split('\n')
    return joined(lines) if wrap else '\n'.join(lines)


def _graph_name(key):
    kind, n = key.rsplit('-', 1)
    return {'chain': f'chain of {n} `out*w + b`', 'sop': f'sum of {n} products'}[kind]


def engine(results):
    r = results['engine']
    traced, backward = r['traced'], [c for c in r['comparison'] if c['phase'] == 'backward']
    cells = sorted(r['comparison'], key=lambda c: c['phase'] != 'backward')  # the backward rows first

    def us(stats):
        return f'{stats["median_us"]:.0f} / {stats["min_us"]:.0f}'

    def ms(stats):
        return ' / '.join(f'{x / 1000:.1f}' if x < 10_000 else f'{x / 1000:.0f}' for x in stats.values())

    def ratios(rows, both=False):
        keys = ('ratio_median', 'ratio_min') if both else ('ratio_median',)
        return (' / ' if both else ' and ').join(f'{row[k]:.2f}' for row in rows for k in keys)

    def verdicts(rows):
        return ' and '.join(sorted({row['verdict'] for row in rows}))

    return fill(
        'engine', python=r['meta']['python'], micrograd=r['meta']['micrograd'],
        graphs=', '.join(f'{_graph_name(g)} ({v["nodes"]:,} nodes)' for g, v in r['graphs'].items()),
        reps=span([c[impl]['reps'] for c in r['comparison'] for impl in ('ours', 'micrograd')]),
        comparison=table(['graph', 'phase', 'ours (µs)', 'micrograd (µs)', 'ours / micrograd'], [
            [_graph_name(c['graph']), c['phase'], us(c['ours']), us(c['micrograd']), ratios([c], True)] for c in cells
        ]),
        traced=table(['graph', 'traced (µs)', 'plain (µs)', 'traced / plain',
                      'traced, then every step worked out (ms)'], [
            [_graph_name(t['graph']), us(t['traced']), us(t['plain']), ratios([t], True),
             ms({k: t['every_step'][k] for k in ('median_us', 'min_us')})] for t in traced
        ]),
        most=f'{r["goals"]["backward_ours_over_micrograd_max"]:.1f}',
        aim=f'{r["goals"]["backward_ours_over_micrograd_aim"]:.1f}', backward_ratios=ratios(backward),
        backward_verdicts=verdicts(backward), traced_most=f'{r["goals"]["traced_over_plain_max"]:g}',
        traced_ratios=ratios(traced), traced_verdicts=verdicts(traced),
        per_step=span([(t['every_step']['median_us'] - t['traced']['median_us']) / r['graphs'][t['graph']]['nodes']
                       for t in traced], unit=' µs'),
        every_step=span([t['every_step_ratio'] for t in traced]),
    )  # fmt: skip


SOURCES = {'dot': 'server (dot)', 'browser': 'browser'}  # the layout sources, as the docs name them


def _page_row(r, source, name, c):
    cold, warm, timeout = c.get('first_graph_cold_s'), c.get('first_graph_warm_s'), FIRST_GRAPH_TIMEOUT_S
    if cold is None:
        first = f'none: "{c["notice"].split(". ")[0]}."' if c.get('notice') else f'no graph within {timeout} s'
    else:
        first = f'{cold:.2f} / ' + (f'{warm:.2f}' if warm is not None else f'none within {timeout} s')
    laid, play = c.get('laid_out_warm_ms'), c.get('play_10_per_s')
    times = (c['step_median_ms'], c['step_max_ms']) if 'step_median_ms' in c else ()
    return [
        'MLP' if name == 'mlp' else name, SOURCES[source], first,
        'n/a' if c.get('laid_out_cold_ms') is None or not laid or None in laid
        else f'{c["laid_out_cold_ms"]:,.0f} / {statistics.median(laid):,.0f}',
        ' / '.join(f'> {x:,.0f}' if x >= STEP_TIMEOUT_MS else f'{x:,.0f}' for x in times) or 'n/a',
        f'{play["dropped"]} of {play["shown"]}' if play else 'n/a',
        f'{c["server_cpu_cold_ms"]:,.0f} / {c["server_cpu_warm_ms"]:,.0f}' if 'server_cpu_warm_ms' in c else 'n/a',
        f'{r["server_rerun_s"][source][name] * 1000:.0f}',
    ]  # fmt: skip


def _page_goals(r):
    def got(source, name, key):
        return r['pages'][source].get(name, {}).get(key)

    goals = []
    for source, label in SOURCES.items():
        seed = [got(source, name, 'step_median_ms') for name in SEED_SCALE]
        big = got(source, 'chain 500', 'step_median_ms')
        warm = [got(source, name, 'first_graph_warm_s') for name in SEED_SCALE]
        plays = [c['play_10_per_s'] for c in r['pages'][source].values() if 'play_10_per_s' in c]
        dropped, shown = sum(p['dropped'] for p in plays), sum(p['shown'] for p in plays)
        goals.append(fill(
            'page', 'goal', False, label=label, goal_ms=STEP_MEDIAN_GOAL_MS, seed=span(seed, unit=' ms'),
            seed_met=met(max(seed) <= STEP_MEDIAN_GOAL_MS), goal_big_ms=STEP_MEDIAN_GOAL_BIG_MS,
            big=fill('page', 'no_big', False) if big is None
            else fill('page', 'big', False, ms=f'{big:.0f}', met=met(big <= STEP_MEDIAN_GOAL_BIG_MS)),
            dropped=dropped, shown=shown, dropped_met=met(dropped == 0), warm_goal=FIRST_GRAPH_WARM_GOAL_S,
            warm=span(warm, 2, ' s'), warm_met=met(max(warm) <= FIRST_GRAPH_WARM_GOAL_S),
        ))  # fmt: skip
    neuron = got('browser', 'neuron', 'first_graph_warm_s')
    goals.append(fill(
        'page', 'neuron', False, warm_goal=FIRST_GRAPH_WARM_GOAL_S, neuron=f'{neuron:.2f}',
        with_dot=f'{got("dot", "neuron", "first_graph_warm_s"):.2f}', met=met(neuron <= FIRST_GRAPH_WARM_GOAL_S),
    ))  # fmt: skip
    return '\n'.join(goals)


def _page_class(r):
    """The finished study of which side lays out (bench/results/layout_sides.json): its table and what it found."""

    def total(c):
        return c['server_cpu_total_s'] + c['browser_cpu_total_s']

    def first(c):
        return [s for s in c['first_graph_s'] if s is not None]

    rows = [[
        name, SOURCES[source], str(c['students']),
        f'{statistics.median(first(c)):.2f} / {max(first(c)):.2f}' if first(c) else 'none',
        f'{c["server_cpu_first_ms"]:,.0f}'
        + (f' / {c["server_cpu_others_ms"]:,.0f}' if c['server_cpu_others_ms'] is not None else ''),
        f'{c["server_cpu_total_s"]:.1f}', f'{c["browser_cpu_total_s"]:.1f}', f'{total(c):.1f}',
        '; '.join(c['notices']) or '-',
    ] for source, cases in r['class'].items() for name, c in cases.items()]  # fmt: skip
    head = ['expression', 'laid out by', 'students', 'first graph median / max (s)',
            'server CPU, first student / each other (ms)', 'server CPU, all (s)', "browsers' CPU, all (s)",
            'CPU, all (s)', 'the page said']  # fmt: skip
    compared = []
    for name in [name for name in r['class'].get('browser', {}) if name in r['class'].get('dot', {})]:
        served, each = r['class']['dot'][name], r['class']['browser'][name]
        if name == 'tangled formula':
            laid = statistics.median(x for x in each['laid_out_ms'] if x is not None) / 1000
            compared.append(fill('page', 'tangled', False, served=f'{served["server_cpu_total_s"]:.1f}',
                                 each=f'{each["server_cpu_total_s"]:.1f}', laid=f'{laid:.1f}'))  # fmt: skip
        else:
            compared.append(fill(
                'page', 'each', False, name=name, students=each['students'],
                total=f'{total(each) - total(served):+.1f}',
                server=f'{each["server_cpu_total_s"] - served["server_cpu_total_s"]:+.1f}',
                browsers=f'{each["browser_cpu_total_s"] - served["browser_cpu_total_s"]:+.1f}',
                first=f'{statistics.median(first(each)) - statistics.median(first(served)):+.2f}',
            ))  # fmt: skip
    return table(head, rows), fill('page', 'compared', False, compared='; '.join(compared)) if compared else ''


def page(results):
    r, sides = results['page'], results['layout_sides']
    d, lay = r['download'], r['layouts']

    def drawing(d):
        return f'{d["width_pt"]:,.0f} × {d["height_pt"]:,.0f} pt'

    layout_rows = [[
        f'`{row["graph"]}`' if row['graph'].startswith('chain(') else row['graph'], f'{row["wasm"]["first_ms"]:,.0f}',
        f'{row["wasm"]["later_median_ms"]:,.0f}' if row['wasm']['later_median_ms'] is not None else 'n/a',
        f'{row["wasm"]["until_first_ms"]:,.0f}', f'{row["native"]["median_ms"]:,.0f}',
        f'{row["wasm"]["first_ms"] / row["native"]["median_ms"]:.2f}', drawing(row['wasm']['drawing']),
        drawing(row['native']['drawing']),
    ] for row in lay]  # fmt: skip
    layout_head = ['graph', 'WebAssembly: first layout (ms)', 'later ones (ms)', 'a new worker to its first SVG (ms)',
                   'native dot (ms)', 'first layout / native', 'WebAssembly drawing', 'native drawing']  # fmt: skip
    alike = all(row['wasm']['drawing'][k] == row['native']['drawing'][k] for row in lay for k in ('nodes', 'edges'))
    wider, taller = ([100 * (row['wasm']['drawing'][k] / row['native']['drawing'][k] - 1) for row in lay]
                     for k in ('width_pt', 'height_pt'))  # fmt: skip
    class_table, measured = _page_class(sides)
    page_head = ['case', 'laid out by', 'first graph cold / warm (s)',
                 'of it, the browser laying out: cold / warm (ms)', 'step median / max (ms)',
                 'play at 10/s: frames dropped', 'server CPU a load, cold / warm (ms)',
                 'server per rerun (ms)']  # fmt: skip
    cases = [(source, name, c) for source, cases in r['pages'].items() for name, c in cases.items()]
    return fill(
        'page', pages=table(page_head, [_page_row(r, *case) for case in cases]),
        steps=span({c['steps'] for _, _, c in cases if 'step_median_ms' in c}), warm_loads=WARM_LOADS,
        goals=_page_goals(r), wasm_version=lay[0]['wasm_version'], file_bytes=f'{d["file_bytes"]:,}',
        identity_bytes=f'{d["identity"]["bytes"]:,}', gzip_bytes=f'{d["gzip"]["bytes"]:,}',
        encoding=d['gzip']['content_encoding'] or 'not', native_version=lay[0]['native_version'],
        runs=span([len(row['native']['runs_ms']) for row in lay]), layouts=table(layout_head, layout_rows),
        unlike='' if alike else fill('page', 'unlike', False), wider=span(wider, 0, ' %'), taller=span(taller, 0, ' %'),
        students=max(c['students'] for cases in sides['class'].values() for c in cases.values()),
        **{'class': class_table}, compared=measured,
    )  # fmt: skip


def _sessions(run):
    return run['sessions']['websocket'] + run['sessions']['chromium']


def load(results):
    r = results['load']
    hold, loads, memory, goal = r['hold'], r['loads'], r['memory'], r['memory']['goal_mb_after_expressions']
    levels = r.get('levels')  # a finished phase's (bench/results/README.md), in load.json until bench_load runs again
    top = levels and max(levels['runs'], key=lambda run: run['level'])

    def row(label, run):
        return [label, ' / '.join(f'{run["page_step_ms"][k]:.0f}' for k in ('p50', 'p95', 'max')) + ' ms',
                f'{run["server_cpu_ms_per_step"]:.2f} ms', f'{run["server_rss_mb"]["after"]:.0f} MB']  # fmt: skip

    rows = [row(f'{_sessions(hold)} sessions, each stepping every {r["settings"]["step_every"]:g} s for '
                f'{hold["seconds"]:g} s ({hold["steps"]["total"]:,} steps)', hold),
            *([row(f'{_sessions(top)} sessions, {top["seconds"]:g} s', top)] if levels else [])]  # fmt: skip
    stalled, budgets, over = memory.get('stalled'), r['settings'].get('layout_budgets'), levels and levels['first_over']
    if stalled:
        most = max(stalled['rss_mb_while_open'], stalled['rss_mb_5s_after_closed'])
        stalled = fill('load', 'stalled', False, s=stalled, goal=goal, met=met(most <= goal),
                       peak=memory['rss_mb_peak'])  # fmt: skip
    return fill(
        'load', r=r, n=loads['neuron'], m=memory, sessions=_sessions(hold),
        table=table(['load', 'step in the page p50 / p95 / max', 'server CPU per step', 'server RSS'], rows),
        limit=LOAD_P95_GOAL_MS, met=met(hold['page_step_ms']['p95'] <= LOAD_P95_GOAL_MS),
        over='' if not levels else fill('load', 'no_level', False, level=top['level']) if over is None
        else fill('load', 'level', False, over=over),
        cpu=span([loads[name]['server_cpu_ms_per_load'] for name in ('neuron', 'chain 100')], unit=' ms'),
        expressions_met=met(memory['goal_met']), chains_met=met(memory['chains']['rss_mb_after'] <= goal),
        budgets=fill('load', 'budgets', False, budgets=budgets) if budgets else '', stalled=stalled or '',
        reruns=_reruns(results['load_after'], results['load_before']),
    )  # fmt: skip


# a class, for sizing replicas from what one replica holds (bench/results/replica.json)
CLASS_SIZES = (30, 300, 3_000)
CHANGE_EVERY_S = 6  # at the busiest, each student changes an input every 6 s (issue 22's load)
OPEN_WITHIN_S = 30  # the whole class opens the link within 30 s
REPLICA_MEMORY_MB = 1024  # what deploy/ gives each replica


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


NO_GRAPH_BYTES = 20_000  # a rerun that sent less showed no graph: its layout was refused (a busy, shared machine)


def _reruns(r, before):
    """Issue 22's finished study (load_after, load_before): a class's input changes, and each preset's server CPU
    for one, before and after its changes."""
    trip, was = r['inputs']['round_trip_ms'], before['inputs']['round_trip_ms']

    def cpu(row):
        refused = ' (no graph: layout refused)' if row['received_bytes_per_rerun'] < NO_GRAPH_BYTES else ''
        return fmt_ms(row['server_cpu_ms_per_rerun']) + refused

    def most(load):
        return max([load['at_start'][0], *load['during_1min']])

    def sent(row):
        return f'{row["received_bytes_per_rerun"] / 1000:,.0f} kB'

    rows = [[name, cpu(before['reruns'][name]), cpu(row), sent(before['reruns'][name]), sent(row)]
            for name, row in r['reruns'].items()]  # fmt: skip
    return fill(
        'load', 'reruns', False, i=r['inputs'], p50=fmt_ms(trip['p50']), p95=fmt_ms(trip['p95']),
        max=fmt_ms(trip['max']),
        met=met(trip['p95'] <= 1000), most=most(r['inputs']['load_average']),
        before=fill('load', 'before', False, p50=fmt_ms(was['p50']), p95=fmt_ms(was['p95']),
                    unfinished=was['unfinished'], changes=before['inputs']['changes'],
                    most=most(before['inputs']['load_average'])),
        table=table(['page', 'server CPU before', 'after', 'sent a change, before', 'after'], rows),
    )  # fmt: skip


def fmt_ms(x):
    """'23 ms', '1.2 s', or 'never' (a percentile that fell on a change that never finished)."""
    if x is None:
        return fill('load', 'never', False)
    return f'{x / 1000:.1f} s' if x >= 1000 else f'{x:.0f} ms'


def replica(results):
    r = results['replica']
    hold, inputs, loads = r['hold'], r['saturate'], r['loads']['neuron']
    room = REPLICA_MEMORY_MB - hold['server_rss_mb']['before_open'] - r['caches_mb']
    per_session = hold['rss_mb_per_session']
    largest = replicas_for(CLASS_SIZES[-1], r)
    rows = []
    for n in CLASS_SIZES:
        need = replicas_for(n, r)
        rows.append([
            f'{n:,}', f'{n / CHANGE_EVERY_S:,.1f} / {inputs["changes_per_s"]:.1f} → {need["inputs"]}',
            f'{n / OPEN_WITHIN_S:,.1f} / {loads["loads_per_s"]:.1f} → {need["loads"]}',
            f'{n:,} × {per_session * 1000:.0f} kB / {room:,.0f} MB → {need["memory"]}', f'**{need["all"]}**',
        ])  # fmt: skip
    head = ['class', 'input changes a second → replicas', 'page loads a second → replicas',
            "sessions' memory → replicas", 'replicas, with one spare']  # fmt: skip
    return fill(
        'replica', r=r, h=hold, s=inputs, n=loads, idle=results['load']['loads']['neuron'], sessions=_sessions(hold),
        kb_per_s=hold['ws_received_bytes_per_session_per_s'] / 1000, kb_per_session=per_session * 1000,
        replica_mb=REPLICA_MEMORY_MB, room=room, change_every=CHANGE_EVERY_S, open_within=OPEN_WITHIN_S,
        table=table(head, rows), limit=fill('replica', max(('inputs', 'loads', 'memory'), key=largest.get), False),
    )  # fmt: skip


def layout(results):
    rows = [row for row in results['layout']['rows'] if row['full_s'] is not None]
    slowest, quick = max(rows, key=lambda row: row['full_s']), [row for row in rows if row['page_layout'] == 'quick']
    return fill(
        'layout', wrap=False, graph=slowest['graph'], full=f'{slowest["full_s"]:.0f}',
        quick=f'{slowest["quick_s"]:.1f}',
        sums=len(quick), crossing=span([row['quick_quality'][2] for row in quick]),
        edges=span([row['quick_quality'][3] for row in quick]),
        full_crossing=span([row['full_quality'][2] for row in quick]),
    )  # fmt: skip


def chains(results):
    rows = {row['graph']: row for row in results['layout']['rows']}
    return fill('layout', 'chains', False, chain100=f'{rows["chain(100)"]["full_s"]:.2f}',
                chain500=f'{rows["chain(500)"]["full_s"]:.1f}')  # fmt: skip


def exports(results):
    decks = {row['graph']: row['total_s'] for row in results['exports']['rows'] if row['export'] == 'pass pptx'}
    return fill('exports', wrap=False, neuron=f'{decks["neuron"]:.1f}', mlp=f'{decks["mlp"]:.1f}')


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
    slowest = max(c['step_median_ms'] for c in r['pages']['dot'].values())
    return fill('modes', table=_beside_watched(r), slowest=f'{slowest:.0f}', goal=STEP_MEDIAN_GOAL_MS,
                met=met(slowest <= STEP_MEDIAN_GOAL_MS))  # fmt: skip


def modes_forward(results):
    """Forward mode's step beside the same graph watched, from one run (bench_page --forward): within one
    animation frame of watching's, the goal (issue 32)."""
    r = results['modes_forward']
    player = r['pages']['dot']
    over = {name.partition(', ')[0]: c['step_median_ms'] - player[name.partition(', ')[0]]['step_median_ms']
            for name, c in player.items() if name.endswith(', forward')}  # fmt: skip
    most = max(over, key=over.get)
    machine, graph = r['machine'], 'the MLP' if most == 'mlp' else most
    said = (fill('modes', 'more', False, over=f'{over[most]:.1f}', graph=graph) if over[most] > 0
            else fill('modes', 'less', False))  # fmt: skip
    return fill(
        'modes', 'forward', table=_beside_watched(r, first_graph=True), steps=player[next(iter(player))]['steps'],
        cores=machine['cores'], at_start=f'{machine["load_average_at_start"][0]:.1f}',
        at_end=f'{machine["load_average_at_end"][0]:.1f}', frame=f'{FRAME_MS:.0f}', frames=f'{2 * FRAME_MS:.0f}',
        said=said, frame_ms=f'{FRAME_MS:.1f}', met=met(over[most] <= FRAME_MS),
    )  # fmt: skip


def _listed(shapes):
    """'the tall shape', 'the compact and wide shapes', 'the tall, wide and compact shapes'."""
    *most, last = shapes
    return f'the {", ".join(most)} and {last} shapes' if most else f'the {last} shape'


def screens(results):
    rows = results['screens']['rows']
    said = []
    for screen in dict.fromkeys(r['screen'] for r in rows):
        on = [r for r in rows if r['screen'] == screen]
        said.append(fill(
            'screens', 'screen', False, screen=screen, px=span([r['px'] for r in on], 1, ' px'),
            share=span([100 * r['height_share'] for r in on], 1, ' %'),
            shapes=_listed(dict.fromkeys(r['shape'] for r in on)),
            wide=sum(r['wide_whole'] and r['wide_px'] >= r['px'] - 0.05 for r in on), of=len(on),
        ))  # fmt: skip
    whole = sum(r['whole'] and r['readable'] for r in rows)
    return fill('screens', whole=whole, pairs=len(rows), screens='\n'.join(said))


def first_graph(results):
    r = results['first_graph']
    cases = r['cases']
    rows = [[case, f'{c["cold_s"]:.2f}', f'{c["warm_s"]:.2f}', f'{c["over_bare"]:.2f}×'] for case, c in cases.items()]
    over = [cases[case]['over_bare'] for case in ('plain link', 'join link')]
    return fill(
        'first-graph',
        rounds=r['rounds'],
        plain=f'{over[0]:.2f}',
        join=f'{over[1]:.2f}',
        goal=f'{r["goal"]:.2f}',
        met=met(max(over) <= r['goal']),
        table=table(['case', 'cold (s)', 'warm (s)', 'warm, over the bare page'], rows),
    )


def live_class(results, stem='class'):
    r = results[stem]
    cases, empty, goals = r['cases'], r['empty_page'], r['goals']
    answered = all(c.get('answers') for c in cases)

    def ms(x):
        return f'{x:,.0f}' if x >= 10 else f'{x:.1f}'

    def trio(stats, keys=('p50', 'p95', 'max')):
        return ' / '.join(ms(stats[k]) for k in keys)

    cells = {  # a row's label: its cell for a case
        'a step reaching every student: p50 / p95 / max (ms)': lambda c: trio(c['latency_ms']),
        'students who missed a step': lambda c: f"{c['missed']} of {c['students'] * c['steps']:,}",
        "the replicas' CPU a step / with no step, a second (ms)":
            lambda c: f"{ms(c['server_cpu_ms_per_step'])} / {ms(c['server_idle_cpu_ms_per_s'])}",
        'memory a student following (kB)': lambda c: f"{c['kb_per_student']:.0f}",
        f"a student's first graph from the join link, warm (s; Streamlit's empty page {empty['warm_s']:.2f})":
            lambda c: f"{c['first_graph']['warm_s']:.2f} (+{goals[c['case']]['first_graph_over_empty_s']:.2f})",
    }  # fmt: skip
    if answered:
        a = cases[0]['answers']
        cells |= {
            f"{a['students']:,} answers within {a['within_s']:g} s: the answer route p50 / p95 / max (ms)":
                lambda c: trio(c['answers']['route_ms']),
            "the replicas' CPU an answer (ms)": lambda c: f"{c['answers']['server_cpu_ms_per_answer']:.1f}",
            "from the last answer's 200 to the projector showing every answer and group (s)":
                lambda c: f"{c['answers']['last_answer_to_spread_s']:.2f}",
            'an answer to the projector: fastest / p50 / slowest (ms)':
                lambda c: trio(c['answers']['answer_to_projector_ms'], ('min', 'p50', 'max')),
        }  # fmt: skip
    two = next((c for c in cases if 'latency_ms_same_replica' in c), None)
    if two:
        two = fill('class', 'two', False, same=ms(two['latency_ms_same_replica']['p95']),
                   other=ms(two['latency_ms_other_replica']['p95']), redis=ms(two['redis_cpu_ms_per_step']),
                   haproxy=ms(two['haproxy_cpu_ms_per_step'])) + '\n'  # fmt: skip

    def verdict(c):
        g = goals[c['case']]
        spread = answered and fill('class', 'verdict_spread', False, spread_met=met(g['spread_met']),
                                   spread=f'{c["answers"]["last_answer_to_spread_s"]:.2f}')  # fmt: skip
        return fill('class', 'verdict', False, name=c['name'], p95=ms(c['latency_ms']['p95']),
                    p95_met=met(g['p95_met']), over=f'{g["first_graph_over_empty_s"]:.2f}',
                    first_graph_met=met(g['first_graph_met'])) + (spread or '')  # fmt: skip

    return fill(
        'class', file=f'bench/results/{stem}.txt', students=f"{cases[0]['students']:,}", steps=cases[0]['steps'],
        cores=r['machine']['cores'], command=' '.join(r['args'].get('command', ['python -m bench.bench_class'])),
        load_average=f'{r["machine"]["load_average_at_start"][0]:.1f}',
        table=table(['', *(c['name'] for c in cases)], [[label, *map(cell, cases)] for label, cell in cells.items()]),
        two=two or '', p95_goal=f'{CLASS_P95_GOAL_MS / 1000:g}', first_graph_goal=f'{CLASS_FIRST_GRAPH_GOAL_S:g}',
        answers=fill('class', 'answers', False, within=f'{cases[0]["answers"]["within_s"]:g}',
                     refresh=' and '.join(f'{c["answers"]["projector_refresh_s"]:.2f}' for c in cases)) + '\n'
        if answered else '',
        spread=fill('class', 'spread', False, goal=f'{CLASS_SPREAD_GOAL_S:g}') if answered else '',
        verdicts='; '.join(verdict(c) for c in cases),
    )  # fmt: skip


def together(results):
    r = results['together']
    cases, goals = r['cases'], r['goals']

    def trio(stats):
        return ' / '.join(fmt_ms(stats[k]) for k in ('p50', 'p95', 'max'))

    cells = {  # a row's label: its cell for a case
        'shares taken / refused': lambda c: f"{c['taken']:,} / {c['refused']}",
        'the /grads route: p50 / p95 / max': lambda c: trio(c['route_ms']),
        "the replicas' CPU a share (ms)": lambda c: f"{c['server_cpu_ms_per_share']:.1f}",
        "from the last share's 200 to the projector's sums complete (s)": lambda c: f"{c['last_share_to_sums_s']:.2f}",
        "the projector's *Step* to every phone at the new parameters: p50 / p95 / max":
            lambda c: trio(c['step_to_every_phone_ms']) + (f" ({c['step_missed']} missed)" if c['step_missed'] else ''),
    }  # fmt: skip

    def verdict(c):
        g = goals[c['case']]
        return fill('together', 'verdict', False, name=c['name'], taken=f"{c['taken']:,}", phones=f"{c['phones']:,}",
                    all_met=met(g['all_taken']), sums=f"{c['last_share_to_sums_s']:.2f}", sums_met=met(g['sums_met']),
                    right='yes' if g['sums_right'] else 'no')  # fmt: skip

    return fill(
        'together', file='bench/results/together.txt', phones=f"{cases[0]['phones']:,}", points=cases[0]['points'],
        within=f"{cases[0]['within_s']:g}", cores=r['machine']['cores'],
        command=' '.join(r['args'].get('command', ['python -m bench.bench_together'])),
        load_average=f'{r["machine"]["load_average_at_start"][0]:.1f}',
        table=table(['', *(c['name'] for c in cases)], [[label, *map(cell, cases)] for label, cell in cells.items()]),
        goal=f'{TOGETHER_SUMS_GOAL_S:g}', verdicts='; '.join(verdict(c) for c in cases),
    )  # fmt: skip


def lesson(results):
    """A lesson in one file's size per graph (bench/bench_lesson.py), in words."""
    from exports.lesson import size_words

    called = {'neuron': 'the neuron', 'mlp': 'the MLP'}  # a chain by its code

    def named(graph):
        return called.get(graph, f'`{graph}`' if '(' in graph else graph)

    sizes = [f"{named(r['graph'])}'s {size_words(r['bytes'])}" for r in results['lesson']]
    return ', '.join(sizes[:-1]) + ' and ' + sizes[-1] + ' (`bench/results/lesson.txt`)'


BLOCKS = {  # name: (the results it is made from, how)
    'engine': (('engine',), engine),
    'page': (('page', 'layout_sides'), page),
    'modes': (('modes',), modes),
    'modes-forward': (('modes_forward',), modes_forward),
    'load': (('load', 'load_before', 'load_after'), load),
    'replica': (('replica', 'load'), replica),
    'layout': (('layout',), layout),
    'layout-chains': (('layout',), chains),
    'exports': (('exports',), exports),
    'screens': (('screens',), screens),
    'class': (('class',), live_class),
    'class-3000': (('class_3000',), lambda results: live_class(results, 'class_3000')),
    'first-graph': (('first_graph',), first_graph),
    'together': (('together',), together),
    'lesson': (('lesson',), lesson),
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


def as_text(title, results):
    """A benchmark's results as the text beside its JSON: `title`, then each figure on a line by its path in the JSON
    (`hold.page_step_ms.p95: 41.8`); what each means, the benchmark's docstring says."""
    lines = [title, '']

    def walk(path, value):
        if isinstance(value, dict) and value:
            for key, inner in value.items():
                walk(f'{path}.{key}' if path else str(key), inner)
        elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            for i, inner in enumerate(value):
                walk(f'{path}[{i}]', inner)
        else:
            lines.append(f'{path}: {figure(value)}')

    walk('', results)
    return '\n'.join(lines)


def figure(value):
    if isinstance(value, float):
        return f'{value:.4g}'
    if isinstance(value, list | tuple):
        return '[' + ', '.join(figure(x) for x in value) + ']'
    return str(value)


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
