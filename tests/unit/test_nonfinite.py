"""inf and nan: every op gives a number, never an exception; the trace reads them; the page is told where they start.

Every expected value is derived by hand from IEEE 754 arithmetic and the ops' closed forms.
"""

import ast
import math
from pathlib import Path

import pytest

import engine.value
from engine import OPS, Value, backward, first_nonfinite, numeric_grads, parse_expression, trace_backward
from engine.ieee import _ieee, same
from engine.ops import formula, op_of, symbol, why_nonfinite
from view.numbers import fmt, number_width
from view.summary import UNDEFINED, grad_check

INF, NAN = math.inf, math.nan


def trace_of(text, **values):
    expression = parse_expression(text)
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


def read_everything(trace):
    """Every step and every frame's grads, as the page reads them."""
    steps = [trace.steps[k] for k in range(len(trace.steps))]
    grads = [trace.grads(k) for k in range(len(trace.steps) + 1)]
    return steps, grads


# --- the ops: numbers, not exceptions --------------------------------------------------------------


@pytest.mark.parametrize(
    'f, x, data, grad',
    [
        # each from the op's closed form at the limit
        (lambda a: a.relu(), NAN, NAN, 0.0),  # max(nan, 0) is nan; nan > 0 is false, so no grad passes
        (lambda a: a.relu(), INF, INF, 1.0),
        (lambda a: a.relu(), -INF, 0.0, 0.0),
        (lambda a: a.sigmoid(), NAN, NAN, NAN),
        (lambda a: a.sigmoid(), INF, 1.0, 0.0),  # s (1 - s) = 1 * 0
        (lambda a: a.sigmoid(), -INF, 0.0, 0.0),
        (lambda a: a.tanh(), INF, 1.0, 0.0),  # 1 - t^2 = 0
        (lambda a: a.tanh(), -INF, -1.0, 0.0),
        (lambda a: a.tanh(), NAN, NAN, NAN),
        (lambda a: a.exp(), -INF, 0.0, 0.0),
        (lambda a: a.exp(), INF, INF, INF),
        (lambda a: a.log(), INF, INF, 0.0),  # 1/inf
        (lambda a: a.log(), NAN, NAN, NAN),
        (lambda a: a.log(), -0.0, -INF, -INF),  # log(±0) is -inf; 1/(-0) is -inf
        (lambda a: -a, INF, -INF, -1.0),
        (lambda a: a / 0.0, 0.0, NAN, INF),  # 0/0; d/da = 1/0
        (lambda a: a / -0.0, 1.0, -INF, -INF),  # the zero's sign counts
        (lambda a: 1.0 / a, -0.0, -INF, -INF),  # d(1/a)/da = -1/a^2: -out.data * (1/a) = -(-inf) * -inf
    ],
    ids=[
        'relu nan', 'relu inf', 'relu -inf', 'sigmoid nan', 'sigmoid inf', 'sigmoid -inf', 'tanh inf', 'tanh -inf',
        'tanh nan', 'exp -inf', 'exp inf', 'log inf', 'log nan', 'log -0', 'neg inf', '0/0', '1/-0', '1/a at -0',
    ],
)  # fmt: skip
def test_ops_at_the_edges_give_the_ieee_limit(f, x, data, grad):
    a = Value(x)
    out = f(a)
    backward(out)
    assert same(out.data, data)
    assert same(a.grad, grad)


@pytest.mark.parametrize(
    'x, n, data',
    [
        # IEEE pow: the sign of an odd power follows x, even -0.0's; a negative number has no real fractional power
        (-1e200, 3, -INF),
        (1e200, 2, INF),
        (-1e200, 2, INF),
        (-1e200, 2.5, NAN),
        (0.0, -1, INF),
        (-0.0, -1, -INF),
        (-0.0, -2, INF),
        (-0.0, -0.5, INF),
        (-8.0, 0.5, NAN),
        (-8.0, 1 / 3, NAN),
    ],
)
def test_powers_past_the_floats_give_the_signed_ieee_limit(x, n, data):
    out = Value(x) ** n
    assert same(out.data, data)
    assert isinstance(out.data, float)


