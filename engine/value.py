"""The autograd core: a scalar Value that remembers what it was made from, and backward()."""

from engine import ieee as math  # Python's math, with inf and nan where it raises: the page shows numbers
from engine.ieee import as_float

# The rule every op keeps (the trace and the explanation rely on it, and tests/unit/test_value.py checks it): its
# _backward has one `.grad +=` line per input, in _prev order, and nothing else writes a grad. Its math is
# engine/ieee.py's, and + - * and negation never raise on floats, so inf and nan come out as numbers.


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
        inv = math.pow(other.data, -1)  # 1/b, as micrograd's a / b is a * b**-1
        out = Value(self.data * inv, (self, other), '/')

        def _backward():
            self.grad += inv * out.grad
            other.grad += -out.data * inv * out.grad

        out._backward = _backward
        return out

    def __pow__(self, n):
        assert isinstance(n, (int, float)), 'the exponent must be a number'
        slope = 0.0 if n == 0 else n * math.pow(self.data, n - 1)  # x**0 is 1 everywhere: not 0 * inf = nan at 0
        out = Value(math.pow(self.data, n), (self,), f'**{n:g}')

        def _backward():
            self.grad += slope * out.grad

        out._backward = _backward
        return out

    def exp(self):
        e = math.exp(self.data)
        out = Value(e, (self,), 'exp')

        def _backward():
            self.grad += e * out.grad

        out._backward = _backward
        return out

    def log(self):
        inv = math.pow(self.data, -1)
        out = Value(math.log(self.data), (self,), 'log')

        def _backward():
            self.grad += inv * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(self.data, 0.0), (self,), 'relu')  # max(nan, 0.0) is nan: nan stays nan

        def _backward():
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.data))
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out

    def sin(self):
        out = Value(math.sin(self.data), (self,), 'sin')

        def _backward():
            self.grad += math.cos(self.data) * out.grad

        out._backward = _backward
        return out

    def cos(self):
        out = Value(math.cos(self.data), (self,), 'cos')

        def _backward():
            self.grad += -math.sin(self.data) * out.grad

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
    x = as_float(x)
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
