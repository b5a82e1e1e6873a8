"""Forward mode (mode=forward, wrt=NAME) in a real browser, on a laptop and on a phone: the boxes carry a tangent
beside the data, Next steps it forward op by op to the output, the last frame checks it against the backward pass,
another input is chosen in the sidebar, a link's unknown input falls back to the first with a toast, and the page
speaks of tangents where it shows them.

Worked by hand. reuse is out = a*b + a*a at a = 3, b = -2, its values in topological order a, b, a*b, a*a, out; its
frames in forward mode: 0 the inputs (their tangents given), 1 a*b, 2 a*a, 3 out. By a: the tangents are a 1, b 0;
a*b = b·1 + a·0 = -2; a*a = a·1 + a·1 = 6 (its two edges each 3 × 1 = 3); out = 1·(-2) + 1·6 = 4, which is
∂out/∂a = b + 2a, the backward pass's a.grad. By b: a 0, b 1; a*b = b·0 + a·1 = 3; a*a = 0; out = 3 = ∂out/∂b = a.
Each op has two inputs, so getting both grads forward takes 2 passes of 6 local-gradient multiplications (12), and
backward one pass of 6. a reaches out three ways: through a*b (-2 × 1) and through each use in a*a (3 × 1 twice),
which sum to 4.
"""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect
from test_browser_code import RERUN, TOASTS, expect_toast
from test_browser_demo import VIEW, show_shape, wait_for_player
from test_browser_fit import PHONE, SEEN, inside

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)

SCREENS = {'laptop': {'viewport': VIEW}, 'phone': PHONE}
LINK = 'expr=reuse&mode=forward'
NAMES = ('a', 'b', 'a*b', 'a*a', 'out')
BY_A = {  # each frame's tangents by a, as the boxes show them; '·' where the value is not computed yet
    0: {'a': '1.0000', 'b': '0.0000', 'a*b': '·', 'a*a': '·', 'out': '·'},
    1: {'a': '1.0000', 'b': '0.0000', 'a*b': '-2.0000', 'a*a': '·', 'out': '·'},
    2: {'a': '1.0000', 'b': '0.0000', 'a*b': '-2.0000', 'a*a': '6.0000', 'out': '·'},
    3: {'a': '1.0000', 'b': '0.0000', 'a*b': '-2.0000', 'a*a': '6.0000', 'out': '4.0000'},
}
BY_B = {'a': '0.0000', 'b': '1.0000', 'a*b': '3.0000', 'a*a': '0.0000', 'out': '3.0000'}  # at the last frame
DATA = {'a': '3.0000', 'b': '-2.0000', 'a*b': '-6.0000', 'a*a': '9.0000', 'out': '3.0000'}

# how wide the page is: the document and Streamlit's own scrolling container, the widest of them
PAGE_WIDTH = """() => {
  const scrollers = [document.documentElement, ...document.querySelectorAll('[data-testid="stMain"]')];
  return [Math.max(...scrollers.map((e) => e.scrollWidth - e.clientWidth + innerWidth)), innerWidth];
}"""

# every edge label's lines, spaces run together (the numbers are padded to one width): {label id: [its lines]}
LABELS = r"""root => Object.fromEntries([...root.querySelectorAll('.view svg g.lab')].map((g) => [
  g.id, [...g.querySelectorAll('text')].map((t) => t.textContent.trim().replace(/\s+/g, ' '))
    .filter((text) => text && !/^─+$/.test(text)),  // a blank label's middle line, drawn as its edge goes on
]))"""


@pytest.fixture(params=list(SCREENS))
def screen(request, browser):
    """A page on a laptop or on a phone held upright, keeping every toast it shows (TOASTS)."""
    context = browser.new_context(**SCREENS[request.param])
    page = context.new_page()
    page.add_init_script(f'({TOASTS})()')
    page.screen = request.param
    yield page
    context.close()


def open_forward(page, url, query=f'{LINK}&wrt=a'):
    page.goto(f'{url}/?{query}')
    wait_for_player(page, 0)


