"""The frames the page steps through (engine/frames.py): the inputs, one frame per op of the forward pass, the
seed, then one frame per _backward call; what each frame shows computed, and which grads it hides.

Orders and numbers are worked out by hand. The topological order is micrograd's: a depth-first walk that puts
each value after its inputs, in _prev order, so reuse (out = a*b + a*a) is a, b, a*b, a*a, out, and the neuron
is x1, w1, x1*w1, x2, w2, x2*w2, x1*w1 + x2*w2, b, n, o. The backward pass runs it in reverse.
"""

import dataclasses

import pytest

from engine import ENGINES, PRESETS, Value, exercise, parse_expression, trace_backward
from engine.frames import HIDE, Frame, frames, grad_at, grads_at

A, B, AB, AA, OUT = range(5)  # reuse's nodes
X1, W1, X1W1, X2, W2, X2W2, SUM, BIAS, N, OUTPUT = range(10)  # the neuron's


def traced(expression, values=None):
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


@pytest.fixture(scope='module')
def reuse():
    return traced(PRESETS['reuse'])  # a = 3, b = -2


@pytest.fixture(scope='module')
def neuron():
    return traced(PRESETS['neuron'])  # x1 = 2, w1 = -3, x2 = 0, w2 = 1, b = 6.8813735870195432


# --- the frames, in order ------------------------------------------------------------------------------------


def test_the_topological_orders_the_frames_below_assume(reuse, neuron):
    assert [n.name for n in reuse.nodes] == ['a', 'b', 'a*b', 'a*a', 'out']
    assert [n.name for n in neuron.nodes] == ['x1', 'w1', 'x1*w1', 'x2', 'w2', 'x2*w2', 'x1*w1 + x2*w2', 'b', 'n', 'o']


def test_reuse_frames_are_the_inputs_each_op_the_seed_and_each_backward_step(reuse):
    assert frames(reuse) == [
        Frame('inputs', -1, 0, -1),  # the leaves have their data; no op has
        Frame('forward', AB, AB + 1, -1),  # a*b computed
        Frame('forward', AA, AA + 1, -1),
        Frame('forward', OUT, OUT + 1, -1),
        Frame('seed', OUT, 5, 0),  # out.grad = 1, no step done yet
        Frame('backward', OUT, 5, 1),  # out's _backward: a*b and a*a get 1
        Frame('backward', AA, 5, 2),  # a*a's: a gets 3, twice
        Frame('backward', AB, 5, 3),  # a*b's: a gets -2, b gets 3
        Frame('backward', B, 5, 4),  # a leaf's _backward does nothing, but it is called: a frame
        Frame('backward', A, 5, 5),
    ]


def test_the_neurons_frames_go_forward_op_by_op_then_back_node_by_node(neuron):
    forward = [Frame('forward', i, i + 1, -1) for i in (X1W1, X2W2, SUM, N, OUTPUT)]
    backward = [
        Frame('backward', i, 10, k) for k, i in enumerate((OUTPUT, N, BIAS, SUM, X2W2, W2, X2, X1W1, W1, X1), 1)
    ]
    assert frames(neuron) == [Frame('inputs', -1, 0, -1), *forward, Frame('seed', OUTPUT, 10, 0), *backward]
    assert len(frames(neuron)) == 17  # 1 + 5 ops + the seed + 10 nodes


def test_without_the_forward_pass_the_frames_start_at_the_seed(reuse):
    assert frames(reuse, forward=False) == [
        Frame('seed', OUT, 5, 0),
        *(Frame('backward', i, 5, k) for k, i in enumerate((OUT, AA, AB, B, A), 1)),
    ]
    assert frames(reuse, forward=False) == frames(reuse)[4:]


def test_a_lone_value_has_no_forward_frame():
    a = Value(2.0, label='a')
    assert frames(trace_backward(a, [a])) == [
        Frame('inputs', -1, 0, -1),
        Frame('seed', 0, 1, 0),
        Frame('backward', 0, 1, 1),
    ]


