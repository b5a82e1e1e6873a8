"""The chain's |grad| plot (view/depth_plot.py): its path, its numbers against the chain rule by hand, the points
each frame shows, the line on w, its size, and that no other expression gets one."""

import json
import math
import re
import xml.etree.ElementTree as ET

import pytest

from engine import PRESETS, chain, numeric_grads, parse_expression, trace_backward
from engine.frames import frames, grads_at
from view.depth_plot import (
    MAX_POINTS,
    chain_path,
    depth_plots,
    plot_html,
    plot_points,
    shown_points,
    w_line,
    w_uses,
)
from view.numbers import fmt, number_width
from view.player_body import make_body

SVG = '{http://www.w3.org/2000/svg}'


def traced(expression, values=None):
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


def names(trace, indices):
    return [trace.nodes[i].name for i in indices]


def parsed(plots, k):
    """Frame k's plot as the player shows it, parsed: its <svg> and the text of the line on w ('' if none)."""
    root = ET.fromstring(f'<div>{plot_html(plots, k)}</div>')
    (svg,) = root.findall(f'{SVG}svg')
    line = root.find('p')
    return svg, '' if line is None else line.text


def vertices(svg):
    """The points' (x, y) in the SVG, from the path that joins them."""
    path = svg.find(f".//{SVG}path[@class='pts']")
    if path is None:
        return []
    pairs = [tuple(map(float, p.split())) for p in path.get('d')[1:].split('L')]
    assert int(path.get('data-points')) == len(pairs)
    return pairs


def test_the_chains_main_path_runs_from_the_output_back_to_x():
    assert names(traced(chain(3)), chain_path(traced(chain(3)))) == ['h3', 'z3', 'h2', 'z2', 'h1', 'z1', 'x']
    assert names(traced(chain(1)), chain_path(traced(chain(1)))) == ['h1', 'z1', 'x']
    assert len(chain_path(traced(chain(500)))) == 1001


@pytest.mark.parametrize('key', [key for key in PRESETS if key != 'chain'])
def test_no_other_preset_gets_a_plot(key):
    trace = traced(PRESETS[key])
    assert chain_path(trace) is None
    assert depth_plots(trace, frames(trace)) is None
    assert plot_points(trace, frames(trace)[-1]) == []


@pytest.mark.parametrize('formula', ['h1 = tanh(x*w)', 'h2 = tanh(tanh(x*w)*w)', 'tanh(x*w)'])
def test_a_typed_formula_shaped_like_the_chain_gets_no_plot(formula):
    trace = traced(parse_expression(formula))
    assert chain_path(trace) is None and depth_plots(trace, frames(trace)) is None


def body_of(expression, hide='none'):
    """The player's body as make_body makes it, with a stand-in for the layout's SVG (the plot does not read it)."""
    trace = traced(expression)
    width = number_width(trace)
    all_frames = frames(trace, hide=hide)
    numeric = numeric_grads(expression, {})
    return json.loads(make_body(trace, all_frames, width=width, numeric=numeric, graph={'svg': '<svg/>'}))


def test_the_player_is_sent_the_plot_for_the_chain_and_none_for_the_neuron_or_reuse():
    assert body_of(PRESETS['neuron'])['plots'] is None
    assert body_of(PRESETS['reuse'])['plots'] is None
    plots = body_of(chain(10))['plots']
    assert len(plots['at']) == len(frames(traced(chain(10))))
    assert body_of(chain(10), hide='all')['plots'] is None  # it would tell every answer


def test_chain_1s_grads_at_the_end_are_the_chain_rule_by_hand():
    x, w = chain(1).defaults['x'], chain(1).defaults['w']
    assert (x, w) == (0.5, 1.5)
    trace = traced(chain(1))
    by_hand = {'h1': 1.0, 'z1': 1 - math.tanh(x * w) ** 2, 'x': w * (1 - math.tanh(x * w) ** 2)}
    shown = {trace.nodes[i].name: g for i, g in plot_points(trace, frames(trace)[-1])}
    assert shown.keys() == by_hand.keys()
    for name, g in by_hand.items():
        assert shown[name] == pytest.approx(g, rel=1e-12)