def test_x_to_the_zero_has_slope_zero_even_at_zero():
    # x**0 is 1 for every x (0**0 = 1 in Python, as in IEEE pow), so its slope is 0, not 0 * 0**-1 = nan
    a = Value(0.0)
    out = a**0
    backward(out)
    assert (out.data, a.grad) == (1.0, 0.0)


def test_whole_numbers_too_large_for_a_float_act_as_infinities():
    # 10**400 as data or as a number mixed in is +inf to every op, so nothing raises OverflowError
    assert Value(10**400).tanh().data == 1.0
    assert Value(-(10**400)).exp().data == 0.0
    assert (Value(1.0) + 10**400).data == INF
    assert (Value(1.0) / 10**400).data == 0.0


def test_every_math_call_goes_through_one_rule_that_never_raises():
    # math.sin(inf) and math.sqrt(-1) raise ValueError, math.exp(1000) OverflowError, 0.0 ** -1 ZeroDivisionError:
    # through engine.ieee's _ieee a domain error is nan and an overflow or a pole is inf with the sign it is given
    assert math.isnan(_ieee(math.sin, INF))
    assert math.isnan(_ieee(math.sqrt, -1.0))
    assert _ieee(math.exp, 1000.0) == INF
    assert _ieee(pow, 0.0, -1.0, pole=-1.0) == -INF
    assert math.isnan(_ieee(pow, -8.0, 0.5))  # a complex result is no real number
    assert _ieee(math.sin, 0.5) == math.sin(0.5)  # and a finite result is untouched


# --- the trace reads nan -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    'text, values, output',
    [
        # the output by hand: 0/0 is nan, sqrt(-8) is not real, exp(-1000) is 0 so its log is -inf, ...
        ('0/0', {}, NAN),
        ('(-8)**0.5', {}, NAN),
        ('log(exp(-1000))', {}, -INF),
        ('x**0.5', {'x': -1.0}, NAN),
        ('x/y', {'x': 0.0, 'y': 0.0}, NAN),
        ('log(x)', {'x': -1.0}, NAN),
        ('exp(x)*0', {'x': 1e6}, NAN),  # inf * 0
        ('sigmoid(x)', {'x': NAN}, NAN),
        ('relu(x) + tanh(x)', {'x': NAN}, NAN),
        ('x - x', {'x': INF}, NAN),  # inf - inf
    ],
)
def test_a_graph_with_nan_traces_and_every_step_reads(text, values, output):
    trace = trace_of(text, **values)
    steps, grads = read_everything(trace)
    assert same(trace.nodes[-1].data, output)
    assert len(steps) == len(trace.nodes)
    assert grads[0][-1] == 1.0  # the seed


def test_the_replay_check_still_catches_a_replay_that_differs_from_the_pass():
    trace = trace_of('x*y', x=2.0, y=3.0)
    trace._after[trace.output] = [3.0, 99.0]  # as if the pass had added 99 to y.grad, not x = 2
    with pytest.raises(AssertionError, match='replay'):
        trace.steps[0]


def test_the_replay_check_tells_nan_from_a_number():
    trace = trace_of('x*y', x=2.0, y=3.0)
    trace._after[trace.output] = [3.0, NAN]
    with pytest.raises(AssertionError, match='replay'):
        trace.steps[0]


# --- the ops table ---------------------------------------------------------------------------------


def ops_value_makes():
    """The op names Value's own code gives its results, read from its source: Value(data, children, op)."""
    source = Path(engine.value.__file__).read_text()
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', None) == 'Value' and len(node.args) >= 3:
            op = node.args[2]
            names.add(op.value if isinstance(op, ast.Constant) else ast.unparse(op))
    return names


def test_the_source_scan_finds_every_op_of_the_exercise_and_beyond():
    found = ops_value_makes()
    assert {'+', '*', 'tanh', '-', 'neg', '/', 'exp', 'log', 'relu', 'sigmoid'} <= found
    assert any(name.startswith("f'**") for name in found)  # the power's op name, f'**{n:g}'


