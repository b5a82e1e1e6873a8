"""A local gradient's arithmetic, read from the op's own code: the factor its `_backward` line multiplies `out.grad`
by, and the forward line that made a number the closure holds, each written by name and with the numbers in.

    self.grad += (1 - t**2) * out.grad     ->  1 − t² = 1 − 0.7071² = 0.5000
    inv = math.pow(other.data, -1)         ->  inv = b.data⁻¹ = 2.0000⁻¹ = 0.5000

So an op says what it does once, in engine/value.py, and a new op is explained with no words written for it. The
code is walked as a tree (ast), never run; what it cannot write (a name it does not know, a call it has no words for)
gives None, and the page shows the number alone.
"""

import ast
import math
from dataclasses import dataclass

from engine import code, ieee, ops
from engine.code import factor  # what a line multiplies out.grad by: engine/code.py, where the engine reads it too
from view.numbers import as_shown, equals, number, number_word

MATH = {name for name, f in vars(ieee).items() if callable(f) and not name.startswith('_')} - {'as_float'}
INPUTS = ('self', 'other')  # a _backward's inputs, in _prev order; `out` is the node itself
SUPERSCRIPTS = str.maketrans('0123456789-', '⁰¹²³⁴⁵⁶⁷⁸⁹⁻')
BINARY = {ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.Div: '/'}
COMPARE = {ast.Gt: '>', ast.Lt: '<', ast.GtE: '≥', ast.LtE: '≤', ast.Eq: '=', ast.NotEq: '≠'}
PYTHON = {'>': float.__gt__, '<': float.__lt__, '≥': float.__ge__, '≤': float.__le__, '=': float.__eq__,
          '≠': float.__ne__}  # fmt: skip


def owner(name):
    """A node's name before .grad or .data: 'a', 'tanh(a)', '(a*b)'."""
    return ops.bracket(name, ops.CALL)


def power(base, n):
    """base to the power n as the page writes it: 'a.data²', '(−2.0000)³', 'x⁻¹', '4.0000^0.5', 'a.data' for n = 1."""
    if n == 1:
        return base
    base = ops.bracket(base, ops.CALL) if base[:1] in ops.MINUS or ops.binding(base) < ops.CALL else base
    if float(n).is_integer():
        return base + f'{int(n)}'.translate(SUPERSCRIPTS)
    return f'{base}^{ops.bracket(number_word(n), ops.CALL, after_operator=True)}'


@dataclass(frozen=True)
class Scope:
    """What a line of an op's code refers to, at one node: the names of self, other and out on the graph, their
    data (and out's grad), the numbers the closure holds, and the op's own number argument (a power's n)."""

    names: dict  # {'self': 'a', 'other': 'b', 'out': 'L'}
    data: dict  # {('self', 'data'): 2.0, ('out', 'data'): …, ('out', 'grad'): …}
    held: dict  # {'t': 0.7071}
    argument: float | None = None


class Unreadable(Exception):
    """The code says something the page has no words for."""


def grad_writes(fn):
    """The statements of the closure `fn` that write a grad (`X.grad += E`; `=` on the bug's engine; a student's may
    have -=), in the order they run: one per contribution of its step (engine/code.py)."""
    return [s for _, _, s in code.grad_writes(fn)]


def passes_through(fn, j):
    """1 or −1 where the op's line j hands its grad on unchanged or negated (+, −, negation), else None: read from the
    line itself."""
    writes = grad_writes(fn)
    f = factor(writes[j]) if j < len(writes) else None
    return f.value if isinstance(f, ast.Constant) and f.value in (1, -1) else None


def forward(fn, name):
    """The right side of the line `name = …` in the op's method, which made a number the closure `fn` holds (t in
    tanh), or None. The method is the one the closure was made in, on the class of the `out` it holds."""
    method = fn.__code__.co_qualname.split('.<locals>.')[0].split('.')[-1]
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    made_in = getattr(type(cells['out'].cell_contents), method, None) if 'out' in cells else None
    if made_in is None:
        return None
    for s in code.function_tree(made_in).body:
        if isinstance(s, ast.Assign) and [getattr(t, 'id', None) for t in s.targets] == [name]:
            return s.value
    return None


