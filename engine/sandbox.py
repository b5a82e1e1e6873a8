"""A student's `_backward` body, untrusted text (a public page runs it), read and run safely.

check_body() reads it with ast against a whitelist of the Python `_backward` bodies are written in:

- lines that write a grad: `X.grad += E`, `X.grad -= E` or `X.grad = E` for the op's inputs X (`self`, and `other`
  in + and ×); `X.grad = X.grad + E` is `X.grad += E` written out (and `- E`, `-=`);
- lines that name a number: `g = E`, `g += E` (`-=`, `*=`, `/=`, `**=` a plain number), `g: float = E`, read on
  the lines below (a name given a number anywhere in a body is the body's own from its first line, as in Python);
- lines that do nothing: `pass`, a docstring or any string on its own, `...`; comments and blank lines anywhere;
- in E: numbers, `self.data`, `other.data`, `out.data`, `out.grad`, the op's own captured numbers (`t` in tanh),
  the names given numbers above, + - * / and ** with a plain-number exponent up to MAX_EXPONENT, unary minus and
  plus, brackets, and math.tanh(x), math.exp(x) and math.log(x).

At most MAX_STATEMENTS lines of code, MAX_BODY characters, MAX_DEPTH levels of nesting in E. Anything else is a
BodyError with its line and column that says what was found and what to write instead: an attribute other than
.data and .grad, a dunder, import, a call other than the math ones, a loop, `if`, a call of `_backward` (named for
what it would do), an E that is worked out and thrown away. A checked body runs by walking its tree (Body.run): it
is never exec'd or eval'd, so nothing in it can reach Python. Its floats are IEEE 754's, as the engine's: inf and
nan are numbers, never an exception.
"""

import ast
import functools
import math as _math
import re
import textwrap
from dataclasses import dataclass

from . import ieee as math  # as in value.py: inf and nan where Python's math raises
from .code import grad_of, grad_write, local_name
from .exercise import OPS
from .parse import MAX_EXPONENT, _number

MAX_BODY = 500  # characters, as a typed formula
MAX_STATEMENTS = 12  # lines of code: a docstring, two names and two grads fit, twice over
MAX_DEPTH = 40  # brackets and operators nested, as in formulas
INPUTS = {'+': ('self', 'other'), '*': ('self', 'other'), 'tanh': ('self',)}  # what each op's body may write
HELD = {'+': (), '*': (), 'tanh': ('t',)}  # the numbers each op's closure holds from its forward pass
CALLS = {'tanh': math.tanh, 'exp': math.exp, 'log': math.log}  # math.<name>(x) in a body
VALUES = ('self', 'other', 'out')  # the Values a body reads; with `math`, names a body may not give a number
MOST_SHOWN = 30  # characters of what was found, in a message


class BodyError(ValueError):
    """A body the page will not run: a message for a student, and where (line and column, from 1) if known."""

    def __init__(self, message, line=None, column=None):
        super().__init__(f'line {line}, column {column}: {message}' if line else message)
        self.message, self.line, self.column = message, line, column

    def pointed(self, text):
        """The line at fault, and a caret under its column: printed as code, never rendered."""
        lines = normalised(text).splitlines()
        if not self.line or self.line > len(lines) or len(lines[self.line - 1]) > 120:
            return ''
        return f'{lines[self.line - 1]}\n{" " * ((self.column or 1) - 1)}^'


@dataclass(frozen=True)
class Write:
    """One checked line of a body that writes a grad: `target.grad how E`."""

    target: str  # 'self' or 'other'
    how: str  # '+=', '-=' or '='
    expr: ast.expr  # E, checked
    text: str  # the line as typed, stripped


@dataclass(frozen=True)
class Local:
    """One checked line of a body that names a number: `name how E`."""

    name: str
    how: str  # '=', or an augmented op: '+=', '-=', '*=', '/=', '**='
    expr: ast.expr  # E, checked
    text: str


