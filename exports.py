"""What a lecturer drops into slides: one frame as DOT, SVG or PNG, and the whole pass as an animated GIF, a ZIP of
numbered SVGs, a PDF with one vector page per frame, or a PowerPoint deck with one slide per frame and the chain rule
in its speaker notes. Pure server-side: the page offers the bytes as downloads.

Every picture is drawn by Graphviz's dot through layout.run, as the page's graph is: a subprocess with a time budget,
killed at it or when the visitor leaves, paid from the session's layout.Allowance, on one of layout's slots (one dot
per core). A frame of a graph the page laid out quickly is drawn with layout.QUICK, so it is the same picture. A
whole-pass export takes at most EXPORT_FRAMES frames and EXPORT_BUDGET s of dot, else ExportRefused says why; it waits
its turn in LINE, first come, first served, on at most EXPORT_LANES of the slots: the others stay the page's own.

Measured in bench/bench_exports.py (results in bench/results/exports.txt).
"""

import contextlib
import dataclasses
import functools
import io
import math
import os
import platform
import re
import shutil
import tempfile
import threading
import time
import unicodedata
import zipfile
from pathlib import Path

from PIL import Image, ImageColor, ImageDraw, ImageFont

import layout
import picture
import slides
from view.explanation import caption, explain, local_gradient_lines, plain_text
from view.graph import (
    ACCUMULATING_FILL,
    ACTIVE,
    FAINT,
    FINAL_FILL,
    FORWARD,
    INK,
    SECONDARY,
    SEED,
    SHAPES,
    UNDEFINED,
    build_dot,
)

EXPORT_FRAMES = 200  # frames in a whole-pass export: chain(30) with its forward pass has 123, chain(100) 404
EXPORT_BUDGET = 20.0  # s of dot per export: the mlp's 66 frames take 1.1 s of it as SVGs, 3.1 s as the slides' PNGs
# whole-pass exports drawing at once: all cores but one, so that a page's first layout never waits behind a class's
# exports (it waits SLOT_WAIT, 0.5 s, for a core: less than one of the mlp's PNGs takes); on 2 cores one
# (bench/bench_class_exports.py: 20 sessions on one scenario have the mlp's deck in 20 s, made once)
EXPORT_LANES = max(1, (os.cpu_count() or 1) - 1)
PNG_DPI = 192  # twice the screen's 96 px per inch: sharp on a projector and when a slide is zoomed
GIF_DPI = 96  # the page's own size at 100 %: the neuron's GIF is about 1,860 px wide
GIF_PIXELS = 30_000_000  # width x height x frames: Pillow peaks at ~3.3 bytes a pixel (55 M: +183 MB); neuron 14 M
GIF_SECONDS = (1, 2, 4)  # s a GIF frame, to choose from: 2 by default, time to read a step's arithmetic aloud
LAST_MS = 4000  # the last frame is held at least this long, for the class to read the grads
CAPTION_PX = 24  # the GIF's caption, px at GIF_DPI: larger than the graph's 14 pt (19 px) labels
STEM_CHARS = 48  # a file name's stem; the inputs are left out of it when they would make it longer
RENDER_BUDGET = 30.0  # s of rsvg-convert per export, drawing its slides: the mlp's PDF takes 2.1 s, its deck 9 s
# a deck's pictures: a 1080p projector's own pixels, 1920 across the slide. PNG_DPI's 192 took rsvg-convert 1.5 times
# as long (the mlp's 66 slides: 0.21 s a slide, against 0.135)
SLIDE_DPI = 144
SLIDE_MONO = 'Consolas'  # a deck's sums: the monospace font of every PowerPoint (LibreOffice finds one like it)
NO_RSVG = (
    'The PDF and the slides need rsvg-convert on this server, which it does not have: sudo apt-get install '
    'librsvg2-bin (Debian, Ubuntu), brew install librsvg (macOS).'
)


def install_graphviz(system=None):
    """How to install Graphviz on this server's OS (platform.system()'s name), as one command."""
    return {
        'Darwin': 'brew install graphviz',
        'Windows': 'winget install graphviz (then open a new terminal)',
    }.get(system or platform.system(), 'sudo apt-get install graphviz (Debian, Ubuntu) or sudo dnf install graphviz')


