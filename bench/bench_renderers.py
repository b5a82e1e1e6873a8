"""Benchmark the slides' renderers: rsvg-convert (librsvg2-bin, a system package) against the libraries pip installs
that could draw the PDF's pages and the deck's pictures instead, on the MLP's deck (its 66 slides, as
exports.render._slides makes them).

    python -m bench.bench_renderers                                 # the candidates this interpreter has
    python -m bench.bench_renderers --python /tmp/rvenv/bin/python  # the candidates that one has (see below)
    python -m bench.bench_renderers --keep /tmp/renderers           # and leave every PDF and PNG there to look at

The page keeps rsvg-convert (docs/exports.md says why: typst, the closest, leaves the labels a slide's view clips in
the PDF as invisible text, which search and copy find, and its wheel is 34 MB). No candidate is in a requirements
file: install them in a scratch venv to measure them again,
    python3 -m venv /tmp/rvenv && /tmp/rvenv/bin/pip install -r requirements.txt typst numpy resvg-py pyvips \\
        pyvips-binary svg2pdf-py vl-convert-python pymupdf cairosvg svglib skia-python
and name its interpreter with --python (bench/results/renderers.txt was measured so). The slides are made with
this interpreter (it needs the page's requirements and dot); each candidate then runs in a child of the other, as
the exports run their drawing: one child for the whole PDF (`rsvg-convert -f pdf page1.svg page2.svg ...`), one
child per picture of the deck (`-f png -d 144 -p 144`): typst as bench/typst_draw.py (rsvg-convert's arguments), the
others as bench/render_candidates.py. A candidate the interpreter cannot import is listed as missing. ~8 min with
every candidate on 2 cores.

Measured, for each candidate:
  pdf s / png s   wall time of the PDF's child, and of the 66 pictures' children in turn; cpu: their user+sys
                  time (the machine is shared: cpu is the steadier figure)
  pdf KB          the PDF's size; fonts: its fonts (pdffonts), * where one is not embedded
  text            pages whose text (pdftotext) has every word of rsvg-convert's page: the PDF's text stays text
                  (extra words: those it has besides, e.g. labels the slide's view clips, which cairo leaves out)
  pdf diff        the PDF's pages rasterised by pdftoppm at 144 dpi against rsvg-convert's PDF's, page by page
  png diff        the deck's pictures against rsvg-convert's at 144 dpi (both on white): mean |difference| of a
                  channel (0-255) and the share of pixels where a channel differs by more than 32 (worst slide)
  @font-face      whether the candidate draws a text in a font an @font-face gives as a data: URL and no system
                  has (the page's frame SVG, exports.frame_svg, carries DejaVu Sans Mono that way; the slides
                  name installed families instead): the frame SVG with its family renamed, drawn against itself
Needs poppler-utils (pdftoppm, pdftotext, pdffonts) for the measures, and fonts-dejavu-core: the slides name
DejaVu Sans and DejaVu Sans Mono, which every candidate finds among the system's fonts, as rsvg-convert does.
"""

import argparse
import io
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.render_candidates import DPI, PDF, PNG

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600

