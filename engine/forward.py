"""Forward mode: the derivative of every value with respect to one input, carried forward beside the data.

Each value's tangent is ∂value/∂x for the chosen input x: x's own is 1, every other leaf's 0, and an op's is the sum,
over its inputs, of its local gradient for that input × that input's tangent. The local gradients are the ones its
`_backward` passes back (a trace's contributions, worked out by running the op's own code): the same numbers the
backward pass multiplies by out.grad, here multiplied by the tangent coming in. One forward pass gives one input's
derivative; the backward pass gives every input's at once. Pure Python, read from a trace (engine/trace.py).
"""

import functools
import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Term:
    """One input's share of an op's tangent: local gradient × the tangent coming in."""

    slot: int  # which input of the op: 0 is self, 1 is other
    child: int  # node index of that input
    local_grad: float  # ∂out/∂input, from the op's _backward
    tangent_in: float  # ∂input/∂x
    amount: float  # local_grad × tangent_in


@functools.lru_cache(maxsize=16)  # a trace is read-only: the frames, the explanations and the exports ask again
def tangents(trace, wrt):
    """Each node's tangent ∂node/∂(node wrt), in forward order."""
    out = []
    for i, node in enumerate(trace.nodes):
        if not node.op:
            out.append(1.0 if i == wrt else 0.0)
        else:
            out.append(_summed(_terms(trace, i, out)))
    return tuple(out)


def terms(trace, wrt, i):
    """Op node i's tangent as its terms (Term), one per line of its `_backward`."""
    return _terms(trace, i, tangents(trace, wrt))


def _terms(trace, i, known):
    step = trace.steps[trace.output - i]  # node i's _backward: its contributions' local gradients
    return [Term(c.slot, c.child, c.local_grad, known[c.child], c.local_grad * known[c.child])
            for c in step.contributions]  # fmt: skip


def _summed(terms):
    total = 0.0  # the terms added in the order the op's lines write them, as += adds the backward pass's
    for t in terms:
        total += t.amount
    return total


@dataclass(frozen=True)
class Counts:
    """What getting every grad costs each way, on one graph (view/forward.costs). Reverse mode runs the forward pass
    once, computing every op's data and keeping every value's for the backward pass, which makes one local-gradient
    multiplication an edge; forward mode runs a pass per input, each computing every op's data again and making one
    multiplication an edge, and keeps nothing for a later pass."""

    inputs: int  # the leaves a user sets
    edges: int  # an op's inputs, summed over the ops
    ops: int = 0  # the values an op computes: a forward pass computes each one's data once
    values: int = 0  # every value, leaves and ops: what reverse mode keeps from its forward pass for its backward pass


def counts(trace):
    edges = sum(len(node.children) for node in trace.nodes if node.op)
    return Counts(inputs=sum(node.is_input for node in trace.nodes), edges=edges,
                  ops=sum(bool(node.op) for node in trace.nodes), values=len(trace.nodes))  # fmt: skip


@dataclass(frozen=True)
class Path:
    """One way from the input to the output: the values it goes through, and each op's local gradient on the way."""

    nodes: tuple  # node indices, the input first, the output last
    local_grads: tuple  # one per step along it: ∂nodes[k+1]/∂nodes[k] through that use
    slots: tuple  # one per step along it: which input of nodes[k+1] the path enters by (a*a: 0 or 1)

    @property
    def product(self):
        return math.prod(self.local_grads)


@dataclass(frozen=True)
class Paths:
    shown: tuple  # Path, at most the cap asked for, in the order a depth-first walk from the input finds them
    count: int  # every path from the input to the output


def paths(trace, wrt, cap):
    """The paths from node wrt to the output, the first `cap` of them written out, and how many there are in all
    (counted without writing them out: a deep graph has more than can be listed). Each use of a value is a path of
    its own: in a·b + a·a, a reaches the output three ways."""
    uses = [[] for _ in trace.nodes]  # for each value: (the op that uses it, the slot, that use's local gradient)
    for i, node in enumerate(trace.nodes):
        if node.op:
            for c in trace.steps[trace.output - i].contributions:
                uses[c.child].append((i, c.slot, c.local_grad))
    ways = [0] * len(trace.nodes)  # the paths from wrt to each value
    ways[wrt] = 1
    for i, node in enumerate(trace.nodes):
        if node.op:
            ways[i] = sum(ways[c] for c in node.children)
    shown = []
    walk = [((wrt,), (), ())]  # depth first, each use in the order the ops come in the forward pass
    while walk and len(shown) < cap:
        nodes, grads, slots = walk.pop()
        if nodes[-1] == trace.output:
            shown.append(Path(nodes, grads, slots))
            continue
        walk.extend((nodes + (op,), grads + (g,), slots + (slot,)) for op, slot, g in reversed(uses[nodes[-1]]))
    return Paths(tuple(shown), ways[trace.output])
