"""engine/assign.py, the `=` bug: value.py's own code with `X.grad = E` for `X.grad += E`, run for real.

Where no value is used twice the two engines agree to the last bit; where one is, = keeps only the last write.
The expected numbers are worked out by hand in the comments. Every hypothesis test is pinned, as in test_fuzz.py.
"""

import inspect
import operator
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz import pinned
from test_value import formula_for

import engine.value
from engine import OPS, PRESETS, assign, parse_expression, topological_order, trace_backward
from engine.ieee import same

ENGINES = {'+=': engine.value, '=': assign}


def grads(key, write, values=None):
    """{input name: grad} after one backward pass of PRESETS[key] on the engine that writes grads with `write`."""
    expression = PRESETS[key]
    leaves, out = expression.build(values, value_type=ENGINES[write].Value)
    ENGINES[write].backward(out)
    return {name: leaf.grad for name, leaf in zip(expression.defaults, leaves)}


# --- the numbers: where a value is used twice, = keeps the last write ----------------------------------------


def test_reuse_accumulates_with_plus_equals_and_keeps_the_a_times_b_write_with_equals():
    # out = a*b + a*a at a = 3, b = -2. Forward (topological) order: a, b, a*b, a*a, out; backward runs it in
    # reverse: out, a*a, a*b. out gives a*b and a*a grad 1. a*a writes a twice: a.data * 1 = 3, twice. a*b
    # comes last and writes a: b.data * 1 = -2, and b: a.data * 1 = 3.
    # +=: a = 3 + 3 + (-2) = 4 (b + 2a), b = 3. =: a*b's write wins, a = -2; b is written once, 3.
    assert grads('reuse', '+=') == {'a': 4.0, 'b': 3.0}
    assert grads('reuse', '=') == {'a': -2.0, 'b': 3.0}


def test_a_plus_a_counts_both_uses_with_plus_equals_and_one_with_equals():
    # b = a + a: the + writes b.grad = 1 into a twice. +=: 1 + 1 = 2. =: the second write replaces the first, 1.
    assert grads('a_plus_a', '+=') == {'a': 2.0}
    assert grads('a_plus_a', '=') == {'a': 1.0}


def test_the_neuron_uses_no_value_twice_so_both_engines_give_the_same_grads():
    # o = tanh(n), n = 0.8814, o = 0.7071, so do/dn = 1 - o**2 = 0.5. Each input has one use:
    # x1 gets w1 * 0.5 = -1.5, w1 gets x1 * 0.5 = 1.0, x2 gets w2 * 0.5 = 0.5, w2 gets x2 * 0.5 = 0, b 0.5
    by_hand = {'x1': -1.5, 'w1': 1.0, 'x2': 0.5, 'w2': 0.0, 'b': 0.5}
    assert grads('neuron', '=') == grads('neuron', '+=') == pytest.approx(by_hand)


@pytest.mark.parametrize('key', PRESETS)
def test_every_preset_builds_on_the_variant_all_through(key):
    leaves, out = PRESETS[key].build(None, value_type=assign.Value)
    assert all(type(v) is assign.Value for v in topological_order(out))


# --- the code: the variant's closures say =, value.py's still say += ---------------------------------------------


def test_the_variants_closures_read_grad_equals_and_value_py_still_reads_plus_equals():
    source = {}
    for write, module in ENGINES.items():
        a, b = module.Value(2.0), module.Value(-3.0)
        source[write] = inspect.getsource((a * b)._backward.__code__)  # as the page's explanation reads it
    assert 'self.grad = other.data * out.grad' in source['=']
    assert 'other.grad = self.data * out.grad' in source['=']
    assert '+=' not in source['=']
    assert 'self.grad += other.data * out.grad' in source['+=']
    assert engine.value.Value is not assign.Value


@pytest.mark.parametrize('name', list(OPS))
def test_every_op_has_a_variant_that_writes_each_input_once_with_equals(name):
    leaves, out = parse_expression(formula_for(OPS[name])).build(None, value_type=assign.Value)
    assert type(out) is assign.Value and out._op.startswith(name.strip('*'))
    source = inspect.getsource(out._backward)
    assert out._backward.__code__.co_filename == assign.FILENAME
    targets = re.findall(r'^\s*(\w+)\.grad = ', source, flags=re.M)
    assert len(targets) == len(out._prev) == OPS[name].arity and '+=' not in source


def test_a_typed_formula_builds_on_the_variant_with_its_constants_and_gives_the_equals_grads():
    leaves, out = parse_expression('a*b + a*a').build({'a': 3.0, 'b': -2.0}, value_type=assign.Value)
    assert all(type(v) is assign.Value for v in topological_order(out))
    assign.backward(out)
    assert [leaf.grad for leaf in leaves] == [-2.0, 3.0]  # as for the reuse preset: a*b's write to a comes last
    for text in ('2*a + 1', '2*3', 'tanh(-x)**2'):  # constants, and a formula that has no inputs at all
        _, out = parse_expression(text).build(None, value_type=assign.Value)
        assert all(type(v) is assign.Value for v in topological_order(out)), text


# --- the trace: the same steps, and which write each = threw away -------------------------------------------------


def traced(expression, write, values=None):
    leaves, out = expression.build(values, value_type=ENGINES[write].Value)
    return trace_backward(out, leaves)


def overwrote(trace):
    return [(k, c.slot, c.overwrote) for k, step in enumerate(trace.steps) for c in step.contributions]


