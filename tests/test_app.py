"""The page as a visitor drives it, through Streamlit's AppTest: pick, set, step, play, link.

Every expected number is derived by hand from the formula (or is one of the lecture's known values),
never read back from the engine.
"""

import html
import math
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / 'app.py')
EXPRESSIONS = ['neuron', 'reuse', 'chain', 'lecture', 'a_plus_a', 'ab_times_a_plus_b', 'mlp', 'custom']
NOT_COMPUTED = '·'


# --- helpers ---------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def fallback_renderer(monkeypatch):
    """These tests drive the page's own stepper: the path a server without Graphviz takes (tests/test_player.py
    covers the player)."""
    monkeypatch.setenv('BACKPROP_RENDERER', 'chart')


def start(expr=None, query=None):
    """A fresh visitor's page, optionally opened from a link with `query`, and optionally switched to `expr`."""
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(query or {})
    at.run()
    if expr is not None:
        at.selectbox(key='expr').select(expr).run()
    assert not at.exception
    return at


def frame_slider(at):
    return at.slider(key='frame_slider')


def frame(at):
    return int(frame_slider(at).value)


def last_frame(at):
    return int(frame_slider(at).max)


def go(at, k):
    frame_slider(at).set_value(k).run()
    assert not at.exception
    assert frame(at) == k
    return at


def dot(at):
    (chart,) = at.get('graphviz_chart')
    return chart.spec


def boxes(at):
    """{node name: (data text, grad text)} as the chart's value boxes show them."""
    found = {}
    for match in re.finditer(r'^\s*n\d+ \[label=<(.*?</table>)>', dot(at), flags=re.M):
        text = html.unescape(re.sub(r'<[^>]*>', ' ', match.group(1)))
        name, data, grad = re.fullmatch(r'\s*(.*?)\s+data\s+(\S+)\s+grad\s+(\S+)\s*', text).groups()
        found[name] = (data, grad)
    return found


def grads(at):
    return {name: grad for name, (_, grad) in boxes(at).items()}


def data(at):
    return {name: value for name, (value, _) in boxes(at).items()}


def summary(at):
    """The grad-check table, or None where the page does not show it."""
    tables = [d.value for d in at.dataframe if 'finite difference' in d.value.columns]
    assert len(tables) <= 1
    return tables[0] if tables else None


def explanation(at):
    """The explanation panel's text, as the reader sees it (it is HTML, drawn with st.html)."""
    panels = [h.proto.body for h in at.get('html') if 'class="explain"' in h.proto.body]
    return '\n'.join(html.unescape(re.sub(r'<[^>]*>', '', re.sub(r'<style>.*?</style>', '', p))) for p in panels)


def outside_code(markdown):
    """The markdown text outside code fences and code spans: where markdown syntax takes effect."""
    markdown = re.sub(r'```.*?```', '', markdown, flags=re.S)
    return re.sub(r'`[^`]*`', '', markdown)


def f4(x):
    return f'{x:.4f}'


# --- every expression ------------------------------------------------------------------------------


@pytest.mark.parametrize('expr', EXPRESSIONS)
def test_every_expression_renders_at_its_first_and_last_frame(expr):
    at = start(expr)
    assert at.selectbox(key='expr').value == expr
    assert frame(at) == 0
    assert not at.error
    assert 'digraph' in dot(at)
    go(at, last_frame(at))
    assert not at.error
    assert 'digraph' in dot(at)
    # at the last frame every node has its final grad: none is still blank
    assert NOT_COMPUTED not in grads(at).values()


@pytest.mark.parametrize('expr', EXPRESSIONS)
def test_grad_check_finite_differences_agree_with_backward_at_the_last_frame(expr):
    at = start(expr)
    go(at, last_frame(at))
    table = summary(at)
    assert table is not None and len(table) > 0
    for _, row in table.iterrows():
        backward, numeric = float(row['grad (backward)']), float(row['finite difference'])
        assert math.isclose(backward, numeric, rel_tol=1e-4, abs_tol=1e-4), row.to_dict()


