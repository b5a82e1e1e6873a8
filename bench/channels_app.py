"""A minimal `st.App` for bench/bench_channels.py: a one-line page and the three ways a phone could follow a lecturer,
as routes of our own (`streamlit run bench/channels_app.py` finds `app` by reading this file with `ast`).

- POST /api/step: the lecturer's step: the room's version goes up by one, and its frame with it.
- GET /api/sse: server-sent events, one `data: VERSION` event at once and one at each step.
- GET /api/state: polling: the room's state as JSON with an ETag, or 304 Not Modified for If-None-Match.
- WS /api/ws: a websocket of our own (not Streamlit's), a text message VERSION at once and at each step.

One room, in the process: the point is the channel, not the store.
"""

import asyncio
import json
from pathlib import Path

import streamlit as st
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocketDisconnect

KEEPALIVE_S = 15.0  # a comment line this often keeps a proxy's idle timeout (HAProxy's 60 s) from closing a stream


class Room:
    def __init__(self):
        self.version, self.frame = 1, 0
        self.changed = asyncio.Event()

    def step(self):
        self.version += 1
        self.frame += 1
        self.changed.set()  # wakes every waiting follower once
        self.changed = asyncio.Event()

    def body(self):
        return json.dumps({'version': self.version, 'scenario': {'expr': 'reuse', 'v.a': '3'}, 'frame': self.frame})


ROOM = Room()


async def step(request):
    ROOM.step()
    return JSONResponse({'version': ROOM.version})


async def sse(request):
    async def events():
        sent = 0
        while True:
            if ROOM.version != sent:
                sent = ROOM.version
                yield f'data: {sent}\n\n'
            try:
                await asyncio.wait_for(ROOM.changed.wait(), KEEPALIVE_S)
            except TimeoutError:
                yield ': keepalive\n\n'

    headers = {'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no'}
    return StreamingResponse(events(), media_type='text/event-stream', headers=headers)


async def state(request):
    etag = f'"v{ROOM.version}"'
    if request.headers.get('if-none-match') == etag:
        return Response(status_code=304, headers={'ETag': etag})
    return Response(ROOM.body(), media_type='application/json', headers={'ETag': etag, 'Cache-Control': 'no-cache'})


async def ws(websocket):
    await websocket.accept()
    sent = 0
    try:
        while True:
            if ROOM.version != sent:
                sent = ROOM.version
                await websocket.send_text(str(sent))
            await ROOM.changed.wait()
    except WebSocketDisconnect:
        pass


app = st.App(
    Path(__file__).with_name('channels_page.py'),
    routes=[
        Route('/api/step', step, methods=['POST']),
        Route('/api/sse', sse),
        Route('/api/state', state),
        WebSocketRoute('/api/ws', ws),
    ],
)
