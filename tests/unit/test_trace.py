"""trace_backward: the recorded backward pass must be the real one, step by step and to the last digit."""

import math
import re

import pytest

from engine import PRESETS, Value, backward, build, chain, parse_expression, topological_order, trace_backward
from engine.ops import formula
from engine.trace import ALIAS_LETTERS, MAX_FORMULA_NAME

EXPRESSIONS = {**PRESETS, 'chain25': chain(25)}


def traced(expression):
    leaves, out = expression.build()
    return leaves, out, trace_backward(out, leaves)


def index_of(trace, name):
    (i,) = [i for i, node in enumerate(trace.nodes) if node.name == name]
    return i


# --- the trace is the real backward pass -----------------------------------------------------------


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_trace_leaves_every_input_with_the_grad_backward_gives(key):
    expression = EXPRESSIONS[key]
    traced_leaves, _, _ = traced(expression)
    leaves, out = expression.build()
    backward(out)
    assert [v.grad for v in traced_leaves] == [v.grad for v in leaves]  # exactly, not approximately


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_trace_final_grads_equal_backward_node_by_node(key):
    expression = EXPRESSIONS[key]
    _, traced_out, trace = traced(expression)
    _, out = expression.build()
    backward(out)
    order = topological_order(out)
    # the same expression built twice has the same structure, node for node
    assert len(trace.nodes) == len(order)
    assert [n.data for n in trace.nodes] == [v.data for v in order]
    assert [n.op for n in trace.nodes] == [v._op for v in order]
    final = trace.grads(len(trace.steps))
    assert None not in final
    assert final == [v.grad for v in order]
    assert [v.grad for v in topological_order(traced_out)] == final  # and the traced Values hold them


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_trace_matches_finite_differences_of_the_inputs(key):
    # an independent check of the same grads: central differences of the forward pass
    expression = EXPRESSIONS[key]
    leaves, _, _ = traced(expression)
    for leaf in leaves:
        h = 1e-6

        def at(x, name=leaf.label):
            return expression.build({name: x})[1].data

        numeric = (at(leaf.data + h) - at(leaf.data - h)) / (2 * h)
        assert leaf.grad == pytest.approx(numeric, rel=1e-5, abs=1e-7), leaf.label


def test_trace_of_a_neuron_gives_the_lecture_numbers():
    # do/dn = 1 - tanh(n)^2 = 1/2; do/dx1 = w1/2, do/dw1 = x1/2, do/dx2 = w2/2, do/dw2 = x2/2, do/db = 1/2
    leaves, _, _ = traced(PRESETS['neuron'])
    assert [round(v.grad, 9) for v in leaves] == [-1.5, 1.0, 0.5, 0.0, 0.5]


