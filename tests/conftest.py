"""What every folder of tests shares: property tests pinned to the same inputs on every run, and for the layout and
export tests every dot process started. The browser tests' fixtures are in tests/browser/conftest.py."""

import subprocess

import pytest
from hypothesis import settings

from server import layout

# every property test tries the same inputs on every run (derandomize, no example database), and none has a deadline:
# how long an example takes is this machine's speed and load, not the page's
settings.register_profile('pinned', derandomize=True, database=None, deadline=None)
settings.load_profile('pinned')


@pytest.fixture
def dot_processes(monkeypatch):
    """Every dot process server/layout.py starts (a layout or an export), to check each has ended."""
    started, popen = [], subprocess.Popen

    def recording(*args, **kwargs):
        started.append(popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(layout.subprocess, 'Popen', recording)
    return started
