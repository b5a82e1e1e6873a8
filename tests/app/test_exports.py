"""The exports a lecturer drops into slides: each file opens in the tool it is for, shows the page's picture with the
frame's numbers, says what it is in its name, and every dot it takes is bounded like the page's layout."""

import io
import re
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import pytest
from PIL import Image
from pptx import Presentation
from pypdf import PdfReader

import exports
from engine import PRESETS, Value, assign, chain, parse_expression, trace_backward
from engine.frames import frames
from exports import ExportRefused, picture
from server import layout
from view import names
from view.explanation import caption, chain_rule_lines
from view.graph import build_dot
from view.numbers import number_width

SVG = '{http://www.w3.org/2000/svg}'


class Case:
    def __init__(self, expression):
        leaves, out = expression.build(None)
        self.trace = trace_backward(out, leaves)
        self.frames = frames(self.trace)
        self.width = number_width(self.trace)

    def node(self, name):
        return next(n for n in self.trace.nodes if n.name == name)

    def frame_of(self, kind, name):
        index = self.trace.nodes.index(self.node(name))
        return next(k for k, f in enumerate(self.frames) if f.kind == kind and f.node == index)


@pytest.fixture(scope='module')
def neuron():
    return Case(PRESETS['neuron'])


@pytest.fixture(scope='module')
def reuse():
    return Case(PRESETS['reuse'])


@pytest.fixture(scope='module')
def typed():
    return Case(parse_expression('L = (a*b + c) * f'))


def node_texts(svg, node_id):
    group = next(g for g in ET.fromstring(svg).iter(f'{SVG}g') if g.get('id') == node_id)
    return [t.text.strip() for t in group.iter(f'{SVG}text') if t.text and t.text.strip()]


def shapes(svg, kind):
    """{element id: [(tag, geometry)]} of the nodes or edges: where dot put each of them."""
    out = {}
    for g in ET.fromstring(svg).iter(f'{SVG}g'):
        if g.get('class') == kind:
            out[g.get('id')] = [
                (e.tag, e.get('points') or e.get('d') or (e.get('x'), e.get('y')))
                for e in g.iter()
                if e.tag in (f'{SVG}polygon', f'{SVG}path', f'{SVG}ellipse', f'{SVG}text', f'{SVG}polyline')
            ]
    return out


def svg_size_pt(svg):
    root = ET.fromstring(svg)
    return float(root.get('width').removesuffix('pt')), float(root.get('height').removesuffix('pt'))


# --- one frame -----------------------------------------------------------------------------------------------------


def test_a_frame_svg_parses_and_shows_the_neurons_output_and_final_grads(neuron):
    # the exercise: o = tanh(2·-3 + 0·1 + 6.8813735870195432) = 0.7071; x1.grad = -1.5, w1 1.0, x2 0.5, w2 0.0
    seed = exports.frame_svg(neuron.trace, neuron.frames[neuron.frame_of('seed', 'o')], neuron.width)
    assert node_texts(seed, neuron.node('o').id) == ['o', 'data', '0.7071', 'grad', '1.0000']
    end = exports.frame_svg(neuron.trace, neuron.frames[-1], neuron.width)
    grads = {name: node_texts(end, neuron.node(name).id)[-1] for name in ('x1', 'w1', 'x2', 'w2')}
    assert grads == {'x1': '-1.5000', 'w1': '1.0000', 'x2': '0.5000', 'w2': '0.0000'}


def test_a_frame_svg_has_the_pages_layout_where_no_node_moves(reuse):
    # the page's layout made a file as the frame's is (picture.page_svg: a centred text is anchored at its start)
    page = picture.page_svg(layout.lay_out(build_dot(reuse.trace, None, reuse.width)).svg, 'reuse')
    assert not layout.lay_out(build_dot(reuse.trace, None, reuse.width)).quick
    for frame in reuse.frames:
        svg = exports.frame_svg(reuse.trace, frame, reuse.width).decode()
        assert shapes(svg, 'node') == shapes(page, 'node')  # every box, circle and text where the page has it
        assert shapes(svg, 'edge').keys() == shapes(page, 'edge').keys()


