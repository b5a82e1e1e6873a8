"""Every op the engine has, in one table: its symbol, how a formula writes it, and why it can give inf or nan.

The keys are the op names Value gives its results (Value._op); '**' stands for every power, whose op
name carries its exponent: '**2', '**0.5'. An op of form 'call' is the Value method of its name, and a typed
formula may call it (engine/parse.py reads this table). formula() is the one way an op is written: the trace names
nodes with it, and the page's captions and explanation write their formulas with it (pretty=True).
"""

import functools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

# how tightly an op binds in a formula: an argument that binds less tightly than its op goes in brackets
SUM, PRODUCT, NEGATION, POWER, CALL = 1, 2, 3, 4, 5

OVERFLOW = 'overflow past 1.8e308'  # the largest float is 1.7976931348623157e308


@dataclass(frozen=True, slots=True)
class Op:
    symbol: str  # the graph's op node: '×', '−x', 'x^n' (n stands for the exponent)
    arity: int
    precedence: int  # SUM, PRODUCT, NEGATION, POWER or CALL
    form: str  # how a formula writes it: 'infix' a*b, 'prefix' -a, 'postfix' a**2, or 'call' tanh(a)
    text: str  # what a formula writes: '*', '-', '**', 'tanh'
    why_nonfinite: Callable  # (inputs' data, exponent or None) -> why the result is inf or nan, in a student's words
    associative: bool = False  # a+(b-c) is a+b-c: the right argument needs no brackets at the op's own precedence
    pretty: str = ''  # what the page's formulas write instead of `text`, if anything: '×', '−', '÷'


def word(x):
    """A number as a message writes it: 0, 0.5, 1e+200, inf, −inf, nan."""
    return '−inf' if x == -math.inf else f'{x:g}'


def _already(args):
    """Why a result is not finite when one of the op's inputs already is not: '' if they all are."""
    for x in args:
        if not math.isfinite(x):
            return f'an input is already {word(x)}'
    return ''


def _why_add(args, n):
    a, b = args
    if math.isinf(a) and math.isinf(b) and a != b:
        return 'inf − inf'
    return _already(args) or OVERFLOW


def _why_sub(args, n):
    a, b = args
    if math.isinf(a) and a == b:
        return 'inf − inf'
    return _already(args) or OVERFLOW


def _why_mul(args, n):
    a, b = args
    if (math.isinf(a) and b == 0) or (a == 0 and math.isinf(b)):
        return 'inf × 0'
    return _already(args) or OVERFLOW


def _why_div(args, n):
    a, b = args
    if a == 0 and b == 0:
        return '0/0'
    if math.isinf(a) and math.isinf(b):
        return 'inf ÷ inf'
    return _already(args) or ('division by zero' if b == 0 else OVERFLOW)


def _why_pow(args, n):
    (x,) = args
    if _already(args):
        return _already(args)
    if x < 0 and not float(n).is_integer():
        return 'a negative number to a fractional power'
    if x == 0 and n < 0:
        return '0 to a negative power'
    return OVERFLOW


def _why_exp(args, n):
    return _already(args) or 'exp overflows (the result is past 1.8e308)'


def _why_log(args, n):
    (x,) = args
    if _already(args):
        return _already(args)
    return 'log of 0 is −inf' if x == 0 else 'log of a negative number'


def _why_bounded(args, n):
    # tanh, sigmoid, relu, sin, cos and negation give a finite number for every finite input
    return _already(args) or 'the result is not a finite number'


OPS = {
    '+': Op('+', 2, SUM, 'infix', '+', _why_add, associative=True),
    '-': Op('−', 2, SUM, 'infix', '-', _why_sub, pretty='−'),
    '*': Op('×', 2, PRODUCT, 'infix', '*', _why_mul, associative=True, pretty='×'),
    '/': Op('÷', 2, PRODUCT, 'infix', '/', _why_div, pretty='÷'),
    'neg': Op('−x', 1, NEGATION, 'prefix', '-', _why_bounded, pretty='−'),
    '**': Op('x^n', 1, POWER, 'postfix', '**', _why_pow),
    'tanh': Op('tanh', 1, CALL, 'call', 'tanh', _why_bounded),
    'exp': Op('exp', 1, CALL, 'call', 'exp', _why_exp),
    'log': Op('log', 1, CALL, 'call', 'log', _why_log),
    'relu': Op('relu', 1, CALL, 'call', 'relu', _why_bounded),
    'sigmoid': Op('sigmoid', 1, CALL, 'call', 'sigmoid', _why_bounded),
    'sin': Op('sin', 1, CALL, 'call', 'sin', _why_bounded),
    'cos': Op('cos', 1, CALL, 'call', 'cos', _why_bounded),
}

# how tightly each operator a name or number can hold binds, in either writing; '**' is read before '*'
_BINDS = {'**': POWER, '*': PRODUCT, '×': PRODUCT, '/': PRODUCT, '÷': PRODUCT, '+': SUM, '-': SUM, '−': SUM}
MINUS = '-−'  # the formula's minus and the page's


