"""A number box for every input of the expression, named by its variable."""

import streamlit as st

from state import input_key


def input_values(expr_key, expression):
    """{name: value} as set in the boxes; each box starts at the expression's default."""
    values = {}
    names = list(expression.defaults)
    columns = st.columns(2)
    for i, name in enumerate(names):
        key = input_key(expr_key, name)
        if key not in st.session_state:
            st.session_state[key] = float(expression.defaults[name])
        with columns[i % 2]:
            values[name] = st.number_input(name, key=key, step=0.1, format='%.4f', min_value=-1e6, max_value=1e6)
    return values
