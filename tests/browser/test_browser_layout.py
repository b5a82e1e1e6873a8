"""Where the server has no dot, the player lays the graph out in the browser: Graphviz as WebAssembly from the page's
own server, in a Web Worker, within the server's budget (the full layout, then the quick one, then a clear message),
saying so while it works and never freezing the tab; and a frame it laid out is saved as SVG and PNG from there."""

import io
import re
import xml.etree.ElementTree as ET
from urllib.parse import quote

import pytest
from PIL import Image
from playwright.sync_api import expect
from test_browser_demo import VIEW, wait_for_player
from test_layout import tangled_formula

from components.export_panel import LESSON_LABEL, PASS_FILES
from server import layout
from tests.support.serve import serve_app

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)
GRAPHVIZ = '/app/static/graphviz/index.js'
# every text of the progress line while it says the graph is being laid out, kept by a watcher on it: the line's
# clock is the page's own thread (a timer every 250 ms), so that it counts on only while that thread is free
WATCH_PROGRESS = """(box) => { window.progress = [];
  new MutationObserver(() => {
    if (box.textContent.startsWith('Laying out')) window.progress.push(box.textContent);
  }).observe(box, { childList: true, characterData: true, subtree: true }); }"""


@pytest.fixture(scope='session')
def no_dot(servers):
    """The app served with dot hidden from the server: the player lays every graph out in the browser (the session's
    server, app_server's 'browser' one)."""
    return servers('browser')


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEW, accept_downloads=True)
    yield context.new_page()
    context.close()


def laid_out(page):
    return page.locator('.player').get_attribute('data-laid-out')


def test_the_graph_is_laid_out_in_the_browser_with_graphviz_from_the_pages_own_server(page, no_dot):
    requests = []
    page.on('request', lambda request: requests.append(request.url))
    page.goto(f'{no_dot}/?expr=reuse&step=6')
    wait_for_player(page, 6)
    assert re.fullmatch(r'browser \d+', laid_out(page))
    assert f'{no_dot}{GRAPHVIZ}' in requests
    assert all(url.startswith((no_dot, 'data:', 'blob:')) for url in requests)  # no CDN, nothing from elsewhere
    expect(page.locator('.player .view svg g.node[id^="n"]')).to_have_count(8)  # a, b, a*b, a*a, out; three ops
    expect(page.locator('.player .view')).to_contain_text('3.0000 ×')  # a*a's step: a.data × (a*a).grad, patched
    expect(page.locator('.player .laying')).to_be_hidden()
    expect(page.locator('.player .notice')).to_be_hidden()


def test_new_inputs_keep_the_graph_laid_out_and_another_expression_is_laid_out_once(page, no_dot):
    page.goto(f'{no_dot}/?expr=reuse')
    wait_for_player(page, 0)
    expect(page.locator('.player')).to_have_attribute('data-layouts', '1')
    first = laid_out(page)
    a = page.locator('[data-testid="stSidebar"]').get_by_role('spinbutton', name='a', exact=True)
    a.fill('2.5')
    a.press('Enter')
    expect(page.locator('.player .view')).to_contain_text('2.5000')  # the new value, patched into the same layout
    assert laid_out(page) == first and page.locator('.player').get_attribute('data-layouts') == '1'
    page.get_by_role('combobox', name='Expression').click()
    page.get_by_role('option', name='L = (a·b + c)·f').click()
    expect(page.locator('.player .caption')).to_contain_text('of 12')  # inputs, 3 ops, the seed, 7 _backward
    expect(page.locator('.player')).to_have_attribute('data-layouts', '2')


def test_a_tangled_formula_says_it_is_laid_out_keeps_the_tab_responsive_and_gets_the_quick_layout(page):
    # this sum of 100 products takes the WebAssembly Graphviz 16-36 s in full, 0.9-2.6 s quick: budgets of 1 s for
    # the full layout and 60 s for the quick one take the quick layout on any machine
    with serve_app(timeout=60, source='browser', env={'BACKPROP_LAYOUT_BUDGETS': '1,60'}) as url:
        tangled_page_gets_the_quick_layout(page, url)


