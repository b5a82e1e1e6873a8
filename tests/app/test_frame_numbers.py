"""One way to count frames, wherever people read a frame's number (names.frame_numbers): from 1 ('Frame 10 of 10',
'10 frames'), while a link's step= stays the frame's place from 0 (and step=end), so that old links open the same
frame; a quiz's question has the number of the step it asks about, and counts the pass as watching does.

The places are taken from the code: the page's caption (the player's body, as app.py makes it and player.js writes it:
tests/app/test_app.py's Page), the share panel's title, its whole-pass line and its frame's file name, and the files the
panel makes (their titles and names), drawn by a stand-in for dot that records what each picture is titled.
"""

import io
import re
import zipfile

import cachetools
import pytest
from PIL import Image
from pptx import Presentation
from pypdf import PdfReader
from streamlit.testing.v1 import AppTest
from test_app import APP, EXPRESSIONS, Page

import exports
from components import export_panel
from engine import PRESETS, trace_backward
from engine.frames import frames
from server import cache
from view import names

# --- the numbers ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize('expr', PRESETS)
@pytest.mark.parametrize('forward,leaves', [(True, True), (False, True), (True, False)])
def test_frames_count_from_one_and_a_quiz_numbers_each_step_as_watching_does(expr, forward, leaves):
    leaf_values, out = PRESETS[expr].build()
    trace = trace_backward(out, leaf_values)
    watched, quiz = frames(trace, forward, leaves), frames(trace, forward, leaves, ask=True)
    numbers, count = names.frame_numbers(watched)
    assert numbers == list(range(1, len(watched) + 1)) and count == len(watched)
    assert names.frame_labels(watched)[-1] == f'Frame {len(watched)} of {len(watched)}'
    by_step = dict(zip(watched, numbers))
    asked, asked_count = names.frame_numbers(quiz)
    assert asked_count == count  # 'of 11' in the quiz as when watching, not the quiz's own frames
    for k, frame in enumerate(quiz):
        if frame.ask:  # the question: the number of its answer, the same step shown
            assert quiz[k + 1] == frame.__class__(frame.kind, frame.node, frame.computed, frame.steps_done)
            assert asked[k] == asked[k + 1]
        else:
            assert asked[k] == by_step[frame]
    held = quiz[: next(k for k, f in enumerate(quiz) if f.ask) + 1]  # a quiz at its first question
    assert names.frame_numbers(held, count=count) == (asked[: len(held)], count)


# --- on the page, in the share panel and in the files ----------------------------------------------------------------

PNG, PDF = io.BytesIO(), io.BytesIO()
Image.new('RGB', (8, 8), 'white').save(PNG, 'PNG')
Image.new('RGB', (8, 8), 'white').save(PDF, 'PDF')


SVG = (  # as dot's, with its graph's group
    b'<svg xmlns="http://www.w3.org/2000/svg" width="8pt" height="8pt" viewBox="0.00 0.00 8.00 8.00">'
    b'<g id="graph0" class="graph" transform="translate(4 4)"></g></svg>'
)


class StandInDot:
    """exports.queue.Dot without dot: a small picture of the kind asked for; frame_dot's titles are in the sources."""

    sources = []

    def __init__(self, allowance=None, waiting=None):
        pass

    def run(self, source, args):
        StandInDot.sources.append(source)
        return {'-Tpng': PNG, '-Tpdf': PDF}.get(args[0], io.BytesIO(SVG)).getvalue()


@pytest.fixture
def recorded(monkeypatch):
    """The share panel's exports, made with StandInDot: {'shown': the Shown the panel was opened with, 'gif': the
    GIF's captions}."""
    seen = {'gif': []}
    monkeypatch.setattr(exports.queue, 'Dot', StandInDot)
    monkeypatch.setattr(cache, '_files', cachetools.LRUCache(2**20, getsizeof=len))  # no file made with real dot
    StandInDot.sources = []
    wrap, show = exports.render._wrap, export_panel.show_exports
    monkeypatch.setattr(exports.render, '_wrap', lambda text, *a: seen['gif'].append(text) or wrap(text, *a))
    monkeypatch.setattr(export_panel, 'show_exports', lambda shown, *a: seen.update(shown=shown) or show(shown, *a))
    monkeypatch.setattr(export_panel.st, 'rerun', lambda **kw: None)  # AppTest reruns no fragment: the file is kept
    return seen


