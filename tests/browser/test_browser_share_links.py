"""The share panel on a lecturer's laptop, in a real browser: opened at localhost, its QR code (read back with zbarimg)
holds the link at the network's address that `streamlit run` prints, and that link reopens the same frame; on a
server bound to 127.0.0.1 the panel says students cannot open its link."""

import subprocess
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect
from test_browser_demo import VIEW, wait_for_player
from test_browser_fit import PHONE

from components.share import FOR_HERE, FOR_HERE_ONLY, FOR_OTHERS, RUN_ON_THE_NETWORK
from tests.support.serve import ServerError, serve_app

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)

FRAME = '?expr=custom&formula=L%20%3D%20a*b%20%2B%20a%2Fc&v.a=1.5&step=5'  # frame 6 of a typed formula


def words(markdown):
    """What the page shows for the panel's markdown: its text, without the ** of bold."""
    return markdown.replace('**', '')


def open_share_panel(page, url):
    page.goto(url)
    wait_for_player(page, 5)
    page.locator('.player .share').click()
    dialog = page.get_by_role('dialog')
    expect(dialog.get_by_text('Frame 6 of')).to_be_visible()
    expect(dialog.get_by_text('This frame, for a slide')).to_be_visible()  # the exports, drawn after the links
    return dialog


def links(dialog, count):
    """The `count` links the panel shows, in its order (each drawn as it arrives: waited for)."""
    shown = dialog.locator('code').filter(has_text='://')
    expect(shown).to_have_count(count)
    return [code.text_content().strip() for code in shown.all()]


def qr_text(dialog, tmp_path):
    """The text of the panel's QR code, read off a screenshot of it by zbarimg as a phone's camera would."""
    codes = dialog.get_by_role('img')
    expect(codes).to_have_count(1)
    shot = tmp_path / 'qr.png'
    codes.screenshot(path=shot)
    try:
        read = subprocess.run(['zbarimg', '-q', '--raw', str(shot)], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.fail('zbarimg is missing: apt-get install zbar-tools (tests/run.sh does)', pytrace=False)
    assert read.returncode == 0, f'zbarimg read no QR code off {shot}: {read.stderr}'
    return read.stdout.strip()


def test_on_localhost_the_qr_code_holds_the_network_link_streamlit_prints_and_it_reopens_the_frame(browser, tmp_path):
    log = []
    try:
        with serve_app(timeout=60, address='0.0.0.0', log_lines=log) as served:  # as a lecturer's laptop serves
            page = browser.new_context(viewport=VIEW).new_page()
            dialog = open_share_panel(page, f'http://localhost:{urlsplit(served).port}/{FRAME}')
            expect(dialog.get_by_text(words(FOR_OTHERS))).to_be_visible()
            expect(dialog.get_by_text(words(FOR_HERE), exact=True)).to_be_visible()
            for_others, here = links(dialog, 2)
            assert urlsplit(here).hostname == 'localhost'
            assert (urlsplit(for_others).path, urlsplit(for_others).query) == (
                urlsplit(here).path,
                urlsplit(here).query,
            )
            assert qr_text(dialog, tmp_path) == for_others
            assert dialog.get_by_role('img').bounding_box()['width'] >= 400  # readable off a projector
            shown = page.locator('.player .caption').text_content()
            page.context.close()

            other = browser.new_context(viewport=VIEW).new_page()  # a student's phone, on the network's address
            dialog = open_share_panel(other, for_others)
            assert other.locator('.player .caption').text_content() == shown
            assert links(dialog, 1) == [for_others]  # a page opened at the network's address has its one link
            expect(dialog.get_by_text(words(FOR_OTHERS))).to_have_count(0)
            assert qr_text(dialog, tmp_path) == for_others
            other.context.close()
    except ServerError as e:
        pytest.fail(str(e), pytrace=False)
    origin = urlsplit(for_others)
    assert f'Network URL: {origin.scheme}://{origin.netloc}' in [line.strip() for line in log]


def test_on_a_server_bound_to_127_0_0_1_the_panel_says_students_cannot_open_its_link(browser, served, tmp_path):
    page = browser.new_context(viewport=VIEW).new_page()
    dialog = open_share_panel(page, f'{served}/{FRAME}')  # tests/browser/conftest.py: --server.address 127.0.0.1
    expect(dialog.get_by_role('alert')).to_contain_text(
        'Students on other machines cannot open 127.0.0.1, and this server has no address on a network.'
    )
    expect(dialog.locator('code').filter(has_text=RUN_ON_THE_NETWORK)).to_be_visible()
    expect(dialog.get_by_text(words(FOR_HERE_ONLY), exact=True)).to_be_visible()
    (here,) = links(dialog, 1)
    assert urlsplit(here).hostname == '127.0.0.1'
    assert qr_text(dialog, tmp_path) == here
    page.context.close()


def test_on_a_phone_the_qr_code_fits_the_panel_and_reads_back(browser, served, tmp_path):
    page = browser.new_context(**PHONE).new_page()
    dialog = open_share_panel(page, f'{served}/{FRAME}')
    (here,) = links(dialog, 1)
    code, panel = dialog.get_by_role('img').bounding_box(), dialog.bounding_box()
    assert panel['x'] <= code['x'] and code['x'] + code['width'] <= panel['x'] + panel['width']  # not cut off
    assert qr_text(dialog, tmp_path) == here
    page.context.close()
