"""Every node in topological order, with its grad at this frame, the state of that grad in the legend's words, and
(only when asked, as the answers to the class's question) each grad as it is at the end of backward()."""

import pandas as pd

from engine import ops
from engine.frames import grads_at
from view.graph import value_look
from view.numbers import HIDDEN, fmt

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


BESIDE_COLUMN = 'grad with +='  # the `=` bug (view/bug.py): what += gives at the same frame, beside it
BESIDE_CODE = 'right grad'  # a student's bodies (view/exercise.py): what the right engine gives, beside theirs
# on the `=` engine a grad still to be written is not to be added to: each write replaces the last; and a final grad
# can be wrong (graph.wrong_grads), as its box shows
ASSIGNING_WORDS = {**STATE_WORDS, 'accumulating': 'has more = to come', 'wrong': 'is final but wrong: += gives another'}
YOURS_WORDS = {**STATE_WORDS, 'wrong': 'is wrong: the right engine gives another'}  # a student's bodies, at a frame


def table_columns(trace, beside=False):
    """What of the table no frame changes: each node's name, its op as the graph shows it ('×', 'x^2'), its grad at
    the end (the answer column's cells), the column titles in order, and the words for each grad state, which
    player.js writes in the state column from each patch's grad state. With `beside` (the `=` engine), a column
    after 'grad now' of what += gives (`beside` its title: BESIDE_COLUMN, or BESIDE_CODE beside a student's bodies),
    which each patch's look carries as its fifth text."""
    columns = list(COLUMNS)
    if beside:
        columns.insert(columns.index('grad now') + 1, BESIDE_COLUMN if beside is True else beside)
    return {
        'names': [n.name for n in trace.nodes],
        'ops': [ops.symbol(n.op) if n.op else 'input' if n.is_input else 'constant' for n in trace.nodes],
        'finals': [fmt(g) for g in trace.final_grads()],
        'columns': columns,
        'states': ASSIGNING_WORDS if trace.assigns else YOURS_WORDS if trace.right is not None else STATE_WORDS,
        'beside': bool(beside),
    }


def grad_states(trace, frame):
    """Each node's grad state at `frame`, as the graph draws it: 'none', 'accumulating', 'final', 'wrong' (the `=`
    engine's final grad that += makes otherwise; a student's grad that is not the right engine's) or 'hidden'."""
    grads, final_after = grads_at(trace, frame), trace.final_after()
    right = grads_at(trace.right, frame) if trace.right is not None else None
    return [value_look(trace, frame, i, grads, final_after, 1, right)[2] for i in range(len(trace.nodes))]


def node_table(trace, frame, answers=False, right=None):
    """One row per node; with `answers`, the answer column (each grad at the end) too. The grads the frame hides show
    '?'. `right`: on the `=` engine, the `+=` trace, whose grads at this frame stand beside."""
    fixed, hidden = table_columns(trace), frame.hidden
    columns = {
        'node': fixed['names'],
        'op': fixed['ops'],
        'data': [fmt(n.data) if frame.has_data(trace, i) else fmt(None) for i, n in enumerate(trace.nodes)],
        'grad now': [HIDDEN if g is not None and i in hidden else fmt(g) for i, g in enumerate(grads_at(trace, frame))],
    }
    if right is not None:
        beside = grads_at(right, frame)  # what += gives a hidden grad would tell it too
        columns[BESIDE_COLUMN if trace.assigns else BESIDE_CODE] = [
            HIDDEN if g is not None and i in hidden else fmt(g) for i, g in enumerate(beside)
        ]
    columns[STATE_COLUMN] = [fixed['states'][state] for state in grad_states(trace, frame)]
    if answers:
        columns[ANSWER_COLUMN] = fixed['finals']
    return pd.DataFrame(columns)
