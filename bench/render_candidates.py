"""The candidates of bench/bench_renderers.py, each as one child draws with it (kept apart from the benchmark so that
a child imports no more than the exports' own child would: importlib.metadata alone costs 0.1 s):

    python -m bench.render_candidates NAME pdf OUT.pdf PAGE.svg...
    python -m bench.render_candidates NAME png OUT.png SLIDE.svg      # at 144 dpi

typst is not here: the benchmark runs it behind rsvg-convert's arguments, bench/typst_draw.py."""

import io
import re
import sys
from pathlib import Path

DPI = 144  # exports.render.SLIDE_DPI


def _size_pt(svg):
    """The root's width and height, pt (the slides' SVGs give them in pt)."""
    width, height = re.search(r'<svg\b[^>]*?\bwidth="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(width), float(height)


def _merged(pdfs):
    """One PDF of the pages of `pdfs` (bytes each): a library that makes one PDF a page, its fonts in each."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for pdf in pdfs:
        writer.append(io.BytesIO(pdf))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _skia_canvas_draw(canvas, path, width, height):
    import skia

    dom = skia.SVGDOM.MakeFromStream(skia.Stream.MakeFromFile(str(path)))
    dom.setContainerSize(skia.Size(width, height))
    dom.render(canvas)


def pdf_of(name, paths):
    """The candidate's PDF of the SVGs at `paths`, one page each."""
    texts = [Path(p).read_text() for p in paths]
    if name == 'svg2pdf-py':
        import svg2pdf_py

        return _merged(svg2pdf_py.svg_pages_to_pdfs(texts, svg2pdf_py.FontDatabase.system()))
    if name == 'vl-convert':
        import vl_convert

        return _merged([vl_convert.svg_to_pdf(text) for text in texts])
    if name == 'pymupdf':
        import pymupdf

        out = pymupdf.open()
        for p in paths:
            out.insert_pdf(pymupdf.open('pdf', pymupdf.open(p).convert_to_pdf()))
        return out.tobytes(garbage=3, deflate=True)
    if name == 'cairosvg':
        import cairosvg

        return _merged([cairosvg.svg2pdf(url=str(p)) for p in paths])
    if name == 'svglib':
        from reportlab.graphics import renderPDF
        from svglib.svglib import svg2rlg

        return _merged([renderPDF.drawToString(svg2rlg(str(p))) for p in paths])
    if name == 'skia-python':
        import skia

        stream = skia.DynamicMemoryWStream()
        document = skia.PDF.MakeDocument(stream)
        for p, (w, h) in zip(paths, map(_size_pt, texts)):
            _skia_canvas_draw(document.beginPage(w, h), p, w, h)
            document.endPage()
        document.close()
        return stream.detachAsData().bytes()
    raise ValueError(f'{name} makes no PDF')


def png_of(name, path, dpi):
    """The candidate's PNG of the SVG at `path`, at `dpi` (its pt sizes times dpi / 72 pixels)."""
    text = Path(path).read_text()
    if name == 'resvg-py':
        import resvg_py

        return bytes(resvg_py.svg_to_bytes(svg_path=str(path), dpi=dpi))
    if name == 'pyvips':
        import pyvips

        return pyvips.Image.svgload(str(path), scale=dpi / 72).pngsave_buffer()  # its dpi scales twice
    if name == 'vl-convert':
        import vl_convert

        return vl_convert.svg_to_png(text, scale=1.0, ppi=dpi * 0.75)  # it reads the slide's pt as px
    if name == 'pymupdf':
        import pymupdf

        return pymupdf.open(str(path))[0].get_pixmap(dpi=dpi).tobytes('png')
    if name == 'cairosvg':
        import cairosvg

        return cairosvg.svg2png(url=str(path), dpi=dpi)
    if name == 'skia-python':
        import skia

        width, height = _size_pt(text)
        surface = skia.Surface(round(width * dpi / 72), round(height * dpi / 72))
        with surface as canvas:
            canvas.clear(skia.ColorWHITE)
            canvas.scale(dpi / 72, dpi / 72)
            _skia_canvas_draw(canvas, path, width, height)
        return surface.makeImageSnapshot().encodeToData().bytes()
    raise ValueError(f'{name} makes no PNG')


PDF = {'rsvg-convert', 'typst', 'svg2pdf-py', 'vl-convert', 'pymupdf', 'cairosvg', 'svglib', 'skia-python'}
PNG = {'rsvg-convert', 'typst', 'resvg-py', 'pyvips', 'vl-convert', 'pymupdf', 'cairosvg', 'skia-python'}


def main(argv):
    """`NAME pdf OUT SVG...` or `NAME png OUT SVG`: the candidate's drawing, written to OUT."""
    name, kind, out, *paths = argv
    data = pdf_of(name, paths) if kind == 'pdf' else png_of(name, paths[0], DPI)
    Path(out).write_bytes(data)


if __name__ == '__main__':
    main(sys.argv[1:])
