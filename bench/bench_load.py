"""How much load `streamlit run main.py` holds for a classroom: many sessions at once, page loads per second,
memory, and (--replica) input changes per second. One run, against its own server on 127.0.0.1.

    python -m bench.bench_load                    # every phase; writes bench/results/load.{txt,json}
    python -m bench.bench_load --quick            # a ~2-3 minute smoke run of every phase, smaller
    python -m bench.bench_load --phases hold,memory --sessions 50 --hold-seconds 30
    python -m bench.bench_load --replica          # what one replica holds (~3 minutes): bench/results/replica.*

Sessions are of two kinds, on the same server:
- websocket clients in Python (`websockets`, as Streamlit 1.67 serves with uvicorn/Starlette, not tornado): they
  speak Streamlit's protocol as the browser does (see WsSession): the `streamlit` subprotocol, a rerun_script
  BackMsg with the query string, the widget states and the browser's context, then ForwardMsgs until
  script_finished, keeping the browser's cache of large messages so the server sends references, as it does to a
  browser. A step sends the server nothing, so a session stepping only holds its websocket open.
- a few real Chromium pages (one browser, a context each) that step the player every 0.5 s and clock each step
  inside the page: from the Next (or Prev, going back at the end) click to the animation frame after the one in
  which the explanation shows the new frame (`.explain[data-frame=k]` in the player's shadow root).
Two finished studies left it (bench/results/README.md names the commit that has them): a step that reran the script
(--ws-steps rerun, "settled": a step's time to the end of that run, and the levels phase: the session count at
which a step slowed), the page before a step sent nothing; and issue 22's (--phases reruns,inputs): each preset's
server CPU an input change, and a class changing inputs, before and after its changes.

Phases (--phases, default the first three; saturate with --replica):
1. hold: N sessions (--sessions, default 100: --pages of them Chromium, the rest websocket) held open for
   --hold-seconds (60), each stepping every --step-every (0.5) s. In-page step latency p50/p95/max, the server's CPU
   seconds (utime+stime from /proc, and its `dot` children) over the window and per step (with what it did after
   the window until idle), its RSS before/after.
2. loads: page loads per second: --load-clients (10) clients in a loop of new websocket session + first script run
   to script_finished, for --load-seconds (20) each, on the neuron and on a 100-chain.
3. memory, on a fresh server: RSS after --expressions (1,000) distinct typed formulas loaded one after another,
   then after --serial-sessions (200) sessions one after another, then after --chains (50) 500-step chains with
   different inputs, then while --stalled (3) websockets that never read hang for --stalled-seconds (20) and 5 s
   after they closed; the peak (VmHWM) too. The goals: <= 400 MB after the 1,000 expressions, and after the chains
   and the stalled websockets.
4. saturate: --saturate-clients (10) sessions, each changing one of the neuron's inputs to a value not seen before and
   waiting for that run to finish, then the next, for --saturate-seconds (20): input changes served per second (the
   server saturated), each change's p50/p95 from send to script_finished, server CPU per change.
--replica: what one replica holds, for sizing several (docs/hosting.md): the phases hold (200
sessions, 2 of them Chromium, 30 s; also RSS per open session), saturate and loads, into bench/results/replica.*.
Every wait has a timeout and every loop a count or a deadline; --max-minutes bounds the whole run.
"""

import argparse
import asyncio
import base64
import math
import os
import platform
import resource
import shlex
import socket
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, urlencode

import cachetools
import websockets
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench import readme_tables
from server import cache
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, serve_app

ROOT = Path(__file__).resolve().parent.parent

CLK_TCK = os.sysconf('SC_CLK_TCK')
RSS_GOAL_MB = 400
FINISHED = ForwardMsg.ScriptFinishedStatus
DONE = {FINISHED.FINISHED_SUCCESSFULLY, FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
        FINISHED.FINISHED_WITH_COMPILE_ERROR}  # fmt: skip
FIRST_RUN_TIMEOUT_S = 120  # a cold 500-chain is laid out by dot in ~6 s; a saturated server queues runs
CONNECT_TIMEOUT_S = 20


# ---------------------------------------------------------------- the server process, from /proc


