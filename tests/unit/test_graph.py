"""view.graph.build_dot on plain data: one op node per op, one edge per input slot, the active step
highlighted with its amounts, escaped labels, and a layout that never moves between frames (laid out by `dot`)."""

import colorsys
import dataclasses
import math
import re
from pathlib import Path

import pytest

from engine import PRESETS, assign, chain, parse_expression, trace_backward
from engine.frames import frames
from view import graph, palette
from view.graph import LEGEND, MARK_STYLE, build_dot, label_width
from view.numbers import number_width
from view.palette import ACTIVE, COLOUR_MEANINGS

ROOT = Path(__file__).resolve().parents[2]

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
    # the chain rule on the edge: local gradient × upstream grad, over += the amount it adds
    assert into_a['label'] == '-2.0000 ×  1.0000\\n' + ' ' * 17 + '\\n       += -2.0000'
    assert into_b['label'] == ' 3.0000 ×  1.0000\\n' + ' ' * 17 + '\\n       +=  3.0000'
    assert into_a['color'] == into_b['color'] == ACTIVE
    (out_edge,) = by_pair[('n2_op', 'n2')]
    assert out_edge['color'] == ACTIVE
    for pair in (('n0', 'n3_op'), ('n2', 'n4_op'), ('n3', 'n4_op')):
        for a in by_pair[pair]:
            assert a.get('color') != ACTIVE
            blank = ' ' * (2 * width + 3)  # nothing to read, and its edge's line drawn on through its middle
            assert a['label'] == '\\n'.join([blank, graph.THROUGH * len(blank), blank])


def test_the_a_times_a_step_carries_three_along_both_edges():
    trace = traced(PRESETS['reuse'])
    source = build_dot(trace, frame_at(trace, 'a*a'), 7).source
    labels = [a['label'] for tail, head, a in edges(source) if (tail, head) == ('n0', 'n3_op')]
    three = ' 3.0000 ×  1.0000\\n' + ' ' * 17 + '\\n       +=  3.0000'  # a.grad += a.data × out.grad
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
    assert [i for i, a in node_attrs.items() if a.get('color') == palette.SEED] == [output]
    assert not [i for i, a in node_attrs.items() if a.get('color') == ACTIVE]  # no _backward runs at the seed
    assert not [e for e in edges(source) if e[2].get('color') in (ACTIVE, palette.SEED)]
    # the output's own _backward, the next frame, is marked the other way
    step = nodes(build_dot(trace, frames(trace)[5], number_width(trace)).source)[output]
    assert (step['color'], step['penwidth']) == (ACTIVE, palette.MARK_WIDTH)
    seeded = (node_attrs[output]['color'], node_attrs[output]['penwidth'])
    assert seeded == (palette.SEED, palette.SEED_WIDTH) != (ACTIVE, palette.MARK_WIDTH)
    assert 'seed' in LEGEND.lower() and palette.SEED in LEGEND


def test_each_colour_of_the_graph_means_one_thing():
    # one meaning a colour and one colour a meaning, in the graph and the legend; blue is not also a fill
    assert len(set(COLOUR_MEANINGS.values())) == len(COLOUR_MEANINGS)
    marks = {ACTIVE, palette.FORWARD, palette.SEED, palette.UNDEFINED}
    fills = {palette.FINAL_FILL, palette.ACCUMULATING_FILL, palette.WRONG_FILL}
    assert set(COLOUR_MEANINGS) == marks | fills and not marks & fills
    hues = {colour: colorsys.rgb_to_hls(*(int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)))[0] for colour in marks}
    for fill in fills:  # a fill is not a pale version of a mark's colour: 10° of hue apart at least
        hue = colorsys.rgb_to_hls(*(int(fill[k : k + 2], 16) / 255 for k in (1, 3, 5)))[0]
        assert all(min(abs(hue - h), 1 - abs(hue - h)) > 10 / 360 for h in hues.values()), fill
    for meaning in COLOUR_MEANINGS.values():  # every row a legend may show (a graph's shows those its frames draw)
        assert meaning in LEGEND, meaning
    # the node table's row tint is the tint of the frame's mark: a forward frame's is not the backward colour's
    assert palette.TINTS == {
        palette.ACTIVE_TINT: ACTIVE,
        palette.FORWARD_TINT: palette.FORWARD,
        palette.SEED_TINT: palette.SEED,
    }
    assert len({palette.ACTIVE_TINT, palette.FORWARD_TINT, palette.SEED_TINT}) == 3
    for mark in ('active', 'seed', 'forward'):
        assert MARK_STYLE[mark]['color'] == {'active': ACTIVE, 'seed': palette.SEED, 'forward': palette.FORWARD}[mark]


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


