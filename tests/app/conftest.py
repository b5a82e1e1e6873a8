"""What the page's tests under AppTest share."""

import pytest
from streamlit.testing.v1 import AppTest

from components.player import PAINTED


@pytest.fixture(autouse=True)
def graph_painted(monkeypatch):
    """AppTest has no browser, so no player tells the page that its first graph is painted (components.player's
    painted, which the page draws the sidebar's controls after). Each AppTest's page starts as told, so the controls
    are there from its first run, as in a browser a moment after the graph; a test of the run before sets it back."""
    from_file = AppTest.from_file

    def painted_from_file(*args, **kwargs):
        at = from_file(*args, **kwargs)
        at.session_state[PAINTED] = True
        return at

    monkeypatch.setattr(AppTest, 'from_file', painted_from_file)
