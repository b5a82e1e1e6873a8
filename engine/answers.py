"""A number a student gives for a grad, read against the right one: right to 3 significant figures, or the mistake
that gives it (each mistake's value worked out from the trace, as the op's own code computes the grad).

A live class asks the whole room, at a backward step, for the grads it writes; candidates() says, for each, the
value each mistake gives, classify() which one an answer is (view/room_answers.py counts the room's)."""

import math
from dataclasses import dataclass

from .ops import CALL, OPS, bracket, op_of

SIGNIFICANT = 3  # an answer right to this many significant figures is right


def is_right(answer, truth):
    """Whether `answer` is `truth` to 3 significant figures: within half a unit of the third one (0.707 and 0.7071
    for 0.70710678, not 0.71). Nothing is 0 to 3 significant figures but 0 itself, give or take rounding."""
    if answer is None or not math.isfinite(answer):
        return False
    if truth == 0:
        return abs(answer) < 1e-9
    half_unit = 0.5 * 10 ** (math.floor(math.log10(abs(truth))) - (SIGNIFICANT - 1))
    return abs(answer - truth) <= half_unit * (1 + 1e-9)  # the margin: 0.7075 typed for 0.70745 is still right


@dataclass(frozen=True, slots=True)
class Group:
    label: str  # on the projector, in a line of counts: '6 forgot out.grad'
    says: str  # what the mistake is, in a student's words


# the groups an answer falls in, in the order an answer is read: the first whose value it is wins
GROUPS = {
    'right': Group('right', 'Right: the grad after this step'),
    'forgot': Group('forgot out.grad', 'Forgot out.grad: I added the local gradient alone'),
    'swapped': Group('swapped inputs', 'Swapped the inputs: my own data × out.grad, not the other input’s'),
    'local': Group('no local gradient', 'Left out the local gradient: I passed out.grad on as it was'),
    'out_data': Group('out.data for out.grad', 'Used out.data for out.grad: the local gradient × the node’s value'),
    'assign': Group('= for +=', 'Wrote = for +=: this step’s contribution alone, and what the grad held is lost'),
    'sign': Group('sign slip', 'A sign slip: I took the contribution away instead of adding it'),
    'other': Group('other', 'Something else'),
    'blank': Group('blank', 'No answer'),
}

# The mistakes each op's step is read for, after right, by engine/ops.py's entry: every op it defines. Any step can
# lose out.grad, a minus, or what += held; only × hands each input the *other* input's data, which can be swapped
# (for +, −, negation and the one-input ops there is nothing to swap; ÷'s two local gradients are not each other's).
# An op whose local gradient is a number of its own can lose it (tanh's 1 − t²); +, − and negation pass out.grad on
# as it is, or negated, where leaving the −1 out is the sign slip.
PASS_THROUGH = (OPS['+'], OPS['-'], OPS['neg'])
# Any step can scale by the node's own data where out.grad belongs (code mode's out_data slip, engine/diagnosis.py).
MISTAKES = {entry: ('forgot', 'local', 'out_data', 'assign', 'sign') for entry in OPS.values()}
MISTAKES.update({entry: ('forgot', 'out_data', 'assign', 'sign') for entry in PASS_THROUGH})
MISTAKES[OPS['*']] = ('forgot', 'swapped', 'local', 'out_data', 'assign', 'sign')


def candidates(trace, step):
    """For backward step `step` (an index into trace.steps: a frame's is frame.steps_done - 1), each grad it writes,
    once each (a*a writes a twice), as [{'node': '3', 'label': 'a.grad', 'candidates': [[group, value], ...]}]:
    the node's index as text, its grad as the page names it, and what the right answer and each mistake give.

    Every value is made from the numbers the op's own `_backward` used, as the trace recorded them line by line (the
    local gradient, out.grad, the amount added, the grad before): no derivative is written a second time here. For
    a node its lines write (both lines of a*a), with `before` what its grad held (0 if nothing had written it):

    - right: the grad after the step, what the last line left.
    - forgot: before + the local gradients alone, each line's `* out.grad` left out.
    - swapped (× only): before + the other line's amount, `self.grad += self.data * out.grad`: each input its own
      data. For a*a it is right, and dropped.
    - local (not +, −, negation): before + out.grad for each line, `self.grad += out.grad`: the local gradient left
      out (tanh's 1 − t²).
    - out_data: before + each line's local gradient × the node's own data, `out.data` where `out.grad` belongs.
    - assign: what `=` for `+=` leaves (engine/assign.py runs it): the last line's amount alone. It differs from right
      where the grad held something, and at a*a always: the second `a.grad = a.data * out.grad` throws the first
      away (a + a likewise).
    - sign: before − the contribution: the contribution with its sign slipped (a minus lost or gained in the local
      gradient, a negative data or out.grad), still added to what the grad held. Where the grad held nothing, the
      common case, that is minus the right answer, so it stands for both slips.

    A mistake is dropped where it gives the right answer to 3 significant figures, or an earlier group's (an answer
    is read as the first group it matches: with out.grad = 1, forgot is right); every value is finite (a grad that
    is nan or inf has no answer a student can type, right included). The trace is the `+=` engine's (value.py's).
    """
    s = trace.steps[step]
    node = trace.nodes[s.node]
    if not node.op:  # a leaf's step writes nothing
        return []
    amounts = {c.slot: c.amount for c in s.contributions}  # what each input's line added, by input
    mistakes = MISTAKES[op_of(node.op)]
    out = []
    for child in dict.fromkeys(node.children):
        lines = [c for c in s.contributions if c.child == child]
        before = 0.0 if lines[0].before is None else lines[0].before
        values = {
            'right': lines[-1].after,
            'forgot': before + sum(c.local_grad for c in lines),
            'local': before + s.out_grad * len(lines),
            'out_data': before + sum(c.local_grad for c in lines) * node.data,
            'assign': lines[-1].amount,
            'sign': before - sum(c.amount for c in lines),
        }
        if 'swapped' in mistakes:
            values['swapped'] = before + sum(amounts[1 - c.slot] for c in lines)
        kept = []
        for group in ('right', *mistakes) if math.isfinite(values['right']) else ():  # no right answer, no slips
            value = values[group]
            if math.isfinite(value) and not any(is_right(value, earlier) for _, earlier in kept):
                kept.append([group, value])
        # the grad as the page names it: view/worked.owner's brackets ('(a*b).grad')
        out.append({'node': str(child), 'label': f'{bracket(trace.nodes[child].name, CALL)}.grad', 'candidates': kept})
    return out


def classify(answer, candidates):
    """The group of `answer` (a number, or None): the first of `candidates` ([[group, value], ...], as candidates()
    gives them for one grad) whose value it is to 3 significant figures; 'blank' for no answer, else 'other'."""
    if answer is None:
        return 'blank'
    return next((group for group, value in candidates if is_right(answer, value)), 'other')
