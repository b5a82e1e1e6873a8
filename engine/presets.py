"""The seed's build() and grads_of(), and the lecture's examples, each an Expression the page can show."""

import math
import sys
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from .value import Value, backward, topological_order

NEURON_B = 6.8813735870195432  # the lecture's bias: makes n = 0.8814, so o = tanh(n) = 0.7071


def build(expr, vals, n=10):
    """The seed's three expressions, as the page draws them: 'neuron', 'reuse', or 'chain' of length n.
    Returns (leaves, out), the leaves in the seed's order (x1 w1 x2 w2 b; a b; x w)."""
    expression = chain(n) if expr == 'chain' else PRESETS[expr]
    return expression.build(dict(zip(expression.defaults, vals)))


def grads_of(expr, vals, grad, n=10):
    leaves, out = build(expr, vals, n)
    backward(out)
    for i in range(len(leaves)):
        grad[i] = round(leaves[i].grad, 9)  # same digits in every language
    return grad


@dataclass(frozen=True)
class Expression:
    """Something the page can draw: named inputs with defaults, and how to build the graph from them."""

    title: str
    defaults: dict  # input name -> default value, in the order the page lists them
    make: Callable  # make(leaves: Leaves) -> the output Value, made with operators and methods on the leaves only
    lesson: str = ''  # one line on what this example teaches
    _: KW_ONLY
    # what the server's caches and the export files know the graph by, one per graph: a preset's name in PRESETS,
    # 'chain10' for chain(10), '=' and the text for a typed formula (no formula or preset name starts with '=')
    key: str
    menu: str = ''  # the picker's label, short enough for the sidebar; the page's heading gives the whole title
    # the inputs one step of learning updates (p.data += -lr * p.grad), in the order of `defaults`; the others are
    # data. Empty: the output is not a loss to learn, and the page offers no learning
    params: tuple = ()

    def build(self, values=None, value_type=Value):
        """(leaves, out): the input leaves in the order of `defaults`, and the output.

        value_type: the Value class to build with, engine/value.py's or engine/assign.py's (the `=` bug).
        """
        values = {**self.defaults, **(values or {})}
        leaves = Leaves({name: value_type(float(values[name]), label=name) for name in self.defaults}, value_type)
        out = self.make(leaves)
        return list(leaves.values()), out


class Leaves(dict):
    """The input leaves by name, and the class they are of: a constant a typed formula adds must be of it too,
    even where the formula has no leaves ('2*3'), so that a graph is all of one engine."""

    def __init__(self, leaves, value_type):
        super().__init__(leaves)
        self.value_type = value_type


def named(v, label):
    v.label = label
    return v


def _neuron(v):
    x1w1 = named(v['x1'] * v['w1'], 'x1*w1')
    x2w2 = named(v['x2'] * v['w2'], 'x2*w2')
    x1w1x2w2 = named(x1w1 + x2w2, 'x1*w1 + x2*w2')
    n = named(x1w1x2w2 + v['b'], 'n')
    return named(n.tanh(), 'o')


def _reuse(v):
    a, b = v['a'], v['b']
    return named(named(a * b, 'a*b') + named(a * a, 'a*a'), 'out')


def chain(n=10):
    """The seed's chain: tanh applied to out × w, n times over, starting from x."""

    def make(v):
        out, w = v['x'], v['w']
        for k in range(1, n + 1):
            out = named(named(out * w, f'z{k}').tanh(), f'h{k}')
        return out

    return Expression(
        f'chain: tanh(… tanh(x·w) … · w), {n} times',
        {'x': 0.5, 'w': 1.5},
        make,
        'The chain rule multiplies local gradients along a path: watch the grad shrink as it flows back.',
        key=f'chain{n}',
        menu='chain (the exercise)',
    )


def _lecture_L(v):
    e = named(v['a'] * v['b'], 'e')
    d = named(e + v['c'], 'd')
    return named(d * v['f'], 'L')


def _regression(v):
    pred = named(named(v['w'] * v['x'], 'w*x') + v['b'], 'pred')
    err = named(pred - v['y'], 'pred - y')
    return named(err**2, 'L')


