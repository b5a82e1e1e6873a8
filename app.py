"""Backprop, step by step: pick an expression, set its inputs, and watch backward() run one node at a time."""

import streamlit as st

import state
from components.bug import show_bug_note
from components.code import checked_bodies, code_boxes, code_verdict
from components.export_panel import share_panel
from components.forward import chosen_input, forward_panel
from components.inputs import input_values, show_learned
from components.learning import learning_after, learning_panel
from components.live import (
    class_link,
    class_panel,
    class_places,
    joined,
    lecturer_room,
    send_bodies_button,
    take_back_class,
)
from components.markdown import md, printable
from components.modes import mode_control, mode_in_force
from components.nonfinite import show_nonfinite
from components.picker import choose_expression, chosen_expression, show_formula_error, show_heading
from components.player import go_to, send_to, show_player
from components.present import hide_control, presentation_controls
from components.quiz import quiz_panel
from engine import first_nonfinite
from engine.forms import FORMS
from engine.frames import frames
from server.cache import traced
from server.streamlit_private import went_back_or_forward, widgets_in_browser
from view.learning import tail_length
from view.numbers import number_width, tangent_width
from view.scene import Scene

# an emoji: Streamlit draws it as a data: URL, so the address bar the player rewrites at each step fetches nothing
st.set_page_config(page_title='Backprop, step by step', page_icon='📉', layout='wide')


s = st.session_state
opened = state.follow_link(
    s, class_link(s, st.query_params.to_dict()), navigated=went_back_or_forward(), sent=widgets_in_browser()
)
if opened is not None:
    go_to(opened.frame, opening=opened.first)
    if opened.ignored:
        unread = md(', '.join(key[:40] for key in opened.ignored[:8]))
        st.toast(f'Parts of this link could not be read and were reset: {unread}', icon=':material/link:')
    if opened.clamped:
        names = ', '.join(md(name[:24]) for name in opened.clamped[:8])
        st.toast(f'{names}: kept within ±1,000,000, at the nearer bound.', icon=':material/straighten:')
state.keep_widget_values(s)

if s.present:  # the presentation view draws no sidebar, so Streamlit shows none
    expression, formula_error = chosen_expression()
    values = input_values(s.expr, expression, boxes=False) if expression else {}
    learned_box = wrt_box = None
else:
    with st.sidebar:
        st.header('∂ Backprop, step by step')
        expression, formula_error = choose_expression()
        starts = expression.params if expression and s.mode == 'learn' else ()  # where learning starts
        values = input_values(s.expr, expression, starts=starts) if expression else {}
        learned_box = st.empty()  # where the steps took the parameters, once the page knows
        mode_control()
        wrt_box = st.container() if s.mode == 'forward' else None  # forward mode's input, once the graph is known
        # forward mode's frames are the forward pass, with no leaves' steps (where it applies: a graph with inputs)
        backward_only = s.mode == 'forward' and bool(expression and expression.defaults)
        st.toggle('Step through the forward pass too', key='forward', disabled=backward_only)
        st.toggle('Step through the leaves too', key='leaves', disabled=backward_only,
                  help='A leaf’s _backward does nothing; backward() still calls it, as micrograd does.')  # fmt: skip
        st.toggle('Show the answers in the table', key='answers', disabled=s.mode == 'quiz',
                  help='A column of each grad at the end of the pass: off, the class works them out. '
                       'Never while predicting the grads.')  # fmt: skip
        hide_control()
        st.select_slider('Play speed', options=state.SPEEDS, key='speed', format_func=lambda v: f'{v:g} steps/s')
        st.toggle('Presentation view', key='present', help='The graph large, for a projector or a screenshot.')

with st.container():  # the heading, or the presentation view's controls: the graph below keeps its place
    if s.present:
        wrt_box = presentation_controls()
    if expression is None:
        show_formula_error(printable(s.formula), formula_error)
        st.stop()
    trace, width, numeric = traced(expression=expression, values=tuple(values.items()))
    if not s.present:
        show_heading(expression, trace)
