"""The picture fits the screen it is on: on a phone held upright, a laptop beside the sidebar and a projector in the
presentation view, every exercise-sized graph is shown whole at a readable size, at each frame looked at, with no
text cut off by the window or by any scrolling box around it, and no sideways scroll of the page."""

import pytest
from playwright.sync_api import expect
from test_browser_demo import wait_for_player

from engine.presets import PRESETS
from server.cache import traced

pytestmark = pytest.mark.browser

PHONE = {'viewport': {'width': 390, 'height': 844}, 'is_mobile': True, 'has_touch': True, 'device_scale_factor': 2}
SCREENS = {  # name: (the browser's context, the presentation view, the numbers' least size in px)
    'phone': (PHONE, False, 12),
    'laptop-1366': ({'viewport': {'width': 1366, 'height': 768}}, False, 16),
    'laptop-1600': ({'viewport': {'width': 1600, 'height': 1000}}, False, 16),
    'projector-1920': ({'viewport': {'width': 1920, 'height': 1080}}, True, 16),
    'projector-1280': ({'viewport': {'width': 1280, 'height': 720}}, True, 16),
}


def _values(expression):
    return len(traced(expression=expression, values=tuple(expression.defaults.items()))[0].nodes)


# the exercise-sized graphs: every preset of up to EXERCISE_SIZED values (the chain preset is drawn at the length a
# link asks for: a short one here), and typed formulas of up to about 10 values. The MLP and long chains are bigger:
# they are shown at a readable size and followed
EXERCISE_SIZED = 20
GRAPHS = [
    *(f'expr={key}' for key, e in PRESETS.items() if key != 'chain' and _values(e) <= EXERCISE_SIZED),
    'expr=chain&n=3',
    'expr=custom&formula=sin(x)*x%20%2B%20exp(-x)',
    'expr=custom&formula=(a*b%20%2B%20c)*tanh(d)%20-%20e',
]

# every number and label the graph shows: where it is on screen, its size, and the boxes around the graph that
# scroll or clip (the view, Streamlit's containers)
TEXTS = """root => {
  const svg = root.querySelector('.view svg');
  const clips = [];
  for (let e = svg.parentElement; e; e = e.parentElement || e.getRootNode().host) {
    const s = getComputedStyle(e);
    const box = e.getBoundingClientRect().toJSON();
    // the page's own scroller (as tall as the window) is scrolled down on a phone, never a box inside it
    const page = box.height >= innerHeight - 2;
    if (s.overflowX !== 'visible' || s.overflowY !== 'visible') clips.push({ ...box, page });
  }
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const texts = [...svg.querySelectorAll('g.v text, g.lab text')].filter((t) => t.textContent.trim()).map((t) => ({
    text: t.textContent.trim(), value: t.classList.contains('value'), box: t.getBoundingClientRect().toJSON(),
    px: parseFloat(t.getAttribute('font-size')) * scale,
  }));
  // the page scrolls inside Streamlit's own containers: the widest of them and the document
  const scrollers = [document.documentElement, ...document.querySelectorAll('[data-testid="stMain"]')];
  const pageWidth = Math.max(...scrollers.map((e) => e.scrollWidth - e.clientWidth + innerWidth));
  return { texts, clips, width: innerWidth, height: innerHeight, pageWidth };
}"""


# where the graph is and in which shape: the page has settled when this stays the same a while (Streamlit's own
# layout moves for a moment after a page opens, and the player then picks its shape again)
PLACE = """root => { const r = root.querySelector('.view svg').getBoundingClientRect();
  return [root.dataset.shape, r.left, r.top, r.width, r.height]; }"""


def settle(page, tries=30):
    place = None
    for _ in range(tries):
        page.wait_for_timeout(150)
        place, before = page.locator('.player').evaluate(PLACE), place
        if place == before:
            return
    pytest.fail(f'the graph kept moving: {place}')


