"""A frame of the pass on a 16:9 slide, framed the way the presentation view frames it (player.js: bestShape, zoom,
followActive): the whole graph while its numbers stay READABLE_PT or more on the slide, else the active node and its
neighbours at that size, the view kept where it was while they stay well inside it, with an overview of the whole
graph in a corner marking where the view is. Under the title (the caption) stand the frame's sums (frame_rules), as
large as the presentation view's, and under the graph the legend.

Each slide is one SVG made from dot's SVG of the frame: exports.pass_pdf converts them to vector pages and
exports.pass_pptx to the pictures of its slides, both with rsvg-convert. Pure: no Streamlit, no subprocess.
"""

import base64
import html
import re
from dataclasses import dataclass

from lxml import etree
from PIL import ImageFont

from exports.picture import BOLD_TEXTS
from view.explanation import frame_rules
from view.graph import SHAPES, VALUE_TEXTS
from view.palette import ACTIVE, ACTIVE_TINT, FAINT, INK, SCREEN_FONT

SLIDE = (960.0, 540.0)  # pt: the deck's 13.333 × 7.5 in, 16:9
EDGE = 24.0  # pt of white around what a slide shows
GAP = 8.0  # pt between the title, the sums, the graph and the strip under it
TITLE_PT, TITLE_LEADING, TITLE_LINES = 24.0, 1.2, 3  # the title: at most 3 lines are kept room for
SUMS_PT, SUMS_LEADING, SUMS_LINES = 18.0, 1.25, 6  # the sums, in the graph's monospace font
MONO_ADVANCE = 0.602  # em: DejaVu Sans Mono's width of a character, by which the sums are wrapped
TITLE_FONT = 'DejaVu Sans'  # the PDF page's title, measured with the same font's metrics (PIL)
NUMBERS_PT = 14.0  # the numbers' size in dot's layout (build_dot's fontsize)
READABLE_PT = 14.0  # the numbers' smallest size on a slide: a graph smaller than that is shown in part
MOST = 2.5  # a small graph is blown up to at most this, as the presentation view does (player.js PRESENT_MOST)
BETTER = 1.1  # a later shape only for numbers this much larger (player.js BETTER)
KEEP_PT = 12.0  # pt of the graph: the view stays put while the nodes it follows are this far inside its edges
OVERVIEW = (240.0, 72.0)  # pt at most: the overview of the whole graph, in the strip's right-hand corner
OVERVIEW_LEAST_H = 14.0  # pt: a long thin graph's overview is drawn in a strip this tall at least
HERE_LEAST = 4.0  # pt: the active node's mark on the overview, at least this wide and tall
SVG_NS = 'http://www.w3.org/2000/svg'
_VALUE = re.compile(r'n\d+')  # a value's box (build_dot's ids)


# --- dot's drawing -------------------------------------------------------------------------------------------------


class Drawing:
    """dot's SVG of one frame (bytes or text): its size in pt and where each node and edge is, in the coordinates
    of its viewBox (dot's own are moved by the graph's translate). `boxes`: another Drawing's of the same layout,
    taken as they are: every frame of a shape has its nodes where the layout without values has them."""

    def __init__(self, svg, boxes=None):
        self.root = etree.fromstring(svg.encode() if isinstance(svg, str) else svg)
        box = [float(v) for v in self.root.get('viewBox').split()]
        self.width, self.height = box[2], box[3]
        self.graph = self.root.find(f'{{{SVG_NS}}}g')
        shift = re.search(r'translate\(([-\d.]+)[ ,]+([-\d.]+)\)', self.graph.get('transform', ''))
        self.shift = (float(shift[1]), float(shift[2])) if shift else (0.0, 0.0)
        self.boxes = boxes  # element id: (left, top, right, bottom)
        if boxes is None:
            self.boxes = {g.get('id'): self._box(g) for g in self.graph.iterchildren(f'{{{SVG_NS}}}g')}
            self.boxes = {name: box for name, box in self.boxes.items() if box}

    def _box(self, g):
        xs, ys = [], []
        for e in g.iter():
            tag = etree.QName(e).localname
            if tag == 'ellipse':
                cx, cy, rx, ry = (float(e.get(a)) for a in ('cx', 'cy', 'rx', 'ry'))
                xs += [cx - rx, cx + rx]
                ys += [cy - ry, cy + ry]
            elif tag in ('path', 'polygon', 'polyline'):
                numbers = [float(v) for v in re.findall(r'-?[\d.]+(?:e-?\d+)?', e.get('d') or e.get('points') or '')]
                xs += numbers[0::2]
                ys += numbers[1::2]
        if not xs:
            return None
        dx, dy = self.shift
        return min(xs) + dx, min(ys) + dy, max(xs) + dx, max(ys) + dy

    def value_box(self, i):
        """Where value node i's box is (graph.py's ids: n3)."""
        return self.boxes[f'n{i}']


