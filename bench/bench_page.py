"""How fast the page steps, measured in a real browser: Debian's chromium, driven by Playwright, against
`streamlit run app.py` on 127.0.0.1.

    python -m bench.bench_page                 # every case, both renderers; writes bench/results/page.{json,txt}
    python -m bench.bench_page --quick         # fewer steps and cases
    python -m bench.bench_page --modes         # the teaching modes beside the same graphs watched (player only);
                                               # writes bench/results/modes.{json,txt}

For each case (the exercise's neuron, reuse and chain, the MLP, chains of 100 and 500) and each renderer
(the player: laid out once by the server's dot and patched in the browser; the fallback: st.graphviz_chart,
laid out again in the browser each frame) it measures:
- first graph: from page.goto to the animation frame after the graph's SVG is in the page with a size (so it
  has been painted), clocked inside the page against the goto's wall-clock time. Cold: a new browser context
  (no cache) on a server that has not drawn this case yet; warm: the median of WARM_LOADS loads in that
  context after it. (Waiting with a Playwright locator instead adds up to 0.5 s: its polling backs off to
  500 ms between looks.)
- a step: from the Next click, timed inside the page with performance.now(), to the second animation frame
  after the SVG shows the new frame (so it has been painted); median and max over the steps;
- play at 10 steps per second (player only): the frames the screen showed, sampled at every animation
  frame: a frame never painted is dropped;
- server time per rerun: the script's run in AppTest for one step (a frame reported by the player, or a
  Next click on the fallback), median over runs.
A fallback step on the 500-chain takes minutes: 3 are timed, and --quick leaves that case out.
"""

import argparse
import json
import os
import re
import statistics
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from bench import readme_tables
from devtools.serve import CHROMIUM, CHROMIUM_ARGS, serve_app

ROOT = Path(__file__).resolve().parent.parent

STEP_TIMEOUT_MS = 120_000  # a fallback step still not drawn by then is recorded as this, and reported as '>'
CASES = {
    'neuron': 'expr=neuron',
    'reuse': 'expr=reuse',
    'chain (10)': 'expr=chain',
    'mlp': 'expr=mlp',
    'chain 100': 'expr=chain&n=100',
    'chain 500': 'expr=chain&n=500',
}
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
}
STEP_PLAYER = """async () => {
  const host = [...document.querySelectorAll('*')].find(e => e.shadowRoot && e.shadowRoot.querySelector('.player'));
  const player = host.shadowRoot.querySelector('.player');
  const slider = player.querySelector('input.slider');
  if (+player.dataset.frame >= +slider.max) {  // at the end: back to the start first, untimed
    slider.value = 0;
    slider.dispatchEvent(new Event('input'));
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  }
  const before = +player.dataset.frame;
  const t0 = performance.now();
  player.querySelector('button.next').click();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  if (+player.dataset.frame !== before + 1) throw new Error('the player did not step');
  return performance.now() - t0;
}"""

STEP_CHART = """async () => {
  const chart = document.querySelector('[data-testid="stGraphVizChart"]');
  // the whole SVG, not its text: a leaf's step changes colours only
  const svgText = () => chart.querySelector('svg') ? chart.querySelector('svg').innerHTML : '';
  const before = svgText();
  const next = [...document.querySelectorAll('button')].find(b => b.textContent.includes('Next'));
  const t0 = performance.now();
  next.click();
  await new Promise((resolve, reject) => {
    const check = () => { if (svgText() !== before) return resolve(); setTimeout(check, 2); };
    setTimeout(() => reject(new Error('no redraw in 120 s')), 120000);  // STEP_TIMEOUT_MS
    check();
  });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}"""

PLAY_WATCH = """async (seconds) => {
  const host = [...document.querySelectorAll('*')].find(e => e.shadowRoot && e.shadowRoot.querySelector('.player'));
  const player = host.shadowRoot.querySelector('.player');
  const seen = new Set();
  const start = +player.dataset.frame;
  player.querySelector('button.play').click();
  const t0 = performance.now();
  let paints = 0;
  await new Promise(resolve => {
    const tick = () => {
      paints += 1;
      seen.add(+player.dataset.frame);
      if (performance.now() - t0 > seconds * 1000) return resolve();
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  player.querySelector('button.play').click();
  const last = Math.max(...seen);
  let dropped = 0;
  for (let k = start; k <= last; k++) if (!seen.has(k)) dropped += 1;
  return { shown: last - start + 1, dropped, paints, seconds };
}"""


