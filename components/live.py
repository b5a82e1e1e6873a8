"""A live class (server/live.py's routes, server/rooms.py's rooms): the lecturer's *Start a class* in the presentation
view, and a student's page in a room (?class=CODE), which the player keeps on the class's frame.

The lecturer's secret is kept in st.session_state only, and sent to that page's player (which posts each step with
it): never in a link. The number of students is read when the lecturer's page reruns."""

import streamlit as st

import state
from components.markdown import md
from components.share import link_url, show_links
from server.live import ROOMS
from server.rooms import RoomError, normal_code

LECTURER = 'class_lecturer'  # session state: (code, secret) of the class this page leads
JOINED = 'class_joined'  # session state: (code, student id) of the class this page follows


def class_link(session, query):
    """At a student's first run, `query` with the class's scenario and frame in place of the page's own (?class=CODE
    opens what the class shows); the address bar is given that link. Else `query` as it is."""
    if 'class' not in query or 'expr' in session:
        return query
    try:
        code = normal_code(query['class'])
        held = ROOMS.state(code)
    except RoomError:
        return query  # joined() says why
    query = {**held.scenario, 'class': code, 'step': str(held.frame)}
    st.query_params.from_dict(query)
    return query


def joined(session):
    """A student's page in a room: join it once (rooms.join), and say so; an unknown or ended code is said clearly and
    the ordinary page goes on. The player's room ({'code', 'follow'}), or None."""
    if not session.get('room'):
        session.pop(JOINED, None)
        return None
    try:
        code = normal_code(session.room)
        if session.get(JOINED, (None,))[0] != code:
            session[JOINED] = (code, ROOMS.join(code))
    except RoomError as error:
        st.warning(f'{md(error)} This page is the ordinary one, on its own.', icon=':material/group_off:')
        session.room = ''
        session.pop(JOINED, None)
        return None
    st.caption(f'In the class **{code}**: this page follows the lecturer’s steps.')
    return {'code': code, 'follow': True}


def lecturer_room(session):
    """The lecturer's room for the player ({'code', 'secret', 'lead'}), or None."""
    if not session.get('present') or LECTURER not in session:
        return None
    code, secret = session[LECTURER]
    return {'code': code, 'secret': secret, 'lead': True}


def _start():
    scenario = {k: v for k, v in state.scenario(st.query_params.to_dict()).items() if k not in state.NOT_CLASS}
    try:
        lecturer = ROOMS.create(scenario, frame=0)  # the player posts the frame shown as soon as it is drawn
    except RoomError as error:
        st.session_state['class_error'] = str(error)
        return
    st.session_state[LECTURER] = (lecturer.code, lecturer.secret)


def _end():
    code, secret = st.session_state.pop(LECTURER)
    try:
        ROOMS.close(code, secret)
    except RoomError:
        pass  # ended already


def class_controls(column):
    """In the presentation view: *Start a class*, or the class's code, its join link and QR code, its students, and
    *End the class*."""
    session = st.session_state
    if LECTURER in session:
        code, secret = session[LECTURER]
        try:
            ROOMS.check(code, secret)
            students = ROOMS.students(code)
        except RoomError as error:
            st.warning(md(error), icon=':material/group_off:')
            del session[LECTURER]
            return
    if LECTURER not in session:
        column.button('Start a class', icon=':material/groups:', key='start_class', on_click=_start,
                      help='Students open a code or a QR code on their phones, and follow your steps.')  # fmt: skip
        if 'class_error' in session:
            st.warning(md(session.pop('class_error')), icon=':material/group_off:')
        return
    column.button('End the class', icon=':material/group_off:', key='end_class', on_click=_end)
    spaced = ' '.join(code)
    st.markdown(
        f'<div class="class-code" style="font-size:2.6rem;font-weight:700;letter-spacing:0.2em;line-height:1.1">'
        f'Class code: <span data-testid="class-code">{spaced}</span></div>',
        unsafe_allow_html=True,
    )
    noun = 'student' if students == 1 else 'students'
    st.markdown(f'**{students} {noun}** in the class (counted when this page reruns)')
    with st.expander('Join link and QR code', expanded=True):
        show_links(link_url(st.context.url or '', {'class': code}))
