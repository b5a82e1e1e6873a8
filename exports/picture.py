"""A frame's picture as a file: dot's SVG of it made into the page's picture. Its texts in the page's own font, DejaVu
Sans Mono (static/fonts/), embedded as a subset of the glyphs they use, bold where the page's player.css makes them
bold; their spaces kept, so padded numbers stay right-aligned; the expression as its title; and, if asked, the colour
legend under the graph. Pure: the exports and the slides call it on dot's output.

dot lays the graph out with Courier's metrics (palette.FONT), and the page draws that layout in DejaVu Sans Mono: a
file in the same font puts every text where the page does (tests/browser/test_browser_picture.py measures it in
Chromium and LibreOffice)."""

import base64
import functools
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from engine import ops
from engine.frames import frames as all_frames
from view import graph
from view.graph import VALUE_TEXTS
from view.numbers import HIDDEN, NOT_COMPUTED, number_width
from view.palette import COLOUR_MEANINGS, FAMILY, INK, NOT_FINITE, SCREEN_FONT
from view.patches import frame_patches

SVG_NS = 'http://www.w3.org/2000/svg'
XML_SPACE = '{http://www.w3.org/XML/1998/namespace}space'
ET.register_namespace('', SVG_NS)
FONTS = Path(__file__).parent.parent / 'static' / 'fonts'
FONT_FILES = {'normal': FONTS / 'DejaVuSansMono.ttf', 'bold': FONTS / 'DejaVuSansMono-Bold.ttf'}
# player.css draws these number texts bold (text.value.faint, .not-finite, .asked): '·', nan and ±inf, '?'
BOLD_TEXTS = (NOT_COMPUTED, *NOT_FINITE, HIDDEN)
DOT_DASHES = {'dashed': '5,2', 'dotted': '1,5'}  # how dot's SVG draws a dashed and a dotted border
LEGEND_PT = 10  # the legend's text: the page's 0.85rem beside its graph's 14 pt numbers
PAD = 4  # pt around the legend, as dot pads the graph
TITLE_CHARS = 120  # the title's formula: a part that would make it longer is written by its name


def page_svg(svg, title, legend=None, right=None, wrt=-1, keys=None):
    """dot's SVG (bytes or text) as the page draws it, as an SVG file's text: every text in DejaVu Sans Mono, the
    glyphs it uses embedded, bold where the page makes it bold, its spaces kept (xml:space and white-space: pre: a
    leading space would collapse in Chromium and LibreOffice, and a padded number lose its right alignment); `title`
    (user text: escaped here) as its title in place of dot's '%3'. `legend`: a trace, whose colour legend
    (legend_svg, `right` the right trace beside it, `wrt` forward mode's input) goes under the graph, the picture
    made taller to hold it, its rows `keys` where given; None for none."""
    root = ET.fromstring(svg)
    root.set(XML_SPACE, 'preserve')
    _resize(root, *_size(root))  # dot rounds its width and height, not its viewBox: 1552pt for 1552.49, the page's
    for group in root.iter(f'{{{SVG_NS}}}g'):  # the graph's own <title>, dot's '%3', which a viewer shows on hover
        if group.get('class') == 'graph' and group.find(f'{{{SVG_NS}}}title') is not None:
            group.find(f'{{{SVG_NS}}}title').text = title
        texts = group.findall(f'{{{SVG_NS}}}text')
        if re.fullmatch(r'n\d+', group.get('id') or ''):  # a value's box: its numbers as player.css draws them
            for k in (VALUE_TEXTS['data'], VALUE_TEXTS['grad']):
                if k < len(texts) and (texts[k].text or '').strip() in BOLD_TEXTS:
                    texts[k].set('font-weight', 'bold')
        if re.fullmatch(r'n\d+_op', group.get('id') or ''):  # the page marks a running op by its circle alone
            for text in texts:
                text.set('fill', INK)
    if legend is not None:
        _append(root, legend_svg(legend, _size(root)[0], right, wrt, keys))
    for text in root.iter(f'{{{SVG_NS}}}text'):
        text.attrib.pop('font-family', None)  # dot's 'Courier,monospace': the page's font is set once, for them all
        _anchor_at_start(text)
    root.set('font-family', SCREEN_FONT)
    style = ET.Element(f'{{{SVG_NS}}}style')
    style.text = _font_faces(root) + 'text { white-space: pre; }'
    heading = ET.Element(f'{{{SVG_NS}}}title')
    heading.text = title  # the document's title, the first child: what a browser's tab and a file's viewer show
    root[:0] = [heading, style]
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding='unicode') + '\n'


