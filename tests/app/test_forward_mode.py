"""Forward mode (mode=forward, wrt=NAME) on the page and in everything made from it: every preset and a typed formula
under AppTest on both layout sources (tests/app/test_app.py's Page), the input chosen by the sidebar or a link, a bad
or stale one, a graph with no input, the presentation view and the phone's shapes; the costs panel; the frame's
files, the PDF and the PowerPoint deck made by the real export tools (dot, rsvg-convert, LibreOffice, pdftotext); the
share panel; and a live class led and followed in forward mode.

Every expected number is worked out by hand from the formula, and every count from the Values the expression builds
(walking each one's _prev), never from engine/forward.py. reuse, out = a*b + a*a at a = 3, b = −2:
  by a: ∂(a*b)/∂a = b = −2, ∂(a*a)/∂a = a + a = 6, ∂out/∂a = −2 + 6 = 4 (b + 2a);
  by b: ∂(a*b)/∂b = a = 3, ∂(a*a)/∂b = 0, ∂out/∂b = 3 (a).
"""

import contextlib
import io
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import namedtuple

import pytest
import test_app
from player_data import replay, text_of
from pptx import Presentation
from streamlit.elements.widgets.button import ButtonMixin
from streamlit.testing.v1 import AppTest
from test_slides import inside, view_of

import exports
from components import export_panel
from components.live import LECTURER
from engine import PRESETS, parse_expression, trace_backward
from engine.frames import frames
from server import layout
from server.live import ROOMS
from view.numbers import number_width, tangent_width
from view.palette import (
    ACCUMULATING_FILL,
    ACTIVE,
    COLOUR_MEANINGS,
    FINAL_FILL,
    FORWARD,
    NOT_COMPUTED_KEY,
    SEED,
    TANGENT_KEYS,
)

source, start = test_app.source, test_app.start  # the page on both layout sources: test_app's fixtures
APP = test_app.APP
ON_DOT = pytest.mark.parametrize('source', ['dot'], indirect=True)  # the server draws exports and leads classes
SVG = '{http://www.w3.org/2000/svg}'
TYPED = 'L = a*b + a*a'  # reuse, typed: its output named L
# what the legend says of forward mode's looks (the nan / inf row only where a number is not finite), and what the
# backward pass's legend says, which a tangent's picture must not
TANGENT_WORDS = [key.words for key in TANGENT_KEYS if not key.sample]
BACKWARD_LOOKS = (FINAL_FILL, ACCUMULATING_FILL, ACTIVE, SEED, FORWARD)  # a grad's states, a _backward, the seed
BACKWARD_WORDS = [NOT_COMPUTED_KEY.words, *(COLOUR_MEANINGS[look] for look in BACKWARD_LOOKS)]


def flat(text):
    return ' '.join(text.split())


Counts = namedtuple('Counts', 'inputs values ops edges')


def counted(expression):
    """Counts of the graph `expression` builds, on its Values: its inputs (the leaves build() returns), then every
    value reached from the output through _prev, the ops among them and their inputs (a*a's a twice)."""
    leaves, out = expression.build()
    seen, walk, ops, edges = set(), [out], 0, 0
    while walk:
        value = walk.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if value._op:
            ops, edges = ops + 1, edges + len(value._prev)
        walk.extend(value._prev)
    return Counts(len(leaves), len(seen), ops, edges)


def forward_page(start, expr, **query):
    """A fresh visitor's page in forward mode, opened from a link."""
    page = start(query={'expr': expr, 'mode': 'forward', **query})
    assert not page.exception
    return page


def tangents(page):
    """{value's name: its tangent as its box shows it} at the frame shown (the box's second row)."""
    values = replay(page.body()['patches'])[page.frame][0]
    return {name: values[i][1].strip() for i, name in enumerate(page.body()['table']['names'])}


