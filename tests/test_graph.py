"""components.graph.build_dot on plain data: one op node per op, one edge per input slot, the active step
highlighted with its amounts, escaped labels, and a layout that never moves between frames (laid out by `dot`)."""

import colorsys
import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import graphviz
import pytest

from components import graph
from components.graph import ACTIVE, COLOUR_MEANINGS, LEGEND, MARK_STYLE, build_dot, label_width
from components.numbers import number_width
from engine import PRESETS, Value, chain, parse_expression, trace_backward
from engine.frames import frames

EXPRESSIONS = {**PRESETS, 'chain5': chain(5), 'typed': parse_expression('L=tanh(x*w + b) * y - x/2 + exp(-y)')}


def traced(expression, values=None):
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


LABEL = re.compile(r'l\d+_\d+')  # an edge's label, a node on the edge (l3_0: op 3's input 0)


def raw_edges(source):
    """[(tail, head, {attr: value})] in the order of the DOT source, each edge into an op in its two halves."""
    found = []
    for match in re.finditer(r'^\s*(\w+) -> (\w+)(?: \[(.*)\])?$', source, flags=re.M):
        found.append((match.group(1), match.group(2), attrs(match.group(3) or '')))
    return found


def edges(source):
    """[(tail, head, {attr: value})] in the order of the DOT source; an edge that runs through its label node is one
    edge, with its second half's attributes and the label node's label."""
    raw, labels = raw_edges(source), label_nodes(source)
    onward = {tail: (head, a) for tail, head, a in raw if LABEL.fullmatch(tail)}
    found = []
    for tail, head, a in raw:
        if LABEL.fullmatch(head):
            op, second = onward[head]
            found.append((tail, op, {**second, 'label': labels[head]['label']}))
        elif not LABEL.fullmatch(tail):
            found.append((tail, head, a))
    return found


def all_nodes(source):
    found = {}
    for match in re.finditer(r'^\s*(\w+) \[(.*)\]$', source, flags=re.M):
        if match.group(1) in ('graph', 'node', 'edge'):
            continue
        found[match.group(1)] = attrs(re.sub(r'label=<.*</table>>', '', match.group(2)))
    return found


def nodes(source):
    """{node id: {attr: value}}, the attributes outside the HTML label; not the edges' label nodes."""
    return {name: a for name, a in all_nodes(source).items() if not LABEL.fullmatch(name)}


def label_nodes(source):
    return {name: a for name, a in all_nodes(source).items() if LABEL.fullmatch(name)}


def attrs(text):
    pairs = re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', text)
    return {key: value[1:-1] if value.startswith('"') else value for key, value in pairs}


def frame_at(trace, node_name, kind='backward'):
    (frame,) = [f for f in frames(trace) if f.kind == kind and f.node >= 0 and trace.nodes[f.node].name == node_name]
    return frame


# --- the shape of the graph -------------------------------------------------------------------------


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_one_op_node_per_op_and_one_edge_per_input_slot(key):
    trace = traced(EXPRESSIONS[key])
    source = build_dot(trace, frames(trace)[0], number_width(trace)).source
    ops = [i for i, node in enumerate(trace.nodes) if node.op]
    stops = {f'b{i}_{slot}' for i in ops for slot, _ in enumerate(trace.nodes[i].children)}
    ids = set(nodes(source))
    assert ids - stops == {f'n{i}' for i in range(len(trace.nodes))} | {f'n{i}_op' for i in ops}
    all_edges = [(tail, head) for tail, head, _ in edges(source)]
    line_from = {head: tail for tail, head in all_edges if head in stops}

    def value_behind(tail):  # a stop on a value's line leads back to the value
        while tail in line_from:
            tail = line_from[tail]
        return tail

    for i in ops:
        into = sorted(value_behind(tail) for tail, head in all_edges if head == f'n{i}_op')
        assert into == sorted(f'n{c}' for c in trace.nodes[i].children)
        assert all_edges.count((f'n{i}_op', f'n{i}')) == 1
    used_stops = ids & stops
    assert len(all_edges) == sum(len(trace.nodes[i].children) + 1 for i in ops) + len(used_stops)


def test_a_value_used_many_times_reaches_its_uses_along_one_line_of_stops():
    # the chain's w feeds all 10 multiplies: one edge leaves w, to the first stop; each stop feeds one use
    trace = traced(chain(10))
    w = next(i for i, node in enumerate(trace.nodes) if node.name == 'w')
    source = build_dot(trace, frames(trace)[0], number_width(trace)).source
    pairs = [(tail, head) for tail, head, _ in edges(source)]
    multiplies = [i for i, node in enumerate(trace.nodes) if node.op == '*']
    assert len(multiplies) == 10
    assert [head for tail, head in pairs if tail == f'n{w}'] == [f'b{multiplies[0]}_1']
    for i in multiplies:
        assert (f'b{i}_1', f'n{i}_op') in pairs  # w is the multiply's other (slot 1)


