"""Learning from a batch in Chromium: alone, a point's pass, the next point, and a step on the mean, on a laptop and a
phone; together, a projector and three followers (two phones and a laptop) each handed a point, their grads sent, the
projector's sums, its step, and every follower's graph at the new parameters. Every number is worked out by hand from
the regression's formula, L = (w·x + b − y)², on the example's points."""

import pytest
from playwright.sync_api import expect
from test_browser_demo import wait_for_player

from engine.batch import EXAMPLES

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)
POINTS = EXAMPLES['regression']
SCREENS = {
    'laptop': {'viewport': {'width': 1400, 'height': 900}},
    'phone': {'viewport': {'width': 390, 'height': 844}, 'is_mobile': True, 'has_touch': True},
}


def value(page, name):
    """A node's data as the player's node table shows it at the frame shown."""
    row = page.locator('.player .table tbody tr').filter(has=page.locator('th', has_text=name)).first
    return row.locator('td').nth(1).inner_text().strip()


def shares(w, b, points):
    return [(2 * (w * x + b - y) * x, 2 * (w * x + b - y)) for x, y in points]


@pytest.mark.parametrize('screen', SCREENS)
def test_alone_a_points_pass_the_next_point_and_a_step_on_the_mean(browser, served, screen):
    context = browser.new_context(**SCREENS[screen])
    try:
        page = context.new_page()
        page.goto(f'{served}/?expr=regression&mode=batch&point=3&step=0')
        wait_for_player(page, 0)
        assert (value(page, 'x'), value(page, 'y')) == (f'{POINTS[2][0]:.4f}', f'{POINTS[2][1]:.4f}')
        page.get_by_role('button', name='Next point').click()
        expect(page.locator('.player .table tbody tr').filter(has=page.locator('th', has_text='x')).first
               ).to_contain_text(f'{POINTS[3][0]:.4f}')  # fmt: skip
        assert 'point=4' in page.url
        n = len(POINTS)
        dw = sum(g for g, _ in shares(0.5, 0.0, POINTS)) / n
        page.get_by_role('button', name='Take this step').click()
        expect(page.locator('.player .table tbody tr').filter(has=page.locator('th', has_text='w')).first
               ).to_contain_text(f'{0.5 - 0.1 * dw:.4f}')  # fmt: skip
        assert 'learned=1' in page.url
    finally:
        context.close()


def test_the_room_learns_together_and_every_follower_takes_the_step(browser, served):
    projector = browser.new_context(viewport={'width': 1920, 'height': 1080})
    followers = [browser.new_context(**SCREENS[s]) for s in ('phone', 'phone', 'laptop')]
    try:
        lecturer = projector.new_page()
        lecturer.goto(f'{served}/?expr=regression&mode=batch&present=1&step=0')
        wait_for_player(lecturer, 0)
        lecturer.get_by_role('button', name='Start a class').click()
        code = lecturer.get_by_test_id('class-code')
        code.wait_for()
        code = code.inner_text().replace(' ', '')
        lecturer.get_by_role('button', name='Learn together').click()
        expect(lecturer.get_by_text('0 of 20 points in')).to_be_visible()
        pages = []
        for context in followers:
            page = context.new_page()
            page.goto(f'{served}/?class={code}')
            wait_for_player(page)
            pages.append(page)
        for k, page in enumerate(pages):  # handed points 1, 2, 3 in the order they asked
            box = page.locator('.player .grads')  # the box under the player's bar, in view on a phone
            expect(box).to_contain_text(f'Your point: {k + 1} of 20')
            assert value(page, 'x') == f'{POINTS[k][0]:.4f}'
            box.get_by_role('button', name='Send my grads to the class').click()
            expect(box.get_by_role('status')).to_contain_text(f'Sent ✓ point {k + 1}: w.grad += ')
            expect(box.get_by_role('status')).to_be_visible()
        expect(lecturer.get_by_text('3 of 20 points in')).to_be_visible(timeout=3_000)  # the panel reads each second
        sums = shares(0.5, 0.0, POINTS[:3])
        dw, db = sum(g for g, _ in sums) / 3, sum(g for _, g in sums) / 3
        lecturer.get_by_role('button', name='Step on the mean').click()
        w, b = 0.5 - 0.1 * dw, -0.1 * db
        for page in pages:  # each follower's graph at the class's new parameters, its own point still
            row = page.locator('.player .table tbody tr').filter(has=page.locator('th', has_text='w')).first
            expect(row).to_contain_text(f'{w:.4f}', timeout=5_000)
            assert value(page, 'b') == f'{b:.4f}'
        expect(lecturer.get_by_text('0 of 20 points in')).to_be_visible()  # a new batch
    finally:
        projector.close()
        for context in followers:
            context.close()
