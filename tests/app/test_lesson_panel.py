"""The share panel's lesson in one file: offered for the pass on screen in each mode that asks nothing, opening at
the frame shared; a quiz says why it has none; a lesson past its size says so before it is made and offers the PDF;
without dot on the server, the whole pass's line names it too; the ZIP of the whole pass holds it."""

import html
import io
import json
import re
import secrets
import zipfile

import pytest
import streamlit as st
import test_app
from streamlit.elements.widgets.button import ButtonMixin
from streamlit.testing.v1 import AppTest

from components import export_panel
from components.export_panel import LESSON_LABEL
from exports import lesson

APP = test_app.APP
source = test_app.source  # the page on a layout source: test_app's fixture
ON_DOT = pytest.mark.parametrize('source', ['dot'], indirect=True)


@pytest.fixture
def offered(monkeypatch):
    """The files the share panel offers, {file name: (label, what its button serves)}."""
    files, serve = {}, ButtonMixin.download_button

    def recording(self, label, data, file_name=None, *args, **kwargs):
        files[file_name] = (label, data)
        return serve(self, label, data, file_name, *args, **kwargs)

    monkeypatch.setattr(ButtonMixin, 'download_button', recording)
    main = st.download_button  # st's own, bound to the main area when streamlit was imported
    monkeypatch.setattr(st, 'download_button', lambda *a, **k: recording(main.__self__, *a, **k))
    return files


def shared(query, frame):
    """The page at `query` with Share clicked at `frame`, as the player sends it."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(query)
    at.run()
    at.session_state['graph'] = {'share': frame}
    at.run()
    assert not at.exception
    return at


def blocks(page):
    return {name: json.loads(text) for name, text in re.findall(r'id="lesson-(\w+)">(.*?)</script>', page, re.S)}


@ON_DOT
def test_the_lesson_is_the_pass_on_screen_opening_at_the_frame_shared(source, offered):
    shared({'expr': 'reuse', 'hide': 'new', 'contrast': '1'}, 4)
    label, make = offered['reuse_a3_b-2.html']
    page = make().decode()  # made when clicked
    said = int(re.fullmatch(rf'{re.escape(LESSON_LABEL)} \(about (\d+) kB\)', label)[1])
    assert len(page.encode()) // 1024 <= said <= len(page.encode()) // 1024 + 8  # said before, a few kB over
    head, body = blocks(page)['head'], blocks(page)['body']
    assert head['goto']['frame'] == 4 and head['contrast'] and head['room'] is None and head['session'] is None
    assert len(body['patches']) == 10 and any('?' in json.dumps(patch) for patch in body['patches'])
    assert '<title>reuse: a·b + a·a · Backprop, step by step</title>' in page
    assert '<p>a is used three times' in page  # what it teaches, as the page's heading says it


@ON_DOT
def test_a_students_code_goes_with_the_lesson_as_text(source, offered):
    shared({'expr': 'reuse', 'mode': 'code', 'code.add': 'self.grad = out.grad\nother.grad = out.grad  # <b>'}, 2)
    page = offered['reuse_a3_b-2.html'][1]().decode()
    assert 'other.grad = out.grad  # &lt;b&gt;' in page and '# <b>' not in page


@ON_DOT
def test_a_learning_pass_opens_at_a_frame_past_the_backward_pass(source, offered):
    shared({'expr': 'regression', 'mode': 'learn'}, 10**6)  # Share at the last frame: learning's last step
    page = offered[next(name for name in offered if name.endswith('.html'))][1]().decode()
    head, body = blocks(page)['head'], blocks(page)['body']
    assert head['goto']['frame'] == len(body['patches']) - 1 >= head['length']  # past the pass's own frames


@ON_DOT
def test_a_quiz_says_why_it_has_no_lesson(source, offered):
    at = shared({'expr': 'reuse', 'mode': 'quiz'}, 2)
    assert not [name for name in offered if name.endswith('.html')]
    assert any('has no lesson in one file' in info.value for info in at.info)


@ON_DOT
def test_a_lesson_past_its_size_says_so_before_it_is_made_and_offers_the_pdf(source, offered, monkeypatch):
    monkeypatch.setattr(lesson, 'MOST_BYTES', 50_000)
    at = shared({'expr': 'mlp'}, 0)
    assert not [name for name in offered if name.endswith('.html')]
    (said,) = [w.value for w in at.warning if 'as one page would be' in w.value]
    assert re.fullmatch(
        r'This pass as one page would be \d+ kB, more than the 48 kB .*the PDF of a range of frames below\.', said
    )


@pytest.mark.parametrize('source', ['browser'], indirect=True)
def test_without_dot_the_whole_pass_line_names_the_lesson_too(source, offered):
    at = shared({'expr': 'reuse'}, 2)
    assert not [name for name in offered if name.endswith('.html')]
    assert any(LESSON_LABEL in info.value for info in at.info)


def made_zip(query, frame, offered):
    """A visitor's ZIP of the whole pass, at `query` with Share clicked at `frame`: made, then downloaded."""
    at = shared(query, frame)
    at.button(key='make_zip').click().run()
    at.run()  # the panel again, with the ZIP's download button in place of "Make"
    assert not at.exception
    (label, served), *_ = [(label, data) for name, (label, data) in offered.items() if name.endswith('.zip')]
    return zipfile.ZipFile(io.BytesIO(served() if callable(served) else served))