def test_a_times_a_draws_two_edges_from_a_into_the_same_op():
    # reuse in forward order: a=n0, b=n1, a*b=n2, a*a=n3, out=n4
    trace = traced(PRESETS['reuse'])
    assert [n.name for n in trace.nodes] == ['a', 'b', 'a*b', 'a*a', 'out']
    source = build_dot(trace, frames(trace)[-1], number_width(trace)).source
    pairs = [(tail, head) for tail, head, _ in edges(source)]
    assert pairs.count(('n0', 'n3_op')) == 2
    assert pairs.count(('n0', 'n2_op')) == 1 and pairs.count(('n1', 'n2_op')) == 1
    assert re.findall(r'^\s*n0 -> (l3_\d)\b', source, flags=re.M) == ['l3_0', 'l3_1']  # each through its label


def test_node_ids_are_stable_across_builds():
    sources = set()
    for _ in range(3):
        trace = traced(PRESETS['neuron'])
        sources.add(build_dot(trace, frames(trace)[5], number_width(trace)).source)
    assert len(sources) == 1
    (source,) = sources
    assert set(re.findall(r'\bn(\d+)(?:_op)?\b', source)) == {str(i) for i in range(10)}


# --- the active step --------------------------------------------------------------------------------


def test_reuse_number_width_is_its_widest_number():
    # data 3, -2, -6, 9, 3 and grads up to 6: '-6.0000' is the widest, 7 characters
    assert number_width(traced(PRESETS['reuse'])) == 7


def test_the_a_times_b_step_highlights_its_node_and_edges_with_the_amounts():
    trace = traced(PRESETS['reuse'])
    width = 7
    source = build_dot(trace, frame_at(trace, 'a*b'), width).source
    node_attrs = nodes(source)
    assert node_attrs['n2']['color'] == ACTIVE
    assert node_attrs['n2_op']['color'] == ACTIVE
    for other in ('n0', 'n1', 'n3', 'n4', 'n3_op', 'n4_op'):
        assert node_attrs[other].get('color') != ACTIVE, other
    by_pair = {}
    for tail, head, a in edges(source):
        by_pair.setdefault((tail, head), []).append(a)
    # a*b's _backward: a.grad += b.data * 1 = -2, b.grad += a.data * 1 = 3
    (into_a,) = by_pair[('n0', 'n2_op')]
    (into_b,) = by_pair[('n1', 'n2_op')]
    # the chain rule on the edge: local gradient × upstream grad, over = the amount
    assert into_a['label'] == '-2.0000 ×  1.0000\\n' + ' ' * 17 + '\\n        = -2.0000'
    assert into_b['label'] == ' 3.0000 ×  1.0000\\n' + ' ' * 17 + '\\n        =  3.0000'
    assert into_a['color'] == into_b['color'] == ACTIVE
    (out_edge,) = by_pair[('n2_op', 'n2')]
    assert out_edge['color'] == ACTIVE
    for pair in (('n0', 'n3_op'), ('n2', 'n4_op'), ('n3', 'n4_op')):
        for a in by_pair[pair]:
            assert a.get('color') != ACTIVE
            assert a['label'] == '\\n'.join([' ' * (2 * width + 3)] * 3)


def test_the_a_times_a_step_carries_three_along_both_edges():
    trace = traced(PRESETS['reuse'])
    source = build_dot(trace, frame_at(trace, 'a*a'), 7).source
    labels = [a['label'] for tail, head, a in edges(source) if (tail, head) == ('n0', 'n3_op')]
    three = ' 3.0000 ×  1.0000\\n' + ' ' * 17 + '\\n        =  3.0000'  # a.grad += a.data × out.grad
    assert labels == [three] * 2
    hot = [(tail, head) for tail, head, a in edges(source) if a.get('color') == ACTIVE]
    assert sorted(hot) == [('n0', 'n3_op'), ('n0', 'n3_op'), ('n3_op', 'n3')]


