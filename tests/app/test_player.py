"""The player path: the graph laid out once by the server's dot, then patched frame by frame in the browser.

The patches are checked by replaying them against each frame's look worked out from scratch; the page is
driven with AppTest: the player is sent one body per expression and inputs, and steps with no script run.
"""

import ast
import json
import re
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest
from player_data import replay
from streamlit.testing.v1 import AppTest

import components.player
import state
from components import access
from components.player import GOTO, layout_svg
from engine import PRESETS, chain, numeric_grads, parse_expression, trace_backward
from engine.frames import frames, grads_at
from server import cache, layout
from tests.support.serve import NO_DOT_PATH
from view import node_table as node_table_module
from view import palette
from view.explanation import caption, explain, explanation_html
from view.graph import VALUE_ROWS, VALUE_TEXTS, build_dot, hot_edges, value_look
from view.node_table import node_table, table_columns
from view.numbers import fmt, number_width
from view.palette import CSS_VARIABLES, PLAYER_STYLE
from view.patches import frame_patches
from view.player_body import encode_body
from view.summary import grad_check, summary_html

APP = str(Path(__file__).resolve().parents[2] / 'app.py')
EXPRESSIONS = {**PRESETS, 'chain12': chain(12), 'typed': parse_expression('L = tanh(x*w + b) * y - x/2 + exp(-y)')}


def traced(expression):
    leaves, out = expression.build()
    return trace_backward(out, leaves)


def traced_with(expression, values):
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


def player_body(trace, all_frames, width, numeric):
    """The body as app.py makes it."""
    return encode_body(
        {'svg': layout_svg(trace, width).svg},
        frame_patches(trace, all_frames, width),
        width,
        captions=[caption(trace, f) for f in all_frames],
        explanations=[explanation_html(explain(trace, f)) for f in all_frames],
        table=table_columns(trace),
        summary=summary_html(grad_check(trace, numeric), trace.nodes[-1].name),
    )


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
        expected = {
            i: value_look(trace, frame, i=i, grads=grads, final_after=final_after, width=width)
            for i in range(len(trace.nodes))
        }
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
    svg = layout_svg(trace, number_width(trace)).svg
    assert svg.startswith('<svg')
    for element in ['n0', 'n1', 'n2', 'n3', 'n4', 'n2_op', 'n3_op', 'n4_op', 'e3_0', 'e3_1', 'e2_0', 'e2_1', 'e4_out']:
        assert f'id="{element}"' in svg
    # every edge into an op runs through a label with texts to patch, blank or not: a*a's two edges from a included
    for edge in ['2_0', '2_1', '3_0', '3_1', '4_0', '4_1']:
        assert f'<g id="e{edge}" class="edge">' in svg and f'<g id="e{edge}_in" class="edge">' in svg
        group = re.search(rf'<g id="l{edge}" class="node">(.*?)</g>', svg, flags=re.S).group(1)
        assert group.count('<text') == 3  # local grad × upstream grad, the line's own row, = amount


# --- the page on the player path ---------------------------------------------------------------------


def start(query):
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return at


GRAPHS = {}  # the graphs a page was sent, by name, as player.js keeps them: each is sent once a session


def player_parts(element):
    """What the player element is sent: (a line of JSON for this run, the graph's JSON as the page has it, sent in
    this run or an earlier one, the layout's body), as bytes."""
    head, graph, body = element.proto.bytes.split(b'\n', 2)
    name = json.loads(head)['graph']
    if graph:
        GRAPHS[name] = graph
    elif name not in GRAPHS:  # sent by a run before, whose data no test read: as the server keeps it
        GRAPHS[name] = cache._bodies[('graph', *ast.literal_eval(name))]
    return head, GRAPHS[name], body


def player_bytes(at):
    """What the player is sent: (a line of JSON for this run, the layout's body), as bytes."""
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    head, _, body = player_parts(player)
    return head, body


def player_data(at):
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    return {key: value for part in player_parts(player) for key, value in json.loads(part).items()}


def test_a_graph_is_sent_once_a_session_then_named_and_again_when_the_page_lacks_it():
    at = start({'expr': 'reuse'})
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    head, graph, _ = player.proto.bytes.split(b'\n', 2)
    assert json.loads(graph)['svg'].startswith('<svg')
    at.number_input(key='input:reuse:a').set_value(-1.0).run()  # new inputs, the same graph: named, not sent
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    new_head, again, body = player.proto.bytes.split(b'\n', 2)
    assert again == b'' and json.loads(new_head)['graph'] == json.loads(head)['graph'] and 'svg' not in json.loads(body)
    at.session_state[components.player.SENT] = []  # what the page's 'missing' trigger does (_graph_missing)
    at.run()
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    assert player.proto.bytes.split(b'\n', 2)[1] == graph