def test_the_same_scenario_exports_the_same_svg_byte_for_byte(reuse):
    # what a link reopens: the expression, its inputs and the frame, built again from nothing
    again = Case(PRESETS['reuse'])
    for k in (0, 6, len(reuse.frames) - 1):
        assert exports.frame_svg(reuse.trace, reuse.frames[k], reuse.width) == exports.frame_svg(
            again.trace, again.frames[k], again.width
        )


def test_grads_the_page_hides_stay_hidden_in_every_export(reuse):
    # reuse at the a*a step: a*a's _backward writes a.grad twice (3 + 3 = 6, by hand); with hide=new, a shows '?'
    k = reuse.frame_of('backward', 'a*a')
    shown = node_texts(exports.frame_svg(reuse.trace, reuse.frames[k], reuse.width), reuse.node('a').id)
    new, every = frames(reuse.trace, hide='new'), frames(reuse.trace, hide='all')
    hidden = node_texts(exports.frame_svg(reuse.trace, new[k], reuse.width), reuse.node('a').id)
    assert shown[-1] == '6.0000' and hidden[-1] == '?'
    last = exports.frame_svg(reuse.trace, every[-1], reuse.width)
    assert all(node_texts(last, reuse.node(name).id)[-1] == '?' for name in ('a', 'b'))
    zipped = zipfile.ZipFile(io.BytesIO(exports.pass_zip(reuse.trace, every, reuse.width, 'r')))
    last = zipped.read(zipped.namelist()[-1])
    assert node_texts(last, reuse.node('a').id)[-1] == '?'


def test_a_frame_of_a_quickly_laid_out_graph_is_exported_with_the_quick_layout(neuron):
    quick = layout.quickened(build_dot(neuron.trace, None, neuron.width))
    page = picture.page_svg(layout.run(quick.source, 5, lambda: True, layout.Allowance()), 'neuron')
    svg = exports.frame_svg(neuron.trace, neuron.frames[-1], neuron.width, quick=True).decode()
    assert shapes(svg, 'node') == shapes(page, 'node') and shapes(svg, 'edge') == shapes(page, 'edge')
    full = exports.frame_svg(neuron.trace, neuron.frames[-1], neuron.width).decode()
    assert shapes(full, 'edge') != shapes(svg, 'edge')  # the quick layout's straight edges: another picture


def test_a_frame_png_is_twice_the_svgs_screen_size_on_white(neuron):
    frame = neuron.frames[neuron.frame_of('backward', 'o')]
    svg_w, svg_h = svg_size_pt(exports.frame_svg(neuron.trace, frame, neuron.width))
    picture = Image.open(io.BytesIO(exports.frame_png(neuron.trace, frame, neuron.width)))
    screen_w, screen_h = svg_w * 4 / 3, svg_h * 4 / 3  # 1 pt is 4/3 px on a 96 px-per-inch screen
    assert picture.format == 'PNG'
    assert picture.width >= 2 * screen_w - 1 and picture.height >= 2 * screen_h - 1  # dot rounds to whole pixels
    assert picture.convert('RGB').getpixel((0, 0)) == (255, 255, 255)
    assert picture.convert('RGB').getpixel((picture.width - 1, picture.height - 1)) == (255, 255, 255)


def test_the_dot_source_of_a_frame_is_the_pages_graph_with_the_quick_attributes_when_quick(neuron):
    frame = neuron.frames[-1]
    assert exports.frame_dot(neuron.trace, frame, neuron.width) == build_dot(neuron.trace, frame, neuron.width).source
    quick = exports.frame_dot(neuron.trace, frame, neuron.width, quick=True)
    assert all(f'{k}={v}' in quick for k, v in layout.QUICK.items())


# --- file names ----------------------------------------------------------------------------------------------------


