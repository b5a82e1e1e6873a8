"""The share panel: a link that reopens the exact frame shown, as text to copy and as a QR code a room can scan off
a projector, and the exports of that frame and of the whole pass for slides."""

import io
from urllib.parse import quote, urlencode

import segno
import streamlit as st

QR_PIXELS = 480  # on screen: a 600-character link is a 77-module code, 6 px a module, scannable across a room
QR_SCALE = 10  # px per module in the PNG download, for slides


def link_url(page_url, query):
    """The page's address with `query` as its query string: the link that reopens that picture."""
    base = page_url.split('#', 1)[0].split('?', 1)[0]
    return f'{base}?{urlencode(query, quote_via=quote, safe="")}'


def qr_code(url):
    """The QR code of `url` (segno), or None when the link is longer than a QR code holds."""
    try:
        return segno.make(url, error='m', micro=False)
    except segno.DataOverflowError:
        return None


def qr_png(code):
    buffer = io.BytesIO()
    code.save(buffer, kind='png', scale=QR_SCALE, border=4)
    return buffer.getvalue()


def qr_svg(code):
    buffer = io.BytesIO()
    code.save(buffer, kind='svg', scale=QR_SCALE, border=4, xmldecl=False)
    return buffer.getvalue()


@st.dialog('Share and export', width='large')
def share_dialog(url, frame_text, show_exports):
    """The link to this picture, its QR code, then `show_exports()`: the export buttons (components/export_panel)."""
    st.markdown(f'**A link to this picture** — {frame_text}')
    st.code(url, language=None, wrap_lines=True)
    code = qr_code(url)
    if code is None:
        st.info('This link is too long for a QR code: share the text above instead.', icon=':material/qr_code:')
    else:
        st.image(qr_png(code), width=QR_PIXELS, caption='Scan to open this frame')
        st.download_button('QR code (SVG)', qr_svg(code), 'backprop-link-qr.svg', 'image/svg+xml', on_click='ignore')
    show_exports()