def proc_cpu(pid):
    """(own utime+stime, waited-for children's utime+stime) in seconds."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime) / CLK_TCK, (cutime + cstime) / CLK_TCK


def proc_rss_mb(pid, field='VmRSS:'):
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float('nan')


def descendants_cpu(exclude):
    """CPU seconds of this process's live descendants but `exclude`'s tree (the load generator's Chromium and
    driver)."""
    stats = {}
    for entry in Path('/proc').iterdir():
        try:
            fields = (entry / 'stat').read_text().rsplit(')', 1)[1].split() if entry.name.isdigit() else None
        except OSError:  # gone meanwhile
            continue
        if fields:
            stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLK_TCK)
    total, todo = 0.0, [os.getpid()]
    while todo:
        children = [pid for pid, (ppid, _) in stats.items() if ppid == todo[-1] and pid != exclude]
        todo.pop()
        total += sum(stats[pid][1] for pid in children)
        todo += children
    return total


def own_cpu():
    return sum(resource.getrusage(resource.RUSAGE_SELF)[:2])


class Server:
    def __init__(self, url):
        self.url, self.pid = url, url.pid  # the `streamlit run` that serve_app started
        self.ws_url = url.replace('http://', 'ws://') + '/_stcore/stream'

    def cpu(self):
        return proc_cpu(self.pid)

    def rss(self):
        return proc_rss_mb(self.pid)

    def peak(self):
        return proc_rss_mb(self.pid, 'VmHWM:')


# ---------------------------------------------------------------- statistics


def pct(values, p):
    """Nearest-rank percentile; None for no values."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)] if ordered else None


def summary(values):
    """n, p50, p95, max."""
    return {'n': len(values), 'p50': pct(values, 50), 'p95': pct(values, 95), 'max': max(values, default=None)}


class Errors(dict):
    def add(self, kind, n=1):
        self[kind] = self.get(kind, 0) + n


# ---------------------------------------------------------------- a Streamlit session over its websocket


def widget_state(element):
    """The state the browser reports for a widget element, as it sets it on mount; None for others."""
    kind = element.WhichOneof('type')
    w = getattr(element, kind)
    state = WidgetState(id=getattr(w, 'id', ''))
    if not state.id:
        return None
    if kind == 'checkbox':
        state.bool_value = w.value if w.set_value else w.default
    elif kind == 'number_input':
        value = w.value if w.set_value else w.default
        if w.data_type == type(w).DataType.INT:
            state.int_value = int(value)
        else:
            state.double_value = value
    elif kind in ('text_input', 'text_area'):
        state.string_value = w.value if w.set_value and w.HasField('value') else w.default
    elif kind == 'selectbox':
        if w.HasField('raw_value'):
            state.string_value = w.raw_value
        elif w.HasField('default') and w.default < len(w.options):
            state.string_value = w.options[w.default]
        else:
            return None
    elif kind == 'slider':
        if w.type == type(w).Type.SELECT_SLIDER:
            state.string_array_value.data.extend(w.raw_value if w.set_value else [w.options[i] for i in w.default])
        else:
            state.double_array_value.data.extend(w.value if w.set_value else w.default)
    else:  # buttons are triggers (sent only when clicked); a component reports its state itself
        return None
    return state