def chosen(page):
    """The sidebar's "Derivative by" select, or None where the page has none."""
    found = [s for s in page.selectbox if s.label == 'Derivative by']
    return found[0] if found else None


def link(page):
    values = {key: page.query_params[key] for key in page.query_params}
    return {key: value[0] if isinstance(value, list) else value for key, value in values.items()}


def texts_of(node):
    return [''.join(t.itertext()).strip() for t in node.iter(f'{SVG}text')]


def box_rows(svg):
    """{value id: its texts, [name, title, number, title, number]} of an SVG of the graph."""
    root = ET.fromstring(svg[svg.index('<svg') :] if isinstance(svg, str) else svg)
    return {g.get('id'): texts_of(g) for g in root.iter(f'{SVG}g') if re.fullmatch(r'n\d+', g.get('id') or '')}


def row_titles(layout_text, source):
    """The titles of every value box's rows in one layout the player is sent: dot's SVG, or the DOT the browser lays
    out (its rows' titles are the texts before a number's cell)."""
    if source == 'dot':
        return [(texts[1], texts[3]) for texts in box_rows(layout_text).values()]
    titles = re.findall(r'>(\w+) </font></td>', layout_text)
    return list(zip(titles[0::2], titles[1::2]))


# --- the page: every preset and a typed formula --------------------------------------------------------------------


@pytest.mark.parametrize('expr', PRESETS)
def test_forward_mode_opens_on_every_preset_and_offers_exactly_its_inputs(start, expr):
    page = forward_page(start, expr)
    assert not page.error and not page.toast
    options = chosen(page).options
    assert options == list(PRESETS[expr].defaults)  # the inputs, in the order the sidebar's boxes list them
    assert chosen(page).value == options[0]  # by default the first it lists
    page.go(page.last_frame)
    assert not page.exception


def test_the_typed_formula_used_here_builds_reuses_graph():
    # the typed formula's hand numbers are reuse's: the same ops on the same inputs (2 inputs, 5 values, 3 ops)
    assert counted(parse_expression(TYPED)) == counted(PRESETS['reuse']) == (2, 5, 3, 6)


def test_forward_mode_on_a_typed_formula_carries_its_first_inputs_tangent_to_the_output(start):
    page = forward_page(start, 'custom', formula=TYPED, **{'v.a': '3', 'v.b': '-2'})
    assert not page.error
    assert chosen(page).options == ['a', 'b'] and chosen(page).value == 'a'
    page.go(page.last_frame)
    shown = tangents(page)
    assert (shown['a'], shown['b'], shown['a*b'], shown['a*a'], shown['L']) == (
        '1.0000', '0.0000', '-2.0000', '6.0000', '4.0000')  # fmt: skip
    assert page.caption().endswith('its tangent ∂L/∂a')


def test_at_the_last_frame_the_outputs_tangent_stands_beside_the_backward_grad_and_the_finite_difference(start):
    page = forward_page(start, 'reuse')
    assert page.summary() is None  # the check is the last frame's
    page.go(page.last_frame)
    assert {row['way']: row['∂out/∂a'] for row in summary_table(page, 'check')} == {
        'forward mode: the output’s tangent': '4.0000',
        'backward pass: a.grad': '4.0000',
        'finite difference': '4.0000',
    }  # b + 2a, three ways


@pytest.mark.parametrize('expr', PRESETS)
def test_the_players_body_has_tangent_rows_in_every_shape_the_tangent_legend_and_a_frame_per_op(start, source, expr):
    page = forward_page(start, expr)
    body = page.body()
    graph = counted(PRESETS[expr])
    assert len(body['patches']) == len(body['captions']) == 1 + graph.ops  # the inputs, then each op
    layouts = [body['svg' if source == 'dot' else 'dot'], *body['fits'].values()]  # the phone's tall one among them
    for drawn in layouts:  # every value's box says tangent, none grad
        assert row_titles(drawn, source) == [('data', 'tangent')] * graph.values, expr
    legend = flat(text_of(body['legend']))
    assert all(flat(words) in legend for words in TANGENT_WORDS)
    assert not any(words in legend for words in BACKWARD_WORDS)
    assert all(caption.startswith('forward mode') for caption in body['captions'])