def no_dot(what='This export'):
    """What the page says where `what` needs Graphviz on the server and this one has none."""
    return f'{what} needs Graphviz on this server, which it does not have: {install_graphviz()}.'


class ExportRefused(Exception):
    """The page shows `message`: why this export was not made."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


# --- file names --------------------------------------------------------------------------------------------------


def _safe(text):
    """Only letters, digits, '.', '_' and '-': accents dropped, anything else (/, .., spaces, symbols) a '_'."""
    ascii_text = unicodedata.normalize('NFKD', text).encode('ascii', 'ignore').decode()
    return re.sub(r'\.{2,}', '.', re.sub(r'[^A-Za-z0-9.-]+', '_', ascii_text)).strip('._-')


def _number(x):
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f'{x:.6g}'.replace('e+', 'e')


def file_stem(expression_name, inputs=None):
    """A file name's stem that says what it shows: 'neuron', 'reuse_a3_b-2'. The inputs ({name: value}) only when
    the stem stays within STEM_CHARS; a typed name is reduced to safe characters, so it cannot leave its folder."""
    stem = _safe(str(expression_name))[:STEM_CHARS].strip('._-') or 'graph'
    if re.fullmatch(r'(?i)(con|prn|aux|nul|com\d|lpt\d)', stem):
        stem += '_'  # names Windows reserves for devices
    values = '_'.join(_safe(f'{name}{_number(value)}') for name, value in (inputs or {}).items())
    with_values = f'{stem}_{values}' if values else stem
    return with_values if len(with_values) <= STEM_CHARS else stem


def frame_suffix(frames, index, of=None):
    """'_f03': the frame's number as the page says it (frame_numbers), zero-padded to the digits of the count, so the
    files sort in order; a quiz's question '_f06_asked' and the frame that answers it '_f06_shown'."""
    return frame_suffixes(frames, of)[index]


def frame_suffixes(frames, of=None, after=0):
    """frame_suffix for each frame, and for `after` frames more (frame_numbers)."""
    numbers, total = frame_numbers(frames, of, after)
    asked = [f.ask for f in frames] + [False] * after
    shown = [not a and k > 0 and asked[k - 1] for k, a in enumerate(asked)]
    digits = len(str(total))
    return [f'_f{n:0{digits}d}' + ('_asked' if a else '_shown' if s else '') for n, a, s in zip(numbers, asked, shown)]


# --- one frame ---------------------------------------------------------------------------------------------------


def frame_numbers(frames, of=None, after=0):
    """(each frame's number, the count it is read against), as people read them everywhere: the page's caption, the
    share panel, the exports' titles and files. Frames are counted from 1, 'Frame 10 of 10' the last; a link's step=
    is the frame's place in the list, from 0, so that old links open the same frame. A quiz's question (Frame.ask)
    has the number of the frame after it, which shows the same step answered: a step has one number whether it is
    watched or asked, and the count is the pass's frames as watched. `after`: frames more after these, numbered on
    (the learning step after the pass). `of`: the count, where these frames stop before the page's (a quiz held at its
    question, or a pass exported without the learning step after it); by default the frames' own."""
    numbers, watched = [], 0
    for frame in frames:
        watched += not frame.ask
        numbers.append(watched + frame.ask)
    numbers += range(watched + 1, watched + after + 1)
    return numbers, watched + after if of is None else of


def frame_label(number, count):
    """'Frame 3 of 16', for frame_numbers' number and count."""
    return f'Frame {number} of {count}'


def frame_labels(frames, of=None, after=0):
    """frame_label for each frame (frame_numbers), and for `after` frames more."""
    numbers, count = frame_numbers(frames, of, after)
    return [frame_label(number, count) for number in numbers]


def frame_title(trace, frames, index, of=None):
    """'Frame 3 of 16: forward pass: x1*w1 = x1 × w1', as the page says it (frame_numbers)."""
    return f'{frame_labels(frames, of)[index]}: {caption(trace, frames[index])}'


