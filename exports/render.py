"""What a lecturer drops into slides: one frame as DOT, SVG or PNG, and the whole pass as an animated GIF, a ZIP of
numbered SVGs, a PDF with one vector page per frame, or a PowerPoint deck with one slide per frame and the chain rule
in its speaker notes. Pure server-side: the page offers the bytes as downloads. Each is drawn within the bounds of
exports.queue; a frame of a graph the page laid out quickly is drawn with layout.QUICK, so it is the same picture.

Measured in bench/bench_exports.py (results in bench/results/exports.txt).
"""

import dataclasses
import functools
import io
import shutil
import tempfile
import zipfile
from pathlib import Path

import graphviz
from PIL import Image, ImageColor, ImageDraw, ImageFont

from exports import picture, queue, slides
from exports.queue import ExportRefused
from server import layout
from view.explanation import caption, explain, local_gradient_lines, plain_text
from view.graph import SHAPES, build_dot, row_titles
from view.modes import MODE
from view.names import frame_labels, frame_numbers, frame_suffixes
from view.palette import ACCUMULATING_FILL, ACTIVE, FAINT, FINAL_FILL, FONT, FORWARD, INK, SECONDARY, SEED, UNDEFINED

EXPORT_FRAMES = 200  # frames in a whole-pass export: chain(30) with its forward pass has 123, chain(100) 404
PNG_DPI = 192  # twice the screen's 96 px per inch: sharp on a projector and when a slide is zoomed
GIF_DPI = 96  # the page's own size at 100 %
GIF_PIXELS = 30_000_000  # width x height x frames: Pillow's memory grows with them (bench/results/exports.txt)
GIF_SECONDS = (1, 2, 4)  # s a GIF frame, to choose from: 2 by default, time to read a step's arithmetic aloud
LAST_MS = 4000  # the last frame is held at least this long, for the class to read the grads
TITLE_PT = '18'  # a frame's PNG's title over the graph: larger than its 14 pt numbers
CAPTION_PX = 24  # the GIF's caption, px at GIF_DPI: larger than the graph's 14 pt (19 px) labels
# a deck's pictures: a 1080p projector's own pixels, 1920 across the slide. PNG_DPI's 192 takes rsvg-convert markedly
# longer a slide, for pixels no projector shows
SLIDE_DPI = 144
SLIDE_MONO = 'Consolas'  # a deck's sums: the monospace font of every PowerPoint (LibreOffice finds one like it)


def pass_contents(frames, count=None, to_end=True, keep=None):
    """What a whole-pass export of `frames` holds, as the share panel says it (markdown): its frames by the numbers
    the page gives them (frame_numbers), and a quiz's questions, each a picture of its own before its answer's.
    `to_end`: whether the frames reach the pass's end (a quiz holds back those after its question); `keep`: the
    indices chosen (chosen_frames), all by default."""
    numbers, count = frame_numbers(frames, count)
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
    heading = 'The pass so far' if not to_end else 'The whole pass' if len(chosen) == len(frames) else 'Chosen'
    return f'**{heading}**: {held}'


# which of the page's frames a whole-pass export holds (chosen_frames), as the share panel offers them
FRAME_CHOICES = {
    'all': 'Every frame',
    'backward': 'The backward pass',  # the seed and each _backward
    'ops': 'Without the leaves',  # every frame but a leaf's _backward, which does nothing
}


def chosen_frames(trace, frames, choice='all', first=1, last=None, count=None):
    """The indices of the frames of `frames` that a whole-pass export of `choice` (FRAME_CHOICES) holds, from frame
    number `first` to `last` (as the page numbers them, frame_numbers read against `count`; by default to the last).
    ExportRefused where the range is not one of the pass's, or nothing is left."""
    numbers, count = frame_numbers(frames, count)
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


def frame_dot(trace, frame, width, quick=False, shape='wide', right=None, rows=None, title=None):
    """The DOT source of the graph at `frame`, as the page draws it in `shape` (graph.SHAPES; with layout.QUICK when
    the page's layout was quick). `right`: the right trace beside this one, where the mode has one (view/modes.py):
    every export takes it, and the whole-pass ones the mode's name too. `rows`: with frame None, the boxes' row
    titles (graph.build_dot), which size them as the frames' do. `title`: drawn over the graph (png_title), if given."""
    graph = build_dot(trace, frame, width=width, shape=shape, right=right, rows=rows)
    if title:  # user text (a typed formula): neither HTML nor dot's escapes (\\n) to dot
        graph.attr(label=graphviz.escape(title), labelloc='t', labeljust='l', fontname=FONT, fontsize=TITLE_PT)
    return (layout.quickened(graph) if quick else graph).source


