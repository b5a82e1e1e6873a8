"""typst drawing the slides behind the few arguments of rsvg-convert's that the exports give it, as a child would run
it in place of rsvg-convert (bench/bench_renderers.py measures it so; the page keeps rsvg-convert):

    python -I bench/typst_draw.py -f pdf page1.svg page2.svg ...    # one PDF, a page for each SVG, on stdout
    python -I bench/typst_draw.py -f png -d 144 -p 144 < slide.svg   # the SVG as a PNG at 144 dpi, on stdout
    python -I bench/typst_draw.py -f png -d 144 -o slide.png slide.svg  # -o: to a file

By typst (pip's typst: its SVG is resvg's, its PDF svg2pdf's): every text stays text, each font embedded once in the
whole PDF; the fonts are the system's and the page's own DejaVu Sans Mono (static/fonts), which the slides name.
Run as a file: a child that imports only typst, not the page's packages (bench/results/
renderers.txt: a picture costs its child about rsvg-convert's time)."""

import re
import sys
from pathlib import Path

FONTS = Path(__file__).resolve().parent.parent / 'static' / 'fonts'
SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bheight="([\d.]+)(pt|px)?"')


def size_pt(svg):
    """The SVG's width and height in pt, from its root's width and height (pt, px or none: px)."""
    found = SIZE.search(svg)
    if not found:
        raise ValueError('the SVG has no width and height')
    width, width_unit, height, height_unit = found.groups()
    return tuple(float(v) * (1 if unit == 'pt' else 0.75) for v, unit in ((width, width_unit), (height, height_unit)))


def pages_source(svgs):
    """Typst's source of one page for each SVG, its own size, the SVG whole on it (the SVGs in sys.inputs)."""
    pages = []
    for n, svg in enumerate(svgs):
        width, height = size_pt(svg)
        pages.append(
            f'#page(width: {width:.3f}pt, height: {height:.3f}pt, margin: 0pt, '
            f'image(bytes(sys.inputs.at("p{n}")), format: "svg", width: 100%, height: 100%))'
        )
    return '\n'.join(pages)


def draw(svgs, kind, dpi=72.0):
    """The SVGs (str) as one PDF, or the one SVG as a PNG at `dpi` (bytes)."""
    import typst

    return typst.compile(
        pages_source(svgs).encode(),
        format=kind,
        ppi=dpi if kind == 'png' else None,
        font_paths=[str(FONTS)],
        pdf_tags=False,  # pictures, no document structure to tag (poppler reads typst's tagged PDF with a warning)
        sys_inputs={f'p{n}': svg for n, svg in enumerate(svgs)},
    )


def main(argv):
    kind, dpi, files, out = 'png', 72.0, [], None
    arguments = iter(argv)
    for argument in arguments:
        if argument == '-f':
            kind = next(arguments)
        elif argument in ('-d', '-p'):
            dpi = float(next(arguments))
        elif argument == '-o':
            out = next(arguments)
        else:
            files.append(argument)
    if kind not in ('pdf', 'png'):
        raise SystemExit(f'draw.py: no format {kind}')
    svgs = [Path(f).read_text(encoding='utf-8') for f in files] or [sys.stdin.buffer.read().decode('utf-8')]
    if kind == 'png' and len(svgs) != 1:
        raise SystemExit('draw.py: a PNG is drawn from one SVG')
    drawn = draw(svgs, kind, dpi)
    if out:
        Path(out).write_bytes(drawn)
    else:
        sys.stdout.buffer.write(drawn)


if __name__ == '__main__':
    main(sys.argv[1:])
