"""A student's `_backward` body, untrusted text (a public page runs it), read and run safely.

check_body() reads it with ast against a whitelist: `pass`, and `X.grad += E`, `X.grad -= E` or `X.grad = E` for the
op's inputs X, where E is numbers, `self.data`, `other.data`, `out.data`, `out.grad`, the op's own captured numbers
(`t` in tanh), + - * / ** with plain-number exponents, unary minus, brackets, and math.tanh, math.exp and math.log.
Anything else is a BodyError with its line and column. A checked body runs by walking its tree (Body.run): it is never
exec'd or eval'd, so nothing in it can reach Python. Its floats are IEEE 754's, as the engine's: inf and nan are
numbers, never an exception.
"""

import ast
import functools
import math as _math
import textwrap
from dataclasses import dataclass

from . import ieee as math  # as in value.py: inf and nan where Python's math raises
from .exercise import OPS
from .parse import MAX_EXPONENT, _number

MAX_BODY = 500  # characters, as a typed formula
MAX_STATEMENTS = 6
MAX_DEPTH = 40  # brackets and operators nested, as in formulas
INPUTS = {'+': ('self', 'other'), '*': ('self', 'other'), 'tanh': ('self',)}  # what each op's body may write
HELD = {'+': (), '*': (), 'tanh': ('t',)}  # the numbers each op's closure holds from its forward pass
CALLS = {'tanh': math.tanh, 'exp': math.exp, 'log': math.log}  # math.<name>(x) in a body


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
