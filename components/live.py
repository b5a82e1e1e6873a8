"""A live class (server/live.py's routes, server/rooms.py's rooms): the lecturer's *Start a class* in the presentation
view, with the room's panel on the projector (its code, its students, *Ask the room* and the answers grouped by the
mistake that gives them, the bodies sent in code mode), and a student's page in a room (?class=CODE), which the
player keeps on the class's frame and where it asks the room's questions.

The lecturer's secret is kept in st.session_state only, and sent to that page's player (which posts each step with
it): never in a link. A student is the id their browser keeps for the room (player.js), which the player reports;
their answers go from the player to the routes, their bodies from this page to the rooms."""

import functools
from collections import Counter

import streamlit as st

import state
from components.batch import class_together, forget_together
from components.code import WAITS
from components.markdown import md
from components.player import send_to
from components.share import link_url, qr_code, qr_png, students_links
from engine import answers as room_answers
from engine import diagnosis
from engine.forms import FORMS
from server.live import ROOMS, api_path
from server.rooms import RoomError, RoomNotFound, StoreDown, normal_code
from view.explanation import chain_rule_lines, owner
from view.modes import MODE
from view.numbers import number
from view.room_answers import answers_table, counts_table, csv_bytes, groups_lines, spread_spec, tally

LECTURER = 'class_lecturer'  # session state: (code, secret) of the class this page leads
JOINED = 'class_joined'  # session state: the code of the class this page follows
ASKED = 'class_asked'  # session state: (question id, the pass it asks about), which a question's frame is of
ENDED = 'class_ended'  # session state: (code, its record) of the class this page led and ended: its answers to take
PANEL_EVERY_S = 1.0  # the projector's panel reads the room this often: its students, the answers as they come


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
    """A student's page in a room: say so, or why not (an unknown or ended code), and the ordinary page goes on. The
    player's room ({'code', 'follow', 'api'}), or None. The player joins the room itself, with its browser's id for
    it, so that a reload or a second tab counts once."""
    if not session.get('room'):
        session.pop(JOINED, None)
        return None
    try:
        code = normal_code(session.room)
        if session.get(JOINED) != code:
            ROOMS.state(code)  # live: else the RoomError says why
            session[JOINED] = code
    except StoreDown:  # nothing has ended: the player follows, and joins the class's frame once it answers
        st.info(f'The class **{code}** cannot be reached just now: this page joins it as soon as it can.',
                icon=':material/cloud_off:')  # fmt: skip
        return {'code': code, 'follow': True, 'api': api_path(code)}
    except RoomError as error:
        st.warning(f'{md(error)} This page is the ordinary one, on its own.', icon=':material/group_off:')
        session.room = ''
        session.pop(JOINED, None)
        return None
    with st.container(key='class-line'):  # on a phone, the player's switch says it (components/picker.HEADING_STYLE)
        st.caption(f'In the class **{code}**: this page follows the lecturer’s steps.')
    return {'code': code, 'follow': True, 'api': api_path(code)}


def lecturer_room(session):
    """The lecturer's room for the player ({'code', 'secret', 'lead', 'api', 'question'}), or None."""
    if not session.get('present') or LECTURER not in session:
        return None
    code, secret = session[LECTURER]
    try:
        question = ROOMS.state(code).question
    except RoomError:
        return None  # the panel says why
    return {'code': code, 'secret': secret, 'lead': True, 'api': api_path(code), 'question': question}


def led_class():
    """The code of the class this page leads, or ''."""
    return st.session_state.get(LECTURER, ('',))[0]


def take_back_class(lead):
    """A reloaded lecturer's page: the class its tab led (`lead`, {'code', 'secret'}, as the player kept it), led
    again if it is still open and the secret is its lecturer's; else nothing (Start a class opens a new one)."""
    if LECTURER in st.session_state or not isinstance(lead, dict):
        return
    code, secret = str(lead.get('code', '')), str(lead.get('secret', ''))
    try:
        ROOMS.check(code, secret)
    except RoomError:
        return
    st.session_state[LECTURER] = (normal_code(code), secret)
    st.rerun()


def _start():
    forget_together()  # a new class learns together once its lecturer says so
    scenario = {k: v for k, v in state.scenario(st.query_params.to_dict()).items()
                if k not in (*state.NOT_CLASS, 'together')}  # fmt: skip
    try:
        lecturer = ROOMS.create(scenario, frame=0)  # the player posts the frame shown as soon as it is drawn
    except RoomError as error:
        st.session_state['class_error'] = str(error)
        return
    st.session_state[LECTURER] = (lecturer.code, lecturer.secret)


