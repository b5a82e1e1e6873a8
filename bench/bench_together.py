"""Learning together (the room is the minibatch): N phones (300) each send their share of the batch, and how soon the
projector's sums are complete; on one replica with the in-process store and on two behind haproxy with one Redis
(tests/support/replicas.py). Loopback only, about 2 minutes.

    python -m bench.bench_together                # writes bench/results/together.{txt,json}
    python -m bench.bench_together --quick        # a smoke run: 30 phones (written under /tmp)

Each case starts its servers as bench/bench_class.py does. Then:
- the projector: a Chromium page (1920×1080) opens the regression in batch mode on POINTS points of a noisy line
  (in the link) in the presentation view, clicks *Start a class*, then *Learn together*;
- the phones: N followers of the room's events with ?student=ID (tests/support/follow.py, as a phone's page), each
  handed a point in the order it asks (round-robin: with more phones than points, points are shared);
- the shares: each phone POSTs /grads (its id and the scenario it follows, never a number: the server computes the
  grads of its point) at a random moment within --within s (seeded). Measured: each request's round trip (p50, p95,
  max, refusals); the servers' CPU a share; and, read from the projector's text every POLL_MS ms, when it showed
  `POINTS of POINTS points in, from N phones`: from the last share's 200 to then, and whether its sum of w's grads is
  the one worked out here in plain Python over every point (2·(w·x + b − y)·x at the start's w and b);
- the step: the projector's *Step on the mean*, and from the click to each phone holding the class's new scenario,
  whose w is the one worked out here (p50, p95, max; missed).

Goals, printed beside, never asserted: every share taken within the window; the projector's sums complete within 2 s
of the last share's 200 (bench/__init__.py's TOGETHER_SUMS_GOAL_S).
"""

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.async_api import async_playwright

from bench import TOGETHER_SUMS_GOAL_S, readme_tables
from bench.bench_class import CASES, latency, port_of
from bench.bench_page import cpu_s
from server.rooms import ENV, JOINS_ENV, JOINS_PER_WINDOW, MAX_STUDENTS, SIZE_ENV
from tests.support.follow import Follower, request
from tests.support.replicas import serve_redis, serve_replicas
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, serve_app

POINTS = 200  # the dataset's points: the most a page takes (engine/batch.py's MAX_POINTS)
WITHIN_S = 10.0
POLL_MS = 50
CONNECTIONS = 60  # shares in flight at once at most
W, B, LR = 0.5, 0.0, 0.1  # the regression's start, and its default rate


def dataset(n=POINTS):
    """n points on y = 2x − 1 with noise (σ 0.5), x evenly from −2 to 2, each to 2 decimals: [(x, y)]."""
    rng = random.Random(43)
    xs = [round(-2 + 4 * k / (n - 1), 2) for k in range(n)]
    return [(x, round(2 * x - 1 + rng.gauss(0, 0.5), 2)) for x in xs]


def link(points):
    data = 'x,y\n' + '\n'.join(f'{x:g},{y:g}' for x, y in points)
    return urlencode({'expr': 'regression', 'mode': 'batch', 'data': data, 'present': '1'})


# the projector's text: each change of its count of points and phones, the wall-clock time (ms) it was first read
WATCH_SUMS = """([points, phones, every]) => {
  window.sumsLog = [];
  let last = '';
  const read = () => {
    const m = document.body.innerText.match(/(\\d+) of (\\d+) points in, from (\\d+) phone/);
    const key = m ? `${m[1]} ${m[3]}` : '';
    if (key !== last) {
      window.sumsLog.push([Date.now(), m ? Number(m[1]) : null, m ? Number(m[3]) : null,
                           !!m && Number(m[1]) === points && Number(m[3]) === phones]);
      last = key;
    }
  };
  read();
  window.sumsWatch = setInterval(read, every);
}"""


async def start_together(browser, url, points):
    """The projector: the batch's class started, learning together. (context, page, code)."""
    context = await browser.new_context(viewport={'width': 1920, 'height': 1080})
    page = await context.new_page()
    await page.goto(f'{url}/?{link(points)}')
    start = page.get_by_role('button', name='Start a class')
    await start.wait_for(timeout=120_000)
    await page.wait_for_timeout(1000)  # the first run settled: a click during it can be lost
    await start.click()
    code = page.get_by_test_id('class-code')
    await code.wait_for(timeout=60_000)
    code = (await code.inner_text()).replace(' ', '')
    await page.get_by_role('button', name='Learn together').click()
    await page.get_by_text('0 of', exact=False).first.wait_for(timeout=60_000)
    return context, page, code


