"""The finite-difference check at any size of input: its step scaled to x, its own error estimated, and the tables
(view/summary.py's watch table, view/bug.py's `=` and code-mode table) showing it only where that error is small
enough to tell right from wrong, saying why where it is not, and writing every table's numbers in one style.

Every derivative here is worked out by hand (the formulas' table below), never read off the engine; every number a
sentence shows is read back and held against the test's own arithmetic.
"""

import functools
import itertools
import math
import re
import sys
from types import SimpleNamespace

import pytest

from engine import PRESETS, Expression, assign, parse_expression, topological_order, trace_backward
from engine.ops import OPS, op_of
from engine.presets import Difference, numeric_grads
from tests.unit.by_hand import HANDS
from view.bug import bug_check
from view.forward import summary_html as forward_summary
from view.summary import CHECK, TRUST, UNDEFINED, UNTRUSTED, grad_check, untrusted

EPS = sys.float_info.epsilon
# a formula of x and y, with its derivatives by hand: d/dx and d/dy as plain math; together they use every op
HAND = {
    'x*y': (lambda x, y: y, lambda x, y: x),
    '(x + y) * (x - y)': (lambda x, y: 2 * x, lambda x, y: -2 * y),  # x² − y²
    'x/y': (lambda x, y: 1 / y, lambda x, y: -x / y**2),
    '-exp(x)*y': (lambda x, y: -math.exp(x) * y, lambda x, y: -math.exp(x)),
    'tanh(x*y)': (lambda x, y: y * (1 - math.tanh(x * y) ** 2), lambda x, y: x * (1 - math.tanh(x * y) ** 2)),
    'log(x)*y': (lambda x, y: y / x, lambda x, y: math.log(x)),
    'x**3 + y': (lambda x, y: 3 * x * x, lambda x, y: 1.0),
    'x**0.5*y': (lambda x, y: 0.5 / math.sqrt(x) * y, lambda x, y: math.sqrt(x)),
    'sigmoid(x) + sin(y)': (lambda x, y: math.exp(-x) / (1 + math.exp(-x)) ** 2, lambda x, y: math.cos(y)),
    'relu(x - y)': (lambda x, y: float(x > y), lambda x, y: -float(x > y)),  # x = y: the corner, no slope
    '(x + y) - x': (lambda x, y: 0.0, lambda x, y: 1.0),
    'cos(x)/y': (lambda x, y: -math.sin(x) / y, lambda x, y: -math.cos(x) / y**2),
    '1/x**2 + y': (lambda x, y: -2 / x**3, lambda x, y: 1.0),
}


def alone(hand):
    """An op alone on x and y (tests/unit/by_hand.py), as the table above writes a formula: 'x/y', and a one-input
    op times y, 'tanh(x)*y', so that y's grad is its result."""
    if hand.dy:
        return hand.formula('x', 'y'), (hand.dx, hand.dy)
    return f'{hand.formula("x")}*y', (lambda x, y: hand.dx(x, y) * y, hand.of)


HAND |= dict(alone(hand) for hand in HANDS)  # so every op, whatever its row, is checked at every size
SIZES = [1e-8, 1e-6, 1e-4, 1e-2, 0.5, 1.0, 3.0, 10.0, 1e3, 1e6, 1e8]  # up to the page's clamp, 1e6, and past it
NUMBER = re.compile(r'^-?\d+\.\d{4}$|^-?\d\.\d{3}e[+-]\d+$')


def trace_of(expression, values, value_type=None):
    leaves, out = expression.build(values, **({'value_type': value_type} if value_type else {}))
    return trace_backward(out, leaves)


def styles(cells):
    """The styles of the number cells: 'fixed' (4 decimals) or 'e' (e-notation)."""
    return {'e' if 'e' in c else 'fixed' for c in cells if NUMBER.match(c)}


def half_digit(text):
    """Half a unit of a number's last digit as written: 0.00005 for '1.2345', 5e-4 for '1.000e+00'."""
    mantissa, _, power = text.partition('e')
    return 0.5 * 10.0 ** (int(power or 0) - len(mantissa.partition('.')[2]))


