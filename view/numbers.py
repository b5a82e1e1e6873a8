"""How numbers are written, everywhere the page and its exports write one: the graph's and the table's fixed width
(fmt: one width per graph, so that no node moves between frames), the explanation's (number, number_word), the
plots' axes (tick_label, power_label) and the file names' (file_number).

Arithmetic written out with numbers ends in '=' or '≈' (equals): '=' only where the numbers shown work out to the
result shown.

The engine's messages (engine/nonfinite.py) write theirs with engine.ops.word, which the engine keeps because it may
not import the page; number_word is that word with the page's true minus.
"""

import math

from engine.forward import tangents, terms
from engine.ops import word

NOT_COMPUTED = '·'
HIDDEN = '?'  # a grad the class is asked to work out (engine.frames.HIDE)
MINUS = str.maketrans('-', '−')  # the page's true minus for a hyphen


def fmt(x):
    """4 decimals, or 3 significant digits in e-notation where 4 decimals would mislead; nan, inf and −inf as such."""
    if x is None:
        return NOT_COMPUTED
    if math.isnan(x):
        return 'nan'
    if math.isinf(x):
        return 'inf' if x > 0 else '−inf'  # a true minus sign, as the page writes −inf in words too
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-4):
        return f'{x:.3e}'
    return f'{x + 0.0:.4f}'  # -0.0 + 0.0 is 0.0: zero has no sign on the page


def needs_e(xs):
    """Whether numbers shown together need e-notation, as fmt would write one of them: one that is finite and not
    0 at a million or more, or below 1e-4."""
    return any(x is not None and math.isfinite(x) and x != 0 and not 1e-4 <= abs(x) < 1e6 for x in xs)


def fmt_all(xs, e=None):
    """Numbers shown together, a table's or a column's compared by eye, in one style: fmt's 4 decimals for all, or,
    where one needs it (needs_e; `e` says so where the group is more than xs), e-notation for all: never 1.000e+06
    beside 999998.0000. In 4 decimals a number below 0.00005 is 0.0000, and a zero, in either, has no sign."""
    e = needs_e(xs) if e is None else e
    return [_in_style(x, e) if x is not None and math.isfinite(x) else fmt(x) for x in xs]


def _in_style(x, e):
    text = f'{x:.3e}' if e else f'{x:.4f}'
    return text if float(text) else text.lstrip('-')  # -0.00001 in 4 decimals is 0.0000, not -0.0000


def flushed(x):
    """x, or 0.0 where it rounds to 0 at the 9 decimals the exercise rounds grads to (engine/grader.py): -3e-17 from
    rounding is shown and judged as the 0 it stands for, as the grader sees it."""
    return 0.0 if x is not None and math.isfinite(x) and round(x, 9) == 0 else x


def as_shown(x):
    """x as the page writes it (fmt), read back: the number a reader works with, 0.42 for 0.41996; nan and ±inf as
    they are."""
    return float(fmt(x)) if math.isfinite(x) else x


def equals(result, worked):
    """The sign before a line's shown `result`: '=' where `worked`, the same arithmetic done on the numbers as the
    line shows them (as_shown), rounds to that result at the digits shown, else '≈': −2.0000 × 0.4200 ≈ −0.8399. A
    product of rounded factors often lands a digit away from the rounded product, and '=' would be false. A tie
    (0.6351 × 1.5 = 0.95265, shown 0.9527) rounds either way: '='."""
    shown = fmt(result)
    if fmt(worked) == shown:
        return '='
    if not (math.isfinite(result) and math.isfinite(worked)):
        return '≈'
    mantissa, _, power = shown.partition('e')
    half = 0.5 * 10.0 ** (int(power or 0) - len(mantissa.partition('.')[2]))  # half the last digit's unit
    return '=' if abs(worked - as_shown(result)) <= half * (1 + 1e-9) else '≈'


def product_sign(result, *factors):
    """equals() for a product written out: '=' where the factors, as shown, multiply out to `result` as shown."""
    return equals(result, math.prod(as_shown(f) for f in factors))


def number_width(trace):
    """The widest number any frame of this trace will show, nan and ±inf included."""
    numbers = [node.data for node in trace.nodes] + [1.0] + trace.final_grads()
    numbers += [x for step in trace.steps for c in step.contributions for x in (c.amount, c.after)]
    return max(len(fmt(x)) for x in numbers)


def tangent_width(trace, wrt):
    """The widest number forward mode shows for the input node wrt: its tangents, and each op's terms."""
    numbers = [x for i in range(len(trace.nodes)) if trace.nodes[i].op for t in terms(trace, wrt, i)
               for x in (t.amount, t.tangent_in)]  # fmt: skip
    return max(len(fmt(x)) for x in [*tangents(trace, wrt), *numbers])


def padded(x, width):
    """Right-aligned to width; "not computed" in the middle, where it is easier to see."""
    return fmt(x).rjust(width) if x is not None else NOT_COMPUTED.center(width)


def number(x):
    """A number as the explanation writes it: fmt's digits with a true minus, as in −inf: '−2.0000'."""
    text = fmt(x)
    return f'−{text[1:]}' if text.startswith('-') else text


def number_word(x):
    """A plain number, as short as it is, with a true minus: 2, 0.5, −1 (engine.ops.word, the page's minus)."""
    return word(x).translate(MINUS)


def tick_label(v):
    """A plot's axis value: 6 significant digits, a true minus: '0.25', '−1.5', '1e+07'."""
    return f'{v:.6g}'.translate(MINUS)


def power_label(e):
    """10**e as an axis writes it at full size: 1, 0.1, 0.01, 0.001, then 1e−4, 1e−5 (a true minus)."""
    return f'{10.0**e:.{max(0, -e)}f}' if -3 <= e <= 3 else f'1e{e}'.translate(MINUS)


def file_number(x):
    """A number in a file name: '3', '-2', '0.5', '1e20' (ASCII only: a hyphen for a minus, no '+')."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f'{x:.6g}'.replace('e+', 'e')
