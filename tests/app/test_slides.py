"""The PDF's pages and the deck's slides, as a lecturer shows them: 16:9, each frame framed as the presentation view
frames it (exports/slides.py), its numbers readable from the back row, the active node in view, its sums large under the
title. Every size is measured from the files made: the PDF's text matrices, the deck's pictures' pixels."""

import io
import re
import shutil
import subprocess

import numpy as np
import pytest
from lxml import etree
from PIL import Image
from pptx import Presentation
from pypdf import PdfReader
from scipy import ndimage

import exports
from engine import PRESETS, chain, trace_backward
from engine.frames import frames
from exports import slides
from server import layout
from view import names
from view.explanation import frame_rules
from view.graph import SHAPES, build_dot
from view.numbers import fmt, number_width
from view.palette import ACTIVE, COLOUR_MEANINGS, FORWARD, SEED

BACK_ROW_PT = 14  # the numbers' least size on a 960 pt wide slide: the issue's, the graph's own size
SUMS_LEAST_PT = 18
NUMBER = re.compile(r'[-−]?\d+\.\d+')
SVG = '{http://www.w3.org/2000/svg}'
EMU_PT = 12700  # 914,400 an inch
MARKS = {'forward': FORWARD, 'seed': SEED, 'backward': ACTIVE}  # the active node's border, by the frame's kind


class Deck:
    """A graph's frames (`keep` of its pass: all by default) as a PDF and a pptx, made once for the module's tests,
    with budgets that a busy machine cannot reach: the budgets have their own tests (test_exports.py)."""

    def __init__(self, expression, keep=None, legend=True):
        leaves, out = expression.build(None)
        self.trace = trace_backward(out, leaves)
        self.all = frames(self.trace)
        self.width = number_width(self.trace)
        self.keep = list(range(len(self.all))) if keep is None else keep(self.trace, self.all)
        self.frames = [self.all[k] for k in self.keep]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(exports.queue, 'EXPORT_BUDGET', 600.0)
            patch.setattr(exports.queue, 'RENDER_BUDGET', 600.0)
            made = dict(allowance=layout.Allowance(seconds=1e9), keep=self.keep, legend=legend)
            self.pdf = PdfReader(io.BytesIO(exports.pass_pdf(self.trace, self.all, self.width, **made)))
            self.pptx = Presentation(io.BytesIO(exports.pass_pptx(self.trace, self.all, self.width, **made)))
            svgs = exports.render._slides(
                self.trace, self.all, width=self.width, quick=False, progress=None, allowance=made['allowance'],
                waiting=lambda: True, count=None, keep=self.keep, legend=legend, text=True,
            )  # fmt: skip
            self.svgs = [svg for _, _, svg, _, _ in svgs]
        self.layouts = {}  # shape: each value's box in the layout without values, (left, top, right, bottom) pt

    def layout(self, shape):
        if shape not in self.layouts:
            source = build_dot(self.trace, None, self.width, shape=shape).source
            drawing = slides.Drawing(layout.run(source, 60, lambda: True, layout.Allowance(seconds=1e9)))
            self.layouts[shape] = [drawing.value_box(j) for j in range(len(self.trace.nodes))]
        return self.layouts[shape]

    def shape_of(self, drawn):
        """The shape whose layout has the values drawn (view_of's) where the slide has them."""
        return next(s for s in SHAPES if all(np.allclose(self.layout(s)[j], box, atol=0.5) for j, box in drawn.items()))


def ops_backward(trace, all_frames):
    """chain(100)'s backward steps of its ops, the first 14, after the last 10 frames of its forward pass: 404
    frames are past exports.EXPORT_FRAMES, and each of chain(100)'s frames costs dot a quarter of a second."""
    forward = [k for k, f in enumerate(all_frames) if f.kind in ('inputs', 'forward')][:10]
    backward = [k for k, f in enumerate(all_frames) if f.kind == 'backward' and trace.nodes[f.node].op][:14]
    return forward + backward


@pytest.fixture(scope='module')
def neuron():
    return Deck(PRESETS['neuron'])


@pytest.fixture(scope='module')
def reuse():
    return Deck(PRESETS['reuse'])


@pytest.fixture(scope='module')
def mlp():
    return Deck(PRESETS['mlp'])


@pytest.fixture(scope='module')
def long_chain():
    return Deck(chain(100), ops_backward)


@pytest.fixture(scope='module')
def decks(neuron, reuse, mlp, long_chain):
    return {'neuron': neuron, 'reuse': reuse, 'mlp': mlp, 'chain(100)': long_chain}