# --- the neuron: the lecture's known values --------------------------------------------------------


def test_neuron_last_frame_shows_the_lecture_grads_and_output():
    at = start('neuron')
    go(at, last_frame(at))
    g = grads(at)
    assert g['x1'] == '-1.5000'
    assert g['w1'] == '1.0000'
    assert g['x2'] == '0.5000'
    assert g['w2'] == '0.0000'
    assert g['b'] == '0.5000'
    assert g['o'] == '1.0000'
    d = data(at)
    assert d['o'] == '0.7071'
    assert d['n'] == '0.8814'


def test_neuron_frame_zero_shows_inputs_only_and_no_grads():
    at = start('neuron')
    assert frame(at) == 0
    b = boxes(at)
    assert set(b) == {'x1', 'w1', 'x2', 'w2', 'b', 'x1*w1', 'x2*w2', 'x1*w1 + x2*w2', 'n', 'o'}
    assert all(grad == NOT_COMPUTED for _, grad in b.values())
    for op in ('x1*w1', 'x2*w2', 'x1*w1 + x2*w2', 'n', 'o'):
        assert b[op][0] == NOT_COMPUTED
    assert b['x1'][0] == '2.0000'
    assert b['w1'][0] == '-3.0000'
    assert b['x2'][0] == '0.0000'
    assert b['w2'][0] == '1.0000'
    assert b['b'][0] == '6.8814'


def test_neuron_frame_count_is_inputs_plus_ops_plus_seed_plus_one_step_per_node():
    # 5 inputs and 5 ops: 1 + 5 forward frames, the seed, 10 backward steps = 17 frames
    assert last_frame(start('neuron')) == 16


def test_grad_check_table_appears_only_at_the_last_frame():
    at = start('neuron')
    n = last_frame(at)
    for k in (0, 5, 6, n - 1):
        go(at, k)
        assert summary(at) is None, k
    go(at, n)
    table = summary(at)
    hand = {'x1': -1.5, 'w1': 1.0, 'x2': 0.5, 'w2': 0.0, 'b': 0.5}
    assert list(table['input']) == list(hand)
    for name, expected in hand.items():
        (numeric,) = table.loc[table['input'] == name, 'finite difference']
        assert abs(float(numeric) - expected) < 1e-4, name


# --- the lecture's L, the pitfalls ------------------------------------------------------------------


def test_lecture_forward_frames_compute_e_then_d_then_l():
    at = start('lecture')
    assert data(at)['e'] == NOT_COMPUTED
    go(at, 1)
    assert (data(at)['e'], data(at)['d'], data(at)['L']) == ('-6.0000', NOT_COMPUTED, NOT_COMPUTED)
    go(at, 2)
    assert (data(at)['d'], data(at)['L']) == ('4.0000', NOT_COMPUTED)
    go(at, 3)
    assert data(at)['L'] == '-8.0000'
    assert set(grads(at).values()) == {NOT_COMPUTED}


def test_lecture_last_frame_shows_the_lecture_grads():
    at = start('lecture')
    go(at, last_frame(at))
    g = grads(at)
    assert (g['a'], g['b'], g['c'], g['f']) == ('6.0000', '-4.0000', '-2.0000', '4.0000')
    assert (g['e'], g['d'], g['L']) == ('-2.0000', '-2.0000', '1.0000')


def test_a_plus_a_gives_a_grad_two_not_one():
    at = start('a_plus_a')
    go(at, last_frame(at))
    assert data(at)['b'] == '6.0000'
    assert grads(at)['a'] == '2.0000'


def test_ab_times_a_plus_b_sums_both_paths():
    # f = (a*b)*(a+b), a=-2, b=3: d=-6, e=1, f=-6; df/da = b*e + d = -3, df/db = a*e + d = -8
    at = start('ab_times_a_plus_b')
    go(at, last_frame(at))
    assert (data(at)['d'], data(at)['e'], data(at)['f']) == ('-6.0000', '1.0000', '-6.0000')
    assert (grads(at)['a'], grads(at)['b']) == ('-3.0000', '-8.0000')