page = state.from_session(s, expression.defaults)
mode = mode_in_force(page.mode, expression, trace)  # a row of view/modes.py
right = learning = None
bodies = ()
if mode.name == 'bug':  # what the `=` engine does, above the graph
    show_bug_note(trace)
form = 'bodies'
if mode.name == 'code':  # the student's own _backward bodies, or microgpt's local_grads tuples (engine/forms.py)
    bodies, form = checked_bodies(page, boxes=False) if page.present else code_boxes(page), page.form
if mode.engine:  # the same graph on the mode's engine (in code mode, its form's); the right trace beside it
    right, right_width = trace, width
    engine = FORMS[form].engine if mode.name == 'code' else mode.engine
    trace, width, _ = traced(expression=expression, values=tuple(values.items()), engine=engine, bodies=bodies)
    width = max(width, right_width)
if mode.name == 'learn':  # the pass at the parameters after the steps taken, then the step it leads to
    learning, values = learning_after(expression, values, page.lr, page.learned)
    if learned_box is not None:
        show_learned(learned_box, learning)
    trace, width, numeric = traced(expression=expression, values=tuple(values.items()))
    width = max(width, number_width(learning.after))
wrt = -1  # forward mode's input: its tangents flow forward in the frames (engine/forward.py)
if mode.tangents:
    wrt = chosen_input(wrt_box, trace, list(expression.defaults), from_link=opened is not None, compact=page.present)
    width = max(width, tangent_width(trace, wrt))
all_frames = frames(trace, page.forward, page.leaves, ask=mode.name == 'quiz', hide=page.hide, wrt=wrt)
length = len(all_frames)
show_nonfinite(first_nonfinite(trace), trace.nodes)
if mode.name == 'quiz' and not page.present:  # the player gets the frames up to the question, and no answers
    shown = quiz_panel(trace, all_frames, repr((expression.key, tuple(values.items()), page.forward, page.leaves)))
    all_frames, numeric = all_frames[:shown], numeric if shown == len(all_frames) else None
scene = Scene(
    expression_key=expression.key, values=tuple(values.items()), mode=mode.name, forward=page.forward,
    leaves=page.leaves, hide=page.hide, frames=tuple(all_frames), length=length, wrt=wrt,
    learning_key=learning and learning.key, bodies=bodies, form=form, expression=expression, trace=trace, width=width,
    numeric=numeric, right=right, learning=learning,
)  # fmt: skip

graph_place, panel_place = class_places(page.present)  # a class's panel beside the projector's graph
if page.present:  # a live class: the projector's panel, and the player leads the class; or the player follows it
    with panel_place:
        class_panel(scene)
room = lecturer_room(s) if page.present else joined(s)
with graph_place:
    share_at, quick, player_said = show_player(scene, page, room=room)
if page.present and room is None:  # a lecturer's page reloaded: the class it led, again
    take_back_class(player_said['lead'])
if bodies and not page.present:  # the grader's verdict on the student's bodies, and hints; in a class, sent to it
    verdict = code_verdict(bodies, form)
    if form == 'bodies':  # a live class takes the seed's bodies (server/rooms.py)
        send_bodies_button(room, player_said['student'], bodies, verdict)
if mode.tangents:  # what getting every grad costs each way, and the paths from the input to the output
    forward_panel(trace, wrt, expression.params, present=page.present)
if learning is not None and not page.present:  # after more steps, the player shows the next update
    learning_panel(learning, page.learned, on_step=lambda: send_to(len(all_frames)))

page.frame = state.frame_to_share(share_at, len(all_frames) + tail_length(trace, learning))
if page.frame is not None:  # a Share button was clicked: the panel, for the frame it was clicked at
    shape = state.shape_to_share(share_at)  # the frame's files are drawn in the shape the player showed it in
    share_panel(scene, page, quick, shape=shape)

link = state.link_to_write(s, expression.defaults, followed=opened is not None)
if link is not None:
    st.query_params.from_dict(link)
