"""The live class's routes (server/live.py), called as the server calls them (ASGI, in an event loop; Starlette's
TestClient needs httpx, which this project does not install): the events' first state at once, and the lecturer's
step with the right secret and a wrong one."""

import asyncio
import json

from starlette.applications import Starlette

from server.live import SECRET_HEADER, Live
from server.rooms import Rooms

SCENARIO = {'expr': 'reuse', 'v.a': '3'}


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
        scope = {
            'type': 'http', 'asgi': {'version': '3.0'}, 'http_version': '1.1', 'method': method, 'scheme': 'http',
            'path': path, 'raw_path': path.encode(), 'query_string': b'', 'root_path': '',
            'headers': [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            'client': ('127.0.0.1', 1), 'server': ('127.0.0.1', 80),
        }  # fmt: skip
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


def client():
    live = Live(Rooms())
    return live, Client(Starlette(routes=live.routes()))


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
    assert json.loads(lines[1].removeprefix('data: ')) == {'version': 1, 'scenario': SCENARIO, 'frame': 4}


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
