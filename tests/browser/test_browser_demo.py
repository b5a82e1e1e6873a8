"""The page as a public demo, in a real browser: what the player draws is what Python made, nothing a link holds
is rendered or fetched, and open pages survive a closed neighbour and a server restart."""

import re
import subprocess
import time
from html.parser import HTMLParser
from urllib.parse import quote

import pytest
from playwright.sync_api import expect
from test_layout import tangled_formula

from engine import PRESETS, parse_expression, trace_backward
from engine.frames import frames
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, free_port, serve_app
from view.explanation import caption, explain, explanation_html
from view.node_table import node_table

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)
VIEW = {'width': 1600, 'height': 1000}


class _Text(HTMLParser):
    """The text of an HTML fragment, as the DOM's textContent gives it."""

    def __init__(self, page):
        super().__init__(convert_charrefs=True)
        self.text = ''
        self.feed(page)

    def handle_data(self, data):
        self.text += data


def wait_for_player(page, k=None):
    words = page.locator('.player .explain')
    if k is None:
        expect(words).to_have_attribute('data-frame', re.compile(r'\d+'))
    else:
        expect(words).to_have_attribute('data-frame', str(k))
    wait_for_controls(page)


# the sidebar's controls drawn (the page draws them once the player has painted its graph: components.player's
# painted), or no sidebar at all (the presentation view)
CONTROLS_DRAWN = """() => !document.querySelector('[data-testid="stSidebar"]')
  || !!document.querySelector('[data-testid="stSidebar"] [data-testid="stRadio"]')"""


def wait_for_controls(page):
    """Wait for the run that draws the sidebar's controls after the first graph, as a user waits to see them."""
    page.wait_for_function(CONTROLS_DRAWN, timeout=20_000)


def show_shape(page, shape):
    """Draw the player's graph in `shape` (graph.SHAPES) at the frame it shows, whatever its screen would choose:
    for what one shape alone draws, such as the chain rule on the wide shape's edges."""
    page.locator('.player').evaluate(f"root => {{ const p = root.__player; p.pinned = '{shape}'; p.refit(); }}")
    expect(page.locator('.player')).to_have_attribute('data-shape', shape)


def every_frame_drawn(page):
    """Drive the player through every frame; what it then shows: caption, explanation text, table cells."""
    return page.locator('.player').evaluate(
        """root => {
          const p = root.__player, shown = [];
          for (let k = 0; k < p.n; k++) {
            p.go(k);
            const rows = [...root.querySelectorAll('.table tbody tr')].map(r => [...r.cells].map(c => c.textContent));
            shown.push({caption: root.querySelector('.caption').textContent,
                        words: root.querySelector('.explain').textContent, rows});
          }
          return shown;
        }"""
    )  # fmt: skip


TYPED = 'L = tanh(x*w + b) * y - x/2 + exp(-y)'
CASES = {**{key: key for key in PRESETS}, 'typed': TYPED}


@pytest.mark.parametrize('case', CASES)
def test_every_frame_the_browser_draws_is_what_the_python_builders_make(page, app_server, case):
    expression = parse_expression(TYPED) if case == 'typed' else PRESETS[case]
    query = f'?expr=custom&formula={quote(TYPED)}' if case == 'typed' else f'?expr={case}'
    page.goto(f'{app_server}/{query}')
    wait_for_player(page)
    leaves, out = expression.build()
    trace = trace_backward(out, leaves)
    all_frames = frames(trace, True)
    shown = every_frame_drawn(page)
    assert len(shown) == len(all_frames)
    for k, (frame, drawn) in enumerate(zip(all_frames, shown)):
        assert drawn['caption'] == f'Frame {k + 1} of {len(all_frames)} · {caption(trace, frame)}'
        assert drawn['words'] == _Text(explanation_html(explain(trace, frame))).text, k
        assert drawn['rows'] == node_table(trace, frame, answers=True).values.tolist(), k


# --- nothing a link holds is rendered, linked or fetched ---------------------------------------------------

