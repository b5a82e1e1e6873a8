"""How a phone should follow the lecturer: server-sent events, a websocket of our own, or polling, measured on a
minimal `st.App` (bench/channels_app.py) served by `streamlit run` on 127.0.0.1 (loopback only, about 90 s).

    python -m bench.bench_channels                  # writes bench/results/channels.{txt,json}
    python -m bench.bench_channels --sizes 50 --steps 3

For each channel and N followers (--sizes, 50, 150 and 300): N followers connect (raw asyncio sockets for SSE and
polling, the `websockets` client for the websocket), then the lecturer steps --steps times, one step every
--step-every s (a POST that bumps the room's version). Measured: from the step's POST being sent to each follower
holding the new version (p50, p95, max; a follower that has not got it within --wait s counts as missed), the
server's CPU (utime+stime from /proc/PID/stat) over the steps' window, per step and as % of a core, and its RSS
growth per follower (VmRSS after the N connected, minus before). Polling asks every --poll-every s (2/s) with
If-None-Match, each follower starting at a random phase; it gets 304 Not Modified while nothing changed.

Streamlit's own websocket is no channel for following: a message on it reruns the student's script.
"""

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import statistics
import time

from websockets.asyncio.client import connect as ws_connect

from bench import readme_tables
from tests.support.serve import serve_app

CLK_TCK = os.sysconf('SC_CLK_TCK')
CHANNELS = ('sse', 'websocket', 'poll')


def cpu_seconds(pid):
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14 and 15 of the whole line)


def rss_kb(pid):
    for line in open(f'/proc/{pid}/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    return 0


def client_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float('nan')


class Arrivals:
    """When each follower first held each version; `wait(v)` returns when all `n` hold it."""

    def __init__(self, n):
        self.n, self.times, self.events = n, {}, {}

    def event(self, version):
        return self.events.setdefault(version, asyncio.Event())

    def saw(self, follower, version):
        held = self.times.setdefault(version, {})
        if follower not in held:
            held[follower] = time.perf_counter()
            if len(held) == self.n:
                self.event(version).set()

    async def wait(self, version, timeout):
        try:
            await asyncio.wait_for(self.event(version).wait(), timeout)
        except TimeoutError:
            pass


async def read_response(reader):
    """Status, headers and body of one HTTP/1.1 response with a Content-Length (or none, as a 304 has)."""
    status = int((await reader.readline()).split()[1])
    headers = {}
    while (line := await reader.readline()) not in (b'\r\n', b''):
        name, _, value = line.decode().partition(':')
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get('content-length', 0)))
    return status, headers, body


async def sse_follower(port, me, arrivals, counts):
    reader, writer = await asyncio.open_connection('127.0.0.1', port)
    try:
        writer.write(b'GET /api/sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n')
        await writer.drain()
        async for line in reader:  # chunked: size lines, then `data: V`; only the data lines matter here
            if line.startswith(b'data: '):
                counts['messages'] += 1
                arrivals.saw(me, int(line[6:]))
    finally:
        writer.close()


async def ws_follower(port, me, arrivals, counts):
    async with ws_connect(f'ws://127.0.0.1:{port}/api/ws', compression=None) as websocket:
        async for message in websocket:
            counts['messages'] += 1
            arrivals.saw(me, int(message))


async def poll_follower(port, me, arrivals, counts, every):
    reader, writer = await asyncio.open_connection('127.0.0.1', port)
    loop, etag = asyncio.get_running_loop(), ''
    try:
        await asyncio.sleep(random.uniform(0, every))
        due = loop.time()
        while True:
            writer.write(f'GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: {etag}\r\n\r\n'.encode())
            await writer.drain()
            status, headers, body = await read_response(reader)
            counts['requests'] += 1
            if status == 200:
                etag = headers['etag']
                arrivals.saw(me, json.loads(body)['version'])
            else:
                counts['not_modified'] += 1
            due += every
            await asyncio.sleep(max(0.0, due - loop.time()))
    finally:
        writer.close()


