"""The one-line script of bench/empty_app.py."""

import streamlit as st

st.write('An empty page.')
