"""The Value core: every op's gradient, numbers mixed in, IEEE edge cases, long chains (the seed's numbers, build()
and grads_of(): tests/unit/test_presets.py).

Every expected gradient is independent of the engine: derived by hand (written out in a comment or a
closed form), computed in plain floats with the chain rule, or a central finite difference.
"""

import inspect
import math
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_presets import chain_reference

from engine import Value, backward, build, ops, parse_expression, topological_order
from engine.ops import OPS
from tests.unit.by_hand import HANDS

FAST = settings(max_examples=150, deadline=None)


# --- references, written without the engine -------------------------------------------------------


def central_difference(g, xs, i, h=None):
    """d g / d xs[i] by a central finite difference; g takes floats and returns a float."""
    x = xs[i]
    h = h if h is not None else 1e-6 * max(1.0, abs(x))
    up = list(xs)
    down = list(xs)
    up[i] = x + h
    down[i] = x - h
    return (g(*up) - g(*down)) / (2 * h)


def assert_grads_match_finite_differences(f, xs, ref=None, rel=1e-5, abs_tol=1e-6):
    """Run backward through f(*Values) and compare every input's grad with a central difference.

    `ref` computes the same function on plain floats (e.g. math.exp for .exp()); when given, the
    forward value is checked against it too, and the finite difference is taken of `ref`, so that
    nothing of the engine is in the reference. Without it, the difference is taken of the engine's
    forward values (never of its backward pass).
    """
    xs = [float(x) for x in xs]
    leaves = [Value(x) for x in xs]
    out = f(*leaves)
    backward(out)
    if ref is None:

        def ref(*args):
            return f(*[Value(a) for a in args]).data

    else:
        assert out.data == pytest.approx(ref(*xs), rel=1e-12, abs=1e-12)
    for i, leaf in enumerate(leaves):
        numeric = central_difference(ref, xs, i)
        assert leaf.grad == pytest.approx(numeric, rel=rel, abs=abs_tol), f'input {i} at {xs}'


def sigmoid_float(x):
    return 1 / (1 + math.exp(-x))


reals = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
positives = st.floats(0.2, 5.0, allow_nan=False, allow_infinity=False)
# bounded away from 0 on both sides: for division and relu's kink
away_from_zero = st.tuples(st.floats(0.1, 5.0), st.booleans()).map(lambda t: t[0] if t[1] else -t[0])


# --- edges: a value used twice ---------------------------------------------------------------------


def test_prev_is_a_tuple_keeping_both_edges_of_a_times_a_in_order():
    a = Value(3.0)
    b = Value(-2.0)
    sq = a * a
    assert isinstance(sq._prev, tuple)
    assert len(sq._prev) == 2
    assert sq._prev[0] is a and sq._prev[1] is a
    ab = a * b
    assert ab._prev[0] is a and ab._prev[1] is b
    ba = b - a
    assert ba._prev[0] is b and ba._prev[1] is a


def test_value_used_twice_in_a_times_a_collects_grad_two_a():
    a = Value(3.0)
    out = a * a
    backward(out)
    assert out.data == 9.0
    assert a.grad == 6.0  # d(a^2)/da = 2a


def test_value_used_twice_in_a_plus_a_collects_grad_two():
    a = Value(3.0)
    out = a + a
    backward(out)
    assert out.data == 6.0
    assert a.grad == 2.0  # d(a + a)/da = 2, not 1 (the "=" instead of "+=" bug)


def test_value_used_twice_in_a_minus_a_collects_grad_zero():
    a = Value(3.0)
    out = a - a
    backward(out)
    assert out.data == 0.0
    assert a.grad == 0.0  # +1 from the left, -1 from the right


def test_shared_intermediate_node_passes_its_grad_once_per_use():
    # c = a*b; out = c*c + c = (ab)^2 + ab: d/da = (2ab + 1) b, d/db = (2ab + 1) a
    a, b = Value(2.0), Value(-3.0)
    c = a * b
    out = c * c + c
    backward(out)
    assert out.data == 30.0
    assert a.grad == (2 * 2.0 * -3.0 + 1) * -3.0  # 33
    assert b.grad == (2 * 2.0 * -3.0 + 1) * 2.0  # -22
    assert c.grad == 2 * -6.0 + 1  # -11


