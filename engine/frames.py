"""The frames the page steps through: the forward pass op by op, the seed, then each backward step; or, in forward
mode, the inputs and each op's data and tangent (engine/forward.py). Each with the grads it hides, worked out here
once."""

from dataclasses import dataclass, field, replace

from .forward import tangents

# which grads a frame shows as '?', for a class to work them out: none; the ones this frame's _backward writes
# (the next frame shows them); or every grad backward() computes (the seed's 1 is given)
HIDE = ('none', 'new', 'all')


@dataclass(frozen=True, slots=True)
class Frame:
    kind: str  # 'inputs', 'forward', 'seed', 'backward', or forward mode's 'tangent'
    node: int  # the node this frame is about: just computed, seeded, or whose _backward runs; -1 for none
    computed: int  # leaves always have their data; an op node i has it when i < computed
    steps_done: int  # backward steps done, counting this frame's; -1 before the seed
    ask: bool = False  # predict-the-grad: this step's new grads show '?', for the student to work out (the next
    # frame, the same step unasked, shows them)
    hide: str = 'none'  # the page's HIDE, which `hidden` is made from: hide=all also hides what earlier steps wrote
    # the nodes whose grad this frame shows as '?' (made by frames()); left out of the repr, which names the player's
    # body every run (its hide, kind and step say it already), so that hide=all does not repeat every node per frame
    hidden: frozenset = field(default=frozenset(), repr=False)
    # forward mode: the input whose tangent the frame carries (its node index); the box's second row is then each
    # value's tangent, not its grad. -1: the backward pass's frames
    wrt: int = -1

    def has_data(self, trace, i):
        return i < self.computed or not trace.nodes[i].op

    def unseen(self, k):
        """Whether no frame up to this one has shown what step k (from 0) wrote: any step with hide=all, this
        frame's own with hide=new (the next frame shows it)."""
        return self.hide == 'all' or (self.hide == 'new' and k == self.steps_done - 1)


def frames(trace, forward=True, leaves=True, ask=False, hide='none', wrt=-1):
    """All frames of a trace: with `forward`, first the inputs set and one frame per op computed. Without `leaves`,
    no frame for a leaf's _backward, which does nothing (backward() still calls it: micrograd's, and the default).
    With `ask`, each op's backward step comes twice: first asking for its new grads, then showing them (a leaf's
    step writes nothing, so it is never asked). Each frame carries what hiding `hide` (HIDE) shows as '?'.
    With `wrt` (a leaf's index), forward mode's frames instead: the inputs with their tangents, then one frame per
    op, its data and its tangent (tangent_frames)."""
    if wrt >= 0:
        return tangent_frames(trace, wrt, hide)
    n = len(trace.nodes)
    out = []
    if forward:
        out.append(Frame('inputs', -1, 0, -1))
        out += [Frame('forward', i, i + 1, -1) for i, node in enumerate(trace.nodes) if node.op]
    out.append(Frame('seed', n - 1, n, 0))
    nodes = trace.nodes
    for k, i in enumerate(range(n - 1, -1, -1), start=1):
        if ask and nodes[i].op:
            out.append(Frame('backward', i, n, k, ask=True))
        if leaves or nodes[i].op:
            out.append(Frame('backward', i, n, k))
    every = frozenset(range(n)) - {trace.output}  # hide=all's: one set for every frame
    return [replace(f, hide=hide, hidden=every if hide == 'all' else _written(trace, f, hide)) for f in out]


def tangent_frames(trace, wrt, hide='none'):
    """Forward mode's frames: the inputs set, each leaf's tangent given (1 for node wrt, 0 for the others), then each
    op in topological order computing its data and its tangent together. hide='new' shows each op's tangent as '?'
    at its own frame, hide='all' every op's (a leaf's is given, as the backward pass's seed is)."""
    ops = [i for i, node in enumerate(trace.nodes) if node.op]
    every = frozenset(ops) if hide == 'all' else frozenset()
    out = [Frame('inputs', -1, 0, -1, hide=hide, hidden=every, wrt=wrt)]
    for i in ops:
        hidden = every if hide == 'all' else frozenset({i}) if hide == 'new' else frozenset()
        out.append(Frame('tangent', i, i + 1, -1, hide=hide, hidden=hidden, wrt=wrt))
    return out


def clamp_frame(k, n_frames):
    """Frame k kept within the frames there are, 0..n_frames - 1: a frame from a link, a click or the browser."""
    return max(0, min(k, n_frames - 1))


def grads_at(trace, frame):
    """Each node's grad as the frame shows it: None where nothing has written it yet. In forward mode, each node's
    tangent instead, None where it is not computed yet (a leaf's is given from the start)."""
    if frame.wrt >= 0:
        known = tangents(trace, frame.wrt)
        return [t if frame.has_data(trace, i) else None for i, t in enumerate(known)]
    return trace.grads(frame.steps_done) if frame.steps_done >= 0 else [None] * len(trace.nodes)


def grad_at(trace, frame, i):
    """Node i's grad (in forward mode its tangent) as `frame` shows it: grads_at's for that node alone, without
    making the whole graph's."""
    if frame.wrt >= 0:
        return tangents(trace, frame.wrt)[i] if frame.has_data(trace, i) else None
    return trace.grad(i, frame.steps_done) if frame.steps_done >= 0 else None


def _written(trace, frame, hide):
    """The grads `frame`'s step writes, where it hides them: a question's, or each step's with hide=new."""
    if frame.ask or (hide == 'new' and frame.kind == 'backward'):
        return frozenset(c.child for c in trace.steps[frame.steps_done - 1].contributions)
    return frozenset()
