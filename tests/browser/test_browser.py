"""The page in a real browser: Debian's chromium driven by Playwright against `streamlit run main.py`.

The fixtures (app_server, browser, page) are in conftest.py; the server helper is tests/support/serve.py.
"""

import re

import pytest
from playwright.sync_api import Page, expect
from test_browser_demo import wait_for_controls

pytestmark = pytest.mark.browser

TIMEOUT = 20_000  # ms, for every expect(): the first run of a page compiles the app and lays out the graph
expect.set_options(timeout=TIMEOUT)

GRAPH = '.player .view svg'  # the player's graph
VALUES_AND_OPS = 'g.node[id^="n"]'  # not the edges' labels (l3_0) nor the stops on a bus (b3_0)
NEURON_START = {'x1': ('2.0000', '·'), 'w1': ('-3.0000', '·'), 'b': ('6.8814', '·'), 'x2': ('0.0000', '·')}
NEURON_GRADS = {'x1': '-1.5000', 'w1': '1.0000', 'x2': '0.5000', 'w2': '0.0000', 'b': '0.5000', 'o': '1.0000'}


def open_page(page: Page, url, query=''):
    """Open the app at `query` and wait for the graph; the browser console's errors are kept in page.errors."""
    page.errors = []
    page.on('console', lambda message: message.type == 'error' and page.errors.append(message.text[:200]))
    page.goto(f'{url}/{query}')
    expect(page.locator('[data-testid="stApp"]')).to_be_visible()
    expect(page.locator(GRAPH)).to_be_visible()
    wait_for_controls(page)


def graph(page: Page):
    return page.locator(GRAPH)


def boxes(page: Page):
    """{name: (data, grad)} of every value box in the graph, as its text shows them."""
    rows = (
        graph(page)
        .locator('g.node')
        .evaluate_all('nodes => nodes.map(g => [...g.querySelectorAll("text")].map(t => t.textContent.trim()))')
    )
    return {texts[0]: (texts[2], texts[4]) for texts in rows if len(texts) == 5 and texts[1] == 'data'}


def caption(page: Page):
    """The player's caption, 'Frame K of N · ...'."""
    return page.locator('.player .caption').filter(has_text=re.compile(r'^Frame \d+ of \d+'))


def expect_redrawn(page: Page, *texts, nodes=None):
    """The graph, patched in the browser for a new frame or laid out for a new formula, shows `texts` and `nodes`."""
    try:
        for text in texts:
            expect(graph(page)).to_contain_text(text)
        if nodes is not None:
            expect(graph(page).locator(VALUES_AND_OPS)).to_have_count(nodes)
    except AssertionError as e:
        raise AssertionError(
            f'the graph was not redrawn ({str(e).splitlines()[0]}) while the page moved on to '
            f'{caption(page).all_text_contents()}; browser console errors: {page.errors[:3]}'
        ) from None


def expect_frame(page: Page, k, n):
    """The caption says 'Frame k of n': frames counted from 1 (a link's step=k - 1)."""
    expect(caption(page)).to_have_text(re.compile(rf'^Frame {k} of {n}\b'))


def grad_check_table(page: Page):
    """The grad check: the player's own table."""
    return page.locator('.player .summary').filter(
        has=page.locator('th', has_text='finite difference')
    )  # fmt: skip


def words(page: Page):
    """The explanation: the player's own."""
    return page.locator('.explain')


def expect_no_traceback(page: Page):
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    expect(page.locator('[data-testid="stApp"]')).not_to_contain_text('Traceback')


def test_graph_shows_the_default_neuron(page, app_server):
    open_page(page, app_server)
    for number in ('2.0000', '-3.0000', '6.8814'):
        expect(graph(page)).to_contain_text(number)
    expect_frame(page, 1, 17)
    shown = boxes(page)
    for name, (data, grad) in NEURON_START.items():
        assert shown[name] == (data, grad), name
    assert shown['o'] == ('·', '·')  # frame 0 of the forward pass: the output is not computed yet
    expect_no_traceback(page)


def test_slider_end_shows_the_final_grads_and_the_check(page, app_server):
    open_page(page, app_server)
    expect(grad_check_table(page)).to_have_count(0)
    slider = page.locator('[data-testid="stMainBlockContainer"]').get_by_role('slider', name='Frame')
    slider.focus()
    page.keyboard.press('End')
    expect_frame(page, 17, 17)
    expect_redrawn(page, '-1.5000', '0.5000')
    shown = boxes(page)
    for name, grad in NEURON_GRADS.items():
        assert shown[name][1] == grad, name
    check = grad_check_table(page)
    expect(check).to_have_count(1)
    expect(check.locator('table')).to_contain_text('-1.5000')
    expect(page.get_by_text('Done.', exact=False)).to_be_visible()
    expect_no_traceback(page)


