"""Forward mode (engine/forward.py, its frames, and what the page says of them), checked against references that do
not run it: derivatives worked out by hand, central finite differences of each value, the backward pass's grads, and
the paths counted by walking the Values themselves."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import PRESETS, chain, parse_expression, trace_backward
from engine.forward import counts, paths, tangents, terms
from engine.frames import frames, tangent_frames
from tests.unit.test_arithmetic_lines import (
    CASES,
    NUMBER,
    ROUNDED,
    ROUNDED_AT,
    check_line,
    decimal,
    traced,
    work_out,
    works_out,
)
from tests.unit.test_parse import formulas
from view.explanation import caption, explain, frame_rules, plain_text, tangent_line
from view.forward import MAX_PATHS, PATHS_UP_TO, costs, costs_words, path_name, paths_text, summary_html
from view.graph import TANGENT_ROWS, blank_label, build_dot, hot_edges, label_width
from view.numbers import number_width, tangent_width


def trace_of(expression, values=None):
    leaves, out = expression.build(values or {})
    return trace_backward(out, leaves)


def inputs_of(trace):
    return [i for i, node in enumerate(trace.nodes) if node.is_input]


def index(trace, name):
    return next(i for i, node in enumerate(trace.nodes) if node.name == name)


# --- the tangents ------------------------------------------------------------------------------------------------


def test_reuse_tangents_are_the_hand_worked_ones():
    # out = a·b + a·a at a = 3, b = −2: ∂(a·b)/∂a = b, ∂(a·a)/∂a = 2a, ∂out/∂a = b + 2a = 4; by b: a·b gives a = 3
    trace = trace_of(PRESETS['reuse'])
    by_a = dict(zip([n.name for n in trace.nodes], tangents(trace, index(trace, 'a')), strict=True))
    assert by_a == {'a': 1.0, 'b': 0.0, 'a*b': -2.0, 'a*a': 6.0, 'out': 4.0}
    by_b = dict(zip([n.name for n in trace.nodes], tangents(trace, index(trace, 'b')), strict=True))
    assert by_b == {'a': 0.0, 'b': 1.0, 'a*b': 3.0, 'a*a': 0.0, 'out': 3.0}


def test_neuron_tangents_are_the_chain_rule_by_hand():
    e = PRESETS['neuron']
    v = e.defaults
    slope = 1 - math.tanh(v['x1'] * v['w1'] + v['x2'] * v['w2'] + v['b']) ** 2  # d tanh(n)/dn, written by hand
    by_hand = {'x1': slope * v['w1'], 'w1': slope * v['x1'], 'x2': slope * v['w2'], 'w2': slope * v['x2'], 'b': slope}
    trace = trace_of(e)
    for name, expected in by_hand.items():
        assert tangents(trace, index(trace, name))[-1] == pytest.approx(expected, rel=1e-12), name


def nudged_data(expression, values, name, h):
    """Every value's data with input `name` moved by h: the same graph, so the same order."""
    return [node.data for node in trace_of(expression, {**values, name: values[name] + h}).nodes]


@pytest.mark.parametrize('key', list(PRESETS))
def test_every_values_tangent_matches_a_central_difference_of_its_data(key):
    expression, h = PRESETS[key], 1e-6
    values = dict(expression.defaults)
    trace = trace_of(expression)
    for i in inputs_of(trace):
        name = trace.nodes[i].name
        up, down = nudged_data(expression, values, name, h), nudged_data(expression, values, name, -h)
        for node, t, u, d in zip(trace.nodes, tangents(trace, i), up, down, strict=True):
            assert t == pytest.approx((u - d) / (2 * h), rel=1e-4, abs=1e-6), (key, name, node.name)


@pytest.mark.parametrize('key', list(PRESETS))
def test_the_outputs_tangent_is_the_backward_grad_of_every_input(key):
    trace = trace_of(PRESETS[key])
    grads = trace.final_grads()
    for i in inputs_of(trace):
        assert tangents(trace, i)[-1] == pytest.approx(grads[i], rel=1e-12, abs=1e-15), trace.nodes[i].name


@given(formulas(), st.floats(-1.5, 1.5), st.floats(-1.5, 1.5))
def test_generated_formulas_outputs_tangent_is_the_backward_grad(text, x, y):
    expression = parse_expression(text)
    trace = trace_of(expression, {k: v for k, v in {'x': x, 'y': y}.items() if k in expression.defaults})
    grads = trace.final_grads()
    for i in inputs_of(trace):
        assert tangents(trace, i)[-1] == pytest.approx(grads[i], rel=1e-9, abs=1e-12), (text, trace.nodes[i].name)