class WsSession:
    """One browser tab's worth of Streamlit session, spoken over its websocket as the frontend does.

    - Connect to /_stcore/stream with subprotocols ['streamlit', token]: the server selects the first; the second is
      the XSRF token, only checked against the `_streamlit_xsrf` cookie to read an auth cookie, so the browser's
      `PLACEHOLDER_AUTH_TOKEN` (sent when it has none) is fine; a third would be a session id to reconnect to.
      Origin is the page's own, as a browser sends it; permessage-deflate is offered, as Chromium does (and
      declined by this server).
    - First BackMsg: rerun_script {query_string (no '?'), widget_states {} (empty), context_info (timezone,
      locale, url, color scheme)}. The server answers new_session (page_script_hash, max_cached_message_age),
      deltas, script_finished.
    - Later reruns also send page_script_hash, every widget's state (as each element set it on mount, then ours),
      and cached_message_hashes: the hashes of `cacheable` messages we hold,
      aged like the frontend's cache, so the server sends a 70-byte ref_hash for the player's body, not the body.
    - Nothing from the server needs a reply (heartbeats are only sent when an embedding host asks the page to).
    """

    def __init__(self, server, query, errors):
        self.server, self.query, self.errors = server, query, errors
        self.ws = None
        self.reader = None
        self.page_hash = ''
        self.max_age = 2
        self.cache = {}  # hash -> [script run count when last used, fragment id]
        self.run_count = 0
        self.widgets = {}  # widget id -> WidgetState
        self.seen_widgets = set()
        self.numbers = []  # the number boxes' widget ids, in the page's order
        self.pending = []  # (send time, future) of reruns not finished yet
        self.closed = False
        self.received = 0

    async def open(self):
        """Connect and run the script once; seconds from connect to script_finished."""
        t0 = time.perf_counter()
        # a browser does not ping (ping_interval): it answers the server's pings, as this does
        self.ws = await asyncio.wait_for(websockets.connect(
            self.server.ws_url, subprotocols=['streamlit', 'PLACEHOLDER_AUTH_TOKEN'], origin=self.server.url,
            max_size=None, proxy=None, ping_interval=None, open_timeout=CONNECT_TIMEOUT_S, close_timeout=2,
        ), CONNECT_TIMEOUT_S + 1)  # fmt: skip
        self.reader = asyncio.create_task(self._read())
        await asyncio.wait_for(self.rerun(first=True), FIRST_RUN_TIMEOUT_S)
        return time.perf_counter() - t0

    def _client_state(self, msg):
        state = msg.rerun_script
        state.query_string = self.query
        state.widget_states.SetInParent()
        state.context_info.timezone = 'UTC'
        state.context_info.locale = 'en-US'
        state.context_info.url = f'{self.server.url}/?{self.query}' if self.query else f'{self.server.url}/'
        state.context_info.color_scheme = 'light'
        return state

    def rerun(self, first=False, widgets=()):
        """Send a rerun; a future of its round trip in seconds (resolved at the script_finished that follows)."""
        msg = BackMsg()
        state = self._client_state(msg)
        if not first:
            state.page_script_hash = self.page_hash
            for w in {**self.widgets, **{w.id: w for w in widgets}}.values():
                state.widget_states.widgets.append(w)
            state.cached_message_hashes.extend(self.cache)
        future = asyncio.get_running_loop().create_future()
        self.pending.append((time.perf_counter(), future))
        return self._send(msg, future)

    async def _send(self, msg, future):
        await self.ws.send(msg.SerializeToString())
        return await future

    def change_input(self, value):
        """A visitor typing `value` into the page's first number box: the rerun it sends; a future as rerun's."""
        if not self.numbers:
            raise RuntimeError('no number box on this page')
        return self.rerun(widgets=[WidgetState(id=self.numbers[0], double_value=value)])

    async def close(self):
        self.closed = True
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except (TimeoutError, OSError, websockets.WebSocketException):
                pass
        if self.reader is not None:
            self.reader.cancel()
            try:
                await self.reader
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - a reader's own failure is already counted
                pass
        for _, future in self.pending:
            if not future.done():
                future.cancel()

    async def _read(self):
        try:
            async for data in self.ws:
                self.received += len(data)
                msg = ForwardMsg()
                msg.ParseFromString(data)
                self._handle(msg)
        except websockets.ConnectionClosed as e:
            if not self.closed:
                self.errors.add(f'websocket closed by the server ({e.rcvd.code if e.rcvd else "no code"})')
        finally:
            for _, future in self.pending:
                if not future.done():
                    future.set_exception(ConnectionError('websocket closed'))

    def _handle(self, msg):
        kind = msg.WhichOneof('type')
        if kind == 'new_session':
            self.page_hash = msg.new_session.page_script_hash or msg.new_session.main_script_hash
            self.max_age = msg.new_session.config.max_cached_message_age or self.max_age
            self.seen_widgets = set()
        elif kind == 'delta':
            delta = msg.delta
            if delta.WhichOneof('type') == 'new_element':
                self._element(delta.new_element)
            if msg.metadata.cacheable and msg.hash not in self.cache:
                self.cache[msg.hash] = [self.run_count, delta.fragment_id]
        elif kind == 'ref_hash':
            if msg.ref_hash not in self.cache:
                self.errors.add('ref_hash to a message not in the cache')
            else:
                self.cache[msg.ref_hash][0] = self.run_count
        elif kind == 'session_event':
            if msg.session_event.WhichOneof('type') == 'script_compilation_exception':
                self.errors.add('script compilation error')
        elif kind == 'script_finished':
            self._finished(msg.script_finished, list(msg.metadata.run.fragment_ids))

    def _element(self, element):
        kind = element.WhichOneof('type')
        if kind == 'exception':
            self.errors.add(f'exception on the page: {element.exception.type}')
            return
        state = widget_state(element)
        if state is not None:
            self.widgets[state.id] = state
            self.seen_widgets.add(state.id)
            if kind == 'number_input' and state.id not in self.numbers:
                self.numbers.append(state.id)

    def _finished(self, status, fragment_ids):
        if status == FINISHED.FINISHED_EARLY_FOR_RERUN:
            return
        if status == FINISHED.FINISHED_SUCCESSFULLY:  # a full run: widgets it did not draw are gone
            self.widgets = {k: v for k, v in self.widgets.items() if k in self.seen_widgets}
            self.seen_widgets = set()
        elif status == FINISHED.FINISHED_WITH_COMPILE_ERROR:
            self.errors.add('script compile error')
        self.run_count += 1  # the frontend's ForwardMsg cache ages its entries per finished run
        for h, (used, fragment) in list(self.cache.items()):
            if fragment_ids and (not fragment or fragment not in fragment_ids):
                continue
            if self.run_count - used > self.max_age:
                del self.cache[h]
        now = time.perf_counter()
        if status in DONE:
            for sent, future in self.pending:
                if not future.done():
                    future.set_result(now - sent)
            self.pending = []


