"""A class exporting at once: whole-pass exports wait their turn in one line, first come, first served, told their
place; a page's own layout still finds a core; a file asked for twice is made once and shared, never between
different values; each session pays for the dot it starts; and the files a session made stay downloadable.

Deterministic: threads wait on events and on what the line tells them, dot is a stand-in where the test is about who
runs it, and no assertion is about how long anything took.
"""

import io
import math
import sys
import threading
import time
import zipfile
from types import SimpleNamespace

import cachetools
import pytest
import streamlit as st
from PIL import Image
from streamlit.testing.v1 import AppTest
from test_app import APP

import exports
from components import export_panel
from engine import PRESETS, parse_expression, trace_backward
from engine.frames import frames
from server import cache, layout
from view.numbers import number_width
from view.scene import exact_key

WAIT = 30  # s: only a bound on a test that fails; nothing here waits that long when it passes


class Said:
    """What one export was told, in order: by the line, (place, seconds); on the page, (fraction done, text)."""

    def __init__(self):
        self.said, self._changed = [], threading.Condition()

    def __call__(self, *what):
        with self._changed:
            self.said.append(what)
            self._changed.notify_all()

    def until(self, first):
        """Wait until the last thing said begins with `first` (a place in line, a fraction done)."""
        with self._changed:
            assert self._changed.wait_for(lambda: self.said and self.said[-1][0] == first, WAIT), self.said


def eventually(check):
    """Wait until check() holds (threads are getting there); a test that fails stops at WAIT."""
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.01)


class Export(threading.Thread):
    """One session's export waiting its turn in `line`: in it, it records its name in `served` and holds the turn
    until `done` is set. `left` (set it) is its visitor leaving."""

    def __init__(self, line, name, kind, pictures, served):
        super().__init__(daemon=True)
        self.line, self.name, self.kind, self.pictures, self.served = line, name, kind, pictures, served
        self.said, self.done, self.left, self.inside = Said(), threading.Event(), threading.Event(), threading.Event()
        self.error = None

    def run(self):
        try:
            with self.line.turn(self.kind, self.pictures, lambda: not self.left.is_set(), self.said):
                self.served.append(self.name)
                self.inside.set()
                assert self.done.wait(WAIT)
        except layout.VisitorLeft as e:
            self.error = e


def start(line, served, *asks):
    """Exports (name, kind, pictures) started one after another, each once the line has it: in this order."""
    exports_ = []
    for name, kind, pictures in asks:
        export = Export(line, name, kind, pictures, served)
        export.start()
        if exports_:
            export.said.until(len(exports_) - line.lanes + 1)  # it is in the line, behind the others
        else:
            assert export.inside.wait(WAIT)
        exports_.append(export)
    return exports_


def test_the_line_serves_exports_in_the_order_asked_telling_each_its_place_and_about_how_long():
    line, served = exports.queue.Line(lanes=1, clock=lambda: 0.0), []  # a clock that stands still: nothing drawn yet
    deck, gif, zip_, pdf = start(line, served, ('deck', 'pptx', 100), ('gif', 'gif', 40), ('zip', 'zip', 20),
                                 ('pdf', 'pdf', 10))  # fmt: skip
    rate = exports.queue.SECONDS_A_PICTURE
    ahead = [rate['pptx'] * 100, rate['gif'] * 40, rate['zip'] * 20]  # s each one ahead of the pdf takes
    assert gif.said.said == [(1, math.ceil(ahead[0]))]
    assert zip_.said.said == [(2, math.ceil(ahead[0] + ahead[1]))]
    assert pdf.said.said == [(3, math.ceil(sum(ahead)))]  # '3rd in line, about 10 s'
    assert served == ['deck']
    for now, later, place in ((deck, gif, 2), (gif, zip_, 1), (zip_, pdf, None)):
        now.done.set()
        assert later.inside.wait(WAIT)
        if place:
            pdf.said.until(place)  # the pdf moved up a place
    pdf.done.set()
    for export in (deck, gif, zip_, pdf):
        export.join(WAIT)
    assert served == ['deck', 'gif', 'zip', 'pdf']
    assert [place for place, _ in pdf.said.said] == [3, 2, 1]  # told each time it moved up
    assert export_panel.ordinal(3) == '3rd' and [export_panel.ordinal(n) for n in (1, 2, 11, 12, 13, 21, 22)] == [
        '1st', '2nd', '11th', '12th', '13th', '21st', '22nd'
    ]  # fmt: skip


def test_a_visitor_who_leaves_is_dropped_from_the_line_and_those_behind_move_up():
    line, served = exports.queue.Line(lanes=1), []
    first, leaving, behind = start(line, served, ('first', 'zip', 5), ('leaving', 'zip', 5), ('behind', 'zip', 5))
    leaving.left.set()
    leaving.join(WAIT)
    assert isinstance(leaving.error, layout.VisitorLeft)
    behind.said.until(1)  # moved up while the first still draws
    first.done.set()
    assert behind.inside.wait(WAIT)
    behind.done.set()
    behind.join(WAIT)
    assert served == ['first', 'behind']