# --- numbers on either side ------------------------------------------------------------------------


@pytest.mark.parametrize(
    'f, data, grad',
    [
        # a = 3; each expected value derived by hand
        (lambda a: 2 * a, 6.0, 2.0),
        (lambda a: a * 2, 6.0, 2.0),
        (lambda a: a + 1, 4.0, 1.0),
        (lambda a: 1 + a, 4.0, 1.0),
        (lambda a: 1 - a, -2.0, -1.0),
        (lambda a: a - 1, 2.0, 1.0),
        (lambda a: 2 / a, 2 / 3, -2 / 9),  # d(2/a)/da = -2/a^2
        (lambda a: a / 2, 1.5, 0.5),
        (lambda a: -a, -3.0, -1.0),
        (lambda a: 1.5 * a - a / 4 + 7, 4.5 - 0.75 + 7, 1.25),
    ],
    ids=['2*a', 'a*2', 'a+1', '1+a', '1-a', 'a-1', '2/a', 'a/2', '-a', '1.5*a-a/4+7'],
)
def test_numbers_mix_with_values_on_either_side(f, data, grad):
    a = Value(3.0)
    out = f(a)
    assert isinstance(out, Value)
    backward(out)
    assert out.data == pytest.approx(data, rel=1e-15)
    assert a.grad == pytest.approx(grad, rel=1e-15)


def test_integer_numbers_mix_like_floats():
    a = Value(4)
    out = 3 * a + 1
    backward(out)
    assert out.data == 13
    assert a.grad == 3


# --- every op against finite differences -----------------------------------------------------------


@FAST
@given(x=reals, y=reals)
def test_add_grads_match_finite_differences(x, y):
    assert_grads_match_finite_differences(lambda a, b: a + b, [x, y], lambda a, b: a + b)


@FAST
@given(x=reals, y=reals)
def test_sub_grads_match_finite_differences(x, y):
    assert_grads_match_finite_differences(lambda a, b: a - b, [x, y], lambda a, b: a - b)


@FAST
@given(x=reals, y=reals)
def test_mul_grads_match_finite_differences(x, y):
    assert_grads_match_finite_differences(lambda a, b: a * b, [x, y], lambda a, b: a * b)


@FAST
@given(x=reals, y=away_from_zero)
def test_div_grads_match_finite_differences(x, y):
    assert_grads_match_finite_differences(lambda a, b: a / b, [x, y], lambda a, b: a / b)


@FAST
@given(x=reals)
def test_neg_grads_match_finite_differences(x):
    assert_grads_match_finite_differences(lambda a: -a, [x], lambda a: -a)


@FAST
@pytest.mark.parametrize('n', [0, 1, 2, 3, -1, -2, 0.5, 1.5, -0.5, 2.25, -1.75])
@given(x=positives)
def test_pow_on_positive_bases_grads_match_finite_differences(n, x):
    assert_grads_match_finite_differences(lambda a: a**n, [x], lambda a: a**n)


@FAST
@pytest.mark.parametrize('n', [2, 3, 4, 2.0])
@given(x=reals)
def test_pow_with_whole_exponent_on_any_base_grads_match_finite_differences(n, x):
    assert_grads_match_finite_differences(lambda a: a**n, [x], lambda a: a**n)


@FAST
@pytest.mark.parametrize('n', [-1, -2, -3])
@given(x=away_from_zero)
def test_pow_with_negative_whole_exponent_on_negative_bases_grads_match_finite_differences(n, x):
    assert_grads_match_finite_differences(lambda a: a**n, [x], lambda a: a**n)


@FAST
@given(x=reals)
def test_exp_grads_match_finite_differences(x):
    assert_grads_match_finite_differences(lambda a: a.exp(), [x], math.exp)