def size_of(svg):
    """(width, height) in pt of dot's SVG."""
    drawing = Drawing(svg)
    return drawing.width, drawing.height


# --- the deck's plan -----------------------------------------------------------------------------------------------


def _title_font():
    try:
        return ImageFont.truetype('DejaVuSans-Bold.ttf', TITLE_PT)
    except OSError:
        return None


def title_lines(text, width=SLIDE[0] - 2 * EDGE):
    """The title in lines no wider than `width` pt at TITLE_PT, broken between words; at most TITLE_LINES, the last
    cut with '…'."""
    font = _title_font()
    measure = font.getlength if font else (lambda s: len(s) * 0.63 * TITLE_PT)  # DejaVu Sans Bold's average
    lines = []
    for word in text.split():
        if lines and measure(f'{lines[-1]} {word}') <= width:
            lines[-1] += f' {word}'
        else:
            lines.append(word)
    return _cut(lines, TITLE_LINES)


def sums_lines(rules, width=SLIDE[0] - 2 * EDGE):
    """The sums (frame_rules' lines) wrapped to `width` pt at SUMS_PT, each going on indented, broken after a comma
    where one is (', so a.grad: 6.0000 → 4.0000' goes on whole), else between words; at most SUMS_LINES, the last cut
    with '…'."""
    chars = int(width / (MONO_ADVANCE * SUMS_PT))
    lines = []
    for rule in rules:
        line = ''
        for part in re.split(r'(?<=,) ', rule):
            for k, word in enumerate(part.split(' ')):
                if line and len(f'{line} {word}') > chars or (k == 0 and line and len(f'{line} {part}') > chars):
                    lines.append(line)
                    line = f'    {word}'
                else:
                    line = f'{line} {word}' if line else word
        lines.append(line)
    return _cut(lines, SUMS_LINES)


def _cut(lines, most):
    return lines if len(lines) <= most else [*lines[: most - 1], lines[most - 1] + ' …']


def texts(trace, frames, titles, assigns=False, right=None):
    """Each frame's (title lines, sums lines): `titles` are the captions in the page's numbering (exports);
    `assigns`: the trace is the `=` engine's; `right`: the right trace beside it (explanation.frame_rules)."""
    return [(title_lines(t), sums_lines(frame_rules(trace, f, assigns, right))) for t, f in zip(titles, frames)]


@dataclass(frozen=True)
class Plan:
    """Where everything goes on every slide of a deck, in pt from the slide's top left: one layout for the deck, so
    that nothing moves from slide to slide but the view."""

    shape: str  # graph.SHAPES
    scale: float  # the graph's size on the slide, against dot's: its numbers are NUMBERS_PT × scale
    whole: bool  # the whole graph is in view; else the view follows the active node, and the overview is shown
    graph: tuple  # (width, height) of the graph laid out in `shape`, pt
    title: tuple  # (x, y, width, height) of the title
    sums: tuple  # … of the sums
    view: tuple  # … of the part of the slide the view of the graph fills
    legend: tuple | None  # … of the legend, or None
    overview: tuple | None  # … of the overview, or None
    key: str | None = None  # the legend as an <svg> element (picture.legend_svg), `legend` wide

    @property
    def view_size(self):
        """(width, height) of the part of the graph in view, in the graph's pt."""
        return (min(self.graph[0], self.view[2] / self.scale), min(self.graph[1], self.view[3] / self.scale))

    @property
    def picture(self):
        """(x, y, width, height) of the slide's picture: the view, and the strip of the legend and overview."""
        bottom = max(b[1] + b[3] for b in (self.view, self.legend, self.overview) if b)
        return EDGE, self.view[1], SLIDE[0] - 2 * EDGE, bottom - self.view[1]