@pytest.mark.parametrize('text', ['<b> + 1', 'a<b', 'x&y', '"a"'])
def test_typed_formulas_cannot_name_values_with_markup(text):
    from engine import ExpressionError

    with pytest.raises(ExpressionError):
        parse_expression(text)


# --- which number is the contribution, and the `=` engine's looks ---------------------------------------------
# f = (a·b)·(a + b) at a = −2, b = 3, by hand: d = a·b = −6, e = a + b = 1, f = d·e = −6; forward order a, b, d, e,
# f (n0..n4), frames 0 inputs, 1-3 forward, 4 seed, 5 f's step, 6 e's, 7 d's, 8 b's, 9 a's. f's step: d.grad = 1,
# e.grad = −6; e's (+) passes −6 to a and to b; d's (×) adds b.data × 1 = 3 to a (−6 → −3), a.data × 1 = −2 to b
# (−6 → −8). With = instead, d's step writes a.grad = 3 and b.grad = −2, throwing e's two −6 away: a and b end
# wrong (3 for −3, −2 for −8); d, e and f are written once, and right. The widest number is −6.0000, 7 characters.


def traced_on(engine, key, values=None):
    """A trace of EXPRESSIONS[key] on `engine`, engine.value's Value or engine.assign's (the `=` bug)."""
    leaves, out = EXPRESSIONS[key].build(values, value_type=engine.Value)
    return trace_backward(out, leaves)


def label_lines(source, label_id):
    return label_nodes(source)[label_id]['label'].split('\\n')


def test_an_edge_label_gives_its_contribution_after_plus_equals_beside_the_box_of_the_grad_it_makes():
    trace = traced(PRESETS['ab_times_a_plus_b'])
    assert [n.name for n in trace.nodes] == ['a', 'b', 'd', 'e', 'f']
    frame = frames(trace)[7]  # d's step
    source = build_dot(trace, frame, 7).source
    assert label_lines(source, 'l2_0') == [' 3.0000 ×  1.0000', ' ' * 17, '       +=  3.0000']  # into a: adds 3
    assert label_lines(source, 'l2_1') == ['-2.0000 ×  1.0000', ' ' * 17, '       += -2.0000']  # into b: adds −2
    looks = [
        graph.value_look(
            trace, frame, i=i, grads=trace.grads(frame.steps_done), final_after=trace.final_after(), width=7
        )
        for i in range(5)
    ]
    assert [look[1] for look in looks[:2]] == ['-3.0000', '-8.0000']  # the boxes: the grads the += makes


def test_on_the_assigning_engine_an_edge_label_writes_its_amount_with_equals_as_its_code_does():
    trace = traced_on(assign, 'ab_times_a_plus_b')
    source = build_dot(trace, frames(trace)[7], 7).source
    assert label_lines(source, 'l2_0') == [' 3.0000 ×  1.0000', ' ' * 17, '        =  3.0000']  # a.grad = 3


def test_a_thrown_away_label_on_a_narrow_graph_keeps_the_mark_and_its_width():
    product = '1.0 × -6.0'  # 10 characters: too narrow for '✗ lost -6.0', 11
    assert graph.lost_label(f'{product}\n{" " * 10}\n    = -6.0') == f'{product}\n{" " * 10}\n    ✗ -6.0'


ASSIGNING = ['reuse', 'a_plus_a', 'ab_times_a_plus_b', 'typed']


@pytest.mark.parametrize('key', ASSIGNING)
def test_on_the_assigning_engine_every_edge_label_keeps_its_width_through_all_frames(key):
    trace = traced_on(assign, key)
    width = number_width(trace)
    local_width = label_width(trace, width)
    thrown = 0
    for frame in (f for hide in ('none', 'new', 'all') for f in frames(trace, hide=hide)):  # hidden: '✗ lost ?'
        source = build_dot(trace, frame, width).source
        thrown += source.count('✗')
        for name, a in label_nodes(source).items():
            assert [len(line) for line in a['label'].split('\\n')] == [local_width + 3 + width] * 3, (frame, name)
    assert thrown > 0  # each of these graphs reuses a value, so = throws something away