def test_chain_3s_grads_at_the_end_are_the_chain_rule_by_hand():
    x, w = 0.5, 1.5
    h1 = math.tanh(x * w)
    h2 = math.tanh(h1 * w)
    h3 = math.tanh(h2 * w)
    z3 = 1 - h3**2
    z2 = z3 * w * (1 - h2**2)
    z1 = z2 * w * (1 - h1**2)
    by_hand = [1.0, z3, z3 * w, z2, z2 * w, z1, z1 * w]  # h3, z3, h2, z2, h1, z1, x
    trace = traced(chain(3))
    assert [g for _, g in plot_points(trace, frames(trace)[-1])] == pytest.approx(by_hand, rel=1e-12)


def test_the_points_are_placed_along_the_chain_on_a_log_scale():
    trace = traced(chain(10))
    plots = depth_plots(trace, frames(trace))
    svg, _ = parsed(plots, len(plots['at']) - 1)
    xs, ys = zip(*vertices(svg))
    assert list(xs) == sorted(xs, reverse=True)  # the output at the right, x at the left, as the graph
    logs = [math.log10(g) for _, g in plot_points(trace, frames(trace)[-1])]
    slope = (ys[-1] - ys[0]) / (logs[-1] - logs[0])
    assert slope < 0  # a larger grad is higher
    for y, log in zip(ys, logs):
        assert y == pytest.approx(ys[0] + slope * (log - logs[0]), abs=1.0)  # pixels rounded to whole ones
    assert 'log scale' in ''.join(svg.itertext())


@pytest.mark.parametrize('n', [1, 3, 10])
@pytest.mark.parametrize('forward', [True, False])
def test_each_frames_plot_shows_exactly_the_path_nodes_whose_grads_are_computed_by_then(n, forward):
    trace = traced(chain(n))
    path = chain_path(trace)
    all_frames = frames(trace, forward)
    plots = depth_plots(trace, all_frames)
    assert len(plots['at']) == len(all_frames)
    for k, frame in enumerate(all_frames):
        grads = grads_at(trace, frame)
        computed = [i for i in path if grads[i] is not None]
        assert [i for i, _ in plot_points(trace, frame)] == computed
        assert [g for _, g in plot_points(trace, frame)] == [abs(grads[i]) for i in computed]
        svg, _ = parsed(plots, k)
        assert len(vertices(svg)) == len(computed)
        ring = svg.find(f".//{SVG}circle[@class='now']")
        assert (ring is None) == (not computed)  # the one reached last is marked
        if computed:
            assert (float(ring.get('cx')), float(ring.get('cy'))) == vertices(svg)[-1]
            assert f'{trace.nodes[computed[-1]].name}: {fmt(abs(grads[computed[-1]]))}' in ''.join(svg.itertext())


def test_each_backward_step_along_the_path_adds_one_point():
    trace = traced(chain(4))
    counts = [len(plot_points(trace, f)) for f in frames(trace, forward=False)]
    path = len(chain_path(trace))
    assert counts[:path] == list(range(1, path + 1))  # the seed, then one a step until x
    assert set(counts[path:]) == {path}  # the leaves' steps pass nothing on


