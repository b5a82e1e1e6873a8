"""A live class's clients over raw asyncio streams (the project installs no httpx): a student's phone following the
class's server-sent events as the browser's EventSource does, and its answer to a question and its verdict; the
lecturer's step, a POST with the secret.

Shared by tests/app/test_live_replicas.py and bench/bench_class.py:

    follower = Follower('127.0.0.1', port, code)   # GET /api/class/CODE/events: a projector, counted nowhere
    student = Follower('127.0.0.1', port, code, join=True)   # a phone: POST /api/class/CODE/join first, for its id
    status, body, sent = await post_join('127.0.0.1', port, code)   # body: {'student': the signed id}
    task = asyncio.create_task(follower.run())
    await follower.wait_for(version=2, timeout=30)
    status, body, sent = await post_step('127.0.0.1', port, code, secret, scenario, frame=1)
    status, body, sent = await post_answer('127.0.0.1', port, code, student, question_id, {'2': '6'})
    status, verdict, sent = await get_verdict('127.0.0.1', port, code, student)   # after the lecturer's reveal
    await follower.close()

Like EventSource, a Follower reads the stream's events (`id:`, `event:`, `data:` lines, a blank line ends one; `:`
lines are comments, the keepalive), and when the stream drops (the replica died, the proxy cut it) it connects
again after `retry` s with `Last-Event-ID: <the last id>`; an answer other than 200 text/event-stream ends it for
good (EventSource "fails the connection"), as does an `ended` event (the page's player closes its EventSource).
"""

import asyncio
import json
import time
from urllib.parse import quote

RETRY_S = 0.5  # EventSource's reconnection time is the browser's (about 3 s); shorter here, so that tests are short
TIMEOUT_S = 30.0  # a connection or an answer this late is a failure, not a measurement


def events_path(code, student=None):
    """The class's events route; `student` (a student's id) is for the presence the route will count."""
    path = f'/api/class/{quote(code)}/events'
    return f'{path}?student={quote(student)}' if student else path


async def read_head(reader):
    """(status, {lower-case header: value}) of an HTTP/1.1 answer."""
    line = await reader.readline()
    if not line:
        raise ConnectionError('closed before an answer')
    status = int(line.split()[1])
    headers = {}
    while (line := await reader.readline()) not in (b'\r\n', b'\n', b''):
        name, _, value = line.decode('latin-1').partition(':')
        headers[name.strip().lower()] = value.strip()
    return status, headers


async def body_chunks(reader, headers):
    """The body's pieces as they come: de-chunked when Transfer-Encoding is chunked, else as read until EOF or its
    Content-Length. Raises ConnectionError when the stream is cut before its end."""
    if headers.get('transfer-encoding', '').lower() == 'chunked':
        while True:
            size_line = await reader.readline()
            if not size_line.endswith(b'\n'):
                raise ConnectionError('stream cut')
            size = int(size_line.split(b';')[0].strip(), 16)
            if size == 0:
                return
            try:
                chunk = await reader.readexactly(size + 2)  # the chunk and its CRLF
            except asyncio.IncompleteReadError as e:
                raise ConnectionError('stream cut') from e
            yield chunk[:-2]
    elif 'content-length' in headers:
        yield await reader.readexactly(int(headers['content-length']))
    else:
        while chunk := await reader.read(65536):
            yield chunk


