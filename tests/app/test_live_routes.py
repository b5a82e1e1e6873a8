"""The live class's routes (server/live.py), called as the server calls them (ASGI, in an event loop; Starlette's
TestClient needs httpx, which this project does not install): the events' first state at once, a student's stream
joining and leaving the room, the lecturer's step with the right secret and a wrong one, a student's answer and
verdict, and the routes' path under Streamlit's base path."""

import asyncio
import json
import logging

import pytest
import streamlit
from starlette.applications import Starlette
from starlette.requests import Request

from engine import chain, trace_backward
from engine.answers import GROUPS
from engine.frames import frames
from server import live as live_module
from server import rooms as rooms_module
from server.live import SECRET_HEADER, Live, api_path, base_path, client_address
from server.rooms import STUDENT, MemoryBackend, RedisBackend, Rooms, StoreDown, unsigned
from state import MAX_CHAIN

SCENARIO = {'expr': 'reuse', 'v.a': '3'}
# hand-written: a's grad is 6, forgetting the reuse gives 3
ASKED = [{'node': 'a', 'label': 'a.grad', 'candidates': [['right', 6.0], ['forgot', 3.0]]}]
ANA = 'ANA-SIGNED-ID'  # in a request's template: the signed id the room minted for ana (the `asked` fixture's)


class Response:
    def __init__(self, status_code, headers, body):
        self.status_code, self.headers, self.body = status_code, headers, body

    def json(self):
        return json.loads(self.body)


class Client:
    """Requests to an ASGI app; a stream's body is read up to its first event, then the client disconnects."""

    def __init__(self, app):
        self.app = app

    def request(self, method, path, body=b'', headers=None):
        return asyncio.run(self._request(method, path, body, headers or {}))

    def get(self, path):
        return self.request('GET', path)

    def post(self, path, json=None, content=None, headers=None):
        body = content if content is not None else globals()['json'].dumps(json).encode()
        return self.request('POST', path, body, {'content-type': 'application/json', **(headers or {})})

    async def _request(self, method, path, body, headers):
        scope = http_scope(method, path, headers)
        sent, done = [], asyncio.Event()
        got = {'status': None, 'headers': {}, 'body': b''}
        messages = [{'type': 'http.request', 'body': body, 'more_body': False}]

        async def receive():
            if messages:
                return messages.pop(0)
            await done.wait()
            return {'type': 'http.disconnect'}

        async def send(message):
            sent.append(message)
            if message['type'] == 'http.response.start':
                got['status'] = message['status']
                got['headers'] = {k.decode(): v.decode() for k, v in message['headers']}
            elif message['type'] == 'http.response.body':
                got['body'] += message.get('body', b'')
                streaming = got['headers'].get('content-type', '').startswith('text/event-stream')
                if not message.get('more_body') or (streaming and b'\n\n' in got['body']):
                    done.set()

        task = asyncio.create_task(self.app(scope, receive, send))
        await asyncio.wait_for(done.wait(), 5)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        return Response(got['status'], got['headers'], got['body'].decode())


