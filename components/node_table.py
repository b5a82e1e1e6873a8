"""Every node in topological order, with its grad at this frame and its final grad."""

import pandas as pd
import streamlit as st

from components.numbers import fmt
from engine.frames import grads_at

HIGHLIGHT = {'background-color': '#FBDCC6'}  # a tint of the graph's vermillion: the node this frame is about


def node_table(trace, frame, answers=True):
    """One row per node; with `answers`, a column of final grads too."""
    columns = {
        'node': [n.name for n in trace.nodes],
        'op': [n.op or ('input' if n.is_input else 'constant') for n in trace.nodes],
        'data': [fmt(n.data) if frame.has_data(trace, i) else fmt(None) for i, n in enumerate(trace.nodes)],
        'grad now': [fmt(g) for g in grads_at(trace, frame)],
    }
    if answers:
        columns['final grad'] = [fmt(g) for g in trace.final_grads()]
    return pd.DataFrame(columns)


def show_node_table(table, current):
    # styling one row, not testing every row, keeps a 1,000-row table cheap to send
    styled = table.style
    if current in table.index:
        styled = styled.set_properties(subset=pd.IndexSlice[[current], :], **HIGHLIGHT)
    st.dataframe(styled, hide_index=True, width='stretch')