def fit_scale(size, room):
    """The scale that shows a graph of `size` whole in `room` ((width, height) pt), at most MOST."""
    return min(room[0] / size[0], room[1] / size[1], MOST)


def best_shape(sizes, room):
    """The shape whose numbers are largest with the graph whole in `room`, as player.js bestShape chooses for the
    presentation view: a later shape (graph.SHAPES' order) only for numbers BETTER times as large. `sizes`: {shape:
    (width, height)} of the shapes laid out."""
    names = [s for s in SHAPES if s in sizes]
    best = names[0]
    for name in names[1:]:
        if fit_scale(sizes[name], room) > fit_scale(sizes[best], room) * BETTER:
            best = name
    return best


def plan(sizes, lines, legend=None):
    """The deck's Plan for graphs laid out in `sizes` ({shape: (width, height) pt}), with each slide's (title lines,
    sums lines) `lines` (texts), and `legend(width)`, the legend `width` pt wide as an <svg> element (None: no
    legend). The title and sums keep the room their longest need, as the presentation view keeps it (player.js
    fitStage), so that no slide moves the graph."""
    width = SLIDE[0] - 2 * EDGE
    title_h = max(len(t) for t, _ in lines) * TITLE_PT * TITLE_LEADING
    sums_n = max(len(s) for _, s in lines)
    sums_h = sums_n * SUMS_PT * SUMS_LEADING
    top = EDGE + title_h + GAP + (sums_h + GAP if sums_n else 0)

    def room(strip_h):
        return width, SLIDE[1] - EDGE - top - (strip_h + GAP if strip_h else 0)

    key = legend(width) if legend else None
    shape = best_shape(sizes, room(height_of(key)))
    scale = fit_scale(sizes[shape], room(height_of(key)))
    whole = scale * NUMBERS_PT >= READABLE_PT
    overview = None
    legend_w, strip_h = width, height_of(key)
    if not whole:  # at the readable size, as the presentation view's readableScale: the numbers at their own size
        scale = READABLE_PT / NUMBERS_PT
        w, h = sizes[shape]
        o_scale = min(OVERVIEW[0] / w, OVERVIEW[1] / h)
        o_w, o_h = w * o_scale, max(h * o_scale, OVERVIEW_LEAST_H)
        legend_w = width - o_w - 2 * GAP
        key = legend(legend_w) if legend else None
        strip_h = max(height_of(key), o_h)
        overview = (SLIDE[0] - EDGE - o_w, SLIDE[1] - EDGE - o_h, o_w, o_h)
    return Plan(
        shape=shape, scale=scale, whole=whole, graph=tuple(sizes[shape]), title=(EDGE, EDGE, width, title_h),
        sums=(EDGE, EDGE + title_h + GAP, width, sums_h), view=(EDGE, top, *room(strip_h)),
        legend=(EDGE, SLIDE[1] - EDGE - strip_h, legend_w, height_of(key)) if key else None, overview=overview,
        key=key,
    )  # fmt: skip


def height_of(svg):
    """The height in pt of an <svg> element's text (picture.legend_svg's), 0 for None."""
    return float(etree.fromstring(svg.encode()).get('height').removesuffix('pt')) if svg else 0.0


# --- the view ------------------------------------------------------------------------------------------------------


def _union(boxes):
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


