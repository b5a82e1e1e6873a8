"""Every node in topological order, with its grad at this frame, the state of that grad in the legend's words, and
(only when asked, as the answers to the class's question) each grad as it is at the end of backward()."""

import pandas as pd

from engine import ops
from engine.forward import tangents
from engine.frames import grads_at
from engine.ieee import same
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
# forward mode's table: each value's tangent in the grad's place (engine/forward.py), worked out once, at its op
TANGENT_COLUMNS = {'grad now': 'tangent now', STATE_COLUMN: 'tangent …', ANSWER_COLUMN: 'answer: tangent at the end'}
TANGENT_WORDS = {'none': 'not computed yet', 'final': 'is worked out', 'hidden': 'is hidden: work it out'}


def table_columns(trace, beside=None, right=None, wrt=-1):
    """What of the table no frame changes: each node's name, its op as the graph shows it ('×', 'x^2'), its grad at
    the end (the answer column's cells), the column titles in order, and the words for each grad state, which
    player.js writes in the state column from each patch's grad state. `beside`: a mode's view module that puts the
    right trace beside the one shown (view/modes.py), whose COLUMN of the right grads stands after 'grad now' (each
    patch's look carries it as its fifth text) and whose STATE_WORDS say the states; `right`, the right trace there,
    whose final grad stands beside an answer that is not it. `wrt`: forward mode's input, whose tangents stand in
    the grads' place (TANGENT_COLUMNS)."""
    columns = list(COLUMNS)
    states = STATE_WORDS if beside is None else beside.STATE_WORDS
    finals = [fmt(g) for g in trace.final_grads()]
    if right is not None:  # an answer that is wrong says so, with the right one
        pairs = zip(finals, trace.final_grads(), right.final_grads())
        finals = [f if same(g, r) else f'{f}, wrong: right {fmt(r)}' for f, g, r in pairs]
    if beside is not None:
        columns.insert(columns.index('grad now') + 1, beside.COLUMN)
    if wrt >= 0:
        columns, states = [TANGENT_COLUMNS.get(c, c) for c in columns], TANGENT_WORDS
        finals = [fmt(t) for t in tangents(trace, wrt)]
    return {
        'names': [n.name for n in trace.nodes],
        'ops': [ops.symbol(n.op) if n.op else 'input' if n.is_input else 'constant' for n in trace.nodes],
        'finals': finals,
        'columns': columns,
        'states': states,
        'beside': beside is not None,
    }


def grad_states(trace, frame, right=None, every_frame=False):
    """Each node's grad state at `frame`, as the graph draws it (graph.value_look): 'none', 'accumulating', 'final',
    'wrong' (a final grad that is not the right one; with `every_frame`, a grad that is not `right`'s at this frame)
    or 'hidden'."""
    grads, final_after = grads_at(trace, frame), trace.final_after()
    at = grads_at(right, frame) if every_frame else None
    return [
        value_look(trace, frame, i=i, grads=grads, final_after=final_after, width=1, right=right, right_grads=at)[2]
        for i in range(len(trace.nodes))
    ]


def node_table(trace, frame, answers=False, right=None, beside=None):
    """One row per node; with `answers`, the answer column (each grad at the end) too. The grads the frame hides show
    '?'. `right`: the right engine's trace, whose grads at this frame stand beside, in the column of `beside` (the
    mode's view module, table_columns)."""
    fixed, hidden = table_columns(trace, beside, right, frame.wrt), frame.hidden
    columns = {
        'node': fixed['names'],
        'op': fixed['ops'],
        'data': [fmt(n.data) if frame.has_data(trace, i) else fmt(None) for i, n in enumerate(trace.nodes)],
        'grad now': [HIDDEN if g is not None and i in hidden else fmt(g) for i, g in enumerate(grads_at(trace, frame))],
    }
    if beside is not None:  # what the right engine gives a hidden grad would tell it too
        rights = grads_at(right, frame)
        columns[beside.COLUMN] = [HIDDEN if g is not None and i in hidden else fmt(g) for i, g in enumerate(rights)]
    every_frame = beside is not None and beside.EVERY_FRAME
    columns[STATE_COLUMN] = [fixed['states'][state] for state in grad_states(trace, frame, right, every_frame)]
    if answers:
        columns[ANSWER_COLUMN] = fixed['finals']
    table = pd.DataFrame(columns)
    return table.rename(columns=TANGENT_COLUMNS) if frame.wrt >= 0 else table