# --- the input: chosen, linked, bad, stale -------------------------------------------------------------------------


def test_a_links_unknown_input_falls_back_to_the_first_with_a_toast(start):
    page = forward_page(start, 'reuse', wrt='zz')
    (toast,) = page.toast
    said = toast.value.replace('\\', '')  # Markdown's escapes dropped: as read
    assert 'wrt=zz' in said and 'first, a' in said
    assert chosen(page).value == 'a'
    assert tangents(page)['a'] == '1.0000' and tangents(page)['b'] == '0.0000'  # frame 0: a's tangent is 1


def test_an_input_named_in_a_link_survives_the_round_trip_through_the_address_bar(start):
    page = forward_page(start, 'reuse', wrt='b')
    assert chosen(page).value == 'b' and not page.toast
    page.number_input(key='input:reuse:a').set_value(2.0).run()  # a change: the page writes its link
    written = link(page)
    assert (written['mode'], written['wrt'], written['v.a']) == ('forward', 'b', '2.0')
    again = start(query=written)
    assert chosen(again).value == 'b' and not again.toast
    again.go(again.last_frame)
    assert tangents(again)['out'] == '2.0000'  # ∂out/∂b = a, now 2


def test_choosing_the_input_in_the_sidebar_writes_it_into_the_link(start):
    page = forward_page(start, 'reuse')
    assert 'wrt' not in link(page)  # the link as opened: the page writes nothing back
    page.selectbox(key='wrt').select('b').run()
    assert link(page)['wrt'] == 'b' and link(page)['mode'] == 'forward'
    page.go(page.last_frame)
    shown = tangents(page)
    assert (shown['a*b'], shown['a*a'], shown['out']) == ('3.0000', '0.0000', '3.0000')


def test_switching_to_a_graph_without_the_chosen_input_follows_its_first_input_without_a_toast(start):
    page = forward_page(start, 'reuse', wrt='b')
    page.selectbox(key='expr').select('chain').run()  # x and w: no b
    assert not page.exception and not page.toast
    assert chosen(page).options == ['x', 'w'] and chosen(page).value == 'x'
    assert page.body()['captions'][0].startswith('forward mode: the inputs are set; x’s tangent is 1')
    assert link(page)['wrt'] == 'x'
    page.selectbox(key='expr').select('reuse').run()  # and back: b was left behind, a is reuse's first
    assert not page.exception and not page.toast and chosen(page).value == 'a'


def test_a_formula_with_no_inputs_says_forward_mode_needs_one_and_shows_the_backward_pass(start):
    page = start(query={'expr': 'custom', 'formula': '2*3', 'mode': 'forward'})
    assert not page.exception and not page.toast
    assert any('Forward mode' in i.value and 'no inputs' in i.value for i in page.info)
    assert chosen(page) is None and not page.expander  # no input to choose, no costs to count
    captions = page.body()['captions']
    assert captions[:3] == ['forward pass: the inputs are set', 'forward pass: out = 2 × 3',
                            'backward pass starts: out.grad = 1']  # fmt: skip
    page.go(page.last_frame)
    assert page.grads()['out'] == '1.0000' and page.data()['out'] == '6.0000'


def test_with_no_input_to_carry_the_backward_passs_own_switches_stay_usable(start):
    # the page shows the backward pass (the test above): its forward frames and leaves' steps are there to switch
    page = start(query={'expr': 'custom', 'formula': '2*3', 'mode': 'forward'})
    switches = {t.label: t.disabled for t in page.toggle}
    assert not switches['Step through the forward pass too'] and not switches['Step through the leaves too']


# --- the presentation view -----------------------------------------------------------------------------------------


