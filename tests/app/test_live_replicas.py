"""A live class across two replicas of `streamlit run main.py` behind Debian's haproxy, run with deploy/haproxy.cfg, the
rooms in one redis-server (bench/replicas.py starts the three): students follow the class's server-sent events
(?student=ID, as a phone's page does) through haproxy with no cookie and land on both replicas; each step reaches
every one of them, whichever replica took it; and when a replica is killed mid-lesson, its students reconnect
through haproxy to the other as the browser's EventSource does (Last-Event-ID), land on the class's current frame,
are counted present once, and the next step reaches them all.

The students are bench/follow.py's Followers (raw asyncio streams). No timing is asserted: every wait is a failure
guard of WAIT_S."""

import asyncio
import os
import signal

import pytest

from bench.follow import Follower, post_step
from bench.replicas import LIVE_BACKEND, serve_redis, serve_replicas
from bench.serve import ServerError, healthy
from server.rooms import ENV, RedisBackend, Rooms

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


async def answers_counted_once_across_the_kill(rooms, lecturer, students, port):
    # answers: counted once across the kill — added when POST /answer lands
    """To fill in now that the room's questions are on main (Rooms.ask(code, secret, frame, asked), POST
    /api/class/{code}/answer {'student', 'question', 'answers'}): the lecturer asks before the kill, every student
    answers through haproxy (half of them on the replica about to die), the reconnected ones post their answer again
    as a phone resends it, and rooms.answers(code, secret) holds each student once."""
    return None


async def lesson(rooms, lecturer, served, balancer, url):
    port = port_of(url)
    students = [Follower('127.0.0.1', port, lecturer.code, student=f'student-{i:04d}', name=f'student {i}')
                for i in range(STUDENTS)]  # fmt: skip
    tasks = [asyncio.create_task(student.run()) for student in students]
    try:
        await all_hold(students, 1)
        assert all(student.heard_on(1)[0]['frame'] == 0 for student in students)
        assert rooms.students(lecturer.code) == STUDENTS  # each stream joined its student (?student=ID)
        on = await replicas_of(balancer, students, 1)
        assert sorted(set(on)) == sorted(served), on  # no cookie: haproxy spreads them on both

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
        os.kill(served[dead].pid, signal.SIGKILL)  # a crash mid-lesson: no goodbye to the open streams
        await asyncio.gather(*(student.wait_for(dropped=1, connection=2, timeout=WAIT_S) for student in gone))
        assert not healthy(served[dead])
        for student in gone:  # back through haproxy, with the last event's id, on the class's current frame
            assert student.last_id == str(version)
            assert seen(student.heard_on(2)[0]) == (version, SCENARIO, 3)
        assert await replicas_of(balancer, gone, 2) == [survivor] * len(gone)
        assert [(student.drops, len(student.connections)) for student in kept] == [(0, 1)] * len(kept)
        assert rooms.students(lecturer.code) == STUDENTS  # each present once: joined again on the survivor

        await answers_counted_once_across_the_kill(rooms, lecturer, students, port)
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