def read(text):
    """The number after '≈' in a cell's words."""
    return float(re.search(r'≈ (\S+?)\)', text).group(1))


@functools.cache
def checked(text, x, y):
    """The formula at (x, y), its trace and its check, worked out once for the tests that sweep the sizes."""
    expression = parse_expression(text)
    return expression, trace_of(expression, {'x': x, 'y': y}), numeric_grads(expression, {'x': x, 'y': y})


def cases():
    for text, (dx, dy) in HAND.items():
        for (sx, y), sign in itertools.product(itertools.product(SIZES, [1e-8, 0.5, 1e6]), (1, -1)):
            x = sign * sx
            try:
                truth = {'x': dx(x, y), 'y': dy(x, y)}
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            yield text, {'x': x, 'y': y}, truth


def test_the_formulas_use_every_op_the_engine_has():
    used = {op_of(v._op) for text in HAND for v in topological_order(parse_expression(text).build()[1]) if v._op}
    assert used == set(OPS.values())


def test_a_check_the_tables_would_show_is_within_its_own_error_of_the_hand_derivative_at_every_size():
    shown = finite = 0
    for text, values, truth in cases():
        expression, trace, numeric = checked(text, values['x'], values['y'])
        if not math.isfinite(trace.nodes[-1].data):
            continue
        for name, slope in truth.items():
            d = numeric[name]
            if not isinstance(slope, float) or not math.isfinite(slope):
                continue
            finite += 1
            if untrusted(d, slope, True):
                continue
            shown += 1
            assert abs(d - slope) <= d.error, (text, values, name, float(d), slope, d.error)
    assert shown > 0.8 * finite  # most of the class is checked, not said to be untrustworthy


def test_the_watch_table_never_calls_a_right_grad_wrong_and_writes_one_style_at_every_size():
    for text, values, truth in cases():
        expression, trace, numeric = checked(text, values['x'], values['y'])
        for row in grad_check(trace, numeric).to_dict('records'):
            assert 'more than the check’s error' not in row['difference'], (text, values, row)
            if NUMBER.match(row['finite difference']):  # shown: it reads back to the hand's slope, to its error
                d = numeric[row['input']]
                slope = truth[row['input']]
                assert abs(float(row['finite difference']) - slope) <= d.error + half_digit(row['finite difference'])
            assert len(styles([row['grad (backward)'], row['finite difference'], row['difference']])) <= 1


@pytest.mark.parametrize('key', PRESETS)
@pytest.mark.parametrize('size', [1e-8, 1e-3, 1.0, 1e3, 1e6])
def test_every_preset_at_every_size_is_never_called_wrong_by_its_check(key, size):
    expression = PRESETS[key]
    values = {name: size * (1 if i % 2 else -1) for i, name in enumerate(expression.defaults)}
    trace = trace_of(expression, values)
    table = grad_check(trace, numeric_grads(expression, values))
    assert not any('more than' in cell for cell in table['difference']), table
    numbers = [c for column in ('grad (backward)', 'finite difference') for c in table[column]]
    assert len(styles(numbers)) <= 1, table


@pytest.mark.parametrize('key', PRESETS)
def test_every_preset_at_its_inputs_is_checked_and_trusted(key):
    trace = trace_of(PRESETS[key], {})
    table = grad_check(trace, numeric_grads(PRESETS[key], {}))
    assert not any(UNTRUSTED in cell or UNDEFINED in cell for cell in table['finite difference']), table


# --- the reported case: (a + b)(a − b) at a = 10⁶, b = −2 ---------------------------------------------------------