def followed(trace, i):
    """The nodes the view keeps in sight at a frame about value i, most first: with its inputs (the nodes its
    _backward writes, or its forward step reads) and the values it feeds; with its inputs; itself."""
    inputs = list(dict.fromkeys(trace.nodes[i].children))
    feeds = [j for j, node in enumerate(trace.nodes) if i in node.children]
    return [[i, *inputs, *feeds], [i, *inputs], [i]]


def views(plan, drawing, trace, frames):
    """The part of the graph in view at each frame, (x, y, width, height) in the graph's pt (drawing: dot's SVG of
    the deck's shape; any frame's, every frame has the same layout). The whole graph if the plan shows it whole;
    else, as player.js followActive scrolls: the view stays where it was while the frame's node and its inputs (the
    grads its _backward writes, the data its forward step reads) are KEEP_PT inside it, and else moves to show the
    node with what it reads and writes (followed), or fewer where they do not fit. Across the graph it moves them
    to its middle, as followActive does; along the way the pass goes (the leaves to the output), it leaves the room
    ahead of the pass: the next frames' nodes stay in view for longer, and the view jumps less often. The first
    view is the graph's top left corner (where the inputs are), and a frame about no node keeps the view."""
    size = plan.view_size
    if plan.whole:
        return [(0.0, 0.0, *size)] * len(frames)
    ahead = _pass_direction(drawing, trace)
    start = [0.0, 0.0]
    out = []
    for frame in frames:
        if frame.node >= 0:
            near = [_union([drawing.value_box(j) for j in js]) for js in followed(trace, frame.node)]
            fits = [b for b in near if all(b[a + 2] - b[a] <= size[a] for a in (0, 1))] + near[-1:]
            wanted, kept = fits[0], next(b for b in fits if b in near[1:])  # kept: the node with its inputs, or alone
            going = 1 if frame.kind in ('forward', 'tangent') else -1  # backward runs from the output to the leaves
            for a in (0, 1):
                start[a] = _along(kept[a::2], wanted[a::2], start[a], size[a], plan.graph[a], going * ahead[a])
        out.append((*start, *size))
    return out


def _pass_direction(drawing, trace):
    """(x, y): along which the forward pass runs in this layout, from the leaves to the output: +1 towards larger
    coordinates, -1 towards smaller, 0 across it."""
    centre = lambda b: ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)  # noqa: E731
    leaves = [centre(drawing.value_box(i)) for i, node in enumerate(trace.nodes) if not node.op]
    out = centre(drawing.value_box(trace.output))
    d = [out[a] - sum(p[a] for p in leaves) / len(leaves) for a in (0, 1)]
    along = 0 if abs(d[0]) >= abs(d[1]) else 1
    return tuple((1 if d[a] >= 0 else -1) if a == along else 0 for a in (0, 1))


def _along(kept, wanted, start, size, total, ahead):
    """The view's start along one side: where it was while `kept` (lo, hi) stays KEEP_PT inside it (or as far inside
    as it fits); else with `wanted` in its middle, or, going `ahead` (+1 to larger coordinates, -1 to smaller), at
    its trailing side; within the graph."""
    margin = lambda lo, hi: min(KEEP_PT, max(0.0, (size - hi + lo) / 2))  # noqa: E731
    if kept[0] >= start + margin(*kept) and kept[1] <= start + size - margin(*kept):
        return start
    if ahead > 0:
        start = wanted[0] - margin(*wanted)
    elif ahead < 0:
        start = wanted[1] + margin(*wanted) - size
    else:
        start = (wanted[0] + wanted[1] - size) / 2
    return max(0.0, min(total - size, start))


# --- the slide as SVG ----------------------------------------------------------------------------------------------