async def load_once(server, query, errors):
    """A page load: a new session and its first run to script_finished; seconds, or None on an error."""
    session = WsSession(server, query, errors)
    try:
        return await session.open()
    except (TimeoutError, OSError, ConnectionError, websockets.WebSocketException) as e:
        errors.add(f'page load failed: {type(e).__name__}')
        return None
    finally:
        await session.close()


async def open_sessions(server, query, n, errors, concurrency=8):
    """n sessions opened (at most `concurrency` connecting at once); (sessions, seconds each took to open)."""
    gate = asyncio.Semaphore(concurrency)
    sessions, times = [], []

    async def one():
        async with gate:
            s = WsSession(server, query, errors)
            try:
                times.append(await s.open())
                sessions.append(s)
            except (TimeoutError, OSError, ConnectionError, websockets.WebSocketException) as e:
                errors.add(f'session did not open: {type(e).__name__}')
                await s.close()

    await asyncio.gather(*(one() for _ in range(n)))
    return sessions, times


async def close_sessions(sessions):
    await asyncio.gather(*(s.close() for s in sessions))


async def quiet(server, limit_s=60):
    """Wait until the server uses under 10 % of a core over half a second (runs left over from a phase); seconds."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit_s:
        before = sum(server.cpu())
        await asyncio.sleep(0.5)
        if sum(server.cpu()) - before < 0.05:
            break
    return time.perf_counter() - t0


# ---------------------------------------------------------------- Chromium pages, clocked inside the page

# runs in every page before Streamlit: the step loop, called with page.evaluate once the player is there
PAGE_SCRIPT = """(() => {
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  let root = null;
  const findRoot = () => {
    if (root && root.host.isConnected && root.querySelector('.player')) return root;
    const host = [...document.querySelectorAll('*')].find(e => e.shadowRoot && e.shadowRoot.querySelector('.player'));
    root = host ? host.shadowRoot : null;
    return root;
  };
  const marker = r => r.querySelector('.explain[data-frame]');  // the frame the explanation shows
  const app = () => document.querySelector('[data-testid="stApp"]');
  window.__loadBench = {
    ready: () => !!(findRoot() && marker(root)) && app()?.dataset.testScriptState === 'notRunning',
    steps: async ({ seconds, every, timeoutMs }) => {
      const out = { ms: [], errors: [], steps: 0 };
      let dir = 1;
      const t0 = performance.now();
      for (let i = 0; i * every < seconds * 1000; i++) {
        const wait = t0 + i * every - performance.now();
        if (wait > 0) await sleep(wait);  // a step that overran the tick: the next goes at once
        const r = findRoot();
        const m = r && marker(r);
        if (!m) { out.errors.push('no player'); continue; }
        const next = r.querySelector('.next'), prev = r.querySelector('.prev');
        if (dir > 0 && next.disabled) dir = -1;
        else if (dir < 0 && prev.disabled) dir = 1;
        const target = String(+m.dataset.frame + dir);
        const start = performance.now();
        (dir > 0 ? next : prev).click();
        let seen = false;
        while (performance.now() - start < timeoutMs) {
          await frame();  // in an animation frame's callback: what is in the DOM now is painted after it
          const now = findRoot();
          if (now && marker(now) && marker(now).dataset.frame === target) { seen = true; break; }
        }
        out.steps += 1;
        if (!seen) { out.errors.push(`frame ${target} not shown within ${timeoutMs} ms`); continue; }
        await frame();  // the animation frame after the one that painted it
        out.ms.push(performance.now() - start);
      }
      return out;
    },
  };
})();"""


class Pages:
    """A few Chromium pages on the player, one browser context each."""

    def __init__(self, browser, server, query, n, errors):
        self.browser, self.server, self.query, self.n, self.errors = browser, server, query, n, errors
        self.pages, self.contexts = [], []

    async def open(self):
        for _ in range(self.n):
            context = await self.browser.new_context(viewport={'width': 1400, 'height': 900})
            await context.add_init_script(PAGE_SCRIPT)
            page = await context.new_page()
            page.on('pageerror', lambda e: self.errors.add(f'page error: {str(e)[:60]}'))
            self.contexts.append(context)
            try:
                await page.goto(f'{self.server.url}/?{self.query}', timeout=60_000)
                await page.wait_for_function('window.__loadBench.ready()', timeout=120_000, polling=100)
                self.pages.append(page)
            except PlaywrightError as e:
                self.errors.add(f'page did not load: {str(e).splitlines()[0][:60]}')
        await asyncio.sleep(1)  # let the first run settle: a click during it can be lost

    async def step(self, seconds, every, timeout_ms=10_000):
        """Every page steps for `seconds`; all the steps' latencies, pooled."""

        async def one(page):
            try:
                return await asyncio.wait_for(
                    page.evaluate(
                        'a => window.__loadBench.steps(a)',
                        {'seconds': seconds, 'every': every * 1000, 'timeoutMs': timeout_ms},
                    ),
                    seconds + timeout_ms / 1000 + 30,
                )
            except (PlaywrightError, TimeoutError) as e:
                self.errors.add(f'page step loop failed: {str(e).splitlines()[0][:60]}')
                return None

        results = [r for r in await asyncio.gather(*(one(p) for p in self.pages)) if r]
        for r in results:
            for e in r['errors']:
                self.errors.add(f'page: {e}')
        return {'ms': [x for r in results for x in r['ms']], 'steps': sum(r['steps'] for r in results)}

    async def close(self):
        for context in self.contexts:
            try:
                await asyncio.wait_for(context.close(), 30)
            except (PlaywrightError, TimeoutError):
                pass