def unpainted(query):
    """A browser's first run of the page from a link with `query`: its player has not yet said the graph is painted."""
    at = AppTest.from_file(APP, default_timeout=30)
    at.session_state[components.player.PAINTED] = False
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return at


def controls(at):
    """The sidebar's controls, by key."""
    return [w.key for kind in ('selectbox', 'text_input', 'number_input', 'radio', 'toggle', 'select_slider')
            for w in getattr(at.sidebar, kind)]  # fmt: skip


def test_the_sidebar_controls_come_once_the_first_graph_is_painted_and_the_graph_never_waits_for_them():
    at = unpainted({'expr': 'reuse', 'v.a': '-1', 'mode': 'forward', 'wrt': 'b', 'step': '3'})
    assert [h.value for h in at.sidebar.header] == ['∂ Backprop, step by step'] and controls(at) == []
    head, body = player_bytes(at)
    first = player_data(at)
    assert json.loads(head)['session']  # the player is asked to say when it has painted
    # the link's graph all the same: its input, its mode and its input to follow, its frame
    table = first['table']
    assert table['names'] == ['a', 'b', 'a*b', 'a*a', 'out'] and first['goto']['frame'] == 3
    assert first['captions'][0].startswith('forward mode') and 'b’s tangent is 1' in first['captions'][0]
    # out = a·b + a·a: by hand, ∂/∂b of each value is 0, 1, a, 0, a, with the link's a = -1 (the default is 3)
    assert table['finals'] == ['0.0000', '1.0000', '-1.0000', '0.0000', '-1.0000']
    at.session_state[components.player.PAINTED] = True  # what the player's 'painted' trigger does (_painted)
    at.run()
    assert not at.exception
    assert {'expr', 'input:reuse:a', 'mode', 'wrt', 'forward', 'present'} <= set(controls(at))
    assert at.number_input(key='input:reuse:a').value == -1.0 and at.radio(key='mode').value == 'forward'
    assert at.selectbox(key='wrt').value == 'b'
    again_head, again_body = player_bytes(at)
    # the same frames, left where they are
    assert again_body == body and json.loads(again_head)['goto'] == first['goto']
    assert json.loads(again_head)['session'] is None  # said once a session


def test_what_a_links_first_run_says_is_said_in_the_run_that_draws_the_controls():
    # the run after the paint follows at once, and could clear a toast of the first before the browser shows it
    at = unpainted({'expr': 'reuse', 'mode': 'forward', 'wrt': 'zzz', 'v.a': '1e9'})
    assert not at.toast
    said = [text for text, _ in at.session_state[components.player.TOASTS]]
    assert len(said) == 2 and said[0].startswith('a: kept within') and said[1].startswith('wrt')
    at.session_state[components.player.PAINTED] = True  # the player's 'painted' trigger
    at.run()
    assert [t.value.replace('\\', '')[:16] for t in at.toast] == ['a: kept within ±', 'wrt=zzz: this gr']
    at.run()
    assert not at.toast  # said once


def test_where_no_graph_comes_the_sidebar_controls_come_at_once(monkeypatch):
    at = unpainted({'expr': 'custom', 'formula': 'x * (y +'})  # a formula that cannot be read: to type another
    assert at.error and 'formula' in controls(at)
    monkeypatch.setattr(layout, 'FULL_BUDGET', 0.01)
    monkeypatch.setattr(layout, 'QUICK_BUDGET', 0.01)
    at = unpainted({'expr': 'chain', 'n': '60'})  # refused by the server: to choose a smaller graph
    assert [w.value[:36] for w in at.warning] == ['This graph is too tangled to lay out']
    assert not [e for e in at.main if getattr(e, 'key', None) == 'graph']
    assert 'chain_length' in controls(at) and at.number_input(key='chain_length').value == 60


