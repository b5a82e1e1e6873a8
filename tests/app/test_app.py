"""The page as a visitor drives it, through Streamlit's AppTest: pick, set, step, link; on both of the player's layout
sources, the server's dot and (with dot hidden from the PATH) the browser's Graphviz (see Page, which reads the
player's data as the visitor sees it).

Every expected number is derived by hand from the formula (or is one of the lecture's known values),
never read back from the engine.
"""

import json
import math
import re
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from player_data import replay, text_of
from streamlit.testing.v1 import AppTest
from test_player import player_parts

import state
from engine import PRESETS
from tests.support.serve import LAYOUT_SOURCES, NO_DOT_PATH
from view.graph import LEGEND
from view.node_table import ANSWER_COLUMN as ANSWERS
from view.node_table import STATE_COLUMN as STATE

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / 'app.py')
EXPRESSIONS = list(state.EXPRESSIONS)  # every preset, and a typed formula
NOT_COMPUTED = '·'
STATES = ('not computed yet', 'has more += to come', 'is final')  # the legend's words for a grad's state


# --- the page, on either layout source -----------------------------------------------------------------


@pytest.fixture(autouse=True, params=LAYOUT_SOURCES)
def source(request, monkeypatch):
    """Every page test runs on both of the player's layout sources: the server's dot, which every deployment has
    (packages.txt and the Dockerfile install Graphviz), and the browser's Graphviz, which lays the graph out where
    the server has no dot (here: dot hidden from the PATH). The player gets the SVG or the DOT; the rest is the same."""
    if request.param == 'browser':
        monkeypatch.setenv('PATH', NO_DOT_PATH)
    return request.param


class Page:
    """A visitor's page under AppTest, read as the visitor sees it at the frame shown.

    The player is sent every frame at once and steps in the browser, with no script run: a frame is read from the
    player's data
    (its patches replayed as the browser applies them, its captions, explanations, table and grad check), at
    the frame the browser shows, which follows the gotos it is sent as player.js does. Anything else (widgets,
    toasts, errors, the query) is the AppTest's: page.selectbox(...), page.toast, ...
    """

    def __init__(self, at, source):
        self.at, self.source = at, source
        self._shown = self._goto = None  # the player's frame, and the id of the last goto it obeyed

    def __getattr__(self, name):
        return getattr(self.at, name)

    # --- the player's data: a line of JSON for this run, then the body made once per expression and inputs

    def _player(self):
        (player,) = [e for e in self.at.main if getattr(e, 'key', None) == 'graph']
        head, graph, body = player_parts(player)
        return json.loads(head), graph, body

    def head(self):
        return self._player()[0]

    def body(self):
        _, graph, body = self._player()
        return json.loads(graph) | json.loads(body)

    def _follow(self):
        """The frame player.js shows after this run: a goto it has not obeyed moves it (an 'open' one only when it
        shows nothing yet), otherwise it stays where the visitor left it, within the frames of its body."""
        head, n = self.head(), len(self.body()['patches'])
        target = 0 if self._shown is None else self._shown
        if head['goto']['id'] != self._goto:
            self._goto = head['goto']['id']
            if self._shown is None or not head['goto']['open']:
                target = head['goto']['frame']
        self._shown = max(0, min(n - 1, target))
        return self._shown

    # --- stepping

    @property
    def frame(self):
        return self._follow()

    @property
    def last_frame(self):
        return len(self.body()['patches']) - 1

    def go(self, k):
        """Step to frame k, as the player does in the browser (no script run)."""
        self._follow()
        assert 0 <= k <= self.last_frame
        self._shown = k
        assert self.frame == k
        return self

    # --- what the frame shows

    def has_graph(self):
        """Whether the page draws a graph: one player, with the server's laid-out SVG or, without dot, the DOT that
        the browser lays out (and nothing else to lay out: no chart)."""
        players = [e for e in self.at.main if getattr(e, 'key', None) == 'graph']
        if len(players) != 1 or self.at.get('graphviz_chart'):
            return False
        body = self.body()
        return body['svg'].startswith('<svg') if self.source == 'dot' else body['dot'].startswith('digraph')

    def graph(self):
        """What the graph is drawn from: the player's graph (its layout) and body (its patches), as bytes."""
        _, graph, body = self._player()
        return graph + b'\n' + body

    def caption(self):
        """'Frame k of n · what it shows', as under the slider (as player.js writes it)."""
        body = self.body()
        return f'{body["labels"][self.frame]} · {body["captions"][self.frame]}'

    def table(self):
        """The node table: {column: [cell per node]}; the answer column only where the page shows it."""
        body, head = self.body(), self.head()
        values = replay(body['patches'])[self.frame][0]
        # node, op, data, grad now, on the `=` engine what += gives, the grad's state, the answers
        columns = body['table']['columns']
        table = {'node': body['table']['names'], 'op': body['table']['ops']}
        table['data'] = [values[i][0].strip() for i in range(len(values))]  # as player.js fills the cells
        table['grad now'] = [values[i][1].strip() for i in range(len(values))]
        if body['table']['beside']:  # what += gives (the `=` engine), or the right engine beside a student's bodies
            table[columns[4]] = [values[i][4] for i in range(len(values))]
        table[STATE] = [body['table']['states'][values[i][2]] for i in range(len(values))]
        if head['answers']:
            table[ANSWERS] = body['table']['finals']
        assert list(table) == columns[: len(table)]
        return table

    def boxes(self):
        """{node name: (data text, grad text)} at this frame."""
        table = self.table()
        return {name: (d, g) for name, d, g in zip(table['node'], table['data'], table['grad now'])}

    def grads(self):
        return {name: grad for name, (_, grad) in self.boxes().items()}

    def data(self):
        return {name: value for name, (value, _) in self.boxes().items()}

    def explanation(self):
        """The explanation panel's text, as the reader sees it (the player's HTML)."""
        return text_of(self.body()['explanations'][self.frame])

    def summary(self):
        """The grad check, [{column: cell}] per input, or None where the page does not show it."""
        check = self.body()['summary']
        if self.frame != self.last_frame or not check:
            return None  # player.js shows it at the last frame only
        columns = [text_of(th) for th in re.findall(r'<th>(.*?)</th>', check)]
        rows = re.findall(r'<tr>\s*(<td>.*?)</tr>', check, flags=re.S)
        return [dict(zip(columns, map(text_of, re.findall(r'<td>(.*?)</td>', row)))) for row in rows]


