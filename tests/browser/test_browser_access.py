"""Every student can use it (WCAG 2.1 AA): axe-core (tests/browser/package.json, pinned, injected from this machine's
node_modules, never a CDN) finds no serious or critical violation on any mode, on a laptop and a phone, the
presentation view, the share panel, a typed formula's error, and a live class's projector and phone with a question
open; the keyboard alone walks a whole pass from the skip link and answers the class's question; a screen reader
gets the graph as a named picture, the numbers as a table with headers, and each frame's words."""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_browser_demo import wait_for_player
from test_browser_live import PHONE, REUSE_AT_A_TIMES_A

from view.modes import MODES

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)

AXE = Path(__file__).parent / 'node_modules' / 'axe-core' / 'axe.min.js'
WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
RUN_AXE = """async (tags) => {
  const found = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
  return found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.html.slice(0, 160)),
                   why: v.nodes[0].failureSummary.slice(0, 240) }));
}"""
LAPTOP = {'viewport': {'width': 1400, 'height': 900}}
PHONE_SCREEN = {'viewport': PHONE, 'is_mobile': True, 'has_touch': True}
SCREENS = {'laptop': LAPTOP, 'phone': PHONE_SCREEN}


def serious_violations(page):
    """axe-core's serious and critical WCAG 2.1 A and AA violations on the page as it is now."""
    if not AXE.exists():
        pytest.fail(f'{AXE} is missing: npm ci in tests/browser (tests/run.sh does)', pytrace=False)
    if not page.evaluate('!!window.axe'):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE, WCAG_21_AA)


def assert_none(page, view):
    found = serious_violations(page)
    assert not found, f'{view}: ' + json.dumps(found, indent=1, ensure_ascii=False)


def mode_link(mode):
    """A link to `mode` on an example it applies to: learning needs a loss and parameters."""
    return f'expr={"regression" if mode.learns else "neuron"}&mode={mode.name}'


@pytest.mark.parametrize('screen', SCREENS)
@pytest.mark.parametrize('mode', MODES, ids=[m.name for m in MODES])
def test_every_mode_has_no_serious_accessibility_violation(browser, served, mode, screen):
    context = browser.new_context(**SCREENS[screen])
    try:
        page = context.new_page()
        page.goto(f'{served}/?{mode_link(mode)}&step=3')
        wait_for_player(page)  # at frame 3, or a quiz's first question
        page.wait_for_timeout(500)  # the sidebar's controls, drawn after the graph
        assert_none(page, f'{mode.name} on a {screen}')
    finally:
        context.close()


@pytest.mark.parametrize(
    'view, link, screen',
    [
        ('the presentation view', 'expr=mlp&present=1&step=20', 'laptop'),
        ('the presentation view', 'expr=reuse&present=1', 'phone'),
        ('a long chain', 'expr=chain&step=40', 'laptop'),
        ('a formula that does not parse', 'expr=custom&formula=x*(', 'laptop'),
        ('a formula that does not parse', 'expr=custom&formula=tanh(x*w%2Bb)*(verylongname%2Bx*w%2Bb', 'phone'),
    ],
)
def test_other_views_have_no_serious_accessibility_violation(browser, served, view, link, screen):
    context = browser.new_context(**SCREENS[screen])
    try:
        page = context.new_page()
        page.goto(f'{served}/?{link}')
        if 'formula=' in link:
            expect(page.get_by_text('This formula can’t be drawn').first).to_be_visible()
        else:
            wait_for_player(page)
        page.wait_for_timeout(500)
        assert_none(page, f'{view} on a {screen}')
    finally:
        context.close()


@pytest.mark.parametrize('screen', SCREENS)
def test_the_share_panel_has_no_serious_accessibility_violation(browser, served, screen):
    context = browser.new_context(**SCREENS[screen])
    try:
        page = context.new_page()
        page.goto(f'{served}/?expr=reuse&step=4')
        wait_for_player(page, 4)
        page.locator('.player button.share').click()
        expect(page.get_by_role('img', name=re.compile('QR code of the link'))).to_be_visible()
        assert_none(page, f'the share panel on a {screen}')
    finally:
        context.close()


def start_class(lecturer, served):
    lecturer.goto(f'{served}/?expr=reuse&present=1&step={REUSE_AT_A_TIMES_A}')
    wait_for_player(lecturer, REUSE_AT_A_TIMES_A)
    lecturer.get_by_role('button', name='Start a class').click()
    return lecturer.get_by_test_id('class-code').inner_text().replace(' ', '')