@FAST
@given(x=st.floats(0.05, 20.0))
def test_log_on_positives_grads_match_finite_differences(x):
    assert_grads_match_finite_differences(lambda a: a.log(), [x], math.log)


@FAST
@given(x=away_from_zero)
def test_relu_away_from_zero_grads_match_finite_differences(x):
    assert_grads_match_finite_differences(lambda a: a.relu(), [x], lambda a: max(a, 0.0))


@FAST
@given(x=st.floats(-8.0, 8.0))
def test_sigmoid_grads_match_finite_differences(x):
    assert_grads_match_finite_differences(lambda a: a.sigmoid(), [x], sigmoid_float)


@FAST
@given(x=reals)
def test_tanh_grads_match_finite_differences(x):
    assert_grads_match_finite_differences(lambda a: a.tanh(), [x], math.tanh)


@FAST
@given(x=reals)
def test_sin_and_cos_grads_match_finite_differences(x):
    assert_grads_match_finite_differences(lambda a: a.sin(), [x], math.sin)
    assert_grads_match_finite_differences(lambda a: a.cos(), [x], math.cos)


def test_sin_and_cos_of_infinity_give_nan_and_backward_does_not_raise():
    # math.sin(inf) raises ValueError; the op gives nan, as every op's math goes through one IEEE rule
    for f in (lambda a: a.sin(), lambda a: a.cos()):
        a = Value(1000.0)
        out = f(a.exp())
        backward(out)
        assert math.isnan(out.data) and math.isnan(a.grad)


def test_a_typed_formula_can_call_every_function_in_the_op_table():
    for name, op in OPS.items():
        if op.form == 'call':
            leaves, out = parse_expression(f'{name}(x)').build({'x': 0.5})
            assert out._op == name


@FAST
@given(x=reals, y=away_from_zero)
def test_every_op_composed_grads_match_finite_differences(x, y):
    def f(a, b):
        return ((a * b).tanh() + (a / b).sigmoid() - (-a).exp() * 0.1 + (b * b + 1).log() + (a - b).relu()) ** 2

    def ref(a, b):
        return (
            math.tanh(a * b) + sigmoid_float(a / b) - math.exp(-a) * 0.1 + math.log(b * b + 1) + max(a - b, 0.0)
        ) ** 2

    assume(abs(x - y) > 1e-3)  # stay off relu's kink
    assert_grads_match_finite_differences(f, [x, y], ref, rel=1e-4, abs_tol=1e-5)


def test_relu_passes_no_grad_below_zero_and_all_of_it_above():
    for x, data, grad in [(-2.0, 0.0, 0.0), (2.0, 2.0, 1.0)]:
        a = Value(x)
        out = a.relu()
        backward(out)
        assert (out.data, a.grad) == (data, grad)


def test_ops_by_hand_at_simple_points():
    # exp(0) = 1 with slope 1; log(e) = 1 with slope 1/e; sigmoid(0) = 1/2 with slope 1/4; tanh(0) = 0, slope 1
    cases = [
        (lambda a: a.exp(), 0.0, 1.0, 1.0),
        (lambda a: a.log(), math.e, 1.0, 1 / math.e),
        (lambda a: a.sigmoid(), 0.0, 0.5, 0.25),
        (lambda a: a.tanh(), 0.0, 0.0, 1.0),
        (lambda a: a**3, 2.0, 8.0, 12.0),
        (lambda a: a**-1, 4.0, 0.25, -1 / 16),
        (lambda a: a**0.5, 9.0, 3.0, 1 / 6),
        # sin(π/6) = 1/2 with slope cos(π/6) = √3/2; cos(π/3) = 1/2 with slope −sin(π/3) = −√3/2
        (lambda a: a.sin(), math.pi / 6, 0.5, math.sqrt(3) / 2),
        (lambda a: a.cos(), math.pi / 3, 0.5, -math.sqrt(3) / 2),
    ]
    for f, x, data, grad in cases:
        a = Value(x)
        out = f(a)
        backward(out)
        assert out.data == pytest.approx(data, rel=1e-15, abs=1e-15)
        assert a.grad == pytest.approx(grad, rel=1e-15)