def test_the_presentation_view_steps_forward_mode_with_its_sums_and_folds_the_costs(start):
    page = forward_page(start, 'reuse', wrt='b', present='1')
    assert not page.sidebar.children and not page.toast
    head, body = page.head(), page.body()
    assert head['present'] is True and len(body['patches']) == 4
    assert body['rules'][0] == ['∂b/∂b = 1; every other leaf’s tangent is 0']
    assert body['rules'][-1] == ['out = −6.0000 + 9.0000 = 3.0000',
                                 '∂out/∂b = 1.0000 × 3.0000 + 1.0000 × 0.0000 = 3.0000']  # fmt: skip
    (costs,) = page.expander
    assert costs.proto.expanded is False  # the graph has the screen
    assert costs.label.startswith('Why backprop runs backward')  # the costs, which the hidden words would show
    (shown,) = [h.proto.body for h in page.at.get('html') if 'dataframe costs' in h.proto.body]
    assert rows_of(shown, 'costs')[0] == {'to get': 'passes for every input’s grad (2)', 'forward mode': '2 forward',
                                          'reverse mode (backprop)': '1 forward + 1 backward'}  # fmt: skip


# --- the costs, at the last frame ----------------------------------------------------------------------------------


def rows_of(html_text, kind):
    """The rows of the table of class `kind` in `html_text`, [{column: cell}]."""
    (table,) = re.findall(rf'<table[^>]*class="dataframe {kind}".*?</table>', html_text, flags=re.S)
    columns = [text_of(th) for th in re.findall(r'<th>(.*?)</th>', table)]
    rows = re.findall(r'<tr>\s*(<td>.*?)</tr>', table, flags=re.S)
    return [dict(zip(columns, map(text_of, re.findall(r'<td>(.*?)</td>', row)))) for row in rows]


def summary_table(page, kind):
    """The last frame's table of class `kind` ('check', 'costs'), as the player shows it there; None elsewhere."""
    return None if page.frame != page.last_frame else rows_of(page.body()['summary'], kind)


def costs_table(page):
    page.go(page.last_frame)
    return [tuple(row.values()) for row in summary_table(page, 'costs')]


def expected_costs(graph, params=0):
    """The costs table's rows from counts made on the Values: for every input's grad (and, where the graph has
    `params`, for theirs), forward mode takes a pass per input, each computing every op and multiplying at every op
    input, and keeps nothing; reverse mode one forward pass, which keeps every value, and one backward pass, a
    multiplication an op input."""
    inputs, values, ops, edges = graph
    rows = []
    for what, many in [('every input’s grad', inputs)] + ([('the parameters’ grads', params)] if params else []):
        rows += [
            (f'passes for {what} ({many})', f'{many} forward', '1 forward + 1 backward'),
            ('ops computed (data)', f'{many * ops:,}', f'{ops:,}'),
            ('multiplications by a local gradient', f'{many * edges:,}', f'{edges:,}'),
        ]
    return rows + [('values kept for a later pass', '0', f'{values:,}')]


def test_the_neurons_costs_at_the_last_frame_are_counted_by_hand(start):
    # o = tanh(x1·w1 + x2·w2 + b): 5 inputs; ops x1·w1, x2·w2, their +, + b, tanh: 5; op inputs 2+2+2+2+1 = 9;
    # values 5 + 5 = 10. Forward mode, 5 passes: 25 ops, 45 multiplications, nothing kept; reverse: 5, 9, 10 kept
    assert counted(PRESETS['neuron']) == (5, 10, 5, 9)
    page = forward_page(start, 'neuron')
    assert summary_table(page, 'costs') is None  # at the last frame, not before
    assert costs_table(page) == [
        ('passes for every input’s grad (5)', '5 forward', '1 forward + 1 backward'),
        ('ops computed (data)', '25', '5'),
        ('multiplications by a local gradient', '45', '9'),
        ('values kept for a later pass', '0', '10'),
    ]
    summary = page.body()['summary']
    assert '<table style="font-size: 1rem"' in summary  # the body's size, not the player's smaller tables'
    assert 'Counted as a plain pass runs' not in summary and 'even by a tangent of 0' in summary
    words = text_of(summary.rsplit('<p>', 1)[1])
    said = [int(x) for x in re.findall(r'(?<![\w.])(\d+)(?!\.?\d|\w)', words.split('These counts')[0])]
    assert said == [5, 10, 9, 5, 5, 25, 45, 5, 9], words  # ops, values kept, op inputs; inputs, passes; 5 × 5, 5 × 9
    assert not [d for d in page.dataframe if 'to get' in d.value.columns]  # the costs are said once: there