def _end():
    forget_together()
    code, secret = st.session_state.pop(LECTURER)
    try:
        record = ROOMS.record(code, secret)  # its answers, for the lecturer to download once the class has ended
        if record:
            st.session_state[ENDED] = (code, record)
        ROOMS.close(code, secret)
    except RoomError:
        pass  # ended already


def class_controls(column):
    """In the presentation view's row of controls: *Start a class*, or *End the class*."""
    session = st.session_state
    if LECTURER in session:
        column.button('End the class', icon=':material/group_off:', key='end_class', on_click=_end)
        return
    column.button('Start a class', icon=':material/groups:', key='start_class', on_click=_start,
                  help='Students open a code or a QR code on their phones, and follow your steps.')  # fmt: skip
    if ENDED in session:
        code, record = session[ENDED]
        with column:
            answer_files(code, lambda: record, ended=True)
    if 'class_error' in session:
        st.warning(md(session.pop('class_error')), icon=':material/group_off:')


# the panel beside the projector's graph: everything a room reads there at least 28 px on a 1920 px wide screen (20 px
# at 1280), the code larger; it scrolls on its own, so that the graph beside it keeps its whole place in the window
PANEL_STYLE = (
    '<style>.st-key-class-panel{--room:max(20px,1.5vw);max-height:calc(100vh - 5rem);overflow-y:auto;'
    'overflow-x:hidden;padding-right:0.25rem}'
    '.st-key-class-panel :is(p,li,code,pre,button,label,[data-testid="stMarkdownContainer"]){'
    'font-size:var(--room) !important;line-height:1.3}'
    '.st-key-class-panel .class-code{font-size:calc(var(--room) * 1.6) !important;font-weight:700;line-height:1.1}'
    '.st-key-class-panel .class-code b{letter-spacing:0.15em}'
    '.st-key-class-panel pre code{white-space:pre-wrap !important;overflow-wrap:anywhere}</style>'
)


def lost_words(code):
    return (f'The class {code} is no longer on the server: its rooms were lost (a restart of a store that keeps '
            'none). Start a class for a new code; the students’ phones say so.')  # fmt: skip


def class_places(present):
    """Where the player and the projector's class panel go: side by side while this page leads a class in the
    presentation view (the panel's answers never push the graph down out of the window), else one place for both."""
    if present and LECTURER in st.session_state:
        graph, panel = st.columns([3, 2], gap='medium')
        return graph, panel.container(key='class-panel')
    here = st.container()
    return here, here


def class_panel(scene):
    """On the projector, above the graph, while the page leads a class: the room's code, how many students follow,
    and its questions (or, in code mode, the bodies sent). Read again every PANEL_EVERY_S; nothing is drawn when the
    page leads no class."""
    if LECTURER in st.session_state:
        _panel(scene)


@st.fragment(run_every=PANEL_EVERY_S)
def _panel(scene):
    session = st.session_state
    if LECTURER not in session:
        return
    code, secret = session[LECTURER]
    try:
        ROOMS.touch(code, secret)  # the projector is open: a closed one ends the room (rooms.GONE_S)
        students, held, taking = ROOMS.students(code), ROOMS.state(code), ROOMS.taking(code)
        question, given = ROOMS.answers(code, secret)
    except StoreDown as error:  # nothing has ended: the next second may reach it
        st.warning(md(error), icon=':material/cloud_off:')
        return
    except RoomError as error:  # ended, or lost with the store: the page leads no class, and can start another
        del session[LECTURER]
        session['class_error'] = lost_words(code) if isinstance(error, RoomNotFound) else str(error)
        st.rerun(scope='app')  # the row of controls too: Start a class in place of End the class
    st.html(PANEL_STYLE)
    # the QR code while nothing else needs the room: a question's answers, or a batch's sums, stay in view
    _join_block(code, students, qr=question is None and not (MODE[scene.mode].batch and session.get('together')))
    _taking_toggle(code, secret, taking)
    if MODE[scene.mode].batch:  # the room is the minibatch: a question asked before in another mode is closed
        if question is not None:
            _then_rerun(ROOMS.close_question, code, secret)
        class_together(scene, code, secret)
        return
    if scene.right is not None:  # code mode (or the `=` engine): the bodies the room sent
        if MODE[scene.mode].code:
            _bodies_sent(code, secret)
        return
    here = question and (question['id'], pass_of(scene))
    if question is not None and session.get(ASKED, here) != here:  # the question asked here, of another pass
        _then_rerun(ROOMS.close_question, code, secret)  # another pass is shown: its frames are not the question's
    if question is None:
        _ask_button(scene, code, secret, held.frame)
    else:
        _question(scene, code, secret, question, given, students)
    if held.asked:
        answer_files(code, lambda: ROOMS.record(code, secret))


