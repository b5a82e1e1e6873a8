"""How numbers are written (view/numbers.py): 4 decimals, e-notation at the extremes, nan, inf and −inf by
name, and one width per graph so that no box changes size between frames.

Every expected string is worked out by hand from the rule in fmt's docstring, not read back from fmt.
"""

import math

import pytest

from engine import PRESETS, parse_expression, trace_backward
from view.numbers import HIDDEN, NOT_COMPUTED, flushed, fmt, fmt_all, number_width, padded

MINUS = '\N{MINUS SIGN}'  # U+2212, as the page writes −inf; a finite negative number keeps the ASCII hyphen


def traced(expression, values=None):
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


# --- fmt ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('x', 'text'),
    [
        (0.0, '0.0000'),
        (1.0, '1.0000'),
        (-1.5, '-1.5000'),
        (2 / 3, '0.6667'),  # 0.66666… rounds up at the 4th decimal
        (1 / math.sqrt(2), '0.7071'),  # the neuron's o = tanh(n)
        (6.8813735870195432, '6.8814'),  # the neuron's b
        (1e-4, '0.0001'),  # the smallest number with 4 decimals: not below 1e-4
        (-1e-4, '-0.0001'),
        (123456.78, '123456.7800'),
        (999999.5, '999999.5000'),  # below a million: still 4 decimals
    ],
)
def test_four_decimals_from_a_ten_thousandth_to_below_a_million(x, text):
    assert fmt(x) == text


@pytest.mark.parametrize(
    ('x', 'text'),
    [
        (1e6, '1.000e+06'),  # a million and up: 3 significant digits after the point, in e-notation
        (-1234567.0, '-1.235e+06'),
        (1e300, '1.000e+300'),
        (-1.7976931348623157e308, '-1.798e+308'),  # the largest float there is
        (9.99e-5, '9.990e-05'),  # below 1e-4, 4 decimals would print 0.0001 for it, or 0.0000: misleading
        (-0.00001234, '-1.234e-05'),
        (5e-324, '4.941e-324'),  # the smallest positive float, 4.9406564584124654e-324
    ],
)
def test_e_notation_at_and_above_a_million_and_below_a_ten_thousandth(x, text):
    assert fmt(x) == text


def test_nan_inf_and_minus_inf_are_spelled_out():
    assert fmt(math.nan) == 'nan'
    assert fmt(-math.nan) == 'nan'  # a nan's sign means nothing: one spelling
    assert fmt(math.inf) == 'inf'
    assert fmt(-math.inf) == MINUS + 'inf'
    assert fmt(float('-inf')) != '-inf'  # the true minus sign, not a hyphen


def test_negative_zero_is_written_as_zero_with_no_sign():
    # IEEE arithmetic (the engine's) makes -0.0, e.g. x2*w2 with x2 = 0 and w2 = -1. It is zero: no e-notation, and
    # no sign, which would read as a negative number (or, beside 0.0000, as a different one)
    assert fmt(0.0 * -1.0) == '0.0000'
    assert fmt(-0.0) == fmt(0.0) == '0.0000'


# --- fmt_all: one style for the numbers a table shows together ----------------------------------------------------


@pytest.mark.parametrize(
    ('xs', 'texts'),
    [
        ([1.5, -2.0, 0.0], ['1.5000', '-2.0000', '0.0000']),  # none needs e-notation: 4 decimals, as fmt
        ([1e6, 999998.0], ['1.000e+06', '1.000e+06']),  # a million needs it: both, never 999998.0000 beside it
        ([4.0, 2e6, -0.0], ['4.000e+00', '2.000e+06', '0.000e+00']),  # and a zero in e-notation has no sign either
        ([0.5, 3e-5], ['5.000e-01', '3.000e-05']),  # below 1e-4 too
        ([0.5, None, math.nan, -math.inf], ['0.5000', '·', 'nan', MINUS + 'inf']),  # not numbers: as fmt says them
        ([1e9, math.inf], ['1.000e+09', 'inf']),
    ],
)
def test_fmt_all_writes_a_group_in_the_style_its_most_extreme_number_needs(xs, texts):
    assert fmt_all(xs) == texts
    # each alone, where none needs e-notation, is what fmt writes; every text reads back within half its last digit
    for x, text in zip(xs, texts):
        if x is not None and math.isfinite(x):
            last = 0.5 * 10.0 ** (int(text.partition('e')[2] or 0) - len(text.partition('.')[2].partition('e')[0]))
            assert abs(float(text) - x) <= last * (1 + 1e-9), (x, text)