# --- reuse: the += lesson ---------------------------------------------------------------------------


def test_reuse_a_grad_accumulates_frame_by_frame():
    # order: a, b, a*b, a*a, out. Frames: 0 inputs, 1-3 forward, 4 seed, 5 out's step,
    # 6 a*a's step (a += 3, += 3), 7 a*b's step (a += b = -2, b += a = 3), 8 b, 9 a
    at = start('reuse')
    assert last_frame(at) == 9
    seen = []
    for k in range(10):
        go(at, k)
        seen.append(grads(at)['a'])
    assert seen == [NOT_COMPUTED] * 6 + ['6.0000'] + ['4.0000'] * 3
    go(at, 7)
    assert grads(at)['b'] == '3.0000'
    assert data(at)['out'] == '3.0000'


def test_reuse_explanation_at_the_a_times_a_step_shows_both_contributions():
    at = go(start('reuse'), 6)
    text = explanation(at)
    assert text.count('a.grad += a.data × (a*a).grad = 3.0000 × 1.0000 = 3.0000') == 2
    assert re.search(r'·\s*→\s*\**3\.0000', text), text
    assert re.search(r'3\.0000\s*→\s*\**6\.0000', text), text
    # the code panel shows the multiplication's _backward
    assert 'self.grad += other.data * out.grad' in explanation(at)


def test_reuse_explanation_at_the_a_times_b_step_adds_b():
    text = explanation(go(start('reuse'), 7))
    assert 'a.grad += b.data × (a*b).grad = -2.0000 × 1.0000 = -2.0000' in text
    assert 'b.grad += a.data × (a*b).grad = 3.0000 × 1.0000 = 3.0000' in text
    assert re.search(r'6\.0000\s*→\s*\**4\.0000', text), text


def test_changing_an_input_changes_the_graph_and_the_grads():
    at = start('reuse')
    before = dot(at)
    at.number_input(key='input:reuse:a').set_value(2.0).run()
    assert not at.exception
    assert dot(at) != before
    go(at, last_frame(at))
    # a=2, b=-2: a*b = -4, a*a = 4, out = 0; grads a = b + 2a = 2, b = a = 2
    assert (data(at)['a*b'], data(at)['a*a'], data(at)['out']) == ('-4.0000', '4.0000', '0.0000')
    assert (grads(at)['a'], grads(at)['b']) == ('2.0000', '2.0000')


def test_values_survive_a_visit_to_another_expression():
    at = start('reuse')
    at.number_input(key='input:reuse:a').set_value(2.0).run()
    at.selectbox(key='expr').select('chain').run()
    at.number_input(key='chain_length').set_value(3).run()
    at.selectbox(key='expr').select('custom').run()
    at.text_input(key='formula').input('a*b').run()
    at.selectbox(key='expr').select('neuron').run()
    at.selectbox(key='expr').select('reuse').run()
    assert at.number_input(key='input:reuse:a').value == 2.0
    assert data(at)['a'] == '2.0000'
    at.selectbox(key='expr').select('chain').run()
    assert at.number_input(key='chain_length').value == 3
    assert 'h3' in boxes(at) and 'h4' not in boxes(at)
    at.selectbox(key='expr').select('custom').run()
    assert at.text_input(key='formula').value == 'a*b'
    assert not at.exception


# --- stepping -------------------------------------------------------------------------------------


def test_next_and_previous_move_one_frame_and_stop_at_the_ends():
    at = start('reuse')
    assert at.button(key='previous').disabled
    at.button(key='next').click().run()
    assert frame(at) == 1
    at.button(key='next').click().run()
    assert frame(at) == 2
    at.button(key='previous').click().run()
    assert frame(at) == 1
    at.button(key='previous').click().run()
    assert frame(at) == 0
    assert at.button(key='previous').disabled
    go(at, 8)
    assert not at.button(key='next').disabled
    at.button(key='next').click().run()
    assert frame(at) == 9
    assert at.button(key='next').disabled
    assert not at.exception