def pass_contents(frames, of=None, whole=True, keep=None):
    """What a whole-pass export of `frames` holds, as the share panel says it (markdown): its frames by the numbers
    the page gives them (frame_numbers), and a quiz's questions, each a picture of its own before its answer's.
    `whole`: whether the frames reach the pass's end (a quiz holds back those after its question); `keep`: the
    indices chosen (chosen_frames), all by default."""
    numbers, count = frame_numbers(frames, of)
    keep = range(len(frames)) if keep is None else keep
    chosen = [frames[k] for k in keep]
    watched = [numbers[k] for k in keep if not frames[k].ask]  # a question's own frame may still be to come
    if watched == list(range(1, count + 1)):
        held = f'{count} frames'
    elif watched and watched == list(range(watched[0], watched[-1] + 1)):
        first, last = watched[0], watched[-1]
        held = f'frame {first} of {count}' if first == last else f'frames {first} to {last} of {count}'
    else:
        held = f'{len(watched)} of the {count} frames' + (
            f', from frame {watched[0]} to {watched[-1]}' if watched else ''
        )
    questions = sum(f.ask for f in chosen)
    if questions:
        plural = 's' if questions > 1 else ''
        held += f' and {questions} question{plural}: {len(chosen)} pictures, pages or slides, each question before '
        held += 'the frame that answers it'
        if chosen[-1].ask:
            later = 'still to come' if keep[-1] == len(frames) - 1 else 'not among them'
            held += f' (frame {numbers[keep[-1]]}’s answer is {later})'
    else:
        held += ', one per picture, page or slide'
    heading = 'The pass so far' if not whole else 'The whole pass' if len(chosen) == len(frames) else 'Chosen'
    return f'**{heading}**: {held}'


# which of the page's frames a whole-pass export holds (chosen_frames), as the share panel offers them
FRAME_CHOICES = {
    'all': 'Every frame',
    'backward': 'The backward pass',  # the seed and each _backward
    'ops': 'Without the leaves',  # every frame but a leaf's _backward, which does nothing
}


def chosen_frames(trace, frames, choice='all', first=1, last=None, of=None):
    """The indices of the frames of `frames` that a whole-pass export of `choice` (FRAME_CHOICES) holds, from frame
    number `first` to `last` (as the page numbers them, frame_numbers read against `of`; by default to the last).
    ExportRefused where the range is not one of the pass's, or nothing is left."""
    numbers, count = frame_numbers(frames, of)
    last = numbers[-1] if last is None else last
    if choice not in FRAME_CHOICES:
        raise ExportRefused(f'Choose the frames from: {", ".join(FRAME_CHOICES.values())}.')
    if not 1 <= first <= last <= numbers[-1]:
        raise ExportRefused(
            f'Frames {first} to {last} are not in this pass: choose from frame 1 to frame {numbers[-1]}, the first '
            'no later than the last.'
        )
    kept = {
        'all': lambda f: True,
        'backward': lambda f: f.kind in ('seed', 'backward'),
        'ops': lambda f: f.kind != 'backward' or bool(trace.nodes[f.node].op),
    }[choice]
    keep = [k for k, (f, n) in enumerate(zip(frames, numbers)) if kept(f) and first <= n <= last]
    if not keep:
        raise ExportRefused(
            f'{FRAME_CHOICES[choice]}, from frame {first} to {last}, leaves no frame to export: widen the range, or '
            'choose every frame.'
        )
    return keep


def too_many(pictures):
    """Why a whole-pass export of `pictures` pictures is refused, and how to choose fewer."""
    return (
        f'This export would be {pictures:,} pictures, pages or slides; a whole-pass export takes at most '
        f'{EXPORT_FRAMES}. Choose fewer frames: the backward pass, without the leaves, or a range of at most '
        f'{EXPORT_FRAMES} frames.'
    )


def frame_dot(trace, frame, width, quick=False, shape='wide'):
    """The DOT source of the graph at `frame`, as the page draws it in `shape` (graph.SHAPES; with layout.QUICK when
    the page's layout was quick)."""
    graph = build_dot(trace, frame, width, shape)
    return (layout.quickened(graph) if quick else graph).source


BUSY = 'The server is busy laying out other graphs. Try again in a few seconds.'
# s a picture, by file, to tell those in line how long they wait, until turns taken tell better: measured one at a time
# on the mlp (the deck 17.2 s for 66 slides, the PDF 4.9 s, the ZIP 3.7 s) and the neuron's GIF (1.4 s for 17)
SECONDS_A_PICTURE = {'gif': 0.08, 'pdf': 0.075, 'pptx': 0.26, 'zip': 0.055}