@dataclass(frozen=True)
class Body:
    """A checked `_backward` body: its lines that name numbers and write grads, in order (`pass`, strings and
    comments are none of them)."""

    op: str  # '+', '*' or 'tanh'
    text: str  # as typed
    steps: tuple  # Write and Local, in the order they run

    @property
    def writes(self):
        """The lines that write grads, in order."""
        return tuple(s for s in self.steps if isinstance(s, Write))

    @property
    def source(self):
        """The `_backward` this body makes, as the page shows it: the student's lines under its def."""
        lines = normalised(self.text).strip('\n')
        if lines.endswith('\\'):  # its last line continued into a blank one, as Python reads it: keep that one
            lines += '\n\n'
        return 'def _backward():\n' + textwrap.indent(lines, '    ')

    def run(self, scope):
        """Each line in turn, on the Values (or the trace's stand-ins) in `scope`: {'self': …, 'out': …, 't': …}."""
        names = {}  # the numbers the body's own lines name
        for step in self.steps:
            amount = evaluate(step.expr, scope, names)
            if isinstance(step, Local):
                names[step.name] = amount if step.how == '=' else _binary(step.how[:-1], names[step.name], amount)
                continue
            x = scope[step.target]
            if step.how == '=':
                x.grad = amount
            elif step.how == '+=':
                x.grad += amount
            else:
                x.grad -= amount


def evaluate(e, scope, names=None):
    """The number a checked E comes to, walking its tree; IEEE 754 throughout (a pole is inf, 0/0 is nan). `names`:
    the numbers the body's lines above named, which hide the closure's of the same name."""
    if isinstance(e, ast.Constant):
        return float(e.value)
    if isinstance(e, ast.Attribute):
        return float(getattr(scope[e.value.id], e.attr))
    if isinstance(e, ast.Name):
        return names[e.id] if names and e.id in names else float(scope[e.id])
    if isinstance(e, ast.UnaryOp):
        x = evaluate(e.operand, scope, names)
        return -x if isinstance(e.op, ast.USub) else x
    if isinstance(e, ast.Call):
        return CALLS[e.func.attr](evaluate(e.args[0], scope, names))
    return _binary(SYMBOLS[type(e.op)], evaluate(e.left, scope, names), evaluate(e.right, scope, names))


def _binary(symbol, a, b):
    if symbol == '**':
        return math.pow(a, b)
    if symbol == '/':
        return _divide(a, b)
    return a + b if symbol == '+' else a - b if symbol == '-' else a * b


def _divide(a, b):
    """a / b as IEEE 754 has it: ±inf at a pole, nan for 0/0."""
    try:
        return a / b
    except ZeroDivisionError:
        return _math.nan if a == 0 or a != a else _math.copysign(_math.inf, a) * _math.copysign(1.0, b)


SYMBOLS = {ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.Div: '/', ast.Pow: '**'}  # the operators E may use
OTHER_SYMBOLS = {ast.FloorDiv: '//', ast.Mod: '%', ast.MatMult: '@', ast.BitXor: '^', ast.BitOr: '|',
                 ast.BitAnd: '&', ast.LShift: '<<', ast.RShift: '>>'}  # fmt: skip