def _png_args(dpi, size=None):
    return ['-Tpng', f'-Gdpi={dpi}', *([f'-Gsize={size[0]:.3f},{size[1]:.3f}'] if size else [])]


def frame_svg(
    trace, frame, width, quick=False, allowance=None, waiting=lambda: True, shape='wide', legend=False, right=None
):  # fmt: skip
    """The frame as an SVG file (bytes), the page's picture in `shape` (picture.page_svg: its layout, colours, labels
    and font, titled by the expression); with `legend`, the colour legend of what its pass draws under it."""
    svg = queue.Dot(allowance, waiting).run(
        frame_dot(trace, frame, width=width, quick=quick, shape=shape, right=right), ['-Tsvg']
    )
    return picture.page_svg(svg, picture.expression(trace), trace if legend else None, right, frame.wrt).encode()


def frame_png(
    trace, frame, width, quick=False, allowance=None, waiting=lambda: True, shape='wide', right=None, title=None
):  # fmt: skip
    """The frame as a PNG at PNG_DPI (twice its size on the screen), on white, in `shape`, `title` (png_title) over
    it: a picture on its own says what it shows."""
    dot = frame_dot(trace, frame, width=width, quick=quick, shape=shape, right=right, title=title)
    return queue.Dot(allowance, waiting).run(dot, _png_args(PNG_DPI))


# what a frame's kind is called in a picture's title (png_title)
KIND_WORDS = {
    'inputs': 'inputs', 'forward': 'forward pass', 'seed': 'seed', 'backward': 'backward', 'tangent': 'forward mode',
}  # fmt: skip


def png_title(trace, frames, index, count=None):
    """A frame's picture's title: the expression, the frame as the page numbers it, and what the frame does,
    'o = tanh(x1 × w1 + x2 × w2 + b) · Frame 7 of 12 · backward' (a question's: 'question')."""
    frame = frames[index]
    kind = 'question' if frame.ask else KIND_WORDS.get(frame.kind, frame.kind)
    return f'{picture.expression(trace)} · {frame_labels(frames, count)[index]} · {kind}'


# --- the whole pass ----------------------------------------------------------------------------------------------


def _drawn(trace, frames, width, quick, args, progress, allowance, waiting, keep=None, shape='wide', right=None):
    """(index, frame, dot's output) for each frame of `frames` whose index is in `keep` (chosen_frames; all by
    default), in turn: the one loop every whole-pass export goes through. The frames are the page's, so that each
    keeps the number the page gives it. Refuses more than EXPORT_FRAMES pictures before any dot runs; calls
    progress(done, total) after each. `shape`: the layout (graph.SHAPES)."""
    keep = range(len(frames)) if keep is None else keep
    if len(keep) > EXPORT_FRAMES:
        raise ExportRefused(too_many(len(keep)))
    dot = queue.Dot(allowance, waiting)
    for done, k in enumerate(keep, start=1):
        yield (
            k,
            frames[k],
            dot.run(frame_dot(trace, frames[k], width=width, quick=quick, shape=shape, right=right), args),
        )
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
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, count=None, keep=None,
    seconds=2, mode='watch', right=None,
):  # fmt: skip
    """An animated GIF of the frames `keep` chooses (chosen_frames): one image per frame at the page's size, its
    title (frame_title, read against `count`) under the graph, all on one white canvas; `seconds` a frame (GIF_SECONDS),
    the last held at least LAST_MS, looping. Refused past GIF_PIXELS, after the first frame."""
    shots = []  # (PNG, its size, title): each decoded only when its GIF frame is made, then let go
    labels = frame_labels(frames, count)
    args = _png_args(GIF_DPI)
    pictures = len(frames) if keep is None else len(keep)
    for k, frame, png in _drawn(
        trace,
        frames,
        width=width,
        quick=quick,
        args=args,
        progress=progress,
        allowance=allowance,
        waiting=waiting,
        keep=keep,
        right=right,
    ):
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
    trace, frames, width, stem, quick=False, progress=None, allowance=None, waiting=lambda: True, count=None, keep=None,
    mode='watch', right=None,
):  # fmt: skip
    """A ZIP of one SVG per frame, named {stem}_f03.svg by the frame's number (frame_suffix, read against `count`), each
    the page's picture (picture.page_svg), without the legend, as a frame's SVG is. The share panel adds the page's
    lesson in one file to it when it is downloaded (components/export_panel.py's with_lesson)."""
    out = io.BytesIO()
    suffixes = frame_suffixes(frames, count)
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as archive:
        drawn = _drawn(
            trace,
            frames,
            width=width,
            quick=quick,
            args=['-Tsvg'],
            progress=progress,
            allowance=allowance,
            waiting=waiting,
            keep=keep,
            right=right,
        )
        for k, _, svg in drawn:
            archive.writestr(f'{stem}{suffixes[k]}.svg', picture.page_svg(svg, picture.expression(trace)))
    return out.getvalue()