def test_the_mlps_costs_are_a_pass_per_input_forward_and_one_of_each_way_backward(start):
    # the MLP by hand: 16 leaves (x1, x2, 9 hidden weights and biases, v1..v3, c, target); each hidden neuron
    # x1·wj1 + x2·wj2 + bj then tanh is 4 two-input ops and tanh, 9 op inputs, 15 ops and 27 op inputs for three;
    # the output neuron 3 products, 3 sums and tanh, 13 op inputs; y − target 2; (·)**2 1: 24 ops, 43 op inputs;
    # values: 16 leaves + 24 ops = 40
    mlp = counted(PRESETS['mlp'])
    assert (mlp.inputs, mlp.values, mlp.ops, mlp.edges) == (16, 40, 24, 43)
    assert costs_table(forward_page(start, 'mlp')) == [  # to get, forward mode, reverse mode
        ('passes for every input’s grad (16)', '16 forward', '1 forward + 1 backward'),
        ('ops computed (data)', '384', '24'),  # 16 passes × 24 ops
        ('multiplications by a local gradient', '688', '43'),  # 16 × 43 local gradient × tangent; 43 × out.grad
        ('passes for the parameters’ grads (13)', '13 forward', '1 forward + 1 backward'),  # 9 hidden, v1..v3, c
        ('ops computed (data)', '312', '24'),  # 13 × 24
        ('multiplications by a local gradient', '559', '43'),  # 13 × 43
        ('values kept for a later pass', '0', '40'),
    ]


@pytest.mark.parametrize('expr', PRESETS)
def test_the_costs_table_counts_from_the_graph(start, expr):
    assert costs_table(forward_page(start, expr)) == expected_costs(counted(PRESETS[expr]), len(PRESETS[expr].params))


# --- the exports ---------------------------------------------------------------------------------------------------


class Forward:
    """reuse (or `expression`) in forward mode by its input `by`: its trace, frames and number width, as app.py makes
    them (the widest of its data, grads and tangents)."""

    def __init__(self, expression=PRESETS['reuse'], by='a'):
        leaves, out = expression.build()
        self.trace = trace_backward(out, leaves)
        self.by = [n.name for n in self.trace.nodes].index(by)
        self.frames = frames(self.trace, wrt=self.by)
        self.width = max(number_width(self.trace), tangent_width(self.trace, self.by))

    def node(self, name):
        return next(n for n in self.trace.nodes if n.name == name)


@pytest.fixture(scope='module')
def reuse_by_a():
    return Forward()


