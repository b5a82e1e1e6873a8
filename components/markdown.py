"""Text for Streamlit's markdown (headings, captions, toasts, errors) from names a user chose or a link held."""

import re


def md(text):
    """User text printed literally by st.markdown: every ASCII punctuation mark backslash-escaped.

    CommonMark lets any of them be escaped, and escaping them all leaves no emphasis, link, image,
    :colour[...] directive, $math$ or bare-URL autolink (https://, www.) for the text to make. Line
    breaks become spaces, so the text cannot start a block of its own.
    """
    return re.sub(r'([!-/:-@\[-`{-~])', r'\\\1', re.sub(r'\s+', ' ', printable(text)))


def printable(text):
    """Text with every character that cannot be shown or sent (lone surrogates, controls) as U+FFFD."""
    return ''.join(c if c.isprintable() or c in ' \n' else '\ufffd' for c in str(text))
