"""Every node in topological order, with its grad at this frame and its final grad."""

import pandas as pd
import streamlit as st

from components.graph import ACTIVE_TINT
from components.numbers import HIDDEN, fmt
from engine import ops
from engine.frames import grads_at, hidden_grads

HIGHLIGHT = {'background-color': ACTIVE_TINT}  # the node this frame is about


def table_columns(trace):
    """The columns no frame changes: each node's name, its op as the graph shows it ('×', 'x^2'), and its final grad."""
    return {
        'names': [n.name for n in trace.nodes],
        'ops': [ops.symbol(n.op) if n.op else 'input' if n.is_input else 'constant' for n in trace.nodes],
        'finals': [fmt(g) for g in trace.final_grads()],
    }


def node_table(trace, frame, answers=True, hide='none'):
    """One row per node; with `answers`, a column of final grads too. `hide`: which grads show '?'."""
    fixed, hidden = table_columns(trace), hidden_grads(trace, frame, hide)
    columns = {
        'node': fixed['names'],
        'op': fixed['ops'],
        'data': [fmt(n.data) if frame.has_data(trace, i) else fmt(None) for i, n in enumerate(trace.nodes)],
        'grad now': [HIDDEN if g is not None and i in hidden else fmt(g) for i, g in enumerate(grads_at(trace, frame))],
    }
    if answers:
        columns['final grad'] = fixed['finals']
    return pd.DataFrame(columns)


def show_node_table(table, current):
    # styling one row, not testing every row, keeps a 1,000-row table cheap to send
    styled = table.style
    if current in table.index:
        styled = styled.set_properties(subset=pd.IndexSlice[[current], :], **HIGHLIGHT)
    st.dataframe(styled, hide_index=True, width='stretch')