def test_the_player_gets_the_layout_every_frame_and_the_frame_to_start_at():
    at = start({'expr': 'reuse', 'step': '6'})
    data = player_data(at)
    assert data['svg'].startswith('<svg')
    n = 10  # inputs, 3 ops, the seed, 5 steps
    assert len(data['patches']) == len(data['captions']) == len(data['explanations']) == n
    assert data['goto']['frame'] == 6 and data['goto']['open'] is True
    assert data['captions'][6].startswith('backward pass: a*a')
    assert data['table']['names'] == ['a', 'b', 'a*b', 'a*a', 'out']
    assert not at.get('graphviz_chart') and not at.slider  # the player steps itself: no chart, no page slider
    assert not at.dataframe  # and draws the words and the table itself: the page's only HTML is a phone's heading line
    bodies = [h.proto.body for h in at.get('html') if h.proto.body != access.PAGE_STYLE]  # and the page's own style
    assert [body.count('class="heading-line"') for body in bodies] == [1]


def test_step_end_opens_the_last_frame():
    at = start({'expr': 'reuse', 'step': 'end'})
    assert player_data(at)['goto']['frame'] >= 9  # the player clamps it to its last frame


@pytest.mark.parametrize('forward', [True, False])
@pytest.mark.parametrize('key', EXPRESSIONS)
def test_what_the_browser_draws_for_each_frame_is_what_the_python_builders_make(key, forward):
    """The player draws the caption, the explanation and the table from its body: each is the Python function's."""
    trace = traced(EXPRESSIONS[key])
    width = number_width(trace)
    all_frames = frames(trace, forward)
    numeric = numeric_grads(EXPRESSIONS[key], dict(EXPRESSIONS[key].defaults))
    body = json.loads(player_body(trace, all_frames, width, numeric))
    assert body['summary'] == summary_html(grad_check(trace, numeric), trace.nodes[-1].name)
    for frame, (values, _, _), text, words in zip(
        all_frames, replay(body['patches']), body['captions'], body['explanations'], strict=True
    ):
        assert text == caption(trace, frame)
        assert words == explanation_html(explain(trace, frame))
        # the table's data and grad cells are the value boxes' texts, trimmed, as player.js writes them
        table = node_table(trace, frame, answers=True)
        assert [values[i][0].strip() for i in range(len(trace.nodes))] == list(table['data'])
        assert [values[i][1].strip() for i in range(len(trace.nodes))] == list(table['grad now'])
        assert body['table']['names'] == list(table['node']) and body['table']['ops'] == list(table['op'])
        assert body['table']['finals'] == list(table[node_table_module.ANSWER_COLUMN])


def test_a_shared_layout_holds_none_of_the_values_it_was_made_for():
    # the layout is cached by structure and shared between visitors: it must not carry anyone's numbers
    values = {'x1': 7.3125, 'w1': -1.6875, 'x2': 4.5625, 'w2': 0.0625, 'b': 2.8125}
    trace = traced_with(PRESETS['neuron'], values)
    svg = layout_svg(trace, number_width(trace)).svg
    numbers = {fmt(n.data) for n in trace.nodes} | {fmt(g) for g in trace.final_grads()}
    assert '7.3125' in numbers
    for number in numbers:
        assert number not in svg, number
    assert not re.search(r'\d\.\d{4}', svg)  # no number of the fixed-width kind at all


def test_a_new_visitor_is_sent_to_the_links_frame_with_an_open_goto():
    at = start({'expr': 'reuse', 'step': '3'})
    assert player_data(at)['goto'] == {'id': 1, 'frame': 3, 'open': True}


def test_changing_the_expression_or_an_input_does_not_move_the_player():
    # the player keeps the frame it shows (which only the browser knows): no new goto
    at = start({'expr': 'reuse', 'step': '3'})
    goto = player_data(at)['goto']
    at.selectbox(key='expr').select('lecture').run()
    assert player_data(at)['goto'] == goto
    at.number_input(key='input:lecture:a').set_value(1.0).run()
    assert player_data(at)['goto'] == goto
    at.toggle(key='forward').set_value(False).run()
    assert player_data(at)['goto'] == goto


def test_a_change_writes_the_link_without_the_frame_and_going_back_to_a_link_moves_the_player():
    at = start({'expr': 'reuse', 'step': '3'})
    assert dict(at.query_params) == {'expr': 'reuse', 'step': '3'}  # opening a link writes nothing
    at.number_input(key='input:reuse:a').set_value(1.5).run()
    link = dict(at.query_params)
    assert link == {'expr': 'reuse', 'v.a': '1.5', 'v.b': '-2.0'}  # the player writes the step itself
    # the browser goes Back to the first link: the page follows it, and moves the player there
    at.query_params.clear()
    at.query_params.update({'expr': 'lecture', 'step': '4'})
    at.run()
    assert at.selectbox(key='expr').value == 'lecture'
    assert player_data(at)['goto'] == {'id': 2, 'frame': 4, 'open': False}