EVIL = 'https://evil.example'
INJECTIONS = [
    f'?expr=custom&formula={quote(f"x # [Log in again]({EVIL}/login) :red[**SESSION EXPIRED**] ![t]({EVIL}/t.png)")}',
    f'?{quote(f"[Log in]({EVIL}/a)")}=1&{quote(":red[**EXPIRED**]")}=1&{quote(f"![t]({EVIL}/t.png)")}=1'
    '&www.evil.example=1',
    f'?expr=custom&formula={quote("L = a_b*c_d + x_y*z_w")}',
    f'?expr=custom&formula={quote("<img src=x onerror=alert(1)>")}',
    f'?expr=custom&formula={quote(f"x + {EVIL}")}',
]  # fmt: skip


@pytest.mark.parametrize('link', INJECTIONS)
def test_no_element_a_link_holds_links_or_loads_from_elsewhere(page, app_server, link):
    requests = []
    page.on('request', lambda request: requests.append(request.url))
    dialogs = []
    page.on('dialog', lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f'{app_server}/{link}')
    expect(page.locator('[data-testid="stApp"]')).to_be_visible()
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text('Backprop')
    page.wait_for_timeout(2500)  # the toast, the error or the graph: whatever the link brings
    assert not dialogs
    outside = [url for url in requests if not url.startswith((app_server, 'data:', 'blob:'))]
    assert not outside
    links = page.evaluate(
        """() => { const found = [];
            const walk = (root) => root.querySelectorAll('*').forEach(e => {
              if (e.shadowRoot) walk(e.shadowRoot);
              for (const a of ['href', 'src', 'xlink:href']) if (e.getAttribute(a)) found.push(e.getAttribute(a));
            });
            walk(document); return found; }"""
    )  # fmt: skip
    assert not [url for url in links if ('evil' in url and not url.startswith('#')) or url.startswith('javascript:')]
    main = page.locator('[data-testid="stMain"]')
    # printed as code (the formula error's caret view) is fine; rendered as emphasis or colour is not
    expect(main.locator('em, strong:has-text("EXPIRED"), span[style*="color"]:has-text("EXPIRED")')).to_have_count(0)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def test_a_typed_formula_heading_is_the_formula_as_typed(page, served):
    page.goto(f'{served}/?expr=custom&formula={quote("tanh(x1*w1 + x2*w2 + b)")}')
    wait_for_player(page)
    heading = page.locator('[data-testid="stMain"] h3').first
    expect(heading).to_have_text('tanh(x1*w1 + x2*w2 + b)')
    expect(heading.locator('em, strong')).to_have_count(0)


def test_a_link_of_more_than_a_thousand_parameters_says_it_was_not_read(page, served):
    query = '&'.join(f'p{i}=1' for i in range(1001))
    page.goto(f'{served}/?expr=reuse&{query}')
    wait_for_player(page)
    expect(page.locator('.player .notice')).to_contain_text('more than the 1,000 the server reads')


def test_a_link_of_more_than_512_ki_characters_says_it_was_not_read(browser, served):
    # an address that long never reaches the server over HTTP (its headers stop at 64 KiB), so the page is fetched at
    # its root; the browser's address, and what the page sends over its websocket, is the long link. Chromium takes
    # a page so served for another network's, which may not open a local websocket: this browser lets it
    lets = browser.browser_type.launch(
        executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, '--disable-features=LocalNetworkAccessChecks']
    )
    page = lets.new_page()
    root = lambda route: route.fulfill(response=route.fetch(url=f'{served}/'))  # noqa: E731
    page.route(re.compile(r'.*/\?expr=reuse&pad=.*'), root)
    page.goto(f'{served}/?expr=reuse&pad=' + 'x' * (512 * 1024))
    wait_for_player(page)
    expect(page.locator('.player .notice')).to_contain_text('more than the 512 Ki the server reads')
    expect(page.locator('.player')).to_contain_text('6.8814')  # the neuron's, the page's start
    lets.close()


# --- faults ------------------------------------------------------------------------------------------------


def test_a_page_closed_mid_play_leaves_the_others_untouched(browser):
    log = []
    with serve_app(timeout=60, log_lines=log) as url:
        context = browser.new_context(viewport=VIEW)
        playing, other = context.new_page(), context.new_page()
        playing.goto(f'{url}/?expr=chain&n=20&speed=10')
        other.goto(f'{url}/?expr=reuse')
        wait_for_player(playing)
        wait_for_player(other, 0)
        playing.get_by_role('button', name='Play').click()
        playing.wait_for_timeout(700)
        playing.close()
        for k in (1, 2, 3):
            other.get_by_role('button', name='Next').click()
            wait_for_player(other, k)
        other.get_by_role('combobox', name='Expression').click()
        other.get_by_role('option', name='L = (a·b + c)·f').click()
        expect(other.locator('.player .caption')).to_contain_text('of 12')
        context.close()
    assert not [line for line in log if re.search(r'error|exception|traceback', line, re.I)], log


