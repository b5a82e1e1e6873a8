"""Streamlit's own near-empty page, an `st.App` as main.py is: the anchor bench/bench_class.py measures the page's
first graph against, in the same run."""

from pathlib import Path

import streamlit as st

app = st.App(Path(__file__).with_name('empty_page.py'))