def test_the_table_has_exactly_the_ops_value_makes_each_with_its_arity():
    made = {'**' if name.startswith("f'**") else name for name in ops_value_makes()}
    assert set(OPS) == made
    for op, entry in OPS.items():
        name = '**2' if op == '**' else op
        leaves, out = parse_expression(f'L = {formula(name, ["a", "b"][: entry.arity])}').build({'a': 1.0, 'b': 2.0})
        assert (op_of(out._op), len(out._prev)) == (entry, entry.arity), op


def test_the_table_gives_the_symbols_the_page_shows():
    shown = {op: symbol(op) for op in ['+', '-', '*', '/', 'neg', '**2', '**-0.5', 'tanh', 'sigmoid']}
    assert shown == {
        '+': '+', '-': '−', '*': '×', '/': '÷', 'neg': '−x', '**2': 'x^2', '**-0.5': 'x^-0.5',
        'tanh': 'tanh', 'sigmoid': 'sigmoid',
    }  # fmt: skip


@pytest.mark.parametrize(
    'op, args, written',
    [
        # brackets only where precedence needs them, as a student would write the formula
        ('+', ['a', 'b-c'], 'a+b-c'),
        ('-', ['a', 'b-c'], 'a-(b-c)'),
        ('-', ['a-b', 'c'], 'a-b-c'),
        ('*', ['a+b', 'c/d'], '(a+b)*c/d'),
        ('/', ['a*b', 'c*d'], 'a*b/(c*d)'),
        ('neg', ['a*b'], '-(a*b)'),
        ('neg', ['a'], '-a'),
        ('**2', ['a+b'], '(a+b)**2'),
        ('**2', ['a**2'], '(a**2)**2'),
        ('**0.5', ['x'], 'x**0.5'),
        ('tanh', ['a+b'], 'tanh(a+b)'),
        ('*', ['x1*w1 + x2*w2', 'c'], '(x1*w1 + x2*w2)*c'),  # a label with spaces reads as a sum
    ],
)
def test_formulas_are_written_with_brackets_only_where_needed(op, args, written):
    assert formula(op, args) == written


@pytest.mark.parametrize(
    'op, args, reason',
    [
        # the first non-finite result of finite inputs, op by op, and the classic inf arithmetic
        ('/', [0.0, 0.0], '0/0'),
        ('/', [1.0, 0.0], 'division by zero'),
        ('/', [1e308, 1e-10], 'overflow past 1.8e308'),
        ('/', [INF, -INF], 'inf ÷ inf'),
        ('log', [-1.0], 'log of a negative number'),
        ('log', [0.0], 'log of 0 is −inf'),
        ('**0.5', [-8.0], 'a negative number to a fractional power'),
        ('**-1', [0.0], '0 to a negative power'),
        ('**2', [1e200], 'overflow past 1.8e308'),
        ('exp', [1000.0], 'exp overflows (the result is past 1.8e308)'),
        ('*', [INF, 0.0], 'inf × 0'),
        ('*', [0.0, -INF], 'inf × 0'),
        ('*', [1e200, 1e200], 'overflow past 1.8e308'),
        ('+', [INF, -INF], 'inf − inf'),
        ('-', [INF, INF], 'inf − inf'),
        ('+', [1e308, 1e308], 'overflow past 1.8e308'),
        ('-', [-1e308, 1e308], 'overflow past 1.8e308'),
        ('tanh', [NAN], 'an input is already nan'),
        ('neg', [-INF], 'an input is already −inf'),
    ],
)
def test_each_op_says_why_it_gives_inf_or_nan(op, args, reason):
    assert why_nonfinite(op, args) == reason


# --- where inf or nan first appears, and why ---------------------------------------------------------


def index_of(trace, name):
    (i,) = [i for i, node in enumerate(trace.nodes) if node.name == name]
    return i


