"""The exercise itself: a student's own `_backward` bodies for `+`, `×` and `tanh`, run on any graph.

A body is untrusted text (a public page runs it). check_body() reads it with ast against a whitelist: `pass`, and
`X.grad += E`, `X.grad -= E` or `X.grad = E` for the op's inputs X, where E is numbers, `self.data`, `other.data`,
`out.data`, `out.grad`, the op's own captured numbers (`t` in tanh), + - * / ** with plain-number exponents, unary
minus, brackets, and math.tanh, math.exp and math.log. Anything else is a BodyError with its line and column. A
checked body runs by walking its tree (Body.run): it is never exec'd or eval'd, so nothing in it can reach Python.
Its floats are IEEE 754's, as the engine's: inf and nan are numbers, never an exception.

yours(bodies) is engine/value.py's Value with those three `_backward`s the student's; every other op is value.py's,
the right one. The trace and the page read a body's code as they read an op's (engine/code.py).
"""

import ast
import functools
import math as _math
import textwrap
from dataclasses import dataclass

from . import ieee as math  # as in value.py: inf and nan where Python's math raises
from . import value
from .code import grad_writes
from .ieee import as_float, same
from .parse import MAX_EXPONENT, _number
from .presets import PRESETS, chain

MAX_BODY = 500  # characters, as a typed formula
MAX_STATEMENTS = 6
MAX_DEPTH = 40  # brackets and operators nested, as in formulas
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
INPUTS = {'+': ('self', 'other'), '*': ('self', 'other'), 'tanh': ('self',)}  # what each op's body may write
HELD = {'+': (), '*': (), 'tanh': ('t',)}  # the numbers each op's closure holds from its forward pass
CALLS = {'tanh': math.tanh, 'exp': math.exp, 'log': math.log}  # math.<name>(x) in a body


def around(name):
    """The exercise's method `name` ('add') split at its body: (the lines before it, the body's indent, the lines
    after), for the page to show around the box the student types the body in."""
    before, after = EXERCISE[name].split(TODO)
    head, indent = before.rsplit('\n', 1)
    return head, indent, after.lstrip('\n')


class BodyError(ValueError):
    """A body the page will not run: a message for a student, and where (line and column, from 1) if known."""

    def __init__(self, message, line=None, column=None):
        super().__init__(f'line {line}, column {column}: {message}' if line else message)
        self.message, self.line, self.column = message, line, column

    def pointed(self, text):
        """The line at fault, and a caret under its column: printed as code, never rendered."""
        lines = textwrap.dedent(text).splitlines()
        if not self.line or self.line > len(lines) or len(lines[self.line - 1]) > 120:
            return ''
        return f'{lines[self.line - 1]}\n{" " * ((self.column or 1) - 1)}^'


@dataclass(frozen=True)
class Write:
    """One checked line of a body: `target.grad how E`."""

    target: str  # 'self' or 'other'
    how: str  # '+=', '-=' or '='
    expr: ast.expr  # E, checked
    text: str  # the line as typed, stripped


@dataclass(frozen=True)
class Body:
    """A checked `_backward` body: its lines that write grads, in order (a `pass` writes none)."""

    op: str  # '+', '*' or 'tanh'
    text: str  # as typed
    writes: tuple

    @property
    def source(self):
        """The `_backward` this body makes, as the page shows it: the student's lines under its def."""
        return 'def _backward():\n' + textwrap.indent(textwrap.dedent(self.text).strip('\n'), '    ')

    def run(self, scope):
        """Each line in turn, on the Values (or the trace's stand-ins) in `scope`: {'self': …, 'out': …, 't': …}."""
        for w in self.writes:
            amount = evaluate(w.expr, scope)
            x = scope[w.target]
            if w.how == '=':
                x.grad = amount
            elif w.how == '+=':
                x.grad += amount
            else:
                x.grad -= amount


def evaluate(e, scope):
    """The number a checked E comes to, walking its tree; IEEE 754 throughout (a pole is inf, 0/0 is nan)."""
    if isinstance(e, ast.Constant):
        return float(e.value)
    if isinstance(e, ast.Attribute):
        return float(getattr(scope[e.value.id], e.attr))
    if isinstance(e, ast.Name):
        return float(scope[e.id])
    if isinstance(e, ast.UnaryOp):
        return -evaluate(e.operand, scope)
    if isinstance(e, ast.Call):
        return CALLS[e.func.attr](evaluate(e.args[0], scope))
    a, b = evaluate(e.left, scope), evaluate(e.right, scope)
    if isinstance(e.op, ast.Pow):
        return math.pow(a, b)
    if isinstance(e.op, ast.Div):
        return _divide(a, b)
    return a + b if isinstance(e.op, ast.Add) else a - b if isinstance(e.op, ast.Sub) else a * b


