"""What a lecturer drops into slides: one frame as DOT, SVG or PNG, and the whole pass as an animated GIF, a ZIP of
numbered SVGs, a PDF with one vector page per frame, or a PowerPoint deck with one slide per frame and the chain rule
in its speaker notes. Pure server-side: the page offers the bytes as downloads.

Every picture is drawn by Graphviz's dot through layout._dot, as the page's graph is: a subprocess with a time budget,
killed at it or when the visitor leaves, paid from the session's layout.Allowance, on one of layout's slots (one dot
per core). A frame of a graph the page laid out quickly is drawn with layout.QUICK, so it is the same picture. A
whole-pass export takes at most EXPORT_FRAMES frames and EXPORT_BUDGET s of dot, else ExportRefused says why.

Measured in bench/bench_exports.py (results in bench/results/exports.txt).
"""

import io
import platform
import re
import time
import unicodedata
import zipfile

import graphviz
from PIL import Image, ImageColor, ImageDraw, ImageFont

import layout
from components.explanation import caption, chain_rule_lines, explain, plain_text
from components.graph import (
    ACCUMULATING_FILL,
    ACTIVE,
    FAINT,
    FINAL_FILL,
    FORWARD,
    INK,
    SECONDARY,
    SEED,
    UNDEFINED,
    build_dot,
)

EXPORT_FRAMES = 200  # frames in a whole-pass export: chain(30) with its forward pass has 123, chain(100) 404
EXPORT_BUDGET = 20.0  # s of dot per export: the mlp's 66 frames take 1.1 s of it as SVGs, 3.1 s as the slides' PNGs
PNG_DPI = 192  # twice the screen's 96 px per inch: sharp on a projector and when a slide is zoomed
GIF_DPI = 96  # the page's own size at 100 %: the neuron's GIF is about 1,860 px wide
GIF_PIXELS = 30_000_000  # width x height x frames: Pillow peaks at ~3.3 bytes a pixel (55 M: +183 MB); neuron 14 M
FRAME_MS, LAST_MS = 1200, 4000  # a GIF frame, and the last one held for the class to read the grads
CAPTION_PX = 24  # the GIF's caption, px at GIF_DPI: larger than the graph's 14 pt (19 px) labels
STEM_CHARS = 48  # a file name's stem; the inputs are left out of it when they would make it longer
TITLE_FONT = 'Helvetica,Arial,sans-serif'  # the PDF page's caption
SLIDE_W, SLIDE_H = 13.333, 7.5  # in: a 16:9 slide
MARGIN, TITLE_H = 0.4, 1.1  # in: around the slide, and the title's box (two lines of 24 pt)


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


def pass_contents(frames, of=None, whole=True):
    """What a whole-pass export of `frames` holds, as the share panel says it (markdown): its frames by the numbers
    the page gives them (frame_numbers), and a quiz's questions, each a picture of its own before its answer's.
    `whole`: whether the frames reach the pass's end (a quiz holds back those after its question)."""
    numbers, count = frame_numbers(frames, of)
    last = numbers[-1] - frames[-1].ask  # the last frame there whole: a question's own frame is still to come
    held = (
        f'{count} frames' if last == count else f'frame 1 of {count}' if last == 1 else f'frames 1 to {last} of {count}'
    )
    questions = sum(f.ask for f in frames)
    if questions:
        plural = 's' if questions > 1 else ''
        held += f' and {questions} question{plural}: {len(frames)} pictures, pages or slides, each question before '
        held += 'the frame that answers it'
        if frames[-1].ask:
            held += f' (frame {numbers[-1]}’s answer is still to come)'
    else:
        held += ', one per picture, page or slide'
    return f'**{"The whole pass" if whole else "The pass so far"}**: {held}'


def frame_dot(trace, frame, width, quick=False, title=None, hide='none'):
    """The DOT source of the graph at `frame`, as the page draws it (with layout.QUICK when the page's layout was
    quick); with `title`, that text (escaped: it holds names a student typed) above the graph."""
    graph = build_dot(trace, frame, width, hide)
    if quick:
        graph = layout.quickened(graph)
    if title:
        graph.graph_attr.update(
            label=graphviz.escape(title), labelloc='t', fontname=TITLE_FONT, fontsize='20', pad='0.3'
        )
    return graph.source


