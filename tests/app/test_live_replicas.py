"""A live class across two replicas of `streamlit run main.py` behind Debian's haproxy, run with deploy/haproxy.cfg, the
rooms in one redis-server (tests/support/replicas.py starts the three): students follow the class's server-sent events
(?student=ID, as a phone's page does) through haproxy with no cookie and land on both replicas; each step reaches
every one of them, whichever replica took it; and when a replica is killed mid-lesson, its students reconnect
through haproxy to the other as the browser's EventSource does (Last-Event-ID), land on the class's current frame,
are counted present once, and the next step reaches them all. A question is open across the kill: the students'
answers, posted through haproxy before it and after it (again, changed, or cut in flight by it), are each counted
once, the latest, and none is lost; after the reveal each phone reads its own verdict through haproxy.

The students are tests/support/follow.py's Followers (asyncio streams). No timing is asserted: every wait is a failure
guard of WAIT_S."""

import asyncio
import json
import os
import signal
from dataclasses import dataclass

import pytest

from server.rooms import ENV, RedisBackend, Rooms, unsigned
from tests.support.follow import Follower, get_verdict, post_answer, post_step
from tests.support.replicas import LIVE_BACKEND, serve_redis, serve_replicas
from tests.support.serve import ServerError, healthy

SCENARIO = {'expr': 'reuse', 'v.a': '3'}
STUDENTS = 8
WAIT_S = 60  # a guard against a hang, never a measurement


@pytest.fixture
def live_replicas():
    """(the Redis URL, {name: replica Url}, the Balancer, haproxy's URL): two replicas sharing one Redis."""
    try:
        with serve_redis() as redis_url, serve_replicas(2, env={ENV: redis_url}) as (served, balancer, url):
            yield redis_url, served, balancer, url
    except ServerError as e:
        pytest.fail(str(e), pytrace=False)  # never skip: tests/run.sh installs haproxy and redis-server


def port_of(url):
    return int(url.rsplit(':', 1)[1])


async def all_hold(students, version, **more):
    await asyncio.gather(*(student.wait_for(version, timeout=WAIT_S, **more) for student in students))


async def replicas_of(balancer, students, connection):
    """The replica that took each student's `connection`th connection, from haproxy's log (its client port)."""
    ports = [student.connections[connection - 1] for student in students]
    for _ in range(WAIT_S * 10):  # the log line is written as the answer starts: at once, or a moment after
        served = {r.client_port: r.server for r in balancer.requests() if r.backend == LIVE_BACKEND}
        if all(port in served for port in ports):
            return [served[port] for port in ports]
        await asyncio.sleep(0.1)
    raise AssertionError(f'haproxy logged no replica for some of {ports}:\n{balancer.log.read_text()}')


def seen(state):
    """What a student's phone shows of the class: (version, scenario, frame)."""
    return state['version'], state['scenario'], state['frame']


async def step(port, lecturer, frame, students):
    """The lecturer's step to `frame`, posted at `port` (haproxy's or a replica's); every student holds it after."""
    status, body, _ = await post_step('127.0.0.1', port, lecturer.code, lecturer.secret, SCENARIO, frame)
    assert status == 200, body
    await all_hold(students, body['version'])
    assert {student.name: seen(student.state) for student in students} == {
        student.name: (body['version'], SCENARIO, frame) for student in students
    }
    return body['version']


# The question: the grads a*b's _backward writes in reuse (out = a*b + a*a, a = 3, b = -2), its candidates worked
# out by hand as engine/answers.py does. Backward runs out, then a*a (a.grad = 2a = 6), then a*b, which adds b = -2
# to a.grad and a = 3 to b.grad: a.grad is 6 - 2 = 4 (swapped: 6 + a = 9; `=` for `+=`: -2 alone; the sign
# slipped: 6 + 2 = 8), b.grad is 3 (swapped: b = -2; sign: -3; `=` and forgetting out.grad = 1 both give 3, right).
ASKED_FRAME = 7  # a*b's backward step in reuse's frames (inputs, 3 forward, seed, out, a*a, a*b, ...)
ASKED = [
    {'node': '0', 'label': 'a.grad', 'candidates': [['right', 4.0], ['swapped', 9.0], ['assign', -2.0], ['sign', 8.0]]},
    {'node': '1', 'label': 'b.grad', 'candidates': [['right', 3.0], ['swapped', -2.0], ['sign', -3.0]]},
]


@dataclass(frozen=True)
class Answer:
    """An answer as a phone's keyboard types it (a comma for a point, the page's own minus sign, spaces), what the
    room keeps of it, and the groups the verdict reads its two grads as."""

    typed: dict
    kept: dict
    groups: tuple


