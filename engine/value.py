"""The autograd core: a scalar Value that remembers what it was made from, and backward()."""

import math
import operator

# The rule every op keeps (the trace and the explanation rely on it, and tests/test_value.py checks it): its
# _backward has one `.grad +=` line per input, in _prev order, and nothing else writes a grad. Math other than
# + - * and negation goes through _ieee below, so inf and nan come out as numbers, never as exceptions.


class Value:
    """stores a single scalar value and its gradient"""

    grad_write = '+='  # how each _backward writes a grad; engine/assign.py's rewrite of this code, the `=` bug, has '='

    def __init__(self, data, children=(), op='', label=''):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(children)  # a tuple, not a set: a*a keeps both edges, in order
        self._backward = lambda: None
        self._op = op  # the op that made this value, '' for a leaf
        self.label = label  # a display name, e.g. 'x1'

    def __add__(self, other):
        other = as_value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = as_value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = _ieee(math.tanh, self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    # --- beyond the seed: the same four beats for every op ---

    def __sub__(self, other):
        other = as_value(other)
        out = Value(self.data - other.data, (self, other), '-')

        def _backward():
            self.grad += out.grad
            other.grad += -out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        out = Value(-self.data, (self,), 'neg')

        def _backward():
            self.grad += -out.grad

        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = as_value(other)
        inv = _div(1.0, other.data)  # 1/b: inf rather than an error at b = 0
        out = Value(_div(self.data, other.data), (self, other), '/')

        def _backward():
            self.grad += inv * out.grad
            other.grad += -out.data * inv * out.grad

        out._backward = _backward
        return out

    def __pow__(self, n):
        assert isinstance(n, (int, float)), 'the exponent must be a number'
        slope = 0.0 if n == 0 else n * _pow(self.data, n - 1)  # x**0 is 1 everywhere: not 0 * inf = nan at 0
        out = Value(_pow(self.data, n), (self,), f'**{n:g}')

        def _backward():
            self.grad += slope * out.grad

        out._backward = _backward
        return out

    def exp(self):
        e = _exp(self.data)
        out = Value(e, (self,), 'exp')

        def _backward():
            self.grad += e * out.grad

        out._backward = _backward
        return out

    def log(self):
        inv = _div(1.0, self.data)
        out = Value(_log(self.data), (self,), 'log')

        def _backward():
            self.grad += inv * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(_ieee(max, self.data, 0.0), (self,), 'relu')  # max(nan, 0.0) is nan: nan stays nan

        def _backward():
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = _ieee(_sigmoid, self.data)
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out

    def sin(self):
        out = Value(_ieee(math.sin, self.data), (self,), 'sin')  # math.sin(inf) raises: nan

        def _backward():
            self.grad += _ieee(math.cos, self.data) * out.grad

        out._backward = _backward
        return out

    def cos(self):
        out = Value(_ieee(math.cos, self.data), (self,), 'cos')

        def _backward():
            self.grad += -_ieee(math.sin, self.data) * out.grad

        out._backward = _backward
        return out

    # numbers on the left: 2 * a, 1 - a, ...
    def __radd__(self, other):  # other + self
        return as_value(other) + self

    def __rsub__(self, other):  # other - self
        return as_value(other) - self

    def __rmul__(self, other):  # other * self
        return as_value(other) * self

    def __rtruediv__(self, other):  # other / self
        return as_value(other) / self

    def __repr__(self):
        name = f'{self.label}: ' if self.label else ''
        return f'Value({name}data={self.data}, grad={self.grad})'

    def backward(self):
        """micrograd's `L.backward()`, so a student's notebook runs unchanged: the seed's `backward(L)`."""
        backward(self)


def as_value(x):
    """A number becomes a constant leaf; a Value stays itself."""
    if isinstance(x, Value):
        return x
    x = _float(x)
    return Value(x, label=f'{x:g}')


def topological_order(out):
    """Every value `out` depends on, each after everything it was made from.

    Iterative, so a chain of 10,000 steps does not hit Python's recursion limit
    (the seed's recursive visit fails near 1,000 levels).
    """
    order, seen = [], {out}
    stack = [(out, iter(out._prev))]
    while stack:
        v, children = stack[-1]
        for child in children:
            if child not in seen:
                seen.add(child)
                if not child._prev:  # a leaf has nothing to come before it
                    order.append(child)
                    continue
                stack.append((child, iter(child._prev)))
                break
        else:  # all of v's children are placed: v comes after them
            stack.pop()
            order.append(v)
    return order


def backward(out):
    order = topological_order(out)
    out.grad = 1.0
    for v in reversed(order):
        v._backward()


# Python raises where IEEE 754 floats give inf or nan. Every op's math but + - * and negation (which never
# raise on floats) goes through _ieee, so one rule holds for all: the page shows a number, never a traceback.
def _ieee(f, *args, pole=1.0):
    """f(*args) on floats: an overflow or a pole gives inf times `pole` (its sign, or nan), outside f's domain nan."""
    try:
        y = f(*map(_float, args))
    except (OverflowError, ZeroDivisionError):  # 1e200 ** 2, 0.0 ** -1, math.exp(1000)
        return pole * math.inf
    except ValueError:  # math.log(-1), math.sin(inf)
        return math.nan
    return math.nan if isinstance(y, complex) else y  # (-8.0) ** 0.5 is not real


def _float(x):
    """x as a float; an int too large for one (10 ** 400) is ±inf, as the float it stands for would be."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _div(a, b):
    a, b = _float(a), _float(b)
    # a/0 is inf with the signs of a and of the zero, as in IEEE; 0/0 and nan/0 are nan
    sign = math.copysign(1.0, a) * math.copysign(1.0, b)
    return _ieee(operator.truediv, a, b, pole=math.nan if a == 0 or a != a else sign)


def _pow(x, n):
    x, n = _float(x), _float(n)  # floats, so 10 ** 400 overflows to inf rather than making a 401-digit int
    # the infinity's sign: that of x for an odd power (-0.0 ** -1 is -inf); none where x < 0 has no real power
    if n.is_integer() and n % 2 == 1:
        pole = math.copysign(1.0, x)
    else:
        pole = math.nan if x < 0 and not n.is_integer() else 1.0
    return _ieee(operator.pow, x, n, pole=pole)


def _log(x):
    return -math.inf if x == 0 else _ieee(math.log, x)  # math.log(0) is a domain error; the limit is -inf


def _exp(x):
    return _ieee(math.exp, x)


def _sigmoid(x):
    # two forms, so that exp never overflows
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)
