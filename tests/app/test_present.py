"""The presentation view and hidden grads: a link opens the view (no sidebar, its own controls, the frame's sums
sent with each frame), a hidden grad shows '?' wherever a number would give it away until the next frame, and the
new link fields round-trip or fall back.

Expected numbers are the lecture's neuron, by hand: frame 14 is x1*w1's step, x1.grad += w1.data × 0.5 = -1.5 and
w1.grad += x1.data × 0.5 = 1.0.
"""

import json
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from player_data import replay
from streamlit.testing.v1 import AppTest
from test_player import player_bytes

import state
from engine import PRESETS, chain, parse_expression, trace_backward
from engine.frames import HIDE, frames
from view.explanation import chain_rule_lines, explain, frame_rules, plain_text
from view.numbers import HIDDEN, number_width
from view.patches import frame_patches

APP = str(Path(__file__).resolve().parents[2] / 'app.py')
EXPRESSIONS = {**PRESETS, 'chain5': chain(5), 'typed': parse_expression('L = a*a*b + tanh(a) / b')}
X1_W1 = 14  # the neuron's frame where x1*w1 passes its grad back
X1, W1 = 0, 1  # their nodes


def traced(expression):
    leaves, out = expression.build()
    return trace_backward(out, leaves)


def looks(trace, hide):
    """Each frame's (value looks, hot op, edge labels), replayed from the patches the player is sent."""
    return replay(frame_patches(trace, frames(trace, hide=hide), number_width(trace)))


def step_of(trace, name, hide='none'):
    """The frame of node `name`'s backward step, hiding `hide`."""
    return next(f for f in frames(trace, hide=hide) if f.kind == 'backward' and trace.nodes[f.node].name == name)


def grads(values):
    return {i: look[1].strip() for i, look in values.items()}


def written(trace, frame):
    return {c.child for c in trace.steps[frame.steps_done - 1].contributions} if frame.kind == 'backward' else set()


# --- hiding, where each frame's look is made ---------------------------------------------------------------


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_hiding_new_grads_asks_exactly_for_what_the_frame_writes_and_the_next_frame_shows_it(key):
    trace = traced(EXPRESSIONS[key])
    shown, asked = looks(trace, 'none'), looks(trace, 'new')
    for frame, (values, op, edges), (hidden_values, hidden_op, hidden_edges) in zip(frames(trace), shown, asked):
        new = written(trace, frame)
        for i, look in values.items():
            if i in new:  # the grad becomes '?', and its state 'hidden' (its colour would say whether it is final)
                assert hidden_values[i][1].strip() == HIDDEN and hidden_values[i][2] == 'hidden'
                assert (hidden_values[i][0], hidden_values[i][3]) == (look[0], look[3])  # data and mark stay
            else:  # what a frame before asked is shown again
                assert hidden_values[i] == look
        assert hidden_op == op and set(hidden_edges) == set(edges)
        # the local gradient, the label's start, and the amount, its end: only the upstream grad is given
        assert all(label.split()[0] == label.split()[-1] == HIDDEN for label in hidden_edges.values())


def test_the_neurons_x1_w1_step_asks_for_x1_and_w1_and_the_next_step_shows_them():
    trace = traced(PRESETS['neuron'])
    asked = looks(trace, 'new')
    at_step, after = grads(asked[X1_W1][0]), grads(asked[X1_W1 + 1][0])
    assert (at_step[X1], at_step[W1]) == (HIDDEN, HIDDEN)
    assert (after[X1], after[W1]) == ('-1.5000', '1.0000')
    assert at_step[2] == after[2] == '0.5000'  # x1*w1's own grad was written before: not asked


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_hiding_all_grads_leaves_only_the_seed_and_what_is_not_computed(key):
    trace = traced(EXPRESSIONS[key])
    for values, _, edges in looks(trace, 'all'):
        for i, grad in grads(values).items():
            assert grad in ({'1.0000', '·'} if i == trace.output else {HIDDEN, '·'})
        assert all(label.split()[-1] == HIDDEN for label in edges.values())  # every amount asked
    final = grads(looks(trace, 'all')[-1][0])
    assert set(final.values()) == {HIDDEN, '1.0000'}


def test_the_big_sums_ask_for_the_local_gradient_too_and_give_only_the_upstream_grad():
    trace = traced(PRESETS['neuron'])
    frame, asked, every = (frames(trace, hide=hide)[X1_W1] for hide in ('none', 'new', 'all'))
    assert frame_rules(trace, frame) == chain_rule_lines(trace, trace.steps[frame.steps_done - 1])  # the one maker
    assert frame_rules(trace, frame) == [
        'x1.grad += w1.data × (x1*w1).grad = −3.0000 × 0.5000 = −1.5000',
        'w1.grad += x1.data × (x1*w1).grad = 2.0000 × 0.5000 = 1.0000',
    ]
    # the local gradient (w1.data, x1.data) is what the class works out, with the sum: only the upstream grad is given
    assert frame_rules(trace, asked) == [
        'x1.grad += ? × (x1*w1).grad = ? × 0.5000 = ?',
        'w1.grad += ? × (x1*w1).grad = ? × 0.5000 = ?',
    ]
    assert frame_rules(trace, every)[0] == 'x1.grad += ? × (x1*w1).grad = ?'  # the upstream grad hidden too
    # where the op passes its grad through, the line would give the answer: it asks for the local gradient as well
    n_step = step_of(trace, 'n')
    assert frame_rules(trace, n_step) == ['(x1*w1 + x2*w2).grad += n.grad = 0.5000', 'b.grad += n.grad = 0.5000']
    assert frame_rules(trace, step_of(trace, 'n', 'new')) == [
        '(x1*w1 + x2*w2).grad += ? × n.grad = ? × 0.5000 = ?',
        'b.grad += ? × n.grad = ? × 0.5000 = ?',
    ]


