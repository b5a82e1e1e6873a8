"""`_backward` bodies in the forms people write them (tests/unit/data/real_bodies.txt: the shapes found in public
micrograd re-implementations, written in the exercise's names with our own words): every one that is right and safe
is accepted and graded right, every one that is wrong and safe is accepted with its slip named by
engine/diagnosis.py, and every other one is refused with a message that says what it found, where.

Each body's truth is worked out here, not by the engine: the body runs as Python (on curated text from the data file,
with no builtins but a silent print) in a closure shaped as the exercise's, on stand-ins for its Values at three
points, and what it adds to each input's grad is held against the op's local gradient by central finite differences
times out.grad. What it adds otherwise (minus it, twice it, with out.data for out.grad, …) names the slip.
"""

import math
import re
import textwrap
from pathlib import Path

import pytest

from engine import exercise
from engine.diagnosis import diagnose
from engine.grader import verdicts
from engine.sandbox import BodyError, check_body

DATA = Path(__file__).parent / 'data' / 'real_bodies.txt'
OPS = {'add': lambda s, o: s + o, 'mul': lambda s, o: s * o, 'tanh': lambda s, o: math.tanh(s)}
CLOSURE = {'add': ('self', 'other', 'out'), 'mul': ('self', 'other', 'out'), 'tanh': ('self', 'out', 't')}
POINTS = [(0.7, -1.3, 2.9, 0.37, -0.41), (1.9, 0.6, -0.8, -1.1, 0.25), (-0.45, 2.2, 1.3, 0.0, 0.9)]  # s, o, g, grads
H = 1e-6


# --- the data file ---


def records():
    """[(header: {'op': …, 'truth': …, 'expect': …}, body)], in the file's order."""
    out = []
    for chunk in DATA.read_text().split('\n# ---\n')[1:]:
        lines = chunk.strip('\n').split('\n')
        header = {}
        while lines and re.match(r'# (op|truth|expect): ', lines[0]):
            key, value = lines.pop(0)[2:].split(': ', 1)
            header[key] = value
        out.append((header, '\n'.join(lines)))
    return out


RECORDS = records()


def named(header, k):
    return f'{k}-{header["op"]}'


# --- the truth, by running the body as Python against finite differences ---


class _Stand:
    """A Value as the exercise's body sees it: data and grad, nothing else (a call of backward is noted)."""

    __slots__ = ('data', '_stand_grad', 'written', 'reruns')

    def __init__(self, data, grad):
        self.data, self._stand_grad, self.written, self.reruns = data, grad, False, 0

    @property
    def grad(self):
        return self._stand_grad

    @grad.setter
    def grad(self, new):
        self._stand_grad, self.written = new, True

    def _backward(self):
        self.reruns += 1

    def backward(self):
        self.reruns += 1


def _run(op, body, s, o, g, grads):
    """The inputs' stand-ins after the body ran once at (s, o) with out.grad g and the inputs' grads `grads`."""
    source = f'def make({", ".join(CLOSURE[op])}):\n    def _backward():\n{textwrap.indent(body, " " * 8)}\n'
    source += '        pass\n    return _backward\n'
    namespace = {'math': math, '__builtins__': {'print': lambda *a, **k: None}}
    exec(compile(source, '<real body>', 'exec'), namespace)  # test-only: the curated bodies of the data file
    self, other = _Stand(s, grads[0]), _Stand(o, grads[1])
    out = _Stand(OPS[op](s, o), g)
    values = {'self': self, 'other': other, 'out': out, 't': out.data}
    namespace['make'](*(values[name] for name in CLOSURE[op]))()
    return {'self': self, 'other': other}


def _close(a, b):
    return abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b))