def _mlp(v):
    x1, x2 = v['x1'], v['x2']
    hidden = []
    for j in (1, 2, 3):
        pre = named(x1 * v[f'w{j}1'] + x2 * v[f'w{j}2'] + v[f'b{j}'], f'n{j}')
        hidden.append(named(pre.tanh(), f'h{j}'))
    h1, h2, h3 = hidden
    y = named((h1 * v['v1'] + h2 * v['v2'] + h3 * v['v3'] + v['c']).tanh(), 'y')
    err = named(y - v['target'], 'y - target')
    return named(err**2, 'loss')


# hidden neuron j has weights wj1, wj2 and bias bj; the output neuron has weights v1..v3 and bias c
_MLP_DEFAULTS = {
    'x1': 2.0, 'x2': -1.0,
    'w11': 0.5, 'w12': -0.3, 'b1': 0.1,
    'w21': -0.4, 'w22': 0.8, 'b2': 0.2,
    'w31': 0.3, 'w32': 0.6, 'b3': -0.5,
    'v1': 0.7, 'v2': -0.6, 'v3': 0.4, 'c': 0.1,
    'target': 1.0,
}  # fmt: skip

PRESETS = {
    'neuron': Expression(
        'neuron: o = tanh(x1·w1 + x2·w2 + b)',
        {'x1': 2.0, 'w1': -3.0, 'x2': 0.0, 'w2': 1.0, 'b': NEURON_B},
        _neuron,
        'The lecture neuron: x2 = 0, so w2 gets no gradient, however much it matters elsewhere.',
        key='neuron',
        menu='neuron (the exercise)',
    ),
    'reuse': Expression(
        'reuse: a·b + a·a',
        {'a': 3.0, 'b': -2.0},
        _reuse,
        'a is used three times: its grad collects from every use, which is why _backward uses +=.',
        key='reuse',
        menu='reuse (the exercise)',
    ),
    'chain': chain(10),  # the page draws chain(n) of the length asked: its key says the length, 'chain10'
    'lecture': Expression(
        'lecture: L = (a·b + c) · f',
        {'a': 2.0, 'b': -3.0, 'c': 10.0, 'f': -2.0},
        _lecture_L,
        "Karpathy's first example, with his names: e = a·b, d = e + c, L = d · f.",
        key='lecture',
        menu='L = (a·b + c)·f',
    ),
    'a_plus_a': Expression(
        'pitfall: b = a + a',
        {'a': 3.0},
        lambda v: named(v['a'] + v['a'], 'b'),
        'With = instead of +=, the second use overwrites the first and a.grad comes out 1, not 2.',
        key='a_plus_a',
        menu='pitfall: b = a + a',
    ),
    'ab_times_a_plus_b': Expression(
        'pitfall: f = (a·b) · (a + b)',
        {'a': -2.0, 'b': 3.0},
        lambda v: named(named(v['a'] * v['b'], 'd') * named(v['a'] + v['b'], 'e'), 'f'),
        'a and b each reach f by two paths: their grads are the sums over both.',
        key='ab_times_a_plus_b',
        menu='pitfall: (a·b)·(a + b)',
    ),
    'regression': Expression(
        'regression: L = (w·x + b - y)², one data point',
        {'x': 1.5, 'y': 2.0, 'w': 0.5, 'b': 0.0},
        _regression,
        'A loss to learn: w and b are the parameters, x and y the data; a step moves w and b against their grads.',
        key='regression',
        menu='linear regression: learn w, b',
        params=('w', 'b'),
    ),
    'mlp': Expression(
        'tiny MLP: 2 inputs, 3 tanh neurons, 1 tanh output, squared error',
        _MLP_DEFAULTS,
        _mlp,
        'A larger graph: every weight gets its grad in one backward pass.',
        key='mlp',
        menu='tiny MLP with a loss',
        params=('w11', 'w12', 'b1', 'w21', 'w22', 'b2', 'w31', 'w32', 'b3', 'v1', 'v2', 'v3', 'c'),
    ),
}