RIGHT = Answer({'0': '4', '1': '3'}, {'0': 4.0, '1': 3.0}, ('right', 'right'))
SWAPPED = Answer({'0': ' 9 ', '1': '\u22122'}, {'0': 9.0, '1': -2.0}, ('swapped', 'swapped'))
ASSIGN = Answer({'0': '-2,0', '1': ''}, {'0': -2.0}, ('assign', 'blank'))
SIGN = Answer({'0': '8.0', '1': '-3'}, {'0': 8.0, '1': -3.0}, ('sign', 'sign'))
OTHER = Answer({'0': '5.5', '1': '3e0'}, {'0': 5.5, '1': 3.0}, ('other', 'right'))
NONE = Answer({}, {}, ('blank', 'blank'))  # a student who never answered, as their verdict reads them


@dataclass(frozen=True)
class Role:
    """What one student sends: answers before the kill, answers after it, and the answer their phone had in flight
    on the dying replica when it died (cut: never taken, sent again after)."""

    says: str
    before: tuple = ()
    after: tuple = ()
    cut: Answer | None = None

    @property
    def last(self):
        """The answer the room must keep: the last sent (NONE if none was)."""
        return (*self.before, *self.after)[-1] if self.before or self.after else NONE


ROLES = [
    Role('answered before the kill', before=(RIGHT,)),
    Role('answered before, sent it again after (its answer lost, as the phone saw it)', (SWAPPED,), (SWAPPED,)),
    Role('in flight on the dying replica, sent again after', after=(SIGN,), cut=SIGN),
    Role('answered before, changed it after', (OTHER,), (RIGHT,)),
    Role('answered after the kill alone', after=(ASSIGN,)),
    Role('changed it before the kill, sent the last again after', (ASSIGN, SIGN), (SIGN,)),
    Role('answered before, changed it after, then sent that again', (RIGHT,), (OTHER, OTHER)),
    Role('never answered'),
]


async def send(port, code, student, question, answer):
    """A phone's answer through haproxy, sent again as a phone does while the answer is a gateway's refusal (502,
    503: no replica took it) or the connection failed; it must come back 200 with what the room keeps."""
    for _ in range(WAIT_S * 2):
        try:
            status, body, _ = await post_answer('127.0.0.1', port, code, student.student, question, answer.typed)
        except (OSError, ConnectionError, asyncio.IncompleteReadError) as e:
            status, body = None, repr(e)
        if status not in (None, 502, 503, 504):
            break
        await asyncio.sleep(0.5)
    assert (status, body) == (200, {'answers': answer.kept}), (student.name, answer.typed, status, body)