def http_scope(method, path, headers=None):
    path, _, query = path.partition('?')
    return {
        'type': 'http', 'asgi': {'version': '3.0'}, 'http_version': '1.1', 'method': method, 'scheme': 'http',
        'path': path, 'raw_path': path.encode(), 'query_string': query.encode(), 'root_path': '',
        'headers': [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        'client': ('127.0.0.1', 1), 'server': ('127.0.0.1', 80),
    }  # fmt: skip


class Stream:
    """An event stream held open, in the running event loop: `await stream.until(test)` waits for its body to pass
    `test`; `await stream.close()` is the phone going away."""

    def __init__(self, app, path):
        self.body, self.gone, self.grew = '', asyncio.Event(), asyncio.Event()
        self.messages = [{'type': 'http.request', 'body': b'', 'more_body': False}]
        self.task = asyncio.create_task(app(http_scope('GET', path), self.receive, self.send))

    async def receive(self):
        if self.messages:
            return self.messages.pop(0)
        await self.gone.wait()
        return {'type': 'http.disconnect'}

    async def send(self, message):
        self.body += message.get('body', b'').decode()
        self.grew.set()

    async def until(self, test):
        while not test(self.body):
            self.grew.clear()
            await asyncio.wait_for(self.grew.wait(), 5)

    async def close(self):
        self.gone.set()
        await asyncio.wait_for(self.task, 5)


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


def client(**options):
    live = Live(Rooms(**options))
    return live, Client(Starlette(routes=live.routes()))


def data(response):
    """The JSON of a stream's first event."""
    return json.loads(response.body.split('\n\n')[0].splitlines()[1].removeprefix('data: '))


def first_event(test, code):
    response = test.get(f'/api/class/{code}/events')
    assert response.status_code == 200
    assert response.headers['content-type'].startswith('text/event-stream')
    assert response.headers['x-accel-buffering'] == 'no'
    return response.body.split('\n\n')[0].splitlines()


def test_events_start_with_the_class_state():
    live, test = client()
    lecturer = live.rooms.create(SCENARIO, frame=4)
    lines = first_event(test, lecturer.code.lower())  # the code as typed
    assert lines[0] == 'id: 1'
    assert json.loads(lines[1].removeprefix('data: ')) == {
        'version': 1,
        'scenario': SCENARIO,
        'frame': 4,
        'question': None,
    }


def test_events_carry_the_question_as_the_phones_see_it():
    live, test = client()
    lecturer = live.rooms.create(SCENARIO, frame=4)
    live.rooms.ask(lecturer.code, lecturer.secret, 5, ASKED)
    question = {'id': 1, 'frame': 5, 'asked': [{'node': 'a', 'label': 'a.grad'}], 'revealed': False}
    assert data(test.get(f'/api/class/{lecturer.code}/events')) == {
        'version': 2,
        'scenario': SCENARIO,
        'frame': 4,
        'question': question,
    }
    live.rooms.reveal(lecturer.code, lecturer.secret)
    revealed = data(test.get(f'/api/class/{lecturer.code}/events'))['question']
    assert revealed == {**question, 'asked': [{'node': 'a', 'label': 'a.grad', 'right': 6.0}], 'revealed': True}


def test_a_students_stream_joins_the_room_and_leaves_it_when_the_phone_goes():
    live, _ = client()
    app = Starlette(routes=live.routes())
    code = live.rooms.create(SCENARIO).code
    ana = live.rooms.join(code)  # the id the server minted for this phone
    live.rooms.leave(code, ana)  # and the phone slept past its seat

    async def follow():
        stream = Stream(app, f'/api/class/{code}/events?student={ana}')
        await stream.until(lambda body: '\n\n' in body)
        assert live.rooms.students(code) == 1
        lecturer = Stream(app, f'/api/class/{code}/events')  # no student: the lecturer's page, or an old one
        await lecturer.until(lambda body: '\n\n' in body)
        assert live.rooms.students(code) == 1
        await lecturer.close()
        await stream.close()

    asyncio.run(follow())  # returns once the leave, in the executor, is done
    assert live.rooms.students(code) == 0


def test_a_stream_marks_its_student_seen_at_each_keepalive(monkeypatch):
    monkeypatch.setattr(live_module, 'KEEPALIVE_S', 0.02)
    clock = Clock()
    live, _ = client(clock=clock)
    app = Starlette(routes=live.routes())
    code = live.rooms.create(SCENARIO).code
    gone = live.rooms.join(code)  # a phone whose replica died: no keepalive marks it

    ana = live.rooms.join(code)  # the id the server minted for this phone

    async def follow():
        stream = Stream(app, f'/api/class/{code}/events?student={ana}')
        await stream.until(lambda body: '\n\n' in body)
        for _ in range(3):
            clock.now += 30
            kept = stream.body.count('keepalive')
            # two more: one at least marked the student seen after the clock moved
            await stream.until(lambda body, kept=kept: body.count('keepalive') >= kept + 2)
        assert live.rooms.students(code) == 1  # ana seen within 30 s; `gone` 90 s ago
        await stream.close()

    asyncio.run(follow())
    assert live.rooms.students(code) == 0
    assert live.rooms.join(code, gone) == gone  # back: counted once more


def test_a_full_room_or_a_made_up_student_id_is_refused_before_the_stream():
    live, test = client(max_students=1)
    code = live.rooms.create(SCENARIO).code
    ana = live.rooms.join(code)
    live.rooms.leave(code, ana)
    live.rooms.join(code)  # bo took the one seat while ana's phone slept
    full = test.get(f'/api/class/{code}/events?student={ana}')
    assert full.status_code == 409 and full.json() == {'error': f'The class {code} is full: it holds 1 students.'}
    made_up = test.get(f'/api/class/{code}/events?student=no!')
    assert made_up.status_code == 400 and 'open the join link again' in made_up.json()['error']
    forged = test.get(f'/api/class/{code}/events?student={unsigned(ana)}.{"x" * 22}')  # in form, not signed here
    assert forged.status_code == 403 and 'open the join link again' in forged.json()['error']
    assert live.rooms.students(code) == 1


def test_the_server_mints_a_students_signed_id_at_the_join_route():
    live, test = client()
    code = live.rooms.create(SCENARIO).code
    minted = [test.post(f'/api/class/{code}/join') for _ in range(3)]
    assert all(r.status_code == 200 and r.headers['cache-control'] == 'no-store' for r in minted)
    ids = [r.json()['student'] for r in minted]
    assert len(set(ids)) == 3 and all(STUDENT.fullmatch(i) for i in ids)
    assert live.rooms.students(code) == 3 and all(live.rooms.join(code, i) == i for i in ids)
    unknown = test.post('/api/class/ZZZZZ/join')
    assert unknown.status_code == 404 and 'No class has the code' in unknown.json()['error']


def request_from(peer, forwarded=None):
    """A Starlette request from `peer`, with X-Forwarded-For `forwarded` when given."""
    headers = [(b'x-forwarded-for', forwarded.encode())] if forwarded else []
    return Request({'type': 'http', 'method': 'POST', 'path': '/', 'headers': headers, 'client': (peer, 50000)})


def test_x_forwarded_for_names_the_client_only_when_a_trusted_proxy_sent_it(monkeypatch):
    monkeypatch.delenv(live_module.PROXIES_ENV, raising=False)
    assert client_address(request_from('203.0.113.7', '198.51.100.1')) == '203.0.113.7'  # no proxy is trusted
    monkeypatch.setenv(live_module.PROXIES_ENV, '127.0.0.1, 10.0.0.0/8, not-an-address')
    assert client_address(request_from('127.0.0.1', '198.51.100.1')) == '198.51.100.1'
    # a client's own X-Forwarded-For is believed no further than the first hop the proxies did not add
    assert client_address(request_from('10.1.2.3', '6.6.6.6, 198.51.100.1, 10.9.9.9')) == '198.51.100.1'
    assert client_address(request_from('203.0.113.7', '127.0.0.1')) == '203.0.113.7'  # not from a proxy
    assert client_address(request_from('127.0.0.1')) == '127.0.0.1'  # the proxy's own request


def test_joins_from_one_address_past_the_minutes_limit_are_told_when_to_try_again(monkeypatch):
    monkeypatch.setenv(live_module.PROXIES_ENV, '127.0.0.1')
    clock = Clock()
    live = Live(Rooms(MemoryBackend(), clock=clock, joins=2))
    test = Client(Starlette(routes=live.routes()))
    clock.now = 60 * 20_000 + 45.5  # 14.5 s left in this minute
    code = live.rooms.create(SCENARIO).code
    script = {'x-forwarded-for': '198.51.100.1'}  # a script behind the proxy
    assert [test.post(f'/api/class/{code}/join', headers=script).status_code for _ in range(2)] == [200, 200]
    refused = test.post(f'/api/class/{code}/join', headers=script)
    assert refused.status_code == 429 and refused.headers['retry-after'] == '15'
    assert refused.json() == {'error': 'Many phones have joined from this network just now: joining again in 15 s.'}
    # a lie told to the proxy is still the script's address
    lying = test.post(f'/api/class/{code}/join', headers={'x-forwarded-for': '10.0.0.1, 198.51.100.1'})
    assert lying.status_code == 429
    assert test.post(f'/api/class/{code}/join', headers={'x-forwarded-for': '198.51.100.2'}).status_code == 200
    assert live.rooms.students(code) == 3
    clock.now += 15
    assert test.post(f'/api/class/{code}/join', headers=script).status_code == 200


def test_a_room_closed_to_new_students_refuses_the_join_route_and_keeps_its_phones():
    live, test = client()
    lecturer = live.rooms.create(SCENARIO)
    ana = test.post(f'/api/class/{lecturer.code}/join').json()['student']
    live.rooms.shut(lecturer.code, lecturer.secret)
    shut = test.post(f'/api/class/{lecturer.code}/join')
    assert shut.status_code == 409 and shut.json() == {
        'error': f'The class {lecturer.code} takes no new students now: ask your lecturer to open it again.'
    }
    assert test.get(f'/api/class/{lecturer.code}/events?student={ana}').status_code == 200


def test_a_reloaded_phone_reads_the_answer_it_sent(asked):
    live, test, lecturer, url, ana = asked
    mine = f'/api/class/{lecturer.code}/answer?student={ana}'
    assert test.get(mine).json() == {'question': 1, 'answers': None}
    test.post(url, json={'student': ana, 'question': 1, 'answers': {'a': ' 6,0 '}})
    response = test.get(mine)
    assert response.status_code == 200 and response.headers['cache-control'] == 'no-store'
    assert response.json() == {'question': 1, 'answers': {'a': 6.0}}
    assert test.get(f'/api/class/{lecturer.code}/answer?student=someone-else').status_code == 403


def test_a_step_with_the_secret_moves_the_class_and_a_wrong_one_is_refused():
    live, test = client()
    lecturer = live.rooms.create(SCENARIO)
    url = f'/api/class/{lecturer.code}/step'
    step = {'scenario': {'expr': 'chain', 'n': '3'}, 'frame': 2}
    wrong = test.post(url, json=step, headers={SECRET_HEADER: 'not-the-secret'})
    assert wrong.status_code == 403
    assert 'lecturer' in wrong.json()['error']
    assert test.post(url, json=step).status_code == 403  # no secret at all
    right = test.post(url, json=step, headers={SECRET_HEADER: lecturer.secret})
    assert right.status_code == 200 and right.json() == {'version': 2}
    lines = first_event(test, lecturer.code)  # a late joiner lands on the class's frame
    assert lines[0] == 'id: 2'
    assert json.loads(lines[1].removeprefix('data: '))['frame'] == 2


def test_bad_codes_bad_bodies_and_ended_rooms():
    live, test = client()
    assert test.get('/api/class/BADCODE0/events').status_code == 404
    assert test.get('/api/class/ABCDE/events').status_code == 404
    lecturer = live.rooms.create(SCENARIO)
    url = f'/api/class/{lecturer.code}/step'
    headers = {SECRET_HEADER: lecturer.secret}
    assert test.post(url, content=b'not json', headers=headers).status_code == 400
    assert test.post(url, json={'scenario': SCENARIO, 'frame': -1}, headers=headers).status_code == 400
    live.rooms.close(lecturer.code, lecturer.secret)
    assert test.get(f'/api/class/{lecturer.code}/events').status_code == 410
    assert test.post(url, json={'scenario': SCENARIO, 'frame': 1}, headers=headers).status_code == 410


@pytest.mark.parametrize('digits', [5, 4300])
def test_a_step_past_any_pass_is_refused_with_a_short_sentence(digits):
    live, test = client()
    lecturer = live.rooms.create(SCENARIO)
    url, headers = f'/api/class/{lecturer.code}/step', {SECRET_HEADER: lecturer.secret}
    frame = int('9' * digits)
    refused = test.post(url, content=f'{{"scenario": {{"expr": "reuse"}}, "frame": {frame}}}'.encode(), headers=headers)
    assert refused.status_code == 400 and len(refused.json()['error']) < 120
    assert 'from 0 to 10,000' in refused.json()['error']
    assert live.rooms.state(lecturer.code).frame == 0  # the class did not move
    assert (
        test.post(url, json={'scenario': SCENARIO, 'frame': rooms_module.MAX_FRAME}, headers=headers).status_code == 200
    )


def test_the_longest_pass_the_page_makes_is_within_a_rooms_frames():
    expression = chain(MAX_CHAIN)
    leaves, out = expression.build(dict(expression.defaults))
    trace = trace_backward(out, leaves)
    # every frame of the pass, then at most learning's tail: a frame a value and one more (view.learning.tail_length)
    assert len(frames(trace, forward=True, leaves=True)) + len(trace.nodes) + 1 <= rooms_module.MAX_FRAME


async def aborted(app, path, body, headers=None):
    """A POST whose client leaves after part of its body: (the status the app answered, what it raised or None)."""
    scope = http_scope('POST', path, {'content-type': 'application/json', 'content-length': '4000', **(headers or {})})
    messages = [{'type': 'http.request', 'body': body, 'more_body': True}, {'type': 'http.disconnect'}]
    statuses = []

    async def receive():
        return messages.pop(0) if messages else {'type': 'http.disconnect'}

    async def send(message):
        if message['type'] == 'http.response.start':
            statuses.append(message['status'])

    try:
        await app(scope, receive, send)
    except Exception as error:  # what Starlette's error middleware logs as a traceback
        return statuses, error
    return statuses, None


def test_a_post_whose_client_leaves_mid_body_is_a_client_that_left_with_no_traceback(caplog):
    live, test = client()
    lecturer = live.rooms.create(SCENARIO)
    live.rooms.join(lecturer.code)
    live.rooms.ask(lecturer.code, lecturer.secret, 0, ASKED)
    app = Starlette(routes=live.routes())
    for route, body, headers in [('answer', b'{"student": "whoever-it-was-0001", "quest', None),
                                 ('step', b'{"scenario": {"expr"', {SECRET_HEADER: lecturer.secret})]:  # fmt: skip
        statuses, raised = asyncio.run(aborted(app, f'/api/class/{lecturer.code}/{route}', body, headers))
        assert raised is None and statuses == [live_module.CLIENT_LEFT]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert live.rooms.answers(lecturer.code, lecturer.secret)[1] == {}  # nothing was taken
    assert live.rooms.state(lecturer.code).version == 2  # the ask's: no step was taken


@pytest.fixture
def asked():
    """A room asked ASKED, ana in it: (live, test client, the lecturer, the answer route's path, ana's signed id)."""
    live, test = client()
    lecturer = live.rooms.create(SCENARIO)
    ana = live.rooms.join(lecturer.code)
    live.rooms.ask(lecturer.code, lecturer.secret, 0, ASKED)
    return live, test, lecturer, f'/api/class/{lecturer.code}/answer', ana


def test_an_answer_posted_is_kept_and_sent_back_as_numbers(asked):
    live, test, lecturer, url, ana = asked
    response = test.post(url, json={'student': ana, 'question': 1, 'answers': {'a': ' 6,0 '}})
    assert response.status_code == 200 and response.json() == {'answers': {'a': 6.0}}
    assert live.rooms.answers(lecturer.code, lecturer.secret)[1] == {unsigned(ana): {'a': 6.0}}


@pytest.mark.parametrize(
    'body, status, error',
    [
        (b'not json', 400, 'The answer must be JSON: {"student": ..., "question": ..., "answers": {...}}.'),
        (b'[1, 2]', 400, 'The answer must be JSON'),
        (b'\xff\xfe', 400, 'The answer must be JSON'),
        (b'[' * 4000 + b']' * 4, 400, 'The answer must be JSON'),
        (json.dumps({'student': ANA, 'question': 1, 'answers': {'a': 'x' * 5000}}).encode(), 413,
         'This request is over 4,096 bytes.'),
        (json.dumps({'student': ANA, 'question': 1, 'answers': {'a': 'six'}}).encode(), 400,
         "Your answer for a.grad, 'six', is not a number."),
        (b'{"student": "ANA-SIGNED-ID", "question": 1, "answers": {"a": NaN}}', 400, 'is not a number'),
        (b'{"student": "ANA-SIGNED-ID", "question": 1, "answers": {"a": 1e999}}', 400, 'is too large'),
        (json.dumps({'student': ANA, 'question': 2, 'answers': {'a': '6'}}).encode(), 409,
         'That question is closed: answer the one on the projector.'),
        (json.dumps({'student': 'bo-phone-00002', 'question': 1, 'answers': {'a': '6'}}).encode(), 403,
         'open the join link again'),
        (json.dumps({'student': 'ANA-ALTERED', 'question': 1, 'answers': {'a': '6'}}).encode(), 403,
         'open the join link again'),
        (json.dumps({'question': 1, 'answers': {'a': '6'}}).encode(), 403, 'open the join link again'),
    ],
)  # fmt: skip
def test_an_answer_that_cannot_be_taken_is_refused_with_its_status_and_sentence(asked, body, status, error):
    live, test, lecturer, url, ana = asked
    altered = ana[:-1] + ('A' if ana[-1] != 'A' else 'B')  # one sign of the signature changed
    response = test.post(
        url, content=body.replace(b'ANA-ALTERED', altered.encode()).replace(ANA.encode(), ana.encode())
    )
    assert response.status_code == status and error in response.json()['error']
    assert live.rooms.answers(lecturer.code, lecturer.secret)[1] == {}


def test_an_answer_declared_too_large_is_refused_before_it_is_read(asked):
    _, test, _, url, _ = asked
    response = test.post(url, content=b'{}', headers={'content-length': '100000'})
    assert response.status_code == 413


def test_an_answer_after_the_reveal_is_refused_and_the_verdict_given(asked):
    live, test, lecturer, url, ana = asked
    verdict = f'/api/class/{lecturer.code}/verdict?student={ana}'
    test.post(url, json={'student': ana, 'question': 1, 'answers': {'a': '3'}})
    early = test.get(verdict)
    assert early.status_code == 409 and early.json() == {'error': 'The answers are not revealed yet.'}
    live.rooms.reveal(lecturer.code, lecturer.secret)
    late = test.post(url, json={'student': ana, 'question': 1, 'answers': {'a': '6'}})
    assert late.status_code == 409 and late.json() == {'error': 'The answers are revealed: yours was not counted.'}
    response = test.get(verdict)
    assert response.status_code == 200 and response.headers['cache-control'] == 'no-store'
    assert response.json() == {
        'question': 1,
        'asked': [
            {
                'node': 'a',
                'label': 'a.grad',
                'answer': 3.0,
                'group': 'forgot',
                'says': GROUPS['forgot'].says,
                'right': 6.0,
            }
        ],
    }
    assert test.get(f'/api/class/{lecturer.code}/verdict').status_code == 403  # no student id


def test_a_student_can_neither_ask_reveal_nor_close_a_question(asked):
    live, test, lecturer, _, _ = asked
    for action in ('ask', 'reveal', 'close', 'close_question', 'answers'):
        response = test.post(f'/api/class/{lecturer.code}/{action}', json={'frame': 1, 'asked': ASKED})
        assert response.status_code == 404
    state = live.rooms.state(lecturer.code)
    assert state.version == 2 and not state.question['revealed']


@pytest.mark.parametrize(
    'base, path',
    [('', '/api/class/K7QXM'), ('course', '/course/api/class/K7QXM'), ('/course/', '/course/api/class/K7QXM'),
     ('a/b', '/a/b/api/class/K7QXM')],
)  # fmt: skip
def test_the_api_path_starts_with_streamlits_base_path(base, path):
    before = streamlit.config.get_option('server.baseUrlPath')
    streamlit.config.set_option('server.baseUrlPath', base)
    try:
        assert api_path(' k7q-xm ') == path
        live, _ = client()
        code = live.rooms.create(SCENARIO).code
        test = Client(Starlette(routes=live.routes(base_path())))
        assert test.get(f'{api_path(code)}/events').status_code == 200
        if base:
            assert test.get(f'/api/class/{code}/events').status_code == 404
    finally:
        streamlit.config.set_option('server.baseUrlPath', before)


class Away(MemoryBackend):
    """The in-process store, but unreachable while `away` is set, as a Redis that went down."""

    away = False

    def state(self, code, now):
        if self.away:
            raise StoreDown('The class cannot be reached just now: try again in a moment.')
        return super().state(code, now)


def test_a_store_that_cannot_be_reached_is_a_503_with_a_sentence_and_ends_no_stream(monkeypatch):
    monkeypatch.setattr(live_module, 'POLL_S', 0.01)
    backend = Away()
    live = Live(Rooms(backend))
    app, test = Starlette(routes=live.routes()), Client(Starlette(routes=live.routes()))
    lecturer = live.rooms.create(SCENARIO)
    backend.away = True
    ana = live.rooms.join(lecturer.code)  # the id the server minted for this phone
    response = test.get(f'/api/class/{lecturer.code}/events?student={ana}')
    assert response.status_code == 503 and response.json() == {
        'error': 'The class cannot be reached just now: try again in a moment.'
    }
    backend.away = False

    async def follow():
        stream = Stream(app, f'/api/class/{lecturer.code}/events')
        await stream.until(lambda body: 'id: 1' in body)
        backend.away = True
        await stream.until(lambda body: 'event: away' in body)  # the phone is told, once however many reads fail
        await asyncio.sleep(0.1)  # ten reads of a store that is away
        assert stream.body.count('event: away') == 1
        assert 'The class cannot be reached just now' in stream.body.split('event: away', 1)[1]
        backend.away = False
        # back: the class's state again, unchanged, so that the phone says it is back and lands on its frame
        await stream.until(lambda body: body.split('event: away', 1)[1].count('id: 1\n') == 1)
        live.rooms.step(lecturer.code, lecturer.secret, SCENARIO, 3)
        await stream.until(lambda body: 'id: 2' in body)  # the watcher read the store again once it was back
        assert 'event: ended' not in stream.body
        await stream.close()

    asyncio.run(follow())


def test_a_student_following_a_lecturer_who_steps_often_stays_in_the_room(monkeypatch):
    # real seconds: a keepalive after 0.3 s with no event; the lecturer steps every 0.05 s. The room's clock: 5 s a
    # step, so that 12 steps are a minute of class, past PRESENT_S (45 s) since the student joined
    monkeypatch.setattr(live_module, 'KEEPALIVE_S', 0.3)
    monkeypatch.setattr(live_module, 'POLL_S', 0.01)
    clock = Clock()
    live, _ = client(clock=clock)
    app = Starlette(routes=live.routes())
    lecturer = live.rooms.create(SCENARIO)
    code, secret = lecturer.code, lecturer.secret

    async def lesson():
        ana = live.rooms.join(code)  # the id the server minted for this phone
        stream = Stream(app, f'/api/class/{code}/events?student={ana}')
        await stream.until(lambda body: '\n\n' in body)
        for frame in range(1, 13):
            await asyncio.sleep(0.05)
            clock.now += 5
            version = live.rooms.step(code, secret, SCENARIO, frame).version
            await stream.until(lambda body, version=version: f'id: {version}\n' in body)  # the phone has the step
        question = live.rooms.ask(code, secret, 12, ASKED).question['id']
        body = json.dumps({'student': ana, 'question': question, 'answers': {'a': '6'}}).encode()
        answered = await Client(app)._request('POST', f'/api/class/{code}/answer', body, {})
        present = live.rooms.students(code)
        await stream.close()
        return present, answered.status_code, answered.body

    present, status, said = asyncio.run(lesson())
    assert (present, status) == (1, 200), said  # was (0, 403): seen only at a keepalive (found by bench_class)


# --- a change wakes the watchers: the poll is only a backstop ------------------------------------------------------


def no_poll(monkeypatch):
    """The watchers' backstop read an hour apart: an event that comes within a stream's guard was woken, not polled."""
    monkeypatch.setattr(live_module, 'POLL_S', 3600.0)


def test_on_one_server_ask_and_reveal_on_the_lecturers_page_reach_the_phones_at_once(monkeypatch):
    no_poll(monkeypatch)
    live, _ = client()
    app = Starlette(routes=live.routes())
    lecturer = live.rooms.create(SCENARIO)

    async def follow():
        ana = live.rooms.join(lecturer.code)  # the id the server minted for this phone
        stream = Stream(app, f'/api/class/{lecturer.code}/events?student={ana}')
        await stream.until(lambda body: 'id: 1' in body)
        # the lecturer's page asks and reveals from its script's thread, not the server's event loop
        await asyncio.to_thread(live.rooms.ask, lecturer.code, lecturer.secret, 5, ASKED)
        await stream.until(lambda body: 'id: 2' in body and '"revealed": false' in body)
        await asyncio.to_thread(live.rooms.reveal, lecturer.code, lecturer.secret)
        await stream.until(lambda body: 'id: 3' in body and '"right": 6.0' in body)
        await asyncio.to_thread(live.rooms.close, lecturer.code, lecturer.secret)
        await stream.until(lambda body: 'event: ended' in body)
        await stream.close()

    asyncio.run(follow())


def fake_replicas(server):
    """Two replicas' Live over one fakeredis server, each with its own client, as two processes on one Redis."""
    import fakeredis

    return [Live(Rooms(RedisBackend(fakeredis.FakeRedis(server=server, decode_responses=True)))) for _ in range(2)]


def test_a_step_taken_on_another_replica_reaches_this_ones_phones_by_pub_sub(monkeypatch):
    import fakeredis

    no_poll(monkeypatch)
    here, there = fake_replicas(fakeredis.FakeServer())
    app = Starlette(routes=here.routes())
    lecturer = there.rooms.create(SCENARIO)

    async def follow():
        ana = there.rooms.join(lecturer.code)  # the id the server minted for this phone
        stream = Stream(app, f'/api/class/{lecturer.code}/events?student={ana}')
        await stream.until(lambda body: 'id: 1' in body)
        for version, frame in enumerate([3, 4, 9], start=2):
            await asyncio.to_thread(there.rooms.step, lecturer.code, lecturer.secret, SCENARIO, frame)
            await stream.until(lambda body, version=version: f'id: {version}\n' in body)
        assert '"frame": 9' in stream.body
        await stream.close()

    asyncio.run(follow())


def test_a_subscription_lost_with_redis_reads_every_room_again_once_it_is_back(monkeypatch):
    import fakeredis

    no_poll(monkeypatch)
    monkeypatch.setattr(rooms_module, 'RESUBSCRIBE_S', 0.05)
    server = fakeredis.FakeServer()
    here, there = fake_replicas(server)
    app = Starlette(routes=here.routes())
    lecturer = there.rooms.create(SCENARIO)
    heard = []
    here.rooms.listen(heard.append)

    async def follow():
        stream = Stream(app, f'/api/class/{lecturer.code}/events')
        await stream.until(lambda body: 'id: 1' in body)
        await asyncio.sleep(0.3)  # the watcher has read the room, and waits for a message
        there.rooms.backend.CHANNEL = 'backprop:elsewhere'  # the next step's message is lost to this replica
        await asyncio.to_thread(there.rooms.step, lecturer.code, lecturer.secret, SCENARIO, 7)
        await asyncio.sleep(0.5)
        assert 'id: 2' not in stream.body  # not heard, and not polled
        server.connected = False  # Redis out of reach: the subscription drops, and is made again once it is back
        while not here.rooms.backend.subscriber_lost:
            await asyncio.sleep(0.05)
        server.connected = True
        await stream.until(lambda body: 'id: 2' in body)  # every room read again
        await stream.close()

    asyncio.run(follow())
    assert None in heard


def test_phones_are_told_when_the_lecturers_page_stops_answering_and_when_it_is_back(monkeypatch):
    monkeypatch.setattr(live_module, 'POLL_S', 0.01)
    clock = Clock()
    live, _ = client(clock=clock)
    app = Starlette(routes=live.routes())
    lecturer = live.rooms.create(SCENARIO)
    live.rooms.touch(lecturer.code, lecturer.secret)  # the projector's panel, open

    async def follow():
        stream = Stream(app, f'/api/class/{lecturer.code}/events')
        await stream.until(lambda body: 'id: 1' in body)
        clock.now += live_module.QUIET_S  # not yet
        await asyncio.sleep(0.1)
        assert 'event: away' not in stream.body
        clock.now += 1  # its replica died, and the page has not come back
        await stream.until(lambda body: 'event: away' in body)
        said = stream.body.split('event: away', 1)[1].split('\n\n')[0]
        assert json.loads(said.removeprefix('\ndata: ')) == {'message': live_module.QUIET_WORDS}
        live.rooms.touch(lecturer.code, lecturer.secret)  # back, on another replica: the class's state again
        await stream.until(lambda body: 'id: 1\n' in body.split('event: away', 1)[1])
        await stream.close()

    asyncio.run(follow())


BATCH = {'expr': 'regression', 'mode': 'batch', 'together': '1', 'v.w': '0.5', 'v.b': '0'}


def test_a_phones_grads_are_computed_on_the_server_from_the_classs_batch_and_taken_once_a_point():
    # the regression's example at w = 0.5, b = 0: point 1 is (−2, −5.13), so w·x + b − y = 4.13, and its grads are
    # ∂L/∂w = 2 · 4.13 · (−2) = −16.52 and ∂L/∂b = 2 · 4.13 = 8.26; its loss 4.13² = 17.0569
    live, http = client()
    lecturer = live.rooms.create(BATCH)
    ana, ben = live.rooms.join(lecturer.code), live.rooms.join(lecturer.code)
    path = f'/api/class/{lecturer.code}/grads'
    got = http.post(path, json={'student': ana, 'scenario': {**BATCH, 'hide': 'all'}})
    assert got.status_code == 200
    assert got.json() == {'point': 1, 'grads': {'w': pytest.approx(-16.52), 'b': pytest.approx(8.26)},
                          'loss': pytest.approx(17.0569)}  # fmt: skip
    assert http.post(path, json={'student': ben, 'scenario': BATCH}).json()['point'] == 2  # round-robin
    assert http.post(path, json={'student': ana, 'scenario': BATCH}).json()['point'] == 1  # ana keeps hers
    shares, phones = live.rooms.reports(lecturer.code, lecturer.secret)
    assert sorted(shares) == [0, 1] and phones == 2


@pytest.mark.parametrize(
    ('body', 'status', 'error'),
    [
        ({'student': 'ANA', 'scenario': {**BATCH, 'v.w': '0.6'}}, 409, 'does not show the class’s batch'),
        ({'student': 'ANA', 'scenario': 'not a scenario'}, 409, 'does not show the class’s batch'),
        ({'student': 'made-up', 'scenario': BATCH}, 403, 'lost its place'),
        ({'student': 'ANA', 'scenario': BATCH, 'grads': {'w': 1e9}}, 200, None),  # numbers sent are never read
        ([1, 2], 400, 'as JSON'),
    ],
)
def test_a_grads_request_the_room_cannot_take_is_refused_with_its_status_and_sentence(body, status, error):
    live, http = client()
    lecturer = live.rooms.create(BATCH)
    ana = live.rooms.join(lecturer.code)
    if isinstance(body, dict) and body['student'] == 'ANA':
        body = {**body, 'student': ana}
    got = http.post(f'/api/class/{lecturer.code}/grads', json=body)
    assert got.status_code == status
    if error:
        assert error in got.json()['error']
    else:
        assert got.json()['grads']['w'] == pytest.approx(-16.52)


def test_grads_asked_of_a_class_not_learning_from_a_batch_are_refused():
    live, http = client()
    lecturer = live.rooms.create(SCENARIO)
    got = http.post(f'/api/class/{lecturer.code}/grads', json={'student': live.rooms.join(lecturer.code),
                                                                'scenario': SCENARIO})  # fmt: skip
    assert got.status_code == 400 and 'not learning together' in got.json()['error']


def test_grads_are_refused_before_any_work_unless_the_class_learns_together(monkeypatch):
    # a class at 500 steps of learning: its parameters would cost a descent to work out, which no share may start
    live, http = client()
    heavy = {'expr': 'mlp', 'mode': 'learn', 'learned': '500'}
    lecturer = live.rooms.create(heavy)
    monkeypatch.setattr(live_module.state, 'batch_in', lambda *a: pytest.fail('the batch was worked out'))
    path = f'/api/class/{lecturer.code}/grads'
    assert http.post(path, json={'student': 'made-up', 'scenario': heavy}).status_code == 403
    got = http.post(path, json={'student': live.rooms.join(lecturer.code), 'scenario': heavy})
    assert got.status_code == 400 and 'not learning together' in got.json()['error']