def _meets(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _shown(drawing, view):
    """dot's graph as an SVG group of the elements that reach into the view (the rest left out, which no one sees and
    a PDF's text would hold), their texts in the page's font and the numbers bold where the page makes them bold
    (picture.BOLD_TEXTS)."""
    seen = (view[0], view[1], view[0] + view[2], view[1] + view[3])
    shown = []
    for child in drawing.graph.iterchildren(f'{{{SVG_NS}}}g'):
        box = drawing.boxes.get(child.get('id'))
        if box is None or not _meets(box, seen):
            continue
        texts = child.findall(f'{{{SVG_NS}}}text')
        for text in texts:
            text.attrib.pop('font-family', None)  # dot's Courier, whose metrics it lays the graph out by
        if _VALUE.fullmatch(child.get('id')):
            for k in (VALUE_TEXTS['data'], VALUE_TEXTS['grad']):
                if k < len(texts) and (texts[k].text or '').strip() in BOLD_TEXTS:
                    texts[k].set('font-weight', 'bold')
        shown.append(etree.tostring(child, encoding='unicode'))
    transform = drawing.graph.get('transform')
    return f'<g transform="{transform}" font-family="{html.escape(SCREEN_FONT)}">{"".join(shown)}</g>'


def _text(lines, x, y, size, leading, family, weight='normal'):
    out = []
    for k, line in enumerate(lines):
        baseline = y + size * (0.95 + k * leading)
        out.append(
            f'<text x="{x:.2f}" y="{baseline:.2f}" font-family="{html.escape(family)}" font-size="{size:g}" '
            f'font-weight="{weight}" fill="{INK}">{html.escape(line, quote=False)}</text>'
        )
    return ''.join(out)


def _view(x, y, w, h, box, content):
    return (
        f'<svg id="view" x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" '
        f'viewBox="{box[0]:.2f} {box[1]:.2f} {box[2]:.2f} {box[3]:.2f}" overflow="hidden">{content}</svg>'
    )


def slide_svg(plan, drawing, view, lines, node=-1, text=True):
    """One slide as SVG text: with `text`, the whole page with its title and sums (`lines`, texts' pair), for the
    PDF; else only its picture (Plan.picture: the view, the overview and the legend), for a pptx slide, whose title
    and sums are its own text. `view`: the part of the graph in view (views); `node`: the frame's node, marked on the
    overview."""
    left, top, width, height = (0.0, 0.0, *SLIDE) if text else plan.picture
    parts = [f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="white"/>']
    if text:
        title, sums = lines
        parts.append(_text(title, *plan.title[:2], TITLE_PT, TITLE_LEADING, TITLE_FONT, 'bold'))
        parts.append(_text(sums, *plan.sums[:2], SUMS_PT, SUMS_LEADING, SCREEN_FONT))
    w, h = view[2] * plan.scale, view[3] * plan.scale
    x = plan.view[0] + (plan.view[2] - w) / 2  # centred in its room, as the presentation view centres it
    y = plan.view[1] + (plan.view[3] - h) / 2
    parts.append(_view(x, y, w, h, view, _shown(drawing, view)))
    if plan.overview:
        parts.append(_overview(plan, drawing, view, node))
    if plan.key:
        parts.append(_placed(plan.key, plan.legend))
    return (
        f'<svg xmlns="{SVG_NS}" width="{width:.2f}pt" height="{height:.2f}pt" '
        f'viewBox="{left:.2f} {top:.2f} {width:.2f} {height:.2f}" xml:space="preserve">{"".join(parts)}</svg>'
    )


def picture_slide_svg(title, png, size):
    """A PDF page of a picture with its title (a batch's plot, after the pass's pages): the title as the frames'
    pages have theirs, the picture (`png`, `size` its pixels) as large as the room under it allows (picture_box)."""
    lines = title_lines(title)
    parts = [f'<rect x="0" y="0" width="{SLIDE[0]}" height="{SLIDE[1]}" fill="white"/>',
             _text(lines, EDGE, EDGE, TITLE_PT, TITLE_LEADING, TITLE_FONT, 'bold')]  # fmt: skip
    x, y, w, h = picture_box(title, size)
    data = base64.b64encode(png).decode()
    parts.append(f'<image x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" '
                 f'href="data:image/png;base64,{data}"/>')  # fmt: skip
    return (
        f'<svg xmlns="{SVG_NS}" width="{SLIDE[0]:.2f}pt" height="{SLIDE[1]:.2f}pt" viewBox="0 0 {SLIDE[0]:.2f} '
        f'{SLIDE[1]:.2f}" xml:space="preserve">{"".join(parts)}</svg>'
    )


def picture_box(title, size):
    """(x, y, width, height) in pt of a picture of `size` pixels on a slide titled `title`: as large as the room
    under the title allows, its shape kept, centred."""
    top = EDGE + TITLE_PT * (0.95 + TITLE_LEADING * (len(title_lines(title)) - 1)) + GAP
    room_w, room_h = SLIDE[0] - 2 * EDGE, SLIDE[1] - EDGE - top
    scale = min(room_w / size[0], room_h / size[1])
    w, h = size[0] * scale, size[1] * scale
    return EDGE + (room_w - w) / 2, top + (room_h - h) / 2, w, h


def _placed(svg, box):
    """An <svg> element's text (the legend) at `box` on the slide, its size in the slide's units, pt."""
    part = etree.fromstring(svg.encode())
    for name, value in zip(('x', 'y', 'width', 'height'), box):
        part.set(name, f'{value:.2f}')
    return etree.tostring(part, encoding='unicode')


def _overview(plan, drawing, view, node):
    """The whole graph small, its value boxes in their colours at this frame (no texts, no edges: a map, light enough
    for every page of a PDF), with the part in view and the active node marked, as the page's overview marks them
    (player.css .in-view, .here)."""
    x, y, w, h = plan.overview
    gw, gh = plan.graph
    s = min(w / gw, h / gh)
    ox, oy = x + (w - gw * s) / 2, y + (h - gh * s) / 2  # the graph's corner in the overview

    def mark(box, least=0.0):
        bx, by = ox + box[0] * s, oy + box[1] * s
        bw, bh = (box[2] - box[0]) * s, (box[3] - box[1]) * s
        grow_w, grow_h = max(0.0, least - bw) / 2, max(0.0, least - bh) / 2
        return bx - grow_w, by - grow_h, bw + 2 * grow_w, bh + 2 * grow_h

    out = [
        f'<g id="overview"><rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" fill="white" '
        f'stroke="{FAINT}" stroke-width="0.75"/>'
    ]
    for child in drawing.graph.iterchildren(f'{{{SVG_NS}}}g'):
        if not _VALUE.fullmatch(child.get('id') or ''):
            continue
        outline = child.find(f'{{{SVG_NS}}}path')
        fill = outline.get('fill') if outline is not None and outline.get('fill') != 'none' else 'white'
        stroke = outline.get('stroke') if outline is not None else INK
        bx, by, bw, bh = mark(drawing.boxes[child.get('id')])
        if bw >= 3:
            look = f'fill="{fill}" stroke="{stroke}" stroke-width="0.5"'
        else:  # too small for a border: its fill, and a white one grey, to be seen at all
            look = f'fill="{FAINT}" fill-opacity="0.5"' if fill.lower() in ('white', '#ffffff') else f'fill="{fill}"'
        out.append(f'<rect x="{bx:.2f}" y="{by:.2f}" width="{bw:.2f}" height="{bh:.2f}" {look}/>')
    vx, vy, vw, vh = mark((view[0], view[1], view[0] + view[2], view[1] + view[3]), HERE_LEAST * 2)
    out.append(
        f'<rect x="{vx:.2f}" y="{vy:.2f}" width="{vw:.2f}" height="{vh:.2f}" fill="{ACTIVE_TINT}" fill-opacity="0.55" '
        f'stroke="{INK}" stroke-width="1.5"/>'
    )
    if node >= 0:
        hx, hy, hw, hh = mark(drawing.value_box(node), HERE_LEAST)
        out.append(f'<rect x="{hx:.2f}" y="{hy:.2f}" width="{hw:.2f}" height="{hh:.2f}" fill="{ACTIVE}"/>')
    return ''.join(out) + '</g>'