def test_a_live_class_has_no_serious_violation_and_a_phone_answers_with_the_keyboard_alone(browser, served):
    projector = browser.new_context(viewport={'width': 1920, 'height': 1080})
    phone_context = browser.new_context(**PHONE_SCREEN)
    try:
        lecturer = projector.new_page()
        code = start_class(lecturer, served)
        phone = phone_context.new_page()
        phone.goto(f'{served}/?class={code}')
        wait_for_player(phone, REUSE_AT_A_TIMES_A)
        expect(lecturer.get_by_test_id('class-students')).to_have_text('1 student follows')
        assert_none(lecturer, 'the projector leading a class')
        assert_none(phone, 'a phone following a class')

        lecturer.locator('.st-key-ask_room button').first.click()
        wait_for_player(phone, REUSE_AT_A_TIMES_A + 1)
        expect(phone.locator('.player .ask input').first).to_be_visible()
        assert_none(lecturer, 'the projector with a question open')
        assert_none(phone, 'a phone asked a question')

        # the answer, with the keyboard alone from the top of the page: Tab reaches the first answer box, then the
        # second, and Enter sends (a.grad 4, b.grad 3: worked by hand in test_browser_live.py)
        phone.evaluate('document.activeElement?.blur()')
        tab_to(phone, 0)
        phone.keyboard.type('4')
        tab_to(phone, 1, most=4)
        phone.keyboard.type('3')
        phone.keyboard.press('Enter')
        expect(phone.locator('.player .ask .said')).to_contain_text('Sent')
        expect(lecturer.get_by_text('1 of 1', exact=False).first).to_be_visible()
        lecturer.locator('.st-key-reveal_room button').click()  # the answers' spread, coloured, with its legend
        expect(phone.locator('.player .ask')).to_contain_text('revealed')
        lecturer.wait_for_timeout(1500)  # the panel's next reading draws the revealed chart
        assert_none(lecturer, 'the projector with the answers revealed')
        assert_none(phone, 'a phone shown its answer against the right one')
    finally:
        projector.close()
        phone_context.close()


FOCUSED = """() => { let e = document.activeElement;
  while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
  return e && { tag: e.tagName.toLowerCase(), cls: String(e.className), text: (e.textContent || '').trim().slice(0, 60),
    name: e.getAttribute('aria-label') || '', outline: getComputedStyle(e).outlineStyle,
    ring: getComputedStyle(e).outlineWidth, shadow: getComputedStyle(e).boxShadow }; }"""


def focused(page):
    return page.evaluate(FOCUSED)


ANSWER_BOX = """() => { let e = document.activeElement;
  while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
  const ask = e?.closest?.('.ask');
  return ask ? [...ask.querySelectorAll('input')].indexOf(e) : -1; }"""


def tab_to(page, box, most=60):
    """Press Tab until the focus is on answer box number `box` of the class's question, in `most` presses."""
    for _ in range(most):
        page.keyboard.press('Tab')
        if page.evaluate(ANSWER_BOX) == box:
            return
    pytest.fail(f'{most} presses of Tab never reached answer box {box}; the focus is on {focused(page)}')


def test_the_keyboard_alone_walks_a_whole_pass_from_the_skip_link(page, served):
    page.goto(f'{served}/?expr=reuse')
    wait_for_player(page, 0)
    page.keyboard.press('Tab')  # the page's first stop: the skip link, shown once focused
    first = focused(page)
    assert first['tag'] == 'a' and first['text'] == 'Skip to the graph player', first
    assert page.locator('#backprop-skip').bounding_box()['y'] >= 0  # on screen, not off it
    page.keyboard.press('Enter')
    view = focused(page)
    assert 'view' in view['cls'] and view['outline'] != 'none' and view['ring'] != '0px', view  # focus seen
    n = int(page.locator('.player .slider').get_attribute('max')) + 1
    said = page.locator('.player .heard')
    for k in range(1, n):
        page.keyboard.press('ArrowRight')
        wait_for_player(page, k)
        caption, rules = page.locator('.player .caption').inner_text(), page.locator('.player .rules > div')
        expected = '. '.join(part for part in [caption, *rules.all_inner_texts()] if part)
        assert said.text_content() == expected, k  # a screen reader hears the caption and the sums
    page.keyboard.press('Home')
    wait_for_player(page, 0)
    page.keyboard.press('End')
    wait_for_player(page, n - 1)
    page.keyboard.press('Home')
    page.keyboard.press('Space')  # plays
    expect(page.locator('.player .play')).to_have_attribute('aria-label', 'Pause')
    wait_for_player(page, 2)
    page.keyboard.press('Space')  # and pauses
    expect(page.locator('.player .play')).to_have_attribute('aria-label', 'Play')
    assert int(page.locator('.player .explain').get_attribute('data-frame')) > 0