def test_the_seed_frame_marks_only_the_output_and_in_its_own_colour_not_a_backward_calls():
    trace = traced(PRESETS['lecture'])
    seed = frames(trace)[4]  # inputs, e, d, L, then the seed
    assert seed.kind == 'seed'
    source = build_dot(trace, seed, number_width(trace)).source
    node_attrs = nodes(source)
    output = f'n{len(trace.nodes) - 1}'
    assert [i for i, a in node_attrs.items() if a.get('color') == graph.SEED] == [output]
    assert not [i for i, a in node_attrs.items() if a.get('color') == ACTIVE]  # no _backward runs at the seed
    assert not [e for e in edges(source) if e[2].get('color') in (ACTIVE, graph.SEED)]
    # the output's own _backward, the next frame, is marked the other way
    step = nodes(build_dot(trace, frames(trace)[5], number_width(trace)).source)[output]
    assert (step['color'], step['penwidth']) == (ACTIVE, graph.MARK_WIDTH)
    seeded = (node_attrs[output]['color'], node_attrs[output]['penwidth'])
    assert seeded == (graph.SEED, graph.SEED_WIDTH) != (ACTIVE, graph.MARK_WIDTH)
    assert 'seed' in LEGEND.lower() and graph.SEED in LEGEND


def test_each_colour_of_the_graph_means_one_thing():
    # one meaning a colour and one colour a meaning, in the graph and the legend; blue is not also a fill
    assert len(set(COLOUR_MEANINGS.values())) == len(COLOUR_MEANINGS)
    marks = {ACTIVE, graph.FORWARD, graph.SEED, graph.UNDEFINED}
    fills = {graph.FINAL_FILL, graph.ACCUMULATING_FILL}
    assert set(COLOUR_MEANINGS) == marks | fills and not marks & fills
    hues = {colour: colorsys.rgb_to_hls(*(int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)))[0] for colour in marks}
    for fill in fills:  # a fill is not a pale version of a mark's colour: 10° of hue apart at least
        hue = colorsys.rgb_to_hls(*(int(fill[k : k + 2], 16) / 255 for k in (1, 3, 5)))[0]
        assert all(min(abs(hue - h), 1 - abs(hue - h)) > 10 / 360 for h in hues.values()), fill
    for meaning in COLOUR_MEANINGS.values():
        assert meaning in LEGEND
    # the node table's row tint is the tint of the frame's mark: a forward frame's is not the backward colour's
    assert graph.TINTS == {graph.ACTIVE_TINT: ACTIVE, graph.FORWARD_TINT: graph.FORWARD, graph.SEED_TINT: graph.SEED}
    assert len({graph.ACTIVE_TINT, graph.FORWARD_TINT, graph.SEED_TINT}) == 3
    for mark in ('active', 'seed', 'forward'):
        assert MARK_STYLE[mark]['color'] == {'active': ACTIVE, 'seed': graph.SEED, 'forward': graph.FORWARD}[mark]


def test_leaf_steps_highlight_the_leaf_and_no_edge():
    trace = traced(PRESETS['lecture'])
    source = build_dot(trace, frames(trace)[-1], number_width(trace)).source
    assert [i for i, a in nodes(source).items() if a.get('color') == ACTIVE] == [f'n{trace.steps[-1].node}']
    assert not [e for e in edges(source) if e[2].get('color') == ACTIVE]


@pytest.mark.parametrize(
    ('key', 'values'),
    [*((key, None) for key in EXPRESSIONS), pytest.param('tiny amount', {'a': 6.0}, id='tiny amount')],
)
def test_every_edge_label_keeps_its_width_through_all_frames(key, values):
    # 'tanh(a) + a' at a = 6: tanh's _backward adds 1 - tanh(6)**2 ≈ 2.5e-5, written in e-notation
    expression = parse_expression('tanh(a) + a') if key == 'tiny amount' else EXPRESSIONS[key]
    trace = traced(expression, values)
    width = number_width(trace)
    local_width = label_width(trace, width)
    for frame in frames(trace):
        for tail, head, a in edges(build_dot(trace, frame, width).source):
            if head.endswith('_op'):
                lines = a['label'].split('\\n')
                assert [len(line) for line in lines] == [local_width + 3 + width] * 3, (frame, tail, head, lines)


# --- escaping ---------------------------------------------------------------------------------------


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


@pytest.mark.parametrize('text', ['<b> + 1', 'a<b', 'x&y', '"a"'])
def test_typed_formulas_cannot_name_values_with_markup(text):
    from engine import ExpressionError

    with pytest.raises(ExpressionError):
        parse_expression(text)


# --- the layout (needs Graphviz's `dot`) -------------------------------------------------------------


def layout(source):
    """(bounding box, {object name: pos}) as `dot` lays the DOT out."""
    laid = json.loads(graphviz.Source(source).pipe(format='json'))
    return laid['bb'], {obj['name']: obj['pos'] for obj in laid['objects']}


def assert_layout_never_moves(trace):
    width = number_width(trace)
    sources = [build_dot(trace, frame, width).source for frame in frames(trace)]
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