def test_play_advances_one_frame_per_tick_and_stops_at_the_end():
    at = start('reuse')
    at.button(key='play').click().run()
    assert at.session_state['playing'] is True
    k = frame(at)
    assert k <= 1
    while k < 9:
        at.run()  # a timer tick
        assert not at.exception
        assert frame(at) == k + 1
        assert at.session_state['playing'] is True
        k += 1
    at.run()  # the tick at the last frame stops playing
    assert at.session_state['playing'] is False
    assert frame(at) == 9
    at.run()
    assert frame(at) == 9
    assert not at.exception


def test_clicking_play_does_not_itself_skip_a_frame():
    # Play starts the timer; the first step comes with the first tick, not with the click
    at = go(start('reuse'), 3)
    at.button(key='play').click().run()
    assert at.session_state['playing'] is True
    assert frame(at) == 3


def test_play_at_the_last_frame_starts_again_from_frame_zero():
    at = go(start('reuse'), 9)
    at.button(key='play').click().run()
    assert at.session_state['playing'] is True
    assert frame(at) == 0  # the inputs frame is shown, not skipped


def test_pause_and_next_stop_playing():
    at = start('reuse')
    at.button(key='play').click().run()
    at.button(key='play').click().run()  # Pause
    assert at.session_state['playing'] is False
    k = frame(at)
    at.run()
    assert frame(at) == k
    at.button(key='play').click().run()
    at.button(key='next').click().run()
    assert at.session_state['playing'] is False


def test_forward_toggle_off_starts_at_the_seed():
    at = start('neuron')
    at.toggle(key='forward').set_value(False).run()
    assert not at.exception
    # the seed frame and one step per node: 11 frames
    assert last_frame(at) == 10
    assert frame(at) == 0
    g = grads(at)
    assert g['o'] == '1.0000'
    assert all(v == NOT_COMPUTED for name, v in g.items() if name != 'o')
    # without forward frames every op already has its data
    assert data(at)['o'] == '0.7071'
    go(at, 10)
    assert grads(at)['x1'] == '-1.5000'


# --- chain and typed formulas ---------------------------------------------------------------------


def test_chain_of_length_three_has_inputs_x_and_w_and_output_h3():
    at = start('chain')
    at.number_input(key='chain_length').set_value(3).run()
    assert not at.exception
    assert at.number_input(key='input:chain:x').value == 0.5
    assert at.number_input(key='input:chain:w').value == 1.5
    assert set(boxes(at)) == {'x', 'w', 'z1', 'h1', 'z2', 'h2', 'z3', 'h3'}
    # 2 inputs, 6 ops: 1 + 6 + 1 + 8 = 16 frames
    assert last_frame(at) == 15
    go(at, 15)
    x, w = 0.5, 1.5
    h1 = math.tanh(x * w)
    h2 = math.tanh(h1 * w)
    h3 = math.tanh(h2 * w)
    d1, d2, d3 = 1 - h1**2, 1 - h2**2, 1 - h3**2
    dx = d3 * w * d2 * w * d1 * w
    dw = d3 * (h2 + w * d2 * (h1 + w * d1 * x))
    assert data(at)['h3'] == f4(h3)
    assert grads(at)['h3'] == '1.0000'
    assert grads(at)['x'] == f4(dx)
    assert grads(at)['w'] == f4(dw)


def test_typed_formula_gets_its_own_inputs_and_grads():
    at = start('custom')
    at.text_input(key='formula').input('a*b + a*a').run()
    assert not at.exception and not at.error
    at.number_input(key='input:custom:a').set_value(3.0).run()
    at.number_input(key='input:custom:b').set_value(-2.0).run()
    assert not at.exception
    go(at, last_frame(at))
    g = grads(at)
    assert (g['a'], g['b']) == ('4.0000', '3.0000')


