"""bench/bare_graph.py as an st.App, as main.py serves the page: what the App itself costs a first graph."""

from pathlib import Path

import streamlit as st

app = st.App(Path(__file__).with_name('bare_graph.py'))