def runs(page):
    """(text, its size in pt on a 960 pt wide page) of each text the page shows: pypdf's text matrix and the
    transformation in force, at the font's size."""
    out = []

    def seen(text, cm, tm, font, size):
        a, b, c, d = (np.array(tm[:4]).reshape(2, 2) @ np.array(cm[:4]).reshape(2, 2)).ravel()
        if text.strip():
            out.append((text.strip(), size * abs(a * d - b * c) ** 0.5 * 960 / float(page.mediabox.width)))

    page.extract_text(visitor_text=seen)
    return out


def flat(text):
    return ' '.join(text.split())


# --- the shape of the page -----------------------------------------------------------------------------------------


def test_every_pdf_page_and_every_slide_is_16_9(decks):
    for name, deck in decks.items():
        assert len(deck.pdf.pages) == len(deck.frames) == len(deck.pptx.slides), name
        assert {(p.mediabox.width, p.mediabox.height) for p in deck.pdf.pages} == {(960, 540)}, name
        assert (deck.pptx.slide_width, deck.pptx.slide_height) == (960 * EMU_PT, 540 * EMU_PT), name  # 13.333 × 7.5 in


def test_the_deck_takes_the_shape_whose_numbers_are_largest_a_later_one_only_when_much_larger():
    room = (900.0, 300.0)
    sizes = {'wide': (900.0, 300.0), 'compact': (850.0, 280.0), 'tall': (300.0, 900.0)}
    assert slides.best_shape(sizes, room) == 'wide'  # compact's numbers 1.07 times as large: not enough
    sizes['compact'] = (800.0, 250.0)
    assert slides.best_shape(sizes, room) == 'compact'  # 1.125 times as large
    assert slides.best_shape({'tall': (300.0, 900.0)}, room) == 'tall'  # the shapes there are (a quick layout's)
    assert list(sizes) == list(SHAPES)


# --- the numbers, from the back row --------------------------------------------------------------------------------


def test_on_every_pdf_page_every_number_is_14_pt_or_more_and_the_active_nodes_are_there(decks):
    for name, deck in decks.items():
        for page, frame in zip(deck.pdf.pages, deck.frames):
            texts = runs(page)
            numbers = [size for text, size in texts if NUMBER.fullmatch(text)]
            assert numbers and min(numbers) >= BACK_ROW_PT - 1e-6, (name, frame)
            if frame.node >= 0:  # its name and data, in the graph, at the graph's size
                node = deck.trace.nodes[frame.node]
                sizes = {text: size for text, size in texts if text in (node.name, fmt(node.data))}
                assert sizes.keys() == {node.name, fmt(node.data)}, (name, frame)
                assert min(sizes.values()) >= BACK_ROW_PT - 1e-6, (name, frame)


def active_box_px(png, frame):
    """The active node's box in a slide's picture: the largest region its mark's colour encloses (the box's border
    all round it; an op's circle and the legend's swatch are smaller, the overview's mark is filled), as (width,
    height) in px between the middles of its border, which antialiasing blurs the least. None if no region is."""
    colour = MARKS[frame.kind]
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert('RGB')).astype(int)
    rgb = np.array([int(colour[k : k + 2], 16) for k in (1, 3, 5)])
    mark = np.abs(pixels - rgb).max(axis=2) <= 60
    holes, count = ndimage.label(ndimage.binary_fill_holes(mark) & ~mark)
    if not count:
        return None
    largest = 1 + np.argmax(ndimage.sum(np.ones_like(holes), holes, range(1, count + 1)))
    rows, cols = np.nonzero(holes == largest)
    middle_col = (cols.min() + cols.max()) // 2
    above, below = mark[: rows.min(), middle_col][-40:], mark[rows.max() + 1 :, middle_col][:40]
    thick = (np.count_nonzero(above) + np.count_nonzero(below)) / 2  # the border's, where it runs straight
    return cols.max() - cols.min() + 1 + thick, rows.max() - rows.min() + 1 + thick


def test_on_every_slide_the_active_nodes_numbers_are_14_pt_or_more_measured_from_its_picture(decks):
    for name, deck in decks.items():
        for slide, frame in zip(deck.pptx.slides, deck.frames):
            if frame.node < 0:
                continue
            (picture,) = [s for s in slide.shapes if s.shape_type == 13]
            found = active_box_px(picture.image.blob, frame)
            assert found, (name, frame)  # enclosed all round: the whole box is in view, not cut by its edge
            w_px, h_px = found
            pt_per_px = picture.width / EMU_PT / picture.image.size[0]
            # the box laid out by dot, its numbers 14 pt: the shape whose box has the measured box's proportions
            sizes = [(b[2] - b[0], b[3] - b[1]) for b in (deck.layout(shape)[frame.node] for shape in SHAPES)]
            w, h = min(sizes, key=lambda size: abs(size[0] / size[1] - w_px / h_px))
            assert abs(w / h - w_px / h_px) < 0.03 * w / h, (name, frame)
            numbers_pt = 14 * h_px * pt_per_px / h
            # to within the pixel and a half where the antialiased border's middle falls
            assert numbers_pt >= BACK_ROW_PT * (1 - 1.5 / h_px), (name, frame, numbers_pt)


