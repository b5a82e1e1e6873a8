"""A number box for every input of the expression, named by its variable."""

import math

import streamlit as st

from components.markdown import md
from state import CUSTOM, INPUT_LIMIT, forget_other_formulas, input_key
from view.learning import steps_text
from view.numbers import fmt

LIMIT = INPUT_LIMIT


def _keep_in_range(key, default):
    """A value from the box (or a tampered client) beyond the limit goes to the nearer bound; nan goes back to the
    default. Streamlit's own min/max would send +1,000,001 to the lower bound."""
    value = st.session_state[key]
    if value is None or math.isnan(value):
        st.session_state[key] = default
    elif abs(value) > LIMIT:
        st.session_state[key] = math.copysign(LIMIT, value)
    else:
        return
    st.toast(f'{md(key.split(":")[-1])} is kept within ±1,000,000.', icon=':material/straighten:')


START = ' (start)'  # the label of a parameter's box while learning: where the steps start, not where they are now


def input_values(expr_key, expression, boxes=True, starts=()):
    """{name: value} as set in the boxes; each box starts at the expression's default. Without `boxes`: the values
    the boxes would show, and no box drawn (the presentation view); a list of names: their boxes alone (a batch's
    data comes from its dataset). A typed formula's boxes are kept for that formula
    only (state.forget_other_formulas). `starts`: the names whose boxes hold where learning starts (the parameters,
    while learning), labelled so; show_learned says where the steps took them."""
    values = {}
    names = list(expression.defaults)
    drawn = names if boxes is True else list(boxes or ())
    columns = st.columns(2) if drawn else None
    for name in names:
        key = input_key(expr_key, name)
        default = float(expression.defaults[name])
        if key not in st.session_state:
            st.session_state[key] = default
        if name in drawn:
            with columns[drawn.index(name) % 2]:
                start = name in starts
                st.number_input(md(name) + START * start, key=key, step=0.1, format='%.4f', on_change=_keep_in_range,
                                args=(key, default), help=START_HELP if start else None)  # fmt: skip
        value = st.session_state[key]
        values[name] = min(max(value, -LIMIT), LIMIT) if value == value else default  # a value set before any callback
    if expr_key == CUSTOM:
        forget_other_formulas(st.session_state, expression.defaults)
    return values


START_HELP = 'Where learning starts: the page takes the steps from here, and Start again comes back to it.'


def show_learned(box, learning):
    """In `box`, under the boxes: the parameters as the graph shows them, in the pass (after the learning steps taken)
    and after the update that follows it (the frames after the pass), each written as the graph and the table write
    them. The sidebar cannot follow the player's frame, so it says which values are which."""
    update = learning.update.params
    taken = learning.steps_taken
    shown = ', '.join(f'{md(p.name)} = {fmt(p.old)}' for p in update)
    after = ', '.join(f'{md(p.name)} = {fmt(p.new)}' for p in update)
    then = f'**The pass shown, after {steps_text(taken)}:** {shown}. ' if taken else ''
    start = 'The boxes hold where learning started.' if taken else 'The boxes hold the pass shown.'
    box.caption(f'{then}**After its update, learning step {taken + 1} (the frames after the pass):** {after}. {start}')
