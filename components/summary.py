"""At the end: each input's grad from backward(), beside a central finite difference that never runs backward."""

import html

import pandas as pd
import streamlit as st

from components.markdown import md
from components.numbers import fmt


def grad_check(trace, numeric):
    """The inputs' grads from the trace beside `numeric` ({name: finite difference})."""
    final = trace.final_grads()
    rows = [(n.name, final[i], numeric[n.name]) for i, n in enumerate(trace.nodes) if n.is_input]
    return pd.DataFrame(
        {
            'input': [name for name, _, _ in rows],
            'grad (backward)': [fmt(g) for _, g, _ in rows],
            'finite difference': [fmt(d) for _, _, d in rows],
            'difference': [f'{abs(g - d):.1e}' for _, g, d in rows],
        }
    )


def show_summary(table, output_name):
    st.markdown(
        f'**Done.** Each input’s grad is ∂{md(output_name)}/∂input. The check nudges one input by ±1e-6 '
        'and measures how the output moves: (f(x+h) − f(x−h)) / 2h.'
    )
    st.dataframe(table, hide_index=True, width='stretch')


def summary_html(table, output_name):
    """The same check as HTML, for the player; every cell escaped."""
    intro = (
        f'<p><b>Done.</b> Each input’s grad is ∂{html.escape(output_name)}/∂input. The check nudges one input by '
        '±1e-6 and measures how the output moves: (f(x+h) − f(x−h)) / 2h.</p>'
    )
    return intro + table.to_html(index=False, escape=True, border=0, classes='check')