async def lecturer_step(port):
    """POST /api/step; the new version, and when the request was sent."""
    reader, writer = await asyncio.open_connection('127.0.0.1', port)
    try:
        sent = time.perf_counter()
        writer.write(b'POST /api/step HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
        await writer.drain()
        _, _, body = await read_response(reader)
        return json.loads(body)['version'], sent
    finally:
        writer.close()


async def current_version(port):
    reader, writer = await asyncio.open_connection('127.0.0.1', port)
    try:
        writer.write(b'GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
        await writer.drain()
        return json.loads((await read_response(reader))[2])['version']
    finally:
        writer.close()


async def run_case(url, channel, n, args):
    port, pid = int(url.rsplit(':', 1)[1]), url.pid
    await asyncio.sleep(0.5)
    rss_before = rss_kb(pid)
    arrivals, counts = Arrivals(n), {'messages': 0, 'requests': 0, 'not_modified': 0}
    start = await current_version(port)
    if channel == 'sse':
        tasks = [asyncio.create_task(sse_follower(port, i, arrivals, counts)) for i in range(n)]
    elif channel == 'websocket':
        tasks = [asyncio.create_task(ws_follower(port, i, arrivals, counts)) for i in range(n)]
    else:
        tasks = [asyncio.create_task(poll_follower(port, i, arrivals, counts, args.poll_every)) for i in range(n)]
    connected = time.perf_counter()
    await arrivals.wait(start, 20)
    connect_s = time.perf_counter() - connected
    connected_all = len(arrivals.times.get(start, {})) == n
    await asyncio.sleep(1.0)
    rss_after = rss_kb(pid)
    latencies, missed = [], 0
    cpu0, client0, wall0, requests0 = cpu_seconds(pid), client_cpu(), time.perf_counter(), counts['requests']
    for _ in range(args.steps):
        version, sent = await lecturer_step(port)
        await arrivals.wait(version, args.wait)
        held = arrivals.times.get(version, {})
        latencies += [t - sent for t in held.values()]
        missed += n - len(held)
        await asyncio.sleep(max(0.0, sent + args.step_every - time.perf_counter()))
    wall = time.perf_counter() - wall0
    cpu, client = cpu_seconds(pid) - cpu0, client_cpu() - client0
    requests = counts['requests'] - requests0
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    ms = [1000 * x for x in latencies]
    return {
        'channel': channel,
        'followers': n,
        'connected_all': connected_all,
        'connect_s': round(connect_s, 2),
        'steps': args.steps,
        'p50_ms': round(pct(ms, 0.50), 1),
        'p95_ms': round(pct(ms, 0.95), 1),
        'max_ms': round(max(ms), 1) if ms else None,
        'mean_ms': round(statistics.fmean(ms), 1) if ms else None,
        'missed': missed,
        'server_cpu_ms_per_step': round(1000 * cpu / args.steps, 1),
        'server_cpu_pct': round(100 * cpu / wall, 1),
        'client_cpu_pct': round(100 * client / wall, 1),
        'requests_per_s': round(requests / wall, 1),
        'rss_before_mb': round(rss_before / 1024, 1),
        'rss_kb_per_follower': round((rss_after - rss_before) / n, 1),
    }


def table(rows, args):
    header = (
        f'{"channel":<10} | {"N":>4} | {"p50 ms":>7} | {"p95 ms":>7} | {"max ms":>7} | {"missed":>6} | '
        f'{"CPU ms/step":>11} | {"CPU %":>6} | {"req/s":>6} | {"KB/follower":>11}'
    )
    lines = [header, '-' * len(header)]
    for r in rows:
        name = f'poll {1 / args.poll_every:g}/s' if r['channel'] == 'poll' else r['channel']
        lines.append(
            f'{name:<10} | {r["followers"]:>4} | {r["p50_ms"]:>7} | {r["p95_ms"]:>7} | {r["max_ms"]:>7} | '
            f'{r["missed"]:>6} | {r["server_cpu_ms_per_step"]:>11} | {r["server_cpu_pct"]:>6} | '
            f'{r["requests_per_s"]:>6} | {r["rss_kb_per_follower"] or "-":>11}'
        )
    return lines


def recommendation(rows):
    by = {(r['channel'], r['followers']): r for r in rows}
    top = max(r['followers'] for r in rows)
    sse, ws, poll = by[('sse', top)], by[('websocket', top)], by[('poll', top)]
    if sse['missed'] or sse['p95_ms'] > 1000:
        return f'No recommendation: at {top} followers SSE missed {sse["missed"]} or took p95 {sse["p95_ms"]} ms.'
    return (
        f'Recommendation: server-sent events. At {top} followers a step reached every follower in p95 '
        f'{sse["p95_ms"]} ms over SSE, {ws["p95_ms"]} ms over a websocket of our own and {poll["p95_ms"]} ms '
        f'polling; server CPU per step {sse["server_cpu_ms_per_step"]}, {ws["server_cpu_ms_per_step"]} and '
        f'{poll["server_cpu_ms_per_step"]} ms. Polling pays its {poll["requests_per_s"]} requests/s whether or '
        'not anyone steps, and its latency averages half its interval. SSE and the websocket both push within '
        'milliseconds; SSE wins on what is around it: following is one-way, as SSE is; it is a plain HTTP response '
        "(no upgrade through HAProxy or ingress-nginx); the browser's EventSource reconnects by itself and a late "
        'or reconnected phone gets the current version as its first event; a keepalive comment every 15 s stays '
        "inside proxies' idle timeouts (HAProxy's 60 s). Polling with ETags stays the fallback where a proxy "
        "buffers streams; the room's answers go as plain POSTs, not on the stream."
    )


async def bench(args):
    """Each channel on a server of its own, the largest class first: its RSS growth per follower is measured on a
    fresh server; a smaller class after it reuses the memory the larger one left (its figure is not kept)."""
    rows = []
    for channel in CHANNELS:
        with serve_app(timeout=60, script='bench/channels_app.py') as url:
            for i, n in enumerate(sorted(args.sizes, reverse=True)):
                row = await run_case(url, channel, n, args)
                if i:
                    row['rss_kb_per_follower'] = None
                print(json.dumps(row), flush=True)
                rows.append(row)
    return sorted(rows, key=lambda r: (r['followers'], CHANNELS.index(r['channel'])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--sizes', type=lambda s: [int(x) for x in s.split(',')], default=[50, 150, 300])
    parser.add_argument('--steps', type=int, default=6)
    parser.add_argument('--step-every', type=float, default=1.0)
    parser.add_argument('--poll-every', type=float, default=0.5)
    parser.add_argument('--wait', type=float, default=3.0, help='how long a step waits for every follower')
    parser.add_argument('--out', default=None, help='a path stem other than bench/results/channels')
    args = parser.parse_args()
    began = time.perf_counter()
    rows = asyncio.run(bench(args))
    lines = [
        'Channels benchmark: python -m bench.bench_channels (bench/channels_app.py, an st.App under streamlit run)',
        f'machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}; '
        'server and followers on 127.0.0.1, one asyncio client process',
        f'{args.steps} steps, one every {args.step_every:g} s; polling every {args.poll_every:g} s with '
        f'If-None-Match (304 while unchanged); run took {time.perf_counter() - began:.0f} s',
        '',
        *table(rows, args),
        '',
        "p50/p95/max: from the step's POST sent to each follower holding the new version, over every follower and "
        "step; missed: never got it within the wait. CPU: the server process's utime+stime over the steps' "
        'window, per step and as % of one core; req/s: polls served. KB/follower: VmRSS growth with the N '
        'followers connected, divided by N, on a fresh server (each channel its own, the largest N first; a '
        'smaller N reuses what it left, so no figure).',
        '',
        recommendation(rows),
    ]
    readme_tables.write_results('channels', '\n'.join(lines), {'args': vars(args), 'rows': rows}, out=args.out)


if __name__ == '__main__':
    main()