def test_overwrote_names_the_write_each_equals_threw_away_on_reuse():
    # steps in backward order: 0 out (writes a*b, a*a), 1 a*a (writes a, a), 2 a*b (writes a, b)
    # 1's second write replaces 1's first (step 1, slot 0); 2's write to a replaces it in turn (step 1, slot 1)
    trace = traced(PRESETS['reuse'], '=')
    assert overwrote(trace)[:6] == [
        (0, 0, None), (0, 1, None),
        (1, 0, None), (1, 1, (1, 0)),
        (2, 0, (1, 1)), (2, 1, None),
    ]  # fmt: skip
    assert trace.steps[2].contributions[0].before == 3.0  # what a*a left in a, a.data * 1, lost to a*b's -2


def test_overwrote_on_a_plus_a_and_a_times_a_is_the_first_write_of_the_same_step():
    # b = a + a: one step writes 1 into a twice; the second replaces slot 0's
    assert overwrote(traced(PRESETS['a_plus_a'], '='))[:2] == [(0, 0, None), (0, 1, (0, 0))]
    # a*a at a = 3: writes a.data * 1 = 3 twice, the second over slot 0's
    trace = traced(parse_expression('a*a'), '=', {'a': 3.0})
    assert overwrote(trace)[:2] == [(0, 0, None), (0, 1, (0, 0))]
    assert trace.final_grads()[0] == 3.0  # not 3 + 3 = 6


@pytest.mark.parametrize('key', PRESETS)
def test_overwrote_is_none_under_plus_equals_and_points_at_the_lost_amount_under_equals(key):
    assert all(lost is None for _, _, lost in overwrote(traced(PRESETS[key], '+=')))
    trace = traced(PRESETS[key], '=')
    for step in trace.steps:
        for c in step.contributions:
            assert (c.overwrote is None) == (c.before is None) and c.after == c.amount
            if c.overwrote is not None:
                k, slot = c.overwrote
                lost = trace.steps[k].contributions[slot]
                assert lost.child == c.child and lost.amount == c.before


@pytest.mark.parametrize('key', PRESETS)
def test_a_trace_of_the_variant_ends_with_the_variants_own_grads(key):
    trace = traced(PRESETS[key], '=')
    leaves, out = PRESETS[key].build(None, value_type=assign.Value)
    assign.backward(out)
    assert trace.final_grads() == [v.grad for v in topological_order(out)]


# --- properties: one write per value, the engines agree; two uses, they do not --------------------------------------

BINARY = {'+': operator.add, '-': operator.sub, '*': operator.mul, '/': operator.truediv}
UNARY = [name for name, op in OPS.items() if op.arity == 1]  # neg, **, and the calls: tanh, exp, ...
LEAF = st.floats(allow_nan=False, allow_infinity=False)
EXPONENT = st.sampled_from([2, 3, 0.5, -1, 0])


def tree():
    """('leaf', x, None), (unary op, subtree, exponent) or (binary op, subtree, subtree): each leaf is its own."""
    return st.recursive(
        st.tuples(st.just('leaf'), LEAF, st.none()),
        lambda kids: (
            st.tuples(st.sampled_from(UNARY), kids, EXPONENT) | st.tuples(st.sampled_from(list(BINARY)), kids, kids)
        ),
        max_leaves=12,
    )


def make(node, value_type):
    """The graph of a drawn tree, each leaf a new Value of value_type, so no value is used twice."""
    name, first, second = node
    if name == 'leaf':
        return value_type(first)
    if name in BINARY:
        return BINARY[name](make(first, value_type), make(second, value_type))
    x = make(first, value_type)
    return -x if name == 'neg' else x**second if name == '**' else getattr(x, name)()


def test_the_drawn_trees_have_every_op_the_engine_has():
    assert set(BINARY) | set(UNARY) == set(OPS) and all(OPS[name].arity == 2 for name in BINARY)


@pinned(400)
@given(tree())
def test_without_reuse_the_engines_give_every_node_exactly_the_same_grad(drawn):
    # each value has one use, so one write: 0.0 + x under += and x under = are the same float (or both nan)
    orders = []
    for module in ENGINES.values():
        out = make(drawn, module.Value)
        module.backward(out)
        orders.append(topological_order(out))
    plus, assigned = orders
    assert len(plus) == len(assigned)
    assert all(same(p.grad, q.grad) for p, q in zip(plus, assigned)), drawn


@pinned(200)
@given(
    st.sampled_from(list('+*')), st.sampled_from(list('+*')), st.sampled_from(list('+*')),
    st.integers(1, 9), st.integers(1, 9), st.integers(1, 9),
)  # fmt: skip
def test_a_leaf_used_twice_gets_a_different_grad_under_equals(op1, op2, op3, a, x, y):
    # out = (a op1 x) op2 (a op3 y): u = a op1 x, w = a op3 y. Forward order a, x, u, y, w, out, so backward runs
    # w before u and u's write to a is the last. With =, a.grad = du/da * dout/du; with += it also has
    # dw/da * dout/dw. Each factor is 1 (for +) or the other side (for *): a whole number from 1 up, so the two
    # differ, and small whole numbers are exact in floats.
    grad = {}
    for write, module in ENGINES.items():
        leaf = module.Value(float(a))
        module.backward(BINARY[op2](BINARY[op1](leaf, float(x)), BINARY[op3](leaf, float(y))))
        grad[write] = leaf.grad
    u, w = BINARY[op1](a, x), BINARY[op3](a, y)
    du, dw = (1 if op1 == '+' else x), (1 if op3 == '+' else y)
    dout_du, dout_dw = (1, 1) if op2 == '+' else (w, u)
    assert grad['='] == du * dout_du
    assert grad['+='] == du * dout_du + dw * dout_dw != grad['=']