WRITE = 'write the grads, self.grad += …'
NOT_ALLOWED = {
    ast.Import: 'import is not needed: math is there already (math.tanh, math.exp, math.log)',
    ast.ImportFrom: 'import is not needed: math is there already (math.tanh, math.exp, math.log)',
    ast.For: f'a loop is not needed: a _backward writes each input’s grad once, on a line of its own: {WRITE}',
    ast.While: f'a loop is not needed: a _backward writes each input’s grad once, on a line of its own: {WRITE}',
    ast.AsyncFor: 'a loop is not needed: a _backward writes each input’s grad once, on a line of its own',
    ast.If: f'"if" is not needed: every line of a _backward runs, once, each time: {WRITE} with no condition',
    ast.With: f'"with" is not needed here: {WRITE}',
    ast.FunctionDef: 'a def is not needed: the box is the body of _backward already: write its lines',
    ast.AsyncFunctionDef: 'a def is not needed: the box is the body of _backward already: write its lines',
    ast.ClassDef: f'a class is not needed here: {WRITE}',
    ast.Return: f'return hands nothing back: backward() ignores what _backward returns: {WRITE}',
    ast.Delete: f'del is not needed: {WRITE}',
    ast.Global: 'global is not needed: self.grad += … writes the input’s grad itself',
    ast.Nonlocal: 'nonlocal is not needed: self.grad += … writes the input’s grad itself',
    ast.Try: f'try is not needed: the math here gives inf or nan, never an error: {WRITE}',
    ast.Raise: f'raise is not needed here: {WRITE}', ast.Assert: f'assert is not needed here: {WRITE}',
    ast.Lambda: 'lambda is not allowed: write the number itself, or name it on a line above (g = …)',
    ast.ListComp: 'a comprehension is not allowed: a grad is one number', ast.SetComp: 'a set is not a number',
    ast.DictComp: 'a dict is not a number', ast.GeneratorExp: 'a comprehension is not allowed: a grad is one number',
    ast.Subscript: 'indexing with [ ] is not allowed: a grad is one number',
    ast.NamedExpr: 'the walrus := is not allowed: name the number on a line of its own, g = …',
    ast.JoinedStr: 'an f-string is not a number', ast.Compare: 'a comparison is not needed: + × and tanh have no '
    'condition in their local gradient', ast.BoolOp: '"and" / "or" are not needed: a grad is one number',
    ast.IfExp: '"if … else" is not needed: + × and tanh have no condition in their local gradient',
    ast.Tuple: 'a comma makes two values of one: write one number, or one grad, a line',
    ast.List: 'a list is not a number', ast.Dict: 'a dict is not a number', ast.Set: 'a set is not a number',
    ast.Await: 'await is not allowed', ast.Yield: 'yield is not allowed', ast.YieldFrom: 'yield is not allowed',
    ast.Starred: '* is not allowed', ast.Slice: 'slices are not allowed',
}  # fmt: skip


NOT_BREAKS = str.maketrans(dict.fromkeys('\v\f\x1c\x1d\x1e\x85\u2028\u2029', ' '))
NO_STATEMENT = (
    'the body has no code, only blank lines or comments; a def needs a line of code: write pass for a _backward that '
    'does nothing'
)


@functools.lru_cache(maxsize=1024)
def normalised(text):
    """A body's text as every reader reads it: check_body; Body.source, so engine/code.py and all that shows or reads
    a _backward; BodyError.pointed. Its lines are broken where Python breaks them (\\r\\n, a lone \\r, \\n) and
    joined by \\n; every other character str.splitlines breaks at (\\v, \\f, \\x1c-\\x1e, \\x85, \\u2028, \\u2029) is a
    space, so every reader finds the same lines; a tab is the spaces to the next multiple of 8 columns (Python's tab
    stops); spaces end no line. The indentation of the first line of code (neither blank nor a comment) is taken off
    every line, or as much of it as a line has: a comment or a bracket's next line may stand further left."""
    lines = [line.expandtabs(8).rstrip(' ') for line in re.split(r'\r\n|\r|\n', text.translate(NOT_BREAKS))]
    code = next((line for line in lines if line and not line.lstrip(' ').startswith('#')), '')
    margin = len(code) - len(code.lstrip(' '))
    return '\n'.join(line[min(margin, len(line) - len(line.lstrip(' '))) :] for line in lines)


