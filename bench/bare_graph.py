"""The anchor of bench/bench_first_graph.py: a bare Streamlit page that draws the neuron with st.graphviz_chart,
the page's own first frame's DOT, as `streamlit run bench/bare_graph.py` serves it."""

import streamlit as st

from engine import PRESETS, trace_backward
from engine.frames import frames
from view.graph import build_dot
from view.numbers import number_width

trace = trace_backward(*reversed(PRESETS['neuron'].build()))
st.graphviz_chart(build_dot(trace, frames(trace)[0], number_width(trace)))