def write(e, scope):
    """(the expression by name, with its numbers): ('1 − t²', '1 − 0.7071²'), or Unreadable."""
    if isinstance(e, ast.Constant) and type(e.value) in (int, float):
        return (number_word(e.value),) * 2
    if isinstance(e, ast.Attribute) and getattr(e.value, 'id', None) in scope.names:
        key = (e.value.id, e.attr)
        if key not in scope.data:
            raise Unreadable(ast.unparse(e))
        return f'{owner(scope.names[e.value.id])}.{e.attr}', number(scope.data[key])
    if isinstance(e, ast.Name) and e.id in scope.held:
        return e.id, number(scope.held[e.id])
    if isinstance(e, ast.Name) and scope.argument is not None and e.id not in ('math', *scope.names):
        return (number_word(scope.argument),) * 2  # the op's own number: a power's n
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return tuple(ops.formula('neg', [text], pretty=True) for text in write(e.operand, scope))
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Pow):
        return tuple(power(text, value(e.right, scope)) for text in write(e.left, scope))
    if isinstance(e, ast.BinOp) and type(e.op) in BINARY:
        left, right = write(e.left, scope), write(e.right, scope)
        return tuple(ops.formula(BINARY[type(e.op)], [a, b], pretty=True) for a, b in zip(left, right))
    if isinstance(e, ast.Call) and not e.keywords:
        name = _called(e)
        args = [write(a, scope) for a in e.args]
        if name == 'pow' and len(args) == 2:
            return tuple(power(text, value(e.args[1], scope)) for text in args[0])
        return tuple(f'{name}({", ".join(a[k] for a in args)})' for k in (0, 1))
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in COMPARE:
        left, right = write(e.left, scope), write(e.comparators[0], scope)
        return tuple(f'({a} {COMPARE[type(e.ops[0])]} {b})' for a, b in zip(left, right))
    if isinstance(e, ast.IfExp):  # the branch the numbers take: a power's slope at n = 0
        return write(e.body if value(e.test, scope) else e.orelse, scope)
    raise Unreadable(ast.unparse(e))


def _called(e):
    """The name of a call's function, `math.tanh` written 'tanh': one of engine/ieee.py's, or max, min or abs."""
    if isinstance(e.func, ast.Name) and e.func.id in ('max', 'min', 'abs'):
        return e.func.id
    if isinstance(e.func, ast.Attribute) and getattr(e.func.value, 'id', None) == 'math' and e.func.attr in MATH:
        return e.func.attr
    raise Unreadable(ast.unparse(e.func))


def value(e, scope):
    """The number `e` comes to in `scope`, walking the tree write() writes (the code is never run): an exponent, a
    condition, or a line's arithmetic on the numbers it shows (shown_scope). IEEE 754 throughout: a pole is inf, 0/0
    nan. Anything write() has no words for is Unreadable."""
    if isinstance(e, ast.Constant) and type(e.value) in (int, float):
        return float(e.value)
    if isinstance(e, ast.Attribute) and (getattr(e.value, 'id', None), e.attr) in scope.data:
        return scope.data[e.value.id, e.attr]
    if isinstance(e, ast.Name) and e.id in scope.held:
        return scope.held[e.id]
    if isinstance(e, ast.Name) and scope.argument is not None and e.id not in ('math', *scope.names):
        return scope.argument
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return -value(e.operand, scope)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Pow):
        return ieee.pow(value(e.left, scope), value(e.right, scope))
    if isinstance(e, ast.BinOp) and type(e.op) in BINARY:
        return _arithmetic(BINARY[type(e.op)], value(e.left, scope), value(e.right, scope))
    if isinstance(e, ast.Call) and not e.keywords:
        name, args = _called(e), [value(a, scope) for a in e.args]
        return float({'max': max, 'min': min, 'abs': abs}.get(name, getattr(ieee, name, None))(*args))
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in COMPARE:
        return PYTHON[COMPARE[type(e.ops[0])]](value(e.left, scope), value(e.comparators[0], scope))
    if isinstance(e, ast.IfExp):
        return value(e.body if value(e.test, scope) else e.orelse, scope)
    raise Unreadable(ast.unparse(e))


