"""Every use of Streamlit's private internals, in one place: what the page needs and Streamlit 1.67 has no public call
for. Each is pinned by tests/app/test_streamlit_private.py, which fails naming the call when an upgrade removes it;
here each falls back to what a page without it does."""

from streamlit import config, net_util  # public modules, though their functions used here are not documented

try:  # where an upgrade moves one of these, the page runs on without what it gave (the tests name it)
    from streamlit.runtime.scriptrunner import get_script_run_ctx
except ImportError:

    def get_script_run_ctx():
        return None


try:
    from streamlit.runtime import Runtime
except ImportError:
    Runtime = None
try:
    from streamlit.web.server.server import server_address_is_unix_socket
    from streamlit.web.server.server_util import get_display_address, get_url
except ImportError:
    server_address_is_unix_socket = get_display_address = get_url = None
try:
    from streamlit.cli_util import open_browser
except ImportError:
    open_browser = None

SENT_AS = ('bool_value', 'double_value', 'int_value', 'string_value')  # a toggle, a number box, a text or a choice


def went_back_or_forward():
    """Whether this run is the browser's Back or Forward (state.follow_link): the run's context keeps it. Where it has
    none, True: every link that arrives is followed."""
    return getattr(get_script_run_ctx(), 'is_history_navigation', True)


def widgets_in_browser():
    """{key: value} of the keyed widgets whose values the browser sent with this run, as it sent them (state.
    follow_link keeps them at a first run: a page that reconnected to a new session). Streamlit names a keyed widget's
    id '$$ID-<hash>-<key>'; where it has no such states, none."""
    ctx = get_script_run_ctx()
    try:
        states = ctx.session_state.get_widget_states() if ctx is not None else []
    except AttributeError:
        return {}
    sent = {}
    for s in states:
        kind, parts = s.WhichOneof('value'), s.id.split('-', 2)
        if kind in SENT_AS and len(parts) == 3:
            sent[parts[2]] = getattr(s, kind)
    return sent


def session_waiting():
    """A function that says whether this script run's visitor is still connected: a layout nobody waits for stops."""
    ctx = get_script_run_ctx()
    if ctx is None or Runtime is None or not Runtime.exists():
        return lambda: True  # AppTest, or a bare script run: someone is always waiting
    runtime, session_id = Runtime.instance(), ctx.session_id
    return lambda: runtime.is_active_session(session_id)


def network_url():
    """The address other machines reach this server at, as `streamlit run` prints it (Streamlit's
    web/bootstrap.py, _print_url): browser.serverAddress if set; else server.address if the server is bound to one
    address; else the "Network URL", this machine's address on its network (net_util.get_internal_ip, which says
    127.0.0.1 when there is none). None on a Unix socket, which only a proxy on this machine reaches, and where
    Streamlit no longer has the calls this reads (the share panel then gives the page's own link)."""
    if get_url is None:
        return None
    if config.is_manually_set('browser.serverAddress'):
        host = config.get_option('browser.serverAddress')
    elif server_address_is_unix_socket():
        return None
    elif config.is_manually_set('server.address') and config.get_option('server.address') not in {'0.0.0.0', '::'}:
        host = config.get_option('server.address')
    else:
        host = net_util.get_internal_ip()
    if not host:
        return None
    return get_url(f'[{host}]' if ':' in host and not host.startswith('[') else host)  # an IPv6 address, bracketed


def open_the_browser():
    """Open the page in this machine's browser, as `streamlit run app.py` does once its server is up (Streamlit's
    web/bootstrap.py, _on_server_start): `streamlit run main.py` serves an st.App, and Streamlit opens no browser for
    one. Not on a headless server, nor on a Unix socket; nothing where Streamlit no longer has the calls."""
    if open_browser is None or get_url is None or config.get_option('server.headless'):
        return
    if config.is_manually_set('browser.serverAddress'):
        address = config.get_option('browser.serverAddress')
    elif config.is_manually_set('server.address'):
        if server_address_is_unix_socket():
            return
        address = get_display_address(config.get_option('server.address'))
    else:
        address = 'localhost'
    open_browser(get_url(address))