def _slides(
    trace, frames, width, quick, progress, allowance, waiting, count, keep, legend, text, mode='watch', right=None
):
    """(index, frame, its slide as SVG, the deck's slides.Plan, its (title, sums) lines) for each frame `keep` chooses
    (chosen_frames; all by default), framed as the presentation view frames it (slides.py): the deck's plan from the
    graph laid out without values in each shape the page has (the wide one alone when quick), then each frame drawn
    by dot in the shape chosen (_drawn) and put on its slide, with `text` its title and sums (the PDF's), and with
    `legend` the colour legend. `mode`, `right`: the mode's name and the right trace beside this one (frame_dot)."""
    keep = range(len(frames)) if keep is None else keep
    if len(keep) > EXPORT_FRAMES:
        raise ExportRefused(too_many(len(keep)))  # before any dot runs, as _drawn refuses it
    dot = queue.Dot(allowance, waiting)
    if shutil.which('rsvg-convert') is None:
        raise ExportRefused(queue.NO_RSVG)
    shapes = ['wide'] if quick else SHAPES  # a tangled graph's page has the wide shape alone
    rows = row_titles(frames[0])  # forward mode's boxes are as wide as its frames draw them
    laid = {shape: dot.run(frame_dot(trace, None, width, quick, shape=shape, rows=rows), ['-Tsvg']) for shape in shapes}
    chosen, labels = [frames[k] for k in keep], frame_labels(frames, count)
    titles = [f'{labels[k]}: {caption(trace, frames[k])}' for k in keep]
    lines = slides.texts(trace, chosen, titles, MODE[mode].engine == 'assigns', right)
    beside = MODE[mode].view
    every_frame = beside is not None and beside.EVERY_FRAME
    keys = picture.legend_keys(trace, right, frames=frames, at=keep, every_frame=every_frame) if legend else None
    key = functools.partial(picture.legend_svg, trace, keys=keys) if legend else None  # the frames chosen draw
    plan = slides.plan({shape: slides.size_of(svg) for shape, svg in laid.items()}, lines, key)
    layout_drawing = slides.Drawing(laid[plan.shape])
    views = slides.views(plan, layout_drawing, trace, chosen)
    drawn = _drawn(
        trace,
        frames,
        width=width,
        quick=quick,
        args=['-Tsvg'],
        progress=progress,
        allowance=allowance,
        waiting=waiting,
        keep=keep,
        shape=plan.shape,
        right=right,
    )
    for n, (k, frame, svg) in enumerate(drawn):
        drawing = slides.Drawing(svg, layout_drawing.boxes)
        yield (
            k,
            frame,
            slides.slide_svg(plan, drawing, view=views[n], lines=lines[n], node=frame.node, text=text),
            plan,
            lines[n],
        )


def pass_pdf(
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, count=None, keep=None,
    legend=True, mode='watch', right=None, appendix=(),
):  # fmt: skip
    """A PDF of 16:9 pages (slides.SLIDE, 960 × 540 pt), one per frame `keep` chooses (chosen_frames), each as the
    presentation view shows the frame (slides.py): its title (frame_title, read against `count`), its sums under it,
    the graph whole or the part around the active node with an overview, and with `legend` the colour legend. In
    vector, every text text: the slides' SVGs made one PDF by one run of rsvg-convert (cairo), which embeds each
    font once, where pages merged with pypdf would each hold their own. `appendix`: pictures after the pass's pages,
    each (title, PNG bytes) on a page of its own (a batch's plots)."""
    with tempfile.TemporaryDirectory() as folder:
        pages = []
        for n, (_, _, svg, _, _) in enumerate(
            _slides(
                trace,
                frames,
                width=width,
                quick=quick,
                progress=progress,
                allowance=allowance,
                waiting=waiting,
                count=count,
                keep=keep,
                legend=legend,
                text=True,
                mode=mode,
                right=right,
            )
        ):
            pages.append(Path(folder) / f'{n:03d}.svg')
            pages[-1].write_text(svg)
        for title, png in appendix:
            pages.append(Path(folder) / f'{len(pages):03d}.svg')
            pages[-1].write_text(slides.picture_slide_svg(title, png, _size(png)))
        return queue.Rsvg(allowance, waiting).run(['-f', 'pdf', *map(str, pages)])