async def in_flight(port, code, student, question, answer):
    """A phone's answer on its way to the replica at `port` when that replica dies: the head sent and half of the
    body, the rest never (so the replica cannot have taken it). The open connection (reader, writer)."""
    reader, writer = await asyncio.open_connection('127.0.0.1', port)
    body = json.dumps({'student': student.student, 'question': question, 'answers': answer.typed}).encode()
    head = (f'POST /api/class/{code}/answer HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n'
            f'Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n')  # fmt: skip
    writer.write(head.encode() + body[: len(body) // 2])
    await writer.drain()
    return reader, writer


def in_turn(gone, kept):
    """The students alternately from the two replicas (the one about to die first), so that each replica's
    students take roles in turn."""
    turns = [s for pair in zip(gone, kept) for s in pair]
    longer = gone if len(gone) > len(kept) else kept
    return turns + longer[min(len(gone), len(kept)) :]


async def answers_counted_once_across_the_kill(rooms, lecturer, students, port, gone, kept, dying_port, kill):
    """The lecturer asks the room (Rooms.ask, as the page does, from Python) and every phone shows the question, with
    no candidates; students answer through haproxy, whichever replica they follow on; `kill()` kills a replica (and
    checks its students reconnected) while the question is open, one phone's answer in flight on it; then the rest
    answer, some again, some changed. The room keeps exactly one answer per student who answered, their latest, none
    lost; after the reveal each phone reads its verdict through haproxy, each grad in its group; an answer after the
    reveal is refused and changes nothing."""
    code, secret = lecturer.code, lecturer.secret
    state = rooms.ask(code, secret, frame=ASKED_FRAME, asked=ASKED)
    question = state.question['id']
    await all_hold(students, state.version)
    shown = {'id': question, 'frame': ASKED_FRAME, 'revealed': False,
             'asked': [{'node': '0', 'label': 'a.grad'}, {'node': '1', 'label': 'b.grad'}]}  # fmt: skip
    assert [student.state['question'] for student in students] == [shown] * len(students)

    roles = dict(zip(in_turn(gone, kept), ROLES))
    assert len(roles) == len(students) == len(ROLES)
    for student, role in roles.items():
        for answer in role.before:
            await send(port, code, student, question, answer)
    cut = [(s, await in_flight(dying_port, code, s, question, role.cut)) for s, role in roles.items() if role.cut]
    before = {unsigned(s.student): role.before[-1].kept for s, role in roles.items() if role.before}
    assert rooms.answers(code, secret)[1] == before

    await kill()
    for student, (reader, writer) in cut:  # the replica died with the request half sent: no answer came
        try:
            said = await asyncio.wait_for(reader.read(), WAIT_S)
        except (ConnectionError, OSError):
            said = b''
        writer.close()
        assert said == b'', (student.name, said)
    for student in gone:  # a reconnected phone is shown the open question again, in the class's first event
        assert student.heard_on(2)[0]['question'] == shown, student.name
    held, answers = rooms.answers(code, secret)
    assert (held['id'], held['revealed'], held['asked'], answers) == (question, False, ASKED, before)  # none lost

    for student, role in roles.items():
        for answer in role.after:
            await send(port, code, student, question, answer)
    latest = {unsigned(s.student): role.last.kept for s, role in roles.items() if role.before or role.after}
    assert rooms.answers(code, secret)[1] == latest  # one a student who answered, their latest

    state = rooms.reveal(code, secret)
    await all_hold(students, state.version)
    revealed = {**shown, 'revealed': True, 'asked': [{**shown['asked'][0], 'right': 4.0},
                                                     {**shown['asked'][1], 'right': 3.0}]}  # fmt: skip
    assert [student.state['question'] for student in students] == [revealed] * len(students)
    for student, role in roles.items():
        status, verdict, _ = await get_verdict('127.0.0.1', port, code, student.student)
        assert status == 200, (student.name, verdict)
        got = [(a['node'], a['answer'], a['group'], a['right']) for a in verdict['asked']]
        last = role.last
        assert (verdict['question'], got) == (question, [
            ('0', last.kept.get('0'), last.groups[0], 4.0), ('1', last.kept.get('1'), last.groups[1], 3.0)
        ]), (student.name, role.says)  # fmt: skip
    status, body, _ = await post_answer('127.0.0.1', port, code, students[0].student, question, RIGHT.typed)
    assert status == 409 and 'revealed' in body['error'], (status, body)
    assert rooms.answers(code, secret)[1] == latest


async def lesson(rooms, lecturer, served, balancer, url):
    port = port_of(url)
    students = [Follower('127.0.0.1', port, lecturer.code, join=True, name=f'student {i}')
                for i in range(STUDENTS)]  # fmt: skip
    tasks = [asyncio.create_task(student.run()) for student in students]
    try:
        await all_hold(students, 1)
        assert all(student.heard_on(1)[0]['frame'] == 0 for student in students)
        assert rooms.students(lecturer.code) == STUDENTS  # each stream joined its student (?student=ID)
        on = await replicas_of(balancer, students, 1)
        assert sorted(set(on)) == sorted(served), on  # no cookie: haproxy spreads them on both
        assert 'student=' not in balancer.log.read_text()  # the streams' signed ids are in no log

        # a step through haproxy, then one taken on each replica: each reaches the other replica's students too
        version = await step(port, lecturer, 1, students)
        version = await step(port_of(served['app1']), lecturer, 2, students)
        version = await step(port_of(served['app2']), lecturer, 3, students)
        status, _, _ = await post_step('127.0.0.1', port, lecturer.code, 'not the secret', SCENARIO, 9)
        assert status == 403

        dead = on[0]
        survivor = next(name for name in served if name != dead)
        gone = [student for student, replica in zip(students, on) if replica == dead]
        kept = [student for student, replica in zip(students, on) if replica == survivor]

        async def kill():
            version = rooms.state(lecturer.code).version  # the open question's
            os.kill(served[dead].pid, signal.SIGKILL)  # a crash mid-lesson: no goodbye to the open streams
            await asyncio.gather(*(student.wait_for(dropped=1, connection=2, timeout=WAIT_S) for student in gone))
            assert not healthy(served[dead])
            for student in gone:  # back through haproxy, with the last event's id, on the class's current frame
                assert student.last_id == str(version)
                assert seen(student.heard_on(2)[0]) == (version, SCENARIO, 3)
            assert await replicas_of(balancer, gone, 2) == [survivor] * len(gone)
            assert [(student.drops, len(student.connections)) for student in kept] == [(0, 1)] * len(kept)
            assert rooms.students(lecturer.code) == STUDENTS  # each present once: joined again on the survivor

        dying = port_of(served[dead])
        await answers_counted_once_across_the_kill(rooms, lecturer, students, port, gone, kept, dying, kill)
        version = await step(port, lecturer, 4, students)  # through haproxy, to the survivor: everyone hears it
        assert rooms.state(lecturer.code).version == version
        assert [student.failed or student.ended for student in students] == [None] * STUDENTS
    except (AssertionError, TimeoutError) as e:  # what each student went through, and what haproxy logged
        said = '\n'.join(student.summary() for student in students)
        raise AssertionError(f'{e!r}\n{said}\nhaproxy:\n{balancer.log.read_text()[-6000:]}') from e
    finally:
        for student in students:
            await student.close()
        await asyncio.gather(*tasks, return_exceptions=True)


def test_a_class_across_two_replicas_reaches_every_student_and_survives_a_replica_killed_mid_lesson(live_replicas):
    redis_url, served, balancer, url = live_replicas
    rooms = Rooms(RedisBackend(redis_url))  # as a lecturer's page on a third replica would: the room is in Redis
    lecturer = rooms.create(SCENARIO, frame=0)
    asyncio.run(lesson(rooms, lecturer, served, balancer, url))
