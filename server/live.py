"""A live class's routes, as Starlette handlers for main.py's `st.App` (no Streamlit here):

- GET /api/class/{code}/events: server-sent events, the class's state as JSON (`{"version", "scenario", "frame"}`)
  with `id:` its version; the first event at once (a late or reconnected phone lands on the class's frame), one at
  each step, a keepalive comment every 15 s, and an `ended` event when the room ends.
- POST /api/class/{code}/step: the lecturer's step, `{"scenario": {...}, "frame": k}`, with the lecturer's secret in
  the X-Class-Secret header (403 without it).

One process-wide `Rooms` (ROOMS, server/rooms.py's open_rooms()). Per room, one watcher in the server's event loop
reads the room's state and fans it out to every follower in this process: a step taken here wakes it at once, and it
reads the store every POLL_S besides, so that a step taken on another replica (Redis) reaches this one's followers.
"""

import asyncio
import json

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from server.rooms import BadState, NotLecturer, RoomEnded, RoomError, RoomNotFound, normal_code, open_rooms

KEEPALIVE_S = 15.0  # a comment line this often keeps a proxy's idle timeout (HAProxy's 60 s) from closing a stream
POLL_S = 0.5  # a watcher reads the store this often, for steps taken on other replicas
SECRET_HEADER = 'X-Class-Secret'
ROOMS = open_rooms()  # the server's rooms: the page (app.py's script threads) and these routes share them


def event(state):
    """A ClassState as one server-sent event: its version as the event's id, the state as JSON."""
    data = json.dumps({'version': state.version, 'scenario': state.scenario, 'frame': state.frame})
    return f'id: {state.version}\ndata: {data}\n\n'


def ended_event(message):
    return f'event: ended\ndata: {json.dumps({"message": message})}\n\n'


def status_of(error):
    """The HTTP status a RoomError answers with."""
    if isinstance(error, NotLecturer):
        return 403
    if isinstance(error, RoomEnded):
        return 410
    if isinstance(error, RoomNotFound):
        return 404
    if isinstance(error, BadState):
        return 400
    return 409


class Watcher:
    """One room's watcher: the latest state read, and an event that wakes every follower once at each change."""

    def __init__(self, live, code):
        self.live, self.code = live, code
        self.state, self.ended, self.followers = None, None, 0
        self.changed = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self.watch())

    def tell(self, state=None, ended=None):
        if state is not None and self.state is not None and state.version <= self.state.version:
            return
        if state is not None:
            self.state = state
        if ended is not None:
            self.ended = ended
        self.changed.set()
        self.changed = asyncio.Event()

    async def watch(self):
        while self.ended is None:
            try:
                self.tell(state=await asyncio.to_thread(self.live.rooms.state, self.code))
            except RoomError as error:
                self.tell(ended=str(error))
            await asyncio.sleep(POLL_S)


class Live:
    """The routes over `rooms`, with their watchers (by room, in the running event loop)."""

    def __init__(self, rooms):
        self.rooms, self.watchers = rooms, {}

    def watcher(self, code):
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

    async def events(self, request: Request):
        try:
            code = normal_code(request.path_params['code'])
            first = await asyncio.to_thread(self.rooms.state, code)
        except RoomError as error:
            return JSONResponse({'error': str(error)}, status_code=status_of(error))
        watcher = self.watcher(code)
        watcher.tell(state=first)
        watcher.followers += 1

        async def stream():
            sent = 0
            try:
                while True:
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

        headers = {'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no'}
        return StreamingResponse(stream(), media_type='text/event-stream', headers=headers)

    async def step(self, request: Request):
        try:
            posted = await request.json()
        except ValueError:
            return JSONResponse({'error': 'The step must be JSON: {"scenario": {...}, "frame": k}.'}, status_code=400)
        if not isinstance(posted, dict):
            return JSONResponse({'error': 'The step must be a JSON object.'}, status_code=400)
        secret = request.headers.get(SECRET_HEADER, '')
        try:
            code = normal_code(request.path_params['code'])
            state = await asyncio.to_thread(self.rooms.step, code, secret, posted.get('scenario'), posted.get('frame'))
        except RoomError as error:
            return JSONResponse({'error': str(error)}, status_code=status_of(error))
        watcher = self.watchers.get((id(asyncio.get_running_loop()), code))
        if watcher is not None:
            watcher.tell(state=state)  # this replica's followers at once
        return JSONResponse({'version': state.version})

    def routes(self):
        return [
            Route('/api/class/{code}/events', self.events),
            Route('/api/class/{code}/step', self.step, methods=['POST']),
        ]


LIVE = Live(ROOMS)
ROUTES = LIVE.routes()