@dataclasses.dataclass(eq=False)  # each turn is itself: two alike are still two in line
class _Turn:
    kind: str
    pictures: int
    started: float | None = None


class Line:
    """Whole-pass exports waiting for dot, served first come, first served: `lanes` of them draw at once, the others
    wait their turn, told their place and about how long. A turn is a whole export, not a picture, so that the first
    in line has its file soonest rather than every file coming at the end. One line for every session."""

    def __init__(self, lanes=EXPORT_LANES, clock=time.monotonic):
        self.lanes, self.clock = lanes, clock
        self._changed = threading.Condition()
        self._line = []  # the turns in the order they were asked for: the first `lanes` draw
        self._rates = dict(SECONDS_A_PICTURE)
        self._mine = threading.local()  # whether this thread is in its turn: its dot runs wait for a slot (_slot)

    @contextlib.contextmanager
    def turn(self, kind, pictures, waiting=lambda: True, told=lambda place, seconds: None):
        """Wait for a turn to draw `pictures` pictures of `kind` (SECONDS_A_PICTURE's), calling told(place in line,
        from 1; about how many s) whenever either changes; hold it while the block runs. A visitor who leaves
        (waiting() false) leaves the line: VisitorLeft."""
        turn = _Turn(kind, pictures)
        with self._changed:
            self._line.append(turn)
        try:
            last = None
            while (news := self._place(turn)) is not None:
                if news != last:
                    told(*news)
                    last = news
                if not waiting():
                    raise layout.VisitorLeft()
                with self._changed:
                    if self._line.index(turn) >= self.lanes:
                        self._changed.wait(layout.POLL)
            turn.started = self.clock()
            self._mine.holding = True
            try:
                yield
            finally:
                self._mine.holding = False
            self._rates[kind] = (self._rates[kind] + (self.clock() - turn.started) / max(1, pictures)) / 2
        finally:
            with self._changed:
                self._line.remove(turn)
                self._changed.notify_all()

    def holding(self):
        """Whether this thread is in its turn."""
        return getattr(self._mine, 'holding', False)

    def _place(self, turn):
        """(place in line from 1, about how many s until its turn), or None once it is its turn."""
        with self._changed:
            place = self._line.index(turn)
            if place < self.lanes:
                return None
            now, ahead = self.clock(), 0.0
            for other in self._line[:place]:
                seconds = self._rates[other.kind] * other.pictures
                ahead += seconds if other.started is None else max(0.0, seconds - (now - other.started))
            return place - self.lanes + 1, max(1, math.ceil(ahead / self.lanes))


LINE = Line()
TURN_SLOT_WAIT = layout.SLOT_WAIT + layout.FULL_BUDGET + layout.QUICK_BUDGET  # the longest a page's layout holds one


@contextlib.contextmanager
def _slot(waiting, allowance=None):
    """One of layout's slots (a core) for one run, in layout's fair line by what `allowance` has used. In a turn of
    LINE, waited for as long as a page's layout can hold one (no more than LINE.lanes exports draw at once, so one
    frees by then); out of turn (a frame's file), as a busy visitor's layout waits, SLOT_WAIT, then BUSY."""
    try:
        with layout.slot(TURN_SLOT_WAIT if LINE.holding() else layout.SLOT_WAIT, waiting, allowance):
            yield
    except layout.Busy:
        raise ExportRefused(BUSY) from None


class _Tally:
    """A session's allowance that also counts what one run spends of it (layout.run pays it the CPU time used)."""

    def __init__(self, allowance):
        self.allowance, self.spent = allowance, 0.0

    def spend(self, seconds):
        self.spent += seconds
        self.allowance.spend(seconds)

    def left(self):
        return self.allowance.left()


def _run(source, budget, waiting, allowance, args, program='dot'):
    """layout.run, a busy server (or a run killed from outside) said as the exports say it."""
    try:
        return layout.run(source, budget, waiting, allowance, args, program=program)
    except layout.Stopped as stopped:
        raise ExportRefused(stopped.message) from None
    except layout.Busy:
        raise ExportRefused(BUSY) from None