@pytest.fixture
def start(source):
    """start(expr=None, query=None): a fresh visitor's page, opened from a link with `query`, switched to `expr`."""

    def start(expr=None, query=None):
        at = AppTest.from_file(APP, default_timeout=30)
        at.query_params.update(query or {})
        at.run()
        if expr is not None:
            at.selectbox(key='expr').select(expr).run()
        assert not at.exception
        return Page(at, source)

    return start


def outside_code(markdown):
    """The markdown text outside code fences and code spans: where markdown syntax takes effect."""
    markdown = re.sub(r'```.*?```', '', markdown, flags=re.S)
    return re.sub(r'`[^`]*`', '', markdown)


def f4(x):
    return f'{x:.4f}'


# --- every expression ------------------------------------------------------------------------------


@pytest.mark.parametrize('expr', EXPRESSIONS)
def test_every_expression_renders_at_its_first_and_last_frame(start, expr):
    page = start(expr)
    assert page.selectbox(key='expr').value == expr
    assert page.frame == 0
    assert not page.error
    assert page.has_graph()
    page.go(page.last_frame)
    assert not page.error
    assert page.has_graph()
    # at the last frame every node has its final grad: none is still blank
    assert NOT_COMPUTED not in page.grads().values()


@pytest.mark.parametrize('expr', EXPRESSIONS)
def test_grad_check_finite_differences_agree_with_backward_at_the_last_frame(start, expr):
    page = start(expr)
    page.go(page.last_frame)
    rows = page.summary()
    assert rows
    for row in rows:
        backward, numeric = float(row['grad (backward)']), float(row['finite difference'])
        assert math.isclose(backward, numeric, rel_tol=1e-4, abs_tol=1e-4), row


# --- the neuron: the lecture's known values --------------------------------------------------------


def test_neuron_last_frame_shows_the_lecture_grads_and_output(start):
    page = start('neuron')
    page.go(page.last_frame)
    g = page.grads()
    assert g['x1'] == '-1.5000'
    assert g['w1'] == '1.0000'
    assert g['x2'] == '0.5000'
    assert g['w2'] == '0.0000'
    assert g['b'] == '0.5000'
    assert g['o'] == '1.0000'
    d = page.data()
    assert d['o'] == '0.7071'
    assert d['n'] == '0.8814'


