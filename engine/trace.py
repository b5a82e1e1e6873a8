"""Runs the real backward pass and records it as plain data: the steps the page animates.

trace_backward() runs the very loop backward() runs, the same `_backward` closures, and notes
after each call the grads of that node's inputs: cheap, and linear in the graph. What each call
added, input by input (for a*a: twice into a), is worked out only when a step is asked for, by
running that closure's own code once more with stand-ins for its Values (see _replay).

It traces engine/value.py's graphs and those of engine/assign.py, the `=` bug, alike: there each write
replaces the grad rather than adding to it, and a contribution says which earlier one it threw away.
"""

import bisect
import functools
import itertools
import re
import types
from dataclasses import dataclass

from . import ops
from .code import INPUTS, grad_writes
from .ieee import same
from .ops import formula
from .value import topological_order


@dataclass(frozen=True, slots=True)
class Node:
    id: str  # a stable name for drawing: 'n0', 'n1', ... in forward order, never id()
    name: str  # the label; else its formula while short ('x1*w1', 'n1+c'); else an alias, n1, n2, ... (_aliases)
    op: str  # the op that made it; '' for a leaf
    data: float
    children: tuple  # indices of its inputs, one per input slot: a*a has (i, i)
    is_input: bool  # a leaf the user sets, not a constant such as the 2 in 2*a
    # an op node that computes again what an earlier one computes (a formula that types x*w + b twice builds it
    # twice, as Python does): that earlier node's index; else None
    copy_of: int | None = None


@dataclass(frozen=True, slots=True)
class Contribution:
    """One line of a _backward call, `child.grad += local_grad × out.grad` (under the `=` bug, `child.grad = ...`; a
    student's body may write `-=` too, or any number of lines: engine/sandbox.py)."""

    child: int  # node index
    slot: int  # which input of the op: 0 is self (the left), 1 is other
    amount: float  # what the line changed the grad by (under =, what it wrote; under -=, minus what it subtracted)
    local_grad: float  # the same, when out.grad is 1
    before: object  # the child's grad before, or None if nothing had written it yet
    after: float
    # under =, where `before` is not None: (k, j) of the contribution this write threw away, trace.steps[k]
    # .contributions[j] (k may be this step's own: a*a writes a twice); its amount is `before`. None under += and -=
    overwrote: tuple | None = None
    how: str = '+='  # how the line writes: '+=', '-=' or '='


@dataclass(frozen=True, slots=True)
class Step:
    """One _backward call: node's grad passed back to its inputs."""

    node: int
    out_grad: float
    contributions: tuple