CASES = [
    *[(expr, {}, None) for expr in EXPRESSIONS],  # at the last frame (step=end)
    ('lecture', {'step': '6'}, 6),
    ('reuse', {'mode': 'quiz'}, None),  # held at its first question
    ('lecture', {'mode': 'quiz', 'present': '1', 'step': '9'}, 9),  # every frame: a question's
    ('reuse', {'mode': 'bug', 'step': '7'}, 7),
    ('regression', {'mode': 'learn', 'step': '13'}, 13),  # the pass's end, before the learning step's frames
    ('neuron', {'forward': '0', 'leaves': '0'}, None),
]
MADE = [  # the whole pass made as each file, on these
    ('lecture', {'step': '6'}, 6),
    ('reuse', {'mode': 'quiz'}, None),
    ('lecture', {'mode': 'quiz', 'present': '1', 'step': '9'}, 9),
    ('regression', {'mode': 'learn', 'step': '13'}, 13),
]


def opened(expr, query):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({'expr': expr, **query})
    at.run()
    assert not at.exception
    return Page(at, 'dot')


def share(page, k):
    """Click Share at frame k, as the player sends it: the panel opens for that frame."""
    page.at.session_state['graph'] = {'share': k}
    page.at.run()
    assert not page.at.exception
    (title,) = [m.value for m in page.at.markdown if m.value.startswith('**A link to this picture**')]
    (whole,) = [m.value for m in page.at.markdown if m.value.startswith(('**The whole pass**', '**The pass so far**'))]
    return title, whole


def label_and_count(text):
    number, count = map(int, re.search(r'Frame (\d+) of (\d+)', text).groups())
    return number, count


@pytest.mark.parametrize('expr,query,step', CASES)
def test_a_frame_has_one_number_on_the_page_in_the_share_panel_and_in_its_file_name(expr, query, step, recorded):
    page = opened(expr, query)
    k = page.frame if step is None else step
    page.go(k)
    label = page.caption().split(' · ')[0]
    number, count = label_and_count(label)
    title, whole = share(page, k)
    assert title.startswith(f'**A link to this picture** — {label}\\:')  # md() escapes the caption's colon
    shown = recorded['shown']
    exported = shown.frames
    assert re.search(rf'(\b{count} frames| of {count}\b)', whole), whole  # the count the caption reads
    if any(f.ask for f in exported):  # and the pictures a quiz's questions add
        assert f'and {sum(f.ask for f in exported)} question' in whole and f': {len(exported)} pictures' in whole
    suffix = names.frame_suffix(exported, shown.index, shown.count)
    assert int(re.match(r'_f(\d+)', suffix).group(1)) == number and suffix == page.body()['files'][k]
    (link,) = [c.value for c in page.at.code if 'step=' in c.value]  # a link's step stays the frame's place, from 0
    assert re.search(r'[?&]step=(\w+)', link).group(1) == ('end' if k == page.last_frame else str(k))


@pytest.mark.parametrize('expr,query,step', MADE)
def test_the_whole_pass_files_number_their_frames_as_the_page_does(expr, query, step, recorded):
    page = opened(expr, query)
    share(page, page.frame if step is None else step)
    shown = recorded['shown']
    labels = page.body()['labels'][: len(shown.frames)]  # the frames exported, as the page's caption numbers them
    files = page.body()['files'][: len(shown.frames)]
    made = {}
    for _, ext, *_ in export_panel.PASS_FILES:
        StandInDot.sources, recorded['gif'] = [], []
        page.at.button(key=f'make_{ext}').click().run()
        assert not page.at.exception
        made[ext] = page.at.session_state[export_panel.MADE][1][export_panel.made_as(shown, ext)]
        if ext == 'gif':
            assert [text.split(': ')[0] for text in recorded['gif']] == labels
        if ext == 'pdf':  # each page's title, the caption at its top
            pages = PdfReader(io.BytesIO(made['pdf'])).pages
            assert [re.search(r'Frame \d+ of \d+', page.extract_text()).group(0) for page in pages] == labels
    deck = Presentation(io.BytesIO(made['pptx']))
    assert [slide.shapes.title.text.split(': ')[0] for slide in deck.slides] == labels
    with zipfile.ZipFile(io.BytesIO(made['zip'])) as archive:
        svgs = [name for name in archive.namelist() if name.endswith('.svg')]  # beside them, the lesson in one file
        assert svgs == [f'{shown.stem}{suffix}.svg' for suffix in files]
