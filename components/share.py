"""The share panel: a link that reopens the exact frame shown, as text to copy and as a QR code a room can scan off
a projector, and the exports of that frame and of the whole pass for slides.

A page opened on the lecturer's own machine (http://localhost:8501) has a link no student's phone can open; the
panel then gives the link at the address other machines reach the server at, as `streamlit run` prints it, at the
port of the proxy it came through if it came through one (a load balancer in front of replicas); and wherever it is
opened, at $BACKPROP_PUBLIC_URL where that is set (the address students reach, where the server cannot know it)."""

import io
import ipaddress
import os
from dataclasses import dataclass
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

import segno
import streamlit as st

from server.streamlit_private import network_url

QR_PIXELS = 480  # on screen at least (a phone's narrower panel: its width): a 600-character link's code is 101
# modules wide with its border, 5 px a module, 505 px, scannable across a room
QR_SCALE = 10  # px per module in the SVG download, for slides

FOR_OTHERS = "**For students on other machines** (your network's address)"
FOR_HERE = '**On this machine**'
FOR_HERE_ONLY = '**On this machine only**'
NO_NETWORK = (
    'Students on other machines cannot open `{host}`, and this server has no address on a network. On the '
    "room's network, run the page with the command below, or host it (docs/hosting.md)."
)
RUN_ON_THE_NETWORK = './run.sh --server.address 0.0.0.0'  # the command NO_NETWORK means, with a copy button
PUBLIC_ENV = 'BACKPROP_PUBLIC_URL'  # the address students reach the page at (`https://backprop.example.edu`)


@dataclass(frozen=True)
class Link:
    """A link the panel shows: `words` say who it is for (None: the only one), `scan` whether its QR code is drawn."""

    url: str
    words: str | None = None
    scan: bool = True


def link_url(page_url, query):
    """The page's address with `query` as its query string: the link that reopens that picture."""
    base = page_url.split('#', 1)[0].split('?', 1)[0]
    return f'{base}?{urlencode(query, quote_via=quote, safe="")}'


def on_this_machine(host):
    """Whether `host`, a URL's hostname, names only the machine it is opened on: localhost (and *.localhost, which
    browsers keep local), 127.x.x.x, ::1 (also as ::ffff:127.0.0.1), or 0.0.0.0 and ::, which reach this machine.
    A name is never looked up: a proxy's or a host's name is what the visitor's browser reached."""
    host = (host or '').rstrip('.')
    if host == 'localhost' or host.endswith('.localhost'):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    address = getattr(address, 'ipv4_mapped', None) or address
    return address.is_loopback or address.is_unspecified


def links_to_share(link, network, public=None, proxied=False):
    """The links the panel shows for `link` (the frame's, at the page's own address), and a warning or None.

    `network` is the address other machines reach this server at (network_url), or None. A page opened on this
    machine gets the link at that address for students, with its QR code, and its own link for this machine;
    only the scheme, host and port change, and where the page came through a proxy (`proxied`: a load balancer on
    this machine in front of the replicas), the port and scheme stay the proxy's, which students reach, never the
    replica's own. Without one (None, or itself on this machine) the page's own link stays, marked as for this
    machine only, with the warning. A page opened at any other host (hosted, behind a proxy, or at the network's
    address itself) is what its visitors reached: its link is the one. `public` (an address such as
    'https://backprop.example.edu', from $BACKPROP_PUBLIC_URL) is where students reach the page, wherever it was
    opened: its scheme, host and port, with the page's path and query."""
    page = urlsplit(link)
    here = on_this_machine(page.hostname)
    public = urlsplit(public or '')
    if public.scheme in ('http', 'https') and public.hostname:
        for_students = urlunsplit((public.scheme, public.netloc, page.path, page.query, ''))
        if here and for_students != link:
            return [Link(for_students, FOR_OTHERS), Link(link, FOR_HERE, scan=False)], None
        return [Link(for_students)], None
    if not here:
        return [Link(link)], None
    there = urlsplit(network or '')
    if not there.hostname or on_this_machine(there.hostname):
        host = f'[{page.hostname}]' if ':' in page.hostname else page.hostname
        return [Link(link, FOR_HERE_ONLY)], NO_NETWORK.format(host=host)
    scheme, netloc = there.scheme, there.netloc
    if proxied:  # the network's host, at the proxy's port: the replica's own port is behind it
        host = f'[{there.hostname}]' if ':' in there.hostname else there.hostname
        scheme, netloc = page.scheme, f'{host}:{page.port}' if page.port else host
    for_others = urlunsplit((scheme, netloc, page.path, page.query, ''))
    return [Link(for_others, FOR_OTHERS), Link(link, FOR_HERE, scan=False)], None


def students_links(link):
    """links_to_share for `link` on this server, as this page reached it: the network's address, $BACKPROP_PUBLIC_URL,
    and whether the page came through a proxy (its request names the client in X-Forwarded-For)."""
    proxied = bool(st.context.headers.get('X-Forwarded-For')) if st.context.headers else False
    return links_to_share(link, network_url(), os.environ.get(PUBLIC_ENV, '').strip() or None, proxied)


def qr_code(url):
    """The QR code of `url` (segno), or None when the link is longer than a QR code holds."""
    try:
        return segno.make(url, error='m', micro=False)
    except segno.DataOverflowError:
        return None


def qr_png(code):
    """The PNG on screen: whole pixels a module, at least QR_PIXELS wide. st.image shows it at that width, or as
    wide as the panel where it is narrower (a phone's): a fixed width would overflow the panel and cut it."""
    modules = code.symbol_size(scale=1, border=4)[0]
    buffer = io.BytesIO()
    code.save(buffer, kind='png', scale=-(-QR_PIXELS // modules), border=4)
    return buffer.getvalue()


def qr_svg(code):
    buffer = io.BytesIO()
    code.save(buffer, kind='svg', scale=QR_SCALE, border=4, xmldecl=False)
    return buffer.getvalue()


@st.dialog('Share and export', width='large')
def share_dialog(link, frame_text, show_exports):
    """The link to this picture (links_to_share: for students and for this machine, where the page is opened on
    it), the QR code of the one students open, then `show_exports()`: the export buttons (components/export_panel)."""
    st.markdown(f'**A link to this picture** — {frame_text}')
    show_links(link)
    show_exports()


def show_links(link):
    """`link` for students and for this machine (links_to_share), each as text to copy, the students' one with its
    QR code; where students cannot reach this server, why, and the command that serves the room."""
    links, warning = students_links(link)
    if warning:
        st.warning(warning, icon=':material/wifi_off:')
        st.code(RUN_ON_THE_NETWORK, language='bash')
    for shown in links:
        if shown.words:
            st.markdown(shown.words)
        st.code(shown.url, language=None, wrap_lines=True)
        if shown.scan:
            show_qr_code(shown.url)


def show_qr_code(url):
    code = qr_code(url)
    if code is None:
        st.info('This link is too long for a QR code: share the text above instead.', icon=':material/qr_code:')
    else:
        st.image(qr_png(code), caption='Scan to open this frame', alt=f'QR code of the link {url}')
        st.download_button('QR code (SVG)', qr_svg(code), 'backprop-link-qr.svg', 'image/svg+xml', on_click='ignore')