def test_fmt_all_in_four_decimals_writes_a_tiny_negative_as_zero_with_no_sign():
    # the style is the group's (e=False): -0.00001 at 4 decimals is 0, and zero has no sign
    assert fmt_all([-0.00001, 1.0], e=False) == ['0.0000', '1.0000']
    assert fmt_all([-0.00006, 1.0], e=False) == ['-0.0001', '1.0000']


@pytest.mark.parametrize(
    ('x', 'shown'),
    [(-3e-17, 0.0), (4.9e-10, 0.0), (-4.9e-10, 0.0), (5.1e-10, 5.1e-10), (-1e-8, -1e-8), (2.0, 2.0)],
)
def test_flushed_gives_zero_where_the_exercise_rounding_to_9_decimals_gives_zero(x, shown):
    assert flushed(x) == shown
    assert str(flushed(x)) != '-0.0'  # a rounding-sized negative is the 0 it stands for, with no sign
    assert math.isnan(flushed(math.nan)) and flushed(None) is None and flushed(math.inf) == math.inf


def test_not_computed_and_hidden_are_one_character():
    assert fmt(None) == NOT_COMPUTED == '·'
    assert HIDDEN == '?'


# --- padded ----------------------------------------------------------------------------------------------------


def test_padded_right_aligns_a_number_to_the_width():
    assert padded(-1.5, 9) == '  -1.5000'
    assert padded(1.0, 7) == ' 1.0000'
    assert padded(-math.inf, 7) == '   ' + MINUS + 'inf'
    assert padded(math.nan, 6) == '   nan'


def test_padded_centres_not_computed_where_it_is_easier_to_see():
    assert padded(None, 7) == '   ·   '  # 3 spaces either side
    assert padded(None, 1) == '·'


def test_padded_never_cuts_a_number_wider_than_the_width():
    assert padded(123456.78, 4) == '123456.7800'


@pytest.mark.parametrize('x', [0.0, -0.0, 1.0, -1.5, 1e6, -1e300, 5e-324, math.nan, math.inf, -math.inf, None])
def test_padded_gives_every_number_the_same_width(x):
    assert len(padded(x, 11)) == 11


# --- number_width ------------------------------------------------------------------------------------------


def test_number_width_is_the_widest_number_of_any_frame():
    # reuse, a = 3, b = -2: data 3, -2, a*b = -6, a*a = 9, out = 3; grads 4, 3, 1, 1, 1; the steps add 1 and 1,
    # 3 and 3 (a: 3, then 6), -2 and 3 (a: 4, b: 3). The widest is '-2.0000' (or '-6.0000'): 7 characters.
    assert number_width(traced(PRESETS['reuse'])) == 7


def test_number_width_grows_with_the_inputs():
    # out = a*b + a*a, a = 3, b = -200: data 3, -200, a*b = -600, a*a = 9, out = -591; grads a = b + 2a = -194,
    # b = a = 3, then 1, 1, 1; the steps add 1 and 1, 3 and 3 (a: 3, then 6), -200 and 3 (a: -194, b: 3).
    # The widest: '-200.0000', '-600.0000', '-591.0000', '-194.0000', 9 characters each.
    assert number_width(traced(PRESETS['reuse'], {'a': 3.0, 'b': -200.0})) == 9


def test_number_width_of_huge_values_in_e_notation():
    # a*b, a = 1e300, b = -1e300: a '1.000e+300', b '-1.000e+300' (11 characters), a*b overflows to −inf;
    # a.grad = b.data = -1e300, b.grad = a.data = 1e300
    trace = traced(parse_expression('a*b'), {'a': 1e300, 'b': -1e300})
    assert fmt(trace.nodes[-1].data) == MINUS + 'inf'
    assert number_width(trace) == 11


def test_nan_and_inf_count_by_their_spelling_and_the_seed_keeps_the_width_at_least_six():
    # log(a) at a = 0: log(0) = −inf, a.grad = 1/0 = inf; the widest is '0.0000' and the seed's '1.0000': 6
    trace = traced(parse_expression('log(a)'), {'a': 0.0})
    assert [fmt(trace.nodes[-1].data), fmt(trace.final_grads()[0])] == [MINUS + 'inf', 'inf']
    assert number_width(trace) == 6
    # 0/0 is nan: its 3 letters do not widen anything either
    assert number_width(traced(parse_expression('a/b'), {'a': 0.0, 'b': 0.0})) == 6
