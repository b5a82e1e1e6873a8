"""Text for Streamlit's markdown (headings, captions, toasts, errors) from names a user chose or a link held."""

import re


def md(text):
    """User text printed literally by st.markdown: every ASCII punctuation mark backslash-escaped.

    CommonMark lets any of them be escaped, and escaping them all leaves no emphasis, link, image,
    :colour[...] directive or $math$ for the text to make. Bare URLs and e-mail addresses would still be
    linked (GFM's autolinks look past escapes): an invisible word joiner breaks '://', 'www.' and '@'.
    Line breaks become spaces, so the text cannot start a block of its own.
    """
    text = re.sub(r'\s+', ' ', printable(text)).replace('://', f':{JOINER}//').replace('@', f'@{JOINER}')
    text = re.sub(r'(www)\.', rf'\1{JOINER}.', text, flags=re.I)
    return re.sub(r'([!-/:-@\[-`{-~])', r'\\\1', text)


JOINER = '\u2060'  # WORD JOINER: zero width, invisible


def printable(text):
    """Text with every character that cannot be shown or sent (lone surrogates, controls) as U+FFFD."""
    return ''.join(c if c.isprintable() or c in ' \n' else '\ufffd' for c in str(text))
