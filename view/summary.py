"""At the end: each input's grad from backward(), beside a central finite difference that never runs backward."""

import html
import math

import pandas as pd

from view.numbers import fmt

UNDEFINED = 'undefined here'
# the central difference, with its brackets: (f(x+h) − f(x−h)) / 2h would read as divided by 2, times h
CHECK = 'The check nudges one input by ±h and measures how the output moves: (f(x+h) − f(x−h)) / (2h), with h = 1e-6.'


def grad_check(trace, numeric):
    """The inputs' grads from the trace beside `numeric` ({name: finite difference}).

    Where the grad, the finite difference or the output is inf or nan, the two cannot agree or disagree:
    the difference would be nan, or a number that means nothing, so both cells say so.
    """
    final = trace.final_grads()
    output_finite = math.isfinite(trace.nodes[-1].data)
    rows = []
    for i, node in enumerate(trace.nodes):
        if node.is_input:
            g, d = final[i], numeric.get(node.name, math.nan)
            if output_finite and math.isfinite(g) and math.isfinite(d):
                rows.append((node.name, fmt(g), fmt(d), f'{abs(g - d):.1e}'))
            else:
                rows.append((node.name, fmt(g), UNDEFINED, UNDEFINED))
    columns = ['input', 'grad (backward)', 'finite difference', 'difference']
    return pd.DataFrame({column: [row[j] for row in rows] for j, column in enumerate(columns)})


def summary_html(table, output_name):
    """The same check as HTML, for the player; every cell escaped."""
    intro = f'<p><b>Done.</b> Each input’s grad is ∂{html.escape(output_name)}/∂input. {html.escape(CHECK)}</p>'
    return intro + table.to_html(index=False, escape=True, border=0, classes='check')