def micrograd_mixed(a, b):
    """micrograd's test_more_ops expression: it reuses c and d, and mixes numbers in on both sides."""
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    return g


def micrograd_mixed_by_hand(a, b):
    """(g, dg/da, dg/db) for micrograd_mixed, derived by hand.

    c = a + b, then c = 2c + 1, then c = 2c + 1 - a: so c = 3a + 4b + 3.
    d = ab + b^3, then d = 3d + relu(a + b), then d = 4d + relu(b - a): so
    d = 12(ab + b^3) + 4 relu(a + b) + relu(b - a).
    e = c - d, f = e^2, g = f/2 + 10/f, so dg/de = (1/2 - 10/f^2) * 2e.
    """
    pos_sum, pos_diff = float(a + b > 0), float(b - a > 0)
    c = 3 * a + 4 * b + 3
    d = 12 * (a * b + b**3) + 4 * max(a + b, 0.0) + max(b - a, 0.0)
    e = c - d
    f = e * e
    g = f / 2 + 10 / f
    dg_de = (0.5 - 10 / f**2) * 2 * e
    dd_da = 12 * b + 4 * pos_sum - pos_diff
    dd_db = 12 * (a + 3 * b * b) + 4 * pos_sum + pos_diff
    return g, dg_de * (3 - dd_da), dg_de * (4 - dd_db)


def test_mixed_expression_with_reused_nodes_matches_hand_derivation_at_micrograds_point():
    # at a = -4, b = 2: c = -1, d = 6, e = -7, f = 49, g = 24.5 + 10/49;
    # dg/da = (1/2 - 10/49^2) * -14 * (3 - 23) = 140 - 2800/2401, dg/db = (1/2 - 10/49^2) * -14 * (4 - 97)
    a, b = Value(-4.0), Value(2.0)
    g = micrograd_mixed(a, b)
    backward(g)
    assert g.data == pytest.approx(24.5 + 10 / 49, rel=1e-12)
    assert a.grad == pytest.approx(140 - 2800 / 2401, rel=1e-12)
    assert b.grad == pytest.approx(651 - 13020 / 2401, rel=1e-12)
    assert (g.data, a.grad, b.grad) == pytest.approx(micrograd_mixed_by_hand(-4.0, 2.0), rel=1e-12)


@FAST
@given(x=reals, y=reals)
def test_mixed_expression_with_reused_nodes_matches_hand_derivation_and_finite_differences(x, y):
    assume(abs(x + y) > 1e-3 and abs(y - x) > 1e-3)  # off the relus' kinks
    e = (3 * x + 4 * y + 3) - (12 * (x * y + y**3) + 4 * max(x + y, 0.0) + max(y - x, 0.0))
    assume(abs(e) > 0.5)  # away from e = 0, where 10/f blows up
    g_ref, da_ref, db_ref = micrograd_mixed_by_hand(x, y)
    a, b = Value(x), Value(y)
    g = micrograd_mixed(a, b)
    backward(g)
    assert g.data == pytest.approx(g_ref, rel=1e-9)
    assert a.grad == pytest.approx(da_ref, rel=1e-8, abs=1e-8)
    assert b.grad == pytest.approx(db_ref, rel=1e-8, abs=1e-8)
    assert_grads_match_finite_differences(micrograd_mixed, [x, y], rel=1e-4, abs_tol=1e-4)


# --- domain and overflow: numbers, not exceptions --------------------------------------------------


def _backward_does_not_raise(out, *leaves):
    backward(out)
    return [v.grad for v in leaves]


def test_exp_overflow_gives_inf_and_backward_does_not_raise():
    a = Value(1000.0)
    out = a.exp()
    assert out.data == math.inf
    assert _backward_does_not_raise(out, a) == [math.inf]  # d exp/dx = exp(x) = inf


