"""The chain's |grad| plot in a real browser: it gains a point for each backward step along the chain as Next is
pressed, without asking the server, shows the line on w at the end, and other expressions show no plot at all."""

import pytest
from playwright.sync_api import expect
from test_browser_demo import VIEW, wait_for_player

from engine import PRESETS, chain, trace_backward
from engine.frames import frames
from view.depth_plot import plot_points, w_line
from view.numbers import fmt

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEW)
    yield context.new_page()
    context.close()


def traced(expression):
    leaves, out = expression.build()
    return trace_backward(out, leaves)


def test_the_chains_plot_gains_a_point_per_backward_step_along_the_chain_without_asking_the_server(page, served):
    trace = traced(chain(10))
    all_frames = frames(trace)
    seed = next(k for k, f in enumerate(all_frames) if f.kind == 'seed')
    counts = [len(plot_points(trace, f)) for f in all_frames]
    sent = []  # what the browser sends the server: after the page has loaded, a step must send nothing
    page.on('websocket', lambda ws: ws.on('framesent', lambda payload: sent.append(payload)))
    page.goto(f'{served}/?expr=chain&step={seed}')
    wait_for_player(page, seed)
    plot = page.locator('.player .plot')
    points = plot.locator('path.pts')
    expect(plot).to_be_visible()
    expect(points).to_have_attribute('data-points', '1')
    expect(plot.locator('svg')).to_contain_text('h10: 1.0000')
    page.wait_for_timeout(1500)
    assert sent  # the page's own run; from here on, nothing
    sent.clear()
    for k in range(seed + 1, len(all_frames)):
        page.get_by_role('button', name='Next').click()
        wait_for_player(page, k)
        expect(points).to_have_attribute('data-points', str(counts[k]))
    assert counts[seed:] == sorted(counts[seed:]) and max(counts) == 21  # one a step, h10 … x, then the leaves'
    svg = plot.locator('svg')
    x, w = trace.final_grads()[0], trace.final_grads()[1]
    expect(svg).to_contain_text(f'x: {fmt(x)}')  # the two ends of the lesson, on screen together
    expect(svg).to_contain_text('h10: 1.0000')
    expect(plot.locator('p.wline')).to_have_text(w_line(trace, all_frames[-1]))
    expect(plot.locator('p.wline')).to_contain_text(f"w's grad, {fmt(w)}, is the largest input grad")
    box = svg.bounding_box()
    assert box['width'] >= 500  # at its own size: its 13 px labels stay 13 px
    page.wait_for_timeout(1000)
    assert not sent


def test_the_plot_is_there_before_the_backward_pass_with_no_points(page, served):
    page.goto(f'{served}/?expr=chain&n=3&step=0')
    wait_for_player(page, 0)
    plot = page.locator('.player .plot')
    expect(plot).to_be_visible()
    expect(plot.locator('svg')).to_contain_text('log scale')
    expect(plot.locator('path.pts')).to_have_count(0)


@pytest.mark.parametrize('key', ['neuron', 'reuse'])
def test_other_expressions_show_no_plot_box(page, served, key):
    n = len(frames(traced(PRESETS[key])))
    page.goto(f'{served}/?expr={key}&step=end')
    wait_for_player(page, n - 1)
    plot = page.locator('.player .plot')
    expect(plot).to_be_hidden()
    assert plot.inner_html() == ''
    page.get_by_role('button', name='Prev').click()
    wait_for_player(page, n - 2)
    expect(plot).to_be_hidden()