@ON_DOT
def test_the_zip_of_the_whole_pass_holds_each_visitors_own_lesson_beside_the_svgs_it_shares(source, offered,
                                                                                          monkeypatch):  # fmt: skip
    monkeypatch.setattr(export_panel.st, 'rerun', lambda **kw: None)
    first = made_zip({'expr': 'reuse', 'contrast': '1'}, 2, offered)
    offered.clear()
    second = made_zip({'expr': 'reuse'}, 7, offered)  # another visitor: the same scenario, its ZIP from the first's
    for archive, frame, contrast in [(first, 2, True), (second, 7, False)]:
        names = archive.namelist()
        assert sum(name.endswith('.svg') for name in names) == 10 and 'reuse_a3_b-2.html' in names
        head = blocks(archive.read('reuse_a3_b-2.html').decode())['head']
        assert (head['goto']['frame'], head['contrast']) == (frame, contrast)


@ON_DOT
def test_a_lesson_links_to_the_page_without_the_class_or_the_projectors_view(source, offered):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({'expr': 'reuse', 'present': '1', 'table': '1', 'contrast': '1'})
    at.context = {'url': 'https://backprop.example.edu/'}
    at.run()
    at.session_state['graph'] = {'share': 3}
    at.run()
    page = offered['reuse_a3_b-2.html'][1]().decode()
    (link,) = re.findall(r'open <a href="([^"]+)"', page)
    query = html.unescape(link).split('?', 1)[1]
    assert link.startswith('https://backprop.example.edu') and 'expr=reuse' in query and 'contrast=1' in query
    assert not re.search(r'(^|&)(present|table|class)=', query)


@ON_DOT
def test_a_lesson_asked_for_again_is_the_same_bytes_made_once(source, monkeypatch):
    made, title = [], f'reuse: a·b {secrets.token_hex(4)}'  # a lesson no other test made
    real = lesson.lesson_html
    monkeypatch.setattr(lesson, 'lesson_html', lambda *a, **k: made.append(1) or real(*a, **k))
    run = (b'{"layout": "x", "graph": "g"}', b'{"svg": "<svg></svg>"}', b'{"labels": []}')
    one = export_panel.Lesson(run, title, None, 'https://example.edu/?expr=reuse', ())
    other = export_panel.Lesson(run, title, None, 'https://example.edu/?expr=mlp', ())
    assert one.html() == one.html() and len(made) == 1
    assert b'expr=mlp' in other.html() and len(made) == 2  # anything it is made from another: another file