def test_log_of_negative_gives_nan_and_backward_does_not_raise():
    a = Value(-1.0)
    out = a.log()
    assert math.isnan(out.data)
    _backward_does_not_raise(out, a)


def test_log_of_zero_gives_minus_inf_and_backward_does_not_raise():
    a = Value(0.0)
    out = a.log()
    assert out.data == -math.inf
    assert _backward_does_not_raise(out, a) == [math.inf]  # 1/x at 0+


def test_zero_to_a_negative_power_gives_inf_and_backward_does_not_raise():
    a = Value(0.0)
    out = a**-1
    assert out.data == math.inf
    _backward_does_not_raise(out, a)


def test_negative_base_to_fractional_power_gives_nan_and_backward_does_not_raise():
    a = Value(-8.0)
    out = a**0.5
    assert math.isnan(out.data)
    assert isinstance(out.data, float)  # not a complex number
    (grad,) = _backward_does_not_raise(out, a)
    assert not isinstance(grad, complex)


def test_pow_overflow_gives_inf_and_backward_does_not_raise():
    a = Value(1e200)
    out = a**2
    assert out.data == math.inf
    _backward_does_not_raise(out, a)


def test_whole_number_data_to_a_huge_power_gives_inf_like_float_data():
    # Value(10.0) ** 400 is inf; Value(10) ** 400 should be too, not an exact 401-digit int that makes
    # the next op (tanh, exp, a float product...) raise OverflowError
    assert (Value(10.0) ** 400).data == math.inf
    out = Value(10) ** 400
    assert out.data == math.inf
    assert out.tanh().data == 1.0


def test_division_by_zero_gives_inf_and_backward_does_not_raise():
    a, b = Value(1.0), Value(0.0)
    out = a / b
    assert out.data == math.inf
    _backward_does_not_raise(out, a, b)


def test_division_by_zero_follows_ieee_signs_and_zero_over_zero_is_nan():
    assert (Value(-1.0) / Value(0.0)).data == -math.inf
    assert (Value(1.0) / Value(-0.0)).data == -math.inf
    assert math.isnan((Value(0.0) / Value(0.0)).data)
    assert (2 / Value(0.0)).data == math.inf


def test_sigmoid_of_huge_inputs_saturates_without_overflow():
    for x, expected in [(1000.0, 1.0), (-1000.0, 0.0)]:
        a = Value(x)
        out = a.sigmoid()
        assert out.data == expected
        assert _backward_does_not_raise(out, a) == [0.0]


def test_nan_flows_through_a_graph_without_raising():
    a = Value(-1.0)
    out = (a.log() * 2 + 1).tanh().exp() / 3
    assert math.isnan(out.data)
    backward(out)
    assert math.isnan(a.grad)


# --- long chains: no recursion ---------------------------------------------------------------------


def test_ten_thousand_step_affine_chain_backpropagates_without_recursion_error():
    # out = (...((x*w + b)*w + b)...) with w = 1, n times: out = x + n b;
    # dout/dx = w^n = 1, dout/db = sum of w^k = n, dout/dw = sum over steps of that step's input = n x
    n = 10_000
    x, w, b = Value(0.5), Value(1.0), Value(0.0)
    out = x
    for _ in range(n):
        out = out * w + b
    backward(out)
    assert out.data == 0.5
    assert x.grad == 1.0
    assert b.grad == float(n)
    assert w.grad == n * 0.5


def test_ten_thousand_step_sum_chain_collects_a_grad_of_the_count():
    # out = a + a + ... + a (10,001 terms): dout/da = 10,001
    a = Value(1.0)
    out = a
    for _ in range(10_000):
        out = out + a
    backward(out)
    assert out.data == 10_001.0
    assert a.grad == 10_001.0


def test_ten_thousand_step_tanh_chain_matches_chain_rule():
    n = 10_000
    leaves, out = build('chain', [0.5, 1.0], n)
    backward(out)
    h, dx, dw = chain_reference(0.5, 1.0, n)
    assert out.data == pytest.approx(h, rel=1e-12)
    assert leaves[0].grad == pytest.approx(dx, rel=1e-6, abs=1e-15)
    assert leaves[1].grad == pytest.approx(dw, rel=1e-6, abs=1e-15)


