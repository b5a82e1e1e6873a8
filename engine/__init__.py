"""A micrograd-style autograd engine that records its backward pass step by step. Pure Python."""

from . import (
    assign,  # the `=` bug: value.py's code with = for += in every _backward, for the page to run
    exercise,
    local_grads,  # microgpt's form: each op's local_grads tuple, one loop in backward()
)
from .bodies import checked  # a student's bodies as typed, each a sandbox.Body or one the sandbox refuses, waiting
from .nonfinite import NonFinite, first_nonfinite
from .ops import OPS, Op
from .parse import MAX_DEPTH, MAX_LENGTH, MAX_NODES, ExpressionError, parse_expression
from .presets import PRESETS, Expression, build, chain, grads_of, numeric_grads
from .trace import Contribution, Node, Step, Trace, trace_backward
from .value import Value, backward, topological_order

# the engines a trace runs on, by name (view/modes.py's Mode.engine, engine/forms.py's Form.engine): each gives its
# Value class, from the student's `_backward` bodies or local_grads tuples ((name, text), ...) where it runs them, as
# typed (one the sandbox refuses waits: engine/bodies.py)
ENGINES = {
    '': lambda bodies: Value,
    'assigns': lambda bodies: assign.Value,
    'bodies': lambda bodies: exercise.yours(checked(bodies)),
    'grads': lambda grads: local_grads.yours(local_grads.checked(grads)),  # microgpt's: a local_grads tuple per op
}

__all__ = [
    'Value', 'backward', 'topological_order', 'build', 'grads_of', 'chain', 'Expression', 'PRESETS', 'numeric_grads',
    'Trace', 'Node', 'Step', 'Contribution', 'trace_backward',
    'parse_expression', 'ExpressionError', 'MAX_LENGTH', 'MAX_NODES', 'MAX_DEPTH',
    'OPS', 'Op', 'NonFinite', 'first_nonfinite', 'assign', 'ENGINES',
]  # fmt: skip
