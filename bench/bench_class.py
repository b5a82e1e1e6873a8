"""A live class of N students (300) in one room: how soon the lecturer's step reaches every phone, what it costs the
servers, how soon the lecturer's projector shows the class's answers to a question, and how soon a student's page
draws its first graph, on one replica with the in-process store and on two behind haproxy with one Redis
(deploy/haproxy.cfg; tests/support/replicas.py). Loopback only, about 5 minutes.

    python -m bench.bench_class                   # writes bench/results/class.{txt,json}
    python -m bench.bench_class --quick           # a smoke run: 30 students, 5 steps (written under /tmp)
    python -m bench.bench_class --cases two --students 100 --steps 10

Each case starts its servers: 'one', `streamlit run main.py` (the rooms in its memory); 'two', two of them given
BACKPROP_REDIS_URL of one redis-server, behind haproxy run with deploy/haproxy.cfg. Then:
- the lecturer: a Chromium page opens ?expr=reuse&present=1 and clicks *Start a class*; its player posts the first
  frame with the lecturer's secret, which the benchmark takes from that request and posts every later step with, as
  the player does (the page is then closed: the room outlives its lecturer's last word by 5 minutes, longer than a
  case);
- the students: N followers of the room's server-sent events with ?student=ID, as a phone's page (tests/support/,
  raw asyncio sockets, as light as a phone's EventSource: each joins the room, is seen at each keepalive), through
  haproxy with no cookie for 'two' (which spreads them on both replicas);
- memory per student: the servers' VmRSS with the N following, minus before they connected, divided by N;
- idle CPU: the servers' utime+stime (/proc) over --idle-seconds with the N following and no step (each watcher
  reads its room every 2 s, the backstop to being woken at each change);
- steps: --steps POSTs of the lecturer's step, 0.8-1.4 s apart (seeded; a fixed interval would keep each step at
  one phase of the other replica's poll), each to the room's next frame. Measured: from the POST sent to each
  follower holding the new event (p50, p95, max; missed: not within --wait s), on 'two' also split by whether the
  follower is on the replica that took the step; the servers' CPU per step (the steps' window, idle included), and
  on 'two' Redis's and haproxy's;
- the answers: the lecturer's page opened again in Chromium, as a reloaded tab takes its class back (the code and
  secret in its own storage), at frame ASK_AT of the lesson (reuse's a*a _backward shown), clicks *Ask the room*
  (the grads a*b's _backward writes); after QUIET_S s with the question open and no answer (the servers' CPU
  then: the projector reading the room every second, the students following), each follower POSTs one answer to
  /answer at a random moment within --answers-within s (seeded; MIX, a mix of right and the typical mistakes, typed
  as phones type them). Measured: each answer's round trip (p50, p95, max, refusals); the servers' CPU an
  answer (over the answers' window, less the same window with none); and the projector's text, read in the page
  every POLL_MS ms: from the last answer's 200 to it showing `N of N answered` and each group line as the answers
  make them, each answer to the projector counting it, and how often the projector read the room. Then the page's
  *Done with this question*, and the class back at the steps' last frame;
- a student's first graph: the join link (?class=CODE) opened in Chromium (Debian's, with Playwright) while the N
  follow, clocked as bench/bench_page.py clocks a first graph (goto to the frame after the graph's SVG has a size):
  cold (a new browser context) and warm (the median of WARM_LOADS loads after it, new tabs of that context).
Beside them, the anchor, in the same run: Streamlit's own near-empty page, bench/empty_app.py (an st.App with a
one-line script) served the same way, clocked from goto to the frame after its one line has a size.

Goals, printed beside, never asserted: p95 <= 1 s; the first graph (warm) within 1.5 s of the empty page (warm); the
projector's spread complete within 2 s of the last answer's 200 (bench/__init__.py's CLASS_*_GOAL).
"""

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright

from bench import CLASS_FIRST_GRAPH_GOAL_S, CLASS_P95_GOAL_MS, CLASS_SPREAD_GOAL_S, WARM_LOADS, readme_tables
from bench.bench_page import WATCH_FIRST_GRAPH, cpu_s
from server.live import KEEPALIVE_S
from server.rooms import ENV, JOINS_ENV, JOINS_PER_WINDOW, MAX_STUDENTS, SIZE_ENV
from tests.support.follow import Follower, post_answer, post_step
from tests.support.replicas import LIVE_BACKEND, serve_redis, serve_replicas
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, serve_app


def rss_kb(pid):
    for line in open(f'/proc/{pid}/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    return 0


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float('nan')


LESSON = 'expr=reuse'  # the lecturer's scenario
FRAMES = 6  # the steps go round the lesson's first frames: 1, 2, ..., 5, 0, 1, ...
ANSWERS_WITHIN_S = 10
CASES = {
    'one': 'one replica, rooms in its memory',
    'two': 'two replicas behind HAProxy, one Redis',
}
EMPTY_APP = 'bench/empty_app.py'  # an st.App whose script writes one line
# runs in the empty page before Streamlit does: the wall-clock time of the animation frame after its one line has a
# size, under the name bench_page's WATCH_FIRST_GRAPH gives the graph's
WATCH_EMPTY_PAGE = """(() => {
  const look = () => {
    const line = document.querySelector('[data-testid=stMarkdownContainer]');
    if (line && line.getBoundingClientRect().width > 0 && line.textContent.includes('An empty page'))
      requestAnimationFrame(() => { window.firstGraphAt = performance.timeOrigin + performance.now(); });
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""


def port_of(url):
    return int(url.rsplit(':', 1)[1])


def own_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def latency(seconds):
    ms = [1000 * s for s in seconds]
    if not ms:
        return {'n': 0, 'p50': None, 'p95': None, 'max': None, 'mean': None}
    return {'n': len(ms), 'p50': round(pct(ms, 0.50), 1), 'p95': round(pct(ms, 0.95), 1),
            'max': round(max(ms), 1), 'mean': round(statistics.fmean(ms), 1)}  # fmt: skip


# ---------------------------------------------------------------- Chromium: the lecturer, a first graph


async def open_class(browser, url):
    """The lecturer's page starts a class: (code, secret, scenario, frame) from the step its player posts."""
    context = await browser.new_context(viewport={'width': 1600, 'height': 1000})
    try:
        page = await context.new_page()
        await page.goto(f'{url}/?{LESSON}&present=1')
        start = page.get_by_role('button', name='Start a class')
        await start.wait_for(timeout=120_000)
        await page.wait_for_timeout(1000)  # the first run settled: a click during it can be lost

        def a_step(request):
            return request.method == 'POST' and '/api/class/' in request.url and request.url.endswith('/step')

        async with page.expect_request(a_step, timeout=120_000) as posted:
            await start.click()
        request = await posted.value
        response = await request.response()
        if response is None or not response.ok:
            raise RuntimeError(f"the lecturer's first step was refused: {response and await response.text()}")
        secret = (await request.all_headers())['x-class-secret']
        code = request.url.split('/api/class/')[1].split('/')[0]
        body = request.post_data_json
        return code, secret, body['scenario'], body['frame']
    finally:
        await context.close()


async def first_shown(context, address, timeout_s=120):
    """Seconds from goto to the watched thing painted (window.firstGraphAt), or None if not within timeout_s."""
    page = await context.new_page()
    try:
        t0 = time.time() * 1000
        await page.goto(address)
        await page.wait_for_function('window.firstGraphAt || window.noGraph', timeout=timeout_s * 1000, polling=100)
        shown = await page.evaluate('window.firstGraphAt')
        return (shown - t0) / 1000 if shown else None
    except Exception as error:  # noqa: BLE001 - a load that draws nothing is written down, not raised
        print(f'  {address}: nothing shown ({str(error).splitlines()[0]})', flush=True)
        return None
    finally:
        await page.close()


async def loads(browser, address, watch, warm_loads):
    """{cold_s, warm_loads_s, warm_s}: a first load in a new context, then `warm_loads` in new tabs of it."""
    context = await browser.new_context(viewport={'width': 1600, 'height': 1000})
    await context.add_init_script(watch)
    try:
        cold = await first_shown(context, address)
        warm = [await first_shown(context, address) for _ in range(warm_loads)]
    finally:
        await context.close()
    drawn = [w for w in warm if w is not None]

    def s(x):
        return None if x is None else round(x, 3)

    return {
        'cold_s': s(cold),
        'warm_loads_s': [s(w) for w in warm],
        'warm_s': s(statistics.median(drawn)) if drawn else None,
    }


# ---------------------------------------------------------------- the class


ASK_AT = 6  # the frame the projector stands at when the lecturer asks: reuse's a*a _backward shown, a*b's next
MIX = {'right': 45, 'swapped': 20, 'assign': 12, 'sign': 13, 'other': 10}  # how the class answers, in 100
BLANK = 0.05  # of the students, the share who leave a grad after the first blank
POLL_MS = 50  # the projector's text is read this often
QUIET_S = KEEPALIVE_S + 2  # the question open and no answer, before the answers: the baseline of their CPU
ANSWER_CONNECTIONS = 60  # answers in flight at once at most (a phone sends one; 300 at random moments seldom overlap)
# in the lecturer's page: each change of what the projector shows of the answers, the wall-clock time (ms) it was
# first read, the count answered and whether the spread is complete (`N of N answered`, every group line as expected)
WATCH_SPREAD = """([n, lines, every]) => {
  window.spreadLog = [];
  let last = '';
  const read = () => {
    const text = document.body.innerText;
    const m = text.match(/(\\d+) of (\\d+) answered/);
    const count = m ? Number(m[1]) : null;
    const complete = !!m && Number(m[1]) === n && Number(m[2]) === n && lines.every((line) => text.includes(line));
    const key = `${count} ${complete}`;
    if (key !== last) { window.spreadLog.push([Date.now(), count, complete]); last = key; }
  };
  read();
  window.spreadWatch = setInterval(read, every);
}"""


def class_question(scenario, frame, shown):
    """The question the lecturer's page asked at `frame` of `scenario`, in full, as the page makes it
    (engine.answers.candidates on the frame's step): [{'node', 'label', 'candidates'}]. `shown`: the question as the
    phones got it, whose labels it must have."""
    from engine import PRESETS, trace_backward
    from engine.answers import candidates
    from engine.frames import frames

    expression = PRESETS[scenario['expr']]
    values = {name: float(scenario[f'v.{name}']) for name in expression.defaults if f'v.{name}' in scenario}
    leaves, out = expression.build(values)
    trace = trace_backward(out, leaves)
    every = frames(trace, scenario.get('forward', '1') == '1', scenario.get('leaves', '1') == '1')
    asked = candidates(trace, every[frame].steps_done - 1)
    if [a['label'] for a in asked] != [a['label'] for a in shown['asked']]:
        raise RuntimeError(f'the question asked is not the one worked out here: {shown} against {asked}')
    return asked


def typed(value, rng):
    """A number as a phone's keyboard may type it: '4', '4.0', '4,0', the page's own minus sign copied."""
    text = f'{value:g}'
    form = rng.random()
    if form < 0.2:
        text = text + ',0' if '.' not in text and 'e' not in text else text.replace('.', ',')
    elif form < 0.3:
        text = text.replace('-', '\u2212')
    elif form < 0.4:
        text = f' {text} '
    return text


def class_answers(asked, n, rng):
    """`n` students' answers, {node: as typed}, drawn from MIX: a group for each student, each grad answered with
    that group's value (the right one where the mistake gives none for it), 'other' a near miss; a few leave the
    grads after the first blank."""
    groups = rng.choices(list(MIX), weights=list(MIX.values()), k=n)
    out = []
    for group in groups:
        answer = {}
        for i, item in enumerate(asked):
            values = dict(item['candidates'])
            right = values['right']
            value = right * 1.5 + 1 if group == 'other' else values.get(group, right)
            if i == 0 or rng.random() >= BLANK:
                answer[item['node']] = typed(value, rng)
        out.append(answer)
    return out


async def projector(browser, url, code, secret):
    """The lecturer's page again, as a reloaded tab takes its class back (the code and secret in its own storage):
    the projector, at frame ASK_AT. (context, page)."""
    context = await browser.new_context(viewport={'width': 1600, 'height': 1000})
    lead = json.dumps({'code': code, 'secret': secret})
    await context.add_init_script(f"window.sessionStorage.setItem('backprop-class-lead', {json.dumps(lead)});")
    page = await context.new_page()
    await page.goto(f'{url}/?{LESSON}&present=1&step={ASK_AT}')
    try:
        await page.get_by_test_id('class-code').first.wait_for(timeout=120_000)
    except Exception:
        shot = Path(tempfile.gettempdir()) / 'bench_class_projector.png'
        await page.screenshot(path=str(shot))
        print(f'  the projector never showed its class: {shot}\n' + await page.evaluate('document.body.innerText'))
        raise
    return context, page


async def post_all(port, code, question, plan, began):
    """Each student's answer posted at their moment after `began` (time.perf_counter()): [(student, status, sent,
    answered, answered on the wall clock)] (perf_counter seconds, and time.time() for the page's clock)."""
    gate = asyncio.Semaphore(ANSWER_CONNECTIONS)

    async def one(follower, answer, at):
        await asyncio.sleep(max(0.0, began + at - time.perf_counter()))
        async with gate:
            try:
                status, body, sent = await post_answer('127.0.0.1', port, code, follower.student, question, answer)
            except (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError) as error:
                status, body, sent = None, repr(error), time.perf_counter()
        if status != 200:
            print(f'  {follower.name}: answer refused, {status} {body}', flush=True)
        return follower.student, status, sent, time.perf_counter(), time.time()

    return await asyncio.gather(*(one(f, answer, at) for f, answer, at in plan))


async def answers_spread(browser, url, port, code, secret, scenario, followers, servers, others, within_s):
    """The lecturer's projector (a Chromium page) asks the room (*Ask the room*), and each follower answers once at a
    random moment within `within_s` s (POST /answer, a mix of right and the typical mistakes). Measured: each answer's
    round trip; the servers' CPU over the answers, and over as long with the question open and no answer; and, read
    from the projector's text every POLL_MS ms, when it showed each count answered, and when `N of N answered` with
    every group line as the answers make them: from the last answer's 200 to then."""
    from server.rooms import read_answers
    from view.room_answers import groups_lines, tally

    n, rng = len(followers), random.Random(2)
    context, page = await projector(browser, url, code, secret)
    try:
        # the projector leads the class again: its player posts ASK_AT; the panel reads the room every second
        await asyncio.gather(*(f.wait_for(timeout=60, connection=1) for f in followers))
        deadline = time.monotonic() + 60
        while any(f.state['frame'] != ASK_AT for f in followers):
            if time.monotonic() > deadline:
                raise RuntimeError(f'the projector did not take the class to frame {ASK_AT}')
            await asyncio.sleep(0.1)
        ask = page.locator('.st-key-ask_room button').first
        await page.wait_for_function(  # the panel has read the room at ASK_AT: it offers the step after it
            "() => { const b = document.querySelector('.st-key-ask_room button');"
            " return b && !b.disabled && b.innerText.includes('(a*b)'); }",
            timeout=60_000,
            polling=100,
        )
        await ask.click()
        deadline = time.monotonic() + 60
        while any(not (f.state or {}).get('question') for f in followers):
            if time.monotonic() > deadline:
                raise RuntimeError('the question asked did not reach every follower')
            await asyncio.sleep(0.1)
        shown = followers[0].state['question']
        asked = class_question(scenario, shown['frame'], shown)
        await page.get_by_text(f'0 of {n} answered').first.wait_for(timeout=60_000)

        answers = class_answers(asked, n, rng)
        full = {'asked': asked}
        numbers = {f.student: read_answers(full, a) for f, a in zip(followers, answers)}
        lines = groups_lines(tally(numbers, asked))
        await page.evaluate(WATCH_SPREAD, [n, lines, POLL_MS])

        # the question open, no answer, for longer than a stream's keepalive: the projector's and the followers' own
        # cost; the projector must count all N (each stream marks its student seen every KEEPALIVE_S, steps or not:
        # tests/app/test_live_routes.py)
        cpu0, quiet0 = sum(cpu_s(pid) for pid in servers), time.perf_counter()
        await asyncio.sleep(QUIET_S)
        await page.get_by_test_id('class-students').get_by_text(f'{n} students follow').first.wait_for(timeout=60_000)
        quiet_s = time.perf_counter() - quiet0
        present = int((await page.get_by_test_id('class-students').first.inner_text()).split()[0])
        cpu1, others1 = sum(cpu_s(pid) for pid in servers), {name: cpu_s(pid) for name, pid in others.items()}
        began = time.perf_counter()
        moments = sorted(rng.uniform(0, within_s) for _ in range(n))
        order = list(zip(followers, answers))
        rng.shuffle(order)
        results = await post_all(port, code, shown['id'], [(f, a, at) for (f, a), at in zip(order, moments)], began)
        window_s = time.perf_counter() - began
        cpu2, others2 = sum(cpu_s(pid) for pid in servers), {name: cpu_s(pid) for name, pid in others.items()}
        ok = [r for r in results if r[1] == 200]
        last_ok = max((r[4] for r in ok), default=None)
        try:
            await page.wait_for_function(
                '() => window.spreadLog.some(([, , complete]) => complete)', timeout=30_000, polling=100
            )
        except Exception as error:  # noqa: BLE001 - a spread never complete is written down, not raised
            print(f'  the projector never showed the spread complete: {str(error).splitlines()[0]}', flush=True)
        await asyncio.sleep(1.5)  # one more refresh read, for the log's last gap
        log = await page.evaluate('window.spreadLog')
        shown_text = await page.evaluate('document.body.innerText')
        # the lecturer is done with the question: the phones' pages go back to the graph alone
        await page.locator('.st-key-close_question button').first.click()
        deadline = time.monotonic() + 60
        while any((f.state or {}).get('question') for f in followers):
            if time.monotonic() > deadline:
                raise RuntimeError('the question closed did not leave every follower')
            await asyncio.sleep(0.1)
    finally:
        await context.close()

    complete_at = next((at / 1000 for at, _, complete in log if complete), None)
    spread_s = None if complete_at is None or last_ok is None else complete_at - last_ok
    # each answer (by its 200, in order) against the first time the projector counted that many
    done = sorted(r[4] for r in ok)
    counts = [(at / 1000, count) for at, count, _ in log if count is not None]
    lags = []
    for rank, at in enumerate(done, start=1):
        seen = next((when for when, count in counts if count >= rank), None)
        if seen is not None:
            lags.append(seen - at)
    changes = [when for (when, count), (_, before) in zip(counts[1:], counts) if count != before]
    gaps = [b - a for a, b in zip(changes, changes[1:])]
    idle_cpu = cpu1 - cpu0
    cpu = cpu2 - cpu1
    row = {
        'students': n,
        'within_s': within_s,
        'frame': shown['frame'],
        'asked': [{'label': a['label'], 'candidates': a['candidates']} for a in asked],
        'mix': MIX,
        'group_lines': lines,
        'present': present,
        'answered': len(ok),
        'refused': {str(s): sum(r[1] == s for r in results) for s in {r[1] for r in results} if s != 200},
        'route_ms': latency([r[3] - r[2] for r in ok]),
        'window_s': round(window_s, 2),
        'server_cpu_ms': round(1000 * cpu, 1),
        'server_cpu_ms_no_answers': round(1000 * idle_cpu * window_s / quiet_s, 1),
        'server_cpu_ms_per_answer': round(1000 * (cpu - idle_cpu * window_s / quiet_s) / n, 2),
        **{f'{name}_cpu_ms': round(1000 * (others2[name] - others1[name]), 1) for name in others},
        'last_answer_to_spread_s': None if spread_s is None else round(spread_s, 3),
        'answer_to_projector_ms': {**latency(lags), 'min': round(1000 * min(lags), 1) if lags else None},
        'projector_refresh_s': None if not gaps else round(statistics.median(gaps), 3),
        'projector_updates': len(changes),
        'projector_log': [[round(at / 1000 - log[0][0] / 1000, 3), count, complete] for at, count, complete in log],
        'complete': complete_at is not None,
    }
    if complete_at is None:
        row['projector_text'] = shown_text[-3000:]
    print(f'  {n} answers within {within_s:g} s: route p50 {row["route_ms"]["p50"]} / p95 {row["route_ms"]["p95"]} '
          f'ms, {sum(row["refused"].values())} refused; server CPU {row["server_cpu_ms"]} ms '
          f'({row["server_cpu_ms_no_answers"]} ms with none), {row["server_cpu_ms_per_answer"]} ms an answer; '
          f'last 200 to the spread complete {row["last_answer_to_spread_s"]} s; an answer to the projector p50 '
          f'{row["answer_to_projector_ms"]["p50"]} / max {row["answer_to_projector_ms"]["max"]} ms; the projector '
          f'read the room every {row["projector_refresh_s"]} s', flush=True)  # fmt: skip
    return row


async def run_case(browser, key, url, servers, args, balancer=None, others=None):
    """One case: the lecturer's class at `url`, N followers, the steps, a first graph. `servers`: the replicas'
    pids; `others`: {name: pid} measured beside (Redis, haproxy)."""
    port, others = port_of(url), others or {}
    print(f'{CASES[key]}:', flush=True)
    code, secret, scenario, frame = await open_class(browser, url)
    await asyncio.sleep(2.0)
    rss_before = sum(rss_kb(pid) for pid in servers)
    followers = [Follower('127.0.0.1', port, code, join=True, name=f'student {i}')
                 for i in range(args.students)]  # fmt: skip
    began = time.perf_counter()
    tasks = [asyncio.create_task(follower.run()) for follower in followers]
    try:
        held = await asyncio.gather(*(f.wait_for(connection=1, timeout=60) for f in followers), return_exceptions=True)
        connect_s = time.perf_counter() - began
        unconnected = sum(isinstance(h, BaseException) for h in held)
        await asyncio.sleep(2.0)
        rss_after = sum(rss_kb(pid) for pid in servers)
        where = {}
        if balancer is not None:
            served = {r.client_port: r.server for r in balancer.requests() if r.backend == LIVE_BACKEND}
            where = {f.name: served.get(f.connections[0]) for f in followers if f.connections}
        spread = {}
        for replica in where.values():
            spread[replica] = spread.get(replica, 0) + 1
        print(f'  {args.students} following in {connect_s:.1f} s ({unconnected} not); '
              f'{(rss_after - rss_before) / args.students:.1f} kB a student; {spread or ""}', flush=True)  # fmt: skip

        idle0 = sum(cpu_s(pid) for pid in servers)
        await asyncio.sleep(args.idle_seconds)
        idle_ms_per_s = 1000 * (sum(cpu_s(pid) for pid in servers) - idle0) / args.idle_seconds

        rng = random.Random(1)
        arrivals, misses = [], 0
        cpu0, others0 = sum(cpu_s(pid) for pid in servers), {name: cpu_s(pid) for name, pid in others.items()}
        client0, wall0 = own_cpu(), time.perf_counter()
        for i in range(args.steps):
            frame = (frame + 1) % FRAMES
            status, body, sent = await post_step('127.0.0.1', port, code, secret, scenario, frame)
            if status != 200:
                raise RuntimeError(f'step {i + 1} refused: {status} {body}')
            version = body['version']
            await asyncio.gather(
                *(f.wait_for(version, timeout=args.wait) for f in followers), return_exceptions=True
            )  # a follower without it by then is counted as missing it
            got = [(f.name, f.held[version] - sent) for f in followers if version in f.held]
            misses += len(followers) - len(got)
            arrivals.append(got)
            await asyncio.sleep(max(0.0, sent + rng.uniform(0.8, 1.4) - time.perf_counter()))
        wall = time.perf_counter() - wall0
        cpu = sum(cpu_s(pid) for pid in servers) - cpu0
        others_cpu = {name: cpu_s(pid) - others0[name] for name, pid in others.items()}
        client = own_cpu() - client0
        every = latency([s for got in arrivals for _, s in got])
        row = {
            'case': key, 'name': CASES[key], 'students': args.students, 'replicas': len(servers),
            'spread': spread, 'connect_s': round(connect_s, 2), 'not_connected': unconnected,
            'steps': args.steps, 'latency_ms': every, 'missed': misses,
            'drops': sum(f.drops for f in followers),
            'server_cpu_ms_per_step': round(1000 * cpu / args.steps, 1),
            'server_idle_cpu_ms_per_s': round(idle_ms_per_s, 1),
            **{f'{name}_cpu_ms_per_step': round(1000 * c / args.steps, 1) for name, c in others_cpu.items()},
            'client_cpu_pct': round(100 * client / wall, 1),
            'rss_before_mb': round(rss_before / 1024, 1),
            'kb_per_student': round((rss_after - rss_before) / args.students, 1),
        }  # fmt: skip
        if balancer is not None:  # which replica took each step, in order (the lecturer's page's own POST first)
            posts = [r.server for r in balancer.requests() if r.method == 'POST' and r.path.endswith('/step')]
            took = posts[-args.steps :]
            same = [s for got, step in zip(arrivals, took) for name, s in got if where.get(name) == step]
            other = [s for got, step in zip(arrivals, took) for name, s in got if where.get(name) != step]
            row['steps_by_replica'] = {name: took.count(name) for name in sorted(set(took))}
            row['latency_ms_same_replica'], row['latency_ms_other_replica'] = latency(same), latency(other)
        print(f'  {args.steps} steps: p50 {every["p50"]} ms, p95 {every["p95"]} ms, max {every["max"]} ms, '
              f'{misses} missed; server CPU {row["server_cpu_ms_per_step"]} ms a step '
              f'(idle {row["server_idle_cpu_ms_per_s"]} ms/s)', flush=True)  # fmt: skip

        row['answers'] = await answers_spread(browser, url, port, code, secret, scenario, followers, servers, others,
                                              args.answers_within)  # fmt: skip
        status, body, _ = await post_step('127.0.0.1', port, code, secret, scenario, frame)  # where the steps left it
        if status != 200:
            raise RuntimeError(f'the step back to frame {frame} was refused: {status} {body}')
        row['first_graph'] = await loads(browser, f'{url}/?class={code}', WATCH_FIRST_GRAPH, args.warm_loads)
        print(f'  first graph from the join link: {row["first_graph"]["cold_s"]} s cold, '
              f'{row["first_graph"]["warm_s"]} s warm', flush=True)  # fmt: skip
        return row
    finally:
        for follower in followers:
            await follower.close()
        await asyncio.gather(*tasks, return_exceptions=True)


async def bench(args):
    out = {'machine': {'cores': os.cpu_count(), 'load_average_at_start': os.getloadavg()}, 'cases': []}
    logs = []  # the servers' logs: a traceback in one is a failure of the page, printed and counted
    try:
        await run_cases(args, out, logs)
    finally:
        errors = [i for i, line in enumerate(logs) if line.startswith('Traceback')]
        out['server_tracebacks'] = len(errors)
        for i in errors[:3]:
            print('a server logged:\n' + '\n'.join(logs[i : i + 40]), flush=True)
    out['machine']['load_average_at_end'] = os.getloadavg()
    return out


async def run_cases(args, out, logs):
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            with serve_app(timeout=120, script=EMPTY_APP) as url:
                out['empty_page'] = await loads(browser, f'{url}/', WATCH_EMPTY_PAGE, args.warm_loads)
            print(f'empty page: {out["empty_page"]["cold_s"]} s cold, {out["empty_page"]["warm_s"]} s warm', flush=True)
            # every follower joins from this machine's one address, as a hall behind one NAT: its joins a minute
            # raised; and a room that holds them all, as a lecture hall's server is set (docs/teaching.md)
            hall = {JOINS_ENV: str(max(JOINS_PER_WINDOW, 2 * args.students)),
                    SIZE_ENV: str(max(MAX_STUDENTS, args.students))}  # fmt: skip
            if 'one' in args.cases:
                with serve_app(timeout=120, env=hall, log_lines=logs) as url:
                    out['cases'].append(await run_case(browser, 'one', url, [url.pid], args))
            if 'two' in args.cases:
                with (
                    serve_redis() as redis_url,
                    serve_replicas(
                        2,
                        env={ENV: redis_url, **hall},
                        timeout=120,
                        maxconn=max(1000, 2 * args.students + 200),
                        log_lines=logs,
                    ) as (served, balancer, url),
                ):
                    servers = [replica.pid for replica in served.values()]
                    others = {'redis': redis_url.pid, 'haproxy': balancer.pid}
                    out['cases'].append(await run_case(browser, 'two', url, servers, args, balancer, others))
        finally:
            await browser.close()


# ---------------------------------------------------------------- the report


def goals(out):
    """{case: {'p95_met', 'first_graph_met', 'first_graph_over_empty_s', 'spread_met'}}."""
    empty = out['empty_page']['warm_s']
    verdicts = {}
    for row in out['cases']:
        p95, warm = row['latency_ms']['p95'], row['first_graph']['warm_s']
        over = None if warm is None or empty is None else warm - empty
        answers = row.get('answers') or {}
        spread = answers.get('last_answer_to_spread_s')
        verdicts[row['case']] = {
            'p95_met': p95 is not None and row['missed'] == 0 and p95 <= CLASS_P95_GOAL_MS,
            'first_graph_over_empty_s': None if over is None else round(over, 2),
            'first_graph_met': over is not None and over <= CLASS_FIRST_GRAPH_GOAL_S,
            'spread_met': spread is not None
            and answers['answered'] == row['students']
            and spread <= CLASS_SPREAD_GOAL_S,
        }
    return verdicts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run: 30 students, 5 steps, 2 warm loads')
    parser.add_argument('--cases', type=lambda s: s.split(','), default=list(CASES), help='one,two (both)')
    parser.add_argument('--students', type=int, help='followers in the room (300; --quick 30)')
    parser.add_argument('--steps', type=int, help="the lecturer's steps (20; --quick 5)")
    parser.add_argument('--idle-seconds', type=float, help='the window with no step (10; --quick 3)')
    parser.add_argument('--warm-loads', type=int, help=f'warm loads of each first graph ({WARM_LOADS}; --quick 2)')
    parser.add_argument('--wait', type=float, default=10.0, help='how long a step waits for every follower (10)')
    parser.add_argument('--answers-within', type=float, default=ANSWERS_WITHIN_S,
                        help=f'the students answer within this many seconds ({ANSWERS_WITHIN_S})')  # fmt: skip
    parser.add_argument('--out', help='a path stem other than bench/results/class (--quick: under /tmp)')
    args = parser.parse_args()
    typed_args = [a for a, before in zip(sys.argv[1:], ['', *sys.argv[1:]]) if '--out' not in (a, before)]
    quick = args.quick
    args.students = args.students or (30 if quick else 300)
    args.steps = args.steps or (5 if quick else 20)
    args.idle_seconds = args.idle_seconds or (3.0 if quick else 10.0)
    args.warm_loads = args.warm_loads or (2 if quick else WARM_LOADS)
    if quick and not args.out:
        args.out = str(Path(tempfile.gettempdir()) / 'class_quick')
    began = time.perf_counter()
    out = asyncio.run(bench(args))
    out['goals'] = goals(out)
    out['args'] = {**vars(args), 'command': ['python -m bench.bench_class', *typed_args]}
    out['run_s'] = time.perf_counter() - began
    text = readme_tables.as_text('Class benchmark: python -m bench.bench_class (a class in one room)', out)
    # the 300 class's results are class.*; another size's its own (class_3000.*), each in its docs' block
    stem = 'class' if args.students == 300 else f'class_{args.students}'
    readme_tables.write_results(stem, text, out, out=args.out)


if __name__ == '__main__':
    main()