def test_a_final_grad_that_plus_equals_makes_otherwise_has_its_own_look_at_every_frame_it_is_final():
    trace = traced_on(assign, 'ab_times_a_plus_b')
    seen = {}
    for k, frame in enumerate(frames(trace)):
        fills = {name: a.get('fillcolor') for name, a in nodes(build_dot(trace, frame, 7).source).items()}
        seen[k] = sorted(name for name, fill in fills.items() if fill == palette.WRONG_FILL)
        drawn = nodes(build_dot(trace, frame, 7).source)
        lost = {trace.nodes[c.child].id for _, c in graph.lost(trace, frame)}  # dashed as their lost edge is, now
        assert all('dotted' in drawn[name]['style'] for name in seen[k] if name not in lost)
        assert all(drawn[name]['style'].endswith(',dashed') for name in lost)
    # a and b are final from d's step on, and wrong (3 for −3, −2 for −8); d, e and f never: = wrote them once
    assert seen == {k: (['n0', 'n1'] if k >= 7 else []) for k in range(10)}


def test_while_grads_are_hidden_a_wrong_grad_looks_hidden_as_every_other():
    trace = traced_on(assign, 'ab_times_a_plus_b')
    last = frames(trace)[-1]
    asked = dataclasses.replace(last, hidden=frozenset({0}))
    assert (
        graph.value_look(
            trace, asked, i=0, grads=trace.grads(last.steps_done), final_after=trace.final_after(), width=7
        )[2]
        == 'hidden'
    )
    assert (
        graph.value_look(
            trace, last, i=0, grads=trace.grads(last.steps_done), final_after=trace.final_after(), width=7
        )[2]
        == 'wrong'
    )


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_the_plus_equals_engine_never_draws_a_grad_wrong(key):
    trace = traced(EXPRESSIONS[key])
    assert graph.wrong_grads(trace) == frozenset()
    last = frames(trace)[-1]
    grads, final_after = trace.grads(last.steps_done), trace.final_after()
    assert {
        graph.value_look(trace, last, i=i, grads=grads, final_after=final_after, width=7)[2]
        for i in range(len(trace.nodes))
    } == {'final'}


def test_the_wrong_grads_are_the_reused_values_and_what_they_feed_by_hand():
    # reuse: a (used 3 times) ends −2 for 4; b, a*b, a*a, out are written once. b = a + a: a ends 1 for 2
    names = lambda trace, found: sorted(trace.nodes[i].name for i in found)  # noqa: E731
    for key, wrong in [('reuse', ['a']), ('a_plus_a', ['a']), ('ab_times_a_plus_b', ['a', 'b']), ('neuron', [])]:
        trace = traced_on(assign, key)
        assert names(trace, graph.wrong_grads(trace)) == wrong, key


FORMULAS = ['y = a**3 * a + 1/a', 'y = relu(a)*a + sigmoid(a)*a', 'y = sin(a)*cos(a)*a - log(a)*a', 'y = tanh(a)*a']


@pytest.mark.parametrize('key', [*EXPRESSIONS, *FORMULAS])
def test_what_plus_equals_gives_is_the_plus_equals_engines_own_floats_worked_out_from_either_trace(key):
    expression = parse_expression(key) if key in FORMULAS else EXPRESSIONS[key]
    values = {name: 0.7 for name in expression.defaults} if key in FORMULAS else None
    leaves, out = expression.build(values)
    right = trace_backward(out, leaves)
    leaves, out = expression.build(values, value_type=assign.Value)
    wrong = trace_backward(out, leaves)
    bits = lambda grads: [g.hex() for g in grads]  # noqa: E731  (bit for bit: not approximately)
    assert bits(graph.plus_equals_grads(right)) == bits(right.final_grads())
    assert bits(graph.plus_equals_grads(wrong)) == bits(right.final_grads())
    differ = {i for i, (g, r) in enumerate(zip(wrong.final_grads(), right.final_grads())) if g != r}
    assert graph.wrong_grads(wrong) == differ