class Trace:
    """What backward() did to a graph, step by step. Read-only once made; safe to share between threads."""

    def __init__(self, values, inputs, after):
        self._values = values  # the graph's Values in forward (topological) order, the output last
        self._inputs = inputs  # the leaves the user sets
        self._after = after  # _after[i]: node i's inputs' grads just after node i's _backward ran
        self._final = tuple(v.grad for v in values)

    @property
    def output(self):
        return len(self._values) - 1

    @functools.cached_property
    def nodes(self):
        """Node, in forward (topological) order; the output is last."""
        index, names, nodes = {}, [], []
        aliases = _aliases(self._values)
        first, same, taken = {}, [], set()  # what a value computes -> its first node; each node's first; the names
        for i, v in enumerate(self._values):
            index[v] = i
            children = tuple(index[c] for c in v._prev)
            formula_name = _apart(_formula_name(v._op, [names[c] for c in children]), taken)
            names.append(v.label or formula_name or next(aliases))
            taken.add(names[i])
            # an op over what its inputs compute; a constant by its label and number; any other leaf by its place
            computes = (v._op, *(same[c] for c in children)) if v._op else ('leaf', i)
            if not v._op and v.label and v not in self._inputs:
                computes = ('constant', str(v.label), v.data)
            same.append(first.setdefault(computes, i))
            copy_of = same[i] if v._op and same[i] != i else None
            nodes.append(Node(f'n{i}', names[i], v._op, v.data, children, v in self._inputs, copy_of))
        return tuple(nodes)

    @functools.cached_property
    def steps(self):
        """Step, one per _backward call, in reverse topological order; each is worked out when first read."""
        return _Steps(self)

    def backward_fn(self, i):
        """Node i's own _backward closure, to show its code."""
        return self._values[i]._backward

    def grads(self, steps_done):
        """Every node's grad after the seed out.grad = 1 and the first `steps_done` steps.

        None means "not computed": nothing has written that grad yet. Linear in the graph.
        """
        grads = [None] * len(self.nodes)
        grads[self.output] = 1.0
        for i in range(self.output, self.output - steps_done, -1):
            for child, grad in self._written(i):
                grads[child] = grad
        return grads

    def grad(self, i, steps_done):
        """Node i's grad after the seed and the first `steps_done` steps, as grads(steps_done)[i] has it, found among
        that node's own writes (a search, not a walk of the graph)."""
        return 1.0 if i == self.output else self._grad_before(i, steps_done)

    def _written(self, i):
        """[(child, its grad after)] for each input node i's _backward writes (every input, but in a student's body
        that leaves one out: engine/sandbox.py)."""
        slots = self._slots_written[i]
        return [(c, g) for slot, (c, g) in enumerate(zip(self.nodes[i].children, self._after[i])) if slot in slots]

    @functools.cached_property
    def _slots_written(self):
        """For each node, the input slots its _backward's lines write, read from its code (engine/code.py)."""
        return [frozenset(slot for slot, _, _ in grad_writes(v._backward)) if v._prev else () for v in self._values]

    def final_grads(self):
        return list(self._final)

    def final_after(self):
        """For each node, how many steps must be done before its grad is final (0: at the seed)."""
        return list(self._final_after)

    @functools.cached_property
    def _final_after(self):  # made once: each frame's explanation asks (most of a long chain's body's time)
        done = [0] * len(self.nodes)
        for k, i in enumerate(range(self.output, -1, -1), start=1):
            for child, _ in self._written(i):
                done[child] = k
        return done

    def grad_history(self, i):
        """[(k, grad)]: the steps that wrote node i's grad, in order, each with the grad it left."""
        return list(zip(*self._writes[i]))

    @functools.cached_property
    def _writes(self):
        """For each node, the steps that wrote its grad, in order, and the grad each left: ([k], [grad])."""
        writes = [([], []) for _ in self.nodes]
        for k, i in enumerate(range(self.output, -1, -1)):
            for child, grad in self._written(i):
                steps, grads = writes[child]
                if steps and steps[-1] == k:  # a*a: the step's last write is what it left
                    grads[-1] = grad
                else:
                    steps.append(k)
                    grads.append(grad)
        return writes

    def _grad_before(self, child, k):
        steps, grads = self._writes[child]
        j = bisect.bisect_left(steps, k)
        return grads[j - 1] if j else None

    def _step(self, k):
        i = self.output - k
        node = self.nodes[i]
        v = self._values[i]
        lines = grad_writes(v._backward)  # each write's input and how: the lines run in order, once each
        local_grads = _replay(v, 1.0)  # what each line adds per unit of out.grad
        amounts = _replay(v, self._final[i])
        grads = {child: self._grad_before(child, k) for child in node.children}
        last = {child: self._last_write(child, k) for child in node.children}  # (k, j) that left each grad
        contributions = []
        for j, ((slot, how, _), amount, local) in enumerate(zip(lines, amounts, local_grads, strict=True)):
            child = node.children[slot]
            before = grads[child]
            overwrote = None
            if how == '=':
                grads[child] = amount  # `=`: whatever was there is gone
                overwrote = None if before is None else last[child]
            else:
                grads[child] = (0.0 if before is None else before) + amount  # the float sum `+=` made
            last[child] = (k, j)
            contributions.append(
                Contribution(
                    child,
                    slot,
                    amount=amount,
                    local_grad=local,
                    before=before,
                    after=grads[child],
                    overwrote=overwrote,
                    how=how,
                )
            )
        replayed = all(same(grads[c], g) for c, g in self._written(i))
        assert replayed, 'a replay must write what the pass did'
        return Step(i, self._final[i], tuple(contributions))

    def _last_write(self, child, k):
        """(k', j) of the last write to child's grad before step k, the j-th line of step k', or None if none."""
        steps = self._writes[child][0]
        j = bisect.bisect_left(steps, k)
        if not j:
            return None
        node = self.nodes[self.output - steps[j - 1]]
        lines = grad_writes(self._values[self.output - steps[j - 1]]._backward)
        return steps[j - 1], max(n for n, (slot, _, _) in enumerate(lines) if node.children[slot] == child)


