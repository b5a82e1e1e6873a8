"""The two maintained builds of Graphviz as WebAssembly, side by side in one run, to choose the one the player vendors
(static/graphviz/): npm's @hpcc-js/wasm-graphviz (the build st.graphviz_chart runs, through d3-graphviz) and
@viz-js/viz, each laying out the page's own value-free DOT in Node.js, against Debian's native dot.

    python -m bench.bench_wasm_builds    # ~1 min; needs npm and node; writes bench/results/wasm_builds.{txt,json}

Both packages are fetched with `npm pack` into a temporary folder at the versions below (nothing is kept). Per
graph: the median of 3 layouts after one warm-up, in ms; native is `dot -Tsvg` as a process, start-up included.
The module's size is its file, and gzipped, as a browser would fetch it.
"""

import gzip
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench import readme_tables
from engine import PRESETS, chain, trace_backward
from view.graph import build_dot
from view.numbers import number_width

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / 'bench' / 'results'
BUILDS = {  # name: (npm package@version, its ES module, how node lays a DOT text out with it)
    'hpcc': ('@hpcc-js/wasm-graphviz@1.29.2', 'dist/index.js',
             "const { Graphviz } = await import(url); const g = await Graphviz.load(); lay = (d) => g.dot(d);"),
    'viz': ('@viz-js/viz@3.31.0', 'dist/viz.js',
            "const viz = await (await import(url)).instance(); lay = (d) => viz.renderString(d, { format: 'svg' });"),
}  # fmt: skip
GRAPHS = {**{key: PRESETS[key] for key in ('neuron', 'reuse', 'lecture', 'mlp')}, 'chain(100)': chain(100),
          'chain(500)': chain(500)}  # fmt: skip
TIMER = """
const url = process.argv[2]; let lay;
%s
const dots = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = dots.map((dot) => { lay(dot); const ms = [];
  for (let i = 0; i < 3; i++) { const t = performance.now(); lay(dot); ms.push(performance.now() - t); }
  return ms.sort((a, b) => a - b)[1]; });
console.log(JSON.stringify(out));
"""


def dots():
    for name, expression in GRAPHS.items():
        leaves, out = expression.build()
        trace = trace_backward(out, leaves)
        yield name, build_dot(trace, None, number_width(trace)).source


def native_ms(dot):
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(['dot', '-Tsvg'], input=dot.encode(), capture_output=True, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    graphs = dict(dots())
    rows, sizes, versions = {name: {} for name in graphs}, {}, {}
    with tempfile.TemporaryDirectory() as work:
        for build, (package, module, load) in BUILDS.items():
            folder = Path(work) / build
            folder.mkdir()
            tarball = subprocess.run(['npm', 'pack', '--silent', package], cwd=folder, capture_output=True,
                                     text=True, check=True).stdout.strip()  # fmt: skip
            subprocess.run(['tar', 'xzf', tarball], cwd=folder, check=True)
            path = folder / 'package' / module
            versions[build] = json.loads((folder / 'package' / 'package.json').read_text())['version']
            sizes[build] = {'bytes': path.stat().st_size, 'gzip_bytes': len(gzip.compress(path.read_bytes()))}
            script = folder / 'time.cjs'
            script.write_text(f'(async () => {{ {TIMER % load} }})();')
            done = subprocess.run(['node', str(script), path.as_uri()], input=json.dumps(list(graphs.values())),
                                  capture_output=True, text=True, check=True, timeout=600)  # fmt: skip
            for name, ms in zip(graphs, json.loads(done.stdout)):
                rows[name][build] = round(ms, 1)
    for name, dot in graphs.items():
        rows[name]['native dot'] = round(native_ms(dot), 1)
    node = subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()
    lines = [
        f'Graphviz as WebAssembly in Node.js {node}, hpcc {versions["hpcc"]}, viz {versions["viz"]}; '
        'layout ms, median of 3 after a warm-up',
        '',
        '| graph | @hpcc-js/wasm-graphviz | @viz-js/viz | native dot (process) |',
        '|---|---|---|---|',
    ]
    lines += [f'| {name} | {r["hpcc"]:,} | {r["viz"]:,} | {r["native dot"]:,} |' for name, r in rows.items()]
    lines += ['', '| module | file (kB) | gzipped (kB) |', '|---|---|---|']
    lines += [f'| {build} | {s["bytes"] / 1000:,.0f} | {s["gzip_bytes"] / 1000:,.0f} |' for build, s in sizes.items()]
    text = '\n'.join(lines)
    readme_tables.write_results('wasm_builds', text, {'versions': versions, 'layout_ms': rows, 'sizes': sizes})


if __name__ == '__main__':
    main()