# pip download --no-deps of the newest version, manylinux x86_64, CPython 3.11; licence from its metadata
WHEELS = {
    'rsvg-convert': ('librsvg2-bin (Debian)', None, 'LGPL-2.1+', 'system package: librsvg2-bin / brew librsvg'),
    'typst': ('typst', 34.1, 'Apache-2.0', 'typst-py (messense); typst with svg2pdf and resvg inside'),
    'resvg-py': ('resvg-py', 1.4, 'MIT', 'resvg bindings; PNG only'),
    'pyvips': ('pyvips pyvips-binary', 8.2, 'MIT / LGPL-3.0+', 'libvips with librsvg inside; no PDF save'),
    'svg2pdf-py': ('svg2pdf-py', 2.6, 'MIT', 'one-person binding of typst/svg2pdf; PDF only, one per page'),
    'vl-convert': ('vl-convert-python', 33.5, 'BSD-3-Clause', "Vega's converter (resvg, svg2pdf); a PDF a page"),
    'pymupdf': ('pymupdf', 69.0, 'AGPL-3.0 / commercial', "MuPDF's SVG reader"),
    'cairosvg': ('cairosvg', 0.05, 'LGPL-3.0+', 'needs the system libcairo2: not pip-only'),
    'svglib': ('svglib reportlab', 2.1, 'LGPL-3.0 / BSD', 'pure Python; its PNG needs rlPyCairo and libcairo2'),
    'skia-python': ('skia-python', 14.7, 'BSD-3-Clause', 'needs the system libGL, libEGL, libX11'),
}
MODULES = {
    'typst': ['typst'], 'resvg-py': ['resvg_py'], 'pyvips': ['pyvips'], 'svg2pdf-py': ['svg2pdf_py', 'pypdf'],
    'vl-convert': ['vl_convert', 'pypdf'], 'pymupdf': ['pymupdf'], 'cairosvg': ['cairosvg', 'pypdf'],
    'svglib': ['svglib', 'reportlab', 'pypdf'], 'skia-python': ['skia'],
}  # fmt: skip
DISTRIBUTIONS = {
    'typst': 'typst', 'resvg-py': 'resvg_py', 'pyvips': 'pyvips-binary', 'svg2pdf-py': 'svg2pdf-py',
    'vl-convert': 'vl-convert-python', 'pymupdf': 'pymupdf', 'cairosvg': 'cairosvg', 'svglib': 'svglib',
    'skia-python': 'skia-python',
}  # fmt: skip


# --- the measures --------------------------------------------------------------------------------------------------


def _command(name, python, kind, out, paths):
    size = ['-d', str(DPI), '-p', str(DPI)] if kind == 'png' else []
    if name == 'rsvg-convert':
        return ['rsvg-convert', '-f', kind, *size, '-o', str(out), *map(str, paths)]
    if name == 'typst':  # behind rsvg-convert's arguments, as the exports would run it (queue.Rsvg)
        draw = str(ROOT / 'bench' / 'typst_draw.py')
        return [python, '-I', draw, '-f', kind, *size, '-o', str(out), *map(str, paths)]
    return [python, '-m', 'bench.render_candidates', name, kind, str(out), *map(str, paths)]


def _timed(commands):
    """Runs `commands` in turn: (wall s, children's user+sys s, the first error or None)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    error = None
    for command in commands:
        run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
        if run.returncode and error is None:
            error = (run.stderr.strip().splitlines() or [f'exit {run.returncode}'])[-1][:200]
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return round(wall, 2), round(cpu, 2), error


def _pixels(data):
    """A picture (PNG or PPM bytes) on white, as an int16 array of RGB."""
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        rgba = image.convert('RGBA')
    white = Image.new('RGBA', rgba.size, 'white')
    return np.asarray(Image.alpha_composite(white, rgba).convert('RGB'), dtype=np.int16)


def _diff(ours, theirs):
    """(mean |difference| of a channel, % of pixels where a channel differs by more than 32, whether `ours` was
    resampled): a picture whose size differs by more than a pixel (svg2pdf's pages read the slide's pt as px, 4/3 too
    large) is resampled to `theirs`'s first, else the common part is compared (a rounding of the size)."""
    import numpy as np
    from PIL import Image

    scaled = abs(ours.shape[0] - theirs.shape[0]) > 1 or abs(ours.shape[1] - theirs.shape[1]) > 1
    if scaled:
        image = Image.fromarray(ours.astype(np.uint8)).resize((theirs.shape[1], theirs.shape[0]), Image.LANCZOS)
        ours = np.asarray(image, dtype=np.int16)
    h, w = min(ours.shape[0], theirs.shape[0]), min(ours.shape[1], theirs.shape[1])
    delta = np.abs(ours[:h, :w] - theirs[:h, :w])
    return float(delta.mean()), float((delta.max(axis=2) > 32).mean() * 100), scaled


def _summary(diffs):
    if not diffs:
        return None
    return {
        'mean': round(sum(d[0] for d in diffs) / len(diffs), 2),
        'over32_pct': round(sum(d[1] for d in diffs) / len(diffs), 3),
        'worst_pct': round(max(d[1] for d in diffs), 3),
        'resampled': any(d[2] for d in diffs),
    }