def test_neuron_frame_zero_shows_inputs_only_and_no_grads(start):
    page = start('neuron')
    assert page.frame == 0
    assert page.caption() == 'Frame 1 of 17 · forward pass: the inputs are set'
    b = page.boxes()
    assert set(b) == {'x1', 'w1', 'x2', 'w2', 'b', 'x1*w1', 'x2*w2', 'x1*w1 + x2*w2', 'n', 'o'}
    assert all(grad == NOT_COMPUTED for _, grad in b.values())
    for op in ('x1*w1', 'x2*w2', 'x1*w1 + x2*w2', 'n', 'o'):
        assert b[op][0] == NOT_COMPUTED
    assert b['x1'][0] == '2.0000'
    assert b['w1'][0] == '-3.0000'
    assert b['x2'][0] == '0.0000'
    assert b['w2'][0] == '1.0000'
    assert b['b'][0] == '6.8814'


def test_neuron_frame_count_is_inputs_plus_ops_plus_seed_plus_one_step_per_node(start):
    # 5 inputs and 5 ops: 1 + 5 forward frames, the seed, 10 backward steps = 17 frames
    assert start('neuron').last_frame == 16


def test_grad_check_table_appears_only_at_the_last_frame(start):
    page = start('neuron')
    n = page.last_frame
    for k in (0, 5, 6, n - 1):
        page.go(k)
        assert page.summary() is None, k
    page.go(n)
    rows = page.summary()
    hand = {'x1': -1.5, 'w1': 1.0, 'x2': 0.5, 'w2': 0.0, 'b': 0.5}
    assert [row['input'] for row in rows] == list(hand)
    for row in rows:
        assert abs(float(row['finite difference']) - hand[row['input']]) < 1e-4, row


# --- the lecture's L, the pitfalls ------------------------------------------------------------------


def test_lecture_forward_frames_compute_e_then_d_then_l(start):
    page = start('lecture')
    assert page.data()['e'] == NOT_COMPUTED
    page.go(1)
    assert (page.data()['e'], page.data()['d'], page.data()['L']) == ('-6.0000', NOT_COMPUTED, NOT_COMPUTED)
    page.go(2)
    assert (page.data()['d'], page.data()['L']) == ('4.0000', NOT_COMPUTED)
    page.go(3)
    assert page.data()['L'] == '-8.0000'
    assert set(page.grads().values()) == {NOT_COMPUTED}


def test_lecture_last_frame_shows_the_lecture_grads(start):
    page = start('lecture')
    page.go(page.last_frame)
    g = page.grads()
    assert (g['a'], g['b'], g['c'], g['f']) == ('6.0000', '-4.0000', '-2.0000', '4.0000')
    assert (g['e'], g['d'], g['L']) == ('-2.0000', '-2.0000', '1.0000')


def test_a_plus_a_gives_a_grad_two_not_one(start):
    page = start('a_plus_a')
    page.go(page.last_frame)
    assert page.data()['b'] == '6.0000'
    assert page.grads()['a'] == '2.0000'


def test_ab_times_a_plus_b_sums_both_paths(start):
    # f = (a*b)*(a+b), a=-2, b=3: d=-6, e=1, f=-6; df/da = b*e + d = -3, df/db = a*e + d = -8
    page = start('ab_times_a_plus_b')
    page.go(page.last_frame)
    assert (page.data()['d'], page.data()['e'], page.data()['f']) == ('-6.0000', '1.0000', '-6.0000')
    assert (page.grads()['a'], page.grads()['b']) == ('-3.0000', '-8.0000')


# --- reuse: the += lesson ---------------------------------------------------------------------------


def test_reuse_a_grad_accumulates_frame_by_frame(start):
    # order: a, b, a*b, a*a, out. Frames: 0 inputs, 1-3 forward, 4 seed, 5 out's step,
    # 6 a*a's step (a += 3, += 3), 7 a*b's step (a += b = -2, b += a = 3), 8 b, 9 a
    page = start('reuse')
    assert page.last_frame == 9
    seen = []
    for k in range(10):
        page.go(k)
        seen.append(page.grads()['a'])
    assert seen == [NOT_COMPUTED] * 6 + ['6.0000'] + ['4.0000'] * 3
    page.go(7)
    assert page.grads()['b'] == '3.0000'
    assert page.data()['out'] == '3.0000'


def test_reuse_captions_say_what_each_frame_shows(start):
    page = start('reuse')
    captions = [page.go(k).caption() for k in (0, 1, 4, 6, 8)]
    assert captions == [
        'Frame 1 of 10 · forward pass: the inputs are set',
        'Frame 2 of 10 · forward pass: a*b = a × b',
        'Frame 5 of 10 · backward pass starts: out.grad = 1',
        'Frame 7 of 10 · backward pass: a*a = a × a passes its grad back',
        'Frame 9 of 10 · backward pass: b is a leaf, nothing to pass on',
    ]


