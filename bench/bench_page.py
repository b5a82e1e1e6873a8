"""How fast the page steps, measured in a real browser: Debian's chromium, driven by Playwright, against
`streamlit run main.py` on 127.0.0.1, on both layout sources in one run.

    python -m bench.bench_page                 # every case, both sources; writes bench/results/page.{json,txt}
    python -m bench.bench_page --quick         # fewer steps and loads
    python -m bench.bench_page --modes         # the teaching modes beside the same graphs watched ('dot' only);
                                               # writes bench/results/modes.{json,txt}
    python -m bench.bench_page --forward       # forward mode beside the same graphs watched ('dot' only);
                                               # writes bench/results/modes_forward.{json,txt}
    python -m bench.bench_page --forward --case 'mlp, forward' --out /tmp/mlp
                                               # only these cases of the set (--case again for more), each with
                                               # the graph watched beside it; to --out, never to bench/results/

The layout sources (tests.support.serve.LAYOUT_SOURCES): 'dot', the server lays the graph out with its dot and sends the
SVG; 'browser', a server without dot sends the DOT and the player lays it out with Graphviz compiled to WebAssembly
(static/graphviz/index.js) in a Web Worker. Either way the player then patches the SVG frame by frame.

For each case (the exercise's neuron, reuse and chain, the MLP, chains of 100 and 500) and each source:
- first graph: from page.goto to the animation frame after the graph's SVG is in the page with a size (so it
  has been painted), clocked inside the page against the goto's wall-clock time. Cold: a new browser context
  (an empty HTTP cache: on 'browser' it downloads the WebAssembly too) on a server that has not drawn this case
  yet; warm: the median of WARM_LOADS loads after it in new tabs of that same context (its HTTP cache warm, the
  server's layout cached). On 'browser' the player's own time to lay out (its dataset.laidOut: worker start,
  Graphviz's load and the layout) is noted too; on both, the server's CPU for each load (/proc/<pid>/stat, its
  dot included). (Waiting with a Playwright locator instead adds up to 0.5 s: its polling backs off to 500 ms.)
- a step: from the Next click, timed inside the page with performance.now(), to the second animation frame
  after the SVG shows the new frame (so it has been painted); median and max over the steps;
- play at 10 steps per second: the frames the screen showed, sampled at every animation frame: a frame never
  painted is dropped;
- server time per rerun: the script's run in AppTest for one step (a frame reported by the player), median.
Then, not for --modes or --forward:
- the WebAssembly's download: /app/static/graphviz/index.js as sent plain and with Accept-Encoding: gzip, and
  what Chromium's cold load transferred;
- layout per graph (every preset, chain(100), chain(500)) of the same DOT the player is sent: in a Web Worker
  made by page.evaluate in a page of the app's origin (import(), Graphviz.load(), gv.dot(), as the player's
  worker does), a new worker per graph, beside `dot -Tsvg` run by the server's way (a subprocess), with the
  drawings' sizes and node and edge counts.
Its class study, which side lays out where the server has dot (a class opening one expression, the server's CPU
against the browsers'), is finished: bench/results/layout_sides.json, and bench/results/README.md names its code.
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from bench import FIRST_GRAPH_TIMEOUT_S, WARM_LOADS, readme_tables
from bench.bench_layout import dot_of
from engine import PRESETS, chain
from server.layout import QUICK_NOTE
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, LAYOUT_SOURCES, NO_DOT_PATH, serve_app

ROOT = Path(__file__).resolve().parent.parent

CASES = {
    'neuron': 'expr=neuron',
    'reuse': 'expr=reuse',
    'chain (10)': 'expr=chain',
    'mlp': 'expr=mlp',
    'chain 100': 'expr=chain&n=100',
    'chain 500': 'expr=chain&n=500',
}
# a student's bodies (mode=code): the right + and tanh, and a × with its inputs swapped
SWAPPED_MUL = urllib.parse.urlencode({
    'code.add': 'self.grad += out.grad\nother.grad += out.grad', 'code.tanh': 'self.grad += (1 - t**2) * out.grad',
    'code.mul': 'self.grad += self.data * out.grad\nother.grad += other.data * out.grad',
})  # fmt: skip
# the teaching modes (issue 12), each beside the same graph watched, in one run: a mode may not make a step slower
MODE_CASES = {
    'reuse': 'expr=reuse',
    'reuse, = bug': 'expr=reuse&mode=bug',
    'reuse, quiz (present)': 'expr=reuse&mode=quiz&present=1',
    'mlp': 'expr=mlp',
    'mlp, = bug': 'expr=mlp&mode=bug',
    'mlp, learning': 'expr=mlp&mode=learn',
    'chain 100': 'expr=chain&n=100',
    'chain 100, = bug': 'expr=chain&n=100&mode=bug',
    'chain 100, quiz (present)': 'expr=chain&n=100&mode=quiz&present=1',
    **{f'{name}, your _backward': f'{query}&mode=code&{SWAPPED_MUL}' for name, query in
       (('reuse', 'expr=reuse'), ('mlp', 'expr=mlp'), ('chain 100', 'expr=chain&n=100'))},
}  # fmt: skip
# forward mode (issue 32), each beside the same graph watched, in one run: carrying a tangent forward may not make a
# step slower. A set and a results file of its own (bench/results/modes_forward): the teaching modes' file is one
# run of MODE_CASES, which docs/teaching.md's table is made from
FORWARD_CASES = {
    'reuse': 'expr=reuse',
    'reuse, forward': 'expr=reuse&mode=forward',
    'mlp': 'expr=mlp',
    'mlp, forward': 'expr=mlp&mode=forward',
    'chain 500': 'expr=chain&n=500',
    'chain 500, forward': 'expr=chain&n=500&mode=forward',
}
GRAPHVIZ_JS = '/app/static/graphviz/index.js'
CLOCK = os.sysconf('SC_CLK_TCK')

PLAYER = """const player = [...document.querySelectorAll('*')]
    .find(e => e.shadowRoot && e.shadowRoot.querySelector('.player')).shadowRoot.querySelector('.player');"""
STEP_PLAYER = f"""async () => {{
  {PLAYER}
  const slider = player.querySelector('input.slider');
  if (+player.dataset.frame >= +slider.max) {{  // at the end: back to the start first, untimed
    slider.value = 0;
    slider.dispatchEvent(new Event('input'));
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  }}
  const before = +player.dataset.frame;
  const t0 = performance.now();
  player.querySelector('button.next').click();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  if (+player.dataset.frame !== before + 1) throw new Error('the player did not step');
  return performance.now() - t0;
}}"""

PLAY_WATCH = f"""async (seconds) => {{
  {PLAYER}
  const seen = new Set();
  const start = +player.dataset.frame;
  player.querySelector('button.play').click();
  const t0 = performance.now();
  let paints = 0;
  await new Promise(resolve => {{
    const tick = () => {{
      paints += 1;
      seen.add(+player.dataset.frame);
      if (performance.now() - t0 > seconds * 1000) return resolve();
      requestAnimationFrame(tick);
    }};
    requestAnimationFrame(tick);
  }});
  player.querySelector('button.play').click();
  const last = Math.max(...seen);
  let dropped = 0;
  for (let k = start; k <= last; k++) if (!seen.has(k)) dropped += 1;
  return {{ shown: last - start + 1, dropped, paints, seconds }};
}}"""
# the player's own time to lay the graph out in this browser (null: the server laid it out), and what its notice
# lines say (a quick layout, or why there is none), or the server's note of a quick layout
LAID_OUT = f"""() => {{
  {PLAYER}
  const laid = player.dataset.laidOut;
  const quick = document.body.textContent.includes(QUICK_NOTE) ? QUICK_NOTE : '';
  const said = [...player.querySelectorAll('.notice, .laying')].map(e => e.textContent).filter(Boolean).join(' ');
  return [laid ? +laid.split(' ')[1] : null, said || quick];
}}""".replace('QUICK_NOTE', json.dumps(QUICK_NOTE))

# what the page says where it draws no graph: the server's refusals (server/layout.py) and the player's (player.js)
REFUSED = ['too tangled', 'Try again in', 'could not be laid out']
# runs in the page before Streamlit does: looks for the graph at every animation frame, and notes the
# wall-clock time of the frame after it first has a size; every 250 ms, looks for a refusal instead
WATCH_FIRST_GRAPH = """(() => {
  const host = () => document.querySelector('.st-key-graph [data-testid=stBidiComponentIsolated]');
  const look = () => {
    const svg = host() && host().shadowRoot && host().shadowRoot.querySelector('.player svg');
    if (svg && svg.getBoundingClientRect().width > 0)
      requestAnimationFrame(() => { window.firstGraphAt = performance.timeOrigin + performance.now(); });
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
  const refused = setInterval(() => {
    if (window.firstGraphAt) return clearInterval(refused);
    const text = (document.body ? document.body.textContent : '') + (host()?.shadowRoot?.textContent || '');
    if (REFUSED.some(words => text.includes(words))) window.noGraph = true;
  }, 250);
})();""".replace('REFUSED', json.dumps(REFUSED))

# Graphviz in a Web Worker as the player runs it (components/player/player.js), timed in the worker: a new worker
# per graph, its import and load, then the layouts
WORKER_LAYOUTS = """async ({ url, graphs }) => {
  const code = `let gv = null;
onmessage = async ({ data }) => {
  try {
    const t0 = performance.now();
    if (data.url) {
      const module = await import(data.url);
      const t1 = performance.now();
      gv = await module.Graphviz.load();
      postMessage({ importMs: t1 - t0, loadMs: performance.now() - t1, version: gv.version() });
    } else {
      const svg = gv.dot(data.dot);
      postMessage({ ms: performance.now() - t0, svg });
    }
  } catch (error) { postMessage({ error: String((error && error.message) || error) }); }
};`;
  const ask = (worker, message) => new Promise(resolve => {
    worker.onmessage = ({ data }) => resolve(data);
    worker.postMessage(message);
  });
  const out = [];
  for (const [dot, reps] of graphs) {
    const source = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
    const started = performance.now();
    const worker = new Worker(source, { type: 'module' });
    const row = await ask(worker, { url });
    row.runs = [];
    for (let k = 0; k < reps && !row.error; k++) {
      const run = await ask(worker, { dot });
      if (run.error) row.error = run.error;
      else { row.runs.push(run.ms); row.svg = run.svg; }
      if (k === 0) row.untilFirstMs = performance.now() - started;  // a new worker to its first SVG, as a page pays
    }
    worker.terminate();
    URL.revokeObjectURL(source);
    out.push(row);
  }
  return out;
}"""

ERRORS = {}  # what the pages said on their console as errors, and their uncaught exceptions: {text: times}


def heard(message):
    text = message if isinstance(message, str) else message.text
    ERRORS[text[:200]] = ERRORS.get(text[:200], 0) + 1


def new_context(browser):
    context = browser.new_context(viewport={'width': 1600, 'height': 1000})
    context.add_init_script(WATCH_FIRST_GRAPH)
    return context


def open_case(context, url, query, timeout_s=FIRST_GRAPH_TIMEOUT_S):
    """(page, seconds from goto to the first graph painted or None if none within timeout_s, the player's own
    layout ms or None, its notice line)."""
    page = context.new_page()
    page.on('console', lambda m: m.type == 'error' and heard(m))
    page.on('pageerror', lambda e: heard(f'pageerror: {e}'))
    t0 = time.time() * 1000
    page.goto(f'{url}/?{query}&step=0&speed=10')
    try:
        page.wait_for_function('window.firstGraphAt || window.noGraph', timeout=timeout_s * 1000, polling=100)
    except PlaywrightError:
        return page, None, None, ''
    if not page.evaluate('window.firstGraphAt'):  # the page says why
        words = page.locator('[data-testid=stAlert]').all_inner_texts()
        return page, None, None, ' '.join(words).replace('hourglass_disabled', '').strip() or page.evaluate(LAID_OUT)[1]
    return page, (page.evaluate('window.firstGraphAt') - t0) / 1000, *page.evaluate(LAID_OUT)


def cpu_s(root):
    """CPU seconds (user + system) of process `root` and every process under it, with the children they reaped."""
    parents, used = {}, {}
    for entry in Path('/proc').iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / 'stat').read_text()
            except OSError:  # gone meanwhile
                continue
            fields = stat[stat.rindex(')') + 2 :].split()
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
            used[int(entry.name)] = sum(map(int, fields[11:15])) / CLOCK
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += used.get(pid, 0.0)
        todo += parents.get(pid, [])
    return total


def warm_up(browser, url):
    """One load of an expression no case draws, so that the first case does not also pay for the server's first
    script run (its imports) and a new browser's first page."""
    context = new_context(browser)
    _, seconds, _, _ = open_case(context, url, 'expr=lecture', timeout_s=60)
    context.close()
    if seconds is None:
        raise RuntimeError(f'the warm-up page drew no graph: {url}')


def measure_source(browser, source, cases, steps, play_seconds):
    results = {}
    with serve_app(timeout=120, source=source) as url:
        warm_up(browser, url)
        for name, query in cases.items():
            context = new_context(browser)
            fetched = []  # the WebAssembly's transfer: what Chromium's network stack says it received
            context.on('requestfinished', lambda r, f=fetched: r.url.endswith(GRAPHVIZ_JS) and f.append(r.sizes()))
            before = cpu_s(url.pid)
            page, cold, laid_cold, said = open_case(context, url, query)
            server_cold = cpu_s(url.pid) - before
            page.close()
            if cold is None:
                print(
                    f'  {source:7} {name:10} no graph: {said or f"none within {FIRST_GRAPH_TIMEOUT_S} s"}', flush=True
                )
                results[name] = {'first_graph_cold_s': None, 'notice': said}
                context.close()
                continue
            warm_loads, laid_warm = [], []
            before = cpu_s(url.pid)
            for _ in range(WARM_LOADS):
                page, seconds, laid, notice = open_case(context, url, query)
                warm_loads.append(seconds)
                laid_warm.append(laid)
                page.close()
            server_warm = (cpu_s(url.pid) - before) / WARM_LOADS
            row = {'first_graph_cold_s': cold, 'first_graph_warm_loads_s': warm_loads,
                   'server_cpu_cold_ms': server_cold * 1000, 'server_cpu_warm_ms': server_warm * 1000}  # fmt: skip
            if said:  # a quick layout
                row['notice'] = said
            if source == 'browser':
                row |= {'laid_out_cold_ms': laid_cold, 'laid_out_warm_ms': laid_warm, 'graphviz_fetched': fetched}
            if None in warm_loads:
                print(f'  {source:7} {name:10} first {cold:5.2f} s cold; a warm load drew no graph within '
                      f'{FIRST_GRAPH_TIMEOUT_S} s: {notice!r}', flush=True)  # fmt: skip
                results[name] = row | {'notice': notice}
                context.close()
                continue
            row['first_graph_warm_s'] = warm = statistics.median(warm_loads)
            page, _, _, _ = open_case(context, url, query)
            page.wait_for_load_state('networkidle')
            page.wait_for_timeout(1000)  # let the first run settle: a click during it can be lost
            times = [page.evaluate(STEP_PLAYER) for _ in range(steps)]
            row |= {'steps': len(times), 'step_median_ms': statistics.median(times), 'step_max_ms': max(times)}
            row['play_10_per_s'] = page.evaluate(PLAY_WATCH, play_seconds)
            context.close()
            results[name] = row
            laid = f'; laid out here {laid_cold:4.0f} / {statistics.median(laid_warm):4.0f} ms' if laid_cold else ''
            print(f'  {source:7} {name:10} first {cold:5.2f} s cold, {warm:5.2f} s warm{laid}; '
                  f'step median {row["step_median_ms"]:6.1f} ms, max {row["step_max_ms"]:6.1f} ms; '
                  f'play: {row["play_10_per_s"]["dropped"]} of {row["play_10_per_s"]["shown"]} frames dropped; '
                  f'server CPU {server_cold * 1000:.0f} / {server_warm * 1000:.0f} ms a load', flush=True)  # fmt: skip
    return results


def download(url):
    """The WebAssembly module as the server sends it, plain and with Accept-Encoding: gzip."""
    out = {'file_bytes': (ROOT / 'static' / 'graphviz' / 'index.js').stat().st_size}
    for encoding in ('identity', 'gzip'):
        request = urllib.request.Request(url + GRAPHVIZ_JS, headers={'Accept-Encoding': encoding})
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
            headers = {k.lower(): v for k, v in response.headers.items()}
        out[encoding] = {'bytes': len(body), 'content_encoding': headers.get('content-encoding'),
                         'cache_control': headers.get('cache-control'), 'etag': headers.get('etag'),
                         'last_modified': headers.get('last-modified')}  # fmt: skip
    return out


def layout_graphs():
    yield from PRESETS.items()
    yield 'chain(100)', chain(100)
    yield 'chain(500)', chain(500)


def drawing(svg):
    """(width, height) in pt, value boxes and ops (nodes), edges: what a layout drew."""
    width, height = map(float, re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+) ([\d.]+)"', svg).groups())
    return {'width_pt': width, 'height_pt': height, 'nodes': svg.count('class="node"'),
            'edges': svg.count('class="edge"')}  # fmt: skip


def native_dot(source, reps):
    """dot -Tsvg of `source`, as the server runs it (a subprocess): wall and CPU seconds per run, and the SVG."""
    walls, cpus = [], []
    for _ in range(reps):
        before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        svg = subprocess.run(['dot', '-Tsvg'], input=source, capture_output=True, text=True, check=True).stdout
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return walls, cpus, svg


def layouts(browser, url, reps):
    """Each graph's DOT laid out by the WebAssembly in a new Web Worker in Chromium, then by native dot, graph after
    graph, one layout at a time; `reps` runs each (the 500-chain: at most 3)."""
    context = browser.new_context()
    page = context.new_page()
    page.on('console', lambda m: m.type == 'error' and heard(m))
    page.goto(f'{url}/_stcore/health')  # a page of the app's origin, with nothing else running in it
    version = re.search(r'version (\S+)', subprocess.run(['dot', '-V'], capture_output=True, text=True).stderr)[1]
    rows = []
    for name, expression in layout_graphs():
        source = dot_of(expression)[0].source
        n = min(reps, 3) if name == 'chain(500)' else reps
        [w] = page.evaluate(WORKER_LAYOUTS, {'url': url + GRAPHVIZ_JS, 'graphs': [[source, n]]})
        walls, cpus, svg = native_dot(source, n)
        row = {'graph': name, 'dot_chars': len(source), 'wasm_version': w.get('version'), 'native_version': version}
        if 'error' in w:
            row['wasm_error'] = w['error']
        else:
            row['wasm'] = {'import_ms': w['importMs'], 'load_ms': w['loadMs'], 'runs_ms': w['runs'],
                           'first_ms': w['runs'][0], 'later_median_ms': statistics.median(w['runs'][1:] or [None]),
                           'until_first_ms': w['untilFirstMs'], 'drawing': drawing(w['svg'])}  # fmt: skip
        row['native'] = {'runs_ms': [x * 1000 for x in walls], 'median_ms': statistics.median(walls) * 1000,
                         'cpu_median_ms': statistics.median(cpus) * 1000, 'drawing': drawing(svg)}  # fmt: skip
        rows.append(row)
        first = row.get('wasm', {}).get('first_ms', float('nan'))
        print(f'  {name:18} wasm first {first:7.1f} ms, native dot {row["native"]["median_ms"]:7.1f} ms', flush=True)
    context.close()
    return rows


def machine_speed():
    """Seconds of native dot on the 500-chain: this machine's speed now (it varies; so does dot's margin)."""
    return native_dot(dot_of(chain(500))[0].source, 1)[0][0]


def server_rerun_times(cases, runs, sources):
    """Median seconds of one script run for a step, per source and case (AppTest: no browser, no network)."""
    from streamlit.testing.v1 import AppTest

    times = {}
    path = os.environ['PATH']
    for source in sources:
        os.environ['PATH'] = NO_DOT_PATH if source == 'browser' else path  # as serve_app hides dot
        for name, query in cases.items():
            at = AppTest.from_file(str(ROOT / 'app.py'), default_timeout=600)
            at.query_params.update(dict(pair.split('=') for pair in query.split('&')))
            at.run()
            samples = []
            for k in range(1, runs + 1):
                t0 = time.perf_counter()
                at.session_state['graph'] = {'frame': k}
                at.run()
                samples.append(time.perf_counter() - t0)
            times.setdefault(source, {})[name] = statistics.median(samples)
    os.environ['PATH'] = path
    return times


def chosen(cases, names):
    """The cases named (all where none is), in the set's order, each mode's with the case watching its graph (the
    name before ', '), so that every row is measured beside its watched one in the same run."""
    if not names:
        return dict(cases)
    unknown = [name for name in names if name not in cases]
    if unknown:
        raise SystemExit(f'no such case: {", ".join(map(repr, unknown))}; the set has {", ".join(map(repr, cases))}')
    wanted = {part for name in names for part in (name, name.partition(', ')[0])}
    return {name: query for name, query in cases.items() if name in wanted}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add, which = parser.add_argument, parser.add_mutually_exclusive_group().add_argument
    add('--quick', action='store_true', help='fewer steps and loads')
    add('--source', choices=LAYOUT_SOURCES, action='append', help='only these (default both)')
    which('--modes', action='store_true', help='the teaching modes beside the same graphs watched')
    which('--forward', action='store_true', help='forward mode beside the same graphs watched')
    add('--case', action='append', metavar='NAME', help='only this case, with its graph watched (again for more)')
    add('--out', help='path stem for .json and .txt (default bench/results/page, modes, modes_forward)')
    args = parser.parse_args()
    stem = 'modes' if args.modes else 'modes_forward' if args.forward else 'page'
    results = ROOT / 'bench' / 'results'  # each file there is a whole set from one run: the docs' tables say so
    if args.case and (not args.out or Path(args.out).resolve().parent == results):
        parser.error('--case measures part of a set: give --out a path outside bench/results/')
    args.out = args.out or str(results / stem)
    modes = args.modes or args.forward  # a mode beside its graph watched: the page benchmark's steps alone
    sources = args.source or (['dot'] if modes else list(LAYOUT_SOURCES))
    all_cases = chosen(MODE_CASES if args.modes else FORWARD_CASES if args.forward else CASES, args.case)
    steps, play_seconds, runs, reps = (10, 3, 5, 3) if args.quick else (20, 5, 10, 5)
    started = time.monotonic()
    out = {'machine': {'cores': os.cpu_count(), 'load_average_at_start': os.getloadavg(),
                       'dot_chain_500_s_at_start': machine_speed()}, 'pages': {}}  # fmt: skip
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for source in sources:
            print(f'{source}:', flush=True)
            out['pages'][source] = measure_source(browser, source, all_cases, steps, play_seconds)
        if not modes:
            with serve_app(timeout=120, source='browser') as url:
                out['download'] = download(url)
                print('layouts, WebAssembly in a worker against native dot:', flush=True)
                out['layouts'] = layouts(browser, url, reps)
        browser.close()
    out['server_rerun_s'] = server_rerun_times(all_cases, runs, sources)
    out['console_errors'] = ERRORS
    out['machine'] |= {'load_average_at_end': os.getloadavg(), 'dot_chain_500_s_at_end': machine_speed(),
                       'run_minutes': (time.monotonic() - started) / 60}  # fmt: skip
    text = readme_tables.as_text(f'Page benchmark: python -m bench.bench_page ({stem})', out)
    readme_tables.write_results(stem, text, out, out=args.out)


if __name__ == '__main__':
    main()
