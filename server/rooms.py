"""A live class's rooms: a lecturer opens one, students join it by a code read aloud, and the lecturer's secret alone
moves its state (the scenario as link parameters, the frame, and the question asked of the room), each move a new
version for the phones to follow.

Pure Python and, for rooms that span replicas, the `redis` client; no Streamlit. One interface, two backends: in the
process (the default: `./run.sh` needs nothing more) and Redis (`open_rooms()` with BACKPROP_REDIS_URL set). Every
refusal is a `RoomError` whose message the page can show as it is.

    rooms = open_rooms()
    lecturer = rooms.create({'expr': 'reuse', 'v.a': '3'}, frame=0)   # Lecturer(code='K7QXM', secret='...')
    student = rooms.join('k7qxm')                                      # a student id; the code as typed
    rooms.seen(lecturer.code, student)                                 # still here (a stream's keepalive)
    rooms.students(lecturer.code)                                      # 1: the students seen in the last 45 s
    rooms.step(lecturer.code, lecturer.secret, {'expr': 'reuse', 'v.a': '3'}, frame=1).version   # 2
    rooms.state(lecturer.code)                                         # ClassState(version=2, ...)
    rooms.close(lecturer.code, lecturer.secret)                        # then RoomEnded for everyone

Asking the room (the lecturer's secret asks, reveals and closes; a student answers, and reads their verdict):

    rooms.ask(code, secret, frame=7, asked=[{'node': 'a', 'label': 'a.grad',
                                             'candidates': [['right', 6.0], ['forgot', 3.0]]}])   # question 1
    rooms.answer(code, student, 1, {'a': '6,0'})      # {'a': 6.0}; again to change it, until the reveal
    rooms.answers(code, secret)                       # (the question with its candidates, {student: {'a': 6.0}})
    rooms.reveal(code, secret)                        # the public question now gives each grad's right value
    rooms.verdict(code, student)                      # {'question': 1, 'asked': [{..., 'group': 'right'}]}
    rooms.close_question(code, secret)

A student's code, sent to the class: `send_bodies(code, student, {'tanh': 'self.grad += ...'}, 'right')`, and the
lecturer reads them all with `sent_bodies(code, secret)`.
"""

import hashlib
import hmac
import json
import math
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass

from engine import exercise, sandbox
from engine.answers import GROUPS, classify

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
KEY = re.compile(r'[a-z][a-z0-9_.]{0,31}')  # a link parameter's name: expr, v.a, mode, step, ...
STUDENT = re.compile(r'[A-Za-z0-9_-]{8,64}')
ENV = 'BACKPROP_REDIS_URL'
SIZE_ENV = 'BACKPROP_CLASS_SIZE'  # a server's most students a room, where MAX_STUDENTS is not its size (a lecture hall)

MAX_ASKED = 8  # grads asked in one question
MAX_CANDIDATES = 8  # values an answer is read against: the right one, then the mistakes' ('forgot', 'swapped', ...)
MAX_LABEL = 40  # a node's name or label, as the projector shows it
GROUP = re.compile(r'[a-z_]{1,16}')  # a candidate's group: right, forgot, swapped, assign, sign, ...
MAX_GRAD = 1e9  # an answer larger than this is a slip of the thumb, not a grad of these small expressions
NUMBER = re.compile(r'[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?')  # what float() reads, without its nan, inf and 1_000
MAX_CHANGES = 20  # answers from one student to one question, or code sends from one student to one room
MAX_BODY = sandbox.MAX_BODY  # characters in one body, as the page's boxes take them
MAX_SEND_BYTES = 4 * MAX_BODY * len(exercise.OPS)  # a send's bodies together, as UTF-8 (4 bytes a character at most)
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


class TooManyRooms(RoomError):
    """The store holds its most open rooms already."""


class BadState(RoomError, ValueError):
    """A scenario, frame or question the room cannot hold (not link parameters, a negative frame, too large)."""


class BadAnswer(RoomError, ValueError):
    """What a student sent cannot be taken: an answer that is not a number or too large, or code too long."""


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