def _size(root):
    """The SVG's (width, height) in its viewBox's units, pt in dot's SVG, as the page sizes it (player.js load)."""
    return tuple(float(side) for side in root.get('viewBox').split()[2:])


def _resize(root, width, height):
    root.set('width', f'{width:g}pt')
    root.set('height', f'{height:g}pt')
    root.set('viewBox', f'0 0 {width:g} {height:g}')


def _append(root, svg):
    """The SVG `svg` (legend_svg's) under the picture in `root`: its height and viewBox grown to hold it."""
    width, height = _size(root)
    part = ET.fromstring(svg)
    part.set('x', '0')
    part.set('y', f'{height:g}')
    root.append(part)
    _resize(root, width, height + _size(part)[1])


def _font_faces(root):
    """An @font-face for each weight the texts use, the font's subset of the characters they use as a data: URL."""
    used = {}
    for text in root.iter(f'{{{SVG_NS}}}text'):
        weight = 'bold' if text.get('font-weight') == 'bold' else 'normal'
        used.setdefault(weight, set()).update(''.join(text.itertext()))
    faces = ''
    for weight, characters in sorted(used.items()):
        data = base64.b64encode(font_subset(weight, ''.join(sorted(characters)))).decode()
        faces += (
            f"@font-face {{ font-family: '{FAMILY}'; font-weight: {weight}; "
            f"src: url(data:font/ttf;base64,{data}) format('truetype'); }} "
        )
    return faces


@functools.lru_cache(maxsize=64)  # the frames of one pass use nearly the same characters
def font_subset(weight, characters):
    """DejaVu Sans Mono's `weight` face ('normal', 'bold') with only the glyphs of `characters`, as TrueType bytes:
    without the hinting: a frame's subset is a small part of the whole face."""
    from fontTools import subset  # slow to import: only when a picture is made

    font = subset.load_font(str(FONT_FILES[weight]), subset.Options())
    options = subset.Options(hinting=False, name_IDs=[1, 2, 4, 6])  # its family, style, full and PostScript names
    options.drop_tables += ['FFTM']  # FontForge's timestamps, which fontTools cannot subset
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=characters)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def _anchor_at_start(text):
    """A text dot centred (or ended) at its x anchored at its start instead, where DejaVu Sans Mono puts it: its start
    then stays where the page has it in a viewer that draws it in another font (LibreOffice ignores an embedded one,
    and falls back to another where DejaVu Sans Mono is not installed). Only a text the font has every glyph of."""
    anchor, characters = text.get('text-anchor'), ''.join(text.itertext())
    width = text_width(characters, text.get('font-weight', 'normal'), float(text.get('font-size', '14')))
    if anchor in ('middle', 'end') and width is not None:
        text.set('x', f'{float(text.get("x")) - width * (0.5 if anchor == "middle" else 1):.2f}')
        text.set('text-anchor', 'start')


def text_width(text, weight, size):
    """How wide DejaVu Sans Mono's `weight` face draws `text` at `size`, in the size's units; None where the face has
    no glyph for one of its characters (a viewer draws that one in another font)."""
    font = _face(weight if weight in FONT_FILES else 'normal')
    glyphs, advances = font.getBestCmap(), font['hmtx']
    if not all(ord(c) in glyphs for c in text):
        return None
    return sum(advances[glyphs[ord(c)]][0] for c in text) * size / font['head'].unitsPerEm


@functools.lru_cache(maxsize=2)
def _face(weight):
    from fontTools.ttLib import TTFont

    return TTFont(str(FONT_FILES[weight]), lazy=True)


# --- the legend ---------------------------------------------------------------------------------------------------


def legend_colours(trace, right=None):
    """The colours of palette.COLOUR_MEANINGS that some frame of the trace's pass shows (legend_keys), in that table's
    order."""
    shown = {key.colour for key in legend_keys(trace, right)}
    return [colour for colour in COLOUR_MEANINGS if colour in shown]


def legend_keys(trace, right=None, wrt=-1, frames=None, at=None, every_frame=False):
    """The legend's rows (palette.Key) for what the frames `at` (indices into `frames`; all by default) draw, as the
    page's legend has them (graph.legend_keys over their patches): `frames` by default the pass as the page steps
    through it, in forward mode (`wrt`, its input) said of tangents. `right`, `every_frame`: the right trace beside
    this one, and whether a grad not its at any frame is drawn wrong (view/modes.py's view module's EVERY_FRAME)."""
    frames = all_frames(trace, wrt=wrt) if frames is None else frames
    patches = frame_patches(trace, frames, width=number_width(trace), right=right, every_frame=every_frame)
    return graph.legend_keys(patches, tangents=frames[0].wrt >= 0, at=at)


