"""A live class of N students (300) in one room: how soon the lecturer's step reaches every phone, what it costs the
servers, and how soon a student's page draws its first graph, on one replica with the in-process store and on two
behind haproxy with one Redis (deploy/haproxy.cfg; bench/replicas.py). Loopback only, about 4 minutes.

    python -m bench.bench_class                   # writes bench/results/class.{txt,json}
    python -m bench.bench_class --quick           # a smoke run: 30 students, 5 steps (written under /tmp)
    python -m bench.bench_class --cases two --students 100 --steps 10

Each case starts its servers: 'one', `streamlit run main.py` (the rooms in its memory); 'two', two of them given
BACKPROP_REDIS_URL of one redis-server, behind haproxy run with deploy/haproxy.cfg. Then:
- the lecturer: a Chromium page opens ?expr=reuse&present=1 and clicks *Start a class*; its player posts the first
  frame with the lecturer's secret, which the benchmark takes from that request and posts every later step with, as
  the player does (the page is then closed: the room outlives its lecturer's last word by 5 minutes, longer than a
  case);
- the students: N followers of the room's server-sent events with ?student=ID, as a phone's page (bench/follow.py,
  raw asyncio sockets, as light as a phone's EventSource: each joins the room, is seen at each keepalive), through
  haproxy with no cookie for 'two' (which spreads them on both replicas);
- memory per student: the servers' VmRSS with the N following, minus before they connected, divided by N;
- idle CPU: the servers' utime+stime (/proc) over --idle-seconds with the N following and no step (on 'two', each
  replica's watcher reads Redis every 0.5 s);
- steps: --steps POSTs of the lecturer's step, 0.8-1.4 s apart (seeded; a fixed interval would keep each step at
  one phase of the other replica's poll), each to the room's next frame. Measured: from the POST sent to each
  follower holding the new event (p50, p95, max; missed: not within --wait s), on 'two' also split by whether the
  follower is on the replica that took the step; the servers' CPU per step (the steps' window, idle included), and
  on 'two' Redis's and haproxy's;
- a student's first graph: the join link (?class=CODE) opened in Chromium (Debian's, with Playwright) while the N
  follow, clocked as bench/bench_page.py clocks a first graph (goto to the frame after the graph's SVG has a size):
  cold (a new browser context) and warm (the median of WARM_LOADS loads after it, new tabs of that context).
Beside them, the anchor, in the same run: Streamlit's own near-empty page, bench/channels_app.py (an st.App with a
one-line script) served the same way, clocked from goto to the frame after its one line has a size.

Goals, printed beside, never asserted: p95 <= 1 s; the first graph (warm) within 1.5 s of the empty page (warm).
"""

import argparse
import asyncio
import os
import platform
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright

from bench import CLASS_FIRST_GRAPH_GOAL_S, CLASS_P95_GOAL_MS, WARM_LOADS, readme_tables
from bench.bench_channels import pct, rss_kb
from bench.bench_page import WATCH_FIRST_GRAPH, cpu_s
from bench.follow import Follower, post_step
from bench.replicas import LIVE_BACKEND, serve_redis, serve_replicas
from bench.serve import CHROMIUM, CHROMIUM_ARGS, serve_app
from server.rooms import ENV

