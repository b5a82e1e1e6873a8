"""Backprop, step by step: pick an expression, set its inputs, and watch backward() run one node at a time."""

import streamlit as st

import state
from components.explanation import caption, explain, show_explanation
from components.graph import build_dot, show_graph, show_legend
from components.inputs import input_values
from components.markdown import md
from components.node_table import node_table, show_node_table
from components.numbers import number_width
from components.picker import choose_expression
from components.player import can_lay_out, encode_body, frame_patches, graph_player, held_frame, layout_svg
from components.stepper import advance_if_playing, stepper
from components.summary import grad_check, show_summary
from engine import numeric_grads, trace_backward
from engine.frames import frames

st.set_page_config(page_title='Backprop, step by step', page_icon='∂', layout='wide')


@st.cache_resource(max_entries=128, show_spinner=False)
def traced(_expression, expression_id, values):
    """The trace of one (expression, inputs), its number width and the finite-difference check; shared, read-only."""
    leaves, out = _expression.build(dict(values))
    trace = trace_backward(out, leaves)
    return trace, number_width(trace), numeric_grads(_expression, dict(values))


@st.cache_resource(max_entries=64, show_spinner='Laying out the graph…')
def laid_out(_trace, expression_id, width):
    """The graph's SVG layout: the same for every frame and every input value of this expression, at this width."""
    return layout_svg(_trace, frames(_trace, False)[0], width)


@st.cache_resource(max_entries=128, show_spinner=False)
def player_body(_trace, trace_id, forward, width):
    """The layout with each frame's patch and caption, encoded for the player."""
    all_frames = frames(_trace, forward)
    svg = laid_out(_trace, trace_id[0], width)
    captions = [caption(_trace, f) for f in all_frames]
    return encode_body(svg, frame_patches(_trace, all_frames, width), captions, width)


s = st.session_state
if 'expr' not in s:  # a new visitor: start from the link they followed, if any
    page, ignored = state.from_query(st.query_params.to_dict())
    s.update(state.to_session(page))
    if ignored:
        unread = md(', '.join(key[:40] for key in ignored[:8]))
        st.toast(f'Parts of this link could not be read and were reset: {unread}', icon=':material/link:')
state.keep_widget_values(s)

with st.sidebar:
    st.header('∂ Backprop, step by step')
    expression = choose_expression()
    values = input_values(s.expr, expression) if expression else {}
    st.toggle('Step through the forward pass too', key='forward')
    st.toggle('Show the final grads in the table', key='answers', help='Switch off to let the class work them out.')
    st.select_slider('Play speed', options=state.SPEEDS, key='speed', format_func=lambda v: f'{v:g} steps/s')
if expression is None:
    st.info('Fix the formula in the sidebar to see its graph.', icon=':material/edit:')
    st.stop()

st.subheader(expression.title)
if expression.lesson:
    st.caption(expression.lesson)
expression_id = (s.expr, s.formula if s.expr == state.CUSTOM else s.chain_length if s.expr == 'chain' else '')
trace, width, numeric = traced(expression, expression_id, tuple(values.items()))
all_frames = frames(trace, s.forward)
use_player = can_lay_out()
s.timer_on = s.get('playing', False) and not use_player


def player_frame():
    """The player's frame; a new expression, new inputs or the forward switch send it to s.frame first."""
    trace_id = (expression_id, tuple(values.items()))
    layout = repr((trace_id, s.forward))
    moved = s.get('player_layout') != layout
    if moved:
        s.player_layout = layout
        target = min(s.get('frame', 0), len(all_frames) - 1)
        s.player_goto = [s.get('player_goto', [0])[0] + 1, target, held_frame(target)]
    body = player_body(trace, trace_id, s.forward, width)
    reported = graph_player(layout, body, s.speed, s.player_goto)
    k = s.player_goto[1] if moved or reported is None else reported  # until it reports, it shows the goto frame
    return min(max(int(k), 0), len(all_frames) - 1)


@st.fragment(run_every=1 / s.speed if s.timer_on else None)
def step_view():
    if use_player:
        s.frame = k = player_frame()
        frame = all_frames[k]
        show_legend()
    else:
        advance_if_playing(len(all_frames))
        k = stepper(len(all_frames), lambda k: caption(trace, all_frames[k]))
        frame = all_frames[k]
        show_graph(build_dot(trace, frame, width))
        st.caption('Graphviz is not installed on this server, so the browser lays the graph out again at every step.')
    left, right = st.columns([3, 2])
    with left:
        show_explanation(explain(trace, frame))
        if k == len(all_frames) - 1:
            show_summary(grad_check(trace, numeric), trace.nodes[-1].name)
    with right:
        show_node_table(node_table(trace, frame, answers=s.answers), frame.node)


step_view()

with st.sidebar:
    share = 'Puts a link to this expression, these inputs and this frame in the address bar, to share.'
    if st.button('Link to this frame', key='link', help=share):
        st.query_params.from_dict(state.to_query(state.from_session(s, expression.defaults)))
