"""microgpt's form of the exercise (Karpathy, February 2026): `Value(data, children, local_grads)`. Each op returns
its local gradients as a tuple, one per input (`__mul__`: `(other.data, self.data)`), and one loop in backward()
passes every grad back:

    for v in reversed(topo):
        for child, local_grad in zip(v._children, v._local_grads):
            child.grad += local_grad * v.grad

The seed writes the same chain rule as a `_backward` closure per op (engine/value.py). The right tuples are not
written here: each entry is read off value.py's own closure, the factor its line for that input multiplies out.grad
by (`right`), so an op says what it does once.

A student's tuple is untrusted text (`check_grads`), read with ast: a tuple in brackets with at most one entry per
input, each entry checked by engine/sandbox.py's check_body as the E of a line `self.grad += E` (its whitelist:
numbers, self.data, other.data, out.data, out.grad, tanh's t, + - * / **, math.tanh/exp/log) and evaluated by its
evaluate(), walking the tree: never exec'd or eval'd. A tuple that cannot run waits (WaitingGrads), as a refused body
does (engine/bodies.py): its op passes nothing back and the grader waits for it.

yours(grads) is engine/value.py's Value with `+`, `×` and `tanh` keeping a student's tuples: each of their values'
`_backward` is the loop's line at that value, its entries read when the loop reaches it (so that an `out.grad` in one
is the grad coming back, as a student who writes it means), and `_local_grads` is the tuple there, for microgpt's loop
as it writes it (`backward`). Every other op is value.py's own. The trace and the page read the loop at a value as
the lines it runs, one per input (`source`: `self.grad += other.data * out.grad`), and show the tuple and the loop
(`shown`). diagnose() names each slip of this form.
"""

import ast
import functools
import textwrap
from dataclasses import dataclass

from . import bodies, exercise, sandbox, value
from . import ieee as math  # as in value.py: inf and nan where Python's math raises
from .bodies import Waiting
from .code import factor
from .diagnosis import NONFINITE, Mistake, close, not_finite, possible
from .exercise import OPS
from .ops import symbol
from .sandbox import INPUTS, BodyError

TODO = '()  # TODO'
# microgpt's Value and its backward loop, as the page shows them around the boxes
CLASS = """class Value:
    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self._children = children  # the values this one is made from
        self._local_grads = local_grads  # ∂ this value / ∂ each child, in the children's order"""
LOOP_LINE = 'child.grad += local_grad * v.grad'
LOOP = f"""def backward(self):
    topo = ...  # every value, each after the values it is made from
    self.grad = 1
    for v in reversed(topo):
        for child, local_grad in zip(v._children, v._local_grads):
            {LOOP_LINE}"""
# a checked entry is the E of `self.grad += (E)`, put where the sandbox reads it at the line and column it has in the
# tuple, one line down: an entry may take the sandbox's length less these
_WRAP = 'self.grad += (\n', '\n)'
MAX_GRADS = sandbox.MAX_BODY - sum(map(len, _WRAP))

MISTAKES = {
    'empty': 'an empty tuple left in: the loop zips it with the children and passes nothing back',
    'short': 'a local gradient missing: the tuple has fewer entries than the op has inputs, and zip stops at the '
    'shorter, so this input gets nothing',
    'swapped': 'the tuple in the wrong order: its entries go with the children in order, (self, other), and in a '
    "product each input's local gradient is the other input's data",
    'sign': 'a local gradient of the wrong sign',
    'out_grad': 'out.grad multiplied in: the loop already multiplies each local gradient by v.grad, so the grad '
    'coming back counts twice',
    'output': "the op's output (its data; tanh's t) where its local gradient belongs: tanh's is 1 - t**2, not t",
    **NONFINITE,
    'local': 'a wrong local gradient',
}


def around(name):
    """microgpt's method `name` ('add') split at its local_grads: (the lines before, the text after), for the page to
    show around the box, made from the seed's own method (exercise.EXERCISE): its `out = Value(...)` returned with a
    third argument, its `_backward` gone."""
    lines = exercise.EXERCISE[name].split('\n')
    made = next(k for k, line in enumerate(lines) if line.lstrip().startswith('out = Value('))
    indent = lines[made][: len(lines[made]) - len(lines[made].lstrip())]
    call = lines[made].strip().removeprefix('out = ')
    return '\n'.join([*lines[:made], f'{indent}return {call.removesuffix(")")},']), ')'


