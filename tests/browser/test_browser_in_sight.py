"""The active node in sight on every screen and every frame, however the frame was reached: by opening a link at it,
by stepping (Next, the slider, Play), and by a lecturer's step arriving on a page that follows a class. "Active" is
the node the frame is about: the value whose _backward runs, the seeded output, the value just computed (forward
mode's too). Its box lies wholly inside the window (below Streamlit's header), inside its view and every box around
it that clips, with its numbers at least 12 px on a phone and 16 px elsewhere, once the page has settled as a student
waits for it, and with no scroll of the test's own."""

import pytest
from test_browser_demo import wait_for_player

pytestmark = pytest.mark.browser

PHONE = {'viewport': {'width': 390, 'height': 844}, 'is_mobile': True, 'has_touch': True, 'device_scale_factor': 2}
SCREENS = {  # name: (the browser's context, the presentation view, the numbers' least size in px)
    'phone': (PHONE, False, 12),
    'laptop-1366': ({'viewport': {'width': 1366, 'height': 768}}, False, 16),
    'laptop-1600': ({'viewport': {'width': 1600, 'height': 1000}}, False, 16),
    'projector-1920': ({'viewport': {'width': 1920, 'height': 1080}}, True, 16),
    'projector-1280': ({'viewport': {'width': 1280, 'height': 720}}, True, 16),
}
FOLLOWERS = ('phone', 'laptop-1366', 'laptop-1600')  # the screens a student follows a class on

# eight graphs stepped through frame by frame: presets and typed formulas, each mode's own boxes (learning's step,
# forward mode's tangents), and forward mode on the MLP (40 values); the MLP's backward pass (66 frames) is stepped too
GRAPHS = [
    'expr=reuse',
    'expr=neuron',
    'expr=lecture',
    'expr=custom&formula=exp(a*b)%20/%20(1%20%2B%20exp(a*b))',
    'expr=custom&formula=sin(x)*x%20%2B%20exp(-x)',
    'expr=regression&mode=learn',
    'expr=chain&n=3',
    'expr=mlp&mode=forward&wrt=x1',
]
STEPPED = [*GRAPHS, 'expr=mlp']

# the frame's active node as the page shows it: its box, the boxes that clip it (its view, Streamlit's containers),
# the part of the window Streamlit's header leaves, the numbers' size, and the page's and the view's scroll (to
# tell when the page has settled)
SEEN = """root => {
  const p = root.__player, a = p.body.patches[p.cur].a;
  const header = document.querySelector('[data-testid="stHeader"]');
  const top = header && getComputedStyle(header).display !== 'none' ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
  const svg = root.querySelector('.view svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const px = parseFloat(svg.querySelector('text.value').getAttribute('font-size')) * scale;
  const clips = [];
  const g = a >= 0 ? p.values[a].g : null;
  for (let e = g && svg.parentElement; e; e = e.parentElement || e.getRootNode().host) {
    const s = getComputedStyle(e);
    const page = e.getBoundingClientRect().height >= innerHeight - 2; // the page's own scroller: the window says it
    if (!page && (s.overflowX !== 'visible' || s.overflowY !== 'visible')) clips.push(e.getBoundingClientRect().toJSON());
  }
  const main = document.querySelector('[data-testid="stMain"]');
  return { k: p.cur, a, box: g && g.getBoundingClientRect().toJSON(), clips, px,
           window: { left: 0, top, right: innerWidth, bottom: innerHeight },
           scrolls: [main ? main.scrollTop : 0, document.scrollingElement.scrollTop, p.view.scrollLeft, p.view.scrollTop] };
}"""


def inside(box, outer):
    return (box['left'] >= outer['left'] - 1 and box['right'] <= outer['right'] + 1
            and box['top'] >= outer['top'] - 1 and box['bottom'] <= outer['bottom'] + 1)  # fmt: skip


def settled(page, k):
    """What the page shows of frame k once it stops moving (Streamlit draws the rest of the page, a font loads, the
    player looks for the active node again): the same twice, a fifth of a second apart."""
    wait_for_player(page, k)
    shown = None
    for _ in range(40):
        page.wait_for_timeout(200)
        shown, before = page.locator('.player').evaluate(SEEN), shown
        if shown == before:
            return shown
    pytest.fail(f'frame {k} kept moving: {shown}')


