"""A live class's rooms (server/rooms.py): create, join, follow, step, close, an idle hour, the students present, a
question asked of the room with its answers and verdicts, code sent to the class, and every refusal. Every test runs
on both stores the rules are written over: in the process's memory, and in Redis as fakeredis holds it in this process
(no redis-server). tests/app/test_rooms_redis.py runs these same tests against a real redis-server, its `make_rooms`
fixture handing out Rooms on one Redis as two replicas would hold them."""

import re
import threading

import fakeredis
import pytest

from engine import exercise, sandbox
from engine.answers import GROUPS
from server import rooms as rooms_module
from server.rooms import (
    ALPHABET,
    CODE_LENGTH,
    GONE_S,
    MAX_CHANGES,
    MAX_STUDENTS,
    PRESENT_S,
    BadAnswer,
    BadState,
    Flood,
    MemoryBackend,
    NotInRoom,
    NotLecturer,
    NotRevealed,
    QuestionClosed,
    RedisBackend,
    Revealed,
    RoomEnded,
    RoomError,
    RoomFull,
    RoomNotFound,
    Rooms,
    TooManyQuestions,
    TooManyRooms,
    normal_code,
    open_rooms,
    unsigned,
)
from server.store import RedisStore

SCENARIO = {'expr': 'reuse', 'v.a': '3', 'v.b': '-2'}