# ---------------------------------------------------------------- phases


async def hold(server, pages, args, n_total, seconds, errors):
    """n_total sessions (the pages among them) stepping every args.step_every for `seconds`."""
    n_ws = max(0, n_total - len(pages.pages))
    rss_before_open = server.rss()
    t0 = time.perf_counter()
    sessions, open_times = await open_sessions(server, args.ws_query, n_ws, errors)
    opened_in = time.perf_counter() - t0
    await asyncio.sleep(1)
    rss0, (cpu0, child0) = server.rss(), server.cpu()
    gen0, gen_children0 = own_cpu(), descendants_cpu(server.pid)
    received0 = sum(s.received for s in sessions)
    w0 = time.perf_counter()
    page = await pages.step(seconds, args.step_every)  # the websocket sessions' steps send nothing: they hold on
    ticks = len(sessions) * round(seconds / args.step_every)
    wall = time.perf_counter() - w0
    (cpu1, child1), rss1 = server.cpu(), server.rss()
    gen1, gen_children1 = own_cpu(), descendants_cpu(server.pid)
    received = sum(s.received for s in sessions) - received0
    dropped = sum(1 for s in sessions if s.reader is not None and s.reader.done())
    if dropped:
        errors.add('websocket sessions dropped during the window', dropped)
    await close_sessions(sessions)
    busy_after = await quiet(server)
    drain = max(0.0, sum(server.cpu()) - cpu1 - child1)  # runs still queued at the window's end, done after it
    steps = ticks + page['steps']
    cpu, dot = cpu1 - cpu0, child1 - child0
    return {
        'sessions': {'websocket': len(sessions), 'websocket_asked': n_ws, 'chromium': len(pages.pages)},
        'seconds': seconds, 'wall_s': wall, 'open_all_s': opened_in, 'open_one_s': summary(open_times),
        'page_step_ms': summary(page['ms']),
        'ws_received_bytes_per_session_per_s': received / max(1, len(sessions)) / wall,
        'steps': {'websocket': ticks, 'chromium': page['steps'], 'total': steps},
        'server_cpu_s': cpu, 'server_dot_cpu_s': dot, 'server_cpu_share_of_one_core': cpu / wall,
        'server_cpu_s_after_the_window': drain,
        'server_cpu_ms_per_step': 1000 * (cpu + dot + drain) / steps if steps else None,
        'server_rss_mb': {'before_open': rss_before_open, 'before': rss0, 'after': rss1},
        'rss_mb_per_session': (rss0 - rss_before_open) / len(sessions) if sessions else None,
        'server_busy_after_the_window_s': busy_after,
        'load_generator_cpu_s': {'python': gen1 - gen0, 'chromium_and_driver': gen_children1 - gen_children0},
    }  # fmt: skip


async def loads(server, query, clients, seconds, errors):
    """Page loads completed per second by `clients` concurrent clients in a loop, for `seconds`."""
    times = []
    deadline = time.perf_counter() + seconds
    late = [0]

    async def client():
        while time.perf_counter() < deadline:
            t = await load_once(server, query, errors)
            if t is None:
                await asyncio.sleep(0.2)
            elif time.perf_counter() <= deadline:
                times.append(t)
            else:
                late[0] += 1

    cpu0 = sum(server.cpu())
    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    wall = time.perf_counter() - t0
    cpu = sum(server.cpu()) - cpu0
    return {
        'query': query, 'clients': clients, 'seconds': seconds, 'loads': len(times),
        'loads_per_s': len(times) / seconds, 'load_s': summary(times), 'finished_after_the_window': late[0],
        'server_cpu_ms_per_load': 1000 * cpu / (len(times) + late[0]) if times else None, 'wall_s': wall,
        'server_rss_mb_after': server.rss(),
    }  # fmt: skip