def test_a_code_box_lets_tab_out_and_the_player_keys_leave_typing_alone(page, served):
    page.goto(f'{served}/?expr=neuron&mode=code')
    wait_for_player(page, 0)
    box = page.locator('[data-testid="stTextArea"] textarea').first
    box.click()
    before = box.input_value()
    page.keyboard.press('ArrowRight')  # moves the caret, not the frame
    page.keyboard.press('Escape')
    page.keyboard.press('Tab')
    assert box.input_value() == before  # no tab typed into the body
    assert page.evaluate('document.activeElement.tagName') != 'TEXTAREA' or not box.evaluate(
        'e => e === document.activeElement'
    )
    assert page.locator('.player .explain').get_attribute('data-frame') == '0'


def test_a_screen_reader_gets_a_named_graph_a_table_with_headers_and_named_buttons(page, served):
    page.goto(f'{served}/?expr=reuse&step=5')
    wait_for_player(page, 5)
    tree = page.locator('.player').aria_snapshot()
    assert re.search(r'img "The computational graph at this frame', tree), tree
    for name in ('Prev: the previous frame', 'Play', 'Next frame', 'Share…', 'Zoom out', 'Zoom in'):
        assert f'button "{name}"' in tree, (name, tree)
    assert 'table "The values at this frame' in tree, tree
    assert 'columnheader "grad now"' in tree and 'rowheader "a"' in tree, tree
    current = page.locator('.player .table tr[aria-current="step"]')
    expect(current).to_have_count(1)  # the row of the node whose step runs
    assert 'slider "Frame"' in tree, tree


def test_play_keeps_the_page_still_for_a_visitor_who_asks_for_less_motion(browser, served):
    # Play scrolls the page to follow the active node; asked for less motion, it leaves the page where the visitor
    # put it, and only the graph's own view follows the node
    context = browser.new_context(viewport={'width': 1000, 'height': 500}, reduced_motion='reduce')
    try:
        page = context.new_page()
        page.goto(f'{served}/?expr=mlp')
        wait_for_player(page, 0)
        scroll = """() => Math.max(document.scrollingElement.scrollTop,
                    ...[...document.querySelectorAll('[data-testid="stMain"]')].map((e) => e.scrollTop))"""
        page.wait_for_timeout(1000)  # the page settles where the first frame puts it
        before = page.evaluate(scroll)
        play = page.locator('.player .play')
        play.evaluate('b => b.click()')  # as a click that does not scroll it into view first, as Playwright's does
        page.wait_for_timeout(3000)
        play.evaluate('b => b.click()')
        assert int(page.locator('.player .explain').get_attribute('data-frame')) >= 3  # it played
        assert page.evaluate(scroll) == before  # the page stayed where it was
        inside = page.locator('.player').evaluate(
            """root => { const p = root.__player, a = p.values[p.body.patches[p.cur].a].g.getBoundingClientRect();
               const v = p.view.getBoundingClientRect();
               return a.left >= v.left - 1 && a.right <= v.right + 1
                 && a.top >= v.top - 1 && a.bottom <= v.bottom + 1; }"""
        )
        assert inside  # the active node, in the graph's view
    finally:
        context.close()


LOOK = """root => { const box = root.querySelector('g.v.final > path'), edge = root.querySelector('g.edge > path');
  const swatch = [...root.querySelectorAll('.legend span span')].find((s) => s.style.background.includes('final'));
  return { highContrast: root.classList.contains('high-contrast'), fill: getComputedStyle(box).fill,
           pen: getComputedStyle(edge).strokeWidth, swatch: swatch && getComputedStyle(swatch).backgroundColor }; }"""


def rgb(colour):
    return 'rgb({}, {}, {})'.format(*(int(colour[k : k + 2], 16) for k in (1, 3, 5)))


def test_the_high_contrast_look_is_switched_in_the_presentation_view_and_by_link(browser, served):
    from view.palette import CSS_VARIABLES, HIGH_CONTRAST

    context = browser.new_context(viewport={'width': 1920, 'height': 1080})
    phone_context = browser.new_context(**PHONE_SCREEN)
    try:
        page = context.new_page()
        page.goto(f'{served}/?expr=reuse&present=1&step=9')
        wait_for_player(page, 9)
        player = page.locator('.player')
        before = player.evaluate(LOOK)
        assert not before['highContrast'] and before['fill'] == rgb(CSS_VARIABLES['--final-fill']), before
        page.get_by_text('High contrast').click()
        expect(player).to_have_class(re.compile('high-contrast'))
        after = player.evaluate(LOOK)
        assert after['fill'] == rgb(HIGH_CONTRAST['--final-fill']) and after['pen'] == '2px', after
        assert after['swatch'] == rgb(HIGH_CONTRAST['--final-fill']), after  # the legend says the same
        expect(page).to_have_url(re.compile(r'contrast=1'))
        assert_none(page, 'the high-contrast presentation view')

        phone = phone_context.new_page()  # the link carries it, to a phone too, and Streamlit's captions are ink
        phone.goto(f'{served}/?expr=reuse&mode=bug&contrast=1&step=9')
        wait_for_player(phone, 9)
        assert phone.locator('.player').evaluate(LOOK)['fill'] == rgb(HIGH_CONTRAST['--final-fill'])
        captions = phone.get_by_test_id('stCaptionContainer')
        expect(captions.first).to_be_attached()
        assert {captions.nth(k).evaluate('e => getComputedStyle(e).opacity') for k in range(captions.count())} == {'1'}
        assert_none(phone, 'the high-contrast look on a phone')
    finally:
        context.close()
        phone_context.close()