def op_of(op):
    """The table's entry for an op name as Value writes it: '*', 'tanh', '**2'."""
    return OPS['**' if op.startswith('**') else op]


def exponent(op):
    """The exponent of a power, as its op name writes it: '**0.5' -> '0.5'."""
    return op[len(OPS['**'].text) :]


def symbol(op):
    """How the page shows an op: '×', '−x', 'x^2'."""
    entry = op_of(op)
    return entry.symbol.replace('n', exponent(op)) if entry is OPS['**'] else entry.symbol


def formula(op, args, pretty=False):
    """The op applied to named arguments: 'a+b', 'a-(b+c)', '(a+b)*c', '-(a*b)', '(a+b)**2', 'tanh(n)'.

    `pretty`: as the page writes it, with its own signs, spaced: 'a − (b+c)', '(a+b) × c', '−(a*b)', 'x1 × w1'.
    The arguments may be names or numbers ('−2.0000'); brackets go only where bracket() says they must.
    """
    entry = op_of(op)
    written = (entry.pretty or entry.text) if pretty else entry.text
    if entry.form == 'call':
        return f'{written}({args[0]})'
    if entry.form == 'prefix':
        return f'{written}{bracket(args[0], entry.precedence, after_operator=True)}'
    if entry.form == 'postfix':  # (a**2)**3 is not a**2**3, which is a**8
        return f'{bracket(args[0], entry.precedence + 1)}{written}{exponent(op)}'
    right = entry.precedence if entry.associative else entry.precedence + 1  # a-(b-c) is not a-b-c
    left, right = bracket(args[0], entry.precedence), bracket(args[1], right, after_operator=True)
    return f'{left} {written} {right}' if pretty else f'{left}{written}{right}'


INFIX = {'+': operator.add, '-': operator.sub, '*': operator.mul, '/': operator.truediv}  # an infix op's text


def apply(op, args):
    """The op applied to Values, as a formula writes it (formula): the method of a call, a**n for a power, -a, a*b."""
    entry = op_of(op)
    if entry.form == 'call':
        return getattr(args[0], entry.text)()
    if entry.form == 'prefix':
        return -args[0]
    if entry.form == 'postfix':
        return args[0] ** float(exponent(op))
    return INFIX[entry.text](*args)


def bracket(text, below, after_operator=False):
    """The name (or number) in brackets if it binds less tightly than `below` (binding()), or if it starts with a
    minus and comes `after_operator`: 'a*(-b)', '3.0000 × (−2.0000)', '-(-a)'.

    An operand of .grad or .data binds like a call: bracket(name, CALL) gives 'a', 'tanh(a)', '(a*b)'.
    """
    needs = binding(text) < below or (after_operator and text.lstrip()[:1] in MINUS)
    return f'({text})' if needs else text


@functools.lru_cache(maxsize=4096)  # a pure function of short texts, asked for each number each frame shows
def binding(text):
    """How tightly a name or a number holds together: the loosest operator in it outside brackets.

    'x1', '(a+b)', 'tanh(a*b)' and '1e-05' bind like a call, 'a**2' like a power, '-a' and '−2.0000' like a
    negation, 'a*b' and 'a × b' like a product, 'a+b' and 'x1*w1 + x2*w2' like a sum. A name is text a student
    may have typed: words side by side ('my value') read as a sum, and a stray bracket never raises.
    """
    loosest, depth, word, spaced, start = CALL, 0, '', False, True
    i = 0
    while i < len(text):
        ch = text[i]
        sign = '**' if text.startswith('**', i) else ch if ch in _BINDS else ''
        if sign and depth == 0 and not _exponent_sign(word, ch):
            if word:  # an operator between two operands
                loosest = min(loosest, _BINDS[sign])
            elif start and ch in MINUS:  # a leading minus; any later one is inside another operator's right side
                loosest = min(loosest, NEGATION)
            word, spaced, start = '', False, False
            i += len(sign)
            continue
        if ch == ' ' and depth == 0:
            spaced = bool(word)
        else:
            if spaced:  # two operands side by side
                loosest = min(loosest, SUM)
            depth = max(0, depth + (ch in '([') - (ch in ')]'))
            word, spaced, start = word + ch, False, False
        i += 1
    return loosest


def _exponent_sign(word, ch):
    """Whether ch, right after `word`, is the sign of a number's exponent: the - of 1.5e-05."""
    mantissa = word[:-1]
    is_number = any(c.isdigit() for c in mantissa) and not mantissa.strip('0123456789.')
    return ch in '+-' and word[-1:] in ('e', 'E') and is_number


def why_nonfinite(op, args):
    """Why `op` on inputs with data `args` gives inf or nan, in a student's words: 'log of a negative number'."""
    entry = op_of(op)
    n = float(exponent(op)) if entry is OPS['**'] else None
    return entry.why_nonfinite(tuple(args), n)