@functools.cache
def right_entries(op):
    """The right local gradients of op, as ast, one per input in _prev order: what value.py's line for each input
    multiplies out.grad by (engine/code.py's factor), a whole number written as one (microgpt's `(1, 1)`)."""
    out = []
    for line in exercise.right_lines(op):
        e = factor(line)
        if isinstance(e, ast.Constant) and float(e.value).is_integer():
            e = ast.Constant(int(e.value))
        out.append(e)
    return tuple(out)


def tuple_text(entries):
    """Entries (text) as a tuple is written: '(1, 1)', '(1 - t ** 2,)', '()'."""
    return f'({", ".join(entries)}{"," if len(entries) == 1 else ""})'


def answer(name):
    """The right tuple of the exercise's method `name`, as text: '(other.data, self.data)'."""
    return tuple_text([ast.unparse(e) for e in right_entries(OPS[name])])


def unrolled(op, entries):
    """The loop's line at a value of op with these entries (ast), one line a child it reaches, as the page reads a
    `_backward`: `self.grad += other.data * out.grad` (engine/code.py's grad_writes, the trace's replay)."""
    out_grad = ast.Attribute(ast.Name('out'), 'grad')
    lines = [f'{x}.grad += {ast.unparse(ast.BinOp(e, ast.Mult(), out_grad))}' for x, e in zip(INPUTS[op], entries)]
    return 'def _backward():\n' + textwrap.indent('\n'.join(lines) or 'pass', '    ')


# --- a student's tuple ---


@dataclass(frozen=True)
class Grads:
    """A checked local_grads: its entries, at most one per input, each a tree the sandbox checked."""

    op: str  # '+', '*' or 'tanh'
    text: str  # as typed
    entries: tuple  # each entry's tree
    said: tuple  # each entry as typed, on one line

    @functools.cached_property  # each value of the op carries it: made once a tuple
    def written(self):
        """The tuple as the page shows it: '(other.data, self.data)'."""
        return tuple_text(self.said)

    @functools.cached_property  # each value of the op carries it: made once a tuple
    def source(self):
        """The loop's lines at a value of this op, one per child it reaches (unrolled), for the trace to read."""
        return unrolled(self.op, self.entries)

    @functools.cached_property  # each value of the op carries it: made once a tuple
    def shown(self):
        """What the page shows as this op's code at a step: the method with the tuple, and the loop's line."""
        head, tail = around(NAMES[self.op])
        return '\n'.join([f'{head} {self.written}{tail}', "# backward()'s loop, at v = this value:", *LOOP_AT])

    def local_grads(self, scope):
        """The tuple's numbers in `scope` ({'self': …, 'other': …, 'out': …, 't': …}): IEEE 754 throughout."""
        return tuple(sandbox.evaluate(e, scope) for e in self.entries)

    def run(self, scope):
        """The loop's line at this value: each child's grad += its local gradient × out.grad, as zip pairs them."""
        out = scope['out']
        for child, local_grad in zip([scope[x] for x in INPUTS[self.op]], self.local_grads(scope)):
            child.grad += local_grad * out.grad


LOOP_AT = ['for child, local_grad in zip(v._children, v._local_grads):', f'    {LOOP_LINE}']
NAMES = {op: name for name, op in OPS.items()}  # '*' -> 'mul'


@dataclass(frozen=True)
class WaitingGrads(Waiting):
    """A tuple that cannot run: its op passes nothing back until it can (engine/bodies.py's Waiting)."""

    source = 'def _backward():\n    ...  # your local_grads cannot run yet: until they can, this op passes nothing back'
    written = ''

    @property
    def shown(self):
        """The method, its tuple said to wait: what the page shows as the op's code at a step."""
        head, tail = around(NAMES[self.op])
        return f'{head} …{tail}  # your local_grads cannot run yet: until they can, this op passes nothing back'

    def local_grads(self, scope):
        return ()