MAX_FORMULA_NAME = 16
ALIAS_LETTERS = 'nuvtsmkpqr'  # the first a graph's labels leave free names its unnamed values: n1, n2, ...
_NUMBERED = re.compile(r'([a-z])[0-9]+')  # a label such as n1: its letter is not free


def _formula_name(op, args):
    """A name for a value without a label: its formula over its inputs' names while that is short ('x1*w11',
    'n1+c'), else '' (a leaf without a label, or a formula too long to read: it gets an alias)."""
    if not op:
        return ''
    name = formula(op, args)
    return name if len(name) <= MAX_FORMULA_NAME else ''


REPEATS = '′″‴'  # the second, third and fourth value of one formula: (x*w)′, (x*w)″, (x*w)‴


def _apart(name, taken):
    """A formula's name where an earlier value already has it: the same formula typed again, computed again as Python
    does, marked with a prime on the whole, '(x*w)′', then '(x*w)″'; '' where the marks run out or the name grows too
    long (it gets an alias). `taken`: the names given so far."""
    if name not in taken:
        return name
    marked = (ops.bracket(name, ops.CALL) + mark for mark in REPEATS)
    return next((m for m in marked if m not in taken and len(m) <= MAX_FORMULA_NAME), '')


def _aliases(values):
    """The names of the values that have neither a label nor a short formula, in the order they are asked for:
    n1, n2, ... from the first of ALIAS_LETTERS that no label uses with a number (the MLP's n1..n3 are labels: u1,
    u2, ...). A name a student can read and write in a formula, unlike an index; never a label's.

    A generator: the labels are read when the first alias is asked for, and most graphs never ask.
    """
    taken = {str(v.label) for v in values if v.label}
    used = {m[1] for m in map(_NUMBERED.fullmatch, taken) if m}
    letter = next((p for p in ALIAS_LETTERS if p not in used), ALIAS_LETTERS[0])  # all used: its numbers still free
    for k in itertools.count(1):
        if f'{letter}{k}' not in taken:
            yield f'{letter}{k}'


class _Steps:
    """The steps of a trace as a read-only sequence, each made on first use."""

    def __init__(self, trace):
        self._trace = trace
        self._made = {}

    def __len__(self):
        return len(self._trace.nodes)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        if k not in self._made:
            self._made[k] = self._trace._step(k)
        return self._made[k]

    def __iter__(self):
        return (self[k] for k in range(len(self)))


def trace_backward(out, inputs=()):
    """Run backward(out), noting after each _backward call the grads it wrote. `inputs`: leaves the user sets.

    Leaves the Values with exactly the grads backward(out) gives them.
    """
    order = topological_order(out)
    after = [()] * len(order)
    out.grad = 1.0
    for i in range(len(order) - 1, -1, -1):  # the loop of backward(), in reverse topological order
        v = order[i]
        v._backward()
        if v._prev:
            after[i] = [child.grad for child in v._prev]
    return Trace(tuple(order), frozenset(inputs), after)


class _StandIn:
    """Stands in for a Value while a _backward's code is replayed: its grad reads as given, writes are recorded."""

    __slots__ = ('data', '_grad', '_writes')

    def __init__(self, value, grad, writes):
        self.data, self._grad, self._writes = value.data, grad, writes

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, new):
        self._writes.append(new)


def _replay(v, out_grad):
    """Run v._backward's own code once more, on stand-ins: what each of its lines writes, in order.

    Its output's grad reads as out_grad and every input's grad as 0.0, so `child.grad += x` records exactly x, as
    `child.grad = x` does (engine/assign.py), and `child.grad -= x` records -x. The closure's self, other and out
    are its cells of those names, each given a stand-in of its own (in a + a, self and other are one Value). The
    real Values are only read, so traces can be replayed from many threads at once.
    """
    fn = v._backward
    writes = []
    stand_ins = {'out': _StandIn(v, out_grad, writes)}
    stand_ins.update({name: _StandIn(x, 0.0, writes) for name, x in zip(INPUTS, v._prev)})
    cells = tuple(
        types.CellType(stand_ins.get(name, cell.cell_contents))
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())
    )
    types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, cells)()
    return writes
