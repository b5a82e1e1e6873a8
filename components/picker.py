"""Choosing what to draw: a preset, the chain's length, or a typed formula; and its heading."""

import html

import streamlit as st

from components.markdown import md
from engine import PRESETS, ExpressionError, chain, parse_expression
from engine.parse import FUNCTIONS
from state import CUSTOM, EXPRESSIONS, MAX_CHAIN
from view.explanation import repeats_note

TYPED = 'type your own formula…'  # CUSTOM's label in the menu; each preset's is its Expression's `menu`


def _label(key):
    return TYPED if key == CUSTOM else PRESETS[key].menu


def _new_expression():
    st.session_state.learned = 0  # another expression: learning starts again from its own inputs


def choose_expression():
    """(the chosen expression, None) or, when a typed formula cannot be read, (None, the ExpressionError)."""
    key = st.selectbox('Expression', EXPRESSIONS, format_func=_label, key='expr', on_change=_new_expression)
    if key == 'chain':
        st.number_input('Chain length', min_value=1, max_value=MAX_CHAIN, step=1, key='chain_length')
    elif key == CUSTOM:
        st.text_input(
            'Formula',
            key='formula',
            max_chars=None,
            help=f'Numbers, names, + - * / **, and {" ".join(FUNCTIONS)}. "L = ..." names the output.',
        )
    return chosen_expression()


def chosen_expression():
    """As choose_expression, for the expression the page's state names, with no widget drawn (the presentation
    view)."""
    s = st.session_state
    if s.expr == 'chain':
        return chain(int(s.chain_length)), None
    if s.expr != CUSTOM:
        return PRESETS[s.expr], None
    try:
        return parse_expression(s.formula), None
    except ExpressionError as e:
        return None, e


# On a phone (player.js NARROW_PX) the heading and what it teaches fold into one line that opens on a tap, and
# Streamlit's top margin is only its header's height: the player's bar and the graph take the window. Wider, the
# heading in full
HEADING_STYLE = (
    '<style>[data-testid="stLayoutWrapper"]:has(> .st-key-heading-line){display:none}'
    '@media (max-width: 640px){[data-testid="stLayoutWrapper"]:has(> :is(.st-key-heading,.st-key-class-line))'
    '{display:none}[data-testid="stLayoutWrapper"]:has(> .st-key-heading-line){display:block}'
    '[data-testid="stMainBlockContainer"]{padding-top:3.9rem !important}}'
    '.heading-line summary{font-weight:600;font-size:1.05rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;'
    'cursor:pointer;min-height:44px;display:flex;align-items:center;gap:0.35rem}'
    '.heading-line summary::after{content:"▸ more";font-weight:400;font-size:0.85rem;color:#31333f;flex:none}'
    '.heading-line[open] summary::after{content:"▾ less"}'
    '.heading-line summary span{overflow:hidden;text-overflow:ellipsis}'
    '.heading-line p{margin:0.2rem 0 0.4rem;font-size:0.9rem;color:#31333f}</style>'
)


def show_heading(expression, trace):
    """The expression's whole title, and what it teaches; where a typed formula repeats a subexpression, that
    Python computes each one it reads (view.explanation.repeats_note), with the names the graph (`trace`) gives them.
    On a phone, all of it in one line that opens on a tap."""
    note = repeats_note(trace)
    with st.container(key='heading'):
        st.subheader(md(expression.title), anchor=False)
        if expression.lesson:
            st.caption(expression.lesson)
        if note:
            st.caption(md(note))
    said = ''.join(f'<p>{html.escape(text)}</p>' for text in (expression.lesson, note) if text)
    title = f'<span>{html.escape(expression.title)}</span>'
    line = f'<details class="heading-line"><summary>{title}</summary>{said}</details>' if said else f'<b>{title}</b>'
    with st.container(key='heading-line'):
        st.html(HEADING_STYLE + line)


def show_formula_error(text, error):
    """The message, and the formula with a caret under the column: printed as code, never as markdown."""
    st.error(f'**This formula can’t be drawn:** {md(error)}', icon=':material/edit:')
    if error.column and len(text) <= 120:
        st.code(f'{text}\n{" " * (error.column - 1)}^', language=None)
