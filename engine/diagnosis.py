"""What is wrong in a student's bodies, in a student's words: each slip's kind, read from what the body does to each
input's grad at two made-up points, however it is written (its lines may name numbers first: `g = out.grad`, then
`self.grad = g * other.data` is the `=` slip). A body the sandbox refuses waits (engine/bodies.py): it never ran, so
it has no slip to name."""

import ast
import functools
from dataclasses import dataclass
from math import isfinite

from . import ieee as math  # as in value.py: inf and nan where Python's math raises
from .bodies import Waiting
from .exercise import OPS, right_lines
from .ieee import same
from .sandbox import INPUTS, evaluate

# a grad that is not a finite number, in either form (local_grads.MISTAKES too): it is never close to the right one
NONFINITE = {
    'overflow': 'a wrong local gradient that overflows: the grad reaches inf (a float holds at most about 1.8e308; '
    'where Python’s math raises OverflowError, as math.exp(1000) does, the page goes on with inf to show where)',
    'nan': 'a wrong local gradient that is not a number: the grad becomes nan (as math.log(-1) gives, or inf - inf)',
}

# each kind of mistake a body can make for one input, checked in this order (diagnose)
MISTAKES = {
    'pass': 'a `pass` left in: this _backward passes nothing back',
    'missing': 'the input is never given a grad',
    'assign': '= where += belongs: the line throws away what the grad held (a value used twice keeps only one use)',
    'subtract': '-= where += belongs: the grad goes the wrong way',
    'twice': 'the grad is written more than once: it gets the contribution too many times',
    'out_data': 'out.data where out.grad belongs: the chain rule scales by the grad coming back, not the value',
    'no_out_grad': 'out.grad missing from the product: the local gradient alone is not the chain rule',
    'swapped': "the inputs swapped: in a product each input's local gradient is the other input's data",
    **NONFINITE,
    'local': 'a wrong local gradient',
}


@dataclass(frozen=True)
class Mistake:
    name: str  # the body's: 'add', 'mul' or 'tanh'
    target: str  # the input whose grad is wrong: 'self' or 'other'
    kind: str  # a key of MISTAKES
    yours: tuple  # the student's lines that write it, as typed
    right: str  # the line engine/value.py has for it

    @property
    def words(self):
        """What went wrong, in a student's words (MISTAKES)."""
        return MISTAKES[self.kind]


@functools.cache
def kinds(op):
    """The kinds of MISTAKES diagnose can name in op's body, in their order: for an op of one input (tanh) not
    `missing` (a body that writes no grad is a `pass`) nor `swapped` (there is no other input); for one whose inputs'
    right lines add the same (+: out.grad to each) not `swapped` (swapping them changes nothing)."""
    return possible(MISTAKES, [line.value for line in right_lines(op)], unwritten='missing')


def possible(mistakes, right, unwritten):
    """The kinds of `mistakes` a student can make where `right` are the right expressions, one an input: with one
    input, not `unwritten` (an input left out) nor `swapped`; where the inputs' right ones are alike, not `swapped`.
    Shared by both forms of the exercise (local_grads.kinds)."""
    dumps = [ast.dump(e) for e in right]
    never = set()
    if len(dumps) < 2:
        never |= {unwritten, 'swapped'}
    if len(set(dumps)) < len(dumps):
        never.add('swapped')
    return tuple(kind for kind in mistakes if kind not in never)


def _probes(op):
    """Two made-up points at which to compare a body's lines with the right ones: no two of their numbers alike."""
    out = []
    for s, o, g in ((0.7, -1.3, 2.9), (1.9, 0.6, -0.8)):
        data = {'+': s + o, '*': s * o, 'tanh': math.tanh(s)}[op]
        scope = {'self': _Probe(s, 0.37), 'other': _Probe(o, -0.41), 'out': _Probe(data, g), 't': data}
        out.append(scope)
    return out


@dataclass
class _Probe:
    data: float
    grad: float


def close(a, b):
    """Whether a and b are the same number to 9 digits; inf and nan only the same inf, or nan (ieee.same): never a
    finite number, however large. Shared by both forms (local_grads)."""
    if not (isfinite(a) and isfinite(b)):
        return same(a, b)
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def not_finite(results):
    """The kind of NONFINITE the results (what a line adds, or an entry gives, at each probe) show: 'nan' if one is
    nan, else 'overflow' if one is inf; None if all are finite."""
    if any(x != x for x in results):
        return 'nan'
    return None if all(isfinite(x) for x in results) else 'overflow'


def diagnose(bodies):
    """The Mistakes in the bodies ({'add': Body, …}, engine/bodies.py's checked()), op by op and input by input; none
    where a body does what the right one does (however it is written), nor in one that waits, which never ran."""
    found = []
    for name, body in bodies.items():
        if isinstance(body, Waiting):
            continue
        op, right = OPS[name], right_lines(OPS[name])
        for slot, target in enumerate(INPUTS[op]):
            lines = [w for w in body.writes if w.target == target]
            kind = _mistake(op, body, lines=lines, right=right[slot], other=right[1 - slot] if len(right) > 1 else None)
            if kind:
                found.append(
                    Mistake(name, target, kind=kind, yours=tuple(w.text for w in lines), right=ast.unparse(right[slot]))
                )
    return found


def _mistake(op, body, lines, right, other):
    """The kind of mistake (a key of MISTAKES) the `lines` of `body` that write one input make, against `right`,
    value.py's line for that input (`other`: its line for the other input, if the op has two); None if none."""
    if not body.writes:
        return 'pass'
    if not lines:
        return 'missing'
    runs = []  # at each probe: the grad before the body ran, after, and the scope
    for scope in _probes(op):
        x = scope[lines[0].target]
        before = x.grad
        body.run(scope)  # the whole body: its lines for the other input write the other probe, and names are shared
        runs.append((before, x.grad, scope))

    def adds(line, times=1, upstream=None):
        """Whether at every probe the lines add times × the line's E, with out.grad read as upstream(scope)."""
        return all(
            close(after - before, times * evaluate(line.value, _upstream(scope, upstream)))
            for before, after, scope in runs
        )

    if adds(right):
        return None
    if any(w.how == '=' for w in lines):
        return 'assign'
    if adds(right, -1):
        return 'subtract'
    if len(lines) > 1 and adds(right, len(lines)):
        return 'twice'
    if adds(right, upstream=lambda scope: scope['out'].data):
        return 'out_data'
    if adds(right, upstream=lambda scope: 1.0):
        return 'no_out_grad'
    if 'swapped' in kinds(op) and adds(other):
        return 'swapped'
    return not_finite([after - before for before, after, _ in runs]) or 'local'


def _upstream(scope, upstream):
    """The scope with out.grad read as upstream(scope), where given."""
    if upstream is None:
        return scope
    return {**scope, 'out': _Probe(scope['out'].data, upstream(scope))}