def test_the_reported_case_says_the_check_of_b_cannot_be_trusted_and_why():
    a, b = 1e6, -2.0
    expression = parse_expression('(a + b) * (a - b)')
    trace = trace_of(expression, {'a': a, 'b': b})
    rows = {r['input']: r for r in grad_check(trace, numeric_grads(expression, {'a': a, 'b': b})).to_dict('records')}
    # b: ∂f/∂b = −2b = 4, but f = a² − b² ≈ 1e12, whose rounding (1.2e-4 a unit) swamps the change 8h of a small h
    assert rows['b']['grad (backward)'] == '4.000e+00'  # one style: a's 2e6 needs e-notation, so b's 4 has it too
    assert rows['b']['finite difference'].startswith(UNTRUSTED) and rows['b']['difference'].startswith(UNTRUSTED)
    assert read(rows['b']['finite difference']) == pytest.approx((a + b) * (a - b), rel=0.05)  # 1.0e+12
    # a: ∂f/∂a = 2a = 2e6, and h = 6.1e-6 × 1e6 is large enough: the check reads back to 2a
    assert float(rows['a']['finite difference']) == pytest.approx(2 * a, rel=1e-3)
    assert float(rows['a']['difference']) <= 2 * a * TRUST


def test_the_reported_case_on_the_assigning_engine_still_tells_which_grad_is_right():
    # reuse, a·b + a·a, at a = 10⁶, b = −2: += gives a.grad = b + 2a = 1999998, = keeps the last write, b = −2
    a, b = 1e6, -2.0
    values = {'a': a, 'b': b}
    table = bug_check(
        trace_of(PRESETS['reuse'], values, assign.Value), trace_of(PRESETS['reuse'], values),
        numeric_grads(PRESETS['reuse'], values),
    )  # fmt: skip
    rows = {r['input']: r for r in table.to_dict('records')}
    assert (rows['a']['grad with ='], rows['a']['grad with +=']) == ('-2.000e+00', '2.000e+06')  # one style
    assert float(rows['a']['finite difference']) == pytest.approx(b + 2 * a, rel=1e-3)
    assert rows['a']['= is'] == 'WRONG: the finite difference agrees with +='
    assert rows['b']['= is'] == 'right' and float(rows['b']['finite difference']) == pytest.approx(a, rel=1e-3)


def test_where_the_two_grads_are_closer_than_the_checks_error_the_verdict_does_not_say_which_it_agrees_with():
    # a·1e12 + a at a = 1: += gives 1e12 + 1. The backward pass runs +'s _backward first (a.grad = 1), then ×'s, whose
    # = writes a.grad = 1e12 over it: 1 apart in 1e12, which the grader's 9 decimals see. f ≈ 1e12 rounds by about
    # 1e-4 a unit, so the check's error (about 1e-4 / h, h = 6.1e-6) is far more than that 1
    expression = parse_expression('a*1e12 + a')
    right, wrong = trace_of(expression, {}), trace_of(expression, {}, assign.Value)
    numeric = numeric_grads(expression, {})
    assert numeric['a'].error > 1  # too large to tell 1e12 + 1 from 1e12 …
    assert numeric['a'].error < TRUST * 1e12  # … though small beside the grad: the check is shown
    (row,) = bug_check(wrong, right, numeric).to_dict('records')
    assert row['grad with ='] == row['grad with +='] == '1.000e+12'  # 1e12 and 1e12 + 1 at 4 significant digits
    assert float(row['finite difference']) == pytest.approx(1e12 + 1, rel=1e-6)
    # the verdict gives the two grads apart, as the grader does, where the table's digits show them alike
    assert row['= is'] == (
        'WRONG: += gives another; the finite difference cannot tell which is right here '
        f'({1e12!r} against {1e12 + 1!r}, at the 9 decimals the grader rounds to)'
    )


def test_a_check_past_its_error_from_the_grad_is_said_to_be_so_with_both_numbers():
    # a·b at a = 2, b = 3: ∂/∂a = b = 3; a check that says 3.5 with an error of 0.001 (trusted: 0.1% of 3 is 0.003)
    # is 0.5 from it, past 0.001
    expression = parse_expression('a*b')
    trace = trace_of(expression, {'a': 2.0, 'b': 3.0})
    numeric = {'a': Difference(3.5, error=0.001, rounding=0.0, size=6.0, output=6.0), 'b': Difference(2.0, error=0.0)}
    rows = grad_check(trace, numeric).to_dict('records')
    apart, bound = re.fullmatch(r'(\S+), more than the check’s error, (\S+)', rows[0]['difference']).groups()
    assert (float(apart), float(bound)) == (3.5 - 3.0, 0.001)
    assert rows[1]['difference'] == '0.0000'


