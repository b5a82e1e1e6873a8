"""A live class's rooms: a lecturer opens one, students join it by a code read aloud, and the lecturer's secret alone
moves its state (the scenario as link parameters, and the frame), each move a new version for the phones to follow.

Pure Python and, for rooms that span replicas, the `redis` client; no Streamlit. One interface, two backends: in the
process (the default: `./run.sh` needs nothing more) and Redis (`open_rooms()` with BACKPROP_REDIS_URL set). Every
refusal is a `RoomError` whose message the page can show as it is.

    rooms = open_rooms()
    lecturer = rooms.create({'expr': 'reuse', 'v.a': '3'}, frame=0)   # Lecturer(code='K7QXM', secret='...')
    student = rooms.join('k7qxm')                                      # a student id; the code as typed
    rooms.step(lecturer.code, lecturer.secret, {'expr': 'reuse', 'v.a': '3'}, frame=1).version   # 2
    rooms.state(lecturer.code)                                         # ClassState(version=2, ...)
    rooms.close(lecturer.code, lecturer.secret)                        # then RoomEnded for everyone
"""

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass

ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'  # no 0/O, no 1/I (and codes are upper case, so no l): 32 signs
CODE_LENGTH = 5  # 32**5, 33.5 million codes
MAX_STUDENTS = 500  # per room
MAX_ROOMS = 200  # open at once, in the store (a server's, or every replica's with Redis)
IDLE_S = 3600.0  # a room with no word from its lecturer (create, step, touch) for this long has ended
ENDED_KEEP_S = 86400.0  # how long an ended room is remembered, to tell a late student it ended rather than "unknown"
MAX_STATE_BYTES = 8192  # the scenario and frame as JSON
KEY = re.compile(r'[a-z][a-z0-9_.]{0,31}')  # a link parameter's name: expr, v.a, mode, step, ...
STUDENT = re.compile(r'[A-Za-z0-9_-]{8,64}')
ENV = 'BACKPROP_REDIS_URL'


class RoomError(Exception):
    """A refusal the page shows as it is: `str(error)` is a sentence for the person who asked."""


class RoomNotFound(RoomError):
    """No room has this code (mistyped, or never opened)."""


class RoomEnded(RoomError):
    """The room existed and has ended: `reason` is 'closed' (by its lecturer) or 'idle' (an hour with no word)."""

    def __init__(self, code, reason):
        self.code, self.reason = code, reason
        why = 'the lecturer closed it' if reason == 'closed' else 'it was idle for an hour'
        super().__init__(f'The class {code} has ended: {why}.')


class NotLecturer(RoomError):
    """The secret given is not this room's lecturer's: a student's page, or a tampered link."""


class RoomFull(RoomError):
    """The room holds its most students already."""


class TooManyRooms(RoomError):
    """The store holds its most open rooms already."""


class BadState(RoomError, ValueError):
    """A scenario or frame the room cannot hold (not link parameters, a negative frame, too large)."""


@dataclass(frozen=True)
class Lecturer:
    """What `create` hands the lecturer's page: the code to show, and the secret only that page holds."""

    code: str
    secret: str


@dataclass(frozen=True)
class ClassState:
    """The class's state: the scenario as link parameters (`{'expr': 'reuse', 'v.a': '3'}`), the frame shown, and
    its version, one more at each step (what followers compare)."""

    version: int
    scenario: dict
    frame: int


def normal_code(text):
    """A code as a student types it (`' k7q-xm '`) in its one form (`'K7QXM'`); RoomNotFound if it cannot be one."""
    code = re.sub(r'[\s-]', '', str(text)).upper()[:32]
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        raise RoomNotFound(f'No class has the code {code!r}: check it against the projector.')
    return code


def new_code():
    return ''.join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def digest(secret):
    """What the store keeps of a lecturer's secret: its SHA-256, so that reading the store gives no lecturer's power."""
    return hashlib.sha256(str(secret).encode()).hexdigest()


def state_json(scenario, frame):
    if not isinstance(scenario, dict) or not all(
        isinstance(k, str) and KEY.fullmatch(k) and isinstance(v, str) for k, v in scenario.items()
    ):
        raise BadState('The scenario must be link parameters: names like expr or v.a, each with a text value.')
    if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
        raise BadState(f'The frame must be a whole number from 0: not {frame!r}.')
    text = json.dumps({'scenario': scenario, 'frame': frame}, sort_keys=True, separators=(',', ':'))
    if len(text.encode()) > MAX_STATE_BYTES:
        raise BadState(f'The class state is {len(text.encode())} bytes; a room holds {MAX_STATE_BYTES} at most.')
    return text


