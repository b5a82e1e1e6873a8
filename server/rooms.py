"""A live class's rooms: a lecturer opens one, students join it by a code read aloud, and the lecturer's secret alone
moves its state (the scenario as link parameters, the frame, and the question asked of the room), each move a new
version for the phones to follow.

Pure Python and, for rooms that span replicas, the `redis` client; no Streamlit. The rules are written once
(`Backend`), over a small key-value store (server/store.py) of two kinds: in the process (the default: `./run.sh` needs
nothing more) and Redis (`open_rooms()` with BACKPROP_REDIS_URL set). Every refusal is a `RoomError` whose message the
page can show as it is.

    rooms = open_rooms()
    lecturer = rooms.create({'expr': 'reuse', 'v.a': '3'}, frame=0)   # Lecturer(code='K7QXM', secret='...')
    student = rooms.join('k7qxm', address='203.0.113.7')               # a student's id, minted and signed; the code
                                                                       # as typed; joins counted per address
    rooms.join(lecturer.code, student)                                 # the same student back (a reload)
    rooms.shut(lecturer.code, lecturer.secret)                         # no new student joins (RoomShut)
    rooms.seen(lecturer.code, student)                                 # still here (a stream's keepalive)
    rooms.students(lecturer.code)                                      # 1: the students seen in the last 45 s
    rooms.step(lecturer.code, lecturer.secret, {'expr': 'reuse', 'v.a': '3'}, frame=1).version   # 2
    rooms.state(lecturer.code)                                         # ClassState(version=2, ...)
    rooms.close(lecturer.code, lecturer.secret)                        # then RoomEnded for everyone

Asking the room (the lecturer's secret asks, reveals and closes; a student answers, and reads their verdict):

    rooms.ask(code, secret, frame=7, asked=[{'node': 'a', 'label': 'a.grad',
                                             'candidates': [['right', 6.0], ['forgot', 3.0]]}])   # question 1
    rooms.answer(code, student, 1, {'a': '6,0'})      # {'a': 6.0}; again to change it, until the reveal
    rooms.answers(code, secret)                       # (the question, with candidates, {unsigned(student): {'a': 6.0}})
    rooms.reveal(code, secret)                        # the public question now gives each grad's right value
    rooms.verdict(code, student)                      # {'question': 1, 'asked': [{..., 'group': 'right'}]}
    rooms.close_question(code, secret)
    rooms.record(code, secret)                        # every question asked, each with its answers and when

Learning together (the room is the minibatch): each phone is handed a point of the dataset, round-robin in the order
they ask, and reports the grads the page computed on the server from that point and the class's parameters; the
projector reads what has arrived for the class's scenario as it is now (a step changes it, and starts a new batch):

    rooms.point_of(code, student)                      # 0, 1, 2, ... in the order phones ask; a phone keeps its own
    rooms.report(code, student, scenario, 3, {'w': -1.5, 'b': 0.5}, loss=0.25)   # point 3's grads, for `scenario`
    rooms.reports(code, secret)                        # ({3: {'grads': {...}, 'loss': 0.25}}, phones that reported)

A student's code, sent to the class: `send_bodies(code, student, {'tanh': 'self.grad += ...'}, 'right')`, and the
lecturer reads them all with `sent_bodies(code, secret)`.
"""

import base64
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass, field

from engine import exercise, sandbox
from engine.answers import GROUPS, classify
from server.store import Busy, MemoryStore, RedisStore

ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'  # no 0/O, no 1/I (and codes are upper case, so no l): 32 signs
CODE_LENGTH = 5  # 32**5, 33.5 million codes
MAX_STUDENTS = 500  # per room, present at once
MAX_ROOMS = 200  # open at once, in the store (a server's, or every replica's with Redis)
IDLE_S = 3600.0  # a room with no move from its lecturer (create, step, ask, reveal, ...) for this long has ended
GONE_S = 300.0  # a room whose lecturer's page has said nothing (touch) for this long has ended: the page was closed
# (its panel touches every second while open; a reload, or a laptop asleep between two slides, is shorter)
ENDED_KEEP_S = 86400.0  # how long an ended room is remembered, to tell a late student it ended rather than "unknown"
PRESENT_S = 45.0  # a student seen this recently is in the room: three of a stream's keepalives (server/live.py)
MAX_STATE_BYTES = 8192  # the scenario and frame as JSON
MAX_DATA_BYTES = 100_000  # a batch's dataset kept with the class, where it is too long for a link (engine/batch.py)
# a frame number past any pass the page makes (the 500-chain stepped with its forward pass and leaves, then
# learning's update: about 3,000 frames); a phone clamps a frame to its own pass's last
MAX_FRAME = 10_000
KEY = re.compile(r'[a-z][a-z0-9_.]{0,31}')  # a link parameter's name: expr, v.a, mode, step, ...
# a student's id as the server mints it on join, and signs: 16 random URL-safe characters, a dot, and their HMAC for
# the room (22), so that a made-up id is refused; the store knows a student by the id alone (never the signed form)
STUDENT = re.compile(r'([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})')
JOIN_WINDOW_S = 60.0  # joins are counted per client address over this window
JOINS_PER_WINDOW = 100  # joins one address may make in a window, in any rooms: one script cannot fill a room
JOINS_ENV = 'BACKPROP_JOINS_PER_MINUTE'  # where a hall's phones all reach the server from one address (a NAT)
ENV = 'BACKPROP_REDIS_URL'
RESUBSCRIBE_S = 1.0  # a pub/sub subscription lost with Redis is tried again this often
SIZE_ENV = 'BACKPROP_CLASS_SIZE'  # a server's most students a room, where MAX_STUDENTS is not its size (a lecture hall)

MAX_ASKED = 8  # grads asked in one question
MAX_QUESTIONS = 200  # questions asked in one room: each is kept, with its answers, for the lecturer's file
MAX_CANDIDATES = 8  # values an answer is read against: the right one, then the mistakes' ('forgot', 'swapped', ...)
MAX_LABEL = 40  # a node's name or label, as the projector shows it
GROUP = re.compile(r'[a-z_]{1,16}')  # a candidate's group: right, forgot, swapped, assign, sign, ...
MAX_GRAD = 1e9  # an answer larger than this is a slip of the thumb, not a grad of these small expressions
NUMBER = re.compile(r'[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?')  # what float() reads, without its nan, inf and 1_000
MAX_CHANGES = 20  # answers from one student to one question, or code sends from one student to one room
MAX_BODY = sandbox.MAX_BODY  # characters in one body, as the page's boxes take them
MAX_SEND_BYTES = 4 * MAX_BODY * len(exercise.OPS)  # a send's bodies together, as UTF-8 (4 bytes a character at most)
# a share asked for a batch the class does not show now: after a step (the page follows the class by itself), or on a
# page that shows parameters of its own
STEPPED = (
    'Your page does not show the class’s batch now: once it follows the class (by itself after a step; the '
    'bar’s button brings it back if you stepped on your own), send again.'
)
MAX_PARAMS = 64  # a report's grads: one per parameter (the MLP has 13)
VERDICT = re.compile(r'[a-z_,]{0,64}')  # the grader's verdict on a send: 'right', or mistake kinds joined by commas


