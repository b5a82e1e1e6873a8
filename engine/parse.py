"""Typed formulas: parse_expression('tanh(x1*w1 + x2*w2 + b)') -> an Expression. Parsed, never eval-ed.

Python's own `ast` reads the text; only a whitelist of node kinds is accepted. Limits, fit for a
public demo: at most MAX_LENGTH characters, MAX_NODES values in the graph, MAX_DEPTH levels of
nesting, and exponents that are plain numbers no larger than MAX_EXPONENT.
"""

import ast
import math
import operator
import re

from .ops import OPS
from .presets import Expression

MAX_LENGTH = 500
MAX_NODES = 250
MAX_DEPTH = 40
MAX_EXPONENT = 100
MAX_NAME = 24
DEFAULT_INPUT = 1.0
FORMULA_KEY = '='  # a typed formula's Expression.key: '=' and the text as read, without the spaces around it
TOO_DEEP = f'the formula is nested too deeply (the limit is {MAX_DEPTH} levels)'
LINE_ENDS = '\n;\r\v\f\x1c\x1d\x1e\x85\u2028\u2029'  # what ends a statement (;) or a line
# each calls the operand's own method, so a graph of engine/assign.py's Values stays one all through
FUNCTIONS = {name: operator.methodcaller(name) for name, op in OPS.items() if op.form == 'call'}  # tanh(x), exp(x)
BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
NOT_ALLOWED = {
    ast.Attribute: 'attribute access with "." is not allowed',
    ast.Subscript: 'indexing with [ ] is not allowed',
    ast.Lambda: 'lambda is not allowed',
    ast.ListComp: 'comprehensions are not allowed',
    ast.GeneratorExp: 'comprehensions are not allowed',
    ast.Compare: 'comparisons are not allowed',
    ast.BoolOp: '"and" / "or" are not allowed',
    ast.IfExp: '"if ... else" is not allowed',
    ast.Tuple: 'a comma makes two formulas of one: write one formula',
    ast.Not: '"not" is not allowed',
    ast.Invert: '~ is not allowed',
    ast.BitXor: 'use ** for powers, not ^',
    ast.MatMult: '@ is not allowed',
    ast.FloorDiv: 'use / for division, not //',
    ast.Mod: '% is not allowed',
}  # fmt: skip


class ExpressionError(ValueError):
    """A typed formula that cannot be drawn, with a message for a student and the column (1-based) if known."""

    def __init__(self, message, column=None):
        super().__init__(f'column {column}: {message}' if column else message)
        self.message, self.column = message, column


def parse_expression(text):
    """Parse a formula such as 'tanh(x1*w1 + x2*w2 + b)' or 'L = (a*b + c) * f'.

    Its variables become the inputs, in order of first use; a name used twice is one leaf.
    Raises ExpressionError, with the column (1-based, in `text` as typed), for anything else.
    The Expression's key is the text as read: the same formula is the same graph, and a formula that reads like a
    preset's name ('reuse', one variable) still has a key of its own.
    """
    if len(text) > MAX_LENGTH:  # as typed, spaces and all: the page writes the text into its link
        message = f'the formula is {len(text):,} characters long, spaces included; the limit is {MAX_LENGTH}'
        raise ExpressionError(message, MAX_LENGTH + 1)
    lead = len(text) - len(text.lstrip())  # columns count in the text as typed, leading spaces and all
    text = text.strip()
    if not text:
        raise ExpressionError('type a formula, e.g. tanh(x1*w1 + x2*w2 + b)', 1)
    _check_characters(text, lead)
    out_name, body, shift = _split_assignment(text, lead)
    try:
        tree = ast.parse(body, mode='eval').body
    except SyntaxError as e:
        column = min(max(e.offset or len(body) + 1, 1), len(body) + 1)  # 0 or None: at the end, e.g. 'x +'
        dangling = _dangling_operator(body)
        brackets = _bracket_problem(body, shift, dangling)
        if brackets is not None:  # '(a*b +', 'sin(x', 'a + b)': at the bracket, whatever else is wrong
            raise ExpressionError(*brackets) from None
        if dangling is not None:  # 'a + ', '(a + )': the + is the problem, not the end or the bracket
            sign, at = dangling
            raise ExpressionError(f'{sign} has nothing after it: write what it works on', at + shift) from None
        raise ExpressionError(_syntax_message(e), column + shift) from None
    except (RecursionError, MemoryError):
        raise ExpressionError(TOO_DEEP, _too_deep_column(body) + shift) from None
    except (ValueError, UnicodeError, OverflowError, Warning):  # past the checks above, only a warning made an error
        raise ExpressionError('this is not a formula I can read', shift + 1) from None
    names = []  # the variables, in order of first use
    try:
        size = _check(tree, _Columns(body, shift), names, depth=0)
    except RecursionError:  # a long a+b+...+z chain nests to the left; the limits keep it far from this
        raise ExpressionError(TOO_DEEP, _too_deep_column(body) + shift) from None
    if size + len(names) > MAX_NODES:
        message = f'the graph would have {size + len(names)} values; the limit is {MAX_NODES}'
        raise ExpressionError(message, shift + 1)  # the whole formula, from its first column

    def make(leaves):
        out = _build(tree, leaves)
        out = out if out._prev or out_name is None else out + 0.0  # a bare name still needs a node to name
        if out_name:
            out.label = out_name
        elif out._prev and 'out' not in leaves:
            out.label = 'out'
        return out

    return Expression(text, {name: DEFAULT_INPUT for name in names}, make, key=FORMULA_KEY + text)