# --- each reason the check gives, read back ---------------------------------------------------------------------


def test_at_a_relus_corner_the_check_says_so():
    # relu(x) at x = 0: the slope is 0 to the left, 1 to the right; any h straddles the corner
    trace = trace_of(parse_expression('relu(x)'), {'x': 0.0})
    (row,) = grad_check(trace, numeric_grads(parse_expression('relu(x)'), {'x': 0.0})).to_dict('records')
    assert row['finite difference'] == f'{UNTRUSTED} (a relu’s corner is within ±h)'


def test_where_f_is_not_finite_at_every_step_tried_the_check_says_so():
    # log(x) at 1e-300: the slope 1e300 is finite, but x − h < 0 for every h tried, down to 6.1e-6 × 1e-15
    x = 1e-300
    assert x - (EPS ** (1 / 3)) * 1e-15 < 0
    (row,) = grad_check(trace_of(parse_expression('log(x)'), {'x': x}),
                        numeric_grads(parse_expression('log(x)'), {'x': x})).to_dict('records')  # fmt: skip
    assert row['finite difference'] == f'{UNTRUSTED} (f is not a finite number at x ± h)'


def test_rounding_in_a_value_inside_f_is_named_with_that_value():
    # (x + y) − x at x = 1e8, y = 1: f = 1, but x + y ≈ 1e8 rounds by 1.5e-8 a unit, and h for y is 6.1e-6
    values = {'x': 1e8, 'y': 1.0}
    expression = parse_expression('(x + y) - x')
    rows = {r['input']: r for r in grad_check(trace_of(expression, values), numeric_grads(expression, values))
            .to_dict('records')}  # fmt: skip
    assert rows['y']['finite difference'].startswith(f'{UNTRUSTED} (a value inside f ≈ ')
    assert read(rows['y']['finite difference']) == pytest.approx(1e8 + 1, rel=0.05)


def test_where_the_step_s_own_error_is_the_larger_the_check_says_the_slope_changes_too_fast():
    d = Difference(1.0, error=0.1, rounding=0.01, size=1.0, output=1.0)
    assert untrusted(d, 1.0, False) == f'{UNTRUSTED} (the slope changes too fast within ±h)'


# --- the sentence above the table, read back ------------------------------------------------------------------


def test_the_check_sentence_gives_the_step_numeric_grads_takes():
    steps = re.findall(r'(\d\.\de-\d) × (max|min)\(1, \|x\|\)', CHECK)
    assert [w for _, w in steps] == ['max', 'min'] and {s for s, _ in steps} == {f'{EPS ** (1 / 3) * 1e6:.1f}e-6'}
    step = float(steps[0][0])
    for x in (1e-8, 0.3, 1.0, -7.0, 1e6):
        tried = []

        def make(v, tried=tried):
            tried.append(v['x'].data)
            return v['x'] * v['x']

        numeric_grads(Expression('x·x', {'x': x}, make, key='test'), {})
        hs = sorted({abs(p - x) for p in tried} - {0.0})  # each step h is tried at ±h/2, ±h and ±2h
        largest = max(hs) / 2
        assert largest == pytest.approx(step * max(1, abs(x)), rel=0.01)  # the first: 6.1e-6 × max(1, |x|)
        for h in hs:  # then tenths of it, not below 6.1e-6 × min(1, |x|), to the rounding of that power of ten
            k = math.log10(largest / h)
            assert min(abs(k - round(k)), abs(k - round(k) - math.log10(2)), abs(k - round(k) + math.log10(2))) < 1e-6
            assert h >= step * min(1, abs(x)) / 2 / 2 * 0.9


