"""The player path: the graph laid out once by the server's dot, then patched frame by frame in the browser.

The patches are checked by replaying them against each frame's look worked out from scratch; the page is
driven with AppTest, the player's report of its frame simulated through session state, as the browser sends it.
"""

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components.graph import hot_edges, value_look
from components.numbers import number_width
from components.player import frame_patches, layout_svg
from engine import PRESETS, chain, parse_expression, trace_backward
from engine.frames import frames, grads_at

APP = str(Path(__file__).resolve().parent.parent / 'app.py')
EXPRESSIONS = {**PRESETS, 'chain12': chain(12), 'typed': parse_expression('L = tanh(x*w + b) * y - x/2 + exp(-y)')}


def traced(expression):
    leaves, out = expression.build()
    return trace_backward(out, leaves)


def replay(patches):
    """Each frame's full state, as the player's model holds it after applying the patches in order."""
    values, edges, states = {}, {}, []
    for patch in patches:
        values.update({i: tuple(look) for i, *look in patch['v']})
        edges.update({key: label for key, label in patch['e']})
        states.append((dict(values), patch['o'], {k: v for k, v in edges.items() if v}))
    return states


@pytest.mark.parametrize('forward', [True, False])
@pytest.mark.parametrize('key', EXPRESSIONS)
def test_replayed_patches_give_every_frame_exactly_as_drawn_from_scratch(key, forward):
    trace = traced(EXPRESSIONS[key])
    width = number_width(trace)
    all_frames = frames(trace, forward)
    final_after = trace.final_after()
    states = replay(frame_patches(trace, all_frames, width))
    assert len(states) == len(all_frames)
    for frame, (values, hot_op, edges) in zip(all_frames, states, strict=True):
        grads = grads_at(trace, frame)
        expected = {i: value_look(trace, frame, i, grads, final_after, width) for i in range(len(trace.nodes))}
        assert values == expected
        hot = hot_edges(trace, frame, width)
        assert edges == {f'{i}_{slot}': label for (i, slot), label in hot.items()}
        assert hot_op == (frame.node if hot else -1)


def test_a_patch_carries_only_what_changed():
    # a 12-step chain: 51 values, 74 frames; after frame 0 each frame touches a handful of values
    trace = traced(chain(12))
    patches = frame_patches(trace, frames(trace), number_width(trace))
    assert len(patches[0]['v']) == len(trace.nodes)
    assert max(len(p['v']) for p in patches[1:]) <= 4  # the node before, the node now, its inputs (w, h) at most


def test_the_layout_has_an_element_for_every_value_op_and_labelled_edge():
    trace = traced(PRESETS['reuse'])  # a=n0, b=n1, a*b=n2, a*a=n3, out=n4
    svg = layout_svg(trace, frames(trace)[0], number_width(trace))
    assert svg.startswith('<svg')
    for element in ['n0', 'n1', 'n2', 'n3', 'n4', 'n2_op', 'n3_op', 'n4_op', 'e3_0', 'e3_1', 'e2_0', 'e2_1', 'e4_out']:
        assert f'id="{element}"' in svg
    # every edge into an op has a text to patch, blank or not: a*a's two edges from a included
    for edge in ['e2_0', 'e2_1', 'e3_0', 'e3_1', 'e4_0', 'e4_1']:
        group = re.search(rf'<g id="{edge}" class="edge">(.*?)</g>', svg, flags=re.S).group(1)
        assert '<text' in group


# --- the page on the player path ---------------------------------------------------------------------


@pytest.fixture(autouse=True)
def player_renderer(monkeypatch):
    monkeypatch.setenv('BACKPROP_RENDERER', 'player')


def start(query):
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return at


def player_bytes(at):
    """What the player is sent: (a line of JSON for this run, the layout's body), as bytes."""
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    head, body = player.proto.bytes.split(b'\n', 1)
    return head, body


def player_data(at):
    head, body = player_bytes(at)
    return json.loads(head) | json.loads(body)


def report(at, k):
    """What the browser does when the player shows frame k."""
    at.session_state['graph'] = {'frame': k}
    at.run()
    assert not at.exception


def explanation(at):
    return '\n'.join([m.value for m in at.markdown] + [c.value for c in at.code])


def test_the_player_gets_the_layout_every_frame_and_the_frame_to_start_at():
    at = start({'expr': 'reuse', 'step': '6'})
    data = player_data(at)
    assert data['svg'].startswith('<svg')
    assert len(data['patches']) == len(data['captions']) == 10  # inputs, 3 ops, the seed, 5 steps
    assert data['goto'][1] == 6
    assert data['captions'][6].startswith('backward pass: a*a')
    assert not at.get('graphviz_chart') and not at.slider  # the player steps itself: no chart, no page slider


def test_the_frame_the_player_reports_drives_the_explanation_table_and_link():
    at = start({'expr': 'reuse'})
    report(at, 7)  # a*b's _backward: a.grad += b.data × (a*b).grad = -2 × 1, so a goes 6 -> 4
    text = explanation(at)
    assert '`a.grad += b.data × (a*b).grad = -2.0000 × 1.0000 = -2.0000`' in text
    assert '6.0000 → **4.0000**' in text
    (table,) = [d.value for d in at.dataframe if 'grad now' in d.value.columns]
    assert list(table['grad now'][:2]) == ['4.0000', '3.0000']  # a = b + 2a = 4, b = a = 3
    assert at.session_state['frame'] == 7
    report(at, 9)
    assert any('finite difference' in d.value.columns for d in at.dataframe)  # the last frame's grad check


def test_a_new_expression_sends_the_player_to_a_frame_with_a_new_token():
    at = start({'expr': 'reuse', 'step': '3'})
    before = player_data(at)['goto']
    report(at, 5)
    assert player_data(at)['goto'] == before  # its own steps are not sent back to it
    at.selectbox(key='expr').select('lecture').run()
    after = player_data(at)['goto']
    assert after[0] != before[0] and after[1] == 5
    assert at.session_state['frame'] == 5  # the page follows the frame it sent, not the old one the player held
    # lecture frame 5: inputs, e, d, L, the seed, then L's own _backward
    assert '**`L = d × f`** passes its grad' in explanation(at)


def test_the_player_is_told_the_frame_python_holds_so_it_reports_only_a_new_one():
    at = start({'expr': 'reuse', 'step': '3'})
    assert player_data(at)['goto'][1:] == [3, 3]  # a first load holds the frame it asked for: no report needed
    report(at, 7)
    at.selectbox(key='expr').select('lecture').run()
    assert player_data(at)['goto'][1:] == [7, 7]  # the lecture, at the frame the page was on, which it holds
    report(at, 2)
    at.number_input(key='input:lecture:a').set_value(1.0).run()
    assert player_data(at)['goto'][1:] == [2, 2]
    at.toggle(key='forward').set_value(False).run()
    assert player_data(at)['goto'][1:] == [2, 2]  # the frame number stays; what it shows changed


def test_the_layout_body_is_sent_unchanged_until_the_layout_changes():
    at = start({'expr': 'reuse'})
    head, body = player_bytes(at)
    report(at, 4)
    assert player_bytes(at) == (head, body)  # the same bytes: Streamlit does not send them again
    at.number_input(key='input:reuse:a').set_value(-1.0).run()
    new_head, new_body = player_bytes(at)
    assert json.loads(new_head)['layout'] != json.loads(head)['layout'] and new_body != body
