"""Benchmark a lesson in one file (exports/lesson.py): its bytes and the time to make it, on the graphs the docs name,
each watched as the page opens it (its defaults: the forward pass and the leaves' steps too).

    python -m bench.bench_lesson    # ~20 s; writes bench/results/lesson.{txt,json} and the docs' figure

`make s` is making the HTML from the player's run (the layout and the body made before, as the page has them); `MB`
its size, `said MB` the size the share panel says before making it (exports/lesson.size_of). The goals: the neuron
under 400 kB, the MLP under 2 MB; past exports/lesson.MOST_BYTES the share panel says so and offers none.
"""

import platform
import sys
import time

from bench import readme_tables
from components.player import lesson_run, player_run
from engine import PRESETS, chain, trace_backward
from engine.frames import frames
from exports import lesson
from state import PageState
from view.numbers import number_width
from view.scene import Scene

GRAPHS = {'neuron': PRESETS['neuron'], 'reuse': PRESETS['reuse'], 'mlp': PRESETS['mlp'], 'chain(100)': chain(100),
          'chain(500)': chain(500)}  # fmt: skip
LINK = 'https://backprop.example.edu/'  # where the page is hosted, as the lesson links to it
GOALS = {'neuron': 400 * 1024, 'mlp': 2 * lesson.MB}  # bytes


def watch_scene(expression, values=None):
    """The page's scene of `expression` watched at `values` (its defaults), as app.py makes it."""
    values = dict(expression.defaults if values is None else values)
    leaves, out = expression.build(values)
    trace = trace_backward(out, leaves)
    page = PageState()
    all_frames = tuple(frames(trace, page.forward, page.leaves))
    return Scene(
        expression_key=expression.key, values=tuple(values.items()), mode='watch', forward=page.forward,
        leaves=page.leaves, hide=page.hide, frames=all_frames, length=len(all_frames), learning_key=None, bodies=(),
        expression=expression, trace=trace, width=number_width(trace), numeric=None,
    ), page  # fmt: skip


def lesson_of(expression):
    """(the lesson's HTML, the seconds it took to make from its run, its size as the share panel says it before)."""
    scene, page = watch_scene(expression)
    run = lesson_run(player_run(scene), scene, page, 0)
    start = time.perf_counter()
    made = lesson.lesson_html(*run, title=expression.title, about=expression.lesson, link=LINK)
    return made, time.perf_counter() - start, lesson.size_of(*run, title=expression.title)


def main():
    rows = []
    for name, expression in GRAPHS.items():
        made, seconds, said = lesson_of(expression)
        size = len(made.encode())
        rows.append({'graph': name, 'bytes': size, 'said_before': said, 'make_s': round(seconds, 3),
                     'offered': said <= lesson.MOST_BYTES, 'goal': GOALS.get(name)})  # fmt: skip
    lines = [f'# python -m bench.bench_lesson on {platform.machine()}, Python {sys.version.split()[0]}',
             f'{"graph":<12}{"MB":>8}{"said MB":>10}{"make s":>9}  goal', '']  # fmt: skip
    for row in rows:
        goal = f'under {row["goal"] / 2**20:.2f} MB' if row['goal'] else ''
        offered = '' if row['offered'] else f'  not offered: past {lesson.MOST_BYTES // lesson.MB} MB'
        lines.insert(-1, f'{row["graph"]:<12}{row["bytes"] / 2**20:>8.3f}{row["said_before"] / 2**20:>10.3f}'
                         f'{row["make_s"]:>9.2f}  {goal}{offered}')  # fmt: skip
    readme_tables.write_results('lesson', '\n'.join(lines), rows)


if __name__ == '__main__':
    main()