@contextlib.contextmanager
def roomy():
    """Budgets a busy machine cannot reach: the budgets have their own tests (test_exports.py)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exports.queue, 'EXPORT_BUDGET', 600.0)
        patch.setattr(exports.queue, 'RENDER_BUDGET', 600.0)
        yield


@ON_DOT
def test_a_frames_svg_says_tangent_in_every_box_and_carries_the_tangent_legend_only(reuse_by_a):
    case = reuse_by_a
    svg = exports.frame_svg(case.trace, case.frames[-1], case.width, legend=True).decode()
    boxes = box_rows(svg)
    assert {(texts[1], texts[3]) for texts in boxes.values()} == {('data', 'tangent')}
    assert {name: boxes[case.node(name).id][4] for name in ('a', 'b', 'a*b', 'a*a', 'out')} == {
        'a': '1.0000', 'b': '0.0000', 'a*b': '-2.0000', 'a*a': '6.0000', 'out': '4.0000'}  # fmt: skip
    words = flat(' '.join(texts_of(ET.fromstring(svg.encode()))))
    assert all(flat(w) in words for w in TANGENT_WORDS)
    assert not any(w in words for w in BACKWARD_WORDS) and 'nan' not in words  # every number here is finite


def pdf_pages_text(data, tmp_path, name):
    (tmp_path / name).write_bytes(data)
    out = subprocess.run(['pdftotext', str(tmp_path / name), '-'], check=True, capture_output=True, text=True).stdout
    return [flat(page) for page in out.split('\f')[:-1]]


@ON_DOT
def test_the_whole_pass_as_pdf_holds_forward_modes_captions_sums_and_legend(reuse_by_a, tmp_path):
    case = reuse_by_a
    with roomy():
        data = exports.pass_pdf(case.trace, case.frames, case.width, mode='forward')
    pages = pdf_pages_text(data, tmp_path, 'reuse.pdf')
    assert len(pages) == len(case.frames) == 4
    assert 'Frame 1 of 4: forward mode: the inputs are set; a’s tangent is 1, every other leaf’s 0' in pages[0]
    assert '∂(a*b)/∂a = −2.0000 × 1.0000 + 3.0000 × 0.0000 = −2.0000' in pages[1]
    assert '∂(a*a)/∂a = 3.0000 × 1.0000 + 3.0000 × 1.0000 = 6.0000' in pages[2]
    assert 'Frame 4 of 4: forward mode: out = a*b + a*a, and its tangent ∂out/∂a' in pages[3]
    assert '∂out/∂a = 1.0000 × (−2.0000) + 1.0000 × 6.0000 = 4.0000' in pages[3]
    for page in pages:
        assert all(flat(w) in page for w in TANGENT_WORDS)
        assert not any(w in page for w in BACKWARD_WORDS)


def forward_slides(case):
    """Each slide's SVG of the forward-mode deck, as the PDF and the pptx draw them (test_slides.py's Deck)."""
    with roomy():
        made = exports.render._slides(
            case.trace, case.frames, width=case.width, quick=False, progress=None,
            allowance=layout.Allowance(seconds=1e9), waiting=lambda: True, count=None, keep=None, legend=True,
            text=True, mode='forward',
        )  # fmt: skip
        return [svg for _, _, svg, _, _ in made]


@ON_DOT
def test_a_small_graph_is_shown_whole_on_every_forward_mode_slide(reuse_by_a):
    # as test_slides.py asks of the backward pass's deck: every box of reuse in view, none cut at the view's edge
    for k, svg in enumerate(forward_slides(reuse_by_a)):
        view, drawn, overview = view_of(svg)
        assert not overview and sorted(drawn) == list(range(len(reuse_by_a.trace.nodes)))
        outside = {reuse_by_a.trace.nodes[i].name: box for i, box in drawn.items() if not inside(box, view)}
        assert not outside, (k, view, outside)


@ON_DOT
def test_the_whole_pass_as_powerpoint_opens_in_libreoffice_with_forward_modes_titles_and_notes(reuse_by_a, tmp_path):
    case = reuse_by_a
    with roomy():
        data = exports.pass_pptx(case.trace, case.frames, case.width, mode='forward')
    slides = list(Presentation(io.BytesIO(data)).slides)
    notes = [flat(s.notes_slide.notes_text_frame.text) for s in slides]
    assert notes[0].startswith('Forward mode. The inputs are set: a = 3.0000, b = −2.0000.')
    assert '∂(a*a)/∂a = 3.0000 × 1.0000 + 3.0000 × 1.0000 = 6.0000' in notes[2]
    assert '∂out/∂a = 1.0000 × (−2.0000) + 1.0000 × 6.0000 = 4.0000' in notes[3]
    assert 'a.grad, 4.0000, the same number' in notes[3]  # the backward pass's grad of a, b + 2a, beside it
    assert not any('.grad +=' in n for n in notes)  # no backward step's chain rule
    # LibreOffice, as a lecturer opens the deck: the slides, then a notes page for each
    (tmp_path / 'reuse.pptx').write_bytes(data)
    profile = (tmp_path / 'profile').as_uri()
    with_notes = 'pdf:impress_pdf_Export:{"ExportNotesPages":{"type":"boolean","value":"true"}}'
    command = ['soffice', f'-env:UserInstallation={profile}', '--headless', '--convert-to', with_notes, '--outdir']
    subprocess.run([*command, str(tmp_path), str(tmp_path / 'reuse.pptx')], check=True, capture_output=True,
                   timeout=300)  # fmt: skip
    pages = pdf_pages_text((tmp_path / 'reuse.pdf').read_bytes(), tmp_path, 'shown.pdf')
    assert len(pages) == 2 * len(slides)
    shown, notes_pages = pages[: len(slides)], pages[len(slides) :]
    assert 'Frame 4 of 4: forward mode: out = a*b + a*a, and its tangent ∂out/∂a' in shown[3]
    assert '∂out/∂a = 1.0000 × (−2.0000) + 1.0000 × 6.0000 = 4.0000' in shown[3]
    assert 'Forward mode. The inputs are set' in notes_pages[0]
    assert '∂(a*b)/∂a = −2.0000 × 1.0000 + 3.0000 × 0.0000 = −2.0000' in notes_pages[1]
    assert '∂out/∂a = 1.0000 × (−2.0000) + 1.0000 × 6.0000 = 4.0000' in notes_pages[3]


# --- the share panel -----------------------------------------------------------------------------------------------


@pytest.fixture
def offered(monkeypatch):
    """The files the share panel offers, {file name: what its button serves (bytes, text, or what makes them)}."""
    files, serve = {}, ButtonMixin.download_button

    def recording(self, label, data, file_name=None, *args, **kwargs):
        files[file_name] = data
        return serve(self, label, data, file_name, *args, **kwargs)

    monkeypatch.setattr(ButtonMixin, 'download_button', recording)
    monkeypatch.setattr(export_panel.st, 'rerun', lambda **kw: None)
    return files


@ON_DOT
def test_the_share_panel_of_a_forward_mode_frame_offers_its_files_and_links_to_mode_and_input(offered):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({'expr': 'reuse', 'mode': 'forward', 'wrt': 'b'})
    at.run()
    at.session_state['graph'] = {'share': 2}  # Share clicked at a*a's frame, as the player sends it
    at.run()
    assert not at.exception
    (shared,) = [c.value for c in at.code if '?' in c.value]
    query = dict(re.findall(r'[?&]([^=&]+)=([^&]*)', shared))
    assert (query['expr'], query['mode'], query['wrt'], query['step']) == ('reuse', 'forward', 'b', '2')
    assert at.get('image')  # the link's QR code
    assert not [t for t in at.toggle if t.label == 'A question before each step']  # forward mode asks nothing
    # nor has it a backward pass or a leaf's step to choose, as the page's other modes do
    assert [g.label for g in at.get('button_group')] == ['A GIF frame for']
    names = {'svg', 'png', 'dot'}
    files = {name.rsplit('.', 1)[1]: data for name, data in offered.items() if name.rsplit('.', 1)[1] in names}
    assert set(files) == names and all(name.startswith('reuse_a3_b-2_f3.') for name in offered if '_f' in name)
    svg = files['svg']()  # made when clicked
    boxes = box_rows(svg)
    assert {(texts[1], texts[3]) for texts in boxes.values()} == {('data', 'tangent')}
    by_name = {texts[0]: texts[4] for texts in boxes.values()}
    assert (by_name['a'], by_name['b'], by_name['a*b'], by_name['a*a'], by_name['out']) == (
        '0.0000', '1.0000', '3.0000', '0.0000', '·')  # fmt: skip
    assert 'tangent ' in files['dot'] and 'grad ' not in files['dot']


# --- a live class --------------------------------------------------------------------------------------------------


def lead(query):
    """A lecturer's presentation view with a class started: the page, and the class's (code, secret)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({**query, 'present': '1'})
    at.run()
    at.button(key='start_class').click().run()
    assert not at.exception
    return at, at.session_state[LECTURER]