def _arithmetic(sign, a, b):
    """a sign b as floats have it, a division by 0 as IEEE 754 has it (±inf, or nan for 0/0)."""
    if sign == '/' and b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return {'+': a + b, '-': a - b, '*': a * b}[sign] if sign != '/' else a / b


def shown_scope(scope):
    """The scope with each number as the page shows it (numbers.as_shown): what a reader's arithmetic starts from."""
    data = {key: as_shown(x) for key, x in scope.data.items()}
    return Scope(scope.names, data, {k: as_shown(float(x)) for k, x in scope.held.items()}, scope.argument)


def ends(e, scope, result):
    """The sign before `result`, the number the code's `e` came to, where a line writes `e` out with the numbers of
    `scope`: '=' where those numbers, as shown, work out to it (numbers.equals), else '≈'."""
    try:
        return equals(result, value(e, shown_scope(scope)))
    except (Unreadable, ArithmeticError, ValueError, TypeError):
        return '≈'  # a number the page cannot work out again: not said to be exact


def worked(*texts, last='='):
    """The steps of a piece of arithmetic joined by =, each written once: 'b.data = −3.0000', not '… = −3.0000 = …';
    the last result after `last` where it is written out with numbers before it ('≈': ends)."""
    kept = [text for k, text in enumerate(texts) if k == 0 or text != texts[k - 1]]
    return ' = '.join(kept[:-1]) + f' {last} ' + kept[-1] if len(kept) > 1 else kept[0]


def held_used(e, scope, but=None):
    """The numbers the closure holds that the code `e` names, in the order it names them, each once (t in
    `(1 - t**2)`), leaving out `but`, one the line says already."""
    names = [n.id for n in ast.walk(e) if isinstance(n, ast.Name) and n.id in scope.held] if e is not None else []
    return [name for name in dict.fromkeys(names) if name != but]


def said(fn, name, scope):
    """What a number the closure holds is, by name and ending in its number, so that no reader takes `e` for 2.718:
    't = tanh(n.data) = 0.7071', 'e = exp((a*b).data) = 1.3499'; 'name = 0.7071' where its line cannot be written."""
    line, x = forward(fn, name), scope.held[name]
    try:
        if line is not None:
            return worked(name, write(line, scope)[0], number(x))
    except Unreadable:
        pass
    return worked(name, number(x))


def where(fn, e, scope, but=None):
    """', where t = tanh(n.data) = 0.7071' for the numbers the closure holds that `e` names (held_used), else ''."""
    names = held_used(e, scope, but)
    return f', where {", ".join(said(fn, name, scope) for name in names)}' if names else ''


def local_gradient(fn, j, scope, x):
    """The local gradient of the op's line j, worked out from its code and ending in `x` (the trace's number):
    '1 − t² = 1 − 0.7071² = 0.5000'; where the factor is a number the closure holds, the line that made it:
    'inv = b.data⁻¹ = 2.0000⁻¹ = 0.5000'; '≈' before `x` where the numbers shown do not work out to it (ends). A
    number the closure holds that it names is said after it: '…, where t = tanh(n.data) = 0.7071' (where). None
    where the code cannot be written out."""
    writes = grad_writes(fn)
    f = factor(writes[j]) if j < len(writes) else None
    if f is not None and isinstance(writes[j], ast.AugAssign) and isinstance(writes[j].op, ast.Sub):
        f = ast.UnaryOp(ast.USub(), f)  # a student's `-=`: what it adds is minus its factor (the trace's x is too)
    try:
        if isinstance(f, ast.Name) and f.id in scope.held and forward(fn, f.id) is not None:
            line = forward(fn, f.id)
            return worked(f.id, *write(line, scope), number(x), last=ends(line, scope, x))
        if f is None:
            return None
        return worked(*write(f, scope), number(x), last=ends(f, scope, x)) + where(fn, f, scope)
    except Unreadable:
        return None


def made(fn, name, scope, x):
    """How a number the closure holds was made, ending in `x`: 't = tanh(n.data) = tanh(0.8814) = 0.7071' ('≈'
    before `x` where the numbers shown do not work out to it); or 'name = x' where its line cannot be written out."""
    line = forward(fn, name)
    try:
        if line is not None:
            return worked(name, *write(line, scope), number(x), last=ends(line, scope, x))
    except Unreadable:
        pass
    return worked(name, number(x))
