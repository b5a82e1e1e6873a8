"""A frame's SVG is the page's picture: downloaded from the share panel in the shape the player shows, and opened in
Chromium and in LibreOffice beside the page's own SVG at the same frame, every word of every text starts, ends and
stands on its baseline where the page draws it, within a pixel at 1× (1 pt = 4/3 px)."""

import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader
from test_browser_demo import VIEW, show_shape, wait_for_player

from exports.picture import FONT_FILES
from view.graph import SHAPES

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)

# a middle frame of reuse, the neuron's backward pass, and a typed formula whose numbers are −inf, nan and negative
CASES = {
    'reuse': ('expr=reuse&step=6', 6),
    'neuron': ('expr=neuron&step=12', 12),
    'not-finite': ('expr=custom&formula=log(a)*a%20%2B%20b&v.a=0&v.b=-2&step=8', 8),
}
PX = 4 / 3  # px per pt at 1×

# each word of each text of an SVG: its text, where its first character starts and its last ends, and its baseline,
# in px from the SVG's top left corner, and its colour and weight; keyed by its group's id, the text's place in it
# and the word's in the text (a text whose spaces collapsed, one entry 'collapsed')
WORDS = """function words(svg) {
  const box = svg.getBoundingClientRect();
  const out = [];
  const texts = new Map();
  for (const t of svg.querySelectorAll('text')) {
    const id = t.closest('g[id]')?.id || '';
    const n = texts.get(id) || 0;
    texts.set(id, n + 1);
    const m = t.getScreenCTM();
    const at = (p) => [m.a * p.x + m.c * p.y + m.e - box.left, m.b * p.x + m.d * p.y + m.f - box.top];
    let w = 0;
    if (t.getNumberOfChars() !== t.textContent.length) { // a space collapsed: the text is not drawn as it is written
      out.push({ key: `${id} ${n} collapsed`, text: t.textContent });
      continue;
    }
    for (const word of t.textContent.matchAll(/[^ \\u00a0]+/g)) {
      const [x0, y] = at(t.getStartPositionOfChar(word.index));
      const [x1] = at(t.getEndPositionOfChar(word.index + word[0].length - 1));
      const look = getComputedStyle(t);
      out.push({ key: `${id} ${n} ${w++}`, text: word[0], x0, x1, y, fill: look.fill, weight: look.fontWeight });
    }
  }
  return out;
}
const faces = () => [...document.fonts].filter((f) => f.family.replace(/["']/g, '') === 'DejaVu Sans Mono')
  .map((f) => `${f.weight} ${f.status}`).sort();"""
# the page's graph at 1×, once the page's fonts have loaded
PAGE = f"""async (root) => {{ {WORDS}
  await document.fonts.ready;
  root.__player.zoom(1);
  return {{ words: words(root.querySelector('.view svg')), faces: faces() }};
}}"""
FILE = f"""async () => {{ {WORDS}
  await document.fonts.ready;
  return {{ words: words(document.documentElement), faces: faces() }};
}}"""


@pytest.fixture(scope='module')
def pictures(browser, served, tmp_path_factory):
    """{(case, shape): {'page': the page's words, 'chromium': the file's in Chromium, 'libreoffice': in LibreOffice,
    'file': its path, 'faces': the page's and the file's font faces}} for every case of CASES in every shape: the
    page's graph pinned to the shape, the frame's SVG downloaded from its share panel."""
    folder = tmp_path_factory.mktemp('pictures')
    context = browser.new_context(viewport=VIEW, accept_downloads=True)
    page = context.new_page()
    found = {}
    for case, (link, k) in CASES.items():
        page.goto(f'{served}/?{link}')
        wait_for_player(page, k)
        for shape in SHAPES:
            show_shape(page, shape)
            shown = page.locator('.player').evaluate(PAGE)
            page.locator('.player .share').click()
            dialog = page.get_by_role('dialog')
            with page.expect_download(timeout=30_000) as download:
                dialog.get_by_role('button', name='SVG (vector)').click()
            path = folder / f'{case}-{shape}.svg'
            download.value.save_as(path)
            dialog.get_by_role('button', name='Close').click()
            expect(dialog).to_be_hidden()
            found[case, shape] = {'page': shown['words'], 'file': path, 'faces': {'page': shown['faces']}}
    for picture in found.values():  # each file opened in Chromium on its own, as a lecturer opens it
        page.goto(picture['file'].as_uri())
        opened = page.evaluate(FILE)
        picture['chromium'], picture['faces']['file'] = opened['words'], opened['faces']
    context.close()
    pdfs = libreoffice_pdfs([p['file'] for p in found.values()], folder)
    for picture in found.values():
        picture['libreoffice'] = libreoffice_words(pdfs[picture['file'].stem])
    return found


