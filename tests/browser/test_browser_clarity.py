"""Issue 11, teaching clarity, in a real browser: each amount sits on its own edge, the numbers are large enough to
read from the back row, and a big graph keeps the node being worked on, and its output, in sight."""

import pytest
from playwright.sync_api import expect
from test_browser_demo import show_shape, wait_for_player

from engine import PRESETS, trace_backward
from engine.frames import frames

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)

# for every hot edge of the frame shown: its label's box, and its distance to every edge's path (in the SVG's units)
LABEL_DISTANCES = """root => {
  const player = root.__player;
  const along = (path, n = 80) =>
    Array.from({ length: n + 1 }, (_, j) => path.getPointAtLength((path.getTotalLength() * j) / n));
  // an edge's path: both its halves, up to its label and on from it to the op
  const points = new Map(Object.entries(player.edges).map(
    ([id, e]) => [id, e.parts.flatMap((g) => along(g.querySelector('path')))]));
  const far = (box, p) => Math.hypot(Math.max(box.x - p.x, 0, p.x - box.x - box.width),
                                     Math.max(box.y - p.y, 0, p.y - box.y - box.height));
  return Object.entries(player.edges).filter(([, e]) => e.g.classList.contains('hot')).map(([id, e]) => {
    const boxes = e.texts.filter((t) => t.textContent.trim()).map((t) => t.getBBox());
    const x = Math.min(...boxes.map((b) => b.x)), y = Math.min(...boxes.map((b) => b.y));
    const box = { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x,
                  height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
    const distance = {};
    for (const [other, ps] of points) distance[other] = Math.min(...ps.map((p) => far(box, p)));
    return { id, text: e.texts.map((t) => t.textContent.trim()).join(' / '), distance };
  });
}"""


@pytest.fixture
def view(browser):
    context = browser.new_context(viewport={'width': 1600, 'height': 1000})
    yield context.new_page()
    context.close()


def backward_frames(key):
    leaves, out = PRESETS[key].build()
    trace = trace_backward(out, leaves)
    return [k for k, f in enumerate(frames(trace)) if f.kind == 'backward' and trace.nodes[f.node].op]


@pytest.mark.parametrize('key', ['neuron', 'reuse'])
def test_every_amount_is_nearer_its_own_edge_than_any_other_edge(view, served, key):
    ks = backward_frames(key)
    view.goto(f'{served}/?expr={key}&step={ks[0]}')
    wait_for_player(view, ks[0])
    show_shape(view, 'wide')  # the shape with the chain rule on its edges
    checked = 0
    for k in ks:
        view.locator('.player').evaluate(f'root => root.__player.go({k})')
        wait_for_player(view, k)
        for label in view.locator('.player').evaluate(LABEL_DISTANCES):
            own = label['distance'][label['id']]
            others = {other: d for other, d in label['distance'].items() if other != label['id']}
            nearest = min(others, key=others.get)
            print(f'{key} {k} {label["id"]} {label["text"]!r}: own {own:.1f}, next {nearest} {others[nearest]:.1f}')
            assert own < others[nearest], (k, label)
            checked += 1
    assert checked >= len(ks)


NUMBER_PX = """root => {
  const text = root.querySelector('text.value');
  return parseFloat(text.getAttribute('font-size')) * text.getScreenCTM().a;
}"""


def test_the_neurons_numbers_are_readable_from_the_back_row_at_1600_by_1000(view, served):
    view.goto(f'{served}/?expr=neuron&step=14')
    wait_for_player(view, 14)
    view.evaluate('document.fonts.ready')
    view.wait_for_timeout(300)
    px = view.locator('.player').evaluate(NUMBER_PX)
    print(f'neuron at 1600x1000: numbers {px:.1f} px')
    assert px >= 16, px
    # the active node is in sight, though the graph is wider than the view
    shown = view.locator('.player').evaluate(IN_SIGHT)
    assert shown['active'] and shown['outputs'], shown


# the active value and the values it feeds, each wholly inside the view?
IN_SIGHT = """root => {
  const player = root.__player;
  const a = player.body.patches[player.cur].a;
  const view = player.view.getBoundingClientRect();
  const inside = (g) => { const b = g.getBoundingClientRect();
    return b.left >= view.left - 0.5 && b.right <= view.left + player.view.clientWidth + 0.5 &&
           b.top >= view.top - 0.5 && b.bottom <= view.top + player.view.clientHeight + 0.5; };
  const outputs = player.body.near[a][1];
  return { frame: player.cur, active: inside(player.values[a].g),
           outputs: outputs.every((j) => inside(player.values[j].g)), fed: outputs.length };
}"""


def test_the_mlp_keeps_the_active_node_and_the_value_it_feeds_in_sight_through_the_backward_pass(view, served):
    leaves, out = PRESETS['mlp'].build()
    trace = trace_backward(out, leaves)
    all_frames = frames(trace)
    seed = next(k for k, f in enumerate(all_frames) if f.kind == 'seed')
    view.goto(f'{served}/?expr=mlp&step={seed}')
    wait_for_player(view, seed)
    view.evaluate('document.fonts.ready')
    assert view.locator('.player').evaluate(NUMBER_PX) >= 16
    middle = (seed + len(all_frames)) // 2
    for k in range(seed + 1, len(all_frames)):  # stepping, as a class does
        view.locator('.player .next').click()
        wait_for_player(view, k)
        shown = view.locator('.player').evaluate(IN_SIGHT)
        if k == middle or trace.nodes[all_frames[k].node].op:  # every step that passes a grad back
            assert shown['active'] and shown['outputs'], (k, shown)