class Follower:
    """One student's phone on the class's events at host:port. What it heard: `states` (each state event's time, the
    connection it came on, 1 for the first, and its JSON: version, scenario, frame), `held` ({version:
    time.perf_counter() when first held}), `away` (each `away` event's time and message), `ended` (the message of an
    `ended` event), `connections` (the local port
    of each connection, in order: haproxy's log names the replica that took each), `drops` (streams cut under it,
    and `errors`, why), `failed` (the status and body that ended it, if one did) and `error` (an exception that
    ended it). `on_state(follower, state)` is called at each state event."""

    def __init__(self, host, port, code, student=None, retry=RETRY_S, on_state=None, name=None, join=False):
        self.host, self.port, self.code, self.student, self.retry = host, port, code, student, retry
        self.join = join and student is None  # a phone with no id yet: it joins for one (the server's, signed)
        self.on_state, self.name = on_state, name
        self.states, self.held, self.connections = [], {}, []
        self.last_id, self.ended, self.failed, self.drops, self.away = None, None, None, 0, []
        self.errors, self.error = [], None
        self.changed = asyncio.Event()
        self.writer, self.closing = None, False

    @property
    def state(self):
        return self.states[-1][2] if self.states else None

    def _dispatch(self, kind, data, now):
        if kind == 'ended':
            self.ended = json.loads(data)['message']
        elif kind == 'away':  # the store, or the lecturer's page, cannot be reached just now: nothing has moved
            self.away.append((now, json.loads(data)['message']))
        else:
            state = json.loads(data)
            self.states.append((now, len(self.connections), state))
            self.held.setdefault(state['version'], now)
            if self.on_state:
                self.on_state(self, state)
        self._wake()

    def _wake(self):
        self.changed.set()
        self.changed = asyncio.Event()

    async def _join(self):
        """The server's signed id for this phone, as the page asks for it: POST join, again while the store or the
        network is away (a 503, a cut connection); any other refusal ends the follower, in `failed`."""
        status, body, _ = await post_join(self.host, self.port, self.code)
        if status == 200:
            self.student, self.join = body['student'], False
        elif status == 503:
            raise ConnectionError(f'join: {body}')
        else:
            self.failed = (status, json.dumps(body))

    async def _stream(self):
        if self.join:
            await self._join()
            if self.failed:
                return
        reader, self.writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), TIMEOUT_S)
        self.connections.append(self.writer.get_extra_info('sockname')[1])
        head = [f'GET {events_path(self.code, self.student)} HTTP/1.1', f'Host: {self.host}:{self.port}',
                'Accept: text/event-stream', 'Cache-Control: no-cache']  # fmt: skip
        if self.last_id is not None:
            head.append(f'Last-Event-ID: {self.last_id}')
        self.writer.write(('\r\n'.join(head) + '\r\n\r\n').encode())
        await self.writer.drain()
        status, headers = await asyncio.wait_for(read_head(reader), TIMEOUT_S)
        if status != 200 or not headers.get('content-type', '').startswith('text/event-stream'):
            body = b''.join([chunk async for chunk in body_chunks(reader, headers)])
            self.failed = (status, body.decode(errors='replace'))
            return
        buffer, kind, data = b'', 'message', []
        async for chunk in body_chunks(reader, headers):
            now = time.perf_counter()
            buffer += chunk
            while b'\n' in buffer:
                line, buffer = buffer.split(b'\n', 1)
                line = line.rstrip(b'\r').decode()
                if not line:  # the event is complete
                    if data:
                        self._dispatch(kind, '\n'.join(data), now)
                    kind, data = 'message', []
                    if self.ended is not None:
                        return
                elif line.startswith(':'):
                    continue  # a comment: the keepalive
                else:
                    field, _, value = line.partition(':')
                    value = value[1:] if value.startswith(' ') else value
                    if field == 'id':
                        self.last_id = value
                    elif field == 'event':
                        kind = value
                    elif field == 'data':
                        data.append(value)
        raise ConnectionError('stream ended')

    async def run(self):
        """Follow until the class ends, an answer fails it, or close(); reconnect after each drop (a stream cut, or
        one that makes no sense: `errors` says what each was). Anything else ends it, in `error`."""
        try:
            while not self.closing:
                try:
                    await self._stream()
                    return
                except (
                    OSError,
                    ConnectionError,
                    asyncio.IncompleteReadError,
                    TimeoutError,
                    ValueError,
                    IndexError,
                ) as e:
                    if self.closing:
                        return
                    self.drops += 1
                    self.errors.append(repr(e))
                finally:
                    if self.writer is not None:
                        self.writer.close()
                    self._wake()
                await asyncio.sleep(self.retry)
        except Exception as e:
            self.error = e
            self._wake()
            raise

    def summary(self):
        """What this follower went through, for a failure's message."""
        return (f'{self.name}: connections {self.connections}, drops {self.drops} {self.errors}, versions '
                f'{sorted(self.held)}, failed {self.failed}, ended {self.ended}, error {self.error!r}')  # fmt: skip

    def heard_on(self, connection):
        """The states heard on the `connection`th connection (1: the first)."""
        return [state for _, n, state in self.states if n == connection]

    async def wait_for(self, version=None, dropped=None, connection=None, timeout=TIMEOUT_S):
        """Until this follower holds `version`, has had `dropped` drops, and has heard a state on its `connection`th
        connection (each None: no matter); TimeoutError past `timeout`."""

        def done():
            return (
                (version is None or version in self.held)
                and (dropped is None or self.drops >= dropped)
                and (connection is None or self.heard_on(connection))
            )

        async def until():
            while not done():
                if self.failed or self.ended or self.error:
                    raise AssertionError(
                        f'{self.name or "a follower"} stopped: {self.failed or self.ended or self.error!r}'
                    )
                await self.changed.wait()

        await asyncio.wait_for(until(), timeout)

    async def close(self):
        self.closing = True
        if self.writer is not None:
            self.writer.close()


async def request(host, port, method, path, body=None, headers=None):
    """(status, the answer's JSON or text, time.perf_counter() when the request was sent) of one request, on a new
    connection."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), TIMEOUT_S)
    try:
        data = json.dumps(body).encode() if body is not None else b''
        lines = [f'{method} {path} HTTP/1.1', f'Host: {host}:{port}', 'Connection: close',
                 f'Content-Length: {len(data)}', *(f'{k}: {v}' for k, v in (headers or {}).items())]  # fmt: skip
        if body is not None:
            lines.append('Content-Type: application/json')
        sent = time.perf_counter()
        writer.write(('\r\n'.join(lines) + '\r\n\r\n').encode() + data)
        await writer.drain()
        status, head = await asyncio.wait_for(read_head(reader), TIMEOUT_S)
        text = b''.join([chunk async for chunk in body_chunks(reader, head)]).decode()
        try:
            return status, json.loads(text), sent
        except ValueError:
            return status, text, sent
    finally:
        writer.close()


async def post_step(host, port, code, secret, scenario, frame):
    """The lecturer's step, as the lead's player posts it: (status, {'version': v} or the error, when it was sent)."""
    path = f'/api/class/{quote(code)}/step'
    return await request(host, port, 'POST', path, {'scenario': scenario, 'frame': frame}, {'X-Class-Secret': secret})


async def post_join(host, port, code):
    """A new phone in the class: (status, {'student': its signed id} or the error, when it was sent)."""
    return await request(host, port, 'POST', f'/api/class/{quote(code)}/join')


async def post_answer(host, port, code, student, question, answers):
    """A student's answer to the question asked, as a phone's page posts it (`answers` {node: as typed}): (status,
    {'answers': {node: float}} as kept or {'error': sentence}, when it was sent)."""
    body = {'student': student, 'question': question, 'answers': answers}
    return await request(host, port, 'POST', f'/api/class/{quote(code)}/answer', body)


async def get_verdict(host, port, code, student):
    """A student's verdict on the revealed question, as a phone's page reads it: (status, the verdict's JSON, when
    it was sent)."""
    return await request(host, port, 'GET', f'/api/class/{quote(code)}/verdict?student={quote(student)}')
