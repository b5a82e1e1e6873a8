"""Python's math, as IEEE 754 floats have it: inf and nan where math raises. engine/value.py imports it as `math`,
so that its ops read like micrograd's (`t = math.tanh(self.data)`) and the page shows a number, never a traceback.

Only what the ops use is here; each gives a float, as math's functions do.
"""

import math
import operator

inf, nan = math.inf, math.nan


def as_float(x):
    """x as a float; an int too large for one (10 ** 400) is ±inf, as the float it stands for would be."""
    try:
        return float(x)
    except OverflowError:
        return inf if x > 0 else -inf


def same(a, b):
    """The same float, where nan is the same as nan (a nan from the same steps is the same result); else ==, so 0.0
    and -0.0 are the same. None (a grad not computed) is the same only as None."""
    return a == b or (a != a and b != b)


def same_grad(a, b):
    """same() for two engines' grads of one node at one frame, where a grad never written (None) is the 0.0 a Value's
    grad starts at: a student's `pass` that leaves w2.grad at 0 where the right engine adds 0 is the same number."""
    return same(0.0 if a is None else a, 0.0 if b is None else b)


def _ieee(f, *args, pole=1.0):
    """f(*args) on floats: an overflow or a pole gives inf times `pole` (its sign, or nan); outside f's domain, nan."""
    try:
        y = f(*map(as_float, args))
    except (OverflowError, ZeroDivisionError):  # 1e200 ** 2, 0.0 ** -1, math.exp(1000)
        return pole * inf
    except ValueError:  # math.log(-1), math.sin(inf)
        return nan
    return nan if isinstance(y, complex) else y  # (-8.0) ** 0.5 is not real


def tanh(x):
    return _ieee(math.tanh, x)


def exp(x):
    return _ieee(math.exp, x)


def log(x):
    return -inf if x == 0 else _ieee(math.log, x)  # math.log(0) is a domain error; the limit is -inf


def sin(x):
    return _ieee(math.sin, x)  # math.sin(inf) raises: nan


def cos(x):
    return _ieee(math.cos, x)


def pow(x, n):
    """x to the power n; at a pole (0 to a negative power) inf with the sign of x for an odd power: pow(-0.0, -1) is
    -inf; none where x < 0 has no real power."""
    x, n = as_float(x), as_float(n)  # floats, so 10 ** 400 overflows to inf rather than making a 401-digit int
    if n.is_integer() and n % 2 == 1:
        pole = math.copysign(1.0, x)
    else:
        pole = nan if x < 0 and not n.is_integer() else 1.0
    return _ieee(operator.pow, x, n, pole=pole)
