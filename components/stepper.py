"""The fallback, for a server without Graphviz: Previous / Play-Pause / Next and a slider, and the frame they are at,
which the browser lays out again at every step.

The frame lives in st.session_state.frame (the page's field, state.py); the slider shows it and moves it. After a
play tick or a Prev/Next click, a browser that is a step behind can send the slider's old value back with its next
request: such an echo is not a drag, and must neither move the frame back nor stop the play.
"""

import time

import streamlit as st

from components.bug import bug_caption, bug_check, bug_parts
from components.explanation import FALLBACK_STYLE, caption, explain, frame_rules, show_explanation
from components.graph import build_dot, show_graph
from components.learning import learning_tail
from components.markdown import md
from components.node_table import looks_table, node_table, show_node_table
from components.player import frame_patches
from components.present import show_title
from components.summary import grad_check, show_summary
from engine.frames import Frame, clamp_frame

ECHO_SECONDS = 1.5  # how long after a tick or click the slider's old value counts as an echo
# session state, this module's own
PLAYING = 'playing'  # whether Play is on
TIMER_ON = 'timer_on'  # whether this run set up the play timer (a full run is what sets it up or removes it)
PLAY_CLICKED = 'play_clicked'  # this run comes from the Play click: the first step waits for the first tick
ECHOES = 'echoes'  # {frame left: when}: the slider values a browser may still echo back
SLIDER = 'frame_slider'  # the slider's widget


def step_view(trace, all_frames, width, numeric, page, right=None, learning=None, of=None):
    """The stepper and the frame it is at: the graph, and the explanation and node table beside it, or in the
    presentation view the caption as a title with the frame's sums (and the table if asked). `page`: the
    state.PageState; `numeric` None shows no grad check (a quiz not finished); on the `=` engine, `right` is the
    `+=` trace beside it; with `learning` (components.learning.Learning), one step of learning after the pass;
    `of`: the frames of the whole pass, where `all_frames` are fewer (a quiz's, up to its question).
    Returns the frame whose Share button (in the sidebar) was clicked in this run, else None."""
    s = st.session_state
    s[TIMER_ON] = s.get(PLAYING, False)

    tail = learning_tail(trace, learning, width, [], frame_patches) if learning else None
    n = len(all_frames) + (len(tail.captions) if tail else 0)

    def frame_caption(k):
        return _caption(trace, all_frames[k], right) if k < len(all_frames) else tail.captions[k - len(all_frames)]

    @st.fragment(run_every=1 / page.speed if s[TIMER_ON] else None)
    def frame_view():
        advance_if_playing(n)
        k = stepper(n, frame_caption, of=max(n, of or 0))
        if k < len(all_frames):
            _show_frame(trace, all_frames, k, width, numeric, page, right)
        else:
            _show_tail_frame(trace, tail, k - len(all_frames), k, n, width, page)

    frame_view()
    if page.present:
        return None
    with st.sidebar:
        return s.frame if st.button('Share and export…', key='share', icon=':material/ios_share:') else None


def _show_tail_frame(trace, tail, j, k, n, width, page):
    """Frame j after the pass (one step of learning), the page's frame k of n: drawn from its looks."""
    about = Frame('forward', tail.patches[j]['a'], 0, -1)  # its row's tint: the value just computed (blue)
    if page.present:
        show_title(f'Frame {k} of {n - 1} · {tail.captions[j]}', tail.rules[j])
    show_graph(build_dot(trace, None, width, looks=tail.looks[j]))
    table = looks_table(trace, tail.looks[j])
    if page.present:
        if page.table:
            show_node_table(table, about)
        return
    words, beside = st.columns([5, 4])
    with words:
        st.html(f'{FALLBACK_STYLE}<div class="explain">{tail.explanations[j]}</div>')
        if k == n - 1:
            st.html(tail.summary)
    with beside:
        show_node_table(table, about)


def _caption(trace, frame, right):
    return caption(trace, frame) + (bug_caption(trace, frame) if right is not None else '')