def _check_characters(text, lead):
    """Refuse, at its column, a character no formula has: a comment, a second line, or one that does not print.

    Before ast sees the text: it would read '# ...' as a comment and drop it, and a lone surrogate
    ('\\ud800') or a null byte makes it raise UnicodeEncodeError or ValueError rather than SyntaxError.
    """
    for i, ch in enumerate(text):
        if ch == '#':
            raise ExpressionError('comments (#) are not allowed in a formula', lead + i + 1)
        if ch in LINE_ENDS:
            raise ExpressionError('write one formula on one line', lead + i + 1)
        if not ch.isprintable():  # control, format (zero-width, right-to-left marks), surrogate, unassigned
            raise ExpressionError(
                f'an invisible or control character (U+{ord(ch):04X}) cannot be in a formula', lead + i + 1
            )


def _split_assignment(text, lead):
    """'L = a*b' -> ('L', 'a*b', offset of 'a*b'); anything else -> (None, text, lead)."""
    head, eq, body = text.partition('=')
    if eq and head.strip().isidentifier() and not body.startswith('='):
        name = head.strip()
        _check_name(name, lead + 1)
        stripped = body.lstrip()
        return name, stripped, lead + len(text) - len(stripped)
    return None, text, lead


def _syntax_message(e):
    if 'nested' in str(e.msg):
        return TOO_DEEP
    if 'was never closed' in str(e.msg):
        return 'this ( is never closed'
    if 'unmatched' in str(e.msg):
        return 'this ) closes no ('
    return 'this is not a formula I can read: check brackets and operators'


_TOKEN = r'\*\*|[-+*/]|[()\[\],]|[^\s()\[\],*/+-]+'  # an operator, a bracket or comma, or anything else


def _dangling_operator(body):
    """(the operator, its column, 1-based) of the first + - * / ** with nothing after it: at the end of the formula,
    or before a closing bracket or a comma. None if there is none."""
    tokens = [(m.group(), m.start()) for m in re.finditer(_TOKEN, body)]
    for (token, start), after in zip(tokens, [*tokens[1:], None]):
        if token in ('+', '-', '*', '/', '**') and (after is None or after[0] in ')],'):
            return token, start + 1
    return None


# a quoted string, whose brackets are not the formula's (the string is refused later, at its column), or a bracket
_BRACKET = r'"[^"]*"?|\'[^\']*\'?|[()\[\]{}]'
_OPENER = {')': '(', ']': '[', '}': '{'}


