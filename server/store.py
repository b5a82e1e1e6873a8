"""The small key-value store a live class's rules (server/rooms.py's `Backend`) are written over, in two kinds: in
this process (`MemoryStore`, dicts under one lock) and in Redis (`RedisStore`, shared by every replica given the same
URL). Pure Python and, for Redis, the `redis` client; no Streamlit.

A rule runs as one transaction, `store.run(rule, watch, now)`: `rule(tx)` reads with one `tx.read(...)` (a batch of
queries, each a tuple named as Redis names the command: `('hmget', key, fields)`, `('zscore', key, member)`, ...), then
writes with `tx.hset`, `tx.zadd`, ... and returns its answer. In the process the whole rule holds the lock. In Redis
the rule's keys are WATCHed before it reads and its writes go in one MULTI/EXEC, run again from its reads if another
replica changed a watched key meanwhile (optimistic: nothing is locked in Redis, so no lock can be left behind by a
replica that died, and a room's rules run one at a time within a replica, so only replicas race); a rule that only
reads watches nothing and reads in one MULTI/EXEC. The keys a rule reads must be in `watch`. Values come back as
Redis gives them: a hash's as text, a sorted set's scores as floats. Why, and the measures: docs/hosting.md.

A key's expiry is in the clock's seconds in the process (`now`, the rule's: a test's clock rules) and in real seconds
in Redis (EXPIRE): it only forgets what has long ended."""

import math
import random
import threading
import time

READS = {'hget', 'hmget', 'hgetall', 'hexists', 'hlen', 'exists', 'zscore', 'zcount'}
WRITES = {'hset', 'hincrby', 'zadd', 'zrem', 'zremrangebyscore', 'delete', 'expire', 'publish'}
SWEEP_S = 60.0  # the in-process store forgets its expired keys at most this often (in the clock's seconds)
TRIES = 100  # a rule run this many times in Redis, another replica's write beating it each time: Busy
BACKOFF_S = 0.05  # the longest wait before a rule beaten by another replica's write runs again
STRIPES = 64  # a Redis client's locks, each for the rooms whose key hashes to it


class Busy(Exception):
    """A rule lost to other clients' writes TRIES times in a row."""


def _bound(value):
    """A score bound as Redis reads it (`-inf`, `(3.5`, 7): (number, exclusive)."""
    text = str(value)
    return (float(text[1:]), True) if text.startswith('(') else (float(text), False)


def _within(low, high):
    """A test of a score: is it between the bounds `low` and `high`, as ZCOUNT reads them?"""
    (lo, lo_open), (hi, hi_open) = _bound(low), _bound(high)
    return lambda score: (score > lo if lo_open else score >= lo) and (score < hi if hi_open else score <= hi)


def _text(value):
    return value if isinstance(value, str) else repr(value)  # as redis-py sends a number: repr(3.5), repr(2)


class MemoryStore:
    """The store in this process's memory, under one lock (Streamlit's script threads and the server's event loop both
    call in): a key is a dict, a hash's field -> text or a sorted set's member -> score."""

    def __init__(self):
        self.lock, self.data, self.expiry, self.swept = threading.Lock(), {}, {}, -math.inf

    def run(self, rule, watch=(), now=None):
        with self.lock:
            if now is not None and now >= self.swept + SWEEP_S:
                self.swept = now
                for key in [k for k, at in self.expiry.items() if at <= now]:
                    self.data.pop(key, None), self.expiry.pop(key, None)
            return rule(_MemoryTx(self, now))


class _MemoryTx:
    def __init__(self, store, now):
        self.store, self.now, self.writing = store, now, False

    def read(self, *queries):
        assert not self.writing, 'a rule reads before it writes'
        return [getattr(self, name)(*args) for name, *args in queries]

    def _get(self, key):
        at = self.store.expiry.get(key)
        if at is not None and self.now is not None and at <= self.now:
            self.store.data.pop(key, None), self.store.expiry.pop(key, None)
        return self.store.data.get(key)

    def _put(self, key):
        self.writing = True
        return self.store.data.setdefault(key, {})

    def _drop_empty(self, key):
        if not self.store.data.get(key, True):
            self.delete(key)

    def hget(self, key, field):
        return (self._get(key) or {}).get(field)

    def hmget(self, key, fields):
        held = self._get(key) or {}
        return [held.get(f) for f in fields]

    def hgetall(self, key):
        return dict(self._get(key) or {})

    def hexists(self, key, field):
        return field in (self._get(key) or {})

    def hlen(self, key):
        return len(self._get(key) or {})

    def exists(self, key):
        return int(self._get(key) is not None)

    def zscore(self, key, member):
        return (self._get(key) or {}).get(member)

    def zcount(self, key, low, high):
        within = _within(low, high)
        return sum(map(within, (self._get(key) or {}).values()))

    def hset(self, key, mapping):
        self._put(key).update({f: _text(v) for f, v in mapping.items()})

    def hincrby(self, key, field, amount=1):
        held = self._put(key)
        held[field] = str(int(held.get(field, 0)) + amount)

    def zadd(self, key, mapping):
        self._put(key).update({m: float(s) for m, s in mapping.items()})

    def zrem(self, key, *members):
        held = self._put(key)
        for m in members:
            held.pop(m, None)
        self._drop_empty(key)

    def zremrangebyscore(self, key, low, high):
        held, within = self._put(key), _within(low, high)
        for m in [m for m, s in held.items() if within(s)]:
            del held[m]
        self._drop_empty(key)

    def delete(self, *keys):
        self.writing = True
        for key in keys:
            self.store.data.pop(key, None), self.store.expiry.pop(key, None)

    def expire(self, key, seconds):
        self.writing = True
        if self._get(key) is not None:
            self.store.expiry[key] = self.now + seconds

    def publish(self, channel, message):
        """Nobody else hears this store: the rooms tell their own listeners (rooms.Rooms.listen)."""
        self.writing = True