def inside(box, outer):
    return (box['left'] >= outer['left'] - 1 and box['right'] <= outer['right'] + 1
            and box['top'] >= outer['top'] - 1 and box['bottom'] <= outer['bottom'] + 1)  # fmt: skip


@pytest.fixture(scope='module', params=list(SCREENS))
def screen(request, browser):
    options, present, floor = SCREENS[request.param]
    context = browser.new_context(**options)
    yield request.param, context.new_page(), present, floor
    context.close()


@pytest.mark.parametrize('link', GRAPHS)
def test_every_exercise_graph_is_whole_and_readable_on_every_screen(screen, link, served):
    name, page, present, floor = screen
    page.goto(f'{served}/?{link}' + ('&present=1' if present else ''))
    wait_for_player(page)
    n = int(page.locator('.player .slider').get_attribute('max')) + 1
    for k in sorted({0, n // 3, (2 * n) // 3, n - 1}):
        page.locator('.player').evaluate(f'root => root.__player.go({k})')
        wait_for_player(page, k)
        page.locator('.player').evaluate("root => root.scrollIntoView({block: 'start'})")
        settle(page)
        shown = page.locator('.player').evaluate(TEXTS)
        assert shown['pageWidth'] <= shown['width'], f'{name} {link} frame {k}: the page scrolls sideways'
        window = {'left': 0, 'top': 0, 'right': shown['width'], 'bottom': shown['height']}
        for t in shown['texts']:
            where = f'{name} {link} frame {k}: {t["text"]!r}'
            # a phone's page scrolls down, and so does its view where no shape shows the graph whole at 12 px
            # (test_on_a_phone_every_frame_shows_the_active_node...): across, the window and the view hold it
            if name == 'phone':
                across = [{**clip, 'top': -1e9, 'bottom': 1e9} for clip in shown['clips']]
                cut = f'{where} is cut off: {t["box"]} in {shown["clips"]}'
                assert all(inside(t['box'], clip) for clip in across), cut
                assert t['box']['left'] >= -1 and t['box']['right'] <= shown['width'] + 1, f'{where} is off the side'
            else:
                cut = f'{where} is cut off: {t["box"]} in {shown["clips"]}'
                assert all(inside(t['box'], c) for c in shown['clips']), cut
                assert inside(t['box'], window), f'{where} is outside the window'
            if t['value']:
                assert t['px'] >= floor, f'{where} is {t["px"]:.1f} px, under {floor} px'


@pytest.mark.parametrize('link', ['expr=neuron', 'expr=custom&formula=(a*b%20%2B%20c)*tanh(d)%20-%20e'])
def test_the_browsers_own_layout_fits_a_phone_and_a_laptop_as_the_servers_does(browser, app_server, link):
    for name in ('phone', 'laptop-1366'):
        options, present, floor = SCREENS[name]
        context = browser.new_context(**options)
        try:
            page = context.new_page()
            page.goto(f'{app_server}/?{link}')
            wait_for_player(page)
            page.locator('.player').evaluate("root => root.scrollIntoView({block: 'start'})")
            settle(page)
            shown = page.locator('.player').evaluate(TEXTS)
            for t in (t for t in shown['texts'] if t['value']):
                assert t['box']['left'] >= -1 and t['box']['right'] <= shown['width'] + 1, (app_server.source, name, t)
                assert t['px'] >= floor, (app_server.source, name, t)
            assert shown['pageWidth'] <= shown['width']
        finally:
            context.close()


# --- a phone's touch, a big graph's overview, the sidebar -----------------------------------------------------


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    yield context.new_page()
    context.close()


def swipe(page, dx):
    """A finger drawn `dx` px sideways across the middle of the graph, as Chromium's touch screen sends it."""
    box = page.locator('.player .view').bounding_box()
    x, y = box['x'] + box['width'] / 2, box['y'] + min(box['height'] / 2, 200)
    cdp = page.context.new_cdp_session(page)
    cdp.send('Input.dispatchTouchEvent', {'type': 'touchStart', 'touchPoints': [{'x': x - dx / 2, 'y': y}]})
    for step in range(1, 6):
        cdp.send(
            'Input.dispatchTouchEvent',
            {'type': 'touchMove', 'touchPoints': [{'x': x - dx / 2 + dx * step / 5, 'y': y}]},
        )
    cdp.send('Input.dispatchTouchEvent', {'type': 'touchEnd', 'touchPoints': []})


def test_on_a_phone_the_buttons_are_large_enough_to_tap_and_a_swipe_on_the_graph_steps(phone, served):
    phone.goto(f'{served}/?expr=reuse&step=3')
    wait_for_player(phone, 3)
    for name in ('Prev', 'Next', 'Play', 'Share'):
        box = phone.locator('.player .bar button').filter(has_text=name).bounding_box()
        assert box['height'] >= 44 and box['width'] >= 44, (name, box)
        assert box['x'] >= 0 and box['x'] + box['width'] <= 390, (name, box)  # on the screen, none cut off
    phone.locator('.player .next').tap()
    wait_for_player(phone, 4)
    swipe(phone, -120)  # to the left: the next frame, as a page turns
    wait_for_player(phone, 5)
    swipe(phone, 120)
    wait_for_player(phone, 4)
    swipe(phone, -20)  # too short to be a swipe
    phone.wait_for_timeout(300)
    wait_for_player(phone, 4)


def test_on_a_phone_the_explanation_and_the_table_stand_under_the_graph(phone, served):
    phone.goto(f'{served}/?expr=neuron&step=12')
    wait_for_player(phone, 12)
    view, words, table = (phone.locator(f'.player {part}').bounding_box() for part in ('.view', '.words', '.table'))
    assert words['y'] >= view['y'] + view['height'] - 1  # under the graph
    assert table['y'] >= words['y'] + words['height'] - 1  # and under the words, not beside them
    assert table['x'] + table['width'] <= 390 and words['x'] + words['width'] <= 390


def test_a_big_graph_has_an_overview_that_marks_the_active_node_and_a_click_there_looks_there(page, served):
    page.goto(f'{served}/?expr=mlp&step=44')
    wait_for_player(page, 44)
    overview = page.locator('.player .overview')
    expect(overview).to_be_visible()
    page.locator('.player').evaluate("root => root.scrollIntoView({block: 'start'})")
    box, window = overview.bounding_box(), page.viewport_size
    assert box['y'] + box['height'] <= window['height'] + 1  # in the window with the view above it
    in_view, here = (page.locator(f'.player .map .{mark}').bounding_box() for mark in ('in-view', 'here'))
    assert in_view['width'] > 0 and here['width'] > 0
    assert (
        in_view['x'] - 1 <= here['x'] and here['x'] + here['width'] <= in_view['x'] + in_view['width'] + 1
    )  # in sight
    view = page.locator('.player .view')
    before = view.evaluate('v => v.scrollLeft')
    map_box = page.locator('.player .map img').bounding_box()
    far = map_box['x'] + (map_box['width'] * 0.05 if before > 0 else map_box['width'] * 0.95)  # the other end
    page.mouse.click(far, map_box['y'] + map_box['height'] / 2)
    expect(view).not_to_have_js_property('scrollLeft', before)
    page.locator('.player .next').click()  # a step brings the detail back to the active node
    wait_for_player(page, 45)


def test_an_exercise_graph_that_fits_has_no_overview(page, served):
    page.goto(f'{served}/?expr=lecture&step=9')
    wait_for_player(page, 9)
    expect(page.locator('.player .overview')).to_be_hidden()


def test_the_sidebar_closes_once_for_a_graph_only_closing_it_makes_readable(browser, served):
    context = browser.new_context(viewport={'width': 1366, 'height': 768})
    page = context.new_page()
    try:
        page.goto(f'{served}/?expr=chain&n=3&step=5')
        wait_for_player(page, 5)
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar).to_have_attribute('data-collapsed', 'true')
        page.locator('[data-testid="stExpandSidebarButton"]').click()  # the visitor opens it again: it stays open
        expect(sidebar).to_have_attribute('data-collapsed', 'false')
        page.wait_for_timeout(500)
        expect(sidebar).to_have_attribute('data-collapsed', 'false')
    finally:
        context.close()


# --- a phone held upright, stepped through every frame ---------------------------------------------------------

# every exercise graph (the chain at its default length) and a typed formula of about ten values
PHONE_CASES = [
    *(f'expr={key}' for key in ('neuron', 'reuse', 'chain', 'lecture', 'a_plus_a', 'ab_times_a_plus_b', 'regression')),
    'expr=custom&formula=tanh(x1*w1%20%2B%20x2*w2%20%2B%20b)',
]
TOO_BIG_FOR_A_PHONE = {'expr=chain'}  # no shape shows it whole at 12 px: scrolled in the view to the active node

# what the student sees of frame's active node and its inputs (whose grads its _backward writes): each box, and the
# part of the window the graph shows, below Streamlit's header and within the view
SEEN = """root => {
  const p = root.__player, a = p.body.patches[p.cur].a;
  const box = (i) => p.values[i].g.getBoundingClientRect().toJSON();
  const view = root.querySelector('.view').getBoundingClientRect();
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  const svg = root.querySelector('.view svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const scrollers = [document.documentElement, ...document.querySelectorAll('[data-testid="stMain"]')];
  return {
    active: a >= 0 ? box(a) : null, inputs: a >= 0 ? p.body.near[a][0].map(box) : [],
    seen: { left: Math.max(0, view.left), right: Math.min(innerWidth, view.right),
            top: Math.max(header, view.top), bottom: Math.min(innerHeight, view.bottom) },
    bar: root.querySelector('.bar').getBoundingClientRect().toJSON(), header,
    px: parseFloat(svg.querySelector('text.value').getAttribute('font-size')) * scale,
    pageWidth: Math.max(...scrollers.map((e) => e.scrollWidth - e.clientWidth + innerWidth)), width: innerWidth,
  };
}"""


@pytest.mark.parametrize('link', PHONE_CASES)
def test_on_a_phone_every_frame_shows_the_active_node_and_what_it_writes_with_the_buttons_in_reach(phone, served, link):
    phone.goto(f'{served}/?{link}')
    wait_for_player(phone, 0)
    n = int(phone.locator('.player .slider').get_attribute('max')) + 1
    for k in range(n):
        if k:
            phone.locator('.player .next').tap()  # a step scrolls the page to the graph, as little as it takes
            wait_for_player(phone, k)
        shown = phone.locator('.player').evaluate(SEEN)
        where = f'{link} frame {k}'
        assert shown['pageWidth'] <= shown['width'], f'{where}: the page scrolls sideways'
        assert shown['px'] >= 12, f'{where}: the numbers are {shown["px"]:.1f} px'
        if k:  # stepped: the buttons are in the window, below the header, with the graph
            assert shown['bar']['top'] >= shown['header'] - 1 and shown['bar']['bottom'] <= 844, where
        if shown['active'] is None:
            continue
        assert inside(shown['active'], shown['seen']), f'{where}: the active node is out of sight: {shown}'
        if link not in TOO_BIG_FOR_A_PHONE:
            assert all(inside(b, shown['seen']) for b in shown['inputs']), f'{where}: an input is out of sight'


def test_on_a_phone_the_code_modes_page_never_scrolls_sideways(phone, served):
    phone.goto(f'{served}/?mode=code&step=end')
    wait_for_player(phone)
    expect(phone.locator('.player .summary table')).to_be_visible()
    shown = phone.locator('.player').evaluate(TEXTS)
    assert shown['pageWidth'] <= shown['width'], shown['pageWidth']