def student(query):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return test_app.Page(at, 'dot')


@ON_DOT
def test_a_lecturer_in_forward_mode_leads_the_class_and_has_no_backward_step_to_ask_about():
    at, (code, secret) = lead({'expr': 'reuse', 'mode': 'forward', 'wrt': 'b'})
    try:
        held = ROOMS.state(code)
        assert (held.scenario['mode'], held.scenario['wrt']) == ('forward', 'b')
        ask = at.button(key='ask_room')
        assert ask.disabled and held.question is None
        assert at.session_state['mode'] == 'forward' and at.session_state['wrt'] == 'b'
    finally:
        ROOMS.close(code, secret)


@ON_DOT
def test_ask_the_room_in_forward_mode_does_not_tell_the_lecturer_to_step_back():
    # no frame of forward mode runs a _backward: stepping back finds nothing to ask either
    at, (code, secret) = lead({'expr': 'reuse', 'mode': 'forward', 'wrt': 'b'})
    try:
        ask = at.button(key='ask_room')
        assert ask.disabled and 'step back' not in (ask.help or '')
    finally:
        ROOMS.close(code, secret)


@ON_DOT
def test_a_question_asked_of_the_backward_pass_ends_when_the_projector_goes_to_forward_mode():
    at, (code, secret) = lead({'expr': 'reuse'})
    try:
        at.button(key='ask_room').click().run()
        assert ROOMS.state(code).question is not None
        at.session_state['mode'] = 'forward'
        at.run()
        assert not at.exception and ROOMS.state(code).question is None
        assert at.button(key='ask_room').disabled
    finally:
        ROOMS.close(code, secret)