def test_a_file_name_says_the_expression_and_its_inputs_when_short():
    assert names.file_stem('neuron') == 'neuron'
    assert names.file_stem('reuse', {'a': 3.0, 'b': -2.0}) == 'reuse_a3_b-2'
    assert names.file_stem('lecture', {'a': 2.5, 'b': -3e-7}) == 'lecture_a2.5_b-3e-07'
    many = {f'w{i}': 0.123456 for i in range(16)}  # the mlp's inputs would make a name of 160 characters
    assert names.file_stem('mlp', many) == 'mlp'
    neuron = Case(PRESETS['neuron']).frames  # 17 frames: the file of frame 3 of 17 (step=2 in a link)
    assert names.file_stem('neuron') + names.frame_suffix(neuron, 2) + '.svg' == 'neuron_f03.svg'
    nine = neuron[:9]  # padded to the digits of the count: 9, 10, 108 frames
    assert names.frame_suffix(nine, 2) == '_f3' and names.frame_suffix(neuron[:10], 2) == '_f03'
    assert names.frame_suffix(nine * 12, 2) == '_f003'
    assert names.frame_suffix(nine, 2, count=21) == '_f03'  # the count the page reads: the pass and learning's frames


def test_a_quizs_question_and_its_answer_share_the_steps_number_and_their_files_sort_question_first():
    reuse = Case(PRESETS['reuse'])
    asked = frames(reuse.trace, ask=True)
    suffixes = [names.frame_suffix(asked, k) for k in range(len(asked))]
    assert suffixes == [
        '_f01', '_f02', '_f03', '_f04', '_f05', '_f06_asked', '_f06_shown', '_f07_asked', '_f07_shown', '_f08_asked',
        '_f08_shown', '_f09', '_f10',
    ]  # fmt: skip
    assert suffixes == sorted(suffixes)


@pytest.mark.parametrize(
    'typed_name',
    ['../../etc/passwd', '/abs/path', 'my graph', 'ünïcödé ∂L/∂a', '..', '', 'con', 'a\\b:c*?"<>|', 'x' * 300],
)
def test_a_typed_name_is_sanitised_so_it_cannot_escape_its_folder(typed_name):
    stem = names.file_stem(typed_name, {'α': 1.0, '../x': 2.0})
    assert re.fullmatch(r'[A-Za-z0-9][A-Za-z0-9._-]*', stem), stem
    assert '..' not in stem and len(stem) <= names.STEM_CHARS
    assert stem.lower() != 'con'


def test_a_typed_formula_names_its_files_by_its_text():
    assert names.file_stem('tanh(x1*w1 + x2*w2 + b)') == 'tanh_x1_w1_x2_w2_b'
    assert names.file_stem('naïve') == 'naive'


# --- the whole pass ------------------------------------------------------------------------------------------------


def test_the_gif_has_one_image_per_frame_on_one_canvas_looping_with_the_last_held(reuse):
    calls = []
    gif = Image.open(
        io.BytesIO(exports.pass_gif(reuse.trace, reuse.frames, reuse.width, progress=lambda *a: calls.append(a)))
    )
    assert gif.format == 'GIF' and gif.n_frames == len(reuse.frames)
    assert calls == [(k, len(reuse.frames)) for k in range(1, len(reuse.frames) + 1)]
    assert gif.info['loop'] == 0
    graph_h = svg_size_pt(exports.frame_svg(reuse.trace, reuse.frames[0], reuse.width))[1] * 4 / 3
    durations, sizes = [], set()
    for k in range(gif.n_frames):
        gif.seek(k)
        durations.append(gif.info['duration'])
        sizes.add(gif.size)
        below = gif.convert('L').crop((0, int(graph_h) + 2, gif.width, gif.height))
        assert below.getextrema()[0] < 100  # the caption is written under the graph, in dark ink
    assert len(sizes) == 1 and gif.height > graph_h
    assert durations[0] == 2000 and durations[-1] > durations[0] and len(set(durations[:-1])) == 1  # 2 s by default