def _rasters(pdf, folder):
    """The PDF's pages at DPI, by pdftoppm (PPM, not compressed: fast)."""
    for old in folder.glob('page*'):
        old.unlink()
    subprocess.run(['pdftoppm', '-r', str(DPI), str(pdf), str(folder / 'page')], check=True, timeout=TIMEOUT)
    return [_pixels(p.read_bytes()) for p in sorted(folder.glob('page*'))]


def _page_texts(pdf):
    text = subprocess.run(['pdftotext', str(pdf), '-'], capture_output=True, text=True, timeout=TIMEOUT).stdout
    return [page.split() for page in text.split('\f')][:-1]


def _fonts(pdf):
    lines = subprocess.run(['pdffonts', str(pdf)], capture_output=True, text=True, timeout=TIMEOUT).stdout
    fonts = set()
    for line in lines.splitlines()[2:]:
        parts = line.split()
        embedded = parts[-5] if len(parts) >= 6 else 'no'
        fonts.add(re.sub(r'^[A-Z]{6}\+', '', parts[0]) + ('' if embedded == 'yes' else '*'))
    return sorted(fonts)


def make_slides(folder):
    """The MLP deck's slides as the exports make them: with their title and sums (the PDF's pages) and without (the
    deck's pictures); and the page's frame SVG of its last frame, which carries its font as an @font-face."""
    import exports
    from engine import PRESETS, trace_backward
    from engine.frames import frames
    from server import layout
    from view.numbers import number_width

    leaves, out = PRESETS['mlp'].build(None)
    trace = trace_backward(out, leaves)
    all_frames, width = frames(trace), number_width(trace)
    exports.queue.EXPORT_BUDGET = exports.queue.RENDER_BUDGET = 600.0
    made = {}
    for text, kind in ((True, 'pdf'), (False, 'png')):
        (folder / kind).mkdir()
        made[kind] = []
        slides = exports.render._slides(
            trace, all_frames, width, False, None, layout.Allowance(seconds=1e9), lambda: True, None, None, True, text
        )
        for n, (_, _, svg, _, _) in enumerate(slides):
            made[kind].append(folder / kind / f'{n:03d}.svg')
            made[kind][-1].write_text(svg)
    leaves, out = PRESETS['neuron'].build(None)  # a small picture: the mlp's frame is 4,129 pt wide
    trace = trace_backward(out, leaves)
    last = frames(trace)[-1]
    face = exports.frame_svg(trace, last, number_width(trace), allowance=layout.Allowance(seconds=1e9)).decode()
    (folder / 'face').mkdir()
    made['face'] = folder / 'face' / 'installed.svg'
    made['face'].write_text(face)
    made['embedded'] = folder / 'face' / 'embedded.svg'  # the family no system has, and no fallback named
    families = re.sub(r'font-family="[^"]*"', 'font-family="Embedded Only Mono"', face)
    made['embedded'].write_text(families.replace("'DejaVu Sans Mono'", "'Embedded Only Mono'"))
    return made


def available(python, names):
    """{name: version} of the candidates `python` can import; the others missing."""
    probe = (
        'import importlib, importlib.metadata, json, sys\n'
        'found = {}\n'
        'for name, modules, dist in json.loads(sys.argv[1]):\n'
        '    try:\n'
        '        [importlib.import_module(m) for m in modules]\n'
        '        found[name] = importlib.metadata.version(dist)\n'
        '    except Exception:\n'
        '        pass\n'
        'print(json.dumps(found))'
    )
    wanted = [[n, MODULES[n], DISTRIBUTIONS[n]] for n in names if n != 'rsvg-convert']
    run = subprocess.run([python, '-c', probe, json.dumps(wanted)], capture_output=True, text=True, timeout=300)
    found = json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else {}
    if 'rsvg-convert' in names and shutil.which('rsvg-convert'):
        version = subprocess.run(['rsvg-convert', '--version'], capture_output=True, text=True).stdout.split()
        found['rsvg-convert'] = version[-1] if version else '?'
    return found