class Rooms:
    """The rooms, over a backend (`MemoryBackend()` or `RedisBackend(url)`); `clock` gives seconds (time.time)."""

    def __init__(self, backend=None, *, clock=time.time, max_rooms=MAX_ROOMS, max_students=MAX_STUDENTS,
                 idle=IDLE_S, ended_keep=ENDED_KEEP_S):  # fmt: skip
        self.backend = backend or MemoryBackend()
        self.clock, self.max_rooms, self.max_students = clock, max_rooms, max_students
        self.idle, self.ended_keep = idle, ended_keep

    def _keep(self):
        return int(self.idle + self.ended_keep) + 1  # the backend's own expiry of a room's keys, in seconds

    def _live(self, code, status):
        """Raise for a backend's refusal ('unknown', 'closed', 'idle', 'full', 'rooms'); else return `status`."""
        if status == 'unknown':
            raise RoomNotFound(f'No class has the code {code}: check it against the projector.')
        if status in ('closed', 'idle'):
            raise RoomEnded(code, status)
        if status == 'full':
            raise RoomFull(f'The class {code} is full: it holds {self.max_students} students.')
        if status == 'rooms':
            raise TooManyRooms(f'This server holds {self.max_rooms} classes already: try again later.')
        return status

    def _lecturer(self, code, secret):
        """The room's code, checked live and `secret` checked against its lecturer's (in constant time)."""
        code = normal_code(code)
        kept = self._live(code, self.backend.secret(code, self.clock()))
        if not hmac.compare_digest(digest(secret), kept):
            raise NotLecturer(f"Only the lecturer's page can do this in the class {code}.")
        return code

    def create(self, scenario, frame=0):
        """Open a room at version 1; the Lecturer's code and secret. TooManyRooms at the store's cap."""
        text, secret, now = state_json(scenario, frame), secrets.token_urlsafe(24), self.clock()
        for _ in range(50):
            code = new_code()
            args = code, digest(secret), text, now, now + self.idle, self.max_rooms, self._keep()
            if self._live(code, self.backend.create(*args)) == 'ok':
                return Lecturer(code, secret)
        raise TooManyRooms('No free class code was found: try again.')  # 50 codes taken in a row: 33.5 M codes

    def join(self, code, student=None):
        """A student in the room (again, if `student` is theirs already: joining twice counts once); their id."""
        code = normal_code(code)
        if student is None:
            student = secrets.token_urlsafe(12)
        elif not isinstance(student, str) or not STUDENT.fullmatch(student):
            raise RoomError('This page lost its place in the class: open the join link again.')
        self._live(code, self.backend.join(code, student, self.clock(), self.max_students, self._keep()))
        return student

    def leave(self, code, student):
        self.backend.leave(normal_code(code), str(student))

    def students(self, code):
        """How many students are in the live room."""
        code = normal_code(code)
        self._live(code, self.backend.secret(code, self.clock()))
        return self.backend.count(code)

    def state(self, code):
        """The class's ClassState, for a student or the lecturer."""
        code = normal_code(code)
        got = self.backend.state(code, self.clock())
        if isinstance(got, str):
            self._live(code, got)
        version, text = got
        held = json.loads(text)
        return ClassState(version, held['scenario'], held['frame'])

    def step(self, code, secret, scenario, frame):
        """The lecturer moves the class: the new ClassState, its version one more. NotLecturer without the secret."""
        text = state_json(scenario, frame)
        code, now = self._lecturer(code, secret), self.clock()
        version = self._live(code, self.backend.write(code, text, now, now + self.idle, self._keep()))
        return ClassState(version, scenario, frame)

    def touch(self, code, secret):
        """The lecturer's page is still open: the room's idle hour starts again, its state unchanged."""
        code, now = self._lecturer(code, secret), self.clock()
        self._live(code, self.backend.write(code, None, now, now + self.idle, self._keep()))

    def check(self, code, secret):
        """Nothing if `secret` is the live room's lecturer's; else its RoomError (a reloaded lecturer page asks)."""
        self._lecturer(code, secret)

    def close(self, code, secret):
        """The lecturer ends the room: from now on everyone gets RoomEnded(reason='closed')."""
        code = self._lecturer(code, secret)
        self.backend.end(code, 'closed', self.clock(), int(self.ended_keep) + 1)


class MemoryBackend:
    """The rooms in this process's memory, under one lock (Streamlit's script threads and the server's event loop
    both call in). Each method is the Redis backend's, with the same answers."""

    def __init__(self):
        self.lock, self.rooms = threading.Lock(), {}  # code -> dict(secret, version, state, expires, ended, students)

    def _status(self, code, now):
        room = self.rooms.get(code)
        if room is None or room['forget'] <= now:
            self.rooms.pop(code, None)
            return None, 'unknown'
        if room['ended']:
            return room, room['ended']
        if room['expires'] <= now:
            return room, 'idle'
        return room, 'ok'

    def create(self, code, secret, text, now, expires, max_rooms, keep):
        with self.lock:
            # _status forgets the long-ended as it goes
            if sum(self._status(c, now)[1] == 'ok' for c in list(self.rooms)) >= max_rooms:
                return 'rooms'
            if code in self.rooms:
                return 'taken'
            self.rooms[code] = {'secret': secret, 'version': 1, 'state': text, 'expires': expires, 'ended': '',
                                'forget': now + keep, 'students': set()}  # fmt: skip
            return 'ok'

    def secret(self, code, now):
        with self.lock:
            room, status = self._status(code, now)
            return room['secret'] if status == 'ok' else status

    def state(self, code, now):
        with self.lock:
            room, status = self._status(code, now)
            return (room['version'], room['state']) if status == 'ok' else status

    def join(self, code, student, now, max_students, keep):
        with self.lock:
            room, status = self._status(code, now)
            if status != 'ok':
                return status
            if student not in room['students'] and len(room['students']) >= max_students:
                return 'full'
            room['students'].add(student)
            return 'ok'

    def leave(self, code, student):
        with self.lock:
            if code in self.rooms:
                self.rooms[code]['students'].discard(student)

    def count(self, code):
        with self.lock:
            return len(self.rooms[code]['students']) if code in self.rooms else 0

    def write(self, code, text, now, expires, keep):
        with self.lock:
            room, status = self._status(code, now)
            if status != 'ok':
                return status
            if text is not None:
                room['version'] += 1
                room['state'] = text
            room['expires'], room['forget'] = expires, now + keep
            return room['version']

    def end(self, code, reason, now, keep):
        with self.lock:
            if code in self.rooms:
                self.rooms[code].update(ended=reason, students=set(), forget=now + keep)


