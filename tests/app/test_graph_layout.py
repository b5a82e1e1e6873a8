"""The graph as Graphviz's `dot` lays it out and draws it (so in tests/app: it needs `dot`): the layout never moves
between frames, in every shape, the graph is drawn in formula order, a chain's main path along one row, names are
drawn as typed, and a thrown-away amount keeps its minus sign."""

import json
import shutil
from concurrent.futures import ThreadPoolExecutor

import graphviz
import pytest
from test_graph import EXPRESSIONS, ROOT, all_nodes, label_lines, label_nodes, raw_edges, traced, traced_on

from engine import Value, assign, chain, parse_expression, trace_backward
from engine.frames import frames
from view import graph, palette
from view.graph import SHAPES, build_dot
from view.numbers import number_width

# --- the layout (needs Graphviz's `dot`) -------------------------------------------------------------


def layout(source):
    """(bounding box, {object name: pos}) as `dot` lays the DOT out."""
    laid = json.loads(graphviz.Source(source).pipe(format='json'))
    return laid['bb'], {obj['name']: obj['pos'] for obj in laid['objects']}


def assert_layout_never_moves(trace, shape='wide'):
    width = number_width(trace)
    sources = [build_dot(trace, frame, width, shape=shape).source for frame in frames(trace)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        layouts = list(pool.map(layout, sources))
    first_bb, first_pos = layouts[0]
    assert len(first_pos) == len(all_nodes(sources[0]))
    for k, (bb, pos) in enumerate(layouts):
        assert bb == first_bb, f'frame {k}: bounding box {bb} != {first_bb}'
        moved = {name: (first_pos[name], p) for name, p in pos.items() if p != first_pos[name]}
        assert not moved, f'frame {k}: nodes moved {moved}'


def test_graphviz_dot_is_installed():
    assert shutil.which('dot'), 'Graphviz `dot` is missing: apt-get install graphviz'


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_layout_is_identical_at_every_frame(key):
    assert_layout_never_moves(traced(EXPRESSIONS[key]))


@pytest.mark.parametrize('shape', [s for s in SHAPES if s != 'wide'])
@pytest.mark.parametrize('key', ['neuron', 'reuse', 'lecture'])
def test_every_shape_keeps_its_layout_at_every_frame(key, shape):
    assert_layout_never_moves(traced(EXPRESSIONS[key]), shape)


def test_layout_is_identical_at_every_frame_when_an_amount_is_tiny():
    # tanh(a) + a at a = 6: every number shown fits '7.0000', but tanh's step adds ≈ 2.458e-05 along its edge
    assert_layout_never_moves(traced(parse_expression('tanh(a) + a'), {'a': 6.0}))


# --- formula order (needs `dot`) -----------------------------------------------------------------------


def heights(trace, names):
    """Each named value's height in dot's layout (dot's y grows upwards), at the last frame."""
    _, pos = layout(build_dot(trace, frames(trace)[-1], number_width(trace)).source)
    ids = {node.name: node.id for node in trace.nodes}
    return [float(pos[ids[name]].split(',')[1]) for name in names]


@pytest.mark.parametrize(
    ('key', 'top_to_bottom'),
    [
        ('neuron', ['x1', 'w1', 'x2', 'w2']),  # o = tanh(x1*w1 + x2*w2 + b)
        ('neuron', ['x1*w1', 'x2*w2']),
        ('reuse', ['a*b', 'a*a']),  # out = a*b + a*a
        ('mlp', ['n1', 'n2', 'n3']),  # the hidden neurons, 1 to 3
        ('mlp', ['h1*v1', 'h2*v2', 'h3*v3']),
    ],
)
def test_the_graph_is_drawn_in_formula_order_top_to_bottom(key, top_to_bottom):
    ys = heights(traced(EXPRESSIONS[key]), top_to_bottom)
    assert ys == sorted(ys, reverse=True), dict(zip(top_to_bottom, ys))


def test_a_chains_main_path_runs_along_one_row_and_its_bus_reads_as_a_line():
    trace = traced(chain(10))
    source = build_dot(trace, frames(trace)[-1], number_width(trace)).source
    _, pos = layout(source)
    main = [node.id for node in trace.nodes if node.name == 'x' or node.name[0] in 'zh']
    assert len(main) == 21  # x, then z1, h1 ... z10, h10
    assert len({pos[name].split(',')[1] for name in main}) == 1  # one height: the view does not drift
    stops = {name: a for name, a in all_nodes(source).items() if name.startswith('b')}
    assert stops and all(a['shape'] == 'point' and float(a['width']) <= 0.03 for a in stops.values())
    line = [a for tail, head, a in raw_edges(source) if head in stops]
    assert line and all(a['arrowhead'] == 'none' and a['penwidth'] == graph.BUS_WIDTH for a in line)


@pytest.mark.parametrize('key', ['reuse', 'ab_times_a_plus_b'])
def test_on_the_assigning_engine_the_layout_is_identical_at_every_frame(key):
    assert_layout_never_moves(traced_on(assign, key))


def test_names_are_html_escaped_in_labels():
    a = Value(2.0, label='<b>')
    b = Value(-3.0, label='x & "y"')
    out = a * b
    out.label = '</td></tr></table>>'
    trace = trace_backward(out, [a, b])
    source = build_dot(trace, frames(trace)[-1], number_width(trace)).source
    assert '<b>&lt;b&gt;</b>' in source
    assert '<b>x &amp; &quot;y&quot;</b>' in source
    assert '<b>&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&gt;</b>' in source
    layout = json.loads(graphviz.Source(source).pipe(format='json'))
    texts = [op['text'] for obj in layout['objects'] for op in obj.get('_ldraw_', []) if op.get('op') == 'T']
    assert '<b>' in texts and 'x & "y"' in texts and '</td></tr></table>>' in texts


def test_a_thrown_away_amount_keeps_its_minus_sign_and_no_line_is_drawn_through_it():
    trace = traced_on(assign, 'ab_times_a_plus_b')
    source = build_dot(trace, frames(trace)[7], 7).source  # d's writes throw away e's −6 into a and into b
    for slot in (0, 1):  # e = a + b: each had 1 × e.grad = 1 × −6 = −6
        assert label_lines(source, f'l3_{slot}') == [' 1.0000 × -6.0000', ' ' * 17, '   ✗ lost -6.0000']
        assert label_nodes(source)[f'l3_{slot}']['fontcolor'] == palette.INK
    assert '<S>' not in source and '<s>' not in graph.LEGEND
    legend = graph.legend_html([palette.LOST_KEY]).split('</style>')[-1]  # the row, after the colours' CSS variables
    words = ''.join(part.split('>')[-1] for part in legend.split('<'))  # its text, out of its tags
    assert 'lost' in words and not any(c.isdigit() for c in words)  # a legend makes up no number
    css = (ROOT / 'components' / 'player' / 'player.css').read_text()
    assert 'line-through' not in css
    svg = graphviz.Source(source).pipe(format='svg').decode()  # what the exports draw: no strike either
    assert 'line-through' not in svg and svg.count('✗ lost &#45;6.0000</text>') == 2  # its minus is a minus