def _divide(a, b):
    """a / b as IEEE 754 has it: ±inf at a pole, nan for 0/0."""
    try:
        return a / b
    except ZeroDivisionError:
        return _math.nan if a == 0 or a != a else _math.copysign(_math.inf, a) * _math.copysign(1.0, b)


NOT_ALLOWED = {
    ast.Import: 'import is not allowed', ast.ImportFrom: 'import is not allowed',
    ast.For: 'loops are not allowed', ast.While: 'loops are not allowed', ast.AsyncFor: 'loops are not allowed',
    ast.If: '"if" is not allowed: each line runs once', ast.With: '"with" is not allowed',
    ast.FunctionDef: 'a def is not allowed here: write the lines of the body',
    ast.AsyncFunctionDef: 'a def is not allowed here', ast.ClassDef: 'a class is not allowed here',
    ast.Return: 'return is not needed: a _backward only writes grads', ast.Delete: 'del is not allowed',
    ast.Global: 'global is not allowed', ast.Nonlocal: 'nonlocal is not allowed', ast.Try: 'try is not allowed',
    ast.Raise: 'raise is not allowed', ast.Assert: 'assert is not allowed',
    ast.Lambda: 'lambda is not allowed', ast.ListComp: 'comprehensions are not allowed',
    ast.SetComp: 'comprehensions are not allowed', ast.DictComp: 'comprehensions are not allowed',
    ast.GeneratorExp: 'comprehensions are not allowed', ast.Subscript: 'indexing with [ ] is not allowed',
    ast.NamedExpr: 'the walrus := is not allowed', ast.JoinedStr: 'strings are not allowed',
    ast.Compare: 'comparisons are not allowed', ast.BoolOp: '"and" / "or" are not allowed',
    ast.IfExp: '"if ... else" is not allowed', ast.Tuple: 'a comma makes two values of one: write one',
    ast.List: 'lists are not allowed', ast.Dict: 'dicts are not allowed', ast.Set: 'sets are not allowed',
    ast.Await: 'await is not allowed', ast.Yield: 'yield is not allowed', ast.YieldFrom: 'yield is not allowed',
    ast.Starred: '* is not allowed', ast.Slice: 'slices are not allowed',
}  # fmt: skip
BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


@functools.lru_cache(maxsize=1024)  # a run checks a body where it runs it, grades it and links it: read once
def check_body(name, text):
    """The Body of the exercise's method `name` ('add', 'mul' or 'tanh') that `text` holds, or BodyError."""
    op = OPS[name]
    if len(text) > MAX_BODY:
        raise BodyError(f'the body is {len(text):,} characters long; the limit is {MAX_BODY}')
    source = textwrap.dedent(text.replace('\r\n', '\n').replace('\r', '\n'))
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        line = e.lineno if e.lineno and e.lineno <= source.count('\n') + 1 else None
        raise BodyError(f'Python cannot read this: {e.msg}', line, e.offset if line else None) from None
    except (ValueError, RecursionError, MemoryError):  # a NUL character; brackets nested past what Python reads
        raise BodyError('Python cannot read this: it is nested too deeply, or has a character it refuses') from None
    lines = source.splitlines()
    if len(tree.body) > MAX_STATEMENTS:
        at = tree.body[MAX_STATEMENTS]
        raise BodyError(f'at most {MAX_STATEMENTS} lines of code in a body', at.lineno, _column(lines, at))
    writes = tuple(_check_statement(s, op, source) for s in tree.body if not isinstance(s, ast.Pass))
    return Body(op, text, writes)


def _column(lines, node, end=False):
    """The 1-based column, in characters, of where node starts (or ends): ast counts UTF-8 bytes."""
    row, offset = (node.end_lineno, node.end_col_offset) if end else (node.lineno, node.col_offset)
    return len(lines[row - 1].encode()[:offset].decode(errors='ignore')) + 1


def _target(t, op, lines):
    """'self' or 'other' for `self.grad`/`other.grad` written by `op`'s body, else BodyError."""
    inputs = INPUTS[op]
    if isinstance(t, ast.Attribute) and t.attr == 'grad' and isinstance(t.value, ast.Name) and t.value.id in inputs:
        return t.value.id
    said = ' or '.join(f'{x}.grad' for x in inputs)
    raise BodyError(f'a line may write only {said}', t.lineno, _column(lines, t))


