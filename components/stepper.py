"""Stepping through the frames: Previous / Play-Pause / Next and a slider."""

import streamlit as st


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
    s.frame += 1


def _stop():
    st.session_state.playing = False


def _previous():
    _stop()
    st.session_state.frame = max(st.session_state.frame - 1, 0)


def _next(n_frames):
    _stop()
    st.session_state.frame = min(st.session_state.frame + 1, n_frames - 1)


def stepper(n_frames, caption):
    """Draw the controls; return the current frame. `caption(k)` says what frame k shows."""
    s = st.session_state
    s.frame = min(max(int(s.get('frame', 0)), 0), n_frames - 1)
    back, play, forth, slider = st.columns([1, 1.2, 1, 9], vertical_alignment='bottom')
    back.button('◀ Prev', key='previous', on_click=_previous, disabled=s.frame == 0, width='stretch')
    forth.button('Next ▶', key='next', on_click=_next, args=(n_frames,), disabled=s.frame == n_frames - 1,
                 width='stretch')  # fmt: skip
    playing = s.get('playing', False)
    if play.button('⏸ Pause' if playing else '▶ Play', key='play', type='primary', width='stretch'):
        s.playing, s.play_clicked = not playing, True
        if s.playing and s.frame >= n_frames - 1:
            s.frame = 0  # play again from the start
        st.rerun()  # the timer is set up on a full run
    frame = slider.slider('Frame', 0, max(n_frames - 1, 1), key='frame', on_change=_stop, label_visibility='collapsed',
                          disabled=n_frames < 2)  # fmt: skip
    st.caption(f'Frame {frame} of {n_frames - 1} · {caption(frame)}')
    return frame
