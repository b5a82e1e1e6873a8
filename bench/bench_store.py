"""`python -m bench.bench_store` (the old Lua on fakeredis needs `pip install lupa`): the rooms' store, its rules twice
(commit LUA) and once, in one run: 300 students answer one at a time, then at once through 2 servers of 32 threads
(server/live.py's to_thread) or 300 clients; in the process, on fakeredis, on redis-server. Writes results/store.*"""

import json
import os
import statistics
import subprocess
import sys
import time
import types
from concurrent.futures import ThreadPoolExecutor
from itertools import product
from pathlib import Path
from unittest import mock

import fakeredis
import redis

from server import rooms as after
from tests.support.replicas import serve_redis

LUA = 'ec6133d'  # the last commit with the rules in Lua
STUDENTS, ASKED = 300, [{'node': 'a', 'label': 'a.grad', 'candidates': [['right', 6.0], ['forgot', 3.0]]}]
STORES, ROUNDS = ['memory', 'fakeredis', 'redis'], 3
RUNS = {'one at a time': (1, 1), 'at once, 2 servers x 32 threads': (2, 32), 'at once, 300 clients': (300, 1)}
RESULTS = Path(__file__).parent / 'results'
pct = lambda values, q: sorted(values)[int(q * len(values))]  # noqa: E731


def stores(module, url):  # each call of a maker: another server's client; the memory store is one
    fake, memory = fakeredis.FakeServer(), module.MemoryBackend()
    client = lambda *_, **__: fakeredis.FakeRedis(server=fake, decode_responses=True)  # noqa: E731
    on_fake = mock.patch.object(redis.Redis, 'from_url', client)  # the old backend takes a URL alone
    return {'memory': lambda: memory, 'fakeredis': on_fake(lambda: module.RedisBackend('redis://fake')),
            'redis': lambda: module.RedisBackend(url)}  # fmt: skip


def answers(module, make, servers, workers):
    """Each answer's seconds in the store, and from when all were sent (its wait for a thread too); the retries."""
    room = (rooms := module.Rooms(make(), max_students=1000)).create({'expr': 'reuse'})
    students = [rooms.join(room.code) for _ in range(STUDENTS)]
    rooms.ask(room.code, room.secret, 0, ASKED)
    servers = [(module.Rooms(make(), max_students=1000), ThreadPoolExecutor(workers)) for _ in range(servers)]
    took, sent = [], time.perf_counter()

    def answer(server, student):
        t = time.perf_counter()
        server.answer(room.code, student, 1, {'a': '6'})
        took.append((time.perf_counter() - t, time.perf_counter() - sent))

    done = [pool.submit(answer, server, s) for s, (server, pool) in zip(students, servers * STUDENTS)]
    [d.result() for d in done], [pool.shutdown() for _, pool in servers]
    assert len(rooms.answers(room.code, room.secret)[1]) == STUDENTS
    return *zip(*took), sum(getattr(getattr(s.backend, 'store', None), 'retries', 0) for s, _ in servers)


def main():
    old = sys.modules['rooms_lua'] = types.ModuleType('rooms_lua')
    exec(subprocess.run(['git', 'show', f'{LUA}:server/rooms.py'], capture_output=True, check=True).stdout, vars(old))
    rows, load = {}, os.getloadavg()[0]
    with serve_redis() as url:  # each cell ROUNDS times, before and after in turn; the median of each figure
        for _, store, (run, (servers, workers)), (name, module) in product(
            range(ROUNDS), STORES, RUNS.items(), [('before (Lua)', old), ('after (rules once)', after)]
        ):
            if servers < 3 or store == 'redis':
                ts, ws, retries = answers(module, stores(module, url)[store], servers, workers)
                rows.setdefault(f'{store:9} {name:18} {run:32}', []).append(
                    {'store_p50_us': pct(ts, 0.5) * 1e6, 'store_p95_us': pct(ts, 0.95) * 1e6,
                     'sent_p95_ms': pct(ws, 0.95) * 1e3, 'retries': retries})  # fmt: skip
    result = {key: {k: round(statistics.median(r[k] for r in runs), 1) for k in runs[0]} for key, runs in rows.items()}
    lines = [f'{STUDENTS} students answer a question, median of {ROUNDS} rounds; load average {load:.1f}, 2 cores'] + [
        key + ', '.join(f'{k} {v:g}' for k, v in row.items()) for key, row in result.items()]  # fmt: skip
    (RESULTS / 'store.json').write_text(json.dumps(result, indent=1) + '\n')
    (RESULTS / 'store.txt').write_text('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
