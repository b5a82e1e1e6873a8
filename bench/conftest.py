"""pytest's hooks for bench/test_*_speed.py (pytest-benchmark): how many rounds, and the engine's figures from
pytest-benchmark's JSON (--benchmark-json), written as bench/results/engine.{txt,json} in the form
bench/readme_tables.py reads."""

import platform
from importlib import metadata
from pathlib import Path

from bench import readme_tables


def pytest_addoption(parser):
    parser.addoption('--rounds', type=int, default=300, help='timed rounds a benchmark (bench/test_engine_speed.py)')


def verdict(value, goal, aim=None):
    return 'MISSED' if value > goal else 'met (aim not yet)' if aim is not None and value > aim else 'met'


def pytest_benchmark_update_json(config, benchmarks, output_json):
    from bench import test_engine_speed as speed

    cells = {}  # (graph, phase, impl): {'median_us', 'min_us', 'reps'}
    for b in output_json['benchmarks']:
        if 'test_engine_speed.py' not in b['fullname']:
            continue
        params, stats = b['params'], b['stats']
        cell = {'median_us': stats['median'] * 1e6, 'min_us': stats['min'] * 1e6, 'reps': stats['rounds']}
        cells[params['graph'], params.get('phase', 'build'), params['impl']] = cell
    speed_cells = {(g, phase, impl) for g in speed.GRAPHS for phase in ('build', 'backward') for impl in speed.ENGINES}
    speed_cells |= {(g, phase, impl) for g in speed.GRAPHS for phase, impls in speed.RUNS.items() for impl in impls}
    if not speed_cells <= set(cells):  # a part of the run (-k): no figures
        return
    goals, comparison, traced = speed.GOALS, [], []
    for graph in speed.GRAPHS:
        for phase in ('build', 'backward'):
            ours, mg = cells[graph, phase, 'ours'], cells[graph, phase, 'micrograd']
            row = {'graph': graph, 'phase': phase, 'ours': ours, 'micrograd': mg}
            row |= {f'ratio_{k}': ours[f'{k}_us'] / mg[f'{k}_us'] for k in ('median', 'min')}
            if phase == 'backward':
                most, aim = goals['backward_ours_over_micrograd_max'], goals['backward_ours_over_micrograd_aim']
                row |= {'goal': f'≤ {most:.1f} (aim {aim:.1f})', 'verdict': verdict(row['ratio_median'], most, aim)}
            comparison.append(row)
        plain, alone = cells[graph, 'backward', 'ours'], cells[graph, 'traced', 'traced']
        every = cells[graph, 'every step', 'every step']
        row = {'graph': graph, 'traced': alone, 'every_step': every, 'plain': plain}
        row |= {f'ratio_{k}': alone[f'{k}_us'] / plain[f'{k}_us'] for k in ('median', 'min')}
        row['every_step_ratio'] = every['median_us'] / plain['median_us']
        most = goals['traced_over_plain_max']
        traced.append(row | {'goal': f'≤ {most:.1f}×', 'verdict': verdict(row['ratio_median'], most)})
    result = {
        'meta': {
            'python': platform.python_version(),
            'implementation': platform.python_implementation(),
            'platform': platform.platform(),
            'micrograd': metadata.version('micrograd'),
            'rounds': config.getoption('rounds'),
            'timer': 'pytest-benchmark pedantic, one call a round, a fresh graph each round',
            'gc': 'gc.collect() before and gc.disable() during each timed call',
            'units': 'microseconds per call',
        },
        'graphs': {graph: {'nodes': speed.nodes(graph)} for graph in speed.GRAPHS},
        'correctness': {'tolerance': speed.TOLERANCE, 'max_abs_diff': {g: speed.worst(g) for g in speed.GRAPHS}},
        'goals': goals,
        'comparison': comparison,
        'traced': traced,
    }

    def us(cell):
        return f'{cell["median_us"]:.1f} / {cell["min_us"]:.1f}'

    text = readme_tables.table(
        ['graph', 'phase', 'ours (µs)', 'micrograd (µs)', 'ours / micrograd', 'goal'],
        [[r['graph'], r['phase'], us(r['ours']), us(r['micrograd']), f'{r["ratio_median"]:.3f} / {r["ratio_min"]:.3f}',
          f'{r["goal"]}: {r["verdict"]}' if 'goal' in r else '-'] for r in comparison],
    ) + '\n\n' + readme_tables.table(
        ['graph', 'traced (µs)', 'plain (µs)', 'traced / plain', 'goal', 'traced + every step (µs)', 'ratio'],
        [[r['graph'], us(r['traced']), us(r['plain']), f'{r["ratio_median"]:.2f} / {r["ratio_min"]:.2f}',
          f'{r["goal"]}: {r["verdict"]}', us(r['every_step']), f'{r["every_step_ratio"]:.1f}'] for r in traced],
    )  # fmt: skip
    head = f'Python {platform.python_version()}, micrograd {metadata.version("micrograd")}; median / min of '
    # into bench/results/engine.* (and the docs) when the JSON goes to bench/results/, else beside it as NAME-figures
    raw = config.getoption('benchmark_json')
    raw = Path(raw.name if hasattr(raw, 'write') else raw).resolve()  # a file, or a path, by version
    out = None if raw.parent == readme_tables.RESULTS else str(raw.with_name(f'{raw.stem}-figures'))
    text = head + f'{config.getoption("rounds")} rounds, µs per call\n\n' + text
    readme_tables.write_results('engine', text, result, out=out)
