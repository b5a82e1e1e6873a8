"""Exports in a real browser: each file is downloaded from the share panel as a lecturer would, and opens as what it
says it is, with the frame shown or the whole pass in it."""

import io
import xml.etree.ElementTree as ET
import zipfile

import pytest
from PIL import Image
from playwright.sync_api import expect
from pptx import Presentation
from pypdf import PdfReader
from test_browser_demo import VIEW, wait_for_player

from components.export_panel import PASS_FILES

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)

REUSE_FRAMES = 10  # reuse, a*b + a*a: the inputs, 3 forward ops, the seed, and 5 backward steps (one per node)


@pytest.fixture(scope='module')
def share_panel(browser, served):
    """The share panel of `reuse` at step=5, frame 6 of 10, open in a fresh page."""
    context = browser.new_context(viewport=VIEW, accept_downloads=True)
    page = context.new_page()
    page.goto(f'{served}/?expr=reuse&step=5')
    wait_for_player(page, 5)
    page.locator('.player .share').click()
    dialog = page.get_by_role('dialog')
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text('Frame 6 of 10: backward pass: out = a*b + a*a passes its grad back')
    expect(dialog).to_contain_text('The whole pass: 10 frames, one per picture, page or slide')
    yield page, dialog
    context.close()


def download(page, button):
    with page.expect_download(timeout=30_000) as info:
        button.click()
    done = info.value
    return done.suggested_filename, done.path().read_bytes()


def test_the_frame_on_screen_downloads_as_svg_png_and_dot_named_by_expression_inputs_and_frame(share_panel):
    page, dialog = share_panel
    name, svg = download(page, dialog.get_by_role('button', name='SVG (vector)'))
    assert name == 'reuse_a3_b-2_f06.svg'  # frame 6 of 10
    root = ET.fromstring(svg)
    assert root.tag.endswith('svg')
    texts = [t.text.strip() for t in root.iter() if t.tag.endswith('text') and t.text]
    assert 'a*a' in texts or 'a*b' in texts

    name, png = download(page, dialog.get_by_role('button', name='PNG (2× size, on white)'))
    assert name == 'reuse_a3_b-2_f06.png'
    picture = Image.open(io.BytesIO(png))
    assert picture.format == 'PNG' and picture.convert('RGB').getpixel((0, 0)) == (255, 255, 255)
    width_pt = float(root.get('width').removesuffix('pt'))
    assert picture.width >= 2 * width_pt * 4 / 3 - 1  # twice the picture's size on the screen

    name, dot = download(page, dialog.get_by_role('button', name='DOT source'))
    assert name == 'reuse_a3_b-2_f06.dot' and dot.startswith(b'digraph')


@pytest.mark.parametrize('label', ['GIF', 'PDF', 'PowerPoint', 'ZIP of SVGs'])
def test_the_whole_pass_is_made_with_progress_then_downloads_with_a_frame_per_picture(share_panel, label):
    page, dialog = share_panel
    dialog.get_by_role('button', name=f'Make the {label}').click()
    ready = dialog.get_by_role('button', name=f'{label} (')  # its download button, with the file's size
    expect(ready).to_be_visible()
    name, data = download(page, ready)
    assert name.startswith('reuse_a3_b-2.')
    if label == 'GIF':
        gif = Image.open(io.BytesIO(data))
        assert gif.format == 'GIF' and gif.n_frames == REUSE_FRAMES
    elif label == 'PDF':
        assert len(PdfReader(io.BytesIO(data)).pages) == REUSE_FRAMES
    elif label == 'PowerPoint':
        slides = Presentation(io.BytesIO(data)).slides
        assert len(slides) == REUSE_FRAMES and slides[5].shapes.title.text.startswith('Frame 6 of 10')
    else:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()  # the frames, and the pass as one page that steps
        assert names == [*(f'reuse_a3_b-2_f{k:02d}.svg' for k in range(1, REUSE_FRAMES + 1)), 'reuse_a3_b-2.html']


def test_every_file_made_stays_downloadable_after_the_next_kind_is_made(share_panel):
    page, dialog = share_panel  # the test before made the GIF, then the PDF, the PowerPoint and the ZIP
    for label, *_ in PASS_FILES:
        expect(dialog.get_by_role('button', name=f'{label} (')).to_be_visible()
        expect(dialog.get_by_role('button', name=f'Make the {label}')).to_have_count(0)
    name, data = download(page, dialog.get_by_role('button', name='GIF ('))  # the first made, still there
    assert name == 'reuse_a3_b-2.gif' and Image.open(io.BytesIO(data)).n_frames == REUSE_FRAMES