def test_exports_draw_on_all_cores_but_one_so_a_pages_layout_finds_a_core_free(monkeypatch):
    cores = exports.queue.EXPORT_LANES + 1
    monkeypatch.setattr(layout, '_slots', layout.Slots(cores))
    drawing, release = threading.Semaphore(0), threading.Event()

    def dot(source, budget, waiting, allowance, args=('-Tsvg',), **_):  # a dot run that lasts until released
        drawing.release()
        assert release.wait(WAIT)
        return b'<svg/>'

    monkeypatch.setattr(layout, 'run', dot)
    line = exports.queue.Line()
    monkeypatch.setattr(exports.queue, 'LINE', line)
    told = [Said() for _ in range(cores + 1)]

    def export(k):
        with line.turn('zip', 1, told=told[k]):
            exports.queue.Dot().run('digraph {}', ['-Tsvg'])

    threads = [threading.Thread(target=export, args=(k,), daemon=True) for k in range(len(told))]
    for thread in threads:
        thread.start()
    for _ in range(exports.queue.EXPORT_LANES):
        assert drawing.acquire(timeout=WAIT)
    eventually(lambda: sum(bool(t.said) for t in told) == len(told) - exports.queue.EXPORT_LANES)  # the rest in line
    assert layout._slots.acquire(blocking=False)  # what layout.lay_out takes for a page's first layout
    layout._slots.release()
    release.set()
    for thread in threads:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread in threads)


def test_in_its_turn_an_export_waits_for_the_core_a_pages_layout_holds_and_out_of_turn_it_is_told_busy(monkeypatch):
    slots = layout.Slots(1)
    monkeypatch.setattr(layout, '_slots', slots)
    monkeypatch.setattr(layout, 'SLOT_WAIT', 0.0)  # out of turn: no wait at all
    monkeypatch.setattr(layout, 'run', lambda *a, **k: b'<svg/>')
    line = exports.queue.Line(lanes=1)
    monkeypatch.setattr(exports.queue, 'LINE', line)
    slots.acquire()  # a page's layout holds the only core
    with pytest.raises(exports.ExportRefused, match='busy'):
        exports.queue.Dot().run('digraph {}', ['-Tsvg'])  # a frame's file, out of turn
    got = []

    def export():
        with line.turn('zip', 1):
            got.append(exports.queue.Dot().run('digraph {}', ['-Tsvg']))

    thread = threading.Thread(target=export, daemon=True)
    thread.start()
    eventually(lambda: slots.waiters() == 1)  # it waits for the core rather than give up
    assert got == []
    slots.release()  # the layout is done
    thread.join(WAIT)
    assert got == [b'<svg/>']


# --- one file for every session that asks for the same ---------------------------------------------------------


@pytest.fixture
def files(monkeypatch):
    """An empty cache of finished files for this test alone."""
    monkeypatch.setattr(cache, '_files', cachetools.LRUCache(64 * 2**20, getsizeof=len))
    return cache._files


def test_a_second_session_asking_for_the_same_file_waits_for_the_first_and_gets_its_bytes(files):
    made, drawing, finish = [], threading.Event(), threading.Event()

    def make(tell):
        made.append(1)
        tell(0.5, 'Drawing slide 3 of 4…')
        drawing.set()
        assert finish.wait(WAIT)
        return b'the deck'

    first, shown = [], Said()
    maker = threading.Thread(target=lambda: first.append(cache.made_file('k', make, lambda: True, Said())))
    maker.start()
    assert drawing.wait(WAIT)
    second = []
    waiter = threading.Thread(target=lambda: second.append(cache.made_file('k', make, lambda: True, shown)))
    waiter.start()
    shown.until(0.5)  # it shows what the first session shows
    assert shown.said == [(0.5, 'Drawing slide 3 of 4…')] and second == []
    finish.set()
    maker.join(WAIT)
    waiter.join(WAIT)
    assert second == first == [b'the deck'] and second[0] is first[0] and made == [1]


