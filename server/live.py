"""A live class's routes, as Starlette handlers for main.py's `st.App` (no Streamlit imported here but Streamlit's
server.baseUrlPath, read when asked), under that base path (`api_path(code)`: '/course/api/class/K7QXM'):

- POST /api/class/{code}/join: a new student, `{"student": ID}`: the id the server mints and signs for this room
  (Rooms.join), which the phone keeps and sends back; 429 with Retry-After when the client's address has joined too
  often this minute (client_address: X-Forwarded-For is believed only from $BACKPROP_TRUSTED_PROXIES), 409 when the
  room is full or its lecturer has closed it to new students.
- GET /api/class/{code}/events: server-sent events, the class's state as JSON (`{"version", "scenario", "frame",
  "question"}`, the question as every phone sees it, server/rooms.py's public_question) with `id:` its version; the
  first event at once (a late or reconnected phone lands on the class's frame), one at each change, a keepalive
  comment every 15 s, and an `ended` event when the room ends. With `?student=ID` (a phone's page, its signed id kept
  in the browser; 403 for one the server did not mint) the student is in the room at connect (409 when it is full),
  is seen again at each keepalive, and leaves when the stream ends: the lecturer's count of students present.
- POST /api/class/{code}/step: the lecturer's step, `{"scenario": {...}, "frame": k}`, with the lecturer's secret in
  the X-Class-Secret header (403 without it).
- POST /api/class/{code}/answer: a student's answer to the question asked, `{"student": ID, "question": id,
  "answers": {node: "as typed"}}`; `{"answers": {node: float}}` as kept, or `{"error": sentence}`.
- POST /api/class/{code}/grads: learning together, a phone's share of the batch, `{"student": ID, "scenario": {...}}`
  (the scenario its page shows): the grads of the point the room handed it, computed here from the class's scenario
  as the room holds it (nothing typed), and reported (Rooms.report); `{"point", "grads", "loss"}`, or `{"error"}`
  (409 when the class has stepped since the page's scenario).
- GET /api/class/{code}/answer?student=ID: the student's own answer to the open question (Rooms.mine).
- GET /api/class/{code}/verdict?student=ID: the student's answers against the revealed question (Rooms.verdict).

Asking, revealing and closing a question, and reading the answers, need the lecturer's secret: the lecturer's page
calls them on ROOMS from Python, with no route. A student's request can only answer, and read its own verdict.

One process-wide `Rooms` (ROOMS, server/rooms.py's open_rooms()). Per room, one watcher in the server's event loop
reads the room's state and fans it out to every follower in this process. The rooms wake it at each change
(Rooms.listen): one made in this process at once (a step posted here, or *Ask* and *Reveal* on the lecturer's page),
one made on another replica by Redis's pub/sub. It also reads the store every POLL_S, a backstop for a change whose
message was lost (Redis out of reach) and for a room that ends by the clock (an idle hour, a closed projector); and
when the lecturer's page has not been heard from for QUIET_S, it tells the phones that the class stands still (an
`away` event, as when the store cannot be reached), then that it is back.
"""

import asyncio
import ipaddress
import json
import logging
import os
import threading

import cachetools
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import state
from engine import batch
from server.rooms import (
    STEPPED,
    STUDENT,
    BadAnswer,
    BadState,
    NotInRoom,
    NotLecturer,
    QuestionClosed,
    RoomEnded,
    RoomError,
    RoomNotFound,
    StoreDown,
    TooManyJoins,
    batch_round,
    normal_code,
    open_rooms,
)

KEEPALIVE_S = 15.0  # a comment line this often keeps a proxy's idle timeout (HAProxy's 60 s) from closing a stream
# and marks the stream's student seen: within rooms.PRESENT_S (45 s) even when one keepalive is late
MAX_POST_BYTES = 4096  # an answer (at most 8 grads, each a number as typed) is far less
MAX_STEP_BYTES = 16384  # a step: the class's state, at most rooms.MAX_STATE_BYTES, in its JSON
POLL_S = 2.0  # a watcher reads the store this often besides when it is woken: the backstop
# a lecturer's page unheard for this long (its panel is heard every second; a replica's death and the reconnection to
# another take about 6 s): the phones are told that the class has stopped moving, and told again once it is back
QUIET_S = 15.0
QUIET_WORDS = ('The lecturer’s page is not answering: the class stands still until it is back. You can step on '
               'your own meanwhile.')  # fmt: skip