def answer_files(code, record, ended=False):
    """The class's answers to take home, made when clicked from `record()` (rooms.Rooms.record's): a row an answer,
    and a row a grad asked with the counts (view/room_answers.py), as CSV files; no student named."""
    whose = f'class {code}’s' if ended else 'the class’s'
    files = [
        (answers_table, 'answers', f'Download {whose} answers (CSV)' if ended else 'Download the answers (CSV)',
         'A row per answer: the question, its frame, the grad asked, the answer, its mistake, the right value and '
         'when; the students are numbered, never named.'),
        (counts_table, 'counts', 'The counts per question (CSV)',
         'A row per grad asked: how many answered, and how many answers fell in each group.'),
    ]  # fmt: skip
    places = st.columns(2) if not ended else (st.container(), st.container())
    for place, (table, name, label, said) in zip(places, files):
        place.download_button(label, data=lambda table=table: csv_bytes(table(record())),
                              file_name=f'class-{code}-{name}.csv', mime='text/csv', on_click='ignore',
                              icon=':material/download:', key=f'{name}_csv:{code}', help=said)  # fmt: skip


def _join_block(code, students, qr):
    """The room's code, large to read aloud, how many students follow, and the students' join link as text and with
    a QR code; while a question is open (not `qr`), the code, the count and the link alone, so that the answers stay
    in view."""
    links, warning = students_links(link_url(st.context.url or '', {'class': code}))
    shown = next((link for link in links if link.scan), links[0])
    noun = 'student follows' if students == 1 else 'students follow'
    count = f'<span data-testid="class-students">{students} {noun}</span>'
    spaced = f'<span data-testid="class-code">{" ".join(code)}</span>'
    st.markdown(f'<div class="class-code">Class <b>{spaced}</b></div>', unsafe_allow_html=True)
    st.markdown(count, unsafe_allow_html=True)
    st.code(shown.url, language=None, wrap_lines=True)
    if not qr:
        return
    if warning:
        st.warning(warning, icon=':material/wifi_off:')
    if _qr_picture(shown.url) is not None:
        st.image(_qr_picture(shown.url), width=240, alt=f'QR code of the class’s join link {shown.url}')


def _taking_toggle(code, secret, taking):
    """*Take new students*, as the room holds it (read at each panel run: another tab may have changed it); off, no
    new phone can join, and those in the room come back after a reload or a lost network."""
    key = f'taking:{code}'
    st.session_state[key] = taking

    def flip():
        try:
            ROOMS.shut(code, secret, not st.session_state[key])
        except RoomError as error:  # the store is away, or the class ended: the next run shows the room as it is
            st.toast(md(error), icon=':material/error:')

    said = ('Off: no new phone can join. Those in the class stay, and come back after a reload or a lost network. '
            'Turn it off once your class is in, so that no one fills the room with made-up students.')  # fmt: skip
    st.toggle('Take new students', key=key, on_change=flip, help=said)


@functools.lru_cache(maxsize=16)
def _qr_picture(url):
    """The join link's QR code as a PNG, made once (the panel is drawn every PANEL_EVERY_S), or None if too long."""
    code = qr_code(url)
    return None if code is None else qr_png(code)


def pass_of(scene):
    """What a pass's frames are numbered by: a question's frame means a step of this pass alone."""
    return scene.expression_key, scene.values, scene.mode, scene.forward, scene.leaves


def asked_frame(trace, frames, at):
    """The frame the room is asked about from frame `at`: the first step at or after it where an op's _backward
    writes grads that the projector has not shown (a step already shown is past asking); None when none is left."""
    for k in range(max(0, at), len(frames)):
        frame = frames[k]
        if frame.kind != 'backward' or frame.ask or not trace.nodes[frame.node].children:
            continue
        if k > at or set(trace.nodes[frame.node].children) <= frame.hidden:
            return k
    return None