def _show_frame(trace, all_frames, k, width, numeric, page, right):
    frame, last = all_frames[k], len(all_frames) - 1
    if page.present:
        show_title(f'Frame {k} of {last} · {_caption(trace, frame, right)}', frame_rules(trace, frame, page.hide))
    show_graph(build_dot(trace, frame, width, page.hide), assigns=trace.assigns)
    table = node_table(trace, frame, answers=page.final_grads_shown, hide=page.hide, right=right)
    if page.present:
        if page.table:
            show_node_table(table, frame)
        return
    st.caption('Graphviz is not installed on this server, so the browser lays the graph out again at every step.')
    words, beside = st.columns([5, 4])  # the table wide enough for its state column
    with words:
        parts = explain(trace, frame, page.hide)
        show_explanation(parts + bug_parts(trace, right, frame) if right is not None else parts)
        if k == last and page.hide != 'all' and numeric is not None:
            if right is not None:
                st.dataframe(bug_check(trace, right, numeric), hide_index=True, width='stretch')
            else:
                show_summary(grad_check(trace, numeric), trace.nodes[-1].name)
    with beside:
        show_node_table(table, frame)


def advance_if_playing(n_frames):
    """On a play tick, go one frame on; at the last frame, stop playing."""
    s = st.session_state
    if s.get(TIMER_ON) and not s.get(PLAYING):
        s[TIMER_ON] = False
        st.rerun()  # a full run is what unregisters the fragment's timer
    if s.pop(PLAY_CLICKED, False) or not s.get(PLAYING):
        return  # not playing, or this run comes from the Play click: the first step waits for the first tick
    if s.frame >= n_frames - 1:
        s[PLAYING] = False
        st.rerun()
    _moved_by_page(s.frame + 1)


def _moved_by_page(frame):
    """Go to frame, remembering the frame left: the browser may echo it back for a moment."""
    s = st.session_state
    now = time.monotonic()
    s[ECHOES] = {k: t for k, t in s.get(ECHOES, {}).items() if now - t < ECHO_SECONDS} | {s.frame: now}
    s.frame = frame


def _go(frame):
    s = st.session_state
    s[PLAYING] = False
    s.frame = frame


def _step(delta, n_frames):
    st.session_state[PLAYING] = False
    _moved_by_page(clamp_frame(st.session_state.frame + delta, n_frames))


def _dragged():
    s = st.session_state
    if time.monotonic() - s.get(ECHOES, {}).get(s[SLIDER], -ECHO_SECONDS) < ECHO_SECONDS:
        return  # the old value of a browser that has not caught up yet
    _go(s[SLIDER])


def stepper(n_frames, caption, of=None):
    """Draw the controls; return the current frame. `caption(k)` says what frame k shows; `of`, how many frames
    the caption counts, where the pass has more than can be stepped to (a quiz)."""
    s = st.session_state
    s.frame = frame = clamp_frame(int(s.get('frame', 0)), n_frames)
    back, play, forth, slider = st.columns([1, 1.2, 1, 9], vertical_alignment='bottom')
    back.button('Prev', icon=':material/chevron_left:', key='previous', on_click=_step, args=(-1, n_frames),
                disabled=frame == 0, width='stretch')  # fmt: skip
    forth.button('Next', icon=':material/chevron_right:', key='next', on_click=_step, args=(1, n_frames),
                 disabled=frame == n_frames - 1, width='stretch')  # fmt: skip
    playing = s.get(PLAYING, False)
    label, icon = ('Pause', ':material/pause:') if playing else ('Play', ':material/play_arrow:')
    if play.button(label, icon=icon, key='play', type='primary', width='stretch'):
        s[PLAYING], s[PLAY_CLICKED] = not playing, True
        if s[PLAYING] and frame >= n_frames - 1:
            s.frame = 0  # play again from the start
        st.rerun()  # the timer is set up on a full run
    s[SLIDER] = frame
    slider.slider('Frame', 0, max(n_frames - 1, 1), key=SLIDER, on_change=_dragged,
                  label_visibility='collapsed', disabled=n_frames < 2)  # fmt: skip
    st.caption(md(f'Frame {frame} of {(of or n_frames) - 1} · {caption(frame)}'))
    return frame
