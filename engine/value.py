"""The autograd core: a scalar Value that remembers what it was made from, and backward()."""

import math


class Value:
    """stores a single scalar value and its gradient"""

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
        t = math.tanh(self.data)
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
        inv = _div(1.0, other.data)  # 1/b, inf rather than an error at b = 0
        out = Value(_div(self.data, other.data), (self, other), '/')

        def _backward():
            self.grad += inv * out.grad
            other.grad += -out.data * inv * out.grad

        out._backward = _backward
        return out

    def __pow__(self, n):
        assert isinstance(n, (int, float)), 'the exponent must be a number'
        slope = n * _pow(self.data, n - 1)
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
        out = Value(max(self.data, 0.0), (self,), 'relu')

        def _backward():
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = _sigmoid(self.data)
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1 - s) * out.grad

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


def as_value(x):
    """A number becomes a constant leaf; a Value stays itself."""
    return x if isinstance(x, Value) else Value(float(x), label=f'{x:g}')


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


# Python raises where IEEE floats give inf or nan: the page shows the number instead of crashing.
def _div(a, b):
    try:
        return a / b
    except ZeroDivisionError:  # ±inf, or nan for 0/0
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)


def _pow(x, n):
    try:
        y = float(x) ** n  # a float, so 10 ** 400 overflows to inf rather than making a 401-digit int
    except OverflowError:  # 10.0 ** 400
        return math.inf
    except ZeroDivisionError:  # 0.0 ** -1
        return math.inf
    return math.nan if isinstance(y, complex) else y  # (-8.0) ** 0.5 is not real


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log(x):
    if x == 0:
        return -math.inf
    return math.log(x) if x > 0 else math.nan


def _sigmoid(x):
    # two forms, so that exp never overflows
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)