FIRST_GRAPH_TIMEOUT_S = 180  # the fallback lays a 500-step chain out in the browser for longer than this
WARM_LOADS = 5
# runs in the page before Streamlit does: looks for the graph at every animation frame, and notes the
# wall-clock time of the frame after it first has a size
WATCH_FIRST_GRAPH = """(() => {
  const find = {
    player: () => {
      const host = document.querySelector('.st-key-graph [data-testid=stBidiComponentIsolated]');
      return host && host.shadowRoot && host.shadowRoot.querySelector('.player svg');
    },
    chart: () => document.querySelector('[data-testid="stGraphVizChart"] svg'),
  }[RENDERER];
  const look = () => {
    const svg = find();
    if (svg && svg.getBoundingClientRect().width > 0)
      requestAnimationFrame(() => { window.firstGraphAt = performance.timeOrigin + performance.now(); });
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""


def open_case(context, url, query):
    """(page, seconds from goto to the first graph painted), or (page, None) if none within FIRST_GRAPH_TIMEOUT_S."""
    page = context.new_page()
    t0 = time.time() * 1000
    page.goto(f'{url}/?{query}&step=0&speed=10')
    try:
        page.wait_for_function('window.firstGraphAt', timeout=FIRST_GRAPH_TIMEOUT_S * 1000, polling=100)
    except PlaywrightError:
        return page, None
    return page, (page.evaluate('window.firstGraphAt') - t0) / 1000


def chart_step(page):
    """A timed Next on the fallback; at the last frame, back to the first with the slider's Home key, untimed."""
    if page.get_by_role('button', name='Next').is_disabled():
        page.locator('[data-testid="stMainBlockContainer"]').get_by_role('slider', name='Frame').press('Home')
        page.get_by_text(re.compile(r'^Frame 0 of \d+')).first.wait_for(timeout=STEP_TIMEOUT_MS)
        page.wait_for_timeout(500)  # the redraw of frame 0 finishes before the next click
    return page.evaluate(STEP_CHART)


def measure_renderer(browser, renderer, cases, steps, play_seconds):
    results = {}
    with serve_app(timeout=120, env={'BACKPROP_RENDERER': renderer}) as url:
        # one load of an expression no case draws, so the first case does not also pay for the server's first
        # script run (its imports) and a new browser's first page
        warm_up = browser.new_context()
        warm_up.new_page().goto(f'{url}/?expr=lecture')
        drawn = """() => document.querySelector("[data-testid=stGraphVizChart] svg") ||
          [...document.querySelectorAll("*")].some(e => e.shadowRoot && e.shadowRoot.querySelector(".player svg"))"""
        warm_up.pages[0].wait_for_function(drawn, timeout=60_000)  # the graph, on either renderer
        warm_up.close()
        for name, query in cases.items():
            cold_context = browser.new_context(viewport={'width': 1600, 'height': 1000})
            cold_context.add_init_script(WATCH_FIRST_GRAPH.replace('RENDERER', repr(renderer)))
            page, cold = open_case(cold_context, url, query)
            page.close()
            if cold is None:
                print(f'  {renderer:6} {name:10} no graph within {FIRST_GRAPH_TIMEOUT_S} s', flush=True)
                results[name] = {'first_graph_cold_s': None}
                cold_context.close()
                continue
            warm_loads = []
            for _ in range(WARM_LOADS):
                page, seconds = open_case(cold_context, url, query)
                warm_loads.append(seconds)
                page.close()
                if seconds is None:  # the fallback does not always draw the 500-chain
                    break
            if None in warm_loads:
                print(f'  {renderer:6} {name:10} first {cold:5.2f} s cold; a warm load drew no graph within '
                      f'{FIRST_GRAPH_TIMEOUT_S} s', flush=True)  # fmt: skip
                results[name] = {'first_graph_cold_s': cold, 'first_graph_warm_loads_s': warm_loads}
                cold_context.close()
                continue
            warm = statistics.median(warm_loads)
            page, _ = open_case(cold_context, url, query)
            page.wait_for_load_state('networkidle')
            page.wait_for_timeout(1000)  # let the first run settle: a click during it can be lost
            n = 3 if (renderer, name) == ('chart', 'chain 500') else steps
            try:
                times = [page.evaluate(STEP_PLAYER) if renderer == 'player' else chart_step(page) for _ in range(n)]
            except PlaywrightError as e:  # the fallback's redraw of a large graph can take minutes
                print(f'  {renderer:6} {name:10} a step did not finish: {str(e).splitlines()[0][:80]}', flush=True)
                times = [STEP_TIMEOUT_MS]
            row = {'first_graph_cold_s': cold, 'first_graph_warm_s': warm, 'first_graph_warm_loads_s': warm_loads,
                   'steps': len(times),
                   'step_median_ms': statistics.median(times), 'step_max_ms': max(times)}  # fmt: skip
            if renderer == 'player':
                row['play_10_per_s'] = page.evaluate(PLAY_WATCH, play_seconds)
            cold_context.close()
            results[name] = row
            print(f'  {renderer:6} {name:10} first {cold:5.2f} s cold, {warm:5.2f} s warm; '
                  f'step median {row["step_median_ms"]:7.1f} ms, max {row["step_max_ms"]:7.1f} ms'
                  + (f'; play: {row["play_10_per_s"]["dropped"]} of {row["play_10_per_s"]["shown"]} frames dropped'
                     if 'play_10_per_s' in row else ''), flush=True)  # fmt: skip
    return results