def shown(page):
    """{name: {row title: text}} of every value box: a box's rows as its titles name them (data, then grad or
    tangent)."""
    texts = page.locator('.player .view svg g.node').evaluate_all(
        'nodes => nodes.map(g => [...g.querySelectorAll("text")].map(t => t.textContent.trim()))'
    )
    return {t[0]: {t[1]: t[2], t[3]: t[4]} for t in texts if len(t) == 5}


def tangents(page):
    """{name: tangent} of every value box; it fails where a box's second row is not titled `tangent`."""
    boxes = shown(page)
    assert {name: list(rows) for name, rows in boxes.items()} == {name: ['data', 'tangent'] for name in NAMES}
    return {name: rows['tangent'] for name, rows in boxes.items()}


def frame(page):
    return int(page.locator('.player .explain').get_attribute('data-frame'))


def step(page):
    """The next frame, by the player's Next button: tapped on a phone, clicked on a laptop."""
    k, button = frame(page), page.locator('.player .next')
    button.tap() if page.screen == 'phone' else button.click()
    wait_for_player(page, k + 1)


def caption(page):
    return page.locator('.player .caption')


def summary_rows(page):
    return page.locator('.player .summary table.check tbody tr').evaluate_all(  # the check, not the costs under it
        'rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))'
    )