@functools.lru_cache(maxsize=1024)  # a run checks a tuple where it runs it, grades it and links it: read once
def check_grads(name, text):
    """The Grads of the exercise's method `name` ('add', 'mul' or 'tanh') that `text` holds, or BodyError with its
    line and column in the text."""
    op = OPS[name]
    if len(text) > MAX_GRADS:
        raise BodyError(f'the tuple is {len(text):,} characters long; the limit is {MAX_GRADS}')
    source = sandbox.normalised(text)  # its lines, tabs and indentation as a body's (engine/sandbox.py)
    lines = source.splitlines()
    try:
        tree = ast.parse(source, mode='eval').body
    except SyntaxError as e:
        line = e.lineno if e.lineno and e.lineno <= len(lines) else None
        raise BodyError(f'Python cannot read this: {e.msg}', line, e.offset if line else None) from None
    except (ValueError, RecursionError, MemoryError):  # a NUL character; brackets nested past what Python reads
        raise BodyError('Python cannot read this: it is nested too deeply, or has a character it refuses') from None
    at = tree.lineno, _column(lines, tree.lineno, tree.col_offset)
    n = len(INPUTS[op])
    if not isinstance(tree, ast.Tuple):
        if isinstance(tree, ast.List):
            raise BodyError('a list: local_grads is a tuple, in round brackets ( )', *at)
        if n == 1:
            raise BodyError('local_grads is a tuple, even of one: (x,) with its comma; (x) is x alone', *at)
        raise BodyError(f'local_grads is a tuple, one local gradient per input ({", ".join(INPUTS[op])}): (…, …)', *at)
    if not _bracketed(ast.get_source_segment(source, tree)):
        raise BodyError('the tuple goes in round brackets, as the code around it reads: ( … )', *at)
    if len(tree.elts) > n:
        extra = tree.elts[n]
        said = f'{symbol(op)} has {"one input, self" if n == 1 else f"{n} inputs, " + " and ".join(INPUTS[op])}'
        where = extra.lineno, _column(lines, extra.lineno, extra.col_offset)
        raise BodyError(f'{said}: one local gradient each, and this tuple has {len(tree.elts)}', *where)
    entries = tuple(_entry(name, source, lines, e) for e in tree.elts)
    said = tuple(_said(ast.get_source_segment(source, e), e) for e in tree.elts)
    return Grads(op, text, entries, said)


def _column(lines, line, offset):
    """The 1-based column, in characters, of a UTF-8 byte offset in line `line` (from 1): ast counts bytes."""
    return len(lines[line - 1].encode()[:offset].decode(errors='ignore')) + 1


def _said(segment, e):
    """An entry as typed, on one line; with a comment in it (an entry holds no string: any # is one), as Python
    writes it."""
    return ast.unparse(e) if '#' in segment else ' '.join(segment.split())


def _bracketed(segment):
    """Whether a tuple's text is one pair of round brackets around its entries, `(a, b)`, not `a, b` nor `(a), (b)`:
    put after a name, only then is it one call."""
    try:
        call = ast.parse(f'_{segment}', mode='eval').body
    except SyntaxError:
        return False
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == '_'


def _entry(name, source, lines, e):
    """The tree of one entry, checked by the sandbox as the E of `self.grad += (E)`, at the line and column it has in
    the tuple (one line down), or BodyError at its place in the tuple."""
    if isinstance(e, ast.Starred):
        raise BodyError('* is not allowed', e.lineno, _column(lines, e.lineno, e.col_offset))
    column = _column(lines, e.lineno, e.col_offset)
    segment = ast.get_source_segment(source, e, padded=False)
    padded = '\n' * (e.lineno - 1) + ' ' * (column - 1) + segment
    try:
        body = sandbox.check_body(name, _WRAP[0] + padded + _WRAP[1])
    except BodyError as error:
        line = error.line - 1 if error.line and 1 < error.line <= len(lines) + 1 else None
        raise BodyError(error.message, line, error.column if line else None) from None
    (write,) = body.writes
    return write.expr


def checked(grads):
    """{name: Grads or WaitingGrads} for each of the tuples ({name: text} or ((name, text), ...)), as typed."""
    return bodies.checked(grads, check=check_grads, waits=WaitingGrads)


# --- the engine with the student's tuples ---


class Value(exercise.Value):
    """engine/value.py's Value, its `+`, `×` and `tanh` keeping a student's local_grads (`grads`: op -> Grads, set on
    each class yours() makes); its other ops are value.py's, their results of this class too (exercise.Value's)."""

    grads = {}

    def __add__(self, other):
        other = self._of(other)
        out = type(self)(self.data + other.data, (self, other), '+')
        grads = self.grads['+']

        def _backward():
            grads.run({'self': self, 'other': other, 'out': out})

        return _made(out, _backward, grads, {'self': self, 'other': other, 'out': out})

    def __mul__(self, other):
        other = self._of(other)
        out = type(self)(self.data * other.data, (self, other), '*')
        grads = self.grads['*']

        def _backward():
            grads.run({'self': self, 'other': other, 'out': out})

        return _made(out, _backward, grads, {'self': self, 'other': other, 'out': out})

    def tanh(self):
        t = math.tanh(self.data)
        out = type(self)(t, (self,), 'tanh')
        grads = self.grads['tanh']

        def _backward():
            grads.run({'self': self, 'out': out, 't': t})

        return _made(out, _backward, grads, {'self': self, 'out': out, 't': t})

    @property
    def _children(self):
        """microgpt's name for the values this one is made from."""
        return self._prev

    @property
    def _local_grads(self):
        """microgpt's tuple at this value, read now (out.grad as it is): () at a leaf; an op outside the exercise has
        none, it runs value.py's own _backward."""
        if not self._prev:
            return ()
        at = getattr(self._backward, 'scope', None)
        if at is None:
            raise TypeError(f'{self._op} runs engine/value.py’s own _backward: it keeps no local_grads')
        return self._backward.grads.local_grads(at)