def libreoffice_pdfs(svgs, folder):
    """{stem: PDF path}: the SVGs opened in LibreOffice and printed to PDF, in one run of soffice (seconds each), with
    a profile of its own so that another soffice running does not take the job."""
    profile = (folder / 'profile').as_uri()
    command = ['soffice', f'-env:UserInstallation={profile}', '--headless', '--convert-to', 'pdf', '--outdir']
    subprocess.run([*command, str(folder / 'pdf'), *map(str, svgs)], check=True, capture_output=True, timeout=300)
    pdfs = {svg.stem: folder / 'pdf' / f'{svg.stem}.pdf' for svg in svgs}
    missing = [stem for stem, pdf in pdfs.items() if not pdf.exists()]
    assert not missing, f'LibreOffice made no PDF of {missing}'
    return pdfs


def libreoffice_words(pdf):
    """Each word LibreOffice drew: its text and where it starts and ends (poppler's pdftotext -bbox), and the baseline
    of the text it is in (pypdf: the text matrix where LibreOffice shows that text), in px from the page's top left."""
    xml = subprocess.run(['pdftotext', '-bbox', str(pdf), '-'], check=True, capture_output=True, text=True).stdout
    number = r'"([-\d.]+)"'
    boxes = re.findall(rf'<word xMin={number} yMin={number} xMax={number} yMax={number}>([^<]*)</word>', xml)
    page = PdfReader(pdf).pages[0]
    height = float(page.mediabox.height)
    runs = []  # (x, baseline) of each text shown, in pt from the top left

    def shown(text, cm, tm, font, size):
        if text.strip():
            runs.append((tm[4] * cm[0] + tm[5] * cm[2] + cm[4], height - (tm[4] * cm[1] + tm[5] * cm[3] + cm[5])))

    page.extract_text(visitor_text=shown)
    words = []
    for x0, top, x1, bottom, text in boxes:
        x0, top, x1, bottom = map(float, (x0, top, x1, bottom))
        line = [run for run in runs if top <= run[1] <= bottom and run[0] <= x0 + 0.1]
        base = max(line, key=lambda run: run[0])[1]  # the text the word is in: the nearest that starts before it
        words.append({'text': ET.fromstring(f'<w>{text}</w>').text, 'x0': x0 * PX, 'x1': x1 * PX, 'y': base * PX})
    return words


def far(word, other):
    """How far apart two words are: the largest of their starts', ends' and baselines' distances, in px."""
    return max(abs(word['x0'] - other['x0']), abs(word['x1'] - other['x1']), abs(word['y'] - other['y']))


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('case', CASES)
def test_a_frames_svg_in_chromium_puts_every_word_where_the_page_does(pictures, case, shape):
    picture = pictures[case, shape]
    page, opened = picture['page'], {w['key']: w for w in picture['chromium']}
    assert page and {w['key'] for w in page} == set(opened)  # the same texts, each word of them, in the same groups
    for word in page:
        there = opened[word['key']]
        assert there['text'] == word['text'] and far(word, there) <= 1, f'{case} {shape}: {word} in the file: {there}'
        assert (there['fill'], there['weight']) == (word['fill'], word['weight']), f'{case} {shape}: {word}: {there}'
    # the page draws in static/fonts/' faces, the file in the ones it embeds, each weight loaded
    loaded = [f'{weight} loaded' for weight in sorted(FONT_FILES)]
    assert picture['faces'] == {'page': loaded, 'file': loaded}


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('case', CASES)
def test_a_frames_svg_in_libreoffice_puts_every_word_where_the_page_does(pictures, case, shape):
    picture = pictures[case, shape]
    drawn = picture['libreoffice']
    assert len(drawn) == len(picture['page'])  # every word, and no other
    for word in picture['page']:
        same = [w for w in drawn if w['text'] == word['text']]
        nearest = min(same, key=lambda w: far(word, w), default=None)
        assert nearest is not None and far(word, nearest) <= 1, f'{case} {shape}: {word} in LibreOffice: {nearest}'


