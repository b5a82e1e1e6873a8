"""The player's patches: frame 0 whole, then for each frame only what changed on the graph."""

from engine.frames import grad_at
from view.graph import hot_edges, label_width, lost_edges, value_look
from view.numbers import HIDDEN, fmt


def frame_patches(trace, all_frames, width, right=None, every_frame=False):
    """Frame 0 whole, then for each frame only what changed: linear in the graph and the number of frames.

    A patch: 'v' [[node, data text, grad text, grad state, mark]], 'o' the op whose _backward runs (-1: none),
    'e' [['op_slot', edge label (its lines joined by a newline) or '']], 'a' the node the frame is about, and on
    the `=` engine 'x' ['op_slot'], the edges whose contribution this frame throws away, each drawn dashed in ink
    with the label it had, its amount marked lost (graph.lost_label).
    The grads each frame hides (frame.hidden) show '?'. With `right`, the right engine's trace of the same graph (the
    `+=` one beside the `=` one, or beside a student's bodies), a grad that is final and not `right`'s looks wrong,
    with `every_frame` one that is not `right`'s at any frame too (graph.value_look); and each look has a fifth
    text: `right`'s grad at the frame, for the node table's column beside the grad.
    """
    final_after = trace.final_after()
    local_width = label_width(trace, width)
    grads = [None] * len(trace.nodes)
    right_grads = [None] * len(trace.nodes)  # on the `+=` trace: the same graph, so the same steps write them
    looks, labels, patches = {}, {}, []
    previous = None

    def touched(frame):  # the nodes a frame marks or writes: the next frame may show them otherwise
        nodes = {frame.node, trace.output, frame.wrt} - {-1}  # forward mode's input is marked at the inputs
        return nodes | set(trace.nodes[frame.node].children) if frame.kind == 'backward' else nodes

    for frame in all_frames:
        if frame.wrt >= 0:  # forward mode: the leaves' tangents are given, each op's comes at its own frame
            for i in range(len(trace.nodes)) if frame.kind == 'inputs' else (frame.node,):
                grads[i] = grad_at(trace, frame, i)
        elif frame.kind == 'seed':
            grads[trace.output] = right_grads[trace.output] = 1.0
        elif frame.kind == 'backward':
            for c in trace.steps[frame.steps_done - 1].contributions:
                grads[c.child] = c.after
            for c in right.steps[frame.steps_done - 1].contributions if right is not None else ():
                right_grads[c.child] = c.after
        candidates = range(len(trace.nodes)) if previous is None else touched(previous) | touched(frame)
        changed = []
        for i in sorted(candidates):
            look = value_look(
                trace,
                frame,
                i=i,
                grads=grads,
                final_after=final_after,
                width=width,
                right=right,
                right_grads=right_grads if every_frame else None,
            )
            if right is not None:
                look += (HIDDEN if i in frame.hidden and right_grads[i] is not None else fmt(right_grads[i]),)
            if looks.get(i) != look:
                looks[i] = look
                changed.append([i, *look])
        hot = {f'{i}_{slot}': text for (i, slot), text in hot_edges(trace, frame, width, local_width).items()}
        lost = lost_edges(trace, frame, width, local_width)
        thrown = {f'{i}_{slot}': text for (i, slot), text in lost.items()}
        hot = hot | thrown  # an edge of this same step (a*a's first): its label as thrown away (graph.lost_label)
        edges = [
            [key, hot.get(key, '')] for key in sorted(set(labels) | set(hot)) if labels.get(key, '') != hot.get(key, '')
        ]
        labels = hot
        patches.append({'v': changed, 'o': frame.node if hot else -1, 'e': edges, 'a': frame.node})
        if thrown:
            patches[-1]['x'] = sorted(thrown)
        previous = frame
    return patches
