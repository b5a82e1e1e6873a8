"""The presentation view in a real browser, at a laptop's and a projector's size: nothing cut off, numbers large
enough for the back row, the keys step it, and hidden grads show '?' until the next step."""

import re

import pytest
from playwright.sync_api import expect
from test_browser import boxes
from test_browser_demo import show_shape, wait_for_player

from engine import PRESETS, trace_backward
from engine.frames import frames
from view.explanation import frame_rules

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)
SIZES = {'1280x720': {'width': 1280, 'height': 720}, '1920x1080': {'width': 1920, 'height': 1080}}
X1_W1 = 14  # the neuron's frame where x1*w1 passes its grad back: x1.grad += -3 × 0.5, w1.grad += 2 × 0.5
READABLE_PX = 16  # the numbers' text on a projector's 1920×1080


@pytest.fixture(params=SIZES)
def screen(request, browser):
    context = browser.new_context(viewport=SIZES[request.param])
    page = context.new_page()
    page.size = SIZES[request.param]
    yield page
    context.close()


def open_view(page, url, query, k):
    page.goto(f'{url}/?{query}')
    wait_for_player(page, k)
    page.evaluate('document.fonts.ready')
    page.wait_for_timeout(300)  # the player fits the graph again once its fonts are in


def measure(page):
    """Where the view's parts are on screen (left, top, right, bottom), and the numbers' text size in px."""
    return page.locator('.player').evaluate(
        """root => {
          const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
          const text = root.querySelector('text.value');
          const player = root.__player;
          const active = player.values[player.body.patches[player.cur].a];
          return {
            caption: box(root.querySelector('.caption')), rules: box(root.querySelector('.rules')),
            bar: box(root.querySelector('.bar')), svg: box(root.querySelector('svg')),
            view: box(root.querySelector('.view')), active: active ? box(active.g) : null,
            number_px: parseFloat(text.getAttribute('font-size')) * text.getScreenCTM().a,
            page_width: Math.max(document.documentElement.scrollWidth,
                                 document.querySelector('[data-testid="stMain"]').scrollWidth),
          };
        }"""
    )  # fmt: skip


def inside(box, outer):
    left, top, right, bottom = box
    return left >= outer[0] - 0.5 and top >= outer[1] - 0.5 and right <= outer[2] + 0.5 and bottom <= outer[3] + 0.5


def test_the_neuron_fits_the_window_whole_with_nothing_cut_off(screen, served):
    open_view(screen, served, f'expr=neuron&present=1&step={X1_W1}', X1_W1)
    expect(screen.locator('[data-testid="stSidebar"]')).to_have_count(0)
    expect(screen.get_by_role('button', name='Leave presentation')).to_be_visible()
    window = [0, 0, screen.size['width'], screen.size['height']]
    shown = measure(screen)
    assert shown['page_width'] <= screen.size['width']  # no sideways scrolling
    for part in ('bar', 'caption', 'rules', 'svg'):
        assert inside(shown[part], window), (part, shown[part], window)
    assert inside(shown['svg'], shown['view'])
    if screen.size['width'] == 1920:
        assert shown['number_px'] >= READABLE_PX, shown['number_px']
    print(f'{screen.size}: numbers {shown["number_px"]:.1f} px')
    title = f'Frame {X1_W1 + 1} of 17 · backward pass: x1*w1 = x1 × w1 passes its grad back'
    expect(screen.locator('.player .caption')).to_have_text(title)
    leaves, out = PRESETS['neuron'].build()
    trace = trace_backward(out, leaves)
    lines = screen.locator('.player .rules > div').all_text_contents()
    assert lines == frame_rules(trace, frames(trace)[X1_W1])


def test_a_big_graph_keeps_the_active_node_in_view_at_every_frame_stepped_to(screen, served):
    open_view(screen, served, 'expr=mlp&present=1&step=end', 65)
    window = [0, 0, screen.size['width'], screen.size['height']]
    for k in range(65, 30, -1):
        wait_for_player(screen, k)
        shown = measure(screen)
        assert inside(shown['active'], shown['view']) and inside(shown['view'], window), (k, shown)
        assert shown['page_width'] <= screen.size['width']
        screen.keyboard.press('ArrowLeft')
    for part in ('bar', 'caption', 'rules'):
        assert inside(shown[part], window), part


def test_the_keys_step_the_presentation_without_clicking_it_first(page, served):
    open_view(page, served, 'expr=neuron&present=1&speed=10&step=7', 7)
    for key, k in (('ArrowRight', 8), ('ArrowRight', 9), ('ArrowLeft', 8), ('End', 16), ('Home', 0)):
        page.keyboard.press(key)
        wait_for_player(page, k)
    page.keyboard.press(' ')
    # playing: past frame 0 (at 10 steps/s a loaded machine may skip any one frame between two looks)
    expect(page.locator('.player .explain')).to_have_attribute('data-frame', re.compile(r'[1-9]\d*'))
    page.keyboard.press(' ')
    expect(page.locator('.player .play')).to_have_text('▶ Play')


def test_hiding_the_new_grads_asks_at_a_backward_frame_and_the_next_step_shows_them(page, served):
    open_view(page, served, f'expr=neuron&present=1&hide=new&step={X1_W1}', X1_W1)
    assert (boxes(page)['x1'][1], boxes(page)['w1'][1]) == ('?', '?')
    assert boxes(page)['x1*w1'][1] == '0.5000'  # written before: not asked
    show_shape(page, 'wide')  # the shape with the chain rule on its edges
    squeezed = 'g => [...g.querySelectorAll("text")].map(t => t.textContent).join(" ").split(/\\s+/).join(" ").trim()'
    labels = page.locator('.player g.lab.hot').evaluate_all(f'gs => gs.map({squeezed})')  # each label's lines
    assert labels == ['? × 0.5000 += ?'] * 2  # the local grad is the question too: only the upstream grad is given
    expect(page.locator('.player .rules')).to_contain_text('x1.grad += ? × (x1*w1).grad = ? × 0.5000 = ?')
    page.keyboard.press('ArrowRight')
    wait_for_player(page, X1_W1 + 1)
    assert (boxes(page)['x1'][1], boxes(page)['w1'][1]) == ('-1.5000', '1.0000')
