"""Every node in topological order, with its grad at this frame, the state of that grad in the legend's words, and
(only when asked, as the answers to the class's question) each grad as it is at the end of backward()."""

import pandas as pd
import streamlit as st

from components.graph import ACTIVE_TINT, FORWARD_TINT, SEED_TINT, value_look
from components.numbers import HIDDEN, fmt
from engine import ops
from engine.frames import grads_at, hidden_grads

# the row of the node this frame is about, in a tint of its box's mark: computed, seeded, or its _backward runs
TINT_OF = {'forward': FORWARD_TINT, 'seed': SEED_TINT, 'backward': ACTIVE_TINT}
# a grad's state (graph.value_look) in the legend's words: 'grad not computed yet', 'grad has more += to come',
# 'grad is final'; the cell reads after the column's title, 'grad …'
STATE_WORDS = {
    'none': 'not computed yet',
    'accumulating': 'has more += to come',
    'final': 'is final',
    'hidden': 'is hidden: work it out',
}
STATE_COLUMN = 'grad …'
# the grads at the end of the pass: the answers, hidden unless asked for; named so as not to be read as the state
ANSWER_COLUMN = 'answer: grad at the end'
COLUMNS = ('node', 'op', 'data', 'grad now', STATE_COLUMN, ANSWER_COLUMN)  # in the table's order, answer last
NAME_WIDTH = (8, 40)  # the node column fits its longest name, in characters, within these bounds


BESIDE_COLUMN = 'grad with +='  # the `=` bug (components/bug.py): what += gives at the same frame, beside it
# on the `=` engine a grad still to be written is not to be added to: each write replaces the last
ASSIGNING_WORDS = {**STATE_WORDS, 'accumulating': 'has more = to come'}


def table_columns(trace, beside=False):
    """What of the table no frame changes: each node's name, its op as the graph shows it ('×', 'x^2'), its grad at
    the end (the answer column's cells), the column titles in order, and the words for each grad state, which
    player.js writes in the state column from each patch's grad state. With `beside` (the `=` engine), a column
    after 'grad now' of what += gives, which each patch's look carries as its fifth text."""
    columns = list(COLUMNS)
    if beside:
        columns.insert(columns.index('grad now') + 1, BESIDE_COLUMN)
    return {
        'names': [n.name for n in trace.nodes],
        'ops': [ops.symbol(n.op) if n.op else 'input' if n.is_input else 'constant' for n in trace.nodes],
        'finals': [fmt(g) for g in trace.final_grads()],
        'columns': columns,
        'states': ASSIGNING_WORDS if trace.assigns else STATE_WORDS,
        'beside': beside,
    }


def grad_states(trace, frame, hidden=frozenset()):
    """Each node's grad state at `frame`, as the graph draws it: 'none', 'accumulating', 'final' or 'hidden'."""
    grads, final_after = grads_at(trace, frame), trace.final_after()
    return [value_look(trace, frame, i, grads, final_after, 1, hidden)[2] for i in range(len(trace.nodes))]


def node_table(trace, frame, answers=False, hide='none', right=None):
    """One row per node; with `answers`, the answer column (each grad at the end) too. `hide`: which grads show
    '?'. `right`: on the `=` engine, the `+=` trace, whose grads at this frame stand beside."""
    fixed, hidden = table_columns(trace), hidden_grads(trace, frame, hide)
    columns = {
        'node': fixed['names'],
        'op': fixed['ops'],
        'data': [fmt(n.data) if frame.has_data(trace, i) else fmt(None) for i, n in enumerate(trace.nodes)],
        'grad now': [HIDDEN if g is not None and i in hidden else fmt(g) for i, g in enumerate(grads_at(trace, frame))],
    }
    if right is not None:
        columns[BESIDE_COLUMN] = [fmt(g) for g in grads_at(right, frame)]
    columns[STATE_COLUMN] = [fixed['states'][state] for state in grad_states(trace, frame, hidden)]
    if answers:
        columns[ANSWER_COLUMN] = fixed['finals']
    return pd.DataFrame(columns)


def looks_table(trace, looks):
    """The table of a frame given by its looks (graph.value_look's texts per value): one step of learning's."""
    fixed = table_columns(trace)
    return pd.DataFrame({
        'node': fixed['names'], 'op': fixed['ops'],
        'data': [look[0].strip() for look in looks], 'grad now': [look[1].strip() for look in looks],
        STATE_COLUMN: [STATE_WORDS[look[2]] for look in looks],
    })  # fmt: skip


def pixels(characters):
    return 7 * characters + 20  # ~7 px a character of the table's font, and the cell's padding


def name_width(table):
    """The node column's width in pixels: wide enough for the longest name ('x1*w1 + x2*v'), within NAME_WIDTH."""
    longest = max((len(name) for name in table['node']), default=0)
    return pixels(min(max(longest, NAME_WIDTH[0]), NAME_WIDTH[1]))


def column_widths(table):
    """Each column's width in pixels, so that no cell is cut: the names, the numbers, and the state's words."""
    numbers = max((len(text) for column in ('data', 'grad now') for text in table[column]), default=0)
    widths = {'node': name_width(table), 'op': pixels(max(len(op) for op in table['op']) if len(table) else 5)}
    widths |= {'data': pixels(numbers), 'grad now': pixels(numbers)}
    if BESIDE_COLUMN in table:
        widths[BESIDE_COLUMN] = pixels(len(BESIDE_COLUMN))
    widths[STATE_COLUMN] = pixels(max(len(word) for word in STATE_WORDS.values()))
    if ANSWER_COLUMN in table:
        widths[ANSWER_COLUMN] = pixels(len(ANSWER_COLUMN))
    return widths


def show_node_table(table, frame):
    # styling one row, not testing every row, keeps a 1,000-row table cheap to send
    styled = table.style
    if frame.node in table.index:
        tint = {'background-color': TINT_OF[frame.kind]}
        styled = styled.set_properties(subset=pd.IndexSlice[[frame.node], :], **tint)
    config = {name: st.column_config.TextColumn(name, width=width) for name, width in column_widths(table).items()}
    st.dataframe(styled, hide_index=True, width='stretch', column_config=config)