def _bracket_problem(body, shift, dangling):
    """(message, column) for the first bracket that pairs with none, else None.

    Read left to right: a closing bracket with nothing open before it ('a + b)'), or one that closes another kind
    ('(a + b]'), is named at its own column; else the last bracket left open is, and the message names the others
    left open ('((a': the ( at column 2, nor the one at column 1). A `dangling` operator (from _dangling_operator)
    is named too: '(a*b +' needs a ) and something after the +.
    """
    opened = []  # (bracket, column) of those still open
    problem = None
    for m in re.finditer(_BRACKET, body):
        ch, at = m.group(), m.start() + 1 + shift
        if ch in '([{':
            opened.append((ch, at))
        elif ch in _OPENER and not opened:
            problem = f'the {ch} at column {at} has no {_OPENER[ch]} to close: it is one {ch} too many', at
            break
        elif ch in _OPENER and opened[-1][0] != _OPENER[ch]:
            bracket, start = opened[-1]
            problem = f'the {ch} at column {at} cannot close the {bracket} opened at column {start}', at
            break
        elif ch in _OPENER:
            opened.pop()
    if problem is None and opened:
        bracket, start = opened[-1]
        others = [column for _, column in opened[:-1]]
        message = f'the {bracket} opened at column {start} is never closed'
        if len(others) == 1:
            message += f', nor is the one at column {others[0]}'
        elif 1 < len(others) <= 3:
            message += f', nor are the ones at columns {", ".join(map(str, others[:-1]))} and {others[-1]}'
        elif others:
            message += f', nor are the {len(others)} before it'
        problem = message, start
    if problem is None:
        return None
    if dangling is not None:
        sign, at = dangling
        problem = f'{problem[0]}, and the {sign} at column {at + shift} has nothing after it', problem[1]
    return problem


def _too_deep_column(body):
    """The column of the first bracket nested past MAX_DEPTH, else 1."""
    depth = 0
    for i, ch in enumerate(body):
        depth += (ch == '(') - (ch == ')')
        if depth > MAX_DEPTH:
            return i + 1
    return 1


def _check_name(name, column):
    if name in FUNCTIONS:
        raise ExpressionError(f'{name} is a function: write {name}(x)', column)
    if name.startswith('_') or len(name) > MAX_NAME or not name.isascii():
        raise ExpressionError(f'use a short plain name such as x1 or w (no leading _): {name[:30]}', column)


class _Columns:
    """Columns (1-based, in the text as typed) of the parts of a tree that ast read from `body`, `shift` characters
    into the text: ast counts UTF-8 bytes, a student counts characters."""

    def __init__(self, body, shift):
        self._body, self._encoded, self._shift = body, body.encode(), shift

    def _index(self, offset):
        return len(self._encoded[:offset].decode(errors='ignore'))

    def of(self, node):
        """Where node starts: 'foo' of foo(x), '1000' of x**1000."""
        return self._index(node.col_offset) + 1 + self._shift

    def opening(self, node):
        """Where a right operand starts, its opening brackets included: the '(' of x**(1/2)."""
        i = self._index(node.col_offset)
        while i and self._body[i - 1] in '( ':
            i -= 1
        while self._body[i] == ' ':
            i += 1
        return i + 1 + self._shift

    def after(self, node):
        """What follows node, past its closing brackets and spaces: the ^ of (a) ^ b, the . of x.y, the [ of x[0],
        the ( of tanh(), the 'for' of [x for x in y]."""
        i = self._index(node.end_col_offset)
        while i < len(self._body) and self._body[i] in ') ':
            i += 1
        return i + 1 + self._shift


