"""The presentation view, for a projector and for screenshots: no sidebar, its few controls above the graph, the
caption as a title with the frame's sums under it. And the switch that hides grads for a class to work out."""

import streamlit as st

from components.live import class_controls
from components.modes import own_control
from engine.frames import HIDE
from view.modes import row

HIDE_WORDS = {'none': 'Show all {}', 'new': 'Hide new {}', 'all': 'Hide all {}'}
HIDE_HELP = 'Hidden {} show ?: "new" hides what this step writes, and the next step shows it.'


def hidden_things():
    """What the switch hides: grads, or in forward mode the tangents, which its boxes show in the grads' place."""
    return 'tangents' if row(st.session_state.get('mode')).tangents else 'grads'


def hide_labels():
    """The switch's options in words, bound now to what it hides (AppTest formats them again later, outside the
    run)."""
    things = hidden_things()
    return lambda option: HIDE_WORDS[option].format(things)


# Streamlit's header and its wide margins take room a projector needs; the sidebar is not drawn at all. On a phone
# the choice of grads wraps, rather than scrolling its last choice out of sight
PAGE_STYLE = (
    '<style>[data-testid="stHeader"]{display:none}'
    '[data-testid="stMainBlockContainer"]{padding:0.75rem 1.5rem 0.5rem;max-width:none}'
    '@media (max-width: 640px){[data-testid="stMainBlockContainer"]{padding:0.5rem}'
    '[data-testid="stButtonGroup"] > div{flex-wrap:wrap}}</style>'
)


CONTRAST_HELP = 'Darker fills, thicker lines and ink for grey: for a projector that washes colours out.'


def hide_control():
    things = hidden_things()
    st.selectbox(f'{things.capitalize()} in the graph', HIDE, key='hide', format_func=hide_labels(),
                 help=HIDE_HELP.format(things))  # fmt: skip


def _leave():
    st.session_state.present = False


def presentation_controls():
    """The view's own controls, in the main area: leave, hide grads, the node table, a live class; in forward mode,
    where its input is chosen, and learning from a batch its point (a mode with a control of its own, PARTS' sidebar:
    the place is returned, and the mode's part draws it once the graph is known)."""
    st.html(PAGE_STYLE)
    # in one row at 1280 px wide, forward mode's input too (tests/browser/test_browser_present.py)
    widths = [1.4, 3.3, 1.05, 1.15, 1.25] + ([1.0] if own_control(st.session_state.get('mode')) else [])
    leave, hide, table, contrast, live, *wrt = st.columns(widths, vertical_alignment='center')
    leave.button('Leave presentation', icon=':material/close_fullscreen:', key='leave_present', on_click=_leave)
    with hide:
        st.segmented_control(
            'Grads', HIDE, key='hide', required=True, format_func=hide_labels(), label_visibility='collapsed'
        )
    table.toggle('Node table', key='table')
    contrast.toggle('High contrast', key='contrast')  # its help is the sidebar's: no room for the mark here
    class_controls(live)
    return wrt[0] if wrt else None
