"""The mode switch in the sidebar (the modes are view/modes.py's rows), and the note on the page where the mode asked
for does not apply to the graph shown: the page then watches backward() instead, so no control is there that does
nothing."""

import streamlit as st

from view.modes import HELP, MODE, NAMES, in_force


def mode_control():
    st.radio('Mode', NAMES, key='mode', format_func=lambda name: MODE[name].label, help=HELP)


def mode_in_force(name, expression, trace):
    """The mode the page shows (a view.modes.Mode): `name`'s, or watch's with a note on the page saying why `name`'s
    does not apply."""
    mode, reason = in_force(name, expression, trace)
    if reason is not None:
        st.info(reason, icon=':material/info:')
    return mode