def test_reuse_explanation_at_the_a_times_a_step_shows_both_contributions(start):
    text = start('reuse').go(6).explanation()
    assert text.count('a.grad += a.data × (a*a).grad = 3.0000 × 1.0000 = 3.0000') == 2
    assert re.search(r'·\s*→\s*\**3\.0000', text), text
    assert re.search(r'3\.0000\s*→\s*\**6\.0000', text), text
    # the code panel shows the multiplication's _backward
    assert 'self.grad += other.data * out.grad' in text


def test_reuse_explanation_at_the_a_times_b_step_adds_b(start):
    text = start('reuse').go(7).explanation()
    assert 'a.grad += b.data × (a*b).grad = −2.0000 × 1.0000 = −2.0000' in text  # the explanation's true minus
    assert 'b.grad += a.data × (a*b).grad = 3.0000 × 1.0000 = 3.0000' in text
    assert re.search(r'6\.0000\s*→\s*\**4\.0000', text), text


def test_changing_an_input_changes_the_graph_and_the_grads(start):
    page = start('reuse')
    before = page.graph()
    page.number_input(key='input:reuse:a').set_value(2.0).run()
    assert not page.exception
    assert page.graph() != before
    page.go(page.last_frame)
    # a=2, b=-2: a*b = -4, a*a = 4, out = 0; grads a = b + 2a = 2, b = a = 2
    assert (page.data()['a*b'], page.data()['a*a'], page.data()['out']) == ('-4.0000', '4.0000', '0.0000')
    assert (page.grads()['a'], page.grads()['b']) == ('2.0000', '2.0000')


def test_values_survive_a_visit_to_another_expression(start):
    page = start('reuse')
    page.number_input(key='input:reuse:a').set_value(2.0).run()
    page.selectbox(key='expr').select('chain').run()
    page.number_input(key='chain_length').set_value(3).run()
    page.selectbox(key='expr').select('custom').run()
    page.text_input(key='formula').input('a*b').run()
    page.selectbox(key='expr').select('neuron').run()
    page.selectbox(key='expr').select('reuse').run()
    assert page.number_input(key='input:reuse:a').value == 2.0
    assert page.data()['a'] == '2.0000'
    page.selectbox(key='expr').select('chain').run()
    assert page.number_input(key='chain_length').value == 3
    assert 'h3' in page.boxes() and 'h4' not in page.boxes()
    page.selectbox(key='expr').select('custom').run()
    assert page.text_input(key='formula').value == 'a*b'
    assert not page.exception


def test_forward_toggle_off_starts_at_the_seed(start):
    page = start('neuron')
    page.toggle(key='forward').set_value(False).run()
    assert not page.exception
    # the seed frame and one step per node: 11 frames
    assert page.last_frame == 10
    assert page.frame == 0
    g = page.grads()
    assert g['o'] == '1.0000'
    assert all(v == NOT_COMPUTED for name, v in g.items() if name != 'o')
    # without forward frames every op already has its data
    assert page.data()['o'] == '0.7071'
    page.go(10)
    assert page.grads()['x1'] == '-1.5000'


# --- chain and typed formulas ---------------------------------------------------------------------


def test_chain_of_length_three_has_inputs_x_and_w_and_output_h3(start):
    page = start('chain')
    page.number_input(key='chain_length').set_value(3).run()
    assert not page.exception
    assert page.number_input(key='input:chain:x').value == 0.5
    assert page.number_input(key='input:chain:w').value == 1.5
    assert set(page.boxes()) == {'x', 'w', 'z1', 'h1', 'z2', 'h2', 'z3', 'h3'}
    # 2 inputs, 6 ops: 1 + 6 + 1 + 8 = 16 frames
    assert page.last_frame == 15
    page.go(15)
    x, w = 0.5, 1.5
    h1 = math.tanh(x * w)
    h2 = math.tanh(h1 * w)
    h3 = math.tanh(h2 * w)
    d1, d2, d3 = 1 - h1**2, 1 - h2**2, 1 - h3**2
    dx = d3 * w * d2 * w * d1 * w
    dw = d3 * (h2 + w * d2 * (h1 + w * d1 * x))
    assert page.data()['h3'] == f4(h3)
    assert page.grads()['h3'] == '1.0000'
    assert page.grads()['x'] == f4(dx)
    assert page.grads()['w'] == f4(dw)


