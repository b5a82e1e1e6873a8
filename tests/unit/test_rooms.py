"""A live class's rooms (server/rooms.py), in the process's memory: create, join, follow, step, close, an idle hour,
and every refusal. tests/app/test_rooms_redis.py runs these same tests against a real redis-server, its `make_rooms`
fixture handing out Rooms on one Redis as two replicas would hold them."""

import threading

import pytest

from server import rooms as rooms_module
from server.rooms import (
    ALPHABET,
    CODE_LENGTH,
    BadState,
    MemoryBackend,
    NotLecturer,
    RoomEnded,
    RoomError,
    RoomFull,
    RoomNotFound,
    Rooms,
    TooManyRooms,
    normal_code,
    open_rooms,
)

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


@pytest.fixture
def make_rooms(clock):
    """Rooms over one store: each call is another server's view of it (here, one MemoryBackend)."""
    backend = MemoryBackend()
    return lambda **options: Rooms(backend, clock=clock, **options)


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
        return backend.rooms
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


def test_a_room_ends_after_an_idle_hour_unless_its_lecturer_steps_or_touches(rooms, clock):
    room = rooms.create(SCENARIO)
    clock.now += 3599
    rooms.step(room.code, room.secret, SCENARIO, 1)
    clock.now += 3599
    rooms.touch(room.code, room.secret)
    clock.now += 3599
    rooms.join(room.code)  # students alone keep no room open
    assert rooms.state(room.code).version == 2
    clock.now += 1
    with pytest.raises(RoomEnded, match='it was idle for an hour') as raised:
        rooms.state(room.code)
    assert raised.value.reason == 'idle'
    with pytest.raises(RoomEnded):
        rooms.touch(room.code, room.secret)


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
    for error in (RoomNotFound, NotLecturer, RoomFull, TooManyRooms, BadState):
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
