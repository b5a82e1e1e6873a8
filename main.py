"""The server: the page (app.py) and the live class's routes (server/live.py), as one Streamlit app.

    python -m streamlit run main.py      (./run.sh does this)

Streamlit's own routes (/_stcore/health, /app/static/) are served as with `streamlit run app.py`; AppTest still tests
app.py itself."""

import streamlit as st

from server.live import ROUTES

app = st.App('app.py', routes=ROUTES)