def test_a_gif_too_big_is_refused_after_one_frame_with_its_size(neuron, monkeypatch, dot_processes):
    monkeypatch.setattr(exports.render, 'GIF_PIXELS', 1_000_000)
    with pytest.raises(ExportRefused, match=r'GIFs take at most 1 million pixels') as refused:
        exports.pass_gif(neuron.trace, neuron.frames, neuron.width)
    assert f'× {len(neuron.frames)} pictures' in refused.value.message
    assert len(dot_processes) == 1


def test_the_zip_holds_one_numbered_svg_per_frame(neuron):
    data = exports.pass_zip(neuron.trace, neuron.frames, neuron.width, names.file_stem('neuron'))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == [f'neuron_f{k:02d}.svg' for k in range(1, 18)]  # frames 1 to 17: _f01 to _f17
        for name in archive.namelist():
            assert ET.fromstring(archive.read(name)).tag == f'{SVG}svg'
        last = archive.read('neuron_f17.svg')
    assert node_texts(last, neuron.node('x1').id)[-1] == '-1.5000'


def test_the_pdf_has_one_16_9_vector_page_per_frame_each_with_its_caption(typed):
    calls = []
    pdf = PdfReader(
        io.BytesIO(exports.pass_pdf(typed.trace, typed.frames, typed.width, progress=lambda *a: calls.append(a)))
    )
    assert len(pdf.pages) == len(typed.frames) and calls[-1] == (len(typed.frames),) * 2
    assert {(p.mediabox.width, p.mediabox.height) for p in pdf.pages} == {(960, 540)}  # the deck's 13.333 × 7.5 in
    for k, page in enumerate(pdf.pages):
        text = ' '.join(page.extract_text().split())  # the title wraps between words
        assert f'Frame {k + 1} of {len(typed.frames)}' in text and caption(typed.trace, typed.frames[k]) in text
        assert 'grad' in text and 'f' in text.split()  # the nodes' texts are text, not pixels
        assert not page.images  # no raster image anywhere on the page
        resources = page['/Resources']
        assert all(x.get_object()['/Subtype'] != '/Image' for x in resources.get('/XObject', {}).values())


def test_a_name_with_dot_syntax_in_it_is_printed_as_it_is_in_the_pdf():
    a = Value(2.0, label='a\\N "q" <b>')
    out = a * a
    out.label = 'out'
    trace = trace_backward(out, [a])
    chosen = frames(trace)[:2]
    text = PdfReader(io.BytesIO(exports.pass_pdf(trace, chosen, number_width(trace)))).pages[1].extract_text()
    assert 'a\\N "q" <b>' in ' '.join(text.split())  # in the caption and the graph: not a newline, not markup


def test_the_slides_are_16_9_one_per_frame_titled_by_captions_with_the_chain_rule_in_the_notes(neuron):
    deck = Presentation(io.BytesIO(exports.pass_pptx(neuron.trace, neuron.frames, neuron.width)))
    assert abs(deck.slide_width / deck.slide_height - 16 / 9) < 0.01
    slides = list(deck.slides)
    assert len(slides) == len(neuron.frames)
    assert [s.shapes.title.text for s in slides] == [
        f'Frame {k} of {len(neuron.frames)}: {caption(neuron.trace, f)}' for k, f in enumerate(neuron.frames, start=1)
    ]
    k = neuron.frame_of('backward', 'o')  # o = tanh(n) passes back 1 - 0.7071² = 0.5 to n
    notes = slides[k].notes_slide.notes_text_frame.text
    step = neuron.trace.steps[neuron.frames[k].steps_done - 1]
    assert chain_rule_lines(neuron.trace, step)[0] in notes and notes.startswith('local gradient') and '0.5000' in notes
    assert 'inputs are set' in slides[0].notes_slide.notes_text_frame.text  # not a backward step: the explanation
    for slide in slides:
        (picture,) = [s for s in slide.shapes if s.shape_type == 13]
        texts = [s for s in slide.shapes if s.has_text_frame]  # the title, and the sums under it
        assert all(picture.top >= s.top + s.height for s in texts) and picture.left >= 0
        assert picture.left + picture.width <= deck.slide_width and picture.top + picture.height <= deck.slide_height
        px_w, px_h = picture.image.size
        assert abs(picture.width / picture.height - px_w / px_h) < 0.01  # its aspect ratio kept
        assert px_w / (picture.width / 914400) >= exports.render.SLIDE_DPI - 1  # 144 px per inch: a 1080p slide's own