SECRET_HEADER = 'X-Class-Secret'
PROXIES_ENV = 'BACKPROP_TRUSTED_PROXIES'
CLIENT_LEFT = 499  # a request whose client went away before its body came (nginx's status for it)
ROOMS = open_rooms()  # the server's rooms: the page (app.py's script threads) and these routes share them


def event(state):
    """A ClassState as one server-sent event: its version as the event's id, the state as JSON."""
    data = json.dumps({'version': state.version, 'scenario': state.scenario, 'frame': state.frame,
                       'question': state.question})  # fmt: skip
    return f'id: {state.version}\ndata: {data}\n\n'


def away_event(message):
    return f'event: away\ndata: {json.dumps({"message": message})}\n\n'


def ended_event(message):
    return f'event: ended\ndata: {json.dumps({"message": message})}\n\n'


def status_of(error):
    """The HTTP status a RoomError answers with."""
    if isinstance(error, (NotLecturer, NotInRoom)):
        return 403
    if isinstance(error, RoomEnded):
        return 410
    if isinstance(error, RoomNotFound):
        return 404
    if isinstance(error, (BadState, BadAnswer)):
        return 400
    if isinstance(error, StoreDown):
        return 503
    if isinstance(error, TooManyJoins):
        return 429
    return 409  # full, a closed or revealed question, a verdict before the reveal, a flood


def refused(error):
    headers = {'Retry-After': str(error.wait)} if isinstance(error, TooManyJoins) else None
    return JSONResponse({'error': str(error)}, status_code=status_of(error), headers=headers)


def trusted_proxies():
    """The addresses (or networks: '10.0.0.0/8') whose X-Forwarded-For is believed: $BACKPROP_TRUSTED_PROXIES, comma
    separated, the load balancer's; none when unset, so that a client cannot name its own address."""
    networks = []
    for part in os.environ.get(PROXIES_ENV, '').split(','):
        try:
            networks.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            pass  # blank, or not an address: trusts nobody
    return networks


def client_address(request, proxies=None):
    """The address a request came from, for the joins' rate: the peer's, or, where the peer is a trusted proxy,
    the nearest address in X-Forwarded-For that is not one (the proxy appends the address it heard from; what a
    client wrote before it is believed no further than the first untrusted hop)."""
    proxies = trusted_proxies() if proxies is None else proxies

    def trusted(text):
        try:
            return any(ipaddress.ip_address(text) in network for network in proxies)
        except ValueError:
            return False

    address = request.client.host if request.client else 'unknown'
    hops = [h.strip() for h in ','.join(request.headers.getlist('x-forwarded-for')).split(',') if h.strip()]
    while trusted(address) and hops:
        address = hops.pop()
    return address[:64]


def base_path():
    """Streamlit's server.baseUrlPath as a path's start: '' or '/course'. Read when asked, so that importing this
    module loads no Streamlit."""
    import streamlit

    base = (streamlit.get_option('server.baseUrlPath') or '').strip('/')
    return f'/{base}' if base else ''


def api_path(code):
    """The path the browser fetches a room's routes under (`'/course/api/class/K7QXM'`, + '/events', '/answer',
    ...): Streamlit serves st.App's own routes at the root whatever its base path, so main.py mounts these under it."""
    return f'{base_path()}/api/class/{normal_code(code)}'


