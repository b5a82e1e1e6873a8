"""The picture on each screen: for every exercise-sized graph on a phone, two laptops and two projectors, the shape
the player chose, its numbers' size in px (and as a share of the window's height), and whether every text is
inside the window and every box around it, beside the wide shape on the same screen (the one shape the graph had
before): its numbers' size, at least the floor and then scrolled, and whether it was whole.

    python -m bench.bench_screens      # writes bench/results/screens.{txt,json}, and the docs' figures

The measures are tests/browser/test_browser_fit.py's own (the screens, the graphs and the script that reads the texts),
taken from the page as `streamlit run main.py` serves it, in Debian's chromium.
"""

import json
import sys
from pathlib import Path
from urllib.parse import parse_qs

from playwright.sync_api import sync_playwright

from bench import readme_tables
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, serve_app

TESTS = Path(__file__).resolve().parent.parent / 'tests'
sys.path[:0] = [str(TESTS / 'browser'), str(TESTS / 'app')]  # test_browser_fit, and what it imports
from test_browser_fit import GRAPHS, SCREENS, TEXTS, inside, settle  # noqa: E402

WIDE = "root => { const p = root.__player; p.pinned = 'wide'; p.refit(); }"


def graph_name(link):
    """'neuron', 'chain(3)', or the typed formula."""
    query = {key: values[0] for key, values in parse_qs(link).items()}
    if query['expr'] == 'custom':
        return query['formula']
    return f'chain({query["n"]})' if query['expr'] == 'chain' else query['expr']


def measure(page, name, floor):
    page.locator('.player').evaluate("root => root.scrollIntoView({block: 'start'})")
    settle(page)
    shown = page.locator('.player').evaluate(TEXTS)
    values = [t for t in shown['texts'] if t['value']]
    window = {'left': 0, 'top': 0, 'right': shown['width'], 'bottom': shown['height']}
    across = {**window, 'top': -1e9, 'bottom': 1e9}  # a phone's page scrolls down
    whole = all(inside(t['box'], across if name == 'phone' else window) for t in shown['texts'])
    whole = whole and all(inside(t['box'], c) for t in shown['texts'] for c in shown['clips'] if not c['page'])
    px = min(t['px'] for t in values)
    return {'px': round(px, 1), 'whole': whole and shown['pageWidth'] <= shown['width'], 'readable': px >= floor}


def main():
    rows = []
    with serve_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for name, (options, present, floor) in SCREENS.items():
            context = browser.new_context(**options)
            page = context.new_page()
            for link in GRAPHS:
                page.goto(f'{url}/?{link}&step=end' + ('&present=1' if present else ''))
                page.locator('.player .explain[data-frame]').wait_for(state='attached')
                row = {'screen': name, 'graph': graph_name(link), **measure(page, name, floor)}
                row['shape'] = page.locator('.player').get_attribute('data-shape')
                row['height_share'] = round(row['px'] / options['viewport']['height'], 4)
                page.locator('.player').evaluate(WIDE)
                wide = measure(page, name, floor)
                row['wide_px'], row['wide_whole'] = wide['px'], wide['whole']
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
            context.close()
        browser.close()
    head = ('screen', 'graph', 'shape', 'numbers px', 'of height', 'whole', 'wide shape px', 'wide whole')
    cells = [(r['screen'], r['graph'][:44], r['shape'], f'{r["px"]:.1f}', f'{100 * r["height_share"]:.1f}%',
              'yes' if r['whole'] else 'no', f'{r["wide_px"]:.1f}', 'yes' if r['wide_whole'] else 'no')
             for r in rows]  # fmt: skip
    widths = [max(len(str(c[j])) for c in [head, *cells]) for j in range(len(head))]
    line = lambda row: ' | '.join(c.ljust(w) for c, w in zip(row, widths))  # noqa: E731
    lines = ['Screens benchmark: bench/bench_screens.py', '', line(head), '-+-'.join('-' * w for w in widths)]
    lines += [line(row) for row in cells]
    readme_tables.write_results('screens', '\n'.join(lines) + '\n', {'rows': rows})


if __name__ == '__main__':
    main()
