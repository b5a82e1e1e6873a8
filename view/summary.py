"""At the end: each input's grad from backward(), beside a central finite difference that never runs backward, and
what the difference's own error lets it say (engine.presets.numeric_grads estimates it)."""

import html
import math

import pandas as pd

from engine.presets import STEP
from view.numbers import flushed, fmt_all, needs_e

UNDEFINED = 'undefined here'
UNTRUSTED = 'cannot be trusted here'
TRUST = 1e-3  # the check is shown where its estimated error is at most this part of the grad …
# … or at most half the last decimal the table shows: the 4th, or in e-notation the 9th, where the exercise rounds
# grads (engine/grader.py) and below which the table shows 0 (numbers.flushed)
SHOWN = {False: 5e-5, True: 5e-10}
# the central difference, with its brackets: (f(x+h) − f(x−h)) / 2h would read as divided by 2, times h
CHECK = (
    'The check nudges one input x by ±h and measures how the output f moves: (f(x+h) − f(x−h)) / (2h), with '
    f'h = {STEP * 1e6:.1f}e-6 × max(1, |x|), scaled to x so that rounding does not swamp the change, or a tenth of '
    f'that, a hundredth, … down to {STEP * 1e6:.1f}e-6 × min(1, |x|), whichever has the least estimated error for its '
    'size (from rounding, and from the curve bending within ±h). Where that error is more than '
    f'{TRUST:.1%} of the grad and more than half the table’s last decimal (in e-notation, the 9th, where the exercise '
    'rounds), the check says it cannot be trusted.'
)


def untrusted(d, grad, e):
    """'' where the finite difference `d` (a Difference; a plain number is taken as exact) can be shown beside
    `grad` in a table of style `e` (numbers.needs_e), else why not, in words."""
    error = getattr(d, 'error', 0.0)
    if getattr(d, 'corner', False):
        return f'{UNTRUSTED} (a relu’s corner is within ±h)'
    if math.isnan(d):
        return f'{UNTRUSTED} (f is not a finite number at x ± h)'
    if error <= max(TRUST * abs(grad), SHOWN[e]):
        return ''
    if d.rounding < error / 2:
        return f'{UNTRUSTED} (the slope changes too fast within ±h)'
    if d.size > 10 * d.output:  # rounding in a value inside f, which f is far smaller than
        return f'{UNTRUSTED} (a value inside f ≈ {d.size:.1e})'
    return f'{UNTRUSTED} (f ≈ {d.output:.1e})'


def grad_check(trace, numeric):
    """The inputs' grads from the trace beside `numeric` ({name: Difference}), all numbers in one style.

    Where the grad or the output is inf or nan, the two cannot agree or disagree: both cells say so. Where the
    difference's own error is too large to tell (untrusted), both cells say why. The difference column compares the
    two as shown; past the check's error it says so (backward() and the check disagree: a bug).
    """
    output_finite = math.isfinite(trace.nodes[-1].data)
    inputs = [(node.name, g) for node, g in zip(trace.nodes, trace.final_grads()) if node.is_input]
    e = needs_e([flushed(g) for _, g in inputs])
    rows = []
    for name, g in inputs:
        d = numeric.get(name, math.nan)
        why = untrusted(d, g, e)
        if not (output_finite and math.isfinite(g)):
            rows.append((name, *fmt_all([g], e), UNDEFINED, UNDEFINED))
        elif why:
            rows.append((name, *fmt_all([flushed(g)], e), why, why))
        else:
            error = getattr(d, 'error', 0.0)
            grad, check, apart, bound = fmt_all([flushed(g), flushed(d), flushed(abs(g - d)), error], e)
            rows.append(
                (name, grad, check, f'{apart}, more than the check’s error, {bound}' if abs(g - d) > error else apart)
            )
    columns = ['input', 'grad (backward)', 'finite difference', 'difference']
    return pd.DataFrame({column: [row[j] for row in rows] for j, column in enumerate(columns)})


def summary_html(table, output_name):
    """The same check as HTML, for the player; every cell escaped."""
    intro = f'<p><b>Done.</b> Each input’s grad is ∂{html.escape(output_name)}/∂input. {html.escape(CHECK)}</p>'
    return intro + table.to_html(index=False, escape=True, border=0, classes='check')