def _size(png):
    with Image.open(io.BytesIO(png)) as image:
        return image.size


def speaker_notes(trace, frame, assigns=False, right=None):
    """What the lecturer reads at `frame`, as the page's explanation says it: at an op's backward step, its local
    gradients, then each chain-rule line and the grad it makes, before → after, final or more to come (reuse's
    a*a: 'a.grad: · → 3.0000 (more to come)', then 'a.grad: 3.0000 → 6.0000 (more to come)'); at any other frame
    (forward mode's too), the explanation. Nothing hidden: a question's notes hold its answer. `assigns`: the trace
    is the `=` engine's; `right`: the right trace beside it (a wrong grad says so, with the right one)."""
    parts = explain(trace, dataclasses.replace(frame, ask=False, hide='none', hidden=frozenset()), assigns, right)
    if frame.kind != 'backward' or not trace.nodes[frame.node].op:
        return plain_text(parts)
    rows = [part for part in parts if part[0] == 'list']
    local = local_gradient_lines(trace, trace.steps[frame.steps_done - 1], right=None if assigns else right)
    return '\n'.join([*local, plain_text(rows)])


def _paletted(png):
    """The PNG in 256 colours, which a graph's few fills and inks and their blends need: a slide a fraction of its
    bytes, quickly (Pillow's fast octree). Its most common colour, the paper, made white again: the octree's average
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
    trace, frames, width, quick=False, progress=None, allowance=None, waiting=lambda: True, count=None, keep=None,
    legend=True, mode='watch', right=None, appendix=(),
):  # fmt: skip
    """A 16:9 PowerPoint deck (slides.SLIDE), a slide per frame `keep` chooses (chosen_frames), each as the
    presentation view shows the frame (slides.py): its title (frame_title, read against `count`) and its sums as text,
    under them a picture (SLIDE_DPI) of the graph whole or of the part around the active node with an overview, and
    with `legend` the colour legend; the step's explanation in the speaker notes. `appendix`: pictures after the
    pass's slides, each (title, PNG bytes) on a slide of its own (a batch's plots)."""
    from pptx import Presentation  # slow to import: only when a deck is asked for
    from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE, PP_ALIGN
    from pptx.util import Pt

    deck = Presentation()
    deck.slide_width, deck.slide_height = (Pt(side) for side in slides.SLIDE)
    labels = frame_labels(frames, count)
    render = queue.Rsvg(allowance, waiting)
    args = ['-f', 'png', '-d', str(SLIDE_DPI), '-p', str(SLIDE_DPI)]
    for k, frame, svg, plan, (title_lines, sums_lines) in _slides(
        trace,
        frames,
        width=width,
        quick=quick,
        progress=progress,
        allowance=allowance,
        waiting=waiting,
        count=count,
        keep=keep,
        legend=legend,
        text=False,
        mode=mode,
        right=right,
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
        notes = speaker_notes(trace, frame, MODE[mode].engine == 'assigns', right)
        if frame.ask:  # the question's slide: the lecturer's notes have the answer the room is asked for
            notes = f'The room works out the grads; the next slide, {labels[k]} again, shows them:\n{notes}'
        slide.notes_slide.notes_text_frame.text = notes
    for title_text, png in appendix:
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # 'Title Only'
        title = slide.shapes.title
        x, y, w, h = slides.picture_box(title_text, _size(png))
        title.left, title.top = Pt(slides.EDGE), Pt(slides.EDGE)
        title.width, title.height = Pt(slides.SLIDE[0] - 2 * slides.EDGE), Pt(y - slides.EDGE)
        title.text = title_text
        frame = title.text_frame
        frame.word_wrap, frame.auto_size, frame.vertical_anchor = True, MSO_AUTO_SIZE.NONE, MSO_ANCHOR.TOP
        frame.margin_left = frame.margin_right = frame.margin_top = frame.margin_bottom = 0
        for paragraph in title.text_frame.paragraphs:
            paragraph.font.size, paragraph.font.bold, paragraph.alignment = Pt(slides.TITLE_PT), True, PP_ALIGN.LEFT
        slide.shapes.add_picture(io.BytesIO(png), Pt(x), Pt(y), Pt(w), Pt(h))
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()
