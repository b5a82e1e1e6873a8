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

        # the answer, typed: Tab reaches each box in order, and Enter sends (a.grad 4, b.grad 3: worked by hand in
        # test_browser_live.py)
        phone.locator('.player .ask input').first.focus()
        phone.keyboard.type('4')
        tabs = 0
        while focused_class(phone) != 'answer' or tabs == 0:
            phone.keyboard.press('Tab')
            tabs += 1
            assert tabs < 6, 'Tab never reached the second answer box'
        phone.keyboard.type('3')
        phone.keyboard.press('Enter')
        expect(phone.locator('.player .ask .said')).to_contain_text('Sent')
        expect(lecturer.get_by_text('1 of 1', exact=False).first).to_be_visible()
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


def focused_class(page):
    """'answer' for the second or later answer box, else the focused element's tag."""
    seen = focused(page)
    if (
        seen
        and seen['tag'] == 'input'
        and page.evaluate(
            """() => { let e = document.activeElement;
           while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
           const boxes = [...e.closest('.ask').querySelectorAll('input')]; return boxes.indexOf(e) >= 1; }"""
        )
    ):
        return 'answer'
    return seen and seen['tag']


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
    said = page.locator('.player .said')
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