def test_typed_formula_gets_its_own_inputs_and_grads(start):
    page = start('custom')
    page.text_input(key='formula').input('a*b + a*a').run()
    assert not page.exception and not page.error
    page.number_input(key='input:custom:a').set_value(3.0).run()
    page.number_input(key='input:custom:b').set_value(-2.0).run()
    assert not page.exception
    page.go(page.last_frame)
    g = page.grads()
    assert (g['a'], g['b']) == ('4.0000', '3.0000')


def test_a_formula_that_types_a_subexpression_twice_says_so_under_its_heading(start):
    page = start(query={'expr': 'custom', 'formula': '(x*w + b)*(x*w + b)'})
    assert not page.exception and not page.error
    notes = [c.value for c in page.main.caption if 'computes it twice' in c.value]
    assert len(notes) == 1 and 'x\\*w\\+b and \\(x\\*w\\)′\\+b' in notes[0]  # printed, every mark escaped
    assert {'x*w+b', '(x*w)′+b'} <= set(page.data())  # the graph's names, as the note gives them
    page.text_input(key='formula').input('x*w + b').run()  # typed once: no note
    assert not [c for c in page.main.caption if 'computes it' in c.value]


def test_typed_formula_can_name_its_output_as_the_help_says(start):
    # 'L = ...' names the output; the lecture's L = (a*b + c) * f with a=2, b=-3, c=10, f=-2
    page = start('custom')
    page.text_input(key='formula').input('L = (a*b + c) * f').run()
    assert not page.exception and not page.error, [e.value for e in page.error]
    for name, value in {'a': 2.0, 'b': -3.0, 'c': 10.0, 'f': -2.0}.items():
        page.number_input(key=f'input:custom:{name}').set_value(value).run()
    page.go(page.last_frame)
    assert page.data()['L'] == '-8.0000'
    g = page.grads()
    assert (g['a'], g['b'], g['c'], g['f'], g['L']) == ('6.0000', '-4.0000', '-2.0000', '4.0000', '1.0000')


BAD_FORMULAS = [
    ('a +* b', r'column 4\b'),  # the * is the 4th character
    ("__import__('os')", r'import'),
    ('x.y', r'"\."|attribute'),
]


@pytest.mark.parametrize(('text', 'mention'), BAD_FORMULAS)
def test_a_bad_formula_shows_an_error_and_no_graph(start, text, mention):
    page = start('custom')
    page.text_input(key='formula').input(text).run()
    assert not page.exception
    assert not page.has_graph()
    (error,) = page.error
    assert re.search(mention, outside_code(error.value)), error.value  # in the message, not just the echoed text
    # then a good one brings the graph back
    page.text_input(key='formula').input('a*b').run()
    assert not page.exception and not page.error
    assert page.has_graph()


def test_syntax_error_points_at_its_column(start):
    page = start('custom')
    page.text_input(key='formula').input('a +* b').run()
    (caret,) = page.code
    assert caret.value == 'a +* b\n   ^'  # printed as code: never markdown


def test_formula_error_message_shows_names_literally_not_as_markdown(start):
    # "__import__" in plain markdown renders as a bold "import": the name must be escaped or in backticks
    page = start('custom')
    page.text_input(key='formula').input("__import__('os')").run()
    (error,) = page.error
    prose = outside_code(error.value)
    assert '__import__' not in prose.replace('\\_', ''), error.value


# --- links ----------------------------------------------------------------------------------------


def test_a_link_opens_the_lecture_with_its_inputs_at_its_frame(start):
    page = start(query={'expr': 'lecture', 'v.a': '3', 'step': '5'})
    assert page.selectbox(key='expr').value == 'lecture'
    assert page.number_input(key='input:lecture:a').value == 3.0
    assert page.number_input(key='input:lecture:b').value == -3.0
    assert page.frame == 5
    assert not page.toast
    # a=3: e = -9, d = 1, L = -2. Frame 5 is L's step: d.grad += f = -2, f.grad += d = 1
    d, g = page.data(), page.grads()
    assert (d['e'], d['d'], d['L']) == ('-9.0000', '1.0000', '-2.0000')
    assert (g['d'], g['f'], g['L']) == ('-2.0000', '1.0000', '1.0000')
    assert g['a'] == g['e'] == NOT_COMPUTED


def test_a_link_beyond_the_last_frame_opens_the_last_frame(start):
    page = start(query={'expr': 'reuse', 'step': '1000000'})
    assert page.frame == 9