async def read_json(request, limit, form):
    """The request's body as JSON, read up to `limit` bytes and no further: (value, None), or (None, the response
    refusing it: 413 too large, 400 not JSON, with `form` the sentence saying what JSON is wanted; 499 when the
    client left before it sent the whole body, as nginx logs it: nobody reads it, and nothing was done)."""
    too_large = JSONResponse({'error': f'This request is over {limit:,} bytes.'}, status_code=413)
    length = request.headers.get('content-length', '')
    if length.isdigit() and int(length) > limit:
        return None, too_large
    body = b''
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return None, too_large
    except ClientDisconnect:
        return None, Response(status_code=CLIENT_LEFT)
    try:
        return json.loads(body), None
    except (ValueError, RecursionError):  # RecursionError: 4,000 nested brackets
        return None, JSONResponse({'error': form}, status_code=400)


def share_grads(rooms, code, student, seen):
    """A phone's share of the class's batch: the point the room handed it (round-robin), that point's grads at the
    class's parameters, computed here from the room's scenario, and reported to the room; {'point' (1-based),
    'grads', 'loss'}. The student is checked first, and the class must be learning together; QuestionClosed where
    `seen`, the scenario the phone's page shows, is of another batch."""
    place = rooms.point_of(code, student)  # NotInRoom for an id the room did not mint, before any work
    scenario = rooms.state(code).scenario
    if not state.learns_together(scenario):
        raise BadState('The class is not learning together from a batch now.')
    if not isinstance(seen, dict) or batch_round(seen) != batch_round(scenario):
        raise QuestionClosed(STEPPED)
    held = class_batch(rooms, code, scenario)
    if held is None:
        raise BadState('The class is not learning together from a batch now.')
    expression, params, dataset, _ = held
    k = place % len(dataset)
    share = batch.point_grads(expression, params, dataset.point(k))
    rooms.report(code, student, scenario, k, share.grads, share.loss)
    return {'point': k + 1, 'grads': share.grads, 'loss': share.loss}


_batches = cachetools.LRUCache(64)  # a class's batch by its round: 300 phones' shares read it once, not 300 times
_batches_lock = threading.Lock()


def class_batch(rooms, code, scenario):
    """state.batch_in of a class's scenario (with the dataset the class keeps, where its link holds a mark), kept by
    the batch's round: the descent to the steps taken is worked out once a round, not once a share."""
    marked = scenario.get('data', '').startswith('@')  # a dataset too long for a link: the class keeps it
    kept = rooms.data(code) if marked else ''
    key = (batch_round(scenario), kept)
    with _batches_lock:
        if key in _batches:
            return _batches[key]
    held = state.batch_in(scenario, kept)
    with _batches_lock:
        _batches[key] = held
    return held


class Watcher:
    """One room's watcher: the latest state read, and an event that wakes every follower once at each change."""

    def __init__(self, live, code):
        self.live, self.code = live, code
        self.state, self.ended, self.followers = None, None, 0
        self.away = None  # while the store cannot be reached: what the followers are told
        self.changed = asyncio.Event()
        self.woken = asyncio.Event()  # the rooms said the room changed: read it now
        self.loop = asyncio.get_running_loop()
        self.task = self.loop.create_task(self.watch())

    def tell(self, state=None, ended=None, away=None):
        """A state read (kept if newer), the room ended, or whether the store can be reached (`away`: the sentence
        while it cannot, '' once it can again); each followers hear of once."""
        went, back = bool(away) and self.away is None, away == '' and self.away is not None
        if away is not None:
            self.away = away or None
        newer = state is not None and (self.state is None or state.version > self.state.version)
        if newer:
            self.state = state
        if ended is not None:
            self.ended = ended
        if newer or ended is not None or went or back:
            self.changed.set()
            self.changed = asyncio.Event()

    def wake(self):
        """From any thread: the room changed."""
        try:
            self.loop.call_soon_threadsafe(self.woken.set)
        except RuntimeError:  # its event loop has closed: nobody follows here any more
            pass

    async def watch(self):
        while self.ended is None:
            self.woken.clear()
            try:
                state = await asyncio.to_thread(self.live.rooms.state, self.code)
                quiet = state.heard is not None and self.live.rooms.clock() - state.heard > QUIET_S
                self.tell(state=state, away=QUIET_WORDS if quiet else '')
            except StoreDown as error:  # Redis is away: the room has not ended; the next read may reach it
                self.tell(away=str(error))
            except RoomError as error:
                self.tell(ended=str(error))
            try:
                await asyncio.wait_for(self.woken.wait(), POLL_S)
            except TimeoutError:
                pass


