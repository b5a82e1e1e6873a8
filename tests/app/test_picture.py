"""A frame's SVG made the page's picture (exports.picture): its spaces kept, the expression as its title (escaped), the
page's font embedded with only the glyphs it uses, the colour legend of what the pass shows, and the shape the player
shows. tests/browser/test_browser_picture.py opens the files in Chromium and LibreOffice beside the page."""

import base64
import io
import re
import xml.etree.ElementTree as ET

import pytest
from fontTools.ttLib import TTFont

import exports
import state
from engine import PRESETS, assign, chain, parse_expression, trace_backward
from engine.frames import frames, grads_at
from exports import picture
from server import layout
from view.graph import MARK_STYLE, SHAPES, STATE_STYLE, build_dot, value_look
from view.numbers import number_width
from view.palette import COLOUR_MEANINGS, TEXT_COLOURS

SVG = '{http://www.w3.org/2000/svg}'
XML_SPACE = '{http://www.w3.org/XML/1998/namespace}space'


class Case:
    def __init__(self, expression, values=None, value_type=None):
        leaves, out = expression.build(values, **({'value_type': value_type} if value_type else {}))
        self.trace = trace_backward(out, leaves)
        self.frames = frames(self.trace)
        self.width = number_width(self.trace)

    def svg(self, k, **options):
        return ET.fromstring(exports.frame_svg(self.trace, self.frames[k], self.width, **options))


@pytest.fixture(scope='module')
def reuse():
    return Case(PRESETS['reuse'])


@pytest.fixture(scope='module')
def neuron():
    return Case(PRESETS['neuron'])


def texts(root):
    return [t for t in root.iter(f'{SVG}text')]


def group(root, node_id):
    return next(g for g in root.iter(f'{SVG}g') if g.get('id') == node_id)


def test_a_frames_svg_keeps_its_spaces(reuse):
    # reuse at frame 7 of 10: a's data 3.0000 is padded to b's -2.0000, ' 3.0000'; a space that collapsed would end
    # it a character before b's (the page writes white-space: pre, player.css)
    root = reuse.svg(6)
    assert root.get(XML_SPACE) == 'preserve' and 'white-space: pre' in root.find(f'{SVG}style').text
    a, b = (group(root, reuse.trace.nodes[i].id) for i in (0, 1))
    assert [t.text for t in texts(a)][1:3] == ['data ', ' 3.0000'] and texts(b)[2].text == '-2.0000'
    label = next(t.text for t in texts(group(root, 'l3_0')))  # a*a's first edge: 3.0000 × 1.0000, padded
    assert label.startswith(' 3.0000 ×') and len(label) == len(label.strip()) + 1


def test_a_frames_svg_is_titled_by_its_expression_not_dots_placeholder(reuse):
    root = reuse.svg(6)
    assert root[0].tag == f'{SVG}title' and root[0].text == 'out = a × b + a × a'  # reuse: a·b + a·a, named out
    graph_title = next(g for g in root.iter(f'{SVG}g') if g.get('class') == 'graph').find(f'{SVG}title')
    assert graph_title.text == 'out = a × b + a × a'
    assert b'%3' not in exports.frame_svg(reuse.trace, reuse.frames[6], reuse.width)


def test_a_title_is_escaped_as_the_user_text_it_may_be(reuse):
    raw = layout.lay_out(build_dot(reuse.trace, reuse.frames[6], reuse.width)).svg
    title = '</title><script>alert(1)</script> & "a" < b'
    root = ET.fromstring(picture.page_svg(raw, title))
    assert root[0].text == title and not list(root.iter(f'{SVG}script'))


def test_a_long_formula_is_titled_with_the_names_of_its_parts():
    # chain(500): 500 tanh over x and w, too long written out: the title stays within a line or two
    trace = Case(chain(500)).trace
    title = picture.expression(trace)
    assert title.startswith('h500 = tanh(') and 'h4' in title and len(title) <= 2 * picture.TITLE_CHARS


def embedded_fonts(root):
    """{weight: TTFont} of the SVG's @font-face rules."""
    faces = re.findall(r'font-weight: (\w+); src: url\(data:font/ttf;base64,([^)]+)\)', root.find(f'{SVG}style').text)
    return {weight: TTFont(io.BytesIO(base64.b64decode(data))) for weight, data in faces}