def test_next_and_prev_move_one_frame(page, app_server):
    open_page(page, app_server, '?expr=reuse&step=4')
    expect_frame(page, 5, 10)
    next_button = page.get_by_role('button', name='Next')
    prev_button = page.get_by_role('button', name='Prev')
    next_button.click()
    expect_frame(page, 6, 10)
    expect_redrawn(page, '1.0000 ×')  # frame 5: out's _backward writes local grad × out.grad along its edges
    next_button.click()
    expect_frame(page, 7, 10)
    prev_button.click()
    expect_frame(page, 6, 10)
    for k in (4, 3, 2, 1, 0):  # one click, one frame: wait for each (clicks faster than a rerun can be lost)
        prev_button.click()
        expect_frame(page, k + 1, 10)
    expect(prev_button).to_be_disabled()
    expect(next_button).to_be_enabled()


def test_a_link_runs_the_script_for_its_graph_then_for_the_controls_and_a_step_sends_the_server_nothing(
    page, app_server
):
    sent = []  # what the browser sends the server: each is a request to run the script
    page.on('websocket', lambda ws: ws.on('framesent', lambda payload: sent.append(payload)))
    open_page(page, app_server, '?expr=reuse&step=3')
    expect_frame(page, 4, 10)
    expect(words(page)).to_contain_text('Forward pass')
    page.wait_for_timeout(1500)
    # the first run draws the graph; the player's word that it is painted asks for the run that draws the controls
    assert len(sent) == 2 and b'painted' in (sent[1] if isinstance(sent[1], bytes) else sent[1].encode())
    requests = []  # and over HTTP: once loaded, not even the page's icon again when the player rewrites the address
    page.on('request', lambda request: requests.append(request.url))
    for k in (4, 5, 6):
        page.get_by_role('button', name='Next').click()
        expect_frame(page, k + 1, 10)
        page.wait_for_timeout(400)  # the player writes the address bar at most every 300 ms: each step its own
    expect(page).to_have_url(re.compile(r'[?&]step=6(&|$)'))  # written by now on a quiet machine, later on a busy one
    expect(words(page)).to_contain_text('a*a = a × a passes its grad')
    page.wait_for_timeout(1500)
    assert len(sent) == 2  # the player steps in the browser, whoever laid the graph out
    assert requests == []


@pytest.mark.parametrize('speed', ['2', '10'])
def test_play_reaches_the_end_and_stops(page, app_server, speed):
    open_page(page, app_server, f'?expr=reuse&speed={speed}')
    expect_frame(page, 1, 10)
    page.get_by_role('button', name='Play').click()
    expect_frame(page, 10, 10)
    expect(page.get_by_role('button', name='Play')).to_be_visible()
    expect(page.get_by_role('button', name='Pause')).to_have_count(0)
    expect_redrawn(page, '4.0000')  # a's final grad, drawn at the last frame
    expect(grad_check_table(page)).to_have_count(1)
    page.wait_for_timeout(1000)  # two ticks even at the slowest of these speeds: playing must have stopped
    expect_frame(page, 10, 10)
    expect_no_traceback(page)


def test_typed_formula_draws_its_graph(page, app_server):
    open_page(page, app_server)
    page.get_by_role('combobox', name='Expression').click()
    page.get_by_role('option', name='type your own formula…').click()
    formula = page.get_by_role('textbox', name='Formula', exact=True)
    expect(formula).to_be_visible()
    formula.fill('tanh(x*y + z)')
    formula.press('Enter')
    sidebar = page.locator('[data-testid="stSidebar"]')
    for name in ('x', 'y', 'z'):
        expect(sidebar.get_by_role('spinbutton', name=name, exact=True)).to_be_visible()
    expect_redrawn(page, 'tanh', nodes=9)  # x y z, then x*y, + and tanh, each with its op
    expect_no_traceback(page)


def test_bad_formula_shows_its_message_not_a_traceback(page, served):  # the server's message: once, with dot
    open_page(page, served, '?expr=custom&formula=a*b%2Ba*a')
    expect(graph(page).locator(VALUES_AND_OPS)).to_have_count(8)  # a b, then a*b, a*a and their sum, each with its op
    formula = page.get_by_role('textbox', name='Formula', exact=True)
    formula.fill('a +* b')
    formula.press('Enter')
    alert = page.locator('[data-testid="stAlert"]').filter(has_text='can’t be drawn')
    expect(alert).to_be_visible()
    expect(alert).to_contain_text('column')
    expect_no_traceback(page)