@pytest.mark.parametrize('n', [1, 2, 10, 40, 500])
def test_every_frames_plot_parses_as_svg_with_labels_of_at_least_12_px(n):
    trace = traced(chain(n))
    plots = depth_plots(trace, frames(trace))
    for k in {0, len(plots['at']) // 2, len(plots['at']) - 1}:
        svg, _ = parsed(plots, k)
        assert svg.get('viewBox') == f'0 0 {svg.get("width")} {svg.get("height")}'  # drawn at its own size
        assert float(svg.get('font-size')) >= 12
        for text in svg.iter(f'{SVG}text'):
            assert float(text.get('font-size', svg.get('font-size'))) >= 12


def test_the_w_line_gives_ws_final_grad_and_its_count_of_uses_from_the_trace():
    trace = traced(chain(10))
    w, uses = w_uses(trace)
    assert trace.nodes[w].name == 'w' and uses == 10 == sum(node.children.count(w) for node in trace.nodes)
    final = trace.final_grads()
    x = chain_path(trace)[-1]
    assert abs(final[w]) > abs(final[x])
    plots = depth_plots(trace, frames(trace))
    _, line = parsed(plots, len(plots['at']) - 1)
    assert line == w_line(trace, frames(trace)[-1])
    assert fmt(final[w]) == '0.3740' and f"w's grad, {fmt(final[w])}, is the largest input grad" in line
    assert 'used in all 10 steps' in line and 'collects += from each' in line
    numbers = re.findall(r'\d+\.\d+', line)
    assert numbers == [fmt(final[w])]


def test_the_w_line_waits_for_the_last_use_before_giving_a_number():
    trace = traced(chain(10))
    all_frames = frames(trace)
    w, _ = w_uses(trace)
    lines = [w_line(trace, f) for f in all_frames]
    final_at = trace.final_after()[w]
    for frame, line in zip(all_frames, lines):
        written = grads_at(trace, frame)[w] is not None
        assert (line != '') == written
        assert (fmt(trace.final_grads()[w]) in line) == (frame.steps_done >= final_at)


def test_chain_1s_w_line_says_w_is_used_once():
    trace = traced(chain(1))
    line = w_line(trace, frames(trace)[-1])
    assert 'used once' in line and fmt(trace.final_grads()[1]) in line


def test_hidden_grads_stay_hidden_in_the_plot_and_the_w_line():
    trace = traced(chain(5))
    all_frames = frames(trace, hide='new')
    plots = depth_plots(trace, all_frames)
    w, _ = w_uses(trace)
    for k, frame in enumerate(all_frames):
        hidden = frame.hidden
        shown = [i for i, _ in plot_points(trace, frame)]
        assert not set(shown) & hidden
        svg, line = parsed(plots, k)
        assert len(vertices(svg)) == len(shown)
        if w in hidden:
            assert not re.search(r'\d\.\d', line)
    every = frames(trace, hide='all')
    assert depth_plots(trace, every) is None and plot_points(trace, every[-1]) == []


def test_a_long_chain_is_thinned_and_the_plot_stays_small():
    trace = traced(chain(500))
    places = shown_points(1001)
    assert len(places) <= MAX_POINTS and places[0] == 0 and places[-1] == 1000
    assert all((b - a) % 2 == 0 for a, b in zip(places, places[1:]))  # the h's: no zigzag between h and z
    all_frames = frames(trace)
    plots = depth_plots(trace, all_frames)
    assert len(json.dumps(plots, separators=(',', ':'))) < 80_000
    svg, _ = parsed(plots, len(all_frames) - 1)
    assert len(vertices(svg)) == len(places)
    assert '1 in 16 nodes shown' in ''.join(svg.itertext())
    small = depth_plots(traced(chain(10)), frames(traced(chain(10))))
    assert len(json.dumps(small, separators=(',', ':'))) < 20_000


@pytest.mark.parametrize('values', [{'w': 0.0}, {'w': 10.0}, {'x': 1e6, 'w': 1e6}])
def test_zero_or_vanished_grads_are_drawn_on_the_floor(values):
    trace = traced(chain(60), values)
    plots = depth_plots(trace, frames(trace))
    svg, _ = parsed(plots, len(plots['at']) - 1)
    zeros = sum(1 for _, g in plot_points(trace, frames(trace)[-1]) if g == 0)
    assert zeros
    assert len(svg.findall(f".//{SVG}circle[@fill='white']")) == zeros  # hollow, on the floor
