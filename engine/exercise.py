"""The exercise itself (../shared/seed/exercise.txt): its three methods as the student meets them, each `_backward`
body a `pass  # TODO`; the right bodies, as engine/value.py writes them; and the engine that runs a student's bodies.

yours(bodies) is engine/value.py's Value with those three `_backward`s the student's (each an engine.sandbox.Body,
checked and run there, never exec'd, or engine/bodies.py's Waiting, one the sandbox refused, which writes nothing);
every other op is value.py's, the right one. The trace and the page read a
body's code as they read an op's (engine/code.py). engine/grader.py grades a student's bodies as the exercise does,
and engine/diagnosis.py names each slip.
"""

import ast

from . import ieee as math  # as in value.py: inf and nan where Python's math raises
from . import value
from .code import grad_writes
from .ieee import as_float

TODO = 'pass  # TODO'

# the exercise's own text (../shared/seed/exercise.txt): each method as the student meets it, its body the TODO
EXERCISE = {
    'add': """def __add__(self, other):
    out = Value(self.data + other.data, (self, other))

    def _backward():
        pass  # TODO

    out._backward = _backward
    return out""",
    'mul': """def __mul__(self, other):
    out = Value(self.data * other.data, (self, other))

    def _backward():
        pass  # TODO

    out._backward = _backward
    return out""",
    'tanh': """def tanh(self):
    t = math.tanh(self.data)
    out = Value(t, (self,))

    def _backward():
        pass  # TODO

    out._backward = _backward
    return out""",
}
OPS = {'add': '+', 'mul': '*', 'tanh': 'tanh'}  # a body's name (in a link: code.add) -> the op it is the _backward of
METHODS = {name: text.split('(', 1)[0].removeprefix('def ') for name, text in EXERCISE.items()}  # 'mul' -> '__mul__'


def around(name):
    """The exercise's method `name` ('add') split at its body: (the lines before it, the body's indent, the lines
    after), for the page to show around the box the student types the body in."""
    before, after = EXERCISE[name].split(TODO)
    head, indent = before.rsplit('\n', 1)
    return head, indent, after.lstrip('\n')


def answer(name):
    """The right body of the exercise's method `name`, as engine/value.py's own op writes it."""
    return '\n'.join(ast.unparse(s) for s in right_lines(OPS[name]))


def right_lines(op):
    """engine/value.py's lines for op, one per input in _prev order: `self.grad += E`, as ast."""
    a, b = value.Value(0.5), value.Value(-1.5)
    closure = {'+': a + b, '*': a * b, 'tanh': a.tanh()}[op]._backward
    return [s for _, _, s in grad_writes(closure)]


# --- the engine with the student's bodies ---


class Value(value.Value):
    """engine/value.py's Value, its `+`, `×` and `tanh` running a student's `_backward` bodies (`bodies`: op -> Body,
    set on each class yours() makes); its other ops are value.py's, their results of this class too."""

    bodies = {}

    def __add__(self, other):
        other = self._of(other)
        out = type(self)(self.data + other.data, (self, other), '+')
        body = self.bodies['+']

        def _backward():
            body.run({'self': self, 'other': other, 'out': out})

        _carry(_backward, body)
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._of(other)
        out = type(self)(self.data * other.data, (self, other), '*')
        body = self.bodies['*']

        def _backward():
            body.run({'self': self, 'other': other, 'out': out})

        _carry(_backward, body)
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = type(self)(t, (self,), 'tanh')
        body = self.bodies['tanh']

        def _backward():
            body.run({'self': self, 'out': out, 't': t})

        _carry(_backward, body)
        out._backward = _backward
        return out

    def _of(self, x):
        """x as a Value of this engine: a number becomes a constant leaf."""
        return x if isinstance(x, value.Value) else type(self)(as_float(x), label=f'{as_float(x):g}')

    # numbers on the left go through this engine's ops, not value.py's
    def __radd__(self, other):
        return self._of(other) + self

    def __rsub__(self, other):
        return self._of(other) - self

    def __rmul__(self, other):
        return self._of(other) * self

    def __rtruediv__(self, other):
        return self._of(other) / self


def _carry(closure, body):
    """What the page reads of a closure that runs `body`: its code (engine/code.py), and whether it waits, refused by
    the sandbox (engine/bodies.py's Waiting; a sandbox.Body never waits)."""
    closure.source, closure.waits = body.source, getattr(body, 'waits', False)


def _right_op(method):
    """value.py's op, its result of the caller's class: the ops after it run the student's bodies too."""

    def op(self, *args):
        out = method(self, *args)
        out.__class__ = type(self)
        return out

    return op


for _name, _method in vars(value.Value).items():  # every other op of value.py's, as it is there
    if callable(_method) and _name not in vars(Value) and _name not in ('__init__', '__repr__', 'backward'):
        setattr(Value, _name, _right_op(_method))


def yours(bodies):
    """The engine with these bodies ({'add': Body, 'mul': Body, 'tanh': Body}, each a sandbox.Body or a Waiting one,
    engine/bodies.py's checked()): a Value class of its own."""
    return type('Value', (Value,), {'bodies': {OPS[name]: body for name, body in bodies.items()}})