class _Dot:
    """The dot runs of one export: EXPORT_BUDGET s in all (each run gets what is left), every run on one of layout's
    slots and paid from the session's allowance."""

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
        if not layout._slots.acquire(timeout=layout.SLOT_WAIT):
            raise ExportRefused('The server is busy laying out other graphs. Try again in a few seconds.')
        start = time.monotonic()
        try:
            out = layout._dot(source, min(self.left, self.allowance.left()), self.waiting, self.allowance, args)
        except (OSError, RuntimeError) as e:  # dot gone since the check, or it failed on this graph
            raise ExportRefused(f"Graphviz's dot could not draw this graph: {e}") from e
        finally:
            layout._slots.release()
            self.left -= time.monotonic() - start
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


def frame_svg(trace, frame, width, quick=False, allowance=None, waiting=lambda: True, hide='none'):
    """The frame as an SVG file (bytes): the page's layout, colours and labels, in vector."""
    return _Dot(allowance, waiting).run(frame_dot(trace, frame, width, quick, hide=hide), ['-Tsvg'])


def frame_png(trace, frame, width, quick=False, allowance=None, waiting=lambda: True, hide='none'):
    """The frame as a PNG at PNG_DPI (twice its size on the screen), on white."""
    return _Dot(allowance, waiting).run(frame_dot(trace, frame, width, quick, hide=hide), _png_args(PNG_DPI))


# --- the whole pass ----------------------------------------------------------------------------------------------