class _Dot:
    """The dot runs of one export: EXPORT_BUDGET s in all (each run gets what is left), every run on one of layout's
    slots (_slot) and paid from the session's allowance."""

    def __init__(self, allowance=None, waiting=lambda: True):
        if not layout.has_dot():
            raise ExportRefused(no_dot())
        self.allowance, self.waiting = allowance or layout.Allowance(), waiting
        self.left, self.runs = EXPORT_BUDGET, 0

    def run(self, source, args):
        if self.allowance.left() <= 0:
            raise ExportRefused(self._spent())
        if self.left <= 0:
            raise ExportRefused(self._too_long())
        with _slot(self.waiting, self.allowance):
            tally = _Tally(self.allowance)
            try:
                out = _run(source, min(self.left, self.allowance.left()), self.waiting, tally, args)
            except (OSError, RuntimeError) as e:  # dot gone since the check, or it failed on this graph
                raise ExportRefused(f"Graphviz's dot could not draw this graph: {e}") from e
            finally:
                self.left -= tally.spent  # dot's own CPU time: a busy server's wait is not the graph's
        if out is None:
            raise ExportRefused(self._spent() if self.allowance.left() <= 0 else self._too_long())
        self.runs += 1
        return out

    def _spent(self):
        return (
            f'This session has used its {self.allowance.seconds:g} s of graph layout for this minute. '
            f'Try again in {self.allowance.wait()} s.'
        )

    def _too_long(self):
        return (
            f'This export needs more than its {EXPORT_BUDGET:g} s of graph layout: it was stopped after '
            f'{self.runs} pictures. Export fewer frames (without the forward pass), or one frame at a time.'
        )


def _png_args(dpi, size=None):
    return ['-Tpng', f'-Gdpi={dpi}', *([f'-Gsize={size[0]:.3f},{size[1]:.3f}'] if size else [])]


def frame_svg(
    trace, frame, width, quick=False, allowance=None, waiting=lambda: True, shape='wide', legend=False
):  # fmt: skip
    """The frame as an SVG file (bytes), the page's picture in `shape` (picture.page_svg: its layout, colours, labels
    and font, titled by the expression); with `legend`, the colour legend under it."""
    svg = _Dot(allowance, waiting).run(frame_dot(trace, frame, width, quick, shape=shape), ['-Tsvg'])
    return picture.page_svg(svg, picture.expression(trace), trace if legend else None).encode()


def frame_png(trace, frame, width, quick=False, allowance=None, waiting=lambda: True, shape='wide'):
    """The frame as a PNG at PNG_DPI (twice its size on the screen), on white, in `shape`."""
    dot = frame_dot(trace, frame, width, quick, shape=shape)
    return _Dot(allowance, waiting).run(dot, _png_args(PNG_DPI))


# --- the whole pass ----------------------------------------------------------------------------------------------


def _drawn(trace, frames, width, quick, args, progress, allowance, waiting, keep=None, shape='wide'):
    """(index, frame, dot's output) for each frame of `frames` whose index is in `keep` (chosen_frames; all by
    default), in turn: the one loop every whole-pass export goes through. The frames are the page's, so that each
    keeps the number the page gives it. Refuses more than EXPORT_FRAMES pictures before any dot runs; calls
    progress(done, total) after each. `shape`: the layout (graph.SHAPES)."""
    keep = range(len(frames)) if keep is None else keep
    if len(keep) > EXPORT_FRAMES:
        raise ExportRefused(too_many(len(keep)))
    dot = _Dot(allowance, waiting)
    for done, k in enumerate(keep, start=1):
        yield k, frames[k], dot.run(frame_dot(trace, frames[k], width, quick, shape), args)
        if progress:
            progress(done, len(keep))


def _font(px):
    try:
        return ImageFont.truetype('DejaVuSans.ttf', px)
    except OSError:
        return ImageFont.load_default(size=px)


def _wrap(text, font, width):
    """The text in lines no wider than `width` px, broken between words."""
    lines = []
    for word in text.split():
        if lines and font.getlength(f'{lines[-1]} {word}') <= width:
            lines[-1] += f' {word}'
        else:
            lines.append(word)
    return lines


