"""Forward mode's own parts of the page: which input's derivative it carries forward (wrt= in a link), and under the
graph the chain rule as a sum over paths (and, in the presentation view, what getting every grad costs each way)."""

import streamlit as st

from components.markdown import md
from components.player import link_toast
from view.forward import costs_html, paths_text


def chosen_input(box, trace, names, from_link, compact=False):
    """The node index of forward mode's input: one of `names` (the inputs, in the order the sidebar lists them),
    chosen in `box` (the sidebar's, or with `compact` the presentation view's row of controls, each option written
    ∂/∂x1; None: no box). One the graph lacks (another expression's, or a link's) is its first input, with a toast
    where a link named it (`from_link`)."""
    s = st.session_state
    index = {node.name: i for i, node in enumerate(trace.nodes) if node.is_input}
    inputs = {name: index[name] for name in names}
    first = next(iter(inputs))
    if s.get('wrt') not in inputs:
        if s.get('wrt') and from_link:
            link_toast(f'wrt\\={md(s.wrt[:24])}: this graph has no input of that name, so forward mode follows its '
                       f'first, {md(first)}.', icon=':material/link:')  # fmt: skip
        s.wrt = first
    if box is not None:
        said = 'Forward mode carries one input’s tangent forward: ∂value/∂input at every value.'
        box.selectbox('Derivative by', list(inputs), key='wrt', help=None if compact else said,
                      format_func=(lambda name: f'∂/∂{name}') if compact else str,
                      label_visibility='collapsed' if compact else 'visible')  # fmt: skip
    return inputs[s.wrt]


def forward_panel(trace, wrt, params, present=False):
    """Under the graph: the chain rule as a sum over the paths from the input to the output. What each way costs is
    the player's, open at the last frame under the check (view.forward.summary_html); the presentation view, which
    shows no words under the graph, has it here, folded with the paths, where the graph has the screen."""
    listed = paths_text(trace, wrt)
    if listed is None and not present:
        return
    title = 'Why backprop runs backward: what each way costs' if present else 'The chain rule as a sum over paths'
    with st.expander(title, expanded=not present):
        if present:
            st.html(costs_html(trace, params))
        if listed is None:
            return
        table, words = listed
        if present:
            st.markdown('**The chain rule as a sum over paths**')
        if len(table):
            st.dataframe(table, hide_index=True)
        st.markdown(md(words))
