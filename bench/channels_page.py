"""The one-line page of bench/channels_app.py: the channels' routes need a Streamlit script beside them."""

import streamlit as st

st.write('A follower of the lecturer: this page is never opened by bench_channels.')
