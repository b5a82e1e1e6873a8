"""The page's first graph beside a bare Streamlit page's (issue 40's goal: within 1.05×), in one run: Debian's
chromium (Playwright) against servers on 127.0.0.1, seconds from goto to the graph painted, warm.

    python -m bench.bench_first_graph [--rounds 8]    # writes bench/results/first_graph.{json,txt}, and the docs' block

The cases, each in a browser context of its own, loaded once cold and then `rounds` times warm, the cases taking
turns round by round (so a slower minute of this machine falls on all of them):
- bare: bench/bare_graph.py under `streamlit run`, the neuron's first frame drawn with st.graphviz_chart;
- bare as an App: the same script served by st.App (bench/bare_app.py), as main.py serves the page;
- plain link: the page, `/?expr=neuron`;
- join link: the page, `/?class=CODE` of a class a lecturer's page started on the neuron.
"""

import argparse
import asyncio
import statistics

from playwright.async_api import async_playwright

from bench import bench_class, readme_tables
from bench.bench_page import WATCH_FIRST_GRAPH
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, serve_app

GOAL = 1.05  # the page's warm first graph over the bare page's
# the bare page's graph painted: st.graphviz_chart's SVG with a size, under the page's watch's name
WATCH_BARE = """(() => {
  const look = () => {
    const svg = document.querySelector('[data-testid=stGraphVizChart] svg');
    if (svg && svg.getBoundingClientRect().width > 0)
      requestAnimationFrame(() => { window.firstGraphAt = performance.timeOrigin + performance.now(); });
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""


async def context_for(browser, watch):
    context = await browser.new_context(viewport={'width': 1600, 'height': 1000})
    await context.add_init_script(watch)
    return context


async def bench(rounds):
    with (
        serve_app(timeout=120, script='bench/bare_graph.py') as bare,
        serve_app(timeout=120, script='bench/bare_app.py') as bare_app,
        serve_app(timeout=120) as page,
    ):
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            bench_class.LESSON = 'expr=neuron'  # the lecturer's scenario: the graph the bare page draws
            code, *_ = await bench_class.open_class(browser, page)
            cases = {
                'bare': (f'{bare}/', WATCH_BARE),
                'bare as an App': (f'{bare_app}/', WATCH_BARE),
                'plain link': (f'{page}/?expr=neuron', WATCH_FIRST_GRAPH),
                'join link': (f'{page}/?class={code}', WATCH_FIRST_GRAPH),
            }
            contexts = {case: await context_for(browser, watch) for case, (_, watch) in cases.items()}
            cold = {case: await bench_class.first_shown(contexts[case], cases[case][0]) for case in cases}
            warm = {case: [] for case in cases}
            for _ in range(rounds):
                for case, (address, _) in cases.items():
                    warm[case].append(await bench_class.first_shown(contexts[case], address))
            await browser.close()
    out = {'rounds': rounds, 'goal': GOAL, 'cases': {}}
    anchor = statistics.median(w for w in warm['bare'] if w is not None)
    for case in cases:
        drawn = [w for w in warm[case] if w is not None]
        median = statistics.median(drawn) if drawn else None
        out['cases'][case] = {
            'cold_s': cold[case] and round(cold[case], 3),
            'warm_loads_s': [w and round(w, 3) for w in warm[case]],
            'warm_s': median and round(median, 3),
            'over_bare': median and round(median / anchor, 3),
        }
        print(f'{case}: {median:.3f} s warm, {median / anchor:.3f}× the bare page', flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--rounds', type=int, default=8)
    args = parser.parse_args()
    out = asyncio.run(bench(args.rounds))
    readme_tables.write_results(
        'first_graph', readme_tables.as_text('The first graph beside a bare Streamlit page', out), out
    )


if __name__ == '__main__':
    main()