def check(shown, floor, where):
    assert shown['px'] >= floor - 0.05, f'{where}: the numbers are {shown["px"]:.1f} px, under {floor} px'
    if shown['box'] is None:  # a frame about no value (forward mode's first, where the inputs are set)
        return
    assert inside(shown['box'], shown['window']), f'{where}: the active node is out of the window: {shown}'
    for clip in shown['clips']:
        assert inside(shown['box'], clip), f'{where}: the active node is cut off by {clip}: {shown}'


@pytest.fixture(scope='module', params=list(SCREENS))
def screen(request, browser):
    options, present, floor = SCREENS[request.param]
    context = browser.new_context(**options)
    yield request.param, context, present, floor
    context.close()


def frames_of(page):
    return int(page.locator('.player .slider').get_attribute('max')) + 1


@pytest.mark.parametrize('link', STEPPED)
def test_stepping_keeps_the_active_node_in_sight(screen, link, served):
    name, context, present, floor = screen
    page = context.new_page()
    try:
        page.goto(f'{served}/?{link}&step=0' + ('&present=1' if present else ''))
        settled(page, 0)
        n = frames_of(page)
        for k in range(1, n):
            if k % 3 == 1:
                page.locator('.player .next').click()
            elif k % 3 == 2:  # the keyboard's arrow, as the slider and the presentation view step
                page.locator('.player .slider').focus()
                page.keyboard.press('ArrowRight')
            else:
                page.locator('.player .next').click()
            wait_for_player(page, k)
            page.wait_for_timeout(60)
            check(page.locator('.player').evaluate(SEEN), floor, f'{name} {link} stepped to frame {k}')
        # Play runs from the start to the end: every frame it passes shows the active node
        page.locator('.player').evaluate('root => { const p = root.__player; p.speed = 8; p.step(0); p.play(); }')
        seen = []
        for _ in range(n * 2):
            shown = page.locator('.player').evaluate(SEEN)
            seen.append(shown['k'])
            check(shown, floor, f'{name} {link} playing, at frame {shown["k"]}')
            if shown['k'] == n - 1:
                break
            page.wait_for_timeout(70)
        assert seen[-1] == n - 1, f'{name} {link}: Play stopped at {seen[-1]}'
    finally:
        page.close()


@pytest.mark.parametrize('link', GRAPHS)
def test_a_link_opens_with_the_active_node_in_sight(screen, link, served):
    """Every frame of the graph opened by its own link, six pages loading at once."""
    name, context, present, floor = screen
    pages = [context.new_page() for _ in range(6)]
    try:
        url = f'{served}/?{link}' + ('&present=1' if present else '')
        pages[0].goto(f'{url}&step=0')
        n = frames_of(pages[0])
        for start in range(0, n, len(pages)):
            batch = list(zip(pages, range(start, min(n, start + len(pages)))))
            for page, k in batch:
                page.goto(f'{url}&step={k}', wait_until='commit')
            for page, k in batch:
                check(settled(page, k), floor, f'{name} {link}&step={k} opened')
    finally:
        for page in pages:
            page.close()


def start_class(browser, served, link):
    lecturer = browser.new_context(viewport={'width': 1920, 'height': 1080}).new_page()
    lecturer.goto(f'{served}/?{link}&present=1&step=0')
    wait_for_player(lecturer, 0)
    lecturer.get_by_role('button', name='Start a class').click()
    code = lecturer.get_by_test_id('class-code')
    code.wait_for()
    return lecturer, code.inner_text().replace(' ', '')


@pytest.mark.parametrize('link', GRAPHS)
def test_a_lecturers_step_brings_the_active_node_into_sight_on_every_follower(browser, served, link):
    lecturer, code = start_class(browser, served, link)
    followers = {}
    try:
        for name in FOLLOWERS:
            options, _, floor = SCREENS[name]
            page = browser.new_context(**options).new_page()
            page.goto(f'{served}/?class={code}')
            followers[name] = (page, floor)
            settled(page, 0)
        n = frames_of(lecturer)
        for k in range(1, n):
            lecturer.locator('.player .next').click()
            wait_for_player(lecturer, k)
            for name, (page, floor) in followers.items():
                check(settled(page, k), floor, f'{name} following {link} to frame {k}')
    finally:
        for page, _ in followers.values():
            page.context.close()
        lecturer.context.close()