async def saturate(server, query, clients, seconds, errors):
    """Input changes served per second: `clients` sessions, each changing an input and waiting for its run, in a loop
    for `seconds`; each change a value not seen before (no cached trace or player body to reuse)."""
    sessions, _ = await open_sessions(server, query, clients, errors)
    times, late, count = [], [0], [0]
    deadline = time.perf_counter() + seconds

    async def client(s):
        while time.perf_counter() < deadline and not s.closed:
            count[0] += 1
            try:
                t = await asyncio.wait_for(s.change_input(1 + count[0] / 1024), FIRST_RUN_TIMEOUT_S)
            except (TimeoutError, OSError, ConnectionError, RuntimeError, websockets.WebSocketException) as e:
                errors.add(f'input change failed: {type(e).__name__}')
                return
            if time.perf_counter() <= deadline:
                times.append(t)
            else:
                late[0] += 1

    cpu0 = sum(server.cpu())
    t0 = time.perf_counter()
    await asyncio.gather(*(client(s) for s in sessions))
    wall = time.perf_counter() - t0
    cpu = sum(server.cpu()) - cpu0
    await close_sessions(sessions)
    return {
        'query': query, 'clients': len(sessions), 'seconds': seconds, 'changes': len(times),
        'changes_per_s': len(times) / seconds, 'change_s': summary(times),
        'server_cpu_ms_per_change': 1000 * cpu / (len(times) + late[0]) if times else None,
        'server_cpu_share_of_one_core': cpu / wall, 'wall_s': wall, 'server_rss_mb_after': server.rss(),
    }  # fmt: skip