def _check(node, columns, names, depth):
    """Raise ExpressionError unless node is on the whitelist; return how many values it adds.

    Each error is at the column of the part it names: the exponent, the function's name, the argument too many.
    """
    column = columns.of(node)
    if depth > MAX_DEPTH:
        raise ExpressionError(TOO_DEEP, column)
    if isinstance(node, ast.Constant):
        if _number(node) is None:
            raise ExpressionError(f'{node.value!r:.30} is not a number I can use', column)
        return 1
    if isinstance(node, ast.Name):
        _check_name(node.id, column)
        if node.id not in names:
            names.append(node.id)
        return 0  # counted once, as an input
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _check(node.operand, columns, names, depth + 1) + isinstance(node.op, ast.USub)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exponent = _number(node.right)
        if exponent is None:
            message = 'the exponent after ** must be a plain number, such as x**2'
            raise ExpressionError(message, columns.opening(node.right))
        if abs(exponent) > MAX_EXPONENT:
            message = f'the exponent {exponent:g} is too large (the limit is {MAX_EXPONENT})'
            raise ExpressionError(message, columns.opening(node.right))
        return _check(node.left, columns, names, depth + 1) + 1
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        # a + b + c + ... nests to the left in the tree but reads flat: only the right side goes deeper
        left_depth = depth if isinstance(node.left, ast.BinOp) else depth + 1
        return _check(node.left, columns, names, left_depth) + _check(node.right, columns, names, depth + 1) + 1
    if isinstance(node, ast.Call):
        return _check_call(node, columns, names, depth)
    if isinstance(node, ast.Tuple) and not node.elts:
        raise ExpressionError('( ) with nothing in it is not a formula: write one in the brackets', column)
    kind = type(node.op) if isinstance(node, (ast.BinOp, ast.UnaryOp)) else type(node)
    message = NOT_ALLOWED.get(kind, f'{type(node).__name__} is not part of a formula here')
    raise ExpressionError(message, _refused_at(node, columns))


def _check_call(node, columns, names, depth):
    """A call of a known function on one plain argument; else an error at the name, or at the argument at fault."""
    fname = node.func.id if isinstance(node.func, ast.Name) else None
    if fname not in FUNCTIONS:
        known = ', '.join(FUNCTIONS)
        raise ExpressionError(f'{fname or "that"} is not a function I know; I know {known}', columns.of(node.func))
    arguments = sorted([*node.args, *node.keywords], key=lambda a: a.col_offset)  # as typed: tanh(x, *y, z=1)
    named = [a for a in arguments if isinstance(a, (ast.Starred, ast.keyword))]
    if named:  # tanh(x=1), tanh(*x), tanh(**k): at the first such
        message = f'{fname} takes one plain argument, e.g. {fname}(x): no name= and no *'
        raise ExpressionError(message, columns.of(named[0]))
    if len(arguments) != 1:  # tanh(x, y): at the second argument; tanh(): at its empty brackets
        at = columns.of(arguments[1]) if arguments else columns.after(node.func)
        raise ExpressionError(f'{fname} takes exactly one argument, e.g. {fname}(x)', at)
    return _check(node.args[0], columns, names, depth + 1) + 1


def _refused_at(node, columns):
    """The column of what makes node refused: the operator of a^b, a < b, a and b, x if y else z; the . of x.y;
    the [ of x[0]; the 'for' of a comprehension; the first comma of x, y. Else where node starts (lambda, not)."""
    if isinstance(node, (ast.BinOp, ast.Compare)):
        return columns.after(node.left)
    if isinstance(node, ast.BoolOp):
        return columns.after(node.values[0])
    if isinstance(node, ast.IfExp):
        return columns.after(node.body)
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return columns.after(node.value)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return columns.after(node.elt)
    if isinstance(node, ast.Tuple) and node.elts:
        return columns.after(node.elts[0])
    return columns.of(node)


def _number(node):
    """The value of a plain, finite number or a negated one, else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        n = _number(node.operand)
        return None if n is None else -n
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        try:
            x = float(node.value)
        except OverflowError:  # an int literal of hundreds of digits
            return None
        return x if math.isfinite(x) else None
    return None


def _build(node, leaves):
    """The graph of a checked tree, with the variables taken from `leaves` (name -> Value, a presets.Leaves) and
    the constants of their class."""
    if isinstance(node, ast.Constant):
        return leaves.value_type(_number(node), label=f'{node.value:g}')
    if isinstance(node, ast.Name):
        return leaves[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _build(node.operand, leaves)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return _build(node.left, leaves) ** _number(node.right)
    if isinstance(node, ast.BinOp):
        return BINARY[type(node.op)](_build(node.left, leaves), _build(node.right, leaves))
    return FUNCTIONS[node.func.id](_build(node.args[0], leaves))