def _palette():
    """One palette for every frame of a GIF: the graph's inks blended into its fills in 11 steps (the anti-aliased
    edges of text and lines). Shared, it lets Pillow store each frame as what changed from the last."""
    fills = [ImageColor.getrgb(c) for c in ('#FFFFFF', FINAL_FILL, ACCUMULATING_FILL)]
    colours = list(fills)
    for ink in (ImageColor.getrgb(c) for c in (INK, FAINT, SECONDARY, ACTIVE, FORWARD, SEED, UNDEFINED)):
        for fill in fills:
            colours += [tuple(round(f + (i - f) * t / 11) for f, i in zip(fill, ink)) for t in range(1, 12)]
    palette = Image.new('P', (1, 1))
    palette.putpalette([v for c in colours for v in c])  # 234 colours: a GIF holds 256
    return palette


def pass_gif(
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, of=None, keep=None,
    seconds=2,
):  # fmt: skip
    """An animated GIF of the frames `keep` chooses (chosen_frames): one image per frame at the page's size, its
    title (frame_title, read against `of`) under the graph, all on one white canvas; `seconds` a frame (GIF_SECONDS),
    the last held at least LAST_MS, looping. Refused past GIF_PIXELS, after the first frame."""
    shots = []  # (PNG, its size, title): each decoded only when its GIF frame is made, then let go
    labels = frame_labels(frames, of)
    args = _png_args(GIF_DPI)
    pictures = len(frames) if keep is None else len(keep)
    for k, frame, png in _drawn(trace, frames, width, quick, args, progress, allowance, waiting, keep=keep):
        with Image.open(io.BytesIO(png)) as picture:  # reads the size only
            size = picture.size
        if not shots and size[0] * size[1] * pictures > GIF_PIXELS:
            raise ExportRefused(
                f'This GIF would be {size[0]:,} × {size[1]:,} px × {pictures} pictures; GIFs take at most '
                f'{GIF_PIXELS // 10**6} million pixels, {GIF_PIXELS // (size[0] * size[1])} pictures of this graph. '
                'Choose fewer frames, or export the PDF or the slides, which have no such limit.'
            )
        shots.append((png, size, f'{labels[k]}: {caption(trace, frame)}'))
    font, pad, palette = _font(CAPTION_PX), CAPTION_PX // 2, _palette()
    line_h = sum(font.getmetrics()) + CAPTION_PX // 4
    lines = [_wrap(title, font, w - 2 * pad) for _, (w, _), title in shots]
    canvas = (
        max(w for _, (w, _), _ in shots),
        max(h + pad * 2 + line_h * len(t) for (_, (_, h), _), t in zip(shots, lines)),
    )
    images = []
    for (png, (_, h), _), text in zip(shots, lines):
        image = Image.new('RGB', canvas, 'white')
        with Image.open(io.BytesIO(png)) as picture:
            image.paste(picture.convert('RGB'), (0, 0))
        ImageDraw.Draw(image).multiline_text(
            (pad, h + pad), '\n'.join(text), fill=INK, font=font, spacing=CAPTION_PX // 4
        )
        images.append(image.quantize(palette=palette, dither=Image.Dither.NONE))
    out = io.BytesIO()
    durations = [1000 * seconds] * (len(images) - 1) + [max(LAST_MS, 1000 * seconds)]
    images[0].save(out, 'GIF', save_all=True, append_images=images[1:], duration=durations, loop=0)
    return out.getvalue()


def pass_zip(
    trace, frames, width, stem, quick=False, progress=None, allowance=None, waiting=lambda: True, of=None, keep=None
):  # fmt: skip
    """A ZIP of one SVG per frame, named {stem}_f03.svg by the frame's number (frame_suffix, read against `of`), each
    the page's picture (picture.page_svg), without the legend, as a frame's SVG is."""
    out = io.BytesIO()
    suffixes = frame_suffixes(frames, of)
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as archive:
        for k, _, svg in _drawn(trace, frames, width, quick, ['-Tsvg'], progress, allowance, waiting, keep=keep):
            archive.writestr(f'{stem}{suffixes[k]}.svg', picture.page_svg(svg, picture.expression(trace)))
    return out.getvalue()