def _check_statement(s, op, source):
    lines = source.splitlines()
    column = _column(lines, s)
    if isinstance(s, ast.AugAssign):
        if not isinstance(s.op, (ast.Add, ast.Sub)):
            raise BodyError('a grad is written with +=, -= or =', s.lineno, _column(lines, s.target, end=True) + 1)
        how = '+=' if isinstance(s.op, ast.Add) else '-='
        target = _target(s.target, op, lines)
    elif isinstance(s, ast.Assign):
        if len(s.targets) != 1:
            raise BodyError('write one grad a line', s.lineno, column)
        how, target = '=', _target(s.targets[0], op, lines)
    elif isinstance(s, ast.AnnAssign):
        raise BodyError('no annotations: write self.grad += …', s.lineno, column)
    elif isinstance(s, ast.Expr):
        raise BodyError('this line does nothing on its own: write self.grad += …', s.lineno, column)
    else:
        raise BodyError(NOT_ALLOWED.get(type(s), f'{type(s).__name__} is not allowed here'), s.lineno, column)
    _check_expr(s.value, op, lines, 0)
    return Write(target, how, s.value, ast.get_source_segment(source, s))


def _check_expr(e, op, lines, depth):
    """BodyError unless E is on the whitelist (see the module's docstring)."""
    at = e.lineno, _column(lines, e)
    if depth > MAX_DEPTH:
        raise BodyError(f'nested too deeply (the limit is {MAX_DEPTH} levels)', *at)
    if isinstance(e, ast.Constant):
        if type(e.value) not in (int, float) or _number(e) is None:
            raise BodyError(f'{e.value!r:.30} is not a number I can use', *at)
        return
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name):
        readable = [f'{x}.data' for x in INPUTS[op]] + ['out.data', 'out.grad']
        if f'{e.value.id}.{e.attr}' not in readable:
            raise BodyError(f'{e.value.id}.{e.attr:.30} cannot be read here; E may use {", ".join(readable)}', *at)
        return
    if isinstance(e, ast.Name):
        if e.id not in HELD[op]:
            known = ', '.join(HELD[op]) or 'none in this op'
            raise BodyError(f'{e.id[:30]} is not a name here (the numbers its closure holds: {known})', *at)
        return
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _check_expr(e.operand, op, lines, depth + 1)
    if isinstance(e, ast.BinOp) and isinstance(e.op, BINARY):
        if isinstance(e.op, ast.Pow):
            n = _number(e.right)
            if n is None or abs(n) > MAX_EXPONENT:
                where = e.right.lineno, _column(lines, e.right)
                raise BodyError(f'the exponent after ** must be a plain number up to {MAX_EXPONENT}, e.g. t**2', *where)
        # a + b + c + ... nests to the left in the tree but reads flat: only the right side goes deeper
        _check_expr(e.left, op, lines, depth if isinstance(e.left, ast.BinOp) else depth + 1)
        return _check_expr(e.right, op, lines, depth + 1)
    if isinstance(e, ast.Call):
        f = e.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == 'math'):
            raise BodyError('the only calls are math.tanh(x), math.exp(x) and math.log(x)', *at)
        if f.attr not in CALLS:
            raise BodyError(f'math.{f.attr[:30]} is not one I run: math.tanh, math.exp or math.log', *at)
        if len(e.args) != 1 or e.keywords or isinstance(e.args[0], ast.Starred):
            raise BodyError(f'math.{f.attr} takes one plain argument', *at)
        return _check_expr(e.args[0], op, lines, depth + 1)
    kind = type(e.op) if isinstance(e, (ast.BinOp, ast.UnaryOp)) else type(e)
    words = {ast.Constant: 'strings are not allowed', ast.Attribute: 'that attribute is not allowed',
             ast.BitXor: 'use ** for powers, not ^', ast.FloorDiv: 'use / for division, not //',
             ast.Mod: '% is not allowed', ast.MatMult: '@ is not allowed', ast.UAdd: 'unary + is not needed',
             ast.Not: '"not" is not allowed', ast.Invert: '~ is not allowed'}  # fmt: skip
    raise BodyError(words.get(kind) or NOT_ALLOWED.get(kind, f'{kind.__name__} is not allowed here'), *at)


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

        _backward.source = body.source  # the code the page shows for it (engine/code.py)
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._of(other)
        out = type(self)(self.data * other.data, (self, other), '*')
        body = self.bodies['*']

        def _backward():
            body.run({'self': self, 'other': other, 'out': out})

        _backward.source = body.source
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = type(self)(t, (self,), 'tanh')
        body = self.bodies['tanh']

        def _backward():
            body.run({'self': self, 'out': out, 't': t})

        _backward.source = body.source
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
    """The engine with these bodies ({'add': Body, 'mul': Body, 'tanh': Body}): a Value class of its own."""
    return type('Value', (Value,), {'bodies': {OPS[name]: body for name, body in bodies.items()}})