@ON_DOT
def test_a_follower_opens_the_class_in_forward_mode_by_the_lecturers_input():
    at, (code, secret) = lead({'expr': 'reuse', 'mode': 'forward', 'wrt': 'b'})
    try:
        page = student({'class': code})
        assert page.session_state['mode'] == 'forward' and chosen(page).value == 'b'
        page.go(page.last_frame)
        assert tangents(page)['out'] == '3.0000'  # ∂out/∂b = a
    finally:
        ROOMS.close(code, secret)


@ON_DOT
def test_a_follower_follows_the_lecturer_from_the_backward_pass_to_forward_mode_and_its_input():
    at, (code, secret) = lead({'expr': 'reuse'})
    try:
        # the lecturer's player posts the page's new scenario and frame; a follower's player, seeing another
        # scenario, opens the class's link (player.js toClass): a new page with the class's scenario and frame
        ROOMS.step(code, secret, {'expr': 'reuse', 'mode': 'forward', 'wrt': 'b'}, frame=2)
        held = ROOMS.state(code)
        page = student({'class': code, **held.scenario, 'step': str(held.frame)})
        assert page.session_state['mode'] == 'forward' and chosen(page).value == 'b'
        assert page.frame == 2 and tangents(page)['a*a'] == '0.0000' and tangents(page)['a*b'] == '3.0000'
        assert page.caption().endswith('a*a = a × a, and its tangent ∂(a*a)/∂b')
    finally:
        ROOMS.close(code, secret)