def test_the_check_sentence_gives_the_share_of_the_grad_past_which_the_check_is_not_trusted():
    (share,) = re.findall(r'more than ([\d.]+)% of the grad', CHECK)
    assert float(share) / 100 == TRUST
    assert 'half the table’s last decimal (in e-notation, the 9th, where the exercise rounds)' in CHECK
    # 4 decimals: half the last is 0.00005; e-notation: the 9th decimal's, as the exercise rounds grads
    for grad, e, edge in [(2.0, False, 2.0 * TRUST), (0.0, False, 0.5e-4), (0.0, True, 0.5e-9), (2e6, True, 2e3)]:
        near = Difference(grad, error=edge * 0.99, rounding=edge, size=1.0, output=1.0)
        far = Difference(grad, error=edge * 1.01, rounding=edge, size=1.0, output=1.0)
        assert untrusted(near, grad, e) == '' and untrusted(far, grad, e).startswith(UNTRUSTED), (grad, e)


# --- 0 and rounding-sized grads ----------------------------------------------------------------------------------


def test_a_minus_zero_grad_is_shown_as_zero_with_no_sign():
    # a·b at a = −0.0: ∂/∂b = a = −0.0, ∂/∂a = b = 3
    expression = parse_expression('a*b')
    values = {'a': -0.0, 'b': 3.0}
    rows = {r['input']: r for r in grad_check(trace_of(expression, values), numeric_grads(expression, values))
            .to_dict('records')}  # fmt: skip
    assert rows['b']['grad (backward)'] == rows['b']['finite difference'] == '0.0000'
    assert rows['a']['grad (backward)'] == '3.0000'
    table = bug_check(trace_of(expression, values, assign.Value), trace_of(expression, values),
                      numeric_grads(expression, values))  # fmt: skip
    assert '-0.0000' not in table.to_string() and list(table['= is']) == ['right', 'right']


def test_a_grad_a_rounding_away_from_the_right_one_is_right_as_the_grader_says():
    # a student's grad of −3e-17 where the right engine's is 0, and 2 + 4e-16 where it is 2: the grader rounds both
    # to 9 decimals (engine/grader.py), and so the table: shown as 0 and 2, and right
    def trace(grads):
        nodes = [SimpleNamespace(name=n, is_input=True, data=1.0) for n in ('a', 'b')]
        nodes.append(SimpleNamespace(name='f', is_input=False, data=1.0))
        return SimpleNamespace(nodes=nodes, final_grads=lambda: [*grads, 1.0])

    yours, right = trace([-3e-17, 2.0 + 4e-16]), trace([0.0, 2.0])
    numeric = {'a': Difference(1e-12, error=1e-10), 'b': Difference(2.0, error=1e-10)}
    rows = bug_check(yours, right, numeric, named=('your grad', 'right grad', 'yours is')).to_dict('records')
    assert [(r['your grad'], r['right grad'], r['finite difference'], r['yours is']) for r in rows] == [
        ('0.0000', '0.0000', '0.0000', 'right'),
        ('2.0000', '2.0000', '2.0000', 'right'),
    ]


def test_forward_modes_check_says_where_it_cannot_be_trusted_and_writes_one_style():
    # x² − y² at x = 10⁶, y = −2: by hand ∂/∂x = 2x = 2,000,000 and ∂/∂y = −2y = 4; f ≈ 10¹² swamps y's nudge
    expression, values = parse_expression('(x + y) * (x - y)'), {'x': 1e6, 'y': -2.0}
    leaves, out = expression.build(values)
    trace = trace_backward(out, leaves)
    numeric = numeric_grads(expression, values)
    cells = {}
    for k, node in enumerate(trace.nodes):
        if node.is_input:
            table = forward_summary(trace, k, numeric).split('<p style')[0]  # the check, before the costs
            cells[node.name] = [re.sub('<[^>]+>', '', c).strip() for c in re.findall(r'<td>(.*?)</td>', table)][1::2]
    assert cells['x'] == [f'{2e6:.3e}'] * 3
    assert cells['y'][:2] == ['4.0000', '4.0000']
    assert cells['y'][2] == f'{UNTRUSTED} (f ≈ {1e12:.1e})'
