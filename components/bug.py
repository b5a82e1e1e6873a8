"""The `=` bug's note above the graph (the rest of the mode is view/bug.py, drawn by the player)."""

import streamlit as st

from view.bug import BUG_NOTE, no_reuse_note


def show_bug_note(trace):
    """Above the graph: what the `=` engine does and how the page shows it, and where the bug cannot show, why."""
    note = no_reuse_note(trace)
    if note:
        st.info(note, icon=':material/check_circle:')
    else:
        st.caption(BUG_NOTE)