class RoomError(Exception):
    """A refusal the page shows as it is: `str(error)` is a sentence for the person who asked."""


class RoomNotFound(RoomError):
    """No room has this code (mistyped, or never opened)."""


class RoomEnded(RoomError):
    """The room existed and has ended: `reason` is 'closed' (by its lecturer), 'idle' (an hour with no move) or 'gone'
    (the lecturer's page closed)."""

    def __init__(self, code, reason):
        self.code, self.reason = code, reason
        why = {'closed': 'the lecturer closed it', 'gone': 'the lecturer’s page was closed'}.get(
            reason, 'it was idle for an hour'
        )
        super().__init__(f'The class {code} has ended: {why}.')


class StoreDown(RoomError):
    """The rooms' store (Redis) cannot be reached just now: nothing has ended, and asking again may work."""


class NotLecturer(RoomError):
    """The secret given is not this room's lecturer's: a student's page, or a tampered link."""


class NotInRoom(RoomError):
    """A student id the page did not make, or a student not in the room now (never joined, left, or long unseen)."""


class RoomFull(RoomError):
    """The room holds its most students already (or its most answers or sends)."""


class RoomShut(RoomError):
    """The lecturer has closed the room to new students: those in it stay, and come back after a reload."""


class TooManyJoins(RoomError):
    """One client address has joined JOINS_PER_WINDOW times this minute: `wait` is how many seconds until it may
    again."""

    def __init__(self, wait):
        self.wait = wait
        super().__init__(f'Many phones have joined from this network just now: joining again in {wait} s.')


class TooManyRooms(RoomError):
    """The store holds its most open rooms already."""


class BadState(RoomError, ValueError):
    """A scenario, frame or question the room cannot hold (not link parameters, a negative frame, too large)."""


class BadAnswer(RoomError, ValueError):
    """What a student sent cannot be taken: an answer that is not a number or too large, or code too long."""


class TooManyQuestions(RoomError):
    """The room has asked MAX_QUESTIONS questions: each is kept for the lecturer's file, so a new class asks more."""


class QuestionClosed(RoomError):
    """No question is open, or the one answered is not the open one (the lecturer asked another)."""


class Revealed(RoomError):
    """The question's answers are revealed: no more answers are taken."""


class NotRevealed(RoomError):
    """A verdict asked for before the lecturer revealed the answers."""


class Flood(RoomError):
    """One student sent more than MAX_CHANGES answers to a question, or code sends to a room."""


@dataclass(frozen=True)
class Lecturer:
    """What `create` hands the lecturer's page: the code to show, and the secret only that page holds."""

    code: str
    secret: str


@dataclass(frozen=True)
class ClassState:
    """The class's state: the scenario as link parameters (`{'expr': 'reuse', 'v.a': '3'}`), the frame shown, the
    question asked (`public_question`'s, None when none is open), and its version, one more at each change (what
    followers compare)."""

    version: int
    scenario: dict
    frame: int
    question: dict | None = None
    asked: int = 0  # how many questions the room has asked (the lecturer's page offers their answers once one has)
    # when the lecturer's page was last heard from (its panel, every second), as the store held it; None before the
    # first time, or where the reader did not ask (a move's answer). Not the class's state: no version of its own
    heard: float | None = field(default=None, compare=False)


def normal_code(text):
    """A code as a student types it (`' k7q-xm '`) in its one form (`'K7QXM'`); RoomNotFound if it cannot be one."""
    code = re.sub(r'[\s-]', '', str(text)).upper()[:32]
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        raise RoomNotFound(f'No class has the code {code!r}: check it against the projector.')
    return code


def unsigned(signed):
    """The id the store knows a student by, in their signed id (what the lecturer's answers are keyed by)."""
    return signed.partition('.')[0]


def new_code():
    return ''.join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def digest(secret):
    """What the store keeps of a lecturer's secret: its SHA-256, so that reading the store gives no lecturer's power."""
    return hashlib.sha256(str(secret).encode()).hexdigest()


def check_frame(frame):
    if isinstance(frame, bool) or not isinstance(frame, int) or not 0 <= frame <= MAX_FRAME:
        shown = repr(frame) if len(repr(frame)) <= 24 else f'{repr(frame)[:20]}…'
        raise BadState(f'The frame must be a whole number from 0 to {MAX_FRAME:,}: not {shown}.')


def state_json(scenario, frame):
    if not isinstance(scenario, dict) or not all(
        isinstance(k, str) and KEY.fullmatch(k) and isinstance(v, str) for k, v in scenario.items()
    ):
        raise BadState('The scenario must be link parameters: names like expr or v.a, each with a text value.')
    check_frame(frame)
    text = json.dumps({'scenario': scenario, 'frame': frame}, sort_keys=True, separators=(',', ':'))
    if len(text.encode()) > MAX_STATE_BYTES:
        raise BadState(f'The class state is {len(text.encode())} bytes; a room holds {MAX_STATE_BYTES} at most.')
    return text


def batch_round(scenario):
    """What a batch's grads depend on in a class's scenario (the graph, its data, its parameters, the steps taken):
    a report made for one scenario is counted only while the class shows one with the same round; a step changes it,
    and the next reports start a new batch. The frame and the page's looks (hide, speed, ...) do not."""
    held = {k: v for k, v in scenario.items() if k in ROUND_KEYS or k.startswith('v.')}
    return hashlib.sha256(json.dumps(held, sort_keys=True).encode()).hexdigest()[:32]


ROUND_KEYS = ('expr', 'n', 'formula', 'mode', 'data', 'lr', 'learned')


def report_json(point, grads, loss):
    """A phone's report as the store keeps it: its point, and each parameter's grad and the loss, finite numbers."""
    if isinstance(point, bool) or not isinstance(point, int) or not 0 <= point < MAX_FRAME:
        raise BadState('A report names its point by a whole number.')
    if not isinstance(grads, dict) or not 1 <= len(grads) <= MAX_PARAMS:
        raise BadState(f'A report holds 1 to {MAX_PARAMS} grads.')
    numbers = {str(name)[:MAX_LABEL]: finite(v) for name, v in grads.items()}
    if any(v is None for v in numbers.values()) or finite(loss) is None:
        raise BadState('A report holds finite numbers only.')
    return json.dumps({'point': point, 'grads': numbers, 'loss': finite(loss)}, separators=(',', ':'))