async def wait_state(followers, ok, timeout):
    deadline = time.monotonic() + timeout
    while not all(f.state and ok(f.state) for f in followers):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def run_case(browser, key, url, servers, args):
    port, points = port_of(url), dataset(args.points)
    print(f'{CASES[key]}:', flush=True)
    context, page, code = await start_together(browser, url, points)
    followers = [Follower('127.0.0.1', port, code, join=True, name=f'phone {i}') for i in range(args.phones)]
    tasks = [asyncio.create_task(f.run()) for f in followers]
    try:
        began = time.perf_counter()
        held = await asyncio.gather(*(f.wait_for(connection=1, timeout=60) for f in followers), return_exceptions=True)
        unconnected = sum(isinstance(h, BaseException) for h in held)
        if not await wait_state(followers, lambda s: s['scenario'].get('together') == '1', 60):
            raise RuntimeError('the phones never got the class learning together')
        print(f'  {args.phones} phones following in {time.perf_counter() - began:.1f} s ({unconnected} not)')
        covered = points[: args.phones]  # round-robin: the first phones take the points in order
        await page.evaluate(WATCH_SUMS, [len(covered), args.phones, POLL_MS])
        rng, gate = random.Random(3), asyncio.Semaphore(CONNECTIONS)
        path = f'/api/class/{code}/grads'

        async def share(follower, at, t0):
            await asyncio.sleep(max(0.0, t0 + at - time.perf_counter()))
            async with gate:
                body = {'student': follower.student, 'scenario': follower.state['scenario']}
                try:
                    status, got, sent = await request('127.0.0.1', port, 'POST', path, body)
                except (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError) as error:
                    status, got, sent = None, repr(error), time.perf_counter()
            if status != 200:
                print(f'  {follower.name}: refused, {status} {got}', flush=True)
            return status, sent, time.perf_counter(), time.time()

        cpu0, t0 = sum(cpu_s(pid) for pid in servers), time.perf_counter()
        done = await asyncio.gather(*(share(f, rng.uniform(0, args.within), t0) for f in followers))
        window = time.perf_counter() - t0
        cpu = sum(cpu_s(pid) for pid in servers) - cpu0
        taken = [d for d in done if d[0] == 200]
        last_ms = 1000 * max(d[3] for d in taken) if taken else None
        await page.wait_for_function('window.sumsLog.some((e) => e[3])', timeout=30_000, polling=100)
        log = await page.evaluate('window.sumsLog')
        complete_ms = next(e[0] for e in log if e[3])
        said = await page.evaluate('document.body.innerText')
        expected = sum(2 * (W * x + B - y) * x for x, y in covered)
        shown = f'{expected:.4f}'.replace('-', '\u2212')
        sums_right = f'w.grad: \u03a3 {shown} over {len(covered)} of {len(points)} points' in said
        row = {
            'case': key, 'name': CASES[key], 'phones': args.phones, 'points': len(points), 'in': len(covered),
            'within_s': args.within,
            'not_connected': unconnected, 'taken': len(taken), 'refused': len(done) - len(taken),
            'window_s': round(window, 2), 'route_ms': latency([d[2] - d[1] for d in done]),
            'server_cpu_ms_per_share': round(1000 * cpu / max(1, len(done)), 2),
            'last_share_to_sums_s': round((complete_ms - last_ms) / 1000, 2) if last_ms else None,
            'sums_right': sums_right, 'projector_reads': len(log),
        }  # fmt: skip
        print(f'  {len(taken)} of {len(done)} shares taken in {window:.1f} s, route p50 {row["route_ms"]["p50"]} / '
              f'p95 {row["route_ms"]["p95"]} ms; sums complete {row["last_share_to_sums_s"]} s after the last; '
              f'sums right: {sums_right}', flush=True)  # fmt: skip

        # the step: the projector's button, then every phone at the class's new w
        mean_w = expected / len(covered)
        new_w = W + -LR * mean_w
        clicked = time.perf_counter()
        await page.get_by_role('button', name='Step on the mean').click()
        await wait_state(followers, lambda s: abs(float(s['scenario'].get('v.w', 'nan')) - new_w) < 1e-12, 30)
        stepped = lambda s: abs(float(s['scenario'].get('v.w', 'nan')) - new_w) < 1e-12  # noqa: E731
        arrived = [next((t for t, _, s in f.states if stepped(s)), None) for f in followers]
        reached = [t - clicked for t in arrived if t is not None]
        row['step_to_every_phone_ms'] = latency(reached)
        row['step_missed'] = len(followers) - len(reached)
        print(
            f'  the step reached {len(reached)} phones: p50 {row["step_to_every_phone_ms"]["p50"]} / p95 '
            f'{row["step_to_every_phone_ms"]["p95"]} / max {row["step_to_every_phone_ms"]["max"]} ms',
            flush=True,
        )
        return row
    finally:
        await context.close()
        for follower in followers:
            await follower.close()
        await asyncio.gather(*tasks, return_exceptions=True)


