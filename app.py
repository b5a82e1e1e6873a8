"""Backprop, step by step: pick an expression, set its inputs, and watch backward() run one node at a time."""

import streamlit as st

import state
from components.access import page_style
from components.export_panel import share_panel
from components.inputs import input_values
from components.live import class_link, class_panel, class_places, joined, lecturer_room, take_back_class
from components.markdown import md, printable
from components.modes import PARTS, Pass, input_boxes, mode_control, mode_in_force
from components.nonfinite import show_nonfinite
from components.picker import choose_expression, chosen_expression, show_formula_error, show_heading
from components.player import go_to, link_toast, painted, say_kept_toasts, show_player
from components.present import CONTRAST_HELP, hide_control, presentation_controls
from engine import first_nonfinite
from engine.frames import frames
from server.cache import traced
from server.streamlit_private import went_back_or_forward, widgets_in_browser
from view.learning import tail_length
from view.modes import MODE
from view.scene import Scene

# an emoji: Streamlit draws it as a data: URL, so the address bar the player rewrites at each step fetches nothing
st.set_page_config(page_title='Backprop, step by step', page_icon='📉', layout='wide')


TITLE = '∂ Backprop, step by step'
s = st.session_state
opened = state.follow_link(
    s, class_link(s, st.query_params.to_dict()), navigated=went_back_or_forward(), sent=widgets_in_browser()
)
if opened is not None:
    go_to(opened.frame, opening=opened.first)
    if opened.ignored:
        unread = md(', '.join(key[:40] for key in opened.ignored[:8]))
        link_toast(f'Parts of this link could not be read and were reset: {unread}', icon=':material/link:')
    if opened.clamped:
        names = ', '.join(md(name[:24]) for name in opened.clamped[:8])
        link_toast(f'{names}: kept within ±1,000,000, at the nearer bound.', icon=':material/straighten:')
state.keep_widget_values(s)
page_style(high_contrast=s.get('contrast', False))
asked = MODE[s.mode]  # the mode asked for: the sidebar's parts are its own, whether or not it applies to the graph

expression, formula_error = chosen_expression()
controls_now = painted() or expression is None  # after the first graph, or where none comes
if controls_now:  # what the link's first run said
    say_kept_toasts()
if s.present or not controls_now:  # no controls: the presentation view's, or the graph first
    if not s.present:  # the sidebar's place is kept, so the graph does not move when its controls come
        st.sidebar.header(TITLE)
    values = input_values(s.expr, expression, boxes=False) if expression else {}
    learned_box = mode_box = None
else:
    with st.sidebar:
        st.header(TITLE)
        expression, formula_error = choose_expression()
        starts = expression.params if expression and asked.learns else ()  # where learning starts
        boxes = input_boxes(asked, expression) if expression else ()  # a batch's data comes from its points
        values = input_values(s.expr, expression, starts=starts, boxes=boxes) if expression else {}
        learned_box = st.empty()  # where the steps took the parameters, once the page knows
        mode_control()
        mode_box = PARTS[s.mode].sidebar()  # the mode's own control (forward mode's input), once the graph is known
        # forward mode's frames are the forward pass, with no leaves' steps (where it applies: a graph with inputs)
        backward_only = asked.tangents and bool(expression and expression.defaults)
        st.toggle('Step through the forward pass too', key='forward', disabled=backward_only)
        st.toggle('Step through the leaves too', key='leaves', disabled=backward_only,
                  help='A leaf’s _backward does nothing; backward() still calls it, as micrograd does.')  # fmt: skip
        st.toggle('Show the answers in the table', key='answers', disabled=asked.asks,
                  help='A column of each grad at the end of the pass: off, the class works them out. '
                       'Never while predicting the grads.')  # fmt: skip
        hide_control()
        st.select_slider('Play speed', options=state.SPEEDS, key='speed', format_func=lambda v: f'{v:g} steps/s')
        st.toggle('Presentation view', key='present', help='The graph large, for a projector or a screenshot.')
        st.toggle('High contrast', key='contrast', help=CONTRAST_HELP)

with st.container():  # the heading, or the presentation view's controls: the graph below keeps its place
    if s.present:
        mode_box = presentation_controls()
    if expression is None:
        show_formula_error(printable(s.formula), formula_error)
        st.stop()
    trace, width, numeric = traced(expression=expression, values=tuple(values.items()))
    if not s.present:
        show_heading(expression, trace)
page = state.from_session(s, expression.defaults)
mode = mode_in_force(page.mode, expression, trace)  # a row of view/modes.py
parts = PARTS[mode.name]  # and its page parts, components/modes.py's
built = Pass(page, expression, values, trace, width, numeric, box=mode_box, learned_box=learned_box,
             from_link=opened is not None)  # fmt: skip
parts.before(built)  # the trace on the mode's engine, beside the right one; learning's steps; forward mode's input
built.frames = frames(built.trace, page.forward, page.leaves, ask=mode.asks, hide=page.hide, wrt=built.wrt)
length = len(built.frames)
show_nonfinite(first_nonfinite(built.trace), built.trace.nodes)
all_frames, numeric = parts.frames(built)  # the quiz's: the frames up to the question
learning = built.learning
scene = Scene(
    expression_key=expression.key, values=tuple(built.values.items()), mode=mode.name, forward=page.forward,
    leaves=page.leaves, hide=page.hide, frames=tuple(all_frames), length=length, wrt=built.wrt,
    learning_key=built.tail_key, bodies=built.bodies, form=built.form, expression=expression,
    trace=built.trace, width=built.width, numeric=numeric, right=built.right, learning=learning, batch=built.batch,
)  # fmt: skip

graph_place, panel_place = class_places(page.present)  # a class's panel beside the projector's graph
if page.present:  # a live class: the projector's panel, and the player leads the class; or the player follows it
    with panel_place:
        class_panel(scene)
room = parts.room(built, lecturer_room(s) if page.present else joined(s))  # and what the mode adds to it
with graph_place:
    share_at, drawn, player_said = show_player(scene, page, room=room)
if page.present and room is None:  # a lecturer's page reloaded: the class it led, again
    take_back_class(player_said['lead'])
parts.below(built, room, player_said['student'])  # the code's verdict, forward mode's paths, learning's panel

page.frame = state.frame_to_share(share_at, len(all_frames) + tail_length(built.trace, learning))
if page.frame is not None:  # a Share button was clicked: the panel, for the frame it was clicked at
    shape = state.shape_to_share(share_at)  # the frame's files are drawn in the shape the player showed it in
    share_panel(scene, page, drawn, shape=shape)

link = state.link_to_write(s, expression.defaults, followed=opened is not None)
if link is not None:
    st.query_params.from_dict(link)