class Live:
    """The routes over `rooms`, with their watchers (by room, in the running event loop)."""

    def __init__(self, rooms):
        self.rooms, self.watchers, self.listening = rooms, {}, False

    def changed(self, code):
        """The rooms say room `code` changed (None: any may have): its watchers read it now, in every event loop."""
        for (_, watched), watcher in list(self.watchers.items()):
            if code is None or watched == code:
                watcher.wake()

    def watcher(self, code):
        if not self.listening:  # the first follower: from now on the rooms wake the watchers
            self.listening = True
            self.rooms.listen(self.changed)
        loop = asyncio.get_running_loop()
        watcher = self.watchers.get((id(loop), code))
        if watcher is None or watcher.task.done():
            watcher = self.watchers[(id(loop), code)] = Watcher(self, code)
        return watcher

    def forget(self, watcher):
        if watcher.followers <= 0:
            watcher.task.cancel()
            key = (id(asyncio.get_running_loop()), watcher.code)
            if self.watchers.get(key) is watcher:
                del self.watchers[key]

    def leave(self, code, student, since):
        try:
            self.rooms.leave(code, student, since)
        except Exception:  # the store is out of reach: the student drops out of the count after PRESENT_S anyway
            logging.getLogger(__name__).warning('A student could not leave the class %s.', code, exc_info=True)

    async def events(self, request: Request):
        student = request.query_params.get('student')
        if student is not None and not STUDENT.fullmatch(student):
            return JSONResponse({'error': 'This page lost its place in the class: open the join link again.'},
                                status_code=400)  # fmt: skip
        try:
            code = normal_code(request.path_params['code'])
            if student is not None:
                await asyncio.to_thread(self.rooms.join, code, student)
            first = await asyncio.to_thread(self.rooms.state, code)
        except RoomError as error:
            return refused(error)
        seen = self.rooms.clock()  # when this stream last marked its student seen (Rooms.leave's `since`)
        watcher = self.watcher(code)
        watcher.tell(state=first)
        watcher.followers += 1

        async def stream():
            nonlocal seen
            sent, said_away = 0, False
            try:
                while True:
                    # the student is seen every KEEPALIVE_S while the stream is open, however often the class steps
                    if student is not None and self.rooms.clock() - seen >= KEEPALIVE_S:
                        try:
                            await asyncio.to_thread(self.rooms.seen, code, student)
                            seen = self.rooms.clock()
                        except RoomError:
                            pass  # the room ended (the watcher tells), or filled while the student was unseen
                    if watcher.away is not None and not said_away:  # the phone says the class is out of reach
                        said_away = True
                        yield away_event(watcher.away)
                        continue
                    if watcher.away is None and said_away:  # back: the class's state again, even if unchanged
                        said_away, sent = False, 0
                    state = watcher.state
                    if state is not None and state.version != sent:
                        sent = state.version
                        yield event(state)
                        continue
                    if watcher.ended is not None:
                        yield ended_event(watcher.ended)
                        return
                    try:
                        await asyncio.wait_for(watcher.changed.wait(), KEEPALIVE_S)
                    except TimeoutError:
                        yield ': keepalive\n\n'
            finally:
                watcher.followers -= 1
                self.forget(watcher)
                if student is not None:
                    # not awaited: a stream ends by its task being cancelled (the phone went away), and a cancelled
                    # task awaits nothing more; the executor runs it all the same
                    asyncio.get_running_loop().run_in_executor(None, self.leave, code, student, seen)

        headers = {'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no'}
        return StreamingResponse(stream(), media_type='text/event-stream', headers=headers)

    async def join(self, request: Request):
        """A new student: their signed id, `{"student": id}`, which their page keeps for the room and sends back."""
        try:
            code = normal_code(request.path_params['code'])
            student = await asyncio.to_thread(self.rooms.join, code, None, client_address(request))
        except RoomError as error:
            return refused(error)
        return JSONResponse({'student': student}, headers={'Cache-Control': 'no-store'})

    async def students_own(self, request, read):
        """What `read(code, student)` gives the student named in the query (?student=ID), never cached."""
        try:
            code = normal_code(request.path_params['code'])
            own = await asyncio.to_thread(read, code, request.query_params.get('student'))
        except RoomError as error:
            return refused(error)
        return JSONResponse(own, headers={'Cache-Control': 'no-store'})

    async def mine(self, request: Request):
        """A student's own answer to the open question (Rooms.mine): a reloaded phone shows what it sent."""
        return await self.students_own(request, self.rooms.mine)

    async def step(self, request: Request):
        form = 'The step must be JSON: {"scenario": {...}, "frame": k}.'
        posted, refusal = await read_json(request, MAX_STEP_BYTES, form)
        if refusal is not None:
            return refusal
        if not isinstance(posted, dict):
            return JSONResponse({'error': 'The step must be a JSON object.'}, status_code=400)
        secret = request.headers.get(SECRET_HEADER, '')
        try:
            code = normal_code(request.path_params['code'])
            state = await asyncio.to_thread(self.rooms.step, code, secret, posted.get('scenario'), posted.get('frame'))
        except RoomError as error:
            return refused(error)
        watcher = self.watchers.get((id(asyncio.get_running_loop()), code))
        if watcher is not None:
            watcher.tell(state=state)  # this replica's followers at once
        return JSONResponse({'version': state.version})

    async def students_post(self, request, limit, form, call):
        """A student's POST: its JSON object (`form` says what is wanted), and `call(code, posted)`'s answer as JSON,
        run off the event loop; each refusal with its status and sentence."""
        posted, refusal = await read_json(request, limit, form)
        if refusal is not None:
            return refusal
        if not isinstance(posted, dict):
            return JSONResponse({'error': form}, status_code=400)
        try:
            code = normal_code(request.path_params['code'])
            return JSONResponse(await asyncio.to_thread(call, code, posted))
        except RoomError as error:
            return refused(error)

    async def answer(self, request: Request):
        def answer(code, posted):
            args = code, posted.get('student'), posted.get('question'), posted.get('answers')
            return {'answers': self.rooms.answer(*args)}

        form = 'The answer must be JSON: {"student": ..., "question": ..., "answers": {...}}.'
        return await self.students_post(request, MAX_POST_BYTES, form, answer)

    async def grads(self, request: Request):
        def share(code, posted):
            return share_grads(self.rooms, code, posted.get('student'), posted.get('scenario'))

        form = 'The grads are asked for as JSON: {"student": ..., "scenario": {...}}.'
        return await self.students_post(request, MAX_STEP_BYTES, form, share)

    async def verdict(self, request: Request):
        """A student's answers against the revealed question (Rooms.verdict)."""
        return await self.students_own(request, self.rooms.verdict)

    def routes(self, base=''):
        """The routes, under `base` ('' or '/course': base_path())."""
        return [
            Route(f'{base}/api/class/{{code}}/join', self.join, methods=['POST']),
            Route(f'{base}/api/class/{{code}}/events', self.events),
            Route(f'{base}/api/class/{{code}}/step', self.step, methods=['POST']),
            Route(f'{base}/api/class/{{code}}/answer', self.answer, methods=['POST']),
            Route(f'{base}/api/class/{{code}}/answer', self.mine),
            Route(f'{base}/api/class/{{code}}/grads', self.grads, methods=['POST']),
            Route(f'{base}/api/class/{{code}}/verdict', self.verdict),
        ]


LIVE = Live(ROOMS)


def routes():
    """The server's routes, under Streamlit's base path (main.py's st.App, once Streamlit has read its config)."""
    return LIVE.routes(base_path())