@pytest.mark.parametrize('formula', ['L = a/b + c**2 - exp(-x)', 'y = 2*x/(1 + x**2)', 'tanh(x)*tanh(x)'])
def test_the_pages_link_keeps_a_typed_formula_exactly(start, formula):
    # the link the page writes (the address bar; the share panel's is the same, with the frame: state.to_query)
    page = start(query={'expr': 'custom', 'formula': formula, 'v.x': '0.25'})
    query = {key: page.query_params[key] for key in page.query_params}
    query = {key: value[0] if isinstance(value, list) else value for key, value in query.items()}
    assert query['formula'] == formula and query['expr'] == 'custom'
    other = start(query=query)
    assert other.text_input(key='formula').value == formula
    assert float(query['v.x']) == 0.25 and other.number_input(key='input:custom:x').value == 0.25


def test_a_link_made_by_the_page_of_december_2026_still_opens(start):
    """A link as the page wrote it before the share panel, kept verbatim: old links in slides must keep working."""
    link = 'expr=custom&formula=L%20%3D%20a*b%20%2B%20c&v.a=2.0&v.b=-3.0&v.c=10.0&step=end&forward=0&speed=4'
    page = start(query=dict(parse_qsl(link)))
    assert page.text_input(key='formula').value == 'L = a*b + c'
    assert page.toggle(key='forward').value is False and page.select_slider(key='speed').value == 4.0
    assert page.frame == page.last_frame
    assert page.data()['L'] == '4.0000'  # 2 × −3 + 10, by hand
    assert page.grads()['a'] == '-3.0000' and page.grads()['b'] == '2.0000' and page.grads()['c'] == '1.0000'


def test_a_link_to_a_typed_formula_opens_it(start):
    page = start(query={'expr': 'custom', 'formula': 'L=a*b + a*a', 'v.a': '3', 'v.b': '-2', 'step': '1000000'})
    assert page.text_input(key='formula').value == 'L=a*b + a*a'
    g = page.grads()
    assert (g['a'], g['b'], g['L']) == ('4.0000', '3.0000', '1.0000')


def test_a_link_to_a_chain_sets_its_length(start):
    page = start(query={'expr': 'chain', 'n': '3'})
    assert set(page.boxes()) == {'x', 'w', 'z1', 'h1', 'z2', 'h2', 'z3', 'h3'}


def test_a_tampered_link_falls_back_to_the_defaults(start):
    page = start(
        query={'expr': '../../etc', 'step': '-1', 'v.a': 'nan', 'v.__class__': '1', 'speed': '1e999', 'n': '10000000'}
    )
    assert not page.exception
    assert page.selectbox(key='expr').value == 'neuron'
    assert page.frame == 0
    assert page.select_slider(key='speed').value == 2.0
    assert page.toggle(key='forward').value is True
    assert not [key for key in page.session_state.keys() if '__class__' in key]
    assert page.data()['x1'] == '2.0000'
    (toast,) = page.toast
    for key in ('expr', 'step', 'speed', 'v.a'):
        assert key in toast.value.replace('\\', '')  # printed literally: every mark escaped


def test_a_links_input_past_the_limit_is_clamped_to_the_nearer_bound_with_a_toast(start):
    # docs/hosting.md: inputs stay within ±10⁶, and a tampered value is clamped to the nearer bound
    page = start(query={'expr': 'reuse', 'v.a': '1e7', 'v.b': '-inf'})
    assert page.sidebar.number_input(key='input:reuse:a').value == 1e6
    assert page.sidebar.number_input(key='input:reuse:b').value == -1e6
    (toast,) = page.toast
    assert 'a, b' in toast.value and '1,000,000' in toast.value


def test_a_link_with_a_huge_formula_falls_back_to_the_default_formula(start):
    page = start(query={'expr': 'custom', 'formula': 'a+' * 5000})
    assert not page.exception
    assert not page.error
    assert page.text_input(key='formula').value == 'tanh(x1*w1 + x2*w2 + b)'
    assert {'x1', 'w1', 'x2', 'w2', 'b'} <= set(page.boxes())


def test_a_link_cannot_put_markdown_into_the_page(start):
    # the names of unreadable parameters are echoed in a toast, which renders markdown
    page = start(query={'[click here](https://example.com)': '1'})
    assert not page.exception
    (toast,) = page.toast
    assert '](' not in outside_code(toast.value).replace('\\]', ''), toast.value


