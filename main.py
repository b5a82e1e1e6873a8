"""The server: the page (app.py) and the live class's routes (server/live.py), as one Streamlit app.

    python -m streamlit run main.py      (./run.sh does this)

Streamlit's own routes (/_stcore/health, /app/static/) are served as with `streamlit run app.py`; AppTest still tests
app.py itself."""

import asyncio
import contextlib

import streamlit as st

from server.live import routes
from server.streamlit_private import open_the_browser


@contextlib.asynccontextmanager
async def opening_the_browser(app):
    """On a desktop, the page opens in the browser once the server is up, as `streamlit run app.py` opens it."""
    asyncio.get_running_loop().call_soon(open_the_browser)
    yield


# st.App serves its own routes at the root, not under server.baseUrlPath as Streamlit's: server/live.py puts them there
app = st.App('app.py', routes=routes(), lifespan=opening_the_browser)