def test_a_waiting_visitor_who_leaves_stops_waiting_and_when_the_maker_fails_the_next_one_makes_it(files):
    drawing, fail = threading.Event(), threading.Event()

    def failing(tell):
        tell(0.0, '1st in line, about 3 s')
        drawing.set()
        assert fail.wait(WAIT)
        raise exports.ExportRefused('This session has used its 30 s of graph layout for this minute.')

    refused = []

    def maker():
        try:
            cache.made_file('k', failing, lambda: True, lambda *a: None)
        except exports.ExportRefused as e:
            refused.append(e)

    threading.Thread(target=maker, daemon=True).start()
    assert drawing.wait(WAIT)
    with pytest.raises(layout.VisitorLeft):
        cache.made_file('k', failing, lambda: False, lambda *a: None)
    got = []
    mine = lambda tell: b'mine'  # noqa: E731
    waiter = threading.Thread(target=lambda: got.append(cache.made_file('k', mine, lambda: True, Said())))
    waiter.start()
    fail.set()
    waiter.join(WAIT)
    assert got == [b'mine'] and len(refused) == 1 and files['k'] == b'mine'


def test_keys_tell_apart_every_float_that_prints_differently_and_fold_none_that_prints_alike():
    key = exact_key
    assert key(('reuse', (('a', 0.0), ('b', -2.0)))) != key(('reuse', (('a', -0.0), ('b', -2.0))))
    assert key(('x', 1.0)) != key(('x', 1.0000000000000002)) and key(('x', 0.1 + 0.2)) != key(('x', 0.3))
    assert key(('x', (0.5, [1.5]))) == key(('x', (0.5, (1.5,)))) and hash(key(('x', 0.5)))
    assert key(('x', float('nan'))) == key(('x', float('nan')))  # a nan is no longer unequal to itself


def test_the_trace_for_minus_zero_is_not_the_trace_for_zero():
    # one session opens 1/a + 0*p at a = -0.0, then another at a = 0: IEEE gives 1/-0.0 = -inf, 1/0.0 = inf
    expression = parse_expression('1/a + 0*p')
    for a, quotient in [(-0.0, -math.inf), (0.0, math.inf), (-0.0, -math.inf)]:
        trace = cache.traced(expression=expression, values=(('a', a), ('p', 1.0)))[0]
        assert [n.data for n in trace.nodes if n.op == '/'] == [quotient]


def case(values):
    leaves, out = PRESETS['reuse'].build(values)
    trace = trace_backward(out, leaves)
    return trace, frames(trace)


def zip_members(data):
    """{name: bytes} of a ZIP's files: what it holds, apart from the time each was written."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_a_file_for_minus_zero_is_made_apart_and_shows_zero_as_the_file_for_zero_does(files, dot_processes):
    def zip_for(a):  # as the share panel keys and makes it
        values = {'a': a, 'b': -2.0}
        trace, all_frames = case(values)
        width = number_width(trace)
        shown = export_panel.Shown(
            trace, all_frames, index=0, width=width, quick=False, stem='reuse', key=('reuse', *values.items())
        )
        make = lambda tell: exports.pass_zip(trace, all_frames, width, 'reuse')  # noqa: E731
        return cache.made_file((export_panel.file_scenario(shown), 'zip'), make, lambda: True, Said())

    zero, minus_zero = zip_for(0.0), zip_for(-0.0)
    # a.data: 0.0000 in both (view.numbers.fmt writes no minus on a zero): the same pictures, whenever each was zipped
    assert zip_members(zero) == zip_members(minus_zero)
    assert len(files) == 2 and len(dot_processes) == 2 * len(case({'a': 0.0, 'b': -2.0})[1])


# --- on the page ---------------------------------------------------------------------------------------------------


@pytest.fixture
def panel(monkeypatch, files):
    """A function that opens a session's share panel on `reuse` at frame 1."""
    monkeypatch.setattr(st, 'rerun', lambda **kw: None)  # AppTest runs no fragment alone: the next run shows the file

    def opened(query=None):
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params.update({'expr': 'reuse', **(query or {})})
        at.run()
        at.session_state['graph'] = {'share': 0}
        at.run()
        assert not at.exception
        return at

    return opened


def make(at, ext):
    """Click "Make the …", then run again as the panel's st.rerun would (a no-op under AppTest)."""
    at.button(key=f'make_{ext}').click().run()
    assert not at.exception
    at.run()


def downloads(at):
    return [button.label for button in at.get('download_button') if button.label.split(' (')[0] in LABELS]


LABELS = [label for label, *_ in export_panel.PASS_FILES]


def test_a_file_made_stays_downloadable_after_another_kind_is_made(panel):
    at = panel()
    make(at, 'gif')
    make(at, 'zip')
    assert [label.split(' (')[0] for label in downloads(at)] == ['GIF', 'ZIP of SVGs']  # in the panel's order
    assert [b.key for b in at.button if b.key and b.key.startswith('make_')] == ['make_pdf', 'make_pptx']
    gif = at.session_state[export_panel.MADE][1][export_panel.made_as(SimpleNamespace(seconds=2), 'gif')]
    assert Image.open(io.BytesIO(gif)).n_frames == len(case({'a': 3.0, 'b': -2.0})[1])