def _ask_button(scene, code, secret, at):
    k = asked_frame(scene.trace, scene.frames, at)
    if k is None:
        why = 'No _backward is left to ask about after this frame: step back to ask.'
        if scene.wrt >= 0:
            why = 'Forward mode runs no _backward: there are no grads to ask the room for.'
        st.button('Ask the room', icon=':material/quiz:', key='ask_room', disabled=True, help=why)
        return
    node = scene.trace.nodes[scene.frames[k].node]
    label = f'Ask the room: the grads {owner(node.name)}’s _backward writes'
    said = 'Every phone asks for them; the projector shows the answers as they come, until you reveal.'
    if st.button(label, icon=':material/quiz:', key='ask_room', type='primary', help=said):
        asked = room_answers.candidates(scene.trace, scene.frames[k].steps_done - 1)
        try:
            question = ROOMS.ask(code, secret, frame=k, asked=asked).question
        except RoomError as error:
            st.warning(md(error), icon=':material/error:')
            return
        st.session_state[ASKED] = (question['id'], pass_of(scene))
        send_to(k)
        st.rerun()


def _question(scene, code, secret, question, given, students):
    frame = scene.frames[question['frame']] if question['frame'] < len(scene.frames) else None
    node = scene.trace.nodes[frame.node] if frame is not None else None
    names = ', '.join(item['label'] for item in question['asked'])
    whose = f' after {md(owner(node.name))}’s `_backward`' if node is not None else ''
    st.markdown(
        f'**Question {question["id"]}**: {md(names)}{whose} · **{len(given)} of {max(students, len(given))}** answered'
    )
    reveal, done = st.columns(2)
    if not question['revealed'] and reveal.button('Reveal', icon=':material/visibility:', key='reveal_room',
                                                  type='primary', width='stretch'):  # fmt: skip
        _then_rerun(ROOMS.reveal, code, secret)
    if done.button('Done with this question', icon=':material/done_all:', key='close_question', width='stretch'):
        _then_rerun(ROOMS.close_question, code, secret)
    if question['revealed'] and frame is not None:
        rights = ', '.join(f'{item["label"]} = {number(item["candidates"][0][1])}' for item in question['asked'])
        st.markdown(f'**Right:** {md(rights)}')
        st.code('\n'.join(chain_rule_lines(scene.trace, scene.trace.steps[frame.steps_done - 1])), language=None)
    for line in groups_lines(tally(given, question['asked'])):
        st.markdown(md(line))
    st.vega_lite_chart(spread_spec(given, question['asked'], question['revealed']), width='content')


def _then_rerun(action, code, secret):
    """A lecturer's action on the room, then the whole page again (the player shows the question's new state)."""
    try:
        action(code, secret)
    except RoomError as error:
        st.warning(md(error), icon=':material/error:')
        return
    st.rerun()


def _bodies_sent(code, secret):
    sent = list(ROOMS.sent_bodies(code, secret).values())
    if not sent:
        st.markdown('**No bodies sent yet**: each student’s *Send to the class* sends theirs here, with no name.')
        return
    kinds = Counter(kind for body in sent for kind in body['verdict'].split(','))
    words = {'right': 'right', 'other': 'wrong in another way', WAITS: 'a body that cannot run yet'}
    words |= diagnosis.MISTAKES
    st.markdown(f'**{len(sent)} bodies sent** · {kinds.get("right", 0)} right')
    for kind, count in kinds.most_common():
        if kind == 'right':
            continue
        line, show = st.columns([5, 1], vertical_alignment='center')
        line.markdown(f'**{count}** · {md(words.get(kind, kind))}')
        said = 'One of these bodies, with no name, runs on the graph.'
        if show.button('Show one', key=f'show_body:{kind}', help=said):
            body = next(b for b in sent if kind in b['verdict'].split(','))
            for name, text in body['bodies'].items():
                st.session_state[FORMS['bodies'].field(name)] = text  # the seed's form: a class takes its bodies
            st.rerun()


def send_bodies_button(room, student, bodies, verdict):
    """Under a student's verdict, in a room: *Send to the class* (their bodies, with no name; sent again, they
    replace the last)."""
    if room is None or not student:
        return
    if st.button('Send to the class', icon=':material/send:', key='send_bodies',
                 help='Your bodies go to the projector with no name; send again to replace them.'):  # fmt: skip
        try:
            ROOMS.send_bodies(room['code'], student, dict(bodies), verdict)
        except RoomError as error:
            st.warning(md(error), icon=':material/error:')
        else:
            st.toast('Sent to the class, with no name.', icon=':material/send:')