# --- what is in view -----------------------------------------------------------------------------------------------


def view_of(svg):
    """(the view's viewBox, the boxes of the values drawn in it {node index: (left, top, right, bottom)}, whether the
    slide has an overview) of a slide's SVG."""
    root = etree.fromstring(svg.encode())
    view = next(e for e in root.iter(f'{SVG}svg') if e.get('id') == 'view')
    box = tuple(float(v) for v in view.get('viewBox').split())
    graph = view.find(f'{SVG}g')
    dx, dy = (float(v) for v in re.search(r'translate\(([-\d.]+) ([-\d.]+)\)', graph.get('transform')).groups())
    drawn = {}
    for g in graph.iter(f'{SVG}g'):
        if re.fullmatch(r'n\d+', g.get('id') or ''):
            numbers = [float(v) for v in re.findall(r'-?[\d.]+', g.find(f'{SVG}path').get('d'))]
            drawn[int(g.get('id')[1:])] = (min(numbers[0::2]) + dx, min(numbers[1::2]) + dy,
                                           max(numbers[0::2]) + dx, max(numbers[1::2]) + dy)  # fmt: skip
    overview = any(e.get('id') == 'overview' for e in root.iter(f'{SVG}g'))
    return box, drawn, overview


def inside(box, view, margin=0.0):
    """Whether `box` is in `view` ((x, y, width, height)), `margin` inside its edges or as far inside as it fits."""
    room = [min(margin, max(0.0, (view[2 + a] - box[2 + a] + box[a]) / 2)) for a in (0, 1)]
    return all(view[a] + room[a] <= box[a] and box[2 + a] <= view[a] + view[2 + a] - room[a] for a in (0, 1))


def union(boxes):
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


def test_a_small_graph_is_shown_whole_on_every_page_without_an_overview(neuron, reuse):
    for deck in (neuron, reuse):
        for svg, page in zip(deck.svgs, deck.pdf.pages):
            view, drawn, overview = view_of(svg)
            assert not overview
            assert sorted(drawn) == list(range(len(deck.trace.nodes)))
            assert all(inside(box, view) for box in drawn.values())
            names = {text for text, _ in runs(page)}
            assert {node.name for node in deck.trace.nodes} <= names  # each box's name, in the PDF


def test_a_big_graphs_view_holds_the_active_node_and_its_inputs_on_every_slide_with_an_overview(mlp, long_chain):
    for deck in (mlp, long_chain):
        held = 0
        for svg, frame in zip(deck.svgs, deck.frames):
            view, drawn, overview = view_of(svg)
            assert overview
            assert len(drawn) < len(deck.trace.nodes)  # a part of the graph
            if frame.node < 0:
                continue
            assert inside(drawn[frame.node], view), frame
            # the grads its step writes, or the data it reads, where they fit in the view with it
            near = union(
                [deck.layout(deck.shape_of(drawn))[j] for j in (frame.node, *deck.trace.nodes[frame.node].children)]
            )
            if near[2] - near[0] <= view[2] and near[3] - near[1] <= view[3]:
                assert inside(near, view), frame
                held += 1
        assert held > len(deck.frames) / 2  # chain(100)'s w, far off at the start of its bus, fits with none of them


def test_the_view_moves_only_when_the_active_node_and_its_inputs_leave_it(mlp, long_chain):
    for deck in (mlp, long_chain):
        views = [view_of(svg)[0] for svg in deck.svgs]
        moves = 0
        for k in range(1, len(views)):
            frame, before = deck.frames[k], views[k - 1]
            if frame.node < 0 or views[k] == before:
                continue
            moves += 1
            boxes = deck.layout(deck.shape_of(view_of(deck.svgs[k])[1]))
            kept = union([boxes[j] for j in (frame.node, *deck.trace.nodes[frame.node].children)])
            assert not inside(kept, before, slides.KEEP_PT), k  # it had to move: they were at its edge, or out
        assert moves <= len(views) / 3  # a lecturer flipping through sees the view stay put most of the time


# --- the title, the sums, the legend -------------------------------------------------------------------------------