def test_zero_over_zero_is_reported_at_its_own_node():
    trace = trace_of('0/0')
    found = first_nonfinite(trace)
    assert (found.node, found.where, found.reason, found.step) == (trace.output, 'data', '0/0', None)
    assert math.isnan(found.value)
    assert found.message(trace.nodes) == 'out = 0/0 is nan: 0/0'


def test_log_of_a_negative_input_is_reported_with_its_formula():
    trace = trace_of('n = log(x)', x=-1.0)
    found = first_nonfinite(trace)
    assert (found.node, found.where, found.reason) == (trace.output, 'data', 'log of a negative number')
    assert found.message(trace.nodes) == 'n = log(x) is nan: log of a negative number'


def test_the_first_nonfinite_node_is_reported_not_the_ones_it_spoils():
    # exp(1e6) overflows to inf; inf * 0 is then nan, but the exp is where it starts
    trace = trace_of('exp(x)*0', x=1e6)
    found = first_nonfinite(trace)
    assert found.node == index_of(trace, 'exp(x)')
    assert found.reason == 'exp overflows (the result is past 1.8e308)'
    assert found.message(trace.nodes) == 'exp(x) is inf: exp overflows (the result is past 1.8e308)'


def test_an_input_that_is_nan_is_reported_as_the_input():
    trace = trace_of('relu(x) + 1', x=NAN)
    found = first_nonfinite(trace)
    assert (found.node, found.where) == (index_of(trace, 'x'), 'data')
    assert found.message(trace.nodes) == 'the input x is nan'


def test_square_root_at_zero_has_finite_data_but_an_infinite_grad():
    # sqrt(0) = 0, but d sqrt(x)/dx = 1 / (2 sqrt(x)) is 1/0 = inf at 0: x.grad is inf after the one step
    trace = trace_of('x**0.5', x=0.0)
    assert [node.data for node in trace.nodes] == [0.0, 0.0]
    found = first_nonfinite(trace)
    x = index_of(trace, 'x')
    assert (found.node, found.where, found.step, found.child, found.value) == (trace.output, 'grad', 0, x, INF)
    assert found.reason == 'the local gradient of x**0.5 at x = 0 is infinite'
    assert found.message(trace.nodes) == (
        'x.grad is inf after backward step 1, where out passes its grad back: '
        'the local gradient of x**0.5 at x = 0 is infinite'
    )


def test_an_infinite_local_gradient_times_a_grad_of_zero_is_nan():
    # out = sqrt(x) * 0: sqrt(x).grad = 0, then x.grad += inf * 0 = nan, in the third step (out, the 0, the sqrt)
    trace = trace_of('x**0.5*0', x=0.0)
    found = first_nonfinite(trace)
    assert (found.node, found.step, found.child) == (index_of(trace, 'x**0.5'), 2, index_of(trace, 'x'))
    assert math.isnan(found.value)
    assert found.reason == 'the local gradient of x**0.5 at x = 0 is infinite, and inf × 0 is nan'


def test_a_grad_that_overflows_in_the_product_names_both_numbers():
    # out = (x*y)*z = 1e200 with x*y = 1: (x*y).grad = z = 1e200, then y.grad = x * 1e200 = 1e400, past the floats
    trace = trace_of('x*y*z', x=1e200, y=1e-200, z=1e200)
    found = first_nonfinite(trace)
    assert (found.node, found.child, found.where) == (index_of(trace, 'x*y'), index_of(trace, 'y'), 'grad')
    assert found.reason == '1e+200 × 1e+200: overflow past 1.8e308'
    # the steps run in reverse forward order, x, y, x*y, z, out: out, z (a leaf, nothing to pass), then x*y
    assert found.message(trace.nodes).startswith('y.grad is inf after backward step 3, where x*y passes its grad back')


def test_a_grad_that_overflows_as_it_accumulates_names_the_sum():
    # x*y + x*z with y = z = 1e308: x.grad collects 1e308 from each product, and 1e308 + 1e308 is inf
    trace = trace_of('x*y + x*z', x=1e-300, y=1e308, z=1e308)
    found = first_nonfinite(trace)
    assert found.reason == '1e+308 + 1e+308: overflow past 1.8e308'
    assert (found.child, found.value) == (index_of(trace, 'x'), INF)