def test_a_quizs_slides_number_each_step_as_watching_does_and_the_questions_notes_hold_the_answer(reuse):
    asked = frames(reuse.trace, ask=True)  # 13: out's, a*a's and a*b's steps each asked, then shown
    slides = list(Presentation(io.BytesIO(exports.pass_pptx(reuse.trace, asked, reuse.width))).slides)
    titles = [s.shapes.title.text for s in slides]
    assert titles[5:7] == [
        'Frame 6 of 10: predict: out = a*b + a*a passes its grad back: what is (a*b).grad, (a*a).grad now?',
        'Frame 6 of 10: backward pass: out = a*b + a*a passes its grad back',
    ]
    assert [t.split(':')[0] for t in titles if not t.split(': ')[1].startswith('predict')] == [
        names.frame_title(reuse.trace, reuse.frames, k).split(':')[0] for k in range(len(reuse.frames))
    ]  # the same numbers as the pass watched
    question, answer = (s.notes_slide.notes_text_frame.text for s in slides[5:7])
    assert question.startswith('The room works out the grads; the next slide, Frame 6 of 10 again, shows them:\n')
    assert question.endswith(answer)


# --- the bounds ----------------------------------------------------------------------------------------------------


def test_a_pass_over_the_frame_cap_is_refused_before_any_dot_runs(dot_processes):
    long = Case(chain(100))
    assert len(long.frames) > exports.EXPORT_FRAMES
    for export in (exports.pass_gif, exports.pass_pdf, exports.pass_pptx):
        with pytest.raises(ExportRefused) as refused:
            export(long.trace, long.frames, long.width)
        assert refused.value.message == exports.too_many(len(long.frames))
        assert f'would be {len(long.frames)} pictures' in refused.value.message
    with pytest.raises(ExportRefused, match='at most 200'):
        exports.pass_zip(long.trace, long.frames, long.width, 'chain')
    assert dot_processes == []


def test_without_dot_every_picture_export_is_refused_with_install_advice_and_the_dot_source_still_works(
    neuron, monkeypatch, tmp_path, dot_processes
):
    monkeypatch.setenv('PATH', str(tmp_path))  # an empty folder: no dot on this server
    t, f, w = neuron.trace, neuron.frames, neuron.width
    picture_exports = [
        lambda: exports.frame_svg(t, f[0], w),
        lambda: exports.frame_png(t, f[0], w),
        lambda: exports.pass_gif(t, f, w),
        lambda: exports.pass_zip(t, f, w, 'neuron'),
        lambda: exports.pass_pdf(t, f, w),
        lambda: exports.pass_pptx(t, f, w),
    ]
    for export in picture_exports:
        with pytest.raises(ExportRefused) as refused:
            export()
        assert exports.install_graphviz() in refused.value.message
    assert exports.frame_dot(t, f[-1], w).startswith('digraph')
    assert dot_processes == []


@pytest.mark.parametrize(
    ('system', 'command'),
    [
        ('Linux', 'sudo apt-get install graphviz'),
        ('Darwin', 'brew install graphviz'),
        ('Windows', 'winget install graphviz'),
    ],
)
def test_the_advice_to_install_graphviz_is_the_command_of_the_servers_os(monkeypatch, system, command):
    monkeypatch.setattr(exports.queue.platform, 'system', lambda: system)
    assert command in exports.install_graphviz() and command in exports.no_dot()


