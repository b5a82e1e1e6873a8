"""Backprop, step by step: pick an expression, set its inputs, and watch backward() run one node at a time."""

import streamlit as st

import state
from components.explanation import caption, explain, frame_rules, show_explanation
from components.export_panel import Shown, show_exports
from components.graph import build_dot, show_graph
from components.inputs import input_values
from components.markdown import md, printable
from components.node_table import node_table, show_node_table
from components.nonfinite import show_nonfinite
from components.picker import choose_expression, chosen_expression, show_formula_error
from components.player import can_lay_out, graph_player
from components.present import hide_control, presentation_controls, show_title
from components.share import link_url, share_dialog
from components.stepper import advance_if_playing, stepper
from components.summary import grad_check, show_summary
from engine import first_nonfinite
from engine.frames import frames
from exports import file_stem
from layout import Allowance, LayoutRefused
from shared import laid_out, player_body, session_waiting, traced

st.set_page_config(page_title='Backprop, step by step', page_icon='∂', layout='wide')


s = st.session_state
ignored = state.follow_link(s, st.query_params.to_dict())
if ignored:
    unread = md(', '.join(key[:40] for key in ignored[:8]))
    st.toast(f'Parts of this link could not be read and were reset: {unread}', icon=':material/link:')
state.keep_widget_values(s)

if s.present:  # the presentation view draws no sidebar, so Streamlit shows none
    expression, formula_error = chosen_expression()
    values = input_values(s.expr, expression, boxes=False) if expression else {}
else:
    with st.sidebar:
        st.header('∂ Backprop, step by step')
        expression, formula_error = choose_expression()
        values = input_values(s.expr, expression) if expression else {}
        st.toggle('Step through the forward pass too', key='forward')
        st.toggle('Show the final grads in the table', key='answers', help='Switch off to let the class work them out.')
        hide_control()
        st.select_slider('Play speed', options=state.SPEEDS, key='speed', format_func=lambda v: f'{v:g} steps/s')
        st.toggle('Presentation view', key='present', help='The graph large, for a projector or a screenshot.')
answers = s.answers and s.hide == 'none'  # with grads hidden, the final grads would give them away

with st.container():  # the heading, or the presentation view's controls: the graph below keeps its place
    if s.present:
        presentation_controls()
    if expression is None:
        show_formula_error(printable(s.formula), formula_error)
        st.stop()
    if not s.present:
        st.subheader(md(expression.title), anchor=False)
        if expression.lesson:
            st.caption(expression.lesson)
if s.expr == state.CUSTOM:
    state.forget_other_formulas(s, expression.defaults)
expression_id = (s.expr, s.formula if s.expr == state.CUSTOM else s.chain_length if s.expr == 'chain' else '')
trace, width, numeric = traced(expression=expression, expression_id=expression_id, values=tuple(values.items()))
all_frames = frames(trace, s.forward)
show_nonfinite(first_nonfinite(trace), trace.nodes)

if can_lay_out():
    try:
        with st.spinner('Laying out the graph…', show_time=True):
            allowance = s.setdefault('layout_allowance', Allowance())
            layout = laid_out(trace=trace, expression_id=expression_id, width=width, allowance=allowance)
    except LayoutRefused as refused:
        st.warning(refused.message, icon=':material/hourglass_disabled:')
        st.stop()
    if layout.quick:
        st.caption('A tangled graph: laid out quickly, with straight edges, to keep within the time budget.')
    trace_id = (expression_id, tuple(values.items()))
    body = player_body(
        trace=trace, trace_id=trace_id, forward=s.forward, width=width, numeric=numeric, layout=layout, hide=s.hide
    )
    name = repr((trace_id, s.forward, s.hide))
    share_at = graph_player(name, body, s.speed, answers, s.player_goto, present=s.present, table=s.table)
else:
    s.timer_on = s.get('playing', False)

    @st.fragment(run_every=1 / s.speed if s.timer_on else None)
    def step_view():
        """Without Graphviz on the server: the browser lays the graph out again at every frame."""
        advance_if_playing(len(all_frames))
        k = stepper(len(all_frames), lambda k: caption(trace, all_frames[k]))
        frame = all_frames[k]
        if s.present:
            show_title(
                f'Frame {k} of {len(all_frames) - 1} · {caption(trace, frame)}', frame_rules(trace, frame, s.hide)
            )
        show_graph(build_dot(trace, frame, width, s.hide))
        table = node_table(trace, frame, answers=answers, hide=s.hide)
        if s.present:
            if s.table:
                show_node_table(table, frame.node)
            return
        st.caption('Graphviz is not installed on this server, so the browser lays the graph out again at every step.')
        left, right = st.columns([3, 2])
        with left:
            show_explanation(explain(trace, frame, s.hide))
            if k == len(all_frames) - 1 and s.hide != 'all':
                show_summary(grad_check(trace, numeric), trace.nodes[-1].name)
        with right:
            show_node_table(table, frame.node)

    step_view()

    share_at = None
    if not s.present:
        with st.sidebar:
            share_at = s.frame if st.button('Share and export…', key='share', icon=':material/ios_share:') else None

page = state.from_session(s, expression.defaults)
page.frame = state.frame_to_share(share_at, len(all_frames))
if page.frame is not None:
    k = min(page.frame, len(all_frames) - 1)
    shown = f'Frame {k} of {len(all_frames) - 1}: {caption(trace, all_frames[k])}'
    name = {state.CUSTOM: s.formula, 'chain': f'chain{s.chain_length}'}.get(s.expr, s.expr)
    picture = Shown(
        trace, all_frames, k, width, quick=can_lay_out() and layout.quick, hide=s.hide, stem=file_stem(name, values),
        key=(expression_id, tuple(values.items()), s.forward, s.hide),
    )  # fmt: skip
    allowance, waiting = s.setdefault('layout_allowance', Allowance()), session_waiting()
    share_dialog(
        link_url(st.context.url or '', state.to_query(page)),
        md(shown),
        lambda: show_exports(picture, allowance, waiting),
    )

link = state.link_to_write(s, expression.defaults)
if link is not None:
    st.query_params.from_dict(link)