def tangled_page_gets_the_quick_layout(page, url):
    workers = []
    page.on('worker', lambda worker: workers.append(worker.url))
    page.goto(f'{url}/?expr=custom&formula={quote(tangled_formula(1))}&step=end')
    notice = page.locator('.player .laying')
    notice.evaluate(WATCH_PROGRESS)
    expect(notice).to_contain_text(re.compile(r'Laying out the graph… \d+\.\d s'))
    expect(notice).to_have_text(layout.QUICK_NOTE)
    wait_for_player(page)
    # the tab went on while Graphviz worked, in a Web Worker: the progress line counted on, second by second, over
    # the full layout's budget (a Graphviz on the page's thread would have frozen it at its first words). Counted in
    # what the line said, not in ms between painted frames: a busy machine paints fewer, and later
    assert workers, 'Graphviz ran on the page itself'
    said = page.evaluate('window.progress')
    assert len(set(said)) >= 2, said
    expect(page.locator('.player .caption')).to_have_text(re.compile(r'Frame (\d+) of \1\b'))
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def test_past_both_budgets_the_page_says_the_graph_is_too_tangled_and_draws_none(page):
    with serve_app(timeout=60, source='browser', env={'BACKPROP_LAYOUT_BUDGETS': '0.05,0.05'}) as url:
        page.goto(f'{url}/?expr=custom&formula={quote(tangled_formula(2))}')
        expect(page.locator('.player .laying')).to_have_text(
            'This graph is too tangled to lay out within 0.1 s. Try fewer reused values, or a shorter formula.'
        )
        expect(page.locator('.player .view svg')).to_have_count(0)
        expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def download(page, button):
    with page.expect_download(timeout=30_000) as info:
        button.click()
    return info.value.suggested_filename, info.value.path().read_bytes()


def test_the_share_panel_saves_the_browsers_frame_as_a_standalone_svg_and_a_png_at_twice_its_size(page, no_dot):
    page.goto(f'{no_dot}/?expr=reuse&step=5')
    wait_for_player(page, 5)
    natural = page.locator('.player .view svg').evaluate(
        'svg => [svg.viewBox.baseVal.width, svg.viewBox.baseVal.height]'
    )
    page.locator('.player .share').click()
    dialog = page.get_by_role('dialog')
    kinds = ', '.join([label for label, *_ in PASS_FILES] + [LESSON_LABEL])  # a lesson in one file needs a layout
    expect(dialog).to_contain_text(f'The whole pass ({kinds}) needs Graphviz on this server')
    expect(dialog.get_by_role('button', name=re.compile('^Make the'))).to_have_count(0)
    expect(dialog.get_by_role('button', name=re.compile(re.escape(LESSON_LABEL)))).to_have_count(0)

    name, svg = download(page, dialog.get_by_role('button', name='SVG (vector)'))
    assert name == 'reuse_a3_b-2_f06.svg'  # step=5: frame 6 of 10
    root = ET.fromstring(svg)
    texts = [''.join(t.itertext()).strip() for t in root.iter('{http://www.w3.org/2000/svg}text')]
    assert {'a*b', 'a*a', 'out'} <= set(texts) and texts.count('1.0000 ×  1.0000') == 2  # out's step, on both edges
    # it stands alone: opened by itself, out's box has the vermillion of the step that runs, in a monospace font
    alone = page.context.new_page()
    alone.set_content(svg.decode())
    look = alone.locator('#n4 > path').evaluate('p => getComputedStyle(p).stroke')
    font = alone.locator('#n4 text').first.evaluate('t => getComputedStyle(t).fontFamily')
    assert look == 'rgb(213, 94, 0)' and 'Mono' in font
    alone.close()

    name, png = download(page, dialog.get_by_role('button', name='PNG (2× size, on white)'))
    assert name == 'reuse_a3_b-2_f06.png'
    picture = Image.open(io.BytesIO(png))
    assert picture.size == tuple(round(2 * pt * 4 / 3) for pt in natural)  # twice its size at 100 %
    assert picture.convert('RGB').getpixel((0, 0)) == (255, 255, 255)

    name, dot = download(page, dialog.get_by_role('button', name='DOT source'))
    assert name == 'reuse_a3_b-2_f06.dot' and dot.startswith(b'digraph')