def measure(name, python, made, work, reference):
    """One candidate's row; `reference` is rsvg-convert's (its PDF's rasters, texts and PNGs), None for its own."""
    row = {'candidate': name}
    out = work / name
    out.mkdir()
    if name in PDF:
        pdf = out / 'deck.pdf'
        wall, cpu, error = _timed([_command(name, python, 'pdf', pdf, made['pdf'])])
        row.update(pdf_s=wall, pdf_cpu_s=cpu, pdf_error=error)
        if pdf.exists() and not error:
            row['pdf_kb'] = round(pdf.stat().st_size / 1024)
            row['fonts'] = _fonts(pdf)
            texts = _page_texts(pdf)
            rasters = _rasters(pdf, out)
            row['pages'] = len(rasters)
            row['page_pt'] = (
                subprocess.run(['pdfinfo', str(pdf)], capture_output=True, text=True, timeout=TIMEOUT)
                .stdout.split('Page size:')[-1]
                .split('pts')[0]
                .strip()
            )
            if reference:
                row['text_pages'] = sum(not Counter(b) - Counter(a) for a, b in zip(texts, reference['texts']))
                row['extra_words'] = sum(len(Counter(a) - Counter(b)) for a, b in zip(texts, reference['texts']))
                row['pdf_diff'] = _summary([_diff(a, b) for a, b in zip(rasters, reference['rasters'])])
                if len(rasters) != len(reference['rasters']):
                    row['pdf_diff'] = None
            else:
                row['text_pages'] = len(texts)
                reference_of = {'texts': texts, 'rasters': rasters}
    if name in PNG:
        pngs = [out / f'{p.stem}.png' for p in made['png']]
        wall, cpu, error = _timed(_command(name, python, 'png', png, [p]) for png, p in zip(pngs, made['png']))
        row.update(png_s=wall, png_cpu_s=cpu, png_error=error)
        if not error:
            row['png_kb'] = round(sum(p.stat().st_size for p in pngs) / 1024)
            if reference:
                row['png_diff'] = _summary(
                    [_diff(_pixels(p.read_bytes()), ref) for p, ref in zip(pngs, reference['pngs'])]
                )
            else:
                reference_of['pngs'] = [_pixels(p.read_bytes()) for p in pngs]
    row['font_face'], face = _font_face(name, python, made, out, reference and reference['face'])
    if reference is None:
        reference_of['face'] = face
        return row, reference_of
    return row, None


def _font_face(name, python, made, out, installed):
    """(whether the candidate draws the @font-face's font where no system has that family, its drawing of the frame
    SVG as it is): the frame SVG with its family renamed drawn as the SVG as it is (its family installed), and that
    one as rsvg-convert draws it (`installed`; None for rsvg-convert itself): a candidate that draws no text, or
    another font, draws both alike."""
    kind = 'png' if name in PNG else 'pdf'
    pictures = []
    for svg in (made['face'], made['embedded']):
        target = out / f'face-{svg.stem}.{kind}'
        _, _, error = _timed([_command(name, python, kind, target, [svg])])
        if error or not target.exists():
            return None, None
        pictures.append(_pixels(target.read_bytes()) if kind == 'png' else _rasters(target, out)[0])
    alike = _diff(*pictures)[1] < 0.5
    right = installed is None or _diff(pictures[0], installed)[1] < 2  # typst 1.2 %, MuPDF's Courier 2.4 %
    return alike and right, pictures[0]