def test_topological_order_puts_every_value_after_its_inputs_once():
    a, b = Value(2.0), Value(-3.0)
    c = a * b
    out = c * c + c + a
    order = topological_order(out)
    assert order[-1] is out
    assert len(order) == len({id(v) for v in order})  # no value twice
    position = {id(v): i for i, v in enumerate(order)}
    for v in order:
        for child in v._prev:
            assert position[id(child)] < position[id(v)]
    assert {id(a), id(b), id(c)} <= set(position)


def test_a_students_micrograd_code_runs_unchanged_with_the_method_backward():
    """micrograd's test_sanity_check, with the numbers worked out by hand instead of by PyTorch.

    z = 3x + 2 = -10, so relu(z) = 0 and relu(z*z) = z² = 100; q = z·x = 40; y = 100 + 40 + 40·(-4) = -20.
    In that region y = (3x+2)² + (3x²+2x)(1+x), so dy/dx = 6(3x+2) + (6x+2)(1+x) + 3x² + 2x = -60 + 66 + 40 = 46.
    """
    x = Value(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    assert y.data == -20.0
    assert x.grad == 46.0


def formula_for(op):
    """A formula whose output is made by `op`, written as engine/ops.py says the op is written."""
    written = {
        'infix': f'a {op.text} b', 'prefix': f'{op.text}a', 'postfix': f'a{op.text}2', 'call': f'{op.text}(a)',
    }  # fmt: skip
    return written[op.form]


@pytest.mark.parametrize('name', list(OPS))
def test_every_op_writes_one_grad_line_per_input_in_prev_order(name):
    leaves, out = parse_expression(formula_for(OPS[name])).build(None)
    assert out._op.startswith(name.strip('*')) and len(out._prev) == OPS[name].arity
    source = inspect.getsource(out._backward)
    targets = re.findall(r'^\s*(\w+)\.grad\s*\+=', source, flags=re.M)
    cells = dict(zip(out._backward.__code__.co_freevars, (c.cell_contents for c in out._backward.__closure__)))
    written = [cells[t] for t in targets]
    assert len(written) == len(out._prev) and all(w is p for w, p in zip(written, out._prev)), (
        f'{name}: its _backward must have one `.grad +=` line per input, in _prev order (engine/value.py)'
    )
    assert source.count('.grad') == len(targets) + source.count('out.grad'), f'{name}: only += may write a grad'


# every op as engine.ops.apply applies it (the page works a forward line out again with it), against Python's floats
def test_apply_gives_every_op_its_own_result():
    assert {ops.op_of(hand.op) for hand in HANDS} == set(ops.OPS.values())  # every op, '**3' standing for powers
    for hand in HANDS:
        args = (1.5, 0.75)[: hand.arity]
        assert ops.apply(hand.op, [Value(x) for x in args]).data == pytest.approx(hand.of(1.5, 0.75), rel=1e-15)


@pytest.mark.parametrize('hand', HANDS, ids=lambda hand: hand.op)
@pytest.mark.parametrize(('x', 'y'), [(0.3, 1.7), (1.25, 0.8), (2.0, -0.6)])
def test_every_ops_grads_are_its_derivatives_by_hand_and_by_finite_differences(hand, x, y):
    # every op of the table at three points away from its corners (log's and relu's: x > 0), from its row by hand
    leaves = [Value(x), Value(y)][: hand.arity]
    out = hand.apply(*leaves)
    backward(out)
    by_hand = [hand.dx(x, y), *([hand.dy(x, y)] if hand.dy else [])]
    assert [leaf.grad for leaf in leaves] == pytest.approx(by_hand, rel=1e-12)
    assert_grads_match_finite_differences(hand.apply, [x, y][: hand.arity], lambda x, y=y: hand.of(x, y))