def test_a_frame_is_a_value_that_cannot_change():
    frame = Frame('seed', 4, 5, 0)
    assert frame == Frame('seed', 4, 5, 0) and hash(frame) == hash(Frame('seed', 4, 5, 0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        frame.node = 3


# --- has_data ------------------------------------------------------------------------------------------------


def test_has_data_leaves_always_ops_once_computed(neuron):
    all_frames = frames(neuron)
    with_data = [{i for i in range(10) if f.has_data(neuron, i)} for f in all_frames]
    leaves = {X1, W1, X2, W2, BIAS}
    assert with_data[0] == leaves  # the inputs frame
    assert with_data[1] == leaves | {X1W1}
    assert with_data[2] == leaves | {X1W1, X2W2}
    assert with_data[3] == leaves | {X1W1, X2W2, SUM}  # b, node 7, is a leaf: it had its data all along
    assert with_data[4] == leaves | {X1W1, X2W2, SUM, N}
    assert all(found == set(range(10)) for found in with_data[5:])  # o computed, then the seed and the steps


def test_a_constant_has_its_data_from_the_first_frame():
    trace = traced(parse_expression('2*a'))
    (constant,) = [i for i, node in enumerate(trace.nodes) if not node.op and not node.is_input]
    assert trace.nodes[constant].data == 2.0
    assert frames(trace)[0].has_data(trace, constant)
    assert not frames(trace)[0].has_data(trace, trace.output)


# --- grads_at ------------------------------------------------------------------------------------------------


def test_reuse_grads_frame_by_frame(reuse):
    # a = 3, b = -2. out's step: 1 into a*b and a*a; a*a's: a += 3 × 1 twice, 6; a*b's: a += -2 → 4, b += 3
    nothing = [None] * 5
    assert [grads_at(reuse, f) for f in frames(reuse)] == [
        nothing, nothing, nothing, nothing,  # the inputs and the forward frames: no grad yet
        [None, None, None, None, 1.0],  # the seed
        [None, None, 1.0, 1.0, 1.0],
        [6.0, None, 1.0, 1.0, 1.0],
        [4.0, 3.0, 1.0, 1.0, 1.0],
        [4.0, 3.0, 1.0, 1.0, 1.0],  # the leaves' steps change nothing
        [4.0, 3.0, 1.0, 1.0, 1.0],
    ]  # fmt: skip


def test_the_neurons_grads_at_its_last_frame_are_the_lectures(neuron):
    # o = tanh(n) = 0.7071, do/dn = 1 - o² = 0.5; + passes 0.5 on; x1.grad = w1 × 0.5 = -1.5, w1.grad = x1 × 0.5 = 1,
    # x2.grad = w2 × 0.5 = 0.5, w2.grad = x2 × 0.5 = 0
    last = grads_at(neuron, frames(neuron)[-1])
    assert last == pytest.approx([-1.5, 1.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.5, 0.5, 1.0])
    at_x1w1 = grads_at(neuron, frames(neuron)[14])  # x1*w1's step: the frame the presentation docs show
    assert at_x1w1[X1] == pytest.approx(-1.5) and at_x1w1[X2] == pytest.approx(0.5)
    assert grads_at(neuron, frames(neuron)[13])[X1] is None  # not yet written the frame before


# --- what each frame hides, carried as data ------------------------------------------------------------------


def test_the_three_ways_of_hiding():
    assert HIDE == ('none', 'new', 'all')


def test_hiding_nothing_hides_nothing(reuse):
    assert all(f.hidden == frozenset() and f.hide == 'none' for f in frames(reuse))
    assert frames(reuse, hide='none') == frames(reuse)  # the default


def test_hiding_all_hides_every_grad_but_the_seeds(reuse):
    assert all(f.hidden == {A, B, AB, AA} and f.hide == 'all' for f in frames(reuse, hide='all'))


def test_hiding_the_new_grads_hides_what_this_frames_backward_writes(reuse):
    assert [f.hidden for f in frames(reuse, hide='new')] == [
        set(), set(), set(), set(), set(),  # inputs, forward, seed: no _backward runs
        {AB, AA},  # out's step writes both its inputs
        {A},  # a*a writes a, twice
        {A, B},
        set(), set(),  # a leaf's step writes nothing
    ]  # fmt: skip


def test_hiding_changes_nothing_but_what_is_hidden(reuse):
    for hide in HIDE:
        unhidden = [dataclasses.replace(f, hide='none', hidden=frozenset()) for f in frames(reuse, hide=hide)]
        assert unhidden == frames(reuse)


def test_what_a_step_has_shown_by_each_frame(reuse):
    # out's step is step 0, a*a's 1, a*b's 2: with hide=new only a frame's own step is unseen, with hide=all every one
    at_ab = {hide: frames(reuse, hide=hide)[7] for hide in HIDE}  # a*b's step, steps_done 3
    assert [at_ab['none'].unseen(k) for k in range(3)] == [False, False, False]
    assert [at_ab['new'].unseen(k) for k in range(3)] == [False, False, True]
    assert [at_ab['all'].unseen(k) for k in range(3)] == [True, True, True]


# --- skipping the leaves' frames (issue 11): their _backward does nothing ----------------------------------------


def test_without_leaves_the_backward_pass_has_a_frame_per_op_only(neuron):
    # the neuron's backward order is o, n, b, x1*w1 + x2*w2, x2*w2, w2, x2, x1*w1, w1, x1: steps 1..10, leaves at
    # steps 3 (b), 6 (w2), 7 (x2), 9 (w1) and 10 (x1)
    backward = [f for f in frames(neuron, leaves=False) if f.kind == 'backward']
    assert [f.node for f in backward] == [OUTPUT, N, SUM, X2W2, X1W1]
    assert [f.steps_done for f in backward] == [1, 2, 4, 5, 8]  # each still counts the steps backward() has done
    assert len(frames(neuron)) == 1 + 5 + 1 + 10  # inputs, 5 ops, seed, 10 steps
    assert len(frames(neuron, leaves=False)) == 1 + 5 + 1 + 5
    assert len(frames(neuron, forward=False, leaves=False)) == 1 + 5


def test_without_leaves_a_frame_shows_the_same_grads_as_with_them(reuse):
    # reuse (a, b, a*b, a*a, out): out (step 1), a*a (2), a*b (3), then the leaves b (4) and a (5)
    kept = frames(reuse, leaves=False)
    assert [f.node for f in kept if f.kind == 'backward'] == [OUT, AA, AB]
    every = {(f.kind, f.node, f.steps_done): f for f in frames(reuse)}
    for f in kept:
        assert every[f.kind, f.node, f.steps_done] == f
        assert grads_at(reuse, f) == grads_at(reuse, every[f.kind, f.node, f.steps_done])
    # the last frame left is a*b's, where every grad is already final: a = b + 2a = -2 + 6 = 4, b = a = 3
    assert grads_at(reuse, kept[-1])[:2] == [4.0, 3.0]


# --- predict the grad (issue 12): each op's step asked first, then shown -----------------------------------------


def test_asking_puts_a_question_before_each_ops_step_and_never_before_a_leafs(reuse):
    asked = frames(reuse, ask=True)
    assert asked[5:] == [  # a question hides what its step writes: out's a*b and a*a, a*a's a, a*b's a and b
        Frame('backward', OUT, 5, 1, ask=True, hidden={AB, AA}), Frame('backward', OUT, 5, 1),  # asked, then shown
        Frame('backward', AA, 5, 2, ask=True, hidden={A}), Frame('backward', AA, 5, 2),
        Frame('backward', AB, 5, 3, ask=True, hidden={A, B}), Frame('backward', AB, 5, 3),
        Frame('backward', B, 5, 4), Frame('backward', A, 5, 5),  # the leaves write nothing: nothing to ask
    ]  # fmt: skip
    assert [f for f in asked if not f.ask] == frames(reuse)  # the frames without the questions are the pass's own


def test_a_question_hides_what_its_step_writes_whatever_else_is_hidden(reuse):
    questions = [f for f in frames(reuse, ask=True) if f.ask]
    assert [f.hidden for f in questions] == [{AB, AA}, {A}, {A, B}]
    shown = [f for f in frames(reuse, ask=True) if not f.ask and f.kind == 'backward']
    assert all(f.hidden == frozenset() for f in shown)  # the next frame shows them
    # hiding the new grads too, a question and its answer both hide what the step writes; hiding all, both hide all
    new = [f.hidden for f in frames(reuse, ask=True, hide='new') if f.kind == 'backward']
    assert new == [{AB, AA}, {AB, AA}, {A}, {A}, {A, B}, {A, B}, set(), set()]
    assert all(f.hidden == {A, B, AB, AA} for f in frames(reuse, ask=True, hide='all'))


@pytest.mark.parametrize('key', list(PRESETS))
@pytest.mark.parametrize('engine', ['', 'bodies'])
def test_one_nodes_grad_at_a_frame_is_the_one_the_whole_graphs_list_gives(key, engine):
    # on the exercise's own bodies (its × a TODO), some grads are never written: None in both
    todo = tuple((name, exercise.TODO) for name in exercise.OPS)
    leaves, out = PRESETS[key].build(value_type=ENGINES[engine](todo))
    trace = trace_backward(out, leaves)
    inputs = [i for i, node in enumerate(trace.nodes) if node.is_input]
    for frame in frames(trace) + [f for i in inputs for f in frames(trace, wrt=i)]:
        whole = grads_at(trace, frame)
        assert [grad_at(trace, frame, i) for i in range(len(trace.nodes))] == whole, frame