@pytest.mark.parametrize('text', ['tanh(x1*w1 + x2*w2 + b)', 'a*b + a*a', 'log(x) + x**0.5 + 1/x'])
def test_a_trace_with_every_number_finite_has_nothing_to_report(text):
    assert first_nonfinite(trace_of(text)) is None  # inputs default to 1


def test_grad_history_lists_the_steps_that_wrote_a_grad():
    # a*b + a*a at a = 3, b = -2: step 1 (a*a) adds 3 + 3 to a.grad, step 2 (a*b) adds b = -2: 6, then 4
    trace = trace_of('a*b + a*a', a=3.0, b=-2.0)
    assert trace.grad_history(index_of(trace, 'a')) == [(1, 6.0), (2, 4.0)]
    assert trace.grad_history(trace.output) == []


# --- on the page: numbers and the grad check ---------------------------------------------------------


def test_fmt_writes_nan_and_the_infinities_as_words_with_a_true_minus():
    assert [fmt(NAN), fmt(INF), fmt(-INF)] == ['nan', 'inf', '\u2212inf']
    assert fmt(-2.0) == '-2.0000'  # finite numbers as before


def test_number_width_counts_nan_and_the_infinities_and_reads_every_step():
    # log(x) at x = -1: nan data, and every step read to find the widest amount
    trace = trace_of('y = log(x)', x=-1.0)
    width = number_width(trace)
    shown = [n.data for n in trace.nodes] + trace.final_grads()
    assert width >= max(len(fmt(x)) for x in shown)
    # -exp(x) at 1000: the data 1000, inf, −inf and the grads 1, -1, −inf: the widest is '1000.0000'
    assert number_width(trace_of('-exp(x)', x=1000.0)) == len('1000.0000')


def test_numeric_grads_never_raise_and_give_nan_where_the_output_is_not_finite_nearby():
    # sqrt at 0: f(-h) is nan, so (f(h) - f(-h)) / 2h is nan
    assert math.isnan(numeric_grads(parse_expression('x**0.5'), {'x': 0.0})['x'])
    # a value left out takes the default (1): d(a*b)/da = b = 1
    assert numeric_grads(parse_expression('a*b'), {'b': 1.0})['a'] == pytest.approx(1.0)


def check_rows(text, **values):
    trace = trace_of(text, **values)
    table = grad_check(trace, numeric_grads(parse_expression(text), values))
    return table.to_dict('records')


def test_grad_check_says_undefined_where_the_grad_is_infinite():
    # sqrt at 0: x.grad = inf, the finite difference nan: nothing to compare
    (row,) = check_rows('x**0.5', x=0.0)
    assert row == {'input': 'x', 'grad (backward)': 'inf', 'finite difference': UNDEFINED, 'difference': UNDEFINED}


def test_grad_check_says_undefined_where_the_output_is_not_finite_even_if_the_difference_is():
    # 1/x**2 at 0 is inf, while f(h) = f(-h) = 1e12, so the finite difference is a finite 0 that means nothing;
    # x.grad is 0 * -inf = nan (x**2 has slope 0 at 0)
    (row,) = check_rows('1/x**2', x=0.0)
    assert numeric_grads(parse_expression('1/x**2'), {'x': 0.0})['x'] == 0.0
    assert row == {'input': 'x', 'grad (backward)': 'nan', 'finite difference': UNDEFINED, 'difference': UNDEFINED}


def test_grad_check_compares_finite_numbers_as_before():
    # d(a*b)/da = b = -3, d(a*b)/db = a = 2; the differences are of order h^2 = 1e-12 or rounding
    rows = check_rows('a*b', a=2.0, b=-3.0)
    assert [(r['input'], r['grad (backward)'], r['finite difference']) for r in rows] == [
        ('a', '-3.0000', '-3.0000'),
        ('b', '2.0000', '2.0000'),
    ]
    assert all(float(r['difference']) < 1e-8 for r in rows)