def server_rerun_times(cases, runs, renderers):
    """Median seconds of one script run for a step, per renderer and case (AppTest: no browser, no network)."""
    from streamlit.testing.v1 import AppTest

    times = {}
    for renderer in renderers:
        os.environ['BACKPROP_RENDERER'] = renderer
        for name, query in cases.items():
            at = AppTest.from_file(str(ROOT / 'app.py'), default_timeout=600)
            at.query_params.update(dict(pair.split('=') for pair in query.split('&')))
            at.run()
            samples = []
            for k in range(1, runs + 1):
                t0 = time.perf_counter()
                if renderer == 'player':
                    at.session_state['graph'] = {'frame': k}
                    at.run()
                else:
                    if at.button(key='next').disabled:  # at the last frame: back to the start, untimed
                        at.session_state['frame'] = 0
                        at.run()
                        t0 = time.perf_counter()
                    at.button(key='next').click().run()
                samples.append(time.perf_counter() - t0)
            times.setdefault(renderer, {})[name] = statistics.median(samples)
    os.environ.pop('BACKPROP_RENDERER')
    return times


def _ms(x):
    return f'> {x:.0f}' if x >= STEP_TIMEOUT_MS else f'{x:.1f}'


def table(results, server):
    head = ['case', 'renderer', 'first graph cold (s)', 'warm (s)', 'step median (ms)', 'step max (ms)',
            'play 10/s dropped', 'server per rerun (ms)']  # fmt: skip
    rows = []
    for renderer, cases in results.items():
        for name, r in cases.items():
            if 'first_graph_warm_s' not in r:  # no graph within FIRST_GRAPH_TIMEOUT_S, cold or warm: no steps
                cold, never = r['first_graph_cold_s'], f'> {FIRST_GRAPH_TIMEOUT_S}'
                first = [never, '-'] if cold is None else [f'{cold:.2f}', never]
                rows.append([name, renderer, *first, '-', '-', '-', f'{server[renderer][name] * 1000:.0f}'])
                continue
            play = r.get('play_10_per_s')
            rows.append([name, renderer, f'{r["first_graph_cold_s"]:.2f}', f'{r["first_graph_warm_s"]:.2f}',
                         _ms(r['step_median_ms']), _ms(r['step_max_ms']),
                         f'{play["dropped"]} of {play["shown"]}' if play else '-',
                         f'{server[renderer][name] * 1000:.0f}'])  # fmt: skip
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows, strict=True)]
    lines = [' | '.join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    lines.append('-+-'.join('-' * w for w in widths))
    lines += [' | '.join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='fewer steps; no fallback on the 500-chain')
    parser.add_argument('--renderer', choices=['player', 'chart'], action='append', help='only these (default both)')
    parser.add_argument('--modes', action='store_true', help='the teaching modes beside the same graphs watched')
    parser.add_argument('--out', help='path stem for .json and .txt (default bench/results/page, or modes)')
    args = parser.parse_args()
    args.out = args.out or str(ROOT / 'bench' / 'results' / ('modes' if args.modes else 'page'))
    if args.modes:
        args.renderer = args.renderer or ['player']
    all_cases = MODE_CASES if args.modes else CASES
    steps, play_seconds, runs = (10, 3, 5) if args.quick else (20, 5, 10)
    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for renderer in args.renderer or ('player', 'chart'):
            cases = dict(all_cases)
            if renderer == 'chart' and args.quick:
                cases.pop('chain 500', None)
            print(f'{renderer}:', flush=True)
            results[renderer] = measure_renderer(browser, renderer, cases, steps, play_seconds)
        browser.close()
    server = server_rerun_times(all_cases, runs, args.renderer or ('player', 'chart'))
    text = table(results, server)
    print('\n' + text)
    Path(args.out + '.txt').write_text(text + '\n')
    Path(args.out + '.json').write_text(json.dumps({'browser': results, 'server_rerun_s': server}, indent=2) + '\n')
    print(f'wrote {args.out}.txt and .json')
    stem = Path(args.out).name
    if Path(args.out + '.json').resolve() == ROOT / 'bench' / 'results' / f'{stem}.json' and stem in ('page', 'modes'):
        readme_tables.update(stem)


if __name__ == '__main__':
    main()
