"""The active node in sight on every screen and every frame, however the frame was reached: by opening a link at it,
by stepping (Next, the arrow key, the slider, Play), and by a lecturer's step arriving on a page that follows a
class. "Active" is the node the frame is about: the value whose _backward runs, the seeded output, the value just
computed (forward mode's too). Its box lies wholly inside the window (below Streamlit's header), inside its view and
every box around it that clips, with its numbers at least 12 px on a phone and 16 px elsewhere, once the page has
settled as a student waits for it, and with no scroll of the test's own."""

import asyncio
import concurrent.futures
import re

import pytest
from playwright.sync_api import expect
from test_browser_demo import wait_for_player
from test_browser_fit import PHONE, SCREENS, inside  # the screens, and what lies inside a box

from tests.support.follow import Follower, post_answer

pytestmark = pytest.mark.browser

FOLLOWERS = ('phone', 'laptop-1366', 'laptop-1600')  # the screens a student follows a class on

# nine graphs stepped through frame by frame: presets and typed formulas, each mode's own boxes (learning's step,
# forward mode's tangents, a batch's point), and forward mode on the MLP (40 values); the MLP's backward pass (66
# frames) is stepped too, and a point of its batch
GRAPHS = [
    'expr=reuse',
    'expr=neuron',
    'expr=lecture',
    'expr=custom&formula=exp(a*b)%20/%20(1%20%2B%20exp(a*b))',
    'expr=custom&formula=sin(x)*x%20%2B%20exp(-x)',
    'expr=regression&mode=learn',
    'expr=chain&n=3',
    'expr=mlp&mode=forward&wrt=x1',
    'expr=regression&mode=batch&point=3',
]
STEPPED = [*GRAPHS, 'expr=mlp', 'expr=mlp&mode=batch&point=9']

# the frame's active node as the page shows it: its box, the boxes that clip it (its view, Streamlit's containers),
# the part of the window Streamlit's header leaves, the numbers' size, and the page's and the view's scroll (to
# tell when the page has settled)
SEEN = """root => {
  const p = root.__player, a = p.body.patches[p.cur].a;
  const header = document.querySelector('[data-testid="stHeader"]');
  const shown = header && getComputedStyle(header).display !== 'none';
  const top = shown ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
  const svg = root.querySelector('.view svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const px = parseFloat(svg.querySelector('text.value').getAttribute('font-size')) * scale;
  const clips = [];
  const g = a >= 0 ? p.values[a].g : null;
  for (let e = g && svg.parentElement; e; e = e.parentElement || e.getRootNode().host) {
    const s = getComputedStyle(e);
    const page = e.getBoundingClientRect().height >= innerHeight - 2; // the page's own scroller: the window says it
    const clipping = s.overflowX !== 'visible' || s.overflowY !== 'visible';
    if (!page && clipping) clips.push(e.getBoundingClientRect().toJSON());
  }
  const main = document.querySelector('[data-testid="stMain"]');
  return { k: p.cur, a, box: g && g.getBoundingClientRect().toJSON(), clips, px,
           window: { left: 0, top, right: innerWidth, bottom: innerHeight },
           scrolls: [main ? main.scrollTop : 0, document.scrollingElement.scrollTop,
                     p.view.scrollLeft, p.view.scrollTop] };
}"""


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
            else:  # the slider, dragged there and let go
                page.locator('.player .slider').fill(str(k))
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


# --- a graph too big for its view: the edges beyond which it goes on are marked ---------------------------------