def test_the_answers_column_is_hidden_until_asked_for_and_hides_again(start):
    page = start('reuse')
    assert ANSWERS not in page.table()  # by default: the table gives nothing away at frame 0
    page.toggle(key='answers').set_value(True).run()
    # out = a*b + a*a at a = 3, b = -2: a.grad = b + 2a = 4, b.grad = a = 3, and 1 for a*b, a*a and out
    assert page.table()[ANSWERS] == ['4.0000', '3.0000', '1.0000', '1.0000', '1.0000']
    page.toggle(key='answers').set_value(False).run()
    table = page.table()
    assert ANSWERS not in table
    assert set(table['grad now']) == {NOT_COMPUTED}  # frame 0: nothing computed, nothing given away


def test_an_old_link_that_asks_for_the_answers_still_shows_them(start):
    page = start(query={'expr': 'reuse', 'answers': '1'})
    assert page.toggle(key='answers').value is True
    assert page.table()[ANSWERS] == ['4.0000', '3.0000', '1.0000', '1.0000', '1.0000']
    assert not page.toast


def test_the_table_says_each_grads_state_in_the_legends_words(start):
    # reuse's frames: inputs 0, a*b 1, a*a 2, out 3, the seed 4, then out 5, a*a 6, a*b 7, b 8, a 9
    page = start('reuse')
    for word in STATES:
        assert f'grad {word}' in LEGEND
    assert page.table()[STATE] == [STATES[0]] * 5  # frame 0: not computed yet
    page.go(6)  # a*a has written a twice (3, then 6); a*b's += is still to come; b is not computed yet
    table = dict(zip(page.table()['node'], page.table()[STATE]))
    assert table == {'a': STATES[1], 'b': STATES[0], 'a*b': STATES[2], 'a*a': STATES[2], 'out': STATES[2]}
    page.go(page.last_frame)
    assert page.table()[STATE] == [STATES[2]] * 5


def test_switching_off_the_leaves_skips_the_frames_whose_backward_does_nothing(start):
    page = start('neuron')
    assert page.last_frame == 16  # inputs, 5 ops, the seed, 10 steps
    page.toggle(key='leaves').set_value(False).run()
    assert page.last_frame == 11  # the 5 leaves' steps are gone
    page.go(page.last_frame)  # x1*w1's step, the last op back: every input now has its lecture grad
    assert 'x1*w1 = x1 × w1 passes its grad' in page.explanation()
    g = page.grads()
    assert (g['x1'], g['w1'], g['x2'], g['w2'], g['b']) == ('-1.5000', '1.0000', '0.5000', '0.0000', '0.5000')
    assert page.summary()  # the grad check, at the last frame left
    assert page.query_params['leaves'] in ('0', ['0'])  # the link keeps the switch


@pytest.mark.parametrize(('text', 'column'), [('a + ', 3), ('(a + )', 4)])
def test_a_formula_error_is_shown_in_the_main_area_with_its_caret_at_the_dangling_operator(start, text, column):
    page = start('custom')
    page.text_input(key='formula').input(text).run()
    (error,) = page.main.error  # not only beside the formula box: where the graph would be
    assert 'nothing after it' in error.value
    (caret,) = page.main.code
    assert caret.value == f'{text}\n{" " * (column - 1)}^'  # under the +, its `column`th character


@pytest.mark.parametrize(
    ('text', 'part', 'words'),
    [('(a*b +', '(', 'never closed'), ('sin(x', '(', 'never closed'), ('a**b', 'b', 'exponent')],
)
def test_a_formula_error_has_its_caret_under_the_part_its_message_names(start, text, part, words):
    # the unclosed bracket, not the + at the end; the exponent b, not the a of a**b
    page = start('custom')
    page.text_input(key='formula').input(text).run()
    (error,) = page.main.error
    column = text.index(part) + 1
    assert words in error.value and f'column {column}' in error.value
    (caret,) = page.main.code
    assert caret.value == f'{text}\n{" " * text.index(part)}^'


# --- one step of learning: the sidebar's boxes and the loss, beside the player (issue 18, 2.3) ------------------
# the regression L = (w*x + b - y)**2 at x = 1.5, y = 2, w = 0.5, b = 0: pred - y = 0.75 - 2 = -1.25, L = 1.5625,
# w.grad = 2·(-1.25)·1.5 = -3.75, b.grad = 2·(-1.25) = -2.5. One step at lr = 0.1: w = 0.5 - 0.1·(-3.75) = 0.875,
# b = 0 - 0.1·(-2.5) = 0.25, L = (1.3125 + 0.25 - 2)² = 0.4375² = 0.19140625; the next: w.grad = 2·(-0.4375)·1.5 =
# -1.3125, so w = 0.875 + 0.13125 = 1.00625, b = 0.25 + 0.0875 = 0.3375, and L = (0.35 · 0.4375)² = 0.0234.