def _made(out, closure, grads, scope):
    """out with its _backward the loop's line at it; the closure carries what the page reads of it: the lines it runs
    (source, engine/code.py), what the page shows (shown), whether it waits (refused by the sandbox), and its tuple
    and scope (for `_local_grads`)."""
    closure.source, closure.shown, closure.waits = grads.source, grads.shown, getattr(grads, 'waits', False)
    closure.grads, closure.scope = grads, scope
    out._backward = closure
    return out


def yours(grads):
    """The engine with these tuples ({'add': Grads, 'mul': Grads, 'tanh': Grads}, each a Grads or a WaitingGrads,
    checked()'s): a Value class of its own."""
    return type('Value', (Value,), {'grads': {OPS[name]: g for name, g in grads.items()}})


def backward(out):
    """microgpt's backward, as it writes it, on a graph of yours()'s `+`, `×` and `tanh` (and leaves): one loop."""
    topo = value.topological_order(out)
    out.grad = 1.0
    for v in reversed(topo):
        for child, local_grad in zip(v._children, v._local_grads):
            child.grad += local_grad * v.grad


# --- what is wrong in a student's tuples ---


@dataclass(frozen=True)
class Slip(Mistake):
    """A slip in a tuple: `yours` its entry for the input (none where it has none), `right` the right entry."""

    @property
    def words(self):
        return MISTAKES[self.kind]


@functools.cache
def kinds(op):
    """The kinds of MISTAKES diagnose can name in op's tuple, in their order: for an op of one input (tanh) not `short`
    (a tuple with no entry is `empty`) nor `swapped`; for one whose right entries are the same (+: (1, 1)) not
    `swapped` (swapping them changes nothing)."""
    return possible(MISTAKES, right_entries(op), unwritten='short')


@dataclass
class _Probe:
    data: float
    grad: float


def _probes(op):
    """Two made-up points at which to compare a tuple's entries with the right ones: no two of their numbers alike."""
    out = []
    for s, o, g in ((0.7, -1.3, 2.9), (1.9, 0.6, -0.8)):
        data = {'+': s + o, '*': s * o, 'tanh': math.tanh(s)}[op]
        out.append({'self': _Probe(s, 0.37), 'other': _Probe(o, -0.41), 'out': _Probe(data, g), 't': data})
    return out


def diagnose(grads):
    """The Slips in the tuples ({'add': Grads, …}, checked()'s), op by op and input by input; none where an entry
    gives what the right one gives (however it is written), nor in a tuple that waits, which never ran."""
    found = []
    for name, g in grads.items():
        if isinstance(g, Waiting):
            continue
        op, right = OPS[name], right_entries(OPS[name])
        for slot, target in enumerate(INPUTS[op]):
            kind = _slip(op, g, slot)
            if kind:
                yours = (g.said[slot],) if slot < len(g.said) else ()
                found.append(Slip(name, target, kind=kind, yours=yours, right=ast.unparse(right[slot])))
    return found


def _slip(op, g, slot):
    """The kind of slip (a key of MISTAKES) of g's entry for the input at `slot`, against the right one, or None."""
    if not g.entries:
        return 'empty'
    if slot >= len(g.entries):
        return 'short'
    right = right_entries(op)
    runs = [(sandbox.evaluate(g.entries[slot], scope), scope) for scope in _probes(op)]

    def gives(e, times=lambda scope: 1.0):
        return all(close(got, times(scope) * sandbox.evaluate(e, scope)) for got, scope in runs)

    if gives(right[slot]):
        return None
    if gives(right[slot], lambda scope: -1.0):
        return 'sign'
    if gives(right[slot], lambda scope: scope['out'].grad):
        return 'out_grad'
    if 'swapped' in kinds(op) and gives(right[1 - slot]):
        return 'swapped'
    if gives(ast.parse('out.data', mode='eval').body):
        return 'output'
    return not_finite([got for got, _ in runs]) or 'local'