class RedisStore:
    """The store in Redis: `client` a `redis.Redis` with decode_responses (a real one, or fakeredis's in the tests).
    A rule that writes holds one of this client's STRIPES locks (by its first key: one room's rules run one at a time
    in a replica, so only replicas race each other), then sends WATCH and its reads at once, and its writes in one
    MULTI/EXEC: two round trips. A rule beaten by another replica's write waits a random while, up to twice as long
    each time (to BACKOFF_S), and runs again. `tries` counts the rules run and `retries` each run again."""

    def __init__(self, client):
        import redis  # only a server given a Redis URL needs the client

        self.redis, self.error, self.tries, self.retries = client, redis.ResponseError, 0, 0
        self.stripes = [threading.Lock() for _ in range(STRIPES)]

    def run(self, rule, watch=(), now=None):
        if not watch:
            return self._run(rule, watch)
        with self.stripes[hash(watch[0]) % STRIPES]:
            for attempt in range(TRIES):
                done, value = self._run(rule, watch)
                if done:
                    return value
                self.retries += 1
                time.sleep(random.uniform(0, min(BACKOFF_S, 0.001 * 2**attempt)))  # the racing replicas spread out
        raise Busy(f'{TRIES} tries lost to other writes')

    def _run(self, rule, watch):
        self.tries += 1
        pool = self.redis.connection_pool
        connection = pool.get_connection()
        try:
            tx = _RedisTx(connection, watch, self.error)
            value = rule(tx)
            if not watch:
                return value
            done = tx.commit()  # an empty MULTI/EXEC for a refusal: its reads were one moment's too
            return done, value
        except BaseException:
            connection.disconnect()  # no half-read answer left on it
            raise
        finally:
            pool.release(connection)


# how a reply is read, where redis-py's own commands would convert it (RESP2, as the client speaks by default)
_REPLY = {'zscore': lambda r: None if r is None else float(r), 'hexists': bool,
          'hgetall': lambda r: r if isinstance(r, dict) else dict(zip(r[::2], r[1::2]))}  # fmt: skip


def _command(name, key, *args):
    """A method's arguments as the Redis command's: hmget's fields, hset's and zadd's mappings spread out."""
    if name == 'hmget':
        return ['HMGET', key, *args[0]]
    if name == 'hset':
        return ['HSET', key, *(x for pair in args[0].items() for x in pair)]
    if name == 'zadd':
        return ['ZADD', key, *(x for member, score in args[0].items() for x in (score, member))]
    return [{'delete': 'DEL'}.get(name, name.upper()), key, *args]


class _RedisTx:
    def __init__(self, connection, watch, error):
        self.connection, self.watch, self.error, self.writes = connection, watch, error, []

    def _send(self, commands):
        """Every reply, in one round trip; the first error raised once all are read."""
        self.connection.send_packed_command(self.connection.pack_commands(commands))
        replies, error = [], None
        for _ in commands:
            try:
                replies.append(self.connection.read_response())
            except self.error as e:
                replies.append(None)
                error = error or e
        if error:
            raise error
        return replies

    def read(self, *queries):
        """With keys watched, WATCH and then the reads (a write between the WATCH and the EXEC fails the EXEC: what
        was read still held). A rule that only reads: in a MULTI/EXEC of its own, as one moment's."""
        assert not self.writes and all(name in READS for name, *_ in queries)
        commands = [_command(name, *args) for name, *args in queries]
        if self.watch:
            replies = self._send([['WATCH', *self.watch], *commands])[1:]
        else:
            replies = self._send([['MULTI'], *commands, ['EXEC']])[-1]
        return [_REPLY.get(name, lambda r: r)(r) for (name, *_), r in zip(queries, replies)]

    def commit(self):
        """The writes in one MULTI/EXEC; False if a watched key changed since the WATCH (nothing written)."""
        return self._send([['MULTI'], *self.writes, ['EXEC']])[-1] is not None

    def __getattr__(self, name):
        assert name in WRITES and self.watch, f'{name}: a rule writes only what it watches, after it reads'
        return lambda *args, **kwargs: self.writes.append(_command(name, *args, *kwargs.values()))