WITH_PARAMS = [key for key, expression in PRESETS.items() if expression.params]  # those a step of learning moves


def sidebar_boxes(page):
    """{label: value} of the sidebar's number boxes, the inputs'."""
    return {box.label: box.value for box in page.sidebar.number_input}


def learned_note(page):
    """What the sidebar says under the boxes about where the steps took the parameters ('' where it says nothing)."""
    return ' '.join(c.value for c in page.sidebar.caption if 'learning step' in c.value)


def page_link(page):
    values = {key: page.query_params[key] for key in page.query_params}
    return {key: value[0] if isinstance(value, list) else value for key, value in values.items()}


def test_while_learning_the_parameters_boxes_hold_the_start_and_the_sidebar_says_where_the_steps_took_them(start):
    page = start(query={'expr': 'regression', 'mode': 'learn'})
    assert sidebar_boxes(page) == {'x': 1.5, 'y': 2.0, 'w (start)': 0.5, 'b (start)': 0.0}
    assert learned_note(page) == (  # before any step the boxes hold the pass's own values; the update, one step on
        '**After its update, learning step 1 (the frames after the pass):** w = 0.8750, b = 0.2500. '
        'The boxes hold the pass shown.'
    )
    page.button(key='learn_one').click().run()
    assert sidebar_boxes(page) == {'x': 1.5, 'y': 2.0, 'w (start)': 0.5, 'b (start)': 0.0}
    assert learned_note(page) == (
        '**The pass shown, after 1 step:** w = 0.8750, b = 0.2500. **After its update, learning step 2 (the frames '
        'after the pass):** w = 1.0063, b = 0.3375. The boxes hold where learning started.'
    )  # 1.00625 to 4 places
    assert (page.go(0).data()['w'], page.data()['b']) == ('0.8750', '0.2500')  # the graph and the table agree
    page.button(key='learn_one').click().run()
    assert 'after 2 steps:** w = 1.0063, b = 0.3375.' in learned_note(page)
    assert (page.go(0).data()['w'], page.data()['b']) == ('1.0063', '0.3375')
    reopened = start(query=page_link(page))  # the link reopens the same page: the start in the boxes, 2 steps on
    assert page_link(page)['learned'] == '2' and sidebar_boxes(reopened) == sidebar_boxes(page)
    assert learned_note(reopened) == learned_note(page)
    assert (reopened.go(0).data()['w'], reopened.data()['b']) == ('1.0063', '0.3375')


@pytest.mark.parametrize('key', WITH_PARAMS)
def test_after_learning_steps_the_sidebar_names_every_parameter_as_the_graph_shows_it(start, key):
    expression = PRESETS[key]
    page = start(query={'expr': key, 'mode': 'learn', 'learned': '3'})
    boxes = sidebar_boxes(page)
    assert {name: boxes[f'{name} (start)'] for name in expression.params} == {
        name: expression.defaults[name] for name in expression.params
    }
    assert {label for label in boxes if not label.endswith(' (start)')} == set(expression.defaults) - set(
        expression.params
    )  # the data keep their plain names: learning does not move them
    note, data = learned_note(page), page.go(0).data()
    shown = note.split('**After its update')[0]  # the pass's values, then the update's
    for name in expression.params:
        assert f' {name} = {data[name]}' in shown, name


def test_watching_the_regression_its_boxes_keep_their_plain_names(start):
    page = start(query={'expr': 'regression'})
    assert sidebar_boxes(page) == {'x': 1.5, 'y': 2.0, 'w': 0.5, 'b': 0.0} and learned_note(page) == ''


def test_nothing_beside_the_player_shows_the_loss_this_step_leads_to(start):
    page = start(query={'expr': 'regression', 'mode': 'learn'})
    assert not [e for e in page.main if type(e.proto).__name__ == 'VegaLiteChart']  # no chart below the player
    words = [e.value for kind in ('markdown', 'caption', 'text', 'info') for e in getattr(page.at, kind)]
    assert words and not [w for w in words if '0.1914' in w]  # L after this step: the player's last frame only
    page.button(key='learn_one').click().run()
    words = [e.value for kind in ('markdown', 'caption', 'text', 'info') for e in getattr(page.at, kind)]
    assert not [w for w in words if '0.0234' in w or '0.1914' in w]