def finite(value):
    """`value` as a float if it is a finite number (a bool is not one), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range
        return None
    return number if math.isfinite(number) else None


def question_json(frame, asked):
    """The question the lecturer asks, checked, as the store keeps it: the frame it is asked at, and each grad asked
    with the values an answer is read against (`candidates`, the right one first), which students never see."""
    check_frame(frame)
    if not isinstance(asked, (list, tuple)) or not 1 <= len(asked) <= MAX_ASKED:
        raise BadState(f'A question asks for 1 to {MAX_ASKED} grads.')
    held = []
    for item in asked:
        item = item if isinstance(item, dict) else {}
        node, label, candidates = item.get('node'), item.get('label'), item.get('candidates')
        if not all(isinstance(t, str) and 1 <= len(t) <= MAX_LABEL for t in (node, label)):
            raise BadState(f'Each grad asked needs a node and a label, each 1 to {MAX_LABEL} characters: {item!r:.80}.')
        if not isinstance(candidates, (list, tuple)) or not 1 <= len(candidates) <= MAX_CANDIDATES:
            raise BadState(f'The grad {label} needs 1 to {MAX_CANDIDATES} candidates.')
        pairs = []
        for pair in candidates:
            ok = isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str)
            if not ok or not GROUP.fullmatch(pair[0]) or finite(pair[1]) is None:
                raise BadState(f'A candidate is [group, value], a short name and a finite number: not {pair!r:.60}.')
            pairs.append([pair[0], finite(pair[1])])
        if pairs[0][0] != 'right':
            raise BadState(f"The grad {label}'s first candidate must be the right one, named 'right'.")
        held.append({'node': node, 'label': label, 'candidates': pairs})
    if len({a['node'] for a in held}) < len(held):
        raise BadState('A question asks for each grad once.')
    return json.dumps({'frame': frame, 'asked': held}, separators=(',', ':'))


def held_question(text, qid, revealed):
    """The question as the store holds it, in full (each grad's candidates too); None when none is open."""
    if not text:
        return None
    held = json.loads(text)
    return {'id': int(qid), 'frame': held['frame'], 'asked': held['asked'], 'revealed': int(revealed) == 1}


def public_question(question):
    """What every phone is sent of a question: no candidates, and each grad's right value once revealed."""
    if question is None:
        return None
    shown = [{'node': a['node'], 'label': a['label']} for a in question['asked']]
    if question['revealed']:
        shown = [{**s, 'right': a['candidates'][0][1]} for s, a in zip(shown, question['asked'])]
    return {'id': question['id'], 'frame': question['frame'], 'asked': shown, 'revealed': question['revealed']}


def read_number(value, label):
    """A student's answer, as typed (`'-0.5'`, `'1e-3'`, `' 3 '`, `'6,5'`, `'−2'`) or as a JSON number, as a float;
    None when blank. A comma is a decimal point when the answer has no dot (`'6,5'` is 6.5: a phone's keyboard in
    much of Europe), and a minus sign copied from the page (`−`) is a minus."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        text = value.strip().replace('\u2212', '-')
        if ',' in text and '.' not in text:
            text = text.replace(',', '.', 1)
        if len(text) > 64 or not NUMBER.fullmatch(text):
            shown = value.strip()[:24] + ('…' if len(value.strip()) > 24 else '')
            raise BadAnswer(f'Your answer for {label}, {shown!r}, is not a number.')
        number = float(text)  # 1e999 reads as inf: too large, below
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
    else:
        raise BadAnswer(f'Your answer for {label} is not a number.')
    if math.isnan(number):
        raise BadAnswer(f'Your answer for {label} is not a number.')
    if abs(number) > MAX_GRAD:
        raise BadAnswer(f'Your answer for {label} is too large: a grad here is at most 1,000,000,000 in size.')
    return number


def read_answers(question, answers):
    """A student's answers to `question` (node -> as typed) as floats, the blank ones left out; BadAnswer if one is
    not a number, is too large or is for a grad not asked, or if every one is blank."""
    if not isinstance(answers, dict):
        raise BadAnswer('Your answers must be a grad name for each number.')
    labels = {a['node']: a['label'] for a in question['asked']}
    numbers = {}
    for node, value in answers.items():
        if node not in labels:
            raise BadAnswer(f'The question asks for no grad called {str(node)[:MAX_LABEL]!r}: reload the page.')
        number = read_number(value, labels[node])
        if number is not None:
            numbers[node] = number
    if not numbers:
        raise BadAnswer('Type a number for at least one grad before you send.')
    return numbers


def bodies_json(bodies, verdict):
    """A student's `_backward` bodies (op -> text) and the grader's verdict on them, checked, as the store keeps
    them; BadAnswer with the reason otherwise."""
    if not isinstance(bodies, dict) or not 1 <= len(bodies) <= len(exercise.OPS):
        raise BadAnswer(f'Send 1 to {len(exercise.OPS)} bodies at once: {", ".join(exercise.OPS)}.')
    for op, body in bodies.items():
        if op not in exercise.OPS:
            raise BadAnswer(f'No op is called {str(op)[:24]!r}: reload the page.')
        if not isinstance(body, str):
            raise BadAnswer(f'Your code for {op} must be text.')
        if len(body) > MAX_BODY:
            raise BadAnswer(f'Your code for {op} is {len(body)} characters; the class takes {MAX_BODY:,} at most.')
    if sum(len(body.encode()) for body in bodies.values()) > MAX_SEND_BYTES:
        raise BadAnswer(f'Your code is over {MAX_SEND_BYTES:,} bytes in all: the class takes that much at most.')
    if not isinstance(verdict, str) or not VERDICT.fullmatch(verdict):
        raise BadAnswer("The grader's verdict must be 'right' or mistake names joined by commas.")
    return json.dumps({'bodies': bodies, 'verdict': verdict}, separators=(',', ':'))


class Rooms:
    """The rooms, over a backend (`MemoryBackend()` or `RedisBackend(url)`); `clock` gives seconds (time.time)."""

    def __init__(self, backend=None, *, clock=time.time, max_rooms=MAX_ROOMS, max_students=MAX_STUDENTS,
                 idle=IDLE_S, ended_keep=ENDED_KEEP_S, present=PRESENT_S, gone=GONE_S,
                 max_questions=MAX_QUESTIONS, joins=JOINS_PER_WINDOW):  # fmt: skip
        self.backend = backend or MemoryBackend()
        self.joins, self.key = joins, None  # the store's signing key, read once it is needed
        self.max_questions = max_questions
        self.listeners = []  # called with a room's code when its state changes, or None when any may have (listen)
        self.clock, self.max_rooms, self.max_students = clock, max_rooms, max_students
        self.idle, self.ended_keep, self.present, self.gone = idle, ended_keep, present, gone

    def _keep(self):
        return int(self.idle + self.ended_keep) + 1  # the backend's own expiry of a room's keys, in seconds

    def _live(self, code, status):
        """Raise for a backend's refusal ('unknown', 'closed', 'idle', 'full', 'rooms'); else return `status`."""
        if status == 'unknown':
            raise RoomNotFound(f'No class has the code {code}: check it against the projector.')
        if status in ('closed', 'idle', 'gone'):
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

    def _signature(self, code, student, fresh=False):
        """The room's signature of a student's id: an HMAC under the store's key (one for every replica, made by the
        first that needs it; read again when `fresh`, as after a store that lost it)."""
        if fresh or self.key is None:
            self.key = self.backend.key(secrets.token_hex(32), self.clock())
        mac = hmac.new(self.key.encode(), f'{code}.{student}'.encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(mac).decode().rstrip('=')

    def _student(self, code, signed):
        """The student's id in a signed id the server minted for room `code`; NotInRoom for one it did not (made up,
        for another room, or from before the store lost its key)."""
        match = STUDENT.fullmatch(signed) if isinstance(signed, str) else None
        if match and any(hmac.compare_digest(match[2], self._signature(code, match[1], fresh)) for fresh in (0, 1)):
            return match[1]
        raise NotInRoom('This page lost its place in the class: open the join link again.')

    def _class_state(self, code, got):
        """A backend's (version, state, question, question id, revealed[, heard]) as a ClassState, or its refusal."""
        if isinstance(got, str):
            self._live(code, got)
        version, text, question, qid, revealed, *deadline = got
        held, question = json.loads(text), held_question(question, qid, revealed)
        heard = float(deadline[0]) - self.gone if deadline and deadline[0] is not None else None  # hear() keeps its end
        return ClassState(int(version), held['scenario'], held['frame'], public_question(question), int(qid or 0),
                          heard)  # fmt: skip

    def _read(self, code, kind, student=None):
        """The room's question in full, and what its students keep of `kind` ('answers' or 'bodies') as stored text,
        by student (only `student`'s when given)."""
        got = self.backend.read(code, kind, self.clock(), student)
        if isinstance(got, str):
            self._live(code, got)
        question, qid, revealed, kept = got
        return held_question(question, qid, revealed), kept

    def _put(self, code, kind, student, qid, text):
        """Keep a student's `text` of `kind`, refusing a student not present, a question no longer open or revealed,
        a flood, and more senders than the room's students cap."""
        now = self.clock()
        status = self._live(code, self.backend.put(code, kind, student, qid, text, now, now - self.present,
                                                   self.max_students, MAX_CHANGES, self._keep()))  # fmt: skip
        if status == 'absent':
            raise NotInRoom(f'This page is not in the class {code} now: reload it to join again.')
        if status == 'old':
            raise QuestionClosed('That question is closed: answer the one on the projector.')
        if status == 'revealed':
            raise Revealed('The answers are revealed: yours was not counted.')
        if status == 'flood':
            what = 'answers to this question' if kind == 'answers' else 'sends of your code'
            raise Flood(f'You have made {MAX_CHANGES} {what}: your last one stands.')
        if status == 'crowded':
            raise RoomFull(f'The class {code} holds {self.max_students} {kind} already: yours was not counted.')

    def create(self, scenario, frame=0):
        """Open a room at version 1; the Lecturer's code and secret. TooManyRooms at the store's cap."""
        text, secret, now = state_json(scenario, frame), secrets.token_urlsafe(24), self.clock()
        for _ in range(50):
            code = new_code()
            args = code, digest(secret), text, now, now + self.idle, self.max_rooms, self._keep()
            if self._live(code, self.backend.create(*args)) == 'ok':
                return Lecturer(code, secret)
        raise TooManyRooms('No free class code was found: try again.')  # 50 codes taken in a row: 33.5 M codes

    def join(self, code, student=None, address=None):
        """A new student in the room, seen now: their signed id, minted here. With `student` (a signed id minted
        before), that student back (a reload, a reconnection: joining twice counts once). RoomFull when the room holds
        its most students seen in the last PRESENT_S seconds; for a new student, RoomShut when the lecturer has closed
        the room to new ones, and TooManyJoins when `address` (the client's) has joined `joins` times this minute."""
        code, now, signed = normal_code(code), self.clock(), student
        new = student is None
        student = secrets.token_urlsafe(12) if new else self._student(code, student)
        window = int(now // JOIN_WINDOW_S)
        gate = (f'{address}:{window}', self.joins, int(JOIN_WINDOW_S) + 1) if new and address else None
        status = self.backend.join(code, student, now, now - self.present, self.max_students, self._keep(), new, gate)
        if status == 'shut':
            raise RoomShut(f'The class {code} takes no new students now: ask your lecturer to open it again.')
        if status == 'rate':
            raise TooManyJoins(max(1, math.ceil((window + 1) * JOIN_WINDOW_S - now)))
        self._live(code, status)
        return f'{student}.{self._signature(code, student)}' if new else signed

    def seen(self, code, student):
        """The student is still here (their stream's keepalive): seen now, back in the room if they had dropped out."""
        self.join(code, student)

    def leave(self, code, student, since=None):
        """The student has gone (their stream ended). With `since`, the time their stream last marked them seen, only
        if nothing has marked them since: a phone that reconnected, to another replica maybe, stays."""
        code = normal_code(code)
        self.backend.leave(code, self._student(code, student), since)

    def shut(self, code, secret, shut=True):
        """The lecturer closes the room to new students (`shut`), or opens it again; those in it stay."""
        code, now = self._lecturer(code, secret), self.clock()
        self._live(code, self.backend.shut(code, shut, now))

    def taking(self, code):
        """Whether the live room takes new students (its lecturer has not shut it)."""
        code = normal_code(code)
        return self._live(code, self.backend.taking(code, self.clock())) == 'ok'

    def students(self, code):
        """How many students are in the live room: those seen in the last PRESENT_S seconds."""
        code, now = normal_code(code), self.clock()
        self._live(code, self.backend.secret(code, now))
        return self.backend.count(code, now - self.present)

    def state(self, code):
        """The class's ClassState, for a student or the lecturer."""
        code = normal_code(code)
        return self._class_state(code, self.backend.state(code, self.clock()))

    def listen(self, listener):
        """Call `listener(code)` whenever a room's state changes (a step, a question asked, revealed or closed, the
        room ended): at once for a change made in this process, and, with Redis, by its pub/sub for one made on any
        replica; `listener(None)` when changes may have been missed (the subscription came back after Redis was out
        of reach). It is called on whatever thread made or heard the change."""
        self.listeners.append(listener)
        self.backend.subscribe(self._changed)

    def _changed(self, code):
        for listener in list(self.listeners):
            listener(code)

    def _moved(self, code, state):
        """A lecturer's move has changed the room: its listeners hear of it; `state` as it is."""
        self._changed(code)
        return state

    def step(self, code, secret, scenario, frame):
        """The lecturer moves the class: the new ClassState, its version one more. NotLecturer without the secret."""
        text = state_json(scenario, frame)
        code, now = self._lecturer(code, secret), self.clock()
        # a step comes from the lecturer's page: heard, as its panel's touch is (the phones are told it answers)
        got = self.backend.write(code, text, now, now + self.idle, self._keep(), now + self.gone)
        return self._moved(code, self._class_state(code, got))

    def touch(self, code, secret):
        """The lecturer's page is still open (its panel says so every second): the room ends GONE_S after the last
        touch, once there has been one. Its idle hour goes on: only the lecturer's moves start it again."""
        code, now = self._lecturer(code, secret), self.clock()
        self._live(code, self.backend.hear(code, now, now + self.gone))

    def check(self, code, secret):
        """Nothing if `secret` is the live room's lecturer's; else its RoomError (a reloaded lecturer page asks)."""
        self._lecturer(code, secret)

    def close(self, code, secret):
        """The lecturer ends the room: from now on everyone gets RoomEnded(reason='closed')."""
        code = self._lecturer(code, secret)
        self.backend.end(code, 'closed', self.clock(), int(self.ended_keep) + 1)
        self._changed(code)

    def _question(self, code, secret, mode, text=''):
        code, now = self._lecturer(code, secret), self.clock()
        got = self.backend.question(code, mode, text, now, now + self.idle, self._keep(), self.max_questions)
        return code, got

    def ask(self, code, secret, frame, asked):
        """The lecturer asks the room for grads (`[{'node', 'label', 'candidates': [['right', v], [group, v], ...]}]`)
        at `frame`: a new question, its id one more than the room's last, replacing an open one and its answers. The
        new ClassState (a new version: the phones show the question). BadState for a question the room cannot hold."""
        text = question_json(frame, asked)
        code, got = self._question(code, secret, 'ask', text)
        if got == 'many':
            raise TooManyQuestions(f'The class {code} has asked {self.max_questions} questions, its most: download its '
                                   'answers, and start a new class to ask more.')  # fmt: skip
        return self._moved(code, self._class_state(code, got))

    def reveal(self, code, secret):
        """The lecturer reveals the answers: no more are taken, and the phones are sent each grad's right value.
        The new ClassState; QuestionClosed when no question is open."""
        code, got = self._question(code, secret, 'reveal')
        if got == 'none':
            raise QuestionClosed('There is no question to reveal: ask one first.')
        return self._moved(code, self._class_state(code, got))

    def close_question(self, code, secret):
        """The lecturer takes the question off the phones, its answers forgotten; the new ClassState."""
        code, got = self._question(code, secret, 'close')
        return self.state(code) if got == 'none' else self._moved(code, self._class_state(code, got))

    def answer(self, code, student, question_id, answers):
        """A student's answers to the open question (`{node: '-0.5'}`, as typed, or numbers), kept as floats and
        returned; a later answer replaces theirs (one per student), until the reveal. Each refusal a RoomError: not
        in the room, an old question, revealed, not a number or too large, all blank, or a flood."""
        code = normal_code(code)
        student = self._student(code, student)
        question, _ = self._read(code, 'answers', student)
        if question is None or isinstance(question_id, bool) or question_id != question['id']:
            raise QuestionClosed('That question is closed: answer the one on the projector.')
        if question['revealed']:
            raise Revealed('The answers are revealed: yours was not counted.')
        numbers = read_answers(question, answers)
        # the store checks again that this question is open and unrevealed, as it keeps the answer
        kept = json.dumps({'answers': numbers, 'at': self.clock()})
        self._put(code, 'answers', student, str(question['id']), kept)
        return numbers

    def answers(self, code, secret):
        """For the lecturer: the open question in full (each grad's candidates too; None when none is open), and
        its answers, `{student: {node: float}}`."""
        code = self._lecturer(code, secret)
        question, kept = self._read(code, 'answers')
        return question, {student: json.loads(text)['answers'] for student, text in kept.items()} if question else {}

    def mine(self, code, student):
        """A student's own answer to the open question, as kept (`{'question': id, 'answers': {node: float}}`, the
        answers None when they have sent none; the question None when none is open): a reloaded phone shows it sent."""
        code = normal_code(code)
        student = self._student(code, student)
        question, kept = self._read(code, 'answers', student)
        if question is None:
            return {'question': None, 'answers': None}
        return {
            'question': question['id'],
            'answers': json.loads(kept[student])['answers'] if student in kept else None,
        }

    def verdict(self, code, student):
        """A student's answers against the revealed question: `{'question': id, 'asked': [{'node', 'label', 'answer',
        'group', 'says', 'right'}]}`, `group` 'right', a mistake's ('forgot', ...), 'other' or 'blank', and `says` it in
        the student's words (engine.answers.GROUPS)."""
        code = normal_code(code)
        student = self._student(code, student)
        question, kept = self._read(code, 'answers', student)
        if question is None:
            raise QuestionClosed('There is no question on the projector now.')
        if not question['revealed']:
            raise NotRevealed('The answers are not revealed yet.')
        mine = json.loads(kept[student])['answers'] if student in kept else {}
        asked = [
            {'node': a['node'], 'label': a['label'], 'answer': mine.get(a['node']), 'group': group,
             'says': GROUPS[group].says, 'right': a['candidates'][0][1]}
            for a in question['asked']
            for group in [classify(mine.get(a['node']), a['candidates'])]
        ]  # fmt: skip
        return {'question': question['id'], 'asked': asked}

    def record(self, code, secret):
        """For the lecturer: every question the room asked, the open one last, each `{'id', 'frame', 'asked' (with
        candidates), 'revealed', 'answers': {student: {'answers': {node: float}, 'at': seconds}}}`, by id."""
        code = self._lecturer(code, secret)
        got = self.backend.record(code, self.clock())
        if isinstance(got, str):
            self._live(code, got)
        open_question, kept, history = got
        held = [json.loads(text) for text in history.values()]
        questions = [{**held_question(h['question'], h['id'], h['revealed']), 'answers': h['answers']} for h in held]
        question = held_question(*open_question)
        if question is not None:
            questions.append({**question, 'answers': kept})
        for question in questions:
            question['answers'] = {student: json.loads(text) for student, text in question['answers'].items()}
        return sorted(questions, key=lambda q: q['id'])

    def send_bodies(self, code, student, bodies, verdict):
        """A student sends the class their `_backward` bodies (`{'tanh': 'self.grad += ...'}`) and the grader's
        verdict on them ('right', or mistake kinds joined by commas); a later send replaces theirs."""
        code = normal_code(code)
        student = self._student(code, student)
        self._put(code, 'bodies', student, '', bodies_json(bodies, verdict))

    def point_of(self, code, student):
        """The student's place among the phones that asked for a point, 0, 1, 2, ... in the order they asked: a phone
        asking again keeps its own. The page takes it modulo the dataset's points (round-robin)."""
        code = normal_code(code)
        student = self._student(code, student)
        got = self.backend.assign(code, student, self.clock(), self._keep())
        return int(self._live(code, got) if isinstance(got, str) else got)

    def phones(self, code):
        """How many phones have been handed a point in the room."""
        code = normal_code(code)
        got = self.backend.assign(code, None, self.clock(), self._keep())
        return int(self._live(code, got) if isinstance(got, str) else got)

    def keep_data(self, code, secret, text):
        """The lecturer keeps a batch's dataset with the class (its text, too long for a link): the phones read it.
        BadState past MAX_DATA_BYTES."""
        if not isinstance(text, str) or len(text.encode()) > MAX_DATA_BYTES:
            raise BadState(f'A class keeps {MAX_DATA_BYTES // 1000} kB of data at most.')
        code, now = self._lecturer(code, secret), self.clock()
        self._live(code, self.backend.keep(code, {'data': text}, now))

    def data(self, code):
        """The dataset the class keeps ('' for none)."""
        code = normal_code(code)
        got = self.backend.field(code, 'data', self.clock())
        if isinstance(got, str):
            self._live(code, got)
        return got[0]

    def report(self, code, student, scenario, point, grads, loss):
        """A phone's grads for `point` (0-based) of the batch of `scenario` (the class's, as the page read it and
        computed the grads from): kept once per point, so a point two phones share, or a phone that reports twice,
        counts once. QuestionClosed when the class has moved to another batch (a step) since; Flood past MAX_CHANGES
        reports from one phone in one batch."""
        code = normal_code(code)
        student = self._student(code, student)
        text, now = report_json(point, grads, loss), self.clock()
        status = self._live(code, self.backend.report(code, student, batch_round(scenario), point, text, now,
                                                      now - self.present, MAX_CHANGES, self._keep()))  # fmt: skip
        if status == 'absent':
            raise NotInRoom(f'This page is not in the class {code} now: reload it to join again.')
        if status == 'old':
            raise QuestionClosed(STEPPED)
        if status == 'flood':
            raise Flood(f'You have reported {MAX_CHANGES} times in this batch: your grads are in.')

    def reports(self, code, secret):
        """For the lecturer: the batch of the class's scenario as it is now, `{point: {'grads': {name: grad},
        'loss': loss}}`, and how many phones reported to it; empty for a batch no phone has reported to yet."""
        _, shares, phones = self.batch_now(code, secret)
        return shares, phones

    def batch_now(self, code, secret):
        """For the lecturer: (the class's scenario, its batch's shares as `reports` gives them, how many phones
        reported), read at once: a step computed from them takes the parameters the shares were computed at."""
        code = self._lecturer(code, secret)
        got = self.backend.reports(code, self.clock())
        if isinstance(got, str):
            self._live(code, got)
        text, held_round, kept, phones = got
        scenario = json.loads(text)['scenario']
        if held_round != batch_round(scenario):
            return scenario, {}, 0
        reports = {int(point): json.loads(report) for point, report in kept.items()}
        shares = {point: {'grads': r['grads'], 'loss': r['loss']} for point, r in sorted(reports.items())}
        return scenario, shares, phones

    def sent_bodies(self, code, secret):
        """For the lecturer: each student's last send, `{student: {'bodies': {op: text}, 'verdict': str}}`."""
        code = self._lecturer(code, secret)
        return {student: json.loads(text) for student, text in self._read(code, 'bodies')[1].items()}


# The rules, written once over server/store.py's key-value store. A room is a hash `backprop:room:CODE` (secret digest,
# version, state, expires, heard, ended, and the question: its JSON, or '' when none is open, its id, revealed), the
# open rooms the sorted set `backprop:rooms` (code by when it ends), and the room's students and what they sent, keys
# of their own beside the hash: `:present` (a sorted set, student by when last seen), `:answers` and `:bodies` (hashes,
# student -> JSON), `:answers:changes` and `:bodies:changes` (how many each student sent: the flood cap), and `:history`
# (question id -> the question with its answers, as it was when another was asked or it was closed); and learning
# together: `:points` (student -> their place in the order phones asked), `:grads` (point -> a report, for the batch
# of the round the hash's `batch` field names) and `:grads:changes` (each phone's reports to that batch). Beside the
# rooms: `backprop:key` (the key students' ids are signed with) and `backprop:joins:ADDRESS:MINUTE` (an address's
# joins that minute, forgotten after it). Each rule is
# one transaction, and the clock's time comes in as an argument, so a test's clock rules. The store's own expiry only
# forgets long-ended rooms.
LIVE = ('expires', 'ended', 'heard')  # what says whether a room is live
GOT = ('version', 'state', 'question', 'qid', 'revealed')  # what a ClassState is made of
OWN = (
    'present',
    'answers',
    'answers:changes',
    'bodies',
    'bodies:changes',
    'history',
    'grads',
    'grads:changes',
    'points',
)


def _status(held, now):
    """'ok' for a live room, given its LIVE fields first; else 'unknown', or why it ended."""
    expires, ended, heard = held[:3]
    if expires is None:
        return 'unknown'
    if ended:
        return ended
    if float(expires) <= now:
        return 'idle'
    return 'gone' if heard is not None and float(heard) <= now else 'ok'


class Backend:
    """A live class's rules over a store (server/store.py's `MemoryStore` or `RedisStore`): each method one
    transaction, answering with a status ('ok', 'unknown', 'closed', 'full', ...) or what it read."""

    PREFIX = 'backprop:'
    CHANNEL = 'backprop:changed'  # each move's room code is published here, in the move's own transaction

    def __init__(self, store):
        self.store = store

    def subscribe(self, changed):
        """Have `changed(code)` called for moves made by other processes: none share an in-process store."""

    def _keys(self, code):
        room = f'{self.PREFIX}room:{code}'
        return room, f'{self.PREFIX}rooms', {name: f'{room}:{name}' for name in OWN}

    def _refresh(self, tx, code, held, expires, keep, heard=None):
        """A lecturer's move: the idle hour starts again, and the room's keys are kept `keep` s more; with `heard`
        (the move came from the lecturer's page: a step), its page's deadline too, where it has one."""
        room, rooms, own = self._keys(code)
        heard = heard if heard is not None and held[2] is not None else None
        tx.hset(room, mapping={'expires': expires, **({'heard': heard} if heard is not None else {})})
        for key in (room, *own.values()):
            tx.expire(key, keep)
        heard = heard if heard is not None else float(held[2]) if held[2] is not None else None
        tx.zadd(rooms, {code: min(expires, heard if heard is not None else expires)})
        return heard  # the page's deadline as it now is: None while it has none

    def create(self, code, secret, text, now, expires, max_rooms, keep):
        room, rooms, _ = self._keys(code)

        def rule(tx):
            live, taken = tx.read(('zcount', rooms, f'({now!r}', '+inf'), ('exists', room))
            if live >= max_rooms:
                return 'rooms'
            if taken:
                return 'taken'
            tx.zremrangebyscore(rooms, '-inf', now)  # the rooms ended by now
            tx.hset(room, mapping={'secret': secret, 'version': 1, 'state': text, 'expires': expires, 'ended': '',
                                   'question': '', 'qid': 0, 'revealed': 0})  # fmt: skip
            tx.expire(room, keep)
            tx.zadd(rooms, {code: expires})
            return 'ok'

        return self.store.run(rule, (room, rooms), now)

    def _get(self, code, now, fields):
        """The room's `fields` if it is live, else its status."""
        room = self._keys(code)[0]
        held = self.store.run(lambda tx: tx.read(('hmget', room, (*LIVE, *fields)))[0], (), now)
        status = _status(held, now)
        return held[3:] if status == 'ok' else status

    def secret(self, code, now):
        got = self._get(code, now, ('secret',))
        return got if isinstance(got, str) else got[0]

    def state(self, code, now):
        return self._get(code, now, (*GOT, 'heard'))

    def join(self, code, student, now, since, max_students, keep, new=False, gate=None):
        """A student seen now; 'shut' for a `new` one when the room takes none, 'rate' when `gate` (the address's
        window: its key's end, the most joins, the window's length) has had its most."""
        room, _, own = self._keys(code)
        present = own['present']
        joins = f'{self.PREFIX}joins:{gate[0]}' if gate else None

        def rule(tx):
            held, seen, count, *made = tx.read(('hmget', room, (*LIVE, 'shut')), ('zscore', present, student),
                                               ('zcount', present, since, '+inf'),
                                               *([('hget', joins, 'n')] if joins else []))  # fmt: skip
            status = _status(held, now)
            if status != 'ok':
                return status
            if new and held[3] == '1':
                return 'shut'
            if joins and int(made[0] or 0) >= gate[1]:
                return 'rate'
            if (seen is None or seen < since) and count >= max_students:
                return 'full'
            tx.zremrangebyscore(present, '-inf', f'({since!r}')  # the students gone: the set holds the cap at most
            tx.zadd(present, {student: now})
            tx.expire(present, keep)
            if joins:
                tx.hincrby(joins, 'n', 1)
                tx.expire(joins, gate[2])
            return 'ok'

        return self.store.run(rule, (room, present, *([joins] if joins else [])), now)

    def key(self, candidate, now):
        """The store's key for signing students' ids: `candidate` kept if it has none yet."""
        kept = f'{self.PREFIX}key'

        def rule(tx):
            (held,) = tx.read(('hget', kept, 'key'))
            if held is None:
                tx.hset(kept, mapping={'key': candidate})
            return held or candidate

        return self.store.run(rule, (kept,), now)

    def keep(self, code, mapping, now):
        """`mapping`'s fields set on the live room; its status."""
        room = self._keys(code)[0]

        def rule(tx):
            (held,) = tx.read(('hmget', room, LIVE))
            status = _status(held, now)
            if status == 'ok':
                tx.hset(room, mapping=mapping)
            return status

        return self.store.run(rule, (room,), now)

    def field(self, code, name, now):
        """[the live room's field `name`, '' where it has none], or the room's status."""
        got = self._get(code, now, (name,))
        return got if isinstance(got, str) else [got[0] or '']

    def shut(self, code, shut, now):
        room = self._keys(code)[0]

        def rule(tx):
            (held,) = tx.read(('hmget', room, LIVE))
            status = _status(held, now)
            if status == 'ok':
                tx.hset(room, mapping={'shut': int(shut)})
            return status

        return self.store.run(rule, (room,), now)

    def taking(self, code, now):
        """'ok' if the live room takes new students, 'shut' if not; else its status."""
        held = self._get(code, now, ('shut',))
        return held if isinstance(held, str) else 'shut' if held[0] == '1' else 'ok'

    def leave(self, code, student, since):
        present = self._keys(code)[2]['present']

        def rule(tx):
            (seen,) = tx.read(('zscore', present, student))
            if seen is not None and (since is None or seen <= since):
                tx.zrem(present, student)

        self.store.run(rule, (present,))

    def count(self, code, since):
        present = self._keys(code)[2]['present']
        return self.store.run(lambda tx: tx.read(('zcount', present, since, '+inf'))[0])

    def hear(self, code, now, heard):
        """The lecturer's page is open: when it was heard from last; the open rooms' set ends the room at the nearer
        deadline."""
        room, rooms, _ = self._keys(code)

        def rule(tx):
            (held,) = tx.read(('hmget', room, LIVE))
            status = _status(held, now)
            if status == 'ok':
                tx.hset(room, mapping={'heard': heard})
                tx.zadd(rooms, {code: min(float(held[0]), heard)})
            return status

        return self.store.run(rule, (room,), now)

    def _move(self, code, now, expires, keep, change, watch=(), heard=None):
        """A lecturer's move on the live room: `change(tx, got)` writes it and gives the fields it changed, or a
        status for no move; the room's new GOT fields. `watch`: the other keys `change` reads."""
        room = self._keys(code)[0]

        def rule(tx):
            (held,) = tx.read(('hmget', room, (*LIVE, *GOT)))
            status = _status(held, now)
            if status != 'ok':
                return status
            got = dict(zip(GOT, held[3:]))
            changed = change(tx, got)
            if isinstance(changed, str):
                return changed if changed != 'same' else list(got.values())
            if changed:
                got.update(changed, version=str(int(got['version']) + 1))
                tx.hset(room, mapping=got)
                tx.publish(self.CHANNEL, code)
            return [*got.values(), self._refresh(tx, code, held, expires, keep, heard)]

        return self.store.run(rule, (room, *watch), now)

    def write(self, code, text, now, expires, keep, heard=None):
        change = lambda tx, got: {'state': text} if text is not None else {}  # noqa: E731
        return self._move(code, now, expires, keep, change, heard=heard)

    def question(self, code, mode, text, now, expires, keep, max_questions):
        own = self._keys(code)[2]

        def keep_question(tx, got):
            """The open question and its answers into the room's history, as another is asked or it closes."""
            (answers,) = tx.read(('hgetall', own['answers']))
            kept = {'question': got['question'], 'id': int(got['qid']), 'revealed': int(got['revealed'] or 0),
                    'answers': answers}  # fmt: skip
            tx.hset(own['history'], mapping={got['qid']: json.dumps(kept, separators=(',', ':'))})
            tx.delete(own['answers'], own['answers:changes'])

        def change(tx, got):
            if mode == 'ask':
                if int(got['qid']) >= max_questions:
                    return 'many'
                if got['question']:
                    keep_question(tx, got)
                return {'question': text, 'qid': str(int(got['qid']) + 1), 'revealed': '0'}
            if not got['question']:
                return 'none'
            if mode == 'reveal':
                return 'same' if got['revealed'] == '1' else {'revealed': '1'}  # revealed already: nothing new
            keep_question(tx, got)
            return {'question': '', 'revealed': '0'}

        return self._move(code, now, expires, keep, change, watch=(own['answers'], own['history']))

    def record(self, code, now):
        """The open question (its text, id, revealed), its answers, and the room's history."""
        room, _, own = self._keys(code)
        held, answers, history = self.store.run(
            lambda tx: tx.read(('hmget', room, (*LIVE, *GOT[2:])), ('hgetall', own['answers']),
                               ('hgetall', own['history'])), (), now)  # fmt: skip
        status = _status(held, now)
        if status != 'ok':
            return status
        return (held[3] or '', held[4] or '0', held[5] or '0'), answers, history

    def read(self, code, kind, now, student):
        room, _, own = self._keys(code)
        kept = own[kind]
        one = ('hget', kept, student) if student else ('hgetall', kept)
        held, got = self.store.run(lambda tx: tx.read(('hmget', room, (*LIVE, *GOT[2:])), one), (), now)
        status = _status(held, now)
        if status != 'ok':
            return status
        got = got if not student else {} if got is None else {student: got}
        return held[3] or '', held[4] or '0', held[5] or '0', got

    def put(self, code, kind, student, qid, text, now, since, max_entries, max_changes, keep):
        room, _, own = self._keys(code)
        present, kept, changes = own['present'], own[kind], own[f'{kind}:changes']

        def rule(tx):
            held, seen, sent, has, count = tx.read(
                ('hmget', room, (*LIVE, *GOT[2:])), ('zscore', present, student), ('hget', changes, student),
                ('hexists', kept, student), ('hlen', kept))  # fmt: skip
            status = _status(held, now)
            if status != 'ok':
                return status
            if seen is None or seen < since:
                return 'absent'
            if qid and (not held[3] or held[4] != qid):
                return 'old'
            if qid and held[5] == '1':
                return 'revealed'
            if int(sent or 0) >= max_changes:
                return 'flood'
            if not has and count >= max_entries:
                return 'crowded'
            tx.hincrby(changes, student, 1)
            tx.hset(kept, mapping={student: text})
            tx.expire(kept, keep)
            tx.expire(changes, keep)
            return 'ok'

        return self.store.run(rule, (room, present, kept, changes), now)

    def assign(self, code, student, now, keep):
        """The student's place among the phones handed a point (a new one's is how many came before); with no
        student, how many have been handed one."""
        room, _, own = self._keys(code)
        points = own['points']

        def rule(tx):
            held, place, count = tx.read(('hmget', room, LIVE), ('hget', points, student or ''), ('hlen', points))
            status = _status(held, now)
            if status != 'ok':
                return status
            if student is None or place is not None:
                return count if student is None else int(place)
            tx.hset(points, mapping={student: count})
            tx.expire(points, keep)
            return count

        return self.store.run(rule, (room, points), now)

    def report(self, code, student, round_, point, text, now, since, max_changes, keep):
        room, _, own = self._keys(code)
        present, kept, changes = own['present'], own['grads'], own['grads:changes']

        def rule(tx):
            held, seen, sent = tx.read(('hmget', room, (*LIVE, 'state', 'batch')), ('zscore', present, student),
                                       ('hget', changes, student))  # fmt: skip
            status = _status(held, now)
            if status != 'ok':
                return status
            if seen is None or seen < since:
                return 'absent'
            if batch_round(json.loads(held[3])['scenario']) != round_:
                return 'old'
            if held[4] != round_:  # the first report to this batch: the last batch's are dropped
                tx.delete(kept, changes)
                tx.hset(room, mapping={'batch': round_})
                sent = None
            if int(sent or 0) >= max_changes:
                return 'flood'
            tx.hincrby(changes, student, 1)
            tx.hset(kept, mapping={str(point): text})
            tx.expire(kept, keep)
            tx.expire(changes, keep)
            return 'ok'

        return self.store.run(rule, (room, present, kept, changes), now)

    def reports(self, code, now):
        """The room's state, the batch its grads are of, the grads by point, and how many phones reported."""
        room, _, own = self._keys(code)
        held, kept, phones = self.store.run(
            lambda tx: tx.read(('hmget', room, (*LIVE, 'state', 'batch')), ('hgetall', own['grads']),
                               ('hlen', own['grads:changes'])), (), now)  # fmt: skip
        status = _status(held, now)
        return status if status != 'ok' else (held[3], held[4], kept, phones)

    def end(self, code, reason, now, keep):
        room, rooms, own = self._keys(code)

        def rule(tx):
            if tx.read(('exists', room))[0]:
                tx.publish(self.CHANNEL, code)
                tx.hset(room, mapping={'ended': reason})
                tx.expire(room, keep)
                tx.delete(*own.values())
                tx.zrem(rooms, code)

        self.store.run(rule, (room,), now)


class MemoryBackend(Backend):
    """The rooms in this process's memory (the default: `./run.sh` needs nothing more)."""

    def __init__(self):
        super().__init__(MemoryStore())


class RedisBackend(Backend):
    """The rooms in Redis at `url` (`redis://host:6379/0`), shared by every replica given the same URL; or on a
    `redis.Redis` client given in its place (with decode_responses: fakeredis's in the unit tests)."""

    def __init__(self, url):
        import redis  # only a server given a Redis URL needs the client

        self.redis = url if isinstance(url, redis.Redis) else redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5)  # fmt: skip
        super().__init__(RedisStore(self.redis))
        self.down = redis.RedisError
        self.subscriber, self.subscribing = None, threading.Lock()
        self.subscriber_lost = False  # the subscription was ever lost (Redis out of reach)
        for name in ('create', 'secret', 'state', 'join', 'key', 'shut', 'taking', 'leave', 'count', 'hear', 'write',
                     'question', 'read', 'put', 'record', 'end', 'assign', 'report', 'reports', 'keep',
                     'field'):  # fmt: skip
            setattr(self, name, self._guarded(getattr(self, name)))

    def subscribe(self, changed):
        """One subscription a process, on a thread of its own, however many listen: each message's code to
        `changed`, and None each time it subscribes again after Redis was out of reach."""
        with self.subscribing:
            if self.subscriber is None:
                self.subscriber = threading.Thread(target=self._subscribed, args=(changed,), daemon=True,
                                                   name='backprop-rooms-pubsub')  # fmt: skip
                self.subscriber.start()

    def _subscribed(self, changed):
        missed = False  # the subscription was lost since it was last made
        while True:
            try:
                with self.redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    pubsub.subscribe(self.CHANNEL)
                    if missed:
                        changed(None)  # what was published meanwhile is lost: every room is read again
                    while True:
                        message = pubsub.get_message(timeout=1.0)
                        if message is not None and message['type'] == 'message':
                            changed(message['data'])
            except self.down:
                missed = self.subscriber_lost = True
                time.sleep(RESUBSCRIBE_S)

    def _guarded(self, call):
        """`call`, with a Redis that cannot be reached (or answers with an error) as StoreDown, which the page and the
        routes say as they say any RoomError, rather than a traceback."""

        def run(*args, **kwargs):
            try:
                return call(*args, **kwargs)
            except (self.down, Busy) as error:
                raise StoreDown('The class cannot be reached just now: try again in a moment.') from error

        return run


def open_rooms(url=None, **options):
    """The server's rooms: in Redis at `url` or $BACKPROP_REDIS_URL when either is set, else in this process; a room
    holds $BACKPROP_CLASS_SIZE students where it is a whole number from 1 to 100,000 (else MAX_STUDENTS), and one
    client address joins $BACKPROP_JOINS_PER_MINUTE times a minute where it is one from 1 to 1,000,000 (else
    JOINS_PER_WINDOW)."""
    url = url or os.environ.get(ENV)
    for env, option, most in ((SIZE_ENV, 'max_students', 100_000), (JOINS_ENV, 'joins', 1_000_000)):
        size = os.environ.get(env, '').strip()
        if size.isdigit() and 1 <= int(size) <= most:
            options.setdefault(option, int(size))
    return Rooms(RedisBackend(url) if url else MemoryBackend(), **options)