def legend_svg(trace, width_pt, right=None, wrt=-1, keys=None):
    """The colour legend of the trace (legend_colours, in the words of palette.COLOUR_MEANINGS) as an <svg> element's
    text, `width_pt` wide and as tall as its lines, in the units of the picture it goes into (pt, in dot's and a
    slide's): each colour drawn as the graph draws it (a box's fill and border, or a number's colour), its meaning
    beside it, side by side while they fit, a long one wrapped. In the page's font at LEGEND_PT (page_svg embeds it
    in a file). `keys`: its rows, where given; by default the pass's (legend_keys)."""
    em, advance = LEGEND_PT, text_width('0', 'normal', LEGEND_PT)  # every glyph of a meaning is as wide
    line_h, box_w, box_h, gap, space = 1.6 * em, 1.4 * em, 0.9 * em, 0.5 * em, 1.2 * em
    room = width_pt - 2 * PAD
    items, x, y, lines = [], 0, PAD, 1  # where the next item goes, and the lines of the one before it
    for key in legend_keys(trace, right, wrt) if keys is None else keys:
        sample = ' / '.join(key.sample)  # 'nan / inf / −inf', written in its colour in place of a box
        key_w = len(sample) * advance if sample else box_w
        words = _wrap(key.words, max(10, int((room - key_w - gap) / advance)))
        width = key_w + gap + max(len(line) for line in words) * advance
        if x and (x + space + width > room or len(words) > 1 or lines > 1):  # a row of its own, or the next row
            x, y = 0, y + line_h * lines
        elif x:
            x += space
        items.append((key, sample, x, y, key_w, words))
        x, lines = x + width, len(words)
    height = y + line_h * lines + PAD
    size = {'width': f'{width_pt:g}', 'height': f'{height:g}', 'viewBox': f'0 0 {width_pt:g} {height:g}'}
    svg = ET.Element(f'{{{SVG_NS}}}svg', size | {'font-family': SCREEN_FONT})
    ET.SubElement(svg, f'{{{SVG_NS}}}rect', width='100%', height='100%', fill='white')
    for key, sample, x, y, key_w, words in items:
        left, base = PAD + x, y + line_h / 2 + 0.35 * em  # a line's text centred on it
        if sample:
            _text(svg, left, base, sample, key.colour or key.border, bold=True)
        else:
            _swatch(svg, key, left, y + (line_h - box_h) / 2, box_w, box_h)
        for k, line in enumerate(words):
            _text(svg, left + key_w + gap, base + k * line_h, line, INK)
    return ET.tostring(svg, encoding='unicode')


def _wrap(text, chars):
    """The text in lines of at most `chars` characters, broken between words."""
    lines = []
    for word in text.split(' '):
        if lines and len(lines[-1]) + 1 + len(word) <= chars:
            lines[-1] += f' {word}'
        else:
            lines.append(word)
    return lines


def _swatch(svg, key, x, y, w, h):
    """A legend row's box (palette.Key) as the graph draws it: its fill, and its border's colour, pen and line (a
    dashed or dotted one as dot draws it)."""
    box = {'x': f'{x:.2f}', 'y': f'{y:.2f}', 'width': f'{w:.2f}', 'height': f'{h:.2f}', 'rx': '2'}
    box |= {'fill': key.fill, 'stroke': key.border, 'stroke-width': key.pen}
    box |= {'stroke-dasharray': DOT_DASHES[key.line]} if key.line in DOT_DASHES else {}
    ET.SubElement(svg, f'{{{SVG_NS}}}rect', box)


def _text(svg, x, y, text, colour, bold=False):
    look = {'font-weight': 'bold'} if bold else {}
    attributes = {'x': f'{x:.2f}', 'y': f'{y:.2f}', 'font-size': f'{LEGEND_PT:g}', 'fill': colour, **look}
    ET.SubElement(svg, f'{{{SVG_NS}}}text', attributes).text = text


# --- the title ----------------------------------------------------------------------------------------------------


def expression(trace):
    """The graph's formula, as the page writes formulas: its output over its inputs, 'o = tanh(x1 × w1 + x2 × w2 +
    b)'. A part that would make it longer than TITLE_CHARS is written by its name (chain(500): 'h500 = tanh(tanh(…
    tanh(h492 × w) … × w) × w)'), so the title stays short however big the graph."""
    written = []
    for node in trace.nodes:
        text = ops.formula(node.op, [written[c] for c in node.children], pretty=True) if node.op else node.name
        written.append(text if len(text) <= TITLE_CHARS else node.name)
    out = trace.nodes[-1]
    return written[-1] if written[-1] == out.name else f'{out.name} = {written[-1]}'