def test_tampered_link_falls_back_to_the_neuron(page, served):  # the server reads the link: once, with dot
    open_page(page, served, '?expr=nonsense&step=-4&v.x1=nan')
    for number in ('2.0000', '-3.0000', '6.8814'):
        expect(graph(page)).to_contain_text(number)
    expect_frame(page, 1, 17)
    assert boxes(page)['x1'][0] == '2.0000'
    expect(page.get_by_text('could not be read')).to_be_visible()
    expect_no_traceback(page)


def player_view(page: Page):
    """Where the player's view is, how wide its SVG is drawn, the active node and its text height, in px."""
    return page.locator('.player .view').evaluate(
        """view => {
          const box = (e) => {
            const r = e.getBoundingClientRect();
            return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height};
          };
          const active = view.querySelector('g.v.active');
          return {view: box(view), svg: box(view.querySelector('svg')), active: active && box(active),
                  text: box(view.querySelector('g.v text.value')).height, pageScroll: window.scrollY};
        }"""
    )  # fmt: skip


def inside(inner, outer):
    across = outer['left'] <= inner['left'] and inner['right'] <= outer['right']
    return across and outer['top'] <= inner['top'] and inner['bottom'] <= outer['bottom']


def test_a_graph_too_wide_to_read_opens_readable_and_follows_the_active_node(page, app_server):
    open_page(page, app_server, '?expr=mlp&step=44')
    expect_frame(page, 45, 66)
    shown = player_view(page)
    assert shown['svg']['width'] > shown['view']['width']  # not squeezed to the width: it scrolls
    assert shown['text'] >= 10  # px: numbers a class can read
    assert inside(shown['active'], shown['view'])
    page.locator('.player .view').focus()
    page.keyboard.press('End')  # the loss, at the far right
    expect_frame(page, 66, 66)
    page.keyboard.press('ArrowLeft')
    expect_frame(page, 65, 66)
    shown = player_view(page)
    assert inside(shown['active'], shown['view'])
    assert shown['pageScroll'] == 0  # the view scrolled, not the page
    page.get_by_role('button', name='Fit').click()
    shown = player_view(page)
    assert shown['svg']['width'] <= shown['view']['width'] + 1  # the whole graph, small


def test_a_graph_that_fits_opens_whole(page, app_server):
    # the neuron is wider than the view at a back-row size (test_browser_clarity.py): it scrolls, as the MLP does
    open_page(page, app_server, '?expr=reuse&step=6')
    shown = player_view(page)
    assert shown['svg']['width'] <= shown['view']['width'] + 1 and shown['text'] >= 16


def test_a_step_sends_and_receives_nothing(page, app_server):
    received, sent = [], []
    page.on('websocket', lambda ws: ws.on('framereceived', lambda payload: received.append(len(payload))))
    page.on('websocket', lambda ws: ws.on('framesent', lambda payload: sent.append(payload)))
    open_page(page, app_server, '?expr=chain&n=100')
    expect_frame(page, 1, 404)
    page.wait_for_timeout(1000)
    assert max(received) > 500_000  # the layout of 100 steps, with its patches and words, came once
    received.clear(), sent.clear()
    page.get_by_role('button', name='Next').click()
    expect_frame(page, 2, 404)
    expect(words(page)).to_have_attribute('data-frame', '1')
    page.wait_for_timeout(1500)
    assert not sent and not [n for n in received if n > 100]  # a step is the browser's alone (pings aside)


def test_new_inputs_send_the_body_alone_and_a_page_that_lost_its_graph_gets_it_again(page, app_server):
    # the graph is sent once a session and named after that (components/player's SENT); a page that lacks one it is
    # taken to have (it skipped the run that sent it) says so and is sent it again, with no click
    open_page(page, app_server, '?expr=reuse')
    sizes = []
    page.on('websocket', lambda ws: ws.on('framereceived', lambda payload: sizes.append(len(payload))))
    page.reload()
    expect(graph(page)).to_contain_text('3.0000')
    first = max(sizes)
    a = page.locator('[data-testid="stSidebar"]').get_by_role('spinbutton', name='a', exact=True)
    sizes.clear()
    a.fill('2.5')
    a.press('Enter')
    expect(graph(page)).to_contain_text('2.5000')
    assert max(sizes) < first  # the body alone
    page.evaluate('window.__backpropGraphs.clear()')  # as if the page had skipped the run that sent the graph
    a.fill('1.5')
    a.press('Enter')
    expect(graph(page)).to_contain_text('1.5000')
    expect(graph(page).locator(VALUES_AND_OPS)).to_have_count(8)
    assert page.evaluate('window.__backpropGraphs.size') == 1
    expect_no_traceback(page)