def test_a_gif_made_at_one_frame_time_is_not_the_gif_at_another_and_the_other_files_stay(panel):
    at = panel()
    make(at, 'zip')
    make(at, 'gif')
    at.segmented_control(key='export_seconds').set_value(exports.GIF_SECONDS[-1]).run()
    assert [label.split(' (')[0] for label in downloads(at)] == ['ZIP of SVGs']  # the GIF made again for its time
    make(at, 'gif')
    assert [label.split(' (')[0] for label in downloads(at)] == ['GIF', 'ZIP of SVGs']
    made = at.session_state[export_panel.MADE][1]
    gif = Image.open(io.BytesIO(made[export_panel.made_as(SimpleNamespace(seconds=exports.GIF_SECONDS[-1]), 'gif')]))
    assert gif.info['duration'] == 1000 * exports.GIF_SECONDS[-1]


def test_the_same_scenario_in_a_second_session_is_its_file_at_no_dot_and_no_allowance(panel, dot_processes):
    one, two = panel(), panel()
    paid = [at.session_state[cache.ALLOWANCE].used() for at in (one, two)]
    before = len(dot_processes)
    make(one, 'zip')
    drawn = len(dot_processes) - before
    assert drawn == len(case({'a': 3.0, 'b': -2.0})[1])  # a picture a frame
    assert one.session_state[cache.ALLOWANCE].used() > paid[0]  # paid by the session that drew it
    make(two, 'zip')
    assert len(dot_processes) - before == drawn  # no dot ran for the second session
    assert two.session_state[cache.ALLOWANCE].used() == paid[1]
    files = [at.session_state[export_panel.MADE][1]['zip'] for at in (one, two)]
    assert files[0] is files[1] and downloads(one) == downloads(two)


def test_a_session_with_other_inputs_gets_a_file_of_its_own(panel, dot_processes, files):
    one = panel()
    make(one, 'zip')
    before = len(dot_processes)
    other = panel({'v.a': '2.5'})
    make(other, 'zip')
    assert len(dot_processes) - before == len(case({'a': 2.5, 'b': -2.0})[1])  # drawn for its own inputs
    zips = [at.session_state[export_panel.MADE][1]['zip'] for at in (one, other)]
    assert zips[0] != zips[1] and len(files) == 2


def sized(size):
    """A maker of a whole-pass file of `size` bytes, in place of exports' (any arguments)."""
    return lambda *args, **kwargs: b'x' * size


def test_past_the_sessions_cap_the_oldest_file_goes_and_a_file_too_big_to_keep_is_offered_once(panel, monkeypatch):
    mb = export_panel.MB
    sizes = {'gif': 5 * mb, 'pdf': 4 * mb, 'pptx': 8 * mb, 'zip': 2 * mb}
    monkeypatch.setattr(export_panel, 'PASS_FILES', [(label, ext, mime, sized(sizes[ext]))
                                                     for label, ext, mime, _ in export_panel.PASS_FILES])  # fmt: skip
    monkeypatch.setattr(export_panel, 'SESSION_FILE_BYTES', 10 * mb)
    at = panel()
    for ext in ('zip', 'gif', 'pdf'):  # 2 + 5 + 4 MB: the ZIP, the oldest, goes
        make(at, ext)
    assert downloads(at) == ['GIF (5.0 MB)', 'PDF (4.0 MB)']
    assert [c.value for c in at.caption if c.value.startswith('Let go')] == [
        'Let go to keep newer files within 10 MB: make it again.'
    ]  # under the ZIP's button
    make(at, 'pptx')  # 8 MB: the GIF and then the PDF go
    assert downloads(at) == ['PowerPoint (8.0 MB)']
    monkeypatch.setattr(export_panel, 'SESSION_FILE_BYTES', 1 * mb)
    at.button(key='make_zip').click().run()
    assert [w.value for w in at.warning] == [
        'This ZIP of SVGs is 2.0 MB, more than the 1 MB of files this page keeps for each visitor: download it now, '
        'it is not kept.'
    ]
    assert 'ZIP of SVGs (2.0 MB)' in downloads(at)
    at.run()
    assert 'ZIP of SVGs (2.0 MB)' not in downloads(at)  # offered once: not kept


# --- dot's input under load ----------------------------------------------------------------------------------------

SLOW_READER = 'import sys, time; time.sleep(0.5); print(len(sys.stdin.buffer.read()))'  # reads only after a while


def test_a_dot_run_gets_its_whole_input_when_the_first_wait_for_it_ends_before_the_input_is_written():
    # a class's exports, twenty sessions polling at once, left dot half a DOT and waiting for the rest (issue 22):
    # here the reader waits first, so the input (larger than a pipe holds) cannot be written within layout.POLL
    source = 'x' * 300_000
    out = layout.run(source, 20, lambda: True, layout.Allowance(), ['-c', SLOW_READER], program=sys.executable)
    assert out == b'300000\n'