@functools.lru_cache(maxsize=1024)  # a run checks a body where it runs it, grades it and links it: read once
def check_body(name, text):
    """The Body of the exercise's method `name` ('add', 'mul' or 'tanh') that `text` holds, or BodyError."""
    op = OPS[name]
    if len(text) > MAX_BODY:
        raise BodyError(f'the body is {len(text):,} characters long; the limit is {MAX_BODY}')
    source = normalised(text)
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        line = e.lineno if e.lineno and e.lineno <= source.count('\n') + 1 else None
        raise BodyError(f'Python cannot read this: {e.msg}', line, e.offset if line else None) from None
    except (ValueError, RecursionError, MemoryError):  # a NUL character; brackets nested past what Python reads
        raise BodyError('Python cannot read this: it is nested too deeply, or has a character it refuses') from None
    if not tree.body:  # blank, or comments alone: Python refuses a def with no statement in it
        raise BodyError(NO_STATEMENT)
    lines = source.splitlines()
    if len(tree.body) > MAX_STATEMENTS:
        at = tree.body[MAX_STATEMENTS]
        message = f'at most {MAX_STATEMENTS} lines of code in a body (comments and blank lines are free)'
        raise BodyError(message, at.lineno, _column(lines, at))
    return Body(op, text, _Checker(op, source, tree.body).steps())


def _column(lines, node, end=False):
    """The 1-based column, in characters, of where node starts (or ends): ast counts UTF-8 bytes."""
    row, offset = (node.end_lineno, node.end_col_offset) if end else (node.lineno, node.col_offset)
    return len(lines[row - 1].encode()[:offset].decode(errors='ignore')) + 1