def _slides(trace, frames, width, quick, progress, allowance, waiting, of, keep, legend, text):
    """(index, frame, its slide as SVG, the deck's slides.Plan, its (title, sums) lines) for each frame `keep` chooses
    (chosen_frames; all by default), framed as the presentation view frames it (slides.py): the deck's plan from the
    graph laid out without values in each shape the page has (the wide one alone when quick), then each frame drawn
    by dot in the shape chosen (_drawn) and put on its slide, with `text` its title and sums (the PDF's), and with
    `legend` the colour legend."""
    keep = range(len(frames)) if keep is None else keep
    if len(keep) > EXPORT_FRAMES:
        raise ExportRefused(too_many(len(keep)))  # before any dot runs, as _drawn refuses it
    dot = _Dot(allowance, waiting)
    if shutil.which('rsvg-convert') is None:
        raise ExportRefused(NO_RSVG)
    shapes = ['wide'] if quick else SHAPES  # a tangled graph's page has the wide shape alone
    laid = {shape: dot.run(frame_dot(trace, None, width, quick, shape=shape), ['-Tsvg']) for shape in shapes}
    chosen, labels = [frames[k] for k in keep], frame_labels(frames, of)
    lines = slides.texts(trace, chosen, [f'{labels[k]}: {caption(trace, frames[k])}' for k in keep])
    key = functools.partial(picture.legend_svg, trace) if legend else None
    plan = slides.plan({shape: slides.size_of(svg) for shape, svg in laid.items()}, lines, key)
    layout_drawing = slides.Drawing(laid[plan.shape])
    views = slides.views(plan, layout_drawing, trace, chosen)
    drawn = _drawn(trace, frames, width, quick, ['-Tsvg'], progress, allowance, waiting, keep=keep, shape=plan.shape)
    for n, (k, frame, svg) in enumerate(drawn):
        drawing = slides.Drawing(svg, layout_drawing.boxes)
        yield k, frame, slides.slide_svg(plan, drawing, views[n], lines[n], frame.node, text), plan, lines[n]


class _Rsvg:
    """The rsvg-convert runs of one export, bounded as its dot runs are (layout.run, on one of layout's slots, paid
    from the session's allowance): RENDER_BUDGET s in all."""

    def __init__(self, allowance=None, waiting=lambda: True):
        self.allowance, self.waiting = allowance or layout.Allowance(), waiting
        self.left = RENDER_BUDGET

    def run(self, args, svg=''):
        if self.allowance.left() <= 0:
            raise ExportRefused(_Dot._spent(self))
        with _slot(self.waiting, self.allowance):  # in its turn, as _Dot's runs
            tally = _Tally(self.allowance)
            try:
                budget = min(self.left, self.allowance.left())
                out = _run(svg, budget, self.waiting, tally, args, program='rsvg-convert')
            except (OSError, RuntimeError) as e:  # rsvg-convert gone since the check, or it failed
                raise ExportRefused(f'rsvg-convert could not draw these slides: {e}') from e
            finally:
                self.left -= tally.spent
        if out is None:
            raise ExportRefused(
                _Dot._spent(self) if self.allowance.left() <= 0 else
                f'These slides need more than {RENDER_BUDGET:g} s to draw. Export fewer frames, or one at a time.'
            )  # fmt: skip
        return out


def pass_pdf(
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, of=None, keep=None,
    legend=True,
):  # fmt: skip
    """A PDF of 16:9 pages (slides.SLIDE, 960 × 540 pt), one per frame `keep` chooses (chosen_frames), each as the
    presentation view shows the frame (slides.py): its title (frame_title, read against `of`), its sums under it,
    the graph whole or the part around the active node with an overview, and with `legend` the colour legend. In
    vector, every text text: the slides' SVGs made one PDF by one run of rsvg-convert (cairo), which embeds each
    font once, where pages merged with pypdf would each hold their own."""
    with tempfile.TemporaryDirectory() as folder:
        pages = []
        for n, (_, _, svg, _, _) in enumerate(
            _slides(trace, frames, width, quick, progress, allowance, waiting, of, keep, legend, text=True)
        ):
            pages.append(Path(folder) / f'{n:03d}.svg')
            pages[-1].write_text(svg)
        return _Rsvg(allowance, waiting).run(['-f', 'pdf', *map(str, pages)])