def test_a_long_chains_tangent_is_its_backward_grad():
    trace = trace_of(chain(500))
    for i in inputs_of(trace):
        assert tangents(trace, i)[-1] == pytest.approx(trace.final_grads()[i], rel=1e-9, abs=1e-300)


def test_an_ops_terms_are_its_local_gradients_times_the_tangents_coming_in():
    trace = trace_of(PRESETS['reuse'])
    a = index(trace, 'a')
    square = terms(trace, a, index(trace, 'a*a'))  # a·a: self and other are both a, each with local gradient a = 3
    assert [(t.slot, t.local_grad, t.tangent_in, t.amount) for t in square] == [(0, 3.0, 1.0, 3.0), (1, 3.0, 1.0, 3.0)]


# --- what each way costs, and the paths -----------------------------------------------------------------------------


def walked(out):
    """(the graph's values, its op inputs counted with repeats), from the Values themselves."""
    seen, stack, edges = {}, [out], 0
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen[id(v)] = v
        edges += len(v._prev)
        stack.extend(v._prev)
    return list(seen.values()), edges


def test_counts_are_the_graphs_inputs_values_ops_and_op_inputs():
    neuron = counts(trace_of(PRESETS['neuron']))
    # x1·w1, x2·w2 (2 each), two + (2 each), tanh (1): 5 ops, 9 op inputs; 5 inputs + 5 ops = 10 values
    assert (neuron.inputs, neuron.values, neuron.ops, neuron.edges) == (5, 10, 5, 9)
    for key, expression in PRESETS.items():
        leaves, out = expression.build()
        values, edges = walked(out)
        ops = sum(bool(v._prev) for v in values)
        got = counts(trace_backward(out, leaves))
        assert (got.inputs, got.values, got.ops, got.edges) == (len(leaves), len(values), ops, edges), key
        table = costs(trace_backward(out, leaves))
        rows = {row['to get']: (row['forward mode'], row['reverse mode (backprop)']) for _, row in table.iterrows()}
        assert rows == {
            f'passes for every input’s grad ({len(leaves)})': (f'{len(leaves)} forward', '1 forward + 1 backward'),
            'ops computed (data)': (f'{len(leaves) * ops:,}', f'{ops:,}'),
            'multiplications by a local gradient': (f'{len(leaves) * edges:,}', f'{edges:,}'),
            'values kept for a later pass': ('0', f'{len(values):,}'),
        }, key


def test_the_costs_table_has_the_parameters_rows_where_the_graph_learns():
    for key, expression in PRESETS.items():
        table = costs(trace_of(expression), expression.params)
        # passes, ops, multiplications for every input's grad, and again for the parameters'; the values kept once
        assert len(table) == (7 if expression.params else 4), key


@pytest.mark.parametrize('key', list(PRESETS))
def test_the_costs_words_say_the_counts_of_the_table(key):
    # every number the words give, read back, is a count made here on the Values
    expression = PRESETS[key]
    leaves, out = expression.build()
    values, edges = walked(out)
    ops, many = sum(bool(v._prev) for v in values), len(expression.params) or len(leaves)
    words = costs_words(trace_backward(out, leaves), expression.params)
    said = [int(x.replace(',', '')) for x in re.findall(r'(?<![\w.])(\d[\d,]*)(?!\.?\d|\w)', words.split('These')[0])]
    named = [many] if many > 1 else []  # 'the 5 inputs’ grads', 'the one input’s grad'
    assert said == [ops, len(values), edges, *named, many, many * ops, many * edges, ops, edges], words
    assert 'Counted as a plain pass runs' not in words and 'even by a tangent of 0' in words


def test_the_last_frames_summary_holds_the_costs_at_the_bodys_size():
    trace = trace_of(PRESETS['reuse'])
    html = summary_html(trace, index(trace, 'a'), None)
    assert html.index('Done.') < html.index('what each way costs')  # under the check
    assert '<table style="font-size: 1rem"' in html and 'values kept for a later pass' in html


def paths_by_walking(v, wrt):
    """How many ways lead from Value wrt to v, each use its own: counted on the Values, not the trace."""
    if v is wrt:
        return 1
    return sum(paths_by_walking(c, wrt) for c in v._prev)