class Difference(float):
    """A central finite difference, with what it knows of its own error: `error`, an estimate of how far it may be
    from the true slope (rounding's share, `rounding`, plus the step's), `size`, the largest value that moves with x
    in computing f (rounding is relative to it), `output`, the larger |f(x ± h)|; and where no step would do (the
    difference is nan), `corner`: whether a relu's corner was within ±2h of x (the slope jumps there)."""

    def __new__(cls, value, error=math.inf, rounding=math.inf, size=math.nan, output=math.nan, corner=False):
        self = super().__new__(cls, value)
        self.error, self.rounding, self.size, self.output, self.corner = error, rounding, size, output, corner
        return self


# The step for x: STEP × max(1, |x|). Rounding puts an error of about EPS × |f| in each f(x ± h), so EPS × |f| / h in
# the difference; the step's own error, the curve bending within ±h, is about |f'''| × h² / 6. Where f's derivatives
# are of the size of f over x's scale, the two add up to the least at h = cbrt(EPS) × that scale: the standard choice.
# Scaled to x, h is not lost against a large x (1e-6 is below the rounding of 1e12 = (1e6)²). A function's scale
# need not be x's (sin at 1e6, log near 0): h goes on down by tenths to STEP × min(1, |x|) (STEPS at most), and the
# difference kept is the one whose estimated error is the least for its size.
EPS = sys.float_info.epsilon
STEP = EPS ** (1 / 3)  # 6.06e-6
STEPS = 16


def numeric_grads(expression, values):
    """Central finite differences (f(x+h) - f(x-h)) / 2h for each input, each a Difference: a check that never runs
    backward.

    Never raises: where the output is inf or nan within ±2h of x at every step tried, the difference is nan. A
    missing value takes the expression's default.
    """
    values = {**expression.defaults, **values}
    return {name: _difference(expression, values, name) for name in expression.defaults}


def _difference(expression, values, name):
    """The difference for one input at the step whose estimated error is the least for its size: rounding's (EPS
    times the largest value that moves with x, over h) plus how far the differences at h/2 and 2h are from it (by
    Richardson's rule about 3/4 and 3 times the step's own error, and rounding's noise as it shows)."""
    x = float(values[name])

    def at(point):  # f there, the largest |value| that moves with x (an op on it), which side of 0 each relu is on
        leaves, out = expression.build({**values, name: point})
        moves, held, sides = {id(leaves[list(expression.defaults).index(name)])}, 0.0, []
        for v in topological_order(out):
            if any(id(child) in moves for child in v._prev):
                moves.add(id(v))
                held = max(held, abs(v.data))
            if v._op == 'relu':
                sides.append(v._prev[0].data > 0)
        return out.data, held, tuple(sides)

    def central(a, b):
        return (f[b] - f[a]) / (b - a)  # the step as floats have it: (x + h) - x need not be h

    best, key, corner, h = Difference(math.nan), math.inf, False, STEP * max(1.0, abs(x))
    for _ in range(STEPS):
        points = [x + k * h for k in (-2, -1, -0.5, 0.5, 1, 2)]
        if not all(a < b for a, b in zip(points, points[1:])):  # h is below x's rounding: no smaller step will do
            break
        f, held, sides = {}, 0.0, set()
        for p in points:  # a value that does not move with x rounds alike at every point: the difference is free of it
            f[p], most, side = at(p)
            held = max(held, most)
            sides.add(side)
        d = central(points[1], points[4])
        rounding = 2 * EPS * held / (points[4] - points[1])
        error = rounding + abs(d - central(points[0], points[5])) + abs(d - central(points[2], points[3]))
        bent = len(sides) > 1  # a relu's corner within ±2h: the slope jumps there, and no estimate of the error holds
        corner = corner or bent
        if not bent and math.isfinite(d) and math.isfinite(error) and error / max(abs(d), 1e-9) < key:
            key = error / max(abs(d), 1e-9)  # relative, down to the 9 decimals the exercise rounds to
            best = Difference(d, error, rounding, held, max(abs(f[points[1]]), abs(f[points[4]])))
        h /= 10
        if x == 0 or h < STEP * min(1.0, abs(x)) / 2:
            break
    return best if not math.isnan(best) else Difference(math.nan, corner=corner)
