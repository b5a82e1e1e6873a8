"""Where inf or nan first appears in a trace, and why, in a student's words."""

import math
from dataclasses import dataclass

from .ops import formula, why_nonfinite, word


@dataclass(frozen=True, slots=True)
class NonFinite:
    """The first number of a trace that is not finite: a node's data, or else a grad the backward pass made."""

    node: (
        int  # 'data': the first node, in forward order, whose data is not finite; 'grad': the node whose _backward ran
    )
    where: str  # 'data' or 'grad'
    reason: str  # why, in a student's words: 'log of a negative number'
    step: int | None = None  # 'grad': the index in trace.steps of that _backward call
    child: int | None = None  # 'grad': the input of `node` whose grad became inf or nan
    value: float = math.nan  # that data or grad

    def message(self, nodes):
        """One plain line about it, e.g. 'n = log(x) is nan: log of a negative number'. `nodes`: the trace's."""
        node = nodes[self.node]
        if self.where == 'grad':
            return (
                f'{_grad_of(nodes[self.child].name)} is {word(self.value)} after backward step {self.step + 1}, '
                f'where {node.name} passes its grad back: {self.reason}'
            )
        if not node.op:
            return self.reason
        written = formula(node.op, [nodes[c].name for c in node.children])
        name = written if node.name == written else f'{node.name} = {written}'
        return f'{name} is {word(self.value)}: {self.reason}'


def first_nonfinite(trace):
    """Where inf or nan first appears in the trace, as a NonFinite, or None if every data and grad is finite.

    Data first: the first node in forward order whose data is not finite (its inputs, made before it,
    all are). If all data is finite, the first step of the backward pass that leaves a grad not finite:
    a grad that is inf or nan stays so, as += cannot bring it back.
    """
    nodes = trace.nodes
    for i, node in enumerate(nodes):
        if not math.isfinite(node.data):
            return NonFinite(i, 'data', _why_data(nodes, i), value=node.data)
    firsts = [_first_nonfinite_write(trace, i) for i, grad in enumerate(trace.final_grads()) if not math.isfinite(grad)]
    firsts = [k for k in firsts if k is not None]
    if not firsts:
        return None
    k = min(firsts)
    step = trace.steps[k]
    c = next(c for c in step.contributions if not math.isfinite(c.after))
    return NonFinite(step.node, 'grad', _why_grad(nodes, step, c), step=k, child=c.child, value=c.after)


def _first_nonfinite_write(trace, i):
    """The first step that left node i's grad inf or nan, or None (the output's seed, 1, is no step)."""
    return next((k for k, grad in trace.grad_history(i) if not math.isfinite(grad)), None)


def _why_data(nodes, i):
    node = nodes[i]
    if not node.op:
        kind = 'input' if node.is_input else 'number'
        return f'the {kind} {node.name} is {word(node.data)}'
    return why_nonfinite(node.op, [nodes[c].data for c in node.children])


def _why_grad(nodes, step, c):
    """Why c, a contribution of the step, left a grad that is not finite: `child.grad += local × out.grad`."""
    node = nodes[step.node]
    if not math.isfinite(c.local_grad):
        inputs = dict.fromkeys(node.children)  # a*a: a once
        at = ', '.join(f'{nodes[j].name} = {word(nodes[j].data)}' for j in inputs)
        written = formula(node.op, [nodes[j].name for j in node.children])
        kind = 'infinite' if math.isinf(c.local_grad) else 'nan'
        reason = f'the local gradient of {written} at {at} is {kind}'
        if math.isinf(c.local_grad) and not math.isfinite(c.amount) and step.out_grad == 0:
            reason += f', and {why_nonfinite("*", [c.local_grad, step.out_grad])} is nan'
        return reason
    if not math.isfinite(c.amount):  # a finite local gradient times a finite grad
        product = [c.local_grad, step.out_grad]
        return f'{word(c.local_grad)} × {word(step.out_grad)}: {why_nonfinite("*", product)}'
    before = 0.0 if c.before is None else c.before
    return f'{word(before)} + {word(c.amount)}: {why_nonfinite("+", [before, c.amount])}'


def _grad_of(name):
    return f'({name}).grad' if any(ch in name for ch in ' +-*/') else f'{name}.grad'