def table(rows, found, missing, python):
    def cell(value, fmt='{}'):
        return '-' if value is None else fmt.format(value)

    def diff(d):
        if not d:
            return '-'
        scaled = ', resampled' if d['resampled'] else ''
        return f'{d["mean"]:.2f} / {d["over32_pct"]:.2f}% (worst {d["worst_pct"]:.2f}%{scaled})'

    lines = [
        'Renderer benchmark: bench/bench_renderers.py, the MLP deck (66 slides): its PDF (one child) and its '
        f'pictures at {DPI} dpi (a child each)',
        f'machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared), Python '
        f'{platform.python_version()}; candidates run by {python}',
        '',
        f'{"candidate":<13}| {"version":<9}| {"wheel MB":>8} | {"licence":<21}| {"pdf s (cpu)":>12} | '
        f'{"png s (cpu)":>12} | {"pdf KB":>6} | {"text":>11} | {"@font-face":<10}| fonts in the PDF',
        '-' * 150,
    ]
    for r in rows:
        wheel = WHEELS[r['candidate']]
        pdf = f'{r["pdf_s"]:.2f} ({r["pdf_cpu_s"]:.2f})' if 'pdf_s' in r and not r.get('pdf_error') else '-'
        png = f'{r["png_s"]:.2f} ({r["png_cpu_s"]:.2f})' if 'png_s' in r and not r.get('png_error') else '-'
        text = f'{r["text_pages"]}/{r.get("pages", 66)}' if 'text_pages' in r else '-'
        text += f' +{r["extra_words"]}' if r.get('extra_words') else ''
        face = {True: 'yes', False: 'no', None: '-'}[r['font_face']]
        lines.append(
            f'{r["candidate"]:<13}| {found.get(r["candidate"], "?"):<9}| {cell(wheel[1], "{:.1f}"):>8} | '
            f'{wheel[2]:<21}| {pdf:>12} | {png:>12} | {cell(r.get("pdf_kb")):>6} | {text:>11} | {face:<10}| '
            f'{", ".join(r.get("fonts", []))}'
        )
    lines += ['', 'against rsvg-convert: mean |difference| of a channel (0-255) / pixels differing by more than 32:']
    for r in rows[1:]:
        page = f' {r["page_pt"]} pt' if r.get('page_pt') and r['page_pt'] != rows[0].get('page_pt') else ''
        lines.append(f'  {r["candidate"]:<13} pdf {diff(r.get("pdf_diff")) + page:<56} png {diff(r.get("png_diff"))}')
    errors = [(r['candidate'], k, r[k]) for r in rows for k in ('pdf_error', 'png_error') if r.get(k)]
    if errors:
        lines += ['', 'failed:'] + [f'  {n} {k[:3]}: {e}' for n, k, e in errors]
    lines += ['', 'notes:'] + [f'  {name}: {WHEELS[name][3]}' for name in [r['candidate'] for r in rows]]
    if missing:
        lines += ['', f'missing (not importable by {python}): {", ".join(missing)}']
    lines += [
        '',
        'pdf s / png s: wall time, the cpu time of the children in brackets (user + sys); the png children are one '
        'per slide,',
        "as the deck's are. text: pages with every pdftotext word of rsvg-convert's page (+ the extra words in all).",
        '@font-face: draws a font given only as a data: URL. resampled: pictures of another size (a page of another '
        'size: shown),',
        "resampled to rsvg-convert's before they are compared.",
        'fonts: * where not embedded. Wheel sizes: pip download --no-deps, manylinux x86_64.',
    ]
    return '\n'.join(lines) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--python', default=sys.executable, help='the interpreter that has the candidates')
    parser.add_argument('--only', nargs='*', default=list(WHEELS), help='candidates (rsvg-convert always runs)')
    parser.add_argument('--keep', help='a folder to leave the slides, PDFs and PNGs in')
    parser.add_argument('--out', help='write OUT.txt and OUT.json instead of bench/results/renderers.*')
    args = parser.parse_args()
    for tool in ('rsvg-convert', 'pdftoppm', 'pdftotext', 'pdffonts', 'pdfinfo', 'dot'):
        if shutil.which(tool) is None:
            sys.exit(f'{tool} is missing: apt-get install librsvg2-bin poppler-utils graphviz')
    names = ['rsvg-convert'] + [n for n in WHEELS if n in args.only and n != 'rsvg-convert']
    found = available(args.python, names)
    missing = [n for n in names if n not in found]
    if missing:
        print(f'missing (not importable by {args.python}): {", ".join(missing)}', file=sys.stderr)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix='renderers-'))
    if args.keep and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    try:
        made = make_slides(work)
        rows, reference = [], None
        for name in [n for n in names if n in found]:
            row, own = measure(name, args.python, made, work, reference)
            reference = reference or own
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    text = table(rows, found, missing, args.python)
    results = {'slides': len(made['pdf']), 'dpi': DPI, 'python': args.python, 'versions': found, 'missing': missing,
               'wheels': {n: dict(zip(('packages', 'mb', 'licence', 'note'), w)) for n, w in WHEELS.items()},
               'rows': rows}  # fmt: skip
    from bench import readme_tables

    readme_tables.write_results('renderers', text, results, out=args.out)


if __name__ == '__main__':
    main()