def test_past_the_time_budget_an_export_is_refused_and_no_dot_is_left_running(neuron, monkeypatch, dot_processes):
    # dot is made to report that it has used 10 s of CPU at its first look: a small graph laid out by a fast
    # machine within the poll would otherwise finish before any budget the clock can keep
    monkeypatch.setattr(exports.queue, 'EXPORT_BUDGET', 0.5)
    monkeypatch.setattr(layout, 'cpu_seconds', lambda pid: 10.0)
    with pytest.raises(ExportRefused, match=r'more than its 0.5 s of graph layout: it was stopped after 0 pictures'):
        exports.pass_pdf(neuron.trace, neuron.frames, neuron.width)
    assert len(dot_processes) == 1 and all(p.poll() is not None for p in dot_processes)


def test_the_dot_an_export_takes_is_paid_from_the_sessions_allowance(reuse):
    now = [0.0]
    allowance = layout.Allowance(seconds=30, window=60, clock=lambda: now[0])
    exports.pass_zip(reuse.trace, reuse.frames, reuse.width, 'reuse', allowance=allowance)
    assert 0 < allowance.used() < 30
    allowance.spend(30)
    with pytest.raises(ExportRefused, match=r'used its 30 s of graph layout for this minute. Try again in 60 s'):
        exports.frame_png(reuse.trace, reuse.frames[-1], reuse.width, allowance=allowance)


def test_when_every_core_is_laying_out_an_export_is_refused_as_busy(reuse, monkeypatch, dot_processes):
    monkeypatch.setattr(layout, '_slots', layout.Slots(1))
    monkeypatch.setattr(layout, 'SLOT_WAIT', 0.05)
    layout._slots.acquire()
    try:
        with pytest.raises(ExportRefused, match='busy'):
            exports.pass_gif(reuse.trace, reuse.frames, reuse.width)
    finally:
        layout._slots.release()
    assert dot_processes == []


def test_an_export_nobody_waits_for_is_stopped_and_its_dot_killed(reuse, dot_processes):
    with pytest.raises(layout.VisitorLeft):
        exports.pass_pptx(reuse.trace, reuse.frames, reuse.width, waiting=lambda: False)
    assert len(dot_processes) == 1 and dot_processes[0].poll() is not None


# --- a frame's PNG says what it shows; the PDF's legend is a key to its pages ---------------------------------------


def test_a_frame_png_is_titled_by_the_expression_the_frame_and_what_it_does(neuron):
    k = neuron.frame_of('backward', 'x1*w1')
    title = exports.png_title(neuron.trace, neuron.frames, k)
    assert title == f'o = tanh(x1 × w1 + x2 × w2 + b) · Frame {k + 1} of {len(neuron.frames)} · backward'
    # 17: the inputs set, 5 ops computed, the seed, and a _backward for each of the 10 values
    assert exports.png_title(neuron.trace, neuron.frames, 0).endswith('· Frame 1 of 17 · inputs')
    plain, titled = (
        Image.open(io.BytesIO(exports.frame_png(neuron.trace, neuron.frames[k], neuron.width, title=t)))
        for t in (None, title)
    )
    # drawn over the graph: the picture taller by a line of 18 pt at 192 dpi, or more; its top band has ink in it
    assert titled.height - plain.height >= 18 / 72 * exports.render.PNG_DPI
    band = titled.convert('L').crop((0, 0, titled.width, int(18 / 72 * exports.render.PNG_DPI)))
    assert band.getextrema()[0] < 128
    assert exports.frame_dot(neuron.trace, neuron.frames[k], neuron.width, title=title).count(title) == 1


def test_a_typed_title_is_drawn_as_typed_not_read_as_markup_or_escapes():
    typed = Case(parse_expression('y = a/b'))
    title = exports.png_title(typed.trace, typed.frames, 0).replace('y = ', '<b>\\n ')
    source = exports.frame_dot(typed.trace, typed.frames[0], typed.width, title=title)
    assert 'label="<b>\\\\n ' in source  # quoted, its backslash doubled: dot draws `\n` as typed