def _drawn(trace, frames, width, quick, args, progress, allowance, waiting, titled=False, hide='none', of=None):
    """(index, frame, dot's output) for each frame in turn: the one loop every whole-pass export goes through.
    Refuses a pass of more than EXPORT_FRAMES pictures before any dot runs; calls progress(done, total) after each.
    `titled`: each picture with its frame's title (frame_title, its number read against `of`)."""
    if len(frames) > EXPORT_FRAMES:
        raise ExportRefused(
            f'This pass would be {len(frames):,} pictures, pages or slides; whole-pass exports take at most '
            f'{EXPORT_FRAMES}.'
        )
    dot = _Dot(allowance, waiting)
    labels = frame_labels(frames, of)
    for k, frame in enumerate(frames):
        title = f'{labels[k]}: {caption(trace, frame)}' if titled else None
        yield k, frame, dot.run(frame_dot(trace, frame, width, quick, title, hide), args)
        if progress:
            progress(k + 1, len(frames))


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
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, hide='none', of=None
):
    """An animated GIF of the pass: one image per frame at the page's size, its title (frame_title, read against
    `of`) under the graph, all on one white canvas; FRAME_MS a frame, the last held LAST_MS, looping. Refused past
    GIF_PIXELS, after the first frame."""
    shots = []  # (PNG, its size, title): each decoded only when its GIF frame is made, then let go
    labels = frame_labels(frames, of)
    args = _png_args(GIF_DPI)
    for k, frame, png in _drawn(trace, frames, width, quick, args, progress, allowance, waiting, hide=hide):
        with Image.open(io.BytesIO(png)) as picture:  # reads the size only
            size = picture.size
        if k == 0 and size[0] * size[1] * len(frames) > GIF_PIXELS:
            raise ExportRefused(
                f'This GIF would be {size[0]:,} × {size[1]:,} px × {len(frames)} pictures; GIFs take at most '
                f'{GIF_PIXELS // 10**6} million pixels, {GIF_PIXELS // (size[0] * size[1])} pictures of this graph. '
                'Export the PDF or the slides instead, which have no such limit.'
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
    durations = [FRAME_MS] * (len(images) - 1) + [LAST_MS]
    images[0].save(out, 'GIF', save_all=True, append_images=images[1:], duration=durations, loop=0)
    return out.getvalue()


def pass_zip(
    trace, frames, width, stem, quick=False, progress=None, allowance=None, waiting=lambda: True, hide='none', of=None
):
    """A ZIP of one SVG per frame, named {stem}_f03.svg by the frame's number (frame_suffix, read against `of`)."""
    out = io.BytesIO()
    suffixes = frame_suffixes(frames, of)
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as archive:
        for k, _, svg in _drawn(trace, frames, width, quick, ['-Tsvg'], progress, allowance, waiting, hide=hide):
            archive.writestr(f'{stem}{suffixes[k]}.svg', svg)
    return out.getvalue()


def pass_pdf(
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, hide='none', of=None
):
    """A PDF with one vector page per frame, its title (frame_title, read against `of`) above the graph; every page
    the size of the largest, the drawing centred at its top, so the graph stays put from page to page."""
    from pypdf import PdfReader, PdfWriter  # 90 ms to import: only when a PDF is asked for
    from pypdf.generic import RectangleObject

    writer = PdfWriter()
    for _, _, pdf in _drawn(
        trace, frames, width, quick, ['-Tpdf'], progress, allowance, waiting, titled=True, hide=hide, of=of
    ):
        writer.append(PdfReader(io.BytesIO(pdf)))
    boxes = [page.mediabox for page in writer.pages]
    w, h = max(b.width for b in boxes), max(b.height for b in boxes)  # a caption wider than the graph widens its page
    for page, box in zip(writer.pages, boxes):
        side = (w - box.width) / 2  # the page grows around its drawing: moving the drawing would mean parsing it
        page.mediabox = RectangleObject([box.left - side, box.top - h, box.right + side, box.top])
    writer.compress_identical_objects()  # the fonts each page embeds again: the mlp's PDF 2.3 MB -> 1.6 MB, in 50 ms
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def speaker_notes(trace, frame):
    """A backward step of an op: its chain-rule lines; any other frame: its explanation, in plain text."""
    if frame.kind == 'backward' and trace.nodes[frame.node].op:
        return '\n'.join(chain_rule_lines(trace, trace.steps[frame.steps_done - 1]))
    return plain_text(explain(trace, frame))


def pass_pptx(
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, hide='none', of=None
):
    """A 16:9 PowerPoint deck, a slide per frame: its title (frame_title, read against `of`), the frame's PNG under
    it (fitted to the slide, never enlarged past its natural size), the chain-rule lines in the speaker notes."""
    from pptx import Presentation  # 130 ms to import: only when a deck is asked for
    from pptx.util import Emu, Inches, Pt

    deck = Presentation()
    deck.slide_width, deck.slide_height = Inches(SLIDE_W), Inches(SLIDE_H)
    box_w, box_h = SLIDE_W - 2 * MARGIN, SLIDE_H - 2 * MARGIN - TITLE_H
    args = _png_args(PNG_DPI, (box_w, box_h))  # dot scales a larger drawing down to the box: PNG_DPI on the slide
    labels = frame_labels(frames, of)
    for k, frame, png in _drawn(trace, frames, width, quick, args, progress, allowance, waiting, hide=hide):
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # 'Title Only'
        title = slide.shapes.title
        title.left, title.top, title.width, title.height = (Inches(x) for x in (MARGIN, MARGIN, box_w, TITLE_H))
        title.text_frame.word_wrap = True
        title.text = f'{labels[k]}: {caption(trace, frame)}'
        for paragraph in title.text_frame.paragraphs:
            paragraph.font.size = Pt(24)
        with Image.open(io.BytesIO(png)) as picture:
            w, h = Emu(int(Inches(1) * picture.width / PNG_DPI)), Emu(int(Inches(1) * picture.height / PNG_DPI))
        scale = min(1.0, Inches(box_w) / w, Inches(box_h) / h)
        w, h = int(w * scale), int(h * scale)
        left, top = Inches(MARGIN) + (Inches(box_w) - w) // 2, Inches(MARGIN + TITLE_H) + (Inches(box_h) - h) // 2
        slide.shapes.add_picture(io.BytesIO(png), left, top, w, h)
        notes = speaker_notes(trace, frame)
        if frame.ask:  # the question's slide: the lecturer's notes have the answer the room is asked for
            notes = f'The room works out the grads; the next slide, {labels[k]} again, shows them:\n{notes}'
        slide.notes_slide.notes_text_frame.text = notes
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()