@pytest.mark.parametrize('key', list(PRESETS))
def test_paths_are_counted_as_walking_the_graph_counts_them(key):
    leaves, out = PRESETS[key].build()
    trace = trace_backward(out, leaves)
    if len(trace.nodes) > 200:
        pytest.fail(f'{key} is too big to walk every path: pick a smaller preset list')
    by_name = {v.label: v for v in walked(out)[0] if v.label}
    for i in inputs_of(trace):
        found = paths(trace, i, cap=MAX_PATHS)
        assert found.count == paths_by_walking(out, by_name[trace.nodes[i].name]), (key, trace.nodes[i].name)
        assert len(found.shown) == min(found.count, MAX_PATHS)
        assert all(p.nodes[0] == i and p.nodes[-1] == trace.output for p in found.shown)


def test_reuse_has_three_paths_from_a_whose_products_sum_to_its_grad():
    trace = trace_of(PRESETS['reuse'])
    found = paths(trace, index(trace, 'a'), cap=MAX_PATHS)
    names = sorted(path_name(trace, p) for p in found.shown)
    assert names == ['a → a*a (use 1) → out', 'a → a*a (use 2) → out', 'a → a*b → out']
    assert sorted(p.product for p in found.shown) == [-2.0, 3.0, 3.0]  # b; a, twice: b + 2a = 4
    assert math.fsum(p.product for p in found.shown) == trace.final_grads()[index(trace, 'a')]


@pytest.mark.parametrize('key', [k for k in PRESETS if k != 'chain'])
def test_every_paths_product_sums_to_the_grad(key):
    trace = trace_of(PRESETS[key])
    for i in inputs_of(trace):
        found = paths(trace, i, cap=10_000)
        assert len(found.shown) == found.count
        total = math.fsum(p.product for p in found.shown)
        assert total == pytest.approx(trace.final_grads()[i], rel=1e-9, abs=1e-12), (key, trace.nodes[i].name)


def test_a_graph_with_more_paths_than_the_cap_says_how_many_it_left_out():
    trace = trace_of(chain(6))
    w = index(trace, 'w')
    found = paths(trace, w, cap=3)
    assert found.count > 3 and len(found.shown) == 3
    table, words = paths_text(trace, w)
    assert len(table) == min(found.count, MAX_PATHS) and f'{found.count:,} paths' in words


def test_a_big_graph_lists_no_paths():
    trace = trace_of(chain(100))
    assert len(trace.nodes) > PATHS_UP_TO and paths_text(trace, inputs_of(trace)[0]) is None


# --- the frames and what they say -----------------------------------------------------------------------------------


def test_forward_modes_frames_are_the_inputs_then_each_op_in_topological_order():
    trace = trace_of(PRESETS['neuron'])
    wrt = inputs_of(trace)[0]
    got = frames(trace, wrt=wrt)
    ops = [i for i, node in enumerate(trace.nodes) if node.op]
    assert [(f.kind, f.node) for f in got] == [('inputs', -1)] + [('tangent', i) for i in ops]
    assert all(f.wrt == wrt for f in got) and got == tangent_frames(trace, wrt)


def test_hiding_hides_ops_tangents_and_never_a_leafs():
    trace = trace_of(PRESETS['reuse'])
    leaves = set(inputs_of(trace))
    new = tangent_frames(trace, 0, hide='new')
    assert [f.hidden for f in new] == [frozenset()] + [frozenset({f.node}) for f in new[1:]]
    assert all(f.hidden and not f.hidden & leaves for f in tangent_frames(trace, 0, hide='all'))


def test_the_boxes_say_tangent_and_the_active_ops_edges_multiply_out_to_their_share():
    trace = trace_of(PRESETS['reuse'])
    a = index(trace, 'a')
    width = max(number_width(trace), tangent_width(trace, a))
    last = tangent_frames(trace, a)[-1]
    dot = build_dot(trace, last, width).source
    assert f'>{TANGENT_ROWS[1]} <' in dot and '>grad <' not in dot
    labels = hot_edges(trace, last, width)
    assert sorted(labels) == [(trace.output, 0), (trace.output, 1)]
    lines = [label.split('\n') for label in labels.values()]
    assert [(line[0].split(), line[2].split()) for line in lines] == [
        (['1.0000', '×', '-2.0000'], ['=', '-2.0000']),
        (['1.0000', '×', '6.0000'], ['=', '6.0000']),
    ]
    assert {len(line) for label in labels.values() for line in label.split('\n')} == {
        len(line) for line in blank_label(width, label_width(trace, width)).split('\n')
    }  # labels never move nodes