def test_the_layout_body_is_sent_unchanged_until_the_layout_changes():
    at = start({'expr': 'reuse'})
    head, body = player_bytes(at)
    at.run()
    assert player_bytes(at) == (head, body)  # the same bytes: Streamlit does not send them again
    at.select_slider(key='speed').set_value(0.5).run()
    assert player_bytes(at)[1] == body  # a new speed goes in the head
    at.number_input(key='input:reuse:a').set_value(-1.0).run()
    new_head, new_body = player_bytes(at)
    assert json.loads(new_head)['layout'] != json.loads(head)['layout'] and new_body != body


# --- the player and player.css read the graph as view/graph.py draws it ----------------------------
# (the player's JavaScript has its own tests: components/player/test/, under node --test)

PLAYER_DIR = Path(__file__).resolve().parents[2] / 'components' / 'player'
PLAYER_CSS = (PLAYER_DIR / 'player.css').read_text()


def svg_texts(svg, node_id):
    """The texts of one node's group in an SVG from dot, in document order, trimmed."""
    root = ElementTree.fromstring(svg)
    (group,) = [g for g in root.iter(f'{SVG}g') if g.get('id') == node_id]
    return [''.join(t.itertext()).strip() for t in group.iter(f'{SVG}text')]


SVG = '{http://www.w3.org/2000/svg}'


def test_the_player_is_sent_where_a_value_boxs_texts_fall_as_graph_py_draws_them():
    assert player_data(start({'expr': 'reuse'}))['valueTexts'] == VALUE_TEXTS  # it patches the texts at these


# each frame's model as src/frames.js's seekModel follows the patches: forward, then back from the last frame
SEEK_IN_NODE = """
import { readFileSync } from 'node:fs';
import { emptyModel, seekModel } from './src/frames.js';
const { patches } = JSON.parse(readFileSync(0, 'utf8'));
const frames = (order) => {
  let model = emptyModel(), at = -1;
  return order.map((k) => {
    [model, at] = seekModel(model, at, patches, k);
    return JSON.parse(JSON.stringify(model));
  });
};
const ks = patches.map((_, k) => k);
console.log(JSON.stringify([frames(ks), frames([ks.length - 1, ...ks])]));
"""


@pytest.mark.parametrize('key', ['reuse', 'typed', 'chain12'])
def test_the_tests_replay_of_the_patches_is_the_players_own(key):
    """player_data.replay, which these tests read each frame's state with, follows the patches as the player does:
    src/frames.js's seekModel, run by node on the same body, frame by frame forward and back."""
    trace = traced(EXPRESSIONS[key])
    all_frames = frames(trace)
    body = player_body(trace, all_frames, number_width(trace), numeric_grads(EXPRESSIONS[key], {}))
    run = subprocess.run(
        ['node', '--input-type=module', '-e', SEEK_IN_NODE], input=body, cwd=PLAYER_DIR, capture_output=True, check=True
    )
    forward, back = json.loads(run.stdout)
    expected = replay(json.loads(body)['patches'])
    assert len(forward) == len(expected) == len(all_frames) and back[1:] == forward  # back from the end: the same
    for model, (values, op, edges) in zip(forward, expected):
        assert {i: tuple(look) for i, look in enumerate(model['values']) if look} == values
        assert model['op'] == op and {k: v for k, v in model['edges'].items() if v} == edges


@pytest.mark.parametrize('key', ['reuse', 'typed'])
def test_a_value_box_laid_out_by_dot_has_its_texts_in_the_order_the_player_reads_them(key):
    trace = traced(EXPRESSIONS[key])
    width = number_width(trace)
    last = frames(trace)[-1]  # every data and grad known
    svg = build_dot(trace, last, width).pipe(format='svg', encoding='utf-8')
    grads = grads_at(trace, last)
    for i, node in enumerate(trace.nodes):
        texts = svg_texts(svg, node.id)
        assert len(texts) == 2 * len(VALUE_ROWS) + 1
        assert texts[VALUE_TEXTS['name']] == node.name
        assert texts[VALUE_TEXTS['data']] == fmt(node.data) and texts[VALUE_TEXTS['data'] - 1] == 'data'
        assert texts[VALUE_TEXTS['grad']] == fmt(grads[i]) and texts[VALUE_TEXTS['grad'] - 1] == 'grad'
    # and the layout the player is sent, before any numbers: the same texts in the same places
    layout = layout_svg(trace, width).svg
    for node in trace.nodes:
        texts = svg_texts(layout, node.id)
        assert (texts[VALUE_TEXTS['name']], texts[VALUE_TEXTS['data'] - 1], texts[VALUE_TEXTS['grad'] - 1]) == (
            node.name, 'data', 'grad',
        )  # fmt: skip


