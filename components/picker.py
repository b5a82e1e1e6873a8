"""Choosing what to draw: a preset, the chain's length, or a typed formula."""

import streamlit as st

from components.markdown import md
from engine import PRESETS, ExpressionError, chain, parse_expression
from state import CUSTOM, EXPRESSIONS, MAX_CHAIN

# short enough for the sidebar; the page's heading gives the whole formula
MENU = {
    'neuron': 'neuron (the exercise)',
    'reuse': 'reuse (the exercise)',
    'chain': 'chain (the exercise)',
    'lecture': 'L = (a·b + c)·f',
    'a_plus_a': 'pitfall: b = a + a',
    'ab_times_a_plus_b': 'pitfall: (a·b)·(a + b)',
    'mlp': 'tiny MLP with a loss',
    CUSTOM: 'type your own formula…',
}


def choose_expression():
    """The chosen expression, or None (with a message on the page) when a typed formula cannot be read."""
    key = st.selectbox('Expression', EXPRESSIONS, format_func=MENU.get, key='expr')
    if key == 'chain':
        n = st.number_input('Chain length', min_value=1, max_value=MAX_CHAIN, step=1, key='chain_length')
        return chain(int(n))
    if key != CUSTOM:
        return PRESETS[key]
    text = st.text_input(
        'Formula',
        key='formula',
        max_chars=None,
        help='Numbers, names, + - * / **, and tanh exp log relu sigmoid. "L = ..." names the output.',
    )
    try:
        return parse_expression(text)
    except ExpressionError as e:
        show_formula_error(text, e)
        return None


def show_formula_error(text, error):
    where = ''
    if error.column and len(text) <= 120:
        where = f'\n\n```text\n{text}\n{" " * (error.column - 1)}^\n```'
    st.error(f'**This formula can’t be drawn:** {md(str(error))}{where}', icon=':material/edit:')
