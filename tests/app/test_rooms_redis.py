"""The rooms' tests (tests/unit/test_rooms.py) again, every one, on a real Redis: Debian's redis-server on a free local
port, run as deploy/ runs it (deploy/redis.conf), in a temporary folder, started once for this module and stopped
after it; each test gets an empty database and, at each `make_rooms()`, its own client, as each replica has. And a
room outlives Redis restarted mid-question, as deploy/ persists it."""

import contextlib
import signal
import time

import pytest
import redis
from test_rooms import *  # noqa: F403 (every test of the in-process store, collected here again with Redis below)
from test_rooms import SCENARIO

from server import rooms as rooms_module
from server.rooms import RedisBackend, Rooms, StoreDown, open_rooms, unsigned
from tests.support.replicas import serve_redis
from tests.support.serve import ServerError, free_port


@pytest.fixture(scope='module')
def redis_url():
    try:
        with serve_redis() as url:
            yield url
    except ServerError as e:
        pytest.fail(str(e), pytrace=False)  # never skip: tests/run.sh installs redis-server


@pytest.fixture
def make_rooms(redis_url, clock):
    """Rooms on one Redis, each call a new client, as another replica's."""
    redis.Redis.from_url(redis_url).flushdb()
    return lambda **options: Rooms(RedisBackend(redis_url), clock=clock, **options)


def test_the_redis_url_in_the_environment_puts_the_rooms_in_redis(redis_url, monkeypatch):
    redis.Redis.from_url(redis_url).flushdb()
    monkeypatch.setenv(rooms_module.ENV, redis_url)
    first, second = open_rooms(), open_rooms()
    assert isinstance(first.backend, RedisBackend)
    room = first.create(SCENARIO)
    first.step(room.code, room.secret, SCENARIO, 3)
    assert second.state(room.code).frame == 3


def test_redis_forgets_an_ended_room_by_itself(make_rooms, redis_url):
    rooms = make_rooms(idle=1, ended_keep=1)
    room = rooms.create(SCENARIO)
    ana = rooms.join(room.code)
    rooms.ask(room.code, room.secret, 0, [{'node': 'a', 'label': 'a', 'candidates': [['right', 1.0]]}])
    rooms.answer(room.code, ana, 1, {'a': '1'})
    rooms.send_bodies(room.code, ana, {'tanh': 'pass'}, 'right')
    client = redis.Redis.from_url(redis_url)
    keys = {k.decode() for k in client.keys(f'backprop:room:{room.code}*')}
    own = ['present', 'answers', 'answers:changes', 'bodies', 'bodies:changes']
    assert keys == {f'backprop:room:{room.code}', *(f'backprop:room:{room.code}:{name}' for name in own)}
    assert all(0 < client.ttl(k) <= 3 for k in keys)
    rooms.close(room.code, room.secret)
    assert {k.decode() for k in client.keys(f'backprop:room:{room.code}*')} == {f'backprop:room:{room.code}'}


def test_a_redis_that_cannot_be_reached_is_a_sentence_not_a_traceback():
    rooms = Rooms(RedisBackend(f'redis://127.0.0.1:{free_port()}/0'))  # nothing listens there
    for ask in (lambda: rooms.state('ABCDE'), lambda: rooms.create(SCENARIO), lambda: rooms.students('ABCDE')):
        with pytest.raises(StoreDown, match='The class cannot be reached just now: try again in a moment.'):
            ask()


# the candidates are the test's own numbers (the room keeps what it is given): right 6, forgot 3
ASKED = [{'node': 'a', 'label': 'a.grad', 'candidates': [['right', 6.0], ['forgot', 3.0]]}]


@pytest.mark.parametrize('stop', [signal.SIGKILL, signal.SIGTERM], ids=['killed', 'stopped'])
def test_a_room_its_question_and_its_answers_outlive_redis_restarted_mid_question(clock, stop):
    with redis_of_its_own() as url:
        rooms, other = Rooms(RedisBackend(url), clock=clock), Rooms(RedisBackend(url), clock=clock)
        heard = []
        rooms.listen(heard.append)  # this replica's subscription to the rooms' changes
        room = rooms.create(SCENARIO)
        ana, bo = rooms.join(room.code), other.join(room.code)
        rooms.step(room.code, room.secret, SCENARIO, 4)
        rooms.ask(room.code, room.secret, 6, ASKED)
        rooms.answer(room.code, ana, 1, {'a': '6'})
        other.answer(room.code, bo, 1, {'a': '3'})
        before = rooms.state(room.code), rooms.answers(room.code, room.secret), rooms.record(room.code, room.secret)
        url.server.restart(stop)  # mid-question: a crash (nothing said to anyone), or a stop and start
        assert other.state(room.code) == before[0]  # the class's frame and question, on another replica too
        assert rooms.answers(room.code, room.secret) == before[1] and rooms.record(room.code, room.secret) == before[2]
        assert rooms.students(room.code) == 2
        other.answer(room.code, bo, 1, {'a': '6'})  # bo changes their answer: counted once, the latest
        rooms.reveal(room.code, room.secret)
        assert rooms.answers(room.code, room.secret)[1] == {unsigned(ana): {'a': 6.0}, unsigned(bo): {'a': 6.0}}
        assert [a['group'] for a in other.verdict(room.code, bo)['asked']] == ['right']
        for _ in range(200):  # the subscription is made again, and says changes may have been missed
            if None in heard:
                break
            time.sleep(0.05)
        assert None in heard


@contextlib.contextmanager
def redis_of_its_own():
    """A redis-server for one test, which it may restart."""
    try:
        with serve_redis() as url:
            yield url
    except ServerError as e:
        pytest.fail(str(e), pytrace=False)