def check_frame(frame):
    if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
        raise BadState(f'The frame must be a whole number from 0: not {frame!r}.')


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
                 idle=IDLE_S, ended_keep=ENDED_KEEP_S, present=PRESENT_S, gone=GONE_S):  # fmt: skip
        self.backend = backend or MemoryBackend()
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

    @staticmethod
    def _student(student):
        if not isinstance(student, str) or not STUDENT.fullmatch(student):
            raise NotInRoom('This page lost its place in the class: open the join link again.')
        return student

    def _class_state(self, code, got):
        """A backend's (version, state, question, question id, revealed) as a ClassState; its refusal raised."""
        if isinstance(got, str):
            self._live(code, got)
        version, text, question, qid, revealed = got
        held, question = json.loads(text), held_question(question, qid, revealed)
        return ClassState(int(version), held['scenario'], held['frame'], public_question(question))

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

    def join(self, code, student=None):
        """A student in the room, seen now (again, if `student` is theirs already: joining twice counts once); their
        id. RoomFull when the room holds its most students seen in the last PRESENT_S seconds."""
        code = normal_code(code)
        student = secrets.token_urlsafe(12) if student is None else self._student(student)
        now = self.clock()
        self._live(code, self.backend.join(code, student, now, now - self.present, self.max_students, self._keep()))
        return student

    def seen(self, code, student):
        """The student is still here (their stream's keepalive): seen now, back in the room if they had dropped out."""
        self.join(code, self._student(student))

    def leave(self, code, student, since=None):
        """The student has gone (their stream ended). With `since`, the time their stream last marked them seen, only
        if nothing has marked them since: a phone that reconnected, to another replica maybe, stays."""
        self.backend.leave(normal_code(code), str(student), since)

    def students(self, code):
        """How many students are in the live room: those seen in the last PRESENT_S seconds."""
        code, now = normal_code(code), self.clock()
        self._live(code, self.backend.secret(code, now))
        return self.backend.count(code, now - self.present)

    def state(self, code):
        """The class's ClassState, for a student or the lecturer."""
        code = normal_code(code)
        return self._class_state(code, self.backend.state(code, self.clock()))

    def step(self, code, secret, scenario, frame):
        """The lecturer moves the class: the new ClassState, its version one more. NotLecturer without the secret."""
        text = state_json(scenario, frame)
        code, now = self._lecturer(code, secret), self.clock()
        return self._class_state(code, self.backend.write(code, text, now, now + self.idle, self._keep()))

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

    def _question(self, code, secret, mode, text=''):
        code, now = self._lecturer(code, secret), self.clock()
        got = self.backend.question(code, mode, text, now, now + self.idle, self._keep())
        return code, got

    def ask(self, code, secret, frame, asked):
        """The lecturer asks the room for grads (`[{'node', 'label', 'candidates': [['right', v], [group, v], ...]}]`)
        at `frame`: a new question, its id one more than the room's last, replacing an open one and its answers. The
        new ClassState (a new version: the phones show the question). BadState for a question the room cannot hold."""
        text = question_json(frame, asked)
        return self._class_state(*self._question(code, secret, 'ask', text))

    def reveal(self, code, secret):
        """The lecturer reveals the answers: no more are taken, and the phones are sent each grad's right value.
        The new ClassState; QuestionClosed when no question is open."""
        code, got = self._question(code, secret, 'reveal')
        if got == 'none':
            raise QuestionClosed('There is no question to reveal: ask one first.')
        return self._class_state(code, got)

    def close_question(self, code, secret):
        """The lecturer takes the question off the phones, its answers forgotten; the new ClassState."""
        code, got = self._question(code, secret, 'close')
        return self.state(code) if got == 'none' else self._class_state(code, got)

    def answer(self, code, student, question_id, answers):
        """A student's answers to the open question (`{node: '-0.5'}`, as typed, or numbers), kept as floats and
        returned; a later answer replaces theirs (one per student), until the reveal. Each refusal a RoomError: not
        in the room, an old question, revealed, not a number or too large, all blank, or a flood."""
        code, student = normal_code(code), self._student(student)
        question, _ = self._read(code, 'answers', student)
        if question is None or isinstance(question_id, bool) or question_id != question['id']:
            raise QuestionClosed('That question is closed: answer the one on the projector.')
        if question['revealed']:
            raise Revealed('The answers are revealed: yours was not counted.')
        numbers = read_answers(question, answers)
        # the store checks again that this question is open and unrevealed, as it keeps the answer
        self._put(code, 'answers', student, str(question['id']), json.dumps(numbers))
        return numbers

    def answers(self, code, secret):
        """For the lecturer: the open question in full (each grad's candidates too; None when none is open), and
        its answers, `{student: {node: float}}`."""
        code = self._lecturer(code, secret)
        question, kept = self._read(code, 'answers')
        return question, {student: json.loads(text) for student, text in kept.items()} if question else {}

    def verdict(self, code, student):
        """A student's answers against the revealed question: `{'question': id, 'asked': [{'node', 'label', 'answer',
        'group', 'says', 'right'}]}`, `group` 'right', a mistake's ('forgot', ...), 'other' or 'blank', and `says` it in
        the student's words (engine.answers.GROUPS)."""
        code, student = normal_code(code), self._student(student)
        question, kept = self._read(code, 'answers', student)
        if question is None:
            raise QuestionClosed('There is no question on the projector now.')
        if not question['revealed']:
            raise NotRevealed('The answers are not revealed yet.')
        mine = json.loads(kept[student]) if student in kept else {}
        asked = [
            {'node': a['node'], 'label': a['label'], 'answer': mine.get(a['node']), 'group': group,
             'says': GROUPS[group].says, 'right': a['candidates'][0][1]}
            for a in question['asked']
            for group in [classify(mine.get(a['node']), a['candidates'])]
        ]  # fmt: skip
        return {'question': question['id'], 'asked': asked}

    def send_bodies(self, code, student, bodies, verdict):
        """A student sends the class their `_backward` bodies (`{'tanh': 'self.grad += ...'}`) and the grader's
        verdict on them ('right', or mistake kinds joined by commas); a later send replaces theirs."""
        code, student = normal_code(code), self._student(student)
        self._put(code, 'bodies', student, '', bodies_json(bodies, verdict))

    def sent_bodies(self, code, secret):
        """For the lecturer: each student's last send, `{student: {'bodies': {op: text}, 'verdict': str}}`."""
        code = self._lecturer(code, secret)
        return {student: json.loads(text) for student, text in self._read(code, 'bodies')[1].items()}