async def bench(args):
    out = {'machine': {'cores': os.cpu_count(), 'load_average_at_start': os.getloadavg()}, 'cases': []}
    logs = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        hall = {JOINS_ENV: str(max(JOINS_PER_WINDOW, 2 * args.phones)), SIZE_ENV: str(max(MAX_STUDENTS, args.phones))}
        try:
            if 'one' in args.cases:
                with serve_app(timeout=120, env=hall, log_lines=logs) as url:
                    out['cases'].append(await run_case(browser, 'one', url, [url.pid], args))
            if 'two' in args.cases:
                with (
                    serve_redis() as redis_url,
                    serve_replicas(2, env={ENV: redis_url, **hall}, timeout=120,
                                   maxconn=max(1000, 2 * args.phones + 200), log_lines=logs) as (served, _, url),
                ):  # fmt: skip
                    servers = [replica.pid for replica in served.values()]
                    out['cases'].append(await run_case(browser, 'two', url, servers, args))
        finally:
            await browser.close()
    errors = [i for i, line in enumerate(logs) if line.startswith('Traceback')]
    out['server_tracebacks'] = len(errors)
    for i in errors[:3]:
        print('a server logged:\n' + '\n'.join(logs[i : i + 40]), flush=True)
    out['machine']['load_average_at_end'] = os.getloadavg()
    return out


def goals(out):
    return {
        row['case']: {
            'all_taken': row['taken'] == row['phones'] and row['window_s'] <= row['within_s'] + 1,
            'sums_met': row['last_share_to_sums_s'] is not None and row['last_share_to_sums_s'] <= TOGETHER_SUMS_GOAL_S,
            'sums_right': row['sums_right'],
        }
        for row in out['cases']
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run: 30 phones')
    parser.add_argument('--cases', type=lambda s: s.split(','), default=list(CASES), help='one,two (both)')
    parser.add_argument('--phones', type=int, help='phones in the room (300; --quick 30)')
    parser.add_argument('--points', type=int, default=POINTS, help=f"the dataset's points ({POINTS})")
    parser.add_argument('--within', type=float, default=WITHIN_S, help=f'the phones send within this ({WITHIN_S:g} s)')
    parser.add_argument('--out', help='a path stem other than bench/results/together (--quick: under /tmp)')
    args = parser.parse_args()
    typed_args = [a for a, before in zip(sys.argv[1:], ['', *sys.argv[1:]]) if '--out' not in (a, before)]
    args.phones = args.phones or (30 if args.quick else 300)
    if args.quick and not args.out:
        args.out = str(Path(tempfile.gettempdir()) / 'together_quick')
    began = time.perf_counter()
    out = asyncio.run(bench(args))
    out['goals'] = goals(out)
    out['args'] = {**vars(args), 'command': ['python -m bench.bench_together', *typed_args]}
    out['run_s'] = time.perf_counter() - began
    text = readme_tables.as_text('Learning together: python -m bench.bench_together (the room is the minibatch)', out)
    readme_tables.write_results('together', text, out, out=args.out)


if __name__ == '__main__':
    main()
