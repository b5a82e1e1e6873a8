"""What the whole page needs for WCAG 2.1 AA beyond Streamlit's theme (.streamlit/config.toml sets its colours):
Streamlit's own colours that the theme does not reach, darkened to 4.5:1 on their backgrounds. docs/accessibility.md
says what conforms and how it is tested (tests/browser/test_browser_access.py)."""

import streamlit as st

# st.code's keywords and function names are Streamlit's blue (3.8:1 on the code's grey); a caption's inline code is
# faded with the caption, its green then 2.8:1: the caption's own ink instead, 4.5:1 and over
PAGE_STYLE = (
    '<style>'
    '[data-testid="stCode"] .token.keyword, [data-testid="stCode"] .token.function,'
    '[data-testid="stCode"] .token.builtin, [data-testid="stCode"] .token.class-name { color: #0b5cad; }'
    '[data-testid="stCaptionContainer"] code { color: inherit; }'
    # a code block wider than a phone scrolled sideways, a region the keyboard cannot reach: every one wraps
    '[data-testid="stCode"] pre, [data-testid="stCode"] code {'
    ' white-space: pre-wrap !important; overflow-wrap: anywhere; }'
    # a switch that is off was a pale track on white (1.5:1; WCAG 1.4.11 asks 3:1 of a control's parts): outlined
    '[data-testid="stCheckbox"] label:has(input[role="switch"]):not([data-selected="true"]) > div:first-of-type'
    ' { box-shadow: inset 0 0 0 2px #5f616b; }'
    # Streamlit's main area takes the focus on the way from the sidebar to the graph: seen when it has it
    '[data-testid="stMain"]:focus-visible { outline: 3px solid #0b5cad; outline-offset: -3px; }'
    '</style>'
)


# the high-contrast look's page (the player's own is view/palette.py's HIGH_CONTRAST): Streamlit's faded captions in
# ink, 7:1 and over, for a projector that washes grey out
HIGH_CONTRAST_STYLE = '<style>[data-testid="stCaptionContainer"] { color: #0e1117; opacity: 1; }</style>'


def page_style(high_contrast=False):
    """The page's own accessibility style, once a run; with the high-contrast look's where it is on."""
    st.html(PAGE_STYLE + (HIGH_CONTRAST_STYLE if high_contrast else ''))