class MemoryBackend:
    """The rooms in this process's memory, under one lock (Streamlit's script threads and the server's event loop
    both call in). Each method is the Redis backend's, with the same answers."""

    def __init__(self):
        self.lock, self.rooms = threading.Lock(), {}  # code -> dict(secret, version, state, question, ...)

    def _status(self, code, now):
        room = self.rooms.get(code)
        if room is None or room['forget'] <= now:
            self.rooms.pop(code, None)
            return None, 'unknown'
        if room['ended']:
            return room, room['ended']
        if room['expires'] <= now:
            return room, 'idle'
        if room.get('heard', math.inf) <= now:
            return room, 'gone'
        return room, 'ok'

    @staticmethod
    def _got(room):
        return room['version'], room['state'], room['question'], room['qid'], room['revealed']

    def create(self, code, secret, text, now, expires, max_rooms, keep):
        with self.lock:
            # _status forgets the long-ended as it goes
            if sum(self._status(c, now)[1] == 'ok' for c in list(self.rooms)) >= max_rooms:
                return 'rooms'
            if code in self.rooms:
                return 'taken'
            self.rooms[code] = {
                'secret': secret, 'version': 1, 'state': text, 'expires': expires, 'ended': '', 'forget': now + keep,
                'question': '', 'qid': 0, 'revealed': 0,
                'present': {},  # student -> when last seen
                'answers': {}, 'bodies': {},  # student -> the text kept: the open question's answers, the code sent
                'changes': {'answers': {}, 'bodies': {}},  # kind -> student -> how many kept (the flood cap)
            }  # fmt: skip
            return 'ok'

    def secret(self, code, now):
        with self.lock:
            room, status = self._status(code, now)
            return room['secret'] if status == 'ok' else status

    def state(self, code, now):
        with self.lock:
            room, status = self._status(code, now)
            return self._got(room) if status == 'ok' else status

    def join(self, code, student, now, since, max_students, keep):
        with self.lock:
            room, status = self._status(code, now)
            if status != 'ok':
                return status
            present = room['present']
            for gone in [s for s, seen in present.items() if seen < since]:
                del present[gone]
            if student not in present and len(present) >= max_students:
                return 'full'
            present[student] = now
            return 'ok'

    def leave(self, code, student, since):
        with self.lock:
            present = self.rooms[code]['present'] if code in self.rooms else {}
            if student in present and (since is None or present[student] <= since):
                del present[student]

    def count(self, code, since):
        with self.lock:
            present = self.rooms[code]['present'] if code in self.rooms else {}
            return sum(seen >= since for seen in present.values())

    def hear(self, code, now, heard):
        with self.lock:
            room, status = self._status(code, now)
            if status == 'ok':
                room['heard'] = heard
            return status

    def write(self, code, text, now, expires, keep):
        with self.lock:
            room, status = self._status(code, now)
            if status != 'ok':
                return status
            if text is not None:
                room['version'] += 1
                room['state'] = text
            room['expires'], room['forget'] = expires, now + keep
            return self._got(room)

    def question(self, code, mode, text, now, expires, keep):
        with self.lock:
            room, status = self._status(code, now)
            if status != 'ok':
                return status
            if mode == 'ask':
                room.update(question=text, qid=room['qid'] + 1, revealed=0, answers={})
                room['changes']['answers'] = {}
            elif not room['question']:
                return 'none'
            elif mode == 'reveal':
                if room['revealed']:
                    return self._got(room)  # revealed already: nothing new for the phones
                room['revealed'] = 1
            else:
                room.update(question='', revealed=0, answers={})
                room['changes']['answers'] = {}
            room['version'] += 1
            room['expires'], room['forget'] = expires, now + keep
            return self._got(room)

    def read(self, code, kind, now, student):
        with self.lock:
            room, status = self._status(code, now)
            if status != 'ok':
                return status
            kept = room[kind] if student is None else {s: t for s, t in room[kind].items() if s == student}
            return room['question'], room['qid'], room['revealed'], dict(kept)

    def put(self, code, kind, student, qid, text, now, since, max_entries, max_changes, keep):
        with self.lock:
            room, status = self._status(code, now)
            if status != 'ok':
                return status
            if room['present'].get(student, since - 1) < since:
                return 'absent'
            if qid and (not room['question'] or str(room['qid']) != qid):
                return 'old'
            if qid and room['revealed']:
                return 'revealed'
            changes = room['changes'][kind]
            if changes.get(student, 0) >= max_changes:
                return 'flood'
            if student not in room[kind] and len(room[kind]) >= max_entries:
                return 'crowded'
            changes[student] = changes.get(student, 0) + 1
            room[kind][student] = text
            return 'ok'

    def end(self, code, reason, now, keep):
        with self.lock:
            if code in self.rooms:
                room = self.rooms[code]
                room.update(ended=reason, present={}, answers={}, bodies={}, forget=now + keep)
                room['changes'] = {'answers': {}, 'bodies': {}}


