"""Every op the engine has, in one table: its symbol, how a formula writes it, and why it can give inf or nan.

The keys are the op names Value gives its results (Value._op); '**' stands for every power, whose op
name carries its exponent: '**2', '**0.5'. An op of form 'call' is the Value method of its name, and a typed
formula may call it (engine/parse.py reads this table).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

# how tightly an op binds in a formula: an argument that binds less tightly than its op goes in brackets
SUM, PRODUCT, NEGATION, POWER, CALL = 1, 2, 3, 4, 5

OVERFLOW = 'overflow past 1.8e308'  # the largest float is 1.7976931348623157e308


@dataclass(frozen=True, slots=True)
class Op:
    symbol: str  # on the page: '×', '−x', 'x^n' (n stands for the exponent)
    arity: int
    precedence: int  # SUM, PRODUCT, NEGATION, POWER or CALL
    form: str  # how a formula writes it: 'infix' a*b, 'prefix' -a, 'postfix' a**2, or 'call' tanh(a)
    text: str  # what a formula writes: '*', '-', '**', 'tanh'
    why_nonfinite: Callable  # (inputs' data, exponent or None) -> why the result is inf or nan, in a student's words
    associative: bool = False  # a+(b-c) is a+b-c: the right argument needs no brackets at the op's own precedence


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
    '-': Op('−', 2, SUM, 'infix', '-', _why_sub),
    '*': Op('×', 2, PRODUCT, 'infix', '*', _why_mul, associative=True),
    '/': Op('÷', 2, PRODUCT, 'infix', '/', _why_div),
    'neg': Op('−x', 1, NEGATION, 'prefix', '-', _why_bounded),
    '**': Op('x^n', 1, POWER, 'postfix', '**', _why_pow),
    'tanh': Op('tanh', 1, CALL, 'call', 'tanh', _why_bounded),
    'exp': Op('exp', 1, CALL, 'call', 'exp', _why_exp),
    'log': Op('log', 1, CALL, 'call', 'log', _why_log),
    'relu': Op('relu', 1, CALL, 'call', 'relu', _why_bounded),
    'sigmoid': Op('sigmoid', 1, CALL, 'call', 'sigmoid', _why_bounded),
    'sin': Op('sin', 1, CALL, 'call', 'sin', _why_bounded),
    'cos': Op('cos', 1, CALL, 'call', 'cos', _why_bounded),
}

# what the characters of a name stand for: a name is text, and a space in one ('x1*w1 + x2*w2') reads as a sum
_BINDS = {' ': SUM, '+': SUM, '-': SUM, '*': PRODUCT, '/': PRODUCT}


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


def formula(op, args):
    """The op applied to named arguments: 'a+b', 'a-(b+c)', '(a+b)*c', '-(a*b)', '(a+b)**2', 'tanh(n)'.

    Brackets go only where precedence needs them.
    """
    entry = op_of(op)
    if entry.form == 'call':
        return f'{entry.text}({args[0]})'
    if entry.form == 'prefix':
        return f'{entry.text}{_bracket(args[0], entry.precedence)}'
    if entry.form == 'postfix':
        return f'{_bracket(args[0], entry.precedence)}{entry.text}{exponent(op)}'
    right = entry.precedence if entry.associative else entry.precedence + 1  # a-(b-c) is not a-b-c
    return f'{_bracket(args[0], entry.precedence)}{entry.text}{_bracket(args[1], right)}'


def _bracket(name, below):
    """The name in brackets if it holds an op that binds less tightly than `below`."""
    return f'({name})' if any(_BINDS.get(ch, CALL) < below for ch in name) else name


def why_nonfinite(op, args):
    """Why `op` on inputs with data `args` gives inf or nan, in a student's words: 'log of a negative number'."""
    entry = op_of(op)
    n = float(exponent(op)) if entry is OPS['**'] else None
    return entry.why_nonfinite(tuple(args), n)