# Machado, Oliveira and Fernandes (2009): how protan, deutan and tritan vision (severity 1) sees linear RGB
CVD = {
    'protan': ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    'deutan': ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    'tritan': ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
    'typical': ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}


def seen_as_lab(colour, vision):
    """CIELAB (D65) of `colour` as `vision` sees it."""
    srgb = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    rgb = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb]
    rgb = [min(1, max(0, sum(m * c for m, c in zip(row, rgb)))) for row in CVD[vision]]
    to_xyz = ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505))
    xyz = [sum(m * c for m, c in zip(row, rgb)) / w for row, w in zip(to_xyz, (0.95047, 1.0, 1.08883))]
    f = [t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


@pytest.mark.parametrize('vision', CVD)
def test_the_wrong_fill_is_told_apart_from_the_other_fills_whatever_the_viewers_colour_vision(vision):
    # ΔE (CIE76) of 20 or more: about the final fill and the accumulating one's own distance under deutan vision
    wrong = seen_as_lab(palette.WRONG_FILL, vision)
    for other in (palette.FINAL_FILL, palette.ACCUMULATING_FILL, '#FFFFFF'):
        assert math.dist(wrong, seen_as_lab(other, vision)) >= 20, (vision, other)


def test_the_legend_of_the_assigning_engine_shows_the_wrong_look_as_the_graph_draws_it():
    assert palette.WRONG_FILL in graph.LEGEND and 'dotted' in graph.LEGEND
    assert palette.COLOUR_MEANINGS[palette.WRONG_FILL] in graph.LEGEND
    assert graph.STATE_STYLE['wrong'] == {'style': 'rounded,filled,dotted', 'fillcolor': palette.WRONG_FILL}
    css = (ROOT / 'components' / 'player' / 'player.css').read_text()
    assert (
        'g.v.wrong > path { fill: var(--wrong-fill);' in css
        and palette.CSS_VARIABLES['--wrong-fill'] == palette.WRONG_FILL
    )


def contrast_ratio(a, b):
    """WCAG 2.1's contrast ratio of two #RRGGBB colours."""

    def luminance(colour):
        srgb = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_ratio_is_wcags():  # its own worked values: black on white 21:1, a colour on itself 1:1
    assert contrast_ratio('#000000', '#FFFFFF') == pytest.approx(21)
    assert contrast_ratio('#767676', '#FFFFFF') == pytest.approx(4.54, abs=0.01)  # the classic AA grey
    assert contrast_ratio('#D55E00', '#D55E00') == 1


def high_contrast(name):
    return palette.HIGH_CONTRAST.get(name, palette.CSS_VARIABLES[name])


def test_the_high_contrast_look_writes_every_grey_text_at_7_to_1_and_ink_on_every_fill_at_7_to_1():
    for text in ('--faint', '--secondary', '--undefined', '--active-text', '--ink'):
        assert contrast_ratio(high_contrast(text), '#FFFFFF') >= 7, text
    for fill in ('--final-fill', '--accumulating-fill', '--wrong-fill'):
        assert contrast_ratio(high_contrast('--ink'), high_contrast(fill)) >= 7, fill
    for pen in ('--pen', '--mark-width', '--hot-width', '--seed-width'):  # every pen thicker
        assert float(high_contrast(pen)) > float(palette.CSS_VARIABLES[pen]), pen
    for fill in ('--final-fill', '--accumulating-fill'):  # the pale fills darker: a lower lightness L*
        lightness = seen_as_lab(high_contrast(fill), 'typical')[0]
        assert lightness < seen_as_lab(palette.CSS_VARIABLES[fill], 'typical')[0] - 5, fill


@pytest.mark.parametrize('vision', CVD)
def test_the_high_contrast_fills_are_told_apart_whatever_the_viewers_colour_vision(vision):
    fills = [high_contrast(name) for name in ('--final-fill', '--accumulating-fill', '--wrong-fill')] + ['#FFFFFF']
    for k, one in enumerate(fills):
        for other in fills[k + 1 :]:
            assert math.dist(seen_as_lab(one, vision), seen_as_lab(other, vision)) >= 20, (vision, one, other)
