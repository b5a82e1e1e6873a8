"""trace_backward: the recorded backward pass must be the real one, step by step and to the last digit."""

import math

import pytest

from engine import PRESETS, Value, backward, build, chain, topological_order, trace_backward

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


def test_nodes_have_stable_ids_and_unlabelled_ones_are_named_by_their_short_formula():
    a = Value(3.0)
    out = a * a
    trace = trace_backward(out, [a])
    assert [node.id for node in trace.nodes] == ['n0', 'n1']
    assert [node.name for node in trace.nodes] == ['#0', '#1']  # '#0*#0' would say nothing: #index
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
    assert {'a+b', 'a-b', '(a+b)*(a-b)', 'b*c', 'c/(b*c)', 'a*b', '-(a*b)', '(a+b)**2'} <= names


def test_a_formula_name_too_long_to_read_falls_back_to_the_index():
    x = [Value(1.0, label=f'long_name_{k}') for k in range(2)]
    out = x[0] * x[1]
    trace = trace_backward(out, x)
    assert trace.nodes[-1].name == f'#{len(trace.nodes) - 1}'


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