def test_the_players_stylesheet_takes_the_graphs_colours_from_the_palette():
    constants = {
        name: value for name, value in vars(palette).items()
        if name.isupper() and isinstance(value, str) and re.fullmatch(r'#[0-9A-Fa-f]{3,8}', value)
    }  # fmt: skip
    assert {'ACTIVE', 'FORWARD', 'FINAL_FILL', 'ACCUMULATING_FILL', 'INK', 'FAINT', 'UNDEFINED'} <= set(constants)
    literals = {hex.lower() for hex in re.findall(r'#[0-9A-Fa-f]{3,8}\b', PLAYER_CSS)}
    assert not literals & {value.lower() for value in constants.values()}
    assert set(constants.values()) <= set(CSS_VARIABLES.values())  # each colour of the graph is a variable
    used = set(re.findall(r'var\((--[\w-]+)\)', PLAYER_CSS))
    assert used == set(CSS_VARIABLES)  # every variable used is defined, and every one defined is used
    assert palette.SCREEN_FONT not in PLAYER_CSS and 'DejaVu Sans Mono", Menlo' not in PLAYER_CSS


def test_the_legend_the_player_is_sent_carries_the_graphs_colours_as_css_variables():
    trace = traced(PRESETS['reuse'])
    width = number_width(trace)
    all_frames = frames(trace)
    body = json.loads(player_body(trace, all_frames, width, numeric_grads(PRESETS['reuse'], {})))
    assert body['legend'].startswith(PLAYER_STYLE)
    for name, value in CSS_VARIABLES.items():
        assert f'{name}: {value};' in PLAYER_STYLE
    assert PLAYER_STYLE.startswith('<style>.player {')  # the player's root, which holds the legend


# --- the player's wiring: the one call app.py makes (components.player.show_player) -------------------------


def test_the_player_is_always_sent_a_goto_of_an_id_a_frame_and_whether_it_opens_the_page():
    at = start({'expr': 'reuse', 'step': 'end'})
    assert player_data(at)['goto'] == {'id': 1, 'frame': state.END, 'open': True}  # player.js keeps it in range
    at.query_params.clear()
    at.query_params.update({'expr': 'lecture', 'step': '2'})
    at.run()
    goto = player_data(at)['goto']
    assert goto == {'id': 2, 'frame': 2, 'open': False}
    assert at.session_state[GOTO] == goto  # the player's own key, written by go_to only


def test_a_formula_that_reads_like_a_presets_name_is_not_given_the_presets_layout():
    preset = player_data(start({'expr': 'reuse'}))
    typed = player_data(start({'expr': 'custom', 'formula': 'reuse', 'v.reuse': '-2'}))  # one variable, one box
    assert typed['blank'] == preset['blank']  # the same number width: only the expression's key tells them apart
    assert value_and_op_nodes(preset['svg']) == 8 and value_and_op_nodes(typed['svg']) == 1  # 5 values, 3 ops
    assert typed['layout'] != preset['layout']


def test_the_chain_is_laid_out_for_its_length():
    short, long = (player_data(start({'expr': 'chain', 'n': n})) for n in ('2', '3'))
    assert value_and_op_nodes(short['svg']) == 2 + 4 * 2 and value_and_op_nodes(long['svg']) == 2 + 4 * 3


def value_and_op_nodes(svg):
    return len(re.findall(r'<g id="n\d+(?:_op)?" class="node">', svg))


def test_the_seed_frame_is_marked_as_the_seed_not_as_a_backward_call():
    trace = traced(PRESETS['neuron'])
    all_frames = frames(trace)
    states = replay(frame_patches(trace, all_frames, number_width(trace)))
    k = next(k for k, f in enumerate(all_frames) if f.kind == 'seed')
    assert states[k][0][trace.output][3] == 'seed' and states[k][1] == -1  # no op is hot at the seed
    assert states[k + 1][0][trace.output][3] == 'active'  # the output's _backward, next
    assert all(look[3] != 'seed' for f, s in zip(all_frames, states) if f.kind != 'seed' for look in s[0].values())
    assert 'g.v.seed > path' in PLAYER_CSS and '.table tr.active.forward td' in PLAYER_CSS