async def memory(server, args, errors, deadline):
    """RSS after distinct expressions, then serial sessions, then 500-chains with different inputs, then websockets
    that never read; the peak (VmHWM) along the way."""
    out = {'rss_mb_start': server.rss(), 'goal_mb_after_expressions': RSS_GOAL_MB}
    await load_once(server, args.ws_query, errors)
    out['rss_mb_after_first_load'] = server.rss()

    async def serial(queries, label, every):
        done, curve, got, t0 = 0, [], [], time.perf_counter()
        for i, query in enumerate(queries):
            if time.monotonic() > deadline:
                errors.add(f'memory: {label} stopped by --max-minutes')
                break
            session = WsSession(server, query, errors)
            try:
                await session.open()
                done += 1
                got.append(session.received)
            except (TimeoutError, OSError, ConnectionError, websockets.WebSocketException) as e:
                errors.add(f'page load failed: {type(e).__name__}')
            finally:
                await session.close()
            if (i + 1) % every == 0:
                curve.append([i + 1, round(server.rss(), 1)])
        # a chain's body is MBs: a page that received less got no graph
        return {'asked': len(queries), 'loaded': done, 'seconds': time.perf_counter() - t0,
                'rss_mb_after': server.rss(), 'rss_mb_peak': server.peak(), 'rss_mb_curve': curve,
                'received_bytes_min': min(got, default=0)}  # fmt: skip

    out['expressions'] = await serial(
        [urlencode({'expr': 'custom', 'formula': formula(i)}, quote_via=quote) for i in range(args.expressions)],
        'expressions',
        max(1, args.expressions // 10),
    )
    out['expressions']['example'] = formula(7)
    out['sessions'] = await serial(
        [args.ws_query] * args.serial_sessions, 'sessions', max(1, args.serial_sessions // 4)
    )
    chains = [f'expr=chain&n=500&v.x={0.1 * (k + 1):.1f}&v.w=1.5' for k in range(args.chains)]
    out['chains'] = await serial(chains, 'chains', max(1, args.chains // 10))
    out['chains']['example'] = chains[0]
    await asyncio.sleep(2)
    out['rss_mb_end_plus_2s'] = server.rss()
    out['stalled'] = await stalled(server, args.stalled, args.stalled_seconds, errors)
    out['rss_mb_peak'] = server.peak()
    expressions = out['expressions']
    out['goal_met'] = expressions['loaded'] == args.expressions and expressions['rss_mb_after'] <= RSS_GOAL_MB
    return out


STALLED_QUERY = 'expr=chain&n=500&v.x=7.5&v.w=1.5'  # a body of MBs that nobody reads


async def stalled(server, n, seconds, errors):
    """n websockets that ask for a 500-chain's page and never read a byte (a raw socket, its receive buffer small),
    held `seconds`, then closed: the server's RSS before, while they hang and 5 s after they closed."""
    before = server.rss()
    host, port = server.url.removeprefix('http://').split(':')
    socks = []
    for _ in range(n):
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)), CONNECT_TIMEOUT_S)
            sock = writer.get_extra_info('socket')
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write(
                f'GET /_stcore/stream HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n'
                f'Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n'
                f'Sec-WebSocket-Protocol: streamlit, PLACEHOLDER_AUTH_TOKEN\r\nOrigin: {server.url}\r\n\r\n'.encode()
            )
            await asyncio.wait_for(reader.readuntil(b'\r\n\r\n'), CONNECT_TIMEOUT_S)  # the 101, then never again
            msg = BackMsg()
            WsSession(server, STALLED_QUERY, errors)._client_state(msg)
            writer.write(ws_frame(msg.SerializeToString()))
            socks.append(writer)
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as e:
            errors.add(f'stalled websocket did not open: {type(e).__name__}')
    await asyncio.sleep(seconds)
    during = server.rss()
    for writer in socks:
        writer.transport.abort()
    await asyncio.sleep(5)
    return {'websockets': len(socks), 'seconds': seconds, 'query': STALLED_QUERY, 'rss_mb_before': before,
            'rss_mb_while_open': during, 'rss_mb_5s_after_closed': server.rss()}  # fmt: skip


def ws_frame(payload):
    """One masked binary websocket frame, as a client sends it."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x82]) + (
        bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, 'big') if n < 2**16
        else bytes([0x80 | 127]) + n.to_bytes(8, 'big')
    )  # fmt: skip
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def formula(i):
    """A distinct typed formula: a sum of 2 to 7 products, its variable names numbered by i."""
    terms = [f'{"abcdefg"[j]}{i}*{"pqrstuv"[j]}{i}' for j in range(2 + i % 6)]
    return ' + '.join(terms) + (f' + c{i}' if i % 2 else '')


# ---------------------------------------------------------------- the run


def settings(args):
    if args.replica:  # what one replica holds, for docs/hosting.md's sizing: the phases that measure it, bounded
        args.phases = args.phases or 'hold,saturate,loads'
        args.out = args.out or str(ROOT / 'bench' / 'results' / 'replica')
        sessions, hold, load = (50, 10, 5) if args.quick else (200, 30, 10)
        for key, value in dict(sessions=sessions, pages=2, hold_seconds=hold, load_seconds=load).items():
            if getattr(args, key) is None:
                setattr(args, key, value)
    defaults = {  # an option not given: (with --quick, else)
        'sessions': (20, 100), 'pages': (2, 4), 'hold_seconds': (15, 60), 'load_seconds': (5, 20),
        'load_clients': (5, 10), 'expressions': (100, 1000), 'serial_sessions': (20, 200), 'chains': (2, 50),
        'saturate_clients': (5, 10), 'saturate_seconds': (8, 20), 'max_minutes': (10, 45),
    }  # fmt: skip
    for key, (quick, full) in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, quick if args.quick else full)
    args.phases = [p.strip() for p in (args.phases or 'hold,loads,memory').split(',')]
    args.out = args.out or str(ROOT / 'bench' / 'results' / 'load')
    return args


async def run(args):
    errors = Errors()
    deadline = time.monotonic() + args.max_minutes * 60
    results = {
        'command': shlex.join(['python', '-m', __spec__.name if __spec__ else sys.argv[0], *sys.argv[1:]]),
        'started': datetime.now(UTC).isoformat(timespec='seconds'),
        'machine': {
            'cores': os.cpu_count(),
            'cores_usable': len(os.sched_getaffinity(0)),
            'memory_gb': round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30, 1),
            'python': platform.python_version(),
            'load_average_at_start': os.getloadavg(),
        },
        'settings': {k: v for k, v in vars(args).items() if k != 'out'},
        # what the server's shared caches may hold at most, all full (cache.py), for sizing a replica's memory
        'caches_mb': sum(c.maxsize for c in vars(cache).values() if isinstance(c, cachetools.Cache)) / cache.MB,
        'errors': errors,
    }
    if {'hold', 'loads', 'saturate'} & set(args.phases):
        with serve_app(timeout=120) as url:
            server = Server(url)
            results['server_rss_mb_at_start'] = server.rss()
            await load_once(server, args.ws_query, errors)  # the first run's imports are not any phase's
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                pages = Pages(browser, server, args.page_query, args.pages if args.pages > 0 else 0, errors)
                await pages.open()
                print(f'server pid {server.pid}; {len(pages.pages)} Chromium pages open', flush=True)
                if 'hold' in args.phases:
                    print(f'hold: {args.sessions} sessions for {args.hold_seconds} s …', flush=True)
                    results['hold'] = await hold(server, pages, args, args.sessions, args.hold_seconds, errors)
                    print(' ', line_hold(results['hold']), flush=True)
                if 'loads' in args.phases and time.monotonic() < deadline:
                    results['loads'] = {}
                    for name, query in (('neuron', args.ws_query), ('chain 100', 'expr=chain&n=100')):
                        await load_once(server, query, errors)  # its layout is cached, as in class after the first
                        r = await loads(server, query, args.load_clients, args.load_seconds, errors)
                        results['loads'][name] = r
                        print(f'  loads {name}: {r["loads_per_s"]:.1f}/s', flush=True)
                if 'saturate' in args.phases and time.monotonic() < deadline:
                    clients, seconds = args.saturate_clients, args.saturate_seconds
                    print(f'saturate: {clients} sessions changing inputs for {seconds} s …', flush=True)
                    results['saturate'] = await saturate(server, args.ws_query, clients, seconds, errors)
                    print(f'  {results["saturate"]["changes_per_s"]:.1f} input changes a second', flush=True)
                await pages.close()
                await browser.close()
    if 'memory' in args.phases and time.monotonic() < deadline:
        budgets = {'BACKPROP_LAYOUT_BUDGETS': args.layout_budgets} if args.layout_budgets else {}
        with serve_app(timeout=120, env=budgets) as url:
            server = Server(url)
            print('memory, on a fresh server …', flush=True)
            results['memory'] = await memory(server, args, errors, deadline)
            expressions = results['memory']['expressions']
            print(f'  RSS after {expressions["loaded"]} expressions: {expressions["rss_mb_after"]:.0f} MB', flush=True)
    results['finished'] = datetime.now(UTC).isoformat(timespec='seconds')
    return results


# ---------------------------------------------------------------- the report


def fmt(x, digits=0):
    return '-' if x is None else f'{x:,.{digits}f}'


def line_hold(r):
    s = r['page_step_ms']
    return (
        f'{r["sessions"]["websocket"]}+{r["sessions"]["chromium"]} sessions: page step p50/p95/max '
        f'{fmt(s["p50"])}/{fmt(s["p95"])}/{fmt(s["max"])} ms; server CPU {r["server_cpu_s"]:.1f} s '
        f'({fmt(r["server_cpu_ms_per_step"], 2)} ms/step); RSS {r["server_rss_mb"]["after"]:.0f} MB'
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add('--quick', action='store_true', help='a ~2-3 minute smoke run: every phase, smaller and shorter')
    add('--replica', action='store_true', help='what one replica holds: hold, saturate, loads, into results/replica')
    add('--phases', help='comma-separated: hold, loads, memory, saturate (all but saturate)')
    add('--sessions', type=int, help='sessions held open in the hold phase, the Chromium pages included (100)')
    add('--pages', type=int, help='Chromium pages among them (4)')
    add('--hold-seconds', type=float, help='length of the hold phase (60)')
    add('--step-every', type=float, default=0.5, help='seconds between steps of every session (0.5)')
    add('--load-clients', type=int, help='concurrent clients for page loads per second (10)')
    add('--load-seconds', type=float, help='seconds per page for page loads per second (20)')
    add('--expressions', type=int, help='distinct typed formulas for the memory phase (1000)')
    add('--serial-sessions', type=int, help='sessions one after another for the memory phase (200)')
    add('--chains', type=int, help='500-step chains with different inputs for the memory phase (50)')
    add(
        '--layout-budgets',
        help="the memory phase's server's layout budgets, 'full,quick' in s (BACKPROP_LAYOUT_BUDGETS): on "
        "a shared, loaded machine dot's CPU time for the 500-chain can pass the 5.5 s budget, and a chain refused "
        'makes no body',
    )
    add('--stalled', type=int, default=3, help='websockets that never read, at the end of the memory phase (3)')
    add('--stalled-seconds', type=float, default=20, help='how long they hang (20)')
    add('--saturate-clients', type=int, help='sessions changing inputs at once in the saturate phase (10)')
    add('--saturate-seconds', type=float, help='length of the saturate phase (20)')
    add('--ws-query', default='expr=neuron', help='query string the websocket sessions open (expr=neuron)')
    add('--page-query', default='expr=neuron', help='query string the Chromium pages open (expr=neuron)')
    add('--max-minutes', type=float, help='stop starting new work after this long (45; --quick 10)')
    add('--out', help='path stem for .txt and .json (bench/results/load, or replica with --replica)')
    args = settings(parser.parse_args())
    results = asyncio.run(run(args))
    text = readme_tables.as_text(f'Load benchmark: {results["command"]}', results)
    readme_tables.write_results('replica' if args.replica else 'load', text, results, out=args.out)


if __name__ == '__main__':
    main()