LESSON = 'expr=reuse'  # the lecturer's scenario
FRAMES = 6  # the steps go round the lesson's first frames: 1, 2, ..., 5, 0, 1, ...
ANSWERS_WITHIN_S = 10
CASES = {
    'one': 'one replica, rooms in its memory',
    'two': 'two replicas behind HAProxy, one Redis',
}
EMPTY_APP = 'bench/channels_app.py'  # an st.App whose script writes one line
# runs in the empty page before Streamlit does: the wall-clock time of the animation frame after its one line has a
# size, under the name bench_page's WATCH_FIRST_GRAPH gives the graph's
WATCH_EMPTY_PAGE = """(() => {
  const look = () => {
    const line = document.querySelector('[data-testid=stMarkdownContainer]');
    if (line && line.getBoundingClientRect().width > 0 && line.textContent.includes('follower'))
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


async def answers_spread(host, port, code, secret, followers, within_s=ANSWERS_WITHIN_S):
    # answers: 300 answers sent within 10 s → spread complete — added when POST /answer lands
    """To fill in now that the room's questions are on main (Rooms.ask(code, secret, frame, asked) by the
    lecturer's page, POST /api/class/{code}/answer {'student', 'question', 'answers'} by each phone): the lecturer
    asks; each follower answers once at a random moment within `within_s` s (bench/follow.py gets the POST beside
    post_step), as a class does; measured: each answer's round trip (p50/p95/max, refusals), the servers' CPU per
    answer, and from the last answer sent to the lecturer's spread (Rooms.answers) counting every one. None until
    then."""
    return None


async def run_case(browser, key, url, servers, args, balancer=None, others=None):
    """One case: the lecturer's class at `url`, N followers, the steps, a first graph. `servers`: the replicas'
    pids; `others`: {name: pid} measured beside (Redis, haproxy)."""
    port, others = port_of(url), others or {}
    print(f'{CASES[key]}:', flush=True)
    code, secret, scenario, frame = await open_class(browser, url)
    await asyncio.sleep(2.0)
    rss_before = sum(rss_kb(pid) for pid in servers)
    followers = [Follower('127.0.0.1', port, code, student=f'bench-student-{i:04d}', name=f'student {i}')
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

        row['answers'] = await answers_spread('127.0.0.1', port, code, secret, followers)
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
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            with serve_app(timeout=120, script=EMPTY_APP) as url:
                out['empty_page'] = await loads(browser, f'{url}/', WATCH_EMPTY_PAGE, args.warm_loads)
            print(f'empty page: {out["empty_page"]["cold_s"]} s cold, {out["empty_page"]["warm_s"]} s warm', flush=True)
            if 'one' in args.cases:
                with serve_app(timeout=120) as url:
                    out['cases'].append(await run_case(browser, 'one', url, [url.pid], args))
            if 'two' in args.cases:
                with (
                    serve_redis() as redis_url,
                    serve_replicas(2, env={ENV: redis_url}, timeout=120) as (served, balancer, url),
                ):
                    servers = [replica.pid for replica in served.values()]
                    others = {'redis': redis_url.pid, 'haproxy': balancer.pid}
                    out['cases'].append(await run_case(browser, 'two', url, servers, args, balancer, others))
        finally:
            await browser.close()
    out['machine']['load_average_at_end'] = os.getloadavg()
    return out


# ---------------------------------------------------------------- the report


def goals(out):
    """{case: {'p95': met, 'first_graph': met, 'first_graph_over_empty_s': s}}."""
    empty = out['empty_page']['warm_s']
    verdicts = {}
    for row in out['cases']:
        p95, warm = row['latency_ms']['p95'], row['first_graph']['warm_s']
        over = None if warm is None or empty is None else warm - empty
        verdicts[row['case']] = {
            'p95_met': p95 is not None and row['missed'] == 0 and p95 <= CLASS_P95_GOAL_MS,
            'first_graph_over_empty_s': None if over is None else round(over, 2),
            'first_graph_met': over is not None and over <= CLASS_FIRST_GRAPH_GOAL_S,
        }
    return verdicts


def fmt(x, digits=2):
    return '-' if x is None else f'{x:.{digits}f}'


def report(out, args, took_s):
    header = (
        f'{"case":<41} | {"N":>4} | {"p50 ms":>7} | {"p95 ms":>7} | {"max ms":>7} | {"missed":>6} | '
        f'{"CPU ms/step":>11} | {"idle ms/s":>9} | {"kB/student":>10} | {"1st graph s":>11}'
    )
    load = out['machine']
    lines = [
        'Class benchmark: python -m bench.bench_class (main.py under streamlit run; a class in one room)',
        f'machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}; '
        'servers, followers (one asyncio process) and Chromium on 127.0.0.1; load average '
        f'{load["load_average_at_start"][0]:.2f} at the start, {load["load_average_at_end"][0]:.2f} at the end',
        f'{args.students} students following over SSE; {args.steps} steps 0.8-1.4 s apart; run took {took_s:.0f} s',
        '',
        header,
        '-' * len(header),
    ]
    for row in out['cases']:
        lat = row['latency_ms']
        lines.append(
            f'{row["name"]:<41} | {row["students"]:>4} | {fmt(lat["p50"], 1):>7} | {fmt(lat["p95"], 1):>7} | '
            f'{fmt(lat["max"], 1):>7} | {row["missed"]:>6} | {row["server_cpu_ms_per_step"]:>11} | '
            f'{row["server_idle_cpu_ms_per_s"]:>9} | {row["kb_per_student"]:>10} | '
            f'{fmt(row["first_graph"]["warm_s"]):>11}'
        )
    empty = out['empty_page']
    lines.append(f'{"empty page (bench/channels_app.py)":<41} | {"":>4} | {"":>7} | {"":>7} | {"":>7} | {"":>6} | '
                 f'{"":>11} | {"":>9} | {"":>10} | {fmt(empty["warm_s"]):>11}')  # fmt: skip
    lines.append('')
    for row in out['cases']:
        if 'latency_ms_same_replica' in row:
            same, other = row['latency_ms_same_replica'], row['latency_ms_other_replica']
            lines.append(
                f'{row["name"]}: followers {row["spread"]}; steps taken by {row["steps_by_replica"]}; on the replica '
                f'that took the step p50 {fmt(same["p50"], 1)} / p95 {fmt(same["p95"], 1)} ms ({same["n"]}), on '
                f'the other p50 {fmt(other["p50"], 1)} / p95 {fmt(other["p95"], 1)} ms ({other["n"]}, within '
                f'its poll of Redis); Redis {row.get("redis_cpu_ms_per_step")} and haproxy '
                f'{row.get("haproxy_cpu_ms_per_step")} ms of CPU a step'
            )
    lines += [
        '',
        "p50/p95/max: from the lecturer's step POSTed to each follower holding the new event, over every follower "
        "and step; missed: not within the wait. CPU ms/step: the replicas' utime+stime over the steps' window "
        "(idle included) per step; idle ms/s: the same with no step, per second. kB/student: the replicas' VmRSS "
        'with the N following minus before, divided by N. 1st graph s: the join link (?class=CODE) in Chromium, '
        f'warm (median of {args.warm_loads} loads in new tabs after a cold one), while the N follow; the empty '
        "page is Streamlit's own one-line st.App, warm the same way. First graphs cold: "
        + '; '.join(f'{row["case"]} {fmt(row["first_graph"]["cold_s"])} s' for row in out['cases'])
        + f'; the empty page {fmt(empty["cold_s"])} s.',
        '',
        'Goals:',
    ]
    for row in out['cases']:
        v = out['goals'][row['case']]
        lines.append(
            f'- {row["name"]}: p95 <= {CLASS_P95_GOAL_MS} ms: {row["latency_ms"]["p95"]} ms, '
            f'{readme_tables.met(v["p95_met"])}; first graph within {CLASS_FIRST_GRAPH_GOAL_S} s of the empty page: '
            f'{fmt(v["first_graph_over_empty_s"])} s more, {readme_tables.met(v["first_graph_met"])}'
        )
    lines.append(
        '- 300 answers within 10 s, spread complete: not measured yet '
        '(answers_spread: to fill in with the answer route)'
    )
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run: 30 students, 5 steps, 2 warm loads')
    parser.add_argument('--cases', type=lambda s: s.split(','), default=list(CASES), help='one,two (both)')
    parser.add_argument('--students', type=int, help='followers in the room (300; --quick 30)')
    parser.add_argument('--steps', type=int, help="the lecturer's steps (20; --quick 5)")
    parser.add_argument('--idle-seconds', type=float, help='the window with no step (10; --quick 3)')
    parser.add_argument('--warm-loads', type=int, help=f'warm loads of each first graph ({WARM_LOADS}; --quick 2)')
    parser.add_argument('--wait', type=float, default=10.0, help='how long a step waits for every follower (10)')
    parser.add_argument('--out', help='a path stem other than bench/results/class (--quick: under /tmp)')
    args = parser.parse_args()
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
    out['args'] = vars(args)
    readme_tables.write_results('class', report(out, args, time.perf_counter() - began), out, out=args.out)


if __name__ == '__main__':
    main()