def pdf_pages(pdf, tmp_path):
    """The PDF's pages' text as pdftotext reads it, as a reader copies it."""
    path = tmp_path / 'pass.pdf'
    path.write_bytes(pdf)
    out = subprocess.run(['pdftotext', '-layout', str(path), '-'], capture_output=True, text=True, check=True).stdout
    return out.split('\f')[:-1]


def test_the_pdfs_legend_keys_not_computed_wherever_its_pages_show_it(reuse, tmp_path):
    not_computed = 'grad not computed yet (·)'
    pages = pdf_pages(exports.pass_pdf(reuse.trace, reuse.frames, reuse.width), tmp_path)
    assert len(pages) == len(reuse.frames)
    assert all(not_computed in page for page in pages)  # the inputs' frame shows · in every grad
    last = len(reuse.frames) - 1  # the last frame alone: every grad computed, nothing to key
    (page,) = pdf_pages(exports.pass_pdf(reuse.trace, reuse.frames, reuse.width, keep=[last]), tmp_path)
    assert not_computed not in page and 'grad is final' in page


def test_the_pdf_on_the_assigning_engine_keys_the_grad_written_over_with_no_number_of_its_own(tmp_path):
    leaves, out = PRESETS['reuse'].build(None, value_type=assign.Value)
    trace = trace_backward(out, leaves)
    leaves, out = PRESETS['reuse'].build(None)
    right = trace_backward(out, leaves)
    steps = frames(trace)
    pages = pdf_pages(exports.pass_pdf(trace, steps, number_width(trace), mode='bug', right=right), tmp_path)
    legend = [line for line in pages[0].splitlines() if 'written over by =' in line]
    assert legend and not re.search(r'\d\.\d', legend[0])  # a row of the key, not a made-up −6.0000


def batch_case(steps=4):
    """The regression's pass at its example's point 3, after `steps` steps on the batch, and its BatchLearning."""
    from engine import batch as batches
    from view.batch import BatchLearning

    regression = PRESETS['regression']
    data = batches.example(regression)
    descent = batches.descend(regression, {'w': 0.5, 'b': 0.0}, data, 0.1, steps)
    update = batches.step(regression, descent.values[-1], data, 0.1)
    case = Case(regression)
    return case, BatchLearning(data, 2, 0.1, descent, update, False)


def test_a_batchs_pdf_and_deck_end_with_its_data_and_its_loss_each_on_a_page_of_its_own(tmp_path):
    from exports.plots import batch_pages

    case, learning = batch_case()
    pages = batch_pages(learning)
    pdf = exports.pass_pdf(case.trace, case.frames, case.width, appendix=pages)
    texts = pdf_pages(pdf, tmp_path)
    assert len(texts) == len(case.frames) + 2
    assert 'The data, 20 points, and what the parameters make of it' in ' '.join(texts[-2].split())
    assert 'The mean loss over the data, after 0 to 4 steps' in ' '.join(texts[-1].split())
    reader = PdfReader(io.BytesIO(pdf))
    assert [len(p.images) for p in reader.pages[-2:]] == [1, 1]  # each plot, as a picture
    assert all(not p.images for p in reader.pages[:-2])  # the pass's pages stay vector
    deck = Presentation(io.BytesIO(exports.pass_pptx(case.trace, case.frames, case.width, appendix=pages)))
    slides = list(deck.slides)
    assert len(slides) == len(case.frames) + 2
    assert [s.shapes.title.text for s in slides[-2:]] == [title for title, _ in pages]
    for slide in slides[-2:]:
        (picture,) = [shape for shape in slide.shapes if shape.shape_type == 13]  # MSO_SHAPE_TYPE.PICTURE
        assert picture.left + picture.width <= deck.slide_width and picture.top + picture.height <= deck.slide_height
        assert picture.top >= slide.shapes.title.top + slide.shapes.title.height  # under its title
