"""What the page takes from Streamlit's private internals (server/streamlit_private.py) is still there: each test fails
naming the call when a Streamlit upgrade removes or changes it, rather than the page quietly following no link back,
keeping no click after a reconnect, or laying out for a visitor who left."""

import ast
import dataclasses

from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext
from streamlit.runtime.state.safe_session_state import SafeSessionState
from streamlit.testing.v1 import AppTest

from server import streamlit_private


def test_a_runs_context_still_says_whether_it_is_the_browsers_back_or_forward():
    fields = {f.name for f in dataclasses.fields(ScriptRunContext)}
    assert 'is_history_navigation' in fields, (
        'ScriptRunContext.is_history_navigation is gone: went_back_or_forward() now follows every link (Back too)'
    )
    assert 'session_id' in fields, 'ScriptRunContext.session_id is gone: session_waiting() cannot find the session'


def test_the_session_state_still_gives_the_widget_states_the_browser_sent():
    assert callable(getattr(SafeSessionState, 'get_widget_states', None)), (
        'SafeSessionState.get_widget_states() is gone: widgets_in_browser() keeps no click after a reconnect'
    )


def widgets_seen():
    import streamlit as st

    from server.streamlit_private import widgets_in_browser

    st.toggle('On', key='forward')
    st.number_input('a', key='input:reuse:a', value=3.0)
    st.text_input('Formula', key='formula')
    st.write(repr(sorted(widgets_in_browser().items())))


def test_a_keyed_widgets_id_still_ends_in_its_key_and_its_value_is_read_as_sent():
    at = AppTest.from_function(widgets_seen).run()
    ids = {w.key: w.id for w in [*at.toggle, *at.number_input, *at.text_input]}
    assert all(i.split('-', 2)[2] == key for key, i in ids.items()), (
        f"Streamlit's widget ids are no longer '$$ID-<hash>-<key>' ({ids}): widgets_in_browser() cannot read them"
    )
    at.toggle[0].set_value(True)
    at.number_input[0].set_value(7.5)
    at.text_input[0].set_value('a*b')
    at.run()
    seen = dict(ast.literal_eval(at.markdown[-1].value))
    assert seen == {'forward': True, 'input:reuse:a': 7.5, 'formula': 'a*b'}, (
        f'widgets_in_browser() read {seen} of the values the browser sent'
    )


def test_the_runtime_still_says_whether_a_session_is_connected():
    from streamlit.runtime import Runtime

    for name in ('exists', 'instance', 'is_active_session'):
        assert callable(getattr(Runtime, name, None)), (
            f'Runtime.{name} is gone: session_waiting() cannot tell that a visitor left, so their layout runs on'
        )
    assert streamlit_private.session_waiting()() is True  # no runtime here (a bare test): someone always waits


def test_the_network_address_is_still_found_as_streamlit_run_prints_it():
    # each of these is imported by server/streamlit_private.py; a missing one fails that import above, by name
    from streamlit import config, net_util
    from streamlit.web.server.server import server_address_is_unix_socket
    from streamlit.web.server.server_util import get_url

    assert callable(config.is_manually_set) and callable(net_util.get_internal_ip)
    assert callable(server_address_is_unix_socket) and callable(get_url)
    assert streamlit_private.network_url() is None or streamlit_private.network_url().startswith('http')


def test_without_what_an_upgrade_removed_the_page_runs_on_as_a_page_without_it(monkeypatch):
    monkeypatch.setattr(streamlit_private, 'get_script_run_ctx', lambda: None)
    monkeypatch.setattr(streamlit_private, 'Runtime', None)
    monkeypatch.setattr(streamlit_private, 'get_url', None)
    monkeypatch.setattr(streamlit_private, 'open_browser', None)
    streamlit_private.open_the_browser()  # no browser opens: the visitor opens the address ./run.sh prints
    assert streamlit_private.went_back_or_forward() is True  # every link that arrives is followed
    assert streamlit_private.widgets_in_browser() == {}
    assert streamlit_private.session_waiting()() is True  # someone always waits: a layout runs to its budget
    assert streamlit_private.network_url() is None  # the share panel gives the page's own link


def test_the_browser_is_still_opened_as_streamlit_run_opens_it():
    # `streamlit run main.py` serves an st.App, for which Streamlit opens no browser: main.py opens it with these
    from streamlit.cli_util import open_browser
    from streamlit.web.server.server_util import get_display_address

    assert callable(open_browser) and callable(get_display_address), (
        'streamlit.cli_util.open_browser or server_util.get_display_address is gone: ./run.sh opens no browser'
    )
    assert streamlit_private.open_browser is open_browser