def choose(page, name):
    """Choose `name` in the sidebar's Derivative by (a phone opens the sidebar first, and closes it after); done
    when the rerun has written it into the link."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    if page.screen == 'phone':
        page.locator('[data-testid="stExpandSidebarButton"]').tap()
        expect(sidebar).to_have_attribute('data-collapsed', 'false')
    option = page.get_by_role('option', name=name, exact=True)
    for _ in range(3):  # a run that lands as the list opens (the controls' own, after the graph) may close it
        page.get_by_role('combobox', name='Derivative by').click()
        try:
            option.wait_for(timeout=5_000)
            break
        except PlaywrightTimeoutError:
            page.keyboard.press('Escape')
    option.click()
    page.wait_for_function(
        'name => new URLSearchParams(location.search).get("wrt") === name', arg=name, timeout=RERUN
    )  # fmt: skip
    if page.screen == 'phone':
        sidebar.locator('[data-testid="stSidebarCollapseButton"] button').click()
        expect(sidebar).to_have_attribute('data-collapsed', 'true')


def test_a_forward_link_titles_the_boxes_tangent_and_next_carries_the_tangent_to_the_outputs_4(screen, served):
    page = screen
    open_forward(page, served)
    expect(caption(page)).to_have_text(re.compile(r'^Frame 1 of 4 · forward mode: the inputs are set'))
    for k in range(4):
        if k:
            step(page)
        assert tangents(page) == BY_A[k], f'{page.screen} frame {k}'
    assert {name: rows['data'] for name, rows in shown(page).items()} == DATA
    expect(caption(page)).to_have_text(re.compile(r'^Frame 4 of 4 · forward mode: out = a\*b \+ a\*a'))
    expect(page.locator('.player .next')).to_be_disabled()
    summary = page.locator('.player .summary')
    expect(summary).to_contain_text('the forward pass’s tangent and the backward pass’s grad are the same number')
    assert summary_rows(page) == [
        ['forward mode: the output’s tangent', '4.0000'],
        ['backward pass: a.grad', '4.0000'],
        ['finite difference', '4.0000'],
    ]
    expect(page.locator('.player .explain')).to_contain_text('what the backward pass gives a.grad, 4.0000')


def test_choosing_b_in_derivative_by_carries_bs_tangent_to_the_outputs_3_the_value_of_a(screen, served):
    page = screen
    open_forward(page, served)
    choose(page, 'b')
    wait_for_player(page, 0)
    seed = page.locator('.player .view svg g#n1 text').nth(4)  # b's tangent: the player redrawn for b
    expect(seed).to_have_text(re.compile(r'^\s*1\.0000\s*$'), timeout=RERUN)
    assert tangents(page) == {'a': '0.0000', 'b': '1.0000', 'a*b': '·', 'a*a': '·', 'out': '·'}
    for _ in range(3):
        step(page)
    assert tangents(page) == BY_B
    expect(caption(page)).to_have_text(re.compile(r'^Frame 4 of 4 · forward mode: .* its tangent ∂out/∂b$'))
    assert summary_rows(page) == [
        ['forward mode: the output’s tangent', '3.0000'],
        ['backward pass: b.grad', '3.0000'],
        ['finite difference', '3.0000'],
    ]


def test_an_unknown_input_in_a_link_is_said_in_a_toast_and_the_first_input_is_followed(screen, served):
    page = screen
    open_forward(page, served, f'{LINK}&wrt=zzz')
    expect_toast(page, 'wrt=zzz: this graph has no input of that name, so forward mode follows its first, a.')
    expect(page.get_by_role('combobox', name='Derivative by')).to_have_value('a')
    assert tangents(page) == BY_A[0]
    for _ in range(3):
        step(page)
    assert tangents(page)['out'] == '4.0000'


def test_the_legend_under_the_graph_speaks_of_tangents_and_of_no_grad_but_the_local_one(screen, served):
    page = screen
    open_forward(page, served)
    legend = page.locator('.player .legend')
    for words in ('tangent not computed yet', 'tangent worked out', 'the input chosen: its tangent is 1'):
        expect(legend).to_contain_text(words)
    said = legend.evaluate('e => [...e.children].filter(c => c.tagName !== "STYLE").map(c => c.textContent).join(" ")')
    assert 'grad' not in said.replace('local grad', ''), said  # a local gradient is what it multiplies the tangent by


def test_on_a_phone_no_frame_and_not_the_costs_below_it_scroll_the_page_sideways(browser, served):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.screen = 'phone'
    try:
        open_forward(page, served)
        for k in range(4):
            if k:
                step(page)
            width, window = page.evaluate(PAGE_WIDTH)
            assert width <= window, f'frame {k}: the page is {width} px wide on a {window} px phone'
        rules = page.locator('.player .rules')  # the sums over the graph: the tall shape has no edge labels
        expect(rules).to_contain_text('∂out/∂a = 1.0000 × (−2.0000) + 1.0000 × 6.0000 = 4.0000')
        expect(page.locator('.player .summary table.costs')).to_be_attached()  # the last frame: the costs too
        paths = page.locator('[data-testid="stExpander"]').filter(has_text='The chain rule as a sum over paths')
        expect(paths).to_contain_text('The 3 paths from a to the output')
        expect(paths).to_contain_text('Their products sum to 4.0000')
        paths.scroll_into_view_if_needed()
        width, window = page.evaluate(PAGE_WIDTH)
        assert width <= window, f'under the graph, the page is {width} px wide on a {window} px phone'
    finally:
        context.close()


def test_on_the_wide_shape_the_active_ops_edges_read_local_gradient_times_tangent_over_its_share(page, served):
    open_forward(page, served)
    show_shape(page, 'wide')
    page.locator('.player').evaluate('root => root.__player.go(2)')
    wait_for_player(page, 2)
    drawn = {k: v for k, v in page.locator('.player').evaluate(LABELS).items() if v}
    assert drawn == {'l3_0': ['3.0000 × 1.0000', '= 3.0000'], 'l3_1': ['3.0000 × 1.0000', '= 3.0000']}
    page.locator('.player .next').click()
    wait_for_player(page, 3)
    drawn = {k: v for k, v in page.locator('.player').evaluate(LABELS).items() if v}
    assert drawn == {'l4_0': ['1.0000 × -2.0000', '= -2.0000'], 'l4_1': ['1.0000 × 6.0000', '= 6.0000']}


def paths_table(page):
    """The paths' table under the graph: its column titles and its cells as the grid draws them (it puts in the page
    only the columns in sight)."""
    paths = page.locator('[data-testid="stExpander"]').filter(has_text='The chain rule as a sum over paths')
    grid = paths.locator('[data-testid="stDataFrame"]').first.locator('table[role="grid"]')
    expect(grid.locator('td').first).to_be_attached()  # the grid's cells for a screen reader, drawn on a canvas
    return grid.locator('th').all_text_contents(), grid.locator('td').all_text_contents()


def costs_at_the_end(page):
    """At the last frame, the player's table of what each way costs: its column titles, its rows, and its font size
    in px as drawn."""
    last = page.locator('.player').evaluate('root => root.__player.n - 1')
    page.locator('.player').evaluate(f'root => root.__player.go({last})')
    wait_for_player(page, last)
    table = page.locator('.player .summary table.costs')
    expect(table).to_be_visible()
    rows = [row.locator('td').all_text_contents() for row in table.locator('tbody tr').all()]
    size = table.evaluate('t => parseFloat(getComputedStyle(t.querySelector("td")).fontSize)')
    return table.locator('th').all_text_contents(), rows, size


def test_at_the_last_frame_the_costs_count_both_passes_of_reverse_mode_and_what_it_keeps(page, served):
    # reuse, out = a*b + a*a, by hand: 2 inputs, 3 ops (a*b, a*a, +), 6 op inputs, 5 values
    open_forward(page, served)
    expect(page.locator('.player .summary table.costs')).not_to_be_attached()  # not before the last frame
    head, rows, size = costs_at_the_end(page)
    assert head == ['to get', 'forward mode', 'reverse mode (backprop)']
    assert rows == [
        ['passes for every input’s grad (2)', '2 forward', '1 forward + 1 backward'],
        ['ops computed (data)', '6', '3'],  # 2 passes × 3 ops, against reverse mode's one forward pass
        ['multiplications by a local gradient', '12', '6'],  # 2 passes × 6 op inputs, against one backward pass's 6
        ['values kept for a later pass', '0', '5'],
    ]
    body = page.locator('.player .explain p').first.evaluate('p => parseFloat(getComputedStyle(p).fontSize)')
    assert size == body, (size, body)  # the body's size, not the smaller one of the player's other tables


def test_on_a_phone_the_costs_show_reverse_mode_beside_forward_mode(browser, served):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        open_forward(page, served)
        head, _, _ = costs_at_the_end(page)
        assert any(title.startswith('reverse mode') for title in head), head
    finally:
        context.close()


def test_the_three_paths_from_a_multiply_to_minus_2_3_and_3(page, served):
    open_forward(page, served)
    head, cells = paths_table(page)
    assert head == ['path', 'local gradients', 'product']
    rows = [cells[k : k + 3] for k in range(0, len(cells), 3)]
    assert sorted(row[2] for row in rows) == sorted(['−2.0000', '3.0000', '3.0000'])  # via a*b; each use in a*a


def test_each_path_from_a_reads_differently_the_two_through_a_times_a_by_the_use_they_take(page, served):
    open_forward(page, served)
    _, cells = paths_table(page)
    paths = cells[::3]
    assert len(paths) == 3 and len(set(paths)) == 3, paths


def test_the_boxes_are_titled_tangent_whoever_lays_the_graph_out(page, app_server):
    open_forward(page, app_server)
    assert tangents(page) == BY_A[0], app_server.source


def test_in_forward_mode_the_control_that_hides_numbers_speaks_of_tangents(page, served):
    open_forward(page, served)
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_role('combobox', name='Derivative by')).to_be_visible()
    hiding = sidebar.locator('.st-key-hide')
    expect(hiding).to_be_visible()
    said = f'{hiding.inner_text()} {hiding.locator("input").input_value()}'  # its label, and the choice shown
    assert 'grad' not in said.lower(), said


def test_on_a_1366_by_768_laptop_next_keeps_the_active_box_in_the_window_as_watching_does(browser, served):
    context = browser.new_context(viewport={'width': 1366, 'height': 768})
    page = context.new_page()
    page.screen = 'laptop'
    try:
        out_of_sight = {}
        for query in ('expr=reuse', f'{LINK}&wrt=a'):  # watching keeps it in sight: the same check, the same screen
            open_forward(page, served, query)
            n = page.locator('.player').evaluate('root => root.__player.n')
            for k in range(1, n):
                step(page)
                seen = page.locator('.player').evaluate(SEEN)
                if seen['active'] is not None and not inside(seen['active'], seen['seen']):
                    out_of_sight.setdefault(query, []).append(k)
        assert out_of_sight == {}, f'frames whose active box is out of the window: {out_of_sight}'
    finally:
        context.close()
