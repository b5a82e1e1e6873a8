"""Stepping through the frames: Previous / Play-Pause / Next and a slider.

The frame lives in st.session_state.frame; the slider shows it and moves it. After a play tick or
a Prev/Next click, a browser that is a step behind can send the slider's old value back with its
next request: such an echo is not a drag, and must neither move the frame back nor stop the play.
"""

import time

import streamlit as st

from components.markdown import md

ECHO_SECONDS = 1.5  # how long after a tick or click the slider's old value counts as an echo


def advance_if_playing(n_frames):
    """On a play tick, go one frame on; at the last frame, stop playing."""
    s = st.session_state
    if s.get('timer_on') and not s.get('playing'):
        s.timer_on = False
        st.rerun()  # a full run is what unregisters the fragment's timer
    if s.pop('play_clicked', False) or not s.get('playing'):
        return  # not playing, or this run comes from the Play click: the first step waits for the first tick
    if s.frame >= n_frames - 1:
        s.playing = False
        st.rerun()
    _moved_by_page(s.frame + 1)


def _moved_by_page(frame):
    """Go to frame, remembering the frame left: the browser may echo it back for a moment."""
    s = st.session_state
    now = time.monotonic()
    s.echoes = {k: t for k, t in s.get('echoes', {}).items() if now - t < ECHO_SECONDS} | {s.frame: now}
    s.frame = frame


def _go(frame):
    s = st.session_state
    s.playing = False
    s.frame = frame


def _step(delta, n_frames):
    st.session_state.playing = False
    _moved_by_page(min(max(st.session_state.frame + delta, 0), n_frames - 1))


def _dragged():
    s = st.session_state
    if time.monotonic() - s.get('echoes', {}).get(s.frame_slider, -ECHO_SECONDS) < ECHO_SECONDS:
        return  # the old value of a browser that has not caught up yet
    _go(s.frame_slider)


def stepper(n_frames, caption):
    """Draw the controls; return the current frame. `caption(k)` says what frame k shows."""
    s = st.session_state
    s.frame = frame = min(max(int(s.get('frame', 0)), 0), n_frames - 1)
    back, play, forth, slider = st.columns([1, 1.2, 1, 9], vertical_alignment='bottom')
    back.button('Prev', icon=':material/chevron_left:', key='previous', on_click=_step, args=(-1, n_frames),
                disabled=frame == 0, width='stretch')  # fmt: skip
    forth.button('Next', icon=':material/chevron_right:', key='next', on_click=_step, args=(1, n_frames),
                 disabled=frame == n_frames - 1, width='stretch')  # fmt: skip
    playing = s.get('playing', False)
    label, icon = ('Pause', ':material/pause:') if playing else ('Play', ':material/play_arrow:')
    if play.button(label, icon=icon, key='play', type='primary', width='stretch'):
        s.playing, s.play_clicked = not playing, True
        if s.playing and frame >= n_frames - 1:
            s.frame = 0  # play again from the start
        st.rerun()  # the timer is set up on a full run
    s.frame_slider = frame
    slider.slider('Frame', 0, max(n_frames - 1, 1), key='frame_slider', on_change=_dragged,
                  label_visibility='collapsed', disabled=n_frames < 2)  # fmt: skip
    st.caption(md(f'Frame {frame} of {n_frames - 1} · {caption(frame)}'))
    return frame
