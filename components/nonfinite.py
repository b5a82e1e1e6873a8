"""One line on where inf or nan first appears in the graph, and why: real math, shown, never a crash."""

import streamlit as st

from components.markdown import md


def show_nonfinite(problem, nodes):
    """`problem`: engine.first_nonfinite(trace), or None when every number is finite."""
    if problem is not None:
        st.warning(f'**Not a finite number:** {md(problem.message(nodes))}', icon=':material/all_inclusive:')