def test_open_pages_work_again_after_a_server_restart_and_keep_what_they_showed(browser):
    port = free_port()
    context = browser.new_context(viewport=VIEW)
    moved, untouched = context.new_page(), context.new_page()
    with serve_app(timeout=60, port=port) as url:
        moved.goto(f'{url}/?expr=reuse&step=3')
        untouched.goto(f'{url}/?expr=neuron')
        wait_for_player(moved, 3)
        wait_for_player(untouched, 0)
        moved.get_by_role('combobox', name='Expression').click()
        moved.get_by_role('option', name='L = (a·b + c)·f').click()  # the lecture: the server writes its link
        expect(moved.locator('.player .caption')).to_contain_text('of 12')
        for k in (4, 5):
            moved.get_by_role('button', name='Next').click()
            wait_for_player(moved, k)
    time.sleep(1)  # the server is down: the pages say so and wait
    with serve_app(timeout=60, port=port):
        for page in (moved, untouched):
            expect(page.get_by_text('Connection error')).to_have_count(0)
        moved.get_by_role('button', name='Next').click()  # stepping needs no server, before or after
        wait_for_player(moved, 6)
        expect(moved.locator('.player .caption')).to_contain_text('Frame 7 of 12')
        untouched.get_by_role('button', name='Next').click()
        wait_for_player(untouched, 1)
        # a change in the sidebar runs a new session: it opens the link the page had, at the frame it shows
        moved.get_by_text('Show the answers in the table').click()
        moved.wait_for_timeout(2000)
        expect(moved.locator('[data-testid="stMain"] h3').first).to_contain_text('lecture')
        expect(moved.locator('.player .caption')).to_contain_text('Frame 7 of 12')
        expect(moved.locator('[data-testid="stException"]')).to_have_count(0)
    context.close()


def dot_running(server):
    """The dot processes the server at `server` (a serve.Url) runs now: its children, not other dots on the machine."""
    found = subprocess.run(['pgrep', '-x', '-P', str(server.pid), 'dot'], capture_output=True, text=True).stdout
    return len(found.split())


def until(check, what, timeout=60):
    """Wait until check() holds: a bound only a hang reaches, however busy the machine (the server's session ends,
    dot starts or is killed, when the server gets to it)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f'{what}: not within {timeout} s'
        time.sleep(0.05)


def test_a_visitor_who_leaves_stops_the_layout_of_the_tangled_formula_they_asked_for(browser):
    # budgets that only a hang reaches (dot's own layout of this sum takes a minute): dot can end only because the
    # visitor left, however slowly a busy machine notices, and the quick layout does not start for nobody
    with serve_app(timeout=60, env={'BACKPROP_LAYOUT_BUDGETS': '600,600'}) as url:
        context = browser.new_context(viewport=VIEW)
        leaving = context.new_page()
        leaving.goto(f'{url}/?expr=custom&formula={quote(tangled_formula(4))}')
        expect(leaving.get_by_text('Laying out the graph')).to_be_visible()
        until(lambda: dot_running(url) == 1, 'dot started')
        leaving.close()
        until(lambda: dot_running(url) == 0, 'dot stopped')
        time.sleep(2)  # a quick layout would start at once after the full one: none does
        assert dot_running(url) == 0
        context.close()


def test_a_tangled_formula_from_a_link_is_drawn_with_the_quick_layout(page):
    # dot's own layout past its budget at once (0.05 s: the clock, not its CPU time), then the quick one as long as
    # it takes (0.7-4 s by the machine's day): the page draws the quick layout however busy the machine is
    with serve_app(timeout=60, env={'BACKPROP_LAYOUT_BUDGETS': '0.05,600'}) as url:
        page.goto(f'{url}/?expr=custom&formula={quote(tangled_formula(4))}&step=end')
        expect(page.locator('.player .explain')).to_have_attribute('data-frame', re.compile(r'\d+'), timeout=60_000)
        expect(page.get_by_text('laid out quickly')).to_be_visible()
        expect(page.locator('.player .caption')).to_have_text(re.compile(r'Frame (\d+) of \1\b'))
