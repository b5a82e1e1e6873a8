"""What the page is for (state.MODES): the switch in the sidebar, and whether a mode applies to the graph shown.

A mode that does not apply says why, and the page watches backward() instead: no control is there that does
nothing."""

import math

import streamlit as st

from engine import PRESETS, learn
from state import MODES

LABELS = {
    'watch': 'Watch backward()',
    'bug': 'What if _backward used = ?',
    'quiz': 'Predict the grad',
    'learn': 'One step of learning',
    'code': 'Your own _backward',
}
HELP = (
    '**Watch**: every step of the pass. **=**: the same graph on an engine whose `_backward` assigns instead of '
    'adding: see which grads it gets wrong. **Predict**: each step asks for the grads it writes before it shows '
    'them. **Learning**: after the pass, one gradient-descent step and the forward pass again. **Your own**: write '
    "the exercise's three `_backward` bodies and watch them run beside the right engine."
)
MAX_QUIZ_VALUES = 200  # a question a step: past this a quiz is a chore, and each answer sends the player anew


def mode_control():
    st.radio('Mode', MODES, key='mode', format_func=LABELS.get, help=HELP)


def why_not(mode, expression, trace):
    """Why `mode` does not apply to this graph (plain text), or None when it does."""
    if mode == 'learn' and not learn.applies(expression):
        with_loss = ' or '.join(f'"{e.menu}"' for e in PRESETS.values() if learn.applies(e))
        return (
            f'One step of learning needs a loss and parameters to learn: pick {with_loss} among the examples. '
            'This expression has none, so the page shows its backward pass.'
        )
    if mode == 'quiz':
        if len(trace.nodes) > MAX_QUIZ_VALUES:
            return (
                f'Predict the grad asks one question a step; this graph has {len(trace.nodes):,} values, more than '
                f'the {MAX_QUIZ_VALUES} a quiz takes. Pick a smaller graph (a shorter chain).'
            )
        if not all(math.isfinite(g) for g in trace.final_grads()):
            return 'Predict the grad needs finite grads to ask for; this pass has nan or inf in it.'
    return None


def mode_in_force(mode, expression, trace):
    """The mode the page shows: `mode`, or 'watch' with a note on the page saying why `mode` does not apply."""
    reason = why_not(mode, expression, trace)
    if reason is None:
        return mode
    st.info(reason, icon=':material/info:')
    return 'watch'
