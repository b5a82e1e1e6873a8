"""Benchmark the exports (exports/): what each costs in time, in dot's time, and in bytes, on the graphs a lecturer
would put on slides.

    python -m bench.bench_exports    # ~1 min; writes bench/results/exports.{txt,json} and the docs' figure

Graphs: neuron, reuse, lecture, mlp and chain(10), every frame (the forward pass included), as the page steps them.
For each graph, one run of each export, one at a time (nothing else runs): the last frame as SVG and as PNG, then the
whole pass as GIF, ZIP of SVGs, PDF and PPTX. `dot s` is the dot time the export paid from its allowance; the rest of
`total s` is Python (Pillow, pypdf, python-pptx). A refused export shows its reason.
"""

import json
import platform
import subprocess
import sys
import time

import exports
from bench import readme_tables
from engine import PRESETS, chain, trace_backward
from engine.frames import frames
from server import layout
from view import names
from view.numbers import number_width

GRAPHS = {'neuron': PRESETS['neuron'], 'reuse': PRESETS['reuse'], 'lecture': PRESETS['lecture'],
          'mlp': PRESETS['mlp'], 'chain(10)': chain(10)}  # fmt: skip


def exports_of(trace, all_frames, width, stem):
    last = all_frames[-1]
    yield 'frame svg', lambda a: exports.frame_svg(trace, last, width, allowance=a)
    yield 'frame png', lambda a: exports.frame_png(trace, last, width, allowance=a)
    yield 'pass gif', lambda a: exports.pass_gif(trace, all_frames, width, allowance=a)
    yield 'pass zip', lambda a: exports.pass_zip(trace, all_frames, width, stem, allowance=a)
    yield 'pass pdf', lambda a: exports.pass_pdf(trace, all_frames, width, allowance=a)
    yield 'pass pptx', lambda a: exports.pass_pptx(trace, all_frames, width, allowance=a)


def main():
    rows = []
    for name, expression in GRAPHS.items():
        leaves, out = expression.build(None)
        trace = trace_backward(out, leaves)
        all_frames, width = frames(trace), number_width(trace)
        for export, run in exports_of(trace, all_frames, width, names.file_stem(name)):
            allowance = layout.Allowance(seconds=1e9)  # only to count the dot time: nothing is refused for it
            start = time.monotonic()
            try:
                data, refused = run(allowance), None
            except exports.ExportRefused as e:
                data, refused = b'', e.message
            row = {
                'graph': name, 'frames': len(all_frames) if export.startswith('pass') else 1, 'export': export,
                'total_s': round(time.monotonic() - start, 2), 'dot_s': round(allowance.used(), 2),
                'bytes': len(data), 'refused': refused,
            }  # fmt: skip
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    lines = [
        'Export benchmark: bench/bench_exports.py',
        f'machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, '
        f'{subprocess.run(["dot", "-V"], capture_output=True, text=True).stderr.strip()}',
        f'caps: {exports.EXPORT_FRAMES} frames, {exports.queue.EXPORT_BUDGET:g} s of dot per export, GIF '
        f'{exports.render.GIF_PIXELS:,} px (width x height x frames); PNG {exports.render.PNG_DPI} dpi, '
        f'GIF {exports.render.GIF_DPI} dpi',
        '',
        'graph      | export    | frames | total s | dot s |      bytes | ',
        '-' * 110,
    ]
    for r in rows:
        size = '' if r['refused'] else f'{r["bytes"]:>10,}'
        lines.append(
            f'{r["graph"]:<10} | {r["export"]:<9} | {r["frames"]:>6} | {r["total_s"]:>7.2f} | {r["dot_s"]:>5.2f} '
            f'| {size:>10} | {"refused: " + r["refused"] if r["refused"] else ""}'
        )
    lines += [
        '',
        'frame svg / png: the last frame; pass: every frame with the forward pass. total: wall time of the call;',
        "dot: dot's own time in it (paid from the session's allowance); the rest is Pillow, pypdf or python-pptx.",
    ]
    readme_tables.write_results('exports', '\n'.join(lines) + '\n', {'rows': rows})


if __name__ == '__main__':
    main()