def test_typed_formula_can_name_its_output_as_the_help_says():
    # 'L = ...' names the output; the lecture's L = (a*b + c) * f with a=2, b=-3, c=10, f=-2
    at = start('custom')
    at.text_input(key='formula').input('L = (a*b + c) * f').run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    for name, value in {'a': 2.0, 'b': -3.0, 'c': 10.0, 'f': -2.0}.items():
        at.number_input(key=f'input:custom:{name}').set_value(value).run()
    go(at, last_frame(at))
    assert data(at)['L'] == '-8.0000'
    g = grads(at)
    assert (g['a'], g['b'], g['c'], g['f'], g['L']) == ('6.0000', '-4.0000', '-2.0000', '4.0000', '1.0000')


BAD_FORMULAS = [
    ('a +* b', r'column 4\b'),  # the * is the 4th character
    ("__import__('os')", r'import'),
    ('x.y', r'"\."|attribute'),
]


@pytest.mark.parametrize(('text', 'mention'), BAD_FORMULAS)
def test_a_bad_formula_shows_an_error_and_no_chart(text, mention):
    at = start('custom')
    at.text_input(key='formula').input(text).run()
    assert not at.exception
    assert not at.get('graphviz_chart')
    (error,) = at.error
    assert re.search(mention, outside_code(error.value)), error.value  # in the message, not just the echoed text
    # then a good one brings the chart back
    at.text_input(key='formula').input('a*b').run()
    assert not at.exception and not at.error
    assert 'digraph' in dot(at)


def test_syntax_error_points_at_its_column():
    at = start('custom')
    at.text_input(key='formula').input('a +* b').run()
    (caret,) = at.code
    assert caret.value == 'a +* b\n   ^'  # printed as code: never markdown


def test_formula_error_message_shows_names_literally_not_as_markdown():
    # "__import__" in plain markdown renders as a bold "import": the name must be escaped or in backticks
    at = start('custom')
    at.text_input(key='formula').input("__import__('os')").run()
    (error,) = at.error
    prose = outside_code(error.value)
    assert '__import__' not in prose.replace('\\_', ''), error.value


# --- links ----------------------------------------------------------------------------------------


def test_a_link_opens_the_lecture_with_its_inputs_at_its_frame():
    at = start(query={'expr': 'lecture', 'v.a': '3', 'step': '5'})
    assert at.selectbox(key='expr').value == 'lecture'
    assert at.number_input(key='input:lecture:a').value == 3.0
    assert at.number_input(key='input:lecture:b').value == -3.0
    assert frame(at) == 5
    assert not at.toast
    # a=3: e = -9, d = 1, L = -2. Frame 5 is L's step: d.grad += f = -2, f.grad += d = 1
    d, g = data(at), grads(at)
    assert (d['e'], d['d'], d['L']) == ('-9.0000', '1.0000', '-2.0000')
    assert (g['d'], g['f'], g['L']) == ('-2.0000', '1.0000', '1.0000')
    assert g['a'] == g['e'] == NOT_COMPUTED


def test_a_link_beyond_the_last_frame_opens_the_last_frame():
    at = start(query={'expr': 'reuse', 'step': '1000000'})
    assert frame(at) == 9


def shared_link(at):
    """Open the share panel; the link it shows, as a query dict."""
    at.button(key='share').click().run()
    assert not at.exception
    (url,) = [c.value for c in at.code if '?' in c.value]
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def test_the_share_panels_link_reopens_the_page_at_its_frame():
    at = start('reuse')
    at.number_input(key='input:reuse:a').set_value(2.5).run()
    at.toggle(key='forward').set_value(False).run()
    go(at, 3)
    query = shared_link(at)
    assert query['expr'] == 'reuse'
    assert float(query['v.a']) == 2.5 and float(query['v.b']) == -2.0
    assert query['step'] == '3'
    other = start(query=query)
    assert other.selectbox(key='expr').value == 'reuse'
    assert other.toggle(key='forward').value is False
    assert frame(other) == 3
    assert dot(other) == dot(at)