class Clock:
    """A clock the test moves: `clock.now += 3600`."""

    def __init__(self, now=1_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture(params=['memory', 'fakeredis'])
def make_rooms(request, clock):
    """Rooms over one store: each call is another server's view of it (one MemoryBackend; or a client of its own on
    one fakeredis server, as each replica has)."""
    if request.param == 'memory':
        backend = MemoryBackend()
        return lambda **options: Rooms(backend, clock=clock, **options)
    server = fakeredis.FakeServer()
    client = lambda: fakeredis.FakeRedis(server=server, decode_responses=True)  # noqa: E731
    return lambda **options: Rooms(RedisBackend(client()), clock=clock, **options)


@pytest.fixture
def rooms(make_rooms):
    return make_rooms()


def test_a_room_opens_at_version_1_with_a_code_to_read_aloud_and_a_secret(rooms):
    lecturer = rooms.create(SCENARIO, frame=2)
    assert len(lecturer.code) == CODE_LENGTH and set(lecturer.code) <= set(ALPHABET)
    assert len(lecturer.secret) >= 32
    state = rooms.state(lecturer.code)
    assert (state.version, state.scenario, state.frame) == (1, SCENARIO, 2)
    assert rooms.students(lecturer.code) == 0


def test_codes_have_no_sign_that_reads_as_another_and_differ(make_rooms):
    assert not set('0O1lI') & set(ALPHABET)
    rooms = make_rooms(max_rooms=300)
    codes = {rooms.create(SCENARIO).code for _ in range(200)}
    assert len(codes) == 200
    assert not set(''.join(codes)) - set(ALPHABET)


def test_a_code_is_read_as_typed(rooms):
    code = rooms.create(SCENARIO).code
    typed = f'  {code[:3].lower()}-{code[3:].lower()} '
    assert normal_code(typed) == code
    rooms.join(typed)
    assert rooms.students(code) == 1


def test_students_are_counted_once_however_often_they_join(make_rooms):
    lecturer, other = make_rooms(), make_rooms()  # a phone reconnecting to another replica joins again
    code = lecturer.create(SCENARIO).code
    ana = lecturer.join(code)
    assert other.join(code, ana) == ana
    bo = other.join(code)
    assert bo != ana and lecturer.students(code) == 2
    lecturer.leave(code, ana)
    assert other.students(code) == 1


def test_the_lecturers_step_reaches_every_server_with_a_new_version(make_rooms):
    lecturer, student = make_rooms(), make_rooms()
    room = lecturer.create(SCENARIO)
    moved = lecturer.step(room.code, room.secret, {**SCENARIO, 'mode': 'bug'}, 7)
    assert moved.version == 2
    state = student.state(room.code)
    assert (state.version, state.scenario, state.frame) == (2, {**SCENARIO, 'mode': 'bug'}, 7)
    assert [lecturer.step(room.code, room.secret, SCENARIO, f).version for f in range(3)] == [3, 4, 5]


def test_a_touch_keeps_the_state_and_its_version(rooms):
    room = rooms.create(SCENARIO, frame=4)
    rooms.touch(room.code, room.secret)
    assert rooms.state(room.code).version == 1 and rooms.state(room.code).frame == 4


@pytest.mark.parametrize('secret', ['', 'x' * 32, None, 'secret-of-another-room', 'TAMPER'])
def test_only_the_lecturers_secret_moves_touches_checks_or_closes_the_room(rooms, secret):
    room, other = rooms.create(SCENARIO), rooms.create(SCENARIO)
    secret = {'secret-of-another-room': other.secret, 'TAMPER': room.secret[:-1] + '!'}.get(secret, secret)
    for action in (
        lambda: rooms.step(room.code, secret, {'expr': 'chain'}, 9),
        lambda: rooms.touch(room.code, secret),
        lambda: rooms.check(room.code, secret),
        lambda: rooms.close(room.code, secret),
    ):
        with pytest.raises(NotLecturer, match=f"Only the lecturer's page can do this in the class {room.code}"):
            action()
    assert rooms.state(room.code).version == 1 and rooms.state(room.code).scenario == SCENARIO
    rooms.check(room.code, room.secret)  # the right one passes


def test_the_store_never_holds_the_secret_itself(make_rooms):
    rooms = make_rooms()
    room = rooms.create(SCENARIO)
    rooms.join(room.code)
    held = repr(dump(rooms.backend))
    assert room.code in held and room.secret not in held


def dump(backend):
    """Everything a backend holds, as text."""
    if isinstance(backend, MemoryBackend):
        return backend.store.data
    r = backend.redis
    zset = lambda k: r.zrange(k, 0, -1, withscores=True)  # noqa: E731
    read = {'hash': r.hgetall, 'set': r.smembers, 'zset': zset, 'string': r.get}
    return {k: read[r.type(k)](k) for k in r.keys('*')}


@pytest.mark.parametrize('typed', ['', 'ABCD', 'ABCDEF', '0O1lI', 'AB CD!', None, 12345, 'ÄBCDE'])
def test_a_code_that_cannot_be_one_is_not_found(rooms, typed):
    with pytest.raises(RoomNotFound, match='No class has the code'):
        rooms.join(typed)


def test_an_unknown_code_is_not_found_anywhere(rooms):
    code = 'ABCDE'  # well formed, and no room has it: the store is new
    for action in (rooms.join, rooms.state, rooms.students, lambda c: rooms.step(c, 'x', SCENARIO, 0)):
        with pytest.raises(RoomNotFound, match=f'No class has the code {code}: check it against the projector.'):
            action(code)


def test_a_closed_room_says_so_to_everyone(make_rooms):
    lecturer, student = make_rooms(), make_rooms()
    room = lecturer.create(SCENARIO)
    ana = student.join(room.code)
    lecturer.close(room.code, room.secret)
    for action in (
        lambda: student.state(room.code),
        lambda: student.join(room.code, ana),
        lambda: student.students(room.code),
        lambda: lecturer.step(room.code, room.secret, SCENARIO, 1),
        lambda: lecturer.close(room.code, room.secret),
    ):
        with pytest.raises(RoomEnded, match=f'The class {room.code} has ended: the lecturer closed it.') as raised:
            action()
        assert raised.value.reason == 'closed' and raised.value.code == room.code


def test_a_room_ends_after_an_idle_hour_with_no_move_from_its_lecturer_though_the_page_is_open(rooms, clock):
    room = rooms.create(SCENARIO)
    clock.now += 3599
    rooms.step(room.code, room.secret, SCENARIO, 1)  # a move: the hour starts again
    for _ in range(3599 // 60):  # the projector's panel touches, all the while; no move
        clock.now += 60
        rooms.touch(room.code, room.secret)
    clock.now += 3599 - 3599 // 60 * 60
    rooms.join(room.code)  # students alone keep no room open
    assert rooms.state(room.code).version == 2
    clock.now += 1
    with pytest.raises(RoomEnded, match='it was idle for an hour') as raised:
        rooms.state(room.code)
    assert raised.value.reason == 'idle'
    with pytest.raises(RoomEnded):
        rooms.touch(room.code, room.secret)


def test_a_room_ends_five_minutes_after_its_lecturers_page_last_touched_it(make_rooms, clock):
    rooms = make_rooms()
    room, untouched = rooms.create(SCENARIO), rooms.create(SCENARIO)
    rooms.touch(room.code, room.secret)
    clock.now += 299  # a reload, or a laptop asleep between two slides
    rooms.touch(room.code, room.secret)
    clock.now += 299
    assert rooms.state(room.code).version == 1
    clock.now += 1  # 300 s since the page last said it is open: it was closed
    with pytest.raises(RoomEnded, match='The class .* has ended: the lecturer’s page was closed.') as raised:
        make_rooms().state(room.code)  # another replica sees it too
    assert raised.value.reason == 'gone'
    with pytest.raises(RoomEnded):
        rooms.touch(room.code, room.secret)
    assert rooms.state(untouched.code).version == 1  # never touched (no page has said it is open): the idle hour


def test_a_closed_lecturer_page_frees_its_place_among_the_stores_rooms(make_rooms, clock):
    rooms = make_rooms(max_rooms=1)
    room = rooms.create(SCENARIO)
    rooms.touch(room.code, room.secret)
    with pytest.raises(TooManyRooms):
        rooms.create(SCENARIO)
    clock.now += 300
    rooms.create(SCENARIO)


def test_a_room_holds_its_most_students_and_lets_its_own_back_in(make_rooms):
    rooms = make_rooms(max_students=3)
    code = rooms.create(SCENARIO).code
    ids = [rooms.join(code) for _ in range(3)]
    with pytest.raises(RoomFull, match=f'The class {code} is full: it holds 3 students.'):
        rooms.join(code)
    rooms.join(code, ids[0])  # a reconnecting student is not a new one
    rooms.leave(code, ids[1])
    rooms.join(code)
    assert rooms.students(code) == 3


def test_the_store_holds_its_most_rooms_until_one_ends(make_rooms, clock):
    rooms = make_rooms(max_rooms=2)
    first, _ = rooms.create(SCENARIO), rooms.create(SCENARIO)
    with pytest.raises(TooManyRooms, match='This server holds 2 classes already: try again later.'):
        rooms.create(SCENARIO)
    rooms.close(first.code, first.secret)
    rooms.create(SCENARIO)
    with pytest.raises(TooManyRooms):
        rooms.create(SCENARIO)
    clock.now += 3600  # both idle now
    rooms.create(SCENARIO)


@pytest.mark.parametrize(
    'scenario, frame, message',
    [
        (['expr', 'reuse'], 0, 'link parameters'),
        ({'expr': 3}, 0, 'link parameters'),
        ({'Expr!': 'reuse'}, 0, 'link parameters'),
        ({'': 'reuse'}, 0, 'link parameters'),
        (SCENARIO, -1, 'whole number from 0'),
        (SCENARIO, 1.5, 'whole number from 0'),
        (SCENARIO, True, 'whole number from 0'),
        (SCENARIO, '3', 'whole number from 0'),
        ({'expr': 'x' * 9000}, 0, 'a room holds 8192 at most'),
    ],
)
def test_a_state_the_room_cannot_hold_is_refused_and_changes_nothing(rooms, scenario, frame, message):
    with pytest.raises(BadState, match=message):
        rooms.create(scenario, frame)
    room = rooms.create(SCENARIO)
    with pytest.raises(BadState, match=message):
        rooms.step(room.code, room.secret, scenario, frame)
    assert rooms.state(room.code).version == 1


@pytest.mark.parametrize('student', ['', 'short', 'x' * 65, 'has space in it', 42])
def test_a_student_id_the_page_did_not_make_is_refused(rooms, student):
    code = rooms.create(SCENARIO).code
    with pytest.raises(RoomError, match='open the join link again'):
        rooms.join(code, student)


def test_every_refusal_is_a_room_error_with_a_sentence():
    for error in (
        RoomNotFound,
        NotLecturer,
        NotInRoom,
        RoomFull,
        TooManyRooms,
        BadState,
        BadAnswer,
        QuestionClosed,
        Revealed,
        NotRevealed,
        Flood,
    ):
        assert issubclass(error, RoomError)
    assert str(RoomEnded('ABCDE', 'idle')).endswith('.')


def test_steps_at_once_from_many_threads_lose_no_version(make_rooms):
    rooms = make_rooms()
    room = rooms.create(SCENARIO)
    servers = [make_rooms() for _ in range(8)]

    def steps(server):
        for frame in range(25):
            server.step(room.code, room.secret, SCENARIO, frame)

    threads = [threading.Thread(target=steps, args=(s,)) for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert rooms.state(room.code).version == 1 + 8 * 25


def test_a_flood_of_joins_fills_the_room_to_its_cap_and_no_further(make_rooms):
    rooms = make_rooms(max_students=10)
    code = rooms.create(SCENARIO).code
    outcomes = []

    def join():
        try:
            outcomes.append(make_rooms(max_students=10).join(code))
        except RoomFull:
            outcomes.append('full')

    threads = [threading.Thread(target=join) for _ in range(25)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert outcomes.count('full') == 15 and rooms.students(code) == 10


def test_without_a_redis_url_the_rooms_are_in_the_process(monkeypatch):
    monkeypatch.delenv(rooms_module.ENV, raising=False)
    assert isinstance(open_rooms().backend, MemoryBackend)


@pytest.mark.parametrize('size, held', [('3000', 3000), (' 40 ', 40), ('0', 500), ('1e4', 500), ('-5', 500),
                                        ('100001', 500), ('', 500), ('many', 500)])  # fmt: skip
def test_a_lecture_halls_server_holds_bigger_rooms_and_a_setting_it_cannot_read_is_the_default(monkeypatch, size, held):
    monkeypatch.delenv(rooms_module.ENV, raising=False)
    monkeypatch.setenv('BACKPROP_CLASS_SIZE', size)
    assert open_rooms().max_students == held and MAX_STUDENTS == 500


# --- presence: the students seen in the last PRESENT_S seconds --------------------------------------------------


def test_a_student_unseen_for_more_than_45_s_is_not_counted_and_counts_once_on_rejoining(make_rooms, clock):
    lecturer, other = make_rooms(), make_rooms()
    code = lecturer.create(SCENARIO).code
    ana = lecturer.join(code)
    lecturer.join(code)  # bo
    clock.now += 30
    other.seen(code, ana)  # ana's stream's keepalive, on another replica
    clock.now += 16  # bo last seen 46 s ago, ana 16 s ago
    assert lecturer.students(code) == 1
    clock.now += 30  # ana 46 s ago too
    assert other.students(code) == 0
    assert other.join(code, ana) == ana and lecturer.join(code, ana) == ana  # a reload: the page keeps its id
    assert lecturer.students(code) == 1


def test_a_student_id_is_minted_by_the_server_and_signed_so_a_made_up_or_altered_one_is_refused(make_rooms):
    lecturer, other = make_rooms(), make_rooms()  # two replicas: one mints, the other checks
    code, elsewhere = lecturer.create(SCENARIO).code, lecturer.create(SCENARIO).code
    ana = lecturer.join(code)
    assert rooms_module.STUDENT.fullmatch(ana)
    assert other.join(code, ana) == ana  # the same student, signed by the key every replica reads from the store
    made_up = f'{unsigned(ana)}.{"A" * 22}'  # a real id with a signature of the student's own
    other_room = lecturer.join(elsewhere)  # signed for another room
    tampered = f'{unsigned(ana)[:-1]}{"B" if ana[15] != "B" else "C"}.{ana.partition(".")[2]}'
    for forged in (made_up, f'{unsigned(other_room)}.{other_room.partition(".")[2]}', tampered, unsigned(ana)):
        for call in (other.join, other.seen, other.mine, lambda c, s: other.send_bodies(c, s, {'tanh': 'pass'}, '')):
            with pytest.raises(NotInRoom, match='open the join link again'):
                call(code, forged)
    assert lecturer.students(code) == 1


def test_a_replica_whose_store_lost_the_signing_key_reads_the_new_one(make_rooms):
    first, second = make_rooms(), make_rooms()
    code = first.create(SCENARIO).code
    first.join(code)  # first holds the key now
    first.backend.store.run(lambda tx: tx.read(('exists', 'backprop:key')) and tx.delete('backprop:key'),
                            ('backprop:key',))  # fmt: skip
    ana = second.join(code)  # signed with a new key
    assert first.join(code, ana) == ana


def test_a_room_closed_to_new_students_keeps_those_in_it_and_opens_again(rooms, clock):
    room = rooms.create(SCENARIO)
    ana = rooms.join(room.code)
    assert rooms.taking(room.code)
    rooms.shut(room.code, room.secret)
    assert not rooms.taking(room.code)
    with pytest.raises(rooms_module.RoomShut, match=f'The class {room.code} takes no new students now'):
        rooms.join(room.code)
    clock.now += PRESENT_S + 10  # ana's phone slept: back in with the id it holds
    assert rooms.join(room.code, ana) == ana and rooms.students(room.code) == 1
    with pytest.raises(NotLecturer):
        rooms.shut(room.code, 'not-the-secret', False)
    rooms.shut(room.code, room.secret, False)
    assert rooms.taking(room.code)
    rooms.join(room.code)
    assert rooms.students(room.code) == 2


def test_joins_from_one_address_are_limited_a_minute_and_a_returning_student_is_not_a_join(make_rooms, clock):
    rooms, other = make_rooms(joins=3), make_rooms(joins=3)  # the count is the store's: every replica's together
    codes = [rooms.create(SCENARIO).code for _ in range(2)]
    clock.now = 60 * 1000 + 10  # 50 s left in this minute's window
    ana = rooms.join(codes[0], address='203.0.113.7')
    other.join(codes[1], address='203.0.113.7')
    other.join(codes[0], address='203.0.113.7')
    for replica in (rooms, other):
        with pytest.raises(rooms_module.TooManyJoins, match='joining again in 50 s') as refused:
            replica.join(codes[0], address='203.0.113.7')
        assert refused.value.wait == 50
    assert rooms.join(codes[0], ana, address='203.0.113.7') == ana  # a reload or a reconnection: no new join
    rooms.join(codes[0], address='198.51.100.2')  # another address
    assert rooms.students(codes[0]) == 3 and rooms.students(codes[1]) == 1
    clock.now += 50  # the next minute
    rooms.join(codes[0], address='203.0.113.7')


def test_a_student_reads_their_own_answer_to_the_open_question_and_no_one_elses(rooms):
    room = rooms.create(SCENARIO)
    ana, bo = rooms.join(room.code), rooms.join(room.code)
    assert rooms.mine(room.code, ana) == {'question': None, 'answers': None}
    rooms.ask(room.code, room.secret, 7, ASKED)
    rooms.answer(room.code, ana, 1, {'a': '6', 'b': '−0,5'})
    assert rooms.mine(room.code, ana) == {'question': 1, 'answers': {'a': 6.0, 'b': -0.5}}
    assert rooms.mine(room.code, bo) == {'question': 1, 'answers': None}
    rooms.ask(room.code, room.secret, 9, ASKED[:1])
    assert rooms.mine(room.code, ana) == {'question': 2, 'answers': None}


def test_a_student_seen_exactly_45_s_ago_is_still_counted(rooms, clock):
    code = rooms.create(SCENARIO).code
    rooms.join(code)
    clock.now += PRESENT_S
    assert rooms.students(code) == 1


def test_the_cap_counts_present_students_so_leaving_or_dropping_out_frees_a_seat(make_rooms, clock):
    rooms = make_rooms(max_students=2)
    code = rooms.create(SCENARIO).code
    ana, bo = rooms.join(code), rooms.join(code)
    with pytest.raises(RoomFull):
        rooms.join(code)
    rooms.leave(code, ana)
    cy = rooms.join(code)
    clock.now += 40
    rooms.seen(code, cy)
    clock.now += 10  # bo unseen for 50 s: their replica died
    rooms.join(code)
    with pytest.raises(RoomFull):
        rooms.join(code, bo)  # back, and the room is full again
    assert rooms.students(code) == 2


def test_a_stream_that_ends_after_its_student_reconnected_elsewhere_does_not_take_them_out(make_rooms, clock):
    first, second = make_rooms(), make_rooms()
    code = first.create(SCENARIO).code
    ana = first.join(code)
    last = clock.now  # when the old stream last marked ana seen
    clock.now += 5
    second.join(code, ana)  # the phone reconnected to another replica
    first.leave(code, ana, since=last)  # the old stream ends only now
    assert first.students(code) == 1
    second.leave(code, ana, since=clock.now)  # the new one ends: nothing marked ana since
    assert first.students(code) == 0


def test_seen_refuses_an_id_the_page_did_not_make_and_an_ended_room(rooms):
    room = rooms.create(SCENARIO)
    with pytest.raises(NotInRoom, match='open the join link again'):
        rooms.seen(room.code, 'short')
    ana = rooms.join(room.code)
    rooms.close(room.code, room.secret)
    with pytest.raises(RoomEnded):
        rooms.seen(room.code, ana)


# --- asking the room ---------------------------------------------------------------------------------------------
# hand-written candidates: a's grad is 6, forgetting the reuse gives 3, the `=` bug 2; b's is -0.5, its sign slip 0.5
ASKED = [
    {'node': 'a', 'label': 'a.grad', 'candidates': [['right', 6.0], ['forgot', 3.0], ['assign', 2.0]]},
    {'node': 'b', 'label': 'b.grad', 'candidates': [['right', -0.5], ['sign', 0.5]]},
]
SHOWN = [{'node': 'a', 'label': 'a.grad'}, {'node': 'b', 'label': 'b.grad'}]


@pytest.fixture
def asked(make_rooms):
    """A room asked ASKED at frame 7, with two students in it: (rooms, room, ana, bo)."""
    rooms = make_rooms()
    room = rooms.create(SCENARIO)
    ana, bo = rooms.join(room.code), rooms.join(room.code)
    rooms.ask(room.code, room.secret, 7, ASKED)
    return rooms, room, ana, bo


def test_asking_opens_question_1_for_every_phone_without_its_candidates(make_rooms):
    lecturer, student = make_rooms(), make_rooms()
    room = lecturer.create(SCENARIO, frame=3)
    assert lecturer.state(room.code).question is None
    state = lecturer.ask(room.code, room.secret, 7, ASKED)
    question = {'id': 1, 'frame': 7, 'asked': SHOWN, 'revealed': False}
    assert (state.version, state.frame, state.question) == (2, 3, question)  # the class's frame is the step's
    assert student.state(room.code) == state
    assert 'candidates' not in repr(student.state(room.code)) and 'forgot' not in repr(student.state(room.code))


def test_a_new_question_replaces_the_open_one_and_forgets_its_answers(asked):
    rooms, room, ana, _ = asked
    rooms.answer(room.code, ana, 1, {'a': '6'})
    state = rooms.ask(room.code, room.secret, 9, ASKED[:1])
    assert state.version == 3 and state.question == {'id': 2, 'frame': 9, 'asked': SHOWN[:1], 'revealed': False}
    question, answers = rooms.answers(room.code, room.secret)
    assert question == {'id': 2, 'frame': 9, 'asked': ASKED[:1], 'revealed': False} and answers == {}


def test_every_question_asked_is_kept_with_its_answers_and_when_for_the_lecturer(asked, make_rooms, clock):
    rooms, room, ana, bo = asked
    other = make_rooms()  # bo's phone is on another replica
    start = clock.now
    rooms.answer(room.code, ana, 1, {'a': '6', 'b': '-0.5'})
    clock.now += 5
    other.answer(room.code, bo, 1, {'a': '3'})
    rooms.reveal(room.code, room.secret)
    clock.now += 5
    state = rooms.ask(room.code, room.secret, 9, ASKED[:1])  # replaces question 1
    assert state.asked == 2 and other.state(room.code).asked == 2
    rooms.answer(room.code, ana, 2, {'a': '2'})
    rooms.close_question(room.code, room.secret)
    rooms.ask(room.code, room.secret, 11, ASKED[1:])  # open, with no answer yet
    record = other.record(room.code, room.secret)
    assert [(q['id'], q['frame'], q['asked'], q['revealed']) for q in record] == [
        (1, 7, ASKED, True), (2, 9, ASKED[:1], False), (3, 11, ASKED[1:], False)]  # fmt: skip
    assert record[0]['answers'] == {unsigned(ana): {'answers': {'a': 6.0, 'b': -0.5}, 'at': start},
                                    unsigned(bo): {'answers': {'a': 3.0}, 'at': start + 5}}  # fmt: skip
    assert (
        record[1]['answers'] == {unsigned(ana): {'answers': {'a': 2.0}, 'at': start + 10}}
        and record[2]['answers'] == {}
    )
    with pytest.raises(NotLecturer):
        rooms.record(room.code, 'not-the-secret')
    rooms.close(room.code, room.secret)
    with pytest.raises(RoomEnded):
        rooms.record(room.code, room.secret)


def test_a_room_asks_at_most_its_most_questions_and_says_to_start_another(make_rooms):
    rooms = make_rooms(max_questions=3)
    room = rooms.create(SCENARIO)
    for _ in range(3):
        rooms.ask(room.code, room.secret, 7, ASKED)
    with pytest.raises(TooManyQuestions, match='asked 3 questions, its most: download its answers, and start a new'):
        rooms.ask(room.code, room.secret, 7, ASKED)
    assert [q['id'] for q in rooms.record(room.code, room.secret)] == [1, 2, 3]
    assert rooms.state(room.code).question['id'] == 3  # the open one stays


def test_a_step_keeps_the_question_on_the_phones(asked):
    rooms, room, *_ = asked
    state = rooms.step(room.code, room.secret, SCENARIO, 8)
    assert state.version == 3 and state.question['id'] == 1
    assert rooms.state(room.code) == state


def test_answers_from_two_replicas_reach_the_lecturer_as_floats(asked, make_rooms):
    rooms, room, ana, bo = asked
    other = make_rooms()  # bo's phone is on another replica
    assert rooms.answer(room.code, ana, 1, {'a': '6', 'b': ' -0.5 '}) == {'a': 6.0, 'b': -0.5}
    assert other.answer(room.code, bo, 1, {'a': 3}) == {'a': 3.0}
    question, answers = other.answers(room.code, room.secret)
    assert question == {'id': 1, 'frame': 7, 'asked': ASKED, 'revealed': False}
    assert answers == {unsigned(ana): {'a': 6.0, 'b': -0.5}, unsigned(bo): {'a': 3.0}}


@pytest.mark.parametrize(
    'typed, number',
    [('-0.5', -0.5), ('1e-3', 0.001), (' 3 ', 3.0), ('6,5', 6.5), ('\u22122', -2.0), ('+.25', 0.25), ('7.', 7.0),
     (2, 2.0), (-0.125, -0.125), ('1E3', 1000.0), ('1000000000', 1e9)],
)  # fmt: skip
def test_an_answer_is_read_as_typed_on_a_phone(asked, typed, number):
    rooms, room, ana, _ = asked
    assert rooms.answer(room.code, ana, 1, {'a': typed}) == {'a': number}


@pytest.mark.parametrize(
    'typed, message',
    [
        ('abc', "Your answer for a.grad, 'abc', is not a number."),
        ('6,5.1', 'is not a number'),  # a comma and a dot: which is the decimal point?
        ('1,000,5', 'is not a number'),
        ('nan', 'is not a number'),
        ('inf', 'is not a number'),
        ('-infinity', 'is not a number'),
        ('1_000', 'is not a number'),
        ('0x10', 'is not a number'),
        ('1 2', 'is not a number'),
        ([6], 'is not a number'),
        (True, 'is not a number'),
        (float('nan'), 'is not a number'),
        (float('inf'), 'is too large: a grad here is at most 1,000,000,000 in size.'),
        (10**400, 'is too large'),
        ('1e999', 'is too large'),
        ('-2e9', 'is too large'),
        ('1000000001', 'is too large'),
    ],
)
def test_an_answer_that_is_not_a_number_or_too_large_is_refused_with_a_sentence(asked, typed, message):
    rooms, room, ana, _ = asked
    with pytest.raises(BadAnswer, match=re.escape(message)):
        rooms.answer(room.code, ana, 1, {'a': typed, 'b': '0.5'})
    assert rooms.answers(room.code, room.secret)[1] == {}


def test_blank_answers_are_left_out_but_one_is_needed(asked):
    rooms, room, ana, _ = asked
    assert rooms.answer(room.code, ana, 1, {'a': '  ', 'b': '0.5'}) == {'b': 0.5}
    for blank in ({'a': '', 'b': None}, {}):
        with pytest.raises(BadAnswer, match='Type a number for at least one grad before you send.'):
            rooms.answer(room.code, ana, 1, blank)


def test_an_answer_for_a_grad_not_asked_is_refused(asked):
    rooms, room, ana, _ = asked
    with pytest.raises(BadAnswer, match="The question asks for no grad called 'c': reload the page."):
        rooms.answer(room.code, ana, 1, {'a': '6', 'c': '1'})
    with pytest.raises(BadAnswer, match='a grad name for each number'):
        rooms.answer(room.code, ana, 1, ['6'])


def test_a_changed_answer_replaces_the_first_and_counts_once(asked):
    rooms, room, ana, _ = asked
    rooms.answer(room.code, ana, 1, {'a': '3'})
    rooms.answer(room.code, ana, 1, {'a': '6', 'b': '-0.5'})
    assert rooms.answers(room.code, room.secret)[1] == {unsigned(ana): {'a': 6.0, 'b': -0.5}}


def test_an_answer_after_the_reveal_is_refused_and_not_counted(asked):
    rooms, room, ana, bo = asked
    rooms.answer(room.code, ana, 1, {'a': '6'})
    state = rooms.reveal(room.code, room.secret)
    assert state.version == 3
    for student, answer in ((ana, {'a': '3'}), (bo, {'a': '6'})):
        with pytest.raises(Revealed, match='The answers are revealed: yours was not counted.'):
            rooms.answer(room.code, student, 1, answer)
    assert rooms.answers(room.code, room.secret)[1] == {unsigned(ana): {'a': 6.0}}


@pytest.mark.parametrize('question_id', [0, 2, '1', None, True, 1.5])
def test_an_answer_to_another_question_than_the_open_one_is_refused(asked, question_id):
    rooms, room, ana, _ = asked
    with pytest.raises(QuestionClosed, match='That question is closed: answer the one on the projector.'):
        rooms.answer(room.code, ana, question_id, {'a': '6'})


def test_an_answer_to_a_question_replaced_or_closed_is_refused(asked):
    rooms, room, ana, _ = asked
    rooms.ask(room.code, room.secret, 8, ASKED)
    with pytest.raises(QuestionClosed, match='That question is closed'):
        rooms.answer(room.code, ana, 1, {'a': '6'})
    rooms.answer(room.code, ana, 2, {'a': '6'})
    state = rooms.close_question(room.code, room.secret)
    assert state.question is None and state.version == 4
    with pytest.raises(QuestionClosed, match='That question is closed'):
        rooms.answer(room.code, ana, 2, {'a': '6'})
    assert rooms.answers(room.code, room.secret) == (None, {})


def test_a_student_who_is_not_in_the_room_cannot_answer(asked, clock):
    rooms, room, ana, bo = asked
    rooms.leave(room.code, ana)
    with pytest.raises(NotInRoom, match=f'This page is not in the class {room.code} now: reload it to join again.'):
        rooms.answer(room.code, ana, 1, {'a': '6'})
    clock.now += 46  # bo's stream stopped long ago
    with pytest.raises(NotInRoom):
        rooms.answer(room.code, bo, 1, {'a': '6'})
    with pytest.raises(NotInRoom, match='open the join link again'):
        rooms.answer(room.code, 'bad id!', 1, {'a': '6'})
    assert rooms.answers(room.code, room.secret)[1] == {}


def test_more_than_20_answers_from_one_student_to_one_question_are_a_flood(asked):
    rooms, room, ana, bo = asked
    for k in range(MAX_CHANGES):
        rooms.answer(room.code, ana, 1, {'a': str(k)})
    with pytest.raises(Flood, match='You have made 20 answers to this question: your last one stands.'):
        rooms.answer(room.code, ana, 1, {'a': '6'})
    assert rooms.answers(room.code, room.secret)[1] == {unsigned(ana): {'a': 19.0}}
    rooms.answer(room.code, bo, 1, {'a': '6'})  # the others still answer
    rooms.ask(room.code, room.secret, 8, ASKED)
    rooms.answer(room.code, ana, 2, {'a': '6'})  # a new question, a new count


def test_a_question_holds_at_most_the_rooms_students_cap_of_answers(make_rooms, clock):
    rooms = make_rooms(max_students=2)
    room = rooms.create(SCENARIO)
    ana, bo = rooms.join(room.code), rooms.join(room.code)
    rooms.ask(room.code, room.secret, 0, ASKED)
    rooms.answer(room.code, ana, 1, {'a': '6'})
    rooms.answer(room.code, bo, 1, {'a': '6'})
    rooms.leave(room.code, bo)
    cy = rooms.join(room.code)  # bo's seat, and no third answer
    with pytest.raises(RoomFull, match=f'The class {room.code} holds 2 answers already: yours was not counted.'):
        rooms.answer(room.code, cy, 1, {'a': '6'})
    rooms.answer(room.code, ana, 1, {'a': '3'})  # a change still counts


@pytest.mark.parametrize('secret', ['', 'x' * 32, None, 'secret-of-another-room'])
def test_only_the_lecturers_secret_asks_reveals_closes_or_reads_the_answers(asked, secret):
    rooms, room, ana, _ = asked
    secret = rooms.create(SCENARIO).secret if secret == 'secret-of-another-room' else secret
    for action in (
        lambda: rooms.ask(room.code, secret, 3, ASKED),
        lambda: rooms.reveal(room.code, secret),
        lambda: rooms.close_question(room.code, secret),
        lambda: rooms.answers(room.code, secret),
        lambda: rooms.sent_bodies(room.code, secret),
        lambda: rooms.ask(room.code, ana, 3, ASKED),  # a student's id is no secret
    ):
        with pytest.raises(NotLecturer, match="Only the lecturer's page can do this"):
            action()
    state = rooms.state(room.code)
    assert state.version == 2 and state.question == {'id': 1, 'frame': 7, 'asked': SHOWN, 'revealed': False}


def test_the_reveal_gives_every_phone_each_grads_right_value_once(asked):
    rooms, room, *_ = asked
    state = rooms.reveal(room.code, room.secret)
    shown = [{**SHOWN[0], 'right': 6.0}, {**SHOWN[1], 'right': -0.5}]
    assert state.question == {'id': 1, 'frame': 7, 'asked': shown, 'revealed': True}
    assert rooms.state(room.code) == state and 'forgot' not in repr(state)
    assert rooms.reveal(room.code, room.secret) == state  # again: nothing new, no new version


def test_revealing_or_closing_with_no_question_open(rooms):
    room = rooms.create(SCENARIO)
    with pytest.raises(QuestionClosed, match='There is no question to reveal: ask one first.'):
        rooms.reveal(room.code, room.secret)
    assert rooms.close_question(room.code, room.secret).version == 1  # nothing to close: nothing new


def test_a_verdict_is_given_only_after_the_reveal_with_each_answers_group(asked, make_rooms):
    rooms, room, ana, bo = asked
    cy, dee = rooms.join(room.code), rooms.join(room.code)
    with pytest.raises(NotRevealed, match='The answers are not revealed yet.'):
        rooms.verdict(room.code, ana)
    rooms.answer(room.code, ana, 1, {'a': '6.001', 'b': '0.5'})
    rooms.answer(room.code, bo, 1, {'a': '3'})
    rooms.answer(room.code, cy, 1, {'a': '7', 'b': '-0.5'})
    rooms.reveal(room.code, room.secret)
    groups = lambda s: [(i['answer'], i['group']) for i in make_rooms().verdict(room.code, s)['asked']]  # noqa: E731
    assert groups(ana) == [(6.001, 'right'), (0.5, 'sign')]
    assert groups(bo) == [(3.0, 'forgot'), (None, 'blank')]
    assert groups(cy) == [(7.0, 'other'), (-0.5, 'right')]
    assert groups(dee) == [(None, 'blank'), (None, 'blank')]  # in the room, never answered
    assert rooms.verdict(room.code, ana) == {
        'question': 1,
        'asked': [
            {
                'node': 'a',
                'label': 'a.grad',
                'answer': 6.001,
                'group': 'right',
                'says': GROUPS['right'].says,
                'right': 6.0,
            },
            {
                'node': 'b',
                'label': 'b.grad',
                'answer': 0.5,
                'group': 'sign',
                'says': GROUPS['sign'].says,
                'right': -0.5,
            },
        ],
    }
    rooms.close_question(room.code, room.secret)
    with pytest.raises(QuestionClosed, match='There is no question on the projector now.'):
        rooms.verdict(room.code, ana)


@pytest.mark.parametrize(
    'frame, asked, message',
    [
        (-1, ASKED, 'whole number from 0'),
        ('7', ASKED, 'whole number from 0'),
        (7, [], 'A question asks for 1 to 8 grads.'),
        (7, ASKED * 5, 'A question asks for 1 to 8 grads.'),
        (7, 'a', 'A question asks for 1 to 8 grads.'),
        (7, [{**ASKED[0], 'label': 'x' * 41}], 'each 1 to 40 characters'),
        (7, [{**ASKED[0], 'node': ''}], 'each 1 to 40 characters'),
        (7, [{'node': 'a', 'label': 'a.grad'}], 'needs 1 to 8 candidates'),
        (7, [{**ASKED[0], 'candidates': [['right', 1.0]] * 9}], 'needs 1 to 8 candidates'),
        (7, [{**ASKED[0], 'candidates': [['forgot', 3.0], ['right', 6.0]]}], "named 'right'"),
        (7, [{**ASKED[0], 'candidates': [['right', float('nan')]]}], 'a finite number'),
        (7, [{**ASKED[0], 'candidates': [['right', float('inf')]]}], 'a finite number'),
        (7, [{**ASKED[0], 'candidates': [['right', '6']]}], 'a finite number'),
        (7, [{**ASKED[0], 'candidates': [['Right!', 6.0]]}], 'a short name'),
        (7, [{**ASKED[0], 'candidates': [['right', 6.0, 1]]}], 'a short name'),
        (7, [ASKED[0], ASKED[0]], 'each grad once'),
        (7, ['a'], 'needs a node and a label'),
    ],
)
def test_a_question_the_room_cannot_hold_is_refused_and_changes_nothing(rooms, frame, asked, message):
    room = rooms.create(SCENARIO)
    with pytest.raises(BadState, match=re.escape(message)):
        rooms.ask(room.code, room.secret, frame, asked)
    assert rooms.state(room.code).version == 1 and rooms.state(room.code).question is None


def test_a_closed_room_takes_no_question_and_no_answer(asked):
    rooms, room, ana, _ = asked
    rooms.close(room.code, room.secret)
    for action in (
        lambda: rooms.answer(room.code, ana, 1, {'a': '6'}),
        lambda: rooms.verdict(room.code, ana),
        lambda: rooms.ask(room.code, room.secret, 1, ASKED),
        lambda: rooms.send_bodies(room.code, ana, {'tanh': 'pass'}, 'right'),
    ):
        with pytest.raises(RoomEnded):
            action()


# --- code sent to the class --------------------------------------------------------------------------------------
BODIES = {'add': 'self.grad += out.grad\nother.grad += out.grad', 'tanh': 'self.grad = (1 - t**2) * out.grad'}


def test_a_students_code_reaches_the_lecturer_and_a_later_send_replaces_it(make_rooms):
    lecturer, phone = make_rooms(), make_rooms()
    room = lecturer.create(SCENARIO)
    ana, bo = phone.join(room.code), phone.join(room.code)
    assert lecturer.sent_bodies(room.code, room.secret) == {}
    phone.send_bodies(room.code, ana, BODIES, 'assign')
    phone.send_bodies(room.code, bo, {'mul': 'self.grad += other.data * out.grad'}, '')
    phone.send_bodies(room.code, ana, {'tanh': 'self.grad += (1 - t**2) * out.grad'}, 'right')
    assert lecturer.sent_bodies(room.code, room.secret) == {
        unsigned(ana): {'bodies': {'tanh': 'self.grad += (1 - t**2) * out.grad'}, 'verdict': 'right'},
        unsigned(bo): {'bodies': {'mul': 'self.grad += other.data * out.grad'}, 'verdict': ''},
    }


@pytest.mark.parametrize(
    'bodies, verdict, message',
    [
        ({}, 'right', 'Send 1 to 3 bodies at once: add, mul, tanh.'),
        ({'add': 'pass', 'mul': 'pass', 'tanh': 'pass', 'pow': 'pass'}, 'right', 'Send 1 to 3 bodies at once'),
        ({'Tanh': 'pass'}, 'right', "No op is called 'Tanh'"),
        ({'a' * 17: 'pass'}, 'right', 'No op is called'),
        ({'tanh': 'x' * 501}, 'right', 'Your code for tanh is 501 characters; the class takes 500 at most.'),
        ({'tanh': 3}, 'right', 'Your code for tanh must be text.'),
        ({'tanh': 'pass'}, 'Right', "must be 'right' or mistake names"),
        ({'tanh': 'pass'}, 'x' * 65, "must be 'right' or mistake names"),
        ({'tanh': 'pass'}, None, "must be 'right' or mistake names"),
        ('pass', 'right', 'Send 1 to 3 bodies at once'),
    ],
)
def test_code_the_class_cannot_take_is_refused_with_a_sentence(rooms, bodies, verdict, message):
    room = rooms.create(SCENARIO)
    ana = rooms.join(room.code)
    with pytest.raises(BadAnswer, match=re.escape(message)):
        rooms.send_bodies(room.code, ana, bodies, verdict)
    assert rooms.sent_bodies(room.code, room.secret) == {}


def test_the_longest_bodies_the_page_takes_are_taken_in_any_script(rooms):
    room = rooms.create(SCENARIO)
    ana = rooms.join(room.code)
    bodies = {name: '𝑥' * sandbox.MAX_BODY for name in exercise.OPS}  # 4 bytes a character in UTF-8: the most
    rooms.send_bodies(room.code, ana, bodies, 'forgot,sign')
    assert rooms.sent_bodies(room.code, room.secret)[unsigned(ana)]['bodies'] == bodies


def test_more_than_20_sends_from_one_student_are_a_flood_and_strangers_send_nothing(rooms):
    room = rooms.create(SCENARIO)
    ana = rooms.join(room.code)
    for k in range(MAX_CHANGES):
        rooms.send_bodies(room.code, ana, {'tanh': f'pass  # {k}'}, 'right')
    with pytest.raises(Flood, match='You have made 20 sends of your code: your last one stands.'):
        rooms.send_bodies(room.code, ana, {'tanh': 'pass'}, 'right')
    with pytest.raises(NotInRoom):
        rooms.send_bodies(room.code, 'never-joined-this-room', {'tanh': 'pass'}, 'right')
    assert rooms.sent_bodies(room.code, room.secret) == {
        unsigned(ana): {'bodies': {'tanh': 'pass  # 19'}, 'verdict': 'right'}
    }


def test_answers_at_once_from_many_servers_stop_at_the_flood_cap_exactly(asked, make_rooms):
    rooms, room, ana, _ = asked
    outcomes = []

    def answers(server):
        for k in range(10):
            try:
                server.answer(room.code, ana, 1, {'a': str(k)})
                outcomes.append('ok')
            except Flood:
                outcomes.append('flood')

    threads = [threading.Thread(target=answers, args=(make_rooms(),)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert outcomes.count('ok') == MAX_CHANGES and outcomes.count('flood') == 50 - MAX_CHANGES


def test_the_process_forgets_a_long_ended_room_and_every_key_it_held(clock):
    rooms = Rooms(MemoryBackend(), clock=clock)
    room, left = rooms.create(SCENARIO), rooms.create(SCENARIO)  # one closed, one left open and never read again
    for code in (room.code, left.code):
        rooms.send_bodies(code, rooms.join(code), {'tanh': 'pass'}, 'right')
    rooms.close(room.code, room.secret)
    clock.now += rooms_module.ENDED_KEEP_S  # the last day: still told it ended
    with pytest.raises(RoomEnded):
        rooms.state(room.code)
    clock.now += 1
    with pytest.raises(RoomNotFound):
        rooms.state(room.code)
    clock.now += rooms_module.IDLE_S + 60
    rooms.create(SCENARIO)  # a rule run a minute or more after the last sweeps out what has expired, read or not
    assert not [key for key in rooms.backend.store.data if room.code in key or left.code in key]


def test_a_rule_beaten_by_another_replicas_write_runs_again_from_its_reads():
    server = fakeredis.FakeServer()
    mine, other = (fakeredis.FakeRedis(server=server, decode_responses=True) for _ in range(2))
    store, runs = RedisStore(mine), []

    def increment(tx):
        (count,) = tx.read(('hget', 'h', 'n'))
        runs.append(count)
        if len(runs) == 1:
            other.hset('h', 'n', 10)  # another replica writes between this rule's reads and its EXEC
        tx.hset('h', mapping={'n': int(count or 0) + 1})
        return 'ok'

    assert store.run(increment, ('h',)) == 'ok'
    assert runs == [None, '10'] and mine.hget('h', 'n') == '11' and (store.tries, store.retries) == (2, 1)


@pytest.mark.parametrize('rate, held', [('5000', 5000), (' 40 ', 40), ('0', 100), ('1e4', 100), ('1000001', 100),
                                        ('', 100), ('many', 100)])  # fmt: skip
def test_a_hall_behind_one_address_can_join_faster_and_a_setting_it_cannot_read_is_the_default(monkeypatch, rate, held):
    monkeypatch.delenv(rooms_module.ENV, raising=False)
    monkeypatch.setenv('BACKPROP_JOINS_PER_MINUTE', rate)
    assert open_rooms().joins == held and rooms_module.JOINS_PER_WINDOW == 100


def test_a_step_is_the_lecturers_page_heard_once_it_has_been_and_a_room_never_heard_gets_no_deadline(rooms, clock):
    room = rooms.create(SCENARIO)
    clock.now += 1000
    assert rooms.step(room.code, room.secret, SCENARIO, 1).heard is None and rooms.state(room.code).heard is None
    rooms.touch(room.code, room.secret)  # the projector's panel
    touched = clock.now
    clock.now += 200
    assert rooms.state(room.code).heard == touched
    assert rooms.step(room.code, room.secret, SCENARIO, 2).heard == clock.now  # its player posted a step
    clock.now += GONE_S - 1  # five minutes after the step, not after the touch
    assert rooms.state(room.code).frame == 2
    clock.now += 1
    with pytest.raises(RoomEnded, match='the lecturer’s page was closed'):
        rooms.state(room.code)


# --- learning together: points handed out, grads reported per batch ------------------------------------------------
BATCH = {'expr': 'regression', 'mode': 'batch', 'together': '1', 'v.w': '0.5', 'v.b': '0'}


def test_phones_are_handed_places_in_the_order_they_ask_and_keep_their_own(make_rooms):
    one, other = make_rooms(), make_rooms()  # two replicas
    lecturer = one.create(BATCH)
    phones = [one.join(lecturer.code) for _ in range(3)]
    assert [other.point_of(lecturer.code, p) for p in phones] == [0, 1, 2]
    assert one.point_of(lecturer.code, phones[1]) == 1
    assert one.phones(lecturer.code) == 3


def test_a_point_reported_twice_or_by_two_phones_counts_once(make_rooms):
    one, other = make_rooms(), make_rooms()
    lecturer = one.create(BATCH)
    a, b = one.join(lecturer.code), one.join(lecturer.code)
    one.report(lecturer.code, a, BATCH, 3, {'w': -1.5, 'b': 0.5}, loss=0.25)
    other.report(lecturer.code, a, BATCH, 3, {'w': -1.5, 'b': 0.5}, loss=0.25)
    other.report(lecturer.code, b, BATCH, 3, {'w': -1.5, 'b': 0.5}, loss=0.25)
    one.report(lecturer.code, b, BATCH, 4, {'w': 2.0, 'b': 1.0}, loss=1.0)
    got, phones = other.reports(lecturer.code, lecturer.secret)
    assert got == {3: {'grads': {'w': -1.5, 'b': 0.5}, 'loss': 0.25}, 4: {'grads': {'w': 2.0, 'b': 1.0}, 'loss': 1.0}}
    assert phones == 2


def test_a_step_starts_a_new_batch_and_a_report_for_the_last_is_refused(rooms):
    lecturer = rooms.create(BATCH)
    phone = rooms.join(lecturer.code)
    rooms.report(lecturer.code, phone, BATCH, 0, {'w': 1.0, 'b': 1.0}, loss=1.0)
    rooms.step(lecturer.code, lecturer.secret, {**BATCH, 'hide': 'all'}, frame=5)  # a look changes no batch
    assert list(rooms.reports(lecturer.code, lecturer.secret)[0]) == [0]
    stepped = {**BATCH, 'v.w': '0.6'}
    rooms.step(lecturer.code, lecturer.secret, stepped, frame=0)
    assert rooms.reports(lecturer.code, lecturer.secret) == ({}, 0)
    with pytest.raises(QuestionClosed, match='does not show the class’s batch'):
        rooms.report(lecturer.code, phone, BATCH, 1, {'w': 1.0, 'b': 1.0}, loss=1.0)
    rooms.report(lecturer.code, phone, stepped, 1, {'w': 2.0, 'b': 2.0}, loss=2.0)
    assert list(rooms.reports(lecturer.code, lecturer.secret)[0]) == [1]


@pytest.mark.parametrize(
    ('point', 'grads', 'loss'),
    [(-1, {'w': 1.0}, 1.0), (True, {'w': 1.0}, 1.0), (0, {}, 1.0), (0, {'w': float('nan')}, 1.0),
     (0, {'w': 1.0}, float('inf')), (0, {'w': '1'}, 1.0), (0, {f'p{k}': 1.0 for k in range(65)}, 1.0)],
)  # fmt: skip
def test_a_report_the_room_cannot_hold_is_refused(rooms, point, grads, loss):
    lecturer = rooms.create(BATCH)
    phone = rooms.join(lecturer.code)
    with pytest.raises(BadState):
        rooms.report(lecturer.code, phone, BATCH, point, grads, loss)
    assert rooms.reports(lecturer.code, lecturer.secret) == ({}, 0)


def test_only_a_phone_in_the_room_reports_and_only_the_lecturer_reads(rooms, clock):
    lecturer = rooms.create(BATCH)
    phone = rooms.join(lecturer.code)
    with pytest.raises(NotInRoom):
        rooms.report(lecturer.code, 'x' * 16 + '.' + 'y' * 22, BATCH, 0, {'w': 1.0}, 1.0)
    with pytest.raises(NotLecturer):
        rooms.reports(lecturer.code, 'not the secret')
    clock.now += PRESENT_S + 1  # gone from the room
    with pytest.raises(NotInRoom):
        rooms.report(lecturer.code, phone, BATCH, 0, {'w': 1.0}, 1.0)


def test_a_phone_reporting_past_its_most_in_one_batch_is_refused(rooms):
    lecturer = rooms.create(BATCH)
    phone = rooms.join(lecturer.code)
    for _ in range(MAX_CHANGES):
        rooms.report(lecturer.code, phone, BATCH, 0, {'w': 1.0}, 1.0)
    with pytest.raises(Flood):
        rooms.report(lecturer.code, phone, BATCH, 0, {'w': 1.0}, 1.0)


def test_a_closed_room_forgets_its_points_and_grads(make_rooms):
    rooms = make_rooms()
    lecturer = rooms.create(BATCH)
    phone = rooms.join(lecturer.code)
    rooms.point_of(lecturer.code, phone)
    rooms.report(lecturer.code, phone, BATCH, 0, {'w': 1.0}, 1.0)
    rooms.close(lecturer.code, lecturer.secret)
    assert not any(k.endswith((':grads', ':points', ':grads:changes')) for k in dump(rooms.backend))
    with pytest.raises(RoomEnded):
        rooms.point_of(lecturer.code, phone)


def summed_loss(expression, params, points):
    return sum(expression.build({**params, **p})[1].data for p in points)


def test_the_rooms_sum_over_any_points_that_arrived_is_the_gradient_of_their_summed_loss(make_rooms):
    # phones on two replicas report points of the tiny MLP's example; whatever subset arrived, the room's sums are
    # the gradient of that subset's summed loss by central finite differences, and the step is plain Python's
    import random

    from engine import PRESETS, batch

    mlp = PRESETS['mlp']
    data = batch.example(mlp)
    params = {name: mlp.defaults[name] for name in mlp.params}
    replicas = [make_rooms(), make_rooms()]
    lecturer = replicas[0].create({**BATCH, 'expr': 'mlp'})
    chosen = random.Random(43).sample(range(len(data)), 7)
    for k, point in enumerate(chosen):
        rooms = replicas[k % 2]
        phone = rooms.join(lecturer.code)
        share = batch.point_grads(mlp, params, data.point(point))
        rooms.report(lecturer.code, phone, {**BATCH, 'expr': 'mlp'}, point, share.grads, share.loss)
    shares, phones = replicas[1].reports(lecturer.code, lecturer.secret)
    assert sorted(shares) == sorted(chosen) and phones == len(chosen)
    sums = batch.sums_of(shares, mlp.params)
    points = [data.point(k) for k in chosen]
    h = 1e-5
    for name in mlp.params:
        up, down = {**params, name: params[name] + h}, {**params, name: params[name] - h}
        numeric = (summed_loss(mlp, up, points) - summed_loss(mlp, down, points)) / (2 * h)
        assert sums[name] == pytest.approx(numeric, rel=1e-6, abs=1e-9), name
    stepped = batch.step_on(params, sums, len(chosen), lr=0.1)
    for name in mlp.params:
        assert stepped[name] == params[name] - 0.1 * (sums[name] / len(chosen))


def test_a_dataset_too_long_for_a_link_is_kept_with_the_class_for_every_replica(make_rooms):
    one, other = make_rooms(), make_rooms()
    lecturer = one.create(BATCH)
    assert other.data(lecturer.code) == ''
    text = 'x,y\n' + '\n'.join(f'{k}.123456789,{k}.987654321' for k in range(200))
    one.keep_data(lecturer.code, lecturer.secret, text)
    assert other.data(lecturer.code) == text
    with pytest.raises(NotLecturer):
        other.keep_data(lecturer.code, 'not the secret', 'x,y\n1,2')
    with pytest.raises(BadState, match='100 kB'):
        one.keep_data(lecturer.code, lecturer.secret, 'x' * 100_001)
    one.close(lecturer.code, lecturer.secret)
    with pytest.raises(RoomEnded):
        other.data(lecturer.code)