# every value box the view cuts, the sides it is cut on, and which of the view's edge marks are shown
CUT = """root => {
  const p = root.__player, view = p.view.getBoundingClientRect();
  const w = p.view.clientWidth, h = p.view.clientHeight;
  const cut = [];
  for (const { g } of p.values) {
    const r = g.getBoundingClientRect();
    const sides = [
      r.left < view.left - 1 && r.right > view.left && 'left',
      r.right > view.left + w + 1 && r.left < view.left + w && 'right',
      r.top < view.top - 1 && r.bottom > view.top && 'up',
      r.bottom > view.top + h + 1 && r.top < view.top + h && 'down',
    ];
    const across = r.right > view.left && r.left < view.left + w && r.bottom > view.top && r.top < view.top + h;
    if (across) cut.push(...sides.filter(Boolean));
  }
  const shown = ([side, e]) => [side, !e.hidden && e.getBoundingClientRect().width > 0];
  const marks = Object.fromEntries(Object.entries(p.more).map(shown));
  return { cut: [...new Set(cut)], marks };
}"""


@pytest.mark.parametrize('name', ['phone', 'laptop-1366', 'laptop-1600', 'projector-1280'])
@pytest.mark.parametrize('link', ['expr=mlp', 'expr=mlp&mode=forward&wrt=x1', 'expr=chain'])
def test_a_box_the_view_cuts_stands_under_a_sign_that_the_graph_goes_on(browser, served, name, link):
    options, present, _ = SCREENS[name]
    context = browser.new_context(**options)
    try:
        page = context.new_page()
        page.goto(f'{served}/?{link}&step=0' + ('&present=1' if present else ''))
        settled(page, 0)
        n = frames_of(page)
        for k in sorted({0, n // 4, n // 2, (3 * n) // 4, n - 1}):
            page.locator('.player').evaluate(f'root => root.__player.step({k})')
            wait_for_player(page, k)
            shown = page.locator('.player').evaluate(CUT)
            for side in shown['cut']:
                where = f'{name} {link} frame {k}'
                assert shown['marks'][side], f'{where}: a box is cut at the {side} with no sign: {shown}'
        page.locator('.player .view').evaluate('v => { v.scrollLeft = 0; v.scrollTop = 0; }')
        page.wait_for_timeout(100)
        marks = page.locator('.player').evaluate(CUT)['marks']
        assert not marks['left'] and not marks['up'], f'{name} {link}: a sign at an edge with nothing beyond: {marks}'
    finally:
        context.close()


# --- the projector in a class, and a phone at its question -------------------------------------------------------


def answered(served, code, question, answers):
    """Students join the class's events (tests/support/follow.py's Followers, as a phone's page does) and each sends its
    answer; the node's grad asked, as typed."""
    port = int(served.rsplit(':', 1)[1])

    async def run():
        students = [Follower('127.0.0.1', port, code, join=True) for i in range(len(answers))]
        tasks = [asyncio.create_task(student.run()) for student in students]
        try:
            for student in students:
                await student.wait_for(connection=1)
            for student, said in zip(students, answers):
                status, body, _ = await post_answer('127.0.0.1', port, code, student.student, question, said)
                assert status == 200, body
        finally:
            for student in students:
                await student.close()
            await asyncio.gather(*tasks, return_exceptions=True)

    with concurrent.futures.ThreadPoolExecutor(1) as thread:  # Playwright's own loop runs in this one
        thread.submit(asyncio.run, run()).result()


# every text the class panel shows a room, and its size in px (the answers' plot is a picture of its own, and an icon's
# name is its glyph: left out)
PANEL_TEXTS = """() => {
  const panel = document.querySelector('.st-key-class-panel');
  const SKIP = '[data-testid="stVegaLiteChart"], [role="tooltip"], svg, canvas';
  const out = [];
  const walk = (e) => {
    for (const child of e.childNodes) {
      if (child.nodeType === Node.TEXT_NODE && child.textContent.trim()) {
        const box = e.getBoundingClientRect();
        if (box.width && box.height && getComputedStyle(e).visibility !== 'hidden')
          out.push({ text: child.textContent.trim().slice(0, 40), px: parseFloat(getComputedStyle(e).fontSize) });
      } else if (child.nodeType === Node.ELEMENT_NODE && !child.matches(SKIP)
                 && !getComputedStyle(child).fontFamily.includes('Material')) walk(child);
    }
  };
  walk(panel);
  return out;
}"""

# where the projector's graph is: the view's box and the whole graph's, the asked node's, and the legend's
PLACE = """root => {
  const p = root.__player;
  const box = (e) => e.getBoundingClientRect().toJSON();
  return { view: box(p.view), svg: box(p.view.querySelector('svg')), legend: box(p.legendBox),
           a: box(p.values[p.body.patches[p.cur].a].g),
           window: { left: 0, top: 0, right: innerWidth, bottom: innerHeight },
           legendText: p.legendBox.innerText };
}"""


@pytest.mark.parametrize('size', [(1920, 1080, 28), (1280, 720, 20)])
def test_the_projectors_graph_keeps_its_place_and_the_room_reads_the_panel_from_the_back(browser, served, size):
    width, height, least = size
    lecturer, code = start_class(browser, served, 'expr=reuse')
    phone = browser.new_context(**PHONE).new_page()
    try:
        lecturer.set_viewport_size({'width': width, 'height': height})
        phone.goto(f'{served}/?class={code}')
        settled(phone, 0)
        for k in range(1, 6):
            lecturer.locator('.player .next').click()
            wait_for_player(lecturer, k)
        before = lecturer.locator('.player').evaluate(PLACE)
        texts = lecturer.evaluate(PANEL_TEXTS)
        assert texts and all(t['px'] >= least - 0.5 for t in texts), [t for t in texts if t['px'] < least - 0.5]

        lecturer.get_by_role('button', name=re.compile('Ask the room')).click()
        expect(lecturer.locator('.player')).to_have_attribute('data-asked', re.compile(r'\d+'))
        asked = int(lecturer.locator('.player').get_attribute('data-asked'))
        # the phone at the question: its answer boxes and the graph in one window, the asked node in it
        settled(phone, asked)
        ask, view = (phone.locator(f'.player {part}').bounding_box() for part in ('.ask', '.view'))
        assert ask['y'] >= 0 and view['y'] + view['height'] <= 844 + 1, (ask, view)
        check(settled(phone, asked), 12, f'phone at the question, frame {asked}')

        question = lecturer.get_by_text(re.compile(r'Question \d+')).first.inner_text()
        number = int(re.search(r'Question (\d+)', question).group(1))
        nodes = lecturer.locator('.player').evaluate(
            'root => { const p = root.__player; return p.question.asked.map((item) => item.node); }'
        )
        answers = [{node: str(v) for node in nodes} for v in [1, 1, 2, -3, 1, 4, 9, 1, 1, 2, 1, 0.5, 1, 1, 3, -1]]
        answered(served, code, number, answers)
        expect(lecturer.get_by_text(re.compile(r'16 of \d+'))).to_be_visible(timeout=10_000)
        for stage in ('answered', 'revealed'):
            lecturer.wait_for_timeout(1500)  # the panel reads the room each second
            now = lecturer.locator('.player').evaluate(PLACE)
            moved = max(abs(now['view'][side] - before['view'][side]) for side in ('left', 'top', 'right', 'bottom'))
            assert moved < 1, f'{stage}: the graph moved: {before["view"]} → {now["view"]}'
            for part in ('view', 'svg', 'a', 'legend'):
                assert inside(now[part], now['window']), f'{width}×{height} {stage}: the {part} leaves the window'
            texts = lecturer.evaluate(PANEL_TEXTS)
            small = [t for t in texts if t['px'] < least - 0.5]
            assert not small, f'{width}×{height} {stage}: texts under {least} px: {small}'
            if stage == 'answered':
                lecturer.get_by_role('button', name='Reveal').click()
                expect(lecturer.get_by_text('Right:', exact=True)).to_be_visible()
    finally:
        phone.context.close()
        lecturer.context.close()


def test_the_presentation_view_draws_the_pages_legend(browser, served):
    context = browser.new_context(viewport={'width': 1920, 'height': 1080})
    try:
        page = context.new_page()
        for link in ('expr=neuron', 'expr=reuse&mode=bug', 'expr=neuron&mode=forward&wrt=x1'):
            page.goto(f'{served}/?{link}&step=4')
            wait_for_player(page, 4)
            words = page.locator('.player .legend').inner_text()
            page.goto(f'{served}/?{link}&step=4&present=1')
            wait_for_player(page, 4)
            shown = page.locator('.player').evaluate(PLACE)
            assert shown['legendText'].split() == words.split(), link  # the page's words
            assert inside(shown['legend'], shown['window']) and shown['legend']['height'] > 0, link
    finally:
        context.close()


# --- a phone's page, made for the phone ---------------------------------------------------------------------------


def test_a_phones_page_is_one_heading_line_and_one_bar_over_the_graph_and_a_pinch_zooms(browser, served):
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        page.goto(f'{served}/?expr=reuse&step=4')
        settled(page, 4)
        line = page.locator('.st-key-heading-line summary')
        box = line.bounding_box()
        assert box['height'] <= 48 and box['width'] <= 390, box  # one line
        expect(page.locator('.st-key-heading')).to_be_hidden()  # the wide screen's heading
        lesson = page.locator('.st-key-heading-line p').filter(has_text='a is used three times')
        expect(lesson).to_be_hidden()  # folded
        line.tap()
        expect(lesson).to_be_visible()
        line.tap()
        # one bar: every button on one row, 44 px to tap, named; the zoom left to a pinch
        buttons = page.locator('.player .bar button:visible')
        boxes = [buttons.nth(i).bounding_box() for i in range(buttons.count())]
        assert len(boxes) == 4 and len({round(b['y']) for b in boxes}) == 1, boxes  # ‹ ▶ › ↗
        assert all(b['height'] >= 44 and b['width'] >= 44 and b['x'] + b['width'] <= 390 for b in boxes), boxes
        names = [buttons.nth(i).get_attribute('aria-label') for i in range(buttons.count())]
        assert names == ['Prev: the previous frame', 'Play', 'Next frame', 'Share…'], names
        slider = page.locator('.player .slider').bounding_box()
        assert slider['width'] >= 100 and abs(slider['y'] + slider['height'] / 2 - boxes[0]['y'] - 22) < 4, slider
        # the graph starts under the bar and the caption: no blank band (the frame's sums, none here, take no room)
        caption = page.locator('.player .caption').bounding_box()
        view = page.locator('.player .view').bounding_box()
        assert view['y'] - (caption['y'] + caption['height']) < 20, (caption, view)
        # a pinch zooms: the page allows it, and so does the graph's view
        meta = page.evaluate("() => document.querySelector('meta[name=viewport]').content")
        assert 'user-scalable=no' not in meta.replace(' ', '') and 'maximum-scale=1' not in meta.replace(' ', ''), meta
        touch = page.locator('.player .view').evaluate('v => getComputedStyle(v).touchAction')
        assert touch == 'auto' or 'pinch-zoom' in touch, touch
    finally:
        context.close()


def test_a_step_on_a_phone_never_moves_the_page_under_a_visitor_scrolling_it(browser, served):
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        page.goto(f'{served}/?expr=neuron&step=3')
        settled(page, 3)
        scroll = 'root => root.__player.pageScroller().scrollTop'  # Streamlit's main area, or the document
        cdp = page.context.new_cdp_session(page)  # the visitor's finger scrolls down to the words under the graph
        cdp.send('Input.synthesizeScrollGesture', {'x': 200, 'y': 700, 'yDistance': -400, 'speed': 2000})
        page.wait_for_timeout(100)
        scrolled = page.locator('.player').evaluate(scroll)
        assert scrolled > 100
        page.locator('.player').evaluate('root => root.__player.keepInSight()')  # as a class's step would
        page.wait_for_timeout(2000)  # and past player.js's last look while the page settles
        assert page.locator('.player').evaluate(scroll) == scrolled  # still reading
    finally:
        context.close()