SIDEWAYS = """() => {
  const scrollers = [document.scrollingElement, ...document.querySelectorAll('[data-testid="stMain"]')];
  const out = [];
  for (const e of document.querySelectorAll('[data-testid="stMain"] *')) {
    const r = e.getBoundingClientRect();
    const inside = e.closest('.view, .table, .overview, [data-testid="stDataFrame"]');  // each scrolls itself
    if (r.width > 0 && r.right > innerWidth + 1 && !inside) out.push(e.outerHTML.slice(0, 80));
  }
  return { scroll: Math.max(...scrollers.map((e) => e.scrollWidth - e.clientWidth)), past: out.slice(0, 5) };
}"""
# WCAG 1.4.10: 320 CSS px wide with no sideways scroll; and 1.4.4: a 1280 × 800 window at 200 % zoom is 640 × 400
# CSS px. The graph scrolls inside its own view, and a table in its own (a dataframe grid, the node table), which
# reflow allows for content that needs two dimensions
NARROW = {'320 px': {'width': 320, 'height': 640}, '200 % zoom': {'width': 640, 'height': 400}}


@pytest.mark.parametrize('size', NARROW)
@pytest.mark.parametrize('mode', MODES, ids=[m.name for m in MODES])
def test_every_mode_reflows_at_320_px_and_at_200_percent_zoom(browser, served, mode, size):
    context = browser.new_context(viewport=NARROW[size], is_mobile=size == '320 px', has_touch=size == '320 px')
    try:
        page = context.new_page()
        page.goto(f'{served}/?{mode_link(mode)}')
        wait_for_player(page)
        page.wait_for_timeout(500)
        sideways = page.evaluate(SIDEWAYS)
        assert sideways == {'scroll': 0, 'past': []}, sideways
        for button in ('prev', 'play', 'next', 'share'):
            box = page.locator(f'.player .bar .{button}').bounding_box()
            assert box['x'] >= 0 and box['x'] + box['width'] <= NARROW[size]['width'] + 1, (button, box)
        page.locator('.player .view').focus()
        page.keyboard.press('ArrowRight')  # it steps, at this size too
        wait_for_player(page)
        assert_none(page, f'{mode.name} at {size}')
    finally:
        context.close()


def test_shift_and_an_arrow_pan_a_graph_wider_than_its_view_and_the_arrows_alone_step(browser, served):
    context = browser.new_context(viewport={'width': 1000, 'height': 700})
    try:
        page = context.new_page()
        page.goto(f'{served}/?expr=mlp&step=10')
        wait_for_player(page, 10)
        view = page.locator('.player .view')
        view.evaluate('v => v.scrollTo(0, 0)')
        assert view.evaluate('v => v.scrollWidth > v.clientWidth')  # wider than its view
        view.focus()
        page.keyboard.press('Shift+ArrowRight')
        page.wait_for_timeout(300)
        assert view.evaluate('v => v.scrollLeft') > 0
        assert page.locator('.player .explain').get_attribute('data-frame') == '10'  # panned, not stepped
        page.keyboard.press('ArrowRight')
        wait_for_player(page, 11)
    finally:
        context.close()


def test_the_main_area_shows_its_focus_and_a_switch_that_is_off_is_outlined(page, served):
    page.goto(f'{served}/?expr=neuron')
    wait_for_player(page, 0)
    page.wait_for_timeout(500)
    off = page.locator('[data-testid="stCheckbox"] label:not([data-selected="true"]):has(input[role="switch"])').first
    track = off.locator('> div').first
    assert track.evaluate('d => getComputedStyle(d).boxShadow') != 'none'  # 1.5:1 alone; its outline 6:1
    for _ in range(80):
        page.keyboard.press('Tab')
        if page.evaluate('document.activeElement?.dataset?.testid') == 'stMain':
            break
    else:
        pytest.fail('Tab never reached the main area')
    outline = page.evaluate('getComputedStyle(document.activeElement).outlineStyle')
    assert outline != 'none'