def test_an_edge_label_is_the_chain_rule_on_lines_the_player_patches_one_text_each():
    trace = traced(PRESETS['neuron'])  # x1, w1, x1*w1, x2, w2, x2*w2, ..., o = tanh(n)
    width = number_width(trace)
    svg = layout_svg(trace, width).svg
    group = re.search(r'<g id="l5_0" class="node">(.*?)</g>', svg, flags=re.S).group(1)
    assert group.count('<text') == 3  # the product, the row the edge runs along, the amount
    tanh = next(f for f in frames(trace) if f.kind == 'backward' and trace.nodes[f.node].op == 'tanh')
    (label,) = hot_edges(trace, tanh, width).values()
    assert label.split('\n') == [' 0.5000 ×  1.0000', ' ' * 17, '       +=  0.5000']  # (1 - 0.7071²) × o.grad += 0.5


# --- the layout's two sources: the server's dot, and the browser's Graphviz as WebAssembly ---------------------

WASM_LAYOUT = Path(__file__).resolve().parents[2] / 'bench' / 'wasm_layout.mjs'
LAID_OUT_BOTH_WAYS = {**PRESETS, 'chain100': chain(100), 'typed': EXPRESSIONS['typed']}


def wasm_svgs(dots):
    """Each DOT laid out by static/graphviz/index.js, the player's own Graphviz, run by node."""
    done = subprocess.run(
        ['node', str(WASM_LAYOUT)], input=json.dumps(dots), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [svg for svg, _ in json.loads(done.stdout)]


def patched_parts(svg):
    """{id: (class, [each text's content], [its children's tags])} of every node and edge group: what the player
    finds by id and patches by text index (player.js load())."""
    root = ElementTree.fromstring(svg[svg.index('<svg') :])
    return {
        g.get('id'): (g.get('class'), [''.join(t.itertext()) for t in g.iter(f'{SVG}text')], [c.tag for c in g])
        for g in root.iter(f'{SVG}g')
        if g.get('class') in ('node', 'edge')
    }


def test_both_layout_sources_give_an_svg_of_the_same_nodes_edges_and_text_slots():
    traces = {key: traced(expression) for key, expression in LAID_OUT_BOTH_WAYS.items()}
    widths = {key: number_width(trace) for key, trace in traces.items()}
    browser = wasm_svgs([build_dot(traces[key], None, widths[key]).source for key in traces])
    for key, in_browser in zip(traces, browser, strict=True):
        on_server = patched_parts(layout_svg(traces[key], widths[key]).svg)
        assert len(on_server) > len(traces[key].nodes)  # every value, op, label and edge
        assert patched_parts(in_browser) == on_server, key
        # and boxes as wide as their text: measured in Courier by both (a font the WebAssembly build does not know,
        # such as 'Courier,monospace', it measures as a narrower Times, and the numbers would overflow their boxes)
        assert 0.95 < graph_width(in_browser) / graph_width(layout_svg(traces[key], widths[key]).svg) < 1.1, key


def graph_width(svg):
    return float(re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+) ', svg).group(1))


def test_without_dot_the_player_is_sent_the_value_free_dot_to_lay_out_within_the_servers_budget(monkeypatch):
    monkeypatch.setenv('PATH', NO_DOT_PATH)
    data = player_data(start({'expr': 'reuse', 'v.a': '7.3125'}))
    trace = traced_with(PRESETS['reuse'], {'a': 7.3125, 'b': -2.0})
    assert 'svg' not in data and data['dot'] == build_dot(trace, None, number_width(trace)).source
    assert '7.3125' not in data['dot']  # no one's values in it: the patches write them
    assert data['budget'] == [layout.FULL_BUDGET, layout.QUICK_BUDGET] and data['tangled'] == layout.tangled()
    assert data['quick'] == layout.QUICK  # what layout.quickened sets, here on a graph without a tighter nslimit
    assert data['url'] == '/app/static/graphviz/index.js'
    served = Path(__file__).resolve().parents[2] / data['url'].removeprefix('/app/')  # Streamlit's static/ folder
    assert served.is_file() and 'Graphviz' in served.read_text()