def test_padded_numbers_end_together_in_the_file_as_on_the_page(pictures):
    # reuse at frame 7 of 10, in the wide shape, where a's box stands over b's: a's data 3.0000 (padded ' 3.0000') and
    # b's -2.0000 end at the same x; a space lost before 3.0000 would end it a character early
    for side in ('page', 'chromium'):
        words = {w['key']: w for w in pictures['reuse', 'wide'][side]}
        a, b = words['n0 2 0'], words['n1 2 0']  # each box's texts: name, 'data', its data (graph.VALUE_TEXTS)
        assert (a['text'], b['text']) == ('3.0000', '-2.0000')
        assert abs(a['x1'] - b['x1']) < 0.1 and a['x0'] - b['x0'] > 5, (side, a, b)


@pytest.fixture(scope='module')
def without_dejavu(browser, tmp_path_factory):
    """A Chromium that has every font of this machine but DejaVu Sans Mono, as on a Mac: its own fontconfig."""
    from tests.support.serve import CHROMIUM, CHROMIUM_ARGS

    folder = tmp_path_factory.mktemp('fonts')
    config = folder / 'fonts.conf'  # the machine's own, less DejaVu Sans Mono: its hinting and the rest as they were
    config.write_text(
        '<fontconfig><include>/etc/fonts/fonts.conf</include><selectfont><rejectfont>'
        '<glob>*/DejaVuSansMono*</glob>'
        '<pattern><patelt name="family"><string>DejaVu Sans Mono</string></patelt></pattern>'
        '</rejectfont></selectfont></fontconfig>'
    )
    env = {**os.environ, 'FONTCONFIG_FILE': str(config)}
    # what stands in for it is the machine's own choice (Liberation Mono, Noto Sans Mono, ...): only DejaVu is out
    families = subprocess.run(['fc-list', ':', 'family'], check=True, capture_output=True, text=True, env=env)
    matched = subprocess.run(
        ['fc-match', '-f', '%{family}', 'DejaVu Sans Mono'], check=True, capture_output=True, text=True, env=env
    )
    assert 'DejaVu Sans Mono' not in families.stdout + matched.stdout
    other = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, env=env)
    yield other.new_page(viewport=VIEW)
    other.close()


def test_without_dejavu_sans_mono_installed_the_page_and_its_file_still_draw_in_it(without_dejavu, pictures, served):
    # the page loads static/fonts/, the file its own subset: each word where this machine's Chromium drew it
    page = without_dejavu
    page.goto(f'{served}/?{CASES["reuse"][0]}')
    wait_for_player(page, CASES['reuse'][1])
    show_shape(page, 'wide')
    drawn = {'page': page.locator('.player').evaluate(PAGE)}
    page.goto(pictures['reuse', 'wide']['file'].as_uri())
    drawn['file'] = page.evaluate(FILE)
    before = {w['key']: w for w in pictures['reuse', 'wide']['page']}
    for side, shown in drawn.items():
        assert shown['faces'] == [f'{weight} loaded' for weight in sorted(FONT_FILES)], side
        assert {w['key'] for w in shown['words']} == set(before), side
        for word in shown['words']:
            assert far(word, before[word['key']]) <= 1, f'{side}: {word}, with DejaVu Sans Mono: {before[word["key"]]}'
