"""The presentation view, for a projector and for screenshots: no sidebar, its few controls above the graph, the
caption as a title with the frame's sums under it. And the switch that hides grads for a class to work out."""

import streamlit as st

from components.live import class_controls
from engine.frames import HIDE

HIDE_LABELS = {'none': 'Show all grads', 'new': 'Hide new grads', 'all': 'Hide all grads'}
HIDE_HELP = 'Hidden grads show ?: "new" hides what this step writes, and the next step shows it.'

# Streamlit's header and its wide margins take room a projector needs; the sidebar is not drawn at all. On a phone
# the choice of grads wraps, rather than scrolling its last choice out of sight
PAGE_STYLE = (
    '<style>[data-testid="stHeader"]{display:none}'
    '[data-testid="stMainBlockContainer"]{padding:0.75rem 1.5rem 0.5rem;max-width:none}'
    '@media (max-width: 640px){[data-testid="stMainBlockContainer"]{padding:0.5rem}'
    '[data-testid="stButtonGroup"] > div{flex-wrap:wrap}}</style>'
)


def hide_control():
    st.selectbox('Grads in the graph', HIDE, key='hide', format_func=HIDE_LABELS.get, help=HIDE_HELP)


def _leave():
    st.session_state.present = False


def presentation_controls():
    """The view's own controls, in the main area: leave, hide grads, the node table, a live class."""
    st.html(PAGE_STYLE)
    leave, hide, table, live = st.columns([1.2, 3, 1.2, 1.3], vertical_alignment='center')
    leave.button('Leave presentation', icon=':material/close_fullscreen:', key='leave_present', on_click=_leave)
    with hide:
        st.segmented_control(
            'Grads', HIDE, key='hide', required=True, format_func=HIDE_LABELS.get, label_visibility='collapsed'
        )
    table.toggle('Node table', key='table')
    class_controls(live)