def test_the_big_sums_of_other_frames_are_short():
    trace = traced(PRESETS['neuron'])
    all_frames = frames(trace)
    assert frame_rules(trace, all_frames[0]) == []  # the inputs: the boxes say it
    assert frame_rules(trace, all_frames[1]) == ['x1*w1 = 2.0000 × (−3.0000) = −6.0000']  # a true minus, bracketed
    assert frame_rules(trace, all_frames[6]) == []  # the seed: the title says o.grad = 1
    assert frame_rules(trace, all_frames[-1]) == ['∂o/∂x1 = x1.grad = −1.5000']
    assert frame_rules(trace, frames(trace, hide='all')[-1]) == ['∂o/∂x1 = x1.grad = ?']


def test_the_explanation_hides_what_the_boxes_hide():
    trace = traced(PRESETS['reuse'])  # out = a*b + a*a with a = 3, b = -2: a*a writes a twice, then a*b adds b
    text = plain_text(explain(trace, step_of(trace, 'a*a', 'new')))
    assert 'a.grad: · → ?' in text and 'a.grad: ? → ?' in text  # the second += starts from the first's hidden sum
    assert '6.0000' not in text and 'a.grad += ? × (a*a).grad = ? × 1.0000 = ?' in text
    assert '3.0000' not in text  # the local gradient, a.data, is asked for too (the graph shows a's data)
    text = plain_text(explain(trace, step_of(trace, 'a*b', 'new')))
    assert 'a.grad: 6.0000 → ?' in text  # asked at the frame before, shown now
    assert '4.0000' not in text
    text = plain_text(explain(trace, step_of(trace, 'a*b', 'all')))
    assert 'a.grad: ? → ?' in text and '6.0000' not in text


# --- the page ---------------------------------------------------------------------------------------------

PRESENT_LINK = {'expr': 'neuron', 'present': '1', 'hide': 'new', 'step': str(X1_W1)}


def start(query=None):
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception
    return at


def player_data(at):
    head, body = player_bytes(at)
    return json.loads(head), json.loads(body)


def test_a_presentation_link_opens_the_player_without_the_sidebar_and_asks_for_the_new_grads(monkeypatch):
    at = start(PRESENT_LINK)
    assert not at.sidebar.children
    assert at.button(key='leave_present').label == 'Leave presentation'
    assert at.toggle(key='table').value is False
    head, body = player_data(at)
    assert (head['present'], head['table'], head['goto']['frame']) == (True, False, X1_W1)
    assert head['answers'] is False  # the table's final grads would give the answers away
    trace = traced(PRESETS['neuron'])
    shown = replay(body['patches'])
    assert (grads(shown[X1_W1][0])[X1], grads(shown[X1_W1 + 1][0])[X1]) == (HIDDEN, '-1.5000')
    assert body['rules'] == [frame_rules(trace, f) for f in frames(trace, hide='new')]
    assert body['rules'][X1_W1][0].endswith('= ? × 0.5000 = ?')


def test_the_presentation_view_is_switched_on_in_the_sidebar_and_left_from_the_page(monkeypatch):
    at = start({'expr': 'reuse'})
    assert at.sidebar.children
    at.toggle(key='present').set_value(True).run()
    assert not at.sidebar.children and at.query_params['present'] == '1'
    at.toggle(key='table').set_value(True).run()
    assert player_data(at)[0]['table'] is True and at.query_params['table'] == '1'
    at.button_group(key='hide').set_value('new').run()
    at.button(key='leave_present').click().run()
    assert at.sidebar.children and 'present' not in at.query_params
    assert player_data(at)[0]['present'] is False
    assert at.selectbox(key='hide').value == 'new'  # what the presentation chose stays


def test_hiding_grads_sends_the_player_another_body(monkeypatch):
    at = start({'expr': 'reuse'})
    head, body = player_data(at)
    at.selectbox(key='hide').select('new').run()
    new_head, new_body = player_data(at)
    assert new_head['layout'] != head['layout'] and new_body['patches'] != body['patches']
    assert at.query_params['hide'] == 'new'


def test_a_tampered_presentation_link_falls_back_field_by_field_with_a_toast(monkeypatch):
    at = start({'expr': 'reuse', 'hide': 'xyz', 'present': 'yes', 'table': '1'})
    assert at.session_state['hide'] == 'none' and at.session_state['present'] is False
    assert at.session_state['table'] is True
    assert at.sidebar.children
    (toast,) = at.toast
    assert 'hide' in toast.value and 'present' in toast.value and 'table' not in toast.value


# --- the link fields ----------------------------------------------------------------------------------------

presentations = st.builds(
    state.PageState,
    expr=st.sampled_from([key for key in state.EXPRESSIONS if key not in ('chain', state.CUSTOM)]),
    frame=st.integers(0, state.END),
    present=st.booleans(),
    table=st.booleans(),
    hide=st.sampled_from(HIDE),
    speed=st.sampled_from(state.SPEEDS),
)


@settings(max_examples=100, deadline=None)
@given(presentations)
def test_links_round_trip_the_presentation_fields(page):
    assert state.from_query(state.to_query(page)) == (page, [])


def test_the_presentation_fields_stay_out_of_a_default_link():
    assert not {'present', 'table', 'hide'} & set(state.to_query(state.PageState()))
    assert state.to_query(state.PageState(present=True, hide='all'))['present'] == '1'


def test_every_field_but_the_inputs_has_one_link_name():
    assert {f.name for f in state.LINKS.values()} == {f.name for f in fields(state.PageState)} - {'inputs'}