def test_a_frames_svg_embeds_dejavu_sans_mono_with_only_the_glyphs_it_uses(neuron):
    root = neuron.svg(12)
    used = {'normal': set(), 'bold': set()}
    for t in texts(root):
        used[t.get('font-weight', 'normal')].update(t.text or '')
    fonts = embedded_fonts(root)
    assert set(fonts) == {'normal', 'bold'}  # the names are bold, the numbers not
    for weight, font in fonts.items():
        whole = TTFont(picture.FONT_FILES[weight])
        assert font['name'].getDebugName(1) == 'DejaVu Sans Mono'
        assert font['name'].getDebugName(4) == whole['name'].getDebugName(4)  # its full name: '… Mono Bold'
        assert {chr(c) for c in font.getBestCmap()} == used[weight]  # those glyphs, and no other
        for c in used[weight]:  # each drawn as DejaVu Sans Mono draws it
            mine, theirs = font['glyf'][font.getBestCmap()[ord(c)]], whole['glyf'][whole.getBestCmap()[ord(c)]]
            assert mine.getCoordinates(font['glyf'])[0] == theirs.getCoordinates(whole['glyf'])[0], c
            assert font['hmtx'][font.getBestCmap()[ord(c)]][0] == whole['hmtx'][whole.getBestCmap()[ord(c)]][0]
    assert all(t.get('font-family') is None for t in texts(root)) and root.get('font-family').startswith('"DejaVu')


def test_the_numbers_the_page_draws_bold_are_bold_in_the_file(reuse):
    # reuse at frame 7 of 10: b's grad is not computed yet, '·', which player.css draws bold (text.value.faint)
    root = reuse.svg(6)
    b = texts(group(root, reuse.trace.nodes[1].id))
    assert b[4].text.strip() == '·' and b[4].get('font-weight') == 'bold' and b[2].get('font-weight') is None


def test_a_centred_text_starts_where_dejavu_sans_mono_centres_it(reuse):
    raw = ET.fromstring(layout.lay_out(build_dot(reuse.trace, reuse.frames[6], reuse.width)).svg)
    made = ET.fromstring(picture.page_svg(ET.tostring(raw), 'reuse'))
    font = TTFont(picture.FONT_FILES['normal'])
    advance = font['hmtx'][font.getBestCmap()[ord('0')]][0] / font['head'].unitsPerEm  # 1233/2048 of the size
    centred, started = texts(group(raw, 'l3_0'))[0], texts(group(made, 'l3_0'))[0]
    assert centred.get('text-anchor') == 'middle' and started.get('text-anchor') == 'start'
    width = len(centred.text) * advance * float(centred.get('font-size'))
    assert float(started.get('x')) == pytest.approx(float(centred.get('x')) - width / 2, abs=0.01)


def boxes(svg):
    """Every value's box, as the path dot draws it."""
    return [p.get('d') for g in svg.iter(f'{SVG}g') if g.get('class') == 'node' for p in g.iter(f'{SVG}path')]


def test_the_frames_files_are_drawn_in_the_shape_the_player_showed(reuse):
    for shape in SHAPES:
        page = ET.fromstring(layout.lay_out(build_dot(reuse.trace, None, reuse.width, shape=shape)).svg)
        root = reuse.svg(6, shape=shape)
        size = [float(side) for side in page.get('viewBox').split()[2:]]  # the page sizes it by its viewBox
        assert boxes(root) == boxes(page) and [float(side) for side in root.get('viewBox').split()[2:]] == size
        assert root.get('width') == f'{size[0]:g}pt' and root.get('height') == f'{size[1]:g}pt'
    assert 'rankdir=TB' in exports.frame_dot(reuse.trace, reuse.frames[6], reuse.width, shape='tall')


@pytest.mark.parametrize(
    ('sent', 'shape'),
    [({'frame': 3, 'shape': 'tall'}, 'tall'), ({'frame': 3, 'shape': 'compact'}, 'compact'), ({'frame': 3}, 'wide'),
     ({'frame': 3, 'shape': 'TALL'}, 'wide'), ({'frame': 3, 'shape': '<b>'}, 'wide'), ({'shape': ['tall']}, 'wide'),
     ({'shape': None}, 'wide'), (3, 'wide'), ('tall', 'wide'), (None, 'wide')],
)  # fmt: skip
def test_a_share_request_names_a_shape_the_player_draws_or_gets_the_wide_one(sent, shape):
    assert state.shape_to_share(sent) == shape  # the browser may send anything: graph.SHAPES is the whitelist