# Redis: a room is a hash `backprop:room:CODE` (secret digest, version, state, expires, ended), its students the set
# `backprop:room:CODE:students`, and the open rooms the sorted set `backprop:rooms` (code by its expiry). Each change
# is one Lua script, atomic across replicas; the clock's time comes in as an argument, so a test's clock rules.
# Redis's own expiry (EXPIRE, in real seconds) only forgets long-ended rooms.
_LIVE = """
local r = redis.call('HMGET', KEYS[1], 'expires', 'ended')
if not r[1] then return 'unknown' end
if r[2] ~= '' then return r[2] end
if tonumber(r[1]) <= tonumber(ARGV[1]) then return 'idle' end
"""
_CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'rooms' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'taken' end
redis.call('HSET', KEYS[1], 'secret', ARGV[3], 'version', 1, 'state', ARGV[4], 'expires', ARGV[5], 'ended', '')
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[7])
return 'ok'
"""
_READ = _LIVE + "return {'ok', redis.call('HGET', KEYS[1], ARGV[2])}"
_STATE = _LIVE + "return {'ok', redis.call('HGET', KEYS[1], 'version'), redis.call('HGET', KEYS[1], 'state')}"
_JOIN = (
    _LIVE
    + """
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 and redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return 'full'
end
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 'ok'
"""
)
_WRITE = (
    _LIVE
    + """
local version = tonumber(redis.call('HGET', KEYS[1], 'version'))
if ARGV[2] ~= '' then
  version = redis.call('HINCRBY', KEYS[1], 'version', 1)
  redis.call('HSET', KEYS[1], 'state', ARGV[2])
end
redis.call('HSET', KEYS[1], 'expires', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
return version
"""
)
_END = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
redis.call('HSET', KEYS[1], 'ended', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
return 'ok'
"""


class RedisBackend:
    """The rooms in Redis at `url` (`redis://host:6379/0`), shared by every replica that is given the same URL."""

    PREFIX = 'backprop:'

    def __init__(self, url):
        import redis  # only a server given a Redis URL needs the client

        self.redis = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5)
        self.scripts = {
            name: self.redis.register_script(source)
            for name, source in [('create', _CREATE), ('read', _READ), ('state', _STATE), ('join', _JOIN),
                                 ('write', _WRITE), ('end', _END)]
        }  # fmt: skip

    def _keys(self, code):
        room = f'{self.PREFIX}room:{code}'
        return [room, f'{room}:students', f'{self.PREFIX}rooms']

    def create(self, code, secret, text, now, expires, max_rooms, keep):
        room, _, live = self._keys(code)
        return self.scripts['create'](keys=[room, live], args=[repr(now), max_rooms, secret, text, repr(expires),
                                                               keep, code])  # fmt: skip

    def secret(self, code, now):
        got = self.scripts['read'](keys=self._keys(code)[:1], args=[repr(now), 'secret'])
        return got[1] if isinstance(got, list) else got

    def state(self, code, now):
        got = self.scripts['state'](keys=self._keys(code)[:1], args=[repr(now)])
        return (int(got[1]), got[2]) if isinstance(got, list) else got

    def join(self, code, student, now, max_students, keep):
        return self.scripts['join'](keys=self._keys(code)[:2], args=[repr(now), student, max_students, keep])

    def leave(self, code, student):
        self.redis.srem(self._keys(code)[1], student)

    def count(self, code):
        return self.redis.scard(self._keys(code)[1])

    def write(self, code, text, now, expires, keep):
        got = self.scripts['write'](keys=self._keys(code), args=[repr(now), text or '', repr(expires), keep, code])
        return int(got) if isinstance(got, int) else got

    def end(self, code, reason, now, keep):
        self.scripts['end'](keys=self._keys(code), args=[reason, keep, code])


def open_rooms(url=None, **options):
    """The server's rooms: in Redis at `url` or $BACKPROP_REDIS_URL when either is set, else in this process."""
    url = url or os.environ.get(ENV)
    return Rooms(RedisBackend(url) if url else MemoryBackend(), **options)
