"""The legend is a key to the graph shown, in every mode: a row for each look its frames draw and for no other, and no
number of its own. And the `=` engine's lost contribution is marked in every shape the player may choose."""

import math
import re

import pytest

from engine import PRESETS, assign, parse_expression, trace_backward
from engine.bodies import checked
from engine.exercise import answer, yours
from engine.frames import frames
from view import bug, graph
from view.graph import SHAPES, build_dot, frame_looks, legend_html, legend_keys, lost, wrong_grads
from view.modes import MODES
from view.numbers import NOT_COMPUTED, number_width
from view.palette import (
    FINAL_FILL,
    HIDDEN_KEY,
    INK,
    KEYS,
    LOST_KEY,
    MARK_WIDTH,
    NOT_COMPUTED_KEY,
    SEED,
    TANGENT_KEYS,
    UNDEFINED,
    WRONG_FILL,
)
from view.patches import frame_patches

pytestmark = pytest.mark.filterwarnings('ignore::SyntaxWarning')
# a student's bodies (mode=code) that write with `=` in add and mul: a reused value loses a contribution there too
ASSIGNING_BODIES = {
    'add': 'self.grad = out.grad\nother.grad = out.grad',
    'mul': 'self.grad = other.data * out.grad\nother.grad = self.data * out.grad',
}
EXPRESSIONS = {**PRESETS, 'nan': parse_expression('log(a)*a + b')}
VALUES = {'nan': {'a': 0.0, 'b': -2.0}}  # log(0) × 0: nan


def traced(key, mode):
    """(the trace the mode shows, the right one beside it or None), as view/modes.py's engine says."""
    expression, values = EXPRESSIONS[key], VALUES.get(key)
    value_type = {'': None, 'assigns': assign.Value}.get(mode.engine)
    if mode.engine == 'bodies':
        value_type = yours(checked({'tanh': answer('tanh'), **ASSIGNING_BODIES}))
    leaves, out = expression.build(values, **({'value_type': value_type} if value_type else {}))
    trace = trace_backward(out, leaves)
    if not mode.engine:
        return trace, None
    leaves, out = expression.build(values)
    return trace, trace_backward(out, leaves)


def pass_of(trace, mode):
    """The frames the mode steps through: a quiz's ask, forward mode's carry the first input's tangents."""
    if mode.name == 'quiz':
        return frames(trace, ask=True, hide='new')
    if mode.tangents:
        return frames(trace, wrt=next(i for i, n in enumerate(trace.nodes) if n.is_input))
    return frames(trace)


CASES = [(key, mode) for key in EXPRESSIONS for mode in MODES]


@pytest.mark.parametrize(('key', 'mode'), CASES, ids=[f'{k}-{m.name}' for k, m in CASES])
def test_the_legend_has_a_row_for_each_look_the_frames_draw_and_for_no_other(key, mode):
    trace, right = traced(key, mode)
    steps = pass_of(trace, mode)
    width = number_width(trace)
    every_frame = mode.view is not None and mode.view.EVERY_FRAME
    keys = legend_keys(frame_patches(trace, steps, width, right=right, every_frame=every_frame), mode.tangents)
    # each frame drawn whole, as build_dot draws it: the looks the legend is a key to
    looks = [look for f in steps for look in frame_looks(trace, f, width, right)]
    texts = {text.strip() for look in looks for text in look[:2]}
    states, marks = {look[2] for look in looks}, {look[3] for look in looks}
    tangent = dict(zip(('none', 'final', 'seed', 'active', 'undefined'), TANGENT_KEYS)) if mode.tangents else {}
    assert (tangent.get('none', NOT_COMPUTED_KEY) in keys) == (NOT_COMPUTED in texts)
    assert (tangent.get('final', KEYS[FINAL_FILL]) in keys) == ('final' in states)
    assert (tangent.get('seed', KEYS[SEED]) in keys) == ('seed' in marks)
    assert (HIDDEN_KEY in keys) == (mode.name == 'quiz')  # its questions ask for grads: '?'
    # lost, and wrong, from the trace itself: a contribution an `=` threw away, a final grad += makes otherwise
    assert (LOST_KEY in keys) == any(lost(trace, f) for f in steps)
    if mode.engine == 'assigns':
        assert (KEYS[WRONG_FILL] in keys) == bool(wrong_grads(trace, right))
    elif not mode.engine:
        assert KEYS[WRONG_FILL] not in keys
    numbers = [n.data for n in trace.nodes] + [g for i in range(len(trace.nodes)) for _, g in trace.grad_history(i)]
    finite = all(math.isfinite(x) for x in numbers)
    assert (tangent.get('undefined', KEYS[UNDEFINED]) in keys) == (not finite) or mode.tangents
    shown = re.sub(r'<style>.*?</style>|<[^>]*>', '', legend_html(keys))  # its text, out of its tags
    assert not re.search(r'\d\.\d', shown), shown  # no made-up number: the graph's own are the samples


