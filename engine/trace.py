"""Runs the real backward pass and records it as plain data: the steps the page animates.

The trace calls each node's own `_backward` closure, the very code backward() runs; it does not
redo their math. To see each `+=` one at a time, it lets the nodes' grad reads and writes pass
through a watcher while the closures run (see _Watched).
"""

from dataclasses import dataclass, field

from .value import Value, topological_order


@dataclass(frozen=True, slots=True)
class Node:
    id: str  # a stable name for drawing: 'n0', 'n1', ... in forward order, never id()
    name: str  # the label, or the id where the value has none
    op: str  # the op that made it; '' for a leaf
    data: float
    children: tuple  # indices of its inputs, one per input slot: a*a has (i, i)
    is_input: bool  # a leaf the user sets, not a constant such as the 2 in 2*a


@dataclass(frozen=True, slots=True)
class Contribution:
    """One `child.grad += local_grad × out.grad` of a _backward call."""

    child: int  # node index
    slot: int  # which input of the op: 0 is self (the left), 1 is other
    amount: float  # what was added
    local_grad: float  # what the same line adds when out.grad is 1
    before: object  # the child's grad before, or None if nothing had written it yet
    after: float


@dataclass(frozen=True, slots=True)
class Step:
    """One _backward call: node's grad passed back to its inputs."""

    node: int
    out_grad: float
    contributions: tuple


@dataclass(frozen=True)
class Trace:
    nodes: tuple  # Node, in forward (topological) order; the output is last
    steps: tuple  # Step, one per _backward call, in reverse topological order
    backward_fns: tuple = field(repr=False, compare=False)  # each node's _backward, to show its code

    @property
    def output(self):
        return len(self.nodes) - 1

    def grads(self, steps_done):
        """Every node's grad after the seed out.grad = 1 and the first `steps_done` steps.

        None means "not computed": nothing has written that grad yet. Linear in the graph.
        """
        grads = [None] * len(self.nodes)
        grads[self.output] = 1.0
        for step in self.steps[:steps_done]:
            for c in step.contributions:
                grads[c.child] = c.after
        return grads

    def final_after(self):
        """For each node, how many steps must be done before its grad is final (0: at the seed)."""
        done = [0] * len(self.nodes)
        for k, step in enumerate(self.steps, start=1):
            for c in step.contributions:
                done[c.child] = k
        return done


class _Watched(Value):
    """A Value whose grad goes through a watcher, so the trace sees each `+=` of a real _backward.

    While a node's closure runs, its own grad reads as the watcher says and every other grad
    reads as 0.0, so `child.grad += x` writes exactly x: the amount that line adds. The trace then
    adds x to the child's grad itself, the same float sum `+=` would make.
    """

    @property
    def grad(self):
        return self._watcher.out_grad if self is self._watcher.out else 0.0

    @grad.setter
    def grad(self, x):
        self._watcher.writes.append((self, x))


class _Watcher:
    out = None
    out_grad = 0.0

    def __init__(self):
        self.writes = []

    def call(self, v, out_grad):
        """Run v._backward with v.grad reading out_grad; return the (child, amount) it wrote, in order."""
        self.out, self.out_grad, self.writes = v, out_grad, []
        v._backward()
        return self.writes


def trace_backward(out, inputs=()):
    """Run backward(out) and record every step. `inputs` are the leaves the user sets.

    Leaves the values with the same grads backward(out) would, to the last digit.
    """
    order = topological_order(out)
    index = {v: i for i, v in enumerate(order)}
    input_set = set(inputs)
    nodes = tuple(
        Node(f'n{i}', v.label or f'n{i}', v._op, v.data, tuple(index[c] for c in v._prev), v in input_set)
        for i, v in enumerate(order)
    )
    grads = [None] * len(order)
    grads[-1] = 1.0
    steps = []
    watcher = _Watcher()
    for v in order:
        v.__class__, v._watcher = _Watched, watcher
    try:
        for i in reversed(range(len(order))):
            v = order[i]
            local_grads = watcher.call(v, 1.0)  # what each line adds per unit of out.grad
            amounts = watcher.call(v, grads[i])
            contributions = []
            for slot, ((child, amount), (_, local)) in enumerate(zip(amounts, local_grads)):
                assert child is v._prev[slot], 'a _backward must write its inputs in the order of _prev'
                c = index[child]
                before = grads[c]
                grads[c] = (0.0 if before is None else before) + amount
                contributions.append(Contribution(c, slot, amount, local, before, grads[c]))
            steps.append(Step(i, grads[i], tuple(contributions)))
    finally:
        for v, g in zip(order, grads):
            v.__class__ = Value
            del v._watcher
            v.grad = 0.0 if g is None else g
    return Trace(nodes, tuple(steps), tuple(v._backward for v in order))