# --- the shape of the trace ------------------------------------------------------------------------


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_one_step_per_node_in_reverse_topological_order(key):
    _, out, trace = traced(EXPRESSIONS[key])
    n = len(trace.nodes)
    assert [s.node for s in trace.steps] == list(range(n - 1, -1, -1))
    assert trace.output == n - 1
    assert trace.nodes[-1].data == out.data


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_nodes_come_after_their_inputs_and_name_one_child_per_input_slot(key):
    _, out, trace = traced(EXPRESSIONS[key])
    order = topological_order(out)
    for i, (node, v) in enumerate(zip(trace.nodes, order, strict=True)):
        assert len(node.children) == len(v._prev)
        assert all(c < i for c in node.children)
        assert [trace.nodes[c].data for c in node.children] == [child.data for child in v._prev]


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_each_contribution_adds_its_amount_to_what_was_there(key):
    _, _, trace = traced(EXPRESSIONS[key])
    seen = set()
    for step in trace.steps:
        for c in step.contributions:
            if c.child in seen:
                assert c.before is not None
            else:
                assert c.before is None  # nothing had written this grad yet
                seen.add(c.child)
            assert c.after == (0.0 if c.before is None else c.before) + c.amount
    # every node but the output is somebody's input, so every one of them gets a contribution
    assert seen == set(range(len(trace.nodes) - 1))


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_each_final_grad_is_the_float_sum_of_its_contributions_in_order(key):
    _, _, trace = traced(EXPRESSIONS[key])
    sums = [None] * len(trace.nodes)
    for step in trace.steps:
        for c in step.contributions:
            sums[c.child] = (0.0 if sums[c.child] is None else sums[c.child]) + c.amount
    sums[trace.output] = 1.0
    assert sums == trace.grads(len(trace.steps))


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_each_amount_is_local_grad_times_out_grad(key):
    _, _, trace = traced(EXPRESSIONS[key])
    for step in trace.steps:
        for c in step.contributions:
            assert c.amount == pytest.approx(c.local_grad * step.out_grad, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_a_step_passes_back_its_node_grad_once_that_grad_is_final(key):
    _, _, trace = traced(EXPRESSIONS[key])
    final = trace.grads(len(trace.steps))
    for k, step in enumerate(trace.steps):
        assert step.out_grad == final[step.node]
        assert trace.grads(k)[step.node] == final[step.node]


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_contributions_follow_the_input_slots_of_the_node(key):
    _, _, trace = traced(EXPRESSIONS[key])
    for step in trace.steps:
        node = trace.nodes[step.node]
        assert [c.slot for c in step.contributions] == list(range(len(node.children)))
        assert [c.child for c in step.contributions] == list(node.children)


# --- hand-checked local grads ----------------------------------------------------------------------


def test_a_times_a_step_has_local_grad_a_in_both_slots():
    # reuse with a = 3, b = -2: d(a*a)/d(left) = right = 3, d(a*a)/d(right) = left = 3
    _, _, trace = traced(PRESETS['reuse'])
    a = index_of(trace, 'a')
    (step,) = [s for s in trace.steps if trace.nodes[s.node].children == (a, a)]
    assert [(c.child, c.slot, c.local_grad) for c in step.contributions] == [(a, 0, 3.0), (a, 1, 3.0)]
    # out = a*b + a*a, so d out / d(a*a) = 1 and each slot adds 3 * 1
    assert step.out_grad == 1.0
    assert [c.amount for c in step.contributions] == [3.0, 3.0]


def test_a_times_b_step_has_local_grads_of_the_other_input():
    # d(ab)/da = b = -2, d(ab)/db = a = 3
    _, _, trace = traced(PRESETS['reuse'])
    a, b = index_of(trace, 'a'), index_of(trace, 'b')
    (step,) = [s for s in trace.steps if trace.nodes[s.node].children == (a, b)]
    assert [(c.child, c.local_grad) for c in step.contributions] == [(a, -2.0), (b, 3.0)]


def test_plus_step_passes_its_grad_unchanged_to_both_inputs():
    _, _, trace = traced(PRESETS['reuse'])
    step = trace.steps[0]  # the output, a*b + a*a
    assert trace.nodes[step.node].op == '+'
    assert [c.local_grad for c in step.contributions] == [1.0, 1.0]
    assert [c.amount for c in step.contributions] == [1.0, 1.0]


def test_neuron_tanh_step_has_local_grad_one_minus_tanh_squared():
    # o = tanh(n) with n = asinh(1): o = 1/sqrt(2), so do/dn = 1 - o^2 = 0.5
    _, _, trace = traced(PRESETS['neuron'])
    step = trace.steps[0]
    assert trace.nodes[step.node].op == 'tanh'
    (c,) = step.contributions
    assert c.local_grad == pytest.approx(0.5, abs=1e-15)
    assert c.amount == c.local_grad  # out.grad is the seed, 1
    assert c.before is None


def test_lecture_steps_carry_karpathys_numbers():
    # L = d*f with d = e + c, e = a*b; a, b, c, f = 2, -3, 10, -2: e = -6, d = 4, L = -8.
    # dL/dd = f = -2, dL/df = d = 4, dL/de = dL/dc = -2, dL/da = b * -2 = 6, dL/db = a * -2 = -4
    _, _, trace = traced(PRESETS['lecture'])
    final = trace.grads(len(trace.steps))
    by_name = {node.name: final[i] for i, node in enumerate(trace.nodes)}
    assert by_name == {'a': 6.0, 'b': -4.0, 'e': -2.0, 'c': -2.0, 'd': -2.0, 'f': 4.0, 'L': 1.0}


# --- "not computed" and the += lesson --------------------------------------------------------------


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_before_any_step_only_the_output_grad_is_known(key):
    _, _, trace = traced(EXPRESSIONS[key])
    grads = trace.grads(0)
    assert grads[-1] == 1.0
    assert grads[:-1] == [None] * (len(trace.nodes) - 1)


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_a_grad_once_computed_stays_computed(key):
    _, _, trace = traced(EXPRESSIONS[key])
    previous = trace.grads(0)
    for k in range(1, len(trace.steps) + 1):
        current = trace.grads(k)
        assert all(c is not None for p, c in zip(previous, current, strict=True) if p is not None)
        previous = current


def test_reused_value_gets_its_grad_in_more_than_one_step():
    # a in a*b + a*a: 3 + 3 from a*a and b = -2 from a*b, so 4 in the end, collected over two steps
    _, _, trace = traced(PRESETS['reuse'])
    a = index_of(trace, 'a')
    history = [trace.grads(k)[a] for k in range(len(trace.steps) + 1)]
    first = next(k for k, g in enumerate(history) if g is not None)
    assert first > 0
    assert all(g is None for g in history[:first])
    assert all(g is not None for g in history[first:])
    assert history[-1] == 4.0
    steps_writing_a = [s for s in trace.steps if any(c.child == a for c in s.contributions)]
    assert len(steps_writing_a) == 2
    assert len(set(history[first:])) == 2  # an intermediate value, then the final 4


def test_a_plus_a_collects_two_not_one():
    _, _, trace = traced(PRESETS['a_plus_a'])
    (step,) = [s for s in trace.steps if s.contributions]
    assert [(c.before, c.after) for c in step.contributions] == [(None, 1.0), (1.0, 2.0)]


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_final_after_is_the_step_count_after_which_a_grad_no_longer_changes(key):
    _, _, trace = traced(EXPRESSIONS[key])
    total = len(trace.steps)
    final = trace.grads(total)
    history = [trace.grads(k) for k in range(total + 1)]
    done = trace.final_after()
    assert len(done) == len(trace.nodes)
    assert done[trace.output] == 0
    for i, k in enumerate(done):
        assert all(history[j][i] == final[i] for j in range(k, total + 1)), i
        if k > 0:  # and not before: step k wrote it, and it was not yet final before
            assert any(c.child == i for c in trace.steps[k - 1].contributions)
            assert history[k - 1][i] is None or history[k - 1][i] != final[i]


# --- the Values afterwards -------------------------------------------------------------------------


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_trace_leaves_plain_values_behind(key):
    _, out, trace = traced(EXPRESSIONS[key])
    for v in topological_order(out):
        assert type(v) is Value
        assert not hasattr(v, '_watcher')
    # grads are plain attributes again
    v = out
    v.grad = 42.0
    assert v.grad == 42.0


def test_backward_fns_are_the_nodes_own_closures():
    _, out, trace = traced(PRESETS['reuse'])
    order = topological_order(out)
    assert [trace.backward_fn(i) for i in range(len(order))] == [v._backward for v in order]


def test_is_input_marks_the_given_leaves_not_constants():
    a = Value(3.0, label='a')
    out = 2 * a + a  # the 2 is a constant leaf
    trace = trace_backward(out, [a])
    leaves = [node for node in trace.nodes if node.op == '']
    assert sorted((node.name, node.is_input) for node in leaves) == [('2', False), ('a', True)]
    assert a.grad == 3.0  # d(2a + a)/da


def test_nodes_have_stable_ids_and_an_unlabelled_leaf_gets_a_name_its_formulas_use():
    a = Value(3.0)
    out = a * a
    trace = trace_backward(out, [a])
    assert [node.id for node in trace.nodes] == ['n0', 'n1']
    assert [node.name for node in trace.nodes] == ['n1', 'n1*n1']  # the leaf has no formula: the first alias
    assert trace.nodes[1].children == (0, 0)


def test_unlabelled_ops_are_named_by_their_formula_with_brackets_only_where_needed():
    a, b, c = Value(1.0, label='a'), Value(2.0, label='b'), Value(3.0, label='c')
    s = a + b
    p = s * (a - b)
    q = c / (b * c)
    r = -(a * b)
    out = p + q + r + (a + b) ** 2
    trace = trace_backward(out, [a, b, c])
    names = {node.name for node in trace.nodes}
    # the second a + b is a value of its own, computed again: marked apart from the first (named apart, below)
    assert {'a+b', 'a-b', '(a+b)*(a-b)', 'b*c', 'c/(b*c)', 'a*b', '-(a*b)', '(a+b)′', '(a+b)′**2'} <= names


ALIAS = re.compile(r'[a-z][0-9]+')  # n1, u2: what a value with neither a label nor a short formula is called


def long_leaves(count):
    return [Value(1.0 + k, label=f'long_name_{k}') for k in range(count)]  # any product of two: 23 characters


def test_a_formula_too_long_to_read_is_named_n1():
    x = long_leaves(2)
    out = x[0] * x[1]
    trace = trace_backward(out, x)
    assert len(f'{x[0].label}*{x[1].label}') > MAX_FORMULA_NAME
    assert trace.nodes[-1].name == 'n1'


def test_aliases_are_numbered_in_order_of_appearance_and_formulas_over_them_are_names():
    x = long_leaves(4)
    left, right = x[0] * x[1], x[2] * x[3]
    out = left + right
    trace = trace_backward(out, x)
    names = {v: trace.nodes[i].name for i, v in enumerate(topological_order(out))}
    first, second = sorted([left, right], key=topological_order(out).index)  # in forward order
    assert (names[first], names[second]) == ('n1', 'n2')
    assert names[out] == 'n1+n2'


def test_the_mlp_names_every_value_readably_and_without_a_hash():
    _, out, trace = traced(PRESETS['mlp'])
    order = topological_order(out)
    labels = {v.label for v in order if v.label}
    assert {'n1', 'n2', 'n3'} <= labels  # the hidden neurons' sums: taken, so the aliases take another letter
    unlabelled = [i for i, v in enumerate(order) if not v.label]
    assert unlabelled  # else this test would test nothing
    aliases = []
    for i in unlabelled:
        node = trace.nodes[i]
        assert '#' not in node.name and node.name not in labels
        written = formula(node.op, [trace.nodes[c].name for c in node.children])
        if len(written) <= MAX_FORMULA_NAME:
            assert node.name == written
        else:
            assert ALIAS.fullmatch(node.name), node.name
            aliases.append(node.name)
    letter = aliases[0][0]
    assert aliases == [f'{letter}{k}' for k in range(1, len(aliases) + 1)]  # u1, u2, ...: numbered from 1
    assert not any(re.fullmatch(rf'{letter}[0-9]+', label) for label in labels)
    # the output neuron's sum h1*v1+h2*v2+h3*v3 is too long; with c added, it is written over its alias
    (total,) = [i for i in unlabelled if 'c' in [trace.nodes[c].name for c in trace.nodes[i].children]]
    assert trace.nodes[total].name == f'{aliases[0]}+c'


@pytest.mark.parametrize('key', [*EXPRESSIONS, 'long typed formula'])
def test_every_name_is_short_and_free_of_hashes_and_aliases_never_repeat(key):
    if key == 'long typed formula':
        expression = parse_expression('tanh(x1*w1 + x2*w2 + x3*w3 + b) * sigmoid(x1*w2*x2*w1 - b)')
    else:
        expression = EXPRESSIONS[key]
    _, out, trace = traced(expression)
    order = topological_order(out)
    labels = [v.label for v in order if v.label]
    made = [node.name for node, v in zip(trace.nodes, order) if not v.label]
    assert all(name and '#' not in name and len(name) <= MAX_FORMULA_NAME for name in made)
    aliases = [name for name in made if ALIAS.fullmatch(name)]
    assert len(set(aliases)) == len(aliases) and not set(aliases) & set(labels)


def test_the_names_of_a_graph_are_the_same_each_time_it_is_traced():
    x = long_leaves(4)
    first = trace_backward((x[0] * x[1]) * (x[2] * x[3]), x)
    y = long_leaves(4)
    again = trace_backward((y[0] * y[1]) * (y[2] * y[3]), y)
    assert [n.name for n in first.nodes] == [n.name for n in again.nodes] == [n.name for n in first.nodes]
    assert [n.name for n in first.nodes].count('n1') == 1


def test_leaves_named_n1_and_n2_move_the_aliases_to_another_letter():
    n1, n2 = Value(1.0, label='n1'), Value(2.0, label='n2')
    x = long_leaves(2)
    out = (x[0] * x[1]) + n1 * n2
    trace = trace_backward(out, [n1, n2, *x])
    names = [node.name for node in trace.nodes]
    assert names.count('n1') == names.count('n2') == 1  # the leaves'
    aliases = [name for name, node in zip(names, trace.nodes) if node.op and ALIAS.fullmatch(name)]
    assert len(aliases) == 1 and aliases[0][0] != 'n'


def test_with_every_alias_letter_taken_the_aliases_skip_the_labels_they_would_repeat():
    taken = [Value(1.0, label=f'{letter}1') for letter in ALIAS_LETTERS]
    x = long_leaves(2)
    out = x[0] * x[1]
    for v in taken:
        out = out + v
    trace = trace_backward(out, [*taken, *x])
    names = [node.name for node in trace.nodes]
    alias = names[[i for i, v in enumerate(topological_order(out)) if v._op == '*'][0]]
    assert ALIAS.fullmatch(alias) and alias not in {v.label for v in taken}
    assert '#' not in ''.join(names)


def test_trace_of_the_seed_build_matches_backward():
    traced_leaves, out = build('chain', [0.5, 1.5])
    trace_backward(out, traced_leaves)
    leaves, out = build('chain', [0.5, 1.5])
    backward(out)
    assert [v.grad for v in traced_leaves] == [v.grad for v in leaves]


def test_trace_of_a_graph_with_inf_and_nan_does_not_raise():
    a, b = Value(0.0, label='a'), Value(-1.0, label='b')
    out = (1 / a) + b.log()
    trace = trace_backward(out, [a, b])
    assert math.isnan(trace.nodes[-1].data)
    assert len(trace.steps) == len(trace.nodes)
    assert type(a) is Value and type(b) is Value


# --- size ------------------------------------------------------------------------------------------


def test_tracing_a_ten_thousand_step_chain_does_not_hit_the_recursion_limit():
    # x = x*w + b, 10,000 times, w = 1, b = 0: d/dx = 1, d/db = 10,000, d/dw = 10,000 * x
    n = 10_000
    x, w, b = Value(0.5, label='x'), Value(1.0, label='w'), Value(0.0, label='b')
    out = x
    for _ in range(n):
        out = out * w + b
    trace = trace_backward(out, [x, w, b])
    assert len(trace.steps) == len(trace.nodes) == 2 * n + 3
    assert (x.grad, w.grad, b.grad) == (1.0, n * 0.5, float(n))


def test_tracing_the_ten_thousand_step_tanh_chain_matches_backward():
    expression = chain(10_000)
    traced_leaves, _, trace = traced(expression)
    leaves, out = expression.build()
    backward(out)
    assert len(trace.steps) == 2 * 10_000 + 2
    assert [v.grad for v in traced_leaves] == [v.grad for v in leaves]


# --- a subexpression typed twice is computed twice, as Python does, and named apart (issue 33, 7) --------------


def traced_formula(text, values=None):
    expression = parse_expression(text)
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


def test_a_subexpression_typed_twice_is_two_values_named_apart():
    # (x*w + b)*(x*w + b): Python builds x*w and x*w + b once for each bracket; the second of each is marked
    trace = traced_formula('(x*w + b)*(x*w + b)')
    assert [n.name for n in trace.nodes] == ['x', 'w', 'x*w', 'b', 'x*w+b', '(x*w)′', '(x*w)′+b', 'out']
    copies = {n.name: trace.nodes[n.copy_of].name for n in trace.nodes if n.copy_of is not None}
    assert copies == {'(x*w)′': 'x*w', '(x*w)′+b': 'x*w+b'}


def test_the_two_copies_grads_add_up_to_what_one_value_used_twice_gets():
    # out = h·h with h = x*w + b = 2·3 + 0.5 = 6.5: each copy's grad is the other's data, 6.5; one h used twice
    # would get 2h = 13, and x.grad = 2h·w = 39
    trace = traced_formula('(x*w + b)*(x*w + b)', {'x': 2.0, 'w': 3.0, 'b': 0.5})
    grads = dict(zip((n.name for n in trace.nodes), trace.final_grads()))
    assert (grads['x*w+b'], grads['(x*w)′+b']) == (6.5, 6.5)
    assert grads['x*w+b'] + grads['(x*w)′+b'] == 13.0 and grads['x'] == 39.0


@pytest.mark.parametrize(
    'text',
    [
        'tanh(a) + tanh(a)',
        'exp(a)*exp(a)*exp(a)',
        '(a+b)*(a+b) + (a+b)',
        'x*2 + x*2',
        '(x1*w1 + x2*w2 + b)**2 + (x1*w1 + x2*w2 + b)',
        'sin(a*b)*cos(a*b) - sin(a*b)',
        '-a + -a + -a + -a + -a',
    ],  # fmt: skip
)
def test_no_two_values_an_op_makes_share_a_name(text):
    trace = traced_formula(text)
    names = [n.name for n in trace.nodes if n.op]
    assert len(set(names)) == len(names), names
    for node in trace.nodes:  # a copy computes what its first does, from the same inputs' values
        if node.copy_of is not None:
            first = trace.nodes[node.copy_of]
            assert (node.op, node.data) == (first.op, first.data) and node.copy_of < trace.nodes.index(node)


@pytest.mark.parametrize('key', PRESETS)
def test_no_preset_computes_anything_twice_so_their_names_stay_as_they_were(key):
    leaves, out = PRESETS[key].build()
    trace = trace_backward(out, leaves)
    assert all(n.copy_of is None for n in trace.nodes)
    assert not any(mark in n.name for n in trace.nodes for mark in '′″‴')