def speaker_notes(trace, frame):
    """What the lecturer reads at `frame`, as the page's explanation says it: at an op's backward step, its local
    gradients, then each chain-rule line and the grad it makes, before → after, final or more to come (reuse's
    a*a: 'a.grad: · → 3.0000 (more to come)', then 'a.grad: 3.0000 → 6.0000 (more to come)'); at any other frame,
    the explanation. Nothing hidden: a question's notes hold its answer."""
    parts = explain(trace, dataclasses.replace(frame, ask=False, hide='none', hidden=frozenset()))
    if frame.kind != 'backward' or not trace.nodes[frame.node].op:
        return plain_text(parts)
    rows = [part for part in parts if part[0] == 'list']
    return '\n'.join([*local_gradient_lines(trace, trace.steps[frame.steps_done - 1]), plain_text(rows)])


def _paletted(png):
    """The PNG in 256 colours, which a graph's few fills and inks and their blends need: the mlp's slide 330 KB ->
    87 KB, in 40 ms (Pillow's fast octree). Its most common colour, the paper, made white again: the octree's average
    of it and the near-white edges of lines is 254 grey, a box that shows on the slide's white."""
    with Image.open(io.BytesIO(png)) as image:
        colours = image.convert('RGB').quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    palette = colours.getpalette()
    paper = max(colours.getcolors(256))[1]
    palette[3 * paper : 3 * paper + 3] = [255, 255, 255]
    colours.putpalette(palette)
    out = io.BytesIO()
    colours.save(out, 'PNG')
    return out


def pass_pptx(
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, of=None, keep=None,
    legend=True,
):  # fmt: skip
    """A 16:9 PowerPoint deck (slides.SLIDE), a slide per frame `keep` chooses (chosen_frames), each as the
    presentation view shows the frame (slides.py): its title (frame_title, read against `of`) and its sums as text,
    under them a picture (SLIDE_DPI) of the graph whole or of the part around the active node with an overview, and
    with `legend` the colour legend; the step's explanation in the speaker notes."""
    from pptx import Presentation  # 130 ms to import: only when a deck is asked for
    from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE, PP_ALIGN
    from pptx.util import Pt

    deck = Presentation()
    deck.slide_width, deck.slide_height = (Pt(side) for side in slides.SLIDE)
    labels = frame_labels(frames, of)
    render = _Rsvg(allowance, waiting)
    args = ['-f', 'png', '-d', str(SLIDE_DPI), '-p', str(SLIDE_DPI)]
    for k, frame, svg, plan, (title_lines, sums_lines) in _slides(
        trace, frames, width, quick, progress, allowance, waiting, of, keep, legend, text=False
    ):
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # 'Title Only'
        title = slide.shapes.title
        title.left, title.top, title.width, title.height = (Pt(x) for x in plan.title)
        title.text = f'{labels[k]}: {caption(trace, frame)}'
        if title_lines[-1].endswith(' …'):  # longer than the room kept for it: cut as the PDF's page cuts it
            title.text = ' '.join(title_lines)
        sums = slide.shapes.add_textbox(*(Pt(x) for x in plan.sums))
        for box in (title, sums):
            box.text_frame.word_wrap = True
            box.text_frame.auto_size = MSO_AUTO_SIZE.NONE
            box.text_frame.vertical_anchor = MSO_ANCHOR.TOP
            box.text_frame.margin_left = box.text_frame.margin_right = 0
            box.text_frame.margin_top = box.text_frame.margin_bottom = 0
        sums.text_frame.text = '\n'.join(sums_lines)  # wrapped as the PDF's page wraps them, in the room kept for them
        for paragraph in title.text_frame.paragraphs:  # as the PDF's page has it
            paragraph.font.size, paragraph.font.bold, paragraph.alignment = Pt(slides.TITLE_PT), True, PP_ALIGN.LEFT
        for paragraph in sums.text_frame.paragraphs:
            paragraph.font.size, paragraph.font.name = Pt(slides.SUMS_PT), SLIDE_MONO
        slide.shapes.add_picture(_paletted(render.run(args, svg)), *(Pt(x) for x in plan.picture))
        notes = speaker_notes(trace, frame)
        if frame.ask:  # the question's slide: the lecturer's notes have the answer the room is asked for
            notes = f'The room works out the grads; the next slide, {labels[k]} again, shows them:\n{notes}'
        slide.notes_slide.notes_text_frame.text = notes
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()