# Redis: a room is a hash `backprop:room:CODE` (secret digest, version, state, expires, ended, and the question: its
# JSON, or '' when none is open, its id, revealed), the open rooms the sorted set `backprop:rooms` (code by its expiry),
# and the room's students and what they sent, keys of their own beside the hash: `:present` (a sorted set, student by
# when last seen), `:answers` and `:bodies` (hashes, student -> JSON), `:answers:changes` and `:bodies:changes` (how
# many each student sent: the flood cap). Each change is one Lua script, atomic across replicas; the clock's time
# comes in as an argument, so a test's clock rules. Redis's own expiry (EXPIRE, in real seconds) only forgets
# long-ended rooms. Every script is given the keys in `RedisBackend._keys`'s order: KEYS[3] on are the room's own.
_GOT = """
local function got()
  local h = redis.call('HMGET', KEYS[1], 'version', 'state', 'question', 'qid', 'revealed')
  return {'ok', h[1], h[2], h[3] or '', h[4] or '0', h[5] or '0'}
end
local function refresh(expires, keep, code)
  redis.call('HSET', KEYS[1], 'expires', expires)
  redis.call('EXPIRE', KEYS[1], keep)
  for i = 3, #KEYS do redis.call('EXPIRE', KEYS[i], keep) end
  local heard = tonumber(redis.call('HGET', KEYS[1], 'heard') or expires)
  redis.call('ZADD', KEYS[2], math.min(tonumber(expires), heard), code)
end
"""
_LIVE = """
local r = redis.call('HMGET', KEYS[1], 'expires', 'ended', 'heard')
if not r[1] then return 'unknown' end
if r[2] ~= '' then return r[2] end
if tonumber(r[1]) <= tonumber(ARGV[1]) then return 'idle' end
if r[3] and tonumber(r[3]) <= tonumber(ARGV[1]) then return 'gone' end
"""
_CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'rooms' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'taken' end
redis.call('HSET', KEYS[1], 'secret', ARGV[3], 'version', 1, 'state', ARGV[4], 'expires', ARGV[5], 'ended', '',
           'question', '', 'qid', 0, 'revealed', 0)
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[7])
return 'ok'
"""
_READ = _LIVE + "return {'ok', redis.call('HGET', KEYS[1], ARGV[2])}"
# the lecturer's page is open: when it is heard of last, and the open rooms' set ends the room at the nearer deadline
_HEAR = (
    _LIVE
    + """