def test_a_share_request_names_its_frame_beside_its_shape():
    assert state.frame_to_share({'frame': 3, 'shape': 'tall'}, 10) == 3
    assert state.frame_to_share({'frame': 9, 'shape': 'tall'}, 10) == state.END
    assert state.frame_to_share({'frame': '3'}, 10) is None and state.frame_to_share({'shape': 'tall'}, 10) is None


# --- the legend --------------------------------------------------------------------------------------------------


def shown_colours(trace):
    """The colours of COLOUR_MEANINGS that the page's looks (graph.value_look) give some value at some frame of the
    pass: every frame, every value, as the player draws them."""
    seen, final_after, width = set(), trace.final_after(), number_width(trace)
    for frame in frames(trace):
        grads = grads_at(trace, frame)
        for i in range(len(trace.nodes)):
            data, grad, grad_state, mark = value_look(
                trace, frame, i=i, grads=grads, final_after=final_after, width=width
            )
            seen |= {STATE_STYLE[grad_state]['fillcolor'], MARK_STYLE[mark].get('color')}
            seen |= {TEXT_COLOURS.get(data.strip()), TEXT_COLOURS.get(grad.strip())}
    return [colour for colour in COLOUR_MEANINGS if colour in seen]


LEGEND_CASES = {
    'neuron': Case(PRESETS['neuron']),  # no value used twice: no grad with more += to come
    'reuse': Case(PRESETS['reuse']),  # a is used three times
    'a + a on the = engine': Case(PRESETS['a_plus_a'], value_type=assign.Value),  # a.grad 1, not 2: wrong
    'nan': Case(parse_expression('log(a)*a + b'), {'a': 0.0, 'b': -2.0}),  # log(0) × 0
    'chain(3)': Case(chain(3)),
}


@pytest.mark.parametrize('case', LEGEND_CASES)
def test_the_legend_says_what_each_colour_the_pass_shows_means_and_no_other(case):
    trace = LEGEND_CASES[case].trace
    colours = shown_colours(trace)
    assert picture.legend_colours(trace) == colours
    words = ' '.join(t.text for t in texts(ET.fromstring(picture.legend_svg(trace, 1000))))
    for colour, meaning in COLOUR_MEANINGS.items():
        assert (meaning in words) == (colour in colours), (case, meaning)


def test_the_wrong_lilac_is_in_the_legend_only_on_the_assigning_engine():
    lilac = STATE_STYLE['wrong']['fillcolor']
    assert lilac in picture.legend_colours(LEGEND_CASES['a + a on the = engine'].trace)
    assert lilac not in picture.legend_colours(Case(PRESETS['a_plus_a']).trace)


def test_a_legend_strip_under_the_graph_makes_the_picture_taller_and_fits_its_width(neuron):
    raw = layout.lay_out(build_dot(neuron.trace, neuron.frames[12], neuron.width, shape='tall')).svg
    plain, legend = (ET.fromstring(picture.page_svg(raw, 'o', legend)) for legend in (None, neuron.trace))
    width, height = (float(v) for v in plain.get('viewBox').split()[2:])
    strip = legend.find(f'{SVG}svg')
    assert float(strip.get('y')) == height and float(strip.get('width')) == width  # the tall neuron: 400 pt
    assert legend.get('viewBox') == f'0 0 {width:g} {height + float(strip.get("height")):g}'
    assert legend.get('height') == f'{height + float(strip.get("height")):g}pt'
    for t in texts(strip):  # wrapped where the width is narrow: every line inside the strip
        right = float(t.get('x')) + picture.text_width(t.text, t.get('font-weight', 'normal'), picture.LEGEND_PT)
        assert right <= width - picture.PAD + 0.01, t.text
        assert float(t.get('y')) < float(strip.get('height'))
    assert plain.find(f'{SVG}svg') is None  # a frame's SVG has no legend unless asked
    assert ET.fromstring(exports.frame_svg(neuron.trace, neuron.frames[12], neuron.width)).find(f'{SVG}svg') is None


def test_the_page_loads_its_font_from_static_under_the_base_url_path(monkeypatch):
    from components import player

    monkeypatch.setattr(player.st, 'get_option', lambda name: '/course/' if name == 'server.baseUrlPath' else None)
    css = player.font_faces()
    for weight, file in picture.FONT_FILES.items():
        assert f"font-weight: {weight}; font-display: swap; src: url('/course/app/static/fonts/{file.name}')" in css
        assert file.is_file() and file.parent.name == 'fonts' and file.parent.parent.name == 'static'