@pytest.mark.parametrize('formula', ['L = a/b + c**2 - exp(-x)', 'y = 2*x/(1 + x**2)', 'tanh(x)*tanh(x)'])
def test_the_share_panels_link_keeps_a_typed_formula_exactly(formula):
    at = start(query={'expr': 'custom', 'formula': formula, 'v.x': '0.25'})
    query = shared_link(at)
    assert query['formula'] == formula and query['expr'] == 'custom'
    other = start(query=query)
    assert other.text_input(key='formula').value == formula
    assert float(query['v.x']) == 0.25 and other.number_input(key='input:custom:x').value == 0.25


def test_a_link_made_by_the_page_of_december_2026_still_opens():
    """A link as the page wrote it before the share panel, kept verbatim: old links in slides must keep working."""
    link = 'expr=custom&formula=L%20%3D%20a*b%20%2B%20c&v.a=2.0&v.b=-3.0&v.c=10.0&step=end&forward=0&speed=4'
    at = start(query=dict(parse_qsl(link)))
    assert at.text_input(key='formula').value == 'L = a*b + c'
    assert at.toggle(key='forward').value is False and at.select_slider(key='speed').value == 4.0
    assert frame(at) == last_frame(at)
    assert data(at)['L'] == '4.0000'  # 2 × −3 + 10, by hand
    assert grads(at)['a'] == '-3.0000' and grads(at)['b'] == '2.0000' and grads(at)['c'] == '1.0000'


def test_a_link_to_a_typed_formula_opens_it():
    at = start(query={'expr': 'custom', 'formula': 'L=a*b + a*a', 'v.a': '3', 'v.b': '-2', 'step': '1000000'})
    assert at.text_input(key='formula').value == 'L=a*b + a*a'
    g = grads(at)
    assert (g['a'], g['b'], g['L']) == ('4.0000', '3.0000', '1.0000')


def test_a_link_to_a_chain_sets_its_length():
    at = start(query={'expr': 'chain', 'n': '3'})
    assert set(boxes(at)) == {'x', 'w', 'z1', 'h1', 'z2', 'h2', 'z3', 'h3'}


def test_a_tampered_link_falls_back_to_the_defaults():
    at = start(
        query={'expr': '../../etc', 'step': '-1', 'v.a': 'nan', 'v.__class__': '1', 'speed': '1e999', 'n': '10000000'}
    )
    assert not at.exception
    assert at.selectbox(key='expr').value == 'neuron'
    assert frame(at) == 0
    assert at.select_slider(key='speed').value == 2.0
    assert at.toggle(key='forward').value is True
    assert not [key for key in at.session_state.keys() if '__class__' in key]
    assert data(at)['x1'] == '2.0000'
    (toast,) = at.toast
    for key in ('expr', 'step', 'speed', 'v.a'):
        assert key in toast.value.replace('\\', '')  # printed literally: every mark escaped


def test_a_link_with_a_huge_formula_falls_back_to_the_default_formula():
    at = start(query={'expr': 'custom', 'formula': 'a+' * 5000})
    assert not at.exception
    assert not at.error
    assert at.text_input(key='formula').value == 'tanh(x1*w1 + x2*w2 + b)'
    assert {'x1', 'w1', 'x2', 'w2', 'b'} <= set(boxes(at))


def test_a_link_cannot_put_markdown_into_the_page():
    # the names of unreadable parameters are echoed in a toast, which renders markdown
    at = start(query={'[click here](https://example.com)': '1'})
    assert not at.exception
    (toast,) = at.toast
    assert '](' not in outside_code(toast.value).replace('\\]', ''), toast.value


def test_switching_off_the_answers_hides_the_final_grad_column_until_the_class_has_worked_them_out():
    at = start('reuse')
    (table,) = [d.value for d in at.dataframe if 'grad now' in d.value.columns]
    assert list(table['final grad']) == ['4.0000', '3.0000', '1.0000', '1.0000', '1.0000']  # a, b, a*b, a*a, out
    at.toggle(key='answers').set_value(False).run()
    (table,) = [d.value for d in at.dataframe if 'grad now' in d.value.columns]
    assert 'final grad' not in table.columns
    assert set(table['grad now']) == {NOT_COMPUTED}  # frame 0: nothing computed, nothing given away
