"""Every op of engine/ops.py worked out once by hand, in plain math on floats: its result, its derivatives by
calculus, and the numbers its `_backward` holds. The tests of the ops read their cases here (test_value,
test_answers, test_held_numbers, test_check_at_any_size): adding an op (docs/adding-an-op.md) is one row."""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import ops


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


@dataclass(frozen=True)
class Hand:
    op: str  # the op's name as Value writes it: '*', 'tanh', and '**3' standing for every power
    of: Callable  # its result from x (and y, for a two-input op)
    dx: Callable  # ∂/∂x, from x and y
    dy: Callable | None = None  # ∂/∂y, for a two-input op
    # a number its _backward reads that its method worked out (tanh's t): name -> its value from x and y
    held: dict = field(default_factory=dict)

    @property
    def arity(self):
        return ops.op_of(self.op).arity

    def apply(self, *values):
        """The op on Values, as a formula writes it."""
        return ops.apply(self.op, list(values[: self.arity]))

    def formula(self, *names):
        """The op written on names: 'a/b', 'tanh(a)', 'a**3'."""
        return ops.formula(self.op, list(names[: self.arity]))


HANDS = [
    Hand('+', lambda x, y: x + y, lambda x, y: 1.0, lambda x, y: 1.0),
    Hand('-', lambda x, y: x - y, lambda x, y: 1.0, lambda x, y: -1.0),
    Hand('*', lambda x, y: x * y, lambda x, y: y, lambda x, y: x),
    Hand('/', lambda x, y: x / y, lambda x, y: 1 / y, lambda x, y: -x / y**2, held={'inv': lambda x, y: 1 / y}),
    Hand('neg', lambda x, y: -x, lambda x, y: -1.0),
    Hand('**3', lambda x, y: x**3, lambda x, y: 3 * x**2, held={'slope': lambda x, y: 3 * x**2}),
    Hand('tanh', lambda x, y: math.tanh(x), lambda x, y: 1 - math.tanh(x) ** 2, held={'t': lambda x, y: math.tanh(x)}),
    Hand('exp', lambda x, y: math.exp(x), lambda x, y: math.exp(x), held={'e': lambda x, y: math.exp(x)}),
    Hand('log', lambda x, y: math.log(x), lambda x, y: 1 / x, held={'inv': lambda x, y: 1 / x}),
    Hand('relu', lambda x, y: max(x, 0.0), lambda x, y: float(x > 0)),  # x = 0: the corner, where relu passes none
    Hand(
        'sigmoid',
        lambda x, y: sigmoid(x),
        lambda x, y: sigmoid(x) * (1 - sigmoid(x)),
        held={'s': lambda x, y: sigmoid(x)},
    ),
    Hand('sin', lambda x, y: math.sin(x), lambda x, y: math.cos(x)),
    Hand('cos', lambda x, y: math.cos(x), lambda x, y: -math.sin(x)),
]
BY_OP = {hand.op: hand for hand in HANDS}