class _Checker:
    """Reads a body's statements in order against the whitelist: the steps it runs, or the first BodyError."""

    def __init__(self, op, source, statements):
        self.op, self.source, self.statements = op, source, statements
        self.inputs, self.held = INPUTS[op], HELD[op]
        # as in Python: a name given a number anywhere in the body is the body's own on every line of it
        self.own = {local_name(s)[0] for s in statements if local_name(s) is not None}
        self.named = set()  # the body's own names given a number on the lines read so far
        self.rows = [row.encode() for row in source.split('\n')]  # as ast counts lines (\n) and columns (UTF-8 bytes)

    def steps(self):
        return tuple(step for s in self.statements if (step := self.statement(s)) is not None)

    # --- what was found, and where ---

    def error(self, node, message):
        """A BodyError at node: its line as ast counts them, its column in characters."""
        return BodyError(message, node.lineno, self.column(node.lineno, node.col_offset))

    def operator_error(self, e, symbol, message):
        """The BodyError of a binary operator, at the operator itself: `t ^ 2` points at the ^."""
        row = e.left.end_lineno
        at = self.rows[row - 1].find(symbol.encode(), e.left.end_col_offset) if row == e.right.lineno else -1
        return BodyError(message, row, self.column(row, at)) if at >= 0 else self.error(e, message)

    def column(self, row, offset):
        """The 1-based column, in characters, of ast's `offset` (in UTF-8 bytes) in line `row`."""
        return len(self.rows[row - 1][:offset].decode('utf-8', 'ignore')) + 1

    def segment(self, node):
        """The text of node as typed (ast.get_source_segment, without its reading the whole body again each time)."""
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return self.rows[first][node.col_offset : node.end_col_offset].decode(errors='replace')
        rows = [self.rows[first][node.col_offset :], *self.rows[first + 1 : last]]
        return b'\n'.join([*rows, self.rows[last][: node.end_col_offset]]).decode(errors='replace')

    def found(self, node):
        """What the student typed for node, as a message quotes it: `self.value`."""
        text = self.segment(node).split('\n')[0].strip()
        return f'`{text if len(text) <= MOST_SHOWN else text[: MOST_SHOWN - 1] + "…"}`'

    def reads(self):
        """What E may read in this op, in words."""
        values = [f'{x}.data' for x in self.inputs] + ['out.data', 'out.grad']
        held = [f'{h} (its value from the forward pass)' for h in self.held]
        return ', '.join(values + held)

    def writable(self):
        return ' or '.join(f'{x}.grad' for x in self.inputs)

    # --- statements ---

    def statement(self, s):
        if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and _does_nothing(s.value)):
            return None  # pass, a docstring, a string or ... on its own line: harmless
        text = self.segment(s)
        write = grad_write(s)
        if write is not None:
            target = s.target if isinstance(s, ast.AugAssign) else s.targets[0]
            x, how, value = write
            self.grad_target(target)
            self.expr(value, 0)
            return Write(x, how, value, text)
        local = local_name(s)
        if local is not None:
            return self.local(s, *local, text)
        if isinstance(s, ast.Expr):
            raise self.thrown_away(s.value)
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            raise self.bad_assignment(s)
        said = NOT_ALLOWED.get(type(s), f'{type(s).__name__} is not allowed in a body: {WRITE}')
        raise self.error(s, said)

    def grad_target(self, target):
        """BodyError unless `X.grad` is a grad this op's body writes."""
        x = grad_of(target)
        if x in self.inputs:
            return
        if x == 'out':
            raise self.error(target, '`out.grad` is the grad coming back to this node: read it, and write the '
                                     f'inputs’ grads, {self.writable()}')  # fmt: skip
        if x == 'other':
            raise self.error(target, '`other.grad`: tanh has one input, self: write self.grad')
        raise self.error(target, f'{self.found(target)}: a line writes only {self.writable()}')

    def local(self, s, name, op, value, text):
        """The Local of a line that names a number, or BodyError."""
        target = s.target if isinstance(s, (ast.AugAssign, ast.AnnAssign)) else s.targets[0]
        if name in (*VALUES, 'math'):
            said = 'the math module' if name == 'math' else 'an input of the op' if name != 'out' else 'this node'
            raise self.error(target, f'`{name} = …` would make {name}, {said}, a number: give the number a name of '
                                     'its own, e.g. local = …')  # fmt: skip
        if name.startswith('__'):
            raise self.error(target, f'`{name[:MOST_SHOWN]}`: names that start with __ are Python’s own: choose a '
                                     'plain name, e.g. local')  # fmt: skip
        if isinstance(s, ast.AnnAssign) and not isinstance(s.annotation, ast.Name):
            raise self.error(s.annotation, f'{self.found(s.annotation)}: an annotation here is a plain type, e.g. '
                                           'g: float = …, or none')  # fmt: skip
        how = '='
        if op is not None:
            if type(op) not in SYMBOLS:
                raise self.error(s, f'{self.found(s)}: a name is given a number with =, +=, -=, *=, /= or **=')
            how = SYMBOLS[type(op)] + '='
            self.read_name(ast.Name(name, ast.Load(), lineno=target.lineno, col_offset=target.col_offset))
            if how == '**=':
                self.exponent(value)
        self.expr(value, 0)
        self.named.add(name)
        return Local(name, how, value, text)

    def bad_assignment(self, s):
        """The BodyError of a line that writes something other than a grad or a name."""
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        if len(targets) > 1 or isinstance(targets[0], (ast.Tuple, ast.List)):
            return self.error(s, f'{self.found(s)}: write one name or one grad a line')
        target = targets[0]
        if isinstance(s, ast.AnnAssign):
            if grad_of(target) is not None:
                return self.error(s, f'{self.found(s)}: no annotation on a grad: write {self.writable()} += …')
            return self.error(s, f'{self.found(s)}: an annotation alone gives a name no number: write g = …')
        if isinstance(s, ast.AugAssign) and grad_of(target) is not None:
            symbol = OTHER_SYMBOLS.get(type(s.op)) or SYMBOLS.get(type(s.op), '?')
            return self.error(s, f'`{grad_of(target)}.grad {symbol}=`: a grad is written with +=, -= or =: write '
                                 f'{grad_of(target)}.grad += …')  # fmt: skip
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.attr == 'data':
            return self.error(target, f'{self.found(target)} is the value from the forward pass: a _backward writes '
                                      f'only grads, {self.writable()}')  # fmt: skip
        if isinstance(target, ast.Attribute):
            return self.error(target, f'{self.found(target)}: a line writes only {self.writable()}')
        return self.error(target, NOT_ALLOWED.get(type(target), f'{self.found(target)}: a line writes only '
                                                                f'{self.writable()}, or a name, g = …'))  # fmt: skip

    def thrown_away(self, e):
        """The BodyError of an expression on a line of its own (not a string): it does something, or nothing."""
        if isinstance(e, ast.Call):
            self.call_of_backward(e)
        if type(e) in NOT_ALLOWED and not isinstance(e, (ast.Compare, ast.Tuple)):
            return self.error(e, NOT_ALLOWED[type(e)])
        if isinstance(e, ast.Compare) and isinstance(e.ops[0], ast.Eq) and grad_of(e.left) is not None:
            return self.error(e, f'{self.found(e)}: == compares, and the answer is thrown away: to write a grad '
                                 f'use +=, {grad_of(e.left)}.grad += …')  # fmt: skip
        self.expr(e, 0)  # anything it may not use is said first
        return self.error(e, f'{self.found(e)} is worked out and thrown away: nothing is written. Write it into a '
                             f'grad: {self.inputs[0]}.grad += …')  # fmt: skip

    def call_of_backward(self, e):
        """BodyError for a call of _backward or backward, said for what it would do; nothing for any other call."""
        f = e.func
        receiver = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, 'id', None)
        if name == '_backward' and receiver in self.inputs:
            raise self.error(e, f'{self.found(e)}: calling {receiver}._backward() here runs that node’s backward '
                                'again (backward() calls it in its turn): each grad below it would be counted twice. '
                                'Leave the calls to backward(): write only grads here')  # fmt: skip
        if name == '_backward' and receiver in ('out', None):
            raise self.error(e, f'{self.found(e)}: this is the _backward being written: calling it inside itself '
                                'calls it again without end. Write only grads here')  # fmt: skip
        if name == 'backward':
            raise self.error(e, f'{self.found(e)}: calling backward here starts a whole backward pass inside one '
                                'step of this one: grads would be seeded again and counted twice. Write only grads '
                                'here')  # fmt: skip

    # --- E ---

    def expr(self, e, depth):
        """BodyError unless E is on the whitelist (see the module's docstring)."""
        if depth > MAX_DEPTH:
            raise self.error(e, f'nested too deeply (the limit is {MAX_DEPTH} levels): name a part on a line above, '
                                'local = …, and use the name')  # fmt: skip
        if isinstance(e, ast.Constant):
            if type(e.value) not in (int, float) or _number(e) is None:
                raise self.error(e, self.not_a_number(e))
            return
        if isinstance(e, ast.Attribute):
            return self.read_attribute(e)
        if isinstance(e, ast.Name):
            return self.read_name(e)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
            return self.expr(e.operand, depth + 1)
        if isinstance(e, ast.BinOp) and type(e.op) in SYMBOLS:
            if isinstance(e.op, ast.Pow):
                self.exponent(e.right)
            # a + b + c + ... nests to the left in the tree but reads flat: only the right side goes deeper
            self.expr(e.left, depth if isinstance(e.left, ast.BinOp) else depth + 1)
            return self.expr(e.right, depth + 1)
        if isinstance(e, ast.Call):
            return self.call(e, depth)
        if isinstance(e, ast.BinOp) and type(e.op) in OTHER_SYMBOLS:
            symbol = OTHER_SYMBOLS[type(e.op)]
            instead = {'^': 'use ** for a power, e.g. t**2', '//': 'use / to divide'}.get(symbol, 'E uses + - * / **')
            raise self.operator_error(e, symbol, f'`{symbol}` is not an operator here: {instead}')
        if isinstance(e, ast.UnaryOp):
            symbol = {ast.Not: 'not', ast.Invert: '~'}.get(type(e.op), '?')
            raise self.error(e, f'`{symbol}` is not an operator here: E uses + - * / ** and unary minus')
        raise self.error(e, NOT_ALLOWED.get(type(e), f'{self.found(e)} is not allowed in E: {WRITE}'))

    def not_a_number(self, e):
        if isinstance(e.value, str):
            return f'{self.found(e)}: a string is not a number (a string on a line of its own is fine, as a note)'
        if isinstance(e.value, bool) or e.value is None or e.value is Ellipsis:
            return f'{self.found(e)} is not a number: write one, e.g. 1.0'
        return f'{self.found(e)} is not a number a body can use: write a finite one, e.g. 1.0'

    def exponent(self, e):
        n = _number(e)
        if n is None or abs(n) > MAX_EXPONENT:
            raise self.error(e, f'{self.found(e)}: the exponent after ** is a plain number up to {MAX_EXPONENT}, '
                                'e.g. t**2')  # fmt: skip

    def read_attribute(self, e):
        """BodyError unless e is self.data, other.data (in + and ×), out.data or out.grad."""
        x = e.value.id if isinstance(e.value, ast.Name) else None
        if x in (*self.inputs, 'out') and e.attr == 'data' or (x, e.attr) == ('out', 'grad'):
            return
        if x in self.inputs and e.attr == 'grad':
            raise self.error(e, f'{self.found(e)} is read here: a body reads the grad coming back, out.grad. To add '
                                f'to {x}.grad write {x}.grad += …')  # fmt: skip
        if x == 'other' and e.attr in ('data', 'grad'):
            raise self.error(e, f'`other.{e.attr}`: tanh has one input, self')
        if x in self.held or x in self.own:
            raise self.error(e, f'{self.found(e)}: {x} is a number already, not a Value: write {x}')
        if x == 'math':
            raise self.error(e, f'{self.found(e)} is not one a body uses: math.tanh(x), math.exp(x) and '
                                'math.log(x) are')  # fmt: skip
        reads = ', '.join([f'{i}.data' for i in self.inputs] + ['out.data', 'out.grad'])
        raise self.error(e, f'{self.found(e)}: a body reads only .data and .grad ({reads}) and writes only .grad')

    def read_name(self, e):
        """BodyError unless the name e is a number here: the closure's, or one the lines above gave a number."""
        n = e.id
        if n in self.own:
            if n in self.named:
                return
            hidden = (f', so the closure’s {n} is hidden: name the new number otherwise' if n in self.held else
                      ': give it a number on a line above')  # fmt: skip
            said = 'in Python a name given a value anywhere in a function is the function’s own from its first line'
            raise self.error(e, f'`{n}` is read before this body gives it a number ({said}){hidden}')
        if n in self.held:
            return
        if n in self.inputs or n == 'out':
            raise self.error(e, f'`{n}` is a Value, not a number: use its number, {n}.data')
        if n == 'other':
            raise self.error(e, '`other`: tanh has one input, self')
        if n == 'math':
            raise self.error(e, '`math` is a module: call math.tanh(x), math.exp(x) or math.log(x)')
        raise self.error(e, f'`{n[:MOST_SHOWN]}` is not a name here: E reads {self.reads()}, and the names the lines '
                            'above give numbers (g = …)')  # fmt: skip

    def call(self, e, depth):
        f = e.func
        self.call_of_backward(e)
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == 'math'):
            callee = self.found(f)[1:-1]
            raise self.error(e, f'`{callee}(…)`: the only calls are math.tanh(x), math.exp(x) and math.log(x)')
        if f.attr not in CALLS:
            instead = ' (a square root is x**0.5)' if f.attr == 'sqrt' else ''
            raise self.error(e, f'`math.{f.attr[:MOST_SHOWN]}` is not one I run: math.tanh, math.exp or '
                                f'math.log{instead}')  # fmt: skip
        if len(e.args) != 1 or e.keywords or isinstance(e.args[0], ast.Starred):
            raise self.error(e, f'{self.found(e)}: math.{f.attr} takes one plain argument, e.g. '
                                f'math.{f.attr}(self.data)')  # fmt: skip
        return self.expr(e.args[0], depth + 1)


def _does_nothing(e):
    """A string or ... on a line of its own (a docstring, a note): it changes nothing."""
    return isinstance(e, ast.Constant) and (isinstance(e.value, str) or e.value is Ellipsis)