redis.call('HSET', KEYS[1], 'heard', ARGV[2])
redis.call('ZADD', KEYS[2], math.min(tonumber(r[1]), tonumber(ARGV[2])), ARGV[3])
return 'ok'
"""
)
_STATE = _GOT + _LIVE + 'return got()'
# the students seen before ARGV[5] have gone: dropped, so the set holds at most the cap and the recently seen
_JOIN = (
    _LIVE
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[5])
if not redis.call('ZSCORE', KEYS[3], ARGV[2]) and redis.call('ZCOUNT', KEYS[3], ARGV[5], '+inf') >= tonumber(ARGV[3])
then
  return 'full'
end
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[3], ARGV[4])
return 'ok'
"""
)
_LEAVE = """
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
if seen and (ARGV[2] == '' or tonumber(seen) <= tonumber(ARGV[2])) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 'ok'
"""
_WRITE = (
    _GOT
    + _LIVE
    + """
if ARGV[2] ~= '' then
  redis.call('HINCRBY', KEYS[1], 'version', 1)
  redis.call('HSET', KEYS[1], 'state', ARGV[2])
end
refresh(ARGV[3], ARGV[4], ARGV[5])
return got()
"""
)
_QUESTION = (
    _GOT
    + _LIVE
    + """
local mode, question = ARGV[2], redis.call('HGET', KEYS[1], 'question') or ''
if mode == 'ask' then
  redis.call('HINCRBY', KEYS[1], 'qid', 1)
  redis.call('HSET', KEYS[1], 'question', ARGV[3], 'revealed', 0)
  redis.call('DEL', KEYS[4], KEYS[5])
elseif question == '' then
  return 'none'
elseif mode == 'reveal' then
  if redis.call('HGET', KEYS[1], 'revealed') == '1' then return got() end
  redis.call('HSET', KEYS[1], 'revealed', 1)
else
  redis.call('HSET', KEYS[1], 'question', '', 'revealed', 0)
  redis.call('DEL', KEYS[4], KEYS[5])
end
redis.call('HINCRBY', KEYS[1], 'version', 1)
refresh(ARGV[4], ARGV[5], ARGV[6])
return got()
"""
)
# KEYS: the room, the rooms, its present students, then the hash kept (answers or bodies) and its changes
_PUT = (
    _LIVE
    + """
local seen = redis.call('ZSCORE', KEYS[3], ARGV[2])
if not seen or tonumber(seen) < tonumber(ARGV[5]) then return 'absent' end
if ARGV[3] ~= '' then
  local q = redis.call('HMGET', KEYS[1], 'question', 'qid', 'revealed')
  if (q[1] or '') == '' or q[2] ~= ARGV[3] then return 'old' end
  if q[3] == '1' then return 'revealed' end
end
if tonumber(redis.call('HGET', KEYS[5], ARGV[2]) or '0') >= tonumber(ARGV[7]) then return 'flood' end
if redis.call('HEXISTS', KEYS[4], ARGV[2]) == 0 and redis.call('HLEN', KEYS[4]) >= tonumber(ARGV[6]) then
  return 'crowded'
end
redis.call('HINCRBY', KEYS[5], ARGV[2], 1)
redis.call('HSET', KEYS[4], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[8])
redis.call('EXPIRE', KEYS[5], ARGV[8])
return 'ok'
"""
)
# KEYS: the room, the hash kept (answers or bodies); ARGV[2] a student, or '' for all of them
_KEPT = (
    _LIVE
    + """
local q, kept = redis.call('HMGET', KEYS[1], 'question', 'qid', 'revealed'), {}
if ARGV[2] == '' then
  kept = redis.call('HGETALL', KEYS[2])
else
  local one = redis.call('HGET', KEYS[2], ARGV[2])
  if one then kept = {ARGV[2], one} end
end
return {'ok', q[1] or '', q[2] or '0', q[3] or '0', kept}
"""
)
_END = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
redis.call('HSET', KEYS[1], 'ended', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('ZREM', KEYS[2], ARGV[3])
return 'ok'
"""


class RedisBackend:
    """The rooms in Redis at `url` (`redis://host:6379/0`), shared by every replica that is given the same URL."""

    PREFIX = 'backprop:'

    def __init__(self, url):
        import redis  # only a server given a Redis URL needs the client

        self.redis = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5)
        self.down = redis.RedisError
        self.scripts = {
            name: self._guarded(self.redis.register_script(source))
            for name, source in [('create', _CREATE), ('read', _READ), ('state', _STATE), ('join', _JOIN),
                                 ('leave', _LEAVE), ('write', _WRITE), ('question', _QUESTION), ('put', _PUT),
                                 ('kept', _KEPT), ('hear', _HEAR), ('end', _END)]
        }  # fmt: skip

    def _guarded(self, call):
        """`call`, with a Redis that cannot be reached (or answers with an error) as StoreDown, which the page and the
        routes say as they say any RoomError, rather than a traceback."""

        def run(*args, **kwargs):
            try:
                return call(*args, **kwargs)
            except self.down as error:
                raise StoreDown('The class cannot be reached just now: try again in a moment.') from error

        return run

    def _keys(self, code):
        """The room's hash, the open rooms, then the room's own keys: present, answers, its changes, bodies, its."""
        room = f'{self.PREFIX}room:{code}'
        own = ['present', 'answers', 'answers:changes', 'bodies', 'bodies:changes']
        return [room, f'{self.PREFIX}rooms', *(f'{room}:{name}' for name in own)]

    def _kind(self, code, kind):
        """The keys `_PUT` and `_KEPT` use for `kind`: the room, the rooms, present, the hash kept, its changes."""
        room, live, present, *own = self._keys(code)
        kept, changes = own[0:2] if kind == 'answers' else own[2:4]
        return [room, live, present, kept, changes]

    def create(self, code, secret, text, now, expires, max_rooms, keep):
        room, live = self._keys(code)[:2]
        return self.scripts['create'](keys=[room, live], args=[repr(now), max_rooms, secret, text, repr(expires),
                                                               keep, code])  # fmt: skip

    def secret(self, code, now):
        got = self.scripts['read'](keys=self._keys(code)[:1], args=[repr(now), 'secret'])
        return got[1] if isinstance(got, list) else got

    def state(self, code, now):
        got = self.scripts['state'](keys=self._keys(code)[:1], args=[repr(now)])
        return got[1:] if isinstance(got, list) else got

    def join(self, code, student, now, since, max_students, keep):
        return self.scripts['join'](keys=self._keys(code)[:3], args=[repr(now), student, max_students, keep,
                                                                     repr(since)])  # fmt: skip

    def leave(self, code, student, since):
        self.scripts['leave'](keys=self._keys(code)[2:3], args=[student, '' if since is None else repr(since)])

    def count(self, code, since):
        return self._guarded(self.redis.zcount)(self._keys(code)[2], repr(since), '+inf')

    def hear(self, code, now, heard):
        return self.scripts['hear'](keys=self._keys(code)[:2], args=[repr(now), repr(heard), code])

    def write(self, code, text, now, expires, keep):
        got = self.scripts['write'](keys=self._keys(code), args=[repr(now), text or '', repr(expires), keep, code])
        return got[1:] if isinstance(got, list) else got

    def question(self, code, mode, text, now, expires, keep):
        got = self.scripts['question'](keys=self._keys(code), args=[repr(now), mode, text, repr(expires), keep, code])
        return got[1:] if isinstance(got, list) else got

    def read(self, code, kind, now, student):
        room, _, _, kept, _ = self._kind(code, kind)
        got = self.scripts['kept'](keys=[room, kept], args=[repr(now), student or ''])
        if not isinstance(got, list):
            return got
        flat = got[4]
        return got[1], got[2], got[3], dict(zip(flat[::2], flat[1::2]))

    def put(self, code, kind, student, qid, text, now, since, max_entries, max_changes, keep):
        args = [repr(now), student, qid, text, repr(since), max_entries, max_changes, keep]
        return self.scripts['put'](keys=self._kind(code, kind), args=args)

    def end(self, code, reason, now, keep):
        self.scripts['end'](keys=self._keys(code), args=[reason, keep, code])


def open_rooms(url=None, **options):
    """The server's rooms: in Redis at `url` or $BACKPROP_REDIS_URL when either is set, else in this process; a room
    holds $BACKPROP_CLASS_SIZE students where it is a whole number from 1 to 100,000 (else MAX_STUDENTS)."""
    url = url or os.environ.get(ENV)
    size = os.environ.get(SIZE_ENV, '').strip()
    if size.isdigit() and 1 <= int(size) <= 100_000:
        options.setdefault('max_students', int(size))
    return Rooms(RedisBackend(url) if url else MemoryBackend(), **options)