# --- the grader ---

# the exercise's three expressions and the two reuse pitfalls, at the page's inputs for them
GRADED = {'neuron': PRESETS['neuron'], 'reuse': PRESETS['reuse'], 'chain': chain(10),
          'b = a + a': PRESETS['a_plus_a'], '(a·b)·(a + b)': PRESETS['ab_times_a_plus_b']}  # fmt: skip
PITFALLS = ('b = a + a', '(a·b)·(a + b)')


@dataclass(frozen=True)
class Verdict:
    expression: str  # a key of GRADED
    wrong: tuple  # ((input, right grad, yours), ...) where they differ, rounded to 9 digits

    @property
    def line(self):
        """As the exercise's grader says it: 'neuron: right', or 'reuse: wrong (a: 4.0, yours 7.0)'."""
        if not self.wrong:
            return f'{self.expression}: right'
        name, right, got = self.wrong[0]
        return f'{self.expression}: wrong ({name}: {right!r}, yours {got!r})'


def grads_of(expression, value_type):
    """The seed's grads_of: each input's grad after backward(), rounded to 9 digits as the exercise rounds."""
    leaves, out = expression.build(value_type=value_type)
    value.backward(out)
    return [round(leaf.grad, 9) for leaf in leaves]


def verdicts(bodies):
    """One Verdict per expression of GRADED: the student's grads against the right engine's."""
    out = []
    for key, expression in GRADED.items():
        pairs = zip(expression.defaults, grads_of(expression, value.Value), grads_of(expression, yours(bodies)))
        out.append(Verdict(key, tuple((n, r, g) for n, r, g in pairs if not same(r, g))))
    return out


# --- what is wrong, in a student's words ---

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
    'local': 'a wrong local gradient',
}


@dataclass(frozen=True)
class Mistake:
    name: str  # the body's: 'add', 'mul' or 'tanh'
    target: str  # the input whose grad is wrong: 'self' or 'other'
    kind: str  # a key of MISTAKES
    yours: tuple  # the student's lines that write it, as typed
    right: str  # the line engine/value.py has for it


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


def _close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def diagnose(bodies):
    """The Mistakes in the bodies ({'add': Body, …}), op by op and input by input; none where a body does what the
    right one does (however it is written)."""
    found = []
    for name, body in bodies.items():
        op, right = OPS[name], right_lines(OPS[name])
        for slot, target in enumerate(INPUTS[op]):
            lines = [w for w in body.writes if w.target == target]
            kind = _mistake(op, body, lines, right[slot], right[1 - slot] if len(right) > 1 else None)
            if kind:
                found.append(Mistake(name, target, kind, tuple(w.text for w in lines), ast.unparse(right[slot])))
    return found


def _mistake(op, body, lines, right, other):
    """The kind of mistake (a key of MISTAKES) the `lines` of `body` that write one input make, against `right`,
    value.py's line for that input (`other`: its line for the other input, if the op has two); None if none."""
    if not body.writes:
        return 'pass'
    if not lines:
        return 'missing'
    runs = []  # at each probe: the grad before the lines ran, after, and the scope
    for scope in _probes(op):
        x = scope[lines[0].target]
        before = x.grad
        Body(op, '', tuple(lines)).run(scope)
        runs.append((before, x.grad, scope))

    def adds(line, times=1, upstream=None):
        """Whether at every probe the lines add times × the line's E, with out.grad read as upstream(scope)."""
        return all(
            _close(after - before, times * evaluate(line.value, _upstream(scope, upstream)))
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
    if other is not None and adds(other):
        return 'swapped'
    return 'local'


def _upstream(scope, upstream):
    """The scope with out.grad read as upstream(scope), where given."""
    if upstream is None:
        return scope
    return {**scope, 'out': _Probe(scope['out'].data, upstream(scope))}
