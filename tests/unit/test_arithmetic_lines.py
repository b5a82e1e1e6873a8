"""Every line of arithmetic the page writes with numbers works out, to its last shown digit, from the numbers it
shows, or says ≈: the edge labels, the sums, the explanations, the speaker notes and learning's update lines.

Each line is read back as a reader would: its numbers parsed from the text and worked out again in exact decimal
arithmetic, never with the page's own functions.
"""

import re
from decimal import Decimal

import pytest

from engine import PRESETS, assign, chain, learn, parse_expression, trace_backward
from engine.frames import frames
from exports.render import speaker_notes
from view.explanation import explain, frame_rules, plain_text
from view.graph import hot_edges, label_width
from view.learning import update_line
from view.numbers import equals, number_width

NUMBER = r'[−-]?\d+\.\d+(?:e[+−-]?\d+)?'
# a whole right side, 'A × B = C' or 'A + (−B) ≈ C': after '= ', '≈ ', ': ' or the line's start, to its end or a comma
SUM = re.compile(
    rf'(?:^|(?<== )|(?<=≈ )|(?<=: ))\(?({NUMBER})\)? ([×+−]) \(?({NUMBER})\)? ([=≈]) ({NUMBER})(?=$|[,\s])', re.M
)
# a typed product whose rounded factors miss the rounded product: 1 × (−2) × 0.419956, its (a*b).grad 0.4200 and
# a.grad −0.839912 shown −0.8399, where −2.0000 × 0.4200 = −0.8400
ROUNDED = parse_expression('(a*b)*c')
ROUNDED_AT = {'a': 1.0, 'b': -2.0, 'c': 0.419956}
CASES = {
    **{key: (expression, None) for key, expression in PRESETS.items()},
    'chain5': (chain(5), None),
    'rounded': (ROUNDED, ROUNDED_AT),
    'typed': (parse_expression('L = tanh(x*w + b) * y - x/3 + exp(-y)'), {'x': 0.7, 'w': -1.3, 'b': 0.123, 'y': 1.9}),
}


def decimal(text):
    return Decimal(text.replace('−', '-'))


def half_unit(text):
    """Half the unit of the last digit written: 0.00005 for '0.8399'."""
    mantissa, _, power = text.replace('−', '-').partition('e')
    return Decimal(5) * Decimal(10) ** (int(power or 0) - len(mantissa.partition('.')[2]) - 1)


def works_out(exact, shown):
    """Whether `exact` (a Decimal) rounds to the number `shown`, a tie either way."""
    return abs(exact - decimal(shown)) <= half_unit(shown)


def work_out(a, op, b):
    a, b = decimal(a), decimal(b)
    return a * b if op == '×' else a + b if op == '+' else a - b


def check_line(line):
    """Each 'A op B = C' in the line: '=' where A op B rounds to C, '≈' where it does not."""
    for a, op, b, sign, c in SUM.findall(line):
        assert (sign == '=') == works_out(work_out(a, op, b), c), line


def traced(expression, values=None, value_type=None):
    leaves, out = expression.build(values, **({'value_type': value_type} if value_type else {}))
    return trace_backward(out, leaves)


def test_the_sign_is_approximately_where_rounded_factors_miss_the_rounded_result():
    assert equals(-2.0 * 0.419956, -2.0 * 0.42) == '≈'  # −2.0000 × 0.4200 ≈ −0.8399 (the exact −0.8400)
    assert equals(0.5, 1 - 0.7071**2) == '='  # 1 − 0.7071² = 0.50000959, 0.5000 to 4 places
    assert equals(0.6351 * 1.5 + 1e-7, 0.6351 * 1.5) == '='  # 0.95265, a tie: 0.9527 is one way to round it
    assert equals(float('nan'), float('nan')) == '=' and equals(float('inf'), 1e308 * 10) == '='


def test_the_rounded_example_says_approximately_on_its_edge_and_in_its_sums():
    trace = traced(ROUNDED, ROUNDED_AT)
    width = number_width(trace)
    step = next(f for f in frames(trace) if f.kind == 'backward' and trace.nodes[f.node].name == 'a*b')
    label = hot_edges(trace, step, width)[step.node, 0]
    product, _, result = label.split('\n')
    assert product.split() == ['-2.0000', '×', '0.4200'] and result.split() == ['+=', '≈', '-0.8399']
    assert 'a.grad += b.data × (a*b).grad = −2.0000 × 0.4200 ≈ −0.8399' in frame_rules(trace, step)


@pytest.mark.parametrize('key', CASES)
@pytest.mark.parametrize('engine', ['+=', '='])
def test_every_sum_the_page_writes_works_out_or_says_approximately(key, engine):
    expression, values = CASES[key]
    trace = traced(expression, values, assign.Value if engine == '=' else None)
    width = number_width(trace)
    local_width = label_width(trace, width)
    for frame in frames(trace):
        for line in frame_rules(trace, frame, engine == '='):
            check_line(line)
        for line in plain_text(explain(trace, frame, engine == '=')).split('\n'):
            check_line(line)
        for line in speaker_notes(trace, frame, engine == '=').split('\n'):
            check_line(line)
        for label in hot_edges(trace, frame, width, local_width).values():
            product, gap, result = label.split('\n')
            a, times, b = product.split()
            assert times == '×' and len(result) == len(product) == len(gap)  # as wide as ever: nothing moves
            amount = result.split()[-1]
            assert ('≈' not in result) == works_out(work_out(a, '×', b), amount), label


@pytest.mark.parametrize('key', [key for key, expression in PRESETS.items() if expression.params])
@pytest.mark.parametrize('lr', learn.LEARNING_RATES)
def test_every_update_line_works_out_or_says_approximately(key, lr):
    values = PRESETS[key].defaults
    for _ in range(4):  # a few steps, each from where the last left the parameters
        update = learn.step(PRESETS[key], values, lr)
        for p in update.params:
            line = update_line(p, lr)
            old, rate, grad, sign, new = re.fullmatch(
                rf'.*: \(?({NUMBER})\)? − ([\d.]+) × \(?({NUMBER})\)? ([=≈]) ({NUMBER})', line
            ).groups()
            exact = decimal(old) - decimal(rate) * decimal(grad)
            assert (sign == '=') == works_out(exact, new), line
        values = update.values