def truth(op, body):
    """'right'; or each wrong input's slip, 'self: assign, other: swapped'; or 'error: NameError' where the body
    cannot run in the exercise (or calls backward)."""
    try:
        runs = [(point, _run(op, body, *point[:3], point[3:])) for point in POINTS]
        again = [_run(op, body, *point[:3], (point[3] + 5.0, point[4] - 5.0)) for point in POINTS]  # other grads
    except Exception as e:  # what Python would raise in the exercise
        return f'error: {type(e).__name__}'
    if any(x.reruns for _, after in runs for x in after.values()):
        return 'error: calls backward'
    slips = []
    for slot, name in enumerate(('self', 'other') if op != 'tanh' else ('self',)):
        kind = _slip(op, slot, name, runs, again)
        if kind:
            slips.append(f'{name}: {kind}')
    return ', '.join(slips) or 'right'


def _slip(op, slot, name, runs, again):
    def local(s, o, which=slot):  # d op / d input, by central differences
        f = OPS[op]
        return (f(s + H, o) - f(s - H, o)) / (2 * H) if which == 0 else (f(s, o + H) - f(s, o - H)) / (2 * H)

    def adds(amount):  # at every point the body added amount(s, o, g, out.data) to the input's grad
        return all(_close(after[name].grad - point[3 + slot], amount(*point[:3], OPS[op](*point[:2])))
                   for point, after in runs)  # fmt: skip

    if adds(lambda s, o, g, d: local(s, o) * g):
        return None
    if not any(after[name].written for _, after in runs):
        return 'pass' if not any(x.written for _, after in runs for x in after.values()) else 'missing'
    if all(_close(after[name].grad, second[name].grad) for (_, after), second in zip(runs, again)):
        return 'assign'  # what the grad held made no difference: it was thrown away
    for k, kind in ((-1, 'subtract'), (2, 'twice'), (3, 'twice')):
        if adds(lambda s, o, g, d, k=k: k * local(s, o) * g):
            return kind
    if adds(lambda s, o, g, d: local(s, o) * d):
        return 'out_data'
    if adds(lambda s, o, g, d: local(s, o)):
        return 'no_out_grad'
    if op == 'mul' and adds(lambda s, o, g, d: local(s, o, 1 - slot) * g):
        return 'swapped'
    return 'local'


# --- the tests ---


def test_the_set_holds_each_op_in_many_forms_each_once():
    assert len(RECORDS) >= 100
    assert {h['op'] for h, _ in RECORDS} == {'add', 'mul', 'tanh'}
    assert len({(h['op'], body) for h, body in RECORDS}) == len(RECORDS)


@pytest.mark.parametrize(('header', 'body'), RECORDS, ids=[named(h, k) for k, (h, _) in enumerate(RECORDS)])
def test_each_bodys_truth_is_what_running_it_against_finite_differences_gives(header, body):
    assert truth(header['op'], body) == header['truth']


def _kinds(found):
    return ', '.join(f'{m.target}: {m.kind}' for m in found) or 'right'


@pytest.mark.parametrize(('header', 'body'), RECORDS, ids=[named(h, k) for k, (h, _) in enumerate(RECORDS)])
def test_a_safe_body_is_graded_as_its_truth_and_any_other_is_refused_with_what_it_found(header, body):
    name, said = header['op'], header['truth']
    expect = header['expect']
    if expect.startswith('refused'):
        with pytest.raises(BodyError) as e:
            check_body(name, body)
        assert e.value.line and e.value.column and e.value.message
        assert expect.removeprefix('refused: ') in e.value.message
        return
    bodies = {n: check_body(n, exercise.answer(n)) for n in exercise.OPS} | {name: check_body(name, body)}
    assert _kinds(diagnose(bodies)) == said == expect
    if said == 'right':
        assert not any(v.wrong for v in verdicts(bodies))


def test_what_the_set_holds():
    # every kind of outcome is there: right, each slip the collection shows, and refusals
    outcomes = [h['expect'] for h, _ in RECORDS]
    assert outcomes.count('right') >= 60
    assert {k for o in outcomes for k in re.findall(r': (\w+)', o) if not o.startswith('refused')} >= {
        'assign',
        'no_out_grad',
    }
    assert sum(o.startswith('refused') for o in outcomes) >= 10