def test_the_title_is_the_caption_and_the_sums_stand_under_it_as_large_real_text(reuse):
    titles = [names.frame_title(reuse.trace, reuse.all, k) for k in reuse.keep]
    for slide, frame, title in zip(reuse.pptx.slides, reuse.frames, titles):
        assert slide.shapes.title.text == title
        (sums,) = [s for s in slide.shapes if s.has_text_frame and s != slide.shapes.title]
        assert flat(sums.text_frame.text) == flat(' '.join(frame_rules(reuse.trace, frame)))
        assert all(p.font.size.pt >= SUMS_LEAST_PT for p in sums.text_frame.paragraphs if p.text)
        assert sums.top >= slide.shapes.title.top + slide.shapes.title.height
    for page, frame, title in zip(reuse.pdf.pages, reuse.frames, titles):
        text = flat(page.extract_text())
        assert title in text and all(flat(rule) in text for rule in frame_rules(reuse.trace, frame))
        legend = set(COLOUR_MEANINGS.values())
        sums = [size for t, size in runs(page) if ('.grad' in t or ' = ' in t) and t not in legend]  # and the title
        assert not frame_rules(reuse.trace, frame) or min(sums) >= SUMS_LEAST_PT


def test_the_legend_is_under_the_graph_by_default_and_left_out_when_asked(reuse):
    without = Deck(PRESETS['reuse'], legend=False)
    for page in reuse.pdf.pages:
        legend = [(text, size) for text, size in runs(page) if text == COLOUR_MEANINGS[ACTIVE]]
        assert len(legend) == 1 and legend[0][1] >= 10  # picture.LEGEND_PT: the page's legend beside its 14 pt
    assert not any(m in flat(p.extract_text()) for p in without.pdf.pages for m in COLOUR_MEANINGS.values())


# --- opened as a lecturer opens it ---------------------------------------------------------------------------------


def test_libreoffice_shows_each_slides_title_and_sums_above_its_picture(reuse, tmp_path):
    (tmp_path / 'reuse.pptx').write_bytes(exports.pass_pptx(reuse.trace, reuse.all, reuse.width))
    profile = (tmp_path / 'profile').as_uri()
    command = ['soffice', f'-env:UserInstallation={profile}', '--headless', '--convert-to', 'pdf', '--outdir']
    subprocess.run(
        [*command, str(tmp_path), str(tmp_path / 'reuse.pptx')], check=True, capture_output=True, timeout=300
    )
    pdf = tmp_path / 'reuse.pdf'
    assert len(PdfReader(pdf).pages) == len(reuse.frames)
    xml = subprocess.run(['pdftotext', '-bbox', str(pdf), '-'], check=True, capture_output=True, text=True).stdout
    number = r'"([-\d.]+)"'
    for k, (page, slide, frame) in enumerate(zip(xml.split('<page ')[1:], reuse.pptx.slides, reuse.frames)):
        width = float(re.search(r'width="([\d.]+)"', page)[1])
        words = [(float(y1) * 960 / width, w) for _, _, _, y1, w in re.findall(
            rf'<word xMin={number} yMin={number} xMax={number} yMax={number}>([^<]*)</word>', page)]  # fmt: skip
        (picture,) = [s for s in slide.shapes if s.shape_type == 13]
        top = picture.top / EMU_PT
        above = ' '.join(w for bottom, w in words if bottom <= top + 1)  # LibreOffice's text, nothing over the picture
        assert flat(names.frame_title(reuse.trace, reuse.all, k)) in above
        assert all(flat(rule) in above for rule in frame_rules(reuse.trace, frame)), k
        assert all(bottom <= 540 for bottom, _ in words)


# --- the bounds ----------------------------------------------------------------------------------------------------


def test_without_rsvg_convert_the_pdf_and_the_deck_are_refused_with_how_to_install_it(tmp_path, monkeypatch):
    (tmp_path / 'dot').symlink_to(shutil.which('dot'))  # dot, and nothing else
    monkeypatch.setenv('PATH', str(tmp_path))
    leaves, out = PRESETS['reuse'].build(None)
    trace = trace_backward(out, leaves)
    for export in (exports.pass_pdf, exports.pass_pptx):
        with pytest.raises(exports.ExportRefused) as refused:
            export(trace, frames(trace), number_width(trace))
        assert refused.value.message == exports.queue.NO_RSVG and 'librsvg2-bin' in refused.value.message


def test_past_its_drawing_budget_the_pdf_is_refused_and_no_rsvg_convert_is_left_running(monkeypatch, dot_processes):
    monkeypatch.setattr(exports.queue, 'RENDER_BUDGET', 0.001)
    leaves, out = PRESETS['reuse'].build(None)
    trace = trace_backward(out, leaves)
    with pytest.raises(exports.ExportRefused, match='These slides need more than 0.001 s to draw'):
        exports.pass_pdf(trace, frames(trace), number_width(trace))
    assert dot_processes and all(p.poll() is not None for p in dot_processes)
    assert dot_processes[-1].args[0] == 'rsvg-convert'