def test_the_outputs_tangent_line_is_its_terms_summed():
    trace = trace_of(PRESETS['reuse'])
    last = tangent_frames(trace, index(trace, 'a'))[-1]
    assert tangent_line(trace, last) == '∂out/∂a = 1.0000 × (−2.0000) + 1.0000 × 6.0000 = 4.0000'
    assert frame_rules(trace, last)[1] == tangent_line(trace, last)


def test_a_hidden_tangent_is_asked_for_in_the_edges_the_sums_and_the_words():
    trace = trace_of(PRESETS['reuse'])
    a = index(trace, 'a')
    width = max(number_width(trace), tangent_width(trace, a))
    last = tangent_frames(trace, a, hide='new')[-1]
    said = ' '.join([caption(trace, last), *frame_rules(trace, last), plain_text(explain(trace, last))])
    assert '4.0000' not in said and '?' in said
    assert all('?' in label for label in hot_edges(trace, last, width).values())


@pytest.mark.parametrize('key', list(PRESETS))
def test_every_frame_of_every_preset_is_said_for_every_input(key):
    trace = trace_of(PRESETS[key])
    for i in inputs_of(trace)[:3]:
        width = max(number_width(trace), tangent_width(trace, i))
        for frame in tangent_frames(trace, i):
            assert caption(trace, frame) and plain_text(explain(trace, frame))
            assert frame.kind == 'inputs' or len(frame_rules(trace, frame)) == 2
            hot_edges(trace, frame, width)
        last = plain_text(explain(trace, frame))
        assert 'the backward pass gives' in last


def test_the_last_frames_check_names_the_three_ways():
    trace = trace_of(PRESETS['reuse'])
    html = summary_html(trace, index(trace, 'a'), {'a': 4.000000000004, 'b': 3.0})
    assert 'a.grad' in html and 'finite difference' in html and html.count('4.0000') == 3


# --- forward mode's arithmetic works out to its last digit, or says ≈ ----------------------------------------------

PRODUCT = re.compile(rf'(^| [+−] )\(?({NUMBER})\)? × \(?({NUMBER})\)?')


def check_tangent_line(line):
    """'∂o/∂x = A × B + C × D = E': the products, read back from the text and worked out in exact decimals, round
    to E where the sign is '=', and do not where it is '≈'."""
    _, right_side = line.split(' = ', 1)
    terms, sign, result = re.fullmatch(rf'(.*) ([=≈]) ({NUMBER})', right_side).groups()
    found = PRODUCT.findall(terms)
    assert len(found) == terms.count('×'), line
    total = sum((-1 if s.strip() == '−' else 1) * decimal(a) * decimal(b) for s, a, b in found)
    assert (sign == '=') == works_out(total, result), line


@pytest.mark.parametrize('key', CASES)
def test_every_tangent_line_edge_and_explanation_works_out_or_says_approximately(key):
    expression, values = CASES[key]
    trace = traced(expression, values)
    for i in inputs_of(trace):
        width = max(number_width(trace), tangent_width(trace, i))
        for frame in tangent_frames(trace, i)[1:]:
            check_tangent_line(tangent_line(trace, frame))
            for line in plain_text(explain(trace, frame)).split('\n'):
                check_line(line)
            for label in hot_edges(trace, frame, width).values():
                product, _, result = label.split('\n')
                a, _, b = product.split()
                assert ('≈' not in result) == works_out(work_out(a, '×', b), result.split()[-1]), label


def test_a_tangent_of_rounded_factors_says_approximately():
    # (a*b)*c at a = 1, b = −2, c = 0.419956, by a: ∂(a*b)/∂a = b = −2, then × c: −0.839912, shown −0.8399, where
    # the factors as shown, 0.4200 × (−2.0000), make −0.8400
    trace = traced(ROUNDED, ROUNDED_AT)
    last = tangent_frames(trace, index(trace, 'a'))[-1]
    assert tangent_line(trace, last) == '∂out/∂a = 0.4200 × (−2.0000) − 2.0000 × 0.0000 ≈ −0.8399'