def test_the_reuse_graph_on_the_assigning_engine_keys_its_lost_and_wrong_grads_and_plus_equals_does_not():
    mode = {m.name: m for m in MODES}
    keys = {}
    for name in ('bug', 'watch'):
        trace, right = traced('reuse', mode[name])
        keys[name] = legend_keys(frame_patches(trace, frames(trace), number_width(trace), right=right))
    assert LOST_KEY in keys['bug'] and KEYS[WRONG_FILL] in keys['bug']
    assert LOST_KEY not in keys['watch'] and KEYS[WRONG_FILL] not in keys['watch']
    # a whole-pass file of the last frame alone: nothing is · there any more, nothing lost
    trace, right = traced('reuse', mode['bug'])
    steps = frames(trace)
    last = legend_keys(frame_patches(trace, steps, number_width(trace), right=right), at=[len(steps) - 1])
    assert NOT_COMPUTED_KEY not in last and LOST_KEY not in last and KEYS[WRONG_FILL] in last


def node_attrs(source, node_id):
    line = next(line for line in source.splitlines() if line.strip().startswith(f'{node_id} ['))
    return dict(re.findall(r'(\w+)=("[^"]*"|\S+)', re.sub(r'label=<.*</table>>', '', line)))


@pytest.mark.parametrize('key', [key for key in PRESETS if bug.reused(traced(key, MODES[0])[0])])
def test_a_grad_assign_wrote_over_is_marked_on_its_box_in_every_shape(key):
    trace, right = traced(key, next(m for m in MODES if m.engine == 'assigns'))
    width, seen = number_width(trace), 0
    patches = frame_patches(trace, frames(trace), width, right=right)
    for k, frame in enumerate(frames(trace)):
        children = {c.child for _, c in lost(trace, frame)}
        marked = {look[0] for look in patches[k]['v'] if look[4] == 'lost'}  # what the player draws
        assert marked == children, (key, k)  # the patch of a frame holds every box it changes
        for shape in SHAPES:
            source = build_dot(trace, frame, width, shape=shape).source
            for i in range(len(trace.nodes)):
                look = node_attrs(source, trace.nodes[i].id)
                dashed = look.get('style', '').strip('"').endswith(',dashed') and look.get('penwidth') == MARK_WIDTH
                assert (dashed and look.get('color', '').strip('"') == INK) == (i in children), (key, k, shape, i)
        seen += bool(children)
    assert seen  # a graph with a reused value loses a contribution on the `=` engine


def test_a_lost_mark_on_an_edge_label_shows_only_in_the_wide_shape_so_the_note_promises_the_box():
    trace, right = traced('reuse', next(m for m in MODES if m.engine == 'assigns'))
    frame = next(f for f in frames(trace) if lost(trace, f))
    for shape in SHAPES:
        source = build_dot(trace, frame, number_width(trace), shape=shape).source
        assert (graph.LOST_MARK in source) == (shape == 'wide'), shape
    assert 'thick dashed border' in bug.BUG_NOTE and 'where the edges carry their sums' in bug.BUG_NOTE
    assert LOST_KEY.line == 'dashed' and LOST_KEY.pen == MARK_WIDTH  # the legend's row, as the box is drawn
